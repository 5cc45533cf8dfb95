//! Reading a catalog document into its type: serde's errors become located findings in the
//! user's terms (`catalog/unknown-field`, `catalog/missing-field`, `catalog/invalid-value`,
//! `catalog/wrong-type`).

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::diag::{Diagnostic, ObjectRef};
use crate::read::Document;
use crate::rules::catalog::{CATALOG_INVALID_VALUE, CATALOG_MISSING_FIELD, CATALOG_UNKNOWN_FIELD, CATALOG_WRONG_TYPE};

/// Deserializes a catalog document, or records why not (located in the document).
pub(super) fn typed<T: DeserializeOwned>(doc: &Document, object: &ObjectRef, diags: &mut Vec<Diagnostic>) -> Option<T> {
    match from_value(&doc.value) {
        Ok(t) => Some(t),
        Err(d) => {
            diags.push(doc.locate(d.with_object(object.clone())));
            None
        }
    }
}

/// Deserializes a value; the error has the field path, not yet a place.
pub(super) fn from_value<T: DeserializeOwned>(value: &Value) -> Result<T, Diagnostic> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| shape_error(&e))
}

/// `unknown field `nodeSelectr`, expected one of ...` at `spec.nodeSelectr`.
fn shape_error(e: &serde_path_to_error::Error<serde_json::Error>) -> Diagnostic {
    let path = e.path().to_string();
    let inner = e.inner().to_string();
    let (rule, help) = if inner.starts_with("unknown field") {
        (&CATALOG_UNKNOWN_FIELD, "remove the field or fix its spelling; `jax-runtimes schema` lists every field")
    } else if inner.starts_with("missing field") {
        (&CATALOG_MISSING_FIELD, "add the field; `jax-runtimes schema` lists the required fields")
    } else if inner.starts_with("unknown variant") {
        (&CATALOG_INVALID_VALUE, "use one of the accepted values")
    } else {
        (&CATALOG_WRONG_TYPE, "check the value's type against `jax-runtimes schema`")
    };
    // serde_path_to_error reports `.` for the root and the parent for unknown fields.
    let mut field = if path == "." { String::new() } else { path };
    if let Some(name) = inner.strip_prefix("unknown field `").and_then(|s| s.split('`').next()) {
        let already = field == name || field.ends_with(&format!(".{name}"));
        if !already {
            field = if field.is_empty() { name.to_string() } else { format!("{field}.{name}") };
        }
    }
    let help = if inner.contains("invalid type: boolean") && inner.contains("string") {
        "YAML 1.1 (what kubectl reads) takes y, yes, on, n, no and off for booleans: quote the value, e.g. \"on\""
    } else {
        help
    };
    let d = Diagnostic::new(rule, inner).with_help(help);
    if field.is_empty() {
        d
    } else {
        d.with_field(field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::JaxRuntime;

    fn err(v: Value) -> Diagnostic {
        from_value::<JaxRuntime>(&v).unwrap_err()
    }

    #[test]
    fn serde_errors_become_rules_at_their_field() {
        let base = |spec: Value| serde_json::json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntime", "metadata": {"name": "x"}, "spec": spec});
        let d = err(base(serde_json::json!({"accelerator": {"cpu": {}}, "nodeSelectr": {}})));
        assert_eq!((d.rule.id, d.field.as_deref()), ("catalog/unknown-field", Some("spec.nodeSelectr")));
        let d = err(base(serde_json::json!({})));
        assert_eq!((d.rule.id, d.field.as_deref()), ("catalog/missing-field", Some("spec")));
        let d = err(base(serde_json::json!({"accelerator": {"cpu": {}}, "numNodes": "two"})));
        assert_eq!((d.rule.id, d.field.as_deref()), ("catalog/wrong-type", Some("spec.numNodes")));
        let d = err(base(serde_json::json!({"accelerator": {"cpu": {}}, "image": true})));
        assert!(d.help.as_deref().unwrap().contains("YAML 1.1"), "{d:?}");
    }
}
