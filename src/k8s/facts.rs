//! Kubernetes' tables, loaded once from `catalog/kubernetes.yaml` (embedded in the binary):
//! limits, enums, name patterns, quantity suffixes, resource names and the env field paths the
//! checks in [`super`] use. The unit tests prove the table parses and holds together.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

const KUBERNETES_YAML: &str = include_str!("../../catalog/kubernetes.yaml");

/// Why the table does not load (only a broken build can have this: the table is embedded).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FactsError {
    #[error("catalog/kubernetes.yaml: {0}")]
    Parse(String),
}

/// The whole table.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Facts {
    /// The Kubernetes release the rules are taken from.
    pub release: String,
    pub limits: Limits,
    pub quantity_pattern: String,
    /// Suffix -> power of 2.
    pub binary_suffixes: BTreeMap<String, u32>,
    /// Suffix -> power of 10.
    pub decimal_suffixes: BTreeMap<String, i32>,
    pub patterns: Patterns,
    pub image_reference: ImageReference,
    pub relaxed_env_names_since: String,
    pub resources: Resources,
    pub env: Env,
    pub enums: Enums,
    pub node_selector_operators: BTreeMap<String, Arity>,
    pub label_selector_operators: BTreeMap<String, Arity>,
    pub scheduling: Scheduling,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Limits {
    pub qualified_name: usize,
    pub label_value: usize,
    pub dns_label: usize,
    pub dns_subdomain: usize,
    pub annotations_bytes: usize,
    pub port_name: usize,
    pub port_min: i64,
    pub port_max: i64,
    pub int32_max: i64,
    pub weight_min: i64,
    pub weight_max: i64,
    pub indexed_parallelism: i64,
    pub generated_name_prefix: usize,
    pub generated_name_random: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Patterns {
    pub qualified_name: String,
    pub label_value: String,
    pub dns1123_label: String,
    pub dns1035_label: String,
    pub legacy_env_var_name: String,
    pub config_map_key: String,
}

/// The image references the kubelet can pull (distribution/reference, as the data file cites).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageReference {
    pub reference: String,
    pub tag: String,
    pub identifier: String,
    pub repository_length: usize,
    pub digests: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Resources {
    pub container: Vec<String>,
    pub huge_pages_prefix: String,
    pub native_domain: String,
    pub quota_prefix: String,
    pub qos: Vec<String>,
}

/// What kube-scheduler and pod admission do with a pod's resources and tolerations.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scheduling {
    /// Resources counted in thousandths (`MilliValue`): `cpu`.
    pub milli_resources: Vec<String>,
    pub attachable_volumes_prefix: String,
    /// The allocatable entry that counts pods.
    pub pods_resource: String,
    /// Pod-level `resources` replace the containers' sum for these (and hugepages).
    pub pod_level_resources: Vec<String>,
    /// Taint effects that keep a pod off a node.
    pub filtering_effects: Vec<String>,
    /// The taint the NodeUnschedulable filter checks a cordoned node's pods against.
    pub unschedulable_taint: k8s_openapi::api::core::v1::Taint,
    /// DefaultTolerationSeconds: added to every pod.
    pub admission_tolerations: Vec<k8s_openapi::api::core::v1::Toleration>,
    /// ExtendedResourceToleration: the operator and effect of the toleration added per requested
    /// extended resource.
    pub extended_resource_toleration: k8s_openapi::api::core::v1::Toleration,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Env {
    pub field_paths: Vec<String>,
    pub subscripted_field_paths: Vec<String>,
    pub field_api_version: String,
    pub resource_fields: Vec<String>,
    pub resource_field_prefixes: Vec<String>,
    pub cpu_divisors: Vec<String>,
    pub memory_divisors: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Enums {
    pub toleration_operators: Vec<String>,
    pub taint_effects: Vec<String>,
    pub protocols: Vec<String>,
    pub image_pull_policies: Vec<String>,
    pub termination_message_policies: Vec<String>,
    pub dns_policies: Vec<String>,
    pub preemption_policies: Vec<String>,
    pub fs_group_change_policies: Vec<String>,
    pub job_restart_policies: Vec<String>,
    pub init_container_restart_policies: Vec<String>,
    pub completion_modes: Vec<String>,
    pub pod_replacement_policies: Vec<String>,
}

/// How many values a selector operator takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Arity {
    None,
    One,
    AtLeastOne,
}

impl Arity {
    pub fn accepts(self, n: usize) -> bool {
        match self {
            Arity::None => n == 0,
            Arity::One => n == 1,
            Arity::AtLeastOne => n >= 1,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Arity::None => "no values",
            Arity::One => "exactly one value",
            Arity::AtLeastOne => "at least one value",
        }
    }
}

impl Facts {
    pub fn parse(text: &str) -> Result<Facts, FactsError> {
        let facts: Facts = crate::yaml::from_str(text).map_err(|e| FactsError::Parse(e.message))?;
        if !facts.decimal_suffixes.contains_key("") {
            return Err(FactsError::Parse("decimalSuffixes needs the empty suffix".into()));
        }
        Ok(facts)
    }
}

/// The embedded table, parsed once; the unit tests prove it parses, so this never fails in a
/// built binary.
#[allow(clippy::expect_used, reason = "embedded data, not input; the unit tests prove it parses")]
pub fn facts() -> &'static Facts {
    static FACTS: OnceLock<Facts> = OnceLock::new();
    FACTS.get_or_init(|| Facts::parse(KUBERNETES_YAML).expect("catalog/kubernetes.yaml is valid (unit-tested)"))
}

/// `a`, `b` -> "`a`, `b`", for messages.
pub fn listed(values: &[String]) -> String {
    values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_holds_together() {
        let f = Facts::parse(KUBERNETES_YAML).unwrap();
        assert_eq!(f.limits.annotations_bytes, 256 * 1024);
        assert_eq!(f.limits.label_value, 63);
        assert_eq!(f.limits.int32_max, i64::from(i32::MAX));
        assert!(f.limits.port_min < f.limits.port_max && f.limits.weight_min < f.limits.weight_max);
        // Suffixes: binary ones end in `i`, decimal ones are single letters or empty, none shared.
        assert!(f.binary_suffixes.keys().all(|s| s.len() == 2 && s.ends_with('i')));
        assert!(f.decimal_suffixes.keys().all(|s| s.len() <= 1));
        assert_eq!(f.decimal_suffixes.get("m"), Some(&-3));
        assert_eq!(f.binary_suffixes.get("Gi"), Some(&30));
        // Operators: `In` takes values, `Exists` none, `Gt` exactly one.
        assert_eq!(f.node_selector_operators.get("Gt"), Some(&Arity::One));
        assert!(!f.label_selector_operators.contains_key("Gt"));
        assert!(f.enums.job_restart_policies.iter().all(|p| p != "Always"), "Jobs refuse Always");
        assert!(f.env.field_paths.iter().any(|p| p == "metadata.name"));
        // Every memory divisor is a quantity, as validateContainerResourceDivisor parses them.
        for d in f.env.memory_divisors.iter().chain(&f.env.cpu_divisors) {
            assert!(crate::k8s::quantity::parse(d).is_ok(), "{d}");
        }
    }

    #[test]
    fn a_broken_table_is_an_error_not_a_panic() {
        assert!(Facts::parse("release: 1").is_err());
        assert!(Facts::parse("[").is_err());
    }

    #[test]
    fn arity_counts_values() {
        assert!(Arity::None.accepts(0) && !Arity::None.accepts(1));
        assert!(Arity::One.accepts(1) && !Arity::One.accepts(2));
        assert!(Arity::AtLeastOne.accepts(3) && !Arity::AtLeastOne.accepts(0));
    }
}
