//! A runtime (and optionally a TrainJob of it) -> the PodSets Kueue makes its workload of: one
//! per replicated job of the JobSet Trainer builds, with the pod count, what one pod requests, and
//! where its pods may go.
//!
//! Facts (kueue v0.19.2): a TrainJob's PodSets are the JobSet's replicated jobs
//! (`pkg/controller/jobs/trainjob/trainjob_controller.go` `podSets`, through
//! `pkg/controller/jobs/jobset` `PodSets`), each counting `replicas x parallelism` pods; a PodSet's
//! requests are the pod's as `resourcehelpers.PodRequests` adds them up, limits standing in for
//! missing requests (`pkg/workload/workload.go` `totalRequestsFromPodSets`), which is what
//! kube-scheduler counts too ([`crate::k8s::requests`]). The JobSet is Trainer's, predicted by
//! [`crate::trainjob::build`].

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{NodeSelector, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::k8s::requests::{self, Amounts, RequestError};
use crate::trainer::TrainingRuntime;
use crate::trainjob::{self, Effective, Steps, TrainerVersion};

/// One PodSet of a workload.
#[derive(Debug, Clone, PartialEq)]
pub struct PodSet {
    /// The replicated job's name, and its index in the JobSet.
    pub name: String,
    pub job: usize,
    /// Pods in the PodSet: `replicas x parallelism`.
    pub count: i64,
    /// What one pod requests (cpu in millicores), only non-zero amounts.
    pub requests: Amounts,
    pub node_selector: BTreeMap<String, String>,
    /// The required node affinity.
    pub affinity: Option<NodeSelector>,
    pub tolerations: Vec<Toleration>,
    /// The pod template's annotations (where the TAS annotations live).
    pub annotations: BTreeMap<String, String>,
}

impl PodSet {
    /// What the whole PodSet requests of `resource`.
    pub fn total(&self, resource: &str) -> i64 {
        self.requests.get(resource).copied().unwrap_or(0).saturating_mul(self.count)
    }
}

/// Why a PodSet's requests cannot be worked out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("replicated job `{job}`, pod template {source}")]
pub struct PodSetError {
    pub job: String,
    pub source: RequestError,
}

/// The PodSets of the JobSet Trainer builds for a TrainJob.
pub fn of(eff: &Effective) -> Result<Vec<PodSet>, PodSetError> {
    let mut out = Vec::new();
    for (i, job) in eff.template.spec.replicated_jobs.iter().enumerate() {
        let template = job.template.spec.as_ref().map(|s| &s.template);
        let spec = template.and_then(|t| t.spec.clone()).unwrap_or_default();
        let meta: Option<&ObjectMeta> = template.and_then(|t| t.metadata.as_ref());
        let requests = requests::pod_requests(&spec, None).map_err(|source| PodSetError { job: job.name.clone(), source })?;
        let per_job = i64::from(eff.counts.get(i).copied().unwrap_or(1));
        out.push(PodSet {
            name: job.name.clone(),
            job: i,
            count: i64::from(job.replicas.unwrap_or(1).max(0)).saturating_mul(per_job),
            requests,
            node_selector: spec.node_selector.clone().unwrap_or_default(),
            affinity: spec
                .affinity
                .as_ref()
                .and_then(|a| a.node_affinity.as_ref())
                .and_then(|n| n.required_during_scheduling_ignored_during_execution.clone()),
            tolerations: spec.tolerations.clone().unwrap_or_default(),
            annotations: meta.and_then(|m| m.annotations.clone()).unwrap_or_default(),
        });
    }
    Ok(out)
}

/// What Trainer builds for a TrainJob that uses the runtime and changes nothing: the runtime's
/// own workload.
pub fn of_runtime(rt: &TrainingRuntime) -> Result<(Effective, Vec<PodSet>), PodSetError> {
    let eff = trainjob::build(rt, &trainjob::plain(rt), TrainerVersion::for_runtime(rt, None), Steps::All);
    let sets = of(&eff)?;
    Ok((eff, sets))
}
