//! The TopSP doorbell setters `topsp_set_{init,tsync}_signal`,
//! `topsp_set_host_trigger`, `topsp_set_stop_signal` (slots `+0x6F8..+0x718`)
//! [topsp §3a, §8, §9], [FACTS §13.2].
//!
//! CAYMAN: `W(xt_local(h, 4, 0) + off, 1)`; SUNDA's setters tail-jump to
//! writers that add the register to their base, and its host_trigger writer
//! stores the caller's value (MED). A doorbell whose register or value is not
//! traced for the arch (SUNDA's init_signal: `+0x83C` is known, MED, the value
//! its setter writes is not) → `NotTraced`, nothing written.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::nx_local::{xt_local_window, OWNER_TOPSP};
use crate::family::{Doorbell, NxLocal, TopSpNx};
use crate::ids::Engine;
use crate::Mmio;

/// Ring `which` for the TPB memory handle `mem`; `value` is used only where
/// the arch's setter takes the caller's value (SUNDA host_trigger).
/// Returns the absolute address written.
pub fn topsp_doorbell<A: TopSpNx + NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
    which: Doorbell,
    value: u32,
) -> Result<DeviceAddr> {
    let window = xt_local_window::<A>(mem, Engine::Sp.index() as u32, OWNER_TOPSP)?;
    let rel = A::topsp_doorbell(which)?
        .get()
        .checked_sub(A::TOPSP.window_base?.get())
        .ok_or(Error::InvalidArgument("topsp doorbell below its window"))?;
    let addr = window.checked_add(rel, "topsp doorbell past 2^64")?;
    mmio.write32(addr, A::topsp_doorbell_value(which, value)?)?;
    Ok(addr)
}
