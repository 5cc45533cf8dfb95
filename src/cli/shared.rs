//! What the subcommands share: reading a catalog, reporting findings on stderr (text, or one
//! JSON document), and bringing an owned directory up to date (or checking it).

use std::path::{Path, PathBuf};

use super::out;
use crate::diag::{has_errors, Diagnostic};
use crate::exit::Exit;
use crate::pipeline;
use crate::read::{self, Input, Sources};
use crate::report;
use crate::rules::output::{OUTPUT_STALE, OUTPUT_UNWRITABLE};
use crate::words;
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
    /// One JSON array of findings, and nothing else on stderr.
    Json,
}

/// What `render` and `docs` say on stderr. In text, findings and `jax-runtimes:` notes as they
/// come. With `--format json`, one JSON array of findings when the command ends and nothing
/// else: notes are left out (the exit code says what they say) and a problem that is not a
/// finding (an output directory that cannot be written, a stale `--check`) becomes one, so that
/// `2>findings.json` is always valid JSON.
pub struct Reporter {
    format: FindingsFormat,
    sources: Sources,
    kept: Vec<Diagnostic>,
}

impl Reporter {
    pub fn new(format: FindingsFormat, sources: Sources) -> Reporter {
        Reporter { format, sources, kept: Vec::new() }
    }

    /// Findings: printed now in text, kept for the end in JSON.
    pub fn findings(&mut self, diags: &[Diagnostic]) {
        match self.format {
            FindingsFormat::Text => {
                if !diags.is_empty() {
                    out::stderr(&report::text_all_styled(diags, &self.sources, out::style(out::Stream::Stderr)));
                }
            }
            FindingsFormat::Json => self.kept.extend_from_slice(diags),
        }
    }

    /// A `jax-runtimes: <note>` line in text; nothing in JSON.
    pub fn note(&self, text: &str) {
        if self.format == FindingsFormat::Text {
            out::note(text);
        }
    }

    /// A problem of the command itself: the note `text` in text, the finding `d` in JSON.
    pub fn problem(&mut self, text: &str, d: Diagnostic) {
        match self.format {
            FindingsFormat::Text => out::error(text),
            FindingsFormat::Json => self.kept.push(d),
        }
    }

    /// Ends the report: in JSON, the array of every finding (`[]` for none). Returns `exit`.
    pub fn finish(self, exit: Exit) -> Exit {
        if self.format == FindingsFormat::Json {
            out::stderr(&report::json(&self.kept));
        }
        exit
    }

    /// `nothing written: N errors` when findings hold errors; true then.
    pub fn refused(&self, diags: &[Diagnostic]) -> bool {
        let errors = diags.iter().filter(|d| d.is_error()).count();
        if errors > 0 {
            self.note(&format!("nothing written: {}", words::count(errors, "error")));
        }
        errors > 0
    }
}

/// Brings `dir` to `plan`'s state, or with `check` only reports (exit 1 and a diff on stdout
/// when stale). Shared by `render -o`, `docs -o` and `kueue -o` (whose `command` also carries its
/// `--nodes`, for the hint; `runtimes` then counts Kueue objects).
pub fn sync_dir(dir: &Path, plan: &Plan, check: bool, command: &str, paths: &[PathBuf], runtimes: usize, report: &mut Reporter) -> Exit {
    let counted = words::count(runtimes, if command.starts_with("kueue") { "Kueue object" } else { "runtime" });
    if check {
        if plan.is_empty() {
            report.note(&format!("{} is up to date ({counted})", dir.display()));
            return Exit::Ok;
        }
        let code = out::stdout(&plan.diff(dir));
        if code != Exit::Ok {
            return code;
        }
        let what = format!(
            "{} missing, {} changed, {} extra; run `{}`",
            plan.create.len(),
            plan.update.len(),
            plan.delete.len(),
            rerun_hint(command, paths, dir)
        );
        report.problem(
            &format!("{} is stale: {what}", dir.display()),
            Diagnostic::new(&OUTPUT_STALE, format!("the directory is stale: {what}"))
                .with_file(dir.display().to_string(), None, None)
                .with_help(OUTPUT_STALE.fix),
        );
        return Exit::Findings;
    }
    if let Err(e) = write::apply(dir, plan) {
        report.unwritable(dir, &e.to_string());
        return Exit::Usage;
    }
    let done = if command == "docs" { "documented" } else { "wrote" };
    let preposition = if command == "docs" { "in" } else { "to" };
    report.note(&format!(
        "{done} {counted} {preposition} {} ({} created, {} updated, {} pruned)",
        dir.display(),
        plan.create.len(),
        plan.update.len(),
        plan.delete.len()
    ));
    Exit::Ok
}

impl Reporter {
    /// The output directory could not be read or written.
    pub fn unwritable(&mut self, dir: &Path, message: &str) {
        self.problem(
            message,
            Diagnostic::new(&OUTPUT_UNWRITABLE, message.to_string())
                .with_file(dir.display().to_string(), None, None)
                .with_help(OUTPUT_UNWRITABLE.fix),
        );
    }
}

/// `-o json` (or yaml, text) names an output directory; a format goes to `--format`. A
/// directory of that name that does not exist yet is refused, with both spellings.
pub fn check_output_dir(dir: &Path) -> Result<(), String> {
    let name = dir.as_os_str().to_string_lossy();
    if ["json", "yaml", "yml", "text", "table", "markdown"].contains(&name.as_ref()) && !dir.exists() {
        return Err(format!(
            "`-o {name}` names the output directory (it would create a folder `{name}`); formats are `--format` (`--format json` prints the findings as JSON); to write into a new folder named `{name}`, use `-o ./{name}`"
        ));
    }
    Ok(())
}

/// The command that brings `dir` up to date, for "stale" messages.
pub fn rerun_hint(command: &str, paths: &[PathBuf], dir: &Path) -> String {
    let mut words = vec!["jax-runtimes".to_string(), command.to_string()];
    words.extend(paths.iter().map(|p| p.display().to_string()));
    words.extend(["-o".to_string(), dir.display().to_string()]);
    words.join(" ")
}
