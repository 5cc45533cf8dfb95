//! The shapes of a queue's runtimes: each served runtime ([`Served`]: its accelerator, PodSets
//! and TAS Topology) -> the flavors they need ([`Shape`]: node labels, taints, name) and the
//! resources the queue must cover ([`covered`]), in one order.
//!
//! - A shape's node labels are the keys and values the pod's `nodeSelector` names and the
//!   single-value `In` terms of its required node affinity that every term shares: what Kueue's
//!   `flavorSelector` compares ([`super::admit::flavor_selects`]), so a future selector (Spot, a
//!   reservation) becomes part of the flavor by itself.
//! - A shape's taints are those every served pod of it tolerates (a key and NoSchedule or
//!   NoExecute): Kueue then keeps workloads that do not tolerate them, CPU jobs for instance, out of
//!   the accelerator flavors.
//! - The order of the covered resources: accelerators, `cpu`, `memory`, `ephemeral-storage`,
//!   hugepages, then the rest (fabric devices, ...), each group sorted.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{NodeSelector, Taint, Toleration};

use super::podsets::PodSet;
use crate::kueue::facts;
use crate::resolve::queue::TasTopology;

/// What a served runtime's accelerator is, for quota units.
#[derive(Debug, Clone, PartialEq)]
pub enum Unit {
    Cpu,
    Gpu {
        resource: String,
    },
    /// A TPU slice: its chips and one host's.
    Tpu {
        resource: String,
        slice_chips: i64,
        host_chips: i64,
    },
}

/// One runtime a queue serves: its name, accelerator, PodSets and TAS Topology.
#[derive(Debug, Clone)]
pub struct Served {
    pub name: String,
    /// The runtime's platform and its own capacity (`spec.capacity`), for a queue that makes one
    /// flavor per capacity type.
    pub platform: String,
    pub capacity: Vec<crate::capacity::Choice>,
    pub unit: Unit,
    pub podsets: Vec<PodSet>,
    pub tas: Option<TasTopology>,
}

/// One shape: a flavor's labels and what is known of the pods that use it.
#[derive(Debug, Clone)]
pub struct Shape {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub taints: Vec<Taint>,
    /// The tolerations Kueue adds to the pods it admits to the flavor (a capacity type's).
    pub tolerations: Vec<Toleration>,
    pub tas: Option<String>,
    /// The served runtime and PodSet of each use.
    pub uses: Vec<(usize, usize)>,
}

/// The node labels a PodSet's pods select on, as Kueue's flavor matching reads them.
pub fn selected_labels(ps: &PodSet) -> BTreeMap<String, String> {
    let mut labels = ps.node_selector.clone();
    if let Some(NodeSelector { node_selector_terms: terms }) = &ps.affinity {
        let single = |t: &k8s_openapi::api::core::v1::NodeSelectorTerm| -> BTreeSet<(String, String)> {
            t.match_expressions
                .iter()
                .flatten()
                .filter(|e| e.operator == "In" && e.values.as_ref().is_some_and(|v| v.len() == 1))
                .map(|e| (e.key.clone(), e.values.as_ref().and_then(|v| v.first()).cloned().unwrap_or_default()))
                .collect()
        };
        let mut common: Option<BTreeSet<(String, String)>> = None;
        for t in terms {
            let s = single(t);
            common = Some(match common {
                None => s,
                Some(c) => c.intersection(&s).cloned().collect(),
            });
        }
        for (k, v) in common.unwrap_or_default() {
            labels.entry(k).or_insert(v);
        }
    }
    labels
}

/// A taint the toleration stands for, when it names one (a key and NoSchedule or NoExecute).
fn taint_of(t: &Toleration) -> Option<Taint> {
    let key = t.key.clone().filter(|k| !k.is_empty())?;
    let effect = match t.effect.as_deref().unwrap_or_default() {
        "" => "NoSchedule",
        e @ ("NoSchedule" | "NoExecute") => e,
        _ => return None,
    };
    let value = if t.operator.as_deref() == Some("Exists") { None } else { t.value.clone().filter(|v| !v.is_empty()) };
    Some(Taint { key, value, effect: effect.to_string(), time_added: None })
}

/// A flavor name from its labels: the values (or a boolean label's key) joined, made a DNS name.
fn flavor_name(labels: &BTreeMap<String, String>) -> String {
    if labels.is_empty() {
        return "default-flavor".into();
    }
    let parts: Vec<String> = labels
        .iter()
        .map(|(k, v)| {
            let last = k.rsplit('/').next().unwrap_or(k);
            match v.as_str() {
                "true" => last.to_string(),
                "false" => format!("no-{last}"),
                _ => v.clone(),
            }
        })
        .collect();
    dns_name(&parts.join("-"))
}

/// Lower case, `[a-z0-9-]`, no doubled or edge dashes, at most 63 characters (a hash keeps a
/// shortened name unique).
pub fn dns_name(raw: &str) -> String {
    let mut s = String::new();
    for c in raw.to_lowercase().chars() {
        let c = if c.is_ascii_alphanumeric() { c } else { '-' };
        if c == '-' && (s.is_empty() || s.ends_with('-')) {
            continue;
        }
        s.push(c);
    }
    let s = s.trim_end_matches('-').to_string();
    if s.len() <= 63 {
        return if s.is_empty() { "flavor".into() } else { s };
    }
    format!("{}-{:08x}", s[..54].trim_end_matches('-'), fnv(raw))
}

/// FNV-1a, for short stable suffixes.
fn fnv(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// The shapes of the served runtimes: accelerator shapes sorted by name, label-less last.
pub fn shapes(served: &[Served]) -> Vec<Shape> {
    let mut by_labels: BTreeMap<BTreeMap<String, String>, Shape> = BTreeMap::new();
    for (r, s) in served.iter().enumerate() {
        for (p, ps) in s.podsets.iter().enumerate() {
            let labels = selected_labels(ps);
            let taints: Vec<Taint> = ps.tolerations.iter().filter_map(taint_of).collect();
            let entry = by_labels.entry(labels.clone()).or_insert_with(|| Shape {
                name: String::new(),
                labels,
                taints: taints.clone(),
                tolerations: Vec::new(),
                tas: s.tas.as_ref().map(|t| t.name.clone()),
                uses: Vec::new(),
            });
            entry.taints.retain(|t| taints.contains(t));
            if entry.tas != s.tas.as_ref().map(|t| t.name.clone()) {
                entry.tas = None;
            }
            entry.uses.push((r, p));
        }
    }
    let mut out: Vec<Shape> = by_labels.into_values().collect();
    // Names: unique, the label hash telling apart two label sets that read the same.
    let mut taken: BTreeMap<String, usize> = BTreeMap::new();
    for s in &mut out {
        s.name = flavor_name(&s.labels);
        s.taints.truncate(facts().limits.flavor_node_taints);
        *taken.entry(s.name.clone()).or_default() += 1;
    }
    for s in &mut out {
        if taken.get(&s.name).copied().unwrap_or(0) > 1 {
            let text: String = s.labels.iter().map(|(k, v)| format!("{k}={v},")).collect();
            s.name = format!("{}-{:08x}", s.name.chars().take(54).collect::<String>().trim_end_matches('-'), fnv(&text));
        }
    }
    out.sort_by(|a, b| (a.labels.is_empty(), &a.name).cmp(&(b.labels.is_empty(), &b.name)));
    out
}

/// The covered resources of every served PodSet, in the documented order.
pub fn covered(served: &[Served]) -> Vec<String> {
    let mut all = BTreeSet::new();
    for s in served {
        for ps in &s.podsets {
            all.extend(ps.requests.iter().filter(|(_, v)| **v > 0).map(|(k, _)| k.clone()));
        }
    }
    let accelerators: BTreeSet<String> = served
        .iter()
        .filter_map(|s| match &s.unit {
            Unit::Gpu { resource } | Unit::Tpu { resource, .. } => Some(resource.clone()),
            Unit::Cpu => None,
        })
        .collect();
    let rank = |r: &str| match r {
        _ if accelerators.contains(r) => 0,
        "cpu" => 1,
        "memory" => 2,
        "ephemeral-storage" => 3,
        _ if r.starts_with("hugepages-") => 4,
        _ => 5,
    };
    let mut out: Vec<String> = all.into_iter().collect();
    out.sort_by(|a, b| (rank(a), a).cmp(&(rank(b), b)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flavor_names_are_short_stable_dns_names() {
        let l = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>();
        assert_eq!(
            flavor_name(&l(&[
                ("cloud.google.com/gke-tpu-accelerator", "tpu-v5-lite-podslice"),
                ("cloud.google.com/gke-tpu-topology", "4x4")
            ])),
            "tpu-v5-lite-podslice-4x4"
        );
        assert_eq!(
            flavor_name(&l(&[("cloud.google.com/gke-accelerator", "nvidia-h100-80gb"), ("cloud.google.com/gke-spot", "true")])),
            "nvidia-h100-80gb-gke-spot"
        );
        assert_eq!(flavor_name(&l(&[("node.kubernetes.io/instance-type", "Standard_ND96isr_H100_v5")])), "standard-nd96isr-h100-v5");
        assert_eq!(flavor_name(&BTreeMap::new()), "default-flavor");
        let long = dns_name(&"x".repeat(100));
        assert!(long.len() <= 63 && long == dns_name(&"x".repeat(100)));
    }
}
