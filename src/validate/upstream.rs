//! The CRDs of the projects beside Trainer that jax-runtimes judges or exports, embedded from
//! `catalog/schemas/kueue/v0.19.2.json` and `catalog/schemas/jobset/v0.12.0.json` (descriptions
//! dropped; `UPDATE_SCHEMAS=1 cargo test --test schemas` writes them from the upstream CRDs) ->
//! one [`crd::Crd`] per kind, compiled by [`crd::compile`] on first use, exactly as `validate
//! --crd` compiles a CRD file: the built-in judge and `--crd` are one engine with two sources.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Value};

use super::crd;

/// One embedded project: its name as users say it, its release, its folder under
/// `catalog/schemas/` and the data.
#[derive(Debug)]
pub struct Upstream {
    pub name: &'static str,
    pub release: &'static str,
    pub folder: &'static str,
    data: &'static str,
}

/// Kueue v0.19.2: ResourceFlavor, ClusterQueue, LocalQueue, Topology, WorkloadPriorityClass,
/// AdmissionCheck and Cohort (v1beta1 and v1beta2; not Workload, which the tool only reads).
pub const KUEUE: Upstream =
    Upstream { name: "Kueue", release: "v0.19.2", folder: "kueue", data: include_str!("../../catalog/schemas/kueue/v0.19.2.json") };

/// JobSet v0.12.0 (the release Trainer v2.3.0 builds with): JobSet v1alpha2.
pub const JOBSET: Upstream =
    Upstream { name: "JobSet", release: "v0.12.0", folder: "jobset", data: include_str!("../../catalog/schemas/jobset/v0.12.0.json") };

/// Every embedded project.
pub const ALL: [&Upstream; 2] = [&KUEUE, &JOBSET];

impl Upstream {
    /// The embedded file, parsed once.
    pub fn data(&self) -> &'static Value {
        static KUEUE_DATA: OnceLock<Value> = OnceLock::new();
        static JOBSET_DATA: OnceLock<Value> = OnceLock::new();
        let cell = if self.folder == KUEUE.folder { &KUEUE_DATA } else { &JOBSET_DATA };
        cell.get_or_init(|| serde_json::from_str(self.data).unwrap_or(Value::Null))
    }

    /// The API group of its kinds (`kueue.x-k8s.io`).
    pub fn group(&self) -> &'static str {
        self.data().get("group").and_then(Value::as_str).unwrap_or_default()
    }

    /// The kinds it defines, in the file's order.
    pub fn kinds(&self) -> impl Iterator<Item = &'static str> {
        self.data().get("kinds").and_then(Value::as_object).into_iter().flat_map(|k| k.keys().map(String::as_str))
    }

    /// Where the data comes from, for messages and file headers: `github.com/kubernetes-sigs/kueue
    /// v0.19.2 (commit 8eab6877)`.
    pub fn origin(&self) -> String {
        let source = &self.data()["source"];
        let repo = source["repository"].as_str().unwrap_or("?");
        match source["commit"].as_str() {
            Some(c) => format!("{repo} {} (commit {c})", self.release),
            None => format!("{repo} {}", self.release),
        }
    }

    /// The versions of `kind` the API server serves (`v1beta1`, `v1beta2`).
    pub fn served(&self, kind: &str) -> Vec<&'static str> {
        self.data()
            .pointer(&format!("/kinds/{kind}/versions"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|v| v.get("served").and_then(Value::as_bool) != Some(false))
            .filter_map(|v| v.get("name").and_then(Value::as_str))
            .collect()
    }

    /// The CRD of `kind` as the API server reads one (`apiextensions.k8s.io/v1`), from the data,
    /// with every version, or only `version` (`v1beta2`); `None` for a kind or version the file
    /// does not hold.
    pub fn crd_object(&self, kind: &str, version: Option<&str>) -> Option<Value> {
        let data = self.data();
        let k = data.get("kinds")?.get(kind)?;
        let plural = k.get("plural")?.as_str()?;
        let versions: Vec<Value> = k
            .get("versions")?
            .as_array()?
            .iter()
            .filter(|v| version.is_none_or(|want| v.get("name").and_then(Value::as_str) == Some(want)))
            .map(|v| {
                let schema = v.get("schema").and_then(Value::as_str).and_then(|key| data.get("schemas")?.get(key)).cloned();
                json!({"name": v["name"], "served": v["served"], "storage": v["storage"], "schema": {"openAPIV3Schema": schema}})
            })
            .collect();
        if versions.is_empty() {
            return None;
        }
        Some(json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{plural}.{}", self.group())},
            "spec": {"group": self.group(), "names": {"kind": kind, "plural": plural}, "scope": k["scope"], "versions": versions},
        }))
    }

    /// The compiled CRD of `kind`, every version; `None` for a kind the file does not hold.
    pub fn crd(&self, kind: &str) -> Option<Arc<crd::Crd>> {
        self.compiled(kind, None)
    }

    /// The compiled CRD of `kind` with only the version of `api_version` (what judging one object
    /// needs); `None` for a group, kind or version the file does not hold.
    pub fn version(&self, api_version: &str, kind: &str) -> Option<Arc<crd::Crd>> {
        let (group, version) = api_version.split_once('/')?;
        if group != self.group() {
            return None;
        }
        self.compiled(kind, Some(version))
    }

    /// Built once per (kind, version), on first use, by [`crd::compile`].
    fn compiled(&self, kind: &str, version: Option<&str>) -> Option<Arc<crd::Crd>> {
        type Cache = Mutex<BTreeMap<(&'static str, String, String), Arc<crd::Crd>>>;
        static CACHE: Cache = Mutex::new(BTreeMap::new());
        let key = (self.folder, kind.to_string(), version.unwrap_or("*").to_string());
        if let Some(c) = CACHE.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Some(c);
        }
        let file = format!("catalog/schemas/{}/{}.json", self.folder, self.release);
        let compiled = Arc::new(crd::compile(&self.crd_object(kind, version)?, &file).ok()?);
        if let Ok(mut c) = CACHE.lock() {
            c.entry(key).or_insert_with(|| compiled.clone());
        }
        Some(compiled)
    }
}

/// The embedded project whose group is `api_version`'s, if any.
pub fn of(api_version: &str) -> Option<&'static Upstream> {
    let group = api_version.split_once('/').map_or("", |(g, _)| g);
    ALL.into_iter().find(|u| u.group() == group)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_kind_compiles_every_version() {
        for u in ALL {
            let kinds: Vec<&str> = u.kinds().collect();
            assert!(!kinds.is_empty(), "{}", u.name);
            for kind in kinds {
                let c = u.crd(kind).unwrap_or_else(|| panic!("{} {kind} does not compile", u.name));
                let served: Vec<String> = u.served(kind).iter().map(|v| format!("{}/{v}", u.group())).collect();
                assert_eq!(c.versions.iter().map(|v| v.api_version.clone()).collect::<Vec<_>>(), served, "{} {kind}", u.name);
            }
        }
        assert_eq!(KUEUE.group(), "kueue.x-k8s.io");
        assert_eq!(JOBSET.group(), "jobset.x-k8s.io");
        assert_eq!(of("kueue.x-k8s.io/v1beta2").map(|u| u.name), Some("Kueue"));
        assert_eq!(of("jobset.x-k8s.io/v1alpha2").map(|u| u.name), Some("JobSet"));
        assert!(of("trainer.kubeflow.org/v1alpha1").is_none());
        for kind in crate::kueue::KINDS {
            assert!(KUEUE.crd(kind).is_some(), "every kind the tool judges is embedded: {kind}");
        }
    }
}
