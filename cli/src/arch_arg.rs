//! `ArchArg`, an arch on the command line: the CLI's root type that `map.rs`,
//! `decode.rs`, `trace.rs` and `demo.rs` name as `crate::ArchArg`. Its own
//! file so that the decoder's model test and fuzz target, which compile
//! `map.rs` and `decode.rs` in by path, include this same definition.

use clap::ValueEnum;
use khal::ArchId;

/// An arch on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ArchArg {
    /// SUNDA, arch 2.
    Sunda,
    /// CAYMAN, arch 3.
    Cayman,
    /// MARIANA, arch 4.
    Mariana,
}

impl ArchArg {
    /// The arch id.
    pub fn id(self) -> ArchId {
        match self {
            ArchArg::Sunda => ArchId::Sunda,
            ArchArg::Cayman => ArchId::Cayman,
            ArchArg::Mariana => ArchId::Mariana,
        }
    }
}
