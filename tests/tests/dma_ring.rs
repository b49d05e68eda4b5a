//! `dma::ring`: the one-shot descriptor ring [000 §4].

use khal_core::dma::{Descriptor, OneShotRing};
use khal_core::{DeviceAddr, Error};

/// The bytes the ring's transfers move together.
fn total_bytes<const N: usize>(r: &OneShotRing<N>) -> u64 {
    r.descriptors()
        .iter()
        .map(|d| match *d {
            Descriptor::Transfer { len, .. } => u64::from(len),
            Descriptor::Completion => 0,
        })
        .sum()
}

#[test]
fn builds_transfers_then_one_completion() {
    let mut r = OneShotRing::<3>::new();
    r.add_transfer(0x1000, DeviceAddr(0x2000), 16).unwrap();
    r.add_transfer(0x3000, DeviceAddr(0x4000), 8).unwrap();
    // The last slot is the completion's: the third descriptor of a
    // three-slot ring cannot be a transfer.
    assert_eq!(
        r.add_transfer(0x5000, DeviceAddr(0x6000), 8),
        Err(Error::OutOfRange {
            what: "dma ring descriptors",
            value: 3,
            limit: 3
        })
    );
    r.add_completion().unwrap();
    assert_eq!(r.descriptors().last(), Some(&Descriptor::Completion));
    assert_eq!(total_bytes(&r), 24);
    assert_eq!(
        r.descriptors(),
        &[
            Descriptor::Transfer {
                src: 0x1000,
                dst: DeviceAddr(0x2000),
                len: 16
            },
            Descriptor::Transfer {
                src: 0x3000,
                dst: DeviceAddr(0x4000),
                len: 8
            },
            Descriptor::Completion
        ]
    );
    assert_eq!(
        r.add_transfer(1, DeviceAddr(2), 1),
        Err(Error::InvalidArgument(
            "transfer after the completion descriptor"
        ))
    );
    assert!(r.add_completion().is_err());
}

#[test]
fn refuses_bad_transfers_and_leaves_the_ring_unchanged() {
    let mut r = OneShotRing::<8>::new();
    assert_eq!(
        r.add_transfer(0, DeviceAddr(0), 0),
        Err(Error::InvalidArgument("zero-length dma transfer"))
    );
    assert_eq!(
        r.add_transfer(u64::MAX, DeviceAddr(0), 2),
        Err(Error::InvalidArgument(
            "dma transfer wraps the address space"
        ))
    );
    assert_eq!(
        r.add_transfer(0, DeviceAddr(u64::MAX - 2), 4),
        Err(Error::InvalidArgument(
            "dma transfer wraps the address space"
        ))
    );
    // Exactly reaching u64::MAX is fine.
    r.add_transfer(u64::MAX, DeviceAddr(0), 1).unwrap();
    r.add_transfer(0, DeviceAddr(0), u32::MAX - 1).unwrap();
    assert_eq!(
        r.add_transfer(0, DeviceAddr(0), 1),
        Err(Error::out_of_range(
            "dma ring total bytes",
            u64::from(u32::MAX) + 1,
            u64::from(u32::MAX) + 1
        ))
    );
    assert_eq!(r.descriptors().len(), 2);
    assert_eq!(total_bytes(&r), u64::from(u32::MAX));
}

#[test]
fn an_empty_ring_cannot_close() {
    let mut r = OneShotRing::<2>::new();
    assert_eq!(
        r.add_completion(),
        Err(Error::InvalidArgument("ring without a transfer"))
    );
    let mut tiny = OneShotRing::<1>::new();
    assert!(matches!(
        tiny.add_transfer(0, DeviceAddr(0), 1),
        Err(Error::OutOfRange { .. })
    ));
}
