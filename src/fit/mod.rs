//! Fit stage: runtimes and a cluster's node and pod lists -> for each runtime, whether kube-scheduler
//! and JobSet would place the whole gang of its TrainJob's pods now, how many copies fit, where,
//! and the first blocker in words. [`inventory`] reads the lists, [`demand`] works out what a
//! runtime's pods ask for (with [`crate::k8s::requests`]), [`place`] reaches the verdict with the
//! scheduler's node filters of [`crate::k8s::selection`], and [`words`] writes it.
//!
//! Not modelled (the lists cannot answer them): volumes, topology spread, pod (anti-)affinity
//! other than JobSet's exclusive placement, dynamic resource claims, preemption of lower-priority
//! pods, cluster autoscaling, queueing (Kueue) and TrainJob overrides of `numNodes`.

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
pub use place::{Outcome, Plan};

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
            outcome: match d {
                Ok(d) => plan.evaluate(d),
                Err(e) => Outcome { reason: e.to_string(), ..Outcome::default() },
            },
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
