//! A cluster and a runtime's demand -> the verdict kube-scheduler and JobSet would reach for the
//! whole gang at once: how many copies fit now and on the same nodes without pods in use, where,
//! and, when none fits, the first blocker in words.
//!
//! Per node the filters run in kube-scheduler's default order (NodeUnschedulable, NodeName,
//! TaintToleration, NodeAffinity, then `fit`'s own Ready rule, NodePorts, NodeResourcesFit:
//! kubernetes v1.34 `pkg/scheduler/apis/config/v1/default_plugins.go`; the first failure is the
//! node's reason, `framework/runtime/framework.go` `RunFilterPlugins`). A node that passes takes
//! `k` pods of the gang: the fewest of free/request over the requested resources and its free pod
//! count (`noderesources/fit.go` `fitsRequest`), at most 1 with host ports. Without exclusive
//! placement the gang's pods go anywhere: copies = total slots / gang size. With JobSet's
//! `exclusive-topology: K` each Job needs one value of label K whose nodes take all its pods, and
//! no other Job of the same priority may be there (jobset v0.12.0 `pkg/webhooks/pod_webhook.go`
//! `setExclusiveAffinities`): copies = usable domains / Jobs per gang.
//!
//! The work is linear: nodes are grouped once by what the filters read (the labels the runtimes
//! select on, taints, cordon, Ready, pool), each runtime checks every group once and counts
//! resources only on the nodes of groups that pass.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use k8s_openapi::api::core::v1::{Taint, Toleration};
use serde::Serialize;

use super::demand::Demand;
use super::filter;
use super::inventory::{Cluster, JobPods, NodeInfo, Readiness};
use super::words;
use crate::accelerators::nodes::{accelerator_of, nodes, NodeState};

/// kube-scheduler's words for a node that cannot take the pod (`ErrReason*` of each plugin).
const UNSCHEDULABLE: &str = "node(s) were unschedulable";
const NODE_NAME: &str = "node(s) didn't match the requested node name";
const AFFINITY: &str = "node(s) didn't match Pod's node affinity/selector";
const NOT_READY: &str = "node(s) were not Ready";
const POD_AFFINITY: &str = "node(s) didn't match pod affinity rules";
const EXISTING_ANTI_AFFINITY: &str = "node(s) didn't satisfy existing pods anti-affinity rules";
const PORTS: &str = "node(s) didn't have free ports for the requested pod ports";
const TOO_MANY_PODS: &str = "Too many pods";

/// What `fit` concludes for one runtime.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Pods in one gang (one TrainJob).
    pub pods: u64,
    /// At least one gang fits now.
    pub fits: bool,
    /// Whole gangs that fit at once, with what is free now.
    pub copies: u64,
    /// The same on these nodes with no pod in use.
    pub fits_empty: bool,
    pub copies_empty: u64,
    /// Where the copies go now: node pools, topology domains, or nodes.
    #[serde(rename = "where")]
    pub placement: Vec<String>,
    /// The first blocker in words; empty when it fits.
    pub reason: String,
    /// How to fix it, where `fit` knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// kube-scheduler's reason for each node that cannot take a pod now, with the node count.
    pub nodes: BTreeMap<String, usize>,
    /// What holds even when it fits: pods sharing nodes, the JobSet leader's choice, and what
    /// the pod template asks that `fit` does not model.
    pub notes: Vec<String>,
}

/// Exclusive-topology key -> its value -> the JobSet pods on its nodes.
type Domains = HashMap<String, HashMap<String, JobPods>>;

/// The nodes grouped by what the filters of these runtimes read.
#[derive(Debug)]
pub struct Plan<'c> {
    cluster: &'c Cluster,
    groups: Vec<Vec<usize>>,
    /// Exclusive-topology key -> its value -> the JobSet pods (job key, priority) on its nodes.
    domains: Domains,
}

/// Why one node cannot take a pod of the gang.
#[derive(Debug, Clone, Copy)]
enum Gate<'a> {
    Cordoned,
    Taint(&'a Taint),
    NotReady,
}

/// What a node can take: `k` pods, and why not more when it is 0.
#[derive(Debug, Clone, Copy, Default)]
struct Cap<'a> {
    k: u64,
    short: Option<Short<'a>>,
}

#[derive(Debug, Clone, Copy)]
enum Short<'a> {
    Pods,
    Ports,
    Resource { name: &'a str, free: i64, need: i64 },
}

/// One node that matches the runtime's selector.
#[derive(Debug, Clone, Copy)]
struct Eval<'a> {
    node: &'a NodeInfo,
    gate: Option<Gate<'a>>,
    /// Has every requested extended resource.
    has_ext: bool,
    domain: Option<&'a str>,
    now: Cap<'a>,
    empty: Cap<'a>,
}

impl Eval<'_> {
    fn usable(&self, exclusive: bool) -> bool {
        self.gate.is_none() && (!exclusive || self.domain.is_some())
    }
}

/// One topology domain of an exclusive runtime.
#[derive(Debug, Default)]
struct Domain<'a> {
    evals: Vec<Eval<'a>>,
    slots_now: u64,
    slots_empty: u64,
    blocked: bool,
}

impl<'c> Plan<'c> {
    /// Groups the cluster's nodes for these demands.
    pub fn new<'d>(cluster: &'c Cluster, demands: impl IntoIterator<Item = &'d Demand>) -> Plan<'c> {
        let mut keys = BTreeSet::new();
        let mut exclusive = BTreeSet::new();
        let mut by_name = false;
        for d in demands {
            keys.extend(d.node_selector.keys().cloned());
            if let Some(a) = &d.affinity {
                let (k, n) = filter::affinity_keys(a);
                keys.extend(k.into_iter().map(String::from));
                by_name |= n;
            }
            by_name |= d.node_name.is_some();
            if let Some(k) = &d.exclusive {
                keys.insert(k.clone());
                exclusive.insert(k.clone());
            }
        }
        type Key<'a> = (Vec<Option<&'a str>>, Vec<(&'a str, &'a str, &'a str)>, bool, u8, Option<&'a str>, Option<&'a str>);
        let mut index: HashMap<Key<'c>, usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (i, n) in cluster.nodes.iter().enumerate() {
            let key: Key<'c> = (
                keys.iter().map(|k| n.labels.get(k).map(String::as_str)).collect(),
                n.taints.iter().map(|t| (t.key.as_str(), t.value.as_deref().unwrap_or_default(), t.effect.as_str())).collect(),
                n.unschedulable,
                match n.ready {
                    Readiness::Ready => 0,
                    Readiness::NotReady { .. } => 1,
                    Readiness::Unreported => 2,
                },
                n.pool.as_deref(),
                if by_name { Some(n.name.as_str()) } else { None },
            );
            let next = groups.len();
            let g = *index.entry(key).or_insert(next);
            if g == next {
                groups.push(Vec::new());
            }
            if let Some(group) = groups.get_mut(g) {
                group.push(i);
            }
        }
        let mut domains: Domains = HashMap::new();
        for k in exclusive {
            let mut values: HashMap<String, JobPods> = HashMap::new();
            for n in &cluster.nodes {
                if let Some(v) = n.labels.get(&k) {
                    values.entry(v.clone()).or_default().extend(n.jobs.iter().cloned());
                }
            }
            domains.insert(k, values);
        }
        Plan { cluster, groups, domains }
    }

    /// The verdict for one demand.
    pub fn evaluate(&self, d: &Demand) -> Outcome {
        let c = self.cluster;
        let mut tolerations: Vec<Toleration> = d.tolerations.clone();
        if c.extended_resource_toleration {
            tolerations.extend(d.extended_resource_tolerations());
        }
        // Requests in the scheduler's order: cpu, memory, ephemeral-storage, then scalars.
        let rank = |r: &str| match r {
            "cpu" => 0,
            "memory" => 1,
            "ephemeral-storage" => 2,
            _ => 3,
        };
        let mut res: Vec<(Option<usize>, i64, &str)> = d.requests.iter().map(|(r, a)| (c.resource(r), *a, r.as_str())).collect();
        res.sort_by_key(|(_, _, r)| rank(r));
        let ext: Vec<Option<usize>> = d.extended().map(|r| c.resource(r)).collect();
        let cordon = Taint { key: "node.kubernetes.io/unschedulable".into(), effect: "NoSchedule".into(), ..Taint::default() };
        let cordon_tolerated = tolerations.iter().any(|t| filter::tolerates(t, &cordon));
        let exclusive = d.exclusive.as_deref();
        let blocked_values: HashMap<&str, bool> = match exclusive.and_then(|k| self.domains.get(k)) {
            Some(values) => values
                .iter()
                .map(|(v, jobs)| {
                    let blocked = jobs.iter().any(|(_, prio)| match d.priority {
                        Some(p) => prio.as_deref() == Some(p.to_string().as_str()),
                        None => true,
                    });
                    (v.as_str(), blocked)
                })
                .collect(),
            None => HashMap::new(),
        };

        let mut hist: BTreeMap<String, usize> = BTreeMap::new();
        let mut evals: Vec<Eval<'_>> = Vec::new();
        let mut misses: Vec<&NodeInfo> = Vec::new();
        for group in &self.groups {
            let Some(rep) = group.first().and_then(|i| c.nodes.get(*i)) else { continue };
            let named = d.node_name.as_ref().is_none_or(|n| n == &rep.name);
            let label_ok = filter::selector_matches(&d.node_selector, &rep.labels)
                && d.affinity.as_ref().is_none_or(|a| filter::affinity_matches(a, &rep.labels, &rep.name));
            let cordoned = rep.unschedulable && !cordon_tolerated;
            let taint = filter::untolerated(&rep.taints, &tolerations);
            if !(named && label_ok) {
                let why = match (cordoned, taint) {
                    (true, _) => UNSCHEDULABLE.to_string(),
                    (false, Some(t)) => taint_reason(t),
                    _ if !named => NODE_NAME.to_string(),
                    _ => AFFINITY.to_string(),
                };
                *hist.entry(why).or_default() += group.len();
                misses.push(rep);
                continue;
            }
            let gate = match (cordoned, taint) {
                (true, _) => Some(Gate::Cordoned),
                (false, Some(t)) => Some(Gate::Taint(t)),
                _ if rep.ready != Readiness::Ready => Some(Gate::NotReady),
                _ => None,
            };
            let domain = exclusive.and_then(|k| rep.labels.get(k)).map(String::as_str);
            for node in group.iter().filter_map(|i| c.nodes.get(*i)) {
                let has_ext = ext.iter().all(|r| r.is_some_and(|r| node.has(r)));
                let mut e = Eval { node, gate, has_ext, domain, now: Cap::default(), empty: Cap::default() };
                match gate {
                    Some(Gate::Cordoned) => *hist.entry(UNSCHEDULABLE.into()).or_default() += 1,
                    Some(Gate::Taint(t)) => *hist.entry(taint_reason(t)).or_default() += 1,
                    Some(Gate::NotReady) => *hist.entry(NOT_READY.into()).or_default() += 1,
                    None if exclusive.is_some() && domain.is_none() => *hist.entry(POD_AFFINITY.into()).or_default() += 1,
                    None => {
                        e.now = capacity(node, &res, &d.host_ports, false);
                        e.empty = capacity(node, &res, &d.host_ports, true);
                        if e.now.k > 0 && domain.is_some_and(|v| blocked_values.get(v).copied().unwrap_or(false)) {
                            *hist.entry(EXISTING_ANTI_AFFINITY.into()).or_default() += 1;
                        } else if e.now.k == 0 {
                            *hist.entry(short_reason(e.now.short)).or_default() += 1;
                        }
                    }
                }
                evals.push(e);
            }
        }

        let pods = u64::from(d.pods);
        let jobs = u64::from(d.jobs);
        let mut out = Outcome {
            pods: d.gang(),
            nodes: hist,
            notes: d.unmodelled.iter().map(|u| format!("not checked: {u}")).collect(),
            ..Outcome::default()
        };
        let mut domains: BTreeMap<&str, Domain<'_>> = BTreeMap::new();
        if exclusive.is_some() {
            for e in evals.iter().filter(|e| e.domain.is_some()) {
                let dom = domains.entry(e.domain.unwrap_or_default()).or_default();
                if e.gate.is_none() {
                    dom.slots_now += e.now.k;
                    dom.slots_empty += e.empty.k;
                }
                dom.evals.push(*e);
            }
            for (v, dom) in domains.iter_mut() {
                dom.blocked = blocked_values.get(v).copied().unwrap_or(false);
            }
            let now: Vec<&str> = domains.iter().filter(|(_, dm)| !dm.blocked && dm.slots_now >= pods).map(|(v, _)| *v).collect();
            out.copies = now.len() as u64 / jobs;
            out.copies_empty = domains.values().filter(|dm| dm.slots_empty >= pods).count() as u64 / jobs;
            if out.copies > 0 {
                out.placement = now.iter().map(|v| v.to_string()).collect();
            }
            let partial: Vec<&str> =
                domains.iter().filter(|(_, dm)| !dm.blocked && dm.slots_now > 0 && dm.slots_now < pods).map(|(v, _)| *v).collect();
            if !partial.is_empty() && pods > 1 {
                out.notes.push(format!(
                    "JobSet places a Job's first pod before the others: it may land in {} {}, which cannot take all {pods} pods now, and the rest would stay Pending",
                    domain_word(exclusive.unwrap_or_default()),
                    words::names(&partial)
                ));
            }
        } else {
            let usable = || evals.iter().filter(|e| e.gate.is_none());
            let slots_now: u64 = usable().map(|e| e.now.k).sum();
            let slots_empty: u64 = usable().map(|e| e.empty.k).sum();
            out.copies = slots_now / out.pods.max(1);
            out.copies_empty = slots_empty / out.pods.max(1);
            if out.copies > 0 {
                let places: BTreeSet<&str> =
                    usable().filter(|e| e.now.k > 0).map(|e| e.node.pool.as_deref().unwrap_or(&e.node.name)).collect();
                out.placement = places.into_iter().map(String::from).collect();
            }
            if out.pods > 1 {
                if let Some(most) = usable().filter(|e| e.now.k > 1).max_by_key(|e| (e.now.k, std::cmp::Reverse(&e.node.name))) {
                    out.notes.push(format!(
                        "pods of one TrainJob may share a node (up to {} on {}): nothing in the runtime keeps them on separate nodes",
                        most.now.k.min(out.pods),
                        most.node.name
                    ));
                }
            }
        }
        out.fits = out.copies > 0;
        out.fits_empty = out.copies_empty > 0;
        if !out.fits {
            let (reason, help) = explain(d, c, &evals, &misses, &domains, &out, jobs);
            out.reason = reason;
            out.help = help;
        }
        out
    }
}

/// `node(s) had untolerated taint {key: value}`.
fn taint_reason(t: &Taint) -> String {
    format!("node(s) had untolerated taint {{{}: {}}}", t.key, t.value.as_deref().unwrap_or_default())
}

fn short_reason(s: Option<Short<'_>>) -> String {
    match s {
        Some(Short::Resource { name, .. }) => format!("Insufficient {name}"),
        Some(Short::Ports) => PORTS.into(),
        Some(Short::Pods) | None => TOO_MANY_PODS.into(),
    }
}

/// How many pods of the gang one node takes, with what is free now or on an empty node.
fn capacity<'a>(node: &NodeInfo, res: &[(Option<usize>, i64, &'a str)], ports: &[(String, i32)], empty: bool) -> Cap<'a> {
    if !ports.is_empty() && !empty && ports.iter().any(|p| node.host_ports.contains(p)) {
        return Cap { k: 0, short: Some(Short::Ports) };
    }
    let free_pods = node.free_pods(empty).max(0);
    let mut cap = Cap { k: u64::try_from(free_pods).unwrap_or(0), short: if free_pods == 0 { Some(Short::Pods) } else { None } };
    for (r, need, name) in res {
        let free = r.map(|r| node.free(r, empty)).unwrap_or(0);
        let k = if free <= 0 || *need <= 0 { 0 } else { u64::try_from(free / need).unwrap_or(0) };
        if k < cap.k || (k == 0 && cap.short.is_none()) {
            cap.k = k;
            if k == 0 {
                cap.short = Some(Short::Resource { name, free, need: *need });
            }
        }
    }
    if !ports.is_empty() {
        cap.k = cap.k.min(1);
    }
    cap
}

/// `1 copy`, `3 copies`.
fn copies(n: u64) -> String {
    if n == 1 {
        "1 copy".to_string()
    } else {
        format!("{n} copies")
    }
}

/// `node pool` for a pool label, else `` `K` domain ``.
fn domain_word(key: &str) -> String {
    if nodes().platforms.iter().any(|p| p.pool_labels.iter().any(|l| l == key)) {
        "node pool".to_string()
    } else {
        format!("`{key}` domain")
    }
}

/// What kind of node the runtime asks for, in words: `node for TPU v5e 4x4`, `node with a=b`,
/// `node with nvidia.com/gpu`, or `node`.
fn noun(d: &Demand) -> String {
    if !d.node_selector.is_empty() {
        return match accelerator_of(&d.node_selector) {
            Some(acc) => format!("node for {acc}"),
            None => format!("node with {}", words::labels(&d.node_selector)),
        };
    }
    if d.affinity.is_some() {
        return "node matching the pod's node affinity".to_string();
    }
    let ext: Vec<&str> = d.extended().collect();
    if ext.is_empty() {
        "node".to_string()
    } else {
        format!("node with {}", ext.join(" and "))
    }
}

/// A gate in words, and its kind for grouping: `cordoned`, `not Ready (...)`, or the taint.
fn gate_words(e: &Eval<'_>) -> (u8, String) {
    match e.gate {
        Some(Gate::Cordoned) => (0, "cordoned (spec.unschedulable)".to_string()),
        Some(Gate::Taint(t)) => match nodes().node_taint(&t.key) {
            Some(known) if known.state == NodeState::Cordoned => (0, "cordoned (spec.unschedulable)".to_string()),
            Some(known) => (1, format!("{} (taint {})", known.means, filter::taint_text(t))),
            None => (2, format!("has the taint {}, which the pod does not tolerate", filter::taint_text(t))),
        },
        Some(Gate::NotReady) => (
            1,
            match &e.node.ready {
                Readiness::NotReady { status, reason } if reason.is_empty() => format!("not Ready (Ready={status})"),
                Readiness::NotReady { status, reason } => format!("not Ready (Ready={status}: {reason})"),
                _ => "not Ready (it reports no Ready condition)".to_string(),
            },
        ),
        None => (3, String::new()),
    }
}

/// The help for an untolerated taint a platform puts on its pools.
fn taint_help(t: &Taint) -> Option<String> {
    let (_, known) = nodes().pool_taint(&t.key, t.value.as_deref().unwrap_or_default(), &t.effect)?;
    Some(format!(
        "{} carry the taint {}: add the toleration {} to the runtime (`spec.tolerations` of the catalog entry, or the pod template's `tolerations`)",
        known.on,
        filter::taint_text(t),
        known.toleration()
    ))
}

/// Groups gated nodes by what stops them: `2 cordoned (a, b); 1 not Ready (...) (c)`.
fn gate_summary(gated: &[&Eval<'_>]) -> Vec<(u8, String, Vec<String>)> {
    let mut by: BTreeMap<(u8, String), Vec<String>> = BTreeMap::new();
    for e in gated {
        let (kind, text) = gate_words(e);
        by.entry((kind, text)).or_default().push(e.node.name.clone());
    }
    by.into_iter().map(|((k, t), n)| (k, t, n)).collect()
}

/// What stops a node taking a pod on an empty cluster: `Insufficient cpu (3 free, 4 needed)`.
fn short_words(s: Option<Short<'_>>) -> String {
    match s {
        Some(Short::Resource { name, free, need }) => {
            format!("Insufficient {name} ({} allocatable, {} needed)", words::amount(name, free.max(0)), words::amount(name, need))
        }
        Some(Short::Ports) => "its host ports are taken".to_string(),
        Some(Short::Pods) | None => "Too many pods (allocatable `pods` reached)".to_string(),
    }
}

/// The first blocker of a runtime that does not fit now, and how to fix it where known.
fn explain(
    d: &Demand,
    c: &Cluster,
    evals: &[Eval<'_>],
    misses: &[&NodeInfo],
    domains: &BTreeMap<&str, Domain<'_>>,
    out: &Outcome,
    jobs: u64,
) -> (String, Option<String>) {
    let noun = noun(d);
    // No node matches the selector.
    if evals.is_empty() {
        if let Some(name) = &d.node_name {
            if !c.nodes.iter().any(|n| &n.name == name) {
                return (format!("no node is named `{name}` (the pod template's `nodeName`)"), None);
            }
        }
        if d.node_selector.is_empty() {
            return ("no node matches the pod's required node affinity".to_string(), None);
        }
        let want = words::labels(&d.node_selector).replace(", ", " and ");
        let mut reason = match accelerator_of(&d.node_selector) {
            Some(acc) => format!("no node pool for {acc}: no node has {want}"),
            None => format!("no node has {want}"),
        };
        // The closest: the node sharing most of the selector.
        let score = |n: &NodeInfo| d.node_selector.iter().filter(|(k, v)| n.labels.get(*k) == Some(*v)).count();
        if let Some(best) = misses.iter().filter(|n| score(n) > 0).max_by_key(|n| (score(n), std::cmp::Reverse(n.name.as_str()))) {
            let differs: Vec<String> = d
                .node_selector
                .iter()
                .filter(|(k, v)| best.labels.get(*k) != Some(*v))
                .map(|(k, _)| match best.labels.get(k) {
                    Some(have) => format!("{k}={have}"),
                    None => format!("no {k}"),
                })
                .collect();
            let place = match &best.pool {
                Some(p) => format!("node pool {p}"),
                None => format!("node {}", best.name),
            };
            reason.push_str(&format!("; the closest, {place}, has {}", differs.join(" and ")));
        }
        return (reason, None);
    }
    let exclusive = d.exclusive.as_deref();
    // Narrowed to nodes that have the requested extended resources at all.
    let ext: Vec<&str> = d.extended().collect();
    let with_ext: Vec<&Eval<'_>> = evals.iter().filter(|e| e.has_ext).collect();
    if !ext.is_empty() && with_ext.is_empty() {
        let what = ext.join(" or ");
        let reason = if d.node_selector.is_empty() && d.affinity.is_none() {
            format!("no node has {what} (in capacity or allocatable)")
        } else {
            format!(
                "no {noun} has {what}: {} match the selector but report none (is the device plugin running?)",
                words::count(evals.len(), "node")
            )
        };
        return (reason, None);
    }
    let scope: Vec<&Eval<'_>> = if ext.is_empty() { evals.iter().collect() } else { with_ext };
    // Every candidate is cordoned, tainted or not Ready.
    let gated: Vec<&Eval<'_>> = scope.iter().copied().filter(|e| e.gate.is_some()).collect();
    if gated.len() == scope.len() {
        let summary = gate_summary(&gated);
        let help = gated.iter().find_map(|e| match e.gate {
            Some(Gate::Taint(t)) if nodes().node_taint(&t.key).is_none() => taint_help(t),
            _ => None,
        });
        if let [(kind, text, names)] = summary.as_slice() {
            let reason = match kind {
                2 => format!("every {noun} {text}: {}", words::names(names)),
                _ => format!("every {noun} is {text}: {}", words::names(names)),
            };
            let help = help.or_else(|| (*kind == 0).then(|| "uncordon a node with `kubectl uncordon NODE`".to_string()));
            return (reason, help);
        }
        let parts: Vec<String> = summary
            .iter()
            .map(|(kind, text, names)| match kind {
                2 => format!(
                    "{} {} ({})",
                    words::count(names.len(), "node"),
                    text.replacen("has ", "have ", 1).replacen("does not", "do not", 1),
                    words::names(names)
                ),
                _ => format!("{} {} ({})", words::count(names.len(), "node"), text, words::names(names)),
            })
            .collect();
        return (format!("no {noun} can take a pod: {}", parts.join("; ")), help);
    }
    if let Some(key) = exclusive {
        if !scope.iter().any(|e| e.usable(true)) {
            return (
                format!("no usable {noun} has the label {key}: JobSet exclusive placement keeps each Job's pods inside one value of it"),
                Some(format!("label the nodes of each {} with {key}", domain_word(key))),
            );
        }
    }
    let per_pod = words::requests(&d.requests);
    let pods = u64::from(d.pods);
    if out.copies_empty == 0 {
        return match exclusive {
            Some(key) => {
                let word = domain_word(key);
                let with = if d.node_selector.is_empty() { String::new() } else { format!(" with {}", words::labels(&d.node_selector)) };
                let fitting: Vec<&str> = domains.iter().filter(|(_, dm)| dm.slots_empty >= pods).map(|(v, _)| *v).collect();
                if !fitting.is_empty() {
                    return (
                        format!(
                            "needs {jobs} {word}s ({key}){with} that each take {pods} pods ({per_pod} each); {} can: {}",
                            fitting.len(),
                            words::names(&fitting)
                        ),
                        None,
                    );
                }
                let Some((value, best)) = domains.iter().max_by_key(|(v, dm)| (dm.slots_empty, dm.evals.len(), std::cmp::Reverse(**v)))
                else {
                    return (format!("no {noun} can take a pod"), None);
                };
                let mut detail = format!(
                    "the closest, {word} {value}, takes {}: {} of its {} are usable",
                    best.slots_empty,
                    best.evals.iter().filter(|e| e.gate.is_none() && e.empty.k > 0).count(),
                    words::count(best.evals.len(), "node")
                );
                let gated: Vec<&Eval<'_>> = best.evals.iter().filter(|e| e.gate.is_some()).collect();
                for (_, text, names) in gate_summary(&gated) {
                    detail.push_str(&format!("; {} is {text}", words::names(&names)));
                }
                let short: Vec<&Eval<'_>> = best.evals.iter().filter(|e| e.gate.is_none() && e.empty.k == 0).collect();
                if let Some(first) = short.first() {
                    detail.push_str(&format!(
                        "; {}: {}",
                        words::names(&short.iter().map(|e| e.node.name.as_str()).collect::<Vec<_>>()),
                        short_words(first.empty.short)
                    ));
                }
                (format!("needs {pods} pods ({per_pod} each) in one {word} ({key}){with}; {detail}"), None)
            }
            None => {
                let usable: Vec<&&Eval<'_>> = scope.iter().filter(|e| e.gate.is_none()).collect();
                let takes: u64 = usable.iter().map(|e| e.empty.k).sum();
                let mut detail = match usable.len() {
                    0 => "none is usable".to_string(),
                    1 => format!("the one usable node takes {takes}"),
                    n => format!("the {n} usable nodes take {takes}"),
                };
                let short: Vec<&&&Eval<'_>> = usable.iter().filter(|e| e.empty.k == 0).collect();
                if let Some(first) = short.first() {
                    let names: Vec<&str> = short.iter().map(|e| e.node.name.as_str()).collect();
                    detail.push_str(&format!("; {}: {}", words::names(&names), short_words(first.empty.short)));
                }
                let gated: Vec<&Eval<'_>> = scope.iter().copied().filter(|e| e.gate.is_some()).collect();
                for (_, text, names) in gate_summary(&gated) {
                    detail.push_str(&format!("; {} is {text}", words::names(&names)));
                }
                (format!("needs {} pods ({per_pod} each) on {}; {detail}", out.pods, noun.replacen("node", "nodes", 1)), None)
            }
        };
    }
    // It would fit these nodes if they were empty.
    let reason = match exclusive {
        Some(key) => {
            let word = domain_word(key);
            let parts: Vec<String> = domains
                .iter()
                .filter(|(_, dm)| dm.slots_empty >= pods)
                .map(|(v, dm)| {
                    if dm.blocked {
                        format!("{word} {v} holds another JobSet's pods (one Job per {word})")
                    } else {
                        let holders: Vec<&str> = dm.evals.iter().flat_map(|e| e.node.holders.iter().map(String::as_str)).collect();
                        format!("{word} {v} takes {} of {pods} now (in use by {})", dm.slots_now, words::names(&holders))
                    }
                })
                .collect();
            format!("fits an empty cluster ({}), not now: {}", copies(out.copies_empty), parts.join("; "))
        }
        None => {
            let usable: Vec<&&Eval<'_>> = scope.iter().filter(|e| e.gate.is_none()).collect();
            let now: u64 = usable.iter().map(|e| e.now.k).sum();
            let holders: Vec<String> = usable
                .iter()
                .filter(|e| e.empty.k > e.now.k)
                .flat_map(|e| e.node.holders.iter().map(move |h| format!("{h} on {}", e.node.name)))
                .collect();
            format!(
                "fits an empty cluster ({}), not now: pods in use leave room for {now} of its {} pods ({})",
                copies(out.copies_empty),
                out.pods,
                words::names(&holders)
            )
        }
    };
    (reason, None)
}
