//! The Kueue side of `jax-runtimes fit`: the Kueue objects of `--queues` files (what `kubectl get
//! resourceflavors,clusterqueues,topologies -o yaml` prints) and of the catalog's
//! `JaxRuntimeQueue`s, and what `--workloads` (`kubectl get workloads -A -o yaml`) says is
//! admitted -> Kueue's verdict for each runtime's TrainJob ([`crate::queues::gate`]), and the
//! runtimes as Kueue would hand their pods to the scheduler.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::diag::{Diagnostic, ObjectRef};
use crate::gvk::Gvk;
use crate::kueue::{self, ClusterQueue, ResourceFlavor, Topology, Workload};
use crate::queues::gate::{gate, QueueVerdict};
use crate::queues::Queues;
use crate::read::{self, Document, Sources};
use crate::report;
use crate::rules::kueue::KUEUE_UNREADABLE;
use crate::trainer::TrainingRuntime;

/// The Kueue objects `fit` admits against.
#[derive(Debug, Default)]
pub struct Loaded {
    flavors: Vec<ResourceFlavor>,
    cluster_queues: Vec<ClusterQueue>,
    topologies: Vec<Topology>,
    workloads: Vec<Workload>,
}

impl Loaded {
    /// True when no ClusterQueue was given: `fit` then does not check Kueue.
    pub fn is_empty(&self) -> bool {
        self.cluster_queues.is_empty()
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

/// Kueue's verdict for each runtime, and the runtimes the scheduler then gets: an admitted one
/// with its flavors' node labels and tolerations, the others as they are.
pub fn gate_all(runtimes: Vec<TrainingRuntime>, loaded: &Loaded, chosen: Option<&str>) -> (Vec<QueueVerdict>, Vec<TrainingRuntime>) {
    let queues = loaded.queues();
    runtimes
        .into_iter()
        .map(|rt| {
            let (v, admitted) = gate(&rt, &queues, chosen);
            (v, admitted.unwrap_or(rt))
        })
        .unzip()
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
