//! The catalog API as written by users: the kinds of [`Kind`] (apiVersion
//! `jax-runtimes.dev/v1alpha1`), the KRM function's `JaxRuntimeValidation` config among them.
//! These types mirror the YAML and only check its shape (unknown fields are errors); meaning is
//! given by `resolve`. [`kinds`] says which objects are catalog objects.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{EnvVar, ResourceRequirements, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::accelerators::NetworkInterface;
use crate::trainer::PodGroupPolicy;

pub mod kinds;
pub mod production;
pub mod releases;
pub mod schema;

pub use kinds::{identify, Identity, Kind, API_VERSION, GROUP};
pub use production::{
    FragmentMetadata, GcsBucket, InitializerSpec, InitializerVolume, Initializers, PodTemplateFragment, SidecarResources, StorageUse,
    StorageVolume,
};
pub use releases::{trainer_default, trainer_releases};

/// Object metadata of a catalog object.
// A runtime's metadata (a `JaxRuntime`'s, a matrix template's) is this struct too, described in
// the schema as `RuntimeMetadata` (`schema::refine`): only that metadata reaches a runtime.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Metadata {
    /// The object's name.
    pub name: String,
    /// Not used (a runtime's namespace is its JaxRuntime's or matrix template's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The object's own labels; not copied onto runtimes (a runtime's labels are its
    /// JaxRuntime's or matrix template's `metadata.labels` and the defaults' `spec.labels`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// The object's own annotations; not copied onto runtimes (a runtime's annotations are its
    /// JaxRuntime's or matrix template's `metadata.annotations` and the defaults'
    /// `spec.annotations`).
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
    /// Target Kubeflow Trainer release: a minor (`v2.2`, `v2.3`), a release (`v2.2.1`) or `next`;
    /// the runtime is judged by that release's CRD schemas. Default: the newest supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trainer: Option<String>,
    /// Which node labels and taints to use: a platform of the accelerator data (`gke`, `eks`,
    /// `aks`, `generic`, ...). Default: the accelerator's default platform.
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
    pub pod_group_policy: Option<PodGroupPolicy>,
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
    /// Kueue Topology Aware Scheduling: the `kueue.x-k8s.io/podset-*` annotations of the trainer
    /// pod template. Default: none, except for a GPU runtime a `JaxRuntimeQueue` with
    /// `topologyAwareScheduling` serves (a preferred topology that keeps a multi-node job compact,
    /// `unconstrained` for one node).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<PodTopology>,
    /// How the nodes are bought: `computeClass: NAME`, `spot: true`, `flexStart: true`,
    /// `reservation: NAME`, `onDemand: true`, and `autopilot: true` for GKE Autopilot (the kinds of
    /// `catalog/capacity.yaml`, per platform). Over `JaxRuntimeDefaults.spec.capacity`, key by key
    /// (`false` turns a default off). Default: none, the platform's standing node pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Capacity>,
    /// A fragment of the trainer pod template merged into the generated one (volumes, sidecars,
    /// priority class, pull secrets, security context, labels, annotations, ...): see
    /// `PodTemplateFragment`. Over the defaults' fragment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_template: Option<PodTemplateFragment>,
    /// Volumes for checkpoints and data mounted into the `node` container: PersistentVolumeClaims,
    /// or Cloud Storage buckets through Cloud Storage FUSE (GKE).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub storage: Vec<StorageVolume>,
    /// Kubeflow Trainer's dataset and model initializers: jobs that download into a volume the
    /// trainer pods mount at `/workspace` and that complete before the trainer starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initializers: Option<Initializers>,
}

/// How a runtime's nodes are bought: capacity kind -> `true`/`false`, or a name (a ComputeClass, a
/// reservation). Which kinds exist, and what each takes, is data (`catalog/capacity.yaml`);
/// `resolve` checks them, the JSON Schema lists them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Capacity(pub BTreeMap<String, CapacityValue>);

impl Capacity {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The value of one capacity kind: a flag or a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum CapacityValue {
    Flag(bool),
    Name(String),
}

impl<'de> Deserialize<'de> for CapacityValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CapacityValue, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = CapacityValue;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("`true` or `false`, or a name")
            }
            fn visit_bool<E>(self, v: bool) -> Result<CapacityValue, E> {
                Ok(CapacityValue::Flag(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<CapacityValue, E> {
                Ok(CapacityValue::Name(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Capacity {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Capacity".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        // The kinds are filled in from the capacity data by [`json_schema`].
        schemars::json_schema!({
            "description": "How the nodes are bought.",
            "type": "object",
            "additionalProperties": { "type": ["boolean", "string"] },
        })
    }
}

/// Where Kueue's Topology Aware Scheduling places the trainer pods: at most one of `required`,
/// `preferred` and `unconstrained`, each level a node label of the queue's Topology.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PodTopology {
    /// Every pod in one domain of this level, or the job is not admitted
    /// (`kueue.x-k8s.io/podset-required-topology`), e.g. `cloud.google.com/gce-topology-block`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<String>,
    /// In one domain of this level if possible, else as few as possible
    /// (`kueue.x-k8s.io/podset-preferred-topology`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred: Option<String>,
    /// Anywhere in the topology (`kueue.x-k8s.io/podset-unconstrained-topology: "true"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unconstrained: Option<bool>,
    /// With `sliceSize`: the pods in slices of `sliceSize`, each slice in one domain of this level
    /// (`kueue.x-k8s.io/podset-slice-required-topology`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slice_required: Option<String>,
    /// Pods per slice (`kueue.x-k8s.io/podset-slice-size`); at most numNodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slice_size: Option<u32>,
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

/// The platform a runtime schedules on, by name. Which names exist is data
/// (`catalog/accelerators/platforms.yaml`); `resolve` checks the name, the JSON Schema lists them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Platform(pub String);

impl Platform {
    pub fn new(name: impl Into<String>) -> Platform {
        Platform(name.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl JsonSchema for Platform {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Platform".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        // The names are filled in from the accelerator data by [`json_schema`].
        schemars::json_schema!({ "description": "The platform the runtime schedules on.", "type": "string" })
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
pub struct CpuSpec {
    /// Copy the `cpu` request into a `cpu` limit. Default true: the Kubeflow SDK reads a
    /// runtime's device from its limits only, and lists this one as `cpu` with that count. The
    /// limit also caps the JAX process at that many cores. `false` leaves the limit out; the SDK
    /// then lists the device and count as `Unknown` (a `catalog/cpu-limit-off` warning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_from_request: Option<bool>,
}

/// GPUs per node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuSpec {
    /// A model from `jax-runtimes accelerators --kind gpu`, e.g. `h100-80gb`.
    pub model: String,
    /// GPUs per node (per pod). Default: as many as the model's most common machine shape on the
    /// platform has (8 for H100, A100, H200, B200; 1 for L4), or the pinned machine type's count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// `nvidia` (default) or `amd`; must match the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendor: Option<String>,
    /// Pin a machine (instance) type, e.g. `a3-highgpu-8g` or `p5.48xlarge`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_type: Option<String>,
    /// Several machine types the pods may land on (a required node affinity `In`), e.g.
    /// `[g6.12xlarge, g6.24xlarge]`. Default: every machine type with at least `count` GPUs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub machine_types: Vec<String>,
    /// `auto` (default): a runtime with more than one node gets the fast interconnect (fabric) of
    /// its machine type when each pod takes the whole machine. `none`: never. `dra`: the machine
    /// type's DRA fabric (DRANET), where it also has a device-plugin one (AKS ND-series).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interconnect: Option<Interconnect>,
    /// The fabric's cluster-specific values (network names, device counts, the daemon image), over
    /// `JaxRuntimeDefaults.spec.fabric` and the data's defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fabric: Option<FabricSpec>,
}

/// Whether a multi-node GPU runtime wires its machine type's fabric.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Interconnect {
    /// The machine type's fabric when numNodes > 1 and each pod takes the whole machine.
    #[default]
    Auto,
    /// No fabric: NCCL uses the pod network.
    None,
    /// The machine type's DRA fabric (DRANET): the pod claims the NICs through ResourceClaimTemplates
    /// written beside the runtime, where the machine also has a device-plugin fabric (AKS ND-series).
    Dra,
}

/// A fabric's cluster-specific values. Each replaces the data's default; `env` is added after the
/// fabric's own env. Which ones a fabric takes is listed on its docs page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FabricSpec {
    /// GKE: the pod's interfaces and the names of the cluster's `Network` objects, as in the
    /// `networking.gke.io/interfaces` annotation (eth0 on `default` included).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub networks: Vec<NetworkInterface>,
    /// GKE TCPX/TCPXO: the image of the receive-data-path daemon sidecar; it must match the NCCL
    /// plugin installer on the nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daemon_image: Option<String>,
    /// EKS, AKS, or any cluster: the fabric's extended resources of the `node` container (requests
    /// equal limits), instead of the data's, e.g. `{vpc.amazonaws.com/efa: 16}` or
    /// `{rdma/shared_ib: 1}`. On a machine type without a known fabric these (with `env` and
    /// `capabilities`) make one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<BTreeMap<String, Quantity>>,
    /// Env of the `node` container, after the fabric's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVar>,
    /// Capabilities of the `node` container for a fabric made from these settings (RDMA needs
    /// `IPC_LOCK`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
}

/// A TPU slice (GKE).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TpuSpec {
    /// Generation: a TPU type of the accelerator data, or an alias (see `accelerators --kind
    /// tpu`). The schema lists them (`schema::refine`).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub generation: Option<String>,
    /// Slice topology, `AxB` or `AxBxC` as the generation's slices are 2D or 3D. The schema says
    /// which are which (`schema::refine`).
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
    /// `static` (default): one node pool per slice, selected by its topology label. `dynamic`:
    /// a slice formed at admission from partitions of provisioned node pools (TPU7x super- and
    /// subslices by GKE's slice controller; v6e subslices of a larger pool by Kueue), see
    /// `dynamicSlicing` in the TPU data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slicing: Option<TpuSlicing>,
    /// With `slicing: dynamic`, where subslices are carved from a larger node pool (v6e): that
    /// pool's topology, e.g. `4x4` for `2x4` subslices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// `dra`: the slice's machine type's DRA fabric (GKE managed DRANET on v6e: every non-RDMA NIC
    /// of the host claimed through a ResourceClaimTemplate written beside the runtime). Default
    /// (`auto`, `none`): no fabric; the slice's chips talk over ICI, the hosts over the pod network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interconnect: Option<Interconnect>,
}

/// How a TPU slice is provisioned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TpuSlicing {
    /// One node pool per slice.
    #[default]
    Static,
    /// Formed at admission from partitions of provisioned node pools.
    Dynamic,
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

/// Values a `JaxRuntime` gets when it does not set them. Without `selector`, for every runtime of
/// the input (at most one such defaults per input); with one, for the runtimes it selects, over
/// the unselected defaults (at most one selected defaults per runtime).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DefaultsSpec {
    /// Which runtimes these defaults apply to. Absent: every runtime of the input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<DefaultsSelector>,
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
    pub pod_group_policy: Option<PodGroupPolicy>,
    /// Fabric values under every GPU runtime's own `spec.accelerator.gpu.fabric` (the cluster's
    /// network names, device counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fabric: Option<FabricSpec>,
    /// Capacity under every runtime's own `spec.capacity`, key by key (`autopilot: true` for a
    /// catalog of GKE Autopilot runtimes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Capacity>,
    /// A pod template fragment under every runtime's own `spec.podTemplate` (the runtime's values
    /// win): a priority class, pull secrets, labels for cost reporting, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_template: Option<PodTemplateFragment>,
}

/// Which runtimes a `JaxRuntimeDefaults` applies to: those that meet every condition given (an
/// empty selector selects every runtime).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DefaultsSelector {
    /// Labels the runtime's own `metadata.labels` (a `JaxRuntime`'s, or a matrix row's, before any
    /// defaults) must have, as in a Kubernetes label selector.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
    /// Label selector requirements on the same labels (`In`, `NotIn`, `Exists`, `DoesNotExist`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
    /// Runtime names, one of which must match; `*` matches any characters (`team-ml-*`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// `true`: only runtimes whose catalog file is in the folder of this defaults' file, or below
    /// it (paths as the command or the package names them).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub same_folder: bool,
}

/// Images per accelerator kind: `cpu`, `tpu`, and one key per GPU vendor of the accelerator data
/// (`gpu` for NVIDIA, `amdGpu` for AMD). `resolve` checks the keys; the JSON Schema lists them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Images(pub BTreeMap<String, String>);

impl Images {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn get(&self, key: &str) -> Option<&String> {
        self.0.get(key)
    }
}

impl JsonSchema for Images {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Images".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        // The keys are filled in from the accelerator data by [`json_schema`].
        schemars::json_schema!({
            "description": "Images per accelerator kind.",
            "type": "object",
            "additionalProperties": { "type": "string" },
        })
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

/// Kueue queues for the catalog's runtimes: one ResourceFlavor per accelerator shape the served
/// runtimes use, a ClusterQueue covering every resource they request, a LocalQueue per namespace,
/// WorkloadPriorityClasses, and a Topology with Topology Aware Scheduling; generated next to the
/// runtimes, which get the `jax-runtimes.dev/cluster-queue` and `jax-runtimes.dev/local-queue`
/// annotations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "JaxRuntimeQueue")]
pub struct JaxRuntimeQueue {
    #[schemars(extend("const" = "jax-runtimes.dev/v1alpha1"))]
    pub api_version: String,
    #[schemars(extend("const" = "JaxRuntimeQueue"))]
    pub kind: String,
    pub metadata: Metadata,
    #[serde(default)]
    pub spec: QueueSpec,
}

/// What the queue serves and how much of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QueueSpec {
    /// The Kueue API of the generated objects: `kueue.x-k8s.io/v1beta2` (default; Kueue v0.16
    /// and newer) or `kueue.x-k8s.io/v1beta1` (older Kueue; the ClusterQueue's cohort is then
    /// written `spec.cohort`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kueue_api_version: Option<String>,
    /// Which runtimes the queue serves. Default: every runtime of the catalog. A runtime may be
    /// served by one queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtimes: Option<RuntimeSelector>,
    /// The ClusterQueue's name. Default: `metadata.name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_queue: Option<String>,
    /// The name of the LocalQueue in each namespace, what TrainJobs set as
    /// `kueue.x-k8s.io/queue-name`. Default: the ClusterQueue's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_queue: Option<String>,
    /// The namespaces that get a LocalQueue. Default: `[default]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<String>,
    /// The ClusterQueue's `namespaceSelector`. Default: `{}`, every namespace (Kueue reads a
    /// missing selector as none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    /// The cohort the ClusterQueue borrows and lends in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cohort: Option<String>,
    /// `BestEffortFIFO` (Kueue's default) or `StrictFIFO`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queueing_strategy: Option<QueueingStrategy>,
    /// The ClusterQueue's preemption policies. Default: Kueue's (never preempt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption: Option<QueuePreemption>,
    /// Quotas per accelerator shape; a shape without one gets one TrainJob of its largest runtime.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quotas: Vec<Quota>,
    /// WorkloadPriorityClasses to create; TrainJobs name one with `kueue.x-k8s.io/priority-class`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub priority_classes: Vec<PriorityClass>,
    /// Present: Topology Aware Scheduling for the GPU shapes (a Topology, the flavors'
    /// `topologyName`, and the podset annotations on the served GPU runtimes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_aware_scheduling: Option<TopologyAwareScheduling>,
    /// Capacity types in the order Kueue tries them, e.g. `[{spot: true}, {onDemand: true}]`: each
    /// shape gets one ResourceFlavor per entry (its node labels and tolerations those of the
    /// capacity), listed in this order in the ClusterQueue. The served runtimes then select no
    /// capacity of their own. Default: one flavor per shape.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capacity: Vec<Capacity>,
}

/// Runtimes by name or by label; both given, a runtime must match both.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RuntimeSelector {
    /// The runtimes' names (`metadata.name` of the entries).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// Labels the runtimes carry (their `metadata.labels` and the defaults').
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
}

/// `spec.queueingStrategy` of the ClusterQueue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum QueueingStrategy {
    /// Older workloads first, but one that cannot be admitted does not block younger ones.
    BestEffortFIFO,
    /// Strictly oldest first.
    StrictFIFO,
}

/// Preemption, as Kueue's ClusterQueue writes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QueuePreemption {
    /// `Never`, `LowerPriority` or `Any`: preempting workloads of the cohort that borrow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reclaim_within_cohort: Option<String>,
    /// `Never`, `LowerPriority` or `LowerOrNewerEqualPriority`: preempting in the queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_cluster_queue: Option<String>,
    /// `Never` or `LowerPriority`: preempting in the cohort while borrowing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borrow_within_cohort: Option<String>,
}

/// The quota of one accelerator shape, in exactly one unit (`slices`, `nodes` or `chips`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Quota {
    /// The shape: that of this served runtime (exactly one of `runtime` and `flavor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// The shape: the generated ResourceFlavor of this name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flavor: Option<String>,
    /// TPU: whole slices of the shape's topology.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slices: Option<u32>,
    /// Nodes (hosts): a GPU node's GPUs, a TPU host's chips, a CPU runtime's pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    /// Accelerator chips (`google.com/tpu`, `nvidia.com/gpu`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chips: Option<u32>,
    /// With a cohort: how much more the queue may borrow, in the same unit. Default: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borrowing_limit: Option<u32>,
    /// With a cohort: how much of its quota the queue lends at most, in the same unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lending_limit: Option<u32>,
    /// Quotas of other covered resources, instead of what the accelerator quota's pods request
    /// (e.g. `{cpu: 2000, memory: 8Ti}`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resources: BTreeMap<String, Quantity>,
}

/// A WorkloadPriorityClass.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PriorityClass {
    pub name: String,
    /// Higher is admitted (and preempts) first.
    pub value: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Topology Aware Scheduling.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TopologyAwareScheduling {
    /// The Topology's name. Default: the platform's (`gke-default` on GKE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<String>,
    /// The Topology's levels, node labels from the broadest to `kubernetes.io/hostname`.
    /// Default: the platform's (GKE: block, subblock, host, hostname; EKS: the three network
    /// node layers, hostname).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<String>,
}

/// The KRM function's config that makes it validate the package's runtimes instead of
/// generating them (`functionConfig` of a kpt validator or a kustomize transformer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "JaxRuntimeValidation")]
pub struct JaxRuntimeValidation {
    #[schemars(extend("const" = "jax-runtimes.dev/v1alpha1"))]
    pub api_version: String,
    #[schemars(extend("const" = "JaxRuntimeValidation"))]
    pub kind: String,
    pub metadata: Metadata,
    #[serde(default)]
    pub spec: ValidationSpec,
}

/// What the validator mode does.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValidationSpec {
    /// Fail (exit 1) on warnings too, not only on errors.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fail_on_warnings: bool,
    /// A file of the package holding the cluster's nodes (what `kubectl get nodes -o yaml`
    /// prints), relative to the package root. Set: every runtime is also checked to fit on
    /// those nodes (`fit/does-not-fit`), as `jax-runtimes fit` does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<String>,
    /// With `nodes`: a file of the package holding the pods in use (`kubectl get pods -A -o
    /// yaml`). Without it the nodes are taken as empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pods: Option<String>,
    /// Clients whose needs are errors rather than warnings (`jax-runtimes validate --require`):
    /// `sdk`, the Kubeflow Python SDK (`sdk/framework-label`, `sdk/trainer-container`,
    /// `sdk/unknown-device`: a runtime without them works with kubectl, but the SDK cannot list
    /// or use it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub require: Vec<Requirement>,
    /// The Kubeflow Trainer release the cluster runs, as `jax-runtimes validate
    /// --trainer-version` takes it: a release (`v2.2.1`), a minor (`v2.2`: its newest patch) or
    /// `next`. Its CRDs' schemas judge every object, and from v2.2 on its TrainJob merge. Default:
    /// the release a runtime's `jax-runtimes.dev/trainer-version` annotation names, else v2.3.0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trainer_version: Option<String>,
}

/// A client whose needs `validate --require` (and `JaxRuntimeValidation`'s `spec.require`) makes
/// errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Requirement {
    /// The Kubeflow Python SDK (`TrainerClient`): the framework label, the trainer container and
    /// a device limit it reads.
    Sdk,
}

impl std::str::FromStr for Requirement {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "sdk" => Ok(Requirement::Sdk),
            _ => Err(format!("`{s}` is not a client jax-runtimes knows the needs of; the one there is: sdk")),
        }
    }
}

/// One cluster of a fleet: which of the catalog's runtimes it serves (by default those of its
/// platform), optionally the nodes they must fit on and the queues it gets. With clusters,
/// `render -o DIR` writes `clusters/<name>/kustomization.yaml` for each, beside the shared runtime
/// files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "JaxCluster")]
pub struct JaxCluster {
    #[schemars(extend("const" = "jax-runtimes.dev/v1alpha1"))]
    pub api_version: String,
    #[schemars(extend("const" = "JaxCluster"))]
    pub kind: String,
    /// `name` is the cluster's folder (`clusters/<name>/`), a DNS label; `labels` (region, team,
    /// tier) are the cluster's, for the docs page and the GitOps generators.
    pub metadata: Metadata,
    pub spec: ClusterSpec,
}

/// What a cluster is and what it gets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterSpec {
    /// The cluster's platform (`gke`, `eks`, `aks`, `generic`, ...): by default it serves the
    /// runtimes of this platform.
    pub platform: Platform,
    /// A sentence for humans, shown on the cluster's docs page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Which runtimes the cluster serves. Default: every runtime of `platform`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtimes: Option<ClusterRuntimes>,
    /// The cluster's nodes: every served runtime must fit on them (fit's verdict on empty nodes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inventory: Option<ClusterInventory>,
    /// `JaxRuntimeQueue`s of the catalog (by `metadata.name`) whose Kueue objects the cluster gets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queues: Vec<String>,
}

/// Which runtimes a cluster serves: those of the `platforms` that match `names` and
/// `matchLabels` (narrowing), and every runtime named in `include` (widening).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterRuntimes {
    /// The runtimes' platforms. Default: `[spec.platform]`; `["*"]`: any platform.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub platforms: Vec<String>,
    /// Only these runtimes (by `metadata.name` of the generated runtime) of the platforms.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// Only the runtimes of the platforms that carry these labels (theirs and the defaults').
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
    /// These runtimes too, whatever their platform and labels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<String>,
    /// Never these runtimes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

/// A cluster's nodes, as `jax-runtimes fit --nodes` reads them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterInventory {
    /// What `kubectl get nodes -o yaml` prints for the cluster, relative to the folder of the
    /// file that holds this `JaxCluster` (in a kpt package: a file of the package).
    pub nodes: String,
    /// The cluster adds nodes on demand (cluster autoscaler, node auto-provisioning, Karpenter):
    /// a runtime that does not fit the listed nodes is a warning, not an error.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub autoscaling: bool,
}
