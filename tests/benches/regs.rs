//! Bench: typed register access vs raw volatile, in time (the instruction
//! counts come from `scripts/bench.sh`, which runs the same kernels under
//! callgrind).
//!
//! The kernels are shared with the callgrind driver (`tests/src/bin/khal_ir`):
//! `N` writes (or reads) of one register through its `register_block!` handle
//! over the firmware `VolatileWindow`, against `N` raw `write_volatile` /
//! `read_volatile` of the same dword. Each pair runs interleaved, 21 times,
//! and the bench prints the ratio of the medians (target 1.00) as one JSON
//! line, so a noisy 2-core machine slows both sides alike.

#[path = "../src/bin/khal_ir/registers.rs"]
mod registers;
#[path = "../src/bin/khal_ir/setup.rs"]
mod setup;

use std::hint::black_box;

use registers::*;
use setup::{Regs, N};

/// Time `f` and `g` interleaved, `reps` times each: the ratio of their
/// median durations (`f / g`) and both medians in nanoseconds. The
/// interleaving makes a noisy neighbour slow both sides alike.
fn median_ratio(reps: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, u128, u128) {
    let (mut tf, mut tg) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps {
        let t = std::time::Instant::now();
        f();
        tf.push(t.elapsed().as_nanos());
        let t = std::time::Instant::now();
        g();
        tg.push(t.elapsed().as_nanos());
    }
    tf.sort_unstable();
    tg.sort_unstable();
    let (mf, mg) = (tf[reps / 2], tg[reps / 2]);
    (mf as f64 / mg.max(1) as f64, mf, mg)
}

fn main() {
    const REPS: usize = 21;
    let mut regs = Regs::new();
    let p = regs.ptr();
    // Warm up both sides once.
    ir_raw_write(p);
    ir_typed_write(p);
    let (w, wt, wr) = median_ratio(
        REPS,
        || ir_typed_write(black_box(p)),
        || ir_raw_write(black_box(p)),
    );
    let (r, rt, rr) = median_ratio(
        REPS,
        || {
            black_box(ir_typed_read(black_box(p)));
        },
        || {
            black_box(ir_raw_read(black_box(p)));
        },
    );
    println!(
        "{{\"bench\":\"regs\",\"ops_per_rep\":{N},\"reps\":{REPS},\
         \"typed_vs_raw_write_time\":{w:.3},\"typed_write_median_ns\":{wt},\"raw_write_median_ns\":{wr},\
         \"typed_vs_raw_read_time\":{r:.3},\"typed_read_median_ns\":{rt},\"raw_read_median_ns\":{rr}}}"
    );
}
