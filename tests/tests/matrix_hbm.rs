//! Golden values of the HBM map on every arch [FACTS §3.1].

use khal::family::{HbmBarWindow, HbmMap, HbmUsableSize};
use khal::{Cayman, DeviceAddr, Error, Mariana, Sunda};
use khal::{MeshHalf, MESH_HIGH_BIT};

fn bases<A: HbmMap>() -> Vec<u64> {
    A::HBM.channel_bases.iter().map(|b| b.get()).collect()
}

#[test]
fn channel_bases_golden() {
    let trn2 = [0x0, 0x40_0000_0000, 0x8000_0000_0000, 0x8040_0000_0000];
    assert_eq!(bases::<Cayman>(), trn2);
    assert_eq!(bases::<Mariana>(), trn2);
    assert_eq!(bases::<Sunda>(), [0x0, 0x10_0000_0000]);
    assert_eq!(Cayman::HBM.channel_bases.len(), 4);
    assert_eq!(Mariana::HBM.channel_bases.len(), 4);
    assert_eq!(Sunda::HBM.channel_bases.len(), 2);
}

#[test]
fn upper_channels_are_lower_channels_plus_the_mesh_bit() {
    fn check<A: HbmMap>() {
        let b = A::HBM.channel_bases;
        for (lo, hi) in b.iter().zip(&b[2..]) {
            assert_eq!(hi.get(), lo.get() | MESH_HIGH_BIT);
            assert_eq!(lo.mesh_half(), MeshHalf::Low);
            assert_eq!(hi.mesh_half(), MeshHalf::High);
        }
        assert_eq!(b.len(), 4);
    }
    check::<Cayman>();
    check::<Mariana>();
}

#[test]
fn usable_sizes_golden() {
    assert_eq!(Sunda::HBM.usable_size, HbmUsableSize(0x4_0000_0000));
    assert_eq!(Cayman::HBM.usable_size, HbmUsableSize(0x6_0000_0000));
    assert_eq!(Mariana::HBM.usable_size, HbmUsableSize(0x9_0000_0000));
    assert_eq!(Cayman::HBM.usable_size.0, 24 << 30);
    assert_eq!(Mariana::HBM.usable_size.0, 36 << 30);
    assert_eq!(Sunda::HBM.usable_size.0, 16 << 30);
}

#[test]
fn bar_window_is_a_different_quantity() {
    assert_eq!(Cayman::HBM.bar_window, Ok(HbmBarWindow(0x10_0000_0000)));
    assert_ne!(Cayman::HBM.bar_window.unwrap().0, Cayman::HBM.usable_size.0);
    assert!(matches!(Sunda::HBM.bar_window, Err(Error::NotTraced(_))));
    assert!(matches!(Mariana::HBM.bar_window, Err(Error::NotTraced(_))));
}

#[test]
fn no_channel_past_the_arch_count() {
    assert_eq!(Cayman::HBM.channel_bases.get(4), None);
    assert_eq!(Mariana::HBM.channel_bases.get(4), None);
    assert_eq!(Sunda::HBM.channel_bases.get(2), None);
    assert_eq!(
        Sunda::HBM.channel_bases.last(),
        Some(&DeviceAddr(0x10_0000_0000))
    );
}
