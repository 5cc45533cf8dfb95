//! Typed Kubeflow Trainer v2 (`trainer.kubeflow.org/v1alpha1`) runtime objects with the embedded
//! JobSet (`jobset.x-k8s.io/v1alpha2`) spec, built on k8s-openapi's Job and Pod types.
//! Field names follow the Trainer v2.3.0 and JobSet v0.12.0 CRDs.

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const API_VERSION: &str = "trainer.kubeflow.org/v1alpha1";
pub const KIND_CLUSTER: &str = "ClusterTrainingRuntime";
pub const KIND_NAMESPACED: &str = "TrainingRuntime";

/// Label the Kubeflow SDK needs to list a runtime.
pub const LABEL_FRAMEWORK: &str = "trainer.kubeflow.org/framework";
/// Label on a replicated job's template naming its role.
pub const LABEL_ANCESTOR: &str = "trainer.kubeflow.org/trainjob-ancestor-step";
/// Label that makes the Trainer webhook skip a runtime.
pub const LABEL_WEBHOOK_VALIDATION: &str = "trainer.kubeflow.org/webhook-validation";
/// Name of the trainer replicated job and of its container.
pub const NODE: &str = "node";
/// Env the JAX plugin injects into the `node` container (trainer `pkg/runtime/framework/plugins/jax`).
pub const JAX_PLUGIN_ENV: [&str; 3] = ["JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"];

/// A `ClusterTrainingRuntime` or `TrainingRuntime` (the same spec).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrainingRuntime {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: TrainingRuntimeSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrainingRuntimeSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ml_policy: Option<MlPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_group_policy: Option<Value>,
    pub template: JobSetTemplateSpec,
}

/// `spec.mlPolicy`. Only the JAX source is typed; the others pass through.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MlPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_nodes: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jax: Option<JaxPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xgboost: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flux: Option<Value>,
}

/// `mlPolicy.jax`: an empty object (Trainer v2.2+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JaxPolicy {}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetTemplateSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<TemplateMetadata>,
    pub spec: JobSetSpec,
}

/// Labels and annotations Trainer copies onto the JobSet.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateMetadata {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// The JobSet spec embedded in a runtime. Fields the generator never sets are kept untyped so
/// hand-written runtimes read into this model without loss.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetSpec {
    pub replicated_jobs: Vec<ReplicatedJob>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success_policy: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_policy: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_policy: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinator: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_claim_policies: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_seconds_after_finished: Option<i32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJob {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Value>,
    pub template: JobTemplateSpec,
}
