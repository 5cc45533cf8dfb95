//! Where the command line writes: stdout for results, stderr for findings and notes. A closed
//! stdout (`jax-runtimes accelerators | head -1`) ends the command quietly with exit 0, as
//! ripgrep does; a closed stderr is ignored. Nothing here panics.

use std::io::{ErrorKind, Write};

use crate::exit::Exit;

/// Writes `text` to stdout: `Ok` when written or when the reader went away, `Usage` on any
/// other write error (said on stderr).
pub fn stdout(text: &str) -> Exit {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Exit::Ok,
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Exit::Ok,
        Err(e) => {
            error(&format!("cannot write standard output: {e}"));
            Exit::Usage
        }
    }
}

/// Writes `text` to stderr as it is.
pub fn stderr(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|_| err.flush());
}

/// `jax-runtimes: <note>` on stderr.
pub fn note(text: &str) {
    stderr(&format!("jax-runtimes: {text}\n"));
}

/// `jax-runtimes: <error>` on stderr.
pub fn error(text: &str) {
    note(text);
}
