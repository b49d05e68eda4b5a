//! The `khal` binary: the command line goes to [`khal_cli::run`], the library
//! that holds every subcommand.

use std::process::ExitCode;

fn main() -> ExitCode {
    khal_cli::run(std::env::args_os())
}
