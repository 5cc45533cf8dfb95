//! The KRM functions wire format: a `config.kubernetes.io/v1` ResourceList (YAML or JSON) in,
//! one out with `results`. Read: the items and the functionConfig; write: the list with every
//! finding as a KRM `Result` (message, severity, resourceRef, field, file, the rule as a tag).
//! Used by the KRM function and by `validate --format kpt`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::diag::{Diagnostic, ObjectRef};
use crate::rules::krm::{KRM_MALFORMED_INPUT, KRM_NOT_A_RESOURCE_LIST};
use crate::yaml::{self, YamlError};

/// The apiVersion written on output ResourceLists.
pub const API_VERSION: &str = "config.kubernetes.io/v1";
pub const KIND: &str = "ResourceList";

/// How the ResourceList came in; it goes out the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
}

/// The parts of a ResourceList a function reads. `results` of the input are dropped: they
/// belong to whichever function ran before.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceList {
    pub items: Vec<Value>,
    pub function_config: Option<Value>,
}

/// Parses a ResourceList. JSON when the first character is `{`, YAML otherwise. Any apiVersion
/// is accepted (kyaml does not check it either); the kind must be `ResourceList` or `List`.
pub fn parse(text: &str) -> Result<(ResourceList, Format), Diagnostic> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let (value, format) = if trimmed.starts_with('{') {
        let v: Value = serde_json::from_str(trimmed).map_err(|e| {
            Diagnostic::new(&KRM_MALFORMED_INPUT, format!("the input is not valid JSON: {e}"))
                .with_help("send a ResourceList as YAML or JSON on standard input")
        })?;
        (v, Format::Json)
    } else {
        let v = yaml::parse_one(trimmed).map_err(|e| {
            let at = e.line.map(|l| format!(" (line {l})")).unwrap_or_default();
            Diagnostic::new(&KRM_MALFORMED_INPUT, format!("the input is not one valid YAML document{at}: {}", e.message))
                .with_help("send one ResourceList (`kind: ResourceList`) on standard input")
        })?;
        (v, Format::Yaml)
    };
    let Value::Object(mut map) = value else {
        return Err(not_a_list("the input is not a mapping"));
    };
    match map.get("kind").and_then(Value::as_str) {
        Some("ResourceList" | "List") => {}
        Some(other) => return Err(not_a_list(&format!("the input has `kind: {other}`"))),
        None => return Err(not_a_list("the input has no `kind`")),
    }
    let items = match map.remove("items") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(
                Diagnostic::new(&KRM_MALFORMED_INPUT, "`items` is not a list").with_help("`items` holds the package's objects as a list")
            )
        }
    };
    let function_config = match map.remove("functionConfig") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v),
    };
    Ok((ResourceList { items, function_config }, format))
}

fn not_a_list(what: &str) -> Diagnostic {
    Diagnostic::new(&KRM_NOT_A_RESOURCE_LIST, format!("{what}; expected `kind: ResourceList`"))
        .with_help("run jax-runtimes without arguments only as a KRM function (kpt, kustomize); use `jax-runtimes --help` for the CLI")
}

/// The output ResourceList, as it is serialized.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Output<'a> {
    api_version: &'static str,
    kind: &'static str,
    items: &'a [Value],
    /// Echoed so that the output, fed back in, is a complete input (idempotence).
    #[serde(skip_serializing_if = "Option::is_none")]
    function_config: Option<&'a Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    results: Vec<KrmResult>,
}

/// Serializes the output ResourceList in `format`, ending in a newline.
pub fn write(list: &ResourceList, diagnostics: &[Diagnostic], format: Format) -> Result<String, YamlError> {
    let out = Output {
        api_version: API_VERSION,
        kind: KIND,
        items: &list.items,
        function_config: list.function_config.as_ref(),
        results: diagnostics.iter().map(KrmResult::from).collect(),
    };
    match format {
        Format::Yaml => yaml::to_string(&out),
        Format::Json => serde_json::to_string_pretty(&out).map(|s| s + "\n").map_err(|e| YamlError::new(e.to_string())),
    }
}

/// A KRM function `Result` (the KRM functions specification, v1).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KrmResult {
    pub message: String,
    pub severity: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_ref: Option<ObjectRef>,
    /// Only with a resourceRef, as the specification requires.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<FieldRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<FileRef>,
    pub tags: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldRef {
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileRef {
    pub path: String,
    pub index: usize,
}

impl From<&Diagnostic> for KrmResult {
    /// The message carries the help; a field without a resourceRef is folded into the message;
    /// synthetic source names (`<stdin>`, `<items[3]>`) are not files.
    fn from(d: &Diagnostic) -> KrmResult {
        let mut message = d.message.clone();
        if d.object.is_none() {
            if let Some(field) = &d.field {
                message = format!("`{field}`: {message}");
            }
        }
        if let Some(help) = &d.help {
            message = format!("{message} (help: {help})");
        }
        KrmResult {
            message,
            severity: d.severity.to_string(),
            resource_ref: d.object.clone(),
            field: d.object.as_ref().and(d.field.clone()).map(|path| FieldRef { path }),
            file: d.file.as_deref().filter(|f| !f.starts_with('<')).map(|f| FileRef { path: f.to_string(), index: d.index.unwrap_or(0) }),
            tags: BTreeMap::from([("rule".to_string(), d.rule.id.to_string())]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::krm::KRM_FUNCTION_CONFIG;
    use serde_json::json;

    #[test]
    fn results_follow_the_krm_schema() {
        let d = Diagnostic::new(&KRM_FUNCTION_CONFIG, "m").with_field("spec.x").with_help("h");
        assert_eq!(
            serde_json::to_value(KrmResult::from(&d)).unwrap(),
            json!({"message": "`spec.x`: m (help: h)", "severity": "error", "tags": {"rule": "krm/function-config"}})
        );
        let d = Diagnostic::new(&KRM_FUNCTION_CONFIG, "m")
            .with_severity(crate::diag::Severity::Warning)
            .with_object(ObjectRef { api_version: "a/v1".into(), kind: "K".into(), name: "n".into(), namespace: Some("ns".into()) })
            .with_field("spec.x")
            .with_file("dir/f.yaml", Some(2), Some(7));
        assert_eq!(
            serde_json::to_value(KrmResult::from(&d)).unwrap(),
            json!({"message": "m", "severity": "warning",
                "resourceRef": {"apiVersion": "a/v1", "kind": "K", "name": "n", "namespace": "ns"},
                "field": {"path": "spec.x"}, "file": {"path": "dir/f.yaml", "index": 2}, "tags": {"rule": "krm/function-config"}})
        );
        let d = Diagnostic::new(&KRM_FUNCTION_CONFIG, "m").with_file("<functionConfig>", None, None);
        assert!(serde_json::to_value(KrmResult::from(&d)).unwrap().get("file").is_none());
    }

    #[test]
    fn input_that_is_not_a_resource_list_is_refused() {
        for bad in ["apiVersion: v1\nkind: ConfigMap\n", "[1, 2]", "items: [\n", "{\"kind\": \"ResourceList\", \"items\": 3}"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let (list, format) = parse("apiVersion: v1\nkind: List\n").unwrap();
        assert!(list.items.is_empty() && format == Format::Yaml);
    }
}
