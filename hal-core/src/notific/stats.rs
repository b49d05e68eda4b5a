//! The notification-engine reads and bound the earlier revision of the note
//! adds [004r1 §1–§3], [FACTS §12.3]: `get_timestamp` (slot `+0x3B8`),
//! `nq_stats_get` for stat id 6, and the `nq_set_init_params_cookie` size
//! bound. Graded MED, as every [FACTS §12] value the current text does not
//! confirm.
//!
//! They read the per-engine notific block through [`NotificEngine`]'s public
//! handle (its MMIO and base) and describe their registers here
//! (`NOTIFIC_STATS`, crate-private); every other stat id, and what the C does
//! with a cookie, are in neither revision.

use crate::error::{Error, Result};
use crate::notific::NotificEngine;
use crate::Mmio;

/// The description, in a module of its own so that its register handles stay
/// in the crate.
mod block {
    crate::register_block! {
        /// The registers of the per-engine notific block these reads use
        /// (offsets from the engine's notific base) [004r1 §1–§3].
        #[allow(dead_code, reason = "the names of the reads; the crate decodes nothing with it")]
        pub(crate) NOTIFIC_STATS: "notific" {
            /// The 64-bit timestamp, low word (`+0x0`) [004r1 §2].
            TIMESTAMP_LO @ 0x00, ro, "timestamp_lo";
            /// The 64-bit timestamp, high word (`+0x4`) [004r1 §2].
            TIMESTAMP_HI @ 0x04, ro, "timestamp_hi";
            /// The register `nq_stats_get` reads for stat id 6 (`+0xB0`, the one
            /// the current note lists unnamed) [004r1 §3].
            NQ_STAT_6 @ 0xB0, ro, "nq_stat_6";
        }
    }
}

use block::{NQ_STAT_6, TIMESTAMP_HI, TIMESTAMP_LO};

/// The stat id whose register is known: 6 → `+0xB0` [004r1 §3].
pub(crate) const NQ_STAT_ID_6: u32 = 6;

/// `nq_set_init_params_cookie`: the cookie is at most `0x100` bytes
/// [004r1 §3], [FACTS §12.3].
pub(crate) const NQ_INIT_PARAMS_COOKIE_MAX: usize = 0x100;

/// `get_timestamp`: `(read(+0x4) << 32) | read(+0x0)`, two reads, in the order
/// the revision prints them (high word, then low word) [004r1 §2], MED.
pub fn get_timestamp<M: Mmio>(ens: &NotificEngine<'_, M>) -> Result<u64> {
    let hi = TIMESTAMP_HI.read(ens.mmio(), ens.base())?;
    let lo = TIMESTAMP_LO.read(ens.mmio(), ens.base())?;
    Ok((u64::from(hi) << 32) | u64::from(lo))
}

/// `nq_stats_get(id)`: id 6 is one read of `+0xB0` [004r1 §3], MED; every
/// other id's register is in neither revision: `NotTraced`, nothing read.
pub fn nq_stats_get<M: Mmio>(ens: &NotificEngine<'_, M>, id: u32) -> Result<u32> {
    if id != NQ_STAT_ID_6 {
        return Err(Error::NotTraced("nq_stats_get: stat ids other than 6"));
    }
    NQ_STAT_6.read(ens.mmio(), ens.base())
}

/// An NQ init-params cookie: up to `0x100` opaque bytes
/// (`nq_set_init_params_cookie`) [004r1 §3], MED.
///
/// A longer cookie is refused with `OutOfRange` (khal's check; how the C
/// reacts to one is not given). Where the C stores the cookie and who reads
/// it are not traced, so khal only holds it.
///
/// ```
/// use khal_core::notific::InitParamsCookie;
/// let c = InitParamsCookie::new(&[1, 2, 3]).unwrap();
/// assert_eq!(c.as_bytes(), &[1, 2, 3]);
/// assert!(InitParamsCookie::new(&[0; 0x100]).is_ok());
/// assert!(InitParamsCookie::new(&[0; 0x101]).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InitParamsCookie {
    bytes: [u8; NQ_INIT_PARAMS_COOKIE_MAX],
    len: usize,
}

impl InitParamsCookie {
    /// A cookie holding `bytes` (at most `0x100` of them).
    pub fn new(bytes: &[u8]) -> Result<Self> {
        let mut c = InitParamsCookie {
            bytes: [0; NQ_INIT_PARAMS_COOKIE_MAX],
            len: bytes.len(),
        };
        let dst = c.bytes.get_mut(..bytes.len()).ok_or(Error::out_of_range(
            "nq init params cookie size",
            bytes.len() as u64,
            NQ_INIT_PARAMS_COOKIE_MAX as u64 + 1,
        ))?;
        dst.copy_from_slice(bytes);
        Ok(c)
    }

    /// The cookie's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }
}

/// The cookie's bytes (not the unused rest of its buffer).
#[cfg(feature = "defmt")]
impl defmt::Format for InitParamsCookie {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "InitParamsCookie({=[u8]:#04x})", self.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::block::NOTIFIC_STATS;
    use super::*;

    /// The registers' offsets and names, as a trace names the reads
    /// [004r1 §2, §3].
    #[test]
    fn the_stats_registers_are_the_revisions_offsets() {
        assert_eq!(TIMESTAMP_LO.offset(), 0x0);
        assert_eq!(TIMESTAMP_HI.offset(), 0x4);
        assert_eq!(NQ_STAT_6.offset(), 0xB0);
        let name = |off| NOTIFIC_STATS.lookup(off).map(|n| n.to_string());
        assert_eq!(name(0x4).as_deref(), Some("notific.timestamp_hi"));
        assert_eq!(name(0x0).as_deref(), Some("notific.timestamp_lo"));
        assert_eq!(name(0xB0).as_deref(), Some("notific.nq_stat_6"));
        assert_eq!(NQ_STAT_ID_6, 6);
        assert_eq!(NQ_INIT_PARAMS_COOKIE_MAX, 0x100);
    }
}
