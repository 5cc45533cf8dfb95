//! Render stage: a resolved runtime -> a typed `ClusterTrainingRuntime` / `TrainingRuntime`.
//! Pure construction of k8s-openapi and Trainer structs; no decisions are made here. A GPU
//! runtime's machine-type affinity and fabric (pod annotations, native sidecars, volumes, the
//! `node` container's mounts and capabilities) come from its resolved shape.

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::{JobSpec, JobTemplateSpec};
use k8s_openapi::api::core::v1::{
    Affinity, Capabilities, Container, EmptyDirVolumeSource, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
    PodResourceClaim, PodSpec, PodTemplateSpec, ResourceClaim, ResourceRequirements, SecurityContext, Volume, VolumeMount,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::diag::Diagnostic;
use crate::keys;
use crate::resolve::{Accel, Resolved};
use crate::trainer::*;

mod claims;
mod initializers;
mod pod_template;

pub use claims::{claim_templates, compute_domains, ComputeDomain, ResourceClaimTemplate};

pub use pod_template::{catalog_fields, CatalogFields};

/// Builds the runtime object, with the runtime's `spec.podTemplate` merged into the trainer pod;
/// `Err` holds every value of the fragment that contradicts a generated one.
pub fn render(r: &Resolved) -> Result<TrainingRuntime, Vec<Diagnostic>> {
    let mut labels = r.labels.clone();
    let trainer = facts();
    labels.insert(trainer.labels.framework.clone(), "jax".into());
    labels.insert(keys::MANAGED_BY.into(), keys::MANAGED_BY_VALUE.into());
    let mut annotations = r.annotations.clone();
    annotations.insert(keys::SOURCE.into(), r.origin.object.to_string());
    annotations.insert(keys::ACCELERATOR.into(), r.accelerator_summary());
    annotations.insert(keys::TRAINER_VERSION.into(), r.trainer.clone());
    if let Some(d) = &r.description {
        annotations.insert(keys::DESCRIPTION.into(), d.clone());
    }
    if !r.capacity.is_empty() {
        annotations.insert(keys::CAPACITY.into(), crate::capacity::annotation(&r.capacity));
    }
    let gpu = match &r.accelerator {
        Accel::Gpu(g) => Some(g),
        _ => None,
    };
    let fabric = match &r.accelerator {
        Accel::Gpu(g) => g.fabric.as_ref(),
        Accel::Tpu(t) => t.fabric.as_ref(),
        Accel::Cpu => None,
    };
    if let (Accel::Tpu(_), Some(f)) = (&r.accelerator, fabric) {
        annotations.insert(keys::INTERCONNECT.into(), f.name.clone());
    }
    if let Some(g) = gpu {
        if !g.machine_types.is_empty() {
            annotations.insert(keys::MACHINE_TYPES.into(), g.machine_types.join(","));
        }
        if r.num_nodes > 1 {
            annotations.insert(keys::INTERCONNECT.into(), fabric.map_or(keys::INTERCONNECT_NONE.to_string(), |f| f.name.clone()));
        }
    }

    let mut volumes = Vec::new();
    let mut mounts = Vec::new();
    if let Some(size) = &r.shared_memory {
        volumes.push(Volume {
            name: crate::accelerators::SHM_VOLUME.into(),
            empty_dir: Some(EmptyDirVolumeSource { medium: Some("Memory".into()), size_limit: size.clone().map(Quantity) }),
            ..Default::default()
        });
        mounts.push(VolumeMount { name: crate::accelerators::SHM_VOLUME.into(), mount_path: "/dev/shm".into(), ..Default::default() });
    }
    if let Some(f) = fabric {
        volumes.extend(f.volumes.iter().cloned());
        mounts.extend(f.node_mounts.iter().cloned());
    }
    if let Some(i) = &r.initializers {
        volumes.extend(initializers::volume(i));
        mounts.push(initializers::mount());
    }
    volumes.extend(r.storage.volumes.iter().cloned());
    mounts.extend(r.storage.mounts.iter().cloned());
    let security_context = fabric.filter(|f| !f.capabilities.is_empty()).map(|f| SecurityContext {
        capabilities: Some(Capabilities { add: Some(f.capabilities.clone()), drop: None }),
        ..Default::default()
    });
    let affinity = gpu.and_then(|g| g.affinity.as_ref()).map(|a| Affinity {
        node_affinity: Some(NodeAffinity {
            required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_expressions: Some(vec![NodeSelectorRequirement {
                        key: a.key.clone(),
                        operator: "In".into(),
                        values: Some(a.values.clone()),
                    }]),
                    match_fields: None,
                }],
            }),
            preferred_during_scheduling_ignored_during_execution: None,
        }),
        ..Default::default()
    });

    // DRA fabric: the pod claims the devices through the runtime's ResourceClaimTemplates (written
    // beside it, see `crate::pipeline`), and the `node` container uses every claim.
    // A fabric's ComputeDomain (A4X Max): the pod claims its IMEX channel too, from the template
    // the NVIDIA DRA driver makes for the ComputeDomain written beside the runtime.
    let claims: Vec<&str> = fabric
        .map(|f| f.claims.iter().map(|c| c.name.as_str()).chain(f.compute_domain.iter().map(|d| d.claim.as_str())).collect())
        .unwrap_or_default();
    let mut resources = (r.resources.limits.is_some() || r.resources.requests.is_some()).then(|| r.resources.clone());
    if !claims.is_empty() {
        let with = resources.get_or_insert_with(ResourceRequirements::default);
        with.claims = Some(claims.iter().map(|c| ResourceClaim { name: c.to_string(), request: None }).collect());
    }
    let pod_claims = non_empty(
        claims
            .iter()
            .map(|c| PodResourceClaim {
                name: c.to_string(),
                resource_claim_template_name: Some(crate::accelerators::fabric::claim_template_name(&r.name, c)),
                resource_claim_name: None,
            })
            .collect(),
    );
    let container = Container {
        name: trainer.node.clone(),
        image: Some(r.image.clone()),
        command: non_empty(r.command.clone()),
        args: non_empty(r.args.clone()),
        env: non_empty(r.env.clone()),
        resources,
        volume_mounts: non_empty(mounts),
        security_context,
        ..Default::default()
    };
    let pod = PodSpec {
        init_containers: fabric.and_then(|f| non_empty(f.sidecars.clone())),
        containers: vec![container],
        affinity,
        node_selector: if r.node_selector.is_empty() { None } else { Some(r.node_selector.clone()) },
        tolerations: non_empty(r.tolerations.clone()),
        volumes: non_empty(volumes),
        host_network: r.host_network.then_some(true),
        dns_policy: r.host_network.then(|| "ClusterFirstWithHostNet".to_string()),
        service_account_name: r.service_account_name.clone(),
        resource_claims: pod_claims,
        ..Default::default()
    };
    let mut template = PodTemplateSpec { metadata: pod_metadata(r, fabric.map(|f| &f.pod_annotations)), spec: Some(pod) };
    if let Some(fragment) = &r.pod_template {
        template = pod_template::merge(r, template, fragment)?;
    }
    let job = JobTemplateSpec {
        metadata: Some(ObjectMeta {
            labels: Some(BTreeMap::from([(trainer.ancestor_label.clone(), trainer.trainer_step.clone())])),
            ..Default::default()
        }),
        spec: Some(JobSpec { template, ..Default::default() }),
    };
    Ok(TrainingRuntime {
        api_version: API_VERSION.into(),
        kind: if r.namespace.is_some() { KIND_NAMESPACED } else { KIND_CLUSTER }.into(),
        metadata: ObjectMeta {
            name: Some(r.name.clone()),
            namespace: r.namespace.clone(),
            labels: Some(labels),
            annotations: Some(annotations),
            ..Default::default()
        },
        spec: TrainingRuntimeSpec {
            ml_policy: Some(MlPolicy { num_nodes: Some(r.num_nodes), jax: Some(JaxPolicy {}), ..Default::default() }),
            pod_group_policy: r.pod_group_policy.clone(),
            template: JobSetTemplateSpec {
                metadata: if r.jobset_annotations.is_empty() {
                    None
                } else {
                    Some(TemplateMetadata { annotations: r.jobset_annotations.clone(), ..Default::default() })
                },
                spec: JobSetSpec {
                    replicated_jobs: r
                        .initializers
                        .iter()
                        .flat_map(initializers::jobs)
                        .chain([ReplicatedJob {
                            name: trainer.node.clone(),
                            replicas: Some(1),
                            depends_on: r.initializers.as_ref().and_then(initializers::depends_on),
                            template: job,
                            ..Default::default()
                        }])
                        .collect(),
                    volume_claim_policies: r.initializers.as_ref().and_then(initializers::claim_policies),
                    ..Default::default()
                },
            },
        },
    })
}

/// The trainer pod template's metadata: the fabric's annotations and the resolved ones (Kueue's
/// TAS annotations); none when both are empty.
fn pod_metadata(r: &Resolved, fabric: Option<&BTreeMap<String, String>>) -> Option<ObjectMeta> {
    let mut annotations = fabric.cloned().unwrap_or_default();
    annotations.extend(r.pod_annotations.iter().map(|(k, v)| (k.clone(), v.clone())));
    annotations.extend(r.storage.annotations.iter().map(|(k, v)| (k.clone(), v.clone())));
    (!annotations.is_empty()).then(|| ObjectMeta { annotations: Some(annotations), ..Default::default() })
}

fn non_empty<T>(v: Vec<T>) -> Option<Vec<T>> {
    if v.is_empty() {
        None
    } else {
        Some(v)
    }
}
