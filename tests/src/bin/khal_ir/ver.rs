//! The independent checker's scenarios (`khal_ir v:...` and `khal_ir vcsr:...`):
//! cases a skeptical reviewer runs against docs/PERFORMANCE.md's claims.
//!
//! NQ: `v:<consumer>:<backend>:<ring entries>:<out len>:<max_batch, 0 = default>:<k>:<idle>`
//! runs rounds until 4096 entries were drained: per round the device writes
//! `k` new entries and publishes the tail (`ir_verdev_write`, excluded from
//! the count by a second `--toggle-collect=*ir_verdev*`), then the consumer
//! makes one call, then `idle` further calls that find nothing. Consumers:
//! `phase`, `tail` (`NqRing::drain`), `iter` (`drain_iter`, `out` items), `cref`
//! (one C-style poll: tail read, masked copy, head write). `ops` = entries.
//!
//! Idle: `vidle:<backend>:<ring>:<out len>:<filled>`: the device writes
//! `filled` entries, they are drained, then `N` polls with nothing new
//! (the side-by-side run's own `ir_nq_idle` / `ir_nq_idle2` kernels, loop included). `filled == ring`: right after the wrap.
//!
//! CSR: `vcsr:<layout>` (layouts below), `csr_read` of `N` addresses through
//! a `RegionTable<_, CellIndex>` (`:s` at the end: the default binary search).

use std::hint::black_box;

use khal_core::csr::{Csr, CsrRegion, RegionTable};
use khal_core::dma::{DmaMemory, StaticDma};
use khal_core::notific::{NqEntry, NqRing};
use khal_core::{DeviceAddr, Mmio};
use khal_std::DmaBuf;

use crate::kernels::*;
use crate::lcg::Lcg;
use crate::nqsetup::{bench_engine, bench_ring, consume_mode, nq_reg};

/// Write `k` entries at the device's next slots (phase = pass parity) and
/// publish the tail: the shared device (`kernels::NqDev`), entered here,
/// beside this checker's kernels. Excluded from the count (second toggle).
#[inline(never)]
pub fn ir_verdev_write<R: DmaMemory>(mem: &R, dev: &mut NqDev, k: u32) {
    dev.write(mem, k);
}

/// Rounds through `NqRing::drain` (phase or tail mode).
#[inline(never)]
pub fn ir_ver_drain<M: Mmio, R: DmaMemory>(
    ring: &mut NqRing<R, M>,
    dev: &mut NqDev,
    out: &mut [NqEntry],
    k: u32,
    idle: u32,
    total_want: usize,
) -> usize {
    let mut total = 0;
    let mut d = NoDelay;
    while total < total_want {
        ir_verdev_write(ring.memory(), dev, k);
        match ring.drain(&mut d, out) {
            Ok(n) => total += n,
            Err(_) => return usize::MAX,
        }
        for _ in 0..idle {
            total += ring.drain(&mut d, out).unwrap_or(usize::MAX / 2);
        }
    }
    total
}

/// Rounds through `NqRing::drain_iter` (at most `out.len()` items per call).
#[inline(never)]
pub fn ir_ver_iter<M: Mmio, R: DmaMemory>(
    ring: &mut NqRing<R, M>,
    dev: &mut NqDev,
    out: &mut [NqEntry],
    k: u32,
    idle: u32,
    total_want: usize,
) -> usize {
    let mut total = 0;
    let mut d = NoDelay;
    let max = out.len() as u32;
    while total < total_want {
        ir_verdev_write(ring.memory(), dev, k);
        total += iter_once(ring, &mut d, out, max);
        for _ in 0..idle {
            total += iter_once(ring, &mut d, out, max);
        }
    }
    total
}

/// One `drain_iter` call, every item copied into `out` (a plain function: a
/// closure inside the kernel would carry the kernel's name and toggle the count).
#[inline(always)]
fn iter_once<M: Mmio, R: DmaMemory>(
    ring: &mut NqRing<R, M>,
    d: &mut NoDelay,
    out: &mut [NqEntry],
    max: u32,
) -> usize {
    let Ok(mut it) = ring.drain_iter(d, max) else {
        return usize::MAX / 2;
    };
    let mut n = 0;
    for (slot, e) in out.iter_mut().zip(it.by_ref()) {
        match e {
            Ok(e) => *slot = e,
            Err(_) => break,
        }
        n += 1;
    }
    if it.finish().is_err() {
        return usize::MAX / 2;
    }
    n
}

/// One C-style poll: tail read, masked plain copy, one head write if any.
#[inline(always)]
fn c_poll<M: Mmio>(
    mmio: &M,
    ring: *const NqEntry,
    mask: u32,
    head: &mut u32,
    out: &mut [NqEntry],
) -> usize {
    let Ok(tail) = mmio.read32(BASE.add(NQ0_TAIL_OFF)) else {
        return 0;
    };
    let avail = (tail / 16).wrapping_sub(*head) & mask;
    let n = (avail as usize).min(out.len());
    if n == 0 {
        return 0;
    }
    for (k, slot) in out.iter_mut().take(n).enumerate() {
        let idx = (*head + k as u32) & mask;
        // SAFETY: idx < cap, `ring` points to cap live entries.
        *slot = unsafe { ring.add(idx as usize).read_unaligned() };
    }
    *head = (*head + n as u32) & mask;
    let _ = mmio.write32(BASE.add(NQ0_HEAD_OFF), *head * 16);
    n
}

/// Rounds through the C-style poll (same pattern as [`ir_ver_drain`]).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn ir_ver_cref<M: Mmio, R: DmaMemory>(
    mmio: &M,
    mem: &R,
    ring: *const NqEntry,
    cap: u32,
    dev: &mut NqDev,
    out: &mut [NqEntry],
    k: u32,
    idle: u32,
    total_want: usize,
) -> usize {
    let mask = cap - 1;
    let mut head = 0u32;
    let mut total = 0;
    while total < total_want {
        ir_verdev_write(mem, dev, k);
        total += c_poll(mmio, ring, mask, &mut head, out);
        for _ in 0..idle {
            total += c_poll(mmio, ring, mask, &mut head, out);
        }
    }
    total
}

const TOTAL: usize = 4096;

pub fn scenario(spec: &str) -> Option<u64> {
    let f: Vec<&str> = spec.split(':').collect();
    let backend = *f.get(if f[0] == "vidle" { 1 } else { 2 })?;
    match backend {
        "dmabuf" => run(&f, DmaBuf::new(65536, 4096).ok()?),
        "static" => run(&f, StaticDma::identity(khal_core::static_dma!(65536)?)),
        _ => None,
    }
}

fn run<R: DmaMemory>(f: &[&str], mem: R) -> Option<u64> {
    let num = |i: usize| f.get(i).and_then(|s| s.parse::<u32>().ok());
    let idle_case = f[0] == "vidle";
    let (consumer, ring_n, out_n, mb, k, idle) = if idle_case {
        ("phase", num(2)?, num(3)?, 0, num(4)?, 0)
    } else {
        (f[1], num(3)?, num(4)?, num(5)?, num(6)?, num(7)?)
    };
    let ring_ptr = mem.bus_addr() as usize as *const NqEntry;
    let mut regs = Regs::new();
    let regs_ptr = regs.ptr();
    let mut e = bench_engine(regs_ptr)?;
    let max_batch = (mb != 0).then_some(mb);
    let mut ring = bench_ring(&mut e, mem, 0, ring_n, consume_mode(consumer), max_batch)?;
    let mut dev = NqDev::new(nq_reg(regs_ptr, 0, NQ0_TAIL_OFF)?, ring_n, 0);
    let mut out = vec![NqEntry::default(); out_n as usize];
    if idle_case {
        // Set-up: the device's write is not a kernel's (not counted).
        dev.write(ring.memory(), k);
        let mut got = 0;
        let mut d = NoDelay;
        while got < k as usize {
            let n = ring.drain(&mut d, &mut out).ok()?;
            if n == 0 {
                return None;
            }
            got += n;
        }
        let two = f.get(5) == Some(&"2");
        let n = if two {
            ir_nq_idle2(&mut ring, &mut out)
        } else {
            ir_nq_idle(&mut ring, &mut out)
        };
        if black_box(n) != 0 {
            return None;
        }
        return Some(N as u64);
    }
    let got = match consumer {
        "phase" | "tail" => ir_ver_drain(&mut ring, &mut dev, &mut out, k, idle, TOTAL),
        "iter" => ir_ver_iter(&mut ring, &mut dev, &mut out, k, idle, TOTAL),
        "cref" => {
            let mem = ring.memory();
            ir_ver_cref(
                e.mmio(),
                mem,
                ring_ptr,
                ring_n,
                &mut dev,
                &mut out,
                k,
                idle,
                TOTAL,
            )
        }
        _ => return None,
    };
    // Every round drains what the device wrote (k <= out, or over several idle calls).
    if got < TOTAL || got > TOTAL + k as usize {
        eprintln!("{consumer}: drained {got}, wanted {TOTAL}");
        return None;
    }
    // The copies land in `out`, which stays observable (not elided).
    black_box(&out);
    Some(got as u64)
}

// ---------------------------------------------------------------- CSR

/// Layouts: (start offset from 0x20_0000_0000, length, device addr).
pub fn layout(name: &str) -> Option<Vec<(u64, u64, u64)>> {
    Some(match name {
        // 5 windows, random sizes and gaps.
        "r5" => vec![
            (0x0, 0x2400, 0x0),
            (0x9_3000, 0x1_8000, 0x10_0000),
            (0x1A_0000, 0x40, 0x20_0000),
            (0x1A_0040, 0x7_0000, 0x30_0000),
            (0x93_0000, 0x100, 0x40_0000),
        ],
        // 6 windows, random.
        "r6" => vec![
            (0x0, 0x800, 0x0),
            (0x1234_0000, 0x4_0000, 0x10_0000),
            (0x1238_0000, 0x4_0000, 0x20_0000),
            (0x5000_0000, 0x20, 0x30_0000),
            (0x5000_1000, 0x2_0000, 0x40_0000),
            (0xF_0000_0000, 0x10_0000, 0x50_0000),
        ],
        // 7 windows, 4 KiB each, starts a power of two apart (1,2,4,...64 MiB).
        "p7" => (0..7u64)
            .map(|i| {
                (
                    if i == 0 { 0 } else { 0x10_0000u64 << (i - 1) },
                    0x1000,
                    i * 0x1000,
                )
            })
            .collect(),
        // 8 windows all 1 KiB at stride 1 KiB (adjacent, tiny).
        "t8" => (0..8u64).map(|i| (i * 0x400, 0x400, i * 0x400)).collect(),
        // 8 windows: 7 tiny (64 B) + one huge; addresses mostly in the tiny ones.
        "h8" => {
            let mut v: Vec<_> = (0..7u64).map(|i| (i * 0x4_0000, 0x40, i * 0x40)).collect();
            v.push((0x100_0000, 0x4000_0000, 0x1000));
            v
        }
        // 16 / 17 windows, 64 KiB 1 MiB apart with a jitter.
        "n16" | "n17" => {
            let n = if name == "n16" { 16 } else { 17 };
            (0..n as u64)
                .map(|i| {
                    (
                        i * 0x10_0000 + (i * i * 0x1_3000) % 0x8_0000,
                        0x1_0000,
                        i * 0x1_0000,
                    )
                })
                .collect()
        }
        // 16 windows of random sizes spread over 4 GiB.
        "s16" => (0..16u64)
            .map(|i| {
                let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
                (
                    i * 0x1000_0000 + (x & 0xFF_F000),
                    0x100 << (x % 12),
                    i * 0x100_0000,
                )
            })
            .collect(),
        _ => return None,
    })
}

/// `N` addresses: `conc` = Some(j): 90% in window j, else uniform over windows.
fn addrs(l: &[(u64, u64, u64)], conc: Option<usize>) -> Vec<DeviceAddr> {
    const B: u64 = 0x20_0000_0000;
    let mut rng = Lcg(0xDEAD_BEEF);
    (0..N)
        .map(|_| {
            let x = rng.step();
            let w = match conc {
                Some(j) if !(x >> 20).is_multiple_of(10) => j,
                _ => ((x >> 33) % l.len() as u64) as usize,
            };
            let (s, len, d) = l[w];
            let o = d.wrapping_neg() & 3;
            let off = o + ((x >> 13) % ((len - o) / 4)) * 4;
            DeviceAddr(B + s + off)
        })
        .collect()
}

fn csr_with<const CAP: usize>(l: &[(u64, u64, u64)], conc: Option<usize>) -> Option<u64> {
    const B: u64 = 0x20_0000_0000;
    let mut t = RegionTable::<CAP>::new();
    for k in 0..l.len() {
        let (s, len, d) = l[(k * stride(l.len()) + 3) % l.len()];
        t.insert(
            CsrRegion::new(DeviceAddr(B + s), DeviceAddr(B + s + len), DeviceAddr(d), 0).ok()?,
        )
        .ok()?;
    }
    if (0..l.len())
        .map(|k| (k * stride(l.len()) + 3) % l.len())
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        != l.len()
    {
        eprintln!("insert order does not cover the layout");
        return None;
    }
    let a = addrs(l, conc);
    let csr = Csr::new(Sink::new(), t);
    if ir_csr_lookup(&csr, &a) != N {
        eprintln!("not all addresses valid");
        return None;
    }
    Some(N as u64)
}

/// `vcsr:<layout>[:<conc window>][:cap][:s]`: through the cell index, or
/// with `:s` the binary search (the default lookup).
pub fn csr_scenario(spec: &str) -> Option<u64> {
    let f: Vec<&str> = spec.split(':').collect();
    let l = layout(f.get(1)?)?;
    let conc = f.get(2).and_then(|s| s.parse::<usize>().ok());
    let cap = f
        .get(3)
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(l.len());
    if f.get(4) == Some(&"s") {
        return match cap {
            6 => csr_with::<6>(&l, conc),
            8 => csr_with::<8>(&l, conc),
            16 => csr_with::<16>(&l, conc),
            17 => csr_with::<17>(&l, conc),
            _ => None,
        };
    }
    match cap {
        5 => csr_with::<5>(&l, conc),
        6 => csr_with::<6>(&l, conc),
        7 => csr_with::<7>(&l, conc),
        8 => csr_with::<8>(&l, conc),
        16 => csr_with::<16>(&l, conc),
        17 => csr_with::<17>(&l, conc),
        32 => csr_with::<32>(&l, conc),
        _ => None,
    }
}

/// raw add reference over the layout's addresses.
pub fn raw_scenario(spec: &str) -> Option<u64> {
    let f: Vec<&str> = spec.split(':').collect();
    let l = layout(f.get(1)?)?;
    let conc = f.get(2).and_then(|s| s.parse::<usize>().ok());
    let a = addrs(&l, conc);
    black_box(ir_raw_translate(&Sink::new(), &a, black_box(0)));
    Some(N as u64)
}

/// An insertion stride coprime with `n` (a shuffled insert order).
fn stride(n: usize) -> usize {
    if n.is_multiple_of(7) {
        5
    } else {
        7
    }
}
