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

#[path = "../src/bin/khal_ir/kernels.rs"]
mod kernels;
// The kernels' setup draws addresses from it (none that this bench runs).
#[path = "../src/bin/khal_ir/lcg.rs"]
#[allow(dead_code)]
mod lcg;

use std::hint::black_box;

use kernels::*;

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
    let (a, at, ar) = median_ratio(
        REPS,
        || ir_typed_array_write(black_box(p)),
        || ir_raw_array_write(black_box(p)),
    );
    println!(
        "{{\"bench\":\"regs\",\"ops_per_rep\":{N},\"reps\":{REPS},\
         \"typed_vs_raw_write_time\":{w:.3},\"typed_write_median_ns\":{wt},\"raw_write_median_ns\":{wr},\
         \"typed_vs_raw_read_time\":{r:.3},\"typed_read_median_ns\":{rt},\"raw_read_median_ns\":{rr},\
         \"typed_array_vs_raw_write_time\":{a:.3},\"typed_array_write_median_ns\":{at},\"raw_array_write_median_ns\":{ar}}}"
    );
}
