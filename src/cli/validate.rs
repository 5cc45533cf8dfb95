//! `jax-runtimes validate`: Trainer runtime and TrainJob files (TrainJobs checked against the
//! runtimes of the same input and of `--runtimes`) -> the report, its product, on stdout (or in
//! `--output FILE`) in every `--format` (text, JSON, GitHub, SARIF, JUnit, or a kpt
//! ResourceList), a count on stderr, exit 1 on errors.

use std::path::PathBuf;

use clap::ValueEnum;

use super::out;
use super::shared::{load_runtimes, sorted, FindingsFormat, Gate, Reporter, Sink};
use crate::diag::{Diagnostic, ObjectRef, Severity};
use crate::exit::Exit;
use crate::kueue::is_kueue;
use crate::read::{Document, Sources};
use crate::resource_list::{self, ResourceList};
use crate::rules::input::{INPUT_NOT_A_RUNTIME, INPUT_NO_RUNTIME};
use crate::rules::validate::CRD_NOT_COVERED;
use crate::rules::{self, Rule};
use crate::validate::{is_runtime, is_trainjob, objects, Options};
use crate::words;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// `error[rule]: file:line: Kind/name: `field`: message`, the source line, and a help line.
    Text,
    /// A JSON array of findings.
    Json,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// One SARIF 2.1.0 log.
    Sarif,
    /// One JUnit XML report.
    Junit,
    /// A `config.kubernetes.io/v1` ResourceList with the findings as `results` (kpt style), on
    /// stdout: the one format that is the command's product rather than its report.
    Kpt,
    /// Only with --list-rules: the docs page.
    Markdown,
}

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Files or folders (`*.yaml`, `*.yml`, `*.json`) holding ClusterTrainingRuntime,
    /// TrainingRuntime or TrainJob objects, or `-` for stdin. Other documents are skipped.
    pub paths: Vec<PathBuf>,
    /// Runtimes the TrainJobs may reference (repeatable): files or folders of runtimes, or of
    /// catalog objects (rendered first). They are not reported on themselves.
    #[arg(long = "runtimes", value_name = "PATH")]
    pub runtimes: Vec<PathBuf>,
    #[command(flatten)]
    pub trainer: super::shared::TrainerArgs,
    /// A CRD file (repeatable) to check structure and CEL rules against, e.g. the cluster's
    /// `trainer.kubeflow.org_clustertrainingruntimes.yaml`. Without it: the embedded schemas of
    /// the release (`--trainer-version`).
    #[arg(long = "crd", value_name = "FILE")]
    pub crds: Vec<PathBuf>,
    /// How to print the report, on stdout (the report is validate's product; notes and the count
    /// go to stderr): `text`, or one document for CI: `json`, `github`, `sarif`, `junit`, `kpt`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the report to FILE instead of stdout (`--format sarif --output results.sarif`).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A client whose needs are errors rather than warnings (repeatable): `sdk`, the Kubeflow
    /// Python SDK (`sdk/framework-label`, `sdk/trainer-container`, `sdk/unknown-device`: kubectl
    /// works without them).
    #[arg(long = "require", value_name = "CLIENT")]
    pub require: Vec<crate::catalog::Requirement>,
    #[command(flatten)]
    pub gate: Gate,
    /// Print every rule (id, severity, what it checks) instead of validating; `--format json` or
    /// `markdown` for tools and docs.
    #[arg(long)]
    pub list_rules: bool,
    /// Also send every runtime, TrainJob and Kueue object to the cluster of the kubeconfig context
    /// (`--context`, `--kubeconfig`) as a server-side dry run with strict field validation: its
    /// own CRDs, CEL rules and admission webhooks judge them too. Nothing is stored.
    #[arg(long)]
    pub server: bool,
    #[command(flatten)]
    pub live: super::shared::LiveArgs,
}

/// Runs the subcommand.
pub fn run(a: &ValidateArgs) -> Exit {
    if a.list_rules {
        return list_rules(a.format);
    }
    if a.format == Format::Markdown {
        out::error("--format markdown is only for --list-rules; use text, json or kpt");
        return Exit::Usage;
    }
    if a.paths.is_empty() {
        out::error("validate needs files, folders or `-` (stdin); try `jax-runtimes validate --help`");
        return Exit::Usage;
    }
    let Ok(release) = a.trainer.release() else { return Exit::Usage };
    // Compiling the CRDs and reading the inputs do not depend on each other: both at once.
    let (opts, input) = std::thread::scope(|s| {
        let crds = s.spawn(|| Options::with_crd_files(&a.crds));
        let input = crate::read::paths(&a.paths);
        (crds.join().unwrap_or_else(|p| std::panic::resume_unwind(p)), input)
    });
    let mut sources = input.sources.clone();
    let mut opts = match opts {
        Ok(o) => o,
        Err(diags) => {
            return print(&diags, a, &sources, Exit::Usage);
        }
    };
    let extra = match load_runtimes(&a.runtimes, &mut sources) {
        Ok(loaded) => {
            opts.runtimes = loaded.runtimes.into();
            opts.kueue = loaded.kueue.into();
            loaded.diagnostics
        }
        Err((diags, code)) => {
            return print(&diags, a, &sources, code);
        }
    };
    let mut opts = opts.for_release(release);
    let docs = match input.into_result() {
        Ok(d) => d,
        Err(diags) => {
            return print(&diags, a, &sources, Exit::after_read_errors(&diags));
        }
    };
    let mut diags = extra;
    // Catalog objects among the paths are rendered as `render`, `fit` and `kueue` render them (one
    // reader): their findings are render's, at the catalog's lines, and their runtimes are what the
    // TrainJobs of the input may use. Trainer and Kueue objects, at any version, are judged as
    // they are.
    let (theirs, rest): (Vec<Document>, Vec<Document>) = docs.into_iter().partition(|d| crate::pipeline::judged_as_is(&d.value));
    let generated = crate::pipeline::generate_with(&rest, |r| r.runtime);
    let rendered = generated.runtimes.len();
    let left_out = generated.left_out;
    // A near miss of a Trainer kind is the catalog reader's finding too: one finding per mistake,
    // and no "holds no runtime" after it.
    let said = crate::diag::has_errors(&generated.diagnostics);
    diags.extend(generated.diagnostics);
    if generated.catalog_objects > 0 {
        opts.runtimes = opts.runtimes.iter().cloned().chain(generated.runtimes).collect();
        let queues = crate::pipeline::queue_documents(generated.queues.into_iter().map(|q| q.object));
        opts.kueue = opts.kueue.iter().cloned().chain(queues).collect();
    }
    let docs: Vec<Document> = theirs.into_iter().chain(generated.ignored).collect();
    diags.extend(check_documents_with(&docs, &opts, generated.catalog_objects > 0 || said));
    crate::validate::ecosystem::require(&mut diags, &a.require);
    if a.server {
        match server_findings(&docs, &diags, &a.live.target()) {
            Ok(found) => diags.extend(found),
            Err(d) => {
                diags.push(*d);
                return print(&diags, a, &sources, Exit::Usage);
            }
        }
    } else if a.live.given() {
        out::error("--kubeconfig, --context and --chunk-size name the cluster `--server` asks; add --server");
        return Exit::Usage;
    }
    let code = print(&diags, a, &sources, Exit::from_findings(&diags));
    let count = |s: Severity| diags.iter().filter(|d| d.severity == s).count();
    let runtimes = docs.iter().filter(|d| is_runtime(&d.value)).count();
    let trainjobs = docs.iter().filter(|d| is_trainjob(&d.value)).count();
    let queued = docs.iter().filter(|d| is_kueue(&d.value)).count();
    let mut what = match (trainjobs, queued) {
        (0, 0) => words::count(runtimes, "runtime"),
        (_, 0) => format!("{} and {}", words::count(runtimes, "runtime"), words::count(trainjobs, "TrainJob")),
        (0, _) => format!("{} and {}", words::count(runtimes, "runtime"), words::count(queued, "Kueue object")),
        _ => format!(
            "{}, {} and {}",
            words::count(runtimes, "runtime"),
            words::count(trainjobs, "TrainJob"),
            words::count(queued, "Kueue object")
        ),
    };
    if rendered > 0 {
        what = format!("{what} (and {} the catalog objects render)", words::count(rendered, "runtime"));
    }
    if a.format == Format::Text {
        let left_out = super::shared::left_out_note(left_out, "the errors");
        out::note(&format!(
            "{what} checked: {}, {}{left_out}",
            words::count(count(Severity::Error), "error"),
            words::count(count(Severity::Warning), "warning")
        ));
    }
    code
}

/// `--server`: the cluster's dry-run answer on every runtime, TrainJob and Kueue object of
/// `docs`, beside the offline findings `offline`: a refusal, with a word where the offline checks
/// found no error the server gives at apply; an acceptance where they did; a kind the cluster does
/// not serve. `Err`: no cluster to ask.
fn server_findings(docs: &[Document], offline: &[Diagnostic], target: &crate::live::Target) -> Result<Vec<Diagnostic>, Box<Diagnostic>> {
    use crate::live::server::{dry_run, Answer};
    use crate::rules::live::{LIVE_NOT_SERVED, LIVE_SERVER_ACCEPTED, LIVE_SERVER_REFUSED};
    let judged: Vec<&Document> = docs.iter().filter(|d| is_runtime(&d.value) || is_trainjob(&d.value) || is_kueue(&d.value)).collect();
    let values: Vec<&serde_json::Value> = judged.iter().map(|d| &d.value).collect();
    let (origin, answers) = dry_run(target, &values)?;
    let mut out = Vec::new();
    for (doc, answer) in judged.iter().zip(answers) {
        let object = ObjectRef::of(&doc.value);
        let at_apply: Vec<&str> = offline
            .iter()
            .filter(|d| {
                d.refused_at_apply()
                    && d.file.as_deref() == Some(doc.source.name.as_str())
                    && d.index == Some(doc.index)
                    && d.object.as_ref().is_none_or(|o| o.kind == object.kind && o.name == object.name)
            })
            .map(|d| d.rule.id)
            .collect();
        let finding = match answer {
            Answer::Accepted if at_apply.is_empty() => continue,
            Answer::Accepted => Diagnostic::finding(
                &LIVE_SERVER_ACCEPTED,
                "",
                format!(
                    "the API server of {origin} accepts it (dry run), which the offline checks say it refuses at apply ({})",
                    at_apply.join(", ")
                ),
            ),
            Answer::Refused(message) => {
                let also = if at_apply.is_empty() { "; the offline checks found no error the API server gives at apply" } else { "" };
                Diagnostic::finding(&LIVE_SERVER_REFUSED, "", format!("the API server of {origin} refused it (dry run): {message}{also}"))
            }
            Answer::NotServed(why) => Diagnostic::finding(&LIVE_NOT_SERVED, "", format!("{origin}: {why}")),
        };
        out.push(doc.locate(finding.with_object(object)));
    }
    Ok(out)
}

fn list_rules(format: Format) -> Exit {
    let all: Vec<&Rule> = rules::all().collect();
    let text = match format {
        Format::Markdown => rules::markdown(),
        Format::Json => serde_json::to_string_pretty(&all).map(|s| s + "\n").unwrap_or_default(),
        Format::Text => all.iter().map(|r| format!("{:<34} {:<8} {}\n", r.id, r.severity.to_string(), r.summary)).collect(),
        Format::Kpt | Format::Github | Format::Sarif | Format::Junit => {
            out::error("--list-rules prints text, json or markdown");
            return Exit::Usage;
        }
    };
    out::stdout(&text)
}

/// Findings for a set of documents: every runtime and TrainJob checked, the others noted as info.
/// A kind of ours at a version its CRD does not serve is an error (`input/unserved-version`) and
/// is still checked, as the served version would be.
pub fn check_documents(docs: &[Document], opts: &Options) -> Vec<Diagnostic> {
    check_documents_with(docs, opts, false)
}

/// [`check_documents`]; `catalog`: the input also held catalog objects (rendered and reported
/// elsewhere), so holding no runtime or TrainJob of its own is no error.
fn check_documents_with(docs: &[Document], opts: &Options, catalog: bool) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let checked = |d: &Document| is_runtime(&d.value) || is_trainjob(&d.value) || is_kueue(&d.value);
    let mut unserved = Vec::new();
    for doc in docs {
        let gvk = crate::gvk::Gvk::of(&doc.value);
        // A `--crd` CRD of the same group and kind says which versions are served.
        let versions: Vec<(String, Vec<String>)> = opts
            .crds
            .iter()
            .filter(|c| c.group == gvk.group && c.kind == gvk.kind)
            .map(|c| (c.name.clone(), c.versions.iter().map(|v| v.name.clone()).collect()))
            .collect();
        let served = versions.first().map(|(crd, versions)| crate::kinds::Served { crd, versions });
        if let Some(d) = crate::kinds::near_miss_served(gvk, served) {
            if checked(doc) {
                unserved.push((doc.source.name.clone(), doc.index));
            }
            diags.push(doc.locate(d.with_object(ObjectRef::of(&doc.value))));
        } else if !checked(doc)
            && !crate::write::written_by_render(doc)
            && !crate::validate::claims::is_template(&doc.value)
            && !crate::validate::claims::is_compute_domain(&doc.value)
        {
            diags.push(
                doc.locate(
                    Diagnostic::finding(&INPUT_NOT_A_RUNTIME, "", "not a ClusterTrainingRuntime, TrainingRuntime or TrainJob; skipped")
                        .with_object(ObjectRef::of(&doc.value)),
                ),
            );
        }
    }
    let found = objects(docs, opts);
    // An object at an unserved version gets `input/unserved-version`, not also "no --crd file
    // defines this version".
    diags.extend(found.into_iter().filter(|d| {
        !(d.rule == &CRD_NOT_COVERED && unserved.iter().any(|(f, i)| d.file.as_deref() == Some(f.as_str()) && d.index == Some(*i)))
    }));
    if !catalog && docs.is_empty() {
        diags.push(Diagnostic::finding(
            &INPUT_NO_RUNTIME,
            "",
            "the input is empty: no YAML document (an empty file or stream, or a folder without `.yaml`, `.yml` or `.json` files)",
        ));
    } else if !catalog && !docs.iter().any(checked) {
        diags.push(Diagnostic::finding(&INPUT_NO_RUNTIME, "", "the input holds no ClusterTrainingRuntime, TrainingRuntime or TrainJob"));
    }
    diags
}

/// The report on stdout (or in `--output FILE`) in the chosen format, through the reporter every
/// command uses; returns `exit`, made 1 by `--fail-on`.
fn print(diags: &[Diagnostic], a: &ValidateArgs, sources: &Sources, exit: Exit) -> Exit {
    let sink = a.output.clone().map_or(Sink::Stdout, Sink::File);
    let format = match a.format {
        Format::Text | Format::Markdown => FindingsFormat::Text,
        Format::Json => FindingsFormat::Json,
        Format::Github => FindingsFormat::Github,
        Format::Sarif => FindingsFormat::Sarif,
        Format::Junit => FindingsFormat::Junit,
        Format::Kpt => {
            let shown: Vec<Diagnostic> = sorted(diags).into_iter().filter(|d| a.gate.shows(d)).collect();
            let code = match resource_list::write(&ResourceList::default(), &shown) {
                Ok(t) => match &sink {
                    Sink::File(path) => std::fs::write(path, t).map_or_else(
                        |e| {
                            out::error(&format!("cannot write the report to {}: {e}", path.display()));
                            Exit::Usage
                        },
                        |()| Exit::Ok,
                    ),
                    _ => out::stdout(&t),
                },
                Err(e) => {
                    out::error(&format!("cannot write the findings: {e}"));
                    return Exit::Usage;
                }
            };
            return if code == Exit::Ok { a.gate.exit(exit, diags) } else { code };
        }
    };
    let mut report = Reporter::gated(format, a.gate.clone(), "validate", sources.clone()).to(sink);
    report.findings(diags);
    report.finish(exit)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use crate::catalog::Requirement;
    use crate::diag::{Diagnostic, Severity};

    /// The rules `--require sdk` makes errors, found by running the code that does it.
    fn made_errors() -> Vec<&'static str> {
        crate::rules::all()
            .filter(|r| r.severity == Severity::Warning)
            .filter(|r| {
                let mut d = [Diagnostic::new(r, "x")];
                crate::validate::ecosystem::require(&mut d, &[Requirement::Sdk]);
                d[0].severity == Severity::Error
            })
            .map(|r| r.id)
            .collect()
    }

    /// The rule ids a text names.
    fn named(text: &str) -> Vec<&'static str> {
        crate::rules::all().map(|r| r.id).filter(|id| text.contains(&format!("`{id}`"))).collect()
    }

    #[test]
    fn the_require_helps_name_every_rule_it_makes_an_error() {
        let want = made_errors();
        assert!(want.len() >= 3, "{want:?}");
        let cli = crate::cli::Cli::command();
        let validate = cli.find_subcommand("validate").unwrap();
        let arg = validate.get_arguments().find(|a| a.get_id() == "require").unwrap();
        let help = arg.get_long_help().or_else(|| arg.get_help()).unwrap().to_string();
        assert_eq!(named(&help), want, "`validate --require` help: {help}");
        let spec = &crate::catalog::schema::schema()["$defs"]["ValidationSpec"]["properties"]["require"]["description"];
        assert_eq!(named(spec.as_str().unwrap()), want, "`JaxRuntimeValidation` `spec.require`: {spec}");
    }
}
