//! `spec.initializers`: Trainer's dataset and model initializer jobs, resolved against Trainer's
//! facts (`catalog/trainer.yaml`, `initializers`): the job and container names, the image for the
//! runtime's Trainer release, the `STORAGE_URI` env, and the shared volume (a claim per TrainJob
//! or an existing PersistentVolumeClaim). `render` makes them replicated jobs before the trainer's,
//! which depends on them.

use k8s_openapi::api::core::v1::{EnvVar, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::catalog::{InitializerSpec, Initializers};
use crate::diag::Diagnostic;
use crate::k8s::names;
use crate::rules::catalog::CATALOG_INITIALIZER;
use crate::trainer::facts;

/// One initializer job.
#[derive(Debug, Clone, PartialEq)]
pub struct InitJob {
    /// The step: the job's and its container's name (`dataset-initializer`, `model-initializer`).
    pub step: String,
    pub image: String,
    pub env: Vec<EnvVar>,
    pub resources: Option<ResourceRequirements>,
}

/// The volume the initializers write and the trainer reads.
#[derive(Debug, Clone, PartialEq)]
pub enum InitVolume {
    /// A claim per TrainJob (JobSet's `volumeClaimPolicies`).
    Claim { size: Quantity, storage_class_name: Option<String>, access_modes: Vec<String> },
    /// An existing PersistentVolumeClaim.
    Existing(String),
}

/// The resolved initializers: jobs in the order they are listed (dataset, then model).
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedInitializers {
    pub jobs: Vec<InitJob>,
    pub volume: InitVolume,
}

const FIELD: &str = "spec.initializers";

/// `v2.2.1`: a release named with its patch (Trainer tags its images so).
fn is_patch(release: &str) -> bool {
    release.starts_with('v') && release.matches('.').count() == 2
}

/// Resolves `spec.initializers` for a runtime of `num_nodes` nodes on Trainer `release`.
pub fn resolve(i: &Initializers, release: &str, num_nodes: i32) -> Result<ResolvedInitializers, Vec<Diagnostic>> {
    let f = &facts().initializers;
    let mut errors = Vec::new();
    let mut jobs = Vec::new();
    for (key, step, spec) in [("dataset", "dataset-initializer", &i.dataset), ("model", "model-initializer", &i.model)] {
        let Some(spec) = spec else { continue };
        match job(spec, step, release, &format!("{FIELD}.{key}")) {
            Ok(j) => jobs.push(j),
            Err(e) => errors.extend(e),
        }
    }
    if jobs.is_empty() && errors.is_empty() {
        errors.push(
            Diagnostic::new(&CATALOG_INITIALIZER, "`spec.initializers` names no initializer")
                .with_field(FIELD)
                .with_help("add `dataset` or `model` (with a `storageUri`), or remove `spec.initializers`"),
        );
    }
    let v = i.volume.clone().unwrap_or_default();
    let volume = match &v.persistent_volume_claim {
        Some(name) => {
            if !names::is_dns1123_subdomain(name) {
                errors.push(
                    Diagnostic::new(&CATALOG_INITIALIZER, format!("`{name}` is not a PersistentVolumeClaim name"))
                        .with_field(format!("{FIELD}.volume.persistentVolumeClaim"))
                        .with_help("a claim's name is lowercase letters, digits, '-' and '.', starting and ending with a letter or digit"),
                );
            }
            if v.size.is_some() || v.storage_class_name.is_some() || !v.access_modes.is_empty() {
                errors.push(
                    Diagnostic::new(&CATALOG_INITIALIZER, "an existing claim has its own size, class and access modes")
                        .with_field(format!("{FIELD}.volume"))
                        .with_help("give either `persistentVolumeClaim` or `size`/`storageClassName`/`accessModes` (a claim per TrainJob)"),
                );
            }
            InitVolume::Existing(name.clone())
        }
        None => InitVolume::Claim {
            size: v.size.clone().unwrap_or_else(|| Quantity(f.claim_size.clone())),
            storage_class_name: v.storage_class_name.clone(),
            access_modes: if v.access_modes.is_empty() {
                // Every trainer pod mounts the claim: on more than one node it must be shared.
                vec![if num_nodes > 1 { "ReadWriteMany" } else { "ReadWriteOnce" }.to_string()]
            } else {
                v.access_modes.clone()
            },
        },
    };
    if let InitVolume::Claim { access_modes, .. } = &volume {
        if num_nodes > 1 && access_modes.iter().all(|m| m == "ReadWriteOnce" || m == "ReadWriteOncePod") {
            errors.push(
                Diagnostic::new(
                    &CATALOG_INITIALIZER,
                    format!(
                        "{num_nodes} trainer pods mount the initializer claim, but it is only {}: the pods on other nodes never start",
                        access_modes.join(", ")
                    ),
                )
                .with_field(format!("{FIELD}.volume.accessModes"))
                .with_help("use `ReadWriteMany` (a storage class that offers it: Filestore, EFS, Azure Files), or one node"),
            );
        }
    }
    if errors.is_empty() {
        Ok(ResolvedInitializers { jobs, volume })
    } else {
        Err(errors)
    }
}

fn job(spec: &InitializerSpec, step: &str, release: &str, field: &str) -> Result<InitJob, Vec<Diagnostic>> {
    let f = &facts().initializers;
    let mut errors = Vec::new();
    let mut env = Vec::new();
    if let Some(uri) = &spec.storage_uri {
        let scheme = uri.split_once("://").map(|(s, _)| s);
        let known = f.schemes.get(step).cloned().unwrap_or_default();
        if !scheme.is_some_and(|s| known.iter().any(|k| k == s)) {
            errors.push(
                Diagnostic::new(&CATALOG_INITIALIZER, format!("the {step} cannot read `{uri}`: it reads {}", schemes(&known)))
                    .with_field(format!("{field}.storageUri"))
                    .with_help("write the URI with one of those schemes (`hf://org/name`, `s3://bucket/path`)"),
            );
        }
        env.push(EnvVar { name: f.storage_uri_env.clone(), value: Some(uri.clone()), value_from: None });
    }
    for (i, e) in spec.env.iter().enumerate() {
        if e.name == f.storage_uri_env {
            errors.push(
                Diagnostic::new(&CATALOG_INITIALIZER, format!("`{}` is the initializer's source: set it with `storageUri`", e.name))
                    .with_field(format!("{field}.env[{i}].name"))
                    .with_help("move the value to `storageUri`"),
            );
        }
    }
    env.extend(spec.env.iter().cloned());
    let image = match &spec.image {
        Some(i) => i.clone(),
        // A minor's images are tagged with its release; a patch release's with its own name.
        None => match (f.images.get(step), f.image_tags.get(release).map(String::as_str).or(is_patch(release).then_some(release))) {
            (Some(image), Some(tag)) => format!("{image}:{tag}"),
            _ => {
                errors.push(
                    Diagnostic::new(&CATALOG_INITIALIZER, format!("no {step} image is known for Trainer {release}"))
                        .with_field(format!("{field}.image"))
                        .with_help("set `image`"),
                );
                String::new()
            }
        },
    };
    if errors.is_empty() {
        Ok(InitJob { step: step.to_string(), image, env, resources: spec.resources.clone() })
    } else {
        Err(errors)
    }
}

fn schemes(known: &[String]) -> String {
    known.iter().map(|s| format!("`{s}://`")).collect::<Vec<_>>().join(", ")
}
