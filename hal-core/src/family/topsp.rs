//! TopSP-NX registers: window base and the doorbells (init_signal,
//! tsync_signal, host_trigger, stop_signal) and the basic_block_switch getter
//! [000 §2, §3], [topsp §3a, §8, §9], [ncfw §4.7], [FACTS §3.6, §12.1, §13.2].
//!
//! [000 §2 QUIRK]: SUNDA's and CAYMAN's TopSP offsets are not a constant delta
//! apart; every arch states its own, and an untraced one is `Err(NotTraced)`,
//! never derived from another arch's. The offsets here are from the TPB memory
//! handle (window `0x6_0000` + the register), as the C offset getters return
//! them; the doorbell program ([`crate::engine::topsp`]) writes at
//! `xt_local(h, 4, 0) + (offset − window)`.

use crate::error::Result;
use crate::family::Offset;
use crate::regs::BlockDesc;

/// One TopSP doorbell [FACTS §13.2].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Doorbell {
    /// `topsp_set_init_signal` (slot `+0x6F8`).
    InitSignal,
    /// `topsp_set_tsync_signal` (slot `+0x700`).
    TsyncSignal,
    /// `topsp_set_host_trigger` (slot `+0x708`).
    HostTrigger,
    /// `topsp_set_stop_signal` (slot `+0x718`).
    StopSignal,
}

impl Doorbell {
    /// All four, in slot order.
    pub const ALL: [Doorbell; 4] = [
        Doorbell::InitSignal,
        Doorbell::TsyncSignal,
        Doorbell::HostTrigger,
        Doorbell::StopSignal,
    ];

    /// The spec's name (`init_signal`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Doorbell::InitSignal => "init_signal",
            Doorbell::TsyncSignal => "tsync_signal",
            Doorbell::HostTrigger => "host_trigger",
            Doorbell::StopSignal => "stop_signal",
        }
    }
}

/// One arch's TopSP-NX offsets, from the TPB memory handle: the table each
/// arch states once (with each value's grade). An offset nobody traced for
/// the arch is `Err(NotTraced)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopSpTable {
    /// The TopSP-NX window base (= `xt_local_reg_offset(4, 0)`).
    pub window_base: Result<Offset>,
    /// `init_signal`.
    pub init_signal: Result<Offset>,
    /// `tsync_signal`.
    pub tsync_signal: Result<Offset>,
    /// `host_trigger`.
    pub host_trigger: Result<Offset>,
    /// `stop_signal`.
    pub stop_signal: Result<Offset>,
    /// `basic_block_switch` (a getter only: nothing writes it through the HAL).
    pub basic_block_switch: Result<Offset>,
}

/// The TopSP-NX family.
pub trait TopSpNx {
    /// The TopSP window's register description (offsets from the window), for
    /// traces and `khal decode`; `Err(NotTraced)` where no register is known.
    const TOPSP_BLOCK: Result<&'static BlockDesc>;

    /// The arch's TopSP-NX offsets.
    const TOPSP: TopSpTable;

    /// The value a doorbell writes: 1, except where the arch's setter writes
    /// the caller's value (SUNDA host_trigger, MED) [FACTS §13.2];
    /// `Err(NotTraced)` where no source gives the arch's setter body (SUNDA
    /// init_signal).
    fn topsp_doorbell_value(_which: Doorbell, _caller: u32) -> Result<u32> {
        Ok(1)
    }

    /// The register of a doorbell, from [`TopSpNx::TOPSP`].
    fn topsp_doorbell(which: Doorbell) -> Result<Offset> {
        let t = Self::TOPSP;
        match which {
            Doorbell::InitSignal => t.init_signal,
            Doorbell::TsyncSignal => t.tsync_signal,
            Doorbell::HostTrigger => t.host_trigger,
            Doorbell::StopSignal => t.stop_signal,
        }
    }
}
