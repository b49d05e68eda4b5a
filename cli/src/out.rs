//! Where `khal`'s output goes: every write to stdout and stderr is checked.
//!
//! The exit code never claims output that was not delivered: 0 only when all
//! of stdout was written and flushed; 1 when the command failed or its output
//! could not be written in full (a closed stdout `>&-`, a full disk
//! `> /dev/full`, a reader that went away: a broken pipe, as in
//! `khal map | head -1` once the pipe buffer is full); 2 for a bad command
//! line. A message that cannot be written to stderr changes no exit code.
//!
//! A closed stdout cannot be seen from `main`: before it, Rust's runtime puts
//! `/dev/null` on a closed fd 0, 1 or 2, so writes to it succeed and the
//! output is lost. A constructor run before the runtime (the ELF
//! `.init_array`, Linux) notes whether fd 1 was open at `exec`.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether fd 1 was closed when the process started (see the module docs).
static STDOUT_CLOSED_AT_EXEC: AtomicBool = AtomicBool::new(false);

/// Run by the dynamic loader before Rust's runtime fills closed standard fds:
/// `fcntl(1, F_DUPFD_CLOEXEC)` fails with `EBADF` exactly when fd 1 is closed.
/// Plain std calls (no allocation beyond stdout's handle), nothing to unwind.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static NOTE_STDOUT_AT_EXEC: extern "C" fn() = note_stdout_at_exec;

#[cfg(target_os = "linux")]
extern "C" fn note_stdout_at_exec() {
    use std::os::fd::AsFd as _;
    let closed = std::io::stdout().as_fd().try_clone_to_owned().is_err();
    STDOUT_CLOSED_AT_EXEC.store(closed, Ordering::Relaxed);
}

/// Write all of `text` to stdout and flush it. `Err` is the one-line reason
/// (without `error: `) when any of it could not be delivered.
pub fn stdout(text: &str) -> Result<(), String> {
    if STDOUT_CLOSED_AT_EXEC.load(Ordering::Relaxed) {
        return Err("cannot write the output: stdout is closed".into());
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write the output: {e}"))
}

/// Write one `error: …` line to stderr. A failure is ignored: the exit code
/// already says the command failed, and there is nowhere left to say more.
pub fn error_line(msg: &str) {
    let line = if msg.starts_with("error:") {
        format!("{msg}\n")
    } else {
        format!("error: {msg}\n")
    };
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(line.as_bytes()).and_then(|()| err.flush());
}
