//! The 16-byte NQ entry: its raw bytes and its phase bit [004 §1, §3], [FACTS §6].
//!
//! The notes decode only the phase bit (bit 7 of byte 3) and the size; the
//! rest of the entry is opaque here. Bytes are kept as the device wrote them
//! (little-endian dwords when read as words).

/// The size of one notification, identical on every arch [004 §1 GOTCHA].
pub const NQ_ENTRY_BYTES: usize = 16;

// An entry is exactly its 16 bytes (no padding), 8-byte aligned.
static_assertions::assert_eq_size!(NqEntry, [u8; NQ_ENTRY_BYTES]);
static_assertions::const_assert_eq!(core::mem::align_of::<NqEntry>(), 8);

/// Byte index of the phase bit's byte [004 §3].
pub(crate) const PHASE_BYTE: usize = 3;

/// Mask of the phase bit in [`PHASE_BYTE`] (bit 7) [004 §3].
pub(crate) const PHASE_MASK: u8 = 0x80;

/// One notification as it sat in the ring.
///
/// Layout: its 16 raw bytes in ring order and nothing else (`size_of` is
/// 16, checked at compile time), so a slice of entries is the ring's bytes in
/// order; aligned to 8, so that a copy of an entry is two aligned 8-byte (or
/// four 4-byte) moves rather than a `memcpy` call per entry on `thumbv7em`
/// at `opt-level = "s"`. The
/// alignment is only that of khal's copies: the on-wire layout is the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(C, align(8))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NqEntry {
    raw: [u8; NQ_ENTRY_BYTES],
}

impl NqEntry {
    /// An entry from its 16 raw bytes.
    pub const fn from_bytes(raw: [u8; NQ_ENTRY_BYTES]) -> NqEntry {
        NqEntry { raw }
    }

    /// The 16 raw bytes, in ring order.
    pub const fn bytes(&self) -> &[u8; NQ_ENTRY_BYTES] {
        &self.raw
    }

    /// The phase bit: bit 7 of byte 3 [004 §3].
    pub const fn phase(&self) -> bool {
        phase_of(self.raw[PHASE_BYTE])
    }
}

/// The phase bit of a phase byte (byte 3 of an entry) [004 §3].
pub(crate) const fn phase_of(byte3: u8) -> bool {
    byte3 & PHASE_MASK != 0
}
