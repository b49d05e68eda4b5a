//! The run-stall releases and `disable_hw_decode` [hw-decode §4–§7],
//! [q7 §7.1], [csr §3–§4, §7], [FACTS §13.4].
//!
//! All three work in the POOL XT/NX window `xt_local(mem, 2, 1)` (CAYMAN and
//! MARIANA: MED) and differ per arch only through the registers the arch
//! gives: the sequencer release writes 0 at NX `+0x00` (CAYMAN/MARIANA) or
//! `+0x04` (SUNDA; §13.10 #6); the Q7 release writes 0 at `+0x3000` and is a
//! no-op on SUNDA; `disable_hw_decode` is a read-modify-write of bit 0 of
//! `+0x4000` and a no-op on SUNDA. POOL releases the sequencer first, then the
//! Q7 cores [hw-decode §6]. The PE/ACT/DVE and SP releases are NOT TRACED
//! (§13.11): only that they "release one stall" [arch-stpb §3].

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::nx_local::{xt_local_window, OWNER_TPB};
use crate::family::{Gated, NxLocal};
use crate::ids::Engine;
use crate::Mmio;

/// The POOL XT/NX window of the TPB memory handle `mem`: `xt_local(mem, 2, 1)`.
pub fn pool_window<A: NxLocal>(mem: DeviceAddr) -> Result<DeviceAddr> {
    xt_local_window::<A>(mem, Engine::Pool.index() as u32, OWNER_TPB)
}

/// `pooling_release_seq_run_stall(mem)`: W NX `release_run_stall` = 0 in the
/// POOL window [hw-decode §5b, §7]. Every value is resolved before the write.
pub fn release_seq_run_stall<A: NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
) -> Result<()> {
    let w = pool_window::<A>(mem)?;
    let reg = A::NX_LOCAL_REGS.release_run_stall?;
    debug!("release_seq_run_stall at {:#x}", reg.addr(w).get());
    reg.write(mmio, w, 0)
}

/// `pooling_release_eng_run_stall(mem)`: W XT `Q7_RELEASE_RUN_STALL` = 0
/// (one write frees all 8 cores, reset `0xFF` [csr §4]); no-op on SUNDA
/// [hw-decode §5–§6].
pub fn release_eng_run_stall<A: NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
) -> Result<()> {
    let w = pool_window::<A>(mem)?;
    match A::NX_LOCAL_REGS.q7_release_run_stall? {
        Gated::Absent => Ok(()),
        Gated::Present(reg) => reg.write(mmio, w, 0),
    }
}

/// `disable_hw_decode(window, v)`: RMW XT `HW_DECODE_CONTROL`:
/// `(r & 0xFFFF_FFFE) | (v != 0)`, keeping bit 1 (ordering mode), bits 18:2
/// and bit 20 [hw-decode §7], [csr §7]; no-op on SUNDA. `window` is POOL's
/// XT/NX window ([`pool_window`]) for every engine's HW-decode table init
/// [FACTS §13.4].
pub fn disable_hw_decode<A: NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    window: DeviceAddr,
    v: u32,
) -> Result<()> {
    if let Gated::Present(reg) = A::NX_LOCAL_REGS.hw_decode_control? {
        reg.modify(mmio, window, |r| (r & 0xFFFF_FFFE) | u32::from(v != 0))?;
    }
    Ok(())
}

/// The release program of one engine, as `khal trace release-run-stall`
/// runs it: POOL = `release_seq_run_stall` then `release_eng_run_stall`;
/// PE/ACT/DVE/SP → `NotTraced` (their offsets are §13.11), nothing written.
pub fn release_run_stall<A: NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
    eng: Engine,
) -> Result<()> {
    match eng {
        Engine::Pool => {
            // Resolve both before the first write.
            pool_window::<A>(mem)?;
            A::NX_LOCAL_REGS.release_run_stall?;
            A::NX_LOCAL_REGS.q7_release_run_stall?;
            release_seq_run_stall::<A, M>(mmio, mem)?;
            release_eng_run_stall::<A, M>(mmio, mem)
        }
        Engine::Pe | Engine::Act | Engine::Dve => Err(Error::NotTraced(
            "release_run_stall of PE/ACT/DVE (same NX writer as POOL is only MED)",
        )),
        Engine::Sp => Err(Error::NotTraced("sp release_run_stall body")),
    }
}
