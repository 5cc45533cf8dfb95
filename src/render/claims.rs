//! The ResourceClaimTemplates of a runtime with a DRA fabric (DRANET): one per claim of the fabric,
//! named [`claim_template_name`] after the runtime, in the runtime's namespace (none for a
//! `ClusterTrainingRuntime`: the template must be applied in every namespace that runs TrainJobs,
//! since a pod's claim names a template of its own namespace). Typed `resource.k8s.io/v1` objects.
//!
//! A fabric that needs an NVIDIA ComputeDomain (A4X Max: multi-node NVLink) gets it here too,
//! named [`compute_domain_name`]; the driver makes its channel's template.
//!
//! Why `v1`: the platforms that have these fabrics serve it (Kubernetes 1.34 made DRA GA; GKE A4X
//! Max needs GKE 1.34.3 or later, AKS managed DRANET Kubernetes 1.34 or later), and every source
//! read writes `v1` (NVIDIA/aicr docs/integrator/gke-a4x-max-networking.md, kubernetes-sigs/dranet
//! examples/azure_aks_examples). k8s-openapi's v1_33 types stop at `v1beta2`, hence these structs.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

use crate::accelerators::fabric::{claim_template_name, compute_domain_name, AllocationMode, DraClaim};
use crate::keys;
use crate::resolve::{Accel, Resolved};

/// `apiVersion` of the templates.
pub const API_VERSION: &str = "resource.k8s.io/v1";
pub const KIND: &str = "ResourceClaimTemplate";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceClaimTemplate {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: TemplateSpec,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TemplateSpec {
    pub spec: ClaimSpec,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimSpec {
    pub devices: DeviceClaim,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceClaim {
    pub requests: Vec<DeviceRequest>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceRequest {
    pub name: String,
    pub exactly: ExactDeviceRequest,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExactDeviceRequest {
    pub device_class_name: String,
    pub allocation_mode: AllocationMode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selectors: Vec<DeviceSelector>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceSelector {
    pub cel: CelSelector,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CelSelector {
    pub expression: String,
}

/// `apiVersion` and kind of the NVIDIA DRA driver's ComputeDomain (NVIDIA/k8s-dra-driver-gpu
/// api/nvidia.com/resource/v1beta1/computedomain.go; NVIDIA/aicr gke-a4x-max-networking.md).
pub const COMPUTE_DOMAIN_API_VERSION: &str = "resource.nvidia.com/v1beta1";
pub const COMPUTE_DOMAIN_KIND: &str = "ComputeDomain";

/// A ComputeDomain: the nodes of a multi-node NVLink (IMEX) workload, and the ResourceClaimTemplate
/// of its channel that the driver creates in the ComputeDomain's namespace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComputeDomain {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: ComputeDomainSpec,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComputeDomainSpec {
    /// The runtime's node count, as NVIDIA/aicr sets it (deprecated upstream: with the driver's
    /// default `IMEXDaemonsWithDNSNames` it only sets the status; without it, it gates the pods).
    pub num_nodes: i32,
    pub channel: ComputeDomainChannel,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComputeDomainChannel {
    pub resource_claim_template: ChannelTemplate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelTemplate {
    pub name: String,
}

/// The ComputeDomain the runtime's pod claims the channel of (none without a fabric that needs one).
pub fn compute_domains(r: &Resolved) -> Vec<ComputeDomain> {
    let fabric = match &r.accelerator {
        Accel::Gpu(g) => g.fabric.as_ref(),
        Accel::Tpu(t) => t.fabric.as_ref(),
        Accel::Cpu => None,
    };
    let Some((f, d)) = fabric.and_then(|f| f.compute_domain.as_ref().map(|d| (f, d))) else { return Vec::new() };
    let labels = BTreeMap::from([(keys::MANAGED_BY.to_string(), keys::MANAGED_BY_VALUE.to_string())]);
    let annotations =
        BTreeMap::from([(keys::SOURCE.to_string(), r.origin.object.to_string()), (keys::INTERCONNECT.to_string(), f.name.clone())]);
    vec![ComputeDomain {
        api_version: COMPUTE_DOMAIN_API_VERSION.into(),
        kind: COMPUTE_DOMAIN_KIND.into(),
        metadata: ObjectMeta {
            name: Some(compute_domain_name(&r.name)),
            namespace: r.namespace.clone(),
            labels: Some(labels),
            annotations: Some(annotations),
            ..Default::default()
        },
        spec: ComputeDomainSpec {
            num_nodes: r.num_nodes,
            channel: ComputeDomainChannel { resource_claim_template: ChannelTemplate { name: claim_template_name(&r.name, &d.claim) } },
        },
    }]
}

/// The templates the runtime's pod claims (none without a DRA fabric).
pub fn claim_templates(r: &Resolved) -> Vec<ResourceClaimTemplate> {
    let fabric = match &r.accelerator {
        Accel::Gpu(g) => g.fabric.as_ref(),
        Accel::Tpu(t) => t.fabric.as_ref(),
        Accel::Cpu => None,
    };
    let Some(f) = fabric else { return Vec::new() };
    f.claims.iter().map(|c| template(r, &f.name, c)).collect()
}

fn template(r: &Resolved, fabric: &str, c: &DraClaim) -> ResourceClaimTemplate {
    let labels = BTreeMap::from([(keys::MANAGED_BY.to_string(), keys::MANAGED_BY_VALUE.to_string())]);
    let annotations =
        BTreeMap::from([(keys::SOURCE.to_string(), r.origin.object.to_string()), (keys::INTERCONNECT.to_string(), fabric.to_string())]);
    ResourceClaimTemplate {
        api_version: API_VERSION.into(),
        kind: KIND.into(),
        metadata: ObjectMeta {
            name: Some(claim_template_name(&r.name, &c.name)),
            namespace: r.namespace.clone(),
            labels: Some(labels),
            annotations: Some(annotations),
            ..Default::default()
        },
        spec: TemplateSpec {
            spec: ClaimSpec {
                devices: DeviceClaim {
                    requests: vec![DeviceRequest {
                        name: c.name.clone(),
                        exactly: ExactDeviceRequest {
                            device_class_name: c.device_class_name.clone(),
                            allocation_mode: c.allocation_mode,
                            count: c.count.filter(|_| c.allocation_mode == AllocationMode::ExactCount),
                            selectors: c.selectors.iter().map(|e| DeviceSelector { cel: CelSelector { expression: e.clone() } }).collect(),
                        },
                    }],
                },
            },
        },
    }
}
