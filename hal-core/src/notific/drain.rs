//! Draining notifications: into a caller buffer, or through an iterator [004 §3].
//!
//! The cost model is the design anchors' (ring-and-reliability-anchors.md §2, §6): an MMIO
//! read costs as much as draining hundreds of host-memory entries, so
//! - phase mode reads NO register: the phase bits in memory say what is new;
//! - tail mode reads the tail at most once per drain call (none while entries
//!   known from the previous read remain);
//! - the head is written ONCE per non-empty drain (after the batch), and never
//!   on an empty poll.
//!
//! A call consumes at most the ring's `max_batch` (default
//! `clamp(capacity / 4, 1, 128)`), never more than one ring.
//!
//! Delivery: `drain` commits (moves the cursor and writes the head) only when
//! it returns `Ok(n)`; on an error nothing is consumed. The iterator commits
//! what it yielded, on [`Drain::finish`] or on drop.

use core::sync::atomic::{fence, Ordering};

use embedded_hal::delay::DelayNs;

use crate::dma::DmaMemory;
use crate::error::{Error, Fault, Result};
use crate::mmio::Mmio;

use super::engine::NotificEngine;
use super::entry::NqEntry;
use super::ring::{ConsumeMode, DeviceZero, NqRing};

impl<R: DmaMemory, Z: DeviceZero> NqRing<R, Z> {
    /// How many entries this drain may take, `want > 0`. Tail mode: the
    /// entries known from the last tail read, or one tail read (checked) and
    /// the bounded wait for the last entry to land. Phase mode: `want` (the
    /// walk decides entry by entry).
    fn budget_for<M: Mmio, D: DelayNs + ?Sized>(
        &mut self,
        engine: &NotificEngine<M>,
        delay: &mut D,
        want: u32,
    ) -> Result<u32> {
        match self.mode() {
            ConsumeMode::Phase => Ok(want),
            ConsumeMode::Tail => {
                if self.known() == 0 {
                    let count = self.read_tail_count(engine)?;
                    self.wait_arrival(delay, count)?;
                    self.set_known(count);
                }
                Ok(self.known().min(want))
            }
        }
    }

    /// A tail-mode entry the tail says is pending but whose phase says it is
    /// not new (after its arrival was confirmed): the device overran the
    /// consumer by more than a ring, or lies.
    ///
    /// Recovery: the entries known from that tail read are forgotten, so the
    /// next call reads the tail again (a transient lie costs one failed call;
    /// the valid entries before it are then delivered, once).
    fn overrun(&mut self, claimed: u32) -> Error {
        self.set_known(0);
        Error::DeviceFault(Fault::TooFarAhead {
            claimed,
            capacity: self.capacity(),
        })
    }

    /// Drain up to `out.len()` (and at most `max_batch`) notifications into
    /// `out`, in ring order; returns how many. Writes the head once if any
    /// were drained, nothing otherwise. Errors: the tail faults of
    /// [`NqRing::available_count`], [`Error::Timeout`] if the last pending
    /// entry never lands, [`Fault::TooFarAhead`] if a pending entry's phase
    /// says the device lapped the consumer (nothing consumed; the next call
    /// reads the tail again).
    ///
    /// Hostile device: an entry the device rewrites between the phase scan
    /// and the copy (it must not: the head has not handed it back) is caught
    /// by the phase bits of the copied batch. Phase mode hands out the entries
    /// before the first whose copied phase no longer says "new" and consumes
    /// nothing past it; tail mode treats it as [`Fault::TooFarAhead`]. (A
    /// rewrite that has not reached the phase byte yet is invisible to any
    /// consumer: the device publishes an entry by writing its phase byte
    /// last [FACTS §11].)
    pub fn drain<M: Mmio, D: DelayNs + ?Sized>(
        &mut self,
        engine: &NotificEngine<M>,
        delay: &mut D,
        out: &mut [NqEntry],
    ) -> Result<usize> {
        let want = u32::try_from(out.len())
            .unwrap_or(u32::MAX)
            .min(self.max_batch());
        if want == 0 {
            return Ok(0);
        }
        let avail = self.budget_for(engine, delay, want)?;
        // 1. The phase bytes only (volatile loads): how many entries are new.
        let n = self.walk_phase(avail)?;
        if n < avail && self.mode() == ConsumeMode::Tail {
            return Err(self.overrun(avail));
        }
        // 2. One Acquire fence for the batch: every entry load below is
        //    ordered after the phase load that said it is new (see `load_new`).
        fence(Ordering::Acquire);
        // 3. The entries, in bulk; then their copied phase bits, which must
        //    still say "new" (a hostile rewrite after the scan).
        self.copy_entries(n, out)?;
        let good = self.still_new(n, out);
        if good < n && self.mode() == ConsumeMode::Tail {
            return Err(self.overrun(avail));
        }
        self.commit(engine, good)?;
        Ok(good as usize)
    }

    /// An iterator over up to `max` (and at most `max_batch`) pending
    /// notifications. Tail mode reads the tail (at most once) here, before the
    /// first item. The head is written once when the iterator is finished or
    /// dropped, if it yielded anything.
    pub fn drain_iter<'a, M: Mmio, D: DelayNs + ?Sized>(
        &'a mut self,
        engine: &'a NotificEngine<M>,
        delay: &mut D,
        max: u32,
    ) -> Result<Drain<'a, R, Z, M>> {
        let want = max.min(self.max_batch());
        let avail = if want == 0 {
            0
        } else {
            self.budget_for(engine, delay, want)?
        };
        Ok(Drain {
            ring: self,
            engine,
            avail,
            taken: 0,
            done: false,
        })
    }
}

/// The iterator of [`NqRing::drain_iter`].
#[derive(Debug)]
pub struct Drain<'a, R: DmaMemory, Z: DeviceZero, M: Mmio> {
    ring: &'a mut NqRing<R, Z>,
    engine: &'a NotificEngine<M>,
    avail: u32,
    taken: u32,
    done: bool,
}

impl<R: DmaMemory, Z: DeviceZero, M: Mmio> Drain<'_, R, Z, M> {
    /// Commit what was yielded (one head write if anything) and return the count.
    pub fn finish(mut self) -> Result<u32> {
        self.commit()
    }

    fn commit(&mut self) -> Result<u32> {
        let n = core::mem::take(&mut self.taken);
        self.done = true;
        self.ring.commit(self.engine, n)?;
        Ok(n)
    }
}

impl<R: DmaMemory, Z: DeviceZero, M: Mmio> Iterator for Drain<'_, R, Z, M> {
    type Item = Result<NqEntry>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.taken >= self.avail {
            return None;
        }
        match self.ring.load_new(self.taken) {
            Ok(Some(e)) => {
                self.taken += 1;
                Some(Ok(e))
            }
            Ok(None) => {
                self.done = true;
                match self.ring.mode() {
                    ConsumeMode::Phase => None,
                    ConsumeMode::Tail => {
                        let err = self.ring.overrun(self.avail);
                        Some(Err(err))
                    }
                }
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl<R: DmaMemory, Z: DeviceZero, M: Mmio> Drop for Drain<'_, R, Z, M> {
    fn drop(&mut self) {
        if self.taken > 0 {
            if let Err(e) = self.commit() {
                warn!("nq head write on drain drop failed: {:?}", e);
            }
        }
    }
}
