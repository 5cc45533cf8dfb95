//! The Kueue side of `jax-runtimes fit`: the Kueue objects of `--queues` files (what `kubectl get
//! resourceflavors,clusterqueues,topologies -o yaml` prints) and of the catalog's
//! `JaxRuntimeQueue`s, and what `--workloads` (`kubectl get workloads -A -o yaml`) says is
//! admitted -> Kueue's verdict for each runtime's TrainJob ([`crate::queues::gate`]), and the
//! runtimes as Kueue would hand their pods to the scheduler. TrainJobs among `fit`'s inputs are
//! fitted as the runtime Trainer makes of them, in the ClusterQueue of their LocalQueue.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::diag::{Diagnostic, ObjectRef};
use crate::fit::Subject;
use crate::gvk::Gvk;
use crate::kueue::{self, ClusterQueue, LocalQueue, ResourceFlavor, Topology, Workload};
use crate::queues::gate::{gate, QueueVerdict};
use crate::queues::Queues;
use crate::read::{self, Document, Sources};
use crate::report;
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

    /// The ClusterQueue a TrainJob queues in: that of the LocalQueue its `kueue.x-k8s.io/queue-name`
    /// names in its namespace, when that LocalQueue was given.
    pub fn cluster_queue_of(&self, tj: &TrainJob) -> Option<String> {
        let queue = tj.metadata.labels.as_ref()?.get(&kueue::facts().labels.queue_name)?;
        let ns = tj.metadata.namespace.as_deref().unwrap_or("default");
        self.local_queues
            .iter()
            .find(|lq| lq.metadata.name.as_deref() == Some(queue.as_str()) && lq.metadata.namespace.as_deref().unwrap_or("default") == ns)
            .map(|lq| lq.spec.cluster_queue.clone())
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

/// How `fit` reads one file (or stdin): its documents, or `None` after printing why not.
pub type ReadOne = fn(&Path, &mut Sources) -> Option<Vec<Document>>;

/// Reads the `--queues` files and `--workloads` with `read_one`, with the catalog's generated
/// objects first; on an error prints it and returns `None`.
pub fn load(
    paths: &[PathBuf],
    workloads: Option<&Path>,
    generated: Vec<Value>,
    sources: &mut Sources,
    read_one: ReadOne,
) -> Option<Loaded> {
    let mut values = generated;
    let mut problems = Vec::new();
    let read = |path: &Path, sources: &mut Sources| -> Option<Vec<Value>> {
        let docs = read_one(path, sources)?;
        Some(docs.into_iter().flat_map(|d| read::list_items(d.value).unwrap_or_else(|v| vec![v])).collect())
    };
    for p in paths {
        values.extend(read(p, sources)?);
    }
    let mut out = Loaded::default();
    for v in values.into_iter().filter(kueue::is_kueue) {
        let object = ObjectRef::of(&v);
        let bad = |e: serde_json::Error| {
            Diagnostic::finding(&KUEUE_UNREADABLE, "", format!("does not read as its kind: {e}")).with_object(object.clone())
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
        for v in read(w, sources)?.into_iter().filter(kueue::is_workload) {
            let object = ObjectRef::of(&v);
            match serde_json::from_value::<Workload>(v) {
                Ok(wl) => out.workloads.push(wl),
                Err(e) => problems
                    .push(Diagnostic::finding(&KUEUE_UNREADABLE, "", format!("does not read as a Workload: {e}")).with_object(object)),
            }
        }
    }
    if !problems.is_empty() {
        crate::cli::out::stderr(&report::text_all(&problems, sources));
        return None;
    }
    Some(out)
}

/// Kueue's verdict for each subject (a TrainJob in the ClusterQueue of its LocalQueue, else
/// `chosen`), and the runtime each is then placed on: an admitted one's with its flavors' node
/// labels and tolerations (Kueue writes them into the TrainJob's pods), the others as they are.
pub fn gate_all(subjects: &[Subject<'_>], loaded: &Loaded, chosen: Option<&str>) -> (Vec<QueueVerdict>, Vec<TrainingRuntime>) {
    let queues = loaded.queues();
    subjects
        .iter()
        .map(|s| {
            let (verdict, assignment) = match s {
                Subject::Runtime(rt) => gate(rt, &queues, chosen),
                Subject::TrainJob { trainjob, runtime, version } => {
                    let cq = loaded.cluster_queue_of(trainjob);
                    gate(&trainjob_runtime(trainjob, runtime, *version), &queues, cq.as_deref().or(chosen))
                }
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
