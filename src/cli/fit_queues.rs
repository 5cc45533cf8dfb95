//! The Kueue side of `jax-runtimes fit`: the Kueue objects of `--queues` files (what `kubectl get
//! resourceflavors,clusterqueues,topologies -o yaml` prints) and of the catalog's
//! `JaxRuntimeQueue`s, and what `--workloads` (`kubectl get workloads -A -o yaml`) says is
//! admitted -> Kueue's verdict for each runtime's TrainJob ([`crate::queues::gate`]), and the
//! runtimes as Kueue would hand their pods to the scheduler. TrainJobs among `fit`'s inputs are
//! fitted as the runtime Trainer makes of them, in the ClusterQueue of their LocalQueue.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::shared::Said;
use crate::diag::{Diagnostic, ObjectRef};
use crate::fit::Subject;
use crate::gvk::Gvk;
use crate::kueue::{self, ClusterQueue, LocalQueue, ResourceFlavor, Topology, Workload};
use crate::queues::gate::{gate, QueueVerdict};
use crate::queues::Queues;
use crate::read::{self, Document};
use crate::rules::kueue::KUEUE_UNREADABLE;
use crate::trainer::TrainJob;
use crate::trainer::TrainingRuntime;
use crate::trainjob::{self, Steps, TrainerVersion};

/// The Kueue objects `fit` admits against.
#[derive(Debug, Default)]
pub struct Loaded {
    flavors: Vec<ResourceFlavor>,
    cluster_queues: Vec<ClusterQueue>,
    local_queues: Vec<LocalQueue>,
    topologies: Vec<Topology>,
    workloads: Vec<Workload>,
}

impl Loaded {
    /// True when no ClusterQueue was given: `fit` then does not check Kueue.
    pub fn is_empty(&self) -> bool {
        self.cluster_queues.is_empty()
    }

    /// Where a TrainJob queues: the ClusterQueue of the LocalQueue its `kueue.x-k8s.io/queue-name`
    /// names in its namespace (the same lookup `validate` makes: [`crate::validate::queues`]).
    pub fn queue_of(&self, tj: &TrainJob) -> QueueOf {
        let Some(queue) = tj.metadata.labels.as_ref().and_then(|l| l.get(&kueue::facts().labels.queue_name)) else {
            return QueueOf::NoLabel;
        };
        if self.local_queues.is_empty() {
            return QueueOf::NoLocalQueues(queue.clone());
        }
        let ns = tj.metadata.namespace.as_deref().unwrap_or("default");
        let here: Vec<&LocalQueue> =
            self.local_queues.iter().filter(|lq| lq.metadata.namespace.as_deref().unwrap_or("default") == ns).collect();
        match here.iter().find(|lq| lq.metadata.name.as_deref() == Some(queue.as_str())) {
            Some(lq) => QueueOf::ClusterQueue(lq.spec.cluster_queue.clone()),
            None => {
                let names: Vec<&str> = here.iter().filter_map(|lq| lq.metadata.name.as_deref()).collect();
                let nearest = crate::spelling::nearest(queue, names.iter().copied(), 3);
                QueueOf::Unknown {
                    queue: queue.clone(),
                    namespace: ns.to_string(),
                    known: names.iter().map(|n| n.to_string()).collect(),
                    nearest: nearest.map(str::to_string),
                }
            }
        }
    }

    fn queues(&self) -> Queues<'_> {
        let name = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| m.name.clone().unwrap_or_default();
        let mut q = Queues {
            cluster_queues: self.cluster_queues.iter().map(|c| (name(&c.metadata), c)).collect(),
            flavors: (!self.flavors.is_empty()).then(|| self.flavors.iter().map(|f| (name(&f.metadata), f)).collect()),
            topologies: (!self.topologies.is_empty()).then(|| self.topologies.iter().map(|t| (name(&t.metadata), t)).collect()),
            usage: Default::default(),
        };
        q.add_workloads(&self.workloads);
        q
    }
}

/// Where a TrainJob queues, as far as the LocalQueues given say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueOf {
    /// No `kueue.x-k8s.io/queue-name` label: Kueue leaves it alone (by default).
    NoLabel,
    /// A queue name, and no LocalQueue among the inputs to look it up in.
    NoLocalQueues(String),
    /// The LocalQueue's ClusterQueue.
    ClusterQueue(String),
    /// The namespace has no LocalQueue of that name: Kueue never admits the TrainJob.
    Unknown { queue: String, namespace: String, known: Vec<String>, nearest: Option<String> },
}

/// How `fit` reads one file (or stdin): its documents, or `None` after printing why not.
pub type ReadOne = fn(&Path, &mut Said) -> Option<Vec<Document>>;

/// Reads the `--queues` files and `--workloads` with `read_one`, after the catalog's generated
/// objects and the Kueue objects among `fit`'s own paths; on an error prints it and returns
/// `None`. Also returns the Kueue objects as documents (an item of a `List` as its own), which
/// `fit` checks as `validate` does.
pub fn load(
    paths: &[PathBuf],
    workloads: Option<&Path>,
    generated: &[Value],
    among_inputs: &[Document],
    said: &mut Said,
    read_one: ReadOne,
) -> Option<(Loaded, Vec<Document>)> {
    let mut docs = crate::pipeline::queue_documents(generated.iter().cloned());
    docs.extend(among_inputs.iter().cloned());
    let mut problems = Vec::new();
    let read =
        |path: &Path, said: &mut Said| -> Option<Vec<Document>> { Some(read_one(path, said)?.into_iter().flat_map(items).collect()) };
    for p in paths {
        docs.extend(read(p, said)?.into_iter().filter(|d| kueue::is_kueue(&d.value)));
    }
    let mut out = Loaded::default();
    for d in docs.iter().filter(|d| kueue::is_kueue(&d.value)) {
        let v = d.value.clone();
        let object = ObjectRef::of(&v);
        let bad = |e: serde_json::Error| {
            d.locate(Diagnostic::finding(&KUEUE_UNREADABLE, "", format!("does not read as its kind: {e}")).with_object(object.clone()))
        };
        match Gvk::of(&v).kind {
            kueue::KIND_RESOURCE_FLAVOR => serde_json::from_value(v).map(|f| out.flavors.push(f)).map_err(bad),
            kueue::KIND_CLUSTER_QUEUE => serde_json::from_value(v).map(|c| out.cluster_queues.push(c)).map_err(bad),
            kueue::KIND_TOPOLOGY => serde_json::from_value(v).map(|t| out.topologies.push(t)).map_err(bad),
            kueue::KIND_LOCAL_QUEUE => serde_json::from_value(v).map(|l| out.local_queues.push(l)).map_err(bad),
            _ => Ok(()),
        }
        .unwrap_or_else(|d| problems.push(d));
    }
    if let Some(w) = workloads {
        for d in read(w, said)?.into_iter().filter(|d| kueue::is_workload(&d.value)) {
            let object = ObjectRef::of(&d.value);
            match serde_json::from_value::<Workload>(d.value.clone()) {
                Ok(wl) => out.workloads.push(wl),
                Err(e) => problems.push(
                    d.locate(Diagnostic::finding(&KUEUE_UNREADABLE, "", format!("does not read as a Workload: {e}")).with_object(object)),
                ),
            }
        }
    }
    if !problems.is_empty() {
        said.say(&problems, None);
        return None;
    }
    Some((out, docs))
}

/// A document, or each item of a `List` document as a document of its own.
fn items(d: Document) -> Vec<Document> {
    match read::list_items(d.value.clone()) {
        Ok(values) => {
            values.into_iter().enumerate().map(|(i, value)| Document { within: format!("items[{i}]"), value, ..d.clone() }).collect()
        }
        Err(_) => vec![d],
    }
}

/// Kueue's verdict for each subject (a TrainJob in the ClusterQueue of its LocalQueue, a runtime
/// in `chosen` or the one its annotation names), and the runtime each is then placed on: an
/// admitted one's with its flavors' node labels and tolerations (Kueue writes them into the
/// TrainJob's pods), the others as they are. A TrainJob never falls back to another queue than
/// its own: a LocalQueue that does not exist is "never", as `validate` says.
pub fn gate_all(subjects: &[Subject<'_>], loaded: &Loaded, chosen: Option<&str>) -> (Vec<QueueVerdict>, Vec<TrainingRuntime>) {
    let queues = loaded.queues();
    let label = &kueue::facts().labels.queue_name;
    subjects
        .iter()
        .map(|s| {
            let (verdict, assignment) = match s {
                Subject::Runtime(rt) => gate(rt, &queues, chosen),
                Subject::TrainJob { trainjob, runtime, version } => match loaded.queue_of(trainjob) {
                    QueueOf::ClusterQueue(cq) => gate(&trainjob_runtime(trainjob, runtime, *version), &queues, Some(&cq)),
                    QueueOf::NoLabel => (
                        QueueVerdict::not_checked(
                            None,
                            format!("no `{label}` label: Kueue does not queue it (unless its configuration sets `manageJobsWithoutQueueName`)"),
                        ),
                        None,
                    ),
                    QueueOf::NoLocalQueues(q) => (
                        QueueVerdict::not_checked(
                            None,
                            format!("it queues in LocalQueue `{q}`, and no LocalQueue was given (`kubectl get localqueues -A -o yaml`, with --queues)"),
                        ),
                        None,
                    ),
                    QueueOf::Unknown { queue, namespace, known, nearest } => {
                        let has = if known.is_empty() { "none".to_string() } else { known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ") };
                        let mean = nearest.map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
                        (
                            QueueVerdict::never(
                                None,
                                format!("no LocalQueue `{queue}` in namespace `{namespace}` (it has {has}){mean}: the TrainJob stays suspended"),
                            ),
                            None,
                        )
                    }
                },
            };
            let rt = s.runtime();
            (verdict, assignment.map_or_else(|| rt.clone(), |a| a.apply(rt)))
        })
        .unzip()
}

/// A TrainJob as the runtime Trainer makes of it for that TrainJob ([`crate::trainjob::build`]:
/// its runtime patches, `resourcesPerNode`, `numNodes` merged), so the queue check counts its
/// own pods.
fn trainjob_runtime(tj: &TrainJob, rt: &TrainingRuntime, version: TrainerVersion) -> TrainingRuntime {
    let eff = trainjob::build(rt, tj, version, Steps::All);
    let mut out = rt.clone();
    out.spec.ml_policy.get_or_insert_with(Default::default).num_nodes = Some(eff.num_nodes());
    out.spec.template = eff.template;
    out
}

/// The QUEUE cell: `admitted (cq: flavor)`, `waits (cq)`, `never (cq)`, `not checked`.
pub fn cell(v: &QueueVerdict) -> String {
    let cq = v.cluster_queue.as_deref().unwrap_or("-");
    match v.admission.as_str() {
        "admitted" => {
            let flavors: Vec<&str> = v.flavors.values().map(String::as_str).collect();
            let borrows = if v.borrows { ", borrowing" } else { "" };
            format!("admitted ({cq}: {}{borrows})", flavors.join(", "))
        }
        "not checked" => "not checked".into(),
        other => format!("{other} ({cq})"),
    }
}
