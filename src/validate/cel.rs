//! The Trainer v2.3 CRD's `x-kubernetes-validations`, checked without the CRD.
//!
//! With `--crd` the CRD's own rules run through kube-cel ([`super::crd::Version::check_cel`],
//! rule `cel/rule`). Without it, these built-in equivalents of the same rules apply (facts from
//! the Trainer v2.3.0 and JobSet v0.12.0 CRDs, written in Rust, not copied). Transition rules
//! (`self == oldSelf`) need the stored object and are not checked in either mode.

use serde_json::Value;

use crate::diag::{Diagnostic, FieldPath};
use crate::rules::validate::{
    CEL_CLAIM_NAMESPACE, CEL_ENV_INJECTION_NODE, CEL_NUM_PROC_PER_NODE, CEL_ONE_ML_POLICY, CEL_STARTUP_DEPENDS_ON,
};

/// Built-in CEL-equivalent findings for one runtime (untyped: they must work on objects the
/// typed model rejects too).
pub fn builtin(rt: &Value) -> Vec<Diagnostic> {
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
        if let Some(targets) = ml.get("torch").and_then(|t| t.pointer("/envInjection/targets")).and_then(Value::as_array) {
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
                for (j, t) in p.get("templates").and_then(Value::as_array).into_iter().flatten().enumerate() {
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
