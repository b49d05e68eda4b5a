//! Q7 (pooling-engine vision core) geometry `get_q7_params(owner, ..)`
//! [000 §3], [004 §5], [q7 §2–§4], [ucode §3], [FACTS §3.7, §12.1, §13.3].
//!
//! The getter has six out-params (§13.10 #3: the sibling pages' decode wins
//! over the five of [004 §5]): `base, iram_size, dram_size, iram_rsvd,
//! dram_rsvd, num_q7`. The per-core layout follows from them [ucode §3]:
//! `stride = iram_size + iram_rsvd + dram_size + dram_rsvd`,
//! `iram(k) = base + k·stride`, `dram(k) = iram(k) + iram_size + iram_rsvd`.
//! The owner is `al_hal_q7_owner`: 2 POOLING, 5 COMPUTE_CLUSTER.

use crate::error::Result;
use crate::family::Offset;

/// `al_hal_q7_owner` [q7 §2]; `owner as u32` is the C enum value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Q7Owner {
    /// 2: the POOL engine's Q7 cores.
    Pooling = 2,
    /// 5: the compute-cluster cores (CAYMAN/MARIANA).
    ComputeCluster = 5,
}

/// The six outputs of `get_q7_params` for one owner [q7 §3], [FACTS §13.3].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Q7Param {
    /// Core 0's IRAM, from the TPB base (`tpb_addr`).
    pub base: Offset,
    /// IRAM bytes per core.
    pub iram_size: u64,
    /// DRAM bytes per core.
    pub dram_size: u64,
    /// Reserved bytes after each IRAM.
    pub iram_rsvd: u64,
    /// Reserved bytes after each DRAM.
    pub dram_rsvd: u64,
    /// Number of Q7 cores.
    pub num_q7: u32,
}

impl Q7Param {
    /// Bytes from one core's IRAM to the next: `iram_size + iram_rsvd +
    /// dram_size + dram_rsvd` [ucode §3] (derived; CAYMAN `0x10_0000` matches
    /// the RTL map [devmap-pool §3]).
    pub const fn stride(&self) -> u64 {
        self.iram_size + self.iram_rsvd + self.dram_size + self.dram_rsvd
    }

    /// Bytes from a core's IRAM to its DRAM: `iram_size + iram_rsvd`.
    const fn dram_delta(&self) -> u64 {
        self.iram_size + self.iram_rsvd
    }

    /// Core `k`'s IRAM offset from the TPB base: `base + k·stride`.
    pub const fn iram(&self, k: u32) -> Offset {
        Offset(self.base.0 + (k as u64) * self.stride())
    }

    /// Core `k`'s DRAM offset from the TPB base: `iram(k) + iram_size + iram_rsvd`.
    pub const fn dram(&self, k: u32) -> Offset {
        Offset(self.iram(k).0 + self.dram_delta())
    }
}

/// The Q7 geometry family.
pub trait Q7Params {
    /// `get_q7_params(owner)`; an owner the arch does not accept (the C
    /// asserts) → `Err(Unsupported)`.
    fn q7_params(owner: Q7Owner) -> Result<Q7Param>;

    /// The loader's `owner_idx` → owner mapping [q7 §4]: SUNDA accepts 0
    /// only (else `Rejected("...only pooling supported")`, -1);
    /// CAYMAN/MARIANA 0 → 2, 1 → 5, else `Rejected("Invalid q7 owner")`, -1.
    fn q7_owner(owner_idx: u32) -> Result<Q7Owner>;
}
