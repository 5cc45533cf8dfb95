//! GKE ComputeClasses of a cluster (`kubectl get nodes,computeclasses -o yaml`), and whether one
//! would provision nodes for a pod that no standing node takes.
//!
//! Facts (GKE, "About custom ComputeClasses", and the ComputeClass CRD reference,
//! docs.cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass): a pod asks for a class
//! with the node selector `cloud.google.com/compute-class: NAME`; the class's `spec.priorities` are
//! tried in order, each naming a node shape (`tpu {type, count, topology}`, `gpu {type, count}`,
//! `machineFamily`, `machineType`, `spot`, `nodepools`); with `spec.nodePoolAutoCreation.enabled:
//! true` GKE creates node pools of those shapes for pending pods, without it only the class's
//! existing node pools scale. Nodes of a class carry the taint `cloud.google.com/compute-class=NAME:
//! NoSchedule` (`catalog/capacity.yaml`), which the pods tolerate.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Affinity, NodeAffinity, NodeSelector, PodSpec, Toleration};
use serde::Deserialize;

use super::{taints, Choice};
use crate::accelerators::nodes::Presence;
use crate::k8s::requests::Amounts;
use crate::k8s::resources::is_extended;
use crate::k8s::selection;

/// The kind and group of a ComputeClass object.
pub const KIND: &str = "ComputeClass";
pub const GROUP: &str = "cloud.google.com";

/// A ComputeClass as the cluster lists it: what `fit` reads of it (other fields are ignored).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ComputeClass {
    #[serde(default)]
    pub metadata: Meta,
    #[serde(default)]
    pub spec: ClassSpec,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
pub struct Meta {
    #[serde(default)]
    pub name: String,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ClassSpec {
    #[serde(default)]
    pub priorities: Vec<Priority>,
    #[serde(default)]
    pub node_pool_auto_creation: Option<AutoCreation>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
pub struct AutoCreation {
    #[serde(default)]
    pub enabled: bool,
}

/// One rule of `spec.priorities`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Priority {
    #[serde(default)]
    pub tpu: Option<Tpu>,
    #[serde(default)]
    pub gpu: Option<Gpu>,
    #[serde(default)]
    pub spot: Option<bool>,
    #[serde(default)]
    pub nodepools: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
pub struct Tpu {
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub count: Option<i64>,
    #[serde(default)]
    pub topology: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
pub struct Gpu {
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub count: Option<i64>,
}

/// The pod a class is asked to provision for: its node selector, tolerations and requests.
pub struct Pod<'a> {
    pub node_selector: &'a BTreeMap<String, String>,
    pub tolerations: &'a [Toleration],
    pub requests: &'a Amounts,
}

/// Why a class the pod selects would not provision it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The inventory lists no class of that name.
    Unknown(String),
    /// The class creates no node pools (`nodePoolAutoCreation.enabled` is not true).
    NoAutoCreation(String),
    /// No priority of the class has the pod's accelerator: what the pod asks, in words.
    NoPriority { class: String, wants: String },
    /// The pod does not tolerate the class's taint.
    Taint { class: String, taint: String },
    /// The nodes node auto-provisioning would create for the pod carry a taint it does not
    /// tolerate ([`super::taints`]): `on` is what the pod selects, in words (`Spot VMs`).
    ProvisionedTaint { on: String, taint: String },
}

/// The label keys a pod's accelerator is read from (GKE's TPU and GPU node labels).
const TPU_ACCELERATOR: &str = "cloud.google.com/gke-tpu-accelerator";
const TPU_TOPOLOGY: &str = "cloud.google.com/gke-tpu-topology";
const GPU_ACCELERATOR: &str = "cloud.google.com/gke-accelerator";
const TPU: &str = "google.com/tpu";
const GPU: &str = "nvidia.com/gpu";

/// The class the pod selects, if it selects one.
pub fn selected(node_selector: &BTreeMap<String, String>) -> Option<&str> {
    node_selector.get(&super::compute_class_key()).map(String::as_str)
}

/// Whether class `name` of `classes` would provision nodes for the pod: `Ok` with the class name.
pub fn provisions<'a>(classes: &'a [ComputeClass], name: &str, pod: &Pod<'_>) -> Result<&'a str, Refusal> {
    let Some(class) = classes.iter().find(|c| c.metadata.name == name) else { return Err(Refusal::Unknown(name.to_string())) };
    if !class.spec.node_pool_auto_creation.as_ref().is_some_and(|a| a.enabled) {
        return Err(Refusal::NoAutoCreation(name.to_string()));
    }
    let tpu = pod.requests.get(TPU).copied().filter(|n| *n > 0);
    let gpu = pod.requests.get(GPU).copied().filter(|n| *n > 0);
    let sel = |k: &str| pod.node_selector.get(k).map(String::as_str);
    let serves = |p: &Priority| match (tpu, gpu) {
        (Some(chips), _) => p.tpu.as_ref().is_some_and(|t| {
            t.count == Some(chips)
                && sel(TPU_ACCELERATOR).is_none_or(|a| t.kind.as_deref() == Some(a))
                && sel(TPU_TOPOLOGY).is_none_or(|a| t.topology.as_deref() == Some(a))
        }),
        (None, Some(n)) => p
            .gpu
            .as_ref()
            .is_some_and(|g| g.count.is_none_or(|c| c >= n) && sel(GPU_ACCELERATOR).is_none_or(|a| g.kind.as_deref() == Some(a))),
        (None, None) => p.tpu.is_none() && p.gpu.is_none(),
    };
    if !class.spec.priorities.iter().any(|p| p.nodepools.is_empty() && serves(p)) {
        let wants = match (tpu, gpu) {
            (Some(chips), _) => format!(
                "tpu {{type: {}, count: {chips}, topology: {}}}",
                sel(TPU_ACCELERATOR).unwrap_or("?"),
                sel(TPU_TOPOLOGY).unwrap_or("?")
            ),
            (None, Some(n)) => format!("gpu {{type: {}, count: {n}}}", sel(GPU_ACCELERATOR).unwrap_or("?")),
            (None, None) => "a priority without an accelerator".to_string(),
        };
        return Err(Refusal::NoPriority { class: name.to_string(), wants });
    }
    let choice = Choice::named("computeClass", name);
    let platform = &super::data().autopilot.platform;
    let extended: Vec<&str> = pod.requests.keys().map(String::as_str).filter(|r| is_extended(r)).collect();
    for taint in choice.node_taints(platform) {
        if !taints::tolerates(pod.tolerations, &extended, platform, &taint) {
            return Err(Refusal::Taint { class: name.to_string(), taint: selection::taint_text(&taint) });
        }
    }
    Ok(&class.metadata.name)
}

/// Why GKE node auto-provisioning would not provision nodes the pod can use: the first taint the
/// provisioned nodes always carry ([`Presence::Always`], [`Presence::AutoProvisioned`]: the Spot
/// taint, a ComputeClass's) that the pod does not tolerate, after admission, with the same
/// data and matching `validate` uses ([`taints::untolerated`]). `affinity` is the pod's required
/// node affinity.
pub fn provisioned_taint(pod: &Pod<'_>, affinity: Option<&NodeSelector>) -> Option<Refusal> {
    let spec = PodSpec {
        node_selector: Some(pod.node_selector.clone()),
        affinity: affinity.map(|a| Affinity {
            node_affinity: Some(NodeAffinity {
                required_during_scheduling_ignored_during_execution: Some(a.clone()),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    let pinned = selection::pinned_labels(&spec);
    let extended: Vec<&str> = pod.requests.keys().map(String::as_str).filter(|r| is_extended(r)).collect();
    let autopilot = super::is_autopilot(None, Some(pod.node_selector));
    let view = taints::Pod { pinned: &pinned, tolerations: pod.tolerations, extended: &extended, autopilot };
    let platform = &super::data().autopilot.platform;
    taints::untolerated(&view)
        .into_iter()
        .find(|s| &s.platform == platform && matches!(s.presence, Presence::Always | Presence::AutoProvisioned))
        .map(|s| Refusal::ProvisionedTaint { taint: s.text(), on: s.on })
}

/// Whether GKE node auto-provisioning would create a node pool for the pod: it selects a TPU (with
/// its topology) or GPU type and requests the chips, and selects no ComputeClass.
pub fn auto_provisions(pod: &Pod<'_>) -> bool {
    if selected(pod.node_selector).is_some() {
        return false;
    }
    let has = |k: &str| pod.node_selector.contains_key(k);
    let asks = |r: &str| pod.requests.get(r).is_some_and(|n| *n > 0);
    (asks(TPU) && has(TPU_ACCELERATOR) && has(TPU_TOPOLOGY)) || (asks(GPU) && has(GPU_ACCELERATOR))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(yaml: &str) -> ComputeClass {
        crate::yaml::from_str(yaml).unwrap()
    }

    const GUIDE: &str = "apiVersion: cloud.google.com/v1\nkind: ComputeClass\nmetadata: {name: tpu-multihost-v5-8}\nspec:\n  priorities:\n  - tpu: {type: tpu-v5-lite-podslice, count: 4, topology: 2x4}\n  nodePoolAutoCreation: {enabled: true}\n";

    fn pod_parts(class: &str) -> (BTreeMap<String, String>, Vec<Toleration>, Amounts) {
        let sel: BTreeMap<String, String> =
            [("cloud.google.com/compute-class", class), (TPU_ACCELERATOR, "tpu-v5-lite-podslice"), (TPU_TOPOLOGY, "2x4")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let tol = vec![Toleration {
            key: Some("cloud.google.com/compute-class".into()),
            operator: Some("Exists".into()),
            effect: Some("NoSchedule".into()),
            ..Default::default()
        }];
        (sel, tol, Amounts::from([(TPU.to_string(), 4)]))
    }

    #[test]
    fn the_guides_class_provisions_its_slice_and_says_why_not_otherwise() {
        let classes = vec![class(GUIDE)];
        let (sel, tol, req) = pod_parts("tpu-multihost-v5-8");
        let pod = Pod { node_selector: &sel, tolerations: &tol, requests: &req };
        assert_eq!(provisions(&classes, "tpu-multihost-v5-8", &pod), Ok("tpu-multihost-v5-8"));
        assert_eq!(provisions(&classes, "other", &pod), Err(Refusal::Unknown("other".into())));
        let eight = Amounts::from([(TPU.to_string(), 8)]);
        let pod8 = Pod { node_selector: &sel, tolerations: &tol, requests: &eight };
        assert!(matches!(provisions(&classes, "tpu-multihost-v5-8", &pod8), Err(Refusal::NoPriority { .. })));
        let bare = Pod { node_selector: &sel, tolerations: &[], requests: &req };
        assert!(matches!(provisions(&classes, "tpu-multihost-v5-8", &bare), Err(Refusal::Taint { .. })));
        let manual = vec![class(&GUIDE.replace("enabled: true", "enabled: false"))];
        assert!(matches!(provisions(&manual, "tpu-multihost-v5-8", &pod), Err(Refusal::NoAutoCreation(_))));
        assert!(!auto_provisions(&pod), "a pod of a class is the class's");
    }

    #[test]
    fn auto_provisioned_spot_nodes_refuse_a_pod_without_the_spot_toleration() {
        let sel: BTreeMap<String, String> = [(GPU_ACCELERATOR, "nvidia-l4"), ("cloud.google.com/gke-spot", "true")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let req = Amounts::from([(GPU.to_string(), 1)]);
        let bare = Pod { node_selector: &sel, tolerations: &[], requests: &req };
        assert!(auto_provisions(&bare));
        // The GPU taint is ExtendedResourceToleration's; the Spot one is not.
        assert_eq!(
            provisioned_taint(&bare, None),
            Some(Refusal::ProvisionedTaint { on: "Spot VMs".into(), taint: "cloud.google.com/gke-spot=true:NoSchedule".into() })
        );
        let tol = vec![Toleration {
            key: Some("cloud.google.com/gke-spot".into()),
            operator: Some("Exists".into()),
            effect: Some("NoSchedule".into()),
            ..Default::default()
        }];
        assert_eq!(provisioned_taint(&Pod { tolerations: &tol, ..bare }, None), None);
    }
}
