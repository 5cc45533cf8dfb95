//! Kueue's facts, loaded once from `catalog/kueue.yaml` (embedded in the binary): the API
//! versions, label and annotation keys, limits, enums and the Topology Aware Scheduling levels per
//! platform. The unit tests prove the table parses and holds together.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

const KUEUE_YAML: &str = include_str!("../../catalog/kueue.yaml");

/// The whole table.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Facts {
    pub group: String,
    pub api_versions: ApiVersions,
    pub labels: Labels,
    pub annotations: Annotations,
    pub hostname_label: String,
    pub limits: Limits,
    pub enums: Enums,
    /// Platform name -> its TAS topology.
    pub topologies: BTreeMap<String, PlatformTopology>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApiVersions {
    pub default: String,
    pub supported: Vec<String>,
    /// apiVersion -> the name of ClusterQueue's cohort field.
    pub cohort_field: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Labels {
    pub queue_name: String,
    pub priority_class: String,
    pub max_exec_time_seconds: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Annotations {
    pub podset_required_topology: String,
    pub podset_preferred_topology: String,
    pub podset_unconstrained_topology: String,
    pub podset_slice_required_topology: String,
    pub podset_slice_size: String,
    pub podset_slice_required_topology_constraints: String,
    pub podset_group_name: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Limits {
    pub flavor_node_labels: usize,
    pub flavor_node_taints: usize,
    pub flavor_tolerations: usize,
    pub resource_groups: usize,
    pub covered_resources_per_group: usize,
    pub flavors_per_group: usize,
    pub total_flavors: usize,
    pub total_covered_resources: usize,
    pub flavor_resource_combinations_per_group: usize,
    pub admission_checks: usize,
    pub topology_levels: usize,
    pub topology_constraint_layers: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Enums {
    pub queueing_strategies: Vec<String>,
    pub reclaim_within_cohort: Vec<String>,
    pub within_cluster_queue: Vec<String>,
    pub borrow_within_cohort: Vec<String>,
    pub flavor_taint_effects: Vec<String>,
    pub fungibility: Vec<String>,
    pub fungibility_preference: Vec<String>,
    pub stop_policies: Vec<String>,
}

/// A platform's TAS topology: the Topology's name and levels (highest first), and the
/// annotation multi-node GPU runtimes get.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlatformTopology {
    pub name: String,
    pub levels: Vec<String>,
    pub multi_node_gpu: Placement,
}

/// A podset's topology request, as the catalog's `topology` field writes it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Placement {
    #[serde(default)]
    pub required: Option<String>,
    #[serde(default)]
    pub preferred: Option<String>,
}

impl Facts {
    pub fn parse(text: &str) -> Result<Facts, String> {
        let f: Facts = crate::yaml::from_str(text).map_err(|e| format!("catalog/kueue.yaml: {}", e.message))?;
        if !f.api_versions.supported.contains(&f.api_versions.default) {
            return Err("catalog/kueue.yaml: apiVersions.default is not supported".into());
        }
        if let Some(v) = f.api_versions.supported.iter().find(|v| !f.api_versions.cohort_field.contains_key(*v)) {
            return Err(format!("catalog/kueue.yaml: apiVersions.cohortField has no entry for {v}"));
        }
        Ok(f)
    }

    /// True for one of the supported apiVersions.
    pub fn supports(&self, api_version: &str) -> bool {
        self.api_versions.supported.iter().any(|v| v == api_version)
    }

    /// The annotations that make a podset's topology request, in the order Kueue lists them.
    pub fn topology_annotations(&self) -> [&str; 7] {
        let a = &self.annotations;
        [
            &a.podset_required_topology,
            &a.podset_preferred_topology,
            &a.podset_unconstrained_topology,
            &a.podset_slice_required_topology,
            &a.podset_slice_size,
            &a.podset_slice_required_topology_constraints,
            &a.podset_group_name,
        ]
    }
}

/// The embedded table, parsed once; the unit tests prove it parses.
#[allow(clippy::expect_used, reason = "embedded data, not input; the unit tests prove it parses")]
pub fn facts() -> &'static Facts {
    static FACTS: OnceLock<Facts> = OnceLock::new();
    FACTS.get_or_init(|| Facts::parse(KUEUE_YAML).expect("catalog/kueue.yaml is valid (unit-tested)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_holds_together() {
        let f = Facts::parse(KUEUE_YAML).unwrap();
        assert_eq!(f.api_versions.default, format!("{}/v1beta2", f.group));
        assert!(f.supports("kueue.x-k8s.io/v1beta1") && !f.supports("kueue.x-k8s.io/v1alpha1"));
        assert_eq!(f.api_versions.cohort_field["kueue.x-k8s.io/v1beta1"], "cohort");
        assert!(f.topology_annotations().iter().all(|k| k.starts_with("kueue.x-k8s.io/podset-")));
        assert!(f.limits.flavors_per_group * 8 >= f.limits.flavor_resource_combinations_per_group);
        for (platform, t) in &f.topologies {
            assert_eq!(t.levels.last(), Some(&f.hostname_label), "{platform}: hostname is the lowest level");
            let p = t.multi_node_gpu.preferred.as_ref().or(t.multi_node_gpu.required.as_ref()).expect("a level");
            assert!(t.levels.contains(p), "{platform}: {p} is one of its levels");
            assert!(t.levels.len() <= f.limits.topology_levels);
        }
    }

    #[test]
    fn a_broken_table_is_an_error() {
        assert!(Facts::parse("group: x").is_err());
    }
}
