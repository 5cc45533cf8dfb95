//! The kpt and kustomize annotation rules the function keeps: which items are ours, where an
//! item lives (its file and index), what a replaced runtime inherits, and what never reaches the
//! pipeline.

use serde_json::{Map, Value};

use crate::diag::{Diagnostic, ObjectRef};
use crate::gvk::Gvk;
use crate::keys::{self, INDEX, LEGACY_INDEX, LEGACY_PATH, LOCAL_CONFIG, MANAGED_BY, MANAGED_BY_VALUE, PATH, SOURCE};
use crate::rules::krm::KRM_LOCAL_CONFIG;

/// (group, kind, namespace, name): what makes two objects the same object.
pub type Key = (String, String, String, String);

pub fn key(v: &Value) -> Key {
    let s = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or_default().to_string();
    let gvk = Gvk::of(v);
    (gvk.group.to_string(), gvk.kind.to_string(), s("/metadata/namespace"), s("/metadata/name"))
}

pub fn annotations(v: &Value) -> Option<&Map<String, Value>> {
    v.pointer("/metadata/annotations").and_then(Value::as_object)
}

pub fn annotation<'a>(v: &'a Value, name: &str) -> Option<&'a str> {
    annotations(v).and_then(|a| a.get(name)).and_then(Value::as_str)
}

fn annotations_mut(v: &mut Value) -> Option<&mut Map<String, Value>> {
    let metadata = v.as_object_mut()?.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    let metadata = metadata.as_object_mut()?;
    metadata.entry("annotations").or_insert_with(|| Value::Object(Map::new())).as_object_mut()
}

/// True for a runtime this function generated: both marks present.
pub fn is_owned(v: &Value) -> bool {
    v.pointer("/metadata/labels").and_then(|l| l.get(MANAGED_BY)).and_then(Value::as_str) == Some(MANAGED_BY_VALUE)
        && annotation(v, SOURCE).is_some()
}

/// The item's file and index as the orchestrator gave them (new key first, then legacy).
pub fn file_of(v: &Value) -> (Option<String>, Option<usize>) {
    let path = annotation(v, PATH).or_else(|| annotation(v, LEGACY_PATH)).map(str::to_string);
    let index = annotation(v, INDEX).or_else(|| annotation(v, LEGACY_INDEX)).and_then(|i| i.parse().ok());
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

/// A replaced runtime keeps the file, index and ids kpt gave it, so it stays in its file and
/// kpt can restore its comments.
pub fn carry_orchestrator_annotations(from: &Value, to: &mut Value) {
    let Some(old) = annotations(from) else { return };
    let carried: Vec<(String, Value)> =
        old.iter().filter(|(k, _)| keys::is_orchestrator_annotation(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
    if carried.is_empty() {
        return;
    }
    if let Some(new) = annotations_mut(to) {
        for (k, v) in carried {
            new.insert(k, v);
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

/// Catalog objects must stay client-side: kpt keeps their files, kustomize drops them from its
/// output, `kpt live apply` skips them. A value other than "true" is the user's choice: warn.
pub fn mark_local_config(item: &mut Value, diagnostics: &mut Vec<Diagnostic>) {
    match annotation(item, LOCAL_CONFIG) {
        Some("true") => {}
        Some(other) => {
            let (path, index) = file_of(item);
            let mut d = Diagnostic::new(
                &KRM_LOCAL_CONFIG,
                format!("`{LOCAL_CONFIG}` is \"{other}\"; catalog objects are not Kubernetes objects and should not be applied"),
            )
            .with_object(ObjectRef::of(item))
            .with_field(format!("metadata.annotations.{LOCAL_CONFIG}"))
            .with_help("set it to \"true\"");
            if let Some(p) = path {
                d = d.with_file(p, index, None);
            }
            diagnostics.push(d);
        }
        None => {
            if let Some(a) = annotations_mut(item) {
                a.insert(LOCAL_CONFIG.into(), Value::String("true".into()));
            }
        }
    }
}
