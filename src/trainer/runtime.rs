//! `ClusterTrainingRuntime` and `TrainingRuntime` (the same spec): the ML policy, the pod-group
//! policy and the JobSet template. Enumerated values are strings with their allowed values in the
//! schema, as k8s-openapi does it, so that a hand-written runtime with a bad value still reads into
//! the model and every later check runs.

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::core::v1::{Container, PersistentVolumeClaim, PodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A `ClusterTrainingRuntime` or `TrainingRuntime`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrainingRuntime {
    // The CRD requires none of the four (the API server takes apiVersion and kind from the
    // request; the name rules say what metadata must hold): tests/validate.rs compares.
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: TrainingRuntimeSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrainingRuntimeSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ml_policy: Option<MlPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_group_policy: Option<PodGroupPolicy>,
    #[serde(default)]
    pub template: JobSetTemplateSpec,
}

/// `spec.mlPolicy`: the node count and one framework policy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MlPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_nodes: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch: Option<TorchPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi: Option<MpiPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jax: Option<JaxPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xgboost: Option<XgboostPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flux: Option<FluxPolicy>,
}

/// `mlPolicy.jax`: an empty object (Trainer v2.2+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JaxPolicy {}

/// `mlPolicy.xgboost`: an empty object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct XgboostPolicy {}

/// `mlPolicy.torch` (v2.3: only `envInjection`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TorchPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_injection: Option<EnvInjection>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvInjection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 16))]
    pub targets: Option<Vec<EnvInjectionTarget>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvInjectionTarget {
    #[schemars(length(min = 1, max = 253))]
    pub job_name: String,
    #[schemars(length(min = 1, max = 8), inner(length(max = 63)))]
    pub container_names: Vec<String>,
}

/// `mlPolicy.mpi`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MpiPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_proc_per_node: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["OpenMPI", ""]))]
    pub mpi_implementation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 4096))]
    pub ssh_auth_mount_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_launcher_as_node: Option<bool>,
}

/// `mlPolicy.flux`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FluxPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_proc_per_node: Option<i32>,
}

/// `spec.podGroupPolicy`: gang scheduling with the coscheduling plugin or Volcano.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PodGroupPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coscheduling: Option<CoschedulingPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volcano: Option<VolcanoPolicy>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CoschedulingPolicy {
    /// Seconds the pod group may wait to be scheduled (default 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_timeout_seconds: Option<i32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VolcanoPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_topology: Option<NetworkTopology>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NetworkTopology {
    /// `hard` (default) or `soft`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["hard", "soft"]))]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub highest_tier_allowed: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetTemplateSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<TemplateMetadata>,
    #[serde(default)]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finalizers: Option<Vec<String>>,
}

/// The JobSet spec embedded in a runtime.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetSpec {
    /// Not required by the Trainer v2.3.0 CRD (JobSet's `+listType=map` without `+required`).
    #[serde(default)]
    pub replicated_jobs: Vec<ReplicatedJob>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<Network>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success_policy: Option<SuccessPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_policy: Option<FailurePolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_policy: Option<StartupPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinator: Option<Coordinator>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 50))]
    pub volume_claim_policies: Option<Vec<VolumeClaimPolicy>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub ttl_seconds_after_finished: Option<i32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Network {
    #[serde(default, rename = "enableDNSHostnames", skip_serializing_if = "Option::is_none")]
    pub enable_dns_hostnames: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publish_not_ready_addresses: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subdomain: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuccessPolicy {
    /// `All` or `Any`.
    #[schemars(extend("enum" = ["All", "Any"]))]
    pub operator: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_replicated_jobs: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailurePolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_restarts: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["Recreate", "BlockingRecreate", "InPlaceRestart"]))]
    pub restart_strategy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<FailurePolicyRule>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailurePolicyRule {
    pub name: String,
    #[schemars(extend("enum" = ["FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts", "RestartJob", "RestartJobAndIgnoreMaxRestarts"]))]
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_job_failure_reasons: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_job_failure_message_patterns: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_replicated_jobs: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartupPolicy {
    /// `AnyOrder` or `InOrder`.
    #[schemars(extend("enum" = ["AnyOrder", "InOrder"]))]
    pub startup_policy_order: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Coordinator {
    pub replicated_job: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_index: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_index: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VolumeClaimPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 50))]
    pub templates: Option<Vec<PersistentVolumeClaim>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_policy: Option<RetentionPolicy>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RetentionPolicy {
    /// `Delete` (default) or `Retain`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["Delete", "Retain"]))]
    pub when_deleted: Option<String>,
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
    #[schemars(length(max = 5))]
    pub depends_on: Option<Vec<DependsOn>>,
    pub template: JobTemplateSpec,
}

impl ReplicatedJob {
    /// The value of its Job template's `trainer.kubeflow.org/trainjob-ancestor-step` label.
    pub fn ancestor_step(&self) -> Option<&str> {
        self.template.metadata.as_ref()?.labels.as_ref()?.get(&super::facts().ancestor_label).map(String::as_str)
    }

    /// Whether it is the trainer step (`trainjob-ancestor-step: trainer`): the job Trainer sizes
    /// with `numNodes` and the JAX plugin configures.
    pub fn is_trainer(&self) -> bool {
        self.ancestor_step() == Some(super::facts().trainer_step.as_str())
    }

    /// Its pod template's spec.
    pub fn pod_spec(&self) -> Option<&PodSpec> {
        self.template.spec.as_ref()?.template.spec.as_ref()
    }

    /// Its `node` container (the container Trainer and the JAX plugin change).
    pub fn node_container(&self) -> Option<&Container> {
        self.pod_spec()?.containers.iter().find(|c| c.name == super::facts().node)
    }
}

/// The trainer job among `jobs`: the first labelled with the trainer step, with its index.
/// Trainer finds it by that label alone, never by name (kubeflow/trainer v2.3.0
/// `pkg/runtime/core/trainingruntime.go` `newRuntimeInfo`, the JAX plugin's
/// `FindPodSetByAncestor`); `preview`, `fit` and the validator all ask this function.
pub fn trainer_job(jobs: &[ReplicatedJob]) -> Option<(usize, &ReplicatedJob)> {
    jobs.iter().enumerate().find(|(_, j)| j.is_trainer())
}

impl MlPolicy {
    /// The framework policy it sets (`jax`, `torch`, ...; the first of [`super::facts`]'s list
    /// when it sets several, which the CRD refuses), or `None` for PlainML.
    pub fn framework(&self) -> Option<&'static str> {
        let set = serde_json::to_value(self).ok()?;
        super::facts().ml_policies.iter().map(String::as_str).find(|p| set.get(*p).is_some())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DependsOn {
    pub name: String,
    /// `Ready` or `Complete`.
    #[schemars(extend("enum" = ["Ready", "Complete"]))]
    pub status: String,
}

impl TrainingRuntime {
    /// The pod spec of each replicated job, with its index.
    pub fn pods(&self) -> impl Iterator<Item = (usize, &ReplicatedJob, Option<&PodSpec>)> {
        self.spec.template.spec.replicated_jobs.iter().enumerate().map(|(i, j)| (i, j, j.pod_spec()))
    }

    /// Its trainer job ([`trainer_job`]).
    pub fn trainer_job(&self) -> Option<(usize, &ReplicatedJob)> {
        trainer_job(&self.spec.template.spec.replicated_jobs)
    }
}
