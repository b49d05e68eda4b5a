//! A run of NQ entries read one at a time straight from DMA memory, its bounds
//! checked once: what the drain iterator yields from [004 §3], [FACTS §11].
//!
//! [`DmaMemory::entry_view`] checks the whole
//! run and hands back an [`EntryView`]; [`EntryView::next_new`] then reads the
//! run's entries in order while they are new. For the atomic-word backends
//! ([`AtomicWords`](super::AtomicWords): khal-std's `DmaBuf`, [`StaticDma`](super::StaticDma))
//! the view is the run's sub-slice of entry words, so reading an entry carries
//! no bounds check and no copy through a buffer (issue 12: `drain_iter`
//! copied every entry twice, ring → its chunk buffer → the caller). Any other
//! backend reads each entry through its own
//! [`DmaMemory::read_new_entries`].

use core::slice::Iter;
#[cfg(target_has_atomic = "64")]
use core::sync::atomic::AtomicU64;
use core::sync::atomic::{fence, AtomicU32, Ordering::Acquire, Ordering::Relaxed};

use crate::error::Result;
use crate::notific::entry::{NqEntry, NQ_ENTRY_BYTES, PHASE_BYTE, PHASE_DWORD_BIT, PHASE_MASK};

use super::words::AtomicWord;
use super::DmaMemory;

/// A run of NQ entries in DMA memory whose bounds were checked when it was
/// made ([`DmaMemory::entry_view`]), read in
/// order by [`EntryView::next_new`] while each entry is new (its phase bit is
/// the view's expected phase).
// One struct for the three sources, not an enum: a view of one kind has the
// other kinds' runs empty, so the hot read (a word view's) tests nothing but
// its own run's end, and an enum's payloads of different types sharing bytes
// went through the stack on every entry.
#[derive(Debug, Clone)]
pub struct EntryView<'a> {
    /// 8-byte atomic words (khal-std's `DmaBuf`): the entries not read yet.
    #[cfg(target_has_atomic = "64")]
    w64: Iter<'a, [AtomicU64; 2]>,
    /// 4-byte atomic words ([`StaticDma`](super::StaticDma)): the entries not read yet.
    w32: Iter<'a, [AtomicU32; 4]>,
    /// The word views: the phase bit of an entry that is NOT new, as bit
    /// 31 ([`PHASE_DWORD_BIT`] or 0): an entry is new when its phase bit
    /// (moved to bit 31, [`phase_sign`]) xor this is set, one sign test.
    old: u32,
    /// Any other backend, each entry read by its `read_new_entries`: the
    /// next entry's offset, the entries left, the phase of a new entry.
    offset: usize,
    left: usize,
    phase: bool,
    /// The entry [`EntryView::fetch`] read, not handed out yet.
    held: Option<NqEntry>,
}

/// An atomic word an [`EntryView`] can be made of (sealed: `AtomicU32`, and
/// `AtomicU64` where the target has it).
pub trait EntryWord: AtomicWord + Sized {
    /// The view over `run`, whose entries are new when their phase bit is `phase`.
    fn view(run: &[Self::Entry], phase: bool) -> EntryView<'_>;
    /// The entry whose first word is `first` (already loaded) and whose
    /// other words are loaded from `e`, in order, as one integer (kept in
    /// registers, not built in memory).
    fn load_entry(first: Self::Int, e: &Self::Entry) -> NqEntry;
}

/// The entry of the 16 bytes of `v`'s words in memory order, `hi` the
/// later 8 bytes.
#[inline(always)]
fn entry_of(lo: u64, hi: u64) -> NqEntry {
    let (lo, hi) = (u128::from(lo), u128::from(hi));
    NqEntry::from_bytes(if cfg!(target_endian = "little") {
        (lo | hi << 64).to_le_bytes()
    } else {
        (lo << 64 | hi).to_be_bytes()
    })
}

/// The 8 bytes of `a` then `b` in memory order, as one native integer.
#[inline(always)]
fn pair(a: u32, b: u32) -> u64 {
    let (a, b) = (u64::from(a), u64::from(b));
    if cfg!(target_endian = "little") {
        a | b << 32
    } else {
        a << 32 | b
    }
}

/// The phase bit, as bit 31, of an entry that is NOT new in a run whose
/// new entries carry phase `phase` (the opposite of the consumer phase
/// before the wrap, the consumer phase after it [FACTS §11]).
#[inline(always)]
const fn old_of(phase: bool) -> u32 {
    if phase {
        0
    } else {
        PHASE_DWORD_BIT
    }
}

/// An entry's first word with its phase bit (bit 7 of byte
/// [`PHASE_BYTE`], memory order) moved to bit 31 of a `u32`, the other
/// bits meaningless: on little-endian targets the word's low half as it is
/// (byte 3 is bits 24..31), elsewhere one rotation.
#[inline(always)]
fn phase_sign<W: AtomicWord>(first: W::Int) -> u32 {
    let bit = W::byte_at(PHASE_MASK, PHASE_BYTE);
    let pos = W::widen(bit).trailing_zeros();
    // `pos < 64`; the rotation puts bit `pos` at bit 31 (0 on little-endian).
    W::widen(first).rotate_right((pos + 64 - 31) % 64) as u32
}

impl EntryWord for AtomicU32 {
    #[inline(always)]
    fn view(run: &[[AtomicU32; 4]], phase: bool) -> EntryView<'_> {
        EntryView {
            w32: run.iter(),
            old: old_of(phase),
            ..EntryView::each(0, 0, phase)
        }
    }

    #[inline(always)]
    fn load_entry(first: u32, e: &[AtomicU32; 4]) -> NqEntry {
        let [_, w1, w2, w3] = e;
        let (w1, w2, w3) = (w1.load(Relaxed), w2.load(Relaxed), w3.load(Relaxed));
        entry_of(pair(first, w1), pair(w2, w3))
    }
}

#[cfg(target_has_atomic = "64")]
impl EntryWord for AtomicU64 {
    #[inline(always)]
    fn view(run: &[[AtomicU64; 2]], phase: bool) -> EntryView<'_> {
        EntryView {
            w64: run.iter(),
            old: old_of(phase),
            ..EntryView::each(0, 0, phase)
        }
    }

    #[inline(always)]
    fn load_entry(first: u64, e: &[AtomicU64; 2]) -> NqEntry {
        entry_of(first, e[1].load(Relaxed))
    }
}

/// The first entry of `run` if it is new: its first word (the phase
/// byte's) loaded; unless its phase bit differs from `old`'s bit 31
/// (one xor and a sign test), `None` and `run` left
/// as it is; else an Acquire fence (the entry's other words are loaded after
/// the load that said new), its other words, and `run` moves past it.
///
/// The phase byte and the rest of its word come from one single-copy atomic
/// load, so the entry handed out carries the phase that was tested: an entry
/// the device rewrote before that load is not new and ends the run.
#[inline(always)]
fn next_in<W: EntryWord>(run: &mut Iter<'_, W::Entry>, old: u32) -> Option<NqEntry> {
    let ws = run.as_slice().first()?;
    let first = W::first(ws).load();
    if ((phase_sign::<W>(first) ^ old) as i32) >= 0 {
        return None;
    }
    // Past it before the fence: the run's end is not loaded again.
    run.next();
    fence(Acquire);
    Some(W::load_entry(first, ws))
}

impl<'a> EntryView<'a> {
    /// A view of `n` entries at `offset` read through the backend's
    /// `read_new_entries`, one at a time (the caller checked the run's
    /// bounds: [`DmaMemory::entry_view`]'s default).
    #[inline(always)]
    pub fn each(offset: usize, n: usize, phase: bool) -> Self {
        EntryView {
            #[cfg(target_has_atomic = "64")]
            w64: [].iter(),
            w32: [].iter(),
            old: 0,
            offset,
            left: n,
            phase,
            held: None,
        }
    }

    /// Drop the entries not read yet: the view is then empty.
    #[inline(always)]
    pub fn clear(&mut self) {
        #[cfg(target_has_atomic = "64")]
        {
            self.w64 = [].iter();
        }
        self.w32 = [].iter();
        self.left = 0;
        self.held = None;
    }

    /// Entries of the run not read yet (a read stopped by an entry that is
    /// not new leaves that entry in the run).
    #[inline(always)]
    pub fn len(&self) -> usize {
        // Only one of the three is not empty.
        #[cfg(target_has_atomic = "64")]
        let w64 = self.w64.len();
        #[cfg(not(target_has_atomic = "64"))]
        let w64 = 0;
        w64 + self.w32.len() + self.left
    }

    /// [`EntryView::len`] of a view made of words of `word_bytes` (as
    /// [`EntryView::next_sized`]: 8, 4, or 0 for a view not of words): that
    /// kind's entries alone, with no count of the others (empty in such a
    /// view). The drain iterator's count of what it yielded (issue 12).
    #[inline(always)]
    pub fn len_sized(&self, word_bytes: usize) -> usize {
        match word_bytes {
            #[cfg(target_has_atomic = "64")]
            8 => self.w64.len(),
            4 => self.w32.len(),
            _ => self.left,
        }
    }

    /// [`EntryView::clear`] of a view made of words of `word_bytes` (as
    /// [`EntryView::next_sized`]): that kind's entries dropped, so that
    /// [`EntryView::next_sized`] and [`EntryView::len_sized`] of that size
    /// find nothing.
    #[inline(always)]
    pub fn clear_sized(&mut self, word_bytes: usize) {
        match word_bytes {
            #[cfg(target_has_atomic = "64")]
            8 => self.w64 = [].iter(),
            4 => self.w32 = [].iter(),
            _ => self.clear(),
        }
    }

    /// `true` when every entry of the run was read.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The run's next entry if it is new; `None` when the run is over or
    /// its next entry is not new (that entry stays in the run). `mem` is the
    /// memory the view was made from: the atomic-word views do not use it
    /// (they hold the run's words), the others read the entry through its
    /// [`DmaMemory::read_new_entries`] (its errors are handed out here, the
    /// entry staying in the run).
    ///
    /// Ordering, as for [`DmaMemory::read_new_entries`]: the entry's bytes
    /// are loaded after the volatile load of its phase byte that said new
    /// and an Acquire fence.
    #[inline]
    pub fn next_new<D: DmaMemory + ?Sized>(&mut self, mem: &D) -> Option<Result<NqEntry>> {
        if let Some(e) = self.next_word() {
            return Some(Ok(e));
        }
        match self.fetch(mem) {
            Ok(true) => self.held.take().map(Ok),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }

    /// [`EntryView::next_new`]'s hot half: a word view's next entry if it is
    /// new, or the entry [`EntryView::fetch`] read; `None` otherwise (the
    /// word run over or at an entry that is not new, or nothing fetched).
    #[inline(always)]
    pub fn next_word(&mut self) -> Option<NqEntry> {
        #[cfg(target_has_atomic = "64")]
        if !self.w64.as_slice().is_empty() {
            return self.next_sized(8);
        }
        if !self.w32.as_slice().is_empty() {
            return self.next_sized(4);
        }
        self.next_sized(0)
    }

    /// [`EntryView::next_word`] of a view made of words of `word_bytes`
    /// (8, 4, or 0 for a view not of words: the entry
    /// [`EntryView::fetch`] read): the memory's
    /// [`DmaMemory::entry_view_word_bytes`], a constant, so that only that
    /// kind's read is compiled in, with no test of the others (issue 12:
    /// the drain iterator's per-entry path). Another size finds nothing.
    #[inline(always)]
    pub fn next_sized(&mut self, word_bytes: usize) -> Option<NqEntry> {
        match word_bytes {
            #[cfg(target_has_atomic = "64")]
            8 => next_in::<AtomicU64>(&mut self.w64, self.old),
            4 => next_in::<AtomicU32>(&mut self.w32, self.old),
            _ => self.held.take(),
        }
    }

    /// [`EntryView::next_new`]'s other half: read the next entry of a view
    /// that is not made of words through `mem` and hold it for
    /// [`EntryView::next_word`]; `Ok(true)` if it was new. `Ok(false)` for
    /// a word view, a run read whole or an entry that is not new; an error
    /// of the read leaves the entry in the run.
    #[inline(never)]
    pub fn fetch<D: DmaMemory + ?Sized>(&mut self, mem: &D) -> Result<bool> {
        if self.left == 0 {
            return Ok(false);
        }
        let mut e = [NqEntry::default()];
        if mem.read_new_entries(self.offset, &mut e, self.phase)? == 0 {
            return Ok(false);
        }
        // Inside the run checked when the view was made: no overflow.
        self.offset = self.offset.wrapping_add(NQ_ENTRY_BYTES);
        self.left -= 1;
        let [e] = e;
        self.held = Some(e);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dma::{AtomicWords, DmaMemory};

    fn words<const N: usize>() -> [AtomicU32; N] {
        core::array::from_fn(|_| AtomicU32::new(0))
    }

    /// Entry `i` of a 4-entry ring: byte 0 = `i`, phase bit set for `i < new`.
    fn fill(v: &AtomicWords<'_, AtomicU32>, new: u8) {
        for i in 0..4u8 {
            let mut e = [i; 16];
            e[PHASE_BYTE] = if i < new { PHASE_MASK | i } else { i };
            v.write(usize::from(i) * 16, &e).unwrap();
        }
    }

    #[test]
    fn a_word_view_reads_new_entries_in_order_and_keeps_the_first_old_one() {
        let w = words::<16>();
        let v = AtomicWords::whole(&w);
        fill(&v, 2);
        let mut view = v.entry_view(0, 4, true).unwrap();
        assert_eq!(view.len(), 4);
        for i in 0..2u8 {
            let e = view.next_word().expect("new");
            assert_eq!((e.bytes()[0], e.bytes()[15]), (i, i));
            assert!(e.phase());
        }
        // Entry 2 is not new: nothing handed out, and it stays in the run.
        assert_eq!(view.next_word(), None);
        assert_eq!(view.len(), 2);
        // It becomes new: the same view hands it out.
        v.write(2 * 16 + PHASE_BYTE, &[PHASE_MASK]).unwrap();
        assert_eq!(view.next_word().map(|e| e.bytes()[0]), Some(2));
        view.clear();
        assert!(view.is_empty());
        assert_eq!(view.next_word(), None);
        // Phase 0: only entry 3 carries it.
        let mut old = v.entry_view(3 * 16, 1, false).unwrap();
        assert_eq!(old.next_word().map(|e| e.bytes()[0]), Some(3));
        assert_eq!(old.next_word(), None);
    }

    /// Entry `i`'s byte `j` is `16 * i + j + 1`, its phase bit set for `i < new`.
    fn fill_distinct<W: AtomicWord>(v: &AtomicWords<'_, W>, new: usize) -> [[u8; 16]; 2] {
        let mut all = [[0u8; 16]; 2];
        for (i, e) in all.iter_mut().enumerate() {
            *e = core::array::from_fn(|j| (16 * i + j + 1) as u8);
            if i < new {
                e[PHASE_BYTE] |= PHASE_MASK;
            }
            v.write(i * 16, e).unwrap();
        }
        all
    }

    /// Every byte of an entry lands at its own place, for both word sizes:
    /// the words are put together in memory order (`pair`, `entry_of`), on
    /// the host and on a big-endian target (khal-core's unit tests run under
    /// Miri on s390x in `.ci/run`).
    #[test]
    fn a_word_view_hands_out_each_byte_in_memory_order() {
        let w = words::<8>();
        let v = AtomicWords::whole(&w);
        let want = fill_distinct(&v, 2);
        let mut view = v.entry_view(0, 2, true).unwrap();
        assert_eq!(view.next_word().map(|e| *e.bytes()), Some(want[0]));
        assert_eq!(view.next_word().map(|e| *e.bytes()), Some(want[1]));
        assert_eq!(view.next_word(), None);
        // An old entry (phase bit clear) for an expected phase of 0.
        let want = fill_distinct(&v, 1);
        let mut view = v.entry_view(16, 1, false).unwrap();
        assert_eq!(view.next_word().map(|e| *e.bytes()), Some(want[1]));
        #[cfg(target_has_atomic = "64")]
        {
            let w: [AtomicU64; 4] = core::array::from_fn(|_| AtomicU64::new(0));
            let v = AtomicWords::whole(&w);
            let want = fill_distinct(&v, 2);
            let mut view = v.entry_view(0, 2, true).unwrap();
            assert_eq!(view.next_word().map(|e| *e.bytes()), Some(want[0]));
            assert_eq!(view.next_word().map(|e| *e.bytes()), Some(want[1]));
            assert_eq!(view.next_word(), None);
        }
    }

    /// `next_sized`, `len_sized` and `clear_sized` see the one kind of view
    /// their size names: a view of 4-byte words hands out and counts its
    /// entries at 4 and nothing at 8 or 0 (the entry staying in the run),
    /// is cleared at 4 only, and the other way round for 8.
    #[test]
    fn the_sized_reads_counts_and_clears_see_only_their_word_size() {
        let w = words::<16>();
        let v = AtomicWords::whole(&w);
        fill(&v, 2);
        assert_eq!(v.word_bytes(), 4);
        let mut view = v.entry_view(0, 2, true).unwrap();
        assert_eq!(view.next_sized(8), None);
        assert_eq!(view.next_sized(0), None);
        assert_eq!(view.len(), 2);
        assert_eq!((view.len_sized(4), view.len_sized(8)), (2, 0));
        assert_eq!(view.next_sized(4).map(|e| e.bytes()[0]), Some(0));
        assert_eq!(view.len_sized(4), 1);
        // Cleared at another size: still there; at its own: gone.
        view.clear_sized(8);
        assert_eq!(view.len_sized(4), 1);
        view.clear_sized(4);
        assert_eq!((view.len_sized(4), view.next_sized(4)), (0, None));
        #[cfg(target_has_atomic = "64")]
        {
            let w: [AtomicU64; 8] = core::array::from_fn(|_| AtomicU64::new(0));
            let v = AtomicWords::whole(&w);
            fill_distinct(&v, 2);
            assert_eq!(v.word_bytes(), 8);
            let mut view = v.entry_view(0, 2, true).unwrap();
            assert_eq!(view.next_sized(4), None);
            assert_eq!(view.len(), 2);
            assert_eq!((view.len_sized(8), view.len_sized(4)), (2, 0));
            assert_eq!(view.next_sized(8).map(|e| e.bytes()[0]), Some(1));
            view.clear_sized(8);
            assert_eq!((view.len_sized(8), view.next_sized(8)), (0, None));
        }
    }

    #[test]
    fn a_word_view_is_checked_once_and_refuses_runs_off_a_word_or_outside() {
        let w = words::<16>();
        let v = AtomicWords::whole(&w);
        assert!(matches!(
            v.entry_view(16, 4, true),
            Err(crate::Error::OutOfRange { .. })
        ));
        assert!(matches!(
            v.entry_view(usize::MAX - 7, 1, true),
            Err(crate::Error::OutOfRange { .. })
        ));
        assert_eq!(
            v.entry_view(2, 1, true).unwrap_err(),
            crate::Error::InvalidArgument("dma entry view: run not on an access word")
        );
        assert!(v.entry_view(64, 0, true).unwrap().is_empty());
    }

    /// A backend with only the required methods: the default view reads each
    /// entry through the default `read_new_entries`, with the same answers.
    struct Plain<'a>(AtomicWords<'a, AtomicU32>);
    impl DmaMemory for Plain<'_> {
        fn bus_addr(&self) -> u64 {
            0
        }
        fn len(&self) -> usize {
            self.0.len()
        }
        fn load_u8(&self, offset: usize) -> Result<u8> {
            self.0.load_u8(offset)
        }
        fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
            self.0.read(offset, out)
        }
        fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
            self.0.write(offset, data)
        }
        fn zero(&self) -> Result<()> {
            self.0.zero();
            Ok(())
        }
    }

    #[test]
    fn the_default_view_reads_each_entry_through_the_memory() {
        let w = words::<16>();
        let m = Plain(AtomicWords::whole(&w));
        fill(&m.0, 3);
        assert!(!m.entry_views_of_words());
        assert_eq!(m.entry_view_word_bytes(), 0);
        assert!(m.entry_view(32, 3, true).is_err());
        let mut view = m.entry_view(16, 3, true).unwrap();
        // Nothing without a fetch: it is not a view of words.
        assert_eq!(view.next_word(), None);
        for i in 1..3u8 {
            let e = view.next_new(&m).expect("new").unwrap();
            assert_eq!(e.bytes()[0], i);
        }
        assert_eq!(view.next_new(&m), None);
        assert_eq!(view.len(), 1, "the old entry stays in the run");
        assert_eq!(view.fetch(&m), Ok(false));
    }
}
