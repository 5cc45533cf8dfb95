//! The taints on the nodes a pod selects, and which of them the pod does not tolerate: one
//! function for `validate` and `render` (rules `taint/*`, [`crate::validate`]'s `taints` check)
//! and for `fit --auto-provisioning` ([`crate::fit`]'s `provision`), so that they cannot answer
//! differently.
//!
//! The taints are data: those of a capacity kind's nodes (`catalog/capacity.yaml`, `nodeTaints`:
//! Spot VMs, a ComputeClass), selected by the kind's node labels, and those of a platform's
//! accelerator pools (`catalog/accelerators/nodes.yaml`, `taints`), selected by their
//! `selectedBy` labels or, on the platform the pod runs on, by the extended resource the pod
//! requests. A pod tolerates a taint when one of its tolerations does, after admission: the
//! DefaultTolerationSeconds ones, and on a platform that runs ExtendedResourceToleration one per
//! requested extended resource ([`selection::admitted_tolerations`]); a platform mode that adds the
//! toleration itself (GKE Autopilot for Spot Pods and ComputeClasses) tolerates it too.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Taint, Toleration};

use super::data;
use crate::accelerators::nodes::{nodes, Presence};
use crate::k8s::selection;

/// What of a pod decides which taints it meets and tolerates.
pub struct Pod<'a> {
    /// The labels it pins, with the values it accepts ([`selection::pinned_labels`]).
    pub pinned: &'a BTreeMap<String, Vec<String>>,
    /// Its own tolerations.
    pub tolerations: &'a [Toleration],
    /// The extended resources it requests.
    pub extended: &'a [&'a str],
    /// It runs in GKE Autopilot mode ([`super::is_autopilot`]).
    pub autopilot: bool,
}

/// A taint the nodes a pod selects carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    pub taint: Taint,
    pub presence: Presence,
    /// The platform whose nodes carry it.
    pub platform: String,
    /// The nodes, in words: `Spot VMs`, `ComputeClass c`, `GKE TPU node pools`.
    pub on: String,
    /// What of the pod selects those nodes: `cloud.google.com/gke-spot: true`, or the resource.
    pub by: String,
}

impl Selected {
    /// The taint as kubectl writes it.
    pub fn text(&self) -> String {
        selection::taint_text(&self.taint)
    }

    /// The toleration that lets the pods onto those nodes, as YAML flow text.
    pub fn toleration(&self) -> String {
        match self.taint.value.as_deref().filter(|v| !v.is_empty()) {
            Some(v) => format!("{{key: {}, operator: Equal, value: \"{v}\", effect: {}}}", self.taint.key, self.taint.effect),
            None => format!("{{key: {}, operator: Exists, effect: {}}}", self.taint.key, self.taint.effect),
        }
    }
}

/// The one value a label is pinned to, if it is pinned to one.
fn one<'a>(pinned: &'a BTreeMap<String, Vec<String>>, key: &str) -> Option<&'a str> {
    match pinned.get(key).map(Vec::as_slice) {
        Some([v]) => Some(v.as_str()),
        _ => None,
    }
}

/// Every taint the data says the nodes this pod selects carry (in the data's order, each once),
/// with the tolerations the platform's mode adds left out (Autopilot's for Spot and ComputeClass
/// pods).
pub fn selected(pod: &Pod<'_>) -> Vec<Selected> {
    let mut out: Vec<Selected> = Vec::new();
    let mut push = |s: Selected| {
        if !out.iter().any(|o| o.taint == s.taint) {
            out.push(s);
        }
    };
    // Capacity kinds: the pod pins every label of the kind on a platform (`{name}` takes the value).
    for kind in &data().kinds {
        for (platform, on) in &kind.platforms {
            if on.node_selector.is_empty() || on.node_taints.is_empty() {
                continue;
            }
            let mut name = None;
            let all = on.node_selector.iter().all(|(k, v)| match one(pod.pinned, k) {
                Some(have) if v.contains("{name}") => {
                    name = Some(have.to_string());
                    true
                }
                Some(have) => have == v,
                None => false,
            });
            if !all {
                continue;
            }
            let choice = super::Choice { kind: kind.name.clone(), name };
            let by = choice.node_selector(platform).iter().map(|(k, v)| format!("`{k}: {v}`")).collect::<Vec<_>>().join(", ");
            for (taint, t) in choice.node_taints_of(platform) {
                let mode_tolerates = pod.autopilot && t.tolerated_in.iter().any(|m| data().kind(m).is_some_and(|k| k.mode));
                if !mode_tolerates {
                    push(Selected { taint, presence: t.presence, platform: platform.clone(), on: choice.words(), by: by.clone() });
                }
            }
        }
    }
    // Accelerator pools: by their labels, or by the resource on the platform the pod runs on.
    let nodes = nodes();
    let platform = nodes.platform_of_pod(pod.pinned.keys().map(String::as_str), pod.extended).map(|p| p.name.as_str());
    for p in &nodes.platforms {
        for t in &p.taints {
            let by_labels = !t.selected_by.is_empty()
                && t.selected_by.iter().all(|(k, v)| match pod.pinned.get(k) {
                    Some(have) if v == "*" => !have.is_empty(),
                    Some(_) => one(pod.pinned, k) == Some(v.as_str()),
                    None => false,
                });
            let resource = t.resources.iter().find(|r| pod.extended.contains(&r.as_str()));
            let by = if by_labels {
                t.selected_by
                    .iter()
                    .map(|(k, v)| if v == "*" { format!("`{k}`") } else { format!("`{k}: {v}`") })
                    .collect::<Vec<_>>()
                    .join(", ")
            } else if let Some(r) = resource.filter(|_| platform == Some(p.name.as_str())) {
                format!("a `{r}` request on {}", p.name)
            } else {
                continue;
            };
            push(Selected { taint: t.taint(), presence: t.presence, platform: p.name.clone(), on: t.on.clone(), by });
        }
    }
    out
}

/// Whether the pod, on `platform`, tolerates the taint: one of its tolerations after admission
/// (DefaultTolerationSeconds, and ExtendedResourceToleration where the platform runs it) does.
pub fn tolerates(pod_tolerations: &[Toleration], extended: &[&str], platform: &str, taint: &Taint) -> bool {
    if !selection::filters(taint) {
        return true;
    }
    let ert = nodes().platform(platform).is_some_and(|p| p.extended_resource_toleration);
    let admitted = selection::admitted_tolerations(pod_tolerations, extended.iter().copied(), ert);
    admitted.iter().any(|t| selection::tolerates(t, taint))
}

/// The taints of [`selected`] the pod does not tolerate ([`tolerates`]).
pub fn untolerated(pod: &Pod<'_>) -> Vec<Selected> {
    selected(pod).into_iter().filter(|s| !tolerates(pod.tolerations, pod.extended, &s.platform, &s.taint)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pinned(pairs: &[(&str, &str)]) -> BTreeMap<String, Vec<String>> {
        pairs.iter().map(|(k, v)| (k.to_string(), vec![v.to_string()])).collect()
    }

    fn tol(yaml: &str) -> Toleration {
        crate::yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn spot_on_gke_without_its_toleration_is_untolerated_on_provisioned_nodes() {
        let p = pinned(&[("cloud.google.com/gke-spot", "true")]);
        let pod = Pod { pinned: &p, tolerations: &[], extended: &[], autopilot: false };
        let u = untolerated(&pod);
        assert_eq!(u.len(), 1, "{u:?}");
        assert_eq!(u[0].text(), "cloud.google.com/gke-spot=true:NoSchedule");
        assert_eq!(u[0].presence, Presence::AutoProvisioned);
        assert_eq!(u[0].platform, "gke");
        let t = [tol("{key: cloud.google.com/gke-spot, operator: Equal, value: 'true', effect: NoSchedule}")];
        assert!(untolerated(&Pod { tolerations: &t, ..pod }).is_empty());
        // GKE Autopilot adds the toleration to Spot Pods.
        assert!(untolerated(&Pod { pinned: &p, tolerations: &[], extended: &[], autopilot: true }).is_empty());
    }

    #[test]
    fn a_compute_class_taint_carries_the_class_name_and_is_always_there() {
        let p = pinned(&[("cloud.google.com/compute-class", "tpu-multihost-v5-8")]);
        let u = untolerated(&Pod { pinned: &p, tolerations: &[], extended: &[], autopilot: false });
        assert_eq!(u.len(), 1, "{u:?}");
        assert_eq!(u[0].text(), "cloud.google.com/compute-class=tpu-multihost-v5-8:NoSchedule");
        assert_eq!(u[0].presence, Presence::Always);
        let t = [tol("{key: cloud.google.com/compute-class, operator: Exists, effect: NoSchedule}")];
        assert!(untolerated(&Pod { pinned: &p, tolerations: &t, extended: &[], autopilot: false }).is_empty());
        // Another class's value does not tolerate it.
        let other = [tol("{key: cloud.google.com/compute-class, operator: Equal, value: other, effect: NoSchedule}")];
        assert_eq!(untolerated(&Pod { pinned: &p, tolerations: &other, extended: &[], autopilot: false }).len(), 1);
    }

    #[test]
    fn extended_resource_toleration_covers_gke_accelerator_pools_not_aks_ones() {
        let tpu = pinned(&[("cloud.google.com/gke-tpu-accelerator", "tpu-v5-lite-podslice"), ("cloud.google.com/gke-tpu-topology", "2x4")]);
        // Requesting the chips is enough on GKE.
        assert!(untolerated(&Pod { pinned: &tpu, tolerations: &[], extended: &["google.com/tpu"], autopilot: false }).is_empty());
        // Selecting TPU nodes without requesting chips: some TPU pools carry the taint.
        let u = untolerated(&Pod { pinned: &tpu, tolerations: &[], extended: &[], autopilot: false });
        assert_eq!(
            u.iter().map(|s| (s.text(), s.presence)).collect::<Vec<_>>(),
            [("google.com/tpu=present:NoSchedule".to_string(), Presence::SomePools)]
        );
        // AKS: no ExtendedResourceToleration; the GPU guide's pools carry sku=gpu.
        let aks = pinned(&[("kubernetes.azure.com/agentpool", "gpunp")]);
        let nvidia = [tol("{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}")];
        let u = untolerated(&Pod { pinned: &aks, tolerations: &nvidia, extended: &["nvidia.com/gpu"], autopilot: false });
        assert_eq!(u.iter().map(Selected::text).collect::<Vec<_>>(), ["sku=gpu:NoSchedule"]);
        // An unknown platform: no pool taint is assumed (accelerator/missing-toleration speaks).
        let none = BTreeMap::new();
        assert!(untolerated(&Pod { pinned: &none, tolerations: &[], extended: &["nvidia.com/gpu"], autopilot: false }).is_empty());
    }

    #[test]
    fn aks_spot_is_always_tainted() {
        let p = pinned(&[("kubernetes.azure.com/scalesetpriority", "spot")]);
        let u = untolerated(&Pod { pinned: &p, tolerations: &[], extended: &[], autopilot: false });
        assert_eq!(
            u.iter().map(|s| (s.text(), s.presence)).collect::<Vec<_>>(),
            [("kubernetes.azure.com/scalesetpriority=spot:NoSchedule".to_string(), Presence::Always)]
        );
    }
}
