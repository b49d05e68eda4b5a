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
//! The hot path is shaped for the per-call cost too (issue 12): an empty
//! phase-mode poll is one phase-byte load; a non-empty drain is the run copy
//! of [`DmaMemory::read_new_entries`] (scan, one Acquire fence, bulk copy,
//! copied phases checked) and the head write, all inlined into the call.
//!
//! Delivery: `drain` commits (moves the cursor and writes the head) only when
//! it returns `Ok(n)`; on an error nothing is consumed. The iterator commits
//! what it yielded, on [`Drain::finish`] or on drop.

use embedded_hal::delay::DelayNs;

use crate::dma::DmaMemory;
use crate::error::{Error, Fault, Result};
use crate::mmio::Mmio;

use super::entry::NqEntry;
use super::ring::{ConsumeMode, DeviceZero, NqRing};

/// Entries the iterator copies at a time (its buffer: 256 bytes).
const ITER_CHUNK: usize = 16;

impl<R: DmaMemory, M: Mmio, Z: DeviceZero> NqRing<R, M, Z> {
    /// Tail mode: how many entries this drain may take, `want > 0`: the
    /// entries known from the last tail read, or one tail read (checked) and
    /// the bounded wait for the last entry to land. Out of line: the phase
    /// path never calls it.
    #[inline(never)]
    fn tail_budget<D: DelayNs + ?Sized>(&mut self, delay: &mut D, want: u32) -> Result<u32> {
        if self.known() == 0 {
            let count = self.read_tail_count()?;
            self.wait_arrival(delay, count)?;
            self.set_known(count);
        }
        Ok(self.known().min(want))
    }

    /// A tail-mode entry the tail says is pending but whose phase says it is
    /// not new (after its arrival was confirmed): the device overran the
    /// consumer by more than a ring, or lies.
    ///
    /// Recovery: the entries known from that tail read are forgotten, so the
    /// next call reads the tail again (a transient lie costs one failed call;
    /// the valid entries before it are then delivered, once).
    #[cold]
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
    #[inline(always)]
    pub fn drain<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        out: &mut [NqEntry],
    ) -> Result<usize> {
        // Phase mode's idle poll, inlined into the caller: one phase-byte
        // load, nothing else (an empty `out` changes nothing: `Ok(0)` too).
        // The batch case (the default) is told apart by one test.
        let n = if self.batch_phase() {
            if !self.next_is_new()? {
                return Ok(0);
            }
            let want = self.drain_want(out);
            if want == 1 {
                // One entry (an `out` of one): the slot at `next`, no clamp
                // at the wrap, no run loop; the same copy and checks as
                // `take_new`.
                self.take_one(out)?
            } else {
                self.take_new(0, want, out)?
            }
        } else if self.mode() == ConsumeMode::Phase {
            // One entry per call (`max_batch == 1`, issue 12): the idle
            // test's load is the entry's first word, which the take does
            // not load again (an empty `out` takes nothing).
            let Some(peek) = self.peek_next()? else {
                return Ok(0);
            };
            u32::from(self.take_peeked(peek, out)?)
        } else {
            let want = self.drain_want(out);
            if want == 0 {
                return Ok(0);
            }
            let avail = self.tail_budget(delay, want)?;
            let n = self.take_new(0, avail, out)?;
            if n < avail {
                return Err(self.overrun(avail));
            }
            self.consume_known(n);
            n
        };
        // The head written once, if anything was taken. One commit for the
        // three paths: with one each, the optimiser threaded the caller's
        // `n == 0` test less well (8 per call cost 1 Ir per entry more).
        self.commit(n)?;
        Ok(n as usize)
    }

    /// The entries one drain call may take: `out.len()`, at most
    /// `max_batch` (0 for an empty `out`: nothing copied, nothing written).
    #[inline(always)]
    fn drain_want(&self, out: &[NqEntry]) -> u32 {
        u32::try_from(out.len())
            .unwrap_or(u32::MAX)
            .min(self.max_batch())
    }

    /// An iterator over up to `max` (and at most `max_batch`) pending
    /// notifications. Tail mode reads the tail (at most once) here, before the
    /// first item. The head is written once when the iterator is finished or
    /// dropped, if it yielded anything.
    ///
    /// It drains as [`NqRing::drain`] does, in chunks of 16 entries copied
    /// into the iterator (the same run copy and checks), and yields them one
    /// by one. Tail mode: the entries before one whose phase says the device
    /// lapped are yielded, then [`Fault::TooFarAhead`] (the next call reads
    /// the tail again).
    // Always inlined (issue 12, firmware size): out of line at opt-level "s",
    // the `Drain` (with its 256-byte chunk buffer, zeroed on the stack) was
    // copied into the returned `Result` and out of it again by `memcpy`
    // calls, which linked `memcpy` into the firmware images.
    #[inline(always)]
    pub fn drain_iter<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        max: u32,
    ) -> Result<Drain<'_, R, M, Z>> {
        let want = max.min(self.max_batch());
        let avail = match self.mode() {
            _ if want == 0 => 0,
            ConsumeMode::Phase => want,
            ConsumeMode::Tail => self.tail_budget(delay, want)?,
        };
        Ok(Drain {
            ring: self,
            avail,
            before: 0,
            buf: [NqEntry::default(); ITER_CHUNK],
            pos: 0,
            len: 0,
            short: false,
            done: false,
        })
    }
}

/// The iterator of [`NqRing::drain_iter`].
#[derive(Debug)]
pub struct Drain<'a, R: DmaMemory, M: Mmio, Z: DeviceZero> {
    ring: &'a mut NqRing<R, M, Z>,
    /// Most entries this iterator may yield.
    avail: u32,
    /// Entries yielded from the chunks before the one in `buf`.
    before: u32,
    /// The chunk copied from the ring: `buf[..pos]` yielded, `buf[pos..len]`
    /// not yet (`len <= ITER_CHUNK`).
    buf: [NqEntry; ITER_CHUNK],
    pos: usize,
    len: usize,
    /// The last chunk stopped at an entry that is not new.
    short: bool,
    done: bool,
}

impl<R: DmaMemory, M: Mmio, Z: DeviceZero> Drain<'_, R, M, Z> {
    /// Commit what was yielded (one head write if anything) and return the
    /// count. The iterator is then finished: it yields nothing more, and a
    /// second `finish` (or the drop) commits nothing and returns `Ok(0)`.
    ///
    /// It borrows the iterator (issue 12, firmware size): taking it by value
    /// moved the whole `Drain` (its 256-byte chunk buffer) with a `memcpy`
    /// call on thumbv7em, the last one the firmware images linked.
    #[inline]
    pub fn finish(&mut self) -> Result<u32> {
        self.commit()
    }

    /// Entries yielded so far (what the head write hands back).
    fn yielded(&self) -> u32 {
        // `pos <= len <= ITER_CHUNK` and `before + len <= avail`: no overflow.
        self.before.wrapping_add(self.pos as u32)
    }

    #[inline]
    fn commit(&mut self) -> Result<u32> {
        let n = self.yielded();
        (self.before, self.pos, self.len) = (0, 0, 0);
        self.done = true;
        if self.ring.mode() == ConsumeMode::Tail {
            self.ring.consume_known(n);
        }
        self.ring.commit(n)?;
        Ok(n)
    }

    /// Copy the next chunk into the buffer and yield its first entry; `None`
    /// (phase mode) or the overrun fault (tail mode) when nothing is new.
    /// Inlined into `next`: out of line, the iterator's state and the
    /// `Option<Result<NqEntry>>` it returns went through memory on every
    /// chunk (issue 12: about 30 Ir per `drain_iter` call).
    #[inline]
    fn refill(&mut self) -> Option<Result<NqEntry>> {
        if self.done {
            return None;
        }
        self.before = self.yielded();
        (self.pos, self.len) = (0, 0);
        let left = self.avail.saturating_sub(self.before);
        let n = if self.short || left == 0 {
            0
        } else {
            let want = left.min(ITER_CHUNK as u32);
            match self.ring.take_new(self.before, want, &mut self.buf) {
                Ok(n) => {
                    self.short = n < want;
                    n
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        };
        let Some(&first) = self.buf.first().filter(|_| n > 0) else {
            self.done = true;
            return match self.ring.mode() {
                ConsumeMode::Tail if left > 0 => Some(Err(self.ring.overrun(self.avail))),
                _ => None,
            };
        };
        (self.pos, self.len) = (1, n as usize);
        Some(Ok(first))
    }
}

impl<R: DmaMemory, M: Mmio, Z: DeviceZero> Iterator for Drain<'_, R, M, Z> {
    type Item = Result<NqEntry>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.pos < self.len {
            // `pos < len <= ITER_CHUNK`: a checked index (cheaper here than
            // a mask, which cost a shift and an extra address computation).
            let e = *self.buf.get(self.pos)?;
            self.pos += 1;
            return Some(Ok(e));
        }
        self.refill()
    }
}

impl<R: DmaMemory, M: Mmio, Z: DeviceZero> Drop for Drain<'_, R, M, Z> {
    fn drop(&mut self) {
        if self.yielded() > 0 {
            if let Err(e) = self.commit() {
                warn!("nq head write on drain drop failed: {:?}", e);
            }
        }
    }
}
