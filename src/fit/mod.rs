//! Fit stage: runtimes (or TrainJobs on their runtimes) and a cluster's node and pod lists -> for
//! each, whether kube-scheduler and JobSet would place the whole gang of the TrainJob's pods now,
//! how many copies fit, where, and the first blocker in words. [`inventory`] reads the lists, [`demand`] works out what a
//! runtime's pods ask for (with [`crate::k8s::requests`]), [`place`] reaches the verdict with the
//! scheduler's node filters of [`crate::k8s::selection`], as data (a [`Placement`] with its
//! [`Blocker`]), and [`words`] says it ([`Outcome`]).
//!
//! Not modelled (the lists cannot answer them): volumes, topology spread, pod (anti-)affinity
//! other than JobSet's exclusive placement, dynamic resource claims, preemption of lower-priority
//! pods, and queueing (Kueue). Autoscaling is modelled as far as the inventory says it: a
//! ComputeClass it lists, or node auto-provisioning declared ([`provision`]). A TrainJob's own `numNodes`,
//! `resourcesPerNode`, image and runtime patches are modelled: its pod is the one `preview` prints.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diag::{Diagnostic, ObjectRef};
use crate::read::{self, Document};
use crate::rules::fit::{FIT_DOES_NOT_FIT, FIT_INVENTORY_MISSING};
use crate::trainer::{is_runtime, is_trainjob, TrainJob, TrainingRuntime};
use crate::trainjob::{self, TrainerVersion};

pub mod demand;
pub mod inventory;
pub mod kubectl;
pub mod place;
pub mod provision;
pub mod words;

pub use demand::{Demand, DemandError};
pub use inventory::{Cluster, InventoryError, PodCounts};
pub use place::{Blocker, Placement, Plan};

/// The answer for one runtime or TrainJob: which, and the outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// The runtime (for a TrainJob: the runtime it uses).
    pub runtime: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The runtime's kind.
    pub kind: String,
    /// The TrainJob, when the verdict is one's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_job: Option<String>,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// What `fit` concludes for one runtime: placement's verdict, and its blocker and notes in words.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Pods in one gang (one TrainJob).
    pub pods: u64,
    /// At least one gang fits now.
    pub fits: bool,
    /// Whole gangs that fit at once, with what is free now.
    pub copies: u64,
    /// The same on these nodes with no pod in use.
    pub fits_empty: bool,
    pub copies_empty: u64,
    /// Where the copies go now: node pools, topology domains, or nodes.
    #[serde(rename = "where")]
    pub placement: Vec<String>,
    /// The first blocker in words; empty when it fits.
    pub reason: String,
    /// How to fix it, where `fit` knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// kube-scheduler's reason for each node that cannot take a pod now, with the node count.
    pub nodes: BTreeMap<String, usize>,
    /// What holds even when it fits: pods sharing nodes, the JobSet leader's choice, and what
    /// the pod template asks that `fit` does not model.
    pub notes: Vec<String>,
    /// Autoscaling would create its nodes: "ComputeClass NAME", "node auto-provisioning".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned: Option<String>,
    /// The first blocker, as data (`None` when it fits): what [`Outcome::reason`] says.
    #[serde(skip)]
    pub blocker: Option<Blocker>,
    /// `validate` has an error on it (the reason): it is not placed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub invalid: bool,
}

impl Outcome {
    /// Placement's verdict, said.
    pub fn of(p: Placement) -> Outcome {
        let (reason, help) = p.blocker.as_ref().map(words::reason).unwrap_or_default();
        let mut notes: Vec<String> = p.notes.iter().map(words::note).collect();
        let (reason, help) = match &p.provision {
            Some(by) => {
                notes.insert(0, words::standing(&reason));
                (words::provisioned(by), None)
            }
            None => (reason, help),
        };
        Outcome {
            pods: p.pods,
            fits: p.copies > 0,
            copies: p.copies,
            fits_empty: p.copies_empty > 0,
            copies_empty: p.copies_empty,
            placement: p.placement,
            reason,
            help,
            nodes: p.reasons.iter().map(|(why, n)| (words::scheduler_reason(why), *n)).collect(),
            notes,
            provisioned: p.provision.as_ref().map(words::provisioner),
            blocker: p.blocker,
            invalid: false,
        }
    }
}

impl Verdict {
    /// The verdict on a runtime or TrainJob that `validate` has an error on (or a TrainJob whose
    /// runtime it has one on): not placed, `reason` and `help` said.
    pub fn invalid(s: &Subject<'_>, reason: String, help: Option<String>) -> Verdict {
        let mut v = verdict(s, Outcome::default());
        v.outcome.invalid = true;
        v.outcome.reason = reason;
        v.outcome.help = help;
        v
    }
}

/// The verdict of a subject with its outcome: the runtime's name and kind, the TrainJob's name
/// and namespace (else the runtime's).
fn verdict(s: &Subject<'_>, outcome: Outcome) -> Verdict {
    let rt = s.runtime();
    let (namespace, train_job) = match s {
        Subject::Runtime(_) => (rt.metadata.namespace.clone(), None),
        // A TrainJob with only `generateName` is named by it: the API server appends 5 characters.
        Subject::TrainJob { trainjob, .. } => (
            trainjob.metadata.namespace.clone().or_else(|| rt.metadata.namespace.clone()),
            Some(crate::k8s::names::api_name(trainjob.metadata.name.as_deref(), trainjob.metadata.generate_name.as_deref())),
        ),
    };
    Verdict { runtime: rt.metadata.name.clone().unwrap_or_default(), namespace, kind: rt.kind.clone(), train_job, outcome }
}

/// What is fitted: a runtime (as the TrainJob that names it and sets nothing else), or a
/// TrainJob on the runtime it names, predicted for a Trainer release.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    Runtime(&'a TrainingRuntime),
    TrainJob { trainjob: &'a TrainJob, runtime: &'a TrainingRuntime, version: TrainerVersion },
}

impl Subject<'_> {
    fn demand(&self) -> Result<Demand, DemandError> {
        match self {
            Subject::Runtime(rt) => Demand::of(rt),
            Subject::TrainJob { trainjob, runtime, version } => Demand::of_trainjob(runtime, trainjob, *version),
        }
    }

    pub fn runtime(&self) -> &TrainingRuntime {
        match self {
            Subject::Runtime(rt) | Subject::TrainJob { runtime: rt, .. } => rt,
        }
    }
}

/// The verdict for every runtime, in order.
pub fn fit(cluster: &Cluster, runtimes: &[&TrainingRuntime]) -> Vec<Verdict> {
    let subjects: Vec<Subject<'_>> = runtimes.iter().map(|r| Subject::Runtime(r)).collect();
    fit_all(cluster, &subjects)
}

/// The verdict for every runtime and TrainJob, in order.
pub fn fit_all(cluster: &Cluster, subjects: &[Subject<'_>]) -> Vec<Verdict> {
    let demands: Vec<Result<Demand, DemandError>> = subjects.iter().map(Subject::demand).collect();
    let plan = Plan::new(cluster, demands.iter().filter_map(|d| d.as_ref().ok()));
    subjects
        .iter()
        .zip(&demands)
        .map(|(s, d)| {
            verdict(
                s,
                Outcome::of(match d {
                    Ok(d) => provision::provision(cluster, d, plan.evaluate(d)),
                    Err(e) => Placement { blocker: Some(Blocker::Demand(e.to_string())), ..Placement::default() },
                }),
            )
        })
        .collect()
}

/// The items of a package that come from file `path`, a `kind: List` item as its objects (kpt
/// may send a List file as one item).
pub fn documents_of(docs: &[Document], path: &str) -> Vec<Document> {
    read::unpacked(docs.iter().filter(|d| d.source.name == path))
}

/// The KRM validator's fit: the runtimes and TrainJobs among `docs` against the Nodes of the items
/// that come from file `nodes` (and the Pods of `pods`), as findings: `fit/does-not-fit` for each
/// whose gang would stay Pending, placed at the runtime or TrainJob. A TrainJob is fitted on the
/// runtime of the package it names (one that names none is left to the validator's
/// `trainjob/runtime-ref`). `docs` are the package's items, each with its file as its source's
/// name; `merge`: the Trainer release TrainJobs are merged as (`None`: each runtime's own).
pub fn package(docs: &[Document], nodes: &str, pods: Option<&str>, merge: Option<TrainerVersion>) -> Vec<Diagnostic> {
    let from = |path: &str| documents_of(docs, path);
    let missing = |field: &str, path: &str| {
        Diagnostic::finding(&FIT_INVENTORY_MISSING, format!("spec.{field}"), format!("no item of the package comes from `{path}`"))
    };
    let node_docs = from(nodes);
    if node_docs.is_empty() {
        return vec![missing("nodes", nodes)];
    }
    let pod_docs = pods.map(from);
    if let (Some(path), Some(p)) = (pods, &pod_docs) {
        if p.is_empty() {
            return vec![missing("pods", path)];
        }
    }
    let (cluster, mut out) = match inventory::from_documents(&node_docs, pod_docs.as_deref()) {
        Ok(c) => c,
        Err(e) => return e,
    };
    // Runtimes that do not read are reported by the validator's own structure checks.
    let runtimes: Vec<(&Document, TrainingRuntime)> = docs
        .iter()
        .filter(|d| is_runtime(&d.value))
        .filter_map(|d| serde_json::from_value::<TrainingRuntime>(d.value.clone()).ok().map(|r| (d, r)))
        .collect();
    let all: Vec<TrainingRuntime> = runtimes.iter().map(|(_, r)| r.clone()).collect();
    let trainjobs: Vec<(&Document, TrainJob)> = docs
        .iter()
        .filter(|d| is_trainjob(&d.value))
        .filter_map(|d| serde_json::from_value::<TrainJob>(d.value.clone()).ok().map(|t| (d, t)))
        .collect();
    let mut places: Vec<&Document> = runtimes.iter().map(|(d, _)| *d).collect();
    let mut subjects: Vec<Subject<'_>> = runtimes.iter().map(|(_, r)| Subject::Runtime(r)).collect();
    for (doc, tj) in &trainjobs {
        if let Ok(rt) = trainjob::find(tj, &all) {
            places.push(doc);
            subjects.push(Subject::TrainJob { trainjob: tj, runtime: rt, version: TrainerVersion::for_runtime(rt, merge) });
        }
    }
    for (doc, v) in places.into_iter().zip(fit_all(&cluster, &subjects)) {
        if let Some(d) = not_placed(&v, nodes) {
            out.push(doc.locate(d.with_object(ObjectRef::of(&doc.value))));
        }
    }
    out
}

/// The finding of a verdict whose pods are not placed on the nodes of `nodes`: they fit no node
/// now and would not be provisioned. `None` when they are placed, and for an `invalid` verdict
/// (its findings say why). (Kueue holding a TrainJob back: [`crate::queues::gate::held_back`].)
pub fn not_placed(v: &Verdict, nodes: &str) -> Option<Diagnostic> {
    if v.outcome.invalid {
        return None;
    }
    if v.outcome.fits || v.outcome.provisioned.is_some() {
        return None;
    }
    let d = Diagnostic::finding(&FIT_DOES_NOT_FIT, "", format!("its pods would stay Pending on `{nodes}`: {}", v.outcome.reason));
    Some(match &v.outcome.help {
        Some(help) => d.with_help(help.clone()),
        None => d,
    })
}
