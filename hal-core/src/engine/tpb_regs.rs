//! The `tpb_regs` window and its small leaves: the DVE RNG seed, the DVE
//! debug-level write, the DVE pool-arbiter chicken bit and timestamp
//! increment, `force_rspcomb_eight_deep`, the stochastic-rounding and
//! MARIANA PSUM rounding writers, the shadow-word helpers
//! [arch-stpb §2, §4], [hal-registers §3], [FACTS §13.6, §13.7].
//!
//! `tpb_regs` (context `+0x08`) holds one sub-block per engine (derived, MED
//! [FACTS §13.6]): POOL `+0x1xx`, ACT `+0x2xx`, DVE `+0x3xx`, each with the
//! instruction-debug control at `+0x04`, the stochastic rounding at `+0x0C`
//! and the rounding mode at `+0x10`. The offsets are the same on every arch
//! that has the register; MARIANA alone has `rspcomb` and PSUM rounding
//! ([`crate::family::TpbRegGates`]).

use crate::addr::DeviceAddr;
use crate::error::Result;
use crate::family::{Gated, TpbRegGates};
use crate::Mmio;

/// The block, described once; what the arches name of it is re-exported
/// below. The field modules record the schema's fields; the code names few
/// of them ([`TPB_REGS`] carries them all, for decoding).
#[allow(dead_code, reason = "the schema's fields are recorded whole")]
mod block {
    crate::register_block! {
        /// The `tpb_regs` registers the engine leaves touch [arch-stpb §1–§4],
        /// [FACTS §13.6, §13.7], and the SW-queue selectors `+0xA00…+0xA18` with
        /// their fields [FACTS §15.1] (the CAYMAN schema's layout; SUNDA's and
        /// MARIANA's may differ, and no schema value is a write program here).
        /// Access kinds are not traced; `rw` is recorded.
        pub TPB_REGS: "tpb_regs" {
            /// POOL stochastic rounding [arch-stpb §4].
            POOL_STOCHASTIC_RND @ 0x10C, rw, "pool_stochastic_rnd";
            /// POOL rounding mode [arch-stpb §4].
            POOL_RND_MODE @ 0x110, rw, "pool_rnd_mode";
            /// ACT stochastic rounding [arch-stpb §4].
            ACT_STOCHASTIC_RND @ 0x20C, rw, "act_stochastic_rnd";
            /// ACT rounding mode [arch-stpb §4].
            ACT_RND_MODE @ 0x210, rw, "act_rnd_mode";
            /// DVE instruction-debug control; low nibble = level [arch-stpb §2].
            DVE_INSTR_DBG @ 0x304, rw, "dve_instr_dbg", fields dve_instr_dbg {
                /// The (mapped) level, `& 0xF` (MED that the leaf is only this).
                LEVEL: 0..=3,
            };
            /// DVE timestamp increment (read) [arch-stpb §2].
            DVE_TIMESTAMP_INC @ 0x308, rw, "dve_timestamp_inc";
            /// DVE stochastic rounding [arch-stpb §2].
            DVE_STOCHASTIC_RND @ 0x30C, rw, "dve_stochastic_rnd";
            /// DVE rounding mode [arch-stpb §2].
            DVE_RND_MODE @ 0x310, rw, "dve_rnd_mode";
            /// DVE LFSR seed (`write_lfsr`: any value) [arch-stpb §2].
            DVE_LFSR_SEED @ 0x314, rw, "dve_lfsr_seed";
            /// DVE xorwow increment [arch-stpb §2].
            DVE_XORWOW_INC @ 0x324, rw, "dve_xorwow_inc";
            /// DVE `rspcomb` control, bit 0 = eight deep (MARIANA) [arch-stpb §4].
            DVE_RSPCOMB @ 0x3C0, rw, "dve_rspcomb", fields dve_rspcomb {
                /// Bit 0: force the response combiner eight deep.
                EIGHT_DEEP: 0..=0,
            };
            /// DVE pool-arbiter chicken bit, bit 1 (RMW `|= 2`) [arch-stpb §2].
            DVE_POOL_ARB @ 0x3F0, rw, "dve_pool_arbiter";
            /// `sw_queue_num0`: PE and POOL SW-queue selectors [schema tpb]
            /// (CAYMAN's field layout; FACTS §15.1). PE regs_init and POOL
            /// regs_init read-modify-write it [arch-stpb §1]; their masks and
            /// sources are derived (MED) or NOT TRACED (FACTS §13.11).
            SW_QUEUE_NUM0 @ 0xA00, rw, "sw_queue_num0", fields sw_queue_num0 {
                /// PE NX queue.
                PE_NX: 0..=3,
                /// PE explicit queue.
                PE_EXPLICIT: 4..=7,
                /// PE engine queue.
                PE_ENGINE: 8..=11,
                /// POOL NX queue.
                POOL_NX: 16..=19,
                /// POOL explicit queue.
                POOL_EXPLICIT: 20..=23,
                /// POOL engine queue.
                POOL_ENGINE: 24..=27,
            };
            /// `sw_queue_num1`: ACT and DVE SW-queue selectors [schema tpb]
            /// (ACT regs_init: `+0xA04` RMW [arch-stpb §1]).
            SW_QUEUE_NUM1 @ 0xA04, rw, "sw_queue_num1", fields sw_queue_num1 {
                /// ACT NX queue.
                ACT_NX: 0..=3,
                /// ACT explicit queue (`impl_nq_index << 4`, derived MED).
                ACT_EXPLICIT: 4..=7,
                /// ACT engine queue.
                ACT_ENGINE: 8..=11,
                /// DVE NX queue.
                DVE_NX: 16..=19,
                /// DVE explicit queue.
                DVE_EXPLICIT: 20..=23,
                /// DVE engine queue.
                DVE_ENGINE: 24..=27,
            };
            /// `sw_queue_num2` (the `NOTIFIC_SW_QUEUE_NUM2` of [000 §2]; its base
            /// is `tpb_regs`, FACTS §13.10 #8) [schema tpb].
            SW_QUEUE_NUM2 @ 0xA08, rw, "sw_queue_num2", fields sw_queue_num2 {
                /// SP NX queue.
                SP_NX: 0..=3,
                /// SP explicit queue.
                SP_EXPLICIT: 4..=7,
                /// Events / semaphores queue (`EVENTS_SEMAPHORES_NT` [000 §2]).
                EVENTS_SEMAPHORES: 16..=19,
            };
            /// `sw_queue_num3` (`NOTIFIC_SW_QUEUE_NUM3`, MED [000r1 §3]) [schema tpb].
            SW_QUEUE_NUM3 @ 0xA0C, rw, "sw_queue_num3", fields sw_queue_num3 {
                /// Errors queue (`ERRORS_NT`, mask `0xF`).
                ERRORS: 0..=3,
            };
            /// `sw_queue_num4` (`NOTIFIC_SW_QUEUE_NUM4`, MED [000r1 §3]) [schema tpb].
            SW_QUEUE_NUM4 @ 0xA10, rw, "sw_queue_num4", fields sw_queue_num4 {
                /// HAM periodic queue.
                HAM_PERIODIC: 0..=3,
                /// HAM throttle queue (`HAM_THROTTLE`, mask `0xF0`).
                HAM_THROTTLE: 4..=7,
                /// HAM periodic enable.
                HAM_PERIODIC_EN: 16..=16,
                /// HAM throttle enable (`HAM_THROTTLE_EN`, mask `0x10_0000`).
                HAM_THROTTLE_EN: 20..=20,
            };
            /// `sw_queue_num5`: one nibble per Q7 core, the Q7 cores' SW-queue
            /// number [schema tpb]; CAYMAN/MARIANA POOL regs_init writes a 4-bit
            /// value to all 8 nibbles [arch-stpb §1] (its source NOT TRACED).
            SW_QUEUE_NUM5 @ 0xA14, rw, "sw_queue_num5", fields sw_queue_num5 {
                /// Q7 core 0.
                Q7_0: 0..=3,
                /// Q7 core 1.
                Q7_1: 4..=7,
                /// Q7 core 2.
                Q7_2: 8..=11,
                /// Q7 core 3.
                Q7_3: 12..=15,
                /// Q7 core 4.
                Q7_4: 16..=19,
                /// Q7 core 5.
                Q7_5: 20..=23,
                /// Q7 core 6.
                Q7_6: 24..=27,
                /// Q7 core 7.
                Q7_7: 28..=31,
            };
            /// `queue_idx_ctrl`: per engine, "queue index from instruction"
            /// [schema tpb]. No HAL program of the sources writes it.
            QUEUE_IDX_CTRL @ 0xA18, rw, "queue_idx_ctrl", fields queue_idx_ctrl {
                /// PE.
                PE: 0..=0,
                /// POOL.
                POOL: 1..=1,
                /// ACT.
                ACT: 2..=2,
                /// DVE.
                DVE: 3..=3,
                /// SP.
                SP: 4..=4,
            };
            /// MARIANA PSUM rounding value [arch-stpb §4].
            PSUM_RND_VALUE @ 0xF10, rw, "psum_rnd_value";
            /// MARIANA PSUM rounding control [arch-stpb §4].
            PSUM_RND_CTRL @ 0xF14, rw, "psum_rnd_ctrl";
        }
    }
}

pub use block::TPB_REGS;
pub(crate) use block::{
    dve_instr_dbg, dve_rspcomb, sw_queue_num2, sw_queue_num3, sw_queue_num4, ACT_RND_MODE,
    ACT_STOCHASTIC_RND, DVE_INSTR_DBG, DVE_LFSR_SEED, DVE_POOL_ARB, DVE_RND_MODE,
    DVE_STOCHASTIC_RND, DVE_TIMESTAMP_INC, POOL_RND_MODE, POOL_STOCHASTIC_RND, PSUM_RND_CTRL,
    PSUM_RND_VALUE, SW_QUEUE_NUM2, SW_QUEUE_NUM3, SW_QUEUE_NUM4,
};

/// The seed `reset_rng_seed` writes: `0xCD9E_8D57` [arch-stpb §2], [FACTS §13.6].
const DVE_RNG_SEED: u32 = 0xCD9E_8D57;

/// The PSUM control value the MARIANA rounding writer stores first: 2
/// [arch-stpb §4], [FACTS §13.7].
const PSUM_RND_CTRL_VALUE: u32 = 2;

/// `dve_reset_rng_seed(regs)`: W `+0x314` = `0xCD9E_8D57`, on every arch
/// [arch-stpb §2], [FACTS §13.6].
pub fn dve_reset_rng_seed<M: Mmio + ?Sized>(mmio: &M, regs: DeviceAddr) -> Result<()> {
    DVE_LFSR_SEED.write(mmio, regs, DVE_RNG_SEED)
}

/// The DVE debug-level write with an already mapped level: RMW `+0x304`, low
/// nibble = `mapped & 0xF` (MED that the leaf is only this) [arch-stpb §2].
/// Returns the value written.
///
/// The leaf `dve_instr_debug_level_set(regs, level)` maps the level through
/// a table first (bad → -22); that table is NOT TRACED (§13.11), so khal has
/// no function taking an unmapped level.
pub fn dve_write_debug_level<M: Mmio + ?Sized>(
    mmio: &M,
    regs: DeviceAddr,
    mapped: u32,
) -> Result<u32> {
    DVE_INSTR_DBG.modify(mmio, regs, |r| dve_instr_dbg::LEVEL.set(r, mapped))
}

/// The value the pool-arbiter chicken bit ORs into `+0x3F0`: bit 1
/// [arch-stpb §2], [FACTS §13.7].
const DVE_POOL_ARB_CHICKEN_BIT: u32 = 2;

/// The DVE pool-arbiter chicken bit: RMW `+0x3F0 |= 2`, every other bit kept
/// [arch-stpb §2], [FACTS §13.7]. MARIANA's `dve_regs_init` and CAYMAN's
/// `dve_init` call it (CAYMAN: position not given) [FACTS §13.6]; a caller on
/// SUNDA is not known (§13.11). Returns the value written.
pub fn dve_set_pool_arbiter_chicken_bit<M: Mmio + ?Sized>(
    mmio: &M,
    regs: DeviceAddr,
) -> Result<u32> {
    DVE_POOL_ARB.modify(mmio, regs, |r| r | DVE_POOL_ARB_CHICKEN_BIT)
}

/// The DVE timestamp increment: one read of `+0x308` [arch-stpb §2],
/// [FACTS §13.7].
pub fn dve_timestamp_inc<M: Mmio + ?Sized>(mmio: &M, regs: DeviceAddr) -> Result<u32> {
    DVE_TIMESTAMP_INC.read(mmio, regs)
}

/// `force_rspcomb_eight_deep(regs, v)`: MARIANA RMW `+0x3C0` bit 0 = `v & 1`;
/// SUNDA/CAYMAN: does nothing (no register access) [arch-stpb §4], [FACTS §13.7].
pub fn force_rspcomb_eight_deep<A: TpbRegGates, M: Mmio + ?Sized>(
    mmio: &M,
    regs: DeviceAddr,
    v: u32,
) -> Result<()> {
    if let Gated::Present(off) = A::RSPCOMB_EIGHT_DEEP {
        let addr = off.at(regs);
        let r = mmio.read32(addr)?;
        mmio.write32(addr, dve_rspcomb::EIGHT_DEEP.set(r, v & 1))?;
    }
    Ok(())
}

/// The engines with stochastic-rounding registers in `tpb_regs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RndEngine {
    /// POOL: `+0x10C` / `+0x110` (not dispatched).
    Pool,
    /// ACT: `+0x20C` / `+0x210` (not dispatched).
    Act,
    /// DVE: `+0x30C` / `+0x310` (through slots `+0x230` / `+0x238`; MED which
    /// table the offset is from).
    Dve,
}

/// The stochastic-rounding writer: one W of `value` at the engine's
/// stochastic_rnd register [arch-stpb §4], [FACTS §13.7]. (SUNDA logs first.)
pub fn set_stochastic_rnd<M: Mmio + ?Sized>(
    mmio: &M,
    regs: DeviceAddr,
    eng: RndEngine,
    value: u32,
) -> Result<()> {
    let reg = match eng {
        RndEngine::Pool => POOL_STOCHASTIC_RND,
        RndEngine::Act => ACT_STOCHASTIC_RND,
        RndEngine::Dve => DVE_STOCHASTIC_RND,
    };
    reg.write(mmio, regs, value)
}

/// The rounding-mode writer: one W of `value` at the engine's mode register
/// [arch-stpb §4], [FACTS §13.7].
pub fn set_rnd_mode<M: Mmio + ?Sized>(
    mmio: &M,
    regs: DeviceAddr,
    eng: RndEngine,
    value: u32,
) -> Result<()> {
    let reg = match eng {
        RndEngine::Pool => POOL_RND_MODE,
        RndEngine::Act => ACT_RND_MODE,
        RndEngine::Dve => DVE_RND_MODE,
    };
    reg.write(mmio, regs, value)
}

/// MARIANA PSUM rounding: W `+0xF14` = 2, then W `+0xF10` = `value`; other
/// arches assert in C, here `Unsupported` with nothing written
/// [arch-stpb §4], [FACTS §13.7].
///
/// The ctrl-only variant writes `+0xF14` with a value NOT TRACED (§13.11):
/// khal has no function for it.
pub fn set_psum_rounding<A: TpbRegGates, M: Mmio + ?Sized>(
    mmio: &M,
    regs: DeviceAddr,
    value: u32,
) -> Result<()> {
    A::psum_rounding()?;
    PSUM_RND_CTRL.write(mmio, regs, PSUM_RND_CTRL_VALUE)?;
    PSUM_RND_VALUE.write(mmio, regs, value)
}

/// Shadow helper, no I/O: `w = (w & 0xFFE0_0000) | (seed & 0x1F_FFFF)`
/// [arch-stpb §4], [FACTS §13.7].
pub const fn shadow_with_seed(w: u32, seed: u32) -> u32 {
    (w & 0xFFE0_0000) | (seed & 0x1F_FFFF)
}

/// Shadow helper, no I/O: `w = (w & 0x0FFF_FFFF) | (dtype << 28)`
/// [arch-stpb §4], [FACTS §13.7].
pub const fn shadow_with_dtype(w: u32, dtype: u32) -> u32 {
    (w & 0x0FFF_FFFF) | (dtype << 28)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shadow_helpers() {
        assert_eq!(shadow_with_seed(0xFFFF_FFFF, 0), 0xFFE0_0000);
        assert_eq!(shadow_with_seed(0, 0xFFFF_FFFF), 0x1F_FFFF);
        assert_eq!(shadow_with_dtype(0xFFFF_FFFF, 0x3), 0x3FFF_FFFF);
        assert_eq!(shadow_with_dtype(0, 0x1F), 0xF000_0000);
    }

    /// `sw_queue_num3.errors_nt`: mask `0xF` (MED [000r1 §3]).
    #[test]
    fn errors_nt_field() {
        assert_eq!(sw_queue_num3::ERRORS.mask(), 0xF);
        assert_eq!(SW_QUEUE_NUM3.offset(), 0xA0C);
    }

    /// `sw_queue_num2.events_semaphores_nt` mask `0xF_0000` [000 §2];
    /// `sw_queue_num4`'s HAM throttle fields `0xF0`, `0x10_0000` (MED
    /// [000r1 §3]).
    #[test]
    fn sw_queue_num2_and_num4_fields() {
        assert_eq!(block::SW_QUEUE_NUM2.offset(), 0xA08);
        assert_eq!(block::sw_queue_num2::EVENTS_SEMAPHORES.mask(), 0xF_0000);
        assert_eq!(block::SW_QUEUE_NUM4.offset(), 0xA10);
        assert_eq!(block::sw_queue_num4::HAM_THROTTLE.mask(), 0xF0);
        assert_eq!(block::sw_queue_num4::HAM_THROTTLE_EN.mask(), 0x10_0000);
    }
}
