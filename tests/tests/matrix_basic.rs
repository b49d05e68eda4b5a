//! Smoke test: every arch implements every register family through `Arch`.

use khal::family::Arch;
use khal::{ArchId, Cayman, Mariana, Sunda};

fn identity<A: Arch>() -> (ArchId, &'static str, usize, usize, bool) {
    (
        A::ID,
        A::ID.name(),
        A::TPB_BASES.len(),
        A::HBM.channel_bases.len(),
        A::DVE_TABLES.offsets.is_some(),
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
}
