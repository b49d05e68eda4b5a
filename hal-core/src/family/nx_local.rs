//! NX / XT local registers and the per-engine XT/NX window
//! `get_xt_local_reg_offset(base, eng, owner)` [000 §2, §3], [004 §5],
//! [FACTS §3.6, §12.1, §13.1, §13.4].
//!
//! Each arch describes the registers the notes and the sibling pages decode
//! for it with [`register_block!`](crate::register_block) (so traces and
//! `khal decode` can name them) and hands out typed [`Reg`] handles; a
//! register nobody traced for an arch is `Err(NotTraced)` (the trait's
//! defaults say so once for all arches). A register an arch's leaf never
//! touches because the leaf is a no-op there (SUNDA's Q7 run-stall release,
//! its `disable_hw_decode` [FACTS §13.4]) is `Ok(Gated::Absent)`.
//!
//! The window: `xt_local(base, eng, owner) = base + table[eng]`; only eng 4
//! reads the owner byte (0 = the TopSP window, any other value = the TPB SP
//! block) [q7 §6a–§6b], [FACTS §13.1]. Callers: the STPB leaves pass the TPB
//! memory handle with owner [`OWNER_TPB`] (1); the TopSP setters pass
//! (4, [`OWNER_TOPSP`]) [arch-stpb §1, §3], [topsp §3a].
//!
//! Where the `+0xA00..+0xA14` registers sit (`NOTIFIC_SW_QUEUE_NUM2..4`) is a
//! conflict of sources: khal takes them from the caller's `tpb_regs` window,
//! not the XT/NX window (§13.10 #8, MED); the register descriptions are the
//! same either way.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::{Gated, Offset};
use crate::ids::Bounded;
use crate::regs::{BlockDesc, Field, Reg};

/// Index of an `nx_rsvd_space0..2` register.
pub type RsvdSpace = Bounded<3>;

/// The owner byte the STPB leaves pass (ACT/DVE/POOL iram-cache write, POOL
/// DGE, POOL run-stall) [arch-stpb §1, §3], [q7 §7.1], [FACTS §13.1].
pub const OWNER_TPB: u8 = 1;
/// The owner byte the TopSP setters pass with eng 4 [topsp §3a], [FACTS §13.1].
pub const OWNER_TOPSP: u8 = 0;

/// Which of the three NX `DMA_REGS` (CAYMAN `+0x10C0/+0x10E0/+0x1100`): a
/// 64-bit DMA address split, a flag selecting the low half [000r1 §3].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DmaReg {
    /// Low half, flag clear.
    LoA,
    /// Low half, flag set.
    LoB,
    /// High half.
    Hi,
}

/// The NX/XT local-register family.
pub trait NxLocal {
    /// The NX-local block description of this arch, or `Err(NotTraced)`.
    const NX_LOCAL_BLOCK: Result<&'static BlockDesc>;

    /// The XT-local block description of this arch, or `Err(NotTraced)`.
    const XT_LOCAL_BLOCK: Result<&'static BlockDesc>;

    /// The window offset of `get_xt_local_reg_offset(base, eng, owner)`
    /// [q7 §6], [FACTS §13.1]: `eng` is the raw engine index the C takes
    /// (PE=0 .. SP=4; CAYMAN also has a window 5 of unnamed role); an index
    /// the C asserts on → `OutOfRange`. Add it to the TPB memory handle with
    /// [`xt_local_window`].
    fn xt_local_reg_offset(eng: u32, owner: u8) -> Result<Offset>;

    /// NX `START_CTRL` (`program_start` writes 1).
    fn start_ctrl() -> Result<Reg>;

    /// `NOTIFIC_SW_QUEUE_NUM2` (read-modify-write of `EVENTS_SEMAPHORES_NT`).
    fn notific_sw_queue_num2() -> Result<Reg>;

    /// The `EVENTS_SEMAPHORES_NT` field of `NOTIFIC_SW_QUEUE_NUM2`.
    fn events_semaphores_nt() -> Result<Field>;

    /// NX `release_run_stall` of the sequencer: CAYMAN/MARIANA `+0x00`,
    /// SUNDA `+0x04` (§13.10 #6) [hw-decode §5b, §7].
    fn release_run_stall() -> Result<Reg>;

    /// `nx_rsvd_space0..2` (the SUNDA Q7 swap table's registers).
    fn nx_rsvd_space(i: RsvdSpace) -> Result<Reg>;

    /// The XT `memcopy_dmas` offset (a pure getter, no I/O).
    fn memcopy_dmas_offset() -> Result<Offset>;

    /// NX `start_addr_lo` (`program_start`). CAYMAN `+0x1060` (MED
    /// [000r1 §3]); NOT TRACED elsewhere (the default).
    fn start_addr_lo() -> Result<Reg> {
        Err(Error::NotTraced("nx start_addr_lo offset"))
    }

    /// NX `start_addr_hi` (`program_start`). CAYMAN `+0x1080` (MED
    /// [000r1 §3]); NOT TRACED elsewhere (the default).
    fn start_addr_hi() -> Result<Reg> {
        Err(Error::NotTraced("nx start_addr_hi offset"))
    }

    /// `NOTIFIC_SW_QUEUE_NUM3` (its `ERRORS_NT` field, [`NxLocal::errors_nt`]).
    fn notific_sw_queue_num3() -> Result<Reg> {
        Err(Error::NotTraced("notific_sw_queue_num3"))
    }

    /// `NOTIFIC_SW_QUEUE_NUM3.ERRORS_NT`.
    fn errors_nt() -> Result<Field> {
        Err(Error::NotTraced("notific_sw_queue_num3.errors_nt field"))
    }

    /// `NOTIFIC_SW_QUEUE_NUM4` (HAM throttle fields).
    fn notific_sw_queue_num4() -> Result<Reg> {
        Err(Error::NotTraced("notific_sw_queue_num4"))
    }

    /// `NOTIFIC_SW_QUEUE_NUM4.HAM_THROTTLE` and `.HAM_THROTTLE_EN`.
    fn ham_throttle_fields() -> Result<(Field, Field)> {
        Err(Error::NotTraced(
            "notific_sw_queue_num4 ham_throttle fields",
        ))
    }

    /// `EVENTS_SEMAPHORES NOTIFIC_CTRL` (`+0x808` on SUNDA and CAYMAN).
    fn notific_ctrl() -> Result<Reg> {
        Err(Error::NotTraced("events_semaphores notific_ctrl"))
    }

    /// NX `DMA_CTRL` (CAYMAN `+0x10A0`).
    fn dma_ctrl() -> Result<Reg> {
        Err(Error::NotTraced("nx dma_ctrl"))
    }

    /// One of the NX `DMA_REGS`.
    fn dma_reg(which: DmaReg) -> Result<Reg> {
        let _ = which;
        Err(Error::NotTraced("nx dma_regs"))
    }

    /// The XT `memcopy_queues` offset (pure getter).
    fn memcopy_queues_offset() -> Result<Offset> {
        Err(Error::NotTraced("xt memcopy_queues offset"))
    }

    /// The XT `memcopy_all` offset (pure getter).
    fn memcopy_all_offset() -> Result<Offset> {
        Err(Error::NotTraced("xt memcopy_all offset"))
    }

    /// XT `iram_cache_block_size` (`+0x1260`, CAYMAN `lr[19]`) that the
    /// regs_init leaves write [arch-stpb §1], [FACTS §13.6].
    fn iram_cache_block_size() -> Result<Reg> {
        Err(Error::NotTraced("xt iram_cache_block_size"))
    }

    /// XT `Q7_RELEASE_RUN_STALL` (CAYMAN `+0x3000`); `Absent` where the
    /// arch's release_eng_run_stall is a no-op (SUNDA) [FACTS §13.4].
    fn q7_release_run_stall() -> Result<Gated<Reg>> {
        Err(Error::NotTraced("xt q7_release_run_stall"))
    }

    /// XT `HW_DECODE_CONTROL` (CAYMAN `+0x4000`, bit 0 = disable hw decode);
    /// `Absent` where `disable_hw_decode` is a no-op (SUNDA) [FACTS §13.4].
    fn hw_decode_control() -> Result<Gated<Reg>> {
        Err(Error::NotTraced("xt hw_decode_control"))
    }
}

/// The absolute XT/NX window of engine `eng` for the TPB memory handle
/// `base`: `base + xt_local_reg_offset(eng, owner)` [q7 §6], [FACTS §13.1].
pub fn xt_local_window<A: NxLocal>(base: DeviceAddr, eng: u32, owner: u8) -> Result<DeviceAddr> {
    Ok(A::xt_local_reg_offset(eng, owner)?.at(base))
}

/// `eng_to_xt`: engines 0..4 map to themselves, anything else to 6 (logged)
/// [hal-registers §3], [FACTS §13.1].
pub const fn eng_to_xt(eng: u32) -> u32 {
    if eng <= 4 {
        eng
    } else {
        6
    }
}
