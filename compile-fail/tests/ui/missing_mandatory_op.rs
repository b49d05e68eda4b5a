//! An arch that leaves out a mandatory (DVE) op does not compile [002 §3].
use khal::engine::{EngineParams, Step, StpbOps};
use khal::{Mmio, Result};

enum Incomplete {}

impl StpbOps for Incomplete {
    fn act_step<M: Mmio + ?Sized>(_: &M, _: Step, _: &EngineParams) -> Result<()> {
        Ok(())
    }
    // dve_step missing: a NULL DVE slot aborts in C; here it cannot be built.
}

fn main() {}
