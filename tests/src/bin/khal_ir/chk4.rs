//! The fourth checker's CSR kernels (issue 12, CSR row): a driver's bring-up
//! routine of `K` dependent register accesses to different windows, through
//! khal's `Csr` (its default lookup, the binary search, a 128-cell index),
//! through raw pointers with a fixed translation, and through a C-style
//! linear scan ([000 §1] `find_region_for`, then the `[start, end - 4]`
//! check); every call's answer checked against a linear model.
//!
//! Scenarios (`K` = 4 or 8 accesses per routine call, or 1: one read
//! alone; the table behind `&`; one `#[inline(never)]` routine per call):
//! - `k4:<cell|search|c32|raw|scan>:<layout>:<K>[:<cap>[:miss]]`; kernels
//!   `ir_k4_khal` (cell = the default `Csr<_, CAP>`, search =
//!   `BinarySearch`, c32 = `CellIndex<32>`), `ir_k4_raw`, `ir_k4_scan`.
//!   `miss`: one call in four has one refused access (the routine stops
//!   there, as a driver's `?` does). `ops=` is the accesses made.
//! - `k4chk:<layout>`: every lookup at several capacities (up to 256)
//!   against the linear model over edge and random addresses, before and
//!   after a `remove_device` and a deregister / register round trip.

use crate::lcg::Lcg;
use std::hint::black_box;

use khal_core::csr::{Csr, CsrRegion, CsrWindow, RegionTable};
use khal_core::{DeviceAddr, Error, Mmio, Result};

use crate::kernels::{Sink, N};

/// `(start, length, device_addr)` per window.
type Layout = Vec<(u64, u64, u64)>;

/// The routine, straight-line as a driver writes it: `K` = 4 or 8 accesses,
/// alternately a read and a write whose value depends on the reads so far
/// (or `K` = 1: one read alone); the first refused access ends it (`?`).
#[inline(always)]
fn routine<const K: usize>(
    a: &[DeviceAddr; K],
    mut rd: impl FnMut(usize, DeviceAddr) -> Result<u32>,
    mut wr: impl FnMut(usize, DeviceAddr, u32) -> Result<()>,
) -> Result<u32> {
    // `K` is a constant: every `at` folds to one load.
    let at = |i: usize| a.get(i).copied().unwrap_or(DeviceAddr(0));
    if K == 1 {
        // One `csr_read` per call: the lead's probe shape, for comparison.
        return rd(0, at(0));
    }
    let r0 = rd(0, at(0))?;
    wr(1, at(1), r0 | 1)?;
    let r2 = rd(2, at(2))?;
    wr(3, at(3), r2.rotate_left(5) ^ r0)?;
    if K == 4 {
        return Ok(r0 ^ r2);
    }
    let r4 = rd(4, at(4))?;
    wr(5, at(5), r4.wrapping_add(r2))?;
    let r6 = rd(6, at(6))?;
    wr(7, at(7), r6 ^ r4 ^ 0x5A)?;
    Ok(r0 ^ r2 ^ r4 ^ r6)
}

/// khal: `csr_read` / `csr_write` through the `Csr` behind `&`.
#[inline(never)]
pub fn ir_k4_khal<const K: usize, const CAP: usize>(
    csr: &Csr<Sink, CAP>,
    a: &[DeviceAddr; K],
) -> Result<u32> {
    routine(a, |_, p| csr.csr_read(p), |_, p, v| csr.csr_write(p, v))
}

/// khal: each access through the `CsrWindow` of its window, resolved once
/// before the call (`Csr::window`), as an engine holds its block.
#[inline(never)]
pub fn ir_k4_win<const K: usize>(w: &[CsrWindow<'_, Sink>; K], a: &[DeviceAddr; K]) -> Result<u32> {
    // `K` and each access's index are constants: `w[i]` folds to one
    // address (the index is checked once, at compile time).
    routine(a, |i, p| w[i].read32(p), |i, p, v| w[i].write32(p, v))
}

/// Raw pointers, one fixed translation `p - delta` (no check).
#[inline(never)]
pub fn ir_k4_raw<const K: usize>(sink: &Sink, a: &[DeviceAddr; K], delta: u64) -> Result<u32> {
    routine(
        a,
        |_, p| Ok(sink.load(p.get().wrapping_sub(delta))),
        |_, p, v| {
            sink.store(p.get().wrapping_sub(delta), v);
            Ok(())
        },
    )
}

/// A C `csr_region_t` without `used` and `device` (the table holds used ones).
#[derive(Clone, Copy)]
pub struct CReg {
    start: u64,
    end: u64,
    dev: u64,
}

/// C `find_region_for` (first region with `start <= p < end`), then the
/// `[start, end - 4]` check [000 §1]; no alignment check (C has none).
#[inline(always)]
fn c_translate(t: &[CReg], p: u64) -> Result<u64> {
    let r = t
        .iter()
        .find(|r| r.start <= p && p < r.end)
        .ok_or(Error::no_region(p))?;
    if p > r.end - 4 {
        return Err(Error::out_of_window(p));
    }
    Ok(r.dev + (p - r.start))
}

/// The C-style linear scan per access, the table behind `&`.
#[inline(never)]
pub fn ir_k4_scan<const K: usize>(sink: &Sink, t: &[CReg], a: &[DeviceAddr; K]) -> Result<u32> {
    routine(
        a,
        |_, p| Ok(sink.load(c_translate(t, p.get())?)),
        |_, p, v| {
            sink.store(c_translate(t, p.get())?, v);
            Ok(())
        },
    )
}

/// The linear model of khal's answer: the region holding `p`, then
/// `start <= p <= end - 4` and a dword-aligned translation [000 §1].
fn model(l: &Layout, p: u64) -> Result<u64> {
    let &(s, n, d) = l
        .iter()
        .find(|&&(s, n, _)| s <= p && p - s < n)
        .ok_or(Error::no_region(p))?;
    if p > s + n - 4 {
        return Err(Error::out_of_window(p));
    }
    let t = d + (p - s);
    if !t.is_multiple_of(4) {
        return Err(Error::out_of_window(p));
    }
    Ok(t)
}

/// The model run of the routine over a model of the sink's memory (the
/// sink keeps `addr & 0xFFFC`); returns the answer and the accesses made.
fn model_run<const K: usize>(
    mem: &mut [u32],
    a: &[DeviceAddr; K],
    tr: impl Fn(u64) -> Result<u64>,
) -> (Result<u32>, u64) {
    let made = core::cell::Cell::new(0u64);
    let slot = |t: u64| ((t & 0xFFFC) / 4) as usize;
    let r = {
        let mem = core::cell::RefCell::new(&mut *mem);
        routine(
            a,
            |_, p| {
                made.set(made.get() + 1);
                let t = tr(p.get())?;
                Ok(mem.borrow()[slot(t)])
            },
            |_, p, v| {
                made.set(made.get() + 1);
                let t = tr(p.get())?;
                mem.borrow_mut()[slot(t)] = v;
                Ok(())
            },
        )
    };
    (r, made.get())
}

const W64K: u64 = 0x1_0000;

/// The layouts: this checker's adversarial ones, else khal_ir's (`csr.rs`:
/// the arch windows `fw2 s3 c5 c6 c7 c8` of chk3.rs, `b64`, `t8`, `p8`, ...).
///
/// - `q8`: 8 windows of 4 KiB at `1 << (12 + 4k)` (each a power of two,
///   16x the one before);
/// - `x8`: three 64 B windows in one 256 B span, then five 64 KiB windows
///   1 GiB apart;
/// - `t16`: 16 adjacent windows of 4, 8, ..., 64 bytes (tiny, adjacent);
/// - `r64`, `r<n>s<seed>`: `n` random windows ([`random`]);
/// - `m4`: the two mesh halves' TPB 0 and PE windows (2^47 apart) [000 §2].
pub fn layout(name: &str) -> Option<Layout> {
    Some(match name {
        "q8" => (0..8u64)
            .map(|k| (1u64 << (12 + 4 * k), 0x1000, 1u64 << (12 + 4 * k)))
            .collect(),
        "x8" => {
            let mut v: Layout = (0..3u64)
                .map(|k| (0x40_0000_0000 + k * 0x50, 0x40, 0x40_0000_0000 + k * 0x50))
                .collect();
            v.extend((1..6u64).map(|k| {
                let s = 0x40_0000_0000 + k * 0x4000_0000;
                (s, W64K, s)
            }));
            v
        }
        "t16" => {
            let mut s = 0x30_0000_0000u64;
            (1..=16u64)
                .map(|k| {
                    let w = (s, 4 * k, s);
                    s += 4 * k;
                    w
                })
                .collect()
        }
        "r64" => random(64, 0),
        "m4" => vec![
            (0x20_0000_0000, W64K, 0x20_0000_0000),
            (0x12_0000_0000, 0x34C_0000, 0x12_0000_0000),
            (0x8020_0000_0000, W64K, 0x8020_0000_0000),
            (0x8012_0000_0000, 0x34C_0000, 0x8012_0000_0000),
        ],
        _ => match name.strip_prefix('r').and_then(|r| r.split_once('s')) {
            Some((n, seed)) => random(n.parse().ok()?, seed.parse().ok()?),
            None => crate::csr::layout(name)?,
        },
    })
}

/// `n` windows of random sizes (4 B to 16 MiB, some not a dword multiple)
/// at random gaps (up to 1 GiB), every other one forwarded to another
/// dword-aligned address; `seed` picks the sequence.
fn random(n: usize, seed: u64) -> Layout {
    let mut x = Lcg(0xC0FF_EE11 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut s = 0x1000u64;
    (0..n)
        .map(|i| {
            let len = 4 + ((x.step() >> 13) % (1 << (2 + (x.step() >> 13) % 23)));
            let gap = (x.step() >> 13) % (1 << ((x.step() >> 13) % 30));
            let st = (s + gap + 3) & !3;
            s = st + len;
            let dev = if i % 2 == 0 {
                st
            } else {
                (0x1_0000_0000 + (x.step() >> 13) % 0x1000_0000) & !3
            };
            (st, len, dev)
        })
        .collect()
}

/// A valid access of window `w` (translation dword-aligned), in its first
/// 1 MiB.
fn valid(l: &Layout, w: usize, x: &mut Lcg) -> u64 {
    let (s, n, d) = l[w];
    let o = d.wrapping_neg() & 3;
    let k = (n.min(0x10_0000) - o) / 4;
    s + o + ((x.step() >> 13) % k.max(1)) * 4
}

/// The routine calls: `K` accesses each, to `K` different windows where
/// the layout has that many (a random window, then a random stride). With
/// `miss`, one call in four has one refused access (past a window's end,
/// below its start, or in its last three bytes).
fn calls<const K: usize>(l: &Layout, miss: bool) -> Vec<[DeviceAddr; K]> {
    let mut x = Lcg(0x5EED_0004);
    let n = l.len();
    (0..N as usize / K)
        .map(|c| {
            let w0 = ((x.step() >> 13) % n as u64) as usize;
            let stride = 1 + ((x.step() >> 13) % (n as u64 - 1).max(1)) as usize;
            let mut a: [DeviceAddr; K] =
                core::array::from_fn(|i| DeviceAddr(valid(l, (w0 + i * stride) % n, &mut x)));
            if miss && c % 4 == 0 {
                let i = ((x.step() >> 13) % K as u64) as usize;
                let (s, len, _) = l[(w0 + i * stride) % n];
                for _ in 0..64 {
                    let p = match (x.step() >> 13) % 3 {
                        0 => s + len + 4 * ((x.step() >> 13) % 16),
                        1 => s.wrapping_sub(4 + 4 * ((x.step() >> 13) % 16)),
                        _ => s + len - 1 - (x.step() >> 13) % 3,
                    };
                    if model(l, p).is_err() {
                        a[i] = DeviceAddr(p);
                        break;
                    }
                }
            }
            a
        })
        .collect()
}

/// The insertion stride: coprime with `n` (the windows go in out of order).
fn insert_step(n: usize) -> Option<usize> {
    [7, 5, 3, 11, 13]
        .into_iter()
        .find(|s| !n.is_multiple_of(*s))
}

fn table<const CAP: usize>(l: &Layout) -> Option<RegionTable<CAP>> {
    let mut t = RegionTable::<CAP>::new();
    // Inserted out of order (a stride coprime with the count).
    let step = insert_step(l.len())?;
    for k in 0..l.len() {
        let (s, n, d) = l[(k * step) % l.len()];
        let r = CsrRegion::new(
            DeviceAddr(s),
            DeviceAddr(s + n),
            DeviceAddr(d),
            (k % 3) as u32,
        );
        t.insert(r.ok()?).ok()?;
    }
    Some(t)
}

/// The khal routine over every call, each answer checked against the model.
fn run_khal<const K: usize, const CAP: usize>(l: &Layout, cs: &[[DeviceAddr; K]]) -> Option<u64> {
    let csr = Csr::new(Sink::new(), table::<CAP>(l)?);
    let mut mem = vec![0u32; 0x4000];
    let mut made = 0;
    for a in cs {
        let got = ir_k4_khal(black_box(&csr), black_box(a));
        let (want, m) = model_run(&mut mem, a, |p| model(l, p));
        made += m;
        if got != want {
            eprintln!("k4: khal {a:x?}: {got:?}, model {want:?}");
            return None;
        }
    }
    Some(made)
}

/// The windows' routine over every call: each access's window (the whole
/// dword-aligned part of its region) resolved before the call; answers
/// checked against the model. No `miss` form: a window refuses what leaves
/// it, whatever the table holds there.
fn run_win<const K: usize>(l: &Layout, cs: &[[DeviceAddr; K]]) -> Option<u64> {
    let csr = Csr::new(Sink::new(), table::<256>(l)?);
    let window = |p: DeviceAddr| {
        let &(s, n, d) = l
            .iter()
            .find(|&&(s, n, _)| s <= p.get() && p.get() - s < n)?;
        let o = d.wrapping_neg() & 3;
        csr.window(DeviceAddr(s + o), (n - o) & !3).ok()
    };
    let mut mem = vec![0u32; 0x4000];
    let mut made = 0;
    for a in cs {
        let ws: Vec<CsrWindow<'_, Sink>> = a.iter().map(|&p| window(p)).collect::<Option<_>>()?;
        let ws: &[CsrWindow<'_, Sink>; K] = ws.as_slice().try_into().ok()?;
        let got = ir_k4_win(black_box(ws), black_box(a));
        let (want, m) = model_run(&mut mem, a, |p| model(l, p));
        made += m;
        if got != want {
            eprintln!("k4: win {a:x?}: {got:?}, model {want:?}");
            return None;
        }
    }
    Some(made)
}

macro_rules! by_cap {
    ($kind:expr, $cap:expr, $l:expr, $cs:expr, [$($c:literal)*]) => {
        match ($kind, $cap) {
            $(
                ("search", $c) => run_khal::<K, $c>($l, $cs),
            )*
            _ => None,
        }
    };
}

fn scenario_k<const K: usize>(f: &[&str], l: &Layout) -> Option<u64> {
    let cap = match f.get(4) {
        Some(c) if !c.is_empty() => c.parse().ok()?,
        _ => l.len(),
    };
    let miss = f.get(5) == Some(&"miss");
    let cs = calls::<K>(l, miss);
    let kind = *f.get(1)?;
    match kind {
        "win" if !miss => run_win::<K>(l, &cs),
        "raw" | "scan" => {
            let sink = Sink::new();
            let ct: Vec<CReg> = l
                .iter()
                .map(|&(s, n, d)| CReg {
                    start: s,
                    end: s + n,
                    dev: d,
                })
                .collect();
            // Raw: the fixed translation of window 0 for every access (its
            // cost does not depend on the delta); checked against the
            // model of that translation. The scan: against khal's model
            // (they differ only on a misaligned translation, which no
            // generated address has).
            let delta = l[0].0.wrapping_sub(l[0].2);
            let mut mem = vec![0u32; 0x4000];
            let mut made = 0;
            for a in &cs {
                let (got, (want, m)) = if kind == "raw" {
                    let got = ir_k4_raw(black_box(&sink), black_box(a), black_box(delta));
                    (got, model_run(&mut mem, a, |p| Ok(p.wrapping_sub(delta))))
                } else {
                    let got = ir_k4_scan(black_box(&sink), black_box(&ct[..]), black_box(a));
                    (got, model_run(&mut mem, a, |p| model(l, p)))
                };
                made += m;
                if got != want {
                    eprintln!("k4: {kind} {a:x?}: {got:?}, model {want:?}");
                    return None;
                }
            }
            Some(made)
        }
        _ => by_cap!(kind, cap, l, &cs, [2 3 4 5 6 7 8 16 64 160 256]),
    }
}

/// The probe addresses of the sweep: around each window's start and end,
/// between windows, random inside, and the extremes.
fn probes(l: &Layout) -> Vec<u64> {
    let mut x = Lcg(0xD00D_0004);
    let mut v = vec![0, 4, u64::MAX - 3, u64::MAX];
    for &(s, n, _) in l {
        for d in 0..24u64 {
            v.push(s.wrapping_sub(12).wrapping_add(d));
            v.push((s + n).wrapping_sub(12).wrapping_add(d));
            v.push(s + (x.step() >> 13) % n);
            v.push(s.wrapping_add(n / 2).wrapping_add(n.wrapping_mul(d)));
        }
    }
    v
}

/// One table checked against the model, then after removing device 1's
/// windows, then after a deregister / register round trip (the table
/// moved by value).
fn sweep_one<const CAP: usize>(l: &Layout, ps: &[u64]) -> Option<u64> {
    if l.len() > CAP {
        return Some(0);
    }
    let mut csr = Csr::new(Sink::new(), table::<CAP>(l)?);
    let mut checked = 0;
    let mut check = |csr: &Csr<Sink, CAP>, l: &Layout, what: &str| -> Option<()> {
        for &p in ps {
            let want = model(l, p);
            let got = csr.regions()?.translate(DeviceAddr(p)).map(|d| d.get());
            let read = csr.csr_read(DeviceAddr(p)).map(|_| ());
            let write = csr.csr_write(DeviceAddr(p), 1);
            if got != want || read != want.map(|_| ()) || write != want.map(|_| ()) {
                eprintln!(
                    "k4chk {what} cap {CAP}: {p:#x}: translate {got:x?} read {read:?} write {write:?}, model {want:x?}"
                );
                return None;
            }
            checked += 1;
        }
        Some(())
    };
    check(&csr, l, "insert")?;
    // Inserted with device ids `k % 3` in insertion order (`table`).
    let step = insert_step(l.len())?;
    let kept: Layout = (0..l.len())
        .filter(|k| k % 3 != 1)
        .map(|k| l[(k * step) % l.len()])
        .collect();
    let removed = csr.regions_mut()?.remove_device(1);
    if removed != l.len() - kept.len() {
        eprintln!(
            "k4chk: removed {removed}, expected {}",
            l.len() - kept.len()
        );
        return None;
    }
    check(&csr, &kept, "remove")?;
    let t = csr.deregister()?;
    if csr.csr_read(DeviceAddr(ps[0])) != Err(Error::NoRegionTable) {
        eprintln!("k4chk: deregistered table still answers");
        return None;
    }
    csr.register(black_box(t));
    check(&csr, &kept, "re-register")?;
    Some(checked)
}

fn sweep(l: &Layout) -> Option<u64> {
    let ps = probes(l);
    let mut n = 0;
    macro_rules! caps {
        ($($c:literal)*) => {
            $(
                n += sweep_one::<$c>(l, &ps)?;
            )*
        };
    }
    caps!(2 3 4 5 8 16 17 64 100 160 256);
    Some(n)
}

/// `k4:<lookup>:<layout>:<K>[:<cap>[:miss]]` or `k4chk:<layout>`.
pub fn scenario(spec: &str) -> Option<u64> {
    let f: Vec<&str> = spec.split(':').collect();
    if f.first() == Some(&"k4chk") {
        return sweep(&layout(f.get(1)?)?);
    }
    let l = layout(f.get(2)?)?;
    match *f.get(3)? {
        "1" => scenario_k::<1>(&f, &l),
        "4" => scenario_k::<4>(&f, &l),
        "8" => scenario_k::<8>(&f, &l),
        _ => None,
    }
}
