//! How many Jobs and pods Trainer makes of each replicated job of a runtime, and so how long a
//! TrainJob name the runtime allows. Trainer (kubeflow/trainer v2.3.0
//! `pkg/runtime/core/trainingruntime.go` `newRuntimeInfo`, `pkg/runtime/runtime.go` `WithPodSet`,
//! `pkg/runtime/framework/plugins/jobset/jobset.go` `SyncParallelCount`) gives every replicated
//! job a pod count, `max(parallelism, 1)`, or `mlPolicy.numNodes` for the job labelled
//! `trainer.kubeflow.org/trainjob-ancestor-step: trainer`, and writes it into both `parallelism`
//! and `completions`. The names follow from [`super::names`].

use super::names::max_trainjob_name;
use super::runtime::TrainingRuntime;
use crate::diag::FieldPath;

/// One replicated job as Trainer runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobPods<'a> {
    pub index: usize,
    pub name: &'a str,
    /// Jobs JobSet makes of it (`replicas`, default 1).
    pub replicas: u64,
    /// Pods per Job.
    pub pods: u64,
    /// The runtime field that sets `pods` (`spec.mlPolicy.numNodes` for the trainer).
    pub pods_field: FieldPath,
}

/// Every replicated job with its Job and pod counts.
pub fn job_pods(rt: &TrainingRuntime) -> Vec<JobPods<'_>> {
    let num_nodes = rt.spec.ml_policy.as_ref().map(|m| m.num_nodes.unwrap_or(1));
    rt.spec
        .template
        .spec
        .replicated_jobs
        .iter()
        .enumerate()
        .map(|(index, job)| {
            let trainer = job.is_trainer();
            let parallelism = job.template.spec.as_ref().and_then(|s| s.parallelism).unwrap_or(1);
            let (count, pods_field) = match num_nodes {
                Some(n) if trainer => (n, super::paths::num_nodes()),
                _ => (parallelism, super::paths::job_spec(index).field("parallelism")),
            };
            JobPods {
                index,
                name: job.name.as_str(),
                replicas: u64::try_from(job.replicas.unwrap_or(1)).unwrap_or(0).max(1),
                pods: u64::try_from(count.max(1)).unwrap_or(1),
                pods_field,
            }
        })
        .collect()
}

/// The longest TrainJob name the runtime allows, and the replicated job that sets it.
pub fn max_trainjob_name_of(rt: &TrainingRuntime) -> Option<(usize, String)> {
    let jobs = job_pods(rt);
    max_trainjob_name(jobs.iter().map(|j| (j.name, j.replicas, j.pods))).map(|(n, job)| (n, job.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt(v: serde_json::Value) -> TrainingRuntime {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn the_trainer_job_runs_num_nodes_pods_and_others_their_parallelism() {
        let r = rt(serde_json::json!({
            "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime", "metadata": {"name": "x"},
            "spec": {"mlPolicy": {"numNodes": 16, "jax": {}}, "template": {"spec": {"replicatedJobs": [
                {"name": "dataset-initializer", "template": {"spec": {"parallelism": -3, "template": {"spec": {"containers": []}}}}},
                {"name": "node", "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                    "spec": {"parallelism": 2, "template": {"spec": {"containers": []}}}}}
            ]}}}
        }));
        let jobs = job_pods(&r);
        assert_eq!((jobs[0].pods, jobs[1].pods), (1, 16));
        assert_eq!(jobs[1].pods_field.as_str(), "spec.mlPolicy.numNodes");
        // `-dataset-initializer-0-0-abcde` (31) vs `-node-0-15-abcde` (16): the initializer sets it.
        assert_eq!(max_trainjob_name_of(&r), Some((33, "dataset-initializer".to_string())));
    }
}
