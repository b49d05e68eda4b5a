//! The CSR lookup's cost per access (issue 12): one `csr_read` against the
//! raw add it replaces, each an `#[inline(never)]` call per access through the
//! same backend, whose load uses the translated address.
//!
//! Why calls and not a loop: a loop of raw adds is unrolled and its table
//! loads hoisted, so a loop kernel measures the loop as much as the access;
//! one call per access is what a driver's scattered register accesses are,
//! and both sides pay the same call. The backend ([`Sink`]) loads at the
//! translated address (masked into a 64 KiB buffer), so the translation is
//! computed as a real access computes it (a backend that ignores the address
//! lets the compiler drop the translation).
//!
//! Scenarios: `csrp:<lookup>:<layout>[:<cap>]` (`lookup` = `search` for
//! `RegionTable<CAP, BinarySearch>`, `cell` for the default `RegionTable<CAP>`
//! (`CellIndex<CAP>`), `cell128` for `RegionTable<CAP, CellIndex>` (128
//! cells); `cap` defaults to the layout's window count) and
//! `csrp:raw:<layout>`; `csrp:<lookup>:<layout>:<cap>:miss` for refused
//! accesses. The kernel is `ir_csrp_khal` or `ir_csrp_raw`.
//! `csrfill:<layout>:<one|all>` (kernel `ir_csrfill`): what filling a
//! default table costs, one `insert` per window or one `insert_all`.

use crate::lcg::Lcg;
use std::hint::black_box;

use khal_core::csr::{Csr, CsrRegion, RegionTable};
use khal_core::{DeviceAddr, Result};

use crate::kernels::{Sink, N};

/// One `csr_read`, as a driver's call site has it: its `Result`.
#[inline(never)]
pub fn ir_csrp_khal<const CAP: usize>(csr: &Csr<Sink, CAP>, p: DeviceAddr) -> Result<u32> {
    csr.csr_read(p)
}

/// The raw add: the same load at `p - delta`, returned the same way.
#[inline(never)]
pub fn ir_csrp_raw(sink: &Sink, p: DeviceAddr, delta: u64) -> Result<u32> {
    Ok(sink.load(p.get().wrapping_sub(delta)))
}

/// A layout: `(start, length, device_addr)` per window.
pub type Layout = Vec<(u64, u64, u64)>;

const W64K: u64 = 0x1_0000;

/// The layouts: the bench's own three 8-window ones and the arch windows of
/// the third checker (`chk3.rs`, FACTS §3.1), identity mapped unless noted.
///
/// - `b4` / `b8` / `b16` / `b64`: `n` windows of 64 KiB, 1 MiB apart from
///   0x20_0000_0000 (the bench's `csr_lookup_<n>`);
/// - `8b`: irregular sizes and gaps, not identity mapped
///   ([`crate::kernels::CSR_IRREGULAR`]);
/// - `8m`: two clusters of four 1 MiB windows 2^47 apart
///   ([`crate::kernels::CSR_MESH`]);
/// - `r5`, `r6`, `p7`, `t8`: the first checker's (`ver.rs`); `c3`, `p8`,
///   `g16`: the second checker's (`chk.rs`);
/// - `fw2`, `s3`, `c5`, `c6`, `c7`, `c8`: the third checker's arch layouts.
pub fn layout(name: &str) -> Option<Layout> {
    let spread = |n: u64| {
        (0..n)
            .map(|i| {
                let s = 0x20_0000_0000 + i * 0x10_0000;
                (s, W64K, s)
            })
            .collect()
    };
    let based = |l: &[(u64, u64, u64)]| {
        l.iter()
            .map(|&(s, n, d)| (0x20_0000_0000 + s, n, d))
            .collect()
    };
    Some(match name {
        "b4" => spread(4),
        "b8" => spread(8),
        "b16" => spread(16),
        "b64" => spread(64),
        "b256" => spread(256),
        "8b" => based(&crate::kernels::CSR_IRREGULAR),
        "8m" => based(&crate::kernels::CSR_MESH),
        // The first checker's layouts (`ver.rs`): 5 and 6 random windows,
        // 7 a power of two apart, 8 tiny adjacent ones.
        "r5" | "r6" | "p7" | "t8" => based(&crate::ver::layout(name)?),
        // The second checker's (`chk.rs`), two of them built to defeat a
        // cell index: three windows in one cell (`c3`), eight a power of
        // two apart (`p8`); 16 uneven ones (`g16`).
        "c3" | "p8" | "g16" => crate::chk::layout(name)?
            .into_iter()
            .map(|(s, n)| (crate::chk::CBASE + s, n, s))
            .collect(),
        _ => crate::chk3::csr_layout(name)?
            .into_iter()
            .map(|(s, n)| (s, n, s))
            .collect(),
    })
}

/// `N` addresses over `l`: each picks a window uniformly (so small windows
/// count as much as large ones), then a dword in its first 1 MiB whose
/// translation is aligned; `miss`: just past a window's end or below its
/// start, outside every window.
fn addrs(l: &Layout, miss: bool) -> Vec<DeviceAddr> {
    let inside = |a: u64| l.iter().any(|&(s, n, _)| a >= s && a < s + n);
    let mut rng = Lcg(0x9E37_79B9);
    let mut v = Vec::with_capacity(N as usize);
    while v.len() < N as usize {
        let x = rng.step();
        let (s, len, d) = l[((x >> 33) % l.len() as u64) as usize];
        let o = d.wrapping_neg() & 3;
        let off = o + ((x >> 13) % ((len.min(0x10_0000) - o) / 4)) * 4;
        let a = if !miss {
            s + off
        } else if (x >> 5) & 1 == 0 {
            s + len + off % W64K
        } else {
            s.wrapping_sub(4 + off % W64K)
        };
        if miss && inside(a) {
            continue;
        }
        v.push(DeviceAddr(a));
    }
    v
}

fn run<const CAP: usize>(l: &Layout, a: &[DeviceAddr], miss: bool) -> Option<u64> {
    let mut t = RegionTable::<CAP>::new();
    // Inserted out of order (a step coprime with the count).
    let step = if l.len().is_multiple_of(5) { 3 } else { 5 };
    for k in 0..l.len() {
        let (s, n, d) = l[(k * step) % l.len()];
        t.insert(CsrRegion::new(DeviceAddr(s), DeviceAddr(s + n), DeviceAddr(d), 0).ok()?)
            .ok()?;
    }
    let csr = Csr::new(Sink::new(), t);
    let mut refused = 0usize;
    for &p in a {
        refused += usize::from(black_box(ir_csrp_khal(&csr, black_box(p))).is_err());
    }
    let want = if miss { a.len() } else { 0 };
    if refused != want {
        eprintln!("csrp: {refused} refused, expected {want}");
        return None;
    }
    Some(a.len() as u64)
}

fn by_cap(cap: usize, l: &Layout, a: &[DeviceAddr], miss: bool) -> Option<u64> {
    match cap {
        2 => run::<2>(l, a, miss),
        3 => run::<3>(l, a, miss),
        4 => run::<4>(l, a, miss),
        5 => run::<5>(l, a, miss),
        6 => run::<6>(l, a, miss),
        7 => run::<7>(l, a, miss),
        8 => run::<8>(l, a, miss),
        16 => run::<16>(l, a, miss),
        64 => run::<64>(l, a, miss),
        256 => run::<256>(l, a, miss),
        _ => None,
    }
}

/// Fill a default table of capacity `CAP` with `l`'s windows: one
/// `insert` each (`all` false), or one `insert_all` (the index built once).
#[inline(never)]
pub fn ir_csrfill<const CAP: usize>(l: &Layout, all: bool) -> Option<RegionTable<CAP>> {
    let mut t = RegionTable::<CAP>::new();
    let regions = l
        .iter()
        .map(|&(s, n, d)| CsrRegion::new(DeviceAddr(s), DeviceAddr(s + n), DeviceAddr(d), 0).ok());
    if all {
        t.insert_all(regions.collect::<Option<Vec<_>>>()?).ok()?;
    } else {
        for r in regions {
            t.insert(r?).ok()?;
        }
    }
    Some(t)
}

/// `csrfill:<layout>:<one|all>`: the cost of filling a default table with
/// the layout's windows (capacity = the window count); `ops=` 1.
pub fn fill_scenario(spec: &str) -> Option<u64> {
    let f: Vec<&str> = spec.split(':').collect();
    let l = layout(f.get(1)?)?;
    let all = *f.get(2)? == "all";
    let n = match l.len() {
        8 => ir_csrfill::<8>(black_box(&l), all)?.len(),
        16 => ir_csrfill::<16>(black_box(&l), all)?.len(),
        64 => ir_csrfill::<64>(black_box(&l), all)?.len(),
        _ => return None,
    };
    (n == l.len()).then_some(1)
}

/// `csrp:<search|raw>:<layout>[:<cap>[:miss]]`.
pub fn scenario(spec: &str) -> Option<u64> {
    let f: Vec<&str> = spec.split(':').collect();
    let l = layout(f.get(2)?)?;
    let cap = match f.get(3) {
        Some(c) if !c.is_empty() => c.parse().ok()?,
        _ => l.len(),
    };
    let miss = f.get(4) == Some(&"miss");
    let a = addrs(&l, miss);
    match *f.get(1)? {
        "search" => by_cap(cap, &l, &a, miss),
        "raw" => {
            let sink = Sink::new();
            // The translation of an identity window is `p - 0`; `8b` is not
            // identity mapped, but the raw add's cost does not depend on
            // the delta.
            for &p in &a {
                let _ = black_box(ir_csrp_raw(&sink, black_box(p), black_box(0)));
            }
            Some(a.len() as u64)
        }
        _ => None,
    }
}
