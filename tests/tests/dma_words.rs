//! `khal_core::dma::AtomicWords` (dma/words.rs: every access of DMA memory
//! for `StaticDma` and khal-std's `DmaBuf`) at the edges that mutation
//! testing found unguarded (docs/TESTING.md, "Mutation testing"): exact
//! values and exact refusals, for 4-byte and 8-byte words.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use khal_core::dma::AtomicWords;
use khal_core::notific::entry::NqEntry;
use khal_core::Error;

fn w32<const N: usize>() -> [AtomicU32; N] {
    core::array::from_fn(|_| AtomicU32::new(0))
}

fn w64<const N: usize>() -> [AtomicU64; N] {
    core::array::from_fn(|_| AtomicU64::new(0))
}

/// Empty exactly when it has no byte: no words, or a length of 0 over
/// words; one byte of a partial word is not empty.
#[test]
fn is_empty_is_a_length_of_zero() {
    let (a, b) = (w32::<2>(), w64::<2>());
    assert!(AtomicWords::whole(&a[..0]).is_empty());
    assert!(AtomicWords::new(&a, 0).is_empty());
    assert!(AtomicWords::new(&b, 0).is_empty());
    assert!(!AtomicWords::whole(&a).is_empty());
    assert!(!AtomicWords::new(&a, 1).is_empty());
    assert!(!AtomicWords::new(&b, 9).is_empty());
    assert_eq!(AtomicWords::new(&b, 9).len(), 9);
}

/// `zero` stores every word of the memory, the partial last one whole (its
/// padding is the memory's own), and no word past it: over a longer slice,
/// the words after `len` keep their bytes.
#[test]
fn zero_stops_at_the_last_word_of_the_length() {
    let w = w32::<4>();
    for x in &w {
        x.store(0xA5A5_A5A5, Relaxed);
    }
    // Whole words: words 0 and 1 only.
    AtomicWords::new(&w, 8).zero();
    let now = |w: &[AtomicU32; 4]| w.each_ref().map(|x| x.load(Relaxed));
    assert_eq!(now(&w), [0, 0, 0xA5A5_A5A5, 0xA5A5_A5A5]);
    // A partial last word (byte 8 of 9): zeroed whole; word 3 untouched.
    AtomicWords::new(&w, 9).zero();
    assert_eq!(now(&w), [0, 0, 0, 0xA5A5_A5A5]);
    let b = w64::<3>();
    b[2].store(u64::MAX, Relaxed);
    AtomicWords::new(&b, 16).zero();
    assert_eq!(b[2].load(Relaxed), u64::MAX);
}

/// Entries not on a word (a run read with `read_entries` from an offset
/// inside a word: never a ring's, whose base is aligned) are copied byte by
/// byte, each from its own 16 bytes: exact bytes for a run of three.
#[test]
fn read_entries_off_a_word_copies_each_entry_from_its_own_bytes() {
    let bytes: [u8; 64] = core::array::from_fn(|i| i as u8 + 1);
    let w = w32::<16>();
    let v = AtomicWords::whole(&w);
    v.write(0, &bytes).unwrap();
    let mut out = [NqEntry::default(); 3];
    v.read_entries(2, &mut out).unwrap();
    for (i, e) in out.iter().enumerate() {
        assert_eq!(e.bytes()[..], bytes[2 + 16 * i..18 + 16 * i], "entry {i}");
    }
    let b = w64::<8>();
    let v = AtomicWords::whole(&b);
    v.write(0, &bytes).unwrap();
    v.read_entries(13, &mut out).unwrap();
    for (i, e) in out.iter().enumerate() {
        assert_eq!(e.bytes()[..], bytes[13 + 16 * i..29 + 16 * i], "entry {i}");
    }
    // The whole run checked first: one entry past the end, nothing copied.
    let mut four = [NqEntry::default(); 4];
    assert!(v.read_entries(13, &mut four).is_err());
    assert_eq!(four, [NqEntry::default(); 4]);
}

/// A peek past the last whole entry is refused with the exact bound: the
/// bytes of the whole entries (3 entries, 48 bytes, of a 52-byte memory).
#[test]
fn a_peek_past_the_last_entry_names_the_bytes_of_the_whole_entries() {
    let w = w32::<13>();
    let v = AtomicWords::whole(&w);
    assert_eq!(
        v.peek_entry(48).unwrap_err(),
        Error::out_of_range("dma nq entry", 48, 48)
    );
    assert_eq!(
        v.peek_entry(64).unwrap_err(),
        Error::out_of_range("dma nq entry", 64, 48)
    );
    let b = w64::<5>();
    assert_eq!(
        AtomicWords::whole(&b).peek_entry(32).unwrap_err(),
        Error::out_of_range("dma nq entry", 32, 32)
    );
    assert_eq!(
        AtomicWords::whole(&b).peek_entry(16).map(|p| p.offset()),
        Ok(16)
    );
}
