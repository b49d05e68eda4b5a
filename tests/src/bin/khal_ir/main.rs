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

mod chk;
mod chk3;
mod chk4;
mod chk5;
mod craw;
mod csr;
mod kernels;
mod lcg;
mod nqsetup;
mod refs;
mod ver;

use std::hint::black_box;
use std::process::ExitCode;

use khal_core::csr::Csr;
use khal_core::dma::{DmaMemory, StaticDma};
use khal_core::notific::{BpMode, ConsumeMode, EngineConfig, NotificEngine, NqEntry, NqRing};
use khal_core::DeviceAddr;
use khal_std::{Counting, DmaBuf};

use craw::{ir_c_raw_arrive, ir_c_raw_phase, ir_c_raw_tail, C3};
use kernels::*;
use nqsetup::{bench_engine, bench_ring, consume_mode, nq_reg, write_pass, Win};
use refs::{PlainRing, VolatileRing};

fn usage() -> ExitCode {
    eprintln!(
        "usage: khal_ir <raw_write|typed_write|raw_read|typed_read|raw_array_write|\
         typed_array_write|typed_write_opaque|nq_drain_dmabuf|nq_drain_word|memcpy|\
         csr_lookup_4|csr_lookup_8|csr_lookup_8s|csr_lookup_64c|csr_lookup_64s|csr_lookup_256c|csr_lookup_8b|csr_lookup_8m|csr_lookup_256|raw_translate|dispatch_static_axi|dispatch_any_axi|\
         dispatch_static_rmw|dispatch_any_rmw|counts|time|\
         nq:<phase|phasedef|tail|iter|cref|crawphase|crawtail|idle|idle2|tailarr|crefarr|crawarr>:<dmabuf|static|word|volatile|plain>:<batch>>"
    );
    ExitCode::from(2)
}

/// Bring up a notific engine over a window of `regs`, configure NQ 0 as a
/// phase-mode ring over `mem` with `max_batch` (`None`: the default cap),
/// enable it (which zeroes it), then write the device's first pass.
fn ring_setup<R: DmaMemory>(
    regs: &mut Regs,
    mem: R,
    batch: Option<u32>,
) -> Option<(NotificEngine<Win>, NqRing<R, Win>)> {
    let mut e = bench_engine(regs.ptr())?;
    let ring = bench_ring(&mut e, mem, 0, RING_ENTRIES, ConsumeMode::Phase, batch)?;
    write_pass(ring.memory(), 0).ok()?;
    Some((e, ring))
}

fn counts() -> Option<String> {
    let mut regs = Regs::new();
    let w = Counting::new(window(regs.ptr())?);
    let mut e = NotificEngine::init(&w, BASE, EngineConfig::tpb(BpMode::All)).ok()?;
    let mem = DmaBuf::new(RING_ENTRIES as usize * 16, 4096).ok()?;
    let mut ring = bench_ring(&mut e, mem, 0, RING_ENTRIES, ConsumeMode::Phase, None)?;
    let mut out = vec![NqEntry::default(); 128];
    // Three full passes (3 wraps) so the phase flips are exercised.
    let (mut drained, mut calls_nonempty, mut idle_writes, mut idle_reads) =
        (0u64, 0u64, 0u64, 0u64);
    let (mut reads, mut writes) = (0u64, 0u64);
    for pass in 0..3u32 {
        write_pass(ring.memory(), pass).ok()?;
        loop {
            w.reset();
            let n = ring.drain(&mut NoDelay, &mut out).ok()?;
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

/// Drain a full ring (refilled outside the timing) against a `memcpy` of the
/// same ring, `REPS` interleaved times; medians in ns.
fn time_ring<R: DmaMemory>(mem: R, src_ptr: *const u8) -> Option<(u128, u128)> {
    time_ring_batch(mem, src_ptr, None)
}

/// [`time_ring`] with `batch` entries per drain call (`None`: the default cap, 128).
fn time_ring_batch<R: DmaMemory>(
    mem: R,
    src_ptr: *const u8,
    batch: Option<u32>,
) -> Option<(u128, u128)> {
    const REPS: usize = 21;
    let mut regs = Regs::new();
    let (_e, mut ring) = ring_setup(&mut regs, mem, batch)?;
    let mut out = vec![NqEntry::default(); batch.unwrap_or(128) as usize];
    let bytes = RING_ENTRIES as usize * 16;
    let mut dst = vec![0u8; bytes];
    let (mut drain_ns, mut copy_ns) = (Vec::with_capacity(REPS), Vec::with_capacity(REPS));
    for pass in 0..REPS as u32 {
        // The ring was filled by `ring_setup` for pass 0.
        if pass > 0 {
            write_pass(ring.memory(), pass).ok()?;
        }
        let t = std::time::Instant::now();
        let n = ir_nq_drain(&mut ring, &mut out);
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

/// What the sound `DmaBuf` costs in time (issue 14 item 1): a full-ring
/// phase drain through `DmaBuf`, through the pre-issue-14 volatile + `memcpy`
/// backend ([`VolatileRing`]), and a `memcpy` of the same bytes, interleaved
/// in each of `REPS` repetitions (both rings refilled untimed before each);
/// `(dmabuf, volatile, memcpy)` medians in ns, `batch` entries per call.
fn time_sound_vs_old(batch: u32) -> Option<(u128, u128, u128)> {
    const REPS: usize = 101;
    let bytes = RING_ENTRIES as usize * 16;
    let (mut ra, mut rb) = (Regs::new(), Regs::new());
    let (_ea, mut a) = ring_setup(&mut ra, DmaBuf::new(bytes, 4096).ok()?, Some(batch))?;
    let (_eb, mut b) = ring_setup(&mut rb, VolatileRing::new(bytes), Some(batch))?;
    let mut out = vec![NqEntry::default(); batch as usize];
    let mut dst = vec![0u8; bytes];
    let (mut ta, mut tb, mut tc) = (Vec::new(), Vec::new(), Vec::new());
    for pass in 0..REPS as u32 {
        if pass > 0 {
            write_pass(a.memory(), pass).ok()?;
            write_pass(b.memory(), pass).ok()?;
        }
        let t = std::time::Instant::now();
        let na = ir_nq_drain(&mut a, &mut out);
        ta.push(t.elapsed().as_nanos());
        let t = std::time::Instant::now();
        let nb = ir_nq_drain(&mut b, &mut out);
        tb.push(t.elapsed().as_nanos());
        // SAFETY: the volatile ring's live buffer of `bytes`; nothing writes
        // it during the copy (single thread, no device).
        let src = unsafe { std::slice::from_raw_parts(b.memory().as_ptr(), bytes) };
        let t = std::time::Instant::now();
        ir_memcpy(src, &mut dst);
        tc.push(t.elapsed().as_nanos());
        if (na, nb) != (RING_ENTRIES as usize, RING_ENTRIES as usize) {
            return None;
        }
    }
    for v in [&mut ta, &mut tb, &mut tc] {
        v.sort_unstable();
    }
    Some((ta[REPS / 2], tb[REPS / 2], tc[REPS / 2]))
}

fn time() -> Option<String> {
    let mut sound = Vec::new();
    for b in [1u32, 8, 64, 1024] {
        let (a, v, c) = time_sound_vs_old(b)?;
        sound.push(format!(
            "\"{b}\":{{\"dmabuf_ns\":{a},\"volatile_memcpy_ns\":{v},\"memcpy_ns\":{c},\
             \"dmabuf_vs_volatile\":{:.3},\"dmabuf_vs_memcpy\":{:.3}}}",
            a as f64 / v.max(1) as f64,
            a as f64 / c.max(1) as f64
        ));
    }
    let bytes = RING_ENTRIES as usize * 16;
    let buf = DmaBuf::new(bytes, 4096).ok()?;
    let p = buf.as_ptr();
    let (d, c) = time_ring(buf, p)?;
    let word = WordRing::new(bytes);
    let p = word.bus_addr() as usize as *const u8;
    let (wd, wc) = time_ring(word, p)?;
    // The same ratio at the bench's batch sizes (a fresh ring each).
    let mut by_batch = Vec::new();
    for b in [1u32, 8, 64, 1024] {
        let buf = DmaBuf::new(bytes, 4096).ok()?;
        let p = buf.as_ptr();
        let (d, c) = time_ring_batch(buf, p, Some(b))?;
        by_batch.push(format!("\"{b}\":{:.3}", c as f64 / d.max(1) as f64));
    }
    Some(format!(
        "{{\"ring_entries\":{RING_ENTRIES},\"reps\":21,\
         \"dmabuf_drain_median_ns\":{d},\"dmabuf_memcpy_median_ns\":{c},\
         \"drain_throughput_vs_memcpy\":{:.3},\
         \"wordring_drain_median_ns\":{wd},\"wordring_memcpy_median_ns\":{wc},\
         \"wordring_drain_throughput_vs_memcpy\":{:.3},\
         \"dmabuf_drain_throughput_vs_memcpy_by_batch\":{{{}}},\
         \"sound_dmabuf_vs_pre_issue14\":{{\"reps\":101,{}}}}}",
        c as f64 / d.max(1) as f64,
        wc as f64 / wd.max(1) as f64,
        by_batch.join(","),
        sound.join(",")
    ))
}

/// The side-by-side NQ scenarios `nq:<mode>:<backend>:<batch>`: one
/// 4096-entry ring filled by the device's first pass, drained whole, `batch`
/// entries per call (`max_batch` = `batch`), in one of five ways:
///
/// - `phase`: `NqRing::drain`, phase mode (0 register reads);
/// - `phasedef`: the same with the ring's default `max_batch` (128): `batch`
///   entries per call because `out` holds `batch`;
/// - `tail`: `NqRing::drain`, tail mode (the device published 4095 entries:
///   a full ring reads as empty through the tail);
/// - `iter`: `NqRing::drain_iter`, phase mode, every item copied out;
/// - `cref`: the C-style reference consumer (`ir_c_ref`) over the same window
///   and ring memory (4095 entries, as `tail`);
/// - `crawphase` / `crawtail`: the third checker's C phase poll / C tail poll
///   (`craw.rs`: registers through raw volatile pointers, no window check)
///   over the same ring memory and register buffer (4096 / 4095 entries);
/// - `idle`: after draining, `N` phase-mode calls with nothing new (the
///   figure is per call, the kernel's loop included);
/// - `idle2`: the same loop making two calls per iteration (`idle2 - idle`
///   is one call's cost without the loop);
/// - `tailarr` / `crefarr`: one arrival per call instead of a full ring: an
///   empty tail-mode ring (`max_batch` = `batch`, an `out` of `batch`), and
///   per call the device writes one entry and publishes its tail
///   (`ir_nqdev_write`, not counted), then one `NqRing::drain`
///   (`ir_nq_arrive`) or one C-style poll (`ir_c_arrive`); `crawarr`: one
///   C tail poll over raw pointers (`ir_c_raw_arrive`); two passes over the
///   ring (8192 entries, one wrap).
///
/// Backends: `dmabuf` (khal-std), `static` (khal-core's `StaticDma`), `word`
/// (a minimal `DmaMemory`), `volatile` (the pre-issue-14 `DmaBuf`, unsound
/// under threads: `refs.rs`), `plain` (`DmaBuf`'s one-pass copy with plain
/// loads instead of atomics, unsound likewise: `refs.rs`).
///
/// Returns the operation count the Ir total is divided by.
fn nq_scenario(spec: &str) -> Option<u64> {
    let mut it = spec.split(':').skip(1);
    let (mode, backend, batch) = (it.next()?, it.next()?, it.next()?.parse::<u32>().ok()?);
    let bytes = RING_ENTRIES as usize * 16;
    match backend {
        "dmabuf" => {
            let buf = DmaBuf::new(bytes, 4096).ok()?;
            let p = buf.as_ptr();
            nq_run(mode, buf, p, batch)
        }
        "static" => {
            // 4096 entries x 16 bytes: the firmware backend over a static buffer.
            let buf = khal_core::static_dma!(65536)?;
            let mem = StaticDma::identity(buf);
            let p = mem.bus_addr() as usize as *const u8;
            nq_run(mode, mem, p, batch)
        }
        "word" => {
            let mem = WordRing::new(bytes);
            let p = mem.bus_addr() as usize as *const u8;
            nq_run(mode, mem, p, batch)
        }
        "volatile" => {
            let mem = VolatileRing::new(bytes);
            let p = mem.as_ptr();
            nq_run(mode, mem, p, batch)
        }
        "plain" => {
            let mem = PlainRing(VolatileRing::new(bytes));
            let p = mem.0.as_ptr();
            nq_run(mode, mem, p, batch)
        }
        _ => None,
    }
}

fn nq_run<R: DmaMemory>(mode: &str, mem: R, ring_ptr: *const u8, batch: u32) -> Option<u64> {
    if mode.ends_with("arr") {
        return nq_arrive(mode, mem, ring_ptr, batch);
    }
    let mut regs = Regs::new();
    let regs_ptr = regs.ptr();
    let mut e = bench_engine(regs_ptr)?;
    // `phasedef`: `batch` entries per call through an `out` of `batch`,
    // the ring's default `max_batch` (an independent caller's usual shape).
    let max_batch = (mode != "phasedef").then_some(batch);
    let mut ring = bench_ring(&mut e, mem, 0, RING_ENTRIES, consume_mode(mode), max_batch)?;
    write_pass(ring.memory(), 0).ok()?;
    // The device's tail: 4095 entries published (byte offset of slot 4095).
    let tail = nq_reg(regs_ptr, 0, NQ0_TAIL_OFF)?;
    // SAFETY: `tail` is a dword inside the live `regs` buffer, written
    // through the raw pointer the window also uses (no reference into the
    // window's memory is created).
    unsafe { tail.as_ptr().write_volatile((RING_ENTRIES - 1) * 16) };
    let mut out = vec![NqEntry::default(); batch as usize];
    let (got, want) = match mode {
        "phase" | "phasedef" => (ir_nq_drain(&mut ring, &mut out), RING_ENTRIES),
        "tail" => (ir_nq_drain(&mut ring, &mut out), RING_ENTRIES - 1),
        "iter" => (ir_nq_iter(&mut ring, &mut out, batch), RING_ENTRIES),
        "cref" => (
            ir_c_ref(
                e.mmio(),
                BASE,
                ring_ptr.cast::<NqEntry>(),
                RING_ENTRIES,
                &mut out,
            ),
            RING_ENTRIES - 1,
        ),
        "crawphase" | "crawtail" => {
            let mut c = C3::new(
                ring_ptr.cast::<NqEntry>(),
                tail,
                nq_reg(regs_ptr, 0, NQ0_HEAD_OFF)?,
                RING_ENTRIES,
            );
            if mode == "crawphase" {
                (ir_c_raw_phase(&mut c, &mut out), RING_ENTRIES)
            } else {
                (ir_c_raw_tail(&mut c, &mut out), RING_ENTRIES - 1)
            }
        }
        "idle" | "idle2" => {
            if ir_nq_drain(&mut ring, &mut out) != RING_ENTRIES as usize {
                return None;
            }
            if mode == "idle" {
                (ir_nq_idle(&mut ring, &mut out), 0)
            } else {
                (ir_nq_idle2(&mut ring, &mut out), 0)
            }
        }
        _ => return None,
    };
    if got != want as usize {
        eprintln!("{mode}: drained {got}, expected {want}");
        return None;
    }
    // `idle2` is divided by `N` too: the script subtracts `idle` from it to
    // get one poll's cost without the kernel's loop.
    Some(if mode.starts_with("idle") {
        N as u64
    } else {
        got as u64
    })
}

/// `nq:tailarr` / `nq:crefarr` (see [`nq_scenario`]).
fn nq_arrive<R: DmaMemory>(mode: &str, mem: R, ring_ptr: *const u8, batch: u32) -> Option<u64> {
    let mut regs = Regs::new();
    let regs_ptr = regs.ptr();
    let mut e = bench_engine(regs_ptr)?;
    let mut ring = bench_ring(&mut e, mem, 0, RING_ENTRIES, ConsumeMode::Tail, Some(batch))?;
    let mut dev = NqDev::new(nq_reg(regs_ptr, 0, NQ0_TAIL_OFF)?, RING_ENTRIES, 0);
    let mut out = vec![NqEntry::default(); batch as usize];
    let want = 2 * RING_ENTRIES as usize;
    let got = if mode == "tailarr" {
        ir_nq_arrive(&mut ring, &mut dev, &mut out, want)
    } else if mode == "crawarr" {
        let tail = nq_reg(regs_ptr, 0, NQ0_TAIL_OFF)?;
        let head = nq_reg(regs_ptr, 0, NQ0_HEAD_OFF)?;
        let mut c = C3::new(ring_ptr.cast::<NqEntry>(), tail, head, RING_ENTRIES);
        ir_c_raw_arrive(ring.memory(), &mut c, &mut dev, &mut out, want)
    } else if mode == "crefarr" {
        ir_c_arrive(
            e.mmio(),
            BASE,
            ring.memory(),
            ring_ptr.cast::<NqEntry>(),
            RING_ENTRIES,
            &mut dev,
            &mut out,
            want,
        )
    } else {
        return None;
    };
    if got != want {
        eprintln!("{mode}: drained {got}, expected {want}");
        return None;
    }
    // The last entry drained is the device's last: slot 4095 of pass 1
    // (phase bit 0), its 8192nd.
    if out[0].dword_le(0) != Some(RING_ENTRIES - 1)
        || out[0].dword_le(1) != Some(want as u32 - 1)
        || out[0].dword_le(2) != Some(1)
    {
        eprintln!("{mode}: the last entry drained is not the device's last");
        return None;
    }
    Some(got as u64)
}

/// `csr_lookup_<layout>`: `N` `csr_read`s through [`ir_csr_lookup`] of
/// the table and addresses the layout's setup builds, every one accepted.
fn csr_lookup_scenario(which: &str) -> Option<u64> {
    let n = match which {
        "csr_lookup_4" => csr_lookup_run(csr_setup::<4>(4)),
        "csr_lookup_8" => csr_lookup_run(csr_setup::<8>(8)),
        "csr_lookup_64c" => csr_lookup_run(csr_setup::<64>(64)),
        "csr_lookup_64s" => csr_lookup_run(csr_setup::<64>(64)),
        "csr_lookup_256c" => csr_lookup_run(csr_setup::<256>(256)),
        "csr_lookup_8s" => csr_lookup_run(csr_setup::<8>(8)),
        "csr_lookup_8b" => csr_lookup_run(csr_setup_layout::<8>(&CSR_IRREGULAR)),
        "csr_lookup_8m" => csr_lookup_run(csr_setup_layout::<8>(&CSR_MESH)),
        "csr_lookup_256" => csr_lookup_run(csr_setup::<256>(256)),
        _ => None,
    }?;
    (n == N).then_some(N as u64)
}

/// `N` lookups of the setup's addresses in its table: how many were accepted.
fn csr_lookup_run<const CAP: usize>(
    setup: Option<(Csr<Sink, CAP>, Vec<DeviceAddr>)>,
) -> Option<u32> {
    let (csr, addrs) = setup?;
    Some(ir_csr_lookup(&csr, &addrs))
}

fn main() -> ExitCode {
    let Some(which) = std::env::args().nth(1) else {
        return usage();
    };
    let v = if which.starts_with("v:") || which.starts_with("vidle:") {
        Some(ver::scenario(&which))
    } else if which.starts_with("k4:") || which.starts_with("k4chk:") {
        Some(chk4::scenario(&which))
    } else if ["k5eng:", "k5ch:", "k5fill:"]
        .iter()
        .any(|p| which.starts_with(p))
    {
        Some(chk5::scenario(&which))
    } else if which.starts_with("csr_lookup_") {
        Some(csr_lookup_scenario(&which))
    } else if which.starts_with("nq:") {
        Some(nq_scenario(&which))
    } else if which.starts_with("csrp:") {
        Some(csr::scenario(&which))
    } else if which.starts_with("csrfill:") {
        Some(csr::fill_scenario(&which))
    } else if which.starts_with("vcsr:") {
        Some(ver::csr_scenario(&which))
    } else if which.starts_with("vraw:") {
        Some(ver::raw_scenario(&which))
    } else if which.starts_with("c:") || which.starts_with("cidle:") {
        Some(chk::scenario(&which))
    } else if which.starts_with("ccsr:") || which.starts_with("craw:") {
        Some(chk::csr_scenario(&which))
    } else if which.starts_with("k3:")
        || which.starts_with("k3pair:")
        || which.starts_with("k3idle:")
    {
        Some(chk3::scenario(&which))
    } else if ["k3csr:", "k3raw:", "k3lin:", "k3arr:"]
        .iter()
        .any(|p| which.starts_with(p))
    {
        Some(chk3::csr_scenario(&which))
    } else {
        None
    };
    if let Some(v) = v {
        return match v {
            Some(ops) => {
                println!("ops={ops}");
                ExitCode::SUCCESS
            }
            None => ExitCode::FAILURE,
        };
    }
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
                let Some((_e, mut ring)) = ring_setup(&mut regs, mem, None) else {
                    return ExitCode::FAILURE;
                };
                ir_nq_drain(&mut ring, &mut out)
            } else {
                let Some((_e, mut ring)) =
                    ring_setup(&mut regs, WordRing::new(RING_ENTRIES as usize * 16), None)
                else {
                    return ExitCode::FAILURE;
                };
                ir_nq_drain(&mut ring, &mut out)
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
        "copy_sse" => {
            let src = vec![0x5Au8; RING_ENTRIES as usize * 16];
            let mut dst = vec![0u8; src.len()];
            ir_copy_sse(&src, &mut dst);
            if dst != src {
                return ExitCode::FAILURE;
            }
            RING_ENTRIES as u64
        }
        "raw_translate" => {
            let Some((_, addrs)) = csr_setup::<4>(4) else {
                return ExitCode::FAILURE;
            };
            black_box(ir_raw_translate(&Sink::new(), &addrs, black_box(0)));
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
