//! `jax-runtimes man-pages DIR` (hidden: for packagers, not users): the clap command tree -> one
//! man page per command in DIR (`jax-runtimes.1`, `jax-runtimes-render.1`, ...), written from the
//! same definition `--help` prints, so a page cannot say what the binary does not do.

use std::io;
use std::path::{Path, PathBuf};

use super::out;
use crate::exit::Exit;

/// Arguments of `jax-runtimes man-pages`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// The folder to write the pages to (created when missing; pages of the same name are replaced).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// `jax-runtimes man-pages`, for the command tree `cmd` (the CLI's).
pub fn run(a: &ManArgs, cmd: clap::Command) -> Exit {
    match write(&a.dir, cmd) {
        Ok(pages) => {
            out::note(&format!("wrote {} man pages to {}", pages.len(), a.dir.display()));
            Exit::Ok
        }
        Err(e) => {
            out::error(&format!("cannot write the man pages to {}: {e}", a.dir.display()));
            Exit::Usage
        }
    }
}

/// Writes the page of the top command `cmd` and of every visible subcommand to `dir`; returns
/// their file names, the top command's first.
pub fn write(dir: &Path, mut cmd: clap::Command) -> io::Result<Vec<String>> {
    std::fs::create_dir_all(dir)?;
    // Global flags propagated and subcommands named `jax-runtimes-render`, as the pages show them.
    cmd.build();
    let subcommands: Vec<clap::Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help").cloned().collect();
    let mut names = Vec::new();
    for page in std::iter::once(cmd).chain(subcommands) {
        // Every page's footer names the release (not the commit: pages do not change with it).
        let man = clap_mangen::Man::new(page).source(concat!("jax-runtimes ", env!("CARGO_PKG_VERSION")));
        let name = man.get_filename();
        let mut text = Vec::new();
        man.render(&mut text)?;
        std::fs::write(dir.join(&name), text)?;
        names.push(name);
    }
    Ok(names)
}
