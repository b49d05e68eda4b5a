//! A one-shot descriptor ring: transfers `src → dst, len`, then one completion.
//!
//! The notes' loader builds a fresh vring per load: one
//! `vring_add_desc_transfer(vring, src, dst, len)` per table, then
//! `vring_add_event_accel` (the completion/event descriptor), then
//! `vring_dump_to_pring` [000 §4], [FACTS §8]. [`OneShotRing`] is that list,
//! allocation-free (fixed capacity `N`), validated as it is built: a transfer
//! after the completion, a zero-length transfer, a range that wraps the address
//! space, or a total above `u32::MAX` bytes is refused. The encoding of a
//! descriptor in device memory is the [`super::DmaQueue`] backend's business
//! (the vendor's encoding is NOT TRACED).

use heapless::Vec;

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};

/// One descriptor of a ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Descriptor {
    /// Copy `len` bytes from bus address `src` to device address `dst`
    /// (`vring_add_desc_transfer`) [000 §4].
    Transfer {
        /// Source bus address (a staged buffer's `bus_addr`).
        src: u64,
        /// Destination device address.
        dst: DeviceAddr,
        /// Bytes to move (never 0).
        len: u32,
    },
    /// Raise the completion once every earlier descriptor is done
    /// (`vring_add_event_accel`) [000 §4]. Its event addresses
    /// (`tdrv_arch_get_evt_accel_addr` / `_evt_addr`) are NOT TRACED: the
    /// backend signals completion its own way.
    Completion,
}

/// A ring of at most `N` descriptors, built once and submitted once.
#[derive(Debug, Clone, Default)]
pub struct OneShotRing<const N: usize> {
    descs: Vec<Descriptor, N>,
    total: u32,
    closed: bool,
}

impl<const N: usize> OneShotRing<N> {
    /// An empty ring.
    pub const fn new() -> Self {
        OneShotRing {
            descs: Vec::new(),
            total: 0,
            closed: false,
        }
    }

    /// Append a transfer of `len` bytes from `src` to `dst`.
    ///
    /// Refused (ring unchanged): after [`Self::add_completion`]
    /// ([`Error::InvalidArgument`]); `len == 0` or a source or destination range
    /// that wraps past `u64::MAX` ([`Error::InvalidArgument`]); a ring total
    /// above `u32::MAX` ([`Error::OutOfRange`]); a full ring, keeping one slot
    /// for the completion ([`Error::OutOfRange`]).
    pub fn add_transfer(&mut self, src: u64, dst: DeviceAddr, len: u32) -> Result<()> {
        if self.closed {
            return Err(Error::InvalidArgument(
                "transfer after the completion descriptor",
            ));
        }
        if len == 0 {
            return Err(Error::InvalidArgument("zero-length dma transfer"));
        }
        let wraps = |a: u64| a.checked_add(u64::from(len) - 1).is_none();
        if wraps(src) || wraps(dst.get()) {
            return Err(Error::InvalidArgument(
                "dma transfer wraps the address space",
            ));
        }
        let total = self.total.checked_add(len).ok_or(Error::out_of_range(
            "dma ring total bytes",
            u64::from(self.total) + u64::from(len),
            u64::from(u32::MAX) + 1,
        ))?;
        // One slot stays free for the completion descriptor.
        if self.descs.len() + 1 >= N {
            return Err(self.full());
        }
        self.descs
            .push(Descriptor::Transfer { src, dst, len })
            .map_err(|_| self.full())?;
        self.total = total;
        Ok(())
    }

    /// Close the ring with its completion descriptor. A ring closes once and
    /// must hold at least one transfer ([`Error::InvalidArgument`] otherwise).
    pub fn add_completion(&mut self) -> Result<()> {
        if self.closed {
            return Err(Error::InvalidArgument("ring already has its completion"));
        }
        if self.descs.is_empty() {
            return Err(Error::InvalidArgument("ring without a transfer"));
        }
        self.descs
            .push(Descriptor::Completion)
            .map_err(|_| self.full())?;
        self.closed = true;
        Ok(())
    }

    /// `true` once the completion descriptor is in.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed
    }

    /// The descriptors, in ring order.
    pub(crate) fn descriptors(&self) -> &[Descriptor] {
        &self.descs
    }

    /// Bytes all transfers move together.
    pub(crate) fn total_bytes(&self) -> u32 {
        self.total
    }

    fn full(&self) -> Error {
        Error::out_of_range(
            "dma ring descriptors",
            self.descs.len() as u64 + 1,
            N as u64,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert!(r.is_closed());
        assert_eq!(r.total_bytes(), 24);
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
        assert_eq!(r.total_bytes(), u32::MAX);
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
}
