//! What identifies an item of a ResourceList: its apiVersion, kind, name, namespace, labels and
//! annotations, as strings.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::diag::ObjectRef;
use crate::gvk::Gvk;

/// What identifies an item, read while locating it: the raw text of its scalars (no type is
/// resolved), strings only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    pub api_version: Option<String>,
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
}

impl Meta {
    /// The identity of a value (its string fields).
    pub fn of(value: &Value) -> Meta {
        let s = |p: &str| value.pointer(p).and_then(Value::as_str).map(str::to_string);
        let map = |p: &str| {
            value
                .pointer(p)
                .and_then(Value::as_object)
                .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
                .unwrap_or_default()
        };
        Meta {
            api_version: s("/apiVersion"),
            kind: s("/kind"),
            name: s("/metadata/name"),
            namespace: s("/metadata/namespace"),
            labels: map("/metadata/labels"),
            annotations: map("/metadata/annotations"),
        }
    }

    pub fn gvk(&self) -> Gvk<'_> {
        Gvk::new(self.api_version.as_deref().unwrap_or_default(), self.kind.as_deref().unwrap_or_default())
    }

    pub fn object_ref(&self) -> ObjectRef {
        ObjectRef {
            api_version: self.api_version.clone().unwrap_or_default(),
            kind: self.kind.clone().unwrap_or_default(),
            name: self.name.clone().unwrap_or_default(),
            namespace: self.namespace.clone(),
        }
    }

    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations.get(key).map(String::as_str)
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels.get(key).map(String::as_str)
    }
}
