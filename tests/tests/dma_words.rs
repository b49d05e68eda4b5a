//! The byte methods `DmaMemory` provides over a backend's atomic words
//! (dma/words.rs: every byte access of `StaticDma` and khal-std's `DmaBuf`)
//! at the edges that mutation testing found unguarded (docs/TESTING.md,
//! "Mutation testing"): exact values and exact refusals.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use khal_core::dma::DmaMemory;
use khal_core::Error;

/// `len` bytes over `N` words (`len <= 4 N`).
struct Words<const N: usize> {
    words: [AtomicU32; N],
    len: usize,
}

impl<const N: usize> Words<N> {
    fn new(len: usize) -> Self {
        Words {
            words: core::array::from_fn(|_| AtomicU32::new(0xA5A5_A5A5)),
            len,
        }
    }
    fn now(&self) -> [u32; N] {
        self.words.each_ref().map(|x| x.load(Relaxed))
    }
}

impl<const N: usize> DmaMemory for Words<N> {
    fn bus_addr(&self) -> u64 {
        0x1000
    }
    fn len(&self) -> usize {
        self.len
    }
    fn words(&self) -> Option<&[AtomicU32]> {
        Some(&self.words)
    }
}

/// Empty exactly when it has no byte.
#[test]
fn is_empty_is_a_length_of_zero() {
    assert!(Words::<2>::new(0).is_empty());
    assert!(!Words::<2>::new(1).is_empty());
}

/// `zero` stores every word the backend hands out (a partial last one
/// whole: its padding is the backend's own).
#[test]
fn zero_stores_every_word() {
    let w = Words::<3>::new(9);
    w.zero().unwrap();
    assert_eq!(w.now(), [0, 0, 0]);
}

/// A write of part of a word keeps the word's other bytes; a whole word is
/// stored whole; bytes are the words' bytes in memory order.
#[test]
fn a_partial_write_merges_into_its_word() {
    let w = Words::<3>::new(12);
    w.write(3, &[1, 2, 3, 4, 5, 6]).unwrap();
    let b = |w: u32| w.to_ne_bytes();
    assert_eq!(b(w.now()[0]), [0xA5, 0xA5, 0xA5, 1]);
    assert_eq!(b(w.now()[1]), [2, 3, 4, 5]);
    assert_eq!(b(w.now()[2]), [6, 0xA5, 0xA5, 0xA5]);
    let mut out = [0u8; 8];
    w.read(2, &mut out).unwrap();
    assert_eq!(out, [0xA5, 1, 2, 3, 4, 5, 6, 0xA5]);
    assert_eq!(w.load_u8(4), Ok(2));
}

/// Bytes past the length are refused with its exact bound, before any
/// access, though the last word holds them; so are offsets that overflow.
#[test]
fn bytes_past_the_length_are_refused_with_the_exact_bound() {
    let w = Words::<3>::new(9);
    let mut out = [7u8; 2];
    assert_eq!(
        w.read(8, &mut out),
        Err(Error::out_of_range("dma offset", 8, 9))
    );
    assert_eq!(out, [7, 7]);
    assert_eq!(
        w.write(9, &[0]),
        Err(Error::out_of_range("dma offset", 9, 9))
    );
    assert!(w.read(usize::MAX, &mut out).is_err());
    assert_eq!(w.now(), [0xA5A5_A5A5; 3]);
    assert_eq!(w.load_u8(8), Ok(0xA5));
    assert_eq!(w.read(9, &mut []), Ok(()));
}

/// A length the words do not cover is refused, not read past the words.
#[test]
fn a_length_past_the_words_is_refused() {
    let w = Words::<2>::new(12);
    assert!(w.load_u8(8).is_err());
    assert!(w.write(6, &[0; 4]).is_err());
    assert_eq!(w.now(), [0xA5A5_A5A5; 2]);
}

/// Every offset and length inside the region reads back what was written,
/// and no byte outside it changes.
#[test]
fn writes_and_reads_at_every_offset_and_length() {
    let w = Words::<6>::new(22);
    let data: [u8; 13] = core::array::from_fn(|i| i as u8 + 1);
    for off in 0..8 {
        for n in 0..=13 {
            w.zero().unwrap();
            w.write(off, &data[..n]).unwrap();
            let mut all = [0xEEu8; 22];
            w.read(0, &mut all).unwrap();
            for (i, b) in all.iter().enumerate() {
                let want = if (off..off + n).contains(&i) {
                    data[i - off]
                } else {
                    0
                };
                assert_eq!(*b, want, "offset {off} length {n} byte {i}");
            }
        }
    }
}

/// A backend with neither words nor byte methods refuses every access;
/// a reference to a backend answers what the backend answers.
#[test]
fn a_backend_without_words_or_byte_methods_refuses_every_access() {
    struct Bare;
    impl DmaMemory for Bare {
        fn bus_addr(&self) -> u64 {
            0
        }
        fn len(&self) -> usize {
            4
        }
    }
    let m = Bare;
    assert!(matches!(
        m.read(0, &mut [0]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(m.load_u8(0), Err(Error::InvalidArgument(_))));
    assert!(matches!(m.write(0, &[0]), Err(Error::InvalidArgument(_))));
    assert!(matches!(m.zero(), Err(Error::InvalidArgument(_))));
    let r = &m;
    assert!(r.words().is_none() && !r.is_empty() && r.len() == 4);
    let w = Words::<1>::new(4);
    let r = &w;
    assert_eq!(r.words().map(<[_]>::len), Some(1));
    assert_eq!((r.bus_addr(), r.load_u8(0)), (0x1000, Ok(0xA5)));
}
