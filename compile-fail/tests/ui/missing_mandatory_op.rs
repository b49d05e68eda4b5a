//! An arch that leaves out a mandatory (DVE) op does not compile [002 §3].
use khal::engine::{DveOps, EngineParams};
use khal::{Mmio, Result};

enum Incomplete {}

impl DveOps for Incomplete {
    fn dve_regs_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams) -> Result<()> {
        Ok(())
    }
    fn dve_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams) -> Result<()> {
        Ok(())
    }
    // dve_init missing: a NULL DVE slot aborts in C; here it cannot be built.
}

fn main() {}
