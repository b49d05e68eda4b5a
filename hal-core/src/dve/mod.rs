//! The DVE dynamic-config loader [000 §4], [FACTS §3.4, §8].
//!
//! `dve_dynamic_config_init_{sunda,cayman,mariana}` stage the DVE micro-tables
//! (opcode, control_fast, control_slow, datapath) and a 256-entry reciprocal
//! parameter RAM, fingerprint them with SHA-256, and DMA them into the DVE
//! tile's window through a one-shot ring. SUNDA loads four tables (no
//! control-slow); CAYMAN and MARIANA load five and share one body.
//!
//! - `tables`: the table set ([`DveTableSet`]) and its [`Fingerprint`];
//! - `param_ram`: the default parameter RAM, bit-exact (what
//!   [`DveTableSet::four`] and [`DveTableSet::five`] load);
//! - `placement`: the destinations, TPB AXI base + the arch's offsets;
//! - `loader`: [`DveLoader`], staging + DMA + residency.
//!
//! The shape of a call (runnable end to end on the device model in
//! `tests/tests/dve_loader.rs`):
//!
//! ```text
//! let tile = Cayman::tile(0)?;
//! let placement = DvePlacement::for_tile(tile)?;
//! let tables = DveTableSet::five(&opcode, &control_fast, &control_slow, &datapath);
//! let mut loader = DveLoader::new();
//! loader.load(&mut alloc, &mut queue, &mut delay, Budget::NQ_DEFAULT, &placement, &tables)?;
//! ```

pub(crate) mod loader;
pub(crate) mod param_ram;
pub(crate) mod placement;
pub(crate) mod tables;

pub use loader::{DveConfigDmaState, DveLoader, LoadOutcome, DVE_QUEUE_NAME};
pub use placement::DvePlacement;
pub use tables::{DveTableSet, Fingerprint, TableId};
