//! NX / XT local registers: fixed offsets added to an engine's register-window
//! base [000 §2, §3], [004 §5], [FACTS §3.6].
//!
//! Each arch describes the registers the notes decode for it with
//! [`register_block!`](crate::register_block) (so traces and `khal decode`
//! can name them) and hands out typed [`Reg`] handles; a register nobody traced
//! for an arch is `Err(NotTraced)`. The window base itself
//! (`xt_local_reg_offset(eng)`) is NOT TRACED on every arch.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::Offset;
use crate::ids::{Bounded, Engine};
use crate::regs::{BlockDesc, Field, Reg};

/// Index of an `nx_rsvd_space0..2` register.
pub type RsvdSpace = Bounded<3>;

/// The NX/XT local-register family.
pub trait NxLocal {
    /// The NX-local block description of this arch, or `Err(NotTraced)`.
    const NX_LOCAL_BLOCK: Result<&'static BlockDesc>;

    /// The XT-local block description of this arch, or `Err(NotTraced)`.
    const XT_LOCAL_BLOCK: Result<&'static BlockDesc>;

    /// NX `START_CTRL` (`program_start` writes 1).
    fn start_ctrl() -> Result<Reg>;

    /// `NOTIFIC_SW_QUEUE_NUM2` (read-modify-write of `EVENTS_SEMAPHORES_NT`).
    fn notific_sw_queue_num2() -> Result<Reg>;

    /// The `EVENTS_SEMAPHORES_NT` field of `NOTIFIC_SW_QUEUE_NUM2`.
    fn events_semaphores_nt() -> Result<Field>;

    /// NX `release_run_stall`.
    fn release_run_stall() -> Result<Reg>;

    /// `nx_rsvd_space0..2` (the SUNDA Q7 swap table's registers).
    fn nx_rsvd_space(i: RsvdSpace) -> Result<Reg>;

    /// The XT `memcopy_dmas` offset (a pure getter, no I/O).
    fn memcopy_dmas_offset() -> Result<Offset>;

    /// NX `start_addr_lo` (`program_start`). NOT TRACED on every arch
    /// [FACTS §3.6]: the default answers so, once for all arches; an arch whose
    /// offset becomes known overrides it.
    fn start_addr_lo() -> Result<Reg> {
        Err(Error::NotTraced("nx start_addr_lo offset"))
    }

    /// NX `start_addr_hi` (`program_start`). NOT TRACED on every arch [FACTS §3.6].
    fn start_addr_hi() -> Result<Reg> {
        Err(Error::NotTraced("nx start_addr_hi offset"))
    }

    /// The per-engine XT-local register window base
    /// (`aws_hal_arch_get_xt_local_reg_offset`). NOT TRACED on every arch
    /// [FACTS §3.6, §5].
    fn xt_local_reg_offset(eng: Engine) -> Result<DeviceAddr> {
        let _ = eng;
        Err(Error::NotTraced("xt_local_reg_offset (engine window base)"))
    }
}
