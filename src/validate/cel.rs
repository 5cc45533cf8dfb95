//! The Trainer CRDs' `x-kubernetes-validations`, named.
//!
//! A runtime's CEL rules run through kube-cel in both modes: with `--crd` the CRD's own
//! ([`super::crd::Version::check_cel`], rule `cel/rule`), without it the rules of the release's
//! embedded schema ([`super::structure::check_cel`]), where [`judged`] gives the rules the
//! project names (`cel/one-ml-policy`, ...) their ids and messages. TrainJob rules are still the
//! built-in equivalents of [`builtin_trainjob`], gated by release. Transition rules
//! (`self == oldSelf`) need the stored object and are not checked in either mode.

use serde_json::Value;

use crate::diag::{Diagnostic, FieldPath, Rule};
use crate::rules::trainjob::TRAINJOB_STORAGE_URI;
use crate::rules::validate::{
    CEL_CLAIM_NAMESPACE, CEL_ENV_INJECTION_NODE, CEL_NUM_PROC_PER_NODE, CEL_ONE_ML_POLICY, CEL_RULE, CEL_STARTUP_DEPENDS_ON,
};

/// The release's CEL rules that have a rule of their own here, found by their text: the
/// engine's verdict (`cel/rule`) is said with that rule's id and, where [`builtin`] finds the
/// same, its message (which names the policies, the item). Every release's spelling is listed
/// (v2.0.x and v2.1.0 allow `torch` or `mpi`; v2.2.0 on, one of five).
const NAMED: &[(&str, &Rule)] = &[
    ("].filter(x, x).size() <= 1", &CEL_ONE_ML_POLICY),
    ("!(has(self.torch) && has(self.mpi))", &CEL_ONE_ML_POLICY),
    ("!self.exists(c, c == 'node')", &CEL_ENV_INJECTION_NODE),
    ("self.startupPolicy.startupPolicyOrder == 'InOrder'", &CEL_STARTUP_DEPENDS_ON),
    ("t.metadata.namespace", &CEL_CLAIM_NAMESPACE),
];

/// One runtime's CEL findings: `engine`'s (the rules of the release's own schema, evaluated by
/// kube-cel as with `--crd`) decide; a rule listed in [`NAMED`] is reported with its id, and
/// with the finding of [`builtin`] for it where there is one. A builtin finding the release's
/// rules do not make is dropped (the release has no such rule).
pub fn judged(engine: Vec<Diagnostic>, builtin: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    for d in engine {
        let named = (d.rule == &CEL_RULE).then(|| NAMED.iter().find(|(text, _)| d.message.contains(text))).flatten();
        let flux = d.rule == &CEL_RULE && d.field.as_deref() == Some("spec.mlPolicy.flux.numProcPerNode");
        let rule = match (named, flux) {
            (Some((_, r)), _) => *r,
            (None, true) => &CEL_NUM_PROC_PER_NODE,
            (None, false) => {
                out.push(d);
                continue;
            }
        };
        let theirs: Vec<&Diagnostic> = builtin.iter().filter(|b| b.rule == rule).collect();
        if theirs.is_empty() {
            out.push(Diagnostic { rule, severity: rule.severity, ..d });
        } else if !out.iter().any(|o| o.rule == rule) {
            out.extend(theirs.into_iter().cloned());
        }
    }
    out
}

/// Built-in CEL-equivalent findings for one runtime (untyped: they must work on objects the
/// typed model rejects too); [`judged`] keeps those the release's own rules make.
pub fn builtin(rt: &Value, release: &str) -> Vec<Diagnostic> {
    // `envInjection` (and its rule) came in v2.3.0: found by the rule's text in the release's schema.
    let env_injection = super::structure::release_has(release, "!self.exists(c, c == 'node')");
    let mut out = Vec::new();
    if let Some(ml) = rt.pointer("/spec/mlPolicy").and_then(Value::as_object) {
        let set: Vec<&str> = crate::trainer::facts().ml_policies.iter().map(String::as_str).filter(|p| ml.contains_key(*p)).collect();
        if set.len() > 1 {
            out.push(Diagnostic::finding(
                &CEL_ONE_ML_POLICY,
                "spec.mlPolicy",
                format!(
                    "only one ML policy can be configured; found {}",
                    set.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        if let Some(n) = ml.get("flux").and_then(|f| f.get("numProcPerNode")).and_then(Value::as_i64) {
            if n < 1 {
                out.push(Diagnostic::finding(
                    &CEL_NUM_PROC_PER_NODE,
                    "spec.mlPolicy.flux.numProcPerNode",
                    format!("numProcPerNode is {n}; it must be >= 1"),
                ));
            }
        }
        let targets = ml.get("torch").and_then(|t| t.pointer("/envInjection/targets")).and_then(Value::as_array);
        if let Some(targets) = targets.filter(|_| env_injection) {
            for (i, t) in targets.iter().enumerate() {
                if let Some(names) = t.get("containerNames").and_then(Value::as_array) {
                    if names.iter().any(|n| n == "node") {
                        out.push(Diagnostic::finding(
                            &CEL_ENV_INJECTION_NODE,
                            FieldPath::from("spec.mlPolicy.torch.envInjection").field("targets").index(i).field("containerNames"),
                            "containerNames must not include the main `node` container: it always gets the PET_* variables",
                        ));
                    }
                }
            }
        }
    }
    if let Some(js) = rt.pointer("/spec/template/spec") {
        let in_order = js.pointer("/startupPolicy/startupPolicyOrder").and_then(Value::as_str) == Some("InOrder");
        let jobs = js.get("replicatedJobs").and_then(Value::as_array);
        if in_order && jobs.is_some_and(|j| j.iter().any(|j| j.get("dependsOn").is_some())) {
            out.push(Diagnostic::finding(
                &CEL_STARTUP_DEPENDS_ON,
                "spec.template.spec",
                "startupPolicy InOrder and dependsOn are mutually exclusive",
            ));
        }
        if let Some(policies) = js.get("volumeClaimPolicies").and_then(Value::as_array) {
            for (i, p) in policies.iter().enumerate() {
                let templates = p.get("templates").and_then(Value::as_array);
                // cel-go reads `t.metadata` of every template: one without it fails the rule.
                if templates.into_iter().flatten().any(|t| t.is_object() && t.get("metadata").is_none()) {
                    out.push(Diagnostic::finding(
                        &CEL_CLAIM_NAMESPACE,
                        FieldPath::from("spec.template.spec").field("volumeClaimPolicies").index(i),
                        "no such key: metadata",
                    ));
                }
                for (j, t) in templates.into_iter().flatten().enumerate() {
                    if t.pointer("/metadata/namespace").and_then(Value::as_str).is_some_and(|n| !n.is_empty()) {
                        out.push(Diagnostic::finding(
                            &CEL_CLAIM_NAMESPACE,
                            FieldPath::from("spec.template.spec")
                                .field("volumeClaimPolicies")
                                .index(i)
                                .field("templates")
                                .index(j)
                                .field("metadata")
                                .field("namespace"),
                            "namespace cannot be set for volumeClaimPolicies templates",
                        ));
                    }
                }
            }
        }
    }
    out
}

/// The controllers the TrainJob CRD's `spec.managedBy` rule allows: `self in
/// ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']`.
const MANAGED_BY: [&str; 2] = ["trainer.kubeflow.org/trainjob-controller", "kueue.x-k8s.io/multikueue"];

/// Built-in equivalents of the Trainer v2.3 TrainJob CRD's CEL rules (without `--crd`): an
/// initializer's `storageUri` is empty or a URI with a scheme, `self == '' ||
/// self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')` on `spec.initializer.dataset.storageUri` and
/// `spec.initializer.model.storageUri`; `spec.managedBy` is one of [`MANAGED_BY`] (an enum in
/// effect: `schema/enum`).
pub fn builtin_trainjob(tj: &Value, release: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(by) = tj.pointer("/spec/managedBy").and_then(Value::as_str) {
        if !MANAGED_BY.contains(&by) {
            out.push(Diagnostic::finding(
                &crate::rules::validate::SCHEMA_ENUM,
                "spec.managedBy",
                format!("{by:?} is not one of {MANAGED_BY:?}: ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set"),
            ));
        }
    }
    // The storageUri rule is in the CRDs of v2.3.0 on (found by its message in the release's
    // embedded schema), not before: an older release's API server takes any string.
    let uri_rule = super::structure::release_has(release, STORAGE_URI_RULE);
    for which in ["dataset", "model"].into_iter().filter(|_| uri_rule) {
        let Some(uri) = tj.pointer(&format!("/spec/initializer/{which}/storageUri")).and_then(Value::as_str) else { continue };
        if !uri.is_empty() && !is_storage_uri(uri) {
            out.push(Diagnostic::finding(
                &TRAINJOB_STORAGE_URI,
                FieldPath::from("spec.initializer").field(which).field("storageUri"),
                format!("{uri:?} is not a URI `scheme://...`: storageUri may be empty, or it must be a valid URI (scheme://...)"),
            ));
        }
    }
    out
}

/// The message of the TrainJob CRD's storageUri rule: how the embedded schemas say a release has it.
const STORAGE_URI_RULE: &str = "must be a valid URI (scheme://...)";

/// `^[A-Za-z][A-Za-z0-9+.-]*://.+$` (RE2: `.` is any character but a newline, `$` the end).
fn is_storage_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once("://") else { return false };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
        && !rest.is_empty()
        && !rest.contains('\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_storage_uri_is_empty_or_has_a_scheme_as_the_trainjob_crd_says() {
        for ok in ["hf://my-org/data", "s3://bucket/path", "cache://x", "gs+x.y-z://a", "hf://a://b"] {
            assert!(is_storage_uri(ok), "{ok}");
        }
        for bad in ["hf:/my-org/data", "my-org/data", "://x", "1hf://x", "hf://", "h_f://x", "hf://a\nb"] {
            assert!(!is_storage_uri(bad), "{bad}");
        }
        let tj = serde_json::json!({"spec": {"initializer": {"dataset": {"storageUri": "hf:/my-org/data"}, "model": {"storageUri": ""}}}});
        let d = builtin_trainjob(&tj, crate::validate::structure::DEFAULT_RELEASE);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].field.as_deref(), Some("spec.initializer.dataset.storageUri"));
    }
}
