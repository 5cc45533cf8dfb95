//! Kubernetes' own rules on a runtime (typed) -> findings, with the checks of [`crate::k8s`]:
//! - at apply, the runtime's metadata (name, namespace, labels, annotations and their size,
//!   finalizers), the quantities and the list keys the CRD enforces;
//! - at TrainJob start, what Trainer and JobSet make of it: the JobSet's and each Job's metadata,
//!   each Job's fields with the pod count Trainer writes into them, and each pod template as the
//!   Job and Pod admission checks it (containers, resources, env, ports, volumes, security,
//!   tolerations, node selector, affinity, restart policies);
//! - the names JobSet derives from a TrainJob's name (kubernetes-sigs/jobset v0.12.0
//!   `pkg/webhooks/jobset_webhook.go` `ValidateCreate`): replicated job names that cannot be part
//!   of them, and the longest TrainJob name the runtime allows ([`trainjob_name_length`]).

use crate::diag::{Diagnostic, FieldPath};
use crate::k8s::finding::{finding, Scope};
use crate::k8s::job::{job_spec, PodCount};
use crate::k8s::names;
use crate::k8s::pod::{duplicates, pod_spec};
use crate::k8s::{meta, resources};
use crate::rules::kubernetes::{JOBSET_REPLICATED_JOB_NAME, JOBSET_TRAINJOB_NAME_LENGTH, K8S_ANNOTATIONS_SIZE_CLIENT_SIDE_APPLY};
use crate::trainer::names::{fits_job_names, label_max, max_jobset_name};
use crate::trainer::pods::{job_pods, max_trainjob_name_of};
use crate::trainer::{self, paths, TrainingRuntime, KIND_NAMESPACED};

/// Plain `kubectl apply` (client-side) stores the whole object, its annotations included, as JSON
/// in the annotation `kubectl.kubernetes.io/last-applied-configuration` (kubectl
/// `pkg/util/apply.go` `GetModifiedConfiguration`): annotations within 256 KiB that the copy takes
/// past it are refused on that route only (`kubectl apply --server-side`, `kubectl create` and kpt
/// live apply add no copy). Over the limit without the copy, [`meta::annotations`] says so.
fn client_side_apply(rt: &TrainingRuntime, out: &mut Vec<Diagnostic>) {
    let Some(a) = &rt.metadata.annotations else { return };
    let key = crate::keys::LAST_APPLIED;
    let own = meta::annotations_size(a.iter().filter(|(k, _)| k.as_str() != key));
    let limit = crate::k8s::facts::facts().limits.annotations_bytes;
    if own > limit {
        return;
    }
    let mut copy = rt.clone();
    if let Some(a) = copy.metadata.annotations.as_mut() {
        a.remove(key);
    }
    // The copy is compact JSON with a newline (`json.Encoder`), under its key.
    let applied = own + key.len() + serde_json::to_string(&copy).map_or(0, |j| j.len() + 1);
    if applied > limit {
        let largest = a.iter().filter(|(k, _)| k.as_str() != key).max_by_key(|(k, v)| k.len() + v.len()).map(|(k, _)| k.as_str());
        out.push(finding(
            &K8S_ANNOTATIONS_SIZE_CLIENT_SIDE_APPLY,
            Scope::Object,
            "metadata.annotations",
            format!(
                "the annotations take {}, within the {} Kubernetes allows, but plain `kubectl apply` (client-side, as docs/pipelines.md and functions/kpt show) adds `{key}`, a copy of the whole runtime, and they would take about {}{}: apply with `kubectl apply --server-side` (or `kubectl create`, kpt live apply), or shorten them",
                meta::bytes(own),
                meta::bytes(limit),
                meta::bytes(applied),
                largest.map(|k| format!(" (the largest is `{k}`)")).unwrap_or_default(),
            ),
        ));
    }
}

/// Every Kubernetes finding on one runtime (field paths relative to it).
pub fn check(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let m = &rt.metadata;
    meta::object_name(m.name.as_deref(), m.generate_name.as_deref(), &"metadata.name".into(), &mut out);
    if rt.kind == KIND_NAMESPACED {
        if let Some(ns) = m.namespace.as_deref().filter(|n| !n.is_empty()) {
            meta::namespace(ns, &"metadata.namespace".into(), &mut out);
        }
    }
    if let Some(l) = &m.labels {
        meta::labels(l, &"metadata.labels".into(), Scope::Object, &mut out);
    }
    if let Some(a) = &m.annotations {
        meta::annotations(a, &"metadata.annotations".into(), Scope::Object, &mut out);
    }
    client_side_apply(rt, &mut out);
    if let Some(f) = &m.finalizers {
        meta::finalizers(f, &"metadata.finalizers".into(), Scope::Object, &mut out);
    }
    let jobset = &rt.spec.template;
    if let Some(tm) = &jobset.metadata {
        meta::labels(&tm.labels, &"spec.template.metadata.labels".into(), Scope::Template, &mut out);
        meta::annotations(&tm.annotations, &"spec.template.metadata.annotations".into(), Scope::Template, &mut out);
        if let Some(f) = &tm.finalizers {
            meta::finalizers(f, &"spec.template.metadata.finalizers".into(), Scope::Template, &mut out);
        }
    }
    // The volumes JobSet adds to pods that mount a volumeClaimPolicies template (`addVolumes`).
    let mut claims: Vec<&str> = Vec::new();
    for (p, policy) in jobset.spec.volume_claim_policies.iter().flatten().enumerate() {
        for (t, pvc) in policy.templates.iter().flatten().enumerate() {
            if let Some(name) = pvc.metadata.name.as_deref() {
                claims.push(name);
            }
            let at = FieldPath::from("spec.template.spec")
                .field("volumeClaimPolicies")
                .index(p)
                .field("templates")
                .index(t)
                .field("spec")
                .field("resources");
            let r = pvc.spec.as_ref().and_then(|s| s.resources.as_ref());
            for (section, map) in [("limits", r.and_then(|r| r.limits.as_ref())), ("requests", r.and_then(|r| r.requests.as_ref()))] {
                for (k, q) in map.into_iter().flatten() {
                    resources::quantity_at(&q.0, &at.field(section).key(k), &mut out);
                }
            }
        }
    }
    let policy = rt.spec.ml_policy.as_ref().and_then(|m| m.framework());
    let jobs = &jobset.spec.replicated_jobs;
    duplicates(jobs.iter().map(|j| j.name.as_str()), &paths::replicated_jobs(), "name", "replicated job name", &mut out);
    for pods in job_pods(rt) {
        let Some(job) = jobs.get(pods.index) else { continue };
        let base = paths::replicated_job(pods.index);
        job_name(job.name.as_str(), job.group_name.as_deref(), pods.replicas, pods.pods, &base, &mut out);
        let jt = &job.template;
        if let Some(jm) = &jt.metadata {
            metadata(jm, &base.field("template").field("metadata"), &mut out);
        }
        let Some(spec) = &jt.spec else { continue };
        let spec_path = base.field("template").field("spec");
        job_spec(spec, &spec_path, PodCount { pods: i64::try_from(pods.pods).unwrap_or(i64::MAX), field: &pods.pods_field }, &mut out);
        if let Some(pm) = &spec.template.metadata {
            metadata(pm, &spec_path.field("template").field("metadata"), &mut out);
        }
        if let Some(ps) = &spec.template.spec {
            // The volumes the ML policy's plugin adds to this job's pods (MPI: `mpi-ssh-auth`).
            let injected = trainer::facts().plugin_volumes(policy, &job.name);
            let volumes: Vec<&str> = claims.iter().copied().chain(injected.iter().map(String::as_str)).collect();
            pod_spec(ps, &spec_path.field("template").field("spec"), &volumes, &mut out);
        }
    }
    out
}

fn metadata(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta, path: &FieldPath, out: &mut Vec<Diagnostic>) {
    if let Some(l) = &m.labels {
        meta::labels(l, &path.field("labels"), Scope::Template, out);
    }
    if let Some(a) = &m.annotations {
        meta::annotations(a, &path.field("annotations"), Scope::Template, out);
    }
    if let Some(f) = &m.finalizers {
        meta::finalizers(f, &path.field("finalizers"), Scope::Template, out);
    }
}

/// A replicated job's name and group name can be part of JobSet's DNS-1035 Job and pod names.
fn job_name(name: &str, group: Option<&str>, replicas: u64, pods: u64, base: &FieldPath, out: &mut Vec<Diagnostic>) {
    let field = base.field("name");
    if !fits_job_names(name) {
        out.push(finding(
            &JOBSET_REPLICATED_JOB_NAME,
            Scope::Template,
            field,
            format!(
                "`{name}` cannot be part of the Job names JobSet builds (`<trainjob>-{name}-0`): use lowercase letters, digits and `-`"
            ),
        ));
    } else if max_jobset_name(name, replicas, pods) == 0 {
        out.push(finding(
            &JOBSET_REPLICATED_JOB_NAME,
            Scope::Template,
            field,
            format!("`{name}` is so long that no TrainJob name keeps its pod names (`<trainjob>-{name}-<job>-<pod>-<5 characters>`) within {} characters", label_max()),
        ));
    }
    if let Some(g) = group.filter(|g| !g.is_empty()) {
        if let Err(e) = names::dns1035_label(g) {
            out.push(finding(
                &JOBSET_REPLICATED_JOB_NAME,
                Scope::Template,
                base.field("groupName"),
                format!("`{g}` is not a valid groupName: it {e}"),
            ));
        }
    }
}

/// The info finding: how long a TrainJob name the runtime allows (none when no name fits; the
/// replicated job's name is then an error of [`check`]).
pub fn trainjob_name_length(rt: &TrainingRuntime) -> Option<Diagnostic> {
    let (max, job) = max_trainjob_name_of(rt).filter(|(n, _)| *n > 0)?;
    let pods = job_pods(rt);
    let j = pods.iter().find(|p| p.name == job)?;
    let pod = crate::trainer::names::hostname("<trainjob>", &job, j.replicas - 1, j.pods - 1);
    let count = if j.pods_field == paths::num_nodes() { format!(" with numNodes {}", j.pods) } else { String::new() };
    Some(Diagnostic::finding(
        &JOBSET_TRAINJOB_NAME_LENGTH,
        "metadata.name",
        format!(
            "TrainJobs using this runtime can have names of at most {max} characters{count}: JobSet names the last pod `{pod}-<5 characters>` and refuses names over {} characters",
            label_max()
        ),
    ))
}

/// The limit a [`trainjob_name_length`] info names (`at most N characters`).
fn name_limit(d: &Diagnostic) -> Option<usize> {
    let rest = d.message.strip_prefix("TrainJobs using this runtime can have names of at most ")?;
    rest.split_once(' ')?.0.parse().ok()
}

/// The TrainJob-name infos of many runtimes as one line: the smallest limit and the runtime
/// that sets it, where the text, kpt and CI reports would otherwise print one line per runtime
/// (JSON keeps one per runtime). One info, or none, is left as it is.
pub fn summarize_name_lengths(diags: &[Diagnostic]) -> Vec<Diagnostic> {
    let is_info = |d: &Diagnostic| std::ptr::eq(d.rule, &JOBSET_TRAINJOB_NAME_LENGTH) && name_limit(d).is_some();
    let infos: Vec<&Diagnostic> = diags.iter().filter(|d| is_info(d)).collect();
    if infos.len() < 2 {
        return diags.to_vec();
    }
    let Some(smallest) = infos.iter().copied().min_by_key(|d| name_limit(d).unwrap_or(usize::MAX)) else { return diags.to_vec() };
    let max = name_limit(smallest).unwrap_or_default();
    let who = smallest.object.as_ref().map_or_else(|| "one of them".to_string(), ToString::to_string);
    let mut summary = Diagnostic::new(
        &JOBSET_TRAINJOB_NAME_LENGTH,
        format!(
            "TrainJobs using these {} runtimes can have names of at most {max} characters (the smallest limit, set by {who}); each runtime's own limit: `--format json`",
            infos.len()
        ),
    )
    .with_help(JOBSET_TRAINJOB_NAME_LENGTH.fix);
    let mut files: Vec<String> = infos.iter().filter_map(|d| d.file.clone()).collect();
    files.sort();
    files.dedup();
    match files.as_slice() {
        [one] => summary = summary.with_file(one.clone(), None, None),
        // Several files: each is named (JSON `files`; SARIF points at the first and relates the rest).
        _ => summary.files = files,
    }
    let mut out = Vec::with_capacity(diags.len() - infos.len() + 1);
    let mut placed = false;
    for d in diags {
        if is_info(d) {
            if !placed {
                out.push(summary.clone());
                placed = true;
            }
        } else {
            out.push(d.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt(job: &str, nodes: i32) -> TrainingRuntime {
        serde_json::from_value(serde_json::json!({
            "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime", "metadata": {"name": "x"},
            "spec": {"mlPolicy": {"numNodes": nodes, "jax": {}}, "template": {"spec": {"replicatedJobs": [
                {"name": job, "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                    "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "i"}]}}}}}]}}}
        }))
        .unwrap()
    }

    #[test]
    fn the_trainjob_name_room_is_reported_and_the_impossible_is_an_error() {
        let d = trainjob_name_length(&rt("node", 16)).unwrap();
        assert!(d.message.contains("at most 47 characters with numNodes 16"), "{}", d.message);
        assert!(d.message.contains("`<trainjob>-node-0-15-<5 characters>`"), "{}", d.message);
        assert!(check(&rt("node", 16)).is_empty());
        let long = "n".repeat(60);
        assert!(trainjob_name_length(&rt(&long, 1)).is_none());
        let ids: Vec<&str> = check(&rt(&long, 1)).iter().map(|d| d.rule.id).collect();
        assert_eq!(ids, ["jobset/replicated-job-name"]);
        let ids: Vec<&str> = check(&rt("Node", 1)).iter().map(|d| d.rule.id).collect();
        assert_eq!(ids, ["jobset/replicated-job-name"]);
    }
}
