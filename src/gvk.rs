//! `apiVersion` and `kind`: the one place that splits an apiVersion into group and version.

/// An object's group, version and kind, as written (empty where absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gvk<'a> {
    /// Empty for the core group (`apiVersion: v1`).
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
}

impl<'a> Gvk<'a> {
    /// `apps/v1` -> (`apps`, `v1`); `v1` -> (``, `v1`).
    pub fn new(api_version: &'a str, kind: &'a str) -> Gvk<'a> {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        Gvk { group, version, kind }
    }

    /// Of an untyped object (missing or non-string fields read as empty).
    pub fn of(value: &'a serde_json::Value) -> Gvk<'a> {
        let s = |k: &str| value.get(k).and_then(serde_json::Value::as_str).unwrap_or_default();
        Gvk::new(s("apiVersion"), s("kind"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_versions_split_into_group_and_version() {
        assert_eq!(Gvk::new("apps/v1", "Deployment"), Gvk { group: "apps", version: "v1", kind: "Deployment" });
        assert_eq!(Gvk::new("v1", "ConfigMap").group, "");
        assert_eq!(Gvk::of(&serde_json::json!({"kind": 3})), Gvk { group: "", version: "", kind: "" });
    }
}
