//! Would Kueue admit a workload? A ClusterQueue (its flavors, its cohort) and what workloads
//! already hold -> for each PodSet the flavor Kueue assigns it, or why it waits, or why it never
//! will.
//!
//! Facts (kueue v0.19.2 `pkg/scheduler/flavorassigner/flavorassigner.go`): PodSets are assigned
//! in order; a PodSet's request is one pod's times its count, plus `pods` when the queue covers
//! it (`assignFlavors`); a requested resource no resource group covers makes the workload
//! inadmissible (`findFlavorForPodSets`: "resource ... unavailable in ClusterQueue"); the flavors
//! of a resource group are tried in order, and one is skipped when its `nodeTaints` are not
//! tolerated (NoSchedule and NoExecute only) or its `nodeLabels` contradict the pods' node
//! selector or required affinity, read only for the flavor's own label keys
//! (`checkFlavorForPodSets`, `flavorSelector`), or when Topology Aware Scheduling does not match
//! (`tas_flavorassigner.go` `checkPodSetAndFlavorMatchForTAS`); a flavor fits when the request
//! plus what earlier PodSets took is within what is available, never fits when it is above the
//! most the queue can ever have (nominal quota plus what it may borrow: `fitsResourceQuota`); the
//! first flavor that fits is taken (flavor fungibility's default `whenCanBorrow: MayStopSearch`).
//! A cohort is read flat: every ClusterQueue with the same `cohortName` lends what it does not
//! use, up to its `lendingLimit`; a queue borrows up to its `borrowingLimit` (nested Cohort
//! objects, fair sharing and preemption are not modelled: a workload that fits only by preempting
//! is reported as waiting).

use std::collections::BTreeMap;

use super::podsets::PodSet;
use crate::k8s::quantity;
use crate::k8s::selection as filter;
use crate::kueue::{facts, ClusterQueue, ResourceFlavor, Topology, Workload};

/// Quota in use: (ClusterQueue, flavor, resource) -> amount (cpu in millicores).
pub type Usage = BTreeMap<(String, String, String), i64>;

/// The Kueue objects a workload is admitted against.
#[derive(Debug, Default)]
pub struct Queues<'a> {
    pub cluster_queues: BTreeMap<String, &'a ClusterQueue>,
    /// `None`: no ResourceFlavor was given, so flavors are taken to match any pod.
    pub flavors: Option<BTreeMap<String, &'a ResourceFlavor>>,
    /// `None`: no Topology was given (levels are not checked).
    pub topologies: Option<BTreeMap<String, &'a Topology>>,
    pub usage: Usage,
}

/// What Kueue would do with the workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Admitted now: the flavor of each PodSet's resources.
    Admitted { flavors: Vec<(String, BTreeMap<String, String>)>, borrows: bool },
    /// Fits the queue's quota, but not what is free now: it waits (for running workloads to
    /// finish, or preemption).
    Waits { reason: String },
    /// Never admitted as the queues are.
    Never(Blocker),
}

/// Why a workload is never admitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocker {
    /// The ClusterQueue is not among the queues.
    NoClusterQueue { name: String },
    /// A PodSet requests a resource no resource group covers.
    NotCovered { podset: String, resource: String },
    /// No flavor of the resource group fits the PodSet's pods: why, flavor by flavor.
    NoMatchingFlavor { podset: String, resource: String, reasons: Vec<String> },
    /// The request is above the most any matching flavor can ever hold (`per_pod`: what one pod
    /// of the PodSet requests, to say both amounts in pods too).
    BelowGang { podset: String, resource: String, flavor: String, need: i64, most: i64, per_pod: i64 },
}

impl std::fmt::Display for Blocker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Blocker::NoClusterQueue { name } => write!(f, "ClusterQueue `{name}` is not among the queues"),
            Blocker::NotCovered { podset, resource } => {
                write!(f, "replicated job `{podset}` requests `{resource}`, which the ClusterQueue does not cover (\"resource {resource} unavailable in ClusterQueue\")")
            }
            Blocker::NoMatchingFlavor { podset, resource, reasons } => {
                write!(f, "no flavor for `{resource}` fits replicated job `{podset}`: {}", reasons.join("; "))
            }
            Blocker::BelowGang { podset, resource, flavor, need, most, per_pod } => {
                // In pods too, where the need is whole pods' worth: what a queue sized in nodes
                // or slices counts.
                let whole = *per_pod > 0 && *need % *per_pod == 0;
                let (need_pods, most_pods) = match whole {
                    true => (
                        format!(" ({} of {} each)", crate::words::count(*need / *per_pod, "pod"), show(resource, *per_pod)),
                        format!(" ({})", crate::words::count(*most / *per_pod, "pod")),
                    ),
                    false => (String::new(), String::new()),
                };
                write!(
                    f,
                    "replicated job `{podset}` needs {} of `{resource}`{need_pods}, and flavor `{flavor}` can hold at most {}{most_pods}, borrowing included",
                    show(resource, *need),
                    show(resource, *most),
                )
            }
        }
    }
}

/// An amount as a quantity: cpu back from millicores, bytes in the largest binary unit that
/// holds them whole (`10Gi`, as a pod's requests are written).
pub fn show(resource: &str, amount: i64) -> String {
    let bytes = resource == "memory" || resource == "ephemeral-storage" || resource.starts_with("hugepages-");
    if resource == "cpu" && amount % 1000 != 0 {
        format!("{amount}m")
    } else if resource == "cpu" {
        (amount / 1000).to_string()
    } else if bytes && amount != 0 {
        let unit = [("Ei", 60), ("Pi", 50), ("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)]
            .into_iter()
            .find(|(_, shift)| amount % (1i64 << shift) == 0);
        match unit {
            Some((suffix, shift)) => format!("{}{suffix}", amount >> shift),
            None => amount.to_string(),
        }
    } else {
        amount.to_string()
    }
}

/// The order a PodSet's resources are weighed in: the accelerators and other extended resources
/// first (what a queue is sized in), then pods, cpu, and the rest; so that a quota short of
/// everything names the accelerator.
fn weighed_first(resource: &str) -> (u8, &str) {
    let rank = match resource {
        r if r.contains('/') => 0,
        "pods" => 1,
        "cpu" => 2,
        _ => 3,
    };
    (rank, resource)
}

impl<'a> Queues<'a> {
    /// The quota in use, from the Workloads that hold quota now.
    pub fn add_workloads(&mut self, workloads: &[Workload]) {
        for wl in workloads {
            let Some(adm) = wl.holding() else { continue };
            for psa in &adm.pod_set_assignments {
                for (resource, amount) in &psa.resource_usage {
                    let Some(flavor) = psa.flavors.get(resource) else { continue };
                    let Ok(a) = quantity::amount(resource, &amount.0) else { continue };
                    *self.usage.entry((adm.cluster_queue.clone(), flavor.clone(), resource.clone())).or_insert(0) += a;
                }
            }
        }
    }

    /// Kueue's verdict for a workload of these PodSets in ClusterQueue `cq`.
    pub fn admit(&self, cq: &str, podsets: &[PodSet]) -> Verdict {
        let Some(queue) = self.cluster_queues.get(cq) else { return Verdict::Never(Blocker::NoClusterQueue { name: cq.to_string() }) };
        let groups = &queue.spec.resource_groups;
        let covers_pods = groups.iter().any(|g| g.covered_resources.iter().any(|r| r == "pods"));
        let tas_only = !groups.is_empty()
            && groups.iter().flat_map(|g| &g.flavors).all(|f| self.flavor(&f.name).is_some_and(|rf| rf.spec.topology_name.is_some()));
        let mut assumed: BTreeMap<(String, String), i64> = BTreeMap::new();
        let mut chosen = Vec::new();
        let mut wait: Option<String> = None;
        let mut borrows = false;
        for ps in podsets {
            let mut request: BTreeMap<String, i64> = ps.requests.keys().map(|r| (r.clone(), ps.total(r))).filter(|(_, v)| *v > 0).collect();
            if covers_pods {
                request.insert("pods".into(), ps.count);
            }
            let mut assigned = BTreeMap::new();
            for (g, group) in groups.iter().enumerate() {
                let mut wanted: Vec<(&String, i64)> =
                    request.iter().filter(|(r, _)| group.covered_resources.contains(r)).map(|(r, v)| (r, *v)).collect();
                wanted.sort_by(|a, b| weighed_first(a.0).cmp(&weighed_first(b.0)));
                let Some((first, _)) = wanted.first() else { continue };
                let mut reasons = Vec::new();
                let mut best: Option<(String, Mode)> = None;
                // The flavor whose quota the message names: the one the pods select most
                // specifically (most of its label keys in their node selector), then the largest.
                let mut exceeded: Option<(usize, Blocker)> = None;
                for fq in &group.flavors {
                    if let Err(why) = self.matches(&fq.name, ps, tas_only, &group.covered_resources) {
                        reasons.push(why);
                        continue;
                    }
                    let mut mode = Mode::Fit { borrows: false };
                    for (resource, need) in &wanted {
                        let key = (fq.name.clone(), (*resource).clone());
                        let value = assumed.get(&key).copied().unwrap_or(0).saturating_add(*need);
                        let cap = self.capacity(queue, &fq.name, resource);
                        if cap.most == 0 {
                            reasons.push(format!("flavor `{}` has no quota for `{resource}`", fq.name));
                            mode = Mode::NoFit;
                            break;
                        }
                        if value > cap.most {
                            let specific = self
                                .flavor(&fq.name)
                                .map_or(0, |rf| rf.spec.node_labels.keys().filter(|k| ps.node_selector.contains_key(*k)).count());
                            let better = exceeded.as_ref().is_none_or(|(s, b)| match b {
                                Blocker::BelowGang { most, .. } => (specific, cap.most) > (*s, *most),
                                _ => false,
                            });
                            if better {
                                exceeded = Some((
                                    specific,
                                    Blocker::BelowGang {
                                        podset: ps.name.clone(),
                                        resource: (*resource).clone(),
                                        flavor: fq.name.clone(),
                                        need: value,
                                        most: cap.most,
                                        per_pod: ps.requests.get(*resource).copied().unwrap_or(0),
                                    },
                                ));
                            }
                            mode = Mode::NoFit;
                            break;
                        }
                        if value > cap.available {
                            mode = Mode::Waits(format!(
                                "flavor `{}` has {} of `{resource}` free of {} and replicated job `{}` needs {}",
                                fq.name,
                                show(resource, cap.available - assumed.get(&key).copied().unwrap_or(0)),
                                show(resource, cap.most),
                                ps.name,
                                show(resource, *need)
                            ));
                        } else if value > cap.nominal {
                            if let Mode::Fit { borrows } = &mut mode {
                                *borrows = true;
                            }
                        }
                    }
                    match mode {
                        Mode::Fit { .. } => {
                            best = Some((fq.name.clone(), mode));
                            break;
                        }
                        Mode::Waits(_) if best.is_none() => best = Some((fq.name.clone(), mode)),
                        _ => {}
                    }
                }
                let Some((flavor, mode)) = best else {
                    return Verdict::Never(exceeded.map(|(_, b)| b).unwrap_or_else(|| Blocker::NoMatchingFlavor {
                        podset: ps.name.clone(),
                        resource: (*first).clone(),
                        reasons: if reasons.is_empty() { vec![format!("resource group {g} has no flavor")] } else { reasons },
                    }));
                };
                match mode {
                    Mode::Fit { borrows: b } => borrows |= b,
                    Mode::Waits(why) => {
                        wait.get_or_insert(why);
                    }
                    Mode::NoFit => {}
                }
                for (resource, need) in &wanted {
                    *assumed.entry((flavor.clone(), (*resource).clone())).or_insert(0) += need;
                    assigned.insert((*resource).clone(), flavor.clone());
                }
            }
            if let Some(resource) = request.keys().find(|r| !groups.iter().any(|g| g.covered_resources.contains(r))) {
                return Verdict::Never(Blocker::NotCovered { podset: ps.name.clone(), resource: resource.clone() });
            }
            chosen.push((ps.name.clone(), assigned));
        }
        match wait {
            Some(reason) => Verdict::Waits { reason },
            None => Verdict::Admitted { flavors: chosen, borrows },
        }
    }

    fn flavor(&self, name: &str) -> Option<&ResourceFlavor> {
        self.flavors.as_ref().and_then(|f| f.get(name).copied())
    }

    /// Whether flavor `name` may take the PodSet's pods (`Err`: why not).
    fn matches(&self, name: &str, ps: &PodSet, tas_only: bool, covered: &[String]) -> Result<(), String> {
        let Some(flavors) = &self.flavors else { return Ok(()) };
        let Some(rf) = flavors.get(name) else { return Err(format!("flavor `{name}` not found")) };
        let spec = &rf.spec;
        let requests_tas = requests_tas(ps);
        if requests_tas || tas_only {
            if !tas_only && spec.topology_name.is_none() && ps.requests.keys().any(|r| covered.contains(r)) {
                return Err(format!("flavor `{name}` does not support Topology Aware Scheduling"));
            }
            if let (Some(topology), Some(level), Some(topologies)) = (&spec.topology_name, requested_level(ps), &self.topologies) {
                if let Some(t) = topologies.get(topology) {
                    if !t.spec.levels.iter().any(|l| &l.node_label == level) {
                        return Err(format!("flavor `{name}`'s Topology `{topology}` has no level `{level}`"));
                    }
                }
            }
        } else if spec.topology_name.is_some() {
            return Err(format!("flavor `{name}` supports only Topology Aware Scheduling (the pods request no topology)"));
        }
        let mut tolerations = ps.tolerations.clone();
        tolerations.extend(spec.tolerations.iter().cloned());
        if let Some(t) = filter::untolerated(&spec.node_taints, &tolerations) {
            return Err(format!("untolerated taint {} in flavor `{name}`", filter::taint_text(t)));
        }
        if !flavor_selects(&spec.node_labels, ps) {
            return Err(format!("flavor `{name}` ({}) doesn't match the pods' node affinity", labels_text(&spec.node_labels)));
        }
        Ok(())
    }

    /// What flavor `flavor` of `queue` has of `resource`.
    fn capacity(&self, queue: &ClusterQueue, flavor: &str, resource: &str) -> Capacity {
        let name = queue.metadata.name.clone().unwrap_or_default();
        let quota = |q: &ClusterQueue| -> Option<(i64, Option<i64>, Option<i64>)> {
            let r = q
                .spec
                .resource_groups
                .iter()
                .flat_map(|g| &g.flavors)
                .filter(|f| f.name == flavor)
                .flat_map(|f| &f.resources)
                .find(|r| r.name == resource)?;
            let amount = |a: &crate::kueue::Amount| quantity::amount(resource, &a.0).ok();
            Some((
                amount(&r.nominal_quota).unwrap_or(0).max(0),
                r.borrowing_limit.as_ref().and_then(amount),
                r.lending_limit.as_ref().and_then(amount),
            ))
        };
        let (nominal, borrowing, _) = quota(queue).unwrap_or((0, Some(0), None));
        let used = self.usage.get(&(name.clone(), flavor.to_string(), resource.to_string())).copied().unwrap_or(0);
        let (mut lendable, mut free) = (0i64, 0i64);
        if let Some(cohort) = queue.spec.cohort() {
            for (other, q) in &self.cluster_queues {
                if *other == name || q.spec.cohort() != Some(cohort) {
                    continue;
                }
                if let Some((n, _, lending)) = quota(q) {
                    let l = lending.unwrap_or(n).min(n);
                    let u = self.usage.get(&(other.clone(), flavor.to_string(), resource.to_string())).copied().unwrap_or(0);
                    lendable = lendable.saturating_add(l);
                    free = free.saturating_add(l.min(n - u).max(0));
                }
            }
        }
        let cap = borrowing.unwrap_or(i64::MAX);
        let borrowed = (used - nominal).max(0);
        Capacity {
            nominal,
            most: nominal.saturating_add(lendable.min(cap)),
            available: (nominal - used).max(0).saturating_add(free.min((cap - borrowed).max(0))),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Mode {
    Fit { borrows: bool },
    Waits(String),
    NoFit,
}

/// Nominal quota, the most the queue can ever have (borrowing included), and what is free now;
/// all counting what the queue itself holds.
struct Capacity {
    nominal: i64,
    most: i64,
    available: i64,
}

/// True when the PodSet's pods ask Topology Aware Scheduling for a placement.
pub fn requests_tas(ps: &PodSet) -> bool {
    let a = &facts().annotations;
    [&a.podset_required_topology, &a.podset_preferred_topology, &a.podset_unconstrained_topology, &a.podset_slice_required_topology]
        .iter()
        .any(|k| ps.annotations.contains_key(k.as_str()))
}

fn requested_level(ps: &PodSet) -> Option<&String> {
    let a = &facts().annotations;
    ps.annotations.get(&a.podset_required_topology).or_else(|| ps.annotations.get(&a.podset_preferred_topology))
}

/// Kueue's `flavorSelector`: the pods' node selector and required affinity, read only for the
/// flavor's label keys (an affinity term left empty drops the affinity), against a node with the
/// flavor's labels.
pub fn flavor_selects(labels: &BTreeMap<String, String>, ps: &PodSet) -> bool {
    let selector: BTreeMap<String, String> =
        ps.node_selector.iter().filter(|(k, _)| labels.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone())).collect();
    if !filter::selector_matches(&selector, labels) {
        return false;
    }
    let Some(affinity) = &ps.affinity else { return true };
    let mut terms = Vec::new();
    for t in &affinity.node_selector_terms {
        let kept: Vec<_> = t.match_expressions.iter().flatten().filter(|e| labels.contains_key(&e.key)).cloned().collect();
        if kept.is_empty() {
            return true;
        }
        terms.push(k8s_openapi::api::core::v1::NodeSelectorTerm { match_expressions: Some(kept), match_fields: None });
    }
    terms.is_empty() || filter::affinity_matches(&k8s_openapi::api::core::v1::NodeSelector { node_selector_terms: terms }, labels, "")
}

/// `a=b, c=d`, or `no node labels`.
pub fn labels_text(labels: &BTreeMap<String, String>) -> String {
    if labels.is_empty() {
        return "no node labels".into();
    }
    labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_as_a_pod_writes_them() {
        assert_eq!(show("hugepages-2Mi", 10 << 30), "10Gi");
        assert_eq!(show("memory", 1536 << 20), "1536Mi");
        assert_eq!(show("memory", 1000), "1000");
        assert_eq!(show("cpu", 1500), "1500m");
        assert_eq!(show("cpu", 4000), "4");
        assert_eq!(show("nvidia.com/gpu", 16), "16");
    }

    #[test]
    fn a_quota_short_of_everything_names_the_accelerator_in_pods() {
        let b = Blocker::BelowGang {
            podset: "node".into(),
            resource: "nvidia.com/gpu".into(),
            flavor: "p5".into(),
            need: 16,
            most: 8,
            per_pod: 8,
        };
        assert_eq!(
            b.to_string(),
            "replicated job `node` needs 16 of `nvidia.com/gpu` (2 pods of 8 each), and flavor `p5` can hold at most 8 (1 pod), borrowing included"
        );
        let mut order = vec!["memory", "hugepages-2Mi", "cpu", "pods", "nvidia.com/gpu"];
        order.sort_by_key(|r| weighed_first(r));
        assert_eq!(order, ["nvidia.com/gpu", "pods", "cpu", "hugepages-2Mi", "memory"]);
    }

    fn obj<T: serde::de::DeserializeOwned>(yaml: &str) -> T {
        serde_json::from_value(crate::yaml::parse_one(yaml).unwrap()).unwrap()
    }

    fn cq(name: &str, cohort: Option<&str>, flavors: &[(&str, &str)]) -> ClusterQueue {
        let fl: Vec<String> = flavors.iter().map(|(f, q)| format!("{{name: {f}, resources: [{{name: nvidia.com/gpu, {q}}}]}}")).collect();
        obj(&format!(
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {{name: {name}}}\nspec: {{{}namespaceSelector: {{}}, resourceGroups: [{{coveredResources: [nvidia.com/gpu], flavors: [{}]}}]}}\n",
            cohort.map(|c| format!("cohortName: {c}, ")).unwrap_or_default(),
            fl.join(", ")
        ))
    }

    fn rf(name: &str, spec: &str) -> ResourceFlavor {
        obj(&format!("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {{name: {name}}}\nspec: {spec}\n"))
    }

    fn gpus(count: i64, per_pod: i64, selector: &[(&str, &str)]) -> PodSet {
        PodSet {
            name: "node".into(),
            job: 0,
            count,
            requests: [("nvidia.com/gpu".to_string(), per_pod)].into(),
            node_selector: selector.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            affinity: None,
            tolerations: Vec::new(),
            annotations: Default::default(),
        }
    }

    #[test]
    fn the_first_matching_flavor_with_room_is_assigned() {
        let q = cq("q", None, &[("a100", "nominalQuota: 64"), ("h100", "nominalQuota: 16")]);
        let (a, h) = (rf("a100", "{nodeLabels: {gpu: a100}}"), rf("h100", "{nodeLabels: {gpu: h100}}"));
        let queues = Queues {
            cluster_queues: [("q".to_string(), &q)].into(),
            flavors: Some([("a100".to_string(), &a), ("h100".to_string(), &h)].into()),
            ..Default::default()
        };
        let v = queues.admit("q", &[gpus(2, 8, &[("gpu", "h100")])]);
        assert_eq!(
            v,
            Verdict::Admitted { flavors: vec![("node".into(), [("nvidia.com/gpu".into(), "h100".into())].into())], borrows: false }
        );
        // Three nodes of 8 need 24 > 16 on the only matching flavor: never.
        let Verdict::Never(Blocker::BelowGang { need, most, flavor, .. }) = queues.admit("q", &[gpus(3, 8, &[("gpu", "h100")])]) else {
            panic!()
        };
        assert_eq!((need, most, flavor.as_str()), (24, 16, "h100"));
        // Selecting on a label no flavor has a value for: no flavor matches.
        let Verdict::Never(Blocker::NoMatchingFlavor { reasons, .. }) = queues.admit("q", &[gpus(1, 8, &[("gpu", "b200")])]) else {
            panic!()
        };
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        // Requesting what the queue does not cover.
        let mut cpu = gpus(1, 8, &[("gpu", "h100")]);
        cpu.requests.insert("cpu".into(), 4000);
        assert!(matches!(queues.admit("q", &[cpu]), Verdict::Never(Blocker::NotCovered { resource, .. }) if resource == "cpu"));
        // A pod that selects on other keys only matches any flavor: Kueue reads the flavor's keys.
        assert!(matches!(queues.admit("q", &[gpus(1, 8, &[("zone", "x")])]), Verdict::Admitted { .. }));
    }

    #[test]
    fn usage_makes_it_wait_and_a_cohort_lends() {
        let q = cq("q", Some("c"), &[("h100", "nominalQuota: 16")]);
        let other = cq("other", Some("c"), &[("h100", "nominalQuota: 32, lendingLimit: 16")]);
        let h = rf("h100", "{nodeLabels: {gpu: h100}}");
        let mut queues = Queues {
            cluster_queues: [("q".to_string(), &q), ("other".to_string(), &other)].into(),
            flavors: Some([("h100".to_string(), &h)].into()),
            ..Default::default()
        };
        // 32 GPUs: 16 own and 16 borrowed.
        assert_eq!(
            queues.admit("q", &[gpus(4, 8, &[])]),
            Verdict::Admitted { flavors: vec![("node".into(), [("nvidia.com/gpu".into(), "h100".into())].into())], borrows: true }
        );
        assert!(matches!(queues.admit("q", &[gpus(5, 8, &[])]), Verdict::Never(Blocker::BelowGang { most: 32, .. })));
        let workloads: Vec<Workload> = vec![serde_json::from_value(serde_json::json!({
            "metadata": {"name": "running"},
            "status": {"conditions": [{"type": "QuotaReserved", "status": "True"}], "admission": {"clusterQueue": "other",
                "podSetAssignments": [{"name": "node", "flavors": {"nvidia.com/gpu": "h100"}, "resourceUsage": {"nvidia.com/gpu": "24"}}]}}
        }))
        .unwrap()];
        queues.add_workloads(&workloads);
        // `other` uses 24 of its 32: 8 left to lend.
        assert!(matches!(queues.admit("q", &[gpus(4, 8, &[])]), Verdict::Waits { .. }));
        assert!(matches!(queues.admit("q", &[gpus(3, 8, &[])]), Verdict::Admitted { borrows: true, .. }));
    }

    #[test]
    fn taints_and_topology_aware_flavors() {
        let q = cq("q", None, &[("tpu", "nominalQuota: 64"), ("cpu", "nominalQuota: 64")]);
        let tpu = rf("tpu", "{nodeLabels: {a: b}, nodeTaints: [{key: google.com/tpu, value: present, effect: NoSchedule}]}");
        let plain = rf("cpu", "{}");
        let queues = Queues {
            cluster_queues: [("q".to_string(), &q)].into(),
            flavors: Some([("tpu".to_string(), &tpu), ("cpu".to_string(), &plain)].into()),
            ..Default::default()
        };
        let Verdict::Admitted { flavors, .. } = queues.admit("q", &[gpus(1, 1, &[])]) else { panic!() };
        assert_eq!(flavors[0].1["nvidia.com/gpu"], "cpu", "the tainted flavor is skipped for a pod that does not tolerate it");
        let tas = rf("tas", "{nodeLabels: {a: b}, topologyName: t}");
        let q2 = cq("q2", None, &[("tas", "nominalQuota: 64"), ("cpu", "nominalQuota: 64")]);
        let queues = Queues {
            cluster_queues: [("q2".to_string(), &q2)].into(),
            flavors: Some([("tas".to_string(), &tas), ("cpu".to_string(), &plain)].into()),
            ..Default::default()
        };
        let Verdict::Admitted { flavors, .. } = queues.admit("q2", &[gpus(1, 1, &[])]) else { panic!() };
        assert_eq!(flavors[0].1["nvidia.com/gpu"], "cpu", "a TAS flavor takes only pods that request a topology");
        let mut requests = gpus(1, 1, &[]);
        requests.annotations.insert(facts().annotations.podset_preferred_topology.clone(), "x".into());
        let Verdict::Admitted { flavors, .. } = queues.admit("q2", &[requests]) else { panic!() };
        assert_eq!(flavors[0].1["nvidia.com/gpu"], "tas");
    }
}
