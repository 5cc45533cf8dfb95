//! The JobSet Trainer creates for a TrainJob, predicted: an [`Effective`] template (the merge of
//! [`super::merge`]) and the TrainJob -> a `jobset.x-k8s.io/v1alpha2` `JobSet`. The pod of
//! [`super::pod`] is read from this JobSet ([`JobSet::of`]), so `preview` and `preview --jobset`
//! print one model.
//!
//! Trainer (kubeflow/trainer v2.3.0 `pkg/runtime/framework/plugins/jobset/jobset.go`
//! `JobSet.Build`): the JobSet is named after the TrainJob, in its namespace
//! (`jobsetv1alpha2ac.JobSet(trainJob.Name, trainJob.Namespace)`), with the runtime template's
//! labels and annotations as the runtime patches leave them (`info.Labels`, `info.Annotations`,
//! from `pkg/runtime/core/trainingruntime.go` `newRuntimeInfo`), the merged spec, then
//! `plugins/jobset/builder.go` `Initializer`, `Trainer`, `PodLabels`, `PodAnnotations` (all in
//! [`super::merge::build`]) and `Suspend(trainJob.Spec.Suspend)`: the TrainJob's `suspend`
//! replaces the runtime's, unset when the TrainJob sets none. Its owner is the TrainJob
//! (`WithOwnerReferences`: controller and blockOwnerDeletion, with the TrainJob's uid).
//!
//! This is what Trainer sends. JobSet's webhook then defaults it (`pkg/webhooks/jobset_webhook.go`
//! `Default`: success and startup policies, Indexed completion mode, `restartPolicy: OnFailure`,
//! DNS hostnames): not shown here; the pod of [`super::pod`] has them.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use serde::{Deserialize, Serialize};

use super::merge::Effective;
use crate::trainer::{JobSetSpec, TrainJob, TrainingRuntime, API_VERSION as TRAINER_API_VERSION, KIND_TRAINJOB};
use crate::words;

/// `jobset.x-k8s.io/v1alpha2`, the JobSet API Trainer v2.2 and v2.3 create.
pub const API_VERSION: &str = "jobset.x-k8s.io/v1alpha2";
pub const KIND: &str = "JobSet";

/// A JobSet as Trainer creates it (no status).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSet {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: JobSetSpec,
}

impl JobSet {
    /// The JobSet of an effective template: name, namespace, labels, annotations and spec, as far
    /// as they follow from the runtime and the TrainJob's overrides (not its owner or `suspend`:
    /// [`for_trainjob`]).
    pub fn of(eff: &Effective) -> JobSet {
        let map = |m: &std::collections::BTreeMap<String, String>| (!m.is_empty()).then(|| m.clone());
        JobSet {
            api_version: API_VERSION.to_string(),
            kind: KIND.to_string(),
            metadata: ObjectMeta {
                name: Some(eff.name.clone()),
                namespace: eff.namespace.clone(),
                labels: map(&eff.labels),
                annotations: map(&eff.annotations),
                ..ObjectMeta::default()
            },
            spec: eff.template.spec.clone(),
        }
    }

    /// The JobSet's name (the TrainJob's).
    pub fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or_default()
    }

    /// A JobSet-level annotation.
    pub fn annotation(&self, key: &str) -> Option<&String> {
        self.metadata.annotations.as_ref()?.get(key)
    }
}

/// The JobSet Trainer creates for `tj` from `eff` (built from `tj` by [`super::merge::build`]
/// with [`super::Steps::All`]): [`JobSet::of`], `spec.suspend` the TrainJob's, and the TrainJob
/// as its controller owner when `tj` has a uid (one read from a cluster); without one the owner
/// reference is left out, since only the API server knows it.
pub fn for_trainjob(eff: &Effective, tj: &TrainJob) -> JobSet {
    let mut js = JobSet::of(eff);
    js.spec.suspend = tj.spec.suspend;
    if let Some(uid) = tj.metadata.uid.clone().filter(|u| !u.is_empty()) {
        let api_version = if tj.api_version.is_empty() { TRAINER_API_VERSION.to_string() } else { tj.api_version.clone() };
        js.metadata.owner_references = Some(vec![OwnerReference {
            api_version,
            kind: KIND_TRAINJOB.to_string(),
            name: eff.name.clone(),
            uid,
            controller: Some(true),
            block_owner_deletion: Some(true),
        }]);
    }
    js
}

/// What a reader of the predicted JobSet needs to know that it does not say: what it is a
/// prediction of, and what the cluster adds. One line per entry, without comment markers.
pub fn header(eff: &Effective, tj: &TrainJob, runtime: &TrainingRuntime, js: &JobSet) -> Vec<String> {
    let who = match &js.metadata.namespace {
        Some(ns) => format!("{ns}/{}", js.name()),
        None => js.name().to_string(),
    };
    let rt = format!("{}/{}", runtime.kind, runtime.metadata.name.as_deref().unwrap_or_default());
    let jobs: Vec<String> = js
        .spec
        .replicated_jobs
        .iter()
        .map(|j| {
            let pods = j.template.spec.as_ref().and_then(|s| s.parallelism).unwrap_or(1);
            let replicas = j.replicas.unwrap_or(1);
            format!("{} ({})", j.name, words::count_of(i64::from(replicas) * i64::from(pods), "pod", "pods"))
        })
        .collect();
    let mut out = vec![
        format!(
            "The JobSet that Kubeflow Trainer {} (with JobSet {}) creates for TrainJob {who} on {rt}: {}.",
            eff.version,
            eff.version.jobset(),
            if jobs.is_empty() { "no replicated job".to_string() } else { format!("replicated jobs {}", jobs.join(", ")) }
        ),
        format!(
            "Predicted by jax-runtimes {} from the manifests, not read from a cluster: what Trainer sends (plugins/jobset/jobset.go Build). \
             JobSet's webhook then adds its defaults (Indexed completion mode, restartPolicy OnFailure, DNS hostnames, success and startup policies), \
             and its controller makes one Job per replica, <name>-<replicated job>-<index>.",
            env!("CARGO_PKG_VERSION")
        ),
    ];
    if js.metadata.owner_references.is_none() {
        out.push(
            "Not shown: the owner reference to the TrainJob (controller), whose uid the API server assigns; a TrainJob read from the cluster gives it."
                .to_string(),
        );
    }
    if let (None | Some(""), Some(prefix)) = (tj.metadata.name.as_deref(), tj.metadata.generate_name.as_deref().filter(|g| !g.is_empty())) {
        out.push(format!(
            "Name: the API server generates the TrainJob's from `generateName: {prefix}` ({}, `x` for each random character); the JobSet takes it.",
            js.name()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trainjob::{build, Steps, TrainerVersion};

    const RUNTIME: &str = r#"
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: jax-cpu}
spec:
  mlPolicy: {numNodes: 2, jax: {}}
  template:
    metadata:
      labels: {team: ml}
      annotations: {alpha.jobset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool}
    spec:
      suspend: true
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              spec:
                containers: [{name: node, image: jax}]
"#;

    fn jobset(tj: &str) -> JobSet {
        let rt = serde_saphyr::from_str(RUNTIME).unwrap();
        let tj: TrainJob = serde_saphyr::from_str(tj).unwrap();
        for_trainjob(&build(&rt, &tj, TrainerVersion::V2_3, Steps::All), &tj)
    }

    #[test]
    fn the_jobset_is_named_after_the_trainjob_with_the_runtimes_metadata_and_the_merged_spec() {
        let js = jobset(
            "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job, namespace: ml}\nspec: {runtimeRef: {name: jax-cpu}, trainer: {numNodes: 3}}\n",
        );
        assert_eq!((js.api_version.as_str(), js.kind.as_str(), js.name()), (API_VERSION, KIND, "job"));
        assert_eq!(js.metadata.namespace.as_deref(), Some("ml"));
        assert_eq!(js.metadata.labels.as_ref().unwrap().get("team").map(String::as_str), Some("ml"));
        assert_eq!(js.annotation("alpha.jobset.sigs.k8s.io/exclusive-topology").map(String::as_str), Some("cloud.google.com/gke-nodepool"));
        let node = &js.spec.replicated_jobs[0];
        let spec = node.template.spec.as_ref().unwrap();
        assert_eq!((spec.parallelism, spec.completions, node.replicas), (Some(3), Some(3), Some(1)));
        assert_eq!(js.spec.suspend, None, "Trainer sets the TrainJob's suspend (unset) over the runtime's");
        assert!(js.metadata.owner_references.is_none(), "no uid, no owner reference");
    }

    #[test]
    fn a_trainjob_read_from_a_cluster_owns_its_jobset_and_its_suspend_is_kept() {
        let js = jobset(
            "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job, uid: 1234}\nspec: {runtimeRef: {name: jax-cpu}, suspend: true}\n",
        );
        assert_eq!(js.spec.suspend, Some(true));
        let owner = &js.metadata.owner_references.as_ref().unwrap()[0];
        assert_eq!((owner.kind.as_str(), owner.name.as_str(), owner.uid.as_str()), ("TrainJob", "job", "1234"));
        assert_eq!((owner.controller, owner.block_owner_deletion), (Some(true), Some(true)));
    }
}
