//! The second independent checker's scenarios (`khal_ir c:...`, `cidle:...`,
//! `ccsr:...`, `craw:...`): its own kernels and references, each measured
//! in the same bench run as the khal figure it is compared with.
//!
//! NQ: `c:<consumer>:<backend>:<ring entries>:<out len>:<k>`: rounds until
//! 4096 entries were drained; per round the device writes `k` entries and
//! publishes the tail (`ir_chkdev_write`, excluded from the count by a
//! second `--toggle-collect=*ir_chkdev_*`), then the consumer makes ONE call.
//! A ring of 8 entries wraps every 8 entries (512 wraps). Consumers: `phase` /
//! `tail` (`NqRing::drain`, default `max_batch`), `iter` (`drain_iter` of
//! `out len` items), and two C-style references written here: `ctail` (one
//! tail read, masked copy, one head write) and `cphase` (what a C driver in
//! phase mode does: test each entry's phase bit, copy, flip the expected
//! phase at the wrap, one head write; no register read). `ops` = entries.
//!
//! Idle: `cidle:<consumer>:<backend>:<ring>:<filled>:<1|2>[:<out len, 1>]`: `filled`
//! entries arrive and are drained ONE per call (so with `filled == ring` the
//! head has just wrapped and the expected phase flipped), then `N` loop
//! iterations of 1 or 2 polls that find nothing; `(2 - 1)` is one poll.
//!
//! CSR: `ccsr:<layout>:<addresses>[:s]`: `csr_write` of `N` addresses through
//! `RegionTable<_, CellIndex>` (`:s`: the default binary search) over a
//! `NullMmio`; `craw:<layout>:<addresses>`: the raw add over the same
//! addresses. Addresses: `u` uniform over the windows, `h<j>` 90% in window
//! `j`, `m<pct>` that percentage outside every window (the error path).

use std::hint::black_box;

use khal_core::csr::{Csr, CsrRegion, RegionTable};
use khal_core::dma::{DmaMemory, StaticDma};
use khal_core::notific::{ConsumeMode, NqEntry, NqRing};
use khal_core::{DeviceAddr, Mmio};
use khal_std::DmaBuf;

use crate::kernels::*;
use crate::nqsetup::{bench_engine, bench_ring, consume_mode, nq_reg};

/// Entries drained per NQ scenario (whole rounds of `k`: 4095 at 3).
const TOTAL: usize = 4096;

/// The device writes `k` entries and publishes the tail (not counted): the
/// shared device (`kernels::NqDev`, tag 0x0A00: dword 0 the slot, dword 2
/// the pass), entered here, beside this checker's kernels.
#[inline(never)]
pub fn ir_chkdev_write<R: DmaMemory>(mem: &R, dev: &mut NqDev, k: u32) {
    dev.write(mem, k);
}

/// One khal drain per round.
#[inline(never)]
pub fn ir_chk_drain<M: Mmio, R: DmaMemory>(
    ring: &mut NqRing<R, M>,
    dev: &mut NqDev,
    out: &mut [NqEntry],
    k: u32,
    want: usize,
) -> usize {
    let mut total = 0;
    let mut d = NoDelay;
    while total < want {
        ir_chkdev_write(ring.memory(), dev, k);
        match ring.drain(&mut d, out) {
            Ok(n) if n > 0 => total += n,
            _ => return usize::MAX,
        }
    }
    total
}

/// One `drain_iter` call per round, every item copied into `out`.
#[inline(never)]
pub fn ir_chk_iter<M: Mmio, R: DmaMemory>(
    ring: &mut NqRing<R, M>,
    dev: &mut NqDev,
    out: &mut [NqEntry],
    k: u32,
    want: usize,
) -> usize {
    let mut total = 0;
    let mut d = NoDelay;
    while total < want {
        ir_chkdev_write(ring.memory(), dev, k);
        let Ok(mut it) = ring.drain_iter(&mut d, out.len() as u32) else {
            return usize::MAX;
        };
        let mut n = 0;
        for slot in out.iter_mut() {
            match it.next() {
                Some(Ok(e)) => *slot = e,
                _ => break,
            }
            n += 1;
        }
        if it.finish().is_err() || n == 0 {
            return usize::MAX;
        }
        total += n;
    }
    total
}

/// The C driver's state: head, expected phase (phase mode), ring.
pub struct CState {
    ring: *const NqEntry,
    mask: u32,
    head: u32,
    phase: u8,
}

/// C-style tail-mode poll: tail read, masked copy, one head write.
#[inline(always)]
fn c_tail<M: Mmio>(mmio: &M, s: &mut CState, out: &mut [NqEntry]) -> usize {
    let Ok(tail) = mmio.read32(BASE.add(NQ0_TAIL_OFF)) else {
        return 0;
    };
    let n = (((tail / 16).wrapping_sub(s.head) & s.mask) as usize).min(out.len());
    if n == 0 {
        return 0;
    }
    for (i, o) in out[..n].iter_mut().enumerate() {
        // SAFETY: the index is masked below the ring's entry count.
        *o = unsafe { *s.ring.add(((s.head + i as u32) & s.mask) as usize) };
    }
    s.head = (s.head + n as u32) & s.mask;
    let _ = mmio.write32(BASE.add(NQ0_HEAD_OFF), s.head * 16);
    n
}

/// C-style phase-mode poll: the phase byte of the head entry (volatile),
/// then the copy, per entry; the expected phase flips at the wrap; one head
/// write per non-empty call; no register read.
#[inline(always)]
fn c_phase<M: Mmio>(mmio: &M, s: &mut CState, out: &mut [NqEntry]) -> usize {
    let mut n = 0;
    while n < out.len() {
        // SAFETY: head < ring entries; byte 3 of a live entry.
        let p = unsafe { s.ring.add(s.head as usize).cast::<u8>().add(3) };
        // SAFETY: as above (a volatile read: the device writes the ring).
        if unsafe { p.read_volatile() } & 0x80 != s.phase {
            break;
        }
        std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::Acquire);
        // SAFETY: head < ring entries.
        out[n] = unsafe { *s.ring.add(s.head as usize) };
        n += 1;
        s.head = (s.head + 1) & s.mask;
        if s.head == 0 {
            s.phase ^= 0x80;
        }
    }
    if n > 0 {
        let _ = mmio.write32(BASE.add(NQ0_HEAD_OFF), s.head * 16);
    }
    n
}

/// One C-style poll per round (`phase`: the phase-bit driver, else tail).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn ir_chk_cref<M: Mmio, R: DmaMemory>(
    mmio: &M,
    mem: &R,
    s: &mut CState,
    phase: bool,
    dev: &mut NqDev,
    out: &mut [NqEntry],
    k: u32,
    want: usize,
) -> usize {
    let mut total = 0;
    while total < want {
        ir_chkdev_write(mem, dev, k);
        let n = if phase {
            c_phase(mmio, s, out)
        } else {
            c_tail(mmio, s, out)
        };
        if n == 0 {
            return usize::MAX;
        }
        total += n;
    }
    total
}

khal_idle_kernel!(
    /// `N` iterations of `polls` khal idle polls (nothing new).
    ir_chk_idle
);

/// `N` iterations of `polls` C-style idle polls.
#[inline(never)]
pub fn ir_chk_cidle<M: Mmio>(
    mmio: &M,
    s: &mut CState,
    phase: bool,
    out: &mut [NqEntry],
    two: bool,
) -> usize {
    let mut total = 0;
    for _ in 0..N {
        let polls = if two { 2 } else { 1 };
        for _ in 0..polls {
            total += if phase {
                c_phase(mmio, s, out)
            } else {
                c_tail(mmio, s, out)
            };
        }
    }
    total
}

/// Dispatch `c:` and `cidle:` on the backend.
pub fn scenario(spec: &str) -> Option<u64> {
    let f: Vec<&str> = spec.split(':').collect();
    match *f.get(2)? {
        "dmabuf" => nq(&f, DmaBuf::new(65536, 4096).ok()?),
        "static" => nq(&f, StaticDma::identity(khal_core::static_dma!(65536)?)),
        _ => None,
    }
}

fn nq<R: DmaMemory>(f: &[&str], mem: R) -> Option<u64> {
    let num = |i: usize| f.get(i).and_then(|s| s.parse::<u32>().ok());
    let idle = f[0] == "cidle";
    let consumer = f[1];
    let ring_n = num(3)?;
    let (out_n, k) = if idle {
        (num(6).unwrap_or(1), 1)
    } else {
        (num(4)?, num(5)?)
    };
    let ring_ptr = mem.bus_addr() as usize as *const NqEntry;
    let mut regs = Regs::new();
    let regs_ptr = regs.ptr();
    let mut e = bench_engine(regs_ptr)?;
    let tail_mode = consume_mode(consumer) == ConsumeMode::Tail;
    let mut ring = bench_ring(&mut e, mem, 0, ring_n, consume_mode(consumer), None)?;
    let mut dev = NqDev::new(nq_reg(regs_ptr, 0, NQ0_TAIL_OFF)?, ring_n, 0x0A00);
    let mut out = vec![NqEntry::default(); out_n as usize];
    let mut s = CState {
        ring: ring_ptr,
        mask: ring_n - 1,
        head: 0,
        phase: 0x80,
    };
    let cstyle = consumer.starts_with('c');
    if idle {
        let filled = num(4)?;
        let two = f.get(5) == Some(&"2");
        let mut d = NoDelay;
        for _ in 0..filled {
            // Set-up: the device's write is not a kernel's (not counted).
            dev.write(ring.memory(), 1);
            let n = if cstyle {
                if tail_mode {
                    c_tail(e.mmio(), &mut s, &mut out)
                } else {
                    c_phase(e.mmio(), &mut s, &mut out)
                }
            } else {
                ring.drain(&mut d, &mut out).ok()?
            };
            if n != 1 {
                return None;
            }
        }
        let got = if cstyle {
            ir_chk_cidle(e.mmio(), &mut s, !tail_mode, &mut out, two)
        } else {
            ir_chk_idle(&mut ring, &mut out, two)
        };
        return (black_box(got) == 0).then_some(N as u64);
    }
    // Whole rounds of `k` (at 3 per call: 4095 entries).
    let want = TOTAL / k as usize * k as usize;
    let got = match consumer {
        "phase" | "tail" => ir_chk_drain(&mut ring, &mut dev, &mut out, k, want),
        "iter" => ir_chk_iter(&mut ring, &mut dev, &mut out, k, want),
        "cphase" | "ctail" => ir_chk_cref(
            e.mmio(),
            ring.memory(),
            &mut s,
            !tail_mode,
            &mut dev,
            &mut out,
            k,
            want,
        ),
        _ => return None,
    };
    if got != want {
        eprintln!("{consumer}: drained {got}, wanted {want}");
        return None;
    }
    // What was drained is what the device wrote last (slot and pass).
    let last = want as u32 - 1;
    let first = (last % ring_n)
        | 0x0A00
        | if (last / ring_n) & 1 == 0 {
            0x8000_0000
        } else {
            0
        };
    let raw = out[(k as usize - 1).min(out.len() - 1)].bytes();
    if u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]) != first
        || u32::from_le_bytes([raw[8], raw[9], raw[10], raw[11]]) != last / ring_n
    {
        eprintln!("{consumer}: the last entry drained is not the device's last");
        return None;
    }
    black_box(&out);
    Some(got as u64)
}

// ---------------------------------------------------------------- CSR

/// Windows: (start above 0x40_0000_0000, length), identity mapped.
pub fn layout(name: &str) -> Option<Vec<(u64, u64)>> {
    Some(match name {
        // Three 64-byte windows inside 0x140 bytes, and 5 spread ones (8).
        "c3" => vec![
            (0x0, 0x1000),
            (0x4000_0000, 0x1000),
            (0x8000_0000, 0x1000),
            (0xC000_0000, 0x1000),
            (0x1_0000_0000, 0x40),
            (0x1_0000_0040, 0x40),
            (0x1_0000_0100, 0x40),
            (0x7_0000_0000, 0x10_0000),
        ],
        // 8 windows of 4 KiB at 0 and 2^16, 2^20, ... 2^40 (powers of two apart).
        "p8" => (0..8u64)
            .map(|i| (if i == 0 { 0 } else { 1u64 << (12 + 4 * i) }, 0x1000))
            .collect(),
        // 16 windows of 4 KiB to 1 MiB with uneven gaps (hot one: `h<j>`).
        "g16" => (0..16u64)
            .map(|i| {
                (
                    i * 0x400_0000 + (i * 0x7_1000) % 0x100_0000,
                    0x1000 << (i % 9),
                )
            })
            .collect(),
        // 8 windows of 4 KiB, 64 KiB apart (misses fall in the gaps).
        "m8" => (0..8u64).map(|i| (i * 0x1_0000, 0x1000)).collect(),
        _ => return None,
    })
}

pub const CBASE: u64 = 0x40_0000_0000;

/// `N` addresses (a fixed LCG): see the module docs for `mode`.
fn addrs(l: &[(u64, u64)], mode: &str) -> Option<Vec<DeviceAddr>> {
    let hot = mode
        .strip_prefix('h')
        .map(|s| s.parse::<usize>())
        .transpose()
        .ok()?;
    let miss = mode
        .strip_prefix('m')
        .map(|s| s.parse::<u64>())
        .transpose()
        .ok()?;
    if mode != "u" && hot.is_none() && miss.is_none() {
        return None;
    }
    let inside = |a: u64| l.iter().any(|&(s, n)| a >= CBASE + s && a < CBASE + s + n);
    let mut x = 0x1234_5678_9ABCu64;
    let mut v = Vec::with_capacity(N as usize);
    while v.len() < N as usize {
        x = x
            .wrapping_mul(0x5851_F42D_4C95_7F2D)
            .wrapping_add(0x14057B7EF767814F);
        let r = x >> 24;
        let w = match hot {
            Some(j) if !r.is_multiple_of(10) => j,
            _ => ((r >> 8) % l.len() as u64) as usize,
        };
        let (s, n) = *l.get(w)?;
        if miss.is_some_and(|p| (r >> 20) % 100 < p) {
            // Just past the window (or below it): a valid-looking miss.
            let a = CBASE + s + n + ((r >> 4) % 16) * 4;
            if !inside(a) {
                v.push(DeviceAddr(a));
            }
            continue;
        }
        v.push(DeviceAddr(CBASE + s + ((r >> 4) % (n / 4)) * 4));
    }
    Some(v)
}

/// `csr_write` of every address (a store at the translated address);
/// returns how many were accepted.
#[inline(never)]
pub fn ir_chk_csr<const CAP: usize>(csr: &Csr<Sink, CAP>, a: &[DeviceAddr]) -> u32 {
    let mut ok = 0u32;
    for (i, &x) in a.iter().enumerate() {
        ok += csr.csr_write(x, i as u32).is_ok() as u32;
    }
    ok
}

/// The raw add over the same addresses and the same store (the
/// reference).
#[inline(never)]
pub fn ir_chk_raw(sink: &Sink, a: &[DeviceAddr], base: u64) {
    for (i, &x) in a.iter().enumerate() {
        sink.store(x.get().wrapping_sub(base), i as u32);
    }
}

fn csr_run<const CAP: usize>(l: &[(u64, u64)], a: &[DeviceAddr]) -> Option<u64> {
    let mut t = RegionTable::<CAP>::new();
    // Inserted in reverse order (not sorted).
    for &(s, n) in l.iter().rev() {
        t.insert(
            CsrRegion::new(
                DeviceAddr(CBASE + s),
                DeviceAddr(CBASE + s + n),
                DeviceAddr(s),
                0,
            )
            .ok()?,
        )
        .ok()?;
    }
    let want = a
        .iter()
        .filter(|x| {
            l.iter()
                .any(|&(s, n)| x.get() >= CBASE + s && x.get() < CBASE + s + n)
        })
        .count() as u32;
    let csr = Csr::new(Sink::new(), t);
    let got = ir_chk_csr(&csr, a);
    if got != want {
        eprintln!("csr: {got} accepted, {want} inside a window");
        return None;
    }
    Some(a.len() as u64)
}

/// `ccsr:` and `craw:`.
pub fn csr_scenario(spec: &str) -> Option<u64> {
    let f: Vec<&str> = spec.split(':').collect();
    let l = layout(f.get(1)?)?;
    let a = addrs(&l, f.get(2)?)?;
    if f[0] == "craw" {
        ir_chk_raw(&Sink::new(), &a, black_box(CBASE));
        return Some(a.len() as u64);
    }
    // `:s` the binary search, `:d` the default lookup (`CellIndex<N>`, 8 N
    // cells), neither `CellIndex` (128 cells).
    match (l.len(), f.get(3).copied()) {
        (8, None) => csr_run::<8>(&l, &a),
        (16, None) => csr_run::<16>(&l, &a),
        (8, Some("s")) => csr_run::<8>(&l, &a),
        (16, Some("s")) => csr_run::<16>(&l, &a),
        (8, Some("d")) => csr_run::<8>(&l, &a),
        (16, Some("d")) => csr_run::<16>(&l, &a),
        _ => None,
    }
}
