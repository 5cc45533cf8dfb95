//! Object metadata as the API server checks it (kubernetes/apimachinery v0.34.1
//! `pkg/api/validation/objectmeta.go` `ValidateObjectMetaAccessor`, `ValidateAnnotations`,
//! `ValidateAnnotationsSize`, `ValidateFinalizers`; `pkg/apis/meta/v1/validation/validation.go`
//! `ValidateLabels`): names, label keys and values, annotation keys and their total size,
//! finalizers. Findings carry field paths relative to the object the caller checks.

use std::collections::BTreeMap;

use super::facts::facts;
use super::finding::{finding, shown, Scope};
use super::names;
use crate::diag::{Diagnostic, FieldPath};
use crate::rules::kubernetes::{
    K8S_ANNOTATIONS_SIZE, K8S_ANNOTATION_KEY, K8S_FINALIZER, K8S_LABEL_KEY, K8S_LABEL_VALUE, K8S_NAME, K8S_NAMESPACE,
};

/// `metadata.name`: required, a DNS-1123 subdomain (custom resources use `NameIsDNSSubdomain`),
/// unless `metadata.generateName` is set: the API server then generates the name (`BeforeCreate`)
/// and checks the prefix (`ValidateObjectMetaAccessor`: `NameIsDNSSubdomain(generateName, true)`,
/// at `metadata.generateName`, the field beside `field`).
pub fn object_name(name: Option<&str>, generate_name: Option<&str>, field: &FieldPath, out: &mut Vec<Diagnostic>) {
    if let (None | Some(""), Some(prefix)) = (name, generate_name.filter(|g| !g.is_empty())) {
        if let Err(e) = names::generate_name_prefix(prefix) {
            let at = FieldPath::from(String::from(field).replace("metadata.name", "metadata.generateName"));
            out.push(finding(&K8S_NAME, Scope::Object, &at, format!("`generateName: {prefix}` is not a valid name prefix: it {e}")));
        }
        return;
    }
    match name {
        None | Some("") => out.push(finding(&K8S_NAME, Scope::Object, field, "the runtime has neither `name` nor `generateName`")),
        Some(n) => {
            if let Err(e) = names::dns1123_subdomain(n) {
                out.push(finding(&K8S_NAME, Scope::Object, field, format!("`{n}` is not a valid object name: it {e}")));
            }
        }
    }
}

/// An object's own labels, annotations (and their size) and finalizers, at `metadata.*`: what
/// the API server checks of every object's metadata besides its name.
pub fn own_maps(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta, out: &mut Vec<Diagnostic>) {
    if let Some(l) = &m.labels {
        labels(l, &"metadata.labels".into(), Scope::Object, out);
    }
    if let Some(a) = &m.annotations {
        annotations(a, &"metadata.annotations".into(), Scope::Object, out);
    }
    if let Some(f) = &m.finalizers {
        finalizers(f, &"metadata.finalizers".into(), Scope::Object, out);
    }
}

/// A namespace name: a DNS-1123 label (`ValidateNamespaceName`).
pub fn namespace(ns: &str, field: &FieldPath, out: &mut Vec<Diagnostic>) {
    if let Err(e) = names::dns1123_label(ns) {
        out.push(finding(&K8S_NAMESPACE, Scope::Object, field, format!("`{ns}` is not a valid namespace name: it {e}")));
    }
}

/// Label keys (qualified names) and values (`ValidateLabels`); also what `nodeSelector` must be.
pub fn labels<'a>(map: impl IntoIterator<Item = (&'a String, &'a String)>, path: &FieldPath, scope: Scope, out: &mut Vec<Diagnostic>) {
    for (key, value) in map {
        let field = path.key(key);
        if let Err(e) = names::qualified_name(key) {
            out.push(finding(&K8S_LABEL_KEY, scope, field.clone(), format!("`{key}` is not a valid label key: it {e}")));
        }
        if let Err(e) = names::label_value(value) {
            out.push(finding(&K8S_LABEL_VALUE, scope, field, format!("{} is not a valid label value: it {e}", shown(value))));
        }
    }
}

/// Annotation keys (qualified names once lower-cased) and the total size of keys and values.
pub fn annotations(map: &BTreeMap<String, String>, path: &FieldPath, scope: Scope, out: &mut Vec<Diagnostic>) {
    for key in map.keys() {
        if let Err(e) = names::annotation_key(key) {
            out.push(finding(&K8S_ANNOTATION_KEY, scope, path.key(key), format!("`{key}` is not a valid annotation key: it {e}")));
        }
    }
    let total = annotations_size(map);
    let limit = facts().limits.annotations_bytes;
    if total > limit {
        let largest = map.iter().max_by_key(|(k, v)| k.len() + v.len()).map(|(k, v)| (k, k.len() + v.len()));
        let what = largest.map(|(k, n)| format!("; the largest is `{k}` ({})", bytes(n))).unwrap_or_default();
        out.push(finding(
            &K8S_ANNOTATIONS_SIZE,
            scope,
            path,
            format!("the annotations take {} together, over the {} Kubernetes allows{what}", bytes(total), bytes(limit)),
        ));
    }
}

/// Bytes of every annotation's key and value (`ValidateAnnotationsSize` counts Go `len`, UTF-8 bytes).
pub fn annotations_size<'a>(map: impl IntoIterator<Item = (&'a String, &'a String)>) -> usize {
    map.into_iter().map(|(k, v)| k.len() + v.len()).sum()
}

/// Finalizers are qualified names (`ValidateFinalizers`).
pub fn finalizers(list: &[String], path: &FieldPath, scope: Scope, out: &mut Vec<Diagnostic>) {
    for (i, f) in list.iter().enumerate() {
        if let Err(e) = names::qualified_name(f) {
            out.push(finding(&K8S_FINALIZER, scope, path.index(i), format!("`{f}` is not a valid finalizer: it {e}")));
        }
    }
}

/// `262144` -> `256 KiB (262144 bytes)`.
pub fn bytes(n: usize) -> String {
    let (value, unit) = if n >= 1 << 20 { (n as f64 / f64::from(1u32 << 20), "MiB") } else { (n as f64 / 1024.0, "KiB") };
    format!("{} {unit} ({n} bytes)", (value * 10.0).round() / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn rules(out: &[Diagnostic]) -> Vec<(&'static str, String)> {
        out.iter().map(|d| (d.rule.id, d.field.clone().unwrap_or_default())).collect()
    }

    #[test]
    fn the_issues_mistakes_are_found_at_their_fields() {
        let mut out = Vec::new();
        labels(
            &map(&[("team", "ML Platform!"), ("a/b/c", "x"), ("ok", ""), ("app", "a.b_c-d")]),
            &"metadata.labels".into(),
            Scope::Object,
            &mut out,
        );
        annotations(
            &map(&[("bad key", "v"), ("Example.COM/Foo", "any text at all: ok!")]),
            &"metadata.annotations".into(),
            Scope::Object,
            &mut out,
        );
        assert_eq!(
            rules(&out),
            [
                ("k8s/label-key", "metadata.labels.a/b/c".to_string()),
                ("k8s/label-value", "metadata.labels.team".to_string()),
                ("k8s/annotation-key", "metadata.annotations.bad key".to_string()),
            ]
        );
        assert!(out[1].message.contains("\"ML Platform!\" is not a valid label value"), "{}", out[1].message);
    }

    #[test]
    fn annotations_may_take_256_kib_together_and_not_a_byte_more() {
        let limit = 256 * 1024;
        let key = "jax-runtimes.dev/description";
        let mut out = Vec::new();
        annotations(&map(&[(key, &"x".repeat(limit - key.len()))]), &"metadata.annotations".into(), Scope::Object, &mut out);
        assert!(out.is_empty(), "{out:?}");
        annotations(&map(&[(key, &"x".repeat(limit - key.len() + 1))]), &"metadata.annotations".into(), Scope::Object, &mut out);
        assert_eq!(rules(&out), [("k8s/annotations-size", "metadata.annotations".to_string())]);
        assert!(out[0].message.contains("256 KiB (262145 bytes)") || out[0].message.contains("262145 bytes"), "{}", out[0].message);
        assert!(out[0].message.contains(key));
        // Multi-byte characters count as bytes.
        assert_eq!(annotations_size(&map(&[("k", "é")])), 3);
    }

    #[test]
    fn names_and_finalizers() {
        let mut out = Vec::new();
        object_name(Some("jax-tpu.v5e"), None, &"metadata.name".into(), &mut out);
        object_name(Some("0jax"), None, &"metadata.name".into(), &mut out);
        assert!(out.is_empty());
        object_name(Some("JAX_TPU"), None, &"metadata.name".into(), &mut out);
        object_name(None, None, &"metadata.name".into(), &mut out);
        object_name(None, Some("jax-"), &"metadata.name".into(), &mut out);
        object_name(None, Some("Jax_"), &"metadata.name".into(), &mut out);
        namespace("team_a", &"metadata.namespace".into(), &mut out);
        finalizers(&["example.com/ok".into(), "a/b/c".into()], &"metadata.finalizers".into(), Scope::Object, &mut out);
        let ids: Vec<&str> = out.iter().map(|d| d.rule.id).collect();
        assert_eq!(ids, ["k8s/name", "k8s/name", "k8s/name", "k8s/namespace", "k8s/finalizer"]);
        assert_eq!(out[2].field.as_deref(), Some("metadata.generateName"));
        assert_eq!(out[4].field.as_deref(), Some("metadata.finalizers[1]"));
        assert_eq!(bytes(10 << 20), "10 MiB (10485760 bytes)");
    }
}
