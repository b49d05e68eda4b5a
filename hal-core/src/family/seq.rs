//! Sequencer triples `(seq, seqtop, hostvis)` and sizes, with the host-visible
//! rebase (`get_seq_params(eng, host_visible)`) [000 §2, §3], [FACTS §3.2].

use crate::addr::{DeviceAddr, HostVisible};
use crate::error::{Error, Result};
use crate::family::Offset;
use crate::ids::Engine;

/// `seqtop = base + 0x2_0000` [000 §2].
const SEQTOP_DELTA: u64 = 0x2_0000;
/// `hostvis = base + 0x4_0000` [000 §2].
const HOSTVIS_DELTA: u64 = 0x4_0000;

/// The three sequencer apertures of an engine. `T` is [`DeviceAddr`] for the
/// device-full form and [`HostVisible`] for the `host_visible` form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SeqTriple<T> {
    /// The sequencer base.
    pub seq: T,
    /// `seq + 0x2_0000`.
    pub seqtop: T,
    /// `seq + 0x4_0000`.
    pub hostvis: T,
}

impl SeqTriple<DeviceAddr> {
    /// The chained triple of a base: `(base, base + 0x2_0000, base + 0x4_0000)` [000 §2].
    pub const fn chained(base: u64) -> Self {
        SeqTriple {
            seq: DeviceAddr(base),
            seqtop: DeviceAddr(base.wrapping_add(SEQTOP_DELTA)),
            hostvis: DeviceAddr(base.wrapping_add(HOSTVIS_DELTA)),
        }
    }

    /// Subtract the host-visible rebase (`0x8_0000_0000`) from all three [000 §2].
    pub const fn to_host_visible(self) -> Result<SeqTriple<HostVisible>> {
        // `?` is not const: `const_try!` each of the three conversions.
        let seq = const_try!(self.seq.to_host_visible());
        let seqtop = const_try!(self.seqtop.to_host_visible());
        let hostvis = const_try!(self.hostvis.to_host_visible());
        Ok(SeqTriple {
            seq,
            seqtop,
            hostvis,
        })
    }
}

/// The two sequencer sizes (`sz1`, `sz2` out-params).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SeqSizes {
    /// `sz1`.
    pub sz1: u64,
    /// `sz2`.
    pub sz2: u64,
}

/// The sequencer family (`get_seq_params`).
pub trait SeqParams {
    /// `(sz1, sz2)`; the same for every engine of an arch.
    const SEQ_SIZES: SeqSizes;

    /// The device-full triple (`host_visible = false`). An engine whose
    /// aperture nobody traced answers `Err(NotTraced)`.
    fn seq_params(eng: Engine) -> Result<SeqTriple<DeviceAddr>>;

    /// The host-visible triple (`host_visible = true`).
    fn seq_params_host_visible(eng: Engine) -> Result<SeqTriple<HostVisible>>;

    /// The PE-sequencer TopSP host-visible relbase: SUNDA `0x5B_0000`,
    /// CAYMAN `0x14_0000` (MED [000r1 §3], [FACTS §12.1]); MARIANA's is not in
    /// that band (NOT TRACED, the default).
    fn pe_seq_topsp_relbase() -> Result<Offset> {
        Err(Error::NotTraced("pe-sequencer topsp host-visible relbase"))
    }
}
