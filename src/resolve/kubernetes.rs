//! The catalog's own values checked with Kubernetes' rules ([`crate::k8s`]) before anything is
//! rendered, so that a value that would make an invalid runtime is an error at the catalog's
//! file, line and field, in its terms (`spec.resources.requests.cpu`, not the runtime's path):
//! labels and annotations (and their size, with the description that becomes an annotation),
//! resources, env, node selector, tolerations, service account, image and shared-memory size of a
//! `JaxRuntime` ([`check_entry`]) and of `JaxRuntimeDefaults` ([`check_defaults`]). The validator
//! still checks every generated runtime, which catches what the generator adds.

use std::collections::BTreeMap;

use crate::catalog::{DefaultsSpec, JaxRuntime};
use crate::diag::{Diagnostic, FieldPath};
use crate::k8s::facts::facts;
use crate::k8s::finding::{finding, Scope};
use crate::k8s::{meta, pod, resources, scheduling};
use crate::keys;
use crate::rules::kubernetes::K8S_ANNOTATIONS_SIZE;

/// Findings on one entry's values (errors and warnings; paths relative to the entry).
pub fn check_entry(entry: &JaxRuntime, defaults: &DefaultsSpec) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let m = &entry.metadata;
    let s = &entry.spec;
    meta::labels(&m.labels, &"metadata.labels".into(), Scope::Object, &mut out);
    let keys_only: BTreeMap<String, String> = m.annotations.keys().map(|k| (k.clone(), String::new())).collect();
    for d in annotation_keys(&keys_only, "metadata.annotations") {
        out.push(d);
    }
    annotations_size(entry, defaults, &mut out);
    if let Some(r) = &s.resources {
        resources::requirements(r, &"spec.resources".into(), &mut out);
    }
    pod::env(&s.env, &"spec.env".into(), &mut out);
    scheduling::node_selector(&s.node_selector, &"spec.nodeSelector".into(), &mut out);
    scheduling::tolerations(&s.tolerations, &"spec.tolerations".into(), &mut out);
    if let Some(sa) = s.service_account_name.as_deref() {
        pod::service_account(sa, &"spec.serviceAccountName".into(), &mut out);
    }
    // An empty image is `catalog/image`; here only what Kubernetes adds (surrounding whitespace).
    if let Some(image) = s.image.as_deref().filter(|i| !i.trim().is_empty()) {
        pod::image(Some(image), &"spec.image".into(), &mut out);
    }
    if let Some(size) = s.shared_memory.as_ref().and_then(|m| m.size_limit.as_deref()) {
        resources::quantity_at(size, &"spec.sharedMemory.sizeLimit".into(), &mut out);
    }
    out
}

/// Findings on the defaults' values (paths relative to the `JaxRuntimeDefaults` object).
pub fn check_defaults(d: &DefaultsSpec) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    meta::labels(&d.labels, &"spec.labels".into(), Scope::Object, &mut out);
    out.extend(annotation_keys(&d.annotations, "spec.annotations"));
    pod::env(&d.env, &"spec.env".into(), &mut out);
    scheduling::node_selector(&d.node_selector, &"spec.nodeSelector".into(), &mut out);
    scheduling::tolerations(&d.tolerations, &"spec.tolerations".into(), &mut out);
    for (key, image) in &d.images.0 {
        if !image.trim().is_empty() {
            pod::image(Some(image), &FieldPath::from("spec.images").key(key), &mut out);
        }
    }
    out
}

/// Annotation keys only: the size of all annotations together is [`annotations_size`]'s.
fn annotation_keys(map: &BTreeMap<String, String>, path: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    meta::annotations(map, &path.into(), Scope::Object, &mut out);
    out.retain(|d| d.rule != &K8S_ANNOTATIONS_SIZE);
    out
}

/// What the catalog puts into the runtime's annotations (the defaults', the entry's and the
/// description) must fit in 256 KiB; the few the generator adds are checked on its output.
fn annotations_size(entry: &JaxRuntime, defaults: &DefaultsSpec, out: &mut Vec<Diagnostic>) {
    let mut merged: BTreeMap<&String, &String> =
        defaults.annotations.iter().filter(|(k, _)| !keys::is_orchestrator_annotation(k)).collect();
    merged.extend(entry.metadata.annotations.iter().filter(|(k, _)| !keys::is_orchestrator_annotation(k)));
    let description = entry.spec.description.as_deref().map_or(0, |d| keys::DESCRIPTION.len() + d.len());
    let total = meta::annotations_size(merged) + description;
    let limit = facts().limits.annotations_bytes;
    if total <= limit {
        return;
    }
    let (field, what) = if description * 2 > total {
        (
            "spec.description",
            format!("the description becomes the annotation `{}`, and the runtime's annotations would take", keys::DESCRIPTION),
        )
    } else {
        ("metadata.annotations", "the runtime's annotations would take".to_string())
    };
    out.push(finding(
        &K8S_ANNOTATIONS_SIZE,
        Scope::Object,
        field,
        format!("{what} {} together, over the {} Kubernetes allows", meta::bytes(total), meta::bytes(limit)),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(spec: serde_json::Value, metadata: serde_json::Value) -> JaxRuntime {
        serde_json::from_value(
            serde_json::json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntime", "metadata": metadata, "spec": spec}),
        )
        .unwrap()
    }

    fn found(e: &JaxRuntime) -> Vec<String> {
        check_entry(e, &DefaultsSpec::default()).into_iter().map(|d| format!("{} {}", d.rule.id, d.field.unwrap_or_default())).collect()
    }

    #[test]
    fn catalog_values_are_checked_at_catalog_fields() {
        let e = entry(
            serde_json::json!({"accelerator": {"cpu": {}}, "resources": {"requests": {"cpu": "eight", "memory": "32GB"}},
                "nodeSelector": {"pool": "big pool"}, "tolerations": [{"key": "x", "operator": "Bogus", "effect": "Sometimes"}],
                "serviceAccountName": "my_sa", "image": " jax:1", "env": [{"name": "A=B", "value": "1"}], "sharedMemory": {"sizeLimit": "lots"}}),
            serde_json::json!({"name": "x", "labels": {"team": "ML Platform!", "a/b/c": "x"}, "annotations": {"bad key": "v"}}),
        );
        assert_eq!(
            found(&e),
            [
                "k8s/label-key metadata.labels.a/b/c",
                "k8s/label-value metadata.labels.team",
                "k8s/annotation-key metadata.annotations.bad key",
                "k8s/quantity spec.resources.requests.cpu",
                "k8s/quantity spec.resources.requests.memory",
                "k8s/env-name spec.env[0].name",
                "k8s/label-value spec.nodeSelector.pool",
                "k8s/toleration spec.tolerations[0].operator",
                "k8s/toleration spec.tolerations[0].effect",
                "k8s/service-account-name spec.serviceAccountName",
                "k8s/image spec.image",
                "k8s/quantity spec.sharedMemory.sizeLimit",
            ]
        );
        let msg = check_entry(&e, &DefaultsSpec::default())
            .into_iter()
            .find(|d| d.field.as_deref() == Some("spec.resources.requests.cpu"))
            .unwrap()
            .message;
        assert!(msg.starts_with("\"eight\" is not a Kubernetes quantity (e.g. 8, 500m, 1.5)"), "{msg}");
    }

    #[test]
    fn a_huge_description_is_an_error_at_the_description() {
        let e =
            entry(serde_json::json!({"accelerator": {"cpu": {}}, "description": "x".repeat(10 << 20)}), serde_json::json!({"name": "x"}));
        assert_eq!(found(&e), ["k8s/annotations-size spec.description"]);
        let e =
            entry(serde_json::json!({"accelerator": {"cpu": {}}, "description": "x".repeat(200 << 10)}), serde_json::json!({"name": "x"}));
        assert!(found(&e).is_empty());
    }
}
