//! What the subcommands share: reading a catalog, reporting findings on stderr (text, or one
//! JSON document), and bringing an owned directory up to date (or checking it).

use std::path::{Path, PathBuf};

use super::out;
pub use crate::diag::sorted;
use crate::diag::{has_errors, Diagnostic, Severity};
use crate::exit::Exit;
use crate::pipeline;
use crate::read::{self, Input, Sources};
use crate::report;
use crate::rules::output::{OUTPUT_LEFT_BEHIND, OUTPUT_NOT_OWNED, OUTPUT_STALE, OUTPUT_UNWRITABLE};
use crate::words;
use crate::write::{self, Plan};

/// Reads catalog documents from paths, or the built-in catalog when none are given.
pub fn read_catalog(paths: &[PathBuf]) -> Input {
    catalog_texts(paths).parse()
}

/// The texts [`read_catalog`] parses, not yet parsed (see [`read::Texts::stream`]).
pub fn catalog_texts(paths: &[PathBuf]) -> read::Texts {
    if paths.is_empty() {
        read::builtin_texts()
    } else {
        read::texts(paths)
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

/// How findings are printed on stderr, the same in every command that reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FindingsFormat {
    /// `error[rule]: file:line: Kind/name: `field`: message`, the line itself, and a help line.
    Text,
    /// One JSON array of findings, and nothing else on stderr.
    Json,
    /// GitHub Actions workflow commands (`::error file=..,line=..::message`): annotations.
    Github,
    /// One SARIF 2.1.0 log (GitHub code scanning, other SARIF readers).
    Sarif,
    /// One JUnit XML report: a test case per finding, failed at `--fail-on`.
    Junit,
}

/// A severity on the command line (`--min-severity`, `--fail-on`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Level {
    Info,
    Warning,
    #[default]
    Error,
}

impl From<Level> for Severity {
    fn from(l: Level) -> Severity {
        match l {
            Level::Info => Severity::Info,
            Level::Warning => Severity::Warning,
            Level::Error => Severity::Error,
        }
    }
}

/// Which findings are reported and which fail the command: the same flags in every command that
/// reports findings.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Gate {
    /// Report only findings of this severity or worse: `info`, `warning`, `error`. Without it,
    /// everything but the infos that hold for every clean catalog (`interconnect/not-wired`);
    /// `--min-severity info` shows those too.
    #[arg(long = "min-severity", value_enum, value_name = "SEVERITY")]
    pub min_severity: Option<Level>,
    /// The severity that makes the command fail (exit 1): `error` (the default), `warning`, or
    /// `info` (any finding).
    #[arg(long = "fail-on", value_enum, value_name = "SEVERITY", default_value_t = Level::Error)]
    pub fail_on: Level,
}

impl Gate {
    /// True when `d` is reported.
    pub fn shows(&self, d: &Diagnostic) -> bool {
        match self.min_severity {
            Some(min) => d.severity >= Severity::from(min),
            None => !crate::rules::routine(d.rule) || d.severity > Severity::Info,
        }
    }

    /// The severity at which findings fail the command.
    pub fn fail_at(&self) -> Severity {
        self.fail_on.into()
    }

    /// `exit`, or 1 when it is 0 and a finding is at `--fail-on` (a warning, with `--fail-on warning`).
    pub fn exit(&self, exit: Exit, diags: &[Diagnostic]) -> Exit {
        if exit == Exit::Ok && diags.iter().any(|d| d.severity >= self.fail_at()) {
            Exit::Findings
        } else {
            exit
        }
    }
}

/// Where a command's findings go (the one output rule, README "Output and exit codes"): stderr
/// for the generators (`render`, `kueue`, `docs`), whose product is on stdout; stdout for
/// `validate`, whose report is its product; or a file (`validate --output FILE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sink {
    Stderr,
    Stdout,
    File(PathBuf),
}

/// What a command reports (the one output rule, README "Output and exit codes"). In text,
/// findings as they come, and `jax-runtimes:` notes on stderr. In every other format, one
/// document when the command ends and nothing else: notes are left out (the exit code says what
/// they say) and a problem that is not a finding (an output directory that cannot be written, a
/// stale `--check`) becomes one, so that `>findings.json` (`.sarif`, `.xml`) for validate, or
/// `2>findings.json` for a generator, is always one valid document.
pub struct Reporter {
    format: FindingsFormat,
    gate: Gate,
    command: &'static str,
    sources: Sources,
    kept: Vec<Diagnostic>,
    /// Every finding reported or not (for `--fail-on`).
    seen: Vec<Severity>,
    sink: Sink,
    /// What is written to a `Sink::File` when the report ends.
    held: String,
    /// Findings left out because they follow from an error reported.
    left_out: usize,
}

impl Reporter {
    /// A reporter for `command` that reports what `gate` lets through, on stderr.
    pub fn gated(format: FindingsFormat, gate: Gate, command: &'static str, sources: Sources) -> Reporter {
        Reporter {
            format,
            gate,
            command,
            sources,
            kept: Vec::new(),
            seen: Vec::new(),
            sink: Sink::Stderr,
            held: String::new(),
            left_out: 0,
        }
    }

    /// The same reporter, writing its findings to `sink`.
    pub fn to(self, sink: Sink) -> Reporter {
        Reporter { sink, ..self }
    }

    /// How text findings look where they go: a file gets plain text.
    fn style(&self) -> crate::report::Style {
        match self.sink {
            Sink::Stderr => out::style(out::Stream::Stderr),
            Sink::Stdout => out::style(out::Stream::Stdout),
            Sink::File(_) => crate::report::Style::PLAIN,
        }
    }

    /// Writes report text where the findings go.
    fn emit(&mut self, text: &str) {
        match self.sink {
            Sink::Stderr => out::stderr(text),
            Sink::Stdout => {
                let _ = out::stdout(text);
            }
            Sink::File(_) => self.held.push_str(text),
        }
    }

    /// Findings: printed now in text (sorted by file, line and column), kept for the end in the
    /// other formats.
    pub fn findings(&mut self, diags: &[Diagnostic]) {
        self.seen.extend(diags.iter().map(|d| d.severity));
        let shown: Vec<Diagnostic> = sorted(diags).into_iter().filter(|d| self.gate.shows(d)).collect();
        match self.format {
            FindingsFormat::Text => {
                let shown = crate::validate::kubernetes::summarize_name_lengths(&shown);
                if !shown.is_empty() {
                    let text = report::text_all_styled(&shown, &self.sources, self.style());
                    self.emit(&text);
                }
            }
            _ => self.kept.extend(shown),
        }
    }

    /// Counts findings left out because they follow from an error reported: `nothing written`
    /// says how many.
    pub fn left_out(&mut self, n: usize) {
        self.left_out += n;
    }

    /// A `jax-runtimes: <note>` line in text; nothing in the other formats.
    pub fn note(&self, text: &str) {
        if self.format == FindingsFormat::Text {
            out::note(text);
        }
    }

    /// A problem of the command itself: the note `text` in text, the finding `d` in the others.
    pub fn problem(&mut self, text: &str, d: Diagnostic) {
        self.seen.push(d.severity);
        match self.format {
            FindingsFormat::Text => out::error(text),
            _ => self.kept.push(d),
        }
    }

    /// Ends the report: in the document formats, the one document of every finding (`[]`, an
    /// empty SARIF run, a passing JUnit case for none). Returns `exit`, made 1 by `--fail-on`.
    pub fn finish(mut self, exit: Exit) -> Exit {
        let kept = sorted(&self.kept);
        let summarized = || crate::validate::kubernetes::summarize_name_lengths(&kept);
        let document = match self.format {
            FindingsFormat::Text => None,
            FindingsFormat::Json => Some(report::json(&kept)),
            FindingsFormat::Github => Some(report::ci::github(&summarized())),
            FindingsFormat::Sarif => Some(report::ci::sarif(&summarized())),
            FindingsFormat::Junit => Some(report::ci::junit(&summarized(), self.command, self.gate.fail_at())),
        };
        if let Some(d) = document {
            self.emit(&d);
        }
        if let Sink::File(path) = &self.sink {
            if let Err(e) = std::fs::write(path, &self.held) {
                out::error(&format!("cannot write the report to {}: {e}", path.display()));
                return Exit::Usage;
            }
        }
        if exit == Exit::Ok && self.seen.iter().any(|&s| s >= self.gate.fail_at()) {
            Exit::Findings
        } else {
            exit
        }
    }

    /// True when findings hold one at `--fail-on` (an error; a warning too with `--fail-on
    /// warning`): a generator then writes nothing, on stdout or on disk, and says so in
    /// `nothing written: N errors`. Every generator asks this once, after its last finding and
    /// before its first write (all-or-nothing).
    pub fn refused(&self, diags: &[Diagnostic]) -> bool {
        let at = self.gate.fail_at();
        let failing: Vec<&Diagnostic> = diags.iter().filter(|d| d.severity >= at).collect();
        if failing.is_empty() {
            return false;
        }
        let errors = failing.iter().filter(|d| d.is_error()).count();
        let warnings = failing.len() - errors;
        let counted = match (errors, warnings) {
            (e, 0) => words::count(e, "error"),
            (0, w) => format!("{} (--fail-on warning)", words::count(w, "warning")),
            (e, w) => format!("{} and {} (--fail-on warning)", words::count(e, "error"), words::count(w, "warning")),
        };
        let left_out = left_out_note(self.left_out, if failing.len() == 1 { "it" } else { "them" });
        self.note(&format!("nothing written: {counted}{left_out}"));
        true
    }
}

/// ` (N findings that follow from FROM left out)`, or nothing for none: what a summary line adds
/// for the findings left out because they follow from an error reported.
pub fn left_out_note(n: usize, from: &str) -> String {
    match n {
        0 => String::new(),
        n => format!(" ({} that {} from {from} left out)", words::count(n, "finding"), if n == 1 { "follows" } else { "follow" }),
    }
}

/// `--trainer-version`, as every command that judges Trainer objects takes it (one gate: `validate`,
/// `fit` and `preview` judge by the same release).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct TrainerArgs {
    /// The Kubeflow Trainer release to judge by: its CRDs' schemas (embedded: v2.0.0, v2.0.1,
    /// v2.1.0, v2.2.0, v2.2.1, v2.3.0, next; a minor such as v2.2 is its newest patch) and, from
    /// v2.2 on, how it merges TrainJobs. Default: the one a runtime's
    /// `jax-runtimes.dev/trainer-version` annotation names, else v2.3.0.
    #[arg(long = "trainer-version", value_name = "VERSION")]
    pub trainer_version: Option<String>,
}

impl TrainerArgs {
    /// The release named, `None` when none is; a name that is not one is said on stderr
    /// (`Err`: exit 2), and a release without the JAX policy gets a note.
    pub fn release(&self) -> Result<Option<crate::validate::Release>, ()> {
        let Some(name) = self.trainer_version.as_deref() else { return Ok(None) };
        match crate::validate::Release::named(name) {
            Ok(r) => {
                if let Some(n) = r.note() {
                    out::note(&n);
                }
                Ok(Some(r))
            }
            Err(e) => {
                out::error(&format!("--trainer-version: {e}"));
                Err(())
            }
        }
    }
}

/// Findings on stderr as every command's text report shows them: sorted by file, line and
/// column, the TrainJob-name infos in one line, the routine infos hidden, framed and colored as
/// `--color`, `NO_COLOR` and `TERM` say. For the commands whose product is on stdout and whose
/// `--format` is the product's (`fit`, `preview`).
pub fn say_findings(diags: &[Diagnostic], sources: &Sources) {
    let mut report = Reporter::gated(FindingsFormat::Text, Gate::default(), "", sources.clone());
    report.findings(diags);
}

/// Brings `dir` to `plan`'s state, or with `check` only reports (exit 1 and a diff on stdout
/// when stale). Shared by `render -o`, `docs -o` and `kueue -o` (whose `command` also carries its
/// `--nodes`, for the hint; `runtimes` then counts Kueue objects).
pub fn sync_dir(dir: &Path, plan: &Plan, check: bool, command: &str, paths: &[PathBuf], runtimes: usize, report: &mut Reporter) -> Exit {
    let counted = words::count(runtimes, if command.starts_with("kueue") { "Kueue object" } else { "runtime" });
    let left: Vec<Diagnostic> = plan
        .left
        .iter()
        .map(|n| {
            Diagnostic::new(&OUTPUT_LEFT_BEHIND, write::fleet::why_left(n))
                .with_file(dir.join(n).display().to_string(), None, None)
                .with_help(OUTPUT_LEFT_BEHIND.fix)
        })
        .collect();
    report.findings(&left);
    if !check && report.refused(&left) {
        return Exit::Findings;
    }
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
            Diagnostic {
                files: plan.create.keys().chain(plan.update.keys()).chain(plan.delete.keys()).cloned().collect(),
                ..Diagnostic::new(&OUTPUT_STALE, format!("the directory is stale: {what}"))
                    .with_file(dir.display().to_string(), None, None)
                    .with_help(OUTPUT_STALE.fix)
            },
        );
        return Exit::Findings;
    }
    if let Err(e) = write::apply(dir, plan) {
        return report.unwritable(dir, &e);
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
    if !plan.delete.is_empty() {
        let mut names: Vec<String> = plan.delete.keys().take(8).map(|n| dir.join(n).display().to_string()).collect();
        if plan.delete.len() > names.len() {
            names.push(format!("and {} more", plan.delete.len() - names.len()));
        }
        report.note(&format!("pruned {}", names.join(", ")));
    }
    Exit::Ok
}

impl Reporter {
    /// The output directory could not be read or written (exit 2), or holds a file the tool
    /// would write and did not generate (an ownership conflict: a finding, exit 1, as in the KRM
    /// function). Returns the exit code.
    pub fn unwritable(&mut self, dir: &Path, error: &write::DirError) -> Exit {
        let message = error.message.as_str();
        let (rule, exit) = if error.conflict { (&OUTPUT_NOT_OWNED, Exit::Findings) } else { (&OUTPUT_UNWRITABLE, Exit::Usage) };
        self.problem(
            message,
            Diagnostic::new(rule, message.to_string()).with_file(dir.display().to_string(), None, None).with_help(rule.fix),
        );
        exit
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

/// Where the findings of a command whose stdout is its answer (`fit`) go: text on stderr, or
/// kept for the one findings document that is then all it prints on stdout (as `validate`'s
/// report), the notes left out.
pub struct Said {
    pub sources: Sources,
    document: Option<FindingsFormat>,
    command: &'static str,
    kept: Vec<Diagnostic>,
}

impl Said {
    /// `document`: the findings format, `None` for text on stderr.
    pub fn new(document: Option<FindingsFormat>, command: &'static str) -> Said {
        Said { sources: Sources::default(), document, command, kept: Vec::new() }
    }

    /// True when the findings make one document.
    pub fn is_document(&self) -> bool {
        self.document.is_some()
    }

    /// Findings; in text shown with the lines of `with` (else of the sources read so far).
    pub fn say(&mut self, diags: &[Diagnostic], with: Option<&Sources>) {
        match self.document {
            None if !diags.is_empty() => say_findings(diags, with.unwrap_or(&self.sources)),
            None => {}
            Some(_) => self.kept.extend_from_slice(diags),
        }
    }

    /// [`Said::say`] of input that cannot be used: exit 2.
    pub fn bad(&mut self, diags: &[Diagnostic], with: Option<&Sources>) -> Exit {
        self.say(diags, with);
        Exit::Usage
    }

    /// A `jax-runtimes:` note in text; nothing in a findings document.
    pub fn note(&self, text: &str) {
        if self.document.is_none() {
            out::note(text);
        }
    }

    /// Ends the run: the findings document on stdout, if one is asked for. Returns `exit`.
    pub fn finish(self, exit: Exit) -> Exit {
        match self.document {
            None => exit,
            Some(format) => {
                let mut report = Reporter::gated(format, Gate::default(), self.command, self.sources).to(Sink::Stdout);
                report.findings(&self.kept);
                report.finish(exit)
            }
        }
    }
}

/// Live mode's flags, spelled as kubectl spells them: which cluster to read.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LiveArgs {
    /// Live mode: the kubeconfig file (default: `$KUBECONFIG`, else `~/.kube/config`), as
    /// kubectl's `--kubeconfig`.
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// Live mode: the kubeconfig context (default: the current one), as kubectl's `--context`.
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Live mode: objects per list call (default 500, as kubectl's `--chunk-size`).
    #[arg(long = "chunk-size", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk_size: Option<u32>,
}

impl LiveArgs {
    /// True when any of them is given.
    pub fn given(&self) -> bool {
        self.kubeconfig.is_some() || self.context.is_some() || self.chunk_size.is_some()
    }

    pub fn target(&self) -> crate::live::Target {
        crate::live::Target { kubeconfig: self.kubeconfig.clone(), context: self.context.clone(), chunk_size: self.chunk_size }
    }
}
