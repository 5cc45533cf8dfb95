//! `jax-runtimes fit`: runtimes (catalog files, rendered first, runtime files, or the built-in
//! catalog) and TrainJobs (on the runtimes of the same files and of `--runtimes`), and a cluster's
//! node list (and pod list) -> one row per runtime and TrainJob on stdout: does the TrainJob's gang
//! fit now, how many copies, where, and the first blocker. Exit 0 when every one fits now, 1 when
//! any does not, 2 on bad input.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::ValueEnum;

use super::out;
use super::shared::{load_runtimes, read_catalog, FindingsFormat, Gate, Said};
use crate::diag::{Diagnostic, ObjectRef};
use crate::exit::Exit;
use crate::fit::{self, inventory, Cluster, Subject, Verdict};
use crate::kueue;
use crate::queues::gate::QueueVerdict;
use crate::read::{self, Document, Source, Sources};
use crate::resolve::Origin;
use crate::rules::fit::{FIT_UNREADABLE_RUNTIME, FIT_UNREADABLE_TRAINJOB};
use crate::rules::input::{INPUT_NOT_A_RUNTIME, INPUT_NO_RUNTIME};
use crate::trainer::{TrainJob, TrainingRuntime};
use crate::trainjob::{self, TrainerVersion};
use crate::validate::trainjob::runtime_ref_finding;
use crate::validate::{self, is_runtime, is_trainjob, structure};
use crate::{fit::words, pipeline};

use super::fit_queues;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A table, one row per runtime, and notes below it.
    Text,
    /// One JSON array with an object per runtime.
    Json,
    /// The findings instead of the answer, as one document on stdout (as `validate`'s report):
    /// GitHub Actions workflow commands, a `fit/does-not-fit` annotation per runtime or TrainJob
    /// that would not be placed.
    Github,
    /// The same as one SARIF 2.1.0 log.
    Sarif,
    /// The same as one JUnit XML report.
    Junit,
}

#[derive(Debug, clap::Args)]
pub struct FitArgs {
    /// Catalog files or folders (rendered first), ClusterTrainingRuntime / TrainingRuntime files,
    /// or TrainJob files, or `-` for stdin. None: the built-in catalog.
    pub paths: Vec<PathBuf>,
    /// Runtimes the TrainJobs may reference (repeatable): files or folders of runtimes, or of
    /// catalog objects (rendered first). They get no row of their own.
    #[arg(long = "runtimes", value_name = "PATH")]
    pub runtimes: Vec<PathBuf>,
    #[command(flatten)]
    pub trainer: super::shared::TrainerArgs,
    /// The cluster's nodes: what `kubectl get nodes -o yaml` (or `-o json`) prints, a `snapshot`
    /// file, or `-` for stdin. Without it, live mode: the nodes and pods of the cluster of the
    /// current kubeconfig context (`--context`, `--kubeconfig`), read as kubectl reads them.
    #[arg(long, value_name = "NODES")]
    pub nodes: Option<PathBuf>,
    /// The cluster creates node pools for pending pods (GKE node auto-provisioning): a runtime no
    /// standing node takes, that selects a TPU or GPU type, is "would be provisioned". A
    /// ComputeClass in the `--nodes` list (`kubectl get nodes,computeclasses -o yaml`) says it for
    /// the pods that select it, without this flag.
    #[arg(long = "auto-provisioning")]
    pub auto_provisioning: bool,
    /// The pods already on it: what `kubectl get pods -A -o yaml` prints (or the same `snapshot`
    /// file). Without it every node of `--nodes` is taken as empty.
    #[arg(long, value_name = "PODS", requires = "nodes")]
    pub pods: Option<PathBuf>,
    #[command(flatten)]
    pub live: super::shared::LiveArgs,
    /// Kueue objects (repeatable): what `kubectl get resourceflavors,clusterqueues,topologies -o
    /// yaml` prints. With them (or a catalog with a JaxRuntimeQueue) fit first says whether Kueue
    /// admits each runtime's TrainJob.
    #[arg(long = "queues", value_name = "PATH")]
    pub queues: Vec<PathBuf>,
    /// What Kueue has admitted: `kubectl get workloads -A -o yaml`. Without it the queues are
    /// taken as empty.
    #[arg(long, value_name = "WORKLOADS")]
    pub workloads: Option<PathBuf>,
    /// The ClusterQueue to check runtimes without the `jax-runtimes.dev/cluster-queue`
    /// annotation against (without it, they are not checked). A TrainJob queues in the
    /// ClusterQueue of the LocalQueue its `kueue.x-k8s.io/queue-name` label names, and in no other.
    #[arg(long = "cluster-queue", value_name = "NAME")]
    pub cluster_queue: Option<String>,
    /// Judge only what the catalog's `JaxCluster` NAME gets (its runtimes and queues). Without
    /// it, a fleet's cluster whose inventory is the `--nodes` file is picked.
    #[arg(long, value_name = "NAME")]
    pub cluster: Option<String>,
    /// How to print the answer (on stdout).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Runs the subcommand.
pub fn run(a: &FitArgs) -> Exit {
    if a.nodes.is_some() && a.live.given() {
        out::error("--kubeconfig, --context and --chunk-size read the cluster (live mode): leave out --nodes, or leave them out");
        return Exit::Usage;
    }
    let stdin_uses = [a.nodes.as_ref(), a.pods.as_ref(), a.workloads.as_ref()]
        .into_iter()
        .flatten()
        .chain(&a.paths)
        .chain(&a.queues)
        .filter(|p| p.as_os_str() == "-")
        .count();
    if stdin_uses > 1 {
        out::error("only one of --nodes, --pods and the runtime paths can be `-` (stdin)");
        return Exit::Usage;
    }
    let document = match a.format {
        Format::Text | Format::Json => None,
        Format::Github => Some(FindingsFormat::Github),
        Format::Sarif => Some(FindingsFormat::Sarif),
        Format::Junit => Some(FindingsFormat::Junit),
    };
    let mut said = Said::new(document, "fit");
    let code = judge(a, &mut said);
    said.finish(code)
}

/// [`run`], its findings said through `said`.
fn judge(a: &FitArgs, said: &mut Said) -> Exit {
    let Ok(release) = a.trainer.release() else { return Exit::Usage };
    let merge = release.and_then(|r| r.merge);
    let (mut cluster, notes, inventory) = match read_cluster(a, said) {
        Ok(c) => c,
        Err(code) => return code,
    };
    cluster.auto_provisioning = a.auto_provisioning;
    // Input that was read but is not valid (or holds nothing to fit) exits 1, as in validate;
    // only what cannot be read exits 2. `--format json` still prints one (empty) array.
    let refuse = |code: Exit| {
        if a.format == Format::Json {
            out::stdout("[]\n");
        }
        code
    };
    let input = match subjects(&a.paths, a.cluster.as_deref(), a.nodes.as_deref(), said) {
        Ok(i) => i,
        Err(code) => return refuse(code),
    };
    let (extra, runtimes_kueue) = match load_runtimes(&a.runtimes, &mut said.sources) {
        Ok(r) => (r.runtimes, r.kueue),
        Err((diags, code)) => {
            said.say(&diags, None);
            return refuse(code);
        }
    };
    // The Kueue objects of the paths and of `--runtimes` (a rendered folder's queues) alike.
    let kueue_inputs: Vec<Document> = input.kueue.iter().cloned().chain(runtimes_kueue).collect();
    let Some((loaded, queue_docs)) = fit_queues::load(&a.queues, a.workloads.as_deref(), &input.queues, &kueue_inputs, said, read_one)
    else {
        return Exit::Usage;
    };
    // The files' runtimes first: they win on a name both have.
    let known: Vec<TrainingRuntime> = input.runtimes.iter().cloned().chain(extra.iter().cloned()).collect();
    let mut subjects: Vec<Subject<'_>> = input.runtimes.iter().map(Subject::Runtime).collect();
    let mut problems = Vec::new();
    for (doc, tj) in &input.trainjobs {
        match trainjob::find(tj, &known) {
            Ok(rt) => {
                subjects.push(Subject::TrainJob { trainjob: tj, runtime: rt, version: TrainerVersion::for_runtime(rt, merge) });
            }
            Err(e) => problems.push(doc.locate(runtime_ref_finding(&e).with_object(ObjectRef::of(&doc.value)))),
        }
    }
    if !problems.is_empty() {
        said.say(&problems, None);
        said.note("pass the runtimes TrainJobs use with `--runtimes PATH` (catalog files or runtime files)");
        return refuse(Exit::Findings);
    }
    // The gate: what `validate` says of the same objects, with the same code. A runtime or
    // TrainJob it has an error on is not placed: its row says the error.
    let findings = gate(&input, &extra, queue_docs, release);
    if !findings.is_empty() {
        // What `validate` prints by default.
        let shown = Gate::default();
        let all: Vec<Diagnostic> = findings.iter().filter(|(_, d)| shown.shows(d)).map(|(_, d)| d.clone()).collect();
        if !all.is_empty() {
            said.say(&all, None);
        }
    }
    let mut errors: Vec<Option<(String, Option<String>)>> = (0..subjects.len())
        .map(|i| {
            findings
                .iter()
                .find(|(at, d)| *at == Some(i) && d.is_error())
                .map(|(_, d)| (format!("{}: {}", d.rule.id, d.message), d.help.clone()))
        })
        .collect();
    // A TrainJob on a runtime of the input that has errors fails with it.
    for (i, s) in subjects.iter().enumerate() {
        let Subject::TrainJob { runtime, .. } = s else { continue };
        let Some(at) = known.iter().position(|r| std::ptr::eq(r, *runtime)).filter(|at| *at < input.runtimes.len()) else { continue };
        if errors[i].is_none() {
            if let Some((why, _)) = errors[at].clone() {
                let name = runtime.metadata.name.as_deref().unwrap_or_default();
                errors[i] = Some((format!("its runtime `{name}` has errors (above): {why}"), Some(format!("fix `{name}` first"))));
            }
        }
    }
    // With queues, Kueue first: each subject is placed as Kueue would hand its pods over. An
    // invalid one keeps Kueue's "waits" or "never", never "admitted".
    let (queued, placed) = if loaded.is_empty() {
        (None, Vec::new())
    } else {
        let (mut v, placed) = fit_queues::gate_all(&subjects, &loaded, a.cluster_queue.as_deref());
        for (q, _) in v.iter_mut().zip(&errors).filter(|(q, e)| e.is_some() && q.admitted()) {
            *q = QueueVerdict::not_checked(q.cluster_queue.clone(), "it has errors (above)".into());
        }
        (Some(v), placed)
    };
    let valid: Vec<Subject<'_>> = subjects
        .iter()
        .zip(&errors)
        .enumerate()
        .filter(|(_, (_, e))| e.is_none())
        .map(|(i, (s, _))| match (s, placed.get(i)) {
            (Subject::Runtime(_), Some(rt)) => Subject::Runtime(rt),
            (Subject::TrainJob { trainjob, version, .. }, Some(rt)) => Subject::TrainJob { trainjob, runtime: rt, version: *version },
            (s, None) => *s,
        })
        .collect();
    // Back in the order of the input, the invalid ones with their first error.
    let mut fitted = fit::fit_all(&cluster, &valid).into_iter();
    let verdicts: Vec<Verdict> = subjects
        .iter()
        .zip(&errors)
        .filter_map(|(s, e)| match e {
            Some((why, help)) => Some(Verdict::invalid(s, why.clone(), help.clone())),
            None => fitted.next(),
        })
        .collect();
    if !notes.is_empty() {
        said.say(&notes, None);
    }
    let text = match a.format {
        Format::Text => table(&verdicts, queued.as_deref()),
        Format::Json => json(&verdicts, queued.as_deref()),
        // The findings document: a finding per runtime or TrainJob that is not placed.
        Format::Github | Format::Sarif | Format::Junit => {
            let nodes = inventory;
            let queued = queued.iter().flat_map(|q| q.iter().map(Some)).chain(std::iter::repeat(None));
            let not_placed: Vec<Diagnostic> = verdicts
                .iter()
                .zip(queued)
                .enumerate()
                .filter_map(|(i, (v, q))| {
                    q.and_then(QueueVerdict::held_back).or_else(|| fit::not_placed(v, &nodes)).map(|d| input.locate(i, d))
                })
                .collect();
            said.say(&not_placed, None);
            String::new()
        }
    };
    let code = if text.is_empty() { Exit::Ok } else { out::stdout(&text) };
    if !said.is_document() {
        summary(&verdicts, &cluster, queued.as_deref());
    }
    if code != Exit::Ok {
        return code;
    }
    let blocked = queued.as_ref().is_some_and(|q| q.iter().any(QueueVerdict::blocks));
    if !blocked && verdicts.iter().all(|v| v.outcome.fits || v.outcome.provisioned.is_some()) {
        Exit::Ok
    } else {
        Exit::Findings
    }
}

/// One inventory input: its text when it is one file or stdin (read once, whichever way it is
/// then read), else its documents.
enum Inventory {
    Text(Arc<Source>),
    Documents(Vec<Document>),
}

/// Reads one inventory input; on any error prints it and returns `None`.
fn read_inventory(path: &Path, said: &mut Said) -> Option<Inventory> {
    match read::text_of(path) {
        Some(Ok(source)) => Some(Inventory::Text(source)),
        Some(Err(e)) => {
            said.say(&[e], Some(&Sources::default()));
            None
        }
        None => read_one(path, said).map(Inventory::Documents),
    }
}

/// The documents of an inventory input; on any error prints it and returns `None`.
fn documents(input: Inventory, said: &mut Said) -> Option<Vec<Document>> {
    match input {
        Inventory::Documents(d) => Some(d),
        Inventory::Text(source) => parsed(read::parsed(source), said),
    }
}

/// The cluster of `--nodes` and `--pods`, and the notes on them; on any error prints it and
/// returns the exit code. kubectl's JSON lists are read straight into the cluster
/// ([`fit::kubectl`]); anything else, and JSON that does not read there, as documents, which
/// place each problem at its file and line.
fn read_cluster(a: &FitArgs, said: &mut Said) -> Result<(Cluster, Vec<Diagnostic>, String), Exit> {
    let Some(node_path) = &a.nodes else { return live_cluster(a, said) };
    let inventory = node_path.display().to_string();
    let (cluster, notes) = read_files(node_path, a.pods.as_deref(), said)?;
    Ok((cluster, notes, inventory))
}

/// Live mode: the nodes and pods of the cluster (`crate::live`), read by the same reader as
/// `--nodes` and `--pods` files, and the cluster's name for the findings.
fn live_cluster(a: &FitArgs, said: &mut Said) -> Result<(Cluster, Vec<Diagnostic>, String), Exit> {
    let read = match crate::live::read(&a.live.target(), "fit") {
        Ok(r) => r,
        Err(d) => return Err(said.bad(&[*d], None)),
    };
    if read.findings.iter().any(Diagnostic::is_error) {
        return Err(said.bad(&read.findings, None));
    }
    said.say(&read.findings, None);
    said.note(&format!("read from {}: {} ({} list calls)", read.origin, crate::live::counted(&read.counts), read.calls));
    let source = |what: &str, kinds: &[&str]| {
        let text = serde_json::to_string(&read.list_of(kinds)).unwrap_or_default();
        Arc::new(Source::new(format!("{} {what}", read.origin), Some(text)))
    };
    let nodes = source("nodes", &["Node", "ComputeClass"]);
    let pods = source("pods", &["Pod"]);
    let (cluster, notes) = read_sources(Inventory::Text(nodes), |_| Ok(Some(Inventory::Text(pods))), said)?;
    Ok((cluster, notes, read.origin))
}

/// The cluster of `--nodes` and `--pods` files.
fn read_files(nodes: &Path, pods: Option<&Path>, said: &mut Said) -> Result<(Cluster, Vec<Diagnostic>), Exit> {
    let nodes = read_inventory(nodes, said).ok_or(Exit::Usage)?;
    let pods = |said: &mut Said| match pods {
        Some(p) => read_inventory(p, said).map(Some).ok_or(Exit::Usage),
        None => Ok(None),
    };
    read_sources(nodes, pods, said)
}

/// The cluster of a node inventory and a pod list (had once the node list is read), read.
fn read_sources(
    nodes: Inventory,
    pods: impl FnOnce(&mut Said) -> Result<Option<Inventory>, Exit>,
    said: &mut Said,
) -> Result<(Cluster, Vec<Diagnostic>), Exit> {
    // The node list is read (and its errors said) before the pod list is, as the document path does.
    let (nodes, fast_nodes) = match nodes {
        Inventory::Text(source) => match fit::kubectl::nodes(&source) {
            Some(n) => (Inventory::Text(source), Some(n)),
            None => (Inventory::Documents(documents(Inventory::Text(source), said).ok_or(Exit::Usage)?), None),
        },
        docs @ Inventory::Documents(_) => (docs, None),
    };
    let pods = pods(said)?;
    if let Some(node_list) = &fast_nodes {
        let pod_source = match &pods {
            Some(Inventory::Text(s)) => Some(Some(s)),
            Some(Inventory::Documents(_)) => None,
            None => Some(None),
        };
        if let Some(found) = pod_source.and_then(|p| fit::kubectl::cluster(node_list, p)) {
            if let Inventory::Text(s) = &nodes {
                said.sources.add(s);
            }
            if let Some(Inventory::Text(s)) = &pods {
                said.sources.add(s);
            }
            return Ok(found);
        }
    }
    drop(fast_nodes);
    let node_docs = documents(nodes, said).ok_or(Exit::Usage)?;
    let pod_docs = match pods {
        Some(p) => Some(documents(p, said).ok_or(Exit::Usage)?),
        // A node list with pods in it (a snapshot, `kubectl get nodes,pods -A -o yaml`): those
        // are the pods in use.
        None if node_docs.iter().any(|d| d.value.get("kind").and_then(serde_json::Value::as_str) == Some("Pod")) => Some(node_docs.clone()),
        None => None,
    };
    inventory::from_documents(&node_docs, pod_docs.as_deref()).map_err(|diags| said.bad(&diags, None))
}

/// Reads one file (or stdin); on any error prints it and returns `None`.
pub(super) fn read_one(path: &Path, said: &mut Said) -> Option<Vec<Document>> {
    parsed(read::paths(&[path.to_path_buf()]), said)
}

/// The documents of what was read, their sources added; on any error prints it and returns `None`.
fn parsed(input: read::Input, said: &mut Said) -> Option<Vec<Document>> {
    for d in &input.documents {
        said.sources.add(&d.source);
    }
    let all = input.sources.clone();
    match input.into_result() {
        Ok(docs) => Some(docs),
        Err(diags) => {
            said.say(&diags, Some(&all));
            None
        }
    }
}

/// The verdicts as one JSON array; with queues, each with Kueue's verdict under `queue`.
fn json(verdicts: &[Verdict], queued: Option<&[QueueVerdict]>) -> String {
    let mut values: Vec<serde_json::Value> = verdicts.iter().filter_map(|v| serde_json::to_value(v).ok()).collect();
    for (v, q) in values.iter_mut().zip(queued.into_iter().flatten()) {
        if let (Some(o), Ok(q)) = (v.as_object_mut(), serde_json::to_value(q)) {
            o.insert("queue".into(), q);
        }
    }
    serde_json::to_string_pretty(&values).map(|s| s + "\n").unwrap_or_default()
}

/// What the paths hold to fit: runtimes (catalog objects rendered, runtime documents read as they
/// are) and TrainJobs.
struct Subjects {
    /// The catalog's runtimes, then those read as they are.
    runtimes: Vec<TrainingRuntime>,
    /// Where the catalog's runtimes come from: the first of `runtimes`.
    origins: Vec<Origin>,
    /// The documents of the runtimes read as they are: the last of `runtimes`.
    runtime_docs: Vec<Document>,
    trainjobs: Vec<(Document, TrainJob)>,
    /// The Kueue objects of the catalog's queues.
    queues: Vec<serde_json::Value>,
    /// The Kueue objects among the paths (a LocalQueue beside the TrainJob that names it).
    kueue: Vec<Document>,
}

impl Subjects {
    /// `d`, about the subject at `i` (the runtimes, then the TrainJobs), placed at its catalog
    /// entry or document.
    fn locate(&self, i: usize, d: Diagnostic) -> Diagnostic {
        let generated = self.origins.len();
        if let Some(o) = self.origins.get(i) {
            o.locate_at_name(d)
        } else if let Some(doc) = self.runtime_docs.get(i - generated) {
            doc.locate(d.with_object(ObjectRef::of(&doc.value)))
        } else if let Some((doc, _)) = self.trainjobs.get(i - self.runtimes.len()) {
            doc.locate(d.with_object(ObjectRef::of(&doc.value)))
        } else {
            d
        }
    }
}

/// The runtimes and TrainJobs of the paths; on any error prints it and returns the exit code:
/// 2 for a path that cannot be read, 1 for input that was read and is not valid.
fn subjects(paths: &[PathBuf], cluster: Option<&str>, nodes: Option<&Path>, said: &mut Said) -> Result<Subjects, Exit> {
    let input = read_catalog(paths);
    let all = input.sources.clone();
    let docs = match input.into_result() {
        Ok(d) => d,
        Err(diags) => {
            said.say(&diags, Some(&all));
            return Err(Exit::after_read_errors(&diags));
        }
    };
    for d in &docs {
        said.sources.add(&d.source);
    }
    // Trainer and Kueue objects, at any version, are judged as validate judges them (a runtime
    // at an unserved apiVersion is an `invalid` row, not a catalog error); the rest is the catalog.
    let (theirs, catalog): (Vec<Document>, Vec<Document>) = docs.into_iter().partition(|d| pipeline::judged_as_is(&d.value));
    // Only the typed runtime of each is kept (not its JSON tree nor what it was resolved from).
    let generated = pipeline::generate_with(&catalog, |r| (r.runtime, r.resolved.origin));
    let errors: Vec<Diagnostic> = generated.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
    if !errors.is_empty() {
        said.say(&errors, None);
        said.note("the catalog has errors; `jax-runtimes render` shows them all");
        return Err(Exit::Findings);
    }
    // A fleet's cluster (`--cluster`, or the one whose inventory the node list is): what it gets.
    let scope = match crate::fleet::scoped(&generated.clusters, cluster, nodes) {
        Ok(s) => s,
        Err(e) => {
            out::error(&e);
            return Err(Exit::Usage);
        }
    };
    let mut runtimes = generated.runtimes;
    let mut queues = generated.queues;
    if let Some(c) = scope {
        let all = runtimes.len();
        runtimes.retain(|(rt, _)| c.serves(rt.metadata.namespace.as_deref(), rt.metadata.name.as_deref().unwrap_or_default()));
        queues.retain(|q| c.gets_queue(std::iter::once(&q.source).chain(&q.also).map(|s| s.name.as_str())));
        said.note(&format!(
            "JaxCluster {}: {} of the catalog's {}{}",
            c.name,
            runtimes.len(),
            words::count(all, "runtime"),
            if let (None, Some(nodes)) = (cluster, nodes) {
                format!(" (its inventory is {}; `--cluster NAME` picks another)", nodes.display())
            } else {
                String::new()
            }
        ));
    }
    let queues: Vec<serde_json::Value> = queues.into_iter().map(|q| q.object).collect();
    let (mut out, origins): (Vec<TrainingRuntime>, Vec<Origin>) = runtimes.into_iter().unzip();
    let mut runtime_docs = Vec::new();
    let mut kueue_docs = Vec::new();
    let mut trainjobs = Vec::new();
    let mut problems = Vec::new();
    let mut skipped = Vec::new();
    for doc in theirs.iter().chain(&generated.ignored) {
        if is_trainjob(&doc.value) {
            match structure::typed_trainjob(&doc.value) {
                Some(tj) => trainjobs.push((doc.clone(), tj)),
                None => problems.extend(
                    structure::check_trainjob(&doc.value, structure::DEFAULT_RELEASE).into_iter().filter(Diagnostic::is_error).map(|d| {
                        let d = Diagnostic::finding(
                            &FIT_UNREADABLE_TRAINJOB,
                            d.field.clone().unwrap_or_default(),
                            format!("does not read as a TrainJob: {}", d.message),
                        );
                        doc.locate(d.with_object(ObjectRef::of(&doc.value)))
                    }),
                ),
            }
            continue;
        }
        if kueue::is_kueue(&doc.value) {
            kueue_docs.push(doc.clone());
            continue;
        }
        // The kustomization.yaml `render -o` writes beside the runtimes: part of the folder.
        if crate::write::written_by_render(doc) {
            continue;
        }
        if !is_runtime(&doc.value) {
            skipped.push(
                doc.locate(
                    Diagnostic::new(&INPUT_NOT_A_RUNTIME, "neither a catalog object nor a runtime; skipped")
                        .with_object(ObjectRef::of(&doc.value)),
                ),
            );
            continue;
        }
        match serde_path_to_error::deserialize::<_, TrainingRuntime>(&doc.value) {
            Ok(rt) => {
                out.push(rt);
                runtime_docs.push(doc.clone());
            }
            Err(e) => {
                let path = e.path().to_string();
                problems.push(
                    doc.locate(
                        Diagnostic::finding(
                            &FIT_UNREADABLE_RUNTIME,
                            if path == "." { String::new() } else { path },
                            format!("does not read as a runtime: {}", e.inner()),
                        )
                        .with_object(ObjectRef::of(&doc.value)),
                    ),
                );
            }
        }
    }
    if out.is_empty() && trainjobs.is_empty() && problems.is_empty() {
        problems.push(Diagnostic::finding(
            &INPUT_NO_RUNTIME,
            "",
            "the input holds no catalog entry, no ClusterTrainingRuntime or TrainingRuntime and no TrainJob",
        ));
    }
    if !problems.is_empty() {
        said.say(&problems, None);
        return Err(Exit::Findings);
    }
    if !skipped.is_empty() {
        said.say(&skipped, None);
    }
    Ok(Subjects { runtimes: out, origins, runtime_docs, trainjobs, queues, kueue: kueue_docs })
}

/// What `validate` says of the runtimes and TrainJobs `fit` judges, with the Kueue objects it
/// admits them by: each finding with the subject it is about (its position among the subjects:
/// the runtimes, then the TrainJobs; `None` for the catalog's runtimes, which `render` checked,
/// and for the Kueue objects).
fn gate(
    input: &Subjects,
    extra: &[TrainingRuntime],
    queue_docs: Vec<Document>,
    release: Option<validate::Release>,
) -> Vec<(Option<usize>, Diagnostic)> {
    let generated = input.runtimes.len() - input.runtime_docs.len();
    let mut docs: Vec<Document> = input.runtime_docs.clone();
    docs.extend(input.trainjobs.iter().map(|(d, _)| d.clone()));
    let judged = docs.len();
    docs.extend(queue_docs);
    // The catalog's runtimes are known to the TrainJobs as `--runtimes` are.
    let known: Vec<TrainingRuntime> = input.runtimes[..generated].iter().chain(extra).cloned().collect();
    let opts = validate::Options { runtimes: known.into(), ..validate::Options::default() }.for_release(release);
    validate::objects_by_document(&docs, &opts).into_iter().map(|(at, d)| (at.filter(|i| *i < judged).map(|i| i + generated), d)).collect()
}

/// How a verdict is named in the table: the runtime (`ns/name` for a TrainingRuntime), or
/// `TrainJob/[ns/]name` for a TrainJob.
fn label(v: &Verdict) -> String {
    let name = match &v.train_job {
        Some(tj) => format!("TrainJob/{tj}"),
        None => v.runtime.clone(),
    };
    match (&v.namespace, &v.train_job) {
        (Some(ns), Some(tj)) => format!("TrainJob/{ns}/{tj}"),
        (Some(ns), None) => format!("{ns}/{name}"),
        (None, _) => name,
    }
}

/// One row per runtime, then the help and notes of each; with queues, a QUEUE column after the
/// name and Kueue's reason among the notes.
fn table(verdicts: &[Verdict], queued: Option<&[QueueVerdict]>) -> String {
    let mut head = vec!["RUNTIME", "FITS", "COPIES", "EMPTY", "WHERE", "REASON"];
    if queued.is_some() {
        head.insert(1, "QUEUE");
    }
    let rows: Vec<Vec<String>> = verdicts
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let o = &v.outcome;
            let name = label(v);
            let fits = match (o.fits, o.fits_empty) {
                _ if o.invalid => "invalid",
                (true, _) => "yes",
                (false, _) if o.provisioned.is_some() => "scale-up",
                (false, true) => "not now",
                (false, false) => "no",
            };
            let mut row =
                vec![name, fits.into(), o.copies.to_string(), o.copies_empty.to_string(), words::names(&o.placement), o.reason.clone()];
            if let Some(q) = queued.and_then(|q| q.get(i)) {
                row.insert(1, fit_queues::cell(q));
            }
            row
        })
        .collect();
    let mut width: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for r in &rows {
        for (w, cell) in width.iter_mut().zip(r.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(width.iter().copied()).enumerate() {
            if i + 1 == cells.len() {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}  "));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&head.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    for r in &rows {
        out.push_str(&line(r));
    }
    let mut after = String::new();
    for (i, v) in verdicts.iter().enumerate() {
        let who = match &v.train_job {
            Some(_) => label(v),
            None => v.runtime.clone(),
        };
        if let Some(reason) = queued.and_then(|q| q.get(i)).and_then(|q| q.reason.as_ref()) {
            after.push_str(&format!("{who}: queue: {reason}\n"));
        }
        if let Some(h) = &v.outcome.help {
            after.push_str(&format!("{who}: help: {h}\n"));
        }
        for n in &v.outcome.notes {
            after.push_str(&format!("{who}: note: {n}\n"));
        }
    }
    if !after.is_empty() {
        out.push('\n');
        out.push_str(&after);
    }
    out
}

/// The counts on stderr, and what the answer does not cover.
fn summary(verdicts: &[Verdict], cluster: &Cluster, queued: Option<&[QueueVerdict]>) {
    let fit = verdicts.iter().filter(|v| v.outcome.fits).count();
    let invalid = verdicts.iter().filter(|v| v.outcome.invalid).count();
    let later = verdicts.iter().filter(|v| !v.outcome.fits && v.outcome.fits_empty).count();
    let provisioned = verdicts.iter().filter(|v| !v.outcome.fits && v.outcome.provisioned.is_some()).count();
    let p = &cluster.pods;
    let pods = if p.given {
        format!(
            "{} in use ({} finished, {} not bound{})",
            words::count(p.in_use, "pod"),
            p.finished,
            p.unbound,
            if p.elsewhere > 0 { format!(", {} on unlisted nodes", p.elsewhere) } else { String::new() }
        )
    } else {
        "no pod list: every node is taken as empty (DaemonSet pods already hold part of its allocatable; pass --pods)".to_string()
    };
    let trainjobs = verdicts.iter().filter(|v| v.train_job.is_some()).count();
    let runtimes = verdicts.len() - trainjobs;
    let what = match (runtimes, trainjobs) {
        (r, 0) => words::count(r, "runtime"),
        (0, t) => words::count(t, "TrainJob"),
        (r, t) => format!("{} and {}", words::count(r, "runtime"), words::count(t, "TrainJob")),
    };
    let verb = if verdicts.len() == 1 { "fits" } else { "fit" };
    out::note(&format!(
        "{fit} of {} {verb} now ({what}){}; {}, {pods}",
        verdicts.len(),
        if later > 0 { format!(", {later} more would fit the same nodes empty") } else { String::new() }
            + &if provisioned > 0 { format!(", {provisioned} would be provisioned") } else { String::new() }
            + &if invalid > 0 { format!(", {invalid} not placed: `validate` has errors on them") } else { String::new() },
        words::count(cluster.nodes.len(), "node")
    ));
    match queued {
        None if cluster.auto_provisioning || !cluster.compute_classes.is_empty() => {
            out::note("not checked: volumes, topology spread, pod affinity other than JobSet's, preemption, Kueue quotas");
        }
        None => out::note("not checked: volumes, topology spread, pod affinity other than JobSet's, preemption, autoscaling, Kueue quotas"),
        Some(q) => {
            let admitted = q.iter().filter(|v| v.admitted()).count();
            out::note(&format!(
                "{admitted} of {} admitted by Kueue now; a runtime's pods are placed with its flavors' node labels",
                q.len()
            ));
            out::note("not checked: volumes, topology spread, pod affinity other than JobSet's, preemption, autoscaling, Kueue's Topology Aware Scheduling placement");
        }
    }
}
