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
pub const NQ_COUNT: u32 = 10;

/// Bytes between two NQ windows of the 10-queue flavour [004 §3].
pub const NQ_STRIDE: u64 = 40;

/// Bytes the described registers span (`0x100 + 10 * 40`): what a trace or a
/// mapping of one engine's block must cover at least.
pub const NOTIFIC_SPAN: u64 = 0x100 + NQ_COUNT as u64 * NQ_STRIDE;

/// The whole notific block's size in the kernel's map (`0x100 + 96 * 0x28 =
/// 0x1000`) [kdrv v2 notific.h]; the device model mounts this much.
pub const NOTIFIC_BLOCK_BYTES: u64 = 0x1000;

/// `coal_timer` value init writes on the 10-queue flavour: 700000 [004 §2].
pub const COAL_TIMER_INIT: u32 = 0xAAE60;

/// Stream-enable shadow seed on the 10-queue flavour [004 §2].
pub const STREAM_SHADOW_SEED: u32 = 15;

/// `sw_backpressure` for bp mode 0 (all queues back-pressured) [004 §2].
pub const SW_BP_ALL: u32 = 0x3FF;
