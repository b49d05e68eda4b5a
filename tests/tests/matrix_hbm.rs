//! Golden values of the HBM map on every arch [FACTS §3.1].

use khal::addr::{MeshHalf, MESH_HIGH_BIT};
use khal::family::{HbmBarWindow, HbmChannel, HbmMap, HbmUsableSize};
use khal::{Cayman, Error, Mariana, Sunda};

fn bases<A: HbmMap>() -> Vec<u64> {
    HbmChannel::<A>::all()
        .map(|c| A::hbm_channel_base(c).get())
        .collect()
}

#[test]
fn channel_bases_golden() {
    let trn2 = [0x0, 0x40_0000_0000, 0x8000_0000_0000, 0x8040_0000_0000];
    assert_eq!(bases::<Cayman>(), trn2);
    assert_eq!(bases::<Mariana>(), trn2);
    assert_eq!(bases::<Sunda>(), [0x0, 0x10_0000_0000]);
    assert_eq!(Cayman::hbm_channel_count(), 4);
    assert_eq!(Mariana::hbm_channel_count(), 4);
    assert_eq!(Sunda::hbm_channel_count(), 2);
}

#[test]
fn upper_channels_are_lower_channels_plus_the_mesh_bit() {
    fn check<A: HbmMap>() {
        for i in 0..2 {
            let lo = A::hbm_channel(i).unwrap();
            let hi = A::hbm_channel(i + 2).unwrap();
            assert_eq!(hi.base().get(), lo.base().get() | MESH_HIGH_BIT);
            assert_eq!(lo.mesh_half(), MeshHalf::Low);
            assert_eq!(hi.mesh_half(), MeshHalf::High);
        }
    }
    check::<Cayman>();
    check::<Mariana>();
}

#[test]
fn usable_sizes_golden() {
    assert_eq!(Sunda::get_hbm_size(), HbmUsableSize(0x4_0000_0000));
    assert_eq!(Cayman::get_hbm_size(), HbmUsableSize(0x6_0000_0000));
    assert_eq!(Mariana::get_hbm_size(), HbmUsableSize(0x9_0000_0000));
    assert_eq!(Cayman::get_hbm_size().bytes(), 24 << 30);
    assert_eq!(Mariana::get_hbm_size().bytes(), 36 << 30);
    assert_eq!(Sunda::get_hbm_size().bytes(), 16 << 30);
}

#[test]
fn bar_window_is_a_different_quantity() {
    assert_eq!(Cayman::hbm_bar_window(), Ok(HbmBarWindow(0x10_0000_0000)));
    assert_ne!(
        Cayman::hbm_bar_window().unwrap().bytes(),
        Cayman::get_hbm_size().bytes()
    );
    assert!(matches!(Sunda::hbm_bar_window(), Err(Error::NotTraced(_))));
    assert!(matches!(
        Mariana::hbm_bar_window(),
        Err(Error::NotTraced(_))
    ));
}

#[test]
fn out_of_range_channels_are_typed_errors() {
    assert_eq!(
        Cayman::hbm_channel(4),
        Err(Error::OutOfRange {
            what: "hbm channel",
            value: 4,
            limit: 4
        })
    );
    assert!(Mariana::hbm_channel(u32::MAX).is_err());
    assert_eq!(
        Sunda::hbm_channel(2),
        Err(Error::OutOfRange {
            what: "hbm channel",
            value: 2,
            limit: 2
        })
    );
}
