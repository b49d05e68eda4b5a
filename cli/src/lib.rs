//! The `khal` command as a library: [`run`] takes a command line and returns
//! the exit code; the binary (`main.rs`) only calls it. One subcommand per
//! module (`map`, `decode`, `trace`, `demo`, `probe`); [`map`] and [`decode`]
//! are public for the decoder's model test and fuzz target.
//!
//! Every failure is one line on stderr and a non-zero exit: 2 for a bad
//! command line, 1 for a command that could not do its job or whose output
//! could not be written in full (a closed stdout, a full disk, a broken pipe:
//! see `out.rs`). No panics. With `--json` stdout holds exactly one JSON
//! document, the error's included (`json_error`); docs/CLI.md lists them.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod arch_arg;
pub mod decode;
mod demo;
mod demo_device;
pub mod map;
mod out;
mod picture;
mod probe;
mod trace;

pub use arch_arg::ArchArg;

/// What `khal --help` ends with: one example per subcommand.
const AFTER_HELP: &str = "\
Every command runs on this machine alone: the register matrix and decoder come
from the HAL's arch traits, trace and demo run on the built-in device model (no
hardware, no setup). Errors are one line on stderr; exit 2 for a bad command
line, 1 for a command that failed or whose output could not be written in full
(a closed stdout, a full disk, a broken pipe). With --json, stdout is exactly
one JSON document with a \"schema\" field, errors included.

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
The table fits COLUMNS (or the terminal's width); piped, one line per item.

Examples:
  khal map --arch cayman
  khal map --arch cayman --family tpb --family hbm
  khal map --arch mariana --grep notific
  khal map --arch sunda --json
  khal map --arch cayman --svg cayman.svg       a picture of the address space
  khal map --diff sunda cayman";

const DECODE_HELP: &str = "\
Examples:
  khal decode --arch mariana 0x808580000400
  khal decode --arch cayman --json 0x2000000004
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
    Decode(DecodeCmd),
    /// Dry-run one HAL operation on the device model and print its register accesses.
    Trace(trace::TraceArgs),
    /// Bring an arch up on the built-in device model and drain notifications (no hardware).
    Demo(demo::DemoArgs),
    /// What the vendor driver's device node reports (arch, revision, BARs, NQ types).
    Probe(probe::ProbeArgs),
}

/// `khal decode`'s arguments and its output form.
#[derive(Debug, clap::Args)]
struct DecodeCmd {
    #[command(flatten)]
    args: decode::DecodeArgs,
    /// Print one JSON document (schema `khal.decode/1`, docs/CLI.md).
    #[arg(long)]
    json: bool,
}

/// A command that failed: its one-line message (stderr, exit 1) and what it
/// still prints on stdout (`demo --json`'s summary carrying the error).
#[derive(Debug)]
pub(crate) struct Failed {
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

/// Run the parsed command: its stdout text, or how it failed.
fn dispatch(cli: &Cli) -> Result<String, Failed> {
    match &cli.command {
        Command::Map(args) if args.svg.is_some() || args.html.is_some() => {
            picture::run(args).map_err(Failed::from)
        }
        Command::Map(args) => map::run(args, terminal_width()).map_err(Failed::from),
        Command::Decode(DecodeCmd { args, json: false }) => decode::run(args).map_err(Failed::from),
        Command::Decode(DecodeCmd { args, json: true }) => {
            decode::run_json(args).map_err(Failed::from)
        }
        Command::Trace(args) => trace::run(args).map_err(Failed::from),
        Command::Demo(args) => demo::run(args),
        Command::Probe(args) => probe::run(args).map_err(Failed::from),
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

/// The width `khal map`'s table fits: `COLUMNS` when set to a number, else
/// the terminal's when stdout is one; `None` (one line per item, for `grep`
/// and `awk`) when stdout is a pipe or a file.
fn terminal_width() -> Option<usize> {
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| decode::parse_addr(&c).ok())
        .filter(|&n| n > 0)
    {
        return usize::try_from(n).ok();
    }
    console::Term::stdout()
        .size_checked()
        .map(|(_rows, cols)| usize::from(cols))
}

/// The `schema` of each subcommand's JSON document (docs/CLI.md): its name
/// and a version bumped on any change a reader would notice.
fn schema_of(command: Option<&str>) -> &'static str {
    match command {
        Some("map") => map::SCHEMA,
        Some("decode") => decode::SCHEMA,
        Some("trace") => trace::SCHEMA,
        Some("demo") => demo::SCHEMA,
        _ => "khal/1",
    }
}

/// The JSON document of an error: `{"schema", "error": {"kind", "message"}}`;
/// `kind` is `usage` (exit 2) or `failed` (exit 1).
fn json_error(schema: &str, kind: &str, message: &str) -> String {
    let message = message.strip_prefix("error: ").unwrap_or(message);
    let doc = serde_json::json!({
        "schema": schema,
        "error": { "kind": kind, "message": message },
    });
    format!("{doc}\n")
}

/// The command line as given: whether it asks for JSON, and the subcommand
/// it names (read before clap, so that a refused command line still gets
/// its JSON error document).
fn sniff(args: &[OsString]) -> (bool, Option<&'static str>) {
    let words: Vec<&str> = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .take_while(|a| *a != "--")
        .collect();
    let json = words.contains(&"--json");
    // The subcommand is the first word that is not an option.
    let command = words.iter().find(|w| !w.starts_with('-')).and_then(|w| {
        ["map", "decode", "trace", "demo"]
            .into_iter()
            .find(|c| c == w)
    });
    (json, command)
}

/// Print `text` on stdout; a failure to deliver it is exit 1 with one line.
fn deliver(text: &str, code: ExitCode) -> ExitCode {
    match out::stdout(text) {
        Ok(()) => code,
        Err(msg) => {
            out::error_line(&msg);
            ExitCode::from(1)
        }
    }
}

/// A command line clap refused (exit 2), or `--help` / `--version` / `help`
/// (printed on stdout, exit 0 once written).
fn refused(err: &clap::Error, json: bool, command: Option<&str>) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        return deliver(&err.render().to_string(), ExitCode::SUCCESS);
    }
    let line = one_line(err);
    usage_error(&line, json, command)
}

/// A bad command line: one line on stderr, with `--json` the error document
/// on stdout; exit 2 whether or not they could be written.
fn usage_error(line: &str, json: bool, command: Option<&str>) -> ExitCode {
    if json {
        let _ = out::stdout(&json_error(schema_of(command), "usage", line));
    }
    out::error_line(line);
    ExitCode::from(2)
}

/// Run `khal` on a command line (the program name first, as
/// [`std::env::args_os`] gives it): print what the command prints, and
/// return its exit code (0, 1 for a failed command or undelivered output, 2
/// for a bad command line).
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    let (json, command) = sniff(&args);
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) => return refused(&err, json, command),
    };
    if let Command::Demo(args) = &cli.command {
        if let Err(msg) = demo::check_args(args) {
            return usage_error(&format!("error: {msg}"), json, command);
        }
    }
    match dispatch(&cli) {
        Ok(text) => deliver(&text, ExitCode::SUCCESS),
        Err(Failed { msg, stdout }) => {
            let doc = if json && stdout.is_empty() {
                json_error(schema_of(command), "failed", &msg)
            } else {
                stdout
            };
            // The output cannot fail the command twice: exit 1 either way,
            // and the command's own message is the one that explains it.
            let _ = out::stdout(&doc);
            out::error_line(&msg);
            ExitCode::from(1)
        }
    }
}
