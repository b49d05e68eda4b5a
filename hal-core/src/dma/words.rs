//! DMA memory as a slice of aligned atomic words: the one implementation of
//! every [`DmaMemory`](super::DmaMemory) access for the backends whose memory
//! is shared with a device (khal-std's `DmaBuf`, 8-byte words, and
//! [`StaticDma`](super::StaticDma), 4-byte words).
//!
//! Why atomics: the device (or a device-model thread, or another core) may
//! write the memory while the host reads it, and the backends are `Sync` with
//! `&self` methods. Every host access is therefore a **relaxed atomic** access
//! of one of the memory's aligned words, all of the same size, so none races
//! another (the memory model forbids racing plain accesses and racing atomics
//! of different sizes). A relaxed aligned word load or store is one plain
//! `mov` / `ldr` / `lw` on x86-64, AArch64, `thumbv7em` and `riscv32imac`.
//! Ordering is the callers' business (the NQ drain's Acquire fence after the
//! phase load [FACTS §11]).
//!
//! This module is safe code: a backend builds an [`AtomicWords`] over its
//! `&[AtomicU32]` / `&[AtomicU64]` (the one `unsafe` step, in the backend),
//! and every access here goes through the slice. Each call checks its whole
//! run's bounds once, then walks the run's sub-slice with iterators, so the
//! loops carry no per-word bounds check (issue 12, issue 14 item 1). Partial
//! words are copied byte by byte and whole words by fixed-size stores, so no
//! path calls `memcpy` or `memset` (firmware size, issue 12).

use core::sync::atomic::{fence, AtomicU32, Ordering::Acquire, Ordering::Relaxed};

use crate::error::{Error, Result};
use crate::notific::entry::{NqEntry, NQ_ENTRY_BYTES, PHASE_BYTE, PHASE_DWORD_BIT, PHASE_MASK};

use super::{check_flag_run, flag_value, EntryPeek, TakeOne, NOT_ON_ENTRY};

mod sealed {
    pub trait Sealed {}
    impl Sealed for core::sync::atomic::AtomicU32 {}
    #[cfg(target_has_atomic = "64")]
    impl Sealed for core::sync::atomic::AtomicU64 {}
}

/// An atomic word of DMA memory: `AtomicU32` (every target) or `AtomicU64`
/// (targets with 64-bit atomics). Every access is `Relaxed`.
pub trait AtomicWord: sealed::Sealed + Sync + Send {
    /// The word's integer.
    type Int: Copy
        + Eq
        + core::ops::BitAnd<Output = Self::Int>
        + core::ops::BitXor<Output = Self::Int>
        + core::ops::BitOr<Output = Self::Int>
        + core::ops::Shl<u32, Output = Self::Int>
        + core::ops::Not<Output = Self::Int>
        + From<u8>;
    /// The word's bytes in memory order.
    type Bytes: Copy + AsRef<[u8]> + AsMut<[u8]>;
    /// Bytes per word (4 or 8).
    const BYTES: usize;
    /// The integer 0.
    const ZERO: Self::Int;
    /// A relaxed load.
    fn load(&self) -> Self::Int;
    /// A relaxed store.
    fn store(&self, v: Self::Int);
    /// Replace the word by `f(old)` atomically (a compare-exchange loop), so a
    /// concurrent write of the word's other bytes is not lost.
    fn update(&self, f: impl FnMut(Self::Int) -> Self::Int);
    /// The integer's bytes in memory order.
    fn to_bytes(v: Self::Int) -> Self::Bytes;
    /// The integer of bytes in memory order.
    fn from_bytes(b: Self::Bytes) -> Self::Int;
    /// The words of one 16-byte NQ entry (`[Self; 16 / BYTES]`).
    type Entry;
    /// The entries of `words` (whole entries from its start; the rest, less
    /// than an entry, is left out).
    fn entries(words: &[Self]) -> &[Self::Entry]
    where
        Self: Sized;
    /// The first word of an entry (the phase byte's) [004 §3].
    fn first(e: &Self::Entry) -> &Self;
    /// Store into `out` the entry whose first word is `first` (already
    /// loaded) and whose other words are loaded from `e`, in order. Written
    /// in place: an `NqEntry` returned by value (16 bytes, alignment 1) is
    /// moved by a `memcpy` call on thumbv7em.
    fn entry(first: Self::Int, e: &Self::Entry, out: &mut NqEntry);
    /// Byte `k` (memory order) of `v`.
    fn byte(v: Self::Int, k: usize) -> u8;
    /// `v` zero-extended (an [`EntryPeek`]'s head word).
    fn widen(v: Self::Int) -> u64;
    /// The word [`AtomicWord::widen`] made `v` from (its low bits).
    fn narrow(v: u64) -> Self::Int;
    /// The integer whose bytes are all 0 but byte `k` (memory order), which is `b`.
    fn byte_at(b: u8, k: usize) -> Self::Int {
        Self::Int::from(b) << byte_shift(k, Self::BYTES)
    }
}

/// The shift of byte `k` (memory order) of a `bytes`-wide native-endian word.
#[inline(always)]
const fn byte_shift(k: usize, bytes: usize) -> u32 {
    if cfg!(target_endian = "little") {
        8 * k as u32
    } else {
        8 * (bytes - 1 - k) as u32
    }
}

macro_rules! atomic_word {
    ($atomic:ty, $int:ty, $n:expr, [$($i:expr),*]) => {
        impl AtomicWord for $atomic {
            type Int = $int;
            type Bytes = [u8; $n];
            type Entry = [$atomic; NQ_ENTRY_BYTES / $n];
            const BYTES: usize = $n;
            const ZERO: $int = 0;
            #[inline(always)]
            fn entries(words: &[Self]) -> &[Self::Entry] {
                words.as_chunks::<{ NQ_ENTRY_BYTES / $n }>().0
            }
            #[inline(always)]
            fn first(e: &Self::Entry) -> &Self {
                &e[0]
            }
            #[inline(always)]
            fn entry(first: $int, e: &Self::Entry, out: &mut NqEntry) {
                let b = out.bytes_mut();
                // Straight-line, one load and one store per word at constant
                // offsets: written as a loop, `opt-level = "s"` keeps it a
                // loop (thumbv7em: 31 instructions per entry for 4 words,
                // issue 12, scripts/target-count.sh).
                b[..$n].copy_from_slice(&first.to_ne_bytes());
                $(
                    b[$i * $n..($i + 1) * $n].copy_from_slice(&e[$i].load(Relaxed).to_ne_bytes());
                )*
            }
            #[inline(always)]
            fn byte(v: $int, k: usize) -> u8 {
                (v >> byte_shift(k, $n)) as u8
            }
            #[inline(always)]
            fn widen(v: $int) -> u64 {
                v as u64
            }
            #[inline(always)]
            fn narrow(v: u64) -> $int {
                v as $int
            }
            #[inline(always)]
            fn load(&self) -> $int {
                <$atomic>::load(self, Relaxed)
            }
            #[inline(always)]
            fn store(&self, v: $int) {
                <$atomic>::store(self, v, Relaxed)
            }
            #[inline(always)]
            fn update(&self, mut f: impl FnMut($int) -> $int) {
                // `fetch_update(Relaxed, Relaxed, ..)` spelled out: it is
                // deprecated on current nightly, and its replacement
                // `try_update` is newer than the MSRV (1.88). A failed
                // exchange means another writer (the device) changed the word
                // in between: retry with the value it left.
                let mut old = <$atomic>::load(self, Relaxed);
                while let Err(now) =
                    <$atomic>::compare_exchange_weak(self, old, f(old), Relaxed, Relaxed)
                {
                    old = now;
                }
            }
            #[inline(always)]
            fn to_bytes(v: $int) -> [u8; $n] {
                v.to_ne_bytes()
            }
            #[inline(always)]
            fn from_bytes(b: [u8; $n]) -> $int {
                <$int>::from_ne_bytes(b)
            }
        }
        // The indices name every word of an entry after the first.
        const _: () = assert!(1 + [$($i),*].len() == NQ_ENTRY_BYTES / $n);
    };
}

// The indices: an entry's words after the first.
atomic_word!(AtomicU32, u32, 4, [1, 2, 3]);
#[cfg(target_has_atomic = "64")]
atomic_word!(core::sync::atomic::AtomicU64, u64, 8, [1]);

/// `len` bytes of DMA memory held as atomic words: its whole words, then
/// (when `len` is not whole words) a last word of which only the first bytes
/// belong to it.
#[derive(Debug, Clone, Copy)]
pub struct AtomicWords<'a, W> {
    /// Every word, the partial last one included (and any past `len`, which
    /// no access reaches).
    all: &'a [W],
    /// The whole words (the first `len / W::BYTES` of `all`, at most all of
    /// them): every hot access (a phase word, a run of entries) is checked
    /// against this slice's length alone, which is both the bounds and the
    /// memory-safety check. Kept apart, so that the check is one compare with
    /// the slice's length (for [`AtomicWords::whole`], the words' count as
    /// given: no division of a byte length the optimiser cannot undo).
    words: &'a [W],
    /// Bytes of the memory (at most what `all` holds counts).
    len: usize,
}

/// Where a run of entries lies ([`AtomicWords::entry_words`]).
enum EntryRun<'a, E> {
    /// In the whole words, from a word: these entries' words.
    Words(&'a [E]),
    /// Inside the memory, from an offset inside a word.
    Unaligned,
    /// Not inside the memory.
    Outside,
}

/// The refusal of an access of `offset` outside `len` bytes. Inlined: the
/// optimiser then sees the error's variant on every path (out of line, a
/// `Result` wrapping it has to be inspected again after the call).
#[inline(always)]
fn out_of_range(what: &'static str, offset: usize, len: usize) -> Error {
    Error::out_of_range(what, offset as u64, len as u64)
}

impl<'a, W: AtomicWord> AtomicWords<'a, W> {
    /// Memory of whole words: all of `words`.
    #[inline(always)]
    pub const fn whole(words: &'a [W]) -> Self {
        AtomicWords {
            all: words,
            words,
            len: words.len() * W::BYTES,
        }
    }

    /// The first `len` bytes of `words` (fewer if the words hold fewer: the
    /// length is then what they hold).
    #[inline(always)]
    pub const fn new(words: &'a [W], len: usize) -> Self {
        let n = len / W::BYTES;
        let whole = match words.split_at_checked(n) {
            Some((whole, _)) => whole,
            None => words,
        };
        AtomicWords {
            all: words,
            words: whole,
            len,
        }
    }

    /// The whole words (see the field).
    #[inline(always)]
    fn words(&self) -> &'a [W] {
        self.words
    }

    /// Size in bytes.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.words().len() * W::BYTES + self.tail_word().map_or(0, |(_, n)| n)
    }

    /// `true` when there are no bytes.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The partial last word and its bytes that belong to the memory, if any.
    #[inline(always)]
    fn tail_word(&self) -> Option<(&'a W, usize)> {
        let part = self.len % W::BYTES;
        let w = self.all.get(self.len / W::BYTES)?;
        (part > 0).then_some((w, part))
    }

    /// Every word, the partial last one included, in order.
    #[inline(always)]
    fn all(&self) -> impl Iterator<Item = &'a W> + 'a {
        self.words().iter().chain(self.tail_word().map(|(w, _)| w))
    }

    /// The words holding bytes `offset..offset + n` (checked against the
    /// length; `None` outside), and the offset of `offset` in its word.
    #[inline(always)]
    fn span(&self, offset: usize, n: usize) -> Option<(impl Iterator<Item = &'a W> + 'a, usize)> {
        let end = offset.checked_add(n).filter(|&e| e <= self.len())?;
        let first = offset / W::BYTES;
        let last = end.div_ceil(W::BYTES);
        Some((self.all().skip(first).take(last - first), offset % W::BYTES))
    }

    /// One byte (its word loaded).
    #[inline(always)]
    pub fn load_u8(&self, offset: usize) -> Result<u8> {
        let (i, k) = (offset / W::BYTES, offset % W::BYTES);
        match self.words().get(i) {
            Some(w) => Ok(W::byte(w.load(), k)),
            // Memory of whole words (`AtomicWords::whole`, firmware's
            // `StaticDma`: the length a multiple of the word, which the
            // optimiser sees) has no partial word: the refusal here, and no
            // out-of-line tail path linked (firmware size, issue 12).
            None if self.len.is_multiple_of(W::BYTES) => {
                Err(out_of_range("dma offset", offset, self.len))
            }
            None => AtomicWords::new(self.all, self.len).load_u8_tail(offset),
        }
    }

    /// [`AtomicWords::load_u8`] past the whole words: a byte of the partial
    /// last word, or the refusal. Out of line and by value, so that the
    /// whole-word load above (the NQ idle test) carries no second path.
    #[cold]
    #[inline(never)]
    fn load_u8_tail(self, offset: usize) -> Result<u8> {
        let (i, k) = (offset / W::BYTES, offset % W::BYTES);
        match self.tail_word() {
            Some((w, n)) if i == self.len / W::BYTES && k < n => Ok(W::byte(w.load(), k)),
            _ => Err(out_of_range("dma offset", offset, self.len)),
        }
    }

    /// Copy `out.len()` bytes from `offset`: one load per word touched.
    pub fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        let (words, k) = self
            .span(offset, out.len())
            .ok_or_else(|| out_of_range("dma offset", offset, self.len()))?;
        let mut skip = k;
        let mut dst = out.iter_mut();
        for w in words {
            let v = w.load();
            // The word's bytes first: `zip` pulls from its first iterator
            // first, so `dst` is not advanced past the word's end. Each byte
            // is shifted out of the loaded integer: a copy loop from the
            // word's bytes in memory would be compiled into a `memcpy` call.
            for (i, o) in (skip..W::BYTES).zip(dst.by_ref()) {
                *o = W::byte(v, i);
            }
            skip = 0;
        }
        Ok(())
    }

    /// Write `data` at `offset`: whole words by one store each, the bytes of
    /// a partial word merged into it by a compare-exchange.
    pub fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        let (words, k) = self
            .span(offset, data.len())
            .ok_or_else(|| out_of_range("dma offset", offset, self.len()))?;
        let mut at = k;
        let mut src = data;
        for w in words {
            let n = (W::BYTES - at).min(src.len());
            let (now, later) = src.split_at(n);
            if n == W::BYTES {
                let mut b = W::to_bytes(W::ZERO);
                for (d, s) in b.as_mut().iter_mut().zip(now) {
                    *d = *s;
                }
                w.store(W::from_bytes(b));
            } else {
                let (mut mask, mut val) = (W::ZERO, W::ZERO);
                for (i, s) in (at..W::BYTES).zip(now) {
                    mask = mask | W::byte_at(0xFF, i);
                    val = val | W::byte_at(*s, i);
                }
                w.update(|old| (old & !mask) | val);
            }
            at = 0;
            src = later;
        }
        Ok(())
    }

    /// Zero every word (the partial last one whole: its padding is the memory's own).
    #[inline]
    pub fn zero(&self) {
        for w in self.all() {
            w.store(W::ZERO);
        }
    }

    /// [`DmaMemory::zero_entries`](super::DmaMemory::zero_entries): the run
    /// checked once (on an entry boundary, inside the whole words), then one
    /// store per word.
    #[inline]
    pub fn zero_entries(&self, offset: usize, count: usize) -> Result<()> {
        if !offset.is_multiple_of(NQ_ENTRY_BYTES) {
            return Err(Error::InvalidArgument(NOT_ON_ENTRY));
        }
        // `offset` is on a word; an entry is whole words.
        let run = count
            .checked_mul(NQ_ENTRY_BYTES / W::BYTES)
            .and_then(|n| self.words().get(offset / W::BYTES..)?.get(..n));
        let Some(run) = run else {
            return Err(out_of_range("dma entry run", offset, self.len));
        };
        for w in run {
            w.store(W::ZERO);
        }
        Ok(())
    }

    /// [`DmaMemory::scan_flag_run`](super::DmaMemory::scan_flag_run): the
    /// whole run's bounds once, then one word load per flag.
    #[inline]
    pub fn scan_flag_run(
        &self,
        offset: usize,
        stride: usize,
        max: usize,
        mask: u8,
        want: bool,
    ) -> Result<usize> {
        if max == 0 {
            return Ok(0);
        }
        check_flag_run(offset, stride, max, self.len())?;
        let expect = flag_value(mask, want);
        // Every flag of the run, in order (the last is below `len`, checked).
        let mut off = offset;
        for n in 0..max {
            if self.load_u8(off)? & mask != expect {
                return Ok(n);
            }
            off = off.wrapping_add(stride);
        }
        Ok(max)
    }

    /// Where `entries` entries from byte `offset` lie: when `offset` is on a
    /// word, in the whole words (an entry is whole words, so a run ending
    /// inside the memory ends inside its whole words) or outside; otherwise
    /// the slow path, or outside.
    #[inline(always)]
    fn entry_words(&self, offset: usize, entries: usize) -> EntryRun<'a, W::Entry> {
        if offset.is_multiple_of(W::BYTES) {
            return match self
                .words()
                .get(offset / W::BYTES..)
                .map(W::entries)
                .and_then(|e| e.get(..entries))
            {
                Some(run) => EntryRun::Words(run),
                None => EntryRun::Outside,
            };
        }
        let fits = entries
            .checked_mul(NQ_ENTRY_BYTES)
            .and_then(|n| offset.checked_add(n))
            .is_some_and(|end| end <= self.len());
        if fits {
            EntryRun::Unaligned
        } else {
            EntryRun::Outside
        }
    }

    /// Entries not on a whole word, byte-wise (never for a ring). The caller
    /// checked the run.
    #[cold]
    #[inline(never)]
    fn read_entries_slow(&self, offset: usize, out: &mut [NqEntry]) -> Result<()> {
        for (i, e) in out.iter_mut().enumerate() {
            self.read(offset + i * NQ_ENTRY_BYTES, e.bytes_mut())?;
        }
        Ok(())
    }

    /// [`DmaMemory::read_published_entries`](super::DmaMemory::read_published_entries):
    /// the run checked once; word loads into each entry.
    #[inline]
    pub fn read_entries(&self, offset: usize, out: &mut [NqEntry]) -> Result<()> {
        match self.entry_words(offset, out.len()) {
            EntryRun::Words(run) => {
                for (e, ws) in out.iter_mut().zip(run) {
                    W::entry(W::first(ws).load(), ws, e);
                }
                Ok(())
            }
            EntryRun::Unaligned => self.read_entries_slow(offset, out),
            EntryRun::Outside => Err(out_of_range("dma entry run", offset, self.len)),
        }
    }

    /// [`DmaMemory::read_new_entries`](super::DmaMemory::read_new_entries) in
    /// one pass, entry by entry (an `offset` that is not a multiple of 16 is
    /// refused, as the contract allows): load the entry's first word (which holds
    /// the phase byte); stop unless its phase bit is `phase`; Acquire fence;
    /// load the entry's other words; store the entry in the caller's slot.
    ///
    /// The phase byte and the rest of its word come from one single-copy
    /// atomic load, so the copied phase is the scanned one (a rewrite of the
    /// word after it is not in the copy), and the other words are loaded
    /// after the fence, as the contract asks. The whole run is bounds-checked
    /// before any load. The fence is per entry: free on x86-64 (a compiler
    /// barrier), one `dmb ishld` on AArch64 / `dmb ish` on thumbv7em.
    // Inlined into the drain on hosts (the per-call cost, issue 12); left to
    // the optimiser on bare metal, where images are built for size.
    #[cfg_attr(not(target_os = "none"), inline(always))]
    #[cfg_attr(target_os = "none", inline)]
    pub fn read_new_entries(
        &self,
        offset: usize,
        out: &mut [NqEntry],
        phase: bool,
    ) -> Result<usize> {
        // A run off an entry boundary is refused (the trait's contract): a
        // ring's entries are at multiples of 16, so no byte-wise path is
        // kept for it (firmware size, issue 12).
        if !offset.is_multiple_of(NQ_ENTRY_BYTES) {
            return Err(Error::InvalidArgument(NOT_ON_ENTRY));
        }
        let run = match self.entry_words(offset, out.len()) {
            EntryRun::Words(run) => run,
            // `offset` is a multiple of 16, so of the word: never
            // `Unaligned`. The error is built here, so the optimiser sees
            // every path.
            EntryRun::Unaligned | EntryRun::Outside => {
                return Err(out_of_range("dma entry run", offset, self.len))
            }
        };
        // Each arm's `phase` a constant: on hosts (inlined) each loop tests
        // against an immediate; on bare metal both call the one copy.
        Ok(if phase {
            copy_new::<W>(run, out, true)
        } else {
            copy_new::<W>(run, out, false)
        })
    }
}

// Phase mode's idle test and one-entry take (issue 12).
impl<'a, W: AtomicWord> AtomicWords<'a, W> {
    /// The words of the entry at `offset`, checked as
    /// [`check_entry`](super::check_entry) does: on a 16-byte boundary,
    /// wholly inside the memory (so inside its whole words). For an offset
    /// `16 * i`, one compare of `i` against the number of whole entries.
    #[inline(always)]
    fn entry_at(&self, offset: usize) -> Result<&'a W::Entry> {
        if !offset.is_multiple_of(NQ_ENTRY_BYTES) {
            return Err(Error::InvalidArgument(NOT_ON_ENTRY));
        }
        let entries = W::entries(self.words());
        match entries.get(offset / NQ_ENTRY_BYTES) {
            Some(e) => Ok(e),
            // The limit: the bytes of whole entries (what the test compared
            // with; the optimiser then keeps no copy of the length).
            None => Err(out_of_range(
                "dma nq entry",
                offset,
                entries.len() * NQ_ENTRY_BYTES,
            )),
        }
    }

    /// [`DmaMemory::peek_entry`](super::DmaMemory::peek_entry): the entry
    /// checked, then one load of its first word (the phase byte's), kept in
    /// the peek for [`AtomicWords::take_peeked`].
    #[inline(always)]
    pub fn peek_entry(&self, offset: usize) -> Result<EntryPeek> {
        let head = W::first(self.entry_at(offset)?).load();
        Ok(EntryPeek::with_phase_byte(
            offset,
            W::byte(head, PHASE_BYTE),
            W::widen(head),
        ))
    }

    /// [`DmaMemory::take_peeked`](super::DmaMemory::take_peeked): the entry
    /// checked again (the same test as the peek's, which the optimiser
    /// merges when both are inlined), an Acquire fence (the phase load said
    /// new: order the entry's other loads after it), then the entry's other
    /// words. Its first word is the peeked one, so the copied phase is the
    /// peeked phase: `Ok(true)`.
    #[inline(always)]
    pub fn take_peeked(&self, peek: EntryPeek, out: &mut NqEntry) -> Result<bool> {
        let e = self.entry_at(peek.offset())?;
        fence(Acquire);
        W::entry(W::narrow(peek.head()), e, out);
        Ok(true)
    }
}

// Phase mode's drain step (issue 12).
impl<W: AtomicWord> AtomicWords<'_, W> {
    /// [`DmaMemory::take_new_at`](super::DmaMemory::take_new_at) on one view
    /// of the words: the entry `at` checked and its first word (the
    /// phase byte's) loaded and tested (the idle poll ends here); if `out`
    /// has room for two and `more`, the next entry checked and its first
    /// word loaded; one Acquire fence; the first entry copied (the loaded
    /// word and its other words); the second tested, and copied if new;
    /// then, only if it was and `out` has room for more, the run after it
    /// (`limit() - 2` entries, checked once, the loop of
    /// [`AtomicWords::read_new_entries`]). The
    /// length and base of the words stay in registers throughout (one view,
    /// no fence between the tests and the checks), and the two entries a
    /// trickle of notifications brings are copied without the run's
    /// set-up.
    #[inline(always)]
    pub fn take_new_at(
        &self,
        at: usize,
        old: u32,
        more: impl FnOnce() -> bool,
        limit: impl FnOnce() -> usize,
        out: &mut [NqEntry],
    ) -> Result<usize> {
        let entries = W::entries(self.words());
        // The entries from entry `at` on: every check below is a compare
        // with this one length (the first, the idle test's, is `> 0`).
        // One compare (the two tests of the split below then fold into it).
        // The one refusal of every check below (the entries from `at`
        // reach past the memory): one error for all, so a firmware image
        // builds it once.
        // Its value the index and its limit the entries (no product to
        // build, nor to overflow, on 32-bit targets).
        let outside = super::entry_index_past(at, entries.len());
        if at >= entries.len() {
            return Err(outside);
        }
        let Some((e0, after)) = entries.get(at..).and_then(|t| t.split_first()) else {
            return Ok(0);
        };
        let w0 = W::first(e0).load();
        let p0 = phase_dword::<W>(w0);
        if (p0 ^ old) & PHASE_DWORD_BIT == 0 {
            return Ok(0);
        }
        let Some((o0, rest)) = out.split_first_mut() else {
            return Ok(0);
        };
        // A second entry may be taken: room for it in `out`, and `more`
        // (two tests, not one `||`: the compiler then branches on each).
        if rest.is_empty() {
            // The phase load said "new": order the entry's other loads after it.
            fence(Acquire);
            W::entry(w0, e0, o0);
            return Ok(1);
        }
        if !more() {
            fence(Acquire);
            W::entry(w0, e0, o0);
            return Ok(1);
        }
        // The next entry's phase word, under the same view.
        let Some((e1, after)) = after.split_first() else {
            return Err(outside);
        };
        let w1 = W::first(e1).load();
        // One fence orders both entries' other loads after both phase loads.
        fence(Acquire);
        W::entry(w0, e0, o0);
        // New too when its phase bit is the first one's (before the wrap).
        if (phase_dword::<W>(w1) ^ p0) & PHASE_DWORD_BIT != 0 {
            return Ok(1);
        }
        let Some((o1, rest)) = rest.split_first_mut() else {
            return Ok(1);
        };
        W::entry(w1, e1, o1);
        // `out` full: no run to set up.
        if rest.is_empty() {
            return Ok(2);
        }
        // The run after the two, checked once (`limit() >= 2` by the
        // contract; a smaller one takes none). The copy stops at the end of
        // `rest` or of the run, whichever comes first.
        let Some(run) = after.get(..limit().wrapping_sub(2)) else {
            return Err(outside);
        };
        // Each arm's `phase` a constant: on hosts (inlined) each loop tests
        // against an immediate; on bare metal both call the one copy.
        let n = if p0 & PHASE_DWORD_BIT != 0 {
            copy_new::<W>(run, rest, true)
        } else {
            copy_new::<W>(run, rest, false)
        };
        Ok(2 + n)
    }
}

// Phase mode's quick step (issue 12, bare metal).
impl<W: AtomicWord> AtomicWords<'_, W> {
    /// [`DmaMemory::take_one_at`](super::DmaMemory::take_one_at) on one
    /// view of the words: the entry `at` checked and its first word loaded
    /// and tested (the idle poll ends here); if `out` has room for two and
    /// `more`, the next entry's first word loaded and tested under the same
    /// view; when it is new too and `out` has room for a third and
    /// `third`, the third's (new too: [`TakeOne::Other`], nothing copied);
    /// then one Acquire fence and the new entries copied from the loaded
    /// words and their other words.
    #[inline(always)]
    pub fn take_one_at(
        &self,
        at: usize,
        old: u32,
        more: impl FnOnce() -> bool,
        third: impl FnOnce() -> bool,
        out: &mut [NqEntry],
    ) -> TakeOne {
        let entries = W::entries(self.words());
        let Some(e0) = entries.get(at) else {
            return TakeOne::Other;
        };
        let w0 = W::first(e0).load();
        let p0 = phase_dword::<W>(w0);
        if (p0 ^ old) & PHASE_DWORD_BIT == 0 {
            return TakeOne::Idle;
        }
        let Some((o0, rest)) = out.split_first_mut() else {
            return TakeOne::Other;
        };
        // A second entry may be taken (two tests, not one `&&`, as in
        // `take_new_at`): new too when its phase bit is the first one's.
        if !rest.is_empty() && more() {
            // The pair from `at` (`at < entries.len()`: no overflow).
            let Some([_, e1]) = entries.get(at..at + 2) else {
                return TakeOne::Other;
            };
            let w1 = W::first(e1).load();
            if (phase_dword::<W>(w1) ^ p0) & PHASE_DWORD_BIT == 0 {
                return self.take_two(at, w0, w1, p0, third, out);
            }
        }
        // The phase load said "new": order the entry's other loads after it.
        fence(Acquire);
        W::entry(w0, e0, o0);
        TakeOne::One
    }

    /// [`AtomicWords::take_one_at`] when the entries `at` and `at + 1` are
    /// both new (their first words `w0`, `w1`): both copied, unless `out`
    /// has room for a third, `third()` and the third is new too (then
    /// [`TakeOne::Other`], nothing copied: a run).
    #[inline(always)]
    fn take_two(
        &self,
        at: usize,
        w0: W::Int,
        w1: W::Int,
        p0: u32,
        third: impl FnOnce() -> bool,
        out: &mut [NqEntry],
    ) -> TakeOne {
        let entries = W::entries(self.words());
        let Some(([o0, o1], rest)) = out.split_first_chunk_mut::<2>() else {
            return TakeOne::Other;
        };
        if !rest.is_empty() && third() {
            // (`at + 1 < entries.len()`: no overflow.)
            let Some([_, _, e2]) = entries.get(at..at + 3) else {
                return TakeOne::Other;
            };
            if (phase_dword::<W>(W::first(e2).load()) ^ p0) & PHASE_DWORD_BIT == 0 {
                return TakeOne::Other;
            }
        }
        let Some([e0, e1]) = entries.get(at..at + 2) else {
            return TakeOne::Other;
        };
        // One fence orders both entries' other loads after both phase loads.
        fence(Acquire);
        W::entry(w0, e0, o0);
        W::entry(w1, e1, o1);
        TakeOne::Two
    }
}

/// The phase byte of `w` (an entry's first word) in the top byte of a `u32`
/// (the form the consumer phase is kept in: one xor and a sign test).
#[inline(always)]
fn phase_dword<W: AtomicWord>(w: W::Int) -> u32 {
    u32::from(W::byte(w, PHASE_BYTE)) << 24
}

// The phase byte is in an entry's first word for both word sizes.
const _: () = assert!(PHASE_BYTE < 4 && NQ_ENTRY_BYTES.is_multiple_of(8));

/// The loop of [`AtomicWords::read_new_entries`] for expected phase `phase`
/// over `run` (`out.len()` entries): returns how many entries
/// were new and copied. Inlined on hosts (with `phase` a constant, as the
/// drain's per-call cost wants); on bare metal one out-of-line copy for
/// both phases and every caller (issue 12: firmware size).
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
fn copy_new<W: AtomicWord>(run: &[W::Entry], out: &mut [NqEntry], phase: bool) -> usize {
    let m = W::byte_at(PHASE_MASK, PHASE_BYTE);
    let want = if phase { m } else { W::ZERO };
    let mut n = 0;
    for (e, ws) in out.iter_mut().zip(run) {
        let first = W::first(ws).load();
        if first & m != want {
            break;
        }
        // The phase load said "new": order the entry's other loads after it.
        fence(Acquire);
        W::entry(first, ws, e);
        n += 1;
    }
    n
}

// The drain iterator's view of a run (issue 12; `super::entry_view`).
impl<'a, W: super::EntryWord> AtomicWords<'a, W> {
    /// The bytes of one word (4 or 8): what every [`AtomicWords::entry_view`]
    /// is made of ([`DmaMemory::entry_view_word_bytes`](super::DmaMemory::entry_view_word_bytes)).
    #[inline(always)]
    pub const fn word_bytes(&self) -> usize {
        W::BYTES
    }

    /// [`DmaMemory::entry_view`](super::DmaMemory::entry_view): the run
    /// checked once; a run on whole words (a ring's: its base is aligned,
    /// its entries 16 bytes) is its sub-slice of entry words, read with no
    /// bounds check per entry. A run that does not start on a word is
    /// refused ([`Error::InvalidArgument`]), so every view is one of words
    /// (`entry_views_of_words`).
    #[inline(always)]
    pub fn entry_view(&self, offset: usize, n: usize, phase: bool) -> Result<super::EntryView<'a>> {
        // (Every view made here is of `W`: `word_bytes` says so.)
        match self.entry_words(offset, n) {
            EntryRun::Words(run) => Ok(W::view(run, phase)),
            EntryRun::Unaligned => Err(Error::InvalidArgument(
                "dma entry view: run not on an access word",
            )),
            EntryRun::Outside => Err(out_of_range("dma entry run", offset, self.len)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words<const N: usize>() -> [AtomicU32; N] {
        core::array::from_fn(|_| AtomicU32::new(0))
    }

    #[test]
    fn a_view_never_reaches_past_its_len_or_its_words() {
        let w = words::<4>();
        let long = AtomicWords::new(&w, 17);
        assert!(long.load_u8(16).is_err());
        assert!(long.read(15, &mut [0; 2]).is_err());
        assert!(long.write(16, &[1]).is_err());
        assert_eq!(long.load_u8(15), Ok(0));
        let v = AtomicWords::new(&w, 13);
        assert_eq!(v.len(), 13);
        assert!(v.load_u8(13).is_err());
        assert!(v.write(12, &[1, 2]).is_err());
        v.write(12, &[9]).unwrap();
        assert_eq!(v.load_u8(12), Ok(9));
        // The refused write wrote nothing.
        assert_eq!(v.load_u8(11), Ok(0));
    }

    #[test]
    fn writes_and_reads_at_every_offset_and_length() {
        let w = words::<8>();
        let v = AtomicWords::new(&w, 30);
        for off in 0..30 {
            for len in 0..=30 - off {
                // A background of ones: a partial-word write must replace
                // its bytes whole, not OR into them.
                v.write(0, &[0xFF; 30]).unwrap();
                let data: [u8; 30] = core::array::from_fn(|i| i as u8 + 1);
                v.write(off, &data[..len]).unwrap();
                let mut all = [0xAAu8; 30];
                v.read(0, &mut all).unwrap();
                for (i, b) in all.iter().enumerate() {
                    let want = if (off..off + len).contains(&i) {
                        (i - off) as u8 + 1
                    } else {
                        0xFF
                    };
                    assert_eq!(*b, want, "offset {off} len {len} byte {i}");
                }
            }
        }
    }

    #[test]
    fn zero_entries_zeroes_its_run_only_and_refuses_before_any_store() {
        let w = words::<16>(); // 4 entries
        let v = AtomicWords::new(&w, 64);
        v.write(0, &[0xA5; 64]).unwrap();
        v.zero_entries(16, 2).unwrap();
        let mut all = [0u8; 64];
        v.read(0, &mut all).unwrap();
        for (i, b) in all.iter().enumerate() {
            let want = if (16..48).contains(&i) { 0 } else { 0xA5 };
            assert_eq!(*b, want, "byte {i}");
        }
        // Off an entry boundary, or past the end: refused, nothing stored.
        v.write(0, &[0xA5; 64]).unwrap();
        assert_eq!(
            v.zero_entries(4, 1),
            Err(Error::InvalidArgument(NOT_ON_ENTRY))
        );
        assert!(matches!(
            v.zero_entries(48, 2),
            Err(Error::OutOfRange { .. })
        ));
        assert!(v.zero_entries(16, usize::MAX).is_err());
        v.read(0, &mut all).unwrap();
        assert_eq!(all, [0xA5; 64]);
        v.zero_entries(0, 4).unwrap();
        v.read(0, &mut all).unwrap();
        assert_eq!(all, [0; 64]);
        // A partial last word is not an entry of the memory.
        let short = AtomicWords::new(&w, 63);
        assert!(short.zero_entries(48, 1).is_err());
    }

    #[test]
    fn a_peek_keeps_the_phase_word_and_the_take_loads_the_rest() {
        let w = words::<12>(); // 3 entries (of 4-byte words)
        let v = AtomicWords::new(&w, 48);
        let mut e: [u8; 16] = core::array::from_fn(|i| i as u8 + 1);
        e[PHASE_BYTE] = PHASE_MASK | 4;
        v.write(16, &e).unwrap();
        let p = v.peek_entry(16).unwrap();
        assert_eq!((p.offset(), p.phase()), (16, true));
        assert_eq!(v.peek_entry(0).map(|p| p.phase()), Ok(false));
        // The take keeps the peeked word: a rewrite of it after the peek is
        // not in the copy (its phase is the peeked one); the rest is loaded.
        v.write(16, &[0; 4]).unwrap();
        v.write(20, &[0xAB]).unwrap();
        let mut out = NqEntry::default();
        assert_eq!(v.take_peeked(p, &mut out), Ok(true));
        let mut want = e;
        want[4] = 0xAB;
        assert_eq!(out.bytes(), &want);
        // Off an entry boundary, or past the last whole entry: refused
        // before any load.
        assert!(matches!(v.peek_entry(8), Err(Error::InvalidArgument(_))));
        assert!(matches!(v.peek_entry(48), Err(Error::OutOfRange { .. })));
        assert!(matches!(
            AtomicWords::new(&w, 47).peek_entry(32),
            Err(Error::OutOfRange { .. })
        ));
        let far = EntryPeek::new(48, true, 0);
        assert!(v.take_peeked(far, &mut out).is_err());
    }

    /// `take_new_at`: nothing but the first entry's load when it is not
    /// new (neither closure called); one entry without `more`; the second
    /// tested (and `limit` not called) when it is not new; both and the run
    /// after them when it is; the run cut by `limit`, by `out` and by the
    /// first old entry; refusals before any copy.
    #[test]
    fn take_new_at_tests_two_entries_before_the_run() {
        use core::cell::Cell;
        let w = words::<24>(); // 6 entries of 4-byte words
        let v = AtomicWords::whole(&w);
        // Entries 0..4 new in phase 1 (other bits of the phase byte set).
        for i in 0..4u8 {
            let mut e = [i; 16];
            e[PHASE_BYTE] = PHASE_MASK | 0x11;
            v.write(usize::from(i) * 16, &e).unwrap();
        }
        let (more, limit) = (Cell::new(0), Cell::new(0));
        let m = |yes: bool| {
            more.set(more.get() + 1);
            yes
        };
        let l = |n: usize| {
            limit.set(limit.get() + 1);
            n
        };
        let mut out = [NqEntry::default(); 6];
        // Consumer phase 1: nothing new, no closure called.
        let old1 = PHASE_DWORD_BIT | 0x1234;
        assert_eq!(v.take_new_at(0, old1, || m(true), || l(6), &mut out), Ok(0));
        assert_eq!((more.get(), limit.get()), (0, 0));
        // Consumer phase 0: the first alone when `more` says no.
        assert_eq!(v.take_new_at(1, 0, || m(false), || l(6), &mut out), Ok(1));
        assert_eq!((out[0].bytes()[0], more.get(), limit.get()), (1, 1, 0));
        // Entry 3 is followed by an old one: tested, not taken, no `limit`.
        assert_eq!(v.take_new_at(3, 0, || m(true), || l(3), &mut out), Ok(1));
        assert_eq!((out[0].bytes()[0], more.get(), limit.get()), (3, 2, 0));
        // From entry 0: both, then the run, to the first old entry.
        out = [NqEntry::default(); 6];
        assert_eq!(v.take_new_at(0, 0, || m(true), || l(6), &mut out), Ok(4));
        for (k, e) in out.iter().take(4).enumerate() {
            assert_eq!(e.bytes()[15], k as u8);
        }
        assert_eq!(out[4], NqEntry::default());
        // Cut by `limit` and by the length of `out`; an `out` of two filled
        // by the two tests does not ask for the limit.
        assert_eq!(v.take_new_at(0, 0, || m(true), || l(3), &mut out), Ok(3));
        let limits = limit.get();
        assert_eq!(
            v.take_new_at(0, 0, || m(true), || l(6), &mut out[..2]),
            Ok(2)
        );
        assert_eq!(limit.get(), limits);
        // An out of one takes one whatever `more` would say (not asked).
        let mores = more.get();
        assert_eq!(
            v.take_new_at(0, 0, || m(true), || l(6), &mut out[..1]),
            Ok(1)
        );
        assert_eq!(more.get(), mores);
        // Refused: past the memory (also an index whose byte offset does
        // not fit); the second entry past the memory when `more` says there
        // is one.
        assert_eq!(
            v.take_new_at(6, 0, || m(true), || l(2), &mut out),
            Err(Error::out_of_range("dma nq entry index", 6, 6))
        );
        assert_eq!(
            v.take_new_at(usize::MAX / 8, 0, || m(true), || l(2), &mut out),
            Err(Error::OutOfRange {
                what: "dma nq entry index",
                value: (usize::MAX / 8).min(u32::MAX as usize) as u32,
                limit: 6
            })
        );
        let mut e = [5u8; 16];
        e[PHASE_BYTE] = PHASE_MASK;
        v.write(80, &e).unwrap();
        assert!(matches!(
            v.take_new_at(5, 0, || m(true), || l(2), &mut out),
            Err(Error::OutOfRange { .. })
        ));
        assert_eq!(v.take_new_at(5, 0, || m(false), || l(2), &mut out), Ok(1));
    }

    /// `take_one_at`: the idle test alone when the entry is not new; one
    /// entry copied when `out` holds one, `more` says no, or the entry after
    /// it is not new; two when both are new and `out` holds two, `third`
    /// says no, or the third is not new; anything else `Other`, nothing
    /// copied.
    #[test]
    fn take_one_at_takes_one_or_two_entries_or_leaves_them_to_the_run() {
        use core::cell::Cell;
        let w = words::<32>(); // 8 entries of 4-byte words
        let v = AtomicWords::whole(&w);
        // Entries 0, 1, 2, 4 and 5 new in phase 1 (other bits of the
        // phase byte set).
        for i in [0u8, 1, 2, 4, 5] {
            let mut e = [i; 16];
            e[PHASE_BYTE] = PHASE_MASK | 0x11;
            v.write(usize::from(i) * 16, &e).unwrap();
        }
        let calls = Cell::new(0);
        let m = |yes: bool| {
            calls.set(calls.get() + 1);
            yes
        };
        let fresh = [NqEntry::default(); 3];
        let mut out = fresh;
        // Consumer phase 1: nothing new, no closure called, nothing written.
        let old1 = PHASE_DWORD_BIT | 0x1234;
        let t = v.take_one_at(0, old1, || m(true), || m(true), &mut out);
        assert_eq!((t, calls.get(), out), (TakeOne::Idle, 0, fresh));
        // Consumer phase 0. Entries 0, 1, 2 new: left to the run (both
        // closures asked), nothing copied.
        let t = v.take_one_at(0, 0, || m(true), || m(true), &mut out);
        assert_eq!((t, calls.get(), out), (TakeOne::Other, 2, fresh));
        // One when `more` says no, or `out` holds one (neither asked).
        let t = v.take_one_at(0, 0, || m(false), || m(true), &mut out);
        assert_eq!(
            (t, calls.get(), out[0].bytes()[15], out[1]),
            (TakeOne::One, 3, 0, fresh[1])
        );
        let t = v.take_one_at(1, 0, || m(true), || m(true), &mut out[..1]);
        assert_eq!((t, calls.get(), out[0].bytes()[15]), (TakeOne::One, 3, 1));
        // Two when `third` says no, when `out` holds two (not asked), when
        // the third is not new (entries 4, 5, then 6 old).
        out = fresh;
        let t = v.take_one_at(0, 0, || m(true), || m(false), &mut out);
        let got = (out[0].bytes()[15], out[1].bytes()[15], out[2]);
        assert_eq!((t, calls.get(), got), (TakeOne::Two, 5, (0, 1, fresh[2])));
        let t = v.take_one_at(1, 0, || m(true), || m(true), &mut out[..2]);
        let got = (out[0].bytes()[15], out[1].bytes()[15]);
        assert_eq!((t, calls.get(), got), (TakeOne::Two, 6, (1, 2)));
        let t = v.take_one_at(4, 0, || m(true), || m(true), &mut out);
        let got = (out[0].bytes()[15], out[1].bytes()[15]);
        assert_eq!((t, calls.get(), got), (TakeOne::Two, 8, (4, 5)));
        // Entry 2 is followed by an old one: taken alone.
        let t = v.take_one_at(2, 0, || m(true), || m(true), &mut out);
        assert_eq!((t, out[0].bytes()[15]), (TakeOne::One, 2));
        // Past the memory when the closures say there is more (the second
        // of entry 7, the third of entries 6 and 7), an entry past the
        // memory, an empty `out`: `Other`, nothing copied.
        for i in [6u8, 7] {
            let mut e = [i; 16];
            e[PHASE_BYTE] = PHASE_MASK;
            v.write(usize::from(i) * 16, &e).unwrap();
        }
        out = fresh;
        for at in [7, 6, 8, usize::MAX] {
            assert_eq!(
                v.take_one_at(at, 0, || true, || true, &mut out),
                TakeOne::Other
            );
        }
        assert_eq!(
            v.take_one_at(7, 0, || true, || true, &mut []),
            TakeOne::Other
        );
        assert_eq!(out, fresh);
        assert_eq!(
            v.take_one_at(7, 0, || false, || true, &mut out),
            TakeOne::One
        );
        assert_eq!(out[0].bytes()[15], 7);
        assert_eq!(
            v.take_one_at(6, 0, || true, || false, &mut out),
            TakeOne::Two
        );
    }

    #[test]
    fn new_entries_stop_at_the_first_old_one() {
        let w = words::<16>(); // 4 entries
        let v = AtomicWords::new(&w, 64);
        for i in 0..3u8 {
            let mut e = [i; 16];
            e[PHASE_BYTE] = PHASE_MASK | i;
            v.write(usize::from(i) * 16, &e).unwrap();
        }
        let mut out = [NqEntry::default(); 4];
        assert_eq!(v.read_new_entries(0, &mut out, true), Ok(3));
        assert_eq!(out[2].bytes()[15], 2);
        assert_eq!(v.read_new_entries(48, &mut out[..1], false), Ok(1));
        assert_eq!(v.read_new_entries(0, &mut out, false), Ok(0));
        // A run off an entry boundary is refused before any load, inside
        // the memory or not, on a word or not.
        let mut one = [NqEntry::default(); 1];
        for off in [1, 4, 8, 12, 17] {
            assert_eq!(
                v.read_new_entries(off, &mut one, true),
                Err(Error::InvalidArgument(NOT_ON_ENTRY)),
                "offset {off}"
            );
        }
        // The whole run is checked first.
        assert!(v.read_new_entries(16, &mut out, true).is_err());
        assert!(v.read_entries(usize::MAX - 3, &mut out).is_err());
    }
}
