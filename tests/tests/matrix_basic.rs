//! Smoke test: every arch implements every register family through `Arch`.

use khal::family::Arch;
use khal::{ArchId, Cayman, Mariana, Sunda};

fn identity<A: Arch>() -> (ArchId, &'static str, u32, u32, bool) {
    (
        A::ID,
        A::NAME,
        A::tpb_count(),
        A::hbm_channel_count(),
        A::DVE_TABLE_OFFSETS.is_some(),
    )
}

#[test]
fn every_arch_is_an_arch() {
    assert_eq!(identity::<Sunda>(), (ArchId::Sunda, "sunda", 2, 2, false));
    assert_eq!(identity::<Cayman>(), (ArchId::Cayman, "cayman", 8, 4, true));
    assert_eq!(
        identity::<Mariana>(),
        (ArchId::Mariana, "mariana", 8, 4, true)
    );
    for (id, name) in [
        (Sunda::ID, Sunda::NAME),
        (Cayman::ID, Cayman::NAME),
        (Mariana::ID, Mariana::NAME),
    ] {
        assert_eq!(id.name(), name);
    }
}
