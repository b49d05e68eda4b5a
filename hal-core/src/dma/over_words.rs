//! [`dma_memory_over_words!`](crate::dma_memory_over_words): the one [`DmaMemory`](super::DmaMemory)
//! impl of every backend whose accesses are [`AtomicWords`](super::AtomicWords)'s
//! (firmware's [`StaticDma`](super::StaticDma), khal-std's `DmaBuf`).
//!
//! Each such backend forwards every access to its words view, method by
//! method; the forwarding is written once here, with the inline attributes
//! the drain's figures were measured with (host callgrind Ir, firmware
//! `.text`: docs/PERFORMANCE.md). A method added to [`DmaMemory`](super::DmaMemory)
//! that [`AtomicWords`](super::AtomicWords) implements is forwarded here, once, for
//! both backends.
//!
//! A macro, not a blanket impl: `impl<T: OverWords> DmaMemory for T` would
//! overlap `impl<T: DmaMemory + ?Sized> DmaMemory for &T` (another crate may
//! implement the helper trait for a `&` of its own type).

/// Writes `impl DmaMemory for $ty`, forwarding every access to the words
/// view `view` returns (an [`AtomicWords`](crate::dma::AtomicWords)), with
/// `bus_addr` and `len` from the expressions given. Every `self` is written
/// by the caller (a macro's own `self` could not name the caller's). The
/// caller has `DmaMemory` and `AtomicWords` in scope: the trait is named as
/// it imported it, and the methods' doc links name both.
///
/// The two methods whose cost differs by word size take their doc comments
/// from the caller (they document that backend's loads per entry).
///
/// ```text
/// khal_core::dma_memory_over_words! {
///     impl DmaMemory for DmaBuf {
///         fn view(&self) = self.view();
///         fn bus_addr(&self) = self.bus_addr;
///         fn len(&self) = self.len;
///         /// The whole run checked once, then two word loads per entry.
///         fn read_published_entries;
///         /// One pass per entry, ...
///         fn read_new_entries;
///     }
/// }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! dma_memory_over_words {
    (
        impl $dma_memory:ident for $ty:ty {
            fn view(&$s:ident) = $view:expr;
            fn bus_addr(&$s_bus:ident) = $bus_addr:expr;
            fn len(&$s_len:ident) = $len:expr;
            $(#[$read_published_entries:meta])*
            fn read_published_entries;
            $(#[$read_new_entries:meta])*
            fn read_new_entries;
        }
    ) => {
        impl $dma_memory for $ty {
            #[inline]
            fn bus_addr(&$s_bus) -> u64 {
                $bus_addr
            }

            #[inline]
            fn len(&$s_len) -> usize {
                $len
            }

            // Always inlined on bare metal: the whole-word load is a bounds
            // check and one `ldr` (the partial last word is out of line
            // already), and out of line the phase ring's idle test copied its
            // `Result` through memory (issue 12: -32 B .text per image);
            // `#[inline]` on hosts, as before.
            #[cfg_attr(target_os = "none", inline(always))]
            #[cfg_attr(not(target_os = "none"), inline)]
            fn load_u8(&$s, offset: usize) -> $crate::Result<u8> {
                $view.load_u8(offset)
            }

            #[inline]
            fn read(&$s, offset: usize, out: &mut [u8]) -> $crate::Result<()> {
                $view.read(offset, out)
            }

            /// The same word loads as [`DmaMemory::read`]:
            /// a plain `memcpy` would race another context (a device thread)
            /// that (against the contract) rewrites published bytes.
            #[inline]
            fn read_published(&$s, offset: usize, out: &mut [u8]) -> $crate::Result<()> {
                $view.read(offset, out)
            }

            $(#[$read_published_entries])*
            #[inline]
            fn read_published_entries(
                &$s,
                offset: usize,
                out: &mut [$crate::notific::entry::NqEntry],
            ) -> $crate::Result<()> {
                $view.read_entries(offset, out)
            }

            #[inline]
            fn scan_flag_run(
                &$s,
                offset: usize,
                stride: usize,
                max: usize,
                mask: u8,
                want: bool,
            ) -> $crate::Result<usize> {
                $view.scan_flag_run(offset, stride, max, mask, want)
            }

            // Always inlined on hosts; bare-metal builds let the optimiser
            // choose the inlining (`#[inline]`).
            $(#[$read_new_entries])*
            #[cfg_attr(not(target_os = "none"), inline(always))]
            #[cfg_attr(target_os = "none", inline)]
            fn read_new_entries(
                &$s,
                offset: usize,
                out: &mut [$crate::notific::entry::NqEntry],
                phase: bool,
            ) -> $crate::Result<usize> {
                $view.read_new_entries(offset, out, phase)
            }

            /// The run's own entry words ([`AtomicWords::entry_view`]):
            /// no bounds check per entry; a run not on a word is refused.
            #[inline(always)]
            fn entry_view(
                &$s,
                offset: usize,
                n: usize,
                phase: bool,
            ) -> $crate::Result<$crate::dma::EntryView<'_>> {
                $view.entry_view(offset, n, phase)
            }

            /// Every view is one of the words' ([`AtomicWords::entry_view`]).
            #[inline(always)]
            fn entry_view_word_bytes(&$s) -> usize {
                $view.word_bytes()
            }

            #[inline]
            fn write(&$s, offset: usize, data: &[u8]) -> $crate::Result<()> {
                $view.write(offset, data)
            }

            fn zero(&$s) -> $crate::Result<()> {
                $view.zero();
                Ok(())
            }

            /// One store per word of the run ([`AtomicWords::zero_entries`]).
            #[inline]
            fn zero_entries(&$s, offset: usize, count: usize) -> $crate::Result<()> {
                $view.zero_entries(offset, count)
            }

            /// The whole entry checked, its first word (the phase byte's)
            /// loaded once and kept for [`DmaMemory::take_peeked`].
            #[inline(always)]
            fn peek_entry(&$s, offset: usize) -> $crate::Result<$crate::dma::EntryPeek> {
                $view.peek_entry(offset)
            }

            /// An Acquire fence and the entry's other words (the peeked word
            /// is its first).
            #[inline(always)]
            fn take_peeked(
                &$s,
                peek: $crate::dma::EntryPeek,
                out: &mut $crate::notific::entry::NqEntry,
            ) -> $crate::Result<bool> {
                $view.take_peeked(peek, out)
            }

            /// The first two entries' phase words tested under one view,
            /// copied straight; the run after them only when both are new
            /// ([`AtomicWords::take_new_at`]).
            #[inline(always)]
            fn take_new_at(
                &$s,
                at: usize,
                old: u32,
                more: impl FnOnce() -> bool,
                limit: impl FnOnce() -> usize,
                out: &mut [$crate::notific::entry::NqEntry],
            ) -> $crate::Result<usize> {
                $view.take_new_at(at, old, more, limit, out)
            }

            /// The first entry's phase word tested, the second's when
            /// `out` has room for two, the third's when both are new; one
            /// or two copied straight ([`AtomicWords::take_one_at`]).
            #[inline(always)]
            fn take_one_at(
                &$s,
                at: usize,
                old: u32,
                more: impl FnOnce() -> bool,
                third: impl FnOnce() -> bool,
                out: &mut [$crate::notific::entry::NqEntry],
            ) -> $crate::dma::TakeOne {
                $view.take_one_at(at, old, more, third, out)
            }
        }
    };
}
