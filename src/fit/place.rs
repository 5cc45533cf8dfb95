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
//! `setExclusiveAffinities`): copies = usable domains / Jobs per gang. The same terms on a
//! leader pod in use keep every runtime's pods of its priority out of its domain now
//! (InterPodAffinity's check of existing pods' anti-affinity, after the resources).
//!
//! The work is linear: nodes are grouped once by what the filters read (the labels the runtimes
//! select on, taints, cordon, Ready, pool), each runtime checks every group once and counts
//! resources only on the nodes of groups that pass.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use k8s_openapi::api::core::v1::{Taint, Toleration};
use serde::Serialize;

use super::demand::Demand;
use super::inventory::{Cluster, JobPods, NodeInfo, Readiness};
use super::words;
use crate::accelerators::nodes::{accelerator_of, nodes, NodeState};
use crate::k8s::selection as filter;

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

/// Why the nodes of a group cannot take a pod of the gang.
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Short<'a> {
    Pods,
    Ports,
    Resource { name: &'a str, free: i64, need: i64 },
}

/// A group of nodes that matches the runtime's selector: its nodes, one of them standing for
/// all (they share what the filters read), what stops them, and their topology domain.
#[derive(Debug, Clone, Copy)]
struct Matched<'a> {
    nodes: &'a [usize],
    rep: &'a NodeInfo,
    gate: Option<Gate<'a>>,
    domain: Option<&'a str>,
}

/// A node of a group that passes the gates: what it takes now and empty.
#[derive(Debug, Clone, Copy)]
struct Eval<'a> {
    node: &'a NodeInfo,
    /// Index into the matched groups.
    group: usize,
    /// Has every requested extended resource.
    has_ext: bool,
    now: Cap<'a>,
    empty: Cap<'a>,
}

/// One topology domain of an exclusive runtime.
#[derive(Debug, Default)]
struct Domain {
    /// Indexes of its matched groups and of its evaluated nodes.
    groups: Vec<usize>,
    evals: Vec<usize>,
    slots_now: u64,
    slots_empty: u64,
    blocked: bool,
}

/// A histogram key, turned into kube-scheduler's words once per runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Why<'a> {
    Fixed(&'static str),
    Taint(&'a str, &'a str),
    Insufficient(&'a str),
}

/// What one runtime's evaluation found, for the explanation.
struct Found<'a> {
    d: &'a Demand,
    cluster: &'a Cluster,
    matched: Vec<Matched<'a>>,
    evals: Vec<Eval<'a>>,
    /// One node of each group that does not match the selector.
    misses: Vec<&'a NodeInfo>,
    domains: BTreeMap<&'a str, Domain>,
    /// Indexes of the requested extended resources.
    ext: Vec<Option<usize>>,
}

impl Found<'_> {
    /// True when the node has every requested extended resource (or none is requested).
    fn in_scope(&self, n: &NodeInfo) -> bool {
        self.ext.iter().all(|r| r.is_some_and(|r| n.has(r)))
    }

    fn nodes_of<'s>(&'s self, g: &Matched<'s>) -> impl Iterator<Item = &'s NodeInfo> + 's {
        g.nodes.iter().filter_map(|i| self.cluster.nodes.get(*i))
    }
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
        let tolerations: Vec<Toleration> = filter::admitted_tolerations(&d.tolerations, d.extended(), c.extended_resource_toleration);
        // Requests in the scheduler's order: cpu, memory, ephemeral-storage, then scalars.
        let rank = |r: &str| match r {
            "cpu" => 0,
            "memory" => 1,
            "ephemeral-storage" => 2,
            _ => 3,
        };
        let mut res: Vec<(Option<usize>, i64, &str)> = d.requests.iter().map(|(r, a)| (c.resource(r), *a, r.as_str())).collect();
        res.sort_by_key(|(_, _, r)| rank(r));
        let cordon_tolerated = filter::tolerates_cordon(&tolerations);
        let exclusive = d.exclusive.as_deref();
        let priority = d.priority.map(|p| p.to_string());
        let blocked_values: HashMap<&str, bool> = match exclusive.and_then(|k| self.domains.get(k)) {
            Some(values) => values
                .iter()
                .map(|(v, jobs)| {
                    let blocked = jobs.iter().any(|(_, prio)| match &priority {
                        Some(p) => prio.as_deref() == Some(p.as_str()),
                        None => true,
                    });
                    (v.as_str(), blocked)
                })
                .collect(),
            None => HashMap::new(),
        };
        let mut found = Found {
            d,
            cluster: c,
            matched: Vec::new(),
            evals: Vec::new(),
            misses: Vec::new(),
            domains: BTreeMap::new(),
            ext: d.extended().map(|r| c.resource(r)).collect(),
        };
        let mut hist: HashMap<Why<'_>, usize> = HashMap::new();
        for group in &self.groups {
            let Some(rep) = group.first().and_then(|i| c.nodes.get(*i)) else { continue };
            let named = d.node_name.as_ref().is_none_or(|n| n == &rep.name);
            let label_ok = filter::selector_matches(&d.node_selector, &rep.labels)
                && d.affinity.as_ref().is_none_or(|a| filter::affinity_matches(a, &rep.labels, &rep.name));
            let cordoned = rep.unschedulable && !cordon_tolerated;
            let taint = filter::untolerated(&rep.taints, &tolerations);
            if !(named && label_ok) {
                let why = match (cordoned, taint) {
                    (true, _) => Why::Fixed(UNSCHEDULABLE),
                    (false, Some(t)) => taint_why(t),
                    _ if !named => Why::Fixed(NODE_NAME),
                    _ => Why::Fixed(AFFINITY),
                };
                *hist.entry(why).or_default() += group.len();
                found.misses.push(rep);
                continue;
            }
            let gate = match (cordoned, taint) {
                (true, _) => Some(Gate::Cordoned),
                (false, Some(t)) => Some(Gate::Taint(t)),
                _ if rep.ready != Readiness::Ready => Some(Gate::NotReady),
                _ => None,
            };
            let domain = exclusive.and_then(|k| rep.labels.get(k)).map(String::as_str);
            let g = found.matched.len();
            found.matched.push(Matched { nodes: group, rep, gate, domain });
            if let Some(v) = domain {
                found.domains.entry(v).or_default().groups.push(g);
            }
            let why = match gate {
                Some(Gate::Cordoned) => Some(Why::Fixed(UNSCHEDULABLE)),
                Some(Gate::Taint(t)) => Some(taint_why(t)),
                Some(Gate::NotReady) => Some(Why::Fixed(NOT_READY)),
                None if exclusive.is_some() && domain.is_none() => Some(Why::Fixed(POD_AFFINITY)),
                None => None,
            };
            if let Some(why) = why {
                *hist.entry(why).or_default() += group.len();
                continue;
            }
            let blocked = domain.is_some_and(|v| blocked_values.get(v).copied().unwrap_or(false));
            for node in group.iter().filter_map(|i| c.nodes.get(*i)) {
                let mut now = capacity(node, &res, &d.host_ports, false);
                let empty = capacity(node, &res, &d.host_ports, true);
                // InterPodAffinity runs after NodeResourcesFit: a node short of resources says so.
                if now.k > 0 && (blocked || node.repels(d.priority)) {
                    *hist.entry(Why::Fixed(EXISTING_ANTI_AFFINITY)).or_default() += 1;
                    if !blocked {
                        now.k = 0;
                    }
                } else if now.k == 0 {
                    let why = match now.short {
                        Some(Short::Resource { name, .. }) => Why::Insufficient(name),
                        Some(Short::Ports) => Why::Fixed(PORTS),
                        Some(Short::Pods) | None => Why::Fixed(TOO_MANY_PODS),
                    };
                    *hist.entry(why).or_default() += 1;
                }
                if let Some(v) = domain {
                    let dom = found.domains.entry(v).or_default();
                    dom.slots_now += now.k;
                    dom.slots_empty += empty.k;
                    dom.evals.push(found.evals.len());
                }
                found.evals.push(Eval { node, group: g, has_ext: found.in_scope(node), now, empty });
            }
        }
        let nodes = hist
            .into_iter()
            .map(|(why, n)| {
                let text = match why {
                    Why::Fixed(s) => s.to_string(),
                    Why::Taint(k, v) => format!("node(s) had untolerated taint {{{k}: {v}}}"),
                    Why::Insufficient(r) => format!("Insufficient {r}"),
                };
                (text, n)
            })
            .collect();

        let pods = u64::from(d.pods);
        let jobs = u64::from(d.jobs);
        let mut out = Outcome {
            pods: d.gang(),
            nodes,
            notes: d.unmodelled.iter().map(|u| format!("not checked: {u}")).collect(),
            ..Outcome::default()
        };
        if let Some(key) = exclusive {
            for (v, dom) in found.domains.iter_mut() {
                dom.blocked = blocked_values.get(v).copied().unwrap_or(false);
            }
            let now: Vec<&str> = found.domains.iter().filter(|(_, dm)| !dm.blocked && dm.slots_now >= pods).map(|(v, _)| *v).collect();
            out.copies = now.len() as u64 / jobs;
            out.copies_empty = found.domains.values().filter(|dm| dm.slots_empty >= pods).count() as u64 / jobs;
            if out.copies > 0 {
                out.placement = now.iter().map(|v| v.to_string()).collect();
            }
            let partial: Vec<&str> =
                found.domains.iter().filter(|(_, dm)| !dm.blocked && dm.slots_now > 0 && dm.slots_now < pods).map(|(v, _)| *v).collect();
            if !partial.is_empty() && pods > 1 {
                out.notes.push(format!(
                    "JobSet places a Job's first pod before the others: it may land in {} {}, which cannot take all {pods} pods now, and the rest would stay Pending",
                    domain_word(key),
                    words::names(&partial)
                ));
            }
        } else {
            let slots_now: u64 = found.evals.iter().map(|e| e.now.k).sum();
            let slots_empty: u64 = found.evals.iter().map(|e| e.empty.k).sum();
            out.copies = slots_now / out.pods.max(1);
            out.copies_empty = slots_empty / out.pods.max(1);
            if out.copies > 0 {
                let places: BTreeSet<&str> =
                    found.evals.iter().filter(|e| e.now.k > 0).map(|e| e.node.pool.as_deref().unwrap_or(&e.node.name)).collect();
                out.placement = places.into_iter().map(String::from).collect();
            }
            if out.pods > 1 {
                if let Some(most) = found.evals.iter().filter(|e| e.now.k > 1).max_by_key(|e| (e.now.k, std::cmp::Reverse(&e.node.name))) {
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
            let (reason, help) = explain(&found, &out, jobs);
            out.reason = reason;
            out.help = help;
        }
        out
    }
}

/// The histogram key of an untolerated taint.
fn taint_why(t: &Taint) -> Why<'_> {
    Why::Taint(t.key.as_str(), t.value.as_deref().unwrap_or_default())
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

/// `1 pod (4 google.com/tpu)`, `4 pods (4 google.com/tpu each)`.
fn gang(pods: u64, per_pod: &str) -> String {
    if pods == 1 {
        format!("1 pod ({per_pod})")
    } else {
        format!("{pods} pods ({per_pod} each)")
    }
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

/// A gate in words, and its kind for grouping: 0 cordoned, 1 not Ready or a node condition,
/// 2 a taint the pod does not tolerate.
fn gate_words(g: &Matched<'_>) -> (u8, String) {
    match g.gate {
        Some(Gate::Cordoned) => (0, "cordoned (spec.unschedulable)".to_string()),
        Some(Gate::Taint(t)) => match nodes().node_taint(&t.key) {
            Some(known) if known.state == NodeState::Cordoned => (0, "cordoned (spec.unschedulable)".to_string()),
            Some(known) => (1, format!("{} (taint {})", known.means, filter::taint_text(t))),
            None => (2, format!("has the taint {}, which the pod does not tolerate", filter::taint_text(t))),
        },
        Some(Gate::NotReady) => (
            1,
            match &g.rep.ready {
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

impl<'a> Found<'a> {
    /// The gated groups among `groups` (indexes), by what stops them, with the names of their
    /// nodes in scope: `(kind, words, names)`.
    fn gates(&self, groups: impl Iterator<Item = usize>) -> Vec<(u8, String, Vec<&str>)> {
        let mut by: BTreeMap<(u8, String), Vec<&str>> = BTreeMap::new();
        for g in groups.filter_map(|g| self.matched.get(g)).filter(|g| g.gate.is_some()) {
            let names: Vec<&str> = self.nodes_of(g).filter(|n| self.in_scope(n)).map(|n| n.name.as_str()).collect();
            if !names.is_empty() {
                by.entry(gate_words(g)).or_default().extend(names);
            }
        }
        by.into_iter().map(|((k, t), n)| (k, t, n)).collect()
    }

    /// Gated nodes as a clause per kind: `; a is cordoned (spec.unschedulable)`.
    fn gate_clauses(&self, groups: impl Iterator<Item = usize>) -> String {
        self.gates(groups).into_iter().map(|(_, text, names)| format!("; {} is {text}", words::names(&names))).collect()
    }

    /// The evaluated nodes in scope that take nothing on an empty cluster, as a clause.
    fn short_clause<'e>(&self, evals: impl Iterator<Item = &'e Eval<'a>>) -> String
    where
        'a: 'e,
    {
        let short: Vec<&Eval<'_>> = evals.filter(|e| e.has_ext && e.empty.k == 0).collect();
        match short.first() {
            Some(first) => {
                let names: Vec<&str> = short.iter().map(|e| e.node.name.as_str()).collect();
                format!("; {}: {}", words::names(&names), short_words(first.empty.short))
            }
            None => String::new(),
        }
    }
}

/// The first blocker of a runtime that does not fit now, and how to fix it where known.
fn explain(f: &Found<'_>, out: &Outcome, jobs: u64) -> (String, Option<String>) {
    let d = f.d;
    let noun = noun(d);
    // No node matches the selector.
    if f.matched.is_empty() {
        if let Some(name) = &d.node_name {
            if !f.cluster.nodes.iter().any(|n| &n.name == name) {
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
        if let Some(best) = f.misses.iter().filter(|n| score(n) > 0).max_by_key(|n| (score(n), std::cmp::Reverse(n.name.as_str()))) {
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
    let all_groups = || 0..f.matched.len();
    // Narrowed to nodes that have the requested extended resources at all.
    let ext: Vec<&str> = d.extended().collect();
    let matched_nodes: usize = f.matched.iter().map(|g| g.nodes.len()).sum();
    let in_scope: usize = f.matched.iter().map(|g| f.nodes_of(g).filter(|n| f.in_scope(n)).count()).sum();
    if !ext.is_empty() && in_scope == 0 {
        let what = ext.join(" or ");
        let reason = if d.node_selector.is_empty() && d.affinity.is_none() {
            format!("no node has {what} (in capacity or allocatable)")
        } else {
            format!(
                "no {noun} has {what}: {} match the selector but report none (is the device plugin running?)",
                words::count(matched_nodes, "node")
            )
        };
        return (reason, None);
    }
    // Every candidate is cordoned, tainted or not Ready.
    let ungated: usize = f.matched.iter().filter(|g| g.gate.is_none()).map(|g| f.nodes_of(g).filter(|n| f.in_scope(n)).count()).sum();
    if ungated == 0 {
        let summary = f.gates(all_groups());
        let help = f.matched.iter().find_map(|g| match g.gate {
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
            .map(|(kind, text, names)| {
                let text = if *kind == 2 { text.replacen("has ", "have ", 1).replacen("does not", "do not", 1) } else { text.clone() };
                format!("{} {text} ({})", words::count(names.len(), "node"), words::names(names))
            })
            .collect();
        return (format!("no {noun} can take a pod: {}", parts.join("; ")), help);
    }
    if let Some(key) = exclusive {
        if !f.evals.iter().any(|e| e.has_ext && f.matched.get(e.group).is_some_and(|g| g.domain.is_some())) {
            return (
                format!("no usable {noun} has the label {key}: JobSet exclusive placement keeps each Job's pods inside one value of it"),
                Some(format!("label the nodes of each {} with {key}", domain_word(key))),
            );
        }
    }
    let per_pod = words::requests(&d.requests);
    let pods = u64::from(d.pods);
    let evals_of = |dom: &Domain| dom.evals.iter().filter_map(|i| f.evals.get(*i)).collect::<Vec<_>>();
    if out.copies_empty == 0 {
        return match exclusive {
            Some(key) => {
                let word = domain_word(key);
                let with = if d.node_selector.is_empty() { String::new() } else { format!(" with {}", words::labels(&d.node_selector)) };
                let fitting: Vec<&str> = f.domains.iter().filter(|(_, dm)| dm.slots_empty >= pods).map(|(v, _)| *v).collect();
                if !fitting.is_empty() {
                    return (
                        format!(
                            "needs {jobs} {word}s ({key}){with} that each take {}; {} can: {}",
                            gang(pods, &per_pod),
                            fitting.len(),
                            words::names(&fitting)
                        ),
                        None,
                    );
                }
                let size = |dm: &Domain| {
                    dm.groups
                        .iter()
                        .filter_map(|g| f.matched.get(*g))
                        .map(|g| f.nodes_of(g).filter(|n| f.in_scope(n)).count())
                        .sum::<usize>()
                };
                let Some((value, best)) = f.domains.iter().max_by_key(|(v, dm)| (dm.slots_empty, size(dm), std::cmp::Reverse(**v))) else {
                    return (format!("no {noun} can take a pod"), None);
                };
                let evals = evals_of(best);
                let mut detail = format!(
                    "the closest, {word} {value}, takes {}: {} of its {} are usable",
                    best.slots_empty,
                    evals.iter().filter(|e| e.has_ext && e.empty.k > 0).count(),
                    words::count(size(best), "node")
                );
                detail.push_str(&f.gate_clauses(best.groups.iter().copied()));
                detail.push_str(&f.short_clause(evals.iter().copied()));
                (format!("needs {} in one {word} ({key}){with}; {detail}", gang(pods, &per_pod)), None)
            }
            None => {
                let usable: Vec<&Eval<'_>> = f.evals.iter().filter(|e| e.has_ext).collect();
                let takes: u64 = usable.iter().map(|e| e.empty.k).sum();
                let mut detail = match usable.len() {
                    1 => format!("the one usable node takes {takes}"),
                    n => format!("the {n} usable nodes take {takes}"),
                };
                detail.push_str(&f.short_clause(usable.iter().copied()));
                detail.push_str(&f.gate_clauses(all_groups()));
                let on = if out.pods == 1 { format!("a {noun}") } else { noun.replacen("node", "nodes", 1) };
                (format!("needs {} on {on}; {detail}", gang(out.pods, &per_pod)), None)
            }
        };
    }
    // It would fit these nodes if they were empty.
    let reason = match exclusive {
        Some(key) => {
            let word = domain_word(key);
            let parts: Vec<String> = f
                .domains
                .iter()
                .filter(|(_, dm)| dm.slots_empty >= pods)
                .map(|(v, dm)| {
                    if dm.blocked {
                        format!("{word} {v} holds another JobSet's pods (one Job per {word})")
                    } else {
                        let holders: Vec<&str> = evals_of(dm).iter().flat_map(|e| e.node.holders.iter().map(String::as_str)).collect();
                        format!("{word} {v} takes {} of {pods} now (in use by {})", dm.slots_now, words::names(&holders))
                    }
                })
                .collect();
            format!("fits an empty cluster ({}), not now: {}", copies(out.copies_empty), parts.join("; "))
        }
        None => {
            let usable = || f.evals.iter().filter(|e| e.has_ext);
            let now: u64 = usable().map(|e| e.now.k).sum();
            let holders: Vec<String> = usable()
                .filter(|e| e.empty.k > e.now.k)
                .flat_map(|e| e.node.holders.iter().map(move |h| format!("{h} on {}", e.node.name)))
                .take(4)
                .collect();
            format!(
                "fits an empty cluster ({}), not now: pods in use leave room for {now} of its {} ({})",
                copies(out.copies_empty),
                words::count(usize::try_from(out.pods).unwrap_or(usize::MAX), "pod"),
                words::names(&holders)
            )
        }
    };
    (reason, None)
}
