//! The catalog API as written by users: `JaxRuntime`, `JaxRuntimeDefaults` and
//! `JaxRuntimeMatrix` (apiVersion `jax-runtimes.dev/v1alpha1`). These types mirror the YAML and
//! only check its shape (unknown fields are errors); meaning is given by `resolve`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{EnvVar, ResourceRequirements, Toleration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const API_VERSION: &str = "jax-runtimes.dev/v1alpha1";
pub const GROUP: &str = "jax-runtimes.dev";
pub const KIND_RUNTIME: &str = "JaxRuntime";
pub const KIND_DEFAULTS: &str = "JaxRuntimeDefaults";
pub const KIND_MATRIX: &str = "JaxRuntimeMatrix";
pub const KINDS: [&str; 3] = [KIND_RUNTIME, KIND_DEFAULTS, KIND_MATRIX];

/// Object metadata of a catalog object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Metadata {
    /// The object's name. For a `JaxRuntime`, the generated runtime's name.
    pub name: String,
    /// Present: the runtime is a namespaced `TrainingRuntime` in this namespace.
    /// Absent: a `ClusterTrainingRuntime`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Copied onto the generated runtime.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Copied onto the generated runtime.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// One JAX runtime to generate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "JaxRuntime")]
pub struct JaxRuntime {
    /// Always `jax-runtimes.dev/v1alpha1`.
    #[schemars(extend("const" = "jax-runtimes.dev/v1alpha1"))]
    pub api_version: String,
    /// Always `JaxRuntime`.
    #[schemars(extend("const" = "JaxRuntime"))]
    pub kind: String,
    pub metadata: Metadata,
    pub spec: JaxRuntimeSpec,
}

/// What to generate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JaxRuntimeSpec {
    /// A sentence for humans; kept as the annotation `jax-runtimes.dev/description`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Target Kubeflow Trainer release: `v2.2` or `v2.3`. Default: the newest supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trainer: Option<String>,
    /// Which node labels and taints to use: `gke`, `eks`, `aks` or `generic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    /// The `node` container image. Default: from `JaxRuntimeDefaults.spec.images`, else the
    /// accelerator data's default image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Exactly one of `cpu`, `gpu`, `tpu`.
    pub accelerator: Accelerator,
    /// Pods (JAX processes) per job. For `cpu` and `gpu` (default 1); for `tpu` it is derived
    /// from the slice (hosts per slice) and a different value is an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_nodes: Option<i32>,
    /// Command of the `node` container. Usually left empty: the TrainJob or the SDK sets it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    /// Arguments of the `node` container.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Environment of the `node` container (after the defaults' env; same names override).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVar>,
    /// Non-accelerator resources of the `node` container (cpu, memory, ephemeral-storage).
    /// The accelerator's requests and limits are added by the generator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    /// Merged over the node selector derived from the accelerator and platform.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: BTreeMap<String, String>,
    /// Added to the tolerations derived from the accelerator (duplicates dropped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    /// Trainer's `spec.podGroupPolicy`, passed through: `coscheduling` or `volcano`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<BTreeMap<String, Value>>")]
    pub pod_group_policy: Option<Value>,
    /// A memory-backed `/dev/shm` for the `node` container. Default: on for GPU and TPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_memory: Option<SharedMemory>,
    /// Run pods in the node's network namespace (`hostNetwork: true` with
    /// `dnsPolicy: ClusterFirstWithHostNet`). Default: off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_network: Option<bool>,
    /// Service account of the pods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
}

/// A memory-backed `/dev/shm`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SharedMemory {
    /// Default true for GPU and TPU runtimes, false for CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Size limit of the `emptyDir`, e.g. `16Gi`. Default: no limit (memory of the pod).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_limit: Option<String>,
}

/// The platform the runtime schedules on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// Google Kubernetes Engine.
    Gke,
    /// Amazon Elastic Kubernetes Service.
    Eks,
    /// Azure Kubernetes Service.
    Aks,
    /// Any cluster: NVIDIA GPU Feature Discovery or AMD node labeller labels.
    Generic,
}

impl Platform {
    pub const ALL: [Platform; 4] = [Platform::Gke, Platform::Eks, Platform::Aks, Platform::Generic];
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Gke => "gke",
            Platform::Eks => "eks",
            Platform::Aks => "aks",
            Platform::Generic => "generic",
        }
    }
}

impl std::fmt::Display for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Exactly one of `cpu`, `gpu`, `tpu`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("minProperties" = 1, "maxProperties" = 1))]
pub struct Accelerator {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<GpuSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpu: Option<TpuSpec>,
}

/// CPU only: no accelerator. The pod's `cpu` request becomes its `cpu` limit too, so that the
/// Kubeflow SDK reports the device as `cpu` with that count.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CpuSpec {}

/// GPUs per node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuSpec {
    /// A model from `jax-runtimes accelerators --kind gpu`, e.g. `h100-80gb`.
    pub model: String,
    /// GPUs per node (per pod). Default: as many as the largest machine shape of the model has
    /// on the platform (or the pinned machine type's count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// `nvidia` (default) or `amd`; must match the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendor: Option<String>,
    /// Pin a machine (instance) type, e.g. `a3-highgpu-8g` or `p5.48xlarge`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_type: Option<String>,
}

/// A TPU slice (GKE).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TpuSpec {
    /// Generation: `v4`, `v5e`, `v5p`, `v6e`, `tpu7x` (aliases accepted, see `accelerators`).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub generation: Option<String>,
    /// Slice topology, `AxB` (v5e, v6e) or `AxBxC` (v4, v5p, tpu7x).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<String>,
    /// Instead of type and topology: a Cloud TPU accelerator type such as `v5litepod-16` or
    /// `v5p-8`, resolved to its default topology.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accelerator_type: Option<String>,
    /// Chips per host, needed where one topology fits two machine shapes (2x4 on v5e and v6e).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chips_per_host: Option<u32>,
    /// Number of slices. Only 1 works with Trainer v2.3 (kubeflow/trainer#3408).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slices: Option<u32>,
}

/// Defaults for every `JaxRuntime` in the same input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "JaxRuntimeDefaults")]
pub struct JaxRuntimeDefaults {
    #[schemars(extend("const" = "jax-runtimes.dev/v1alpha1"))]
    pub api_version: String,
    #[schemars(extend("const" = "JaxRuntimeDefaults"))]
    pub kind: String,
    pub metadata: Metadata,
    pub spec: DefaultsSpec,
}

/// Values a `JaxRuntime` gets when it does not set them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DefaultsSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trainer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    /// Image per accelerator kind.
    #[serde(default, skip_serializing_if = "Images::is_empty")]
    pub images: Images,
    /// Added to every runtime's labels (the runtime's own win).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Added to every runtime's annotations (the runtime's own win).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// Env of every `node` container, before the runtime's own env.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVar>,
    /// Tolerations added to every runtime.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    /// Node selector under every runtime's own.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: BTreeMap<String, String>,
    /// Default `podGroupPolicy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<BTreeMap<String, Value>>")]
    pub pod_group_policy: Option<Value>,
}

/// Images per accelerator kind.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Images {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    /// NVIDIA GPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// AMD GPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amd_gpu: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpu: Option<String>,
}

impl Images {
    pub fn is_empty(&self) -> bool {
        self == &Images::default()
    }
}

/// One template times a matrix of values: many `JaxRuntime`s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "JaxRuntimeMatrix")]
pub struct JaxRuntimeMatrix {
    #[schemars(extend("const" = "jax-runtimes.dev/v1alpha1"))]
    pub api_version: String,
    #[schemars(extend("const" = "JaxRuntimeMatrix"))]
    pub kind: String,
    pub metadata: Metadata,
    pub spec: MatrixSpec,
}

/// The matrix and the template.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MatrixSpec {
    /// Variable name -> list of values (scalars or maps). Every combination is one runtime.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Vec<Value>>")]
    pub matrix: serde_json::Map<String, Value>,
    /// Extra combinations, each a map of variable -> value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<BTreeMap<String, Value>>")]
    pub include: Vec<serde_json::Map<String, Value>>,
    /// Combinations to leave out: each entry removes every combination it matches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<BTreeMap<String, Value>>")]
    pub exclude: Vec<serde_json::Map<String, Value>>,
    /// A `JaxRuntime` without apiVersion and kind. Every string in it is a minijinja template
    /// over the matrix variables (e.g. `jax-tpu-v5e-{{ topology }}`); a string that is exactly
    /// one `{{ expression }}` takes the expression's type (number, map, none = unset).
    pub template: MatrixTemplate,
}

/// The template of a matrix.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MatrixTemplate {
    #[schemars(with = "Metadata")]
    pub metadata: Value,
    /// A `JaxRuntime` spec whose strings are templates. A string that is one `{{ expression }}`
    /// may stand for a number or an object, so this is checked after expansion, against the
    /// `JaxRuntime` schema, not here.
    #[schemars(with = "BTreeMap<String, Value>")]
    pub spec: Value,
}

/// Any catalog object, for the JSON Schema.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum CatalogObject {
    JaxRuntime(JaxRuntime),
    JaxRuntimeDefaults(JaxRuntimeDefaults),
    JaxRuntimeMatrix(JaxRuntimeMatrix),
}

/// The JSON Schema of the catalog kinds (`jax-runtimes schema`).
pub fn json_schema() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(CatalogObject)).expect("schema serializes");
    if let Some(obj) = schema.as_object_mut() {
        obj.insert("title".into(), Value::String("jax-runtimes catalog object".into()));
        obj.insert("$id".into(), Value::String("https://jax-runtimes.dev/schema/v1alpha1/catalog.json".into()));
    }
    schema
}
