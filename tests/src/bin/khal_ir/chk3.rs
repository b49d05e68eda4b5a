//! The third independent checker's scenarios (`khal_ir k3:...`, `k3pair:...`,
//! `k3idle:...`, `k3csr:...`, `k3raw:...`, `k3lin:...`, `k3arr:...`): its own
//! kernels and C-style references, each measured in the same bench run as
//! the khal figure it is compared with (`scripts/bench.sh`,
//! `checker_cases.third`).
//!
//! NQ: `k3:<consumer>:<backend>:<ring entries>:<out len>:<pattern>`: per poll
//! the device writes the pattern's next count of entries (0 included) and
//! publishes the tail (`ir_k3dev_write`, excluded from the count by a second
//! `--toggle-collect=*ir_k3dev_*`), then the consumer makes ONE call.
//! Pattern `b`: bursty arrivals, 0, 0, 3, 0, 1, 5, then a fixed LCG over
//! {0 ×6, 1 ×3, 2 ×2, 3 ×2, 5, 8, 12} (mean 2.4 per poll), 1800 polls, so the
//! empty polls are part of the cost; a number `k`: `k` per poll until 4096
//! entries. `ops` = entries drained (every consumer drains the same ones:
//! each takes `min(pending, out len)` per call). Consumers: `phase` / `tail`
//! (`NqRing::drain`, the ring's default `max_batch`), `iter` (`drain_iter`
//! of `out len` items, each copied out), and two C-style references written
//! here as a C firmware engineer writes them, the registers through raw
//! volatile pointers (as `writel` / `readl`; the earlier references went
//! through khal's `Mmio` window and paid its address check): `ctail` (one
//! tail read, `(tail/16 - head) & mask` entries, a plain struct copy each, one
//! head write) and `cphase` (per entry: a volatile load of the first dword,
//! its bit 31 against the expected phase, a compiler fence, a plain struct
//! copy, the head incremented and the phase flipped at the wrap; one head
//! write per non-empty call). What khal checks that they do not: the entry
//! bounds (every copy is a checked offset into the `DmaMemory`), the checked
//! head slot, in tail mode the tail's alignment / range / direction and the
//! arrival of the last entry's phase; the C phase poll trusts the ring size.
//!
//! `k3pair:<consumer>:<backend>:<ring>:<out>:<pattern>`: two rings (NQ 0 and
//! NQ 1 of one engine) polled alternately, the device writing the pattern to
//! ring 0 and the pattern shifted by 7 polls to ring 1; `ops` = both rings'
//! entries.
//!
//! `k3idle:<consumer>:<backend>:<ring>:<1|2>`: a whole pass arrives and is
//! drained one entry per call (the head has just wrapped), then `N`
//! iterations of 1 or 2 polls that find nothing: `(2) - (1)` is one poll.
//!
//! CSR: `k3csr:<layout>:<addresses>` `csr_read` through the default
//! `RegionTable<N>` (the cell index since the default changed, the binary
//! search before; capacity = the layout's windows, or
//! 4 for `fw2`, as the firmware declares it) over a backend whose access is
//! one volatile load from a 64 KiB buffer at the translated address;
//! `k3raw:` the raw add over the same addresses and the same load;
//! `k3lin:` a C lookup (a linear scan of `{start, end, device_addr}`, `start
//! <= p <= end - 4`, [000 §1]; no alignment check: khal refuses a
//! misaligned translation, the C code does not). Addresses: `u` uniform over
//! the windows, `z` uneven (geometric: the middle window about half of them,
//! each further one half the last), `miss` all outside every window (the
//! refused access: `Error::NoRegion`).
//!
//! `k3arr:<khal|c|raw>:<layout>`: `csr_write_array` of 8 consecutive dwords
//! in one window (the window by the `z` weights) per call, `N / 8` calls;
//! `c`: the C version (one linear-scan lookup of `ptrs[0]`, every address
//! checked against that region, then the 8 writes [000 §1]); `raw`: the 8
//! writes at `p - delta`. `ops` = registers written.

use std::hint::black_box;
use std::ptr::NonNull;

use khal_core::csr::{Csr, CsrRegion, RegionTable};
use khal_core::dma::{DmaMemory, StaticDma};
use khal_core::notific::{ConsumeMode, NotificEngine, NqEntry, NqRing};
use khal_core::{DeviceAddr, Mmio};
use khal_std::DmaBuf;

use crate::craw::{c_phase, c_tail, C3};
use crate::kernels::*;
use crate::lcg::Lcg;
use crate::nqsetup::{bench_engine, bench_ring, consume_mode, nq_reg, Win};

/// Entries of the `k`-per-poll scenarios (whole rounds of `k`).
const TOTAL: usize = 4096;

/// Polls of the bursty pattern.
const BURST_POLLS: usize = 1800;

/// The per-poll arrivals: `b` (bursty, see the module docs) or `k` per poll.
fn pattern(spec: &str) -> Option<Vec<u32>> {
    if spec == "b" {
        const TABLE: [u32; 16] = [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 5, 8, 12];
        let mut v = vec![0, 0, 3, 0, 1, 5];
        let mut x = Lcg(0x2545_F491_4F6C_DD1D);
        while v.len() < BURST_POLLS {
            v.push(TABLE[(x.step() >> 60) as usize]);
        }
        return Some(v);
    }
    let k = spec.parse::<u32>().ok().filter(|&k| k > 0)?;
    Some(vec![k; TOTAL / k as usize])
}

/// What a consumer taking `min(pending, out)` per poll drains in all, and
/// the most entries ever pending (must stay below the ring's capacity, or
/// the device would overwrite unconsumed entries).
fn simulate(pat: &[u32], out: u32) -> (usize, u32) {
    let (mut pending, mut total, mut peak) = (0u32, 0usize, 0u32);
    for &k in pat {
        pending += k;
        peak = peak.max(pending);
        let n = pending.min(out);
        pending -= n;
        total += n as usize;
    }
    (total, peak)
}

/// The device writes `k` entries (dword 0: slot | 0x5100, phase bit 31 = the
/// pass's parity, 1 on the first pass [FACTS §11]; dword 1: a sequence
/// number) and publishes the tail: the shared device (`kernels::NqDev`),
/// entered here, beside this checker's kernels. Not counted (second toggle).
#[inline(never)]
pub fn ir_k3dev_write<R: DmaMemory>(mem: &R, dev: &mut NqDev, k: u32) {
    dev.write(mem, k);
}

/// One khal `drain` per poll.
#[inline(never)]
pub fn ir_k3_drain<M: Mmio, R: DmaMemory>(
    ring: &mut NqRing<R, M>,
    dev: &mut NqDev,
    out: &mut [NqEntry],
    pat: &[u32],
) -> usize {
    let mut total = 0;
    let mut d = NoDelay;
    for &k in pat {
        ir_k3dev_write(ring.memory(), dev, k);
        match ring.drain(&mut d, out) {
            Ok(n) => total += n,
            Err(_) => return usize::MAX,
        }
    }
    total
}

/// One khal `drain_iter` of `out.len()` per poll, each item copied out.
#[inline(never)]
pub fn ir_k3_iter<M: Mmio, R: DmaMemory>(
    ring: &mut NqRing<R, M>,
    dev: &mut NqDev,
    out: &mut [NqEntry],
    pat: &[u32],
) -> usize {
    let mut total = 0;
    let mut d = NoDelay;
    let max = out.len() as u32;
    for &k in pat {
        ir_k3dev_write(ring.memory(), dev, k);
        let Ok(mut it) = ring.drain_iter(&mut d, max) else {
            return usize::MAX;
        };
        let mut n = 0;
        for slot in out.iter_mut() {
            match it.next() {
                Some(Ok(e)) => *slot = e,
                Some(Err(_)) => return usize::MAX,
                None => break,
            }
            n += 1;
        }
        if it.finish().is_err() {
            return usize::MAX;
        }
        total += n;
    }
    total
}

/// A C kernel of one ring, `$name`: per poll the device's arrivals, then
/// one `$poll` (`c_phase` or `c_tail`). A macro, not a generic helper: each
/// kernel is the same source as when it was written out twice, so it
/// compiles as it was measured (a generic helper taking the poll changed
/// the C phase kernels' code and counts).
macro_rules! c_kernel {
    ($(#[$doc:meta])* $name:ident, $poll:ident) => {
        $(#[$doc])*
        #[inline(never)]
        pub fn $name<R: DmaMemory>(
            mem: &R,
            s: &mut C3,
            dev: &mut NqDev,
            out: &mut [NqEntry],
            pat: &[u32],
        ) -> usize {
            let mut total = 0;
            for &k in pat {
                ir_k3dev_write(mem, dev, k);
                total += $poll(s, out);
            }
            total
        }
    };
}

c_kernel!(
    /// One C phase poll per poll.
    ir_k3_cphase,
    c_phase
);
c_kernel!(
    /// One C tail poll per poll.
    ir_k3_ctail,
    c_tail
);

/// The pair kernels' loop: per poll the device writes the pattern's next
/// count to ring a (`$ma`, `$da`) and the pattern shifted by 7 polls to ring
/// b, then `$polls` (both rings' polls, adding to the kernel's total). A
/// macro: each kernel compiles as the loop written out in it.
macro_rules! pair_loop {
    ($pat:ident, $ma:expr, $mb:expr, $da:ident, $db:ident, $polls:block) => {
        let len = $pat.len();
        for (i, &k) in $pat.iter().enumerate() {
            ir_k3dev_write($ma, $da, k);
            ir_k3dev_write($mb, $db, $pat[(i + 7) % len]);
            $polls
        }
    };
}

/// Two rings polled alternately through khal `drain`.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn ir_k3_pair_drain<M: Mmio, R: DmaMemory>(
    a: &mut NqRing<R, M>,
    b: &mut NqRing<R, M>,
    da: &mut NqDev,
    db: &mut NqDev,
    oa: &mut [NqEntry],
    ob: &mut [NqEntry],
    pat: &[u32],
) -> usize {
    let mut total = 0;
    let mut d = NoDelay;
    pair_loop!(pat, a.memory(), b.memory(), da, db, {
        match a.drain(&mut d, oa) {
            Ok(n) => total += n,
            Err(_) => return usize::MAX,
        }
        match b.drain(&mut d, ob) {
            Ok(n) => total += n,
            Err(_) => return usize::MAX,
        }
    });
    total
}

/// A C kernel of two rings polled alternately, `$name`, through `$poll`
/// (a macro for the reason of [`c_kernel`]).
macro_rules! c_pair_kernel {
    ($(#[$doc:meta])* $name:ident, $poll:ident) => {
        $(#[$doc])*
        #[inline(never)]
        #[allow(clippy::too_many_arguments)]
        pub fn $name<R: DmaMemory>(
            ma: &R,
            mb: &R,
            sa: &mut C3,
            sb: &mut C3,
            da: &mut NqDev,
            db: &mut NqDev,
            oa: &mut [NqEntry],
            ob: &mut [NqEntry],
            pat: &[u32],
        ) -> usize {
            let mut total = 0;
            pair_loop!(pat, ma, mb, da, db, {
                total += $poll(sa, oa);
                total += $poll(sb, ob);
            });
            total
        }
    };
}

c_pair_kernel!(
    /// Two rings polled alternately through the C phase poll.
    ir_k3_pair_cphase,
    c_phase
);
c_pair_kernel!(
    /// Two rings polled alternately through the C tail poll.
    ir_k3_pair_ctail,
    c_tail
);

khal_idle_kernel!(
    /// `N` iterations of one or two khal polls that find nothing.
    ir_k3_idle
);

/// A C idle kernel, `$name`: `N` iterations of one or two `$poll`s that
/// find nothing (a macro for the reason of [`c_kernel`]).
macro_rules! c_idle_kernel {
    ($(#[$doc:meta])* $name:ident, $poll:ident) => {
        $(#[$doc])*
        #[inline(never)]
        pub fn $name(s: &mut C3, out: &mut [NqEntry], two: bool) -> usize {
            let mut total = 0;
            for _ in 0..N {
                total += $poll(s, out);
                if two {
                    total += $poll(s, out);
                }
            }
            total
        }
    };
}

c_idle_kernel!(
    /// `N` iterations of one or two C phase polls that find nothing.
    ir_k3_cidlep,
    c_phase
);
c_idle_kernel!(
    /// `N` iterations of one or two C tail polls that find nothing.
    ir_k3_cidlet,
    c_tail
);

/// A ring's memory over `backend` (`dmabuf`, or `static`: khal-core's
/// `StaticDma` over one of two `static_dma!` buffers).
enum Mem {
    Buf(DmaBuf),
    Static(StaticDma),
}

/// Two memories of 64 KiB on `backend`.
fn mems(backend: &str) -> Option<(Mem, Mem)> {
    Some(match backend {
        "dmabuf" => (
            Mem::Buf(DmaBuf::new(65536, 4096).ok()?),
            Mem::Buf(DmaBuf::new(65536, 4096).ok()?),
        ),
        "static" => (
            Mem::Static(StaticDma::identity(khal_core::static_dma!(65536)?)),
            Mem::Static(StaticDma::identity(khal_core::static_dma!(65536)?)),
        ),
        _ => return None,
    })
}

/// Dispatch `k3:`, `k3pair:` and `k3idle:` on the backend.
pub fn scenario(spec: &str) -> Option<u64> {
    let f: Vec<&str> = spec.split(':').collect();
    match mems(f.get(2)?)? {
        (Mem::Buf(a), Mem::Buf(b)) => nq(&f, a, b),
        (Mem::Static(a), Mem::Static(b)) => nq(&f, a, b),
        _ => None,
    }
}

/// One ring of `ring_n` entries on queue `q`, enabled; its device; the C
/// driver's state over the same memory and registers.
fn one_ring<R: DmaMemory>(
    e: &mut NotificEngine<Win>,
    regs: NonNull<u32>,
    mem: R,
    q: u32,
    ring_n: u32,
    mode: ConsumeMode,
) -> Option<(NqRing<R, Win>, NqDev, C3)> {
    let ring_ptr = mem.bus_addr() as usize as *const NqEntry;
    let ring = bench_ring(e, mem, q, ring_n, mode, None)?;
    let tail = nq_reg(regs, q, NQ0_TAIL_OFF)?;
    let c = C3::new(ring_ptr, tail, nq_reg(regs, q, NQ0_HEAD_OFF)?, ring_n);
    Some((ring, NqDev::new(tail, ring_n, 0x5100), c))
}

/// The sequence number (dword 1) of the entries in `out`: the last drained
/// (`total - 1`) must be among them.
fn holds_seq(out: &[NqEntry], seq: usize) -> bool {
    out.iter().any(|e| e.dword_le(1) == Some(seq as u32))
}

fn nq<R: DmaMemory>(f: &[&str], ma: R, mb: R) -> Option<u64> {
    let num = |i: usize| f.get(i).and_then(|s| s.parse::<u32>().ok());
    let kind = f[0];
    let consumer = f[1];
    let ring_n = num(3)?;
    if !ring_n.is_power_of_two() || ring_n as usize * 16 > 65536 {
        return None;
    }
    let mut regs = Regs::new();
    let regs_ptr = regs.ptr();
    let mut e = bench_engine(regs_ptr)?;
    let mode = consume_mode(consumer);
    let (mut ra, mut da, mut sa) = one_ring(&mut e, regs_ptr, ma, 0, ring_n, mode)?;
    if kind == "k3idle" {
        let two = f.get(4) == Some(&"2");
        let mut out = vec![NqEntry::default(); 1];
        // One pass, one entry per call: the head wraps back to slot 0.
        let mut d = NoDelay;
        for _ in 0..ring_n {
            // Set-up: the device's write is not a kernel's (not counted).
            da.write(ra.memory(), 1);
            let n = match consumer {
                "cphase" => c_phase(&mut sa, &mut out),
                "ctail" => c_tail(&mut sa, &mut out),
                "phase" | "tail" => ra.drain(&mut d, &mut out).ok()?,
                _ => return None,
            };
            if n != 1 {
                return None;
            }
        }
        let got = match consumer {
            "cphase" => ir_k3_cidlep(&mut sa, &mut out, two),
            "ctail" => ir_k3_cidlet(&mut sa, &mut out, two),
            _ => ir_k3_idle(&mut ra, &mut out, two),
        };
        return (black_box(got) == 0).then_some(N as u64);
    }
    let out_n = num(4)?;
    let pat = pattern(f.get(5)?)?;
    let (want, peak) = simulate(&pat, out_n);
    if peak >= ring_n {
        eprintln!("k3: the pattern overruns a ring of {ring_n} (peak {peak} pending)");
        return None;
    }
    let mut oa = vec![NqEntry::default(); out_n as usize];
    if kind == "k3pair" {
        let (mut rb, mut db, mut sb) = one_ring(&mut e, regs_ptr, mb, 1, ring_n, mode)?;
        let shifted: Vec<u32> = (0..pat.len()).map(|i| pat[(i + 7) % pat.len()]).collect();
        let (want_b, peak_b) = simulate(&shifted, out_n);
        if peak_b >= ring_n {
            return None;
        }
        let mut ob = vec![NqEntry::default(); out_n as usize];
        let got = match consumer {
            "phase" | "tail" => {
                ir_k3_pair_drain(&mut ra, &mut rb, &mut da, &mut db, &mut oa, &mut ob, &pat)
            }
            "cphase" => ir_k3_pair_cphase(
                ra.memory(),
                rb.memory(),
                &mut sa,
                &mut sb,
                &mut da,
                &mut db,
                &mut oa,
                &mut ob,
                &pat,
            ),
            "ctail" => ir_k3_pair_ctail(
                ra.memory(),
                rb.memory(),
                &mut sa,
                &mut sb,
                &mut da,
                &mut db,
                &mut oa,
                &mut ob,
                &pat,
            ),
            _ => return None,
        };
        if got != want + want_b || !holds_seq(&oa, want - 1) || !holds_seq(&ob, want_b - 1) {
            eprintln!("k3pair {consumer}: drained {got}, wanted {}", want + want_b);
            return None;
        }
        black_box((&oa, &ob));
        return Some(got as u64);
    }
    let got = match consumer {
        "phase" | "tail" => ir_k3_drain(&mut ra, &mut da, &mut oa, &pat),
        "iter" => ir_k3_iter(&mut ra, &mut da, &mut oa, &pat),
        "cphase" => ir_k3_cphase(ra.memory(), &mut sa, &mut da, &mut oa, &pat),
        "ctail" => ir_k3_ctail(ra.memory(), &mut sa, &mut da, &mut oa, &pat),
        _ => return None,
    };
    if got != want || !holds_seq(&oa, want - 1) {
        eprintln!("k3 {consumer}: drained {got}, wanted {want} (or not the device's last)");
        return None;
    }
    black_box(&oa);
    Some(got as u64)
}

// ---------------------------------------------------------------- CSR

// The CSR cases' backend is `kernels::Sink` (one volatile load or store
// of a 64 KiB buffer at the translated address).

/// 64 KiB: the firmware's CSR window size (`firmware/src/lib.rs`), used
/// where the spec gives a base but no size.
const W64K: u64 = 0x1_0000;

/// The CSR layouts, `(start, length)`, identity mapped, from the arch
/// windows of FACTS §3.1 where it gives them:
///
/// - `fw2`: what the firmware registers (`csr_demo`: ENG and PE, 64 KiB, in
///   a `Csr<_, 4>`);
/// - `s3`: SUNDA: HBM channels 0 and 1 (`0x0`, `0x10_0000_0000`, 16 GiB
///   usable each) and the TPB window (`0xFFF_C000_0000`, `0x400_0000`);
/// - `c5`: CAYMAN: the 4 PREPROC windows (`0x34C_0000` each) and TPB 0;
/// - `c6`: CAYMAN: the 4 HBM channels (24 GiB usable each) and PREPROC 0, 1;
/// - `c7`: CAYMAN: TPB tiles 0..6 (64 KiB at each base; the TPB window size
///   is not traced for CAYMAN);
/// - `c8`: CAYMAN: the 8 TPB tiles (4..7 in the mesh half);
/// - `b8`: the layout of the bench's own `csr_lookup_8s` (not an arch's).
pub fn csr_layout(name: &str) -> Option<Vec<(u64, u64)>> {
    const TPB: [u64; 8] = [
        0x20_0000_0000,
        0x30_0000_0000,
        0x60_0000_0000,
        0x70_0000_0000,
        0x8020_0000_0000,
        0x8030_0000_0000,
        0x8060_0000_0000,
        0x8070_0000_0000,
    ];
    const PREPROC: [u64; 4] = [
        0x12_0000_0000,
        0x52_0000_0000,
        0x8012_0000_0000,
        0x8052_0000_0000,
    ];
    const HBM: [u64; 4] = [0x0, 0x40_0000_0000, 0x8000_0000_0000, 0x8040_0000_0000];
    Some(match name {
        "fw2" => vec![(0x10_0000, W64K), (0x30_0000, W64K)],
        "s3" => vec![
            (0x0, 0x4_0000_0000),
            (0x10_0000_0000, 0x4_0000_0000),
            (0xFFF_C000_0000, 0x400_0000),
        ],
        "c5" => {
            let mut v: Vec<_> = PREPROC.iter().map(|&b| (b, 0x34C_0000)).collect();
            v.push((TPB[0], W64K));
            v
        }
        "c6" => {
            let mut v: Vec<_> = HBM.iter().map(|&b| (b, 0x6_0000_0000)).collect();
            v.push((PREPROC[0], 0x34C_0000));
            v.push((PREPROC[1], 0x34C_0000));
            v
        }
        "c7" => TPB[..7].iter().map(|&b| (b, W64K)).collect(),
        "c8" => TPB.iter().map(|&b| (b, W64K)).collect(),
        // The `csr_lookup_8s` kernel's layout (kernels.rs `csr_setup`): 8
        // windows of 64 KiB, 1 MiB apart from 0x20_0000_0000.
        "b8" => (0..8u64)
            .map(|i| (0x20_0000_0000 + i * 0x10_0000, W64K))
            .collect(),
        _ => return None,
    })
}

/// Window `i`'s share under `z`: geometric around the middle window.
fn weights(n: usize, uneven: bool) -> Vec<u64> {
    (0..n)
        .map(|i| {
            if uneven {
                let d = (i as i64 - (n / 2) as i64).unsigned_abs();
                1u64 << (12 - d.min(12))
            } else {
                1
            }
        })
        .collect()
}

/// `count` addresses over `l`: `u`, `z` or `miss` (module docs). Hits are a
/// dword in the window's first 1 MiB; misses are just past a window's end
/// or in the 64 KiB below its start.
fn csr_addrs(l: &[(u64, u64)], mode: &str, count: usize) -> Option<Vec<u64>> {
    let w = weights(l.len(), mode != "u");
    let sum: u64 = w.iter().sum();
    let inside = |a: u64| l.iter().any(|&(s, n)| a >= s && a < s + n);
    let mut rng = Lcg(0x0DDB_1A5E_5BAD_5EED);
    let mut v = Vec::with_capacity(count);
    while v.len() < count {
        let x = rng.step();
        let mut r = (x >> 33) % sum;
        let mut i = 0;
        while r >= w[i] {
            r -= w[i];
            i += 1;
        }
        let (s, n) = l[i];
        let off = ((x >> 7) % (n.min(0x10_0000) / 4)) * 4;
        let a = match mode {
            "u" | "z" => s + off,
            "miss" if (x >> 5) & 1 == 0 => s + n + off % W64K,
            "miss" => s.wrapping_sub(4 + off % W64K),
            _ => return None,
        };
        if mode == "miss" && inside(a) {
            continue;
        }
        v.push(a);
    }
    Some(v)
}

/// `csr_read` of every address: the sum of what was read and, in the high
/// half, how many were refused.
#[inline(never)]
pub fn ir_k3_csr<const CAP: usize>(csr: &Csr<Sink, CAP>, a: &[DeviceAddr]) -> u64 {
    let (mut sum, mut refused) = (0u32, 0u32);
    for &p in a {
        match csr.csr_read(p) {
            Ok(v) => sum = sum.wrapping_add(v),
            Err(_) => refused += 1,
        }
    }
    (refused as u64) << 32 | sum as u64
}

/// The raw add: the same load at `p - delta`.
#[inline(never)]
pub fn ir_k3_craw(sink: &Sink, a: &[DeviceAddr], delta: u64) -> u64 {
    let mut sum = 0u32;
    for &p in a {
        sum = sum.wrapping_add(sink.load(p.get().wrapping_sub(delta)));
    }
    sum as u64
}

/// A C region `{start, end, device_addr}` [000 §1].
#[derive(Clone, Copy)]
pub struct CRegion {
    start: u64,
    end: u64,
    dev: u64,
}

/// The C lookup: the first region with `start <= p <= end - 4`.
#[inline(always)]
fn c_find(t: &[CRegion], p: u64) -> Option<&CRegion> {
    t.iter().find(|r| p >= r.start && p <= r.end - 4)
}

/// The C `csr_read`: linear-scan lookup, then the load (-2 when refused).
#[inline(never)]
pub fn ir_k3_clin(sink: &Sink, t: &[CRegion], a: &[DeviceAddr]) -> u64 {
    let (mut sum, mut refused) = (0u32, 0u32);
    for &p in a {
        let p = p.get();
        match c_find(t, p) {
            Some(r) => sum = sum.wrapping_add(sink.load(r.dev + (p - r.start))),
            None => refused += 1,
        }
    }
    (refused as u64) << 32 | sum as u64
}

/// `csr_write_array` of 8 registers per call.
#[inline(never)]
pub fn ir_k3_warr<const CAP: usize>(csr: &Csr<Sink, CAP>, calls: &[[DeviceAddr; 8]]) -> u32 {
    let mut ok = 0u32;
    for (i, p) in calls.iter().enumerate() {
        let v = [i as u32; 8];
        ok += csr.csr_write_array(p, &v).is_ok() as u32;
    }
    ok
}

/// The C `csr_write_array`: region of `ptrs[0]` (linear scan), every
/// address checked against it, then the writes [000 §1].
#[inline(never)]
pub fn ir_k3_cwarr(sink: &Sink, t: &[CRegion], calls: &[[DeviceAddr; 8]]) -> u32 {
    let mut ok = 0u32;
    for (i, p) in calls.iter().enumerate() {
        let Some(r) = c_find(t, p[0].get()) else {
            continue;
        };
        if p.iter().any(|q| q.get() < r.start || q.get() > r.end - 4) {
            continue;
        }
        for q in p {
            sink.store(r.dev + (q.get() - r.start), i as u32);
        }
        ok += 1;
    }
    ok
}

/// The 8 raw writes per call at `p - delta`.
#[inline(never)]
pub fn ir_k3_rwarr(sink: &Sink, calls: &[[DeviceAddr; 8]], delta: u64) -> u32 {
    for (i, p) in calls.iter().enumerate() {
        for q in p {
            sink.store(q.get().wrapping_sub(delta), i as u32);
        }
    }
    calls.len() as u32
}

fn table<const CAP: usize>(l: &[(u64, u64)]) -> Option<RegionTable<CAP>> {
    let mut t = RegionTable::<CAP>::new();
    // Inserted in reverse order (not sorted).
    for &(s, n) in l.iter().rev() {
        t.insert(CsrRegion::identity(DeviceAddr(s), DeviceAddr(s + n), 0).ok()?)
            .ok()?;
    }
    Some(t)
}

fn csr_read_run<const CAP: usize>(l: &[(u64, u64)], a: &[DeviceAddr], refused: u64) -> Option<u64> {
    let csr = Csr::new(Sink::new(), table::<CAP>(l)?);
    let got = ir_k3_csr(&csr, a) >> 32;
    if got != refused {
        eprintln!("k3csr: {got} refused, expected {refused}");
        return None;
    }
    Some(a.len() as u64)
}

fn warr_run<const CAP: usize>(l: &[(u64, u64)], calls: &[[DeviceAddr; 8]]) -> Option<u64> {
    let csr = Csr::new(Sink::new(), table::<CAP>(l)?);
    (ir_k3_warr(&csr, calls) as usize == calls.len()).then_some(calls.len() as u64 * 8)
}

/// `k3csr:`, `k3raw:`, `k3lin:`, `k3arr:`.
pub fn csr_scenario(spec: &str) -> Option<u64> {
    let f: Vec<&str> = spec.split(':').collect();
    let ctab = |l: &[(u64, u64)]| -> Vec<CRegion> {
        l.iter()
            .map(|&(s, n)| CRegion {
                start: s,
                end: s + n,
                dev: s,
            })
            .collect()
    };
    if f[0] == "k3arr" {
        let l = csr_layout(f.get(2)?)?;
        // A batch: 8 consecutive dwords from a base at least 32 bytes below
        // the window's end.
        let starts = csr_addrs(&l, "z", N as usize / 8)?;
        let calls: Vec<[DeviceAddr; 8]> = starts
            .iter()
            .map(|&a| {
                let (s, n) = *l.iter().find(|&&(s, n)| a >= s && a < s + n)?;
                let a = a.min(s + n - 32);
                Some(core::array::from_fn(|k| DeviceAddr(a + 4 * k as u64)))
            })
            .collect::<Option<_>>()?;
        return match *f.get(1)? {
            "khal" => match l.len() {
                2 => warr_run::<4>(&l, &calls),
                8 => warr_run::<8>(&l, &calls),
                _ => None,
            },
            "c" => {
                let t = ctab(&l);
                (ir_k3_cwarr(&Sink::new(), black_box(&t), &calls) as usize == calls.len())
                    .then_some(calls.len() as u64 * 8)
            }
            "raw" => {
                black_box(ir_k3_rwarr(&Sink::new(), &calls, black_box(0)));
                Some(calls.len() as u64 * 8)
            }
            _ => None,
        };
    }
    let l = csr_layout(f.get(1)?)?;
    let mode = *f.get(2)?;
    let a: Vec<DeviceAddr> = csr_addrs(&l, mode, N as usize)?
        .into_iter()
        .map(DeviceAddr)
        .collect();
    let refused = if mode == "miss" { a.len() as u64 } else { 0 };
    match f[0] {
        "k3raw" => {
            black_box(ir_k3_craw(&Sink::new(), &a, black_box(0)));
            Some(a.len() as u64)
        }
        "k3lin" => {
            let t = ctab(&l);
            let got = ir_k3_clin(&Sink::new(), black_box(&t), &a) >> 32;
            (got == refused).then_some(a.len() as u64)
        }
        "k3csr" => match l.len() {
            2 => csr_read_run::<4>(&l, &a, refused),
            3 => csr_read_run::<3>(&l, &a, refused),
            5 => csr_read_run::<5>(&l, &a, refused),
            6 => csr_read_run::<6>(&l, &a, refused),
            7 => csr_read_run::<7>(&l, &a, refused),
            8 => csr_read_run::<8>(&l, &a, refused),
            _ => None,
        },
        _ => None,
    }
}
