//! The catalog fields of a production runtime: a fragment of the trainer pod template merged into
//! the generated one (`spec.podTemplate`), storage shortcuts that know what a PVC or a Cloud
//! Storage bucket needs (`spec.storage`), and Kubeflow Trainer's dataset and model initializers
//! (`spec.initializers`). Like the rest of the catalog these types only check shape; `resolve`
//! gives them meaning (`resolve::pod_template`, `resolve::storage`, `resolve::initializers`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{EnvVar, PodSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A fragment of the trainer pod template, merged into the one the generator makes: containers,
/// init containers, volumes, volume mounts and env by name (mounts by mount path, Kubernetes'
/// key), tolerations and image pull secrets added without duplicates, maps (labels,
/// annotations, node selector, resources) by key, anything else set where the generator sets
/// nothing. A value the generator sets (the accelerator's resources and node labels, the JAX env,
/// `/dev/shm`, the fabric) that the fragment contradicts is an error that names both places.
/// The container `node` is the trainer's; any other container is a sidecar, added whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PodTemplateFragment {
    /// Labels and annotations of the trainer pods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<FragmentMetadata>,
    /// Fields of the trainer pods' spec (a Kubernetes PodSpec in which every field is optional,
    /// and a container needs only its `name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<PodSpec>,
}

/// Pod template metadata a fragment may set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FragmentMetadata {
    /// Labels of the trainer pods (cost reporting, mesh, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Annotations of the trainer pods.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

impl PodTemplateFragment {
    /// True when it sets nothing.
    pub fn is_empty(&self) -> bool {
        self == &PodTemplateFragment::default()
    }
}

/// One volume mounted into the `node` container: a PersistentVolumeClaim, or a Cloud Storage
/// bucket through GKE's Cloud Storage FUSE CSI driver (which also needs a pod annotation and its
/// sidecar's resources: the generator writes them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StorageVolume {
    /// The pod's volume name (a DNS-1123 label); a `spec.podTemplate` fragment can refer to it.
    pub name: String,
    /// Where the `node` container mounts it (an absolute path).
    pub mount_path: String,
    /// `checkpoints` (default: mounted read-write) or `data` (mounted read-only).
    #[serde(default, rename = "use", skip_serializing_if = "Option::is_none")]
    pub purpose: Option<StorageUse>,
    /// Mount it read-only. Default: true for `data`, false for `checkpoints`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// An existing PersistentVolumeClaim, by name, in the TrainJob's namespace (exactly one of
    /// `persistentVolumeClaim` and `gcs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistent_volume_claim: Option<String>,
    /// A Cloud Storage bucket, mounted with the Cloud Storage FUSE CSI driver (GKE only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gcs: Option<GcsBucket>,
}

/// What a storage volume is for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StorageUse {
    /// Checkpoints and other output: mounted read-write.
    #[default]
    Checkpoints,
    /// Training data: mounted read-only.
    Data,
}

/// A Cloud Storage bucket through the Cloud Storage FUSE CSI driver.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GcsBucket {
    /// The bucket's name (without `gs://`).
    pub bucket: String,
    /// Mount only this folder of the bucket (the `only-dir` mount option).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_dir: Option<String>,
    /// More Cloud Storage FUSE mount options, e.g. `implicit-dirs` or
    /// `file-cache:max-size-mb:-1` (the volume's `mountOptions` attribute).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mount_options: Vec<String>,
    /// Resources of the driver's sidecar (`gke-gcsfuse-sidecar`), written as the pod annotations
    /// the driver reads (`gke-gcsfuse/cpu-limit`, ...); `"0"` means no limit. Default: the
    /// driver's (250m cpu, 256Mi memory, 5Gi ephemeral storage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sidecar_resources: Option<SidecarResources>,
}

/// Limits and requests of `cpu`, `memory` and `ephemeral-storage`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SidecarResources {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: BTreeMap<String, Quantity>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub requests: BTreeMap<String, Quantity>,
}

/// Kubeflow Trainer's initializers: jobs that download a dataset or a model into a volume the
/// trainer pods then mount at `/workspace` (`/workspace/dataset`, `/workspace/model`), and that
/// must complete before the trainer starts. A TrainJob's `spec.initializer` sets their storage
/// URI, env and secret.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Initializers {
    /// The `dataset-initializer` job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<InitializerSpec>,
    /// The `model-initializer` job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<InitializerSpec>,
    /// The volume the initializers write and the trainer reads (`initializer`). Default: a
    /// 20Gi claim JobSet creates for each TrainJob.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<InitializerVolume>,
}

/// One initializer job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InitializerSpec {
    /// What to download, as `STORAGE_URI`: `hf://<repo>` or `s3://<bucket>/<path>` (datasets also
    /// `cache://`). A TrainJob's `spec.initializer.<dataset|model>.storageUri` replaces it; without
    /// one here every TrainJob must give one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_uri: Option<String>,
    /// The initializer's image. Default: Kubeflow's image for the runtime's Trainer release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Resources of the initializer container.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    /// Env of the initializer container (e.g. `HF_TOKEN` from a secret).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVar>,
}

/// The initializers' volume: a claim per TrainJob (JobSet's `volumeClaimPolicies`), or an
/// existing PersistentVolumeClaim.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InitializerVolume {
    /// Size of the claim per TrainJob. Default: 20Gi.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Quantity>,
    /// Storage class of the claim per TrainJob. Default: the cluster's default class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_class_name: Option<String>,
    /// Access modes of the claim per TrainJob. Default: `ReadWriteOnce` for one node,
    /// `ReadWriteMany` for more (every trainer pod mounts it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub access_modes: Vec<String>,
    /// Instead of a claim per TrainJob: this existing PersistentVolumeClaim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistent_volume_claim: Option<String>,
}
