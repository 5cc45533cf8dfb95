//! Reading a catalog document into its type. Every unknown field, at any depth (inside the
//! Kubernetes types too), is found with the catalog's schema ([`crate::catalog::schema`]) and
//! named with the nearest known field; then serde's first error on the rest becomes a located
//! finding in the user's terms (`catalog/missing-field`, `catalog/invalid-value`,
//! `catalog/wrong-type`).

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::catalog::schema::{self, Unknown};
use crate::catalog::Kind;
use crate::diag::{Diagnostic, ObjectRef};
use crate::read::Document;
use crate::rules::catalog::{CATALOG_INVALID_VALUE, CATALOG_MISSING_FIELD, CATALOG_UNKNOWN_FIELD, CATALOG_WRONG_TYPE};

/// Deserializes a catalog document, or records every reason why not (located in the document).
pub(super) fn typed<T: DeserializeOwned>(doc: &Document, kind: Kind, object: &ObjectRef, diags: &mut Vec<Diagnostic>) -> Option<T> {
    match read(kind, &doc.value) {
        Ok(t) => Some(t),
        Err(errors) => {
            diags.extend(errors.into_iter().map(|d| doc.locate(d.with_object(object.clone()))));
            None
        }
    }
}

/// Reads a catalog object of `kind`: every field its schema does not have, then the first shape
/// error of what is left. The errors have field paths, not yet a place.
pub(super) fn read<T: DeserializeOwned>(kind: Kind, value: &Value) -> Result<T, Vec<Diagnostic>> {
    let unknown = schema::unknown_fields(kind, value);
    if unknown.is_empty() {
        return from_value(value).map_err(|d| vec![d]);
    }
    let mut errors: Vec<Diagnostic> = unknown.iter().map(unknown_field).collect();
    if let Err(d) = from_value::<T>(&schema::without(value, &unknown)) {
        errors.push(d);
    }
    Err(errors)
}

/// `unknown field `valu`; did you mean `value`?` at the field.
fn unknown_field(u: &Unknown) -> Diagnostic {
    Diagnostic::new(&CATALOG_UNKNOWN_FIELD, u.message())
        .with_field(u.field.clone())
        .with_help("remove the field or fix its spelling; `jax-runtimes schema` lists every field")
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
        "YAML 1.1 (what kubectl reads) takes y, yes, on, n, no and off for booleans: quote the value, e.g. \"on\"".to_string()
    } else {
        help.to_string()
    };
    let mut message = crate::words::serde_message(&inner);
    if let Some(quoted) = number_for_string(&inner, &field) {
        message = format!("{message}; quote it: {quoted}");
    }
    let d = Diagnostic::new(rule, message).with_help(help);
    if field.is_empty() {
        d
    } else {
        d.with_field(field)
    }
}

/// A number where a string belongs (`trainer: 2.3`, `image: 1`), as the string it should be:
/// `"2.3"`, or for a Trainer release, the release's name (`"v2.3"`).
fn number_for_string(inner: &str, field: &str) -> Option<String> {
    let rest = inner.strip_prefix("invalid type: ")?;
    let (found, expected) = rest.rsplit_once(", expected ")?;
    if !matches!(expected, "a string" | "string" | "a borrowed string") {
        return None;
    }
    let number = ["floating point `", "integer `"].iter().find_map(|p| found.strip_prefix(p))?.trim_end_matches('`');
    let is_trainer = field == "spec.trainer" || field.ends_with(".spec.trainer");
    let release = format!("v{number}");
    if is_trainer && crate::catalog::trainer_releases().contains(&release.as_str()) {
        return Some(format!("\"{release}\""));
    }
    Some(format!("\"{number}\""))
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
        let errs = read::<JaxRuntime>(
            Kind::Runtime,
            &base(serde_json::json!({"accelerator": {"cpu": {}}, "nodeSelectr": {}, "numNodes": "two", "imag": "x"})),
        )
        .unwrap_err();
        let found: Vec<(&str, Option<&str>, &str)> = errs.iter().map(|d| (d.rule.id, d.field.as_deref(), d.message.as_str())).collect();
        assert_eq!(
            found,
            [
                ("catalog/unknown-field", Some("spec.nodeSelectr"), "unknown field `nodeSelectr`; did you mean `nodeSelector`?"),
                ("catalog/unknown-field", Some("spec.imag"), "unknown field `imag`; did you mean `image`?"),
                (
                    "catalog/wrong-type",
                    Some("spec.numNodes"),
                    "expected a whole number from -2147483648 to 2147483647, found the string \"two\""
                ),
            ],
            "every unknown field, then the first type error of the rest"
        );
        let d = err(base(serde_json::json!({"accelerator": {"cpu": {}}, "trainer": 2.3})));
        assert_eq!(d.message, "expected a string, found the number 2.3; quote it: \"v2.3\"");
        let d = err(base(serde_json::json!({"accelerator": {"cpu": {}}, "image": 7})));
        assert_eq!(d.message, "expected a string, found the number 7; quote it: \"7\"");
        let d = err(base(serde_json::json!({})));
        assert_eq!((d.rule.id, d.field.as_deref()), ("catalog/missing-field", Some("spec")));
        let d = err(base(serde_json::json!({"accelerator": {"cpu": {}}, "numNodes": "two"})));
        assert_eq!((d.rule.id, d.field.as_deref()), ("catalog/wrong-type", Some("spec.numNodes")));
        let d = err(base(serde_json::json!({"accelerator": {"cpu": {}}, "image": true})));
        assert!(d.help.as_deref().unwrap().contains("YAML 1.1"), "{d:?}");
    }

    #[test]
    fn serde_type_names_become_the_users_words() {
        let base = |spec: Value| serde_json::json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntime", "metadata": {"name": "x"}, "spec": spec});
        let msg = |spec: Value| err(base(spec)).message;
        let gpu = |count: Value| msg(serde_json::json!({"accelerator": {"gpu": {"model": "h100-80gb", "count": count}}}));
        assert_eq!(gpu(serde_json::json!("three")), "expected a whole number from 0 to 4294967295, found the string \"three\"");
        assert_eq!(gpu(serde_json::json!(-1)), "expected a whole number from 0 to 4294967295, found the number -1");
        assert_eq!(gpu(serde_json::json!(1.5)), "expected a whole number from 0 to 4294967295, found the number 1.5");
        assert_eq!(gpu(serde_json::json!([1])), "expected a whole number from 0 to 4294967295, found a list");
        assert_eq!(
            msg(serde_json::json!({"accelerator": {"cpu": {}}, "numNodes": "two"})),
            "expected a whole number from -2147483648 to 2147483647, found the string \"two\""
        );
        assert_eq!(msg(serde_json::json!({"accelerator": {"cpu": {}}, "env": {"A": "b"}})), "expected a list, found a mapping");
        assert_eq!(msg(serde_json::json!({"accelerator": {"cpu": {}}, "image": ["a"]})), "expected a string, found a list");
        assert_eq!(
            msg(serde_json::json!({"accelerator": {"cpu": {}}, "hostNetwork": "yes"})),
            "expected `true` or `false`, found the string \"yes\""
        );
        assert_eq!(msg(serde_json::json!({"accelerator": "tpu"})), "expected a mapping (`key: value` pairs), found the string \"tpu\"");
        // Not a Rust type name in sight, whatever the field.
        for spec in [
            serde_json::json!({"accelerator": {"cpu": {}}, "tolerations": 3}),
            serde_json::json!({"accelerator": {"cpu": {}}, "resources": {"limits": {"cpu": [1]}}}),
            serde_json::json!({"accelerator": {"cpu": {}}, "env": [{"name": 1}]}),
            serde_json::json!({"accelerator": {"cpu": {}}, "sharedMemory": {"enabled": "on"}}),
            serde_json::json!({"accelerator": {"tpu": {"type": "v5e", "topology": "2x2", "chipsPerHost": "four"}}}),
            serde_json::json!({"accelerator": {"cpu": {}}, "nodeSelector": {"a": 1}}),
        ] {
            let m = msg(spec.clone());
            for word in ["i32", "u32", "u64", "i64", "struct ", "a sequence", "a map", "Option", "IntOrString", "Vec<", "Quantity"] {
                assert!(!m.contains(word), "{spec}: {m}");
            }
        }
    }
}
