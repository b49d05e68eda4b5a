//! The resolved errtrig line `(block, g, sub, bit)` the cause and mask leaves
//! address [004 §4].
//!
//! The C leaves first decode a trigger id into `(g, sub, bit)` through
//! `intc_get_trigger_info` / `get_intc_user_errtrig_mask_index`; that decoder
//! is NOT TRACED [FACTS §7]. khal therefore takes the already resolved triple,
//! validated once here, and never guesses a decode.

use crate::error::Result;
use crate::ids::Bounded;

/// Number of errtrig block bases the handle holds (`intc_user_errtrig_base[56]`
/// at handle `+24`) [004 §4].
pub(super) const ERRTRIG_BLOCKS: usize = 56;

/// One interrupt line of an errtrig block, with every index validated.
///
/// - `block`: the notes' `group` argument, the index into
///   `intc_user_errtrig_base[56]` (`< 56`) [004 §4];
/// - `g`: the 4-group MSI-X unit (`< 4`, the notes'
///   `AWS_REG_MARIANA_INTC_4GRP_MSIX_UNIT_CTRL_COUNT`) [004 §4];
/// - `sub`: the 64-byte control unit inside the group's `1 << 12` window
///   (`< 64`, so that `sub << 6` stays inside its group: an interpretation of
///   the packing, MED);
/// - `bit`: the bit in the 32-bit cause / mask registers (`< 32`).
///
/// The line's control unit sits at `(g << 12) + (sub << 6)` of its block's
/// base [004 §4].
///
/// ```
/// use khal_core::intc::ErrtrigLine;
/// assert!(ErrtrigLine::new(0, 1, 3, 5).is_ok());
/// assert!(ErrtrigLine::new(0, 4, 0, 0).is_err()); // g < 4
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ErrtrigLine {
    block: Bounded<56>,
    g: Bounded<4>,
    sub: Bounded<64>,
    bit: Bounded<32>,
}

impl ErrtrigLine {
    /// Validate a resolved line; each index out of range is
    /// [`crate::Error::OutOfRange`] (the C code asserts on `g`).
    pub const fn new(block: u32, g: u32, sub: u32, bit: u32) -> Result<Self> {
        let block = const_try!(Bounded::new(block, "errtrig block"));
        let g = const_try!(Bounded::new(g, "errtrig group g"));
        let sub = const_try!(Bounded::new(sub, "errtrig sub unit"));
        let bit = const_try!(Bounded::new(bit, "errtrig bit"));
        Ok(ErrtrigLine { block, g, sub, bit })
    }

    /// The errtrig block index (into the 56 bases).
    pub(super) const fn block(self) -> usize {
        self.block.as_usize()
    }

    /// `1 << bit`.
    pub(super) const fn bit_mask(self) -> u32 {
        1 << self.bit.get()
    }

    /// `(g << 12) + (sub << 6)`: the control unit's offset in its block [004 §4].
    pub(super) const fn unit_offset(self) -> u64 {
        ((self.g.get() as u64) << 12) + ((self.sub.get() as u64) << 6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    #[test]
    fn bounds() {
        assert!(ErrtrigLine::new(55, 3, 63, 31).is_ok());
        assert_eq!(
            ErrtrigLine::new(56, 0, 0, 0),
            Err(Error::OutOfRange {
                what: "errtrig block",
                value: 56,
                limit: 56
            })
        );
        assert!(ErrtrigLine::new(0, 0, 64, 0).is_err());
        assert!(ErrtrigLine::new(0, 0, 0, 32).is_err());
        let l = ErrtrigLine::new(2, 3, 63, 31).unwrap();
        assert_eq!(l.unit_offset(), (3 << 12) + (63 << 6));
        // The unit the `ERRTRIG` description names: `64 * g + sub`.
        assert_eq!(
            super::super::regs::ERRTRIG
                .lookup(l.unit_offset() + 8)
                .map(|n| n.instance),
            Some(Some(("unit", 255)))
        );
        assert_eq!(l.bit_mask(), 1 << 31);
    }

    /// Each accessor answers its own index (distinct values, none 0 or 1, so
    /// a swapped or constant accessor fails).
    #[test]
    fn accessors_answer_the_validated_indices() {
        let l = ErrtrigLine::new(13, 2, 37, 29).unwrap();
        assert_eq!(
            (l.block(), l.unit_offset(), l.bit_mask()),
            (13, (2 << 12) + (37 << 6), 1 << 29)
        );
    }
}
