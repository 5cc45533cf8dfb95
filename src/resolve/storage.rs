//! `spec.storage`: checkpoint and data volumes of the `node` container, from a
//! PersistentVolumeClaim or a Cloud Storage bucket through GKE's Cloud Storage FUSE CSI driver
//! (its pod annotation, CSI volume attributes and sidecar resource annotations), with the rules
//! for what would break: FUSE off GKE, a mount path the generator uses (`/dev/shm`, the
//! initializers' `/workspace`) or another volume's, names Kubernetes refuses. Facts in
//! `catalog/storage.yaml`.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use k8s_openapi::api::core::v1::{CSIVolumeSource, PersistentVolumeClaimVolumeSource, Volume, VolumeMount};
use serde::Deserialize;

use crate::catalog::{Platform, StorageUse, StorageVolume};
use crate::diag::Diagnostic;
use crate::k8s::names;
use crate::rules::catalog::{CATALOG_STORAGE, CATALOG_STORAGE_GCS_OFF_GKE, CATALOG_STORAGE_MOUNT_PATH};

const STORAGE_YAML: &str = include_str!("../../catalog/storage.yaml");

/// `catalog/storage.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StorageFacts {
    pub gcsfuse: GcsFuse,
    pub reserved_mount_paths: Vec<String>,
}

/// The Cloud Storage FUSE CSI driver.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GcsFuse {
    pub platforms: Vec<String>,
    pub driver: String,
    pub pod_annotation: String,
    pub pod_annotation_value: String,
    pub bucket_attribute: String,
    pub mount_options_attribute: String,
    pub only_dir_option: String,
    pub sidecar_annotations: BTreeMap<String, String>,
}

pub fn facts() -> &'static StorageFacts {
    static FACTS: OnceLock<StorageFacts> = OnceLock::new();
    #[allow(clippy::expect_used, reason = "embedded data; the unit tests parse it")]
    FACTS.get_or_init(|| serde_saphyr::from_str(STORAGE_YAML).expect("catalog/storage.yaml parses"))
}

/// What the storage adds to the trainer pod.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResolvedStorage {
    pub volumes: Vec<Volume>,
    pub mounts: Vec<VolumeMount>,
    pub annotations: BTreeMap<String, String>,
}

/// Resolves `spec.storage` on `platform`; `taken` are the mount paths and volume names the
/// generator uses itself (with the catalog field that makes each).
pub fn resolve(storage: &[StorageVolume], platform: &Platform, taken: &[(&str, &str, &str)]) -> Result<ResolvedStorage, Vec<Diagnostic>> {
    let f = &facts().gcsfuse;
    let mut out = ResolvedStorage::default();
    let mut errors = Vec::new();
    for (i, s) in storage.iter().enumerate() {
        let field = format!("spec.storage[{i}]");
        if !names::is_dns1123_label(&s.name) {
            errors.push(
                Diagnostic::new(
                    &CATALOG_STORAGE,
                    format!("`{}` is not a volume name: Kubernetes names a pod's volumes with DNS-1123 labels", s.name),
                )
                .with_field(format!("{field}.name"))
                .with_help("use at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit"),
            );
        }
        if !s.mount_path.starts_with('/') {
            errors.push(
                Diagnostic::new(&CATALOG_STORAGE_MOUNT_PATH, format!("the mount path `{}` is not absolute", s.mount_path))
                    .with_field(format!("{field}.mountPath"))
                    .with_help("start it with `/`, e.g. `/checkpoints`"),
            );
        }
        let path = s.mount_path.trim_end_matches('/');
        let reserved = facts().reserved_mount_paths.iter().find(|r| path == r.as_str() || path.starts_with(&format!("{r}/")));
        let generated = taken.iter().find(|(p, _, _)| !p.is_empty() && (path == *p || path.starts_with(&format!("{p}/"))));
        if let Some(r) = reserved {
            errors.push(
                Diagnostic::new(
                    &CATALOG_STORAGE_MOUNT_PATH,
                    format!(
                        "`{}` collides with `{r}`, the memory-backed shared memory JAX and the accelerator libraries use",
                        s.mount_path
                    ),
                )
                .with_field(format!("{field}.mountPath"))
                .with_help("mount it elsewhere (`/checkpoints`, `/data`); size /dev/shm with `spec.sharedMemory`"),
            );
        } else if let Some((p, _, by)) = generated {
            errors.push(
                Diagnostic::new(&CATALOG_STORAGE_MOUNT_PATH, format!("`{}` collides with `{p}`, which {by} mounts", s.mount_path))
                    .with_field(format!("{field}.mountPath"))
                    .with_help("mount it elsewhere"),
            );
        }
        if taken.iter().any(|(_, v, _)| *v == s.name) {
            errors.push(
                Diagnostic::new(&CATALOG_STORAGE, format!("the volume name `{}` is the generator's", s.name))
                    .with_field(format!("{field}.name"))
                    .with_help("choose another name"),
            );
        }
        for (j, earlier) in storage.iter().enumerate().take(i) {
            if earlier.name == s.name {
                errors.push(
                    Diagnostic::new(&CATALOG_STORAGE, format!("`spec.storage[{j}]` has the name `{}` too", s.name))
                        .with_field(format!("{field}.name"))
                        .with_help("give every volume its own name"),
                );
            }
            if earlier.mount_path.trim_end_matches('/') == path {
                errors.push(
                    Diagnostic::new(&CATALOG_STORAGE_MOUNT_PATH, format!("`spec.storage[{j}]` is mounted at `{}` too", s.mount_path))
                        .with_field(format!("{field}.mountPath"))
                        .with_help("mount every volume at its own path"),
                );
            }
        }
        let read_only = s.read_only.unwrap_or(s.purpose == Some(StorageUse::Data));
        let volume = match (&s.persistent_volume_claim, &s.gcs) {
            (Some(claim), None) => {
                if !names::is_dns1123_subdomain(claim) {
                    errors.push(
                        Diagnostic::new(&CATALOG_STORAGE, format!("`{claim}` is not a PersistentVolumeClaim name"))
                            .with_field(format!("{field}.persistentVolumeClaim"))
                            .with_help(
                                "a claim's name is lowercase letters, digits, '-' and '.', starting and ending with a letter or digit",
                            ),
                    );
                }
                Volume {
                    name: s.name.clone(),
                    persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                        claim_name: claim.clone(),
                        read_only: read_only.then_some(true),
                    }),
                    ..Default::default()
                }
            }
            (None, Some(gcs)) => {
                if !f.platforms.iter().any(|p| p == platform.as_str()) {
                    errors.push(
                        Diagnostic::new(
                            &CATALOG_STORAGE_GCS_OFF_GKE,
                            format!("a Cloud Storage bucket needs the Cloud Storage FUSE CSI driver, which only GKE runs; this runtime is for `{platform}`"),
                        )
                        .with_field(format!("{field}.gcs"))
                        .with_help("use `persistentVolumeClaim` (a claim of a CSI driver the cluster has), or set `spec.platform: gke`"),
                    );
                }
                let gs = gcs.bucket.strip_prefix("gs://").unwrap_or(&gcs.bucket);
                if gs.is_empty() || gs.contains('/') {
                    errors.push(
                        Diagnostic::new(&CATALOG_STORAGE, format!("`{}` is not a bucket name", gcs.bucket))
                            .with_field(format!("{field}.gcs.bucket"))
                            .with_help("give the bucket alone (`my-bucket`); a folder in it goes in `onlyDir`"),
                    );
                }
                let mut options = Vec::new();
                if let Some(dir) = &gcs.only_dir {
                    options.push(format!("{}={dir}", f.only_dir_option));
                }
                options.extend(gcs.mount_options.iter().cloned());
                let mut attributes = BTreeMap::from([(f.bucket_attribute.clone(), gs.to_string())]);
                if !options.is_empty() {
                    attributes.insert(f.mount_options_attribute.clone(), options.join(","));
                }
                out.annotations.insert(f.pod_annotation.clone(), f.pod_annotation_value.clone());
                if let Some(r) = &gcs.sidecar_resources {
                    for (kind, map) in [("limit", &r.limits), ("request", &r.requests)] {
                        for (resource, q) in map {
                            match f.sidecar_annotations.get(resource) {
                                Some(prefix) => {
                                    out.annotations.insert(format!("{prefix}-{kind}"), q.0.clone());
                                }
                                None => errors.push(
                                    Diagnostic::new(
                                        &CATALOG_STORAGE,
                                        format!("the Cloud Storage FUSE sidecar has no `{resource}` setting"),
                                    )
                                    .with_field(format!("{field}.gcs.sidecarResources.{kind}s.{resource}"))
                                    .with_help(format!(
                                        "use {}",
                                        f.sidecar_annotations.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                                    )),
                                ),
                            }
                        }
                    }
                }
                Volume {
                    name: s.name.clone(),
                    csi: Some(CSIVolumeSource {
                        driver: f.driver.clone(),
                        read_only: read_only.then_some(true),
                        volume_attributes: Some(attributes),
                        ..Default::default()
                    }),
                    ..Default::default()
                }
            }
            _ => {
                errors.push(
                    Diagnostic::new(&CATALOG_STORAGE, "a storage volume needs exactly one of `persistentVolumeClaim` and `gcs`")
                        .with_field(field.clone())
                        .with_help("name the claim, or the Cloud Storage bucket"),
                );
                continue;
            }
        };
        out.volumes.push(volume);
        out.mounts.push(VolumeMount {
            name: s.name.clone(),
            mount_path: s.mount_path.clone(),
            read_only: read_only.then_some(true),
            ..Default::default()
        });
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_table_parses() {
        assert_eq!(super::facts().gcsfuse.driver, "gcsfuse.csi.storage.gke.io");
    }
}
