//! `spec.runtimePatches` applied to a runtime's JobSet template, as Trainer applies them: the
//! template and the TrainJob's patches -> the patched template, the labels and annotations the
//! JobSet gets, and the replicated jobs a patch names that the runtime lacks.
//!
//! Trainer (kubeflow/trainer `pkg/runtime/core/trainingruntime.go`):
//! - `newRuntimeInfo`: the JobSet's labels and annotations are the runtime's
//!   `spec.template.metadata` ones, then each patch's `trainingRuntimeSpec.template.metadata`
//!   over them, in list order;
//! - `mergeRuntimePatches`, v2.3.0: each patch's `template.spec` is strategic-merge-patched onto
//!   the whole JobSet spec (`strategicpatch.StrategicMergePatch` with the JobSet v0.12.0 types,
//!   where `replicatedJobs` merges by `name`, so an unknown name is appended), then the
//!   replicated jobs are stable-sorted back into the runtime's order (an appended job sorts with
//!   index 0, the Go zero value of the missing map key);
//! - `mergeRuntimePatches`, v2.2.0: each `replicatedJobs[]` entry is merged onto the runtime's
//!   replicated job of that name only; an unknown name is skipped.
//!
//! The strategic merge inside a pod follows the `patchStrategy`/`patchMergeKey` struct tags of
//! k8s.io/api `core/v1/types.go`: `containers`, `initContainers`, `imagePullSecrets`,
//! `schedulingGates` and a container's `env` merge by `name`, `volumeMounts` by `mountPath`,
//! `volumes` by `name` with `retainKeys` (the patch's volume source replaces the runtime's);
//! `nodeSelector` and label maps merge per key; structs (`affinity`, security contexts) merge
//! field by field; lists without a strategy (`tolerations`, node selector terms) are replaced.
//! Items a patch adds come after the runtime's (the order kubectl shows may differ).

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::{JobSpec, JobTemplateSpec};
use k8s_openapi::api::core::v1::{Container, EnvVar, PodSpec, PodTemplateSpec, VolumeMount};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::version::TrainerVersion;
use crate::trainer::{
    ContainerPatch, JobSetTemplateSpec, JobTemplatePatch, PodSpecPatch, ReplicatedJob, ReplicatedJobPatch, RuntimePatch, TemplateMetadata,
};

/// What applying the patches gave besides the patched template.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Patched {
    /// The JobSet's labels and annotations.
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    /// Replicated jobs a patch names that the runtime does not have, with the patch index:
    /// appended by v2.3, skipped by v2.2.
    pub unknown_jobs: Vec<(usize, String)>,
}

/// Applies `patches` to `template` in list order.
pub fn apply(template: &mut JobSetTemplateSpec, patches: &[RuntimePatch], version: TrainerVersion) -> Patched {
    let mut out = Patched::default();
    if let Some(m) = &template.metadata {
        out.labels = m.labels.clone();
        out.annotations = m.annotations.clone();
    }
    let order: BTreeMap<String, usize> = template.spec.replicated_jobs.iter().enumerate().map(|(i, j)| (j.name.clone(), i)).collect();
    for (p, patch) in patches.iter().enumerate() {
        let Some(tmpl) = patch.training_runtime_spec.as_ref().and_then(|s| s.template.as_ref()) else { continue };
        if let Some(m) = &tmpl.metadata {
            out.labels.extend(m.labels.clone());
            out.annotations.extend(m.annotations.clone());
        }
        for job in tmpl.spec.iter().flat_map(|s| s.replicated_jobs.iter().flatten()) {
            match template.spec.replicated_jobs.iter_mut().find(|j| j.name == job.name) {
                Some(existing) => {
                    if let Some(t) = &job.template {
                        merge_job_template(&mut existing.template, t);
                    }
                }
                None => {
                    out.unknown_jobs.push((p, job.name.clone()));
                    if version == TrainerVersion::V2_3 {
                        template.spec.replicated_jobs.push(new_job(job));
                    }
                }
            }
        }
    }
    if version == TrainerVersion::V2_3 {
        // `sort.SliceStable` by the runtime's index; a name the runtime lacks counts as 0.
        template.spec.replicated_jobs.sort_by_key(|j| order.get(&j.name).copied().unwrap_or(0));
    }
    out
}

/// The replicated job v2.3 appends for a patch entry the runtime lacks: only what the patch
/// says (no image, no ancestor label unless the patch gives one).
fn new_job(p: &ReplicatedJobPatch) -> ReplicatedJob {
    let mut template = JobTemplateSpec::default();
    if let Some(t) = &p.template {
        merge_job_template(&mut template, t);
    }
    ReplicatedJob { name: p.name.clone(), template, ..Default::default() }
}

fn merge_job_template(base: &mut JobTemplateSpec, patch: &JobTemplatePatch) {
    if let Some(m) = &patch.metadata {
        merge_meta(base.metadata.get_or_insert_with(Default::default), m);
    }
    let Some(pod) = patch.spec.as_ref().and_then(|s| s.template.as_ref()) else { return };
    let spec = base.spec.get_or_insert_with(JobSpec::default);
    merge_pod_template(&mut spec.template, pod);
}

fn merge_pod_template(base: &mut PodTemplateSpec, patch: &crate::trainer::PodTemplatePatch) {
    if let Some(m) = &patch.metadata {
        merge_meta(base.metadata.get_or_insert_with(Default::default), m);
    }
    if let Some(p) = &patch.spec {
        merge_pod(base.spec.get_or_insert_with(PodSpec::default), p);
    }
}

/// Labels and annotations merge per key; `name` and `namespace` are replaced; finalizers are a
/// merged set.
fn merge_meta(base: &mut ObjectMeta, patch: &TemplateMetadata) {
    if !patch.labels.is_empty() {
        base.labels.get_or_insert_with(Default::default).extend(patch.labels.clone());
    }
    if !patch.annotations.is_empty() {
        base.annotations.get_or_insert_with(Default::default).extend(patch.annotations.clone());
    }
    if patch.name.is_some() {
        base.name.clone_from(&patch.name);
    }
    if patch.namespace.is_some() {
        base.namespace.clone_from(&patch.namespace);
    }
    for f in patch.finalizers.iter().flatten() {
        let list = base.finalizers.get_or_insert_with(Vec::new);
        if !list.contains(f) {
            list.push(f.clone());
        }
    }
}

/// The strategic merge of a pod spec patch (see the module docs).
pub fn merge_pod(base: &mut PodSpec, p: &PodSpecPatch) {
    if p.service_account_name.is_some() {
        base.service_account_name.clone_from(&p.service_account_name);
    }
    if let Some(volumes) = &p.volumes {
        merge_by(base.volumes.get_or_insert_with(Vec::new), volumes, |v| v.name.clone(), |b, v| *b = v.clone());
    }
    if let Some(cs) = &p.init_containers {
        merge_by(base.init_containers.get_or_insert_with(Vec::new), cs, |c| c.name.clone(), merge_container);
    }
    if let Some(cs) = &p.containers {
        merge_by(&mut base.containers, cs, |c| c.name.clone(), merge_container);
    }
    if let Some(secrets) = &p.image_pull_secrets {
        merge_by(base.image_pull_secrets.get_or_insert_with(Vec::new), secrets, |s| s.name.clone(), |b, s| *b = s.clone());
    }
    merge_struct(&mut base.security_context, &p.security_context);
    if let Some(sel) = &p.node_selector {
        base.node_selector.get_or_insert_with(Default::default).extend(sel.clone());
    }
    merge_struct(&mut base.affinity, &p.affinity);
    if p.tolerations.is_some() {
        base.tolerations.clone_from(&p.tolerations);
    }
    if let Some(gates) = &p.scheduling_gates {
        merge_by(base.scheduling_gates.get_or_insert_with(Vec::new), gates, |g| g.name.clone(), |b, g| *b = g.clone());
    }
    if p.termination_grace_period_seconds.is_some() {
        base.termination_grace_period_seconds = p.termination_grace_period_seconds;
    }
}

/// Items of `patch` merge into the item of `base` with the same key, or are appended.
fn merge_by<B, P>(base: &mut Vec<B>, patch: &[P], key: impl Fn(&P) -> String, merge: impl Fn(&mut B, &P))
where
    B: KeyOf + Default,
{
    for item in patch {
        let k = key(item);
        match base.iter_mut().find(|b| b.key() == k) {
            Some(b) => merge(b, item),
            None => {
                let mut b = B::default();
                merge(&mut b, item);
                base.push(b);
            }
        }
    }
}

/// The merge key of an item of a list a patch merges into.
trait KeyOf {
    fn key(&self) -> String;
}

impl KeyOf for Container {
    fn key(&self) -> String {
        self.name.clone()
    }
}

impl KeyOf for k8s_openapi::api::core::v1::Volume {
    fn key(&self) -> String {
        self.name.clone()
    }
}

impl KeyOf for k8s_openapi::api::core::v1::LocalObjectReference {
    fn key(&self) -> String {
        self.name.clone()
    }
}

impl KeyOf for k8s_openapi::api::core::v1::PodSchedulingGate {
    fn key(&self) -> String {
        self.name.clone()
    }
}

impl KeyOf for EnvVar {
    fn key(&self) -> String {
        self.name.clone()
    }
}

impl KeyOf for VolumeMount {
    fn key(&self) -> String {
        self.mount_path.clone()
    }
}

fn merge_container(base: &mut Container, p: &ContainerPatch) {
    base.name.clone_from(&p.name);
    if let Some(env) = &p.env {
        merge_by(base.env.get_or_insert_with(Vec::new), env, |e| e.name.clone(), merge_whole);
    }
    if let Some(mounts) = &p.volume_mounts {
        merge_by(base.volume_mounts.get_or_insert_with(Vec::new), mounts, |m| m.mount_path.clone(), merge_whole);
    }
    merge_struct(&mut base.security_context, &p.security_context);
}

/// A list item merged field by field (what a strategic merge does to a keyed item).
fn merge_whole<T: Serialize + DeserializeOwned + Clone>(base: &mut T, patch: &T) {
    let mut b = Some(base.clone());
    merge_struct(&mut b, &Some(patch.clone()));
    if let Some(b) = b {
        *base = b;
    }
}

/// Merges a struct field by field: objects recursively, everything else (lists included)
/// replaced. The typed values go through JSON only to be walked generically.
fn merge_struct<T: Serialize + DeserializeOwned + Clone>(base: &mut Option<T>, patch: &Option<T>) {
    let Some(p) = patch else { return };
    let Some(b) = base.as_ref() else {
        *base = Some(p.clone());
        return;
    };
    let (Ok(mut bv), Ok(pv)) = (serde_json::to_value(b), serde_json::to_value(p)) else {
        *base = Some(p.clone());
        return;
    };
    merge_value(&mut bv, pv);
    *base = Some(serde_json::from_value(bv).unwrap_or_else(|_| p.clone()));
}

fn merge_value(base: &mut Value, patch: Value) {
    match (base, patch) {
        (Value::Object(b), Value::Object(p)) => {
            for (k, v) in p {
                match b.get_mut(&k) {
                    Some(existing) => merge_value(existing, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, p) => *b = p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trainer::{JobSetSpecPatch, JobSetTemplatePatch, JobSpecPatch, PodTemplatePatch, TrainingRuntimeSpecPatch};
    use k8s_openapi::api::core::v1::Toleration;

    fn base() -> JobSetTemplateSpec {
        let yaml = r#"
spec:
  replicatedJobs:
  - name: dataset-initializer
    template:
      spec:
        template:
          spec:
            containers: [{name: dataset-initializer, image: init}]
  - name: node
    template:
      metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
      spec:
        template:
          spec:
            nodeSelector: {pool: a}
            tolerations: [{key: google.com/tpu, operator: Exists}]
            containers:
            - name: node
              image: jax
              env: [{name: A, value: "1"}]
              volumeMounts: [{name: dshm, mountPath: /dev/shm}]
"#;
        serde_saphyr::from_str(yaml).unwrap()
    }

    fn patch(jobs: Vec<ReplicatedJobPatch>) -> RuntimePatch {
        RuntimePatch {
            manager: "example.com/kueue".into(),
            time: None,
            training_runtime_spec: Some(TrainingRuntimeSpecPatch {
                template: Some(JobSetTemplatePatch {
                    metadata: Some(TemplateMetadata { labels: BTreeMap::from([("team".into(), "a".into())]), ..Default::default() }),
                    spec: Some(JobSetSpecPatch { replicated_jobs: Some(jobs) }),
                }),
            }),
        }
    }

    fn job(name: &str, spec: PodSpecPatch) -> ReplicatedJobPatch {
        ReplicatedJobPatch {
            name: name.into(),
            template: Some(JobTemplatePatch {
                metadata: None,
                spec: Some(JobSpecPatch { template: Some(PodTemplatePatch { metadata: None, spec: Some(spec) }) }),
            }),
        }
    }

    fn node_pod(t: &JobSetTemplateSpec) -> &PodSpec {
        let j = t.spec.replicated_jobs.iter().find(|j| j.name == "node").unwrap();
        j.template.spec.as_ref().unwrap().template.spec.as_ref().unwrap()
    }

    #[test]
    fn selectors_merge_per_key_tolerations_are_replaced_and_containers_merge_by_name() {
        let mut t = base();
        let p = PodSpecPatch {
            node_selector: Some(BTreeMap::from([("zone".into(), "b".into())])),
            tolerations: Some(vec![Toleration { key: Some("x".into()), operator: Some("Exists".into()), ..Default::default() }]),
            containers: Some(vec![ContainerPatch {
                name: "node".into(),
                volume_mounts: Some(vec![VolumeMount { name: "data".into(), mount_path: "/data".into(), ..Default::default() }]),
                ..Default::default()
            }]),
            ..Default::default()
        };
        let out = apply(&mut t, &[patch(vec![job("node", p)])], TrainerVersion::V2_3);
        let pod = node_pod(&t);
        assert_eq!(pod.node_selector.as_ref().unwrap().len(), 2, "{:?}", pod.node_selector);
        assert_eq!(pod.tolerations.as_ref().unwrap()[0].key.as_deref(), Some("x"));
        assert_eq!(pod.tolerations.as_ref().unwrap().len(), 1);
        let c = &pod.containers[0];
        assert_eq!(c.image.as_deref(), Some("jax"), "a container patch keeps what it does not name");
        assert_eq!(c.volume_mounts.as_ref().unwrap().iter().map(|m| m.mount_path.as_str()).collect::<Vec<_>>(), ["/dev/shm", "/data"]);
        assert_eq!(out.labels.get("team").map(String::as_str), Some("a"));
        assert!(out.unknown_jobs.is_empty());
    }

    #[test]
    fn an_unknown_job_is_appended_by_v2_3_and_skipped_by_v2_2() {
        let p = || patch(vec![job("workers", PodSpecPatch { service_account_name: Some("sa".into()), ..Default::default() })]);
        let mut t = base();
        let out = apply(&mut t, &[p()], TrainerVersion::V2_2);
        assert_eq!(out.unknown_jobs, [(0, "workers".to_string())]);
        assert_eq!(t.spec.replicated_jobs.len(), 2);
        let mut t = base();
        apply(&mut t, &[p()], TrainerVersion::V2_3);
        let names: Vec<&str> = t.spec.replicated_jobs.iter().map(|j| j.name.as_str()).collect();
        // Stable sort with the missing index as 0: after the runtime's first job.
        assert_eq!(names, ["dataset-initializer", "workers", "node"]);
    }
}
