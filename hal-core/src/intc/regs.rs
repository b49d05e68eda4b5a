//! Register descriptions of the MARIANA TOP-INTC: the MSI-X block and the
//! 4-group errtrig block [004 §4], [FACTS §7].
//!
//! Offsets are the notes' decimal figures (set-mask +16, clear-mask +24, …)
//! written in hex. The errtrig block is one 64-byte control unit per
//! `(g, sub)` pair, addressed `(g << 12) + (sub << 6)`: it is described here as
//! 256 units of 0x40 bytes (unit index = `64 * g + sub`), so a trace names
//! `errtrig.unit[67].int_cause_set_grp` for `g = 1, sub = 3`.

use crate::register_block;

register_block! {
    /// The top MSI-X register block, relative to `top_intc_msix_base` [004 §4].
    pub MSIX: "msix" {
        /// Set-mask: written with the whole vector-mask shadow when a vector is
        /// masked (`+16`) [004 §4]. The notes only write it; whether it reads
        /// back is in no source, so `rw` is recorded (not write-only).
        SET_MASK @ 0x10, rw, "set_mask";
        /// Clear-mask: written with the whole vector-mask shadow when a vector
        /// is unmasked (`+24`) [004 §4]. Access kind as `set_mask`'s.
        CLEAR_MASK @ 0x18, rw, "clear_mask";
        /// Moderation-timer control (`+40`); the period sits in bits 27:24 and
        /// is changed by read-modify-write [004 §4].
        MOD_TIMER_CTRL @ 0x28, rw, "mod_timer_ctrl", fields mod_timer_ctrl {
            /// The reset bit, `0x10` (MED [004r1 §4], [FACTS §12.3]). No leaf
            /// that writes it is in either revision: described, never driven.
            #[allow(dead_code, reason = "described, never driven")]
            RESET: 4..=4,
            /// Moderation period, `< 16` [004 §4].
            PERIOD: 24..=27,
        };
        /// Per-group interval, `+1024 + 8 * grp` [004 §4]; `grp < 8` and the
        /// low byte as the interval (`group_interval::INTERVAL`) are MED
        /// ([004r1 §4], [FACTS §12.3]).
        GROUP_INTERVAL @ 0x400, rw, "interval", fields group_interval {
            /// The interval: the low byte, value `<= 0xFF` (MED [004r1 §4],
            /// [FACTS §12.3]).
            INTERVAL: 0..=7,
        }, array "grp" [8; 0x8];
        /// Per-vector control, `+2060 + 16 * vec`: 1 = masked, 0 = unmasked;
        /// vectors 0..=7 [004 §4].
        VECTOR_CTRL @ 0x80C, rw, "vector_ctrl", array "vec" [8; 0x10];
    }
}

register_block! {
    /// One errtrig block: `errtrig_base[block] + (g << 12) + (sub << 6) + REG`
    /// [004 §4]. Unit index = `64 * g + sub` (`g < 4`, `sub < 64`).
    pub ERRTRIG: "errtrig" {
        /// `int_cause_grp` (`+0`): the latched causes; `read_cause` reads it.
        CAUSE @ 0x00, rw, "int_cause_grp", array "unit" [256; 0x40];
        /// `int_cause_set_grp` (`+8`): `set_cause` writes `1 << bit`. The notes
        /// only write it; no source says write-only, so `rw` is recorded.
        CAUSE_SET @ 0x08, rw, "int_cause_set_grp", array "unit" [256; 0x40];
        /// `int_mask_grp` (`+16`).
        MASK @ 0x10, rw, "int_mask_grp", array "unit" [256; 0x40];
        /// `int_mask_clear_grp` (`+24`). Access kind as `int_cause_set_grp`'s.
        MASK_CLEAR @ 0x18, rw, "int_mask_clear_grp", array "unit" [256; 0x40];
        /// `int_log_msk_grp` (`+56`): the notification log mask.
        LOG_MSK @ 0x38, rw, "int_log_msk_grp", array "unit" [256; 0x40];
    }
}

/// Bytes from the MSI-X base through its last described register
/// (`vec[7].vector_ctrl`) and from an errtrig base through its last unit's
/// `int_log_msk_grp`: what a base must leave below 2^64. Constants, so that
/// the check of a base is one compare.
pub(crate) const MSIX_EXTENT: u64 = MSIX.extent();
/// See [`MSIX_EXTENT`].
pub(crate) const ERRTRIG_EXTENT: u64 = ERRTRIG.extent();

/// Bytes of the MSI-X block that the descriptions cover (through the last
/// vector control word), rounded up to a page: what a mapping of the block
/// (or a register file standing for it) spans.
pub const MSIX_SIZE: u64 = 0x1000;

/// Bytes of one errtrig block: 4 groups of `1 << 12` [004 §4].
pub const ERRTRIG_SIZE: u64 = 4 << 12;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_the_notes_decimal_figures() {
        assert_eq!(SET_MASK.offset(), 16);
        assert_eq!(CLEAR_MASK.offset(), 24);
        assert_eq!(MOD_TIMER_CTRL.offset(), 40);
        assert_eq!(mod_timer_ctrl::PERIOD.mask(), 0x0F00_0000);
        assert_eq!(mod_timer_ctrl::RESET.mask(), 0x10);
        assert_eq!(group_interval::INTERVAL.mask(), 0xFF);
        assert_eq!(GROUP_INTERVAL.at(3).map(|r| r.offset()), Ok(1024 + 24));
        assert_eq!(VECTOR_CTRL.at(7).map(|r| r.offset()), Ok(2060 + 112));
        assert!(VECTOR_CTRL.at(8).is_err());
        assert_eq!(LOG_MSK.at(0).map(|r| r.offset()), Ok(56));
        assert_eq!(
            ERRTRIG
                .lookup((1 << 12) + (3 << 6) + 8)
                .map(|n| n.to_string()),
            Some("errtrig.unit[67].int_cause_set_grp".to_string())
        );
        assert_eq!(
            MSIX.lookup(2060 + 16 * 2).map(|n| n.to_string()),
            Some("msix.vec[2].vector_ctrl".to_string())
        );
    }
}
