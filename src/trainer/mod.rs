//! Typed Kubeflow Trainer v2 (`trainer.kubeflow.org/v1alpha1`) objects: runtimes with the
//! embedded JobSet (`jobset.x-k8s.io/v1alpha2`) spec ([`runtime`]) and TrainJobs ([`trainjob`]),
//! built on k8s-openapi's Job and Pod types, and Trainer's facts ([`facts()`], from
//! `catalog/trainer.yaml`): its releases, ML policies, ancestor steps, the trainer job, what the
//! JAX plugin injects. Field names, enums and bounds follow the Trainer v2.3.0 and JobSet v0.12.0
//! CRDs; the JSON Schema the validator uses is derived from these types.

pub mod facts;
pub mod names;
pub mod paths;
pub mod pods;
pub mod releases;
pub mod runtime;
pub mod trainjob;

pub use facts::facts;
pub use runtime::*;
pub use trainjob::*;

pub const GROUP: &str = "trainer.kubeflow.org";
pub const API_VERSION: &str = "trainer.kubeflow.org/v1alpha1";
pub const KIND_CLUSTER: &str = "ClusterTrainingRuntime";
pub const KIND_NAMESPACED: &str = "TrainingRuntime";
pub const KIND_TRAINJOB: &str = "TrainJob";

/// True for a `ClusterTrainingRuntime` or `TrainingRuntime` of `trainer.kubeflow.org`.
pub fn is_runtime(value: &serde_json::Value) -> bool {
    let gvk = crate::gvk::Gvk::of(value);
    gvk.group == GROUP && matches!(gvk.kind, KIND_CLUSTER | KIND_NAMESPACED)
}

/// True for a `TrainJob` of `trainer.kubeflow.org`.
pub fn is_trainjob(value: &serde_json::Value) -> bool {
    let gvk = crate::gvk::Gvk::of(value);
    gvk.group == GROUP && gvk.kind == KIND_TRAINJOB
}
