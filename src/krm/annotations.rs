//! The kpt and kustomize annotation rules the function keeps: which items are ours, where an
//! item lives (its file and index), what a replaced runtime inherits, what never reaches the
//! pipeline, and the `local-config` mark catalog objects should carry.

use serde_json::{Map, Value};

use crate::diag::Diagnostic;
use crate::keys::{self, INDEX, LEGACY_INDEX, LEGACY_PATH, LOCAL_CONFIG, MANAGED_BY, PATH, SOURCE};
use crate::resource_list::Meta;
use crate::rules::krm::KRM_LOCAL_CONFIG;

/// (group, kind, namespace, name): what makes two objects the same object.
pub type Key = (String, String, String, String);

pub fn key(meta: &Meta) -> Key {
    let gvk = meta.gvk();
    (gvk.group.to_string(), gvk.kind.to_string(), meta.namespace.clone().unwrap_or_default(), meta.name.clone().unwrap_or_default())
}

/// True for a runtime this function generated: both marks present (the one notion of
/// "generated", shared with `render -o`: [`crate::write::owned`]).
pub fn is_owned(meta: &Meta) -> bool {
    crate::write::owned::is_marked(meta.label(MANAGED_BY), meta.annotation(SOURCE))
}

/// The item's file and index as the orchestrator gave them (new key first, then legacy).
pub fn file_of(meta: &Meta) -> (Option<String>, Option<usize>) {
    let path = meta.annotation(PATH).or_else(|| meta.annotation(LEGACY_PATH)).map(str::to_string);
    let index = meta.annotation(INDEX).or_else(|| meta.annotation(LEGACY_INDEX)).and_then(|i| i.trim_matches(['\'', '"']).parse().ok());
    (path, index)
}

/// kpt's stand-in when `kpt fn eval` gets no config: a ConfigMap `function-input` without data.
pub fn is_empty_placeholder(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str) == Some("ConfigMap")
        && v.pointer("/metadata/name").and_then(Value::as_str) == Some("function-input")
        && v.get("data").is_none_or(|d| d.as_object().is_none_or(Map::is_empty) && !d.is_string())
}

/// The object as the CLI would read it from its file: orchestrator annotations gone.
pub fn pipeline_copy(v: &Value) -> Value {
    let mut copy = v.clone();
    strip_orchestrator_annotations(&mut copy);
    copy
}

pub fn strip_orchestrator_annotations(v: &mut Value) {
    let Some(metadata) = v.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    let Some(annotations) = metadata.get_mut("annotations").and_then(Value::as_object_mut) else { return };
    annotations.retain(|k, _| !keys::is_orchestrator_annotation(k));
    if annotations.is_empty() {
        metadata.remove("annotations");
    }
}

fn annotations_mut(v: &mut Value) -> Option<&mut Map<String, Value>> {
    let metadata = v.as_object_mut()?.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    let metadata = metadata.as_object_mut()?;
    metadata.entry("annotations").or_insert_with(|| Value::Object(Map::new())).as_object_mut()
}

/// A replaced runtime keeps the file, index and ids kpt gave it, so it stays in its file and
/// kpt can restore its comments.
pub fn carry_orchestrator_annotations(from: &Meta, to: &mut Value) {
    let carried: Vec<(&String, &String)> = from.annotations.iter().filter(|(k, _)| keys::is_orchestrator_annotation(k)).collect();
    if carried.is_empty() {
        return;
    }
    if let Some(new) = annotations_mut(to) {
        for (k, v) in carried {
            new.insert(k.clone(), Value::String(v.clone()));
        }
    }
}

/// Puts a new object in `path`, document 0 (both the current and the legacy annotations).
pub fn set_file(v: &mut Value, path: &str) {
    if let Some(a) = annotations_mut(v) {
        a.insert(LEGACY_PATH.into(), Value::String(path.into()));
        a.insert(LEGACY_INDEX.into(), Value::String("0".into()));
        a.insert(PATH.into(), Value::String(path.into()));
        a.insert(INDEX.into(), Value::String("0".into()));
    }
}

/// Marks a generated object as local config (`config.kubernetes.io/local-config: "true"`): a
/// fleet's kustomizations are for kustomize, not for the cluster.
pub fn set_local_config(v: &mut Value) {
    if let Some(a) = annotations_mut(v) {
        a.insert(LOCAL_CONFIG.into(), Value::String("true".into()));
    }
}

/// Catalog objects must stay client-side: kpt keeps their files, kustomize drops them from its
/// output, `kpt live apply` skips them. The function never edits a file it did not generate, so
/// a catalog object without `local-config: "true"` gets a warning that says how to mark it.
pub fn local_config_warning(meta: &Meta) -> Option<Diagnostic> {
    let value = meta.annotation(LOCAL_CONFIG).map(|v| v.trim_matches(['\'', '"']));
    if value == Some("true") {
        return None;
    }
    let found = match value {
        Some(other) => format!("`{LOCAL_CONFIG}` is \"{other}\""),
        None => format!("no `{LOCAL_CONFIG}` annotation"),
    };
    let (path, index) = file_of(meta);
    let d = Diagnostic::new(
        &KRM_LOCAL_CONFIG,
        format!("{found}: catalog objects are not Kubernetes objects, and `kpt live apply` would try to apply this one"),
    )
    .with_object(meta.object_ref())
    .with_field(format!("metadata.annotations.{LOCAL_CONFIG}"))
    .with_help(format!("add `{LOCAL_CONFIG}: \"true\"` to its metadata.annotations (the function does not edit your files)"));
    Some(match path {
        Some(p) => d.with_file(p, index, None),
        None => d,
    })
}
