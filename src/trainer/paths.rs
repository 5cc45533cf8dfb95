//! Where things are in a runtime, as typed field paths ([`FieldPath`]): its ML policy's node
//! count, its replicated jobs, and each one's Job template, pod template and pod spec, and in a
//! pod spec its containers and their limits. The validator, the TrainJob checks and `fit` name
//! fields with these, so a path is spelt once.

use crate::diag::FieldPath;

/// `spec.mlPolicy.numNodes`.
pub fn num_nodes() -> FieldPath {
    FieldPath::from("spec.mlPolicy").field("numNodes")
}

/// `spec.template.spec.replicatedJobs`.
pub fn replicated_jobs() -> FieldPath {
    FieldPath::from("spec.template.spec").field("replicatedJobs")
}

/// `spec.template.spec.replicatedJobs[i]`.
pub fn replicated_job(i: usize) -> FieldPath {
    replicated_jobs().index(i)
}

/// The Job template's spec of replicated job `i`: `...replicatedJobs[i].template.spec`.
pub fn job_spec(i: usize) -> FieldPath {
    replicated_job(i).field("template").field("spec")
}

/// The pod template of replicated job `i`: `...replicatedJobs[i].template.spec.template`.
pub fn pod_template(i: usize) -> FieldPath {
    job_spec(i).field("template")
}

/// The pod spec of replicated job `i`: `...replicatedJobs[i].template.spec.template.spec`.
pub fn pod_spec(i: usize) -> FieldPath {
    pod_template(i).field("spec")
}

/// Paths inside a pod spec.
pub trait PodPaths {
    /// `<pod>.containers[c]`.
    fn container(&self, c: usize) -> FieldPath;
    /// `<pod>.initContainers[c]`.
    fn init_container(&self, c: usize) -> FieldPath;
    /// `<container>.resources.limits.<resource>`.
    fn limit(&self, resource: &str) -> FieldPath;
}

impl PodPaths for FieldPath {
    fn container(&self, c: usize) -> FieldPath {
        self.field("containers").index(c)
    }
    fn init_container(&self, c: usize) -> FieldPath {
        self.field("initContainers").index(c)
    }
    fn limit(&self, resource: &str) -> FieldPath {
        self.field("resources").field("limits").key(resource)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_print_as_kubernetes_writes_them() {
        assert_eq!(
            pod_spec(1).container(0).limit("google.com/tpu").to_string(),
            "spec.template.spec.replicatedJobs[1].template.spec.template.spec.containers[0].resources.limits.google.com/tpu"
        );
        assert_eq!(job_spec(0).field("parallelism").as_str(), "spec.template.spec.replicatedJobs[0].template.spec.parallelism");
        assert_eq!(num_nodes().to_string(), "spec.mlPolicy.numNodes");
        assert_eq!(FieldPath::root().field("metadata").as_str(), "metadata");
        assert!(replicated_job(0).contains("spec.template.spec.replicatedJobs[0].name"));
        assert!(!replicated_job(1).contains("spec.template.spec.replicatedJobs[10]"));
    }
}
