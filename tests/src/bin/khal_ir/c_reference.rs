//! The C-style consumers khal's drain is measured against, written as a C
//! driver writes them over the same ring memory and register buffer.
//!
//! - The **C-style consumer** (`ir_c_ref`): per call one tail read through
//!   the same `Mmio` window khal's engine uses, a plain struct copy of each
//!   new entry (masked index; no bounds, phase or fault check), one head
//!   write for the batch. Its idle poll is the tail read and a compare.
//! - The **C phase poll** (`ir_c_phase`): the registers through raw volatile
//!   pointers (`readl` / `writel`, no window check); per entry one volatile
//!   load of the phase bit, a compiler fence, the struct copy; one head
//!   write per non-empty call. Its idle poll is one load and a compare.

use std::ptr::NonNull;
use std::sync::atomic::{compiler_fence, Ordering};

use khal_core::notific::NqEntry;
use khal_core::{DeviceAddr, Mmio};

use crate::setup::{N, NQ0_HEAD_OFF, NQ0_TAIL_OFF};

/// One poll of the C-style consumer: the number copied, or `None` when
/// nothing was new or a register access failed.
#[inline(always)]
fn c_poll<M: Mmio>(
    mmio: &M,
    base: DeviceAddr,
    ring: *const NqEntry,
    mask: u32,
    head: &mut u32,
    out: &mut [NqEntry],
) -> Option<usize> {
    let tail = mmio.read32(base.add(NQ0_TAIL_OFF)).ok()?;
    let n = (((tail / 16).wrapping_sub(*head) & mask) as usize).min(out.len());
    if n == 0 {
        return None;
    }
    for (k, slot) in out.iter_mut().take(n).enumerate() {
        let idx = (*head + k as u32) & mask;
        // SAFETY: `idx <= mask < cap`, and `ring` points to `cap` live
        // entries (the caller's ring buffer): C's `out[k] = ring[idx]`.
        *slot = unsafe { ring.add(idx as usize).read_unaligned() };
    }
    *head = (*head + n as u32) & mask;
    mmio.write32(base.add(NQ0_HEAD_OFF), *head * 16).ok()?;
    Some(n)
}

/// The whole published ring through the C-style consumer, `out.len()`
/// entries per call at most; `cap` a power of two. Returns the number drained.
#[inline(never)]
pub fn ir_c_ref<M: Mmio>(
    mmio: &M,
    base: DeviceAddr,
    ring: *const NqEntry,
    cap: u32,
    out: &mut [NqEntry],
) -> usize {
    let mut head = 0u32;
    let mut total = 0usize;
    while let Some(n) = c_poll(mmio, base, ring, cap - 1, &mut head, out) {
        total += n;
    }
    total
}

/// `N` idle polls of the C-style consumer (head = tail); `two`: two per
/// iteration, so the difference of the two runs is one poll without the loop.
#[inline(never)]
pub fn ir_c_idle<M: Mmio>(
    mmio: &M,
    base: DeviceAddr,
    ring: *const NqEntry,
    cap: u32,
    out: &mut [NqEntry],
    two: bool,
) -> usize {
    let mut head = 0u32;
    let mut total = 0usize;
    for _ in 0..N {
        total += c_poll(mmio, base, ring, cap - 1, &mut head, out).unwrap_or(0);
        if two {
            total += c_poll(mmio, base, ring, cap - 1, &mut head, out).unwrap_or(0);
        }
    }
    total
}

/// A C phase-mode driver's state for one ring.
pub struct CPhase {
    ring: *const NqEntry,
    head_reg: *mut u32,
    mask: u32,
    head: u32,
    /// The expected phase, as bit 31 of dword 0.
    phase: u32,
}

impl CPhase {
    /// The driver of a ring of `cap` entries (a power of two) whose first
    /// entry is `ring`, before any poll (expecting the first pass's phase 1).
    pub fn new(ring: *const NqEntry, head_reg: NonNull<u32>, cap: u32) -> Self {
        CPhase {
            ring,
            head_reg: head_reg.as_ptr(),
            mask: cap - 1,
            head: 0,
            phase: 1 << 31,
        }
    }

    /// One poll: up to `out.len()` new entries, one head write if any.
    #[inline(always)]
    fn poll(&mut self, out: &mut [NqEntry]) -> usize {
        let mut n = 0;
        while n < out.len() {
            // SAFETY: `head <= mask`: dword 0 of a live entry of the ring.
            let w0 = unsafe {
                self.ring
                    .add(self.head as usize)
                    .cast::<u32>()
                    .read_volatile()
            };
            if (w0 ^ self.phase) & (1 << 31) != 0 {
                break;
            }
            compiler_fence(Ordering::Acquire);
            // SAFETY: as above.
            out[n] = unsafe { self.ring.add(self.head as usize).read() };
            n += 1;
            self.head = (self.head + 1) & self.mask;
            if self.head == 0 {
                self.phase ^= 1 << 31;
            }
        }
        if n > 0 {
            // SAFETY: the live head register (`writel`).
            unsafe { self.head_reg.write_volatile(self.head * 16) };
        }
        n
    }
}

/// The whole ring through the C phase poll. Returns the number drained.
#[inline(never)]
pub fn ir_c_phase(s: &mut CPhase, out: &mut [NqEntry]) -> usize {
    let mut total = 0;
    loop {
        match s.poll(out) {
            0 => return total,
            n => total += n,
        }
    }
}

/// `N` idle polls of the C phase poll (`two`: two per iteration).
#[inline(never)]
pub fn ir_cphase_idle(s: &mut CPhase, out: &mut [NqEntry], two: bool) -> usize {
    let mut total = 0;
    for _ in 0..N {
        total += s.poll(out);
        if two {
            total += s.poll(out);
        }
    }
    total
}
