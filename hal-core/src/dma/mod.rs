//! DMA: memory shared with the device, its allocation, and one-shot descriptor rings.
//!
//! hal-core does not allocate. Memory shared with the device is reached through
//! [`DmaMemory`], implemented by `khal-std`'s allocator-backed buffers and by
//! firmware's static buffers. Every access is bounds-checked and volatile:
//! the device may write the memory at any time.
//!
//! The layer the DVE loader [000 §4] needs, in the notes' order
//! (`dmem_alloc` → `dmem_buf_copyin` → `vring_add_desc_transfer` →
//! `vring_add_event_accel` → `vring_dump_to_pring`):
//! - [`DmaAllocator`]: allocate a buffer in device DRAM or host memory
//!   ([`MemLocation`]); copy bytes in with [`DmaMemory::write`]; its bus address
//!   is [`DmaMemory::bus_addr`];
//! - [`ring::OneShotRing`]: a fixed-capacity list of [`ring::Descriptor`]s,
//!   transfers `src → dst, len`, closed by one completion descriptor;
//! - [`words::AtomicWords`]: every access of memory shared with a device, as
//!   relaxed atomics of its aligned words (the one implementation behind
//!   [`StaticDma`] and khal-std's `DmaBuf`);
//! - [`queue::DmaQueue`]: hand a ring to an engine and report its status;
//!   [`queue::run_one_shot`] submits and waits through
//!   [`crate::wait::poll_until`] within a [`crate::wait::Budget`].
//!
//! The vendor's ring descriptor encoding, queue registers and event addresses
//! are NOT TRACED; they belong to each [`queue::DmaQueue`] backend (khal-std's
//! device model documents its own).

pub mod entry_view;
mod over_words;
pub mod peek;
pub mod queue;
pub mod ring;
pub mod static_mem;
pub mod words;

pub use entry_view::{EntryView, EntryWord};
pub use peek::EntryPeek;
pub use queue::{run_one_shot, Abort, DmaQueue, QueueInfo, RingStatus, RunError};
pub use ring::{Descriptor, OneShotRing};
pub use static_mem::{DmaBuffer, StaticDma, StaticDmaCell, STATIC_DMA_ALIGN};
pub use words::{AtomicWord, AtomicWords};

use core::sync::atomic::{fence, Ordering};

use crate::error::Result;
use crate::notific::entry::{NqEntry, NQ_ENTRY_BYTES, PHASE_BYTE, PHASE_MASK};

/// The refusal of [`DmaMemory::read_new_entries`] for a run whose offset is
/// not an entry boundary (the same words from every backend).
pub(crate) const NOT_ON_ENTRY: &str = "dma entry run offset (a multiple of 16 bytes)";

/// Where a DMA buffer lives: the notes' `dmem_alloc` memory kinds [000 §4].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MemLocation {
    /// Device DRAM (HBM), the notes' `TONGA_DRAM`: where the DVE loader stages
    /// its tables [000 §4].
    DeviceDram,
    /// Host memory the device reaches over PCIe (NQ rings, completion records).
    Host,
}

/// Allocates memory the device can DMA from or to.
///
/// Implementations hand out zeroed buffers aligned to at least `align`; the
/// buffer is freed when dropped (or when its allocator is reset, for arena
/// allocators; each implementation documents which).
pub trait DmaAllocator {
    /// The buffer type handed out.
    type Buffer: DmaMemory;

    /// A zeroed buffer of `len` bytes at `location`, aligned to `align` (a power
    /// of two). `len == 0` or a bad alignment is [`crate::Error::InvalidArgument`];
    /// exhaustion is [`crate::Error::OutOfMemory`]; a location the backend cannot
    /// provide is [`crate::Error::Unsupported`] or [`crate::Error::NotTraced`].
    fn alloc(&mut self, location: MemLocation, len: usize, align: usize) -> Result<Self::Buffer>;
}

/// Refuse a [`DmaMemory::scan_flag_run`] whose last byte
/// (`offset + stride * (max - 1)`) is not inside a region of `len` bytes, before
/// any load; an empty run is always in bounds. Shared by every backend.
#[inline]
pub fn check_flag_run(offset: usize, stride: usize, max: usize, len: usize) -> Result<()> {
    let Some(steps) = max.checked_sub(1) else {
        return Ok(());
    };
    match stride
        .checked_mul(steps)
        .and_then(|d| offset.checked_add(d))
    {
        Some(last) if last < len => Ok(()),
        _ => Err(crate::Error::out_of_range(
            "dma scan run",
            offset as u64,
            len as u64,
        )),
    }
}

/// Refuse a run of `n` NQ entries from `offset` that does not end inside a
/// region of `len` bytes ([`DmaMemory::entry_view`]'s check).
#[inline]
fn check_entry_run(offset: usize, n: usize, len: usize) -> Result<()> {
    match n
        .checked_mul(NQ_ENTRY_BYTES)
        .and_then(|b| offset.checked_add(b))
    {
        Some(end) if end <= len => Ok(()),
        _ => Err(crate::Error::out_of_range(
            "dma entry run",
            offset as u64,
            len as u64,
        )),
    }
}

/// What `byte & mask` equals when the flag is `want`: all of `mask`'s bits set
/// (`true`) or all clear (`false`) — the [`DmaMemory::scan_flag_run`] test.
#[inline(always)]
pub const fn flag_value(mask: u8, want: bool) -> u8 {
    if want {
        mask
    } else {
        0
    }
}

/// A region of memory both the host and the device see.
///
/// The backends over [`AtomicWords`] ([`StaticDma`], khal-std's `DmaBuf`)
/// get their impl from one macro (`dma/over_words.rs`): a method added here
/// is forwarded there, once for both.
pub trait DmaMemory {
    /// The address the device uses for byte 0.
    fn bus_addr(&self) -> u64;

    /// Size in bytes.
    fn len(&self) -> usize;

    /// `true` when the region is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One volatile byte load at `offset` (e.g. an NQ entry's phase byte).
    fn load_u8(&self, offset: usize) -> Result<u8>;

    /// Volatile copy of `out.len()` bytes starting at `offset`.
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()>;

    /// Count the bytes at `offset`, `offset + stride`, … (at most `max` of
    /// them) whose `mask` bits are all set (`want == true`) or all clear
    /// (`want == false`), stopping at the first that differs. Each byte is one
    /// volatile load, in order.
    ///
    /// This is the NQ phase walk [004 §3]: the default loops over
    /// [`DmaMemory::load_u8`]; a backend may check the whole run's bounds once
    /// and then load without per-byte checks. A run that leaves the region is
    /// refused before any load.
    fn scan_flag_run(
        &self,
        offset: usize,
        stride: usize,
        max: usize,
        mask: u8,
        want: bool,
    ) -> Result<usize> {
        check_flag_run(offset, stride, max, self.len())?;
        let expect = flag_value(mask, want);
        let mut off = offset;
        for n in 0..max {
            if self.load_u8(off)? & mask != expect {
                return Ok(n);
            }
            off += stride; // in bounds: the whole run was checked above
        }
        Ok(max)
    }

    /// Copy bytes the device has already **published**: the caller observed
    /// their publication (an NQ entry's phase byte, loaded volatile, then an
    /// Acquire fence) and the device does not rewrite them until the consumer
    /// hands them back (the head write) [004 §3], [FACTS §11].
    ///
    /// Those bytes are stable, so a backend may copy them with a plain
    /// `memcpy` instead of volatile loads (which cannot be vectorised): the
    /// NQ drain's bulk copy. The default is [`DmaMemory::read`]; only use
    /// this for bytes whose publication was observed.
    #[inline(always)]
    fn read_published(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        self.read(offset, out)
    }

    /// [`DmaMemory::read_published`] for a run of NQ entries: copy
    /// `out.len()` published 16-byte entries starting at `offset`, in order.
    /// The default copies entry by entry; a backend may copy the run at once
    /// ([`NqEntry`] is its 16 bytes, in order). The whole run is
    /// bounds-checked before anything is copied.
    fn read_published_entries(&self, offset: usize, out: &mut [NqEntry]) -> Result<()> {
        let bytes = out
            .len()
            .checked_mul(NQ_ENTRY_BYTES)
            .and_then(|b| offset.checked_add(b));
        if bytes.is_none_or(|end| end > self.len()) {
            return Err(crate::Error::out_of_range(
                "dma entry run",
                offset as u64,
                self.len() as u64,
            ));
        }
        let mut off = offset;
        for e in out {
            self.read_published(off, e.bytes_mut())?;
            off += NQ_ENTRY_BYTES;
        }
        Ok(())
    }

    /// The NQ drain's copy [004 §3], [FACTS §11]: copy the run of entries
    /// starting at `offset` into `out`, in order, while each entry is new
    /// (its phase bit equals `phase`), and return how many were copied
    /// (`out[..n]`). An entry counts only if its phase bit says new both
    /// when it is scanned and in its copy: one the device rewrote in between
    /// (it must not: the head has not handed it back) ends the run, and
    /// nothing past it is copied or counted.
    ///
    /// Ordering: every entry's bytes are loaded after the volatile load of
    /// its phase byte that said new and an Acquire fence (the `dma_rmb` of
    /// Linux nvme-pci), so they are the bytes the device published with it.
    ///
    /// The default scans the run ([`DmaMemory::scan_flag_run`]), fences
    /// once, copies the new entries ([`DmaMemory::read_published_entries`])
    /// and checks the copies' phase bits. A backend may do the three per
    /// entry in one pass. Either way the whole run (`out.len()` entries) is
    /// bounds-checked before any load.
    ///
    /// `offset` is an entry boundary: a multiple of 16 ([`NQ_ENTRY_BYTES`]),
    /// as every ring slot is [004 §3]. Any other offset is refused with
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) before any
    /// load (checked first, then the run's bounds), so no backend carries a
    /// byte-wise path for entries that straddle words (firmware size, issue 12).
    #[inline]
    fn read_new_entries(&self, offset: usize, out: &mut [NqEntry], phase: bool) -> Result<usize> {
        if !offset.is_multiple_of(NQ_ENTRY_BYTES) {
            return Err(crate::Error::InvalidArgument(NOT_ON_ENTRY));
        }
        // The whole run, before any load.
        let end = out
            .len()
            .checked_mul(NQ_ENTRY_BYTES)
            .and_then(|b| offset.checked_add(b));
        if end.is_none_or(|end| end > self.len()) {
            return Err(crate::Error::out_of_range(
                "dma entry run",
                offset as u64,
                self.len() as u64,
            ));
        }
        // `offset + PHASE_BYTE < end <= len` for a non-empty run.
        let flags = offset.wrapping_add(PHASE_BYTE);
        let n = self.scan_flag_run(flags, NQ_ENTRY_BYTES, out.len(), PHASE_MASK, phase)?;
        let Some((run, _)) = out.split_at_mut_checked(n) else {
            return Ok(0);
        };
        if run.is_empty() {
            return Ok(0);
        }
        // The phase loads above said "new": order the entry loads after them.
        fence(Ordering::Acquire);
        self.read_published_entries(offset, run)?;
        Ok(run.iter().take_while(|e| e.phase() == phase).count())
    }

    /// The run of `n` NQ entries starting at `offset`, whose entries are new
    /// when their phase bit is `phase`, for reading one at a time
    /// ([`EntryView::next_new`]: in order, while new, each as
    /// [`DmaMemory::read_new_entries`] reads it: phase, Acquire fence, bytes).
    /// The whole run is bounds-checked here, once, before any load; a run
    /// that leaves the region is refused ([`crate::Error::OutOfRange`]).
    ///
    /// The drain iterator's source (issue 12). The default hands back a view
    /// that reads each entry through [`DmaMemory::read_new_entries`]; the
    /// atomic-word backends hand back the run's own words
    /// ([`AtomicWords::entry_view`]), read without a bounds check per entry.
    #[inline]
    fn entry_view(&self, offset: usize, n: usize, phase: bool) -> Result<EntryView<'_>> {
        check_entry_run(offset, n, self.len())?;
        Ok(EntryView::each(offset, n, phase))
    }

    /// `true` when [`DmaMemory::entry_view`] only hands back views of atomic
    /// words (read by [`EntryView::next_word`] alone, never through
    /// [`EntryView::fetch`]): a consumer may then leave its `fetch` path out
    /// (the drain iterator does, for firmware size). A backend that says
    /// `true` and hands back another view has that view's entries not read
    /// (the run looks over). `true` when [`DmaMemory::entry_view_word_bytes`]
    /// is not 0. (A method, not a constant: the trait stays dyn compatible;
    /// a backend's answer is a constant.)
    #[inline(always)]
    fn entry_views_of_words(&self) -> bool {
        self.entry_view_word_bytes() != 0
    }

    /// The bytes of the atomic words every view [`DmaMemory::entry_view`]
    /// hands back is made of (4 or 8; [`EntryView::next_sized`]), or 0 when
    /// its views are not of words (the default). A consumer given this
    /// constant reads one kind of view, with no test of the others (the
    /// drain iterator's entry, issue 12). A backend that answers a size its
    /// views are not made of has their entries not read (the run looks
    /// over).
    #[inline(always)]
    fn entry_view_word_bytes(&self) -> usize {
        0
    }

    /// Volatile copy of `data` to `offset`.
    fn write(&self, offset: usize, data: &[u8]) -> Result<()>;

    /// Zero the whole region.
    fn zero(&self) -> Result<()>;

    /// Zero `count` 16-byte NQ entries from `offset`: the NQ reset's zeroing
    /// of a host ring [004 §3]. `offset` is an entry boundary, as for
    /// [`DmaMemory::read_new_entries`] (otherwise
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument)); the whole
    /// run is bounds-checked ([`Error::OutOfRange`](crate::Error::OutOfRange))
    /// before anything is written. The default writes zeros 64 bytes at a
    /// time ([`DmaMemory::write`]); a backend may store whole words.
    fn zero_entries(&self, offset: usize, count: usize) -> Result<()> {
        if !offset.is_multiple_of(NQ_ENTRY_BYTES) {
            return Err(crate::Error::InvalidArgument(NOT_ON_ENTRY));
        }
        let end = count
            .checked_mul(NQ_ENTRY_BYTES)
            .and_then(|b| offset.checked_add(b))
            .filter(|&end| end <= self.len());
        let Some(end) = end else {
            return Err(crate::Error::out_of_range(
                "dma entry run",
                offset as u64,
                self.len() as u64,
            ));
        };
        const ZEROS: [u8; 64] = [0; 64];
        let mut off = offset;
        while off < end {
            let n = (end - off).min(ZEROS.len());
            self.write(off, ZEROS.get(..n).unwrap_or(&[]))?;
            off += n;
        }
        Ok(())
    }

    /// The notes' `dmem_buf_copyin`: copy `data` to the start of the region.
    /// `data` longer than the region is refused before anything is written.
    fn copy_in(&self, data: &[u8]) -> Result<()> {
        if data.len() > self.len() {
            return Err(crate::Error::out_of_range(
                "dma copy-in length",
                data.len() as u64,
                self.len() as u64 + 1,
            ));
        }
        self.write(0, data)
    }

    // Phase mode's idle test and one-entry take (issue 12): the entry at the
    // cursor loaded once, for both.

    /// Phase mode's idle test [004 §3], [FACTS §11]: load the phase byte of
    /// the NQ entry at `offset` (one load; no fence, no copy) and return its
    /// phase bit in an [`EntryPeek`]. The caller tells from it whether the
    /// entry is new, and takes it with [`DmaMemory::take_peeked`].
    ///
    /// `offset` must be a multiple of 16 ([`crate::Error::InvalidArgument`]
    /// otherwise) and the whole entry inside the memory
    /// ([`crate::Error::OutOfRange`] otherwise), checked before the load.
    ///
    /// The default loads the phase byte with [`DmaMemory::load_u8`]. A
    /// backend may load the word holding it and keep that word in the peek,
    /// so that the take loads only the rest.
    #[inline(always)]
    fn peek_entry(&self, offset: usize) -> Result<EntryPeek> {
        check_entry(offset, self.len())?;
        let byte = self.load_u8(offset + PHASE_BYTE)?;
        Ok(EntryPeek::with_phase_byte(offset, byte, 0))
    }

    /// Copy the entry `peek` (this memory's, from [`DmaMemory::peek_entry`])
    /// found into `out`, with the ordering and check of
    /// [`DmaMemory::read_new_entries`]: the entry's bytes are loaded after
    /// the phase load and an Acquire fence, and `Ok(true)` only when the
    /// copy's phase bit is the peeked one (an entry the device rewrote in
    /// between is not handed out: `Ok(false)`, and `out` must be ignored).
    /// The caller decides from the peek that the entry is new; this does not
    /// test it again. The entry is checked as in [`DmaMemory::peek_entry`].
    ///
    /// The default is [`DmaMemory::read_new_entries`] of one entry with the
    /// peeked phase (it loads the phase byte again). A backend that kept the
    /// phase byte's word in the peek fences and loads only the other words:
    /// the copied phase is then the peeked one.
    #[inline(always)]
    fn take_peeked(&self, peek: EntryPeek, out: &mut NqEntry) -> Result<bool> {
        check_entry(peek.offset(), self.len())?;
        let n = self.read_new_entries(peek.offset(), core::slice::from_mut(out), peek.phase())?;
        Ok(n == 1)
    }

    /// Phase mode's drain step [004 §3], [FACTS §11] (issue 12): the new
    /// entries from entry `at` (byte offset `16 * at`) into `out`, in
    /// order; returns how
    /// many. `old` is the consumer phase: an entry is new when its phase bit
    /// differs, `old` given as the phase bit in the top byte of a `u32`
    /// (`notific::entry::PHASE_DWORD_BIT`) or 0.
    ///
    /// The entry at `offset` is tested first, and nothing else is done when
    /// it is not new: no fence, no copy, and neither closure is called (the
    /// idle poll). `more` is called once it is new and `out` has room for
    /// two: `false` takes it alone; `true` promises that the entry after it
    /// is before the ring's end (and the batch cap above one), and that one
    /// is tested next. When `out` holds exactly two and both are new, both
    /// are taken without `limit`. Otherwise only when the second is new too
    /// is `limit` called: how many entries in all may be taken
    /// (at least 2, none past the ring's end; `out.len()` bounds it too). Each
    /// entry's bytes are loaded after its phase and an Acquire fence; the
    /// run stops at the first entry that is not new. The entry is checked as
    /// in [`DmaMemory::peek_entry`] (and the run as in
    /// [`DmaMemory::read_new_entries`]) before any load; an index at or past
    /// the memory's whole entries is refused as [`entry_index_past`] says
    /// (its index, the entries), before any load.
    ///
    /// The default: [`DmaMemory::peek_entry`], then
    /// [`DmaMemory::take_peeked`] alone or [`DmaMemory::read_new_entries`]
    /// of `limit()` entries from the entry. The word backends
    /// ([`AtomicWords::take_new_at`]) test the first two entries' phase words
    /// under the view's bounds and copy them straight, without the run's
    /// set-up.
    #[inline(always)]
    fn take_new_at(
        &self,
        at: usize,
        old: u32,
        more: impl FnOnce() -> bool,
        limit: impl FnOnce() -> usize,
        out: &mut [NqEntry],
    ) -> Result<usize>
    where
        Self: Sized,
    {
        // The peek's own check refuses an entry past the memory; that
        // refusal (and an index whose byte offset does not fit) is then
        // told as the index's: sorted out after the refusal, so an entry
        // taken pays no second check.
        let past = || entry_index_past(at, self.len() / NQ_ENTRY_BYTES);
        let Some(offset) = at.checked_mul(NQ_ENTRY_BYTES) else {
            return Err(past());
        };
        let peek = match self.peek_entry(offset) {
            Ok(peek) => peek,
            Err(e) if at < self.len() / NQ_ENTRY_BYTES => return Err(e),
            Err(_) => return Err(past()),
        };
        if !peek.is_new(old) {
            return Ok(0);
        }
        if out.len() < 2 || !more() {
            let Some(first) = out.first_mut() else {
                return Ok(0);
            };
            return Ok(usize::from(self.take_peeked(peek, first)?));
        }
        let n = limit().min(out.len());
        let out = out.get_mut(..n).unwrap_or_default();
        self.read_new_entries(offset, out, peek.phase())
    }

    /// Phase mode's quick step [004 §3], [FACTS §11] (issue 12, bare
    /// metal: the drain's idle poll and the take of one or two entries,
    /// which call nothing, in front of an out-of-line general path). The
    /// entry `at` as in [`DmaMemory::take_new_at`]: not new,
    /// [`TakeOne::Idle`] (nothing else done, no closure called); new, and
    /// `out` has room for one only, or `more()` says no second may be taken
    /// (`true` promises the entry after it is before the ring's end), or
    /// the entry after it is not new: the entry copied into `out[0]` (after
    /// an Acquire fence), [`TakeOne::One`]. Both new, and `out` has room for
    /// two only, or `third()` says the entry after the second is not before
    /// the ring's end, or that entry is not new: both copied,
    /// [`TakeOne::Two`]. Anything else is [`TakeOne::Other`], with nothing
    /// consumed (`out` may have been written): the caller then takes what
    /// [`DmaMemory::take_new_at`] takes. No error: an entry outside the
    /// memory is `Other` (nothing loaded), and `take_new_at` refuses it.
    ///
    /// The default: [`DmaMemory::peek_entry`], and [`DmaMemory::take_peeked`]
    /// when `out` has room for one or `more()` says no (a second entry is
    /// left to `take_new_at`). The word backends
    /// ([`AtomicWords::take_one_at`]) test the second and third entries.
    #[inline(always)]
    fn take_one_at(
        &self,
        at: usize,
        old: u32,
        more: impl FnOnce() -> bool,
        third: impl FnOnce() -> bool,
        out: &mut [NqEntry],
    ) -> TakeOne
    where
        Self: Sized,
    {
        let _ = third;
        let Some(Ok(peek)) = at.checked_mul(NQ_ENTRY_BYTES).map(|o| self.peek_entry(o)) else {
            return TakeOne::Other;
        };
        if !peek.is_new(old) {
            return TakeOne::Idle;
        }
        let Some((first, rest)) = out.split_first_mut() else {
            return TakeOne::Other;
        };
        if !rest.is_empty() && more() {
            return TakeOne::Other;
        }
        match self.take_peeked(peek, first) {
            Ok(true) => TakeOne::One,
            _ => TakeOne::Other,
        }
    }
}

/// What [`DmaMemory::take_one_at`] found (phase mode's quick step on bare
/// metal, issue 12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TakeOne {
    /// The entry is not new: nothing copied (the idle poll).
    Idle,
    /// The entry is new and copied into `out[0]`, alone.
    One,
    /// The entry and the one after it are new and copied into `out[0..2]`
    /// (`out` holds two, or no third may be tested, or the third is not new).
    Two,
    /// Anything else (three new entries, the entry is outside the memory,
    /// `out` is empty, the copy saw a rewrite): nothing is consumed, `out`
    /// may have been written; [`DmaMemory::take_new_at`] decides.
    Other,
}

/// The refusal of NQ entry index `at`, at or past the memory's `entries`
/// whole entries: the one error of every `take_new_at` (the provided
/// [`DmaMemory::take_new_at`] and the word backends'), its value the index
/// and its limit the entries (no byte offset to build, nor to overflow, on
/// 32-bit targets).
#[inline(always)]
pub fn entry_index_past(at: usize, entries: usize) -> crate::Error {
    crate::Error::out_of_range("dma nq entry index", at as u64, entries as u64)
}

/// Refuse an NQ entry at `offset` that is not on a 16-byte boundary
/// ([`crate::Error::InvalidArgument`]) or not wholly inside `len` bytes
/// ([`crate::Error::OutOfRange`]): the checks of [`DmaMemory::peek_entry`].
#[inline(always)]
pub fn check_entry(offset: usize, len: usize) -> Result<()> {
    if !offset.is_multiple_of(NQ_ENTRY_BYTES) {
        return Err(crate::Error::InvalidArgument(NOT_ON_ENTRY));
    }
    if offset >= len / NQ_ENTRY_BYTES * NQ_ENTRY_BYTES {
        return Err(crate::Error::out_of_range(
            "dma nq entry",
            offset as u64,
            len as u64,
        ));
    }
    Ok(())
}

impl<T: DmaMemory + ?Sized> DmaMemory for &T {
    #[inline(always)]
    fn bus_addr(&self) -> u64 {
        (**self).bus_addr()
    }
    #[inline(always)]
    fn len(&self) -> usize {
        (**self).len()
    }
    #[inline(always)]
    fn load_u8(&self, offset: usize) -> Result<u8> {
        (**self).load_u8(offset)
    }
    #[inline(always)]
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        (**self).read(offset, out)
    }
    #[inline(always)]
    fn read_published(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        (**self).read_published(offset, out)
    }
    #[inline(always)]
    fn read_published_entries(&self, offset: usize, out: &mut [NqEntry]) -> Result<()> {
        (**self).read_published_entries(offset, out)
    }
    #[inline(always)]
    fn scan_flag_run(
        &self,
        offset: usize,
        stride: usize,
        max: usize,
        mask: u8,
        want: bool,
    ) -> Result<usize> {
        (**self).scan_flag_run(offset, stride, max, mask, want)
    }
    #[inline(always)]
    fn read_new_entries(&self, offset: usize, out: &mut [NqEntry], phase: bool) -> Result<usize> {
        (**self).read_new_entries(offset, out, phase)
    }
    #[inline(always)]
    fn entry_view(&self, offset: usize, n: usize, phase: bool) -> Result<EntryView<'_>> {
        (**self).entry_view(offset, n, phase)
    }
    #[inline(always)]
    fn entry_views_of_words(&self) -> bool {
        (**self).entry_views_of_words()
    }
    #[inline(always)]
    fn entry_view_word_bytes(&self) -> usize {
        (**self).entry_view_word_bytes()
    }
    #[inline(always)]
    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        (**self).write(offset, data)
    }
    #[inline(always)]
    fn zero(&self) -> Result<()> {
        (**self).zero()
    }
    #[inline(always)]
    fn zero_entries(&self, offset: usize, count: usize) -> Result<()> {
        (**self).zero_entries(offset, count)
    }
    #[inline(always)]
    fn peek_entry(&self, offset: usize) -> Result<EntryPeek> {
        (**self).peek_entry(offset)
    }
    #[inline(always)]
    fn take_peeked(&self, peek: EntryPeek, out: &mut NqEntry) -> Result<bool> {
        (**self).take_peeked(peek, out)
    }
    // `take_new_at` and `take_one_at` keep their defaults here (the
    // forwarded `peek_entry`, `take_peeked` and `read_new_entries`): a
    // generic method cannot be forwarded to an unsized `T`.
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::Cell;

    /// A backend with only the required methods, counting its loads.
    struct Bytes<'a>(&'a [u8], Cell<u32>);
    impl DmaMemory for Bytes<'_> {
        fn bus_addr(&self) -> u64 {
            0
        }
        fn len(&self) -> usize {
            self.0.len()
        }
        fn load_u8(&self, offset: usize) -> Result<u8> {
            self.1.set(self.1.get() + 1);
            self.0
                .get(offset)
                .copied()
                .ok_or(crate::Error::out_of_range(
                    "test",
                    offset as u64,
                    self.0.len() as u64,
                ))
        }
        fn read(&self, _: usize, _: &mut [u8]) -> Result<()> {
            Ok(())
        }
        fn write(&self, _: usize, _: &[u8]) -> Result<()> {
            Ok(())
        }
        fn zero(&self) -> Result<()> {
            Ok(())
        }
    }

    #[test]
    fn default_peek_and_take_check_the_entry_and_rescan_its_phase() {
        let mut ring = [0u8; 40];
        ring[16 + PHASE_BYTE] = PHASE_MASK;
        let m = Bytes(&ring, Cell::new(0));
        let p = m.peek_entry(16).unwrap();
        assert_eq!((p.offset(), p.phase(), p.head()), (16, true, 0));
        assert_eq!(m.1.get(), 1, "one load");
        assert_eq!(m.peek_entry(0).map(|p| p.phase()), Ok(false));
        // Refused before any load: off a 16-byte boundary, or an entry
        // reaching past the end (bytes 32..48 of 40).
        m.1.set(0);
        assert!(matches!(
            m.peek_entry(4),
            Err(crate::Error::InvalidArgument(_))
        ));
        assert!(matches!(
            m.peek_entry(32),
            Err(crate::Error::OutOfRange { .. })
        ));
        assert!(m
            .take_peeked(EntryPeek::new(32, true, 0), &mut NqEntry::default())
            .is_err());
        assert_eq!(m.1.get(), 0);
        // The default take rescans: a peek whose phase the memory no longer
        // holds is not taken (this backend's `read` copies nothing, so a
        // copied phase would not match either).
        assert_eq!(
            m.take_peeked(EntryPeek::new(0, true, 0), &mut NqEntry::default()),
            Ok(false)
        );
    }

    /// The default `take_new_at`: the first entry's phase byte tested
    /// (nothing else on an idle poll), then the first alone or the run from
    /// it, bounded by `limit` and `out`.
    #[test]
    fn default_take_new_at_keeps_its_contract() {
        use crate::notific::entry::PHASE_DWORD_BIT;
        let mut ring = [0u8; 48];
        for i in 0..2 {
            ring[16 * i + PHASE_BYTE] = PHASE_MASK;
        }
        let m = Bytes(&ring, Cell::new(0));
        let mut out = [NqEntry::default(); 3];
        let called = Cell::new(false);
        let more = || {
            called.set(true);
            true
        };
        assert_eq!(
            m.take_new_at(0, PHASE_DWORD_BIT, more, || 3, &mut out),
            Ok(0)
        );
        assert_eq!(
            (m.1.get(), called.get()),
            (1, false),
            "one load, no closure"
        );
        // This backend's `read` copies nothing, so no copied phase matches:
        // the default takes nothing past its phase checks.
        assert_eq!(m.take_new_at(0, 0, || false, || 3, &mut out), Ok(0));
        assert_eq!(m.take_new_at(0, 0, || true, || 3, &mut []), Ok(0));
        // An index past the ring: its index and the ring's entries, as the
        // word backends say it; also one whose byte offset would not fit.
        let loads = m.1.get();
        let past = |value| crate::Error::OutOfRange {
            what: "dma nq entry index",
            value,
            limit: 3,
        };
        assert_eq!(m.take_new_at(3, 0, || true, || 3, &mut out), Err(past(3)));
        assert_eq!(m.take_new_at(7, 0, || true, || 3, &mut out), Err(past(7)));
        assert_eq!(
            m.take_new_at(usize::MAX, 0, || true, || 3, &mut out),
            Err(past(u32::MAX))
        );
        assert_eq!(m.1.get(), loads, "a refused index loads nothing");
    }

    /// The default `take_one_at`: the first entry's phase byte tested
    /// (nothing else on an idle poll), then the first alone through
    /// `take_peeked`, or `Other` when a second may be taken.
    #[test]
    fn default_take_one_at_keeps_its_contract() {
        use crate::notific::entry::PHASE_DWORD_BIT;
        let mut ring = [0u8; 48];
        ring[PHASE_BYTE] = PHASE_MASK;
        let m = Bytes(&ring, Cell::new(0));
        let mut out = [NqEntry::default(); 2];
        let called = Cell::new(false);
        let more = || {
            called.set(true);
            true
        };
        assert_eq!(
            m.take_one_at(0, PHASE_DWORD_BIT, more, || true, &mut out),
            TakeOne::Idle
        );
        assert_eq!(
            (m.1.get(), called.get()),
            (1, false),
            "one load, no closure"
        );
        assert_eq!(m.take_one_at(0, 0, more, || true, &mut out), TakeOne::Other);
        assert!(called.get());
        assert_eq!(
            m.take_one_at(0, 0, || true, || true, &mut []),
            TakeOne::Other
        );
        // This backend's `read` copies nothing, so the copied phase does
        // not match the peeked one: not taken.
        assert_eq!(
            m.take_one_at(0, 0, || false, || true, &mut out),
            TakeOne::Other
        );
        // Past the memory (also an index whose byte offset does not fit):
        // nothing loaded.
        let loads = m.1.get();
        assert_eq!(
            m.take_one_at(3, 0, || false, || true, &mut out),
            TakeOne::Other
        );
        assert_eq!(
            m.take_one_at(usize::MAX, 0, || false, || true, &mut out),
            TakeOne::Other
        );
        assert_eq!(m.1.get(), loads);
    }

    #[test]
    fn default_scan_flag_run_keeps_its_contract() {
        // Flags at 0, 2, 4, 6 with a two-bit mask: all set, all set, partly set, all clear.
        let m = Bytes(&[0x3, 9, 0x3, 9, 0x1, 9, 0x0, 9], Cell::new(0));
        assert_eq!(m.scan_flag_run(0, 2, 4, 0x3, true), Ok(2));
        // "Clear" means all of the mask's bits clear: a partly set byte ends the run.
        assert_eq!(m.scan_flag_run(4, 2, 2, 0x3, false), Ok(0));
        assert_eq!(m.scan_flag_run(6, 2, 1, 0x3, false), Ok(1));
        // A run leaving the region is refused before any load.
        m.1.set(0);
        assert!(m.scan_flag_run(0, 2, 5, 0x3, true).is_err());
        assert_eq!(m.1.get(), 0);
        assert_eq!(m.scan_flag_run(0, 2, 0, 0x3, true), Ok(0));
    }

    /// A backend with only the required methods over cells, for the
    /// defaults that write.
    struct Cells<'a>(&'a [Cell<u8>]);
    impl DmaMemory for Cells<'_> {
        fn bus_addr(&self) -> u64 {
            0
        }
        fn len(&self) -> usize {
            self.0.len()
        }
        fn load_u8(&self, offset: usize) -> Result<u8> {
            Ok(self.0.get(offset).map_or(0, Cell::get))
        }
        fn read(&self, _: usize, _: &mut [u8]) -> Result<()> {
            Ok(())
        }
        fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
            let cells = self
                .0
                .get(offset..offset + data.len())
                .ok_or(crate::Error::InvalidArgument("test write"))?;
            for (c, b) in cells.iter().zip(data) {
                c.set(*b);
            }
            Ok(())
        }
        fn zero(&self) -> Result<()> {
            Ok(())
        }
    }

    #[test]
    fn default_zero_entries_zeroes_its_run_and_refuses_before_any_write() {
        let cells: [Cell<u8>; 160] = core::array::from_fn(|_| Cell::new(0xA5));
        let m = Cells(&cells);
        // 5 entries from 32: more than one 64-byte chunk, a partial last one.
        m.zero_entries(32, 5).unwrap();
        for (i, c) in cells.iter().enumerate() {
            let want = if (32..112).contains(&i) { 0 } else { 0xA5 };
            assert_eq!(c.get(), want, "byte {i}");
        }
        for c in &cells {
            c.set(0xA5);
        }
        assert_eq!(
            m.zero_entries(8, 1),
            Err(crate::Error::InvalidArgument(NOT_ON_ENTRY))
        );
        assert!(matches!(
            m.zero_entries(144, 2),
            Err(crate::Error::OutOfRange { .. })
        ));
        assert!(m.zero_entries(16, usize::MAX).is_err());
        assert!(cells.iter().all(|c| c.get() == 0xA5));
    }

    #[test]
    fn default_read_new_entries_refuses_a_run_off_an_entry_boundary() {
        let bytes = [0x80u8; 64];
        let m = Bytes(&bytes, Cell::new(0));
        let mut out = [NqEntry::default(); 1];
        for off in [1usize, 4, 8, 15] {
            assert_eq!(
                m.read_new_entries(off, &mut out, true),
                Err(crate::Error::InvalidArgument(NOT_ON_ENTRY)),
                "offset {off}"
            );
        }
        // Refused before any load.
        assert_eq!(m.1.get(), 0);
        // On a boundary it scans (this backend's `read` copies nothing, so
        // the copy's phase ends the run: 0 entries, but no refusal).
        assert_eq!(m.read_new_entries(16, &mut out, true), Ok(0));
        assert!(m.1.get() > 0);
    }
}
