//! Findings as KRM function `Result`s (the KRM functions specification, v1): message (with the
//! help), severity, resourceRef, field (only with a resourceRef), file, and the rule as a tag.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diag::{Diagnostic, ObjectRef};

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
}
