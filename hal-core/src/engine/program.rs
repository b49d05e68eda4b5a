//! The real (non-dispatched) STPB primitives: `program_start`,
//! `get_axi_offset` and the `NOTIFIC_SW_QUEUE_NUM2.EVENTS_SEMAPHORES_NT`
//! update [002 §4], [FACTS §3.6, §5, §13.1].

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::nx_local::{xt_local_window, OWNER_TPB};
use crate::family::{NxLocal, Tile, TpbBases};
use crate::ids::Engine;
use crate::regs::Reg;
use crate::Mmio;

/// The launch order of `program_start`: POOL, ACT, PE, DVE, SP (arg
/// constants 2, 1, 0, 3, 4) [002 §4].
const PROGRAM_START_ORDER: [Engine; 5] = [
    Engine::Pool,
    Engine::Act,
    Engine::Pe,
    Engine::Dve,
    Engine::Sp,
];

/// The start-address sentinel that skips an engine (`0xFFFF_FFFF_FFFF_FFFF`)
/// [002 §4].
pub const SKIP: u64 = u64::MAX;

/// Everything `program_start` needs of the arch, resolved: each launched
/// engine's XT-local window and the three NX registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) struct StartLayout {
    /// The XT-local window of each engine, by engine number; `None` for an
    /// engine that is skipped (or whose window is unknown).
    pub(crate) windows: [Option<DeviceAddr>; 5],
    /// NX `start_addr_lo`.
    pub(crate) start_addr_lo: Reg,
    /// NX `start_addr_hi`.
    pub(crate) start_addr_hi: Reg,
    /// NX `START_CTRL`.
    pub(crate) start_ctrl: Reg,
}

fn start_of(starts: &[u64; 5], eng: Engine) -> u64 {
    starts.get(eng.index()).copied().unwrap_or(SKIP)
}

/// `aws_hal_stpb_program_start(handle, starts[5])` through the arch
/// [002 §4], [FACTS §13.1]: for each launched engine its window
/// `mem + xt_local_reg_offset(eng)` and the three NX registers are resolved
/// first; one not traced for `A` → `NotTraced` with nothing written. The SP
/// (eng 4) window depends on an owner byte the notes' program_start does not
/// pass (owner 0 = the TopSP, else the TPB SP block [q7 §6a]): launching SP is
/// `NotTraced` before any write. All engines skipped → nothing resolved,
/// nothing written.
pub fn program_start<A: NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
    starts: &[u64; 5],
) -> Result<()> {
    let mut windows = [None; 5];
    for (eng, w) in Engine::ALL.iter().zip(windows.iter_mut()) {
        if start_of(starts, *eng) == SKIP {
            continue;
        }
        if *eng == Engine::Sp {
            return Err(Error::NotTraced(
                "program_start: the xt_local owner of eng 4 (SP) is not in the notes",
            ));
        }
        *w = Some(xt_local_window::<A>(mem, eng.index() as u32, OWNER_TPB)?);
    }
    if windows.iter().all(Option::is_none) {
        return Ok(());
    }
    let layout = StartLayout {
        windows,
        start_addr_lo: A::NX_LOCAL_REGS.start_addr_lo?,
        start_addr_hi: A::NX_LOCAL_REGS.start_addr_hi?,
        start_ctrl: A::NX_LOCAL_REGS.start_ctrl?,
    };
    program_start_with(mmio, &layout, starts)
}

/// The `program_start` body with a resolved layout: in the order
/// [`PROGRAM_START_ORDER`], for each engine whose start is not [`SKIP`]:
/// `start_addr_lo = start as u32`, `start_addr_hi = start >> 32`,
/// `START_CTRL = 1`, at that engine's window [002 §4]. A launched engine
/// without a window → `NotTraced`, checked for every engine before any write.
fn program_start_with<M: Mmio + ?Sized>(
    mmio: &M,
    layout: &StartLayout,
    starts: &[u64; 5],
) -> Result<()> {
    let window = |eng: Engine| layout.windows.get(eng.index()).copied().flatten();
    let launched = PROGRAM_START_ORDER.map(|eng| (start_of(starts, eng), window(eng)));
    if launched.iter().any(|(s, w)| *s != SKIP && w.is_none()) {
        return Err(Error::NotTraced("xt_local_reg_offset window"));
    }
    for (start, w) in launched {
        if let Some(w) = w.filter(|_| start != SKIP) {
            layout.start_addr_lo.write(mmio, w, start as u32)?;
            layout.start_addr_hi.write(mmio, w, (start >> 32) as u32)?;
            layout.start_ctrl.write(mmio, w, 1)?;
        }
    }
    Ok(())
}

/// `aws_hal_stpb_get_axi_offset(tpb, rel) = rel + tpb_base(tpb)`: an
/// engine-relative offset to an absolute TPB AXI address [002 §4]. The tile is
/// validated for `A` when it is built, so this cannot fail.
pub fn get_axi_offset<A: TpbBases>(tile: Tile<A>, rel: u64) -> DeviceAddr {
    A::tpb_base(tile).add(rel)
}

/// Read-modify-write of `NOTIFIC_SW_QUEUE_NUM2.EVENTS_SEMAPHORES_NT` in the
/// `tpb_regs` window at `regs` (its base: §13.10 #8, MED; CAYMAN: `+0xA08`,
/// mask `0xF_0000`, shift 16) [FACTS §3.6]: one read, then one write with the field replaced by `value`
/// (bits of `value` beyond the field are dropped, as the C `(v << s) & m`).
/// Returns the value written. Register or field not traced for `A` →
/// `NotTraced`, nothing accessed.
pub fn update_events_semaphores_nt<A: NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    regs: DeviceAddr,
    value: u32,
) -> Result<u32> {
    let reg = A::NX_LOCAL_REGS.notific_sw_queue_num2?;
    let field = A::NX_LOCAL_REGS.events_semaphores_nt?;
    reg.modify(mmio, regs, |r| field.set(r, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::test_mmio::Log;
    use crate::engine::test_mmio::Op::Write;

    crate::register_block! {
        /// Injected NX launch registers (test only, not an arch's numbers):
        /// the real offsets are NOT TRACED on every arch [FACTS §3.6].
        #[expect(dead_code, reason = "the test uses the block's registers")]
        TEST_NX: "test_nx" {
            /// start_addr_lo (injected)
            LO @ 0x10, rw, "start_addr_lo";
            /// start_addr_hi (injected)
            HI @ 0x14, rw, "start_addr_hi";
            /// START_CTRL (CAYMAN's traced +0x004)
            CTRL @ 0x04, rw, "start_ctrl";
        }
    }

    const WINDOWS: [u64; 5] = [0x10_0000, 0x11_0000, 0x12_0000, 0x13_0000, 0x14_0000];

    fn layout() -> StartLayout {
        StartLayout {
            windows: WINDOWS.map(|w| Some(DeviceAddr(w))),
            start_addr_lo: LO,
            start_addr_hi: HI,
            start_ctrl: CTRL,
        }
    }

    /// POOL, ACT, PE, DVE, SP; per engine lo, hi, then START_CTRL = 1
    /// [002 §4]; a skipped engine is not written.
    #[test]
    fn program_start_order_and_values_with_an_injected_layout() {
        let m = Log::default();
        // starts indexed by engine number: PE, ACT, POOL, DVE, SP.
        let starts = [
            0x0000_0001_0000_0000,
            0x0000_0002_0000_0010,
            0x0000_0003_0000_0020,
            u64::MAX,
            0x0000_0005_0000_0040,
        ];
        program_start_with(&m, &layout(), &starts).unwrap();
        let w = |e: usize, off: u64| WINDOWS[e] + off;
        let expect: std::vec::Vec<_> = [
            (2, 0x0000_0020, 3), // POOL
            (1, 0x0000_0010, 2), // ACT
            (0, 0x0000_0000, 1), // PE
            // DVE skipped
            (4, 0x0000_0040, 5), // SP
        ]
        .into_iter()
        .flat_map(|(e, lo, hi)| {
            [
                (Write, w(e, 0x10), lo),
                (Write, w(e, 0x14), hi),
                (Write, w(e, 0x04), 1),
            ]
        })
        .collect();
        assert_eq!(m.ops(), expect);

        // All skipped: nothing.
        let m = Log::default();
        program_start_with(&m, &layout(), &[u64::MAX; 5]).unwrap();
        assert!(m.ops().is_empty());

        // A launched engine without a window: NotTraced, checked before any write.
        let mut l = layout();
        l.windows[3] = None; // DVE, launched after POOL, ACT, PE
        let m = Log::default();
        assert_eq!(
            program_start_with(&m, &l, &[1, 2, 3, 4, 5]),
            Err(Error::NotTraced("xt_local_reg_offset window"))
        );
        assert!(m.ops().is_empty());
    }
}
