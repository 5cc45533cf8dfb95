//! Where the command line writes: stdout for results, stderr for findings and notes, and how
//! text findings look there (`--color`, `NO_COLOR`). A closed stdout (`jax-runtimes
//! accelerators | head -1`) ends the command quietly with exit 0, as ripgrep does; a closed
//! stderr is ignored. Nothing here panics.

use std::io::{ErrorKind, IsTerminal, Write};
use std::sync::OnceLock;

use crate::exit::Exit;
use crate::report::Style;

/// `--color`: when text findings are colored, and whether their source frames use box drawing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Color on a terminal unless `NO_COLOR` is set; ASCII frames when `TERM=dumb`.
    #[default]
    Auto,
    /// Always color (for CI logs that show ANSI colors).
    Always,
    /// Plain text for logs: no color, ASCII instead of box drawing.
    Never,
}

/// The stream findings are written to (its being a terminal decides `auto`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// The `--color` of this run, set once by [`crate::cli::main`] before the command runs.
static COLOR: OnceLock<ColorChoice> = OnceLock::new();

/// Records the `--color` choice of this run (the first one counts).
pub fn set_color(choice: ColorChoice) {
    let _ = COLOR.set(choice);
}

/// How text findings written to `stream` look, from `--color`, `NO_COLOR` and `TERM`.
pub fn style(stream: Stream) -> Style {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let terminal = match stream {
        Stream::Stdout => std::io::stdout().is_terminal(),
        Stream::Stderr => std::io::stderr().is_terminal(),
    };
    let dumb = var("TERM").is_some_and(|t| t == "dumb");
    style_for(COLOR.get().copied().unwrap_or_default(), terminal, var("NO_COLOR").is_some(), dumb)
}

/// The style for a choice, whether the stream is a terminal, whether `NO_COLOR` is set (not
/// empty, as no-color.org says) and whether `TERM=dumb`.
pub fn style_for(choice: ColorChoice, terminal: bool, no_color: bool, dumb: bool) -> Style {
    match choice {
        ColorChoice::Always => Style { color: true, ascii: false },
        ColorChoice::Never => Style::PLAIN,
        ColorChoice::Auto => Style { color: terminal && !no_color && !dumb, ascii: dumb },
    }
}

/// Writes `text` to stdout: `Ok` when written or when the reader went away, `Usage` on any
/// other write error (said on stderr).
pub fn stdout(text: &str) -> Exit {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Exit::Ok,
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Exit::Ok,
        Err(e) => {
            error(&format!("cannot write standard output: {e}"));
            Exit::Usage
        }
    }
}

/// Writes the documents to stdout as one YAML stream (`---` between them, as
/// [`crate::yaml::join_documents`] joins them), each dropped once written: the stream is never
/// held whole. `Ok` when written or when the reader went away, `Usage` on any other write error.
/// A document that cannot be had (the spool's temporary file does not read back) stops the
/// stream with its error, said on stderr, and `Usage`.
pub fn stdout_stream(docs: impl IntoIterator<Item = std::io::Result<String>>) -> Exit {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut written = Ok(());
    for (i, d) in docs.into_iter().enumerate() {
        let d = match d {
            Ok(d) => d,
            Err(e) => {
                error(&format!("cannot read back the output held in a temporary file: {e}"));
                return Exit::Usage;
            }
        };
        written = if i > 0 { out.write_all(b"---\n") } else { Ok(()) }.and_then(|()| out.write_all(d.as_bytes()));
        if written.is_err() {
            break;
        }
    }
    match written.and_then(|()| out.flush()) {
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
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// `jax-runtimes: <note>` on stderr.
pub fn note(text: &str) {
    stderr(&format!("jax-runtimes: {text}\n"));
}

/// `jax-runtimes: <error>` on stderr.
pub fn error(text: &str) {
    note(text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn color_follows_the_choice_the_terminal_and_no_color() {
        use ColorChoice::*;
        assert_eq!(style_for(Auto, true, false, false), Style { color: true, ascii: false });
        assert_eq!(style_for(Auto, false, false, false), Style { color: false, ascii: false }, "a pipe gets no color");
        assert_eq!(style_for(Auto, true, true, false), Style { color: false, ascii: false }, "NO_COLOR wins over a terminal");
        assert_eq!(style_for(Auto, true, false, true), Style::PLAIN, "TERM=dumb gets plain text");
        assert_eq!(style_for(Always, false, true, false), Style { color: true, ascii: false }, "--color always wins over NO_COLOR");
        assert_eq!(style_for(Never, true, false, false), Style::PLAIN);
    }
}
