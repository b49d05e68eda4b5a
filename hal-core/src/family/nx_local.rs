//! NX / XT local registers and the per-engine XT/NX window
//! `get_xt_local_reg_offset(base, eng, owner)` [000 §2, §3], [004 §5],
//! [FACTS §3.6, §12.1, §13.1, §13.4].
//!
//! Each arch describes the registers the notes and the sibling pages decode
//! for it with [`register_block!`](crate::register_block) (so traces and
//! `khal decode` can name them) and states its typed [`Reg`] handles once,
//! in its [`NxLocalRegs`] table; a register nobody traced for an arch is
//! `Err(NotTraced)` ([`NxLocalRegs::DEFAULTS`] say so once for all arches). A
//! register an arch's leaf never touches because the leaf is a no-op there
//! (SUNDA's Q7 run-stall release, its `disable_hw_decode` [FACTS §13.4]) is
//! `Ok(Gated::Absent)`.
//!
//! The window: `xt_local(base, eng, owner) = base + table[eng]`; only eng 4
//! reads the owner byte (0 = the TopSP window, any other value = the TPB SP
//! block) [q7 §6a–§6b], [FACTS §13.1]. Callers: the STPB leaves pass the TPB
//! memory handle with owner [`OWNER_TPB`] (1); the TopSP setters pass
//! (4, [`OWNER_TOPSP`]) [arch-stpb §1, §3], [topsp §3a].
//!
//! Where the `+0xA00..+0xA18` registers sit (`NOTIFIC_SW_QUEUE_NUM2..4` among
//! them) is a conflict of sources: khal takes them from the caller's
//! `tpb_regs` window, not the XT/NX window (§13.10 #8, MED), and describes
//! them there ([`crate::engine::tpb_regs::TPB_REGS`], the SW-queue selectors
//! of [FACTS §15.1]); this family says per arch which of them is traced.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::{Gated, Offset};
use crate::regs::{BlockDesc, Field, Reg};

/// The owner byte the STPB leaves pass (ACT/DVE/POOL iram-cache write, POOL
/// DGE, POOL run-stall) [arch-stpb §1, §3], [q7 §7.1], [FACTS §13.1].
pub const OWNER_TPB: u8 = 1;
/// The owner byte the TopSP setters pass with eng 4 [topsp §3a], [FACTS §13.1].
pub const OWNER_TOPSP: u8 = 0;

/// One arch's `get_xt_local_reg_offset` table [q7 §6a–§6b], [FACTS §13.1]:
/// the values each arch states once (with their grades), the lookup written
/// once ([`NxLocal::xt_local_reg_offset`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XtWindows {
    /// eng 0..3 (PE, ACT, POOL, DVE).
    pub engines: [u64; 4],
    /// eng 4 with owner [`OWNER_TOPSP`] (0): the TopSP window.
    pub topsp: u64,
    /// eng 4 with any other owner: the TPB SP block's window.
    pub sp: u64,
    /// eng 5: `None` where the C asserts on it (SUNDA: eng > 4); its window,
    /// or `Err(NotTraced)`, where the arch has one (eng > 5 asserts).
    pub eng5: Option<Result<u64>>,
    /// The name of the `OutOfRange` an asserting index gets (the C assert).
    pub assert_what: &'static str,
}

impl XtWindows {
    /// The window offset of engine `eng` with owner byte `owner`; only eng 4
    /// reads the owner; an index past the table → `OutOfRange` (the C assert).
    pub(crate) fn offset(&self, eng: u32, owner: u8) -> Result<Offset> {
        // The C asserts `eng < 5`, or `eng < 6` where window 5 exists.
        let limit = 5 + self.eng5.is_some() as u64;
        let v = match (eng, self.eng5) {
            (0..=3, _) => self.engines.get(eng as usize).copied().unwrap_or(0),
            (4, _) if owner == OWNER_TOPSP => self.topsp,
            (4, _) => self.sp,
            (5, Some(eng5)) => eng5?,
            _ => return Err(Error::out_of_range(self.assert_what, eng.into(), limit)),
        };
        Ok(Offset(v))
    }
}

/// One arch's NX / XT local registers, offsets from an engine's XT/NX window
/// unless noted: the table each arch states once (with each value's grade),
/// starting from [`NxLocalRegs::DEFAULTS`] for what it does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NxLocalRegs {
    /// NX `START_CTRL` (`program_start` writes 1).
    pub start_ctrl: Result<Reg>,
    /// NX `start_addr_lo` (`program_start`). CAYMAN `+0x1060` (MED
    /// [000r1 §3]).
    pub start_addr_lo: Result<Reg>,
    /// NX `start_addr_hi` (`program_start`). CAYMAN `+0x1080` (MED
    /// [000r1 §3]).
    pub start_addr_hi: Result<Reg>,
    /// `NOTIFIC_SW_QUEUE_NUM2` (read-modify-write of `EVENTS_SEMAPHORES_NT`).
    pub notific_sw_queue_num2: Result<Reg>,
    /// The `EVENTS_SEMAPHORES_NT` field of `NOTIFIC_SW_QUEUE_NUM2`.
    pub events_semaphores_nt: Result<Field>,
    /// `NOTIFIC_SW_QUEUE_NUM3` (its `ERRORS_NT` field, `errors_nt`):
    /// `tpb_regs + 0xA0C` on every arch (MED [000r1 §3]: CAYMAN, "SUNDA
    /// `+0xA0C` too"; MARIANA as CAYMAN [FACTS §15.3]), the register of the
    /// generic error enable [002 §4].
    pub notific_sw_queue_num3: Result<Reg>,
    /// `NOTIFIC_SW_QUEUE_NUM3.ERRORS_NT`: mask `0xF`, shift 0 (MED [000r1 §3]).
    pub errors_nt: Result<Field>,
    /// `NOTIFIC_SW_QUEUE_NUM4` (HAM throttle fields).
    pub notific_sw_queue_num4: Result<Reg>,
    /// `NOTIFIC_SW_QUEUE_NUM4.HAM_THROTTLE` and `.HAM_THROTTLE_EN`.
    pub ham_throttle_fields: Result<(Field, Field)>,
    /// NX `release_run_stall` of the sequencer: CAYMAN/MARIANA `+0x00`,
    /// SUNDA `+0x04` (§13.10 #6) [hw-decode §5b, §7].
    pub release_run_stall: Result<Reg>,
    /// `nx_rsvd_space0..2` (the SUNDA Q7 swap table's registers), in order.
    pub nx_rsvd_space: Result<[Reg; 3]>,
    /// `EVENTS_SEMAPHORES NOTIFIC_CTRL` (`+0x808` on SUNDA and CAYMAN).
    pub notific_ctrl: Result<Reg>,
    /// NX `DMA_CTRL` (CAYMAN `+0x10A0`).
    pub dma_ctrl: Result<Reg>,
    /// The three NX `DMA_REGS` (CAYMAN `+0x10C0/+0x10E0/+0x1100`), a 64-bit
    /// DMA address split: low half with the flag clear, low half with the
    /// flag set, high half [000r1 §3].
    pub dma_regs: Result<[Reg; 3]>,
    /// The XT `memcopy_dmas` offset (a pure getter, no I/O).
    pub memcopy_dmas_offset: Result<Offset>,
    /// The XT `memcopy_queues` offset (pure getter).
    pub memcopy_queues_offset: Result<Offset>,
    /// The XT `memcopy_all` offset (pure getter).
    pub memcopy_all_offset: Result<Offset>,
    /// XT `iram_cache_block_size` (`+0x1260`, CAYMAN `lr[19]`) that the
    /// regs_init leaves write [arch-stpb §1], [FACTS §13.6].
    pub iram_cache_block_size: Result<Reg>,
    /// XT `Q7_RELEASE_RUN_STALL` (CAYMAN `+0x3000`); `Absent` where the
    /// arch's release_eng_run_stall is a no-op (SUNDA) [FACTS §13.4].
    pub q7_release_run_stall: Result<Gated<Reg>>,
    /// XT `HW_DECODE_CONTROL` (CAYMAN `+0x4000`, bit 0 = disable hw decode);
    /// `Absent` where `disable_hw_decode` is a no-op (SUNDA) [FACTS §13.4].
    pub hw_decode_control: Result<Gated<Reg>>,
    /// NX `SW_DGE_CARVEOUT` (device: local reg 39 `MEMCOPY_CARVEOUT_CFG`) in
    /// the POOL window (`xt_local(mem, 2, 1)`): CAYMAN `+0x14E0` (MED
    /// [000r1 §3]) [devmap-dma §6.3].
    pub sw_dge_carveout: Result<Reg>,
    /// NX `SW_DGE_DMA_MAPPING` (device: local reg 40 `MEMCOPY_DMA_CFG`):
    /// CAYMAN `+0x1500` (MED [000r1 §3]) [devmap-dma §6.3].
    pub sw_dge_dma_mapping: Result<Reg>,
}

impl NxLocalRegs {
    /// Every register NOT TRACED, but the two every arch has: the
    /// `NOTIFIC_SW_QUEUE_NUM3` register and its `ERRORS_NT` field
    /// (`tpb_regs + 0xA0C`, mask `0xF`, MED [000r1 §3], [FACTS §15.3]).
    pub const DEFAULTS: NxLocalRegs = NxLocalRegs {
        start_ctrl: Err(Error::NotTraced("nx start_ctrl")),
        start_addr_lo: Err(Error::NotTraced("nx start_addr_lo offset")),
        start_addr_hi: Err(Error::NotTraced("nx start_addr_hi offset")),
        notific_sw_queue_num2: Err(Error::NotTraced("notific_sw_queue_num2")),
        events_semaphores_nt: Err(Error::NotTraced("events_semaphores_nt field")),
        notific_sw_queue_num3: Ok(crate::engine::tpb_regs::SW_QUEUE_NUM3),
        errors_nt: Ok(crate::engine::tpb_regs::sw_queue_num3::ERRORS),
        notific_sw_queue_num4: Err(Error::NotTraced("notific_sw_queue_num4")),
        ham_throttle_fields: Err(Error::NotTraced(
            "notific_sw_queue_num4 ham_throttle fields",
        )),
        release_run_stall: Err(Error::NotTraced("nx release_run_stall")),
        nx_rsvd_space: Err(Error::NotTraced("nx_rsvd_space registers")),
        notific_ctrl: Err(Error::NotTraced("events_semaphores notific_ctrl")),
        dma_ctrl: Err(Error::NotTraced("nx dma_ctrl")),
        dma_regs: Err(Error::NotTraced("nx dma_regs")),
        memcopy_dmas_offset: Err(Error::NotTraced("xt memcopy_dmas offset")),
        memcopy_queues_offset: Err(Error::NotTraced("xt memcopy_queues offset")),
        memcopy_all_offset: Err(Error::NotTraced("xt memcopy_all offset")),
        iram_cache_block_size: Err(Error::NotTraced("xt iram_cache_block_size")),
        q7_release_run_stall: Err(Error::NotTraced("xt q7_release_run_stall")),
        hw_decode_control: Err(Error::NotTraced("xt hw_decode_control")),
        sw_dge_carveout: Err(Error::NotTraced("sw_dge_carveout register offset")),
        sw_dge_dma_mapping: Err(Error::NotTraced("sw_dge_dma_mapping register offset")),
    };

    /// The same table with the SW-queue selectors of `tpb_regs` that an arch's
    /// notes give (CAYMAN): `NOTIFIC_SW_QUEUE_NUM2` (`+0xA08`) with its
    /// `EVENTS_SEMAPHORES_NT` field (mask `0xF_0000`) [000 §2], and
    /// `NOTIFIC_SW_QUEUE_NUM4` (`+0xA10`) with `HAM_THROTTLE` (mask `0xF0`) and
    /// `HAM_THROTTLE_EN` (mask `0x10_0000`) (MED [000r1 §3]). They sit in
    /// `tpb_regs`, not the XT/NX window (FACTS §13.10 #8, MED), which describes
    /// them once ([`TPB_REGS`](crate::engine::tpb_regs::TPB_REGS)).
    pub const fn with_tpb_sw_queues(self) -> NxLocalRegs {
        use crate::engine::tpb_regs::{sw_queue_num2, sw_queue_num4, SW_QUEUE_NUM2, SW_QUEUE_NUM4};
        NxLocalRegs {
            notific_sw_queue_num2: Ok(SW_QUEUE_NUM2),
            events_semaphores_nt: Ok(sw_queue_num2::EVENTS_SEMAPHORES),
            notific_sw_queue_num4: Ok(SW_QUEUE_NUM4),
            ham_throttle_fields: Ok((sw_queue_num4::HAM_THROTTLE, sw_queue_num4::HAM_THROTTLE_EN)),
            ..self
        }
    }
}

/// The NX/XT local-register family.
pub trait NxLocal {
    /// The NX-local block description of this arch, or `Err(NotTraced)`.
    const NX_LOCAL_BLOCK: Result<&'static BlockDesc>;

    /// The XT-local block description of this arch, or `Err(NotTraced)`.
    const XT_LOCAL_BLOCK: Result<&'static BlockDesc>;

    /// The arch's `get_xt_local_reg_offset` table.
    const XT_WINDOW_TABLE: XtWindows;

    /// The arch's NX / XT local registers.
    const NX_LOCAL_REGS: NxLocalRegs;

    /// The window offset of `get_xt_local_reg_offset(base, eng, owner)`
    /// [q7 §6], [FACTS §13.1]: `eng` is the raw engine index the C takes
    /// (PE=0 .. SP=4; CAYMAN also has a window 5 of unnamed role); an index
    /// the C asserts on → `OutOfRange`. The window is the TPB memory handle
    /// plus this offset.
    fn xt_local_reg_offset(eng: u32, owner: u8) -> Result<Offset> {
        Self::XT_WINDOW_TABLE.offset(eng, owner)
    }
}

/// The absolute XT/NX window of engine `eng` for the TPB memory handle
/// `base`: `base + xt_local_reg_offset(eng, owner)` [q7 §6], [FACTS §13.1];
/// a sum past 2^64 is refused (`InvalidArgument`), not wrapped.
pub(crate) fn xt_local_window<A: NxLocal>(
    base: DeviceAddr,
    eng: u32,
    owner: u8,
) -> Result<DeviceAddr> {
    let off = A::xt_local_reg_offset(eng, owner)?.get();
    base.checked_add(off, "xt/nx window past 2^64")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: XtWindows = XtWindows {
        engines: [0x10, 0x20, 0x30, 0x40],
        topsp: 0x6_0000,
        sp: 0x50,
        eng5: None,
        assert_what: "four-window assert",
    };

    /// The one lookup every arch's table goes through: eng 4 alone reads the
    /// owner, and the assert's index limit follows whether eng 5 exists.
    #[test]
    fn xt_windows_lookup_and_its_asserts() {
        assert_eq!(TABLE.offset(2, 1), Ok(Offset(0x30)));
        assert_eq!(TABLE.offset(3, 0), Ok(Offset(0x40)));
        assert_eq!(TABLE.offset(4, OWNER_TOPSP), Ok(Offset(0x6_0000)));
        assert_eq!(TABLE.offset(4, OWNER_TPB), Ok(Offset(0x50)));
        assert_eq!(TABLE.offset(4, 0xFF), Ok(Offset(0x50)));
        let oor = |what, value, limit| Err(Error::out_of_range(what, value, limit));
        assert_eq!(TABLE.offset(5, 0), oor("four-window assert", 5, 5));
        let six = XtWindows {
            eng5: Some(Ok(0x60)),
            assert_what: "six-window assert",
            ..TABLE
        };
        assert_eq!(six.offset(5, 0), Ok(Offset(0x60)));
        assert_eq!(six.offset(5, 1), Ok(Offset(0x60)));
        assert_eq!(six.offset(6, 0), oor("six-window assert", 6, 6));
        assert_eq!(
            six.offset(u32::MAX, 0),
            oor("six-window assert", u64::from(u32::MAX), 6)
        );
        let untraced = XtWindows {
            eng5: Some(Err(Error::NotTraced("window 5"))),
            ..six
        };
        assert_eq!(untraced.offset(5, 0), Err(Error::NotTraced("window 5")));
        assert_eq!(untraced.offset(0, 0), Ok(Offset(0x10)));
    }

    enum Four {}
    impl NxLocal for Four {
        const NX_LOCAL_BLOCK: Result<&'static BlockDesc> = Err(Error::NotTraced("nx"));
        const XT_LOCAL_BLOCK: Result<&'static BlockDesc> = Err(Error::NotTraced("xt"));
        const XT_WINDOW_TABLE: XtWindows = TABLE;
        const NX_LOCAL_REGS: NxLocalRegs = NxLocalRegs::DEFAULTS;
    }

    /// The window is the memory handle plus the table's offset; a sum past
    /// 2^64 is refused, never wrapped.
    #[test]
    fn xt_local_window_refuses_a_memory_handle_past_the_top() {
        let mem = DeviceAddr(0x100_0000);
        assert_eq!(
            xt_local_window::<Four>(mem, 2, 1),
            Ok(DeviceAddr(0x100_0030))
        );
        for mem in [DeviceAddr(u64::MAX - 0x2F), DeviceAddr(u64::MAX)] {
            assert!(matches!(
                xt_local_window::<Four>(mem, 2, 1),
                Err(Error::InvalidArgument(_))
            ));
        }
        assert_eq!(
            xt_local_window::<Four>(DeviceAddr(u64::MAX - 0x30), 2, 1),
            Ok(DeviceAddr(u64::MAX))
        );
    }
}
