//! `khal_ir`: the driver `scripts/bench.sh` runs under callgrind.
//!
//! `khal_ir <scenario>` sets up one scenario and runs its measured kernel
//! (an `#[inline(never)]` function named `ir_*`) once, then prints `ops=<n>`,
//! the operation count `scripts/ir.sh` divides the kernel's inclusive
//! instruction count by. A scenario whose kernel got a wrong answer fails.
//!
//! - `nq:<consumer>:<backend>:<entries per call>`: `nq_side_by_side.rs`;
//! - `csr:<window|raw>:<read|write>`: `csr_layouts.rs`;
//! - `reg:<raw|typed>:<read|write>`: `registers.rs`.

mod c_reference;
mod csr_layouts;
mod nq_side_by_side;
mod registers;
mod setup;

use std::hint::black_box;
use std::process::ExitCode;

use registers::{ir_raw_read, ir_raw_write, ir_typed_read, ir_typed_write};
use setup::{Regs, N};

/// `reg:<raw|typed>:<read|write>`.
fn reg_scenario(spec: &str) -> Option<u64> {
    let mut regs = Regs::new();
    let p = regs.ptr();
    match spec {
        "reg:raw:write" => ir_raw_write(p),
        "reg:typed:write" => ir_typed_write(p),
        "reg:raw:read" => {
            black_box(ir_raw_read(p));
        }
        "reg:typed:read" => {
            black_box(ir_typed_read(p));
        }
        _ => return None,
    }
    Some(N as u64)
}

fn main() -> ExitCode {
    let which = std::env::args().nth(1).unwrap_or_default();
    let ops = match which.split(':').next() {
        Some("nq") => nq_side_by_side::scenario(&which),
        Some("csr") => csr_layouts::scenario(&which),
        Some("reg") => reg_scenario(&which),
        _ => {
            eprintln!(
                "usage: khal_ir nq:<phase|iter|cref|cphase|idle|idle2|cidle|cidle2|cpidle|cpidle2>:<dmabuf|static>:<batch>\n\
                 \x20      khal_ir csr:<window|raw>:<read|write>\n\
                 \x20      khal_ir reg:<raw|typed>:<read|write>"
            );
            return ExitCode::from(2);
        }
    };
    match ops {
        Some(n) => {
            println!("ops={n}");
            ExitCode::SUCCESS
        }
        None => {
            eprintln!("{which}: the scenario failed");
            ExitCode::FAILURE
        }
    }
}
