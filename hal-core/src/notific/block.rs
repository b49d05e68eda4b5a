//! The device's notification blocks, each lent to one engine at a time.
//!
//! A [`NotificBlocks`] stands for one device's notification blocks: make one
//! per device (a `static` in firmware, a field next to the register window on
//! a host) and take each block from it once ([`NotificBlocks::take`]). A
//! [`NotificBlock`] is the block's owner: not `Clone`, lent `&mut` to
//! [`NotificEngine::init`](super::NotificEngine::init), and handed back to the
//! set when it is dropped. Two engines on one block would each hand out the
//! same queues and write `nq_enable` from their own shadows, disabling each
//! other's queues [004 §2 GOTCHA]: taking a block twice is
//! [`Error::BlockTaken`], and lending one block to two engines at once does
//! not compile.

use core::cell::Cell;

use critical_section::Mutex;

use crate::error::{Error, ErrorAddr, Result};
use crate::DeviceAddr;

use super::regs::NOTIFIC_EXTENT;

/// A free slot. A slot holds the address of the last byte of the block it
/// lends (its base plus [`NOTIFIC_EXTENT`] − 1): never 0, and no overflow
/// for a block that fits below 2^64, the top one included. A free set is
/// all zeros, so a `static` one is in `.bss`.
const FREE: u64 = 0;

/// One slot of a [`NotificBlocks`]: the last byte of the block it lends, or
/// [`FREE`].
type Slot = Mutex<Cell<u64>>;

/// One device's notification blocks: each taken at most once at a time.
///
/// The set records the blocks currently lent out (at most
/// 64, a khal choice: 8 bytes of RAM a slot); a
/// block is lent from [`NotificBlocks::take`] until its [`NotificBlock`] is
/// dropped. The set is `Sync` (its slots live
/// in a [`critical_section::Mutex`]), so a firmware `static` serves every
/// context. One set per device: two sets over one device would lend a block
/// twice.
///
/// ```
/// use khal_core::notific::{BpMode, EngineConfig, NotificBlocks, NotificEngine};
/// use khal_core::{DeviceAddr, Error};
/// # use khal_core::{Mmio, Result};
/// # struct Zeros;
/// # impl Mmio for Zeros {
/// #     fn read32(&self, _: DeviceAddr) -> Result<u32> { Ok(0) }
/// #     fn write32(&self, _: DeviceAddr, _: u32) -> Result<()> { Ok(()) }
/// # }
/// # let window = Zeros;
/// static BLOCKS: NotificBlocks = NotificBlocks::new();
///
/// let mut ens = BLOCKS.take(DeviceAddr(0x8000))?;
/// // The same block again, or one overlapping it, while `ens` lives: refused.
/// assert!(matches!(BLOCKS.take(DeviceAddr(0x8000)), Err(Error::BlockTaken { .. })));
/// let engine = NotificEngine::init(&window, &mut ens, EngineConfig::tpb(BpMode::None))?;
/// drop(engine); // the loan ends: the block can be brought up again
/// let again = NotificEngine::init(&window, &mut ens, EngineConfig::tpb(BpMode::All))?;
/// drop(again);
/// drop(ens); // back in the set
/// assert!(BLOCKS.take(DeviceAddr(0x8000)).is_ok());
/// # Ok::<(), khal_core::Error>(())
/// ```
pub struct NotificBlocks {
    slots: [Slot; NotificBlocks::CAPACITY],
}

impl NotificBlocks {
    /// Most blocks one set lends at once.
    pub(crate) const CAPACITY: usize = 64;

    /// A set with every block free.
    pub const fn new() -> NotificBlocks {
        NotificBlocks {
            slots: [const { Mutex::new(Cell::new(FREE)) }; NotificBlocks::CAPACITY],
        }
    }

    /// Take the notification block at `base` (its `nq_uart_mode` is at
    /// `base + 0x28` [FACTS §6]). Nothing is written: the block is brought up
    /// by [`NotificEngine::init`](super::NotificEngine::init).
    ///
    /// Refused, before anything is taken:
    /// - a base whose block does not fit below 2^64: [`Error::InvalidArgument`];
    /// - a base whose block overlaps one this set lends now:
    ///   [`Error::BlockTaken`];
    /// - 64 blocks lent already: [`Error::OutOfRange`].
    pub fn take(&self, base: DeviceAddr) -> Result<NotificBlock<'_>> {
        crate::regs::check_block_base(base, NOTIFIC_EXTENT)?;
        // The block fits below 2^64 (checked above): its last byte does not wrap.
        let (b, last) = (base.get(), base.get() + (NOTIFIC_EXTENT - 1));
        critical_section::with(|cs| {
            let mut free = None;
            for slot in &self.slots {
                let a_last = slot.borrow(cs).get();
                if a_last == FREE {
                    free = free.or(Some(slot));
                } else if b <= a_last && a_last - (NOTIFIC_EXTENT - 1) <= last {
                    return Err(Error::BlockTaken {
                        base: ErrorAddr::new(b),
                    });
                }
            }
            let slot = free.ok_or(Error::OutOfRange {
                what: "notification blocks lent at once",
                value: NotificBlocks::CAPACITY as u32,
                limit: NotificBlocks::CAPACITY as u32,
            })?;
            slot.borrow(cs).set(last);
            Ok(NotificBlock { base, slot })
        })
    }
}

impl Default for NotificBlocks {
    fn default() -> Self {
        NotificBlocks::new()
    }
}

impl core::fmt::Debug for NotificBlocks {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let lent = critical_section::with(|cs| {
            self.slots
                .iter()
                .filter(|s| s.borrow(cs).get() != FREE)
                .count()
        });
        f.debug_struct("NotificBlocks")
            .field("lent", &lent)
            .finish()
    }
}

/// One notification block of the device, taken once from its
/// [`NotificBlocks`] and given back when dropped.
///
/// Lend it to [`NotificEngine::init`](super::NotificEngine::init) as `&mut`:
/// the engine, its [`NqQueue`](super::NqQueue) tokens and their rings keep it
/// borrowed, so a second engine on the block while any of them lives does
/// not compile. When they are gone the block can be brought up again. Not
/// `Clone`: a copy would be a second owner.
pub struct NotificBlock<'b> {
    base: DeviceAddr,
    slot: &'b Slot,
}

impl NotificBlock<'_> {
    /// The block's base.
    pub(crate) const fn base(&self) -> DeviceAddr {
        self.base
    }
}

impl Drop for NotificBlock<'_> {
    fn drop(&mut self) {
        critical_section::with(|cs| self.slot.borrow(cs).set(FREE));
    }
}

impl core::fmt::Debug for NotificBlock<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NotificBlock")
            .field("base", &self.base)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    extern crate std;
    use std::format;
    use std::vec::Vec;

    #[test]
    fn a_block_is_lent_once_and_given_back_on_drop() {
        let set = NotificBlocks::new();
        let a = set.take(DeviceAddr(0x1_0000)).unwrap();
        let taken = Err(Error::BlockTaken {
            base: ErrorAddr::new(0x1_0000),
        });
        assert_eq!(set.take(DeviceAddr(0x1_0000)).map(|b| b.base()), taken);
        drop(a);
        assert_eq!(
            set.take(DeviceAddr(0x1_0000)).unwrap().base(),
            DeviceAddr(0x1_0000)
        );
    }

    #[test]
    fn an_overlapping_block_is_taken_and_an_adjacent_one_is_not() {
        let set = NotificBlocks::new();
        let _a = set.take(DeviceAddr(0x1_0000)).unwrap();
        for b in [0x1_0000 - NOTIFIC_EXTENT + 4, 0x1_0000 + NOTIFIC_EXTENT - 4] {
            let r = set.take(DeviceAddr(b)).map(|b| b.base());
            assert_eq!(
                r,
                Err(Error::BlockTaken {
                    base: ErrorAddr::new(b)
                }),
                "{b:#x}"
            );
        }
        for b in [0x1_0000 - NOTIFIC_EXTENT, 0x1_0000 + NOTIFIC_EXTENT] {
            assert!(set.take(DeviceAddr(b)).is_ok(), "{b:#x}");
        }
    }

    #[test]
    fn a_base_that_wraps_is_refused_and_takes_nothing() {
        let set = NotificBlocks::new();
        let r = set.take(DeviceAddr(u64::MAX - 7)).map(|b| b.base());
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
        assert_eq!(format!("{set:?}"), "NotificBlocks { lent: 0 }");
    }

    #[test]
    fn the_block_at_the_top_of_the_address_space_is_lent_like_any() {
        let set = NotificBlocks::new();
        let top = DeviceAddr(0u64.wrapping_sub(NOTIFIC_EXTENT));
        let a = set.take(top).unwrap();
        let taken = Err(Error::BlockTaken {
            base: ErrorAddr::new(top.get() - 4),
        });
        assert_eq!(set.take(DeviceAddr(top.get() - 4)).map(|b| b.base()), taken);
        drop(a);
        assert_eq!(set.take(top).unwrap().base(), top);
    }

    #[test]
    fn a_full_set_refuses_typed_and_a_drop_frees_a_slot() {
        let set = NotificBlocks::new();
        let mut held: Vec<_> = (0..NotificBlocks::CAPACITY as u64)
            .map(|i| set.take(DeviceAddr(i * 0x10_0000)).unwrap())
            .collect();
        let more = DeviceAddr(0x7000_0000);
        assert!(matches!(set.take(more), Err(Error::OutOfRange { .. })));
        held.pop();
        assert!(set.take(more).is_ok());
    }
}
