//! The C handle `aws_hal_intc_t` of the MARIANA INTC leaves: field offsets and
//! size, as the earlier revision of the note recovered them (HIGH there, and
//! consistent with the current text's `+8`, `+24`, `+472`, `+696 + 192 × block`)
//! [004 §4], [004r1 §4], [FACTS §12.3].
//!
//! khal's handle is [`super::Intc`], a Rust type, not this byte layout;
//! these constants record where each field the programs use lives in the C
//! handle, so that every field of `Intc` names its C counterpart, and the
//! compile-time checks below pin the arithmetic that ties the layout together
//! (`0x2CA8 = 680 + 56 × 192`).

use static_assertions::const_assert_eq;

/// `sizeof(aws_hal_intc_t)` = `0x2CA8` (11432) [004 §4].
const HANDLE_SIZE: usize = 0x2CA8;

/// `bar0_base` (`+0`): the BAR0 MMIO base [004r1 §4].
const BAR0_BASE: usize = 0;

/// `top_intc_msix_base` (`+8`): the MSI-X register block [004 §4].
const TOP_INTC_MSIX_BASE: usize = 8;

/// `top_intc_notific_base` (`+16`): the top notific block [004r1 §4].
const TOP_INTC_NOTIFIC_BASE: usize = 16;

/// `intc_user_errtrig_base[56]` (`+24`, 8 bytes each): the per-block errtrig
/// bases [004 §4].
const USER_ERRTRIG_BASE: usize = 24;

/// Number of errtrig blocks (and of ENS entries) the handle holds [004 §4].
const BLOCKS: usize = 56;

/// `top_intc_masks[2]` (`+472`, 4 bytes each): the MSI-X vector-mask shadow;
/// the leaves use `[0]` [004 §4].
const TOP_INTC_MASKS: usize = 472;

/// `intc_user_errtrig_masks` (`+480`, `+4 × mask_index`): the errtrig mask
/// shadow [004r1 §4]. Its index comes from `get_intc_user_errtrig_mask_index`,
/// whose decode is not traced [004 §4 GOTCHA].
const USER_ERRTRIG_MASKS: usize = 480;

/// Words of room the layout leaves for the errtrig mask shadow:
/// `(680 − 480) / 4 = 50` (derived by arithmetic, MED).
const USER_ERRTRIG_MASK_WORDS: usize = (USER_ERRTRIG_ENS - USER_ERRTRIG_MASKS) / 4;

/// `user_errtrig_ens[56]` (`+680`, 192 bytes each): the per-block notification
/// engine state [004r1 §4].
const USER_ERRTRIG_ENS: usize = 680;

/// Bytes of one `user_errtrig_ens` entry [004r1 §4].
const ENS_SIZE: usize = 192;

/// The `.nq` member inside an ENS entry: `696 − 680 = 16` [004 §4], [004r1 §4].
const ENS_NQ: usize = 16;

/// Handle offset of `intc_user_errtrig_base[block]`: `24 + 8 × block` [004 §4].
const fn errtrig_base_offset(block: usize) -> usize {
    USER_ERRTRIG_BASE + 8 * block
}

/// Handle offset of `user_errtrig_ens[block].nq`: `696 + 192 × block` [004 §4].
const fn ens_nq_offset(block: usize) -> usize {
    USER_ERRTRIG_ENS + ENS_SIZE * block + ENS_NQ
}

// The fields follow one another with no gap: three 8-byte bases, then 56
// errtrig bases end at the masks, two mask words end at the errtrig shadow,
// 56 ENS entries end the handle.
const_assert_eq!(BAR0_BASE + 8, TOP_INTC_MSIX_BASE);
const_assert_eq!(TOP_INTC_MSIX_BASE + 8, TOP_INTC_NOTIFIC_BASE);
const_assert_eq!(TOP_INTC_NOTIFIC_BASE + 8, USER_ERRTRIG_BASE);
const_assert_eq!(errtrig_base_offset(BLOCKS), TOP_INTC_MASKS);
const_assert_eq!(TOP_INTC_MASKS + 2 * 4, USER_ERRTRIG_MASKS);
const_assert_eq!(USER_ERRTRIG_ENS + BLOCKS * ENS_SIZE, HANDLE_SIZE);
const_assert_eq!(ens_nq_offset(0), 696);
const_assert_eq!(USER_ERRTRIG_MASK_WORDS, 50);
const_assert_eq!(BLOCKS, super::line::ERRTRIG_BLOCKS);

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-block offsets of the C handle at the first, a middle and the
    /// last block: `24 + 8 × block` and `696 + 192 × block` [004 §4].
    #[test]
    fn per_block_offsets() {
        assert_eq!(
            [0, 7, 55].map(errtrig_base_offset),
            [24, 24 + 8 * 7, 24 + 8 * 55]
        );
        assert_eq!([0, 7, 55].map(ens_nq_offset), [696, 696 + 192 * 7, 11256]);
        // The last ENS's `.nq` lies inside the handle.
        assert!(ens_nq_offset(BLOCKS - 1) < HANDLE_SIZE);
    }
}
