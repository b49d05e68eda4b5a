//! `khal_ir`: the driver `scripts/bench.sh` runs under callgrind.
//!
//! `khal_ir <scenario>` sets up one scenario and runs its measured kernel (see
//! `kernels.rs`) exactly once; callgrind, started with
//! `--collect-atstart=no --toggle-collect=*<kernel>*`, counts only the kernel.
//! The script divides by the operation count this program prints as
//! `ops=<n>` on stdout.
//!
//! `khal_ir time` (not under callgrind) times a full-ring phase-mode drain
//! against a `memcpy` of the same ring, 21 interleaved repetitions, and prints
//! the ratio of the medians as JSON.
//!
//! `khal_ir counts` runs no kernel under measurement: it drains a full ring
//! through a `Counting` backend and prints the exact MMIO figures (reads per
//! drained entry in phase mode, head writes per non-empty drain, writes per
//! idle poll) as one JSON object.

mod kernels;

use std::hint::black_box;
use std::process::ExitCode;

use khal_core::dma::DmaMemory;
use khal_core::notific::{ConsumeMode, NotificEngine, NqConfig, NqEntry, NqRing};
use khal_std::{Counting, DmaBuf};

use kernels::*;

fn usage() -> ExitCode {
    eprintln!(
        "usage: khal_ir <raw_write|typed_write|raw_read|typed_read|raw_array_write|\
         typed_array_write|typed_write_opaque|nq_drain_dmabuf|nq_drain_word|memcpy|\
         csr_lookup_4|csr_lookup_8|csr_lookup_256|raw_translate|dispatch_static_axi|dispatch_any_axi|\
         dispatch_static_rmw|dispatch_any_rmw|counts|time>"
    );
    ExitCode::from(2)
}

/// Bring up a notific engine over a window of `regs`, configure NQ 0 as a
/// phase-mode ring over `mem`, enable it (which zeroes it), then fill it.
fn ring_setup<R: DmaMemory>(
    regs: &mut Regs,
    mem: R,
) -> Option<(
    NotificEngine<khal_core::mmio::volatile::VolatileWindow>,
    NqRing<R>,
)> {
    let w = window(regs.ptr())?;
    let mut e = NotificEngine::init(w, Some(BASE), 10, 0, 0).ok()?;
    let cfg = NqConfig::new(0, RING_ENTRIES * 16, ConsumeMode::Phase);
    let mut ring = NqRing::configure_host(&e, mem, cfg).ok()?;
    ring.enable(&mut e, &mut NoDelay).ok()?;
    fill_first_pass(ring.memory()).ok()?;
    Some((e, ring))
}

fn counts() -> Option<String> {
    let mut regs = Regs::new();
    let w = Counting::new(window(regs.ptr())?);
    let mut e = NotificEngine::init(&w, Some(BASE), 10, 0, 0).ok()?;
    let cfg = NqConfig::new(0, RING_ENTRIES * 16, ConsumeMode::Phase);
    let mut ring =
        NqRing::configure_host(&e, DmaBuf::new(RING_ENTRIES as usize * 16, 4096).ok()?, cfg)
            .ok()?;
    ring.enable(&mut e, &mut NoDelay).ok()?;
    let mut out = vec![NqEntry::default(); 128];
    // Three full passes (3 wraps) so the phase flips are exercised.
    let (mut drained, mut calls_nonempty, mut idle_writes, mut idle_reads) =
        (0u64, 0u64, 0u64, 0u64);
    let (mut reads, mut writes) = (0u64, 0u64);
    for pass in 0..3u32 {
        device_pass(ring.memory(), pass)?;
        loop {
            w.reset();
            let n = ring.drain(&e, &mut NoDelay, &mut out).ok()?;
            if n == 0 {
                idle_writes += w.writes();
                idle_reads += w.reads();
                break;
            }
            drained += n as u64;
            calls_nonempty += 1;
            reads += w.reads();
            writes += w.writes();
        }
    }
    Some(format!(
        "{{\"drained\":{drained},\"nonempty_drains\":{calls_nonempty},\
         \"mmio_reads_per_entry_phase_mode\":{:.3},\"head_writes_per_nonempty_drain\":{:.3},\
         \"mmio_accesses_per_idle_poll\":{}}}",
        reads as f64 / drained.max(1) as f64,
        writes as f64 / calls_nonempty.max(1) as f64,
        (idle_writes + idle_reads) / 3
    ))
}

/// Write the device's pass `pass` over the whole ring: phase 1 on even
/// passes, 0 on odd ones [FACTS §11].
fn device_pass<R: DmaMemory>(mem: &R, pass: u32) -> Option<()> {
    for i in 0..RING_ENTRIES as usize {
        let mut b = [0u8; 16];
        b[..4].copy_from_slice(&(i as u32).to_le_bytes());
        b[3] = if pass.is_multiple_of(2) {
            b[3] | 0x80
        } else {
            b[3] & 0x7F
        };
        mem.write(i * 16, &b).ok()?;
    }
    Some(())
}

/// Drain a full ring (refilled outside the timing) against a `memcpy` of the
/// same ring, `REPS` interleaved times; medians in ns.
fn time_ring<R: DmaMemory>(mem: R, src_ptr: *const u8) -> Option<(u128, u128)> {
    const REPS: usize = 21;
    let mut regs = Regs::new();
    let (e, mut ring) = ring_setup(&mut regs, mem)?;
    let mut out = vec![NqEntry::default(); 128];
    let bytes = RING_ENTRIES as usize * 16;
    let mut dst = vec![0u8; bytes];
    let (mut drain_ns, mut copy_ns) = (Vec::with_capacity(REPS), Vec::with_capacity(REPS));
    for pass in 0..REPS as u32 {
        // The ring was filled by `ring_setup` for pass 0.
        if pass > 0 {
            device_pass(ring.memory(), pass)?;
        }
        let t = std::time::Instant::now();
        let n = ir_nq_drain(&e, &mut ring, &mut out);
        drain_ns.push(t.elapsed().as_nanos());
        if n != RING_ENTRIES as usize {
            return None;
        }
        // SAFETY: `src_ptr` is the start of the ring's live buffer of `bytes`
        // (the ring owns it and outlives this loop); nothing writes it during
        // the copy (the drain is finished and there is no device).
        let src = unsafe { std::slice::from_raw_parts(src_ptr, bytes) };
        let t = std::time::Instant::now();
        ir_memcpy(src, &mut dst);
        copy_ns.push(t.elapsed().as_nanos());
    }
    drain_ns.sort_unstable();
    copy_ns.sort_unstable();
    Some((drain_ns[REPS / 2], copy_ns[REPS / 2]))
}

fn time() -> Option<String> {
    let bytes = RING_ENTRIES as usize * 16;
    let buf = DmaBuf::new(bytes, 4096).ok()?;
    let p = buf.as_ptr();
    let (d, c) = time_ring(buf, p)?;
    let word = WordRing::new(bytes);
    let p = word.bus_addr() as usize as *const u8;
    let (wd, wc) = time_ring(word, p)?;
    Some(format!(
        "{{\"ring_entries\":{RING_ENTRIES},\"reps\":21,\
         \"dmabuf_drain_median_ns\":{d},\"dmabuf_memcpy_median_ns\":{c},\
         \"drain_throughput_vs_memcpy\":{:.3},\
         \"wordring_drain_median_ns\":{wd},\"wordring_memcpy_median_ns\":{wc},\
         \"wordring_drain_throughput_vs_memcpy\":{:.3}}}",
        c as f64 / d.max(1) as f64,
        wc as f64 / wd.max(1) as f64
    ))
}

fn main() -> ExitCode {
    let Some(which) = std::env::args().nth(1) else {
        return usage();
    };
    let mut regs = Regs::new();
    let ops: u64 = match which.as_str() {
        "raw_write" => {
            ir_raw_write(regs.ptr());
            N as u64
        }
        "typed_write" => {
            ir_typed_write(regs.ptr());
            N as u64
        }
        "raw_read" => {
            black_box(ir_raw_read(regs.ptr()));
            N as u64
        }
        "typed_read" => {
            black_box(ir_typed_read(regs.ptr()));
            N as u64
        }
        "raw_array_write" => {
            ir_raw_array_write(regs.ptr());
            N as u64
        }
        "typed_array_write" => {
            ir_typed_array_write(regs.ptr());
            N as u64
        }
        "typed_write_opaque" => {
            let Some(w) = window(black_box(regs.ptr())) else {
                return ExitCode::FAILURE;
            };
            ir_typed_write_opaque(black_box(&w));
            N as u64
        }
        "nq_drain_dmabuf" | "nq_drain_word" => {
            let mut out = vec![NqEntry::default(); 128];
            let n = if which == "nq_drain_dmabuf" {
                let Some(mem) = DmaBuf::new(RING_ENTRIES as usize * 16, 4096).ok() else {
                    return ExitCode::FAILURE;
                };
                let Some((e, mut ring)) = ring_setup(&mut regs, mem) else {
                    return ExitCode::FAILURE;
                };
                ir_nq_drain(&e, &mut ring, &mut out)
            } else {
                let Some((e, mut ring)) =
                    ring_setup(&mut regs, WordRing::new(RING_ENTRIES as usize * 16))
                else {
                    return ExitCode::FAILURE;
                };
                ir_nq_drain(&e, &mut ring, &mut out)
            };
            if n != RING_ENTRIES as usize {
                eprintln!("drained {n}, expected {RING_ENTRIES}");
                return ExitCode::FAILURE;
            }
            n as u64
        }
        "memcpy" => {
            let src = vec![0x5Au8; RING_ENTRIES as usize * 16];
            let mut dst = vec![0u8; src.len()];
            ir_memcpy(&src, &mut dst);
            RING_ENTRIES as u64
        }
        "csr_lookup_4" => {
            let Some((csr, addrs)) = csr_setup::<4>(4) else {
                return ExitCode::FAILURE;
            };
            if ir_csr_lookup(&csr, &addrs) != N {
                return ExitCode::FAILURE;
            }
            N as u64
        }
        "csr_lookup_8" => {
            let Some((csr, addrs)) = csr_setup::<8>(8) else {
                return ExitCode::FAILURE;
            };
            if ir_csr_lookup(&csr, &addrs) != N {
                return ExitCode::FAILURE;
            }
            N as u64
        }
        "csr_lookup_256" => {
            let Some((csr, addrs)) = csr_setup::<256>(256) else {
                return ExitCode::FAILURE;
            };
            if ir_csr_lookup(&csr, &addrs) != N {
                return ExitCode::FAILURE;
            }
            N as u64
        }
        "raw_translate" => {
            let Some((_, addrs)) = csr_setup::<4>(4) else {
                return ExitCode::FAILURE;
            };
            black_box(ir_raw_translate(&addrs, 0x20_0000_0000));
            N as u64
        }
        "time" => {
            return match time() {
                Some(j) => {
                    println!("{j}");
                    ExitCode::SUCCESS
                }
                None => ExitCode::FAILURE,
            };
        }
        "dispatch_static_axi" => {
            black_box(ir_dispatch_static_axi());
            N as u64
        }
        "dispatch_any_axi" => {
            let Ok(any) = khal::AnyArch::new(black_box(3)) else {
                return ExitCode::FAILURE;
            };
            black_box(ir_dispatch_any_axi(any));
            N as u64
        }
        "dispatch_static_rmw" => {
            ir_dispatch_static_rmw(regs.ptr());
            N as u64
        }
        "dispatch_any_rmw" => {
            let Ok(any) = khal::AnyArch::new(black_box(3)) else {
                return ExitCode::FAILURE;
            };
            ir_dispatch_any_rmw(regs.ptr(), any);
            N as u64
        }
        "counts" => {
            return match counts() {
                Some(j) => {
                    println!("{j}");
                    ExitCode::SUCCESS
                }
                None => ExitCode::FAILURE,
            };
        }
        _ => return usage(),
    };
    println!("ops={ops}");
    ExitCode::SUCCESS
}
