//! [`EntryPeek`]: what one load of an NQ entry's phase byte found, kept so
//! that taking that entry does not load or check it again (issue 12).
//!
//! Phase mode's idle test loads the phase byte of the entry at the consumer's
//! cursor [004 §3], [FACTS §11]. A backend that loads the whole word holding
//! it ([`crate::dma::AtomicWords`]) keeps that word here; when the entry is
//! new, [`DmaMemory::take_peeked`](super::DmaMemory::take_peeked) then needs
//! only an Acquire fence and the entry's other words. The copied phase byte
//! is the tested one (the same single load), as in
//! [`DmaMemory::read_new_entries`](super::DmaMemory::read_new_entries)'s
//! one-pass copy.

use crate::notific::entry::PHASE_DWORD_BIT;

/// The phase bit of the NQ entry at `offset` and, for a backend that loaded
/// more with it, the word it loaded
/// ([`DmaMemory::peek_entry`](super::DmaMemory::peek_entry)).
///
/// A peek belongs to the memory and offset it was made for: handed to
/// another memory's [`take_peeked`](super::DmaMemory::take_peeked), the copy
/// is checked against that memory's bounds but may pair the peeked word with
/// another entry's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EntryPeek {
    offset: usize,
    head: u64,
    /// The phase byte as loaded, in the top byte (only its phase bit is
    /// meaningful for a peek made by [`EntryPeek::new`]).
    phase: u32,
}

impl EntryPeek {
    /// What a load at `offset` found: the entry's phase bit and the word
    /// the phase byte was loaded with (`head`, in the backend's own terms:
    /// the integer of its word holding the phase byte, zero-extended; 0 for
    /// a backend that loaded the byte alone).
    #[inline(always)]
    pub const fn new(offset: usize, phase: bool, head: u64) -> EntryPeek {
        EntryPeek {
            offset,
            head,
            phase: if phase { PHASE_DWORD_BIT } else { 0 },
        }
    }

    /// What a load at `offset` found: the entry's phase byte as loaded, and
    /// `head` as for [`EntryPeek::new`].
    #[inline(always)]
    pub const fn with_phase_byte(offset: usize, byte: u8, head: u64) -> EntryPeek {
        EntryPeek {
            offset,
            head,
            phase: (byte as u32) << 24,
        }
    }

    /// Byte offset of the entry in the memory.
    #[inline(always)]
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// The entry's phase bit (bit 7 of byte 3) as loaded [004 §3].
    #[inline(always)]
    pub const fn phase(&self) -> bool {
        self.phase & PHASE_DWORD_BIT != 0
    }

    /// Whether the entry is new for a consumer in phase `consumer` (its
    /// phase bit in the phase byte's place of a dword, `PHASE_DWORD_BIT` or
    /// 0): its phase bit differs [FACTS §11]. One xor with the loaded word
    /// and a sign test.
    #[inline(always)]
    pub(crate) const fn is_new(&self, consumer: u32) -> bool {
        (self.phase ^ consumer) & PHASE_DWORD_BIT != 0
    }

    /// The word loaded with the phase byte (backend-defined, see [`EntryPeek::new`]).
    #[inline(always)]
    pub const fn head(&self) -> u64 {
        self.head
    }
}
