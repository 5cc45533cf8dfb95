//! Kueue's gate before the scheduler, for `fit`: a runtime and the Kueue objects of a cluster (and
//! what its Workloads hold) -> the ClusterQueue its TrainJobs queue in, whether Kueue admits one
//! TrainJob now ([`super::admit`]), and the runtime as its pods would then be: Kueue writes the
//! assigned flavors' node labels into the pods' node selector and adds their tolerations
//! (kueue v0.19.2 `pkg/controller/jobs/trainjob/trainjob_controller.go` `RunWithPodSetsInfo`,
//! `pkg/podset` `FromAssignment`), which is what the scheduler then places.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Toleration;
use serde::Serialize;

use super::admit::{Queues, Verdict};
use super::podsets;
use crate::keys;
use crate::trainer::TrainingRuntime;

/// What Kueue does with one TrainJob of a runtime.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueVerdict {
    /// The ClusterQueue, when one is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_queue: Option<String>,
    /// `admitted`, `waits`, `never`, or `not checked`.
    pub admission: String,
    /// Flavor per replicated job, when admitted (`node: tpu-v5-lite-podslice-4x4`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub flavors: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub borrows: bool,
    /// Why it waits, is never admitted or was not checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl QueueVerdict {
    pub fn admitted(&self) -> bool {
        self.admission == "admitted"
    }

    /// Kueue holds it back: it waits, or is never admitted. ("not checked" does not: Kueue may
    /// not queue it at all.)
    pub fn blocks(&self) -> bool {
        matches!(self.admission.as_str(), "waits" | "never")
    }

    /// The `fit/does-not-fit` finding of a TrainJob (or runtime) Kueue holds back; `None` when
    /// it does not.
    pub fn held_back(&self) -> Option<crate::diag::Diagnostic> {
        if !self.blocks() {
            return None;
        }
        let reason = self.reason.as_deref().unwrap_or("no reason given");
        let what = if self.admission == "never" { "never admits it" } else { "holds it back (it waits)" };
        Some(crate::diag::Diagnostic::finding(&crate::rules::fit::FIT_DOES_NOT_FIT, "", format!("Kueue {what}: {reason}")))
    }

    /// Not checked, and why.
    pub fn not_checked(cluster_queue: Option<String>, reason: String) -> QueueVerdict {
        QueueVerdict { cluster_queue, admission: "not checked".into(), flavors: BTreeMap::new(), borrows: false, reason: Some(reason) }
    }

    /// Never admitted, and why.
    pub fn never(cluster_queue: Option<String>, reason: String) -> QueueVerdict {
        QueueVerdict { cluster_queue, admission: "never".into(), flavors: BTreeMap::new(), borrows: false, reason: Some(reason) }
    }
}

/// The ClusterQueue of a runtime: `chosen`, else its `jax-runtimes.dev/cluster-queue`
/// annotation (what a `JaxRuntimeQueue` puts on the runtimes it serves). Never a guess: a
/// runtime no queue serves is "not checked", whether it comes from a catalog or from the
/// cluster's built output, which has only one ClusterQueue.
pub fn cluster_queue_of(rt: &TrainingRuntime, chosen: Option<&str>) -> Option<String> {
    chosen.map(str::to_string).or_else(|| rt.metadata.annotations.as_ref().and_then(|a| a.get(keys::CLUSTER_QUEUE)).cloned())
}

/// What Kueue writes into an admitted TrainJob's pods: per replicated job, the assigned flavor's
/// node labels and tolerations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Assignment {
    jobs: Vec<(String, BTreeMap<String, String>, Vec<Toleration>)>,
}

impl Assignment {
    /// `rt` as the admitted pods would be: the flavors' node labels in each job's pod node
    /// selector, their tolerations added.
    pub fn apply(&self, rt: &TrainingRuntime) -> TrainingRuntime {
        let mut out = rt.clone();
        for (job, labels, tolerations) in &self.jobs {
            inject(&mut out, job, labels, tolerations);
        }
        out
    }
}

/// Kueue's verdict for one TrainJob of `rt` (a runtime, or the runtime Trainer makes of a
/// TrainJob), and, when admitted, what Kueue writes into its pods.
pub fn gate(rt: &TrainingRuntime, queues: &Queues, chosen: Option<&str>) -> (QueueVerdict, Option<Assignment>) {
    let not_checked = QueueVerdict::not_checked;
    let Some(cq) = cluster_queue_of(rt, chosen) else {
        return (
            not_checked(
                None,
                format!(
                    "no queue serves it: it has no `{}` annotation (pass `--cluster-queue NAME` to check it against one)",
                    keys::CLUSTER_QUEUE
                ),
            ),
            None,
        );
    };
    let sets = match podsets::of_runtime(rt) {
        Ok((_, s)) => s,
        Err(e) => return (not_checked(Some(cq), e.to_string()), None),
    };
    match queues.admit(&cq, &sets) {
        Verdict::Admitted { flavors, borrows } => {
            let mut admitted = Assignment::default();
            let mut by_job = BTreeMap::new();
            for (job, assigned) in &flavors {
                // One flavor per PodSet here: the resource group is one.
                let Some(flavor) = assigned.values().next() else { continue };
                by_job.insert(job.clone(), flavor.clone());
                if let Some(rf) = queues.flavors.as_ref().and_then(|f| f.get(flavor)) {
                    admitted.jobs.push((job.clone(), rf.spec.node_labels.clone(), rf.spec.tolerations.clone()));
                }
            }
            (QueueVerdict { cluster_queue: Some(cq), admission: "admitted".into(), flavors: by_job, borrows, reason: None }, Some(admitted))
        }
        Verdict::Waits { reason } => (
            QueueVerdict {
                cluster_queue: Some(cq),
                admission: "waits".into(),
                flavors: BTreeMap::new(),
                borrows: false,
                reason: Some(reason),
            },
            None,
        ),
        Verdict::Never(b) => (QueueVerdict::never(Some(cq), b.to_string()), None),
    }
}

/// The flavor's node labels into the replicated job's pod node selector, its tolerations added.
fn inject(rt: &mut TrainingRuntime, job: &str, labels: &BTreeMap<String, String>, tolerations: &[Toleration]) {
    for rj in rt.spec.template.spec.replicated_jobs.iter_mut().filter(|j| j.name == job) {
        let Some(spec) = rj.template.spec.as_mut().and_then(|s| s.template.spec.as_mut()) else { continue };
        let selector = spec.node_selector.get_or_insert_with(Default::default);
        selector.extend(labels.iter().map(|(k, v)| (k.clone(), v.clone())));
        if !tolerations.is_empty() {
            spec.tolerations.get_or_insert_with(Vec::new).extend(tolerations.iter().cloned());
        }
    }
}
