//! Fit stage: runtimes and a cluster's node and pod lists -> for each runtime, whether kube-scheduler
//! and JobSet would place the whole gang of its TrainJob's pods now, how many copies fit, where,
//! and the first blocker in words. [`inventory`] reads the lists, [`demand`] works out what a
//! runtime's pods ask for (with [`crate::k8s::requests`]), [`place`] reaches the verdict with the
//! scheduler's node filters of [`crate::k8s::selection`], as data (a [`Placement`] with its
//! [`Blocker`]), and [`words`] says it ([`Outcome`]).
//!
//! Not modelled (the lists cannot answer them): volumes, topology spread, pod (anti-)affinity
//! other than JobSet's exclusive placement, dynamic resource claims, preemption of lower-priority
//! pods, cluster autoscaling, queueing (Kueue) and TrainJob overrides of `numNodes`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diag::{Diagnostic, ObjectRef};
use crate::read::{self, Document};
use crate::rules::fit::{FIT_DOES_NOT_FIT, FIT_INVENTORY_MISSING};
use crate::trainer::TrainingRuntime;
use crate::validate::is_runtime;

pub mod demand;
pub mod inventory;
pub mod place;
pub mod words;

pub use demand::{Demand, DemandError};
pub use inventory::{Cluster, InventoryError, PodCounts};
pub use place::{Blocker, Placement, Plan};

/// The answer for one runtime: which runtime, and the outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    pub runtime: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub kind: String,
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
    /// The first blocker, as data (`None` when it fits): what [`Outcome::reason`] says.
    #[serde(skip)]
    pub blocker: Option<Blocker>,
}

impl Outcome {
    /// Placement's verdict, said.
    pub fn of(p: Placement) -> Outcome {
        let (reason, help) = p.blocker.as_ref().map(words::reason).unwrap_or_default();
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
            notes: p.notes.iter().map(words::note).collect(),
            blocker: p.blocker,
        }
    }
}

/// The verdict for every runtime, in order.
pub fn fit(cluster: &Cluster, runtimes: &[&TrainingRuntime]) -> Vec<Verdict> {
    let demands: Vec<Result<Demand, DemandError>> = runtimes.iter().map(|r| Demand::of(r)).collect();
    let plan = Plan::new(cluster, demands.iter().filter_map(|d| d.as_ref().ok()));
    runtimes
        .iter()
        .zip(&demands)
        .map(|(rt, d)| Verdict {
            runtime: rt.metadata.name.clone().unwrap_or_default(),
            namespace: rt.metadata.namespace.clone(),
            kind: rt.kind.clone(),
            outcome: Outcome::of(match d {
                Ok(d) => plan.evaluate(d),
                Err(e) => Placement { blocker: Some(Blocker::Demand(e.to_string())), ..Placement::default() },
            }),
        })
        .collect()
}

/// The KRM validator's fit: the runtimes among `docs` against the Nodes of the items that come
/// from file `nodes` (and the Pods of `pods`), as findings: `fit/does-not-fit` for each runtime
/// whose gang would stay Pending, placed at the runtime. `docs` are the package's items, each
/// with its file as its source's name.
pub fn package(docs: &[Document], nodes: &str, pods: Option<&str>) -> Vec<Diagnostic> {
    let from = |path: &str| -> Vec<Document> {
        docs.iter()
            .filter(|d| d.source.name == path)
            .flat_map(|d| match read::list_items(d.value.clone()) {
                // kpt may send a `kind: List` file as one item: its items are the objects.
                Ok(items) => items
                    .into_iter()
                    .enumerate()
                    .map(|(i, value)| Document { within: format!("items[{i}]"), value, ..d.clone() })
                    .collect::<Vec<_>>(),
                Err(_) => vec![d.clone()],
            })
            .collect()
    };
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
    let typed: Vec<&TrainingRuntime> = runtimes.iter().map(|(_, r)| r).collect();
    for ((doc, _), v) in runtimes.iter().zip(fit(&cluster, &typed)) {
        if v.outcome.fits {
            continue;
        }
        let mut d = Diagnostic::finding(&FIT_DOES_NOT_FIT, "", format!("its pods would stay Pending on `{nodes}`: {}", v.outcome.reason))
            .with_object(ObjectRef::of(&doc.value));
        if let Some(help) = v.outcome.help {
            d = d.with_help(help);
        }
        out.push(doc.locate(d));
    }
    out
}
