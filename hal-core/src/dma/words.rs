//! Byte access over a slice of aligned atomic words: the provided
//! [`DmaMemory`](super::DmaMemory) methods of every backend that hands out
//! its words ([`StaticDma`](super::StaticDma), khal-std's `DmaBuf`).
//!
//! Why atomics: the device (or a device-model thread, or another core) may
//! write the memory while the host reads it, and the backends are `Sync` with
//! `&self` methods. Every host access is therefore a relaxed atomic access of
//! one aligned 4-byte word, all of one size, so none races another (the
//! memory model forbids racing plain accesses and racing atomics of
//! different sizes). A relaxed aligned word load or store is one plain `mov` /
//! `ldr` / `lw`. Ordering is the callers' business (the NQ drain's Acquire
//! fence after the phase load [FACTS §11]).
//!
//! Bytes are the words' bytes in memory order (`to_ne_bytes`). Partial words
//! are merged by a compare-exchange, so a concurrent write of the word's
//! other bytes is not lost.

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::error::{Error, Result};

/// Bytes per word.
pub(super) const WORD: usize = 4;

/// The words holding bytes `offset..offset + n` of a region of `len` bytes
/// (its words cover it), and the position of `offset` in the first of them;
/// [`Error::OutOfRange`] when the bytes leave the region.
fn span(words: &[AtomicU32], len: usize, offset: usize, n: usize) -> Result<(&[AtomicU32], usize)> {
    let refuse = || Error::out_of_range("dma offset", offset as u64, len as u64);
    let end = offset
        .checked_add(n)
        .filter(|&e| e <= len)
        .ok_or_else(refuse)?;
    let run = words
        .get(offset / WORD..end.div_ceil(WORD))
        .ok_or_else(refuse)?;
    Ok((run, offset % WORD))
}

/// Copy `out.len()` bytes from `offset`: one load per word touched.
pub(super) fn read(words: &[AtomicU32], len: usize, offset: usize, out: &mut [u8]) -> Result<()> {
    let (run, mut skip) = span(words, len, offset, out.len())?;
    let mut dst = out.iter_mut();
    for w in run {
        let bytes = w.load(Relaxed).to_ne_bytes();
        // `zip` pulls from the word's bytes first: `dst` does not advance
        // past the copy's end.
        for (b, o) in bytes.iter().skip(skip).zip(dst.by_ref()) {
            *o = *b;
        }
        skip = 0;
    }
    Ok(())
}

/// Write `data` at `offset`: whole words by one store each, the bytes of a
/// partial word merged into it.
pub(super) fn write(words: &[AtomicU32], len: usize, offset: usize, data: &[u8]) -> Result<()> {
    let (run, mut at) = span(words, len, offset, data.len())?;
    let mut src = data.iter();
    for w in run {
        let mut mask = [0u8; WORD];
        let mut val = [0u8; WORD];
        for ((m, v), s) in mask.iter_mut().zip(&mut val).skip(at).zip(src.by_ref()) {
            *m = 0xFF;
            *v = *s;
        }
        let (mask, val) = (u32::from_ne_bytes(mask), u32::from_ne_bytes(val));
        if mask == u32::MAX {
            w.store(val, Relaxed);
        } else {
            // The closure always returns `Some`: the update cannot fail.
            let _ = w.fetch_update(Relaxed, Relaxed, |old| Some((old & !mask) | val));
        }
        at = 0;
    }
    Ok(())
}

/// Zero every word (a partial last word whole: its padding is the backend's).
pub(super) fn zero(words: &[AtomicU32]) {
    for w in words {
        w.store(0, Relaxed);
    }
}
