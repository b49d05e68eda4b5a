//! Bench: CSR region lookup [000 §1] with 4 and with 256 windows, measured in
//! the same run, plus a linear scan of the same 256 windows as a reference.
//!
//! Prints one JSON line: the per-lookup cost of each case (median over
//! interleaved reps) and the ratios. A sorted table with binary search grows
//! with `log2 N` (256 vs 4 windows: about 8/2 = 4 probes vs 2, so a ratio of a
//! few); a linear scan grows with `N` (about 64×). The bench exits non-zero if
//! the 256/4 ratio is 16 or more, i.e. if lookup has become a scan.
//!
//! Run: `cargo bench -p khal-tests --bench csr`.

use std::hint::black_box;
use std::time::Instant;

use khal_core::csr::{CsrRegion, RegionTable};
use khal_core::DeviceAddr;

/// Window size and stride: 4 KiB windows every 64 KiB from the TPB-0 base.
const BASE: u64 = 0x20_0000_0000;
const STRIDE: u64 = 0x1_0000;
const SIZE: u64 = 0x1000;
/// Lookups per timed sample, and interleaved samples per case.
const QUERIES: usize = 4096;
const REPS: usize = 41;

fn table<const N: usize>(n: usize) -> RegionTable<N> {
    let mut t = RegionTable::new();
    // Insert in a scrambled order: the table sorts itself.
    for k in 0..n {
        let i = (k * 37) % n;
        let s = BASE + i as u64 * STRIDE;
        t.insert(CsrRegion::identity(DeviceAddr(s), DeviceAddr(s + SIZE), i as u32).unwrap())
            .unwrap();
    }
    assert_eq!(t.as_slice().len(), n);
    t
}

/// `QUERIES` addresses spread pseudo-randomly over the `n` windows (all hits,
/// so every lookup does the full search and the final bounds test).
fn queries(n: usize) -> Vec<DeviceAddr> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..QUERIES)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let w = (x % n as u64) * STRIDE;
            DeviceAddr(BASE + w + ((x >> 32) % (SIZE / 4)) * 4)
        })
        .collect()
}

/// Nanoseconds per lookup for one pass over `qs`.
fn sample(qs: &[DeviceAddr], find: impl Fn(DeviceAddr) -> Option<u32>) -> f64 {
    let t0 = Instant::now();
    let mut acc = 0u32;
    for &q in qs {
        acc = acc.wrapping_add(find(black_box(q)).unwrap_or(u32::MAX));
    }
    black_box(acc);
    t0.elapsed().as_nanos() as f64 / qs.len() as f64
}

/// The reference: the first region whose `[start, end)` holds `p`, scanning.
fn linear(regions: &[CsrRegion], p: DeviceAddr) -> Option<&CsrRegion> {
    regions.iter().find(|r| r.start() <= p && p < r.end())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let t4 = table::<4>(4);
    let t256 = table::<256>(256);
    let (q4, q256) = (queries(4), queries(256));

    // Both tables must give the same answers as the linear reference.
    for &q in &q256 {
        assert_eq!(t256.find(q), linear(t256.as_slice(), q));
    }

    let (mut s4, mut s256, mut l4, mut l256) = (vec![], vec![], vec![], vec![]);
    for rep in 0..REPS + 3 {
        let a = sample(&q4, |p| t4.find(p).map(|r| r.device_id()));
        let b = sample(&q256, |p| t256.find(p).map(|r| r.device_id()));
        let c = sample(&q4, |p| linear(t4.as_slice(), p).map(|r| r.device_id()));
        let d = sample(&q256, |p| linear(t256.as_slice(), p).map(|r| r.device_id()));
        if rep >= 3 {
            // The first reps warm caches and clocks.
            s4.push(a);
            s256.push(b);
            l4.push(c);
            l256.push(d);
        }
    }
    let (n4, n256, lin4, lin256) = (median(s4), median(s256), median(l4), median(l256));
    let ratio = n256 / n4;
    let lin_ratio = lin256 / lin4;
    let not_linear = ratio < 16.0;
    println!(
        "{}",
        serde_json::json!({
            "bench": "csr_region_lookup",
            "unit": "ns_per_lookup_median",
            "reps": REPS,
            "queries_per_rep": QUERIES,
            "binary_4": n4,
            "binary_256": n256,
            "ratio_256_over_4": ratio,
            "linear_4": lin4,
            "linear_256": lin256,
            "linear_ratio_256_over_4": lin_ratio,
            "not_linear": not_linear,
        })
    );
    if !not_linear {
        eprintln!("csr bench: 256/4 lookup ratio {ratio:.1} looks linear (limit 16)");
        std::process::exit(1);
    }
}
