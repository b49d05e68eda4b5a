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
//! One take serves every drain (`drain`, `drain_iter`, the async drain), on
//! every target, as nvme-pci's completion loop does: while the entry at the
//! cursor is new (its phase bit, one load: the whole idle poll), an Acquire
//! fence, then its bytes, then the next slot (flipping the phase at the
//! wrap); then one head write. A call consumes at most the ring's `max_batch` (default
//! `clamp(capacity / 4, 1, 128)`), never more than one ring.
//!
//! A phase ring's `drain`, `drain_iter` and `available_count` take no delay:
//! they never wait. A tail ring's take one: they wait, within the ring's
//! budget, for the last pending entry's phase to land [004 §3]. Both kinds
//! run the one body below, its paths picked by the kind's
//! [`ConsumeKind::MODE`]; the phase kind hands it a delay that never sleeps.
//! Code generic over the kind calls that body itself
//! ([`NqRing::drain_with`]) with a delay.
//!
//! Delivery: `drain` consumes (moves the cursor and writes the head) only when
//! it returns `Ok(n)`; on an error nothing is consumed. The iterator hands
//! entries out as it yields them and commits them on [`Drain::finish`] or on
//! drop; a head write refused there leaves the ring's head behind its
//! cursor, and the next drain writes it before it hands out anything else
//! (or fails with that write's error): no entry is ever handed out twice.

use core::sync::atomic::{fence, AtomicU32, Ordering::Acquire, Ordering::Relaxed};

use embedded_hal::delay::DelayNs;

use crate::dma::DmaMemory;
use crate::error::{Error, Fault, Result};
use crate::Mmio;

use super::entry::{phase_of, NqEntry, NQ_ENTRY_BYTES, PHASE_BYTE, PHASE_MASK};
use super::ring::{ConsumeKind, ConsumeMode, DeviceZero, HostZero, NqRing, Phase, Tail};

/// The delay a phase ring hands the drain's body: the phase paths never
/// wait (the walk decides entry by entry), so it is never asked to sleep.
pub(crate) struct NoWait;

impl DelayNs for NoWait {
    fn delay_ns(&mut self, _ns: u32) {}
}

/// The phase bit in an entry's first word, as loaded (byte 3, bit 7) [004 §3].
pub(super) const PHASE_WORD: u32 = u32::from_ne_bytes([0, 0, 0, PHASE_MASK]);

/// The entry at `slot` if it is new (its phase bit is not `old`, as
/// [`PHASE_WORD`] or 0), `None` if it is not: its first word (the whole test),
/// then an Acquire fence (nvme-pci's `dma_rmb`), then its other bytes
/// [FACTS §11]. A slot past the memory is [`Error::OutOfRange`].
#[inline(always)]
fn take_at<R: DmaMemory>(mem: &R, slot: u32, old: u32) -> Result<Option<NqEntry>> {
    match mem.words() {
        Some(words) => take_word_at(mem, words.as_chunks().0, slot, old),
        None => take_at_bytes(mem, slot, old == 0),
    }
}

/// [`take_at`] over the memory's words, four an entry.
#[inline(always)]
fn take_word_at<R: DmaMemory>(
    mem: &R,
    entries: &[[AtomicU32; 4]],
    slot: u32,
    old: u32,
) -> Result<Option<NqEntry>> {
    let Some([w0, w1, w2, w3]) = entries.get(slot as usize) else {
        return Err(past_memory(mem, slot));
    };
    let w0 = w0.load(Relaxed);
    if (w0 ^ old) & PHASE_WORD == 0 {
        return Ok(None);
    }
    fence(Acquire);
    let words = [w0, w1.load(Relaxed), w2.load(Relaxed), w3.load(Relaxed)];
    // Four words are the entry's 16 bytes: the conversion cannot fail.
    let bytes = words.map(u32::to_ne_bytes);
    Ok(Some(NqEntry::from_bytes(
        bytes.as_flattened().try_into().unwrap_or_default(),
    )))
}

/// [`take_at`] through the memory's byte reads (a backend without words):
/// its phase byte, the fence, its 16 bytes, whose phase must still say new
/// (a rewrite in between: not new, the entry is not handed out).
fn take_at_bytes<R: DmaMemory>(mem: &R, slot: u32, new: bool) -> Result<Option<NqEntry>> {
    let at = slot as usize * NQ_ENTRY_BYTES;
    if at + NQ_ENTRY_BYTES > mem.len() {
        return Err(past_memory(mem, slot));
    }
    if phase_of(mem.load_u8(at + PHASE_BYTE)?) != new {
        return Ok(None);
    }
    fence(Acquire);
    let mut bytes = [0u8; NQ_ENTRY_BYTES];
    mem.read(at, &mut bytes)?;
    let e = NqEntry::from_bytes(bytes);
    Ok((e.phase() == new).then_some(e))
}

/// The error of an entry slot past the ring's memory.
#[cold]
fn past_memory<R: DmaMemory>(mem: &R, slot: u32) -> Error {
    let at = slot as u64 * NQ_ENTRY_BYTES as u64;
    Error::out_of_range("nq entry", at, mem.len() as u64)
}

impl<'d, R: DmaMemory, M: Mmio, K: ConsumeKind, Z: DeviceZero> NqRing<'d, R, M, K, Z> {
    /// Whether the entry `k` slots past the cursor is new: one load of its
    /// phase (its first word, or its phase byte), nothing consumed.
    pub(crate) fn is_new(&self, k: u32) -> Result<bool> {
        // `next < capacity` and `k <= capacity <= 2^28`: no overflow. Not
        // new: the consumer phase before the wrap, the other past it [FACTS §11].
        let (slot, old) = match self.next + k {
            s if s >= self.capacity => (s - self.capacity, self.phase ^ PHASE_WORD),
            s => (s, self.phase),
        };
        let first = self.mem.words().and_then(|w| w.get(slot as usize * 4));
        if let Some(w) = first {
            return Ok((w.load(Relaxed) ^ old) & PHASE_WORD != 0);
        }
        let byte = self
            .mem
            .load_u8(slot as usize * NQ_ENTRY_BYTES + PHASE_BYTE)?;
        Ok(phase_of(byte) == (old == 0))
    }

    /// The take: the new entries from the cursor on into `out` (at most one
    /// ring), in ring order; how many, and the slot and phase after them.
    /// Consumes nothing.
    #[inline(always)]
    fn take(&self, out: &mut [NqEntry]) -> Result<(usize, u32, u32)> {
        let mem = &self.mem;
        match mem.words() {
            Some(w) => self.take_with(out, |slot, old| {
                take_word_at(mem, w.as_chunks().0, slot, old)
            }),
            None => self.take_with(out, |slot, old| take_at_bytes(mem, slot, old == 0)),
        }
    }

    /// [`NqRing::take`] with `at`, the entry at a slot if it is new.
    #[inline(always)]
    fn take_with(
        &self,
        out: &mut [NqEntry],
        at: impl Fn(u32, u32) -> Result<Option<NqEntry>>,
    ) -> Result<(usize, u32, u32)> {
        let (mut slot, mut old) = (self.next, self.phase);
        let mut n = 0;
        while let Some(e) = out.get_mut(n) {
            let Some(new) = at(slot, old)? else {
                break;
            };
            (*e, n, slot) = (new, n + 1, slot + 1);
            if slot == self.capacity {
                // New entries past the wrap carry the other phase [FACTS §11].
                (slot, old) = (0, old ^ PHASE_WORD);
            }
        }
        Ok((n, slot, old))
    }

    /// Consume up to `slot` (with phase `phase` there): write the head once,
    /// as the slot's byte offset [FACTS §11], then move the cursor. A refused
    /// write consumes nothing.
    fn commit(&mut self, slot: u32, phase: u32) -> Result<()> {
        self.queue.write_head(slot * NQ_ENTRY_BYTES as u32)?;
        (self.next, self.phase) = (slot, phase);
        Ok(())
    }

    /// Write the head if it lags the cursor (a refused write after entries
    /// were handed out): the step every drain takes before it hands out
    /// anything (a phase drain once it sees something new). Its error is
    /// that write's; the head stays behind.
    pub(crate) fn write_head_behind(&mut self) -> Result<()> {
        if self.head_behind {
            self.queue.write_head(self.next * NQ_ENTRY_BYTES as u32)?;
            self.head_behind = false;
        }
        Ok(())
    }

    /// `true` when a head write was refused after entries were handed out
    /// and has not been written since: the next drain writes it before it
    /// hands out anything.
    pub const fn head_is_behind(&self) -> bool {
        self.head_behind
    }

    /// Tail mode: how many entries this drain may take, `want > 0`: those
    /// known from the last tail read, or one tail read and the bounded wait
    /// for the last entry to land.
    fn tail_budget<D: DelayNs + ?Sized>(&mut self, delay: &mut D, want: u32) -> Result<u32> {
        if self.known == 0 {
            let count = self.read_tail_count()?;
            if count == 0 {
                return Ok(0);
            }
            self.wait_arrival(delay, count)?;
            self.known = count;
        }
        Ok(self.known.min(want))
    }

    /// A tail-mode entry the tail says is pending whose phase says it is
    /// not new (after its arrival was confirmed). The entries known from that
    /// tail read are forgotten, so the next call reads the tail again.
    fn overrun(&mut self, claimed: u32) -> Error {
        self.known = 0;
        Error::DeviceFault(Fault::TooFarAhead {
            claimed,
            capacity: self.capacity,
        })
    }

    /// [`NqRing::drain`] of either kind, for code generic over the kind (a
    /// consume mode picked at run time, built once per kind): a tail ring
    /// waits with `delay` as its `drain` does; a phase ring never asks it to
    /// sleep. Code that knows its ring's kind calls `drain`.
    // The phase kind's idle poll inline, anything else out of line.
    #[inline(always)]
    pub fn drain_with<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        out: &mut [NqEntry],
    ) -> Result<usize> {
        match K::MODE {
            ConsumeMode::Phase => self.drain_phase(out),
            ConsumeMode::Tail => self.drain_other(delay, out),
        }
    }

    /// Phase mode: the take, then one head write if it took anything. The
    /// load of the cursor entry's phase is the whole idle poll: nothing new,
    /// nothing handed out, so a head left behind waits for the next take.
    #[inline(always)]
    fn drain_phase(&mut self, out: &mut [NqEntry]) -> Result<usize> {
        // A slot past the words (a backend that lies) is the take's error.
        let new = match self.mem.words() {
            Some(w) => w
                .get(self.next as usize * 4)
                .is_none_or(|w| (w.load(Relaxed) ^ self.phase) & PHASE_WORD != 0),
            None => self.is_new(0)?,
        };
        if !new {
            return Ok(0);
        }
        self.write_head_behind()?;
        let want = out.len().min(self.max_batch as usize);
        let (n, slot, phase) = self.take(out.get_mut(..want).unwrap_or_default())?;
        if n > 0 {
            self.commit(slot, phase)?;
        }
        Ok(n)
    }

    /// Tail mode: a head left behind written first, then the drain. Out of
    /// line: phase mode's calls stay small.
    #[inline(never)]
    fn drain_other<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        out: &mut [NqEntry],
    ) -> Result<usize> {
        self.write_head_behind()?;
        self.drain_tail(delay, out)
    }

    /// [`NqRing::drain`] in tail mode: the budget, the take (every entry
    /// must be new), one head write.
    fn drain_tail<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        out: &mut [NqEntry],
    ) -> Result<usize> {
        let want = out.len().min(self.max_batch as usize);
        if want == 0 {
            return Ok(0);
        }
        // `want <= max_batch <= capacity`: fits a u32.
        let avail = self.tail_budget(delay, want as u32)?;
        if avail == 0 {
            return Ok(0);
        }
        let out = out.get_mut(..avail as usize).unwrap_or_default();
        let (n, slot, phase) = self.take(out)?;
        if n < avail as usize {
            return Err(self.overrun(avail));
        }
        self.known -= avail;
        self.commit(slot, phase)?;
        Ok(n)
    }

    /// [`NqRing::drain_iter`] of either kind: `delay` as in
    /// [`NqRing::drain_with`].
    #[inline(always)]
    pub(crate) fn drain_iter_with<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        max: u32,
    ) -> Result<Drain<'_, 'd, R, M, K, Z>> {
        self.write_head_behind()?;
        let want = max.min(self.max_batch);
        let avail = match K::MODE {
            _ if want == 0 => 0,
            ConsumeMode::Phase => want,
            ConsumeMode::Tail => self.tail_budget(delay, want)?,
        };
        let (slot, old) = (self.next, self.phase);
        Ok(Drain {
            ring: self,
            avail,
            yielded: 0,
            slot,
            old,
        })
    }

    /// Consume the `n` entries a [`Drain`] handed out, up to `slot` (phase
    /// `phase` there): the cursor moves whatever the head write does (the
    /// entries are the caller's); a refused write leaves the head behind,
    /// written by the next drain.
    fn hand_back(&mut self, n: u32, slot: u32, phase: u32) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        if K::MODE == ConsumeMode::Tail {
            self.known = self.known.saturating_sub(n);
        }
        (self.next, self.phase) = (slot, phase);
        self.head_behind = true;
        self.write_head_behind()
    }
}

impl<'d, R: DmaMemory, M: Mmio, Z: DeviceZero> NqRing<'d, R, M, Phase, Z> {
    /// Drain up to `out.len()` (and at most `max_batch`) notifications into
    /// `out`, in ring order; returns how many. Reads no register and never
    /// waits: the entries' phase bits say what is new. Writes the head once
    /// if any were drained, nothing otherwise. Errors: a refused head write
    /// (nothing consumed), or the refusal of a head write left behind by a
    /// [`Drain`] ([`NqRing::head_is_behind`]), written once the entry at
    /// the cursor is new, before the take (nothing handed out; an empty
    /// ring's poll leaves it behind and writes nothing).
    ///
    /// Hostile device: an entry is taken only if its phase says new when it
    /// is loaded, its bytes loaded after that (the device writes the phase
    /// byte last [FACTS §11]).
    ///
    /// # A dead device
    ///
    /// This drain reads no register: it decides entry by entry from ring
    /// memory, so a device that is gone or hung looks like an empty ring,
    /// `Ok(0)` on every call. Probe it with [`NqRing::tail_offset`] when
    /// drains keep coming back empty: one checked read of `nq_tail_ptr`,
    /// `Err(DeviceFault(AllOnes))` at once for a gone device,
    /// `MisalignedTail` / `TailOutOfRing` for a lying one. A tail ring reads
    /// `nq_tail_ptr` on every drain and sees a gone device by itself.
    #[inline(always)]
    pub fn drain(&mut self, out: &mut [NqEntry]) -> Result<usize> {
        self.drain_with(&mut NoWait, out)
    }

    /// An iterator over up to `max` (and at most `max_batch`) pending
    /// notifications, taken as [`NqRing::drain`] takes them: no register
    /// read, no wait. The head is written once when the iterator is finished
    /// or dropped, if it yielded anything. It ends at the first entry that
    /// is not new (nothing past it is yielded or consumed). Its error here:
    /// a head write left behind by an earlier iterator that is refused again.
    // Inlined: out of line at opt-level "s" the `Drain` (its chunk) went
    // into the returned `Result` and out of it again through `memcpy`.
    #[inline(always)]
    pub fn drain_iter(&mut self, max: u32) -> Result<Drain<'_, 'd, R, M, Phase, Z>> {
        self.drain_iter_with(&mut NoWait, max)
    }

    /// `nq_available_count` [004 §3]: the entries from the cursor while their
    /// phase says new (at most one ring), without consuming them; no
    /// register read, no wait.
    #[inline(always)]
    pub fn available_count(&mut self) -> Result<u32> {
        self.available_count_with(&mut NoWait)
    }
}

impl<'d, R: DmaMemory, M: Mmio, Z: DeviceZero> NqRing<'d, R, M, Tail, Z> {
    /// Drain up to `out.len()` (and at most `max_batch`) notifications into
    /// `out`, in ring order; returns how many. Reads the tail at most once
    /// (none while entries known from the previous read remain) and waits
    /// with `delay`, within the ring's budget, for the last pending entry to
    /// land [004 §3]; writes the head once if any were drained, nothing
    /// otherwise. Errors: the tail faults of [`NqRing::tail_offset`] and
    /// [`Fault::TailMovedBackwards`], [`Error::Timeout`] if the last pending
    /// entry never lands, [`Fault::TooFarAhead`] if a pending entry's phase
    /// says the device lapped the consumer (nothing consumed; the next call
    /// reads the tail again), a refused head write (nothing consumed), or the
    /// refusal of a head write left behind by a [`Drain`]
    /// ([`NqRing::head_is_behind`]: nothing read).
    ///
    /// Hostile device: an entry is taken only if its phase says new when it
    /// is loaded, its bytes loaded after that (the device writes the phase
    /// byte last [FACTS §11]); one the tail claims but not new is
    /// `TooFarAhead`. A gone device shows on the tail read.
    #[inline(always)]
    pub fn drain<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        out: &mut [NqEntry],
    ) -> Result<usize> {
        self.drain_with(delay, out)
    }

    /// An iterator over up to `max` (and at most `max_batch`) pending
    /// notifications, taken as [`NqRing::drain`] takes them. The tail is read
    /// (at most once) here, before the first item, and the wait for the last
    /// entry made with `delay`. The head is written once when the iterator is
    /// finished or dropped, if it yielded anything. It yields the entries
    /// before the first that is not new, then [`Fault::TooFarAhead`] (the
    /// next call reads the tail again). Errors here: the tail faults of
    /// [`NqRing::drain`], [`Error::Timeout`] if the last pending entry never
    /// lands, a head write left behind by an earlier iterator that is
    /// refused again.
    #[inline(always)]
    pub fn drain_iter<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        max: u32,
    ) -> Result<Drain<'_, 'd, R, M, Tail, Z>> {
        self.drain_iter_with(delay, max)
    }

    /// `nq_available_count` [004 §3]: entries pending, without consuming
    /// them: one tail read (checked as in [`NqRing::tail_offset`]), then the
    /// bounded wait with `delay` for the last entry's phase.
    #[inline(always)]
    pub fn available_count<D: DelayNs + ?Sized>(&mut self, delay: &mut D) -> Result<u32> {
        self.available_count_with(delay)
    }
}

/// The iterator of [`NqRing::drain_iter`]: each item is [`NqRing::drain`]'s
/// take of one entry (its phase, the fence, its bytes) as it is handed out,
/// so an entry the device rewrote before then (a lapping device) ends the
/// run there; nothing is consumed before [`Drain::finish`] or the drop.
#[derive(Debug)]
pub struct Drain<'a, 'd, R: DmaMemory, M: Mmio, K: ConsumeKind = Phase, Z: DeviceZero = HostZero> {
    ring: &'a mut NqRing<'d, R, M, K, Z>,
    /// Most entries this iterator may yield (lowered to `yielded` at its end).
    avail: u32,
    /// Entries yielded so far, not yet handed back.
    yielded: u32,
    /// The slot of the next entry, and the phase bit an entry there that is
    /// not new carries (the ring's, flipped past the wrap [FACTS §11]).
    slot: u32,
    old: u32,
}

impl<R: DmaMemory, M: Mmio, K: ConsumeKind, Z: DeviceZero> Drain<'_, '_, R, M, K, Z> {
    /// Commit what was yielded (one head write if anything) and return the
    /// count. The iterator is then finished: it yields nothing more, and a
    /// second `finish` (or the drop) commits nothing and returns `Ok(0)`.
    ///
    /// A refused head write is this call's error; the entries stay consumed
    /// (they were yielded) and the ring writes the head on its next drain.
    pub fn finish(&mut self) -> Result<u32> {
        let n = self.yielded;
        (self.avail, self.yielded) = (0, 0);
        self.ring.hand_back(n, self.slot, self.old)?;
        Ok(n)
    }
}

impl<R: DmaMemory, M: Mmio, K: ConsumeKind, Z: DeviceZero> Iterator for Drain<'_, '_, R, M, K, Z> {
    type Item = Result<NqEntry>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.yielded >= self.avail {
            return None;
        }
        let e = match take_at(&self.ring.mem, self.slot, self.old) {
            Ok(Some(e)) => e,
            Ok(None) => return self.end(Ok(())),
            Err(err) => return self.end(Err(err)),
        };
        self.yielded += 1;
        self.slot += 1;
        if self.slot == self.ring.capacity {
            (self.slot, self.old) = (0, self.old ^ PHASE_WORD);
        }
        Some(Ok(e))
    }
}

impl<R: DmaMemory, M: Mmio, K: ConsumeKind, Z: DeviceZero> Drain<'_, '_, R, M, K, Z> {
    /// Yield nothing more: the entry at `yielded` is not new (`Ok`: the end
    /// in phase mode, the overrun fault in tail mode) or not readable (its
    /// error); the item to hand out.
    fn end(&mut self, why: Result<()>) -> Option<Result<NqEntry>> {
        let claimed = self.avail;
        self.avail = self.yielded;
        end_error(self.ring, claimed, why).map(Err)
    }
}

/// The error a [`Drain`] ends with, if any: the memory's, or in tail mode
/// the overrun of the `claimed` entries. Out of line (once an iterator), and
/// on the ring alone, so the iterator's own state stays in registers.
#[inline(never)]
fn end_error<R: DmaMemory, M: Mmio, K: ConsumeKind, Z: DeviceZero>(
    ring: &mut NqRing<'_, R, M, K, Z>,
    claimed: u32,
    why: Result<()>,
) -> Option<Error> {
    match why {
        Err(err) => Some(err),
        Ok(()) if K::MODE == ConsumeMode::Tail => Some(ring.overrun(claimed)),
        Ok(()) => None,
    }
}

impl<R: DmaMemory, M: Mmio, K: ConsumeKind, Z: DeviceZero> Drop for Drain<'_, '_, R, M, K, Z> {
    fn drop(&mut self) {
        if let Err(e) = self.finish() {
            warn!(
                "nq head write on drain drop refused (written by the next drain): {:?}",
                e
            );
        }
    }
}
