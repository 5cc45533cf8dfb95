//! What the nodes of a cluster look like (`catalog/accelerators/nodes.yaml`): the taints Kubernetes
//! puts on nodes and what they mean, and per platform the labels that name a node pool and the
//! taints its pools carry. Also the accelerator a node selector asks for, in words (`TPU v5e
//! 4x4`), from the TPU and GPU tables. `fit` asks this module; nothing else keeps a copy of the
//! data.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use k8s_openapi::api::core::v1::Toleration;
use serde::{Deserialize, Serialize};

use super::error::AcceleratorError;
use crate::k8s::selection::tolerates;

const NODES_YAML: &str = include_str!("../../catalog/accelerators/nodes.yaml");

/// `nodes.yaml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeData {
    pub kubernetes: KubernetesNodes,
    pub platforms: Vec<PlatformNodes>,
}

/// Kubernetes' own taints, and what each says about its node.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KubernetesNodes {
    pub node_taints: Vec<NodeTaint>,
}

/// A taint Kubernetes puts on a node, and what it says.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeTaint {
    pub key: String,
    pub state: NodeState,
    /// The node's state in words, after "is": `cordoned (spec.unschedulable)`.
    pub means: String,
}

/// What a Kubernetes taint says about its node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NodeState {
    Cordoned,
    NotReady,
    Condition,
}

/// One platform's nodes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlatformNodes {
    pub name: String,
    /// A node carrying any of these labels is on this platform.
    pub node_labels: Vec<String>,
    /// The labels naming a node's pool, first present wins.
    pub pool_labels: Vec<String>,
    /// Node label prefixes only this platform's nodes carry: a pod selecting one runs here.
    pub label_prefixes: Vec<String>,
    /// The API server adds a NoSchedule toleration for every extended resource a pod requests.
    pub extended_resource_toleration: bool,
    /// Taints the platform's pools carry.
    pub taints: Vec<PoolTaint>,
}

/// A taint a platform puts on some of its pools.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PoolTaint {
    pub key: String,
    #[serde(default)]
    pub value: Option<String>,
    pub effect: String,
    /// Which pools carry it, in words.
    pub on: String,
    /// The extended resources of the accelerator pools that carry it.
    #[serde(default)]
    pub resources: Vec<String>,
    /// The node labels of the pools that carry it (`"*"`: any value): a pod selecting them lands
    /// on such a pool.
    #[serde(default)]
    pub selected_by: BTreeMap<String, String>,
    /// Whether every pool it names carries it.
    #[serde(default)]
    pub presence: Presence,
}

/// How sure it is that a node a pod selects carries a taint (`nodes.yaml` and `capacity.yaml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Presence {
    /// Every node with the labels carries it: a pod that does not tolerate it is never scheduled.
    Always,
    /// Every node the platform creates on demand (GKE node auto-provisioning, Autopilot) carries
    /// it; a node pool made by hand carries it only if given.
    AutoProvisioned,
    /// Only some pools carry it.
    #[default]
    #[serde(rename = "some")]
    SomePools,
}

impl Presence {
    /// Which selected nodes carry the taint, in words: a clause that ends with the consequence.
    pub fn words(self) -> &'static str {
        match self {
            Presence::Always => "every such node carries it, so the pods are never scheduled, whatever the cluster autoscales",
            Presence::AutoProvisioned => {
                "every such node the platform provisions carries it (GKE node auto-provisioning and Autopilot; a node pool made by hand only if given it), and there the pods stay Pending"
            }
            Presence::SomePools => "some such node pools carry it, and there the pods stay Pending",
        }
    }
}

impl PoolTaint {
    /// The toleration that lets a pod onto these pools, as YAML flow text.
    pub fn toleration(&self) -> String {
        match &self.value {
            Some(v) => format!("{{key: {}, operator: Equal, value: \"{v}\", effect: {}}}", self.key, self.effect),
            None => format!("{{key: {}, operator: Exists, effect: {}}}", self.key, self.effect),
        }
    }

    /// The same toleration, typed.
    pub fn to_toleration(&self) -> Toleration {
        Toleration {
            key: Some(self.key.clone()),
            operator: Some(if self.value.is_some() { "Equal" } else { "Exists" }.to_string()),
            value: self.value.clone(),
            effect: Some(self.effect.clone()),
            toleration_seconds: None,
        }
    }

    /// The taint itself.
    pub fn taint(&self) -> k8s_openapi::api::core::v1::Taint {
        k8s_openapi::api::core::v1::Taint {
            key: self.key.clone(),
            value: self.value.clone(),
            effect: self.effect.clone(),
            time_added: None,
        }
    }
}

/// The embedded table, parsed once. It is part of the binary, not input: the unit tests below
/// prove it parses and holds together, so this never fails in a built binary.
#[allow(clippy::expect_used, reason = "embedded data, not input; the unit tests prove it parses")]
pub fn nodes() -> &'static NodeData {
    static DATA: OnceLock<NodeData> = OnceLock::new();
    DATA.get_or_init(|| NodeData::parse(NODES_YAML).expect("the embedded node data is valid (unit-tested)"))
}

impl NodeData {
    pub fn parse(text: &str) -> Result<NodeData, AcceleratorError> {
        crate::yaml::from_str(text).map_err(|e| AcceleratorError::Data {
            file: "nodes.yaml",
            message: format!("{}{}", e.message, e.line.map(|l| format!(" (line {l})")).unwrap_or_default()),
        })
    }

    /// The platform whose nodes carry one of its `nodeLabels`, if any.
    pub fn platform_of(&self, labels: &BTreeMap<String, String>) -> Option<&PlatformNodes> {
        self.platforms.iter().find(|p| p.node_labels.iter().any(|l| labels.contains_key(l)))
    }

    /// The pool a node belongs to: the value of the first pool label of its platform it carries.
    pub fn pool_of<'a>(&self, labels: &'a BTreeMap<String, String>) -> Option<(&str, &'a str)> {
        let platform = self.platform_of(labels)?;
        platform.pool_labels.iter().find_map(|k| labels.get(k).map(|v| (k.as_str(), v.as_str())))
    }

    /// The platform a pod runs on, from what it pins ([`crate::k8s::selection::pinned_labels`])
    /// and the extended resources it requests: the one platform whose `labelPrefixes` a pinned
    /// label has, else the one platform whose pool taints name a requested resource (only GKE
    /// has TPUs). `None` when that is not one platform.
    pub fn platform_of_pod<'a>(&self, pinned: impl IntoIterator<Item = &'a str>, requests: &[&str]) -> Option<&PlatformNodes> {
        let keys: Vec<&str> = pinned.into_iter().collect();
        let by_label: Vec<&PlatformNodes> =
            self.platforms.iter().filter(|p| keys.iter().any(|k| p.label_prefixes.iter().any(|x| k.starts_with(x.as_str())))).collect();
        match by_label.as_slice() {
            [one] => return Some(one),
            [] => {}
            _ => return None,
        }
        let by_resource: Vec<&PlatformNodes> =
            self.platforms.iter().filter(|p| p.taints.iter().any(|t| t.resources.iter().any(|r| requests.contains(&r.as_str())))).collect();
        match by_resource.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    /// The platform named `name`.
    pub fn platform(&self, name: &str) -> Option<&PlatformNodes> {
        self.platforms.iter().find(|p| p.name == name)
    }

    /// What Kubernetes says with this taint key, if it is one of its own.
    pub fn node_taint(&self, key: &str) -> Option<&NodeTaint> {
        self.kubernetes.node_taints.iter().find(|t| t.key == key)
    }

    /// The tolerations a pod requesting `resource` on `platform` needs beyond `have`: one for each
    /// taint the platform's pools of that resource carry that `have` does not tolerate.
    pub fn pool_tolerations(&self, platform: &str, resource: &str, have: &[Toleration]) -> Vec<Toleration> {
        self.platforms
            .iter()
            .filter(|p| p.name == platform)
            .flat_map(|p| &p.taints)
            .filter(|t| t.resources.iter().any(|r| r == resource))
            .filter(|t| !have.iter().any(|h| tolerates(h, &t.taint())))
            .map(PoolTaint::to_toleration)
            .collect()
    }

    /// The platform pool taint with this key and effect (and value, where the table has one).
    pub fn pool_taint(&self, key: &str, value: &str, effect: &str) -> Option<(&PlatformNodes, &PoolTaint)> {
        self.platforms.iter().find_map(|p| {
            p.taints.iter().find(|t| t.key == key && t.effect == effect && t.value.as_deref().is_none_or(|v| v == value)).map(|t| (p, t))
        })
    }
}

/// The accelerator a node selector asks for, in words: `TPU v5e 4x4`, `NVIDIA H100 80GB HBM3
/// (SXM)`, `NVIDIA H100 80GB HBM3 (SXM) on p5.48xlarge`. `None` when the selector names none
/// the accelerator data knows.
pub fn accelerator_of(selector: &BTreeMap<String, String>) -> Option<String> {
    let data = super::data();
    let tpu = &data.tpu;
    if let Some(value) = selector.get(&tpu.accelerator_label) {
        let generation = tpu.generations.iter().find(|g| &g.accelerator_label == value)?;
        return Some(match selector.get(&tpu.topology_label) {
            Some(t) => format!("TPU {} {t}", generation.name),
            None => format!("TPU {}", generation.name),
        });
    }
    let gpu = &data.gpu;
    for model in &gpu.models {
        for (platform, on) in &model.platforms {
            let labels = gpu.platform(platform);
            let by_model = match (labels.and_then(|l| l.model_label.as_ref()), &on.model_label) {
                (Some(key), Some(value)) => selector.get(key) == Some(value),
                _ => false,
            };
            let by_labels = !on.node_labels.is_empty() && on.node_labels.iter().all(|(k, v)| selector.get(k) == Some(v));
            if by_model || by_labels {
                return Some(model.description.clone());
            }
            if let Some(machine) = labels
                .and_then(|l| l.machine_type_label.as_ref())
                .and_then(|key| selector.get(key))
                .filter(|m| on.machine_types.iter().any(|t| &&t.name == m))
            {
                return Some(format!("{} on {machine}", model.description));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_table_parses_and_names_known_platforms() {
        let d = NodeData::parse(NODES_YAML).unwrap();
        let known: BTreeSet<&str> = super::super::data().platforms.platforms.iter().map(|p| p.name.as_str()).collect();
        let here: BTreeSet<&str> = d.platforms.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(here, known, "nodes.yaml describes every platform of platforms.yaml, and no other");
        for p in &d.platforms {
            assert!(
                p.pool_labels.is_empty() == p.node_labels.is_empty(),
                "{}: a platform its nodes can be told by names their pools",
                p.name
            );
            for t in &p.taints {
                assert!(["NoSchedule", "NoExecute", "PreferNoSchedule"].contains(&t.effect.as_str()), "{}: effect {}", p.name, t.effect);
                assert!(!t.on.is_empty());
            }
        }
        // The tolerations admission adds are for taints of a node that is not Ready.
        for t in &crate::k8s::facts::facts().scheduling.admission_tolerations {
            assert_eq!(t.operator.as_deref(), Some("Exists"));
            assert!(d.node_taint(t.key.as_deref().unwrap_or_default()).is_some_and(|n| n.state == NodeState::NotReady));
        }
        let keys: BTreeSet<&str> = d.kubernetes.node_taints.iter().map(|t| t.key.as_str()).collect();
        assert_eq!(keys.len(), d.kubernetes.node_taints.len(), "a taint key twice");
    }

    #[test]
    fn the_accelerator_pools_carry_the_taints_the_accelerator_data_tolerates() {
        // A platform's accelerator pool taint must be the one the generated runtimes tolerate,
        // except where the platform's own guide uses another key (AKS `sku=gpu`).
        let d = nodes();
        let data = super::super::data();
        let gke = d.platforms.iter().find(|p| p.name == "gke").unwrap();
        for resource in data.accelerator_resources().filter(|r| *r != "amd.com/gpu") {
            assert!(gke.taints.iter().any(|t| t.key == resource), "GKE pools of {resource} have a taint");
        }
        let tpu_toleration = &data.tpu.tolerations[0];
        let (_, t) = d.pool_taint("google.com/tpu", "present", "NoSchedule").unwrap();
        assert_eq!(tpu_toleration.key.as_deref(), Some(t.key.as_str()));
        assert!(d.pool_taint("sku", "gpu", "NoSchedule").is_some_and(|(p, _)| p.name == "aks"));
        assert!(d.pool_taint("sku", "cpu", "NoSchedule").is_none(), "a valued taint matches its value only");
    }

    #[test]
    fn a_runtime_tolerates_the_taints_of_its_platforms_accelerator_pools() {
        let d = nodes();
        let data = super::super::data();
        let nvidia = &data.gpu.vendor("nvidia").unwrap().tolerations;
        // AKS GPU pools carry sku=gpu, which the NVIDIA toleration does not cover.
        let aks = d.pool_tolerations("aks", "nvidia.com/gpu", nvidia);
        assert_eq!(aks.len(), 1);
        assert_eq!((aks[0].key.as_deref(), aks[0].value.as_deref(), aks[0].operator.as_deref()), (Some("sku"), Some("gpu"), Some("Equal")));
        // Elsewhere the accelerator's own toleration covers the pool taint.
        assert!(d.pool_tolerations("gke", "nvidia.com/gpu", nvidia).is_empty());
        assert!(d.pool_tolerations("eks", "nvidia.com/gpu", nvidia).is_empty());
        assert!(d.pool_tolerations("gke", "google.com/tpu", &data.tpu.tolerations).is_empty());
        // Every resource a pool taint names is an accelerator resource the data knows.
        let known: BTreeSet<&str> = data.accelerator_resources().collect();
        for t in d.platforms.iter().flat_map(|p| &p.taints) {
            assert!(t.resources.iter().all(|r| known.contains(r.as_str())), "{}: {:?}", t.key, t.resources);
        }
    }

    #[test]
    fn nodes_are_told_by_their_labels_and_pools_named() {
        let d = nodes();
        let labels = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>();
        let gke = labels(&[("cloud.google.com/gke-nodepool", "tpu-a")]);
        assert_eq!(d.pool_of(&gke), Some(("cloud.google.com/gke-nodepool", "tpu-a")));
        let aks = labels(&[("kubernetes.azure.com/cluster", "MC_x"), ("agentpool", "gpunp")]);
        assert_eq!(d.platform_of(&aks).map(|p| p.name.as_str()), Some("aks"));
        assert_eq!(d.pool_of(&aks), Some(("agentpool", "gpunp")));
        let karpenter = labels(&[("karpenter.k8s.aws/ec2nodeclass", "gpu"), ("karpenter.sh/nodepool", "gpu-h100")]);
        assert_eq!(d.pool_of(&karpenter), Some(("karpenter.sh/nodepool", "gpu-h100")));
        assert_eq!(d.pool_of(&labels(&[("kubernetes.io/hostname", "dgx-1")])), None);
    }

    #[test]
    fn selectors_are_named_by_their_accelerator() {
        let s = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>();
        let tpu = s(&[("cloud.google.com/gke-tpu-accelerator", "tpu-v6e-slice"), ("cloud.google.com/gke-tpu-topology", "2x4")]);
        assert_eq!(accelerator_of(&tpu).as_deref(), Some("TPU v6e 2x4"));
        let gke = s(&[("cloud.google.com/gke-accelerator", "nvidia-h100-80gb")]);
        assert!(accelerator_of(&gke).is_some_and(|d| d.contains("H100")), "{:?}", accelerator_of(&gke));
        let eks = s(&[("node.kubernetes.io/instance-type", "p5.48xlarge")]);
        assert!(accelerator_of(&eks).is_some_and(|d| d.ends_with("on p5.48xlarge")), "{:?}", accelerator_of(&eks));
        let generic = s(&[("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")]);
        assert!(accelerator_of(&generic).is_some_and(|d| d.contains("H100")));
        assert_eq!(accelerator_of(&s(&[("team", "a")])), None);
        assert_eq!(accelerator_of(&s(&[("cloud.google.com/gke-tpu-accelerator", "tpu-v9")])), None);
    }
}
