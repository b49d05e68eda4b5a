//! C references over raw pointers, as C firmware writes them: the third
//! checker's C tail poll and C phase poll (the registers through raw
//! volatile pointers, as `readl` / `writel`; the entries by plain struct
//! copies), used by its kernels (`chk3.rs`) and by the side-by-side's
//! raw-pointer C references (the kernels below: `nq:crawphase`,
//! `nq:crawtail`, `nq:crawarr`). Unlike `kernels::ir_c_ref`, whose register
//! accesses go through khal's `Mmio` window (issue 12's reference, "through
//! the same Mmio"), these pay no window check.

use std::ptr::NonNull;

use khal_core::dma::DmaMemory;
use khal_core::notific::NqEntry;

use crate::kernels::NqDev;

/// A C driver's state for one ring: its memory, registers, head, phase.
pub struct C3 {
    ring: *const NqEntry,
    tail: *const u32,
    head_reg: *mut u32,
    mask: u32,
    head: u32,
    /// The expected phase as bit 31 of dword 0 (phase mode).
    phase: u32,
}

/// C tail-mode poll: `readl(tail)`, masked copy, `writel(head)`.
#[inline(always)]
pub fn c_tail(s: &mut C3, out: &mut [NqEntry]) -> usize {
    // SAFETY: the live tail register (a raw `readl`).
    let tail = unsafe { s.tail.read_volatile() };
    let n = (((tail / 16).wrapping_sub(s.head) & s.mask) as usize).min(out.len());
    if n == 0 {
        return 0;
    }
    for (i, o) in out[..n].iter_mut().enumerate() {
        // SAFETY: the index is masked below the ring's entry count.
        *o = unsafe { s.ring.add(((s.head + i as u32) & s.mask) as usize).read() };
    }
    s.head = (s.head + n as u32) & s.mask;
    // SAFETY: the live head register (a raw `writel`).
    unsafe { s.head_reg.write_volatile(s.head * 16) };
    n
}

/// C phase-mode poll: per entry the phase bit of dword 0 (a volatile load),
/// a compiler fence (x86: loads are not reordered with loads), the struct
/// copy, the head and phase advanced; one `writel(head)` if any.
#[inline(always)]
pub fn c_phase(s: &mut C3, out: &mut [NqEntry]) -> usize {
    let mut n = 0;
    while n < out.len() {
        // SAFETY: head <= mask < ring entries: dword 0 of a live entry.
        let w0 = unsafe { s.ring.add(s.head as usize).cast::<u32>().read_volatile() };
        if (w0 ^ s.phase) & 0x8000_0000 != 0 {
            break;
        }
        std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::Acquire);
        // SAFETY: as above.
        out[n] = unsafe { s.ring.add(s.head as usize).read() };
        n += 1;
        s.head = (s.head + 1) & s.mask;
        if s.head == 0 {
            s.phase ^= 0x8000_0000;
        }
    }
    if n > 0 {
        // SAFETY: the live head register.
        unsafe { s.head_reg.write_volatile(s.head * 16) };
    }
    n
}

impl C3 {
    /// The driver of a ring of `cap` entries (a power of two) whose first
    /// entry is `ring`, with its tail and head registers, before any poll
    /// (head 0, expecting the first pass's phase 1).
    pub fn new(ring: *const NqEntry, tail: NonNull<u32>, head_reg: NonNull<u32>, cap: u32) -> Self {
        C3 {
            ring,
            tail: tail.as_ptr(),
            head_reg: head_reg.as_ptr(),
            mask: cap - 1,
            head: 0,
            phase: 0x8000_0000,
        }
    }
}

/// A side-by-side full-ring kernel, `$name`: `$poll`s until one finds
/// nothing (each takes `min(new, out.len())`); returns the number drained.
/// A macro, as chk3.rs's C kernels: each kernel is its own source.
macro_rules! c_ring_kernel {
    ($(#[$doc:meta])* $name:ident, $poll:ident) => {
        $(#[$doc])*
        #[inline(never)]
        pub fn $name(s: &mut C3, out: &mut [NqEntry]) -> usize {
            let mut total = 0;
            loop {
                let n = $poll(s, out);
                if n == 0 {
                    return total;
                }
                total += n;
            }
        }
    };
}

c_ring_kernel!(
    /// The full ring through the C phase poll (per entry a phase test and a
    /// struct copy, one head write per call).
    ir_c_raw_phase,
    c_phase
);
c_ring_kernel!(
    /// The full ring through the C tail poll (one tail read,
    /// `min(pending, out.len())` copies, one head write per call).
    ir_c_raw_tail,
    c_tail
);

/// The device's one arrival inside [`ir_c_raw_arrive`]; not counted (the
/// bench's `ir_nqdev_*` toggle). Its own entry point, beside its kernel: a
/// call from here to `kernels::ir_nqdev_write` changed how the side-by-side's
/// own arrival kernels compiled (-1 / -2 Ir per entry).
#[inline(never)]
pub fn ir_nqdev_raw_write<R: DmaMemory>(mem: &R, dev: &mut NqDev) {
    dev.write(mem, 1);
}

/// One arrival per call through the C tail poll: `total` times the device
/// writes one entry and publishes its tail (`ir_nqdev_raw_write`, not counted),
/// then ONE poll; a poll that finds nothing ends the kernel. Returns the
/// number drained.
#[inline(never)]
pub fn ir_c_raw_arrive<R: DmaMemory>(
    mem: &R,
    s: &mut C3,
    dev: &mut NqDev,
    out: &mut [NqEntry],
    total: usize,
) -> usize {
    let mut got = 0;
    while got < total {
        ir_nqdev_raw_write(mem, dev);
        match c_tail(s, out) {
            0 => break,
            n => got += n,
        }
    }
    got
}
