//! A replicated job's Job as the API server checks it once Trainer and JobSet have filled it in
//! (kubernetes/kubernetes `pkg/apis/batch/validation/validation.go` `validateJobSpec`, v1.32 or
//! later, not pinned to a tag): the non-negative fields, `maxFailedIndexes` and
//! `backoffLimitPerIndex`, the completion mode JobSet defaults to `Indexed` (kubernetes-sigs/jobset
//! v0.12.0 `pkg/webhooks/jobset_webhook.go` `Default`) with its parallelism limit, the pod
//! replacement policy, and the pod restart policies a Job takes. Trainer overwrites `parallelism`
//! and `completions` with the job's pod count (kubeflow/trainer v2.3.0
//! `pkg/runtime/framework/plugins/jobset/jobset.go` `SyncParallelCount`), so those two are not
//! checked as written; the pod count is.

use k8s_openapi::api::batch::v1::JobSpec;

use super::facts::{facts, listed};
use super::finding::{finding, Scope};
use super::pod::one_of;
use crate::diag::{Diagnostic, FieldPath};
use crate::rules::kubernetes::{K8S_JOB_FIELD, K8S_RESTART_POLICY};

/// How many pods Trainer gives the Job, and the runtime field that sets it.
#[derive(Debug, Clone, Copy)]
pub struct PodCount<'a> {
    pub pods: i64,
    pub field: &'a FieldPath,
}

/// Checks a Job spec at `path` (`...replicatedJobs[i].template.spec`).
pub fn job_spec(spec: &JobSpec, path: &FieldPath, count: PodCount<'_>, out: &mut Vec<Diagnostic>) {
    let mut bad = |field: FieldPath, msg: String| out.push(finding(&K8S_JOB_FIELD, Scope::Template, field, msg));
    for (name, v) in [
        ("backoffLimit", spec.backoff_limit.map(i64::from)),
        ("activeDeadlineSeconds", spec.active_deadline_seconds),
        ("ttlSecondsAfterFinished", spec.ttl_seconds_after_finished.map(i64::from)),
        ("backoffLimitPerIndex", spec.backoff_limit_per_index.map(i64::from)),
        ("maxFailedIndexes", spec.max_failed_indexes.map(i64::from)),
    ] {
        if let Some(v) = v.filter(|v| *v < 0) {
            bad(path.key(name), format!("the Job's {name} is {v}; it must be zero or more"));
        }
    }
    if spec.max_failed_indexes.is_some() && spec.backoff_limit_per_index.is_none() {
        bad(path.field("maxFailedIndexes"), "`maxFailedIndexes` needs `backoffLimitPerIndex`".to_string());
    }
    let mode = spec.completion_mode.as_deref().unwrap_or("Indexed");
    if mode == "NonIndexed" && spec.backoff_limit_per_index.is_some() {
        bad(path.field("backoffLimitPerIndex"), "`backoffLimitPerIndex` requires `completionMode: Indexed`".to_string());
    }
    let limit = facts().limits.indexed_parallelism;
    if mode == "Indexed" && count.pods > limit {
        bad(
            count.field.clone(),
            format!("the job would run {} pods; an Indexed Job (JobSet's default) allows at most {limit}", count.pods),
        );
    }
    let e = &facts().enums;
    one_of(spec.completion_mode.as_deref(), &e.completion_modes, &path.field("completionMode"), "completionMode", out);
    one_of(
        spec.pod_replacement_policy.as_deref(),
        &e.pod_replacement_policies,
        &path.field("podReplacementPolicy"),
        "podReplacementPolicy",
        out,
    );
    if spec.pod_failure_policy.is_some() && spec.pod_replacement_policy.as_deref().is_some_and(|p| p != "Failed") {
        out.push(finding(
            &K8S_JOB_FIELD,
            Scope::Template,
            path.field("podReplacementPolicy"),
            "with a `podFailurePolicy` the pod replacement policy must be `Failed`",
        ));
    }
    restart_policy(spec, path, out);
}

/// The pod's restart policy: empty (JobSet sets `OnFailure`), `OnFailure` or `Never`; only
/// `Never` with a `podFailurePolicy`.
fn restart_policy(spec: &JobSpec, path: &FieldPath, out: &mut Vec<Diagnostic>) {
    let field = path.field("template").field("spec").field("restartPolicy");
    let allowed = &facts().enums.job_restart_policies;
    let policy = spec.template.spec.as_ref().and_then(|s| s.restart_policy.as_deref()).unwrap_or_default();
    if !policy.is_empty() && !allowed.iter().any(|a| a == policy) {
        let why = if policy == "Always" { "; a Job's pods must end, so `Always` is refused" } else { "" };
        out.push(finding(
            &K8S_RESTART_POLICY,
            Scope::Template,
            field,
            format!("`restartPolicy: {policy}` is not one of {}{why}", listed(allowed)),
        ));
    } else if spec.pod_failure_policy.is_some() && policy != "Never" {
        let shown = if policy.is_empty() { "empty (JobSet sets `OnFailure`)".to_string() } else { format!("`{policy}`") };
        out.push(finding(
            &K8S_RESTART_POLICY,
            Scope::Template,
            field,
            format!("a Job with a `podFailurePolicy` needs `restartPolicy: Never`, and it is {shown}"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(v: serde_json::Value, pods: i64) -> Vec<String> {
        let spec: JobSpec = serde_json::from_value(v).unwrap();
        let mut out = Vec::new();
        job_spec(&spec, &"j".into(), PodCount { pods, field: &"spec.mlPolicy.numNodes".into() }, &mut out);
        out.into_iter().map(|d| format!("{} {}", d.rule.id, d.field.unwrap_or_default())).collect()
    }

    #[test]
    fn legal_jobs_pass() {
        let t = serde_json::json!({"spec": {"containers": [{"name": "node"}]}});
        assert!(check(serde_json::json!({"template": t, "backoffLimit": 0, "activeDeadlineSeconds": 0}), 100000).is_empty());
        let t = serde_json::json!({"spec": {"restartPolicy": "Never", "containers": [{"name": "node"}]}});
        assert!(check(
            serde_json::json!({"template": t, "podFailurePolicy": {"rules": []}, "backoffLimitPerIndex": 1, "maxFailedIndexes": 2}),
            4
        )
        .is_empty());
    }

    #[test]
    fn job_mistakes() {
        let t = serde_json::json!({"spec": {"restartPolicy": "Always", "containers": [{"name": "node"}]}});
        assert_eq!(
            check(serde_json::json!({"template": t, "backoffLimit": -1, "maxFailedIndexes": 1, "completionMode": "indexed"}), 1),
            [
                "k8s/job-field j.backoffLimit",
                "k8s/job-field j.maxFailedIndexes",
                "k8s/enum j.completionMode",
                "k8s/restart-policy j.template.spec.restartPolicy"
            ]
        );
        let t = serde_json::json!({"spec": {"containers": [{"name": "node"}]}});
        assert_eq!(
            check(serde_json::json!({"template": t, "podFailurePolicy": {"rules": []}}), 100001),
            ["k8s/job-field spec.mlPolicy.numNodes", "k8s/restart-policy j.template.spec.restartPolicy"]
        );
    }
}
