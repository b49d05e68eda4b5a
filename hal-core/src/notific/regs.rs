//! The NOTIFIC register block: the per-engine config registers and the per-NQ windows [004 §2, §3], [FACTS §6].
//!
//! One description serves both register flavours. The per-NQ registers are
//! arrays `nq[10]` with a 40-byte stride: the 10-queue flavour (a NeuronCore
//! TPB) reaches queue `idx` through [`RegArray::at`](crate::regs::RegArray::at)
//! (refusing `idx >= 10`), the single-queue flavour (a TopSP) through
//! [`RegArray::flat`](crate::regs::RegArray::flat) (no stride) [004 §3 QUIRK].
//! The offsets are identical on SUNDA, CAYMAN and MARIANA [004 §2].
//!
//! `+0xB0`, which the notes list unnamed, is `nq_stats.num_notifications`
//! (read-only, read-clearing) by the device schema [FACTS §15.2]; the earlier
//! revision's `nq_stats_get` id 6 reads it [004r1 §3].

crate::register_block! {
    /// The per-engine notification block (`notific_1_queue` / `notific_10_queue`) [004 §2, §3].
    pub NOTIFIC: "notific" {
        /// Software back-pressure: `0x3FF` (all) for bp mode 0, `0` for mode 1 [004 §2].
        SW_BACKPRESSURE @ 0x08, rw, "sw_backpressure";
        /// Hardware back-pressure, low word (set_bp_config writes all ones) [004 §2].
        HW_BACKPRESSURE_LO @ 0x0C, rw, "hw_backpressure_lo";
        /// Hardware back-pressure, high word [004 §2].
        HW_BACKPRESSURE_HI @ 0x10, rw, "hw_backpressure_hi";
        /// One enable bit per queue [004 §3].
        NQ_ENABLE @ 0x14, rw, "nq_enable";
        /// `sw_overflow.ignore_full_en`: one bit per queue [004 §3].
        SW_OVERFLOW @ 0x18, rw, "sw_overflow", fields sw_overflow {
            /// One bit per queue (the whole register).
            #[allow(dead_code, reason = "the engine writes the whole register")]
            IGNORE_FULL_EN: 0..=31,
        };
        /// UART mode, written first by init [004 §2].
        NQ_UART_MODE @ 0x28, rw, "nq_uart_mode";
        /// The AXI user id of the engine's writes [004 §2].
        NQ_AXI_ID @ 0x2C, rw, "nq_axi_id";
        /// Write-buffer enable, low word (lanes 31:0) [004 §2].
        WR_BUF_ENABLE_LO @ 0x30, rw, "wr_buf_enable_lo";
        /// Write-buffer enable, high word (lanes 63:32) [004 §2].
        WR_BUF_ENABLE_HI @ 0x34, rw, "wr_buf_enable_hi";
        /// `nq_stats`: its `num_notifications` count, read-only and cleared by
        /// the read [FACTS §15.2] (`nq_stats_get` id 6 [004r1 §3]).
        NQ_STATS @ 0xB0, ro, "nq_stats", fields nq_stats {
            /// The notifications counted since the last read.
            #[allow(dead_code, reason = "recorded from the schema; no program reads it")]
            NUM_NOTIFICATIONS: 0..=31,
        };
        /// Coalescer moderation timer: `0xAAE60` on the 10-queue flavour [004 §2 QUIRK].
        COAL_TIMER @ 0xB4, rw, "coal_timer";
        /// Coalescer control [004 §2, §3].
        COAL_CTRL @ 0xB8, rw, "coal_ctrl", fields coal_ctrl {
            /// Bit 8: coalescer bypass (timestamp sync) [004 §2].
            BYPASS: 8..=8,
            /// Bit 9: clear, pulsed set-then-clear by the NQ reset for `idx <= 3` [004 §3].
            CLR: 9..=9,
            /// Bits 13:10: stream enables (mask `0x3C00`) [004 §2].
            STREAM_EN: 10..=13,
        };
        /// Write-ordering-buffer control; init writes 1 [004 §2].
        WOB_CTRL @ 0xBC, rw, "wob_ctrl", fields wob_ctrl {
            /// Bit 0: rotate the AXI id [004 §2].
            AXI_ID_ROTATE: 0..=0,
        };
        /// Timestamp increment, read by the timestamp-sync path [004 §2]; `ro`:
        /// "read-only use" [FACTS §6], so its handle has no `write`.
        TIMESTAMP_INC @ 0xCC, ro, "timestamp_inc";
        /// Ring base address, low word [004 §3].
        NQ_BASE_ADDR_LO @ 0x100, rw, "nq_base_addr_lo", array "nq" [10; 40];
        /// Ring base address, high word [004 §3].
        NQ_BASE_ADDR_HI @ 0x104, rw, "nq_base_addr_hi", array "nq" [10; 40];
        /// Ring size in bytes [004 §3].
        NQ_F_SIZE @ 0x108, rw, "nq_f_size", array "nq" [10; 40];
        /// Consumer head, a byte offset into the ring [004 §3], [FACTS §11].
        NQ_HEAD_PTR @ 0x10C, rw, "nq_head_ptr", array "nq" [10; 40];
        /// Producer tail, a byte offset into the ring [004 §3], [FACTS §11];
        /// `ro`: the device moves it, the notes only read it (reset's drain
        /// wait, available count) [004 §3], so its handle has no `write`.
        NQ_TAIL_PTR @ 0x110, ro, "nq_tail_ptr", array "nq" [10; 40];
    }
}

/// Bytes from the block base through the last byte of its last register
/// (`nq[9].nq_tail_ptr`, `0x110 + 9 * 40 + 4`): what a base must leave below
/// 2^64. A constant, so that the check of a base is one compare.
pub(crate) const NOTIFIC_EXTENT: u64 = NOTIFIC.extent();

/// Number of NQs of the 10-queue flavour (`NOTIFIC_10_QUEUE_NOTIFIC_NQ_COUNT`) [004 §3].
pub(crate) const NQ_COUNT: u32 = 10;

/// The whole notific block's size in the kernel's map (`0x100 + 96 * 0x28 =
/// 0x1000`) [kdrv v2 notific.h]: what a mapping of one engine's block (or a
/// register file standing for it) spans.
pub const NOTIFIC_BLOCK_BYTES: u64 = 0x1000;

/// `coal_timer` value init writes on the 10-queue flavour: 700000 [004 §2].
pub(crate) const COAL_TIMER_INIT: u32 = 0xAAE60;

/// Stream-enable shadow seed on the 10-queue flavour [004 §2].
pub(crate) const STREAM_SHADOW_SEED: u32 = 15;

/// `sw_backpressure` for bp mode 0 (all queues back-pressured) [004 §2].
pub(crate) const SW_BP_ALL: u32 = 0x3FF;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_match_facts_6() {
        assert_eq!(SW_BACKPRESSURE.offset(), 0x08);
        assert_eq!(HW_BACKPRESSURE_LO.offset(), 0x0C);
        assert_eq!(HW_BACKPRESSURE_HI.offset(), 0x10);
        assert_eq!(NQ_ENABLE.offset(), 0x14);
        assert_eq!(SW_OVERFLOW.offset(), 0x18);
        assert_eq!(NQ_UART_MODE.offset(), 0x28);
        assert_eq!(NQ_AXI_ID.offset(), 0x2C);
        assert_eq!(WR_BUF_ENABLE_LO.offset(), 0x30);
        assert_eq!(WR_BUF_ENABLE_HI.offset(), 0x34);
        assert_eq!(NQ_STATS.offset(), 0xB0);
        assert_eq!(COAL_TIMER.offset(), 0xB4);
        assert_eq!(COAL_CTRL.offset(), 0xB8);
        assert_eq!(WOB_CTRL.offset(), 0xBC);
        assert_eq!(TIMESTAMP_INC.offset(), 0xCC);
        assert_eq!(sw_overflow::IGNORE_FULL_EN.mask(), u32::MAX);
        assert_eq!(nq_stats::NUM_NOTIFICATIONS.mask(), u32::MAX);
        assert_eq!(coal_ctrl::BYPASS.mask(), 0x100);
        assert_eq!(coal_ctrl::CLR.mask(), 0x200);
        assert_eq!(coal_ctrl::STREAM_EN.mask(), 0x3C00);
        assert_eq!(wob_ctrl::AXI_ID_ROTATE.mask(), 1);
        assert_eq!(NQ_BASE_ADDR_LO.flat().offset(), 0x100);
        assert_eq!(NQ_BASE_ADDR_HI.flat().offset(), 0x104);
        assert_eq!(NQ_F_SIZE.flat().offset(), 0x108);
        assert_eq!(NQ_HEAD_PTR.flat().offset(), 0x10C);
        assert_eq!(NQ_TAIL_PTR.flat().offset(), 0x110);
        assert_eq!(NQ_TAIL_PTR.count(), NQ_COUNT);
        assert_eq!(NQ_TAIL_PTR.stride(), 40);
        assert_eq!(NQ_TAIL_PTR.at(9).map(|r| r.offset()), Ok(0x110 + 9 * 40));
        assert!(NQ_HEAD_PTR.at(10).is_err());
        assert_eq!(NOTIFIC_EXTENT, 0x110 + 9 * 40 + 4);
        const { assert!(NOTIFIC_EXTENT <= NOTIFIC_BLOCK_BYTES) };
        assert_eq!(COAL_TIMER_INIT, 700_000);
        assert_eq!(STREAM_SHADOW_SEED, 15);
        assert_eq!(SW_BP_ALL, 0x3FF);
    }

    #[test]
    fn reverse_lookup_names_the_spec_registers() {
        let n = NOTIFIC.lookup(0x10C + 3 * 40).map(|n| n.reg);
        assert_eq!(n, Some("nq_head_ptr"));
        assert_eq!(NOTIFIC.lookup(0xB8).map(|n| n.reg), Some("coal_ctrl"));
        assert_eq!(NOTIFIC.lookup(0xB0).map(|n| n.reg), Some("nq_stats"));
        // Read-only and read-clearing [FACTS §15.2]: no write may reach it.
        let stats = NOTIFIC
            .regs
            .iter()
            .find(|r| r.name == "nq_stats")
            .map(|r| r.access);
        assert_eq!(stats, Some(crate::regs::Access::ReadOnly));
        assert_eq!(NQ_STATS.desc().access, crate::regs::Access::ReadOnly);
    }
}
