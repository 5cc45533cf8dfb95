//! What the subcommands share: reading a catalog, printing findings, and bringing an owned
//! directory up to date (or checking it).

use std::path::{Path, PathBuf};

use super::out;
use crate::diag::{has_errors, Diagnostic};
use crate::exit::Exit;
use crate::pipeline;
use crate::read::{self, Input, Sources};
use crate::report;
use crate::write::{self, Plan};

/// Reads catalog documents from paths, or the built-in catalog when none are given.
pub fn read_catalog(paths: &[PathBuf]) -> Input {
    if paths.is_empty() {
        read::builtin()
    } else {
        read::paths(paths)
    }
}

/// The runtimes of `--runtimes` paths (catalog files rendered first, runtime files as they are),
/// with the findings to report (catalog warnings); or, when they cannot be used, the findings
/// and the exit code. Their sources are added to `sources`.
pub fn load_runtimes(paths: &[PathBuf], sources: &mut Sources) -> Result<pipeline::Runtimes, (Vec<Diagnostic>, Exit)> {
    if paths.is_empty() {
        return Ok(pipeline::Runtimes::default());
    }
    let input = read::paths(paths);
    sources.extend(&input.sources);
    let docs = match input.into_result() {
        Ok(d) => d,
        Err(diags) => {
            let code = Exit::after_read_errors(&diags);
            return Err((diags, code));
        }
    };
    let loaded = pipeline::runtimes(&docs);
    if has_errors(&loaded.diagnostics) {
        return Err((loaded.diagnostics, Exit::Findings));
    }
    Ok(loaded)
}

/// How findings are printed on stderr by `render` and `docs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FindingsFormat {
    /// `error[rule]: file:line: Kind/name: `field`: message`, the line itself, and a help line.
    Text,
    /// A JSON array of findings.
    Json,
}

/// Prints findings on stderr.
pub fn print_findings(diags: &[Diagnostic], format: FindingsFormat, sources: &Sources) {
    if diags.is_empty() {
        return;
    }
    match format {
        FindingsFormat::Text => out::stderr(&report::text_all(diags, sources)),
        FindingsFormat::Json => out::stderr(&report::json(diags)),
    }
}

/// Brings `dir` to `plan`'s state, or with `check` only reports (exit 1 and a diff on stdout
/// when stale). Shared by `render -o` and `docs -o`.
pub fn sync_dir(dir: &Path, plan: &Plan, check: bool, command: &str, paths: &[PathBuf], runtimes: usize) -> Exit {
    if check {
        if plan.is_empty() {
            out::note(&format!("{} is up to date ({runtimes} runtimes)", dir.display()));
            return Exit::Ok;
        }
        let code = out::stdout(&plan.diff(dir));
        if code != Exit::Ok {
            return code;
        }
        out::note(&format!(
            "{} is stale: {} missing, {} changed, {} extra; run `{}`",
            dir.display(),
            plan.create.len(),
            plan.update.len(),
            plan.delete.len(),
            rerun_hint(command, paths, dir)
        ));
        return Exit::Findings;
    }
    if let Err(e) = write::apply(dir, plan) {
        out::error(&e.to_string());
        return Exit::Usage;
    }
    let done = if command == "docs" { "documented {n} runtimes in" } else { "wrote {n} runtimes to" };
    out::note(&format!(
        "{} {} ({} created, {} updated, {} pruned)",
        done.replace("{n}", &runtimes.to_string()),
        dir.display(),
        plan.create.len(),
        plan.update.len(),
        plan.delete.len()
    ));
    Exit::Ok
}

/// The command that brings `dir` up to date, for "stale" messages.
pub fn rerun_hint(command: &str, paths: &[PathBuf], dir: &Path) -> String {
    let mut words = vec!["jax-runtimes".to_string(), command.to_string()];
    words.extend(paths.iter().map(|p| p.display().to_string()));
    words.extend(["-o".to_string(), dir.display().to_string()]);
    words.join(" ")
}
