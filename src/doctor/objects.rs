//! What every part of `doctor` reads of the objects it follows.

use serde_json::Value;

use crate::read::Document;

/// The trainer container Trainer's JAX runtimes run (kubeflow/trainer v2.3.0
/// pkg/constants/constants.go `Node`).
pub const NODE_CONTAINER: &str = "node";

/// The object's `kind`.
pub fn kind_of(d: &Document) -> &str {
    d.value.get("kind").and_then(Value::as_str).unwrap_or_default()
}

/// The string at a JSON pointer, empty where there is none.
pub fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or_default()
}
