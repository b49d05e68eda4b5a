//! Golden values of the TPB / PSUM / PREPROC family on every arch [FACTS §3.1].

use khal::family::{Tile, TpbBases};
use khal::{Cayman, DeviceAddr, Error, Mariana, Sunda};
use khal::{MeshHalf, MESH_HIGH_BIT};

const TRN2_TPB: [u64; 8] = [
    0x20_0000_0000,
    0x30_0000_0000,
    0x60_0000_0000,
    0x70_0000_0000,
    0x8020_0000_0000,
    0x8030_0000_0000,
    0x8060_0000_0000,
    0x8070_0000_0000,
];

fn tpb<A: TpbBases>() -> Vec<u64> {
    Tile::<A>::all().map(|t| A::tpb_base(t).get()).collect()
}

#[test]
fn cayman_and_mariana_tpb_golden() {
    assert_eq!(tpb::<Cayman>(), TRN2_TPB);
    assert_eq!(tpb::<Mariana>(), TRN2_TPB);
    for i in 0..8 {
        assert_eq!(
            Cayman::tpb_base(Cayman::tile(i).unwrap()).get(),
            TRN2_TPB[i as usize]
        );
        assert_eq!(Cayman::tile(i).unwrap().index(), i);
    }
}

#[test]
fn sunda_tpb_from_the_kernel_window() {
    // kdrv v2: window 0xFFF_C000_0000, size 0x400_0000, count 2 (tile layout MED).
    assert_eq!(tpb::<Sunda>(), [0xFFF_C000_0000, 0xFFF_C400_0000]);
    assert_eq!(Sunda::TPB_BASES.len(), 2);
}

#[test]
fn upper_tiles_are_lower_tiles_plus_the_mesh_bit() {
    fn check<A: TpbBases>() {
        for i in 0..4 {
            let lo = A::tpb_base(A::tile(i).unwrap());
            let hi = A::tpb_base(A::tile(i + 4).unwrap());
            assert_eq!(hi.get(), lo.get() | MESH_HIGH_BIT);
            assert_eq!(lo.mesh_half(), MeshHalf::Low);
            assert_eq!(hi.mesh_half(), MeshHalf::High);
        }
    }
    check::<Cayman>();
    check::<Mariana>();
    for t in Tile::<Sunda>::all() {
        let base = Sunda::tpb_base(t);
        assert_eq!(base.mesh_half(), MeshHalf::Low, "SUNDA is single-mesh");
    }
}

#[test]
fn psum_is_tpb_plus_the_aperture_delta_on_all_eight_tiles() {
    // The aperture delta [000 §3 NOTE].
    const PSUM_DELTA: u64 = 0x8_0200_0000;
    let golden: [u64; 8] = [
        0x28_0200_0000,
        0x38_0200_0000,
        0x68_0200_0000,
        0x78_0200_0000,
        0x8028_0200_0000,
        0x8038_0200_0000,
        0x8068_0200_0000,
        0x8078_0200_0000,
    ];
    for (i, want) in golden.iter().enumerate() {
        let c = Cayman::tile(i as u32).unwrap();
        let m = Mariana::tile(i as u32).unwrap();
        assert_eq!(Cayman::psum_base(c), Ok(DeviceAddr(*want)));
        assert_eq!(Mariana::psum_base(m), Ok(DeviceAddr(*want)));
        assert_eq!(*want, TRN2_TPB[i] + PSUM_DELTA);
    }
    for t in Tile::<Sunda>::all() {
        assert!(matches!(Sunda::psum_base(t), Err(Error::NotTraced(_))));
    }
}

#[test]
fn preproc_golden() {
    let golden = [
        0x12_0000_0000,
        0x52_0000_0000,
        0x8012_0000_0000,
        0x8052_0000_0000,
    ];
    fn check<A: TpbBases>(golden: &[u64; 4]) {
        let bases: Vec<u64> = A::PREPROC_BASES.unwrap().iter().map(|b| b.get()).collect();
        assert_eq!(bases, golden);
        assert_eq!(A::PREPROC_SIZE, Ok(0x34C_0000));
    }
    check::<Cayman>(&golden);
    check::<Mariana>(&golden);
    assert!(matches!(Sunda::PREPROC_BASES, Err(Error::NotTraced(_))));
    assert!(matches!(Sunda::PREPROC_SIZE, Err(Error::NotTraced(_))));
}

#[test]
fn out_of_range_tiles_are_typed_errors() {
    for bad in [8, 9, 255, 256, u32::MAX] {
        assert_eq!(
            Cayman::tile(bad),
            Err(Error::out_of_range("tpb tile", bad as u64, 8))
        );
        assert!(Mariana::tile(bad).is_err());
    }
    for bad in [2, 7, u32::MAX] {
        assert_eq!(
            Sunda::tile(bad),
            Err(Error::out_of_range("tpb tile", bad as u64, 2))
        );
    }
}
