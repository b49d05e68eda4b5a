//! khal's NQ drain beside the C-style consumers over the same ring memory
//! and register buffer: `nq:<consumer>:<backend>:<entries per call>`.
//!
//! One 4096-entry ring, filled by the device's first pass, drained whole:
//! - `phase`: `NqRing::drain`, phase mode, `max_batch` = entries per call;
//! - `iter`: `NqRing::drain_iter`, every item copied out, then `finish`;
//! - `cref`: the C-style consumer (`c_reference::ir_c_ref`; 4095 entries
//!   published through the tail: a full ring reads as empty);
//! - `cphase`: the C phase poll over raw pointers (`c_reference::ir_c_phase`).
//!
//! Idle polls (nothing new, `N` iterations; the `…2` form polls twice per
//! iteration, so the difference of the two is one poll without the loop):
//! `idle`/`idle2` khal's drain on the drained ring, `cidle`/`cidle2` the
//! C-style consumer, `cpidle`/`cpidle2` the C phase poll.
//!
//! Backends: `dmabuf` (khal-std's `DmaBuf`), `static` (khal-core's
//! `StaticDma`, the firmware's). Returns the operation count.

use khal_core::dma::{DmaMemory, StaticDma};
use khal_core::notific::{NqConfig, NqEntry, NqRing};
use khal_core::Mmio;
use khal_std::DmaBuf;

use crate::c_reference::{ir_c_idle, ir_c_phase, ir_c_ref, ir_cphase_idle, CPhase};
use crate::setup::{
    engine, reg, ring, write_pass, Regs, BASE, N, NQ0_HEAD_OFF, NQ0_TAIL_OFF, RING_ENTRIES,
};

/// Drain the whole ring, `out.len()` entries per call; the number drained.
#[inline(never)]
pub fn ir_nq_drain<M: Mmio, R: DmaMemory>(
    ring: &mut NqRing<'_, R, M>,
    out: &mut [NqEntry],
) -> usize {
    let mut total = 0;
    while let Ok(n @ 1..) = ring.drain(out) {
        total += n;
    }
    total
}

/// Drain the whole ring through `drain_iter`, `batch` per call, every item
/// copied into `out`; the number drained.
#[inline(never)]
pub fn ir_nq_iter<M: Mmio, R: DmaMemory>(
    ring: &mut NqRing<'_, R, M>,
    out: &mut [NqEntry],
    batch: u32,
) -> usize {
    let mut total = 0;
    loop {
        let Ok(mut it) = ring.drain_iter(batch) else {
            break;
        };
        let mut k = 0;
        for (slot, e) in out.iter_mut().zip(it.by_ref()) {
            match e {
                Ok(e) => *slot = e,
                Err(_) => break,
            }
            k += 1;
        }
        if it.finish().is_err() || k == 0 {
            break;
        }
        total += k;
    }
    total
}

/// `N` idle drains (`two`: two per iteration); a failed poll counts 1.
#[inline(never)]
pub fn ir_nq_idle<M: Mmio, R: DmaMemory>(
    ring: &mut NqRing<'_, R, M>,
    out: &mut [NqEntry],
    two: bool,
) -> usize {
    let mut total = 0;
    for _ in 0..N {
        total += ring.drain(out).unwrap_or(1);
        if two {
            total += ring.drain(out).unwrap_or(1);
        }
    }
    total
}

/// `nq:<consumer>:<backend>:<batch>` (see the module's docs).
pub fn scenario(spec: &str) -> Option<u64> {
    let mut it = spec.split(':').skip(1);
    let (consumer, backend) = (it.next()?, it.next()?);
    let batch = it.next()?.parse::<u32>().ok().filter(|&b| b > 0)?;
    let bytes = RING_ENTRIES as usize * 16;
    match backend {
        "dmabuf" => {
            let buf = DmaBuf::new(bytes, 4096).ok()?;
            let p = buf.as_ptr();
            run(consumer, buf, p, batch)
        }
        "static" => {
            let mem = StaticDma::identity(khal_core::static_dma!(65536)?);
            let p = mem.bus_addr() as usize as *const u8;
            run(consumer, mem, p, batch)
        }
        _ => None,
    }
}

fn run<R: DmaMemory>(consumer: &str, mem: R, ring_ptr: *const u8, batch: u32) -> Option<u64> {
    let mut regs = Regs::new();
    let regs_ptr = regs.ptr();
    let mut e = engine(regs_ptr)?;
    let mut ring = ring(&mut e, mem, NqConfig::phase, batch)?;
    write_pass(ring.memory(), 0).ok()?;
    let entries = ring_ptr.cast::<NqEntry>();
    let mut out = vec![NqEntry::default(); batch as usize];
    let two = consumer.ends_with('2');
    let (got, want) = match consumer {
        "phase" => (ir_nq_drain(&mut ring, &mut out), RING_ENTRIES),
        "iter" => (ir_nq_iter(&mut ring, &mut out, batch), RING_ENTRIES),
        "cref" => {
            // SAFETY: the tail register, a dword of the live `regs`, written
            // through the raw pointer the window also uses.
            unsafe { reg(regs_ptr, NQ0_TAIL_OFF).write_volatile((RING_ENTRIES - 1) * 16) };
            (
                ir_c_ref(e.mmio(), BASE, entries, RING_ENTRIES, &mut out),
                RING_ENTRIES - 1,
            )
        }
        "cphase" => {
            let mut c = CPhase::new(entries, reg(regs_ptr, NQ0_HEAD_OFF), RING_ENTRIES);
            (ir_c_phase(&mut c, &mut out), RING_ENTRIES)
        }
        "idle" | "idle2" => {
            if ir_nq_drain(&mut ring, &mut out) != RING_ENTRIES as usize {
                return None;
            }
            (ir_nq_idle(&mut ring, &mut out, two), 0)
        }
        "cidle" | "cidle2" => (
            ir_c_idle(e.mmio(), BASE, entries, RING_ENTRIES, &mut out, two),
            0,
        ),
        "cpidle" | "cpidle2" => {
            let mut c = CPhase::new(entries, reg(regs_ptr, NQ0_HEAD_OFF), RING_ENTRIES);
            if ir_c_phase(&mut c, &mut out) != RING_ENTRIES as usize {
                return None;
            }
            (ir_cphase_idle(&mut c, &mut out, two), 0)
        }
        _ => return None,
    };
    if got != want as usize {
        eprintln!("{consumer}: drained {got}, expected {want}");
        return None;
    }
    Some(if want == 0 { N as u64 } else { got as u64 })
}
