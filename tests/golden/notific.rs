//! The golden register programs of the notification engine and the NQ lifecycle
//! [004 §2, §3], [FACTS §6], held once as `no_std` data: the host tests
//! (`tests/tests/notific_golden_shared.rs`, against a traced register file) and the
//! on-target tests (`ontarget/`, against a RAM window under QEMU) both assert
//! against these. Included by path (`#[path]`), so it depends on nothing.
//!
//! An access is `(op, offset from the engine's notific base, value)`.

/// Whether an access reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// A 32-bit register read (the value is what it returned).
    Read,
    /// A 32-bit register write.
    Write,
}

/// One register access of a program.
pub type Access = (Op, u64, u32);

use Op::{Read as R, Write as W};

/// `aws_hal_notific_init(num_queues = 10, bp_mode = 0, uart_mode = 5)` [004 §2]:
/// uart mode, `wob_ctrl = 1`, the coalescer timer (10-queue flavour only),
/// write-buffer enable of every lane (lo, hi), then `set_bp_config(0)`.
pub const INIT_TEN_BP0_UART5: [Access; 8] = [
    (W, 0x28, 0x5),         // nq_uart_mode
    (W, 0xBC, 1),           // wob_ctrl = 1
    (W, 0xB4, 0xAAE60),     // coal_timer (10-queue only)
    (W, 0x30, 0xFFFF_FFFF), // wr_buf_enable lo (all lanes)
    (W, 0x34, 0xFFFF_FFFF), // wr_buf_enable hi
    (W, 0x08, 0x3FF),       // sw_backpressure, mode 0: every queue
    (W, 0x0C, 0xFFFF_FFFF), // hw_backpressure lo
    (W, 0x10, 0xFFFF_FFFF), // hw_backpressure hi
];

/// `aws_hal_notific_init(num_queues = 1, bp_mode = 1, uart_mode = 7)` [004 §2]:
/// the single-queue flavour has no coalescer timer [004 §2 QUIRK].
pub const INIT_SINGLE_BP1_UART7: [Access; 7] = [
    (W, 0x28, 7),
    (W, 0xBC, 1),
    (W, 0x30, 0xFFFF_FFFF),
    (W, 0x34, 0xFFFF_FFFF),
    (W, 0x08, 0), // sw_backpressure, mode 1: none
    (W, 0x0C, 0xFFFF_FFFF),
    (W, 0x10, 0xFFFF_FFFF),
];

/// Offset of queue `idx`'s NQ registers from `+0x100`: `40 * idx` on the
/// 10-queue flavour, none on the single-queue one [004 §3 QUIRK].
pub const fn nq_stride(idx: u32, ten_queue: bool) -> u64 {
    if ten_queue {
        40 * idx as u64
    } else {
        0
    }
}

/// `nq_configure`'s queue config [004 §3]: base lo, base hi, size.
pub const fn queue_config(idx: u32, ten_queue: bool, bus_addr: u64, size: u32) -> [Access; 3] {
    let o = nq_stride(idx, ten_queue);
    [
        (W, 0x100 + o, bus_addr as u32),
        (W, 0x104 + o, (bus_addr >> 32) as u32),
        (W, 0x108 + o, size),
    ]
}

/// A program of at most 8 accesses (the reset and the enable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Program {
    ops: [Access; 8],
    len: usize,
}

impl Program {
    const fn new() -> Program {
        Program {
            ops: [(R, 0, 0); 8],
            len: 0,
        }
    }

    const fn push(mut self, a: Access) -> Program {
        if self.len < self.ops.len() {
            self.ops[self.len] = a;
            self.len += 1;
        }
        self
    }

    /// The accesses, in order.
    pub fn as_slice(&self) -> &[Access] {
        self.ops.split_at(self.len).0
    }
}

/// The NQ reset of queue `idx` [004 §3], [FACTS §6]: the overflow shadow and the
/// enable shadow (this queue's bit cleared from `enable_before`) written; if
/// `idx <= 3`, the coalescer flush pulse (read `coal_ctrl` = `coal`, set bit 9,
/// clear it); the tail read (0: drained); the head written 0.
pub const fn reset(idx: u32, ten_queue: bool, enable_before: u32, coal: u32) -> Program {
    let o = nq_stride(idx, ten_queue);
    let mut p = Program::new()
        .push((W, 0x18, 0))
        .push((W, 0x14, enable_before & !(1 << idx)));
    if idx <= 3 {
        p = p
            .push((R, 0xB8, coal))
            .push((W, 0xB8, coal | 0x200))
            .push((W, 0xB8, coal & !0x200));
    }
    p.push((R, 0x110 + o, 0)).push((W, 0x10C + o, 0))
}

/// `nq_enable` [004 §3]: the reset, then `nq_enable` with this queue's bit set.
pub const fn enable(idx: u32, ten_queue: bool, enable_before: u32, coal: u32) -> Program {
    reset(idx, ten_queue, enable_before, coal).push((
        W,
        0x14,
        (enable_before & !(1 << idx)) | (1 << idx),
    ))
}
