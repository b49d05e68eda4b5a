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
//! A tail-mode drain of one entry arriving per call is, on hosts, one tail
//! read checked by one compare, one load of that entry's phase (its
//! arrival test and its new test), its copy from that load, and the head
//! written with the tail just read (`NqRing::drain_tail`). On bare metal
//! the inlined part is phase mode's idle poll and one-entry take, which
//! call nothing ([`DmaMemory::take_one_at`], the head written through
//! [`crate::Mmio::write32`]); everything else is one out-of-line
//! call, so that the compiler saves no registers on those two paths.
//!
//! The iterator yields straight from the ring's memory (issue 12: it copied
//! each entry twice, ring → a 16-entry chunk buffer → the caller): at most
//! two runs (before and after the wrap), each bounds-checked once into a
//! [`DmaMemory::entry_view`]; per entry, on the atomic-word backends, its
//! first word (the phase byte's), the phase test (one xor, one sign test),
//! an Acquire fence, its other words, with no bounds check, and no test of
//! the views of other word sizes ([`DmaMemory::entry_view_word_bytes`], a
//! constant per backend). Everything else (a view that is not of
//! words, the run after the wrap, the end, the tail-mode overrun fault) is
//! one out-of-line step, so the entries do not go through memory.
//!
//! Delivery: `drain` commits (moves the cursor and writes the head) only when
//! it returns `Ok(n)`; on an error nothing is consumed. The iterator commits
//! what it yielded, on [`Drain::finish`] or on drop.

use core::marker::PhantomData;

use embedded_hal::delay::DelayNs;

use crate::dma::{DmaMemory, EntryView};
use crate::error::{Error, Fault, Result};
use crate::mmio::Mmio;

use super::entry::{NqEntry, NQ_ENTRY_BYTES};
use super::ring::{ConsumeMode, Consumer, DeviceZero, NqRing};

/// An error of the tail path's out-of-line steps, handed on through a cold
/// call: a branch weight, so that these exits do not take the block layout
/// of the caller's loop from the phase path's idle poll (issue 12: without
/// it the idle poll cost one more jump, 17 instead of 16 Ir). Hosts only.
#[cfg(not(target_os = "none"))]
#[cold]
#[inline(never)]
fn unlikely(e: Error) -> Error {
    e
}

/// The fault of a tail-mode entry the tail says is pending but whose phase
/// says it is not new (see [`NqRing::drain`]).
#[cold]
fn too_far_ahead(claimed: u32, capacity: u32) -> Error {
    Error::DeviceFault(Fault::TooFarAhead { claimed, capacity })
}

impl<R: DmaMemory, M: Mmio, Z: DeviceZero> NqRing<R, M, Z> {
    /// Tail mode: how many entries this drain may take, `want > 0`: the
    /// entries known from the last tail read, or one tail read (checked) and
    /// the bounded wait for the last entry to land (none when nothing is
    /// pending). The iterator's, out of line (the phase path never calls
    /// it); on bare metal also [`NqRing::drain_tail`]'s, inlined there (that
    /// function is out of line itself: one call level, not two).
    #[cfg_attr(not(target_os = "none"), inline(never))]
    #[cfg_attr(target_os = "none", inline(always))]
    fn tail_budget<D: DelayNs + ?Sized>(&mut self, delay: &mut D, want: u32) -> Result<u32> {
        if self.known() == 0 {
            let count = self.read_tail_count()?;
            if count == 0 {
                return Ok(0);
            }
            self.wait_arrival(delay, count)?;
            self.set_known(count);
        }
        Ok(self.known().min(want))
    }

    /// Tail mode's [`NqRing::drain`] into a non-empty `out`, shaped for one
    /// entry arriving per call (issue 12: the general path cost 233 Ir per
    /// entry there against a C-style tail consumer's 51), inlined into the
    /// caller:
    /// - entries known pending from the last tail read: no register read;
    ///   one of them is the entry at `next`, taken as below (one that is
    ///   not new is the overrun fault: its arrival was waited for), more go
    ///   through [`NqRing::take_known`];
    /// - otherwise one tail read, checked by one compare
    ///   ([`NqRing::read_tail_slot`]; a failed check names its fault out of
    ///   line); nothing pending ends the call there (no head write); more
    ///   than one pending: [`NqRing::drain_count`];
    /// - one pending: it is the entry at `next`, whose phase test is also
    ///   its arrival test [004 §3]: one load of its first word, the whole
    ///   wait when it has landed (the bounded wait, [`NqRing::wait_arrival`],
    ///   runs out of line only when it has not); it is copied from that
    ///   load ([`DmaMemory::take_peeked`]: an Acquire fence, its other
    ///   words; a copy whose phase is no longer new is the overrun fault),
    ///   then the one head write, of the tail just read (the slot after it).
    ///
    /// The same MMIO accesses, entries and errors as the general path
    /// ([`NqRing::tail_budget`], then [`NqRing::take_known`]), which bare
    /// metal keeps but for the one-entry take (firmware size, below). Out-of-line results are taken
    /// apart here (`?`, then `Ok`), so that no `Result` of the drain goes
    /// through memory on the phase path's exits (as `drain_wrapped`).
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    fn drain_tail<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        out: &mut [NqEntry],
    ) -> Result<u32> {
        // `out` is not empty (the caller's test).
        let known = self.known();
        if known != 0 {
            let avail = known.min(self.drain_want(out));
            if avail != 1 {
                let n = self.take_known(avail, out)?;
                return Ok(n);
            }
            // One entry of those known pending, at `next`: it has landed
            // (the wait of the read that counted it), so one that is not
            // new is the overrun fault, as in `take_known` (the entries
            // known are forgotten: the next call reads the tail again).
            let Some(slot) = out.first_mut() else {
                return Ok(0);
            };
            if self.take_next(slot)? != Next::Taken {
                return Err(self.overrun(1));
            }
            self.consume_known(1);
            self.commit(1)?;
            return Ok(1);
        }
        let (tail, slot) = self.read_tail_slot()?;
        // One entry pending: the tail one slot past `next` (the test of one
        // subtraction; past the ring's last slot, the count's).
        if slot.wrapping_sub(self.next_index()) != 1 {
            // Nothing pending: the idle poll ends here, no head write.
            if slot == self.next_index() {
                return Ok(0);
            }
            let count = self.count_to(slot);
            if count != 1 {
                let n = self.drain_count(delay, count, out).map_err(unlikely)?;
                return Ok(n);
            }
        }
        // One entry pending, at `next`: its arrival test is its new test;
        // not landed yet, the bounded wait.
        let Some(first) = out.first_mut() else {
            return Ok(0);
        };
        match self.take_next(first)? {
            Next::Taken => {}
            Next::NotNew => {
                let n = self.drain_landing(delay, 1, out).map_err(unlikely)?;
                return Ok(n);
            }
            Next::Rewritten => return Err(self.overrun(1)),
        }
        // None kept known: the head is the tail just read.
        self.commit_to_tail(tail)?;
        Ok(1)
    }

    /// Tail mode's [`NqRing::drain`] into a non-empty `out` on bare metal:
    /// the entries known, or one tail read and the bounded wait for the last
    /// pending entry ([`NqRing::tail_budget`]); then one entry (one arriving
    /// per call) taken from the load of its phase ([`NqRing::take_next`]),
    /// more through [`NqRing::take_new`]'s run, and the one head write
    /// ([`NqRing::consume_taken`]). Not the hosts' one-entry path, which
    /// grew each firmware image by about 1 KB (fw-cayman's `.text` from 7928
    /// to 8860 bytes). Nothing pending ends the call after the tail read.
    ///
    /// Inlined into [`NqRing::drain_cold`], which is out of line (issue
    /// 12: inlined into the caller, its registers were saved and restored
    /// by every phase-mode call too).
    #[cfg(target_os = "none")]
    #[inline(always)]
    fn drain_tail<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        out: &mut [NqEntry],
    ) -> Result<u32> {
        let avail = self.tail_budget(delay, self.drain_want(out))?;
        // Nothing pending (the idle poll): no copy set up, nothing written.
        if avail == 0 {
            return Ok(0);
        }
        // One entry (one arriving per call): copied from the load of its
        // phase ([`NqRing::take_next`]), not through the run's set-up.
        let n = if avail == 1 {
            let Some(slot) = out.first_mut() else {
                return Ok(0);
            };
            u32::from(self.take_next(slot)? == Next::Taken)
        } else {
            self.take_new(avail, out)?
        };
        self.consume_taken(avail, n)
    }

    /// Tail mode: the entry at `next` into `slot`, if its phase says new
    /// (one load of its first word, [`DmaMemory::peek_entry`]), taken from
    /// that load ([`DmaMemory::take_peeked`]: an Acquire fence, its other
    /// words). Nothing is consumed.
    #[inline(always)]
    fn take_next(&self, slot: &mut NqEntry) -> Result<Next> {
        let peek = self
            .memory()
            .peek_entry(self.next_index() as usize * NQ_ENTRY_BYTES)?;
        // The slot at `next` is before the wrap: new in the opposite of
        // the consumer phase [FACTS §11].
        if !peek.is_new(self.phase_word()) {
            return Ok(Next::NotNew);
        }
        // A copy whose phase is not the peeked one: a rewrite in between.
        Ok(if self.memory().take_peeked(peek, slot)? {
            Next::Taken
        } else {
            Next::Rewritten
        })
    }

    /// Tail mode: `count > 1` entries pending from the tail read: the
    /// arrival of the last (one load of its phase when it has landed, the
    /// bounded wait otherwise), then the drain of the known entries. Out of
    /// line: the one-entry path of [`NqRing::drain_tail`] stays small.
    #[cfg(not(target_os = "none"))]
    #[inline(never)]
    fn drain_count<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        count: u32,
        out: &mut [NqEntry],
    ) -> Result<u32> {
        if !self.landed(count - 1)? {
            return self.drain_landing(delay, count, out);
        }
        self.set_known(count);
        self.take_known(count.min(self.drain_want(out)), out)
    }

    /// Tail mode: the last of `count` pending entries has not landed yet at
    /// the first test: the bounded wait ([`Error::Timeout`]), then the drain
    /// of the known entries. Out of line: the DMA is usually done by the
    /// time the tail moves.
    #[cfg(not(target_os = "none"))]
    #[cold]
    #[inline(never)]
    fn drain_landing<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        count: u32,
        out: &mut [NqEntry],
    ) -> Result<u32> {
        self.wait_arrival(delay, count)?;
        self.set_known(count);
        self.take_known(count.min(self.drain_want(out)), out)
    }

    /// Tail mode: drain `avail` of the entries known pending (all landed;
    /// `avail` at most `out.len()` and `max_batch`; 0: nothing taken or
    /// written): the copy ([`NqRing::take_new`]), then
    /// [`NqRing::consume_taken`]. Inlined (a full ring read once and
    /// drained many calls long: out of line, the call and its `Result` in
    /// memory cost about 2 Ir per entry at 8 per call). Hosts only (bare
    /// metal's `drain_tail` takes one entry its own way, then the same
    /// `consume_taken`).
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    fn take_known(&mut self, avail: u32, out: &mut [NqEntry]) -> Result<u32> {
        let n = self.take_new(avail, out)?;
        self.consume_taken(avail, n)
    }

    /// Tail mode: `n` of `avail` entries known pending were copied: fewer
    /// is the overrun fault (they had landed: the wait of the tail read
    /// that counted them); otherwise they are consumed, with the one head
    /// write.
    #[inline(always)]
    fn consume_taken(&mut self, avail: u32, n: u32) -> Result<u32> {
        if n < avail {
            return Err(self.overrun(avail));
        }
        self.consume_known(n);
        self.commit(n)?;
        Ok(n)
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
        too_far_ahead(claimed, self.capacity())
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
        // Bare metal (issue 12): phase mode's idle poll and one-entry take
        // call nothing (`drain_quick`), and everything else is one call
        // (`drain_cold`), so that the compiler sets the frame up on that
        // call's path alone: the idle poll and the one-entry take pay no
        // saves and restores of the general path's registers.
        #[cfg(target_os = "none")]
        {
            if self.phase_path(out.len()) {
                if let Some(n) = self.drain_quick(out) {
                    return Ok(n);
                }
            }
            let mut r = Ok(0);
            self.drain_cold(delay, out, &mut r);
            r
        }
        #[cfg(not(target_os = "none"))]
        self.drain_any(delay, out)
    }

    /// Bare metal: [`NqRing::drain_any`] out of line, the one call of
    /// [`NqRing::drain`] (behind [`NqRing::drain_quick`]: tail mode, and
    /// phase mode when the quick step took nothing). Issue 12, executed
    /// instructions per call (thumbv7em / riscv32): the idle poll 27 / 37
    /// -> 21 / 15, one new entry through an `out` of 1 50 / 61 -> 43 / 39.
    /// The result through `r`, the last argument: returned, it would take
    /// the first argument register, and every path of the caller moved its
    /// arguments for it (3 instructions more on the idle poll).
    #[cfg(target_os = "none")]
    #[inline(never)]
    fn drain_cold<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        out: &mut [NqEntry],
        r: &mut Result<usize>,
    ) {
        *r = self.drain_any(delay, out);
    }

    /// [`NqRing::drain`]'s general path: phase mode ([`NqRing::drain_phase`])
    /// or tail mode (hosts: the whole drain, inlined into the caller).
    #[inline(always)]
    fn drain_any<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        out: &mut [NqEntry],
    ) -> Result<usize> {
        // Phase mode (a non-empty `out`), inlined into the caller: its idle
        // poll is one load; told apart by one compare.
        if self.phase_path(out.len()) {
            return self.drain_phase(out);
        }
        // Tail mode, or an empty `out` (nothing taken, nothing written). A
        // phase ring reaches here only with an empty `out` (its phase path
        // takes every other length), so this is its only exit.
        if out.is_empty() {
            return Ok(0);
        }
        let n = self.drain_tail(delay, out)?;
        Ok(n as usize)
    }

    /// [`NqRing::drain`] in phase mode when its `n` entries reached the
    /// ring's end (all new): the entries after the wrap, if more may be
    /// taken (into `out[n..]`), then the commit (the iterator's, which is
    /// out of line on bare metal: one copy of it per image); an `out` the
    /// `n` entries filled commits alone. Out of line: it runs once per pass
    /// over the ring, and inlined it costs every call registers (issue 12,
    /// bare metal: riscv32's idle poll 41 -> 37 executed instructions, its
    /// one-entry drain 66 -> 61; thumbv7em's 28 -> 27, 51 -> 50).
    #[cfg(not(target_os = "none"))]
    #[inline(never)]
    pub(super) fn drain_wrapped(&mut self, n: usize, out: &mut [NqEntry]) -> Result<usize> {
        // `out` filled (a wrap at one entry per call): nothing after the
        // wrap may be taken, so the commit alone, without the limits or the
        // shared commit's tests (issue 12: 50.8 -> 47.3 Ir per entry on a
        // ring of 8; thumbv7em / riscv32 at the wrap 130 / 155 -> 81 / 96
        // executed instructions, for 72 bytes of firmware `.text`).
        if n >= out.len() {
            self.commit_wrap()?;
            return Ok(n);
        }
        let want = self.drain_limit(out.len()) as usize;
        let mut n = n;
        if want > n {
            let rest = out.get_mut(n..).unwrap_or_default();
            // After the wrap, new entries carry the consumer phase [FACTS §11].
            n += self.take_after_wrap(want - n, rest, self.phase())?;
        }
        // `n <= want <= max_batch`: fits a u32.
        commit_yielded(&mut self.split().1, n as u32)?;
        Ok(n)
    }

    /// The entries one drain call may take: `out.len()`, at most
    /// `max_batch` (0 for an empty `out`: nothing copied, nothing written).
    #[inline(always)]
    fn drain_want(&self, out: &[NqEntry]) -> u32 {
        self.drain_limit(out.len())
    }

    /// An iterator over up to `max` (and at most `max_batch`) pending
    /// notifications. Tail mode reads the tail (at most once) here, before the
    /// first item. The head is written once when the iterator is finished or
    /// dropped, if it yielded anything.
    ///
    /// It yields straight from the ring's memory, as [`NqRing::drain`]
    /// copies: in ring order, at most two runs (before and after the wrap),
    /// each bounds-checked once ([`DmaMemory::entry_view`]); each entry read
    /// as [`DmaMemory::read_new_entries`] reads it (its phase, an Acquire
    /// fence, its bytes), while its phase says new. Phase mode ends at the
    /// first entry that is not new (nothing past it is yielded or consumed);
    /// tail mode yields the entries before it, then [`Fault::TooFarAhead`]
    /// (the next call reads the tail again). Errors here: the tail faults of
    /// [`NqRing::available_count`], [`Error::Timeout`] if the last pending
    /// entry never lands, a run the memory refuses.
    // Always inlined (issue 12, firmware size): out of line at opt-level "s",
    // the `Drain` was copied into the returned `Result` and out of it again
    // by `memcpy` calls, which linked `memcpy` into the firmware images.
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
        let (mem, ring) = self.split();
        // The run before the wrap: from `next` (`< capacity`), at most to
        // the ring's end; its new entries carry the opposite of the consumer
        // phase [FACTS §11].
        let next = ring.next_index();
        let first = avail.min(ring.capacity() - next);
        let view = mem.entry_view(
            next as usize * NQ_ENTRY_BYTES,
            first as usize,
            !ring.phase(),
        )?;
        Ok(Drain {
            mem,
            ring,
            avail,
            run_end: first,
            view,
            fault: None,
            _zero: PhantomData,
        })
    }
}

/// The iterator of [`NqRing::drain_iter`].
#[derive(Debug)]
pub struct Drain<'a, R: DmaMemory, M: Mmio, Z: DeviceZero> {
    /// The ring's memory, which the entries are read from.
    mem: &'a R,
    /// The rest of the ring: what the iterator commits.
    ring: Consumer<'a, M>,
    /// Most entries this iterator may yield.
    avail: u32,
    /// Entries yielded once the current run is read whole (the run before
    /// the wrap ends at its length, the one after it at `avail`).
    run_end: u32,
    /// The current run's entries not read yet.
    view: EntryView<'a>,
    /// The fault to hand out next ([`Drain::advance`]).
    fault: Option<Error>,
    _zero: PhantomData<&'a mut Z>,
}

impl<R: DmaMemory, M: Mmio, Z: DeviceZero> Drain<'_, R, M, Z> {
    /// Commit what was yielded (one head write if anything) and return the
    /// count. The iterator is then finished: it yields nothing more, and a
    /// second `finish` (or the drop) commits nothing and returns `Ok(0)`.
    ///
    /// It borrows the iterator (issue 12, firmware size): taking it by value
    /// moved the whole `Drain` with a `memcpy` call on thumbv7em.
    #[inline]
    pub fn finish(&mut self) -> Result<u32> {
        self.commit()
    }

    /// Entries yielded so far (what the head write hands back).
    #[inline(always)]
    fn yielded(&self) -> u32 {
        // The view is what is left of the current run, which ends at
        // `run_end <= avail`: no overflow.
        self.run_end
            .wrapping_sub(self.view.len_sized(self.word_bytes()) as u32)
    }

    /// The word size of the memory's views (a constant per backend:
    /// [`DmaMemory::entry_view_word_bytes`]): the iterator reads, counts
    /// and clears that kind of view alone.
    #[inline(always)]
    fn word_bytes(&self) -> usize {
        self.mem.entry_view_word_bytes()
    }

    /// Yield nothing more: no run left, `avail` what was yielded.
    #[inline]
    fn stop(&mut self) {
        self.avail = self.yielded();
        self.run_end = self.avail;
        self.view.clear_sized(self.word_bytes());
    }

    #[inline]
    fn commit(&mut self) -> Result<u32> {
        let n = self.yielded();
        // Nothing left to yield, nothing yielded (`run_end == 0` tells the
        // drop so without recounting).
        (self.avail, self.run_end) = (0, 0);
        self.view.clear_sized(self.word_bytes());
        commit_yielded(&mut self.ring, n)?;
        Ok(n)
    }

    /// [`Iterator::next`] when the view handed out nothing: fetch the next
    /// entry of a view not made of words, or open the run after the wrap if
    /// the one before it was read whole and more may follow, or end (tail
    /// mode: with the overrun fault if fewer than `avail` were yielded; an
    /// error of the memory also ends the iterator). Out of line, with a
    /// small answer (a fault is kept in the iterator): the per-entry path
    /// stays small, and its entries do not go through memory.
    #[cold]
    #[inline(never)]
    fn advance(&mut self) -> Step {
        // A view not of words: its next entry, read through the memory.
        if !self.mem.entry_views_of_words() {
            match self.view.fetch(self.mem) {
                Ok(true) => return Step::Again,
                Ok(false) => {}
                Err(e) => return self.fail(e),
            }
        }
        if self.view.len_sized(self.word_bytes()) == 0 && self.run_end < self.avail {
            // From slot 0: its new entries carry the consumer phase [FACTS §11].
            let n = (self.avail - self.run_end) as usize;
            return match self.mem.entry_view(0, n, self.ring.phase()) {
                Ok(view) => {
                    self.view = view;
                    self.run_end = self.avail;
                    Step::Again
                }
                Err(e) => self.fail(e),
            };
        }
        if self.ring.mode() == ConsumeMode::Tail && self.yielded() < self.avail {
            self.ring.set_known(0);
            return self.fail(too_far_ahead(self.avail, self.ring.capacity()));
        }
        self.stop();
        Step::End
    }

    /// End the iterator with `e`, handed out next.
    fn fail(&mut self, e: Error) -> Step {
        self.stop();
        self.fault = Some(e);
        Step::Fail
    }

    /// The fault [`Drain::advance`] kept. An `Error`, not the item: the
    /// item is built by the caller, so the hot path's items are not written
    /// through this call's result memory.
    #[inline(never)]
    fn take_fault(&mut self) -> Option<Error> {
        self.fault.take()
    }
}

/// What [`NqRing::take_next`] found at `next`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// New, and copied.
    Taken,
    /// Not new: nothing copied.
    NotNew,
    /// New at the test, not in its copy (the device rewrote it in between):
    /// the copy is not handed out.
    Rewritten,
}

/// What [`Drain::advance`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The view has an entry to hand out, or a new run.
    Again,
    /// Nothing more.
    End,
    /// A fault to hand out (kept in the iterator), then nothing more.
    Fail,
}

impl<R: DmaMemory, M: Mmio, Z: DeviceZero> Iterator for Drain<'_, R, M, Z> {
    type Item = Result<NqEntry>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            // The hot path: the view's next entry, nothing else inlined.
            if let Some(e) = self.view.next_sized(self.word_bytes()) {
                return Some(Ok(e));
            }
            match self.advance() {
                Step::Again => {}
                Step::End => return None,
                Step::Fail => return self.take_fault().map(Err),
            }
        }
    }
}

impl<R: DmaMemory, M: Mmio, Z: DeviceZero> Drop for Drain<'_, R, M, Z> {
    // Inlined, and the commit out of line with the consumer state alone: a
    // call that took the whole iterator's address kept every field of it in
    // memory, loaded and stored on every entry (issue 12).
    #[inline(always)]
    fn drop(&mut self) {
        // `run_end == 0`: finished, or nothing to yield.
        if self.run_end == 0 {
            return;
        }
        let n = self.yielded();
        if n > 0 {
            #[cfg(not(target_os = "none"))]
            commit_dropped(self.ring.reborrow(), n);
            // Bare metal (built for size): the shared commit itself, by
            // reference (`next` is out of line there: the iterator is in
            // memory anyway), without a copy of the consumer state.
            #[cfg(target_os = "none")]
            if let Err(e) = commit_yielded(&mut self.ring, n) {
                warn!("nq head write on drain drop failed: {:?}", e);
            }
        }
    }
}

/// The commit of a [`Drain`] dropped before [`Drain::finish`] (`n > 0`
/// yielded); a refused head write is logged (a drop returns nothing). Hosts
/// only: the consumer state by value keeps the iterator out of memory there.
#[cfg(not(target_os = "none"))]
#[cold]
#[inline(never)]
fn commit_dropped<M: Mmio>(mut ring: Consumer<'_, M>, n: u32) {
    if let Err(e) = commit_yielded(&mut ring, n) {
        warn!("nq head write on drain drop failed: {:?}", e);
    }
}

/// Consume the `n` entries an iterator yielded: tail mode forgets them from
/// the entries known pending; the head is written once if `n > 0`.
// Inlined into `finish` on hosts (the per-call cost, issue 12); one copy for
// `finish` and the drop on bare metal, where images are built for size.
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
fn commit_yielded<M: Mmio>(ring: &mut Consumer<'_, M>, n: u32) -> Result<()> {
    if ring.mode() == ConsumeMode::Tail {
        ring.consume_known(n);
    }
    ring.commit(n)
}
