//! MARIANA's engine bring-up data [FACTS §12.1, §13]. The sibling pages table
//! little of MARIANA: its XT/NX windows are "Cayman-like" (MED [q7 §6b, §9]),
//! its TopSP host_trigger and basic_block_switch are byte-checked
//! [ncfw §4.7], the run-stall releases and `disable_hw_decode` are decoded per
//! arch [hw-decode §5b, §7], the Q7 geometry is byte-identical to CAYMAN's
//! [q7 §3]. The windows "as CAYMAN" are kept, MED, with the device-side
//! support of [FACTS §15.3] (all 7 CAYMAN bundles byte-identical on v4), as
//! [FACTS §13.11] allows; what rests only on "same as CAYMAN" beyond them (the
//! TopSP init/tsync/stop doorbells, the HW-decode bases, the other NX/XT
//! registers) stays NOT TRACED. Given on every arch and so here too: XT
//! `iram_cache_block_size` `+0x1260`, which MARIANA's own `dve_regs_init`
//! writes [arch-stpb §1], and `sw_queue_num3.errors_nt` at `tpb_regs + 0xA0C`
//! (MED [000r1 §3]), the generic error enable's register [002 §4].

use khal_arch_cayman::engine as cayman;
use khal_arch_cayman::Cayman;
use khal_core::family::{
    DgeRegs, Gated, HwDecode, IramSizes, NxLocal, NxLocalRegs, Offset, Q7Owner, Q7Param, Q7Params,
    Sdma, SdmaLimits, TopSpNx, TopSpTable, TpbRegGates, XtWindows,
};
use khal_core::regs::BlockDesc;
use khal_core::DeviceAddr;
use khal_core::Engine;
use khal_core::{Error, Result};

use crate::Mariana;

/// TopSP `host_trigger` `0x6_15A0`, byte-checked [ncfw §4.7].
const TOPSP_HOST_TRIGGER: Offset = Offset(0x6_15A0);
/// TopSP `basic_block_switch` `0x6_15E0`, byte-checked [ncfw §4.7].
const TOPSP_BASIC_BLOCK_SWITCH: Offset = Offset(0x6_15E0);

/// The MARIANA NX/XT registers the per-arch decodes and the leaves give
/// [hw-decode §5b, §7], [arch-stpb §1], offsets from an engine's XT/NX window
/// (MED: the window itself is "Cayman-like", [FACTS §15.3]). Access kinds are
/// not traced; `rw` is recorded.
pub mod regs {
    khal_core::register_block! {
        /// MARIANA TPB NX-local registers [hw-decode §5b].
        pub NX_LOCAL: "tpb_nx_local" {
            /// NX `release_run_stall`: the sequencer release writes 0
            /// [hw-decode §5b, §7].
            RELEASE_RUN_STALL @ 0x0, rw, "release_run_stall";
        }
    }

    khal_core::register_block! {
        /// MARIANA TPB XT-local registers [hw-decode §5, §7].
        pub XT_LOCAL: "tpb_xt_local" {
            /// `Q7_RELEASE_RUN_STALL`: one write of 0 frees the cores [hw-decode §5].
            Q7_RELEASE_RUN_STALL @ 0x3000, rw, "q7_release_run_stall";
            /// `iram_cache_block_size`, written by every arch's regs_init
            /// leaves, MARIANA's `dve_regs_init` among them [arch-stpb §1].
            IRAM_CACHE_BLOCK_SIZE @ 0x1260, rw, "iram_cache_block_size";
            /// `HW_DECODE_CONTROL`, bit 0 = disable HW decode [hw-decode §7].
            HW_DECODE_CONTROL @ 0x4000, rw, "hw_decode_control", fields hw_decode {
                /// Bit 0: disable HW decode.
                DISABLE: 0..=0,
            };
        }
    }
}

/// MARIANA's byte-checked TopSP registers, offsets from the TopSP window
/// [ncfw §4.7].
pub mod topsp_regs {
    khal_core::register_block! {
        /// MARIANA TopSP-NX registers [ncfw §4.7], [FACTS §13.2].
        pub TOPSP_NX: "topsp_nx" {
            /// `host_trigger` [ncfw §4.7].
            HOST_TRIGGER @ 0x15A0, rw, "topsp_host_trigger";
            /// `basic_block_switch` (getter only) [ncfw §4.7].
            BASIC_BLOCK_SWITCH @ 0x15E0, rw, "topsp_basic_block_switch";
        }
    }
}

/// Same as CAYMAN: 32 KiB non-PE [000 §3]; PE `0x2_0000` (MED [000r1 §3]).
impl IramSizes for Mariana {
    const IRAM_SIZE_PE: u64 = <Cayman as IramSizes>::IRAM_SIZE_PE;
    const IRAM_SIZE_NON_PE: u64 = <Cayman as IramSizes>::IRAM_SIZE_NON_PE;
}

/// MARIANA's HW-decode bases: "same shape, v4 bases", values not printed
/// [hw-decode §3]; §3.3's "CAYMAN = MARIANA" [000 §3] rests on the same
/// "as CAYMAN" reading that §13.11 keeps NOT TRACED.
impl HwDecode for Mariana {
    fn hw_decode_device_base(_eng: Engine) -> Result<DeviceAddr> {
        Err(Error::NotTraced(
            "mariana hw-decode bases (v4 bases not printed [hw-decode §3])",
        ))
    }
}

impl TopSpNx for Mariana {
    const TOPSP_BLOCK: Result<&'static BlockDesc> = Ok(&topsp_regs::TOPSP_NX);
    /// The byte-checked host_trigger and basic_block_switch [ncfw §4.7]; the
    /// init/tsync/stop doorbells rest only on "as CAYMAN" (§13.11).
    const TOPSP: TopSpTable = TopSpTable {
        // `0x6_0000`, the eng-4 owner-0 window "as CAYMAN" (MED [q7 §6b, §9]).
        window_base: Ok(Offset(cayman::XT_WINDOW_TOPSP)),
        init_signal: Err(Error::NotTraced(
            "mariana topsp init_signal (only 'as CAYMAN')",
        )),
        tsync_signal: Err(Error::NotTraced(
            "mariana topsp tsync_signal (only 'as CAYMAN')",
        )),
        host_trigger: Ok(TOPSP_HOST_TRIGGER),
        stop_signal: Err(Error::NotTraced(
            "mariana topsp stop_signal (only 'as CAYMAN')",
        )),
        basic_block_switch: Ok(TOPSP_BASIC_BLOCK_SWITCH),
    };
}

impl NxLocal for Mariana {
    const NX_LOCAL_BLOCK: Result<&'static BlockDesc> = Ok(&regs::NX_LOCAL);
    const XT_LOCAL_BLOCK: Result<&'static BlockDesc> = Ok(&regs::XT_LOCAL);
    /// CAYMAN's windows for eng 0..4 (MED: "Cayman-like" [q7 §6b, §9]), an
    /// interpretation [FACTS §13.11] allows, with the device-side support of
    /// [FACTS §15.3]; never HIGH. MARIANA's eng 5 (one of "6 types") is NOT
    /// TRACED; > 5 asserts.
    const XT_WINDOW_TABLE: XtWindows = XtWindows {
        eng5: Some(Err(Error::NotTraced("mariana xt_local window 5"))),
        assert_what: "xt_local engine (asserts eng > 5)",
        ..<Cayman as NxLocal>::XT_WINDOW_TABLE
    };

    const NX_LOCAL_REGS: NxLocalRegs = NxLocalRegs {
        start_ctrl: Err(Error::NotTraced("mariana nx start_ctrl")),
        notific_sw_queue_num2: Err(Error::NotTraced("mariana notific_sw_queue_num2")),
        events_semaphores_nt: Err(Error::NotTraced("mariana events_semaphores_nt field")),
        release_run_stall: Ok(regs::RELEASE_RUN_STALL),
        nx_rsvd_space: Err(Error::NotTraced("mariana nx_rsvd_space registers")),
        memcopy_dmas_offset: Err(Error::NotTraced("mariana xt memcopy_dmas offset")),
        iram_cache_block_size: Ok(regs::IRAM_CACHE_BLOCK_SIZE),
        q7_release_run_stall: Ok(Gated::Present(regs::Q7_RELEASE_RUN_STALL)),
        hw_decode_control: Ok(Gated::Present(regs::HW_DECODE_CONTROL)),
        ..NxLocalRegs::DEFAULTS
    };
}

/// Byte-identical to CAYMAN's getter [q7 §3], [FACTS §13.3].
impl Q7Params for Mariana {
    fn q7_params(owner: Q7Owner) -> Result<Q7Param> {
        <Cayman as Q7Params>::q7_params(owner)
    }
    fn q7_owner(owner_idx: u32) -> Result<Q7Owner> {
        <Cayman as Q7Params>::q7_owner(owner_idx)
    }
}

/// DGE carveout cap `0x4_0000` [arch-stpb §3], [FACTS §13.8]; the register
/// offsets are NOT TRACED on MARIANA ([`NxLocalRegs::DEFAULTS`]).
impl DgeRegs for Mariana {
    const DGE_CARVEOUT_CAP: u32 = 0x4_0000;
}

/// SDMA limits 32 / 2048 / 2 [hal-registers §4], [FACTS §13.9].
impl Sdma for Mariana {
    const SDMA_LIMITS: SdmaLimits = SdmaLimits {
        max_fma_sources: 32,
        max_cce_elements: 2048,
        max_hw_dge_count: 2,
    };
}

/// MARIANA has the DVE rspcomb control at `tpb_regs + 0x3C0` and the PSUM
/// rounding registers [arch-stpb §4], [FACTS §13.7].
impl TpbRegGates for Mariana {
    const RSPCOMB_EIGHT_DEEP: Gated<Offset> = Gated::Present(Offset(0x3C0));
    fn psum_rounding() -> Result<()> {
        Ok(())
    }
}
