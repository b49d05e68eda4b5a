//! `ArchArg`, an arch on the command line: the `--arch` of every subcommand,
//! re-exported at the crate root as `khal_cli::ArchArg`.

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
