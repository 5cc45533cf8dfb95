//! `jax-runtimes preview`: a file with a TrainJob (and the runtimes of `--runtimes`) -> the pod
//! of one of its processes as Kubeflow Trainer would create it (with `--jobset`, the JobSet
//! Trainer creates), as YAML on stdout with a comment header saying what it is a prediction of;
//! the TrainJob's findings on stderr (exit 1 on errors, the pod or JobSet is still printed when
//! it can be predicted). The stages: read, the gate (`validate`), [`trainjob::build`], then
//! [`trainjob::jobset::for_trainjob`] or [`trainjob::predict`].

use std::path::PathBuf;

use super::out;
use super::shared::{load_runtimes, FindingsFormat, Gate};
use crate::diag::{has_errors, Diagnostic};
use crate::exit::Exit;
use crate::k8s::names;
use crate::read::{self, Document, Sources};
use crate::trainer::TrainingRuntime;
use crate::trainjob::{self, pod, Steps, TrainerVersion};
use crate::validate::{self, is_runtime, is_trainjob, structure};
use crate::yaml;

#[derive(Debug, clap::Args)]
pub struct PreviewArgs {
    /// A file holding the TrainJob (or `-` for stdin). Runtimes in the same file are used too.
    pub trainjob: PathBuf,
    /// Runtimes the TrainJob may reference (repeatable): files or folders of runtimes, or of
    /// catalog objects (rendered first).
    #[arg(long = "runtimes", value_name = "PATH")]
    pub runtimes: Vec<PathBuf>,
    /// Which process's pod to show: its completion index, 0 to numNodes - 1.
    #[arg(long, default_value_t = 0, value_name = "N", conflicts_with = "jobset")]
    pub process: i64,
    /// Show the JobSet (`jobset.x-k8s.io/v1alpha2`) Trainer creates for the TrainJob instead of a
    /// pod: every replicated job, as Trainer merges the runtime and the TrainJob.
    #[arg(long)]
    pub jobset: bool,
    /// The TrainJob to show when the file holds several.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    #[command(flatten)]
    pub trainer: super::shared::TrainerArgs,
    /// How to print the findings on stderr (the pod stays YAML on stdout): text, or one document
    /// (and nothing else) for CI: `json`, `github`, `sarif`, `junit`.
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    pub format: FindingsFormat,
}

pub fn run(a: &PreviewArgs) -> Exit {
    let Ok(release) = a.trainer.release() else { return Exit::Usage };
    let input = read::paths(std::slice::from_ref(&a.trainjob));
    let mut sources = input.sources.clone();
    let docs = match input.into_result() {
        Ok(d) => d,
        Err(diags) => {
            show(&diags, &sources, a.format);
            return Exit::after_read_errors(&diags);
        }
    };
    let (mut runtimes, kueue, mut diags) = match load_runtimes(&a.runtimes, &mut sources) {
        Ok(r) => (r.runtimes, std::sync::Arc::<[Document]>::from(r.kueue), r.diagnostics),
        Err((diags, code)) => {
            show(&diags, &sources, a.format);
            return code;
        }
    };
    let doc = match pick(&docs, a.name.as_deref()) {
        Ok(d) => d,
        Err(message) => {
            show(&diags, &sources, a.format);
            note(a.format, &message);
            // A file that was read but holds no TrainJob is a finding (1), as in every command; a
            // `--name` that picks none, or several TrainJobs without one, is a usage error (2).
            let none = !docs.iter().any(|d| is_trainjob(&d.value));
            return if none { Exit::Findings } else { Exit::Usage };
        }
    };
    // The file's runtimes first: they win on a name both have.
    let in_file: Vec<(usize, TrainingRuntime)> = docs
        .iter()
        .enumerate()
        .filter(|(_, d)| is_runtime(&d.value))
        .filter_map(|(i, d)| structure::typed(&d.value).map(|r| (i, r)))
        .collect();
    let mut all: Vec<TrainingRuntime> = in_file.iter().map(|(_, r)| r.clone()).collect();
    all.append(&mut runtimes);
    let Some(tj) = structure::typed_trainjob(&doc.value) else {
        diags.extend(gate(&docs, doc, None, &all[in_file.len()..], &kueue, release));
        show(&diags, &sources, a.format);
        note(a.format, "no preview: the TrainJob does not read (see the errors above)");
        return Exit::Findings;
    };
    let found = trainjob::find(&tj, &all);
    // The gate: what `validate` says of this TrainJob and of its runtime when the file holds it.
    let runtime_doc =
        found.as_ref().ok().and_then(|rt| all.iter().position(|r| std::ptr::eq(r, *rt))).and_then(|i| in_file.get(i)).map(|(doc, _)| *doc);
    diags.extend(gate(&docs, doc, runtime_doc, &all[in_file.len()..], &kueue, release));
    let Ok(rt) = found else {
        show(&diags, &sources, a.format);
        note(a.format, "no preview: the TrainJob's runtime is not among the runtimes given (`--runtimes PATH`)");
        return Exit::Findings;
    };
    let version = TrainerVersion::for_runtime(rt, release.and_then(|r| r.merge));
    let eff = trainjob::build(rt, &tj, version, Steps::All);
    if a.jobset {
        let js = trainjob::jobset::for_trainjob(&eff, &tj);
        let header = trainjob::jobset::header(&eff, &tj, rt, &js);
        return print(header, &js, "this JobSet", &diags, &sources, a.format);
    }
    let predicted = match trainjob::predict(&eff, a.process) {
        Ok(p) => p,
        Err(e) => {
            show(&diags, &sources, a.format);
            note(a.format, &format!("no preview: {e}"));
            return match e {
                pod::PodError::NoSuchProcess { .. } => Exit::Usage,
                // Trainer still runs the runtime's pods as written (`trainer/node-container`, a
                // warning): nothing to show of the TrainJob's, and nothing refused.
                pod::PodError::NoTrainerJob if !has_errors(&diags) => Exit::Ok,
                _ => Exit::Findings,
            };
        }
    };
    let header = pod::header(&eff, &tj, rt, &predicted);
    print(header, &predicted.pod, "this pod", &diags, &sources, a.format)
}

/// The findings on stderr, then the header and the object on stdout; exit 1 when the TrainJob
/// has errors.
fn print<T: serde::Serialize>(
    header: Vec<String>,
    object: &T,
    what: &str,
    diags: &[Diagnostic],
    sources: &Sources,
    format: FindingsFormat,
) -> Exit {
    let body = match yaml::to_string(object) {
        Ok(t) => t,
        Err(e) => {
            out::error(&format!("cannot write {what}: {e}"));
            return Exit::Usage;
        }
    };
    let header: String = header.iter().map(|l| format!("# {l}\n")).collect();
    show(diags, sources, format);
    let code = out::stdout(&format!("{header}{body}"));
    if code != Exit::Ok {
        return code;
    }
    if has_errors(diags) {
        note(format, &format!("the TrainJob has errors (above): Trainer or Kubernetes would not run {what} as shown"));
        return Exit::Findings;
    }
    Exit::Ok
}

/// What `validate` says of the file (with the runtimes of `--runtimes`), kept for the TrainJob
/// shown and for its runtime when the file holds it: the same checks, with the same code.
fn gate(
    docs: &[Document],
    shown: &Document,
    runtime: Option<usize>,
    extra: &[TrainingRuntime],
    kueue: &std::sync::Arc<[Document]>,
    release: Option<validate::Release>,
) -> Vec<Diagnostic> {
    let opts =
        validate::Options { runtimes: extra.to_vec().into(), kueue: kueue.clone(), ..validate::Options::default() }.for_release(release);
    let at = docs.iter().position(|d| std::ptr::eq(d, shown));
    validate::objects_by_document(docs, &opts)
        .into_iter()
        .filter(|(i, d)| i.is_some() && (*i == at || *i == runtime) && Gate::default().shows(d))
        .map(|(_, d)| d)
        .collect()
}

/// The TrainJob to show: the one named (by its name, or its `generateName` and the name the API
/// server makes of it), or the only one.
fn pick<'a>(docs: &'a [Document], name: Option<&str>) -> Result<&'a Document, String> {
    let jobs: Vec<&Document> = docs.iter().filter(|d| is_trainjob(&d.value)).collect();
    let name_of = |d: &Document| names::api_name_of(&d.value);
    let prefix_of = |d: &Document| d.value.pointer("/metadata/generateName").and_then(serde_json::Value::as_str).map(str::to_string);
    let names = || {
        let shown: Vec<String> = jobs.iter().map(|d| format!("`{}`", name_of(d))).collect();
        crate::fit::words::names(&shown)
    };
    match (name, jobs.as_slice()) {
        (_, []) => Err("the input holds no TrainJob (`apiVersion: trainer.kubeflow.org/v1alpha1`, `kind: TrainJob`)".to_string()),
        (None, [one]) => Ok(one),
        (None, _) => Err(format!("the input holds {} TrainJobs ({}); pick one with --name", jobs.len(), names())),
        (Some(n), _) => jobs.iter().copied().find(|d| name_of(d) == n || prefix_of(d).as_deref() == Some(n)).ok_or_else(|| {
            let mean = crate::spelling::nearest(n, jobs.iter().map(|d| name_of(d)).collect::<Vec<_>>().iter().map(String::as_str), 3)
                .map(|m| format!("; did you mean `{m}`?"))
                .unwrap_or_default();
            format!("no TrainJob named `{n}`; the input has {}{mean}", names())
        }),
    }
}

/// A `jax-runtimes:` note on stderr in text; nothing in the document formats (the exit code says it).
fn note(format: FindingsFormat, text: &str) {
    if format == FindingsFormat::Text {
        out::note(text);
    }
}

/// The findings on stderr: as text, or as the one document of the chosen format.
fn show(diags: &[Diagnostic], sources: &Sources, format: FindingsFormat) {
    if format != FindingsFormat::Text {
        let mut report = super::shared::Reporter::gated(format, Gate::default(), "preview", sources.clone());
        report.findings(diags);
        let _ = report.finish(Exit::Ok);
        return;
    }
    if !diags.is_empty() {
        super::shared::say_findings(diags, sources);
    }
}
