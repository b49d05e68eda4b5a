//! DVE table offsets and the DVE parameter RAM [000 §3, §4], [FACTS §3.4].
//!
//! The offsets are relative to the TPB AXI base of the tile (`get_axi_offset`)
//! [FACTS §8]: they sit inside the DVE tile's local window [000 §3 NOTE].
//!
//! SUNDA has **no** table-offset getter at all [000 §3]: that is the type-level
//! answer [`DveTableLayout::offsets`] `= None` (an `Option` constant, so a
//! generic driver over `A: Arch` can branch on it at compile time).
//! The fabricated offsets of an earlier revision of the notes are not used
//! anywhere [000 §3 CORRECTION]. The table *sizes* of that revision were not
//! retracted: they are [`DveTableLayout::sizes`] [000r1 §3], [FACTS §12.1].

use crate::family::Offset;

/// The four DVE table offsets, in the `dve_config_dma_state_t` member order
/// (name↔slot pairing MED, offsets HIGH) [000 §3].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DveTableOffsets {
    /// The opcode table.
    pub opcode: Offset,
    /// The control-fast table.
    pub control_fast: Offset,
    /// The control-slow table.
    pub control_slow: Offset,
    /// The datapath table.
    pub datapath: Offset,
}

/// The four DVE table sizes in bytes (`get_dve_table_sizes`, kaena_khal
/// `+0x70` [FACTS §13.9]), in the same member order as [`DveTableOffsets`]:
/// the name↔slot pairing is MED like the offsets' [000r1 §3], [FACTS §12.1].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DveTableSizes {
    /// The opcode table.
    pub opcode: u64,
    /// The control-fast table.
    pub control_fast: u64,
    /// The control-slow table.
    pub control_slow: u64,
    /// The datapath table.
    pub datapath: u64,
}

/// An arch's DVE table layout: where the loader puts the tables, how big
/// they are, and the parameter RAM [000 §3, §4], [000r1 §3].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DveTableLayout {
    /// The table offsets, or `None` on an arch with no offset getter (SUNDA).
    pub offsets: Option<DveTableOffsets>,
    /// The table sizes. Every arch has the getter (SUNDA too, though its
    /// loader skips control_slow) [000r1 §3], [FACTS §12.1].
    pub sizes: DveTableSizes,
    /// The DVE parameter-RAM base, relative to the TPB AXI base
    /// (`get_dve_parameter_ram_params`).
    pub param_ram_base: Offset,
    /// The DVE parameter-RAM size in bytes (256 × f32 = `0x400`).
    pub param_ram_size: u64,
    /// Whether the loader loads the control-slow table (SUNDA: no, its state
    /// slot stays 0) [000 §4].
    pub loads_control_slow: bool,
}

/// The DVE table family.
pub trait DveTables {
    /// The arch's DVE table layout.
    const DVE_TABLES: DveTableLayout;
}
