//! Async waits on an NQ ring [004 §3]: wait, woken by the NQ's interrupt and
//! bounded by a budget, until the ring's next entry is new; then drain it with
//! the blocking (non-waiting) drain.
//!
//! Built only on [`NqRing`]'s public API. "New" is the phase rule the blocking
//! drain uses [FACTS §11]: the entry at the consumer cursor is new when its
//! phase bit differs from the consumer phase (the device flips the phase it
//! writes at every wrap). The check is one load from ring memory, no MMIO, in
//! either consume mode; the async drain takes phase rings only (a tail ring's
//! drain waits with a blocking delay for the last entry to land).

use embedded_hal_async::delay::DelayNs;

use super::signal::NqSignal;
use super::wait::poll_until_signalled;
use crate::dma::DmaMemory;
use crate::error::Result;
use crate::notific::entry::NqEntry;
use crate::notific::ring::{ConsumeKind, DeviceZero};
use crate::notific::{NqRing, Phase};
use crate::wait::Budget;
use crate::Mmio;

/// `true` when the entry at the ring's consumer cursor is new (its phase bit
/// is not the consumer phase) [FACTS §11]. One byte load, no register access;
/// a ring of either kind (a tail ring's entries carry the phase too).
fn has_new<R: DmaMemory, M: Mmio, K: ConsumeKind, Z: DeviceZero>(
    ring: &NqRing<'_, R, M, K, Z>,
) -> Result<bool> {
    ring.is_new(0)
}

/// Wait until the ring's next entry is new: checked at once, then after each
/// wake by `signal` (the NQ's interrupt) or each `budget.period_us`, at most
/// `budget.polls` times; [`Error::Timeout`](crate::Error::Timeout)
/// (`"nq notification (async)"`) after that. Consumes nothing. Returns the
/// number of waits taken.
pub async fn wait_new<R, M, K, Z, D>(
    ring: &NqRing<'_, R, M, K, Z>,
    signal: &NqSignal,
    delay: &mut D,
    budget: Budget,
) -> Result<u32>
where
    R: DmaMemory,
    M: Mmio,
    K: ConsumeKind,
    Z: DeviceZero,
    D: DelayNs + ?Sized,
{
    poll_until_signalled(signal, delay, budget, "nq notification (async)", || {
        has_new(ring)
    })
    .await
}

/// Write a head left behind by a drain iterator (its refusal is this call's
/// error, nothing read), wait as [`wait_new`]
/// does, then drain up to `out.len()` (and at most the ring's `max_batch`)
/// notifications with [`NqRing::drain`]: one head write, nothing read from
/// the registers. Returns how many (at least 1 unless `out` is empty, which
/// returns 0 at once). The head is written before the wait: a device that
/// sees a full ring publishes nothing until it moves.
///
/// Phase rings only, by type: a tail ring's drain waits for the last pending
/// entry to land, a wait the blocking drain does itself with a blocking
/// delay, so the async drain of a tail ring does not compile.
pub async fn drain<R, Z, M, D>(
    ring: &mut NqRing<'_, R, M, Phase, Z>,
    signal: &NqSignal,
    delay: &mut D,
    budget: Budget,
    out: &mut [NqEntry],
) -> Result<usize>
where
    R: DmaMemory,
    Z: DeviceZero,
    M: Mmio,
    D: DelayNs + ?Sized,
{
    if out.is_empty() {
        return Ok(0);
    }
    ring.write_head_behind()?;
    wait_new(ring, signal, delay, budget).await?;
    ring.drain(out)
}

#[cfg(test)]
mod tests {
    use core::cell::RefCell;

    use super::*;
    use crate::dma::StaticDma;
    use crate::error::Error;
    use crate::notific::{NotificBlocks, NotificEngine, NqConfig};
    use crate::DeviceAddr;

    const BASE: DeviceAddr = DeviceAddr(0x1000);

    /// A plain register file at [`BASE`].
    struct Regs(RefCell<[u32; 0x100]>);

    impl Mmio for Regs {
        fn read32(&self, addr: DeviceAddr) -> Result<u32> {
            let i = (addr.get() - BASE.get()) as usize / 4;
            self.0
                .borrow()
                .get(i)
                .copied()
                .ok_or(Error::out_of_window(addr.get()))
        }
        fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
            let i = (addr.get() - BASE.get()) as usize / 4;
            let mut regs = self.0.borrow_mut();
            let r = regs.get_mut(i).ok_or(Error::out_of_window(addr.get()))?;
            *r = value;
            Ok(())
        }
    }

    /// On any host byte order (`.ci/run` runs khal-core's tests under Miri
    /// on big-endian s390x): the drain over `StaticDma`'s words tests the
    /// phase at byte 3, bit 7, hands the entry out in memory order and
    /// writes the head; `has_new` answers the same test [004 §3].
    #[test]
    fn the_drain_reads_entries_in_memory_order_on_any_byte_order() {
        let mem = StaticDma::identity(crate::static_dma!(64).expect("first take"));
        let regs = Regs(RefCell::new([0; 0x100]));
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(BASE).unwrap();
        let mut e = NotificEngine::init_raw(&regs, Some(&mut block), 10, 0, 0).unwrap();
        let cfg = NqConfig::phase(64);
        let mut ring = NqRing::host(&mem, e.queue(0).unwrap(), cfg).unwrap();
        let bytes: [u8; 16] = core::array::from_fn(|i| if i == 3 { 0x83 } else { i as u8 + 1 });
        mem.write(16, &[0x7F; 16]).unwrap(); // phase bit clear: not new
        assert_eq!(has_new(&ring), Ok(false));
        mem.write(0, &bytes).unwrap();
        assert_eq!(has_new(&ring), Ok(true));
        let mut out = [NqEntry::default(); 4];
        assert_eq!(ring.drain(&mut out), Ok(1));
        assert_eq!(out[0].bytes(), &bytes);
        assert_eq!(regs.read32(ring.queue().head_addr()), Ok(16));
    }
}
