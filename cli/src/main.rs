//! The `khal` command: one subcommand per file (`map.rs`, `decode.rs`,
//! `trace.rs`, `demo.rs`).
//!
//! Every failure is one line on stderr and a non-zero exit: 2 for a bad
//! command line, 1 for a command that could not do its job (or whose output
//! could not be written; a closed pipe, as in `khal map | head`, is not a
//! failure). No panics.

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod arch_arg;
mod decode;
mod demo;
mod demo_device;
mod map;
mod probe;
mod trace;

pub use arch_arg::ArchArg;

/// What `khal --help` ends with: one example per subcommand.
const AFTER_HELP: &str = "\
Every command runs on this machine alone: the register matrix and decoder come
from the HAL's arch traits, trace and demo run on the built-in device model (no
hardware, no setup). Errors are one line on stderr; exit 2 for a bad command
line, 1 for a command that failed.

Examples:
  khal demo --arch cayman                      bring-up + 100000 notifications, summary
  khal demo --arch mariana --json --notifications 5000
  khal trace --arch cayman notific-init --queues 10 --bp-mode 0 --uart-mode 0
  khal map --arch mariana                      the register matrix of an arch
  khal decode --arch mariana 0x808580000400    what lives at an address
  khal probe /dev/neuron0                      what the vendor driver's node reports
  khal demo --arch cayman --device fake        the demo through the driver interface (fake)

`khal <command> --help` explains each command.";

const MAP_HELP: &str = "\
Examples:
  khal map --arch cayman
  khal map --arch sunda --json
  khal map --diff sunda cayman";

const DECODE_HELP: &str = "\
Examples:
  khal decode --arch mariana 0x808580000400
  khal decode --arch cayman --in notific 0x10c";

/// khal: the register matrix, address decoder and tools of the khal HAL.
#[derive(Debug, Parser)]
#[command(name = "khal", version, about, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands. To add one: a file `src/<name>.rs` with an `Args` struct
/// and a `run(&Args) -> Result<String, String>` (or [`Failed`] when a failure
/// still prints something), a variant here and an arm in [`run`].
#[derive(Debug, Subcommand)]
enum Command {
    /// Print the register matrix of an arch (or the differences of two).
    #[command(after_help = MAP_HELP)]
    Map(map::MapArgs),
    /// Say what lives at a device address.
    #[command(after_help = DECODE_HELP)]
    Decode(decode::DecodeArgs),
    /// Dry-run one HAL operation on the device model and print its register accesses.
    Trace(trace::TraceArgs),
    /// Bring an arch up on the built-in device model and drain notifications (no hardware).
    Demo(demo::DemoArgs),
    /// What the vendor driver's device node reports (arch, revision, BARs, NQ types).
    Probe(probe::ProbeArgs),
}

/// A command that failed: its one-line message (stderr, exit 1) and what it
/// still prints on stdout (`demo --json`'s summary carrying the error).
#[derive(Debug)]
pub struct Failed {
    /// The message, without the `error: ` prefix.
    pub msg: String,
    /// Printed on stdout before the message; empty for most failures.
    pub stdout: String,
}

impl From<String> for Failed {
    fn from(msg: String) -> Failed {
        Failed {
            msg,
            stdout: String::new(),
        }
    }
}

fn run(cli: &Cli) -> Result<String, Failed> {
    match &cli.command {
        Command::Map(args) => map::run(args).map_err(Failed::from),
        Command::Decode(args) => decode::run(args).map_err(Failed::from),
        Command::Trace(args) => trace::run(args).map_err(Failed::from),
        Command::Demo(args) => demo::run(args),
        Command::Probe(args) => probe::run(args).map_err(Failed::from),
    }
}

/// Write `out` to stdout and flush it. A reader that went away (a closed
/// pipe) is fine; any other write error (a full disk, `> /dev/full`) is the
/// command's failure: its output was lost.
fn emit(out: &str) -> Result<(), String> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("cannot write the output: {e}")),
    }
}

/// The first meaningful line of a clap error, without clap's usage block.
fn one_line(err: &clap::Error) -> String {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand
    ) {
        return "error: a subcommand is required (map, decode, trace, demo, probe); see `khal --help`"
            .into();
    }
    // clap's message is the first line, sometimes continued by indented
    // lines (the missing arguments); the usage block follows a blank line.
    let text = err.to_string();
    let mut parts = text
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty() && !l.starts_with("Usage:"));
    let mut line = parts.next().unwrap_or("error: bad arguments").to_string();
    for more in parts {
        line.push(' ');
        line.push_str(more);
    }
    if line.starts_with("error:") {
        line
    } else {
        format!("error: {line}")
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            use clap::error::ErrorKind;
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) {
                // `--help` / `--version`: clap prints to stdout, success.
                let _ = err.print();
                return ExitCode::SUCCESS;
            }
            eprintln!("{}", one_line(&err));
            return ExitCode::from(2);
        }
    };
    if let Command::Demo(args) = &cli.command {
        if let Err(msg) = demo::check_args(args) {
            eprintln!("error: {msg}");
            return ExitCode::from(2);
        }
    }
    let (out, failed) = match run(&cli) {
        Ok(out) => (out, None),
        Err(Failed { msg, stdout }) => (stdout, Some(msg)),
    };
    let written = emit(&out);
    match (failed, written) {
        (None, Ok(())) => ExitCode::SUCCESS,
        (Some(msg), _) | (None, Err(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(1)
        }
    }
}
