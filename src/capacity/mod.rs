//! Capacity as it is bought (`catalog/capacity.yaml`, embedded): the kinds a runtime's
//! `spec.capacity` names (a ComputeClass, Spot VMs, flex-start, a reservation, on-demand, GKE
//! Autopilot), per platform the node labels a pod selects and the tolerations for the taints those
//! nodes carry, which kinds exclude each other, and what GKE Autopilot refuses ([`Autopilot`]).
//! Resolve renders a runtime's choice ([`Choice`]), the validator checks hand-written runtimes with
//! the Autopilot rules, `fit` names the capacity a selector asks for ([`words_of`]) and reads the
//! cluster's ComputeClasses ([`compute_class`]), and the queues make one flavor per choice. Nothing
//! else keeps a copy of the data.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use k8s_openapi::api::core::v1::{Taint, Toleration};
use serde::Deserialize;

use crate::accelerators::nodes::Presence;

pub mod compute_class;
pub mod taints;

const CAPACITY_YAML: &str = include_str!("../../catalog/capacity.yaml");

/// The table.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CapacityData {
    pub kinds: Vec<CapacityKind>,
    pub conflicts: Vec<Conflict>,
    pub autopilot: Autopilot,
}

/// What a kind's value is: `true`/`false`, or a name (the class or the reservation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Takes {
    Flag,
    Name,
}

/// One capacity kind.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CapacityKind {
    /// The key in `spec.capacity`.
    pub name: String,
    pub takes: Takes,
    /// The kind in words, `{name}` standing for its value: `ComputeClass {name}`, `Spot VMs`.
    pub words: String,
    /// The suffix of a Kueue flavor of this kind (`{name}` its value).
    pub flavor: String,
    pub description: String,
    /// TPU slices of one host only.
    #[serde(default)]
    pub single_host_tpu_only: bool,
    /// A mode of the platform (GKE Autopilot), not a kind of node.
    #[serde(default)]
    pub mode: bool,
    /// Platform name -> how its pods select and tolerate the kind.
    pub platforms: BTreeMap<String, OnPlatform>,
}

/// How a kind is selected on one platform.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OnPlatform {
    #[serde(default)]
    pub node_selector: BTreeMap<String, String>,
    #[serde(default)]
    pub tolerations: Vec<Toleration>,
    /// The taints the kind's nodes carry.
    #[serde(default)]
    pub node_taints: Vec<NodeTaint>,
    /// Node selector keys a pod of this kind must not select: the kind decides them (GKE rejects a
    /// pod that selects a ComputeClass and `node.kubernetes.io/instance-type`).
    #[serde(default)]
    pub replaces: Vec<String>,
}

/// A taint of the data (`value` may hold `{name}`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeTaint {
    pub key: String,
    #[serde(default)]
    pub value: Option<String>,
    pub effect: String,
    /// Whether every node of the kind carries it, or every node the platform provisions.
    pub presence: Presence,
    /// The modes (kinds with `mode: true`, GKE Autopilot) in which the platform adds the
    /// toleration to the pods itself.
    #[serde(default)]
    pub tolerated_in: Vec<String>,
}

/// Two (or more) kinds that cannot be combined, and why.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Conflict {
    pub kinds: Vec<String>,
    pub why: String,
}

/// What GKE Autopilot requires and refuses of pods.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Autopilot {
    pub platform: String,
    /// ComputeClasses only Autopilot runs.
    pub compute_classes: Vec<String>,
    pub refused_selectors: Vec<String>,
    pub host_path_prefixes: Vec<String>,
    pub capabilities: Vec<String>,
    /// Fabric names of `fabrics.yaml` Autopilot offers.
    pub fabrics: Vec<String>,
    pub accelerators: Vec<AutopilotAccelerator>,
}

/// How Autopilot selects one accelerator.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AutopilotAccelerator {
    pub resource: String,
    /// A pod requesting `resource` selects one of these keys.
    pub selectors: Vec<String>,
    /// Toleration keys that only a pod requesting `resource` may carry.
    pub tolerations: Vec<String>,
}

/// The embedded table, parsed once. It is part of the binary, not input: the unit tests below
/// prove it parses and holds together, so this never fails in a built binary.
#[allow(clippy::expect_used, reason = "embedded data, not input; the unit tests prove it parses")]
pub fn data() -> &'static CapacityData {
    static DATA: OnceLock<CapacityData> = OnceLock::new();
    DATA.get_or_init(|| crate::yaml::from_str(CAPACITY_YAML).expect("the embedded capacity data is valid (unit-tested)"))
}

impl CapacityData {
    pub fn kind(&self, name: &str) -> Option<&CapacityKind> {
        self.kinds.iter().find(|k| k.name == name)
    }

    /// Why these two kinds cannot be combined, if they cannot.
    pub fn conflict(&self, a: &str, b: &str) -> Option<&Conflict> {
        self.conflicts.iter().find(|c| c.kinds.iter().any(|k| k == a) && c.kinds.iter().any(|k| k == b) && a != b)
    }

    /// The kind names, in the table's order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.kinds.iter().map(|k| k.name.as_str())
    }
}

impl CapacityKind {
    /// How the platform selects the kind; `None` where it does not offer it.
    pub fn on(&self, platform: &str) -> Option<&OnPlatform> {
        self.platforms.get(platform)
    }

    /// The platforms that offer it, in the table's order of platforms.yaml.
    pub fn offered_on(&self) -> Vec<&str> {
        self.platforms.keys().map(String::as_str).collect()
    }
}

/// One chosen kind and its value (the name, for a kind that takes one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub kind: String,
    pub name: Option<String>,
}

impl Choice {
    pub fn flag(kind: &str) -> Choice {
        Choice { kind: kind.to_string(), name: None }
    }

    pub fn named(kind: &str, name: &str) -> Choice {
        Choice { kind: kind.to_string(), name: Some(name.to_string()) }
    }

    /// Its kind in the data (a choice is only made of a kind the data has).
    pub fn data(&self) -> Option<&'static CapacityKind> {
        data().kind(&self.kind)
    }

    fn fill(&self, s: &str) -> String {
        s.replace("{name}", self.name.as_deref().unwrap_or_default())
    }

    /// In words: `ComputeClass tpu-multihost-v5-8`, `Spot VMs`.
    pub fn words(&self) -> String {
        self.data().map(|k| self.fill(&k.words)).unwrap_or_else(|| self.kind.clone())
    }

    /// As the `jax-runtimes.dev/capacity` annotation writes it: `spot`, `computeClass=NAME`.
    pub fn token(&self) -> String {
        match &self.name {
            Some(n) => format!("{}={n}", self.kind),
            None => self.kind.clone(),
        }
    }

    /// The suffix of its Kueue flavor: `spot`, `reservation-r1`.
    pub fn flavor(&self) -> String {
        self.data().map(|k| self.fill(&k.flavor)).unwrap_or_else(|| self.kind.clone())
    }

    /// The node labels its pods select on `platform`.
    pub fn node_selector(&self, platform: &str) -> BTreeMap<String, String> {
        let Some(on) = self.data().and_then(|k| k.on(platform)) else { return BTreeMap::new() };
        on.node_selector.iter().map(|(k, v)| (k.clone(), self.fill(v))).collect()
    }

    /// The tolerations its pods need on `platform`.
    pub fn tolerations(&self, platform: &str) -> Vec<Toleration> {
        let Some(on) = self.data().and_then(|k| k.on(platform)) else { return Vec::new() };
        on.tolerations.iter().map(|t| Toleration { value: t.value.as_deref().map(|v| self.fill(v)), ..t.clone() }).collect()
    }

    /// The taints its nodes carry on `platform`.
    pub fn node_taints(&self, platform: &str) -> Vec<Taint> {
        self.node_taints_of(platform).into_iter().map(|(t, _)| t).collect()
    }

    /// The taints its nodes carry on `platform`, each with its data (presence, the modes that
    /// tolerate it).
    pub fn node_taints_of(&self, platform: &str) -> Vec<(Taint, &'static NodeTaint)> {
        let Some(on) = self.data().and_then(|k| k.on(platform)) else { return Vec::new() };
        on.node_taints
            .iter()
            .map(|t| {
                let taint = Taint {
                    key: t.key.clone(),
                    value: t.value.as_deref().map(|v| self.fill(v)),
                    effect: t.effect.clone(),
                    time_added: None,
                };
                (taint, t)
            })
            .collect()
    }

    /// The node selector keys it decides on `platform`.
    pub fn replaces(&self, platform: &str) -> Vec<String> {
        self.data().and_then(|k| k.on(platform)).map(|on| on.replaces.clone()).unwrap_or_default()
    }
}

/// The choices as the `jax-runtimes.dev/capacity` annotation writes them: `autopilot,
/// computeClass=tpu-multihost-v5-8`.
pub fn annotation(choices: &[Choice]) -> String {
    choices.iter().map(Choice::token).collect::<Vec<_>>().join(", ")
}

/// The choices an annotation value names (tokens of kinds the data does not know are left out).
pub fn parse_annotation(value: &str) -> Vec<Choice> {
    value
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .filter_map(|t| {
            let (kind, name) = match t.split_once('=') {
                Some((k, n)) => (k.trim(), Some(n.trim().to_string())),
                None => (t, None),
            };
            data().kind(kind).map(|_| Choice { kind: kind.to_string(), name })
        })
        .collect()
}

/// The capacity a node selector asks for, in words (`Spot VMs`, `reservation r1`, `ComputeClass
/// c`), with the labels that say it: each kind whose labels on some platform the selector has,
/// `{name}` taking the selector's value. Kinds without labels (on-demand on GKE) are not named.
pub fn words_of(selector: &BTreeMap<String, String>) -> Vec<(String, BTreeMap<String, String>)> {
    let mut out: Vec<(String, BTreeMap<String, String>)> = Vec::new();
    for kind in &data().kinds {
        for on in kind.platforms.values().filter(|on| !on.node_selector.is_empty()) {
            let mut name = None;
            let all = on.node_selector.iter().all(|(k, v)| match selector.get(k) {
                Some(have) if v.contains("{name}") => {
                    name = Some(have.clone());
                    true
                }
                Some(have) => have == v,
                None => false,
            });
            if all {
                let choice = Choice { kind: kind.name.clone(), name };
                let labels = choice_labels(&choice, on);
                let words = choice.words();
                if !out.iter().any(|(w, _)| *w == words) {
                    out.push((words, labels));
                }
            }
        }
    }
    out
}

fn choice_labels(choice: &Choice, on: &OnPlatform) -> BTreeMap<String, String> {
    on.node_selector.iter().map(|(k, v)| (k.clone(), choice.fill(v))).collect()
}

/// Whether a pod with this node selector, of a runtime with these annotations, is for GKE
/// Autopilot: the generator's `jax-runtimes.dev/capacity` annotation names `autopilot`, or the pod
/// selects a ComputeClass only Autopilot runs.
pub fn is_autopilot(annotations: Option<&BTreeMap<String, String>>, node_selector: Option<&BTreeMap<String, String>>) -> bool {
    let by_annotation = annotations
        .and_then(|a| a.get(crate::keys::CAPACITY))
        .is_some_and(|v| parse_annotation(v).iter().any(|c| c.data().is_some_and(|k| k.mode)));
    let class_key = compute_class_key();
    let by_class = node_selector.and_then(|s| s.get(&class_key)).is_some_and(|c| data().autopilot.compute_classes.iter().any(|a| a == c));
    by_annotation || by_class
}

/// The node label that names a ComputeClass (`cloud.google.com/compute-class`).
pub fn compute_class_key() -> String {
    data()
        .kind("computeClass")
        .and_then(|k| k.platforms.values().find_map(|on| on.node_selector.keys().next().cloned()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_table_parses_and_names_known_platforms_and_kinds() {
        let d: CapacityData = crate::yaml::from_str(CAPACITY_YAML).unwrap();
        let platforms: BTreeSet<&str> = crate::accelerators::data().platforms.platforms.iter().map(|p| p.name.as_str()).collect();
        let kinds: BTreeSet<&str> = d.kinds.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(kinds.len(), d.kinds.len(), "a kind twice");
        for k in &d.kinds {
            for p in k.platforms.keys() {
                assert!(platforms.contains(p.as_str()), "{}: platform `{p}` is not in platforms.yaml", k.name);
            }
            assert!(!k.words.is_empty() && !k.flavor.is_empty() && !k.description.is_empty(), "{}", k.name);
            let named = k.takes == Takes::Name;
            for on in k.platforms.values() {
                let uses = on.node_selector.values().any(|v| v.contains("{name}"));
                assert!(!uses || named, "{}: only a kind that takes a name fills in `{{name}}`", k.name);
                for t in &on.tolerations {
                    assert!(t.key.is_some() && t.effect.is_some(), "{}: tolerations name their key and effect", k.name);
                }
                for t in &on.node_taints {
                    for m in &t.tolerated_in {
                        assert!(d.kinds.iter().any(|x| &x.name == m && x.mode), "{}: toleratedIn names `{m}`, not a mode", k.name);
                    }
                    // The kind's own pods tolerate the taint its nodes carry.
                    let taint = Taint { key: t.key.clone(), value: t.value.clone(), effect: t.effect.clone(), time_added: None };
                    assert!(
                        on.tolerations.iter().any(|x| crate::k8s::selection::tolerates(x, &taint)),
                        "{}: the kind's tolerations do not tolerate its taint {}",
                        k.name,
                        t.key
                    );
                }
            }
        }
        for c in &d.conflicts {
            assert!(c.kinds.len() >= 2 && !c.why.is_empty());
            for k in &c.kinds {
                assert!(kinds.contains(k.as_str()), "conflict names unknown kind `{k}`");
            }
        }
        assert!(platforms.contains(d.autopilot.platform.as_str()));
        let fabrics: BTreeSet<&str> = crate::accelerators::data().fabrics.fabrics.iter().map(|f| f.name.as_str()).collect();
        for f in &d.autopilot.fabrics {
            assert!(fabrics.contains(f.as_str()), "Autopilot offers unknown fabric `{f}`");
        }
        assert_eq!(d.kinds.iter().filter(|k| k.mode).count(), 1, "one mode: autopilot");
    }

    #[test]
    fn a_choice_renders_its_labels_tolerations_and_taints_per_platform() {
        let class = Choice::named("computeClass", "tpu-multihost-v5-8");
        assert_eq!(class.node_selector("gke").get("cloud.google.com/compute-class").map(String::as_str), Some("tpu-multihost-v5-8"));
        assert_eq!(class.words(), "ComputeClass tpu-multihost-v5-8");
        assert_eq!(class.token(), "computeClass=tpu-multihost-v5-8");
        assert!(class.node_selector("eks").is_empty(), "EKS has no ComputeClass");
        assert_eq!(class.node_taints("gke")[0].value.as_deref(), Some("tpu-multihost-v5-8"));
        let spot = Choice::flag("spot");
        assert_eq!(spot.node_selector("eks").get("karpenter.sh/capacity-type").map(String::as_str), Some("spot"));
        assert_eq!(spot.tolerations("aks")[0].key.as_deref(), Some("kubernetes.azure.com/scalesetpriority"));
        let r = Choice::named("reservation", "cr-0123");
        assert_eq!(r.node_selector("eks").get("karpenter.k8s.aws/capacity-reservation-id").map(String::as_str), Some("cr-0123"));
        assert_eq!(r.flavor(), "reservation-cr-0123");
        assert!(data().conflict("spot", "reservation").is_some() && data().conflict("spot", "autopilot").is_none());
    }

    #[test]
    fn the_annotation_round_trips_and_selectors_are_named_by_their_capacity() {
        let choices = vec![Choice::flag("autopilot"), Choice::named("computeClass", "c1")];
        let text = annotation(&choices);
        assert_eq!(text, "autopilot, computeClass=c1");
        assert_eq!(parse_annotation(&text), choices);
        assert_eq!(parse_annotation("spot, teleport"), vec![Choice::flag("spot")], "unknown tokens are left out");
        let sel: BTreeMap<String, String> = [
            ("cloud.google.com/gke-spot", "true"),
            ("cloud.google.com/reservation-name", "r1"),
            ("cloud.google.com/reservation-affinity", "specific"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let words: Vec<String> = words_of(&sel).into_iter().map(|(w, _)| w).collect();
        assert_eq!(words, ["Spot VMs", "reservation r1"]);
        let ap: BTreeMap<String, String> = [("cloud.google.com/compute-class".to_string(), "autopilot-spot".to_string())].into();
        assert!(is_autopilot(None, Some(&ap)));
        assert!(!is_autopilot(None, Some(&BTreeMap::new())));
        let ann: BTreeMap<String, String> = [(crate::keys::CAPACITY.to_string(), "autopilot".to_string())].into();
        assert!(is_autopilot(Some(&ann), None));
    }
}
