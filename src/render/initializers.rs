//! `spec.initializers` rendered as Trainer v2.3 expects them (`catalog/trainer.yaml`,
//! `initializers`): one replicated job per initializer, before the trainer's, labelled with its
//! ancestor step, whose container of the same name mounts the `initializer` volume at
//! `/workspace` with `STORAGE_URI`; the trainer job depends on each (`Complete`) and its `node`
//! container mounts the same volume; the volume is a claim per TrainJob (`volumeClaimPolicies`,
//! which JobSet adds to every pod that mounts it) or an existing PersistentVolumeClaim.

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::{JobSpec, JobTemplateSpec};
use k8s_openapi::api::core::v1::{
    Container, PersistentVolumeClaim, PersistentVolumeClaimSpec, PersistentVolumeClaimVolumeSource, PodSpec, PodTemplateSpec, Volume,
    VolumeMount, VolumeResourceRequirements,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::resolve::initializers::{InitVolume, ResolvedInitializers};
use crate::trainer::{facts, DependsOn, ReplicatedJob, VolumeClaimPolicy};

/// The mount of the initializers' volume.
pub(super) fn mount() -> VolumeMount {
    let f = &facts().initializers;
    VolumeMount { name: f.volume.clone(), mount_path: f.mount_path.clone(), ..Default::default() }
}

/// The pod volume of an existing claim (a claim per TrainJob needs none: JobSet adds it).
pub(super) fn volume(i: &ResolvedInitializers) -> Option<Volume> {
    match &i.volume {
        InitVolume::Existing(name) => Some(Volume {
            name: facts().initializers.volume.clone(),
            persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource { claim_name: name.clone(), read_only: None }),
            ..Default::default()
        }),
        InitVolume::Claim { .. } => None,
    }
}

/// The claim per TrainJob, for the JobSet's `volumeClaimPolicies`.
pub(super) fn claim_policies(i: &ResolvedInitializers) -> Option<Vec<VolumeClaimPolicy>> {
    let InitVolume::Claim { size, storage_class_name, access_modes } = &i.volume else { return None };
    let claim = PersistentVolumeClaim {
        metadata: ObjectMeta { name: Some(facts().initializers.volume.clone()), ..Default::default() },
        spec: Some(PersistentVolumeClaimSpec {
            access_modes: Some(access_modes.clone()),
            storage_class_name: storage_class_name.clone(),
            resources: Some(VolumeResourceRequirements {
                requests: Some(BTreeMap::from([("storage".into(), size.clone())])),
                limits: None,
            }),
            ..Default::default()
        }),
        status: None,
    };
    Some(vec![VolumeClaimPolicy { templates: Some(vec![claim]), retention_policy: None }])
}

/// The initializer jobs, in order.
pub(super) fn jobs(i: &ResolvedInitializers) -> Vec<ReplicatedJob> {
    let trainer = facts();
    i.jobs
        .iter()
        .map(|j| {
            let container = Container {
                name: j.step.clone(),
                image: Some(j.image.clone()),
                env: (!j.env.is_empty()).then(|| j.env.clone()),
                resources: j.resources.clone(),
                volume_mounts: Some(vec![mount()]),
                ..Default::default()
            };
            ReplicatedJob {
                name: j.step.clone(),
                replicas: Some(1),
                template: JobTemplateSpec {
                    metadata: Some(ObjectMeta {
                        labels: Some(BTreeMap::from([(trainer.ancestor_label.clone(), j.step.clone())])),
                        ..Default::default()
                    }),
                    spec: Some(JobSpec {
                        template: PodTemplateSpec {
                            metadata: None,
                            spec: Some(PodSpec { containers: vec![container], volumes: volume(i).map(|v| vec![v]), ..Default::default() }),
                        },
                        ..Default::default()
                    }),
                },
                ..Default::default()
            }
        })
        .collect()
}

/// What the trainer job waits for.
pub(super) fn depends_on(i: &ResolvedInitializers) -> Option<Vec<DependsOn>> {
    let status = &facts().initializers.depends_on_status;
    Some(i.jobs.iter().map(|j| DependsOn { name: j.step.clone(), status: status.clone() }).collect())
}
