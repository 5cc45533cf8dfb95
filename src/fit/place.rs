//! A cluster and a runtime's demand -> the verdict kube-scheduler and JobSet would reach for the
//! whole gang at once: how many copies fit now and on the same nodes without pods in use, where,
//! and, when none fits, the first blocker, as data ([`Placement`], [`Blocker`]; [`super::words`]
//! says it).
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

use super::demand::Demand;
use super::inventory::{Cluster, NodeInfo, Readiness};
use crate::accelerators::nodes::{accelerator_of, nodes, NodeState};
use crate::k8s::requests::Amounts;
use crate::k8s::selection as filter;

/// What placement concludes for one demand, as data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    /// Pods in one gang (one TrainJob).
    pub pods: u64,
    /// Whole gangs that fit at once, with what is free now, and with no pod in use.
    pub copies: u64,
    pub copies_empty: u64,
    /// Where the copies go now: node pools, topology domains, or nodes.
    pub placement: Vec<String>,
    /// The first blocker; `None` when a copy fits now.
    pub blocker: Option<Blocker>,
    /// kube-scheduler's reason for each node that cannot take a pod now, with the node count.
    pub reasons: Vec<(Why, usize)>,
    /// What holds even when it fits.
    pub notes: Vec<Note>,
    /// No copy fits the standing nodes now, and autoscaling would create nodes for it
    /// ([`super::provision`]); `blocker` is then the standing nodes'.
    pub provision: Option<Provision>,
}

/// What would create the nodes a gang needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provision {
    /// The GKE ComputeClass the pods select.
    ComputeClass(String),
    /// GKE node auto-provisioning (declared with `fit --auto-provisioning`).
    AutoProvisioning,
}

/// What kind of node a runtime asks for, as placement read it from the demand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wanted {
    /// A node selector that names an accelerator the data knows (`TPU v5e 4x4`).
    Accelerator(String),
    /// A node selector of other labels.
    Labels(BTreeMap<String, String>),
    /// A required node affinity, no selector.
    Affinity,
    /// Only extended resources (`nvidia.com/gpu`).
    Resources(Vec<String>),
    /// Any node.
    Any,
}

/// Where the node nearest to the selector is: its pool, or the node itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodePlace {
    Pool(String),
    Node(String),
}

/// The node sharing most of the selector's labels, and how its labels differ: `(key, its value)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closest {
    pub place: NodePlace,
    pub differs: Vec<(String, Option<String>)>,
}

/// Why a matching node cannot take a pod at all.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Gate {
    /// Cordoned (`spec.unschedulable`, or its taint).
    Cordoned,
    /// A taint Kubernetes puts on a node in a state (not Ready, a pressure condition): what it
    /// means and the taint.
    Condition { means: String, taint: String },
    /// Not Ready without the taint: its Ready condition's status and reason.
    NotReady { status: String, reason: String },
    /// It reports no Ready condition.
    Unreported,
    /// A taint no toleration of the pod tolerates (`key=value:Effect`).
    Taint(String),
}

impl Gate {
    /// 0 cordoned, 1 not Ready or a node condition, 2 a taint the pod does not tolerate.
    pub fn rank(&self) -> u8 {
        match self {
            Gate::Cordoned => 0,
            Gate::Condition { .. } | Gate::NotReady { .. } | Gate::Unreported => 1,
            Gate::Taint(_) => 2,
        }
    }
}

/// The nodes one gate stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gated {
    pub gate: Gate,
    pub nodes: Vec<String>,
}

/// Why a node takes no pod even empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Short {
    /// Every requested resource the node lacks, in the order of the requests (kube-scheduler's
    /// NodeResourcesFit names each of them).
    Resources(Vec<Lack>),
    Ports,
    Pods,
}

/// A resource a node has too little of for one pod: what it has (allocatable, or free now) and
/// what the pod needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lack {
    pub name: String,
    pub allocatable: i64,
    pub need: i64,
}

/// The usable nodes that take no pod even empty, and why the first of them does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShortNodes {
    pub nodes: Vec<String>,
    pub short: Short,
}

/// One TrainJob's pods: how many, what each requests, and the labels they select.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gang {
    pub pods: u64,
    pub per_pod: Amounts,
    pub selector: BTreeMap<String, String>,
}

/// The topology domain that comes nearest to taking a Job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainView {
    pub value: String,
    /// Pods it takes empty.
    pub takes: u64,
    /// Its nodes with the requested resources that take a pod, and all its nodes with them.
    pub usable: usize,
    pub size: usize,
    pub gates: Vec<Gated>,
    pub short: Option<ShortNodes>,
}

/// A pod in use that holds what a node is short of now, and what it holds there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub pod: String,
    pub node: String,
}

/// How a topology domain that takes a Job empty is in use now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DomainUse {
    /// Another JobSet's pods of the same priority run there (one Job per domain): those pods.
    OtherJobSet { pods: Vec<String> },
    /// It takes `takes` pods now, the others' room held by these pods.
    Partial { takes: u64, holders: Vec<String> },
}

/// What stops a runtime's gang: the first blocker, as placement found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocker {
    /// The demand could not be worked out (no trainer job, a quantity that does not read).
    Demand(String),
    /// The pod template's `nodeName` names no node of the inventory.
    NoNodeNamed(String),
    /// The pod has a required node affinity and no selector, and no node matches it.
    NoAffinityMatch,
    /// No node has every label of the node selector.
    NoNodeWithLabels { selector: BTreeMap<String, String>, accelerator: Option<String>, closest: Option<Closest> },
    /// No matching node has the requested extended resources: `matched` nodes match the selector.
    NoDevice { wanted: Wanted, resources: Vec<String>, selects: bool, matched: usize },
    /// Every matching node with the resources is cordoned, tainted or not Ready.
    Gated { wanted: Wanted, gates: Vec<Gated>, help: Option<Fix> },
    /// JobSet exclusive placement, and no usable node carries the topology label.
    NoTopologyLabel { wanted: Wanted, key: String },
    /// Exclusive: fewer domains take the gang, even empty, than one TrainJob's Jobs.
    TooFewDomains { key: String, jobs: u64, gang: Gang, fitting: Vec<String> },
    /// Exclusive: no domain takes a Job's pods even empty; the nearest one.
    NoDomainTakesAJob { wanted: Wanted, key: String, gang: Gang, closest: Option<DomainView> },
    /// A multi-host TPU slice's pods need a host each, and the hosts that would take the gang
    /// take several of its pods each: hosts of another machine type (more chips than a pod
    /// requests). `hosts` are those nodes with how many pods each would take.
    SharedHost { slice: String, gang: Gang, hosts: Vec<(String, u64)>, help: Option<Fix> },
    /// Not exclusive: the usable nodes together take fewer pods than the gang, even empty.
    TooFewSlots { wanted: Wanted, gang: Gang, usable: usize, takes: u64, short: Option<ShortNodes>, gates: Vec<Gated> },
    /// Exclusive: it fits these nodes empty, not now.
    DomainsInUse { key: String, copies_empty: u64, pods: u64, domains: Vec<(String, DomainUse)> },
    /// Not exclusive: it fits these nodes empty; pods in use leave room for `now` of its pods.
    PodsInUse { copies_empty: u64, now: u64, pods: u64, holders: Vec<Holder> },
}

/// How to fix a blocker, where `fit` knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fix {
    /// A platform's pools carry this taint: tolerate it.
    Tolerate { on: String, taint: String, toleration: String },
    /// Uncordon a node.
    Uncordon,
    /// Label the nodes of each domain with the topology key.
    LabelDomains { key: String },
    /// Pin the pods to the machine type whose hosts have as many chips as a pod requests.
    PinMachineType { key: String, machine_type: String, chips: u32 },
}

/// What holds even when the runtime fits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// Nothing keeps the gang's pods on separate nodes: up to `up_to` of them on `node`.
    SharesNodes { up_to: u64, node: String },
    /// JobSet may start a Job's first pod in these domains, which cannot take all its pods now.
    FirstPodMayLand { key: String, domains: Vec<String>, pods: u64 },
    /// What the pod template asks that `fit` does not model.
    NotChecked(String),
    /// The ComputeClass the pods select would not create nodes for them.
    NotProvisioned(crate::capacity::compute_class::Refusal),
}

/// kube-scheduler's reason for a node that cannot take the pod (`ErrReason*` of each plugin);
/// [`super::words::scheduler_reason`] writes it as `kubectl describe pod` does. Counted with the
/// names borrowed (`Why<&str>`), kept owned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Why<S = String> {
    Unschedulable,
    NodeName,
    Affinity,
    NotReady,
    PodAffinity,
    ExistingAntiAffinity,
    Ports,
    TooManyPods,
    /// An untolerated taint's key and value.
    Taint(S, S),
    Insufficient(S),
}

impl Why<&str> {
    fn owned(self) -> Why {
        match self {
            Why::Unschedulable => Why::Unschedulable,
            Why::NodeName => Why::NodeName,
            Why::Affinity => Why::Affinity,
            Why::NotReady => Why::NotReady,
            Why::PodAffinity => Why::PodAffinity,
            Why::ExistingAntiAffinity => Why::ExistingAntiAffinity,
            Why::Ports => Why::Ports,
            Why::TooManyPods => Why::TooManyPods,
            Why::Taint(k, v) => Why::Taint(k.to_string(), v.to_string()),
            Why::Insufficient(r) => Why::Insufficient(r.to_string()),
        }
    }
}

/// Exclusive-topology key -> its value -> the JobSet pods on its nodes: (name, job key, priority).
type Domains = HashMap<String, HashMap<String, Vec<(String, Option<String>)>>>;

/// The nodes grouped by what the filters of these runtimes read.
#[derive(Debug)]
pub struct Plan<'c> {
    cluster: &'c Cluster,
    groups: Vec<Vec<usize>>,
    domains: Domains,
}

/// Why the nodes of a group cannot take a pod of the gang.
#[derive(Debug, Clone, Copy)]
enum Stop<'a> {
    Cordoned,
    Taint(&'a Taint),
    NotReady,
}

/// What a node can take: `k` pods, and why not more when it is 0; `shared`: how many it would
/// take if pods of a slice that needs a host each could share one.
#[derive(Debug, Clone, Copy, Default)]
struct Cap<'a> {
    k: u64,
    short: Option<ShortOf<'a>>,
    shared: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ShortOf<'a> {
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
    stop: Option<Stop<'a>>,
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
struct Domain<'a> {
    /// Indexes of its matched groups and of its evaluated nodes.
    groups: Vec<usize>,
    evals: Vec<usize>,
    slots_now: u64,
    slots_empty: u64,
    /// What it would take empty if a slice's pods could share a host.
    slots_shared: u64,
    /// The JobSet pods that keep it from another Job of this priority.
    blocking: Vec<&'a str>,
}

/// A requested resource: its index in the cluster, the amount per pod, its name.
type Request<'a> = (Option<usize>, i64, &'a str);

/// What one runtime's evaluation found, for the blocker.
struct Found<'a> {
    d: &'a Demand,
    cluster: &'a Cluster,
    res: Vec<Request<'a>>,
    matched: Vec<Matched<'a>>,
    evals: Vec<Eval<'a>>,
    /// One node of each group that does not match the selector.
    misses: Vec<&'a NodeInfo>,
    domains: BTreeMap<&'a str, Domain<'a>>,
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
            let mut values: HashMap<String, Vec<(String, Option<String>)>> = HashMap::new();
            for n in &cluster.nodes {
                if let Some(v) = n.labels.get(&k) {
                    let jobs = n.in_use.iter().filter_map(|p| p.job.as_ref().map(|(_, prio)| (p.name.clone(), prio.clone())));
                    values.entry(v.clone()).or_default().extend(jobs);
                }
            }
            domains.insert(k, values);
        }
        Plan { cluster, groups, domains }
    }

    /// The verdict for one demand.
    pub fn evaluate(&self, d: &Demand) -> Placement {
        let c = self.cluster;
        let tolerations: Vec<Toleration> = filter::admitted_tolerations(&d.tolerations, d.extended(), c.extended_resource_toleration);
        // Requests in the scheduler's order: cpu, memory, ephemeral-storage, then scalars.
        let rank = |r: &str| match r {
            "cpu" => 0,
            "memory" => 1,
            "ephemeral-storage" => 2,
            _ => 3,
        };
        let mut res: Vec<Request<'_>> = d.requests.iter().map(|(r, a)| (c.resource(r), *a, r.as_str())).collect();
        res.sort_by_key(|(_, _, r)| rank(r));
        let cordon_tolerated = filter::tolerates_cordon(&tolerations);
        let exclusive = d.exclusive.as_deref();
        let priority = d.priority.map(|p| p.to_string());
        // The JobSet pods of the same priority (any, when the priority is not known) in each domain.
        let blocking: HashMap<&str, Vec<&str>> = match exclusive.and_then(|k| self.domains.get(k)) {
            Some(values) => values
                .iter()
                .map(|(v, jobs)| {
                    let same = jobs.iter().filter(|(_, prio)| match &priority {
                        Some(p) => prio.as_deref() == Some(p.as_str()),
                        None => true,
                    });
                    (v.as_str(), same.map(|(name, _)| name.as_str()).collect())
                })
                .collect(),
            None => HashMap::new(),
        };
        let mut found = Found {
            d,
            cluster: c,
            res,
            matched: Vec::new(),
            evals: Vec::new(),
            misses: Vec::new(),
            domains: BTreeMap::new(),
            ext: d.extended().map(|r| c.resource(r)).collect(),
        };
        let mut hist: HashMap<Why<&str>, usize> = HashMap::new();
        let slice_host = d.slice.as_ref().and_then(|_| SliceHost::of(d, c));
        for group in &self.groups {
            let Some(rep) = group.first().and_then(|i| c.nodes.get(*i)) else { continue };
            let named = d.node_name.as_ref().is_none_or(|n| n == &rep.name);
            let label_ok = filter::selector_matches(&d.node_selector, &rep.labels)
                && d.affinity.as_ref().is_none_or(|a| filter::affinity_matches(a, &rep.labels, &rep.name));
            let cordoned = rep.unschedulable && !cordon_tolerated;
            let taint = filter::untolerated(&rep.taints, &tolerations);
            if !(named && label_ok) {
                let why = match (cordoned, taint) {
                    (true, _) => Why::Unschedulable,
                    (false, Some(t)) => taint_why(t),
                    _ if !named => Why::NodeName,
                    _ => Why::Affinity,
                };
                *hist.entry(why).or_default() += group.len();
                found.misses.push(rep);
                continue;
            }
            let stop = match (cordoned, taint) {
                (true, _) => Some(Stop::Cordoned),
                (false, Some(t)) => Some(Stop::Taint(t)),
                _ if rep.ready != Readiness::Ready => Some(Stop::NotReady),
                _ => None,
            };
            let domain = exclusive.and_then(|k| rep.labels.get(k)).map(String::as_str);
            let g = found.matched.len();
            found.matched.push(Matched { nodes: group, rep, stop, domain });
            if let Some(v) = domain {
                found.domains.entry(v).or_default().groups.push(g);
            }
            let why = match stop {
                Some(Stop::Cordoned) => Some(Why::Unschedulable),
                Some(Stop::Taint(t)) => Some(taint_why(t)),
                Some(Stop::NotReady) => Some(Why::NotReady),
                None if exclusive.is_some() && domain.is_none() => Some(Why::PodAffinity),
                None => None,
            };
            if let Some(why) = why {
                *hist.entry(why).or_default() += group.len();
                continue;
            }
            let blocked = domain.is_some_and(|v| blocking.get(v).is_some_and(|b| !b.is_empty()));
            for node in group.iter().filter_map(|i| c.nodes.get(*i)) {
                let one_per_host = d.slice.is_some();
                let mut now = capacity(node, &found.res, &d.host_ports, false, one_per_host);
                let mut empty = capacity(node, &found.res, &d.host_ports, true, one_per_host);
                // InterPodAffinity runs after NodeResourcesFit: a node short of resources says so.
                if now.k > 0 && (blocked || node.repels(d.priority)) {
                    *hist.entry(Why::ExistingAntiAffinity).or_default() += 1;
                    if !blocked {
                        now.k = 0;
                    }
                } else if now.k == 0 {
                    for why in reasons(node, &found.res, now.short) {
                        *hist.entry(why).or_default() += 1;
                    }
                }
                // kube-scheduler puts a pod there (no reason above); the slice does not form.
                if slice_host.as_ref().is_some_and(|h| !h.is(node)) {
                    now.k = 0;
                    empty.k = 0;
                }
                if let Some(v) = domain {
                    let dom = found.domains.entry(v).or_default();
                    dom.slots_now += now.k;
                    dom.slots_empty += empty.k;
                    dom.slots_shared += empty.shared;
                    dom.evals.push(found.evals.len());
                }
                found.evals.push(Eval { node, group: g, has_ext: found.in_scope(node), now, empty });
            }
        }
        let reasons = hist.into_iter().map(|(why, n)| (why.owned(), n)).collect();

        let pods = u64::from(d.pods);
        let jobs = u64::from(d.jobs);
        let mut notes: Vec<Note> = d.unmodelled.iter().map(|u| Note::NotChecked(u.clone())).collect();
        let mut out = Placement { pods: d.gang(), reasons, ..Placement::default() };
        if let Some(key) = exclusive {
            for (v, dom) in found.domains.iter_mut() {
                dom.blocking = blocking.get(v).cloned().unwrap_or_default();
            }
            let now: Vec<&str> =
                found.domains.iter().filter(|(_, dm)| dm.blocking.is_empty() && dm.slots_now >= pods).map(|(v, _)| *v).collect();
            out.copies = now.len() as u64 / jobs;
            out.copies_empty = found.domains.values().filter(|dm| dm.slots_empty >= pods).count() as u64 / jobs;
            if out.copies > 0 {
                out.placement = now.iter().map(|v| v.to_string()).collect();
            }
            let partial: Vec<String> = found
                .domains
                .iter()
                .filter(|(_, dm)| dm.blocking.is_empty() && dm.slots_now > 0 && dm.slots_now < pods)
                .map(|(v, _)| v.to_string())
                .collect();
            if !partial.is_empty() && pods > 1 {
                notes.push(Note::FirstPodMayLand { key: key.to_string(), domains: partial, pods });
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
                    notes.push(Note::SharesNodes { up_to: most.now.k.min(out.pods), node: most.node.name.clone() });
                }
            }
        }
        out.notes = notes;
        if out.copies == 0 {
            out.blocker = Some(blocker(&found, &out, jobs));
        }
        out
    }
}

/// The histogram key of an untolerated taint.
fn taint_why(t: &Taint) -> Why<&str> {
    Why::Taint(t.key.as_str(), t.value.as_deref().unwrap_or_default())
}

/// How many pods of the gang one node takes, with what is free now or on an empty node.
/// With `one_per_host` (the pods of a multi-host TPU slice) a node takes at most one.
fn capacity<'a>(node: &NodeInfo, res: &[Request<'a>], ports: &[(String, i32)], empty: bool, one_per_host: bool) -> Cap<'a> {
    if !ports.is_empty() && !empty && ports.iter().any(|p| node.host_ports.contains(p)) {
        return Cap { k: 0, short: Some(ShortOf::Ports), shared: 0 };
    }
    let free_pods = node.free_pods(empty).max(0);
    let mut cap =
        Cap { k: u64::try_from(free_pods).unwrap_or(0), short: if free_pods == 0 { Some(ShortOf::Pods) } else { None }, shared: 0 };
    for (r, need, name) in res {
        let free = r.map(|r| node.free(r, empty)).unwrap_or(0);
        let k = if free <= 0 || *need <= 0 { 0 } else { u64::try_from(free / need).unwrap_or(0) };
        if k < cap.k || (k == 0 && cap.short.is_none()) {
            cap.k = k;
            if k == 0 {
                cap.short = Some(ShortOf::Resource { name, free, need: *need });
            }
        }
    }
    if !ports.is_empty() {
        cap.k = cap.k.min(1);
    }
    cap.shared = cap.k;
    if one_per_host {
        cap.k = cap.k.min(1);
    }
    cap
}

/// kube-scheduler's reasons for a node that takes no pod of the gang now: NodePorts stops at a
/// taken port; NodeResourcesFit names `Too many pods` and then every resource short of one pod's
/// request (kubernetes pkg/scheduler/framework/plugins/noderesources/fit.go, `fitsRequest`).
fn reasons<'a>(node: &NodeInfo, res: &[Request<'a>], short: Option<ShortOf<'a>>) -> Vec<Why<&'a str>> {
    if short == Some(ShortOf::Ports) {
        return vec![Why::Ports];
    }
    let mut out = Vec::new();
    if node.free_pods(false) <= 0 {
        out.push(Why::TooManyPods);
    }
    out.extend(lacking(node, res, false).into_iter().map(|(name, _, _)| Why::Insufficient(name)));
    if out.is_empty() {
        out.push(Why::TooManyPods);
    }
    out
}

/// The requested resources `node` has less of than one pod needs (free now, or allocatable when
/// `empty`): name, what it has, what the pod needs.
fn lacking<'a>(node: &NodeInfo, res: &[Request<'a>], empty: bool) -> Vec<(&'a str, i64, i64)> {
    res.iter()
        .filter_map(|(r, need, name)| {
            let free = r.map(|r| node.free(r, empty)).unwrap_or(0);
            (*need > 0 && free < *need).then_some((*name, free, *need))
        })
        .collect()
}

/// The pods in use on `node` that hold what keeps it from taking as many pods of the gang now as
/// it takes empty: a requested resource it is short of now, a host port the gang needs, or a
/// slot of its pod count. Pods that hold none of these (a DaemonSet's cpu on a node short of
/// chips) are not named.
fn holders<'n>(node: &'n NodeInfo, e: &Eval<'_>, res: &[Request<'_>], ports: &[(String, i32)]) -> Vec<&'n str> {
    let target = e.empty.k;
    let short_of: Vec<usize> = res
        .iter()
        .filter_map(|(r, need, _)| {
            let r = (*r)?;
            let free = node.free(r, false);
            let k = if free <= 0 || *need <= 0 { 0 } else { u64::try_from(free / need).unwrap_or(0) };
            (k < target).then_some(r)
        })
        .collect();
    let pods_short = u64::try_from(node.free_pods(false).max(0)).unwrap_or(0) < target;
    node.in_use
        .iter()
        .filter(|p| short_of.iter().any(|r| p.holds(*r)) || pods_short || p.ports.iter().any(|x| ports.contains(x)))
        .map(|p| p.name.as_str())
        .collect()
}

/// What kind of node the runtime asks for.
fn wanted(d: &Demand) -> Wanted {
    if !d.node_selector.is_empty() {
        return match accelerator_of(&d.node_selector) {
            Some(acc) => Wanted::Accelerator(acc),
            None => Wanted::Labels(d.node_selector.clone()),
        };
    }
    if d.affinity.is_some() {
        return Wanted::Affinity;
    }
    let ext: Vec<String> = d.extended().map(String::from).collect();
    if ext.is_empty() {
        Wanted::Any
    } else {
        Wanted::Resources(ext)
    }
}

/// Why a matched group cannot take a pod, as a [`Gate`].
fn gate_of(g: &Matched<'_>) -> Option<Gate> {
    Some(match g.stop? {
        Stop::Cordoned => Gate::Cordoned,
        Stop::Taint(t) => match nodes().node_taint(&t.key) {
            Some(known) if known.state == NodeState::Cordoned => Gate::Cordoned,
            Some(known) => Gate::Condition { means: known.means.clone(), taint: filter::taint_text(t) },
            None => Gate::Taint(filter::taint_text(t)),
        },
        Stop::NotReady => match &g.rep.ready {
            Readiness::NotReady { status, reason } => Gate::NotReady { status: status.clone(), reason: reason.clone() },
            _ => Gate::Unreported,
        },
    })
}

/// The host a pod of a multi-host TPU slice needs where the slice's topology exists on several
/// machine types with the same accelerator and topology labels (v5e and v6e `2x4`: two `-4t`
/// hosts or one `-8t` host, `catalog/accelerators/tpu.yaml`): a node of the machine type whose
/// hosts have the chips a pod requests. The topology label alone matches both pools.
struct SliceHost {
    /// The node label of the machine type, the slice's machine type, and the topology's others.
    label: String,
    machine_type: String,
    others: Vec<String>,
    /// Chips per host, and the index of the TPU resource in the cluster.
    chips: i64,
    resource: Option<usize>,
}

impl SliceHost {
    fn of(d: &Demand, c: &Cluster) -> Option<SliceHost> {
        let tpu = &crate::accelerators::data().tpu;
        let generation = tpu.by_accelerator_label(d.node_selector.get(&tpu.accelerator_label)?)?;
        let chips = *d.requests.get(&tpu.resource)?;
        let shapes = generation.shapes_for(d.node_selector.get(&tpu.topology_label)?);
        let shape = shapes.iter().find(|s| i64::from(s.chips_per_host) == chips)?;
        (shapes.len() > 1).then(|| SliceHost {
            label: tpu.machine_type_label.clone(),
            machine_type: shape.machine_type.clone(),
            others: shapes.iter().filter(|s| s.machine_type != shape.machine_type).map(|s| s.machine_type.clone()).collect(),
            chips,
            resource: c.resource(&tpu.resource),
        })
    }

    /// Is the node a host of the slice: its machine type, where its label names one of the
    /// topology's, else its chips (a host with more chips than a pod requests is the other pool's)?
    fn is(&self, node: &NodeInfo) -> bool {
        match node.labels.get(&self.label) {
            Some(m) if *m == self.machine_type => true,
            Some(m) if self.others.contains(m) => false,
            _ => self.resource.is_none_or(|r| node.free(r, true) <= self.chips),
        }
    }
}

/// The machine type whose hosts have as many TPU chips as a pod of the demand requests, for the
/// accelerator and topology it selects.
fn pin_machine_type(d: &Demand) -> Option<Fix> {
    let tpu = &crate::accelerators::data().tpu;
    let generation = tpu.by_accelerator_label(d.node_selector.get(&tpu.accelerator_label)?)?;
    let chips = u32::try_from(*d.requests.get(&tpu.resource)?).ok()?;
    let shape = generation.shapes_for(d.node_selector.get(&tpu.topology_label)?).into_iter().find(|s| s.chips_per_host == chips)?;
    Some(Fix::PinMachineType { key: tpu.machine_type_label.clone(), machine_type: shape.machine_type, chips })
}

/// The fix for an untolerated taint a platform puts on its pools.
fn taint_fix(t: &Taint) -> Option<Fix> {
    let (_, known) = nodes().pool_taint(&t.key, t.value.as_deref().unwrap_or_default(), &t.effect)?;
    Some(Fix::Tolerate { on: known.on.clone(), taint: filter::taint_text(t), toleration: known.toleration() })
}

impl<'a> Found<'a> {
    /// The gated groups among `groups` (indexes), by what stops them, with the names of their
    /// nodes in scope.
    fn gates(&self, groups: impl Iterator<Item = usize>) -> Vec<Gated> {
        let mut by: BTreeMap<Gate, Vec<String>> = BTreeMap::new();
        for g in groups.filter_map(|g| self.matched.get(g)) {
            let Some(gate) = gate_of(g) else { continue };
            let names: Vec<String> = self.nodes_of(g).filter(|n| self.in_scope(n)).map(|n| n.name.clone()).collect();
            if !names.is_empty() {
                by.entry(gate).or_default().extend(names);
            }
        }
        by.into_iter().map(|(gate, nodes)| Gated { gate, nodes }).collect()
    }

    /// The evaluated nodes in scope that take nothing on an empty cluster.
    fn short<'e>(&self, evals: impl Iterator<Item = &'e Eval<'a>>) -> Option<ShortNodes>
    where
        'a: 'e,
    {
        let short: Vec<&Eval<'_>> = evals.filter(|e| e.has_ext && e.empty.k == 0).collect();
        let first = short.first()?;
        let why = match first.empty.short {
            Some(ShortOf::Resource { .. }) => Short::Resources(
                lacking(first.node, &self.res, true)
                    .into_iter()
                    .map(|(name, free, need)| Lack { name: name.to_string(), allocatable: free.max(0), need })
                    .collect(),
            ),
            Some(ShortOf::Ports) => Short::Ports,
            Some(ShortOf::Pods) | None => Short::Pods,
        };
        Some(ShortNodes { nodes: short.iter().map(|e| e.node.name.clone()).collect(), short: why })
    }

    fn gang(&self) -> Gang {
        Gang { pods: u64::from(self.d.pods), per_pod: self.d.requests.clone(), selector: self.d.node_selector.clone() }
    }

    /// The pods that hold what the nodes of these evaluations are short of now.
    fn holders<'e>(&self, evals: impl Iterator<Item = &'e Eval<'a>>) -> Vec<Holder>
    where
        'a: 'e,
    {
        evals
            .filter(|e| e.has_ext && e.empty.k > e.now.k)
            .flat_map(|e| {
                let held = holders(e.node, e, &self.res, &self.d.host_ports);
                let held = if held.is_empty() { e.node.in_use.iter().map(|p| p.name.as_str()).collect() } else { held };
                held.into_iter().map(|pod| Holder { pod: pod.to_string(), node: e.node.name.clone() })
            })
            .collect()
    }
}

/// The first blocker of a runtime that does not fit now.
fn blocker(f: &Found<'_>, out: &Placement, jobs: u64) -> Blocker {
    let d = f.d;
    let wanted = wanted(d);
    // No node matches the selector.
    if f.matched.is_empty() {
        if let Some(name) = &d.node_name {
            if !f.cluster.nodes.iter().any(|n| &n.name == name) {
                return Blocker::NoNodeNamed(name.clone());
            }
        }
        if d.node_selector.is_empty() {
            return Blocker::NoAffinityMatch;
        }
        // The closest: the node sharing most of the selector.
        let score = |n: &NodeInfo| d.node_selector.iter().filter(|(k, v)| n.labels.get(*k) == Some(*v)).count();
        let closest =
            f.misses.iter().filter(|n| score(n) > 0).max_by_key(|n| (score(n), std::cmp::Reverse(n.name.as_str()))).map(|best| Closest {
                place: match &best.pool {
                    Some(p) => NodePlace::Pool(p.clone()),
                    None => NodePlace::Node(best.name.clone()),
                },
                differs: d
                    .node_selector
                    .iter()
                    .filter(|(k, v)| best.labels.get(*k) != Some(*v))
                    .map(|(k, _)| (k.clone(), best.labels.get(k).cloned()))
                    .collect(),
            });
        return Blocker::NoNodeWithLabels { selector: d.node_selector.clone(), accelerator: accelerator_of(&d.node_selector), closest };
    }
    let exclusive = d.exclusive.as_deref();
    let all_groups = || 0..f.matched.len();
    // Narrowed to nodes that have the requested extended resources at all.
    let ext: Vec<String> = d.extended().map(String::from).collect();
    let matched_nodes: usize = f.matched.iter().map(|g| g.nodes.len()).sum();
    let in_scope: usize = f.matched.iter().map(|g| f.nodes_of(g).filter(|n| f.in_scope(n)).count()).sum();
    if !ext.is_empty() && in_scope == 0 {
        let selects = !d.node_selector.is_empty() || d.affinity.is_some();
        return Blocker::NoDevice { wanted, resources: ext, selects, matched: matched_nodes };
    }
    // Every candidate is cordoned, tainted or not Ready.
    let ungated: usize = f.matched.iter().filter(|g| g.stop.is_none()).map(|g| f.nodes_of(g).filter(|n| f.in_scope(n)).count()).sum();
    if ungated == 0 {
        let gates = f.gates(all_groups());
        let fix = f.matched.iter().find_map(|g| match g.stop {
            Some(Stop::Taint(t)) if nodes().node_taint(&t.key).is_none() => taint_fix(t),
            _ => None,
        });
        let fix = fix.or_else(|| matches!(gates.as_slice(), [one] if one.gate == Gate::Cordoned).then_some(Fix::Uncordon));
        return Blocker::Gated { wanted, gates, help: fix };
    }
    if let Some(key) = exclusive {
        if !f.evals.iter().any(|e| e.has_ext && f.matched.get(e.group).is_some_and(|g| g.domain.is_some())) {
            return Blocker::NoTopologyLabel { wanted, key: key.to_string() };
        }
    }
    let pods = u64::from(d.pods);
    let evals_of = |dom: &Domain<'_>| dom.evals.iter().filter_map(|i| f.evals.get(*i)).collect::<Vec<_>>();
    if let (Some(slice), 0) = (&d.slice, out.copies_empty) {
        // Would the gang fit if its pods could share hosts? Then that is what is in the way.
        let (fits_shared, evals): (bool, Vec<&Eval<'_>>) = match exclusive {
            Some(_) => {
                let best = f.domains.values().filter(|dm| dm.slots_shared >= pods).max_by_key(|dm| dm.slots_shared);
                (best.is_some(), best.map(&evals_of).unwrap_or_default())
            }
            None => {
                let all: Vec<&Eval<'_>> = f.evals.iter().filter(|e| e.has_ext).collect();
                (all.iter().map(|e| e.empty.shared).sum::<u64>() >= out.pods, all)
            }
        };
        if fits_shared {
            let hosts = evals.iter().filter(|e| e.empty.shared > 1).map(|e| (e.node.name.clone(), e.empty.shared)).collect();
            return Blocker::SharedHost { slice: slice.clone(), gang: f.gang(), hosts, help: pin_machine_type(d) };
        }
    }
    if out.copies_empty == 0 {
        let Some(key) = exclusive else {
            let usable: Vec<&Eval<'_>> = f.evals.iter().filter(|e| e.has_ext).collect();
            return Blocker::TooFewSlots {
                wanted,
                gang: Gang { pods: out.pods, ..f.gang() },
                usable: usable.len(),
                takes: usable.iter().map(|e| e.empty.k).sum(),
                short: f.short(usable.iter().copied()),
                gates: f.gates(all_groups()),
            };
        };
        let fitting: Vec<String> = f.domains.iter().filter(|(_, dm)| dm.slots_empty >= pods).map(|(v, _)| v.to_string()).collect();
        if !fitting.is_empty() {
            return Blocker::TooFewDomains { key: key.to_string(), jobs, gang: f.gang(), fitting };
        }
        let size = |dm: &Domain<'_>| {
            dm.groups.iter().filter_map(|g| f.matched.get(*g)).map(|g| f.nodes_of(g).filter(|n| f.in_scope(n)).count()).sum::<usize>()
        };
        let closest = f.domains.iter().max_by_key(|(v, dm)| (dm.slots_empty, size(dm), std::cmp::Reverse(**v))).map(|(value, best)| {
            let evals = evals_of(best);
            DomainView {
                value: value.to_string(),
                takes: best.slots_empty,
                usable: evals.iter().filter(|e| e.has_ext && e.empty.k > 0).count(),
                size: size(best),
                gates: f.gates(best.groups.iter().copied()),
                short: f.short(evals.iter().copied()),
            }
        });
        return Blocker::NoDomainTakesAJob { wanted, key: key.to_string(), gang: f.gang(), closest };
    }
    // It would fit these nodes if they were empty.
    match exclusive {
        Some(key) => {
            let domains = f
                .domains
                .iter()
                .filter(|(_, dm)| dm.slots_empty >= pods)
                .map(|(v, dm)| {
                    let used = if dm.blocking.is_empty() {
                        let mut held: Vec<String> = f.holders(evals_of(dm).into_iter()).into_iter().map(|h| h.pod).collect();
                        held.dedup();
                        DomainUse::Partial { takes: dm.slots_now, holders: held }
                    } else {
                        DomainUse::OtherJobSet { pods: dm.blocking.iter().map(|p| p.to_string()).collect() }
                    };
                    (v.to_string(), used)
                })
                .collect();
            Blocker::DomainsInUse { key: key.to_string(), copies_empty: out.copies_empty, pods, domains }
        }
        None => {
            let usable = || f.evals.iter().filter(|e| e.has_ext);
            Blocker::PodsInUse {
                copies_empty: out.copies_empty,
                now: usable().map(|e| e.now.k).sum(),
                pods: out.pods,
                holders: f.holders(usable()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{Node, Pod};
    use serde_json::json;

    /// A node: its name, labels, taints, allocatable, whether it is cordoned and Ready.
    fn node(name: &str, labels: serde_json::Value, taints: serde_json::Value, alloc: serde_json::Value, ready: &str) -> Node {
        serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}, "spec": {"taints": taints},
            "status": {"allocatable": alloc, "conditions": [{"type": "Ready", "status": ready}]}}))
        .unwrap()
    }

    fn tpu_host(name: &str, pool: &str, chips: &str) -> Node {
        node(
            name,
            json!({"cloud.google.com/gke-nodepool": pool, "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice", "cloud.google.com/gke-tpu-topology": "4x4"}),
            json!([{"key": "google.com/tpu", "value": "present", "effect": "NoSchedule"}]),
            json!({"cpu": "100", "memory": "100Gi", "pods": "110", "google.com/tpu": chips}),
            "True",
        )
    }

    fn gpu_node(name: &str, taint: Option<(&str, &str)>) -> Node {
        let taints = taint.map(|(k, v)| json!([{"key": k, "value": v, "effect": "NoSchedule"}])).unwrap_or(json!([]));
        node(
            name,
            json!({"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}),
            taints,
            json!({"cpu": "200", "pods": "110", "nvidia.com/gpu": "8"}),
            "True",
        )
    }

    /// A running pod on `node` requesting `requests`, with JobSet labels when `job` is set.
    fn pod(name: &str, node: &str, requests: serde_json::Value, job: Option<&str>) -> Pod {
        let labels = job.map(|k| json!({"jobset.sigs.k8s.io/job-key": k, "jobset.sigs.k8s.io/priority": "0"})).unwrap_or(json!({}));
        serde_json::from_value(json!({"metadata": {"name": name, "namespace": "ns", "labels": labels},
            "spec": {"nodeName": node, "containers": [{"name": "c", "resources": {"requests": requests}}]}, "status": {"phase": "Running"}}))
        .unwrap()
    }

    fn tpu_demand(hosts: u32) -> Demand {
        Demand {
            job: "node".into(),
            pods: hosts,
            jobs: 1,
            requests: Amounts::from([("google.com/tpu".to_string(), 4)]),
            node_name: None,
            node_selector: BTreeMap::from([
                ("cloud.google.com/gke-tpu-accelerator".to_string(), "tpu-v5-lite-podslice".to_string()),
                ("cloud.google.com/gke-tpu-topology".to_string(), "4x4".to_string()),
            ]),
            affinity: None,
            tolerations: serde_json::from_value(json!([{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}])).unwrap(),
            host_ports: Vec::new(),
            exclusive: Some("cloud.google.com/gke-nodepool".into()),
            priority: Some(0),
            slice: (hosts > 1).then(|| "TPU v5e 4x4".to_string()),
            unmodelled: Vec::new(),
        }
    }

    fn gpu_demand(pods: u32) -> Demand {
        Demand {
            requests: Amounts::from([("nvidia.com/gpu".to_string(), 8)]),
            node_selector: BTreeMap::new(),
            tolerations: serde_json::from_value(json!([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])).unwrap(),
            exclusive: None,
            pods,
            ..tpu_demand(1)
        }
    }

    fn tpu_2x4_host(name: &str, pool: &str, machine: &str, chips: &str) -> Node {
        let mut n = tpu_host(name, pool, chips);
        let labels = n.metadata.labels.get_or_insert_with(Default::default);
        labels.insert("cloud.google.com/gke-tpu-topology".into(), "2x4".into());
        labels.insert("node.kubernetes.io/instance-type".into(), machine.into());
        n
    }

    fn place(nodes: &[Node], pods: Option<&[Pod]>, d: &Demand) -> Placement {
        let cluster = Cluster::new(nodes, pods).unwrap();
        Plan::new(&cluster, [d]).evaluate(d)
    }

    #[test]
    fn a_whole_slice_per_pool_and_one_copy_per_pool() {
        let nodes: Vec<Node> =
            (0..4).map(|i| tpu_host(&format!("a-{i}"), "a", "4")).chain((0..4).map(|i| tpu_host(&format!("b-{i}"), "b", "4"))).collect();
        let p = place(&nodes, None, &tpu_demand(4));
        assert_eq!((p.copies, p.copies_empty, p.placement.as_slice()), (2, 2, ["a".to_string(), "b".to_string()].as_slice()));
        assert_eq!(p.blocker, None);
        // Three hosts of four are no slice: the closest pool is named with what it takes.
        let p = place(&nodes[..3], None, &tpu_demand(4));
        let Some(Blocker::NoDomainTakesAJob { closest: Some(c), .. }) = p.blocker else { panic!("{:?}", p.blocker) };
        assert_eq!((c.value.as_str(), c.takes, c.usable, c.size), ("a", 3, 3, 3));
    }

    #[test]
    fn the_pods_named_are_those_that_hold_the_contended_resource() {
        let nodes: Vec<Node> = (0..4).map(|i| tpu_host(&format!("a-{i}"), "a", "4")).collect();
        // A DaemonSet's pod on every host (cpu only) and another job's pod holding the chips of one.
        let mut pods: Vec<Pod> = (0..4).map(|i| pod(&format!("fluentbit-{i}"), &format!("a-{i}"), json!({"cpu": "100m"}), None)).collect();
        pods.push(pod("other-tpu-0", "a-2", json!({"google.com/tpu": "4"}), None));
        let p = place(&nodes, Some(&pods), &tpu_demand(4));
        let Some(Blocker::DomainsInUse { domains, .. }) = &p.blocker else { panic!("{:?}", p.blocker) };
        assert_eq!(domains.as_slice(), [("a".to_string(), DomainUse::Partial { takes: 3, holders: vec!["ns/other-tpu-0".into()] })]);
        // The same pod in a JobSet of the same priority takes the whole pool: it is named.
        pods.pop();
        pods.push(pod("llama-node-0-0", "a-2", json!({"google.com/tpu": "4"}), Some("k1")));
        let p = place(&nodes, Some(&pods), &tpu_demand(4));
        let Some(Blocker::DomainsInUse { domains, .. }) = &p.blocker else { panic!("{:?}", p.blocker) };
        assert_eq!(domains.as_slice(), [("a".to_string(), DomainUse::OtherJobSet { pods: vec!["ns/llama-node-0-0".into()] })]);
        // Without exclusive placement: the GPU pod, not the DaemonSet's.
        let gpus = [gpu_node("g0", None), gpu_node("g1", None)];
        let pods = [
            pod("ds-0", "g0", json!({"cpu": "1"}), None),
            pod("ds-1", "g1", json!({"cpu": "1"}), None),
            pod("train-0", "g1", json!({"nvidia.com/gpu": "8"}), None),
        ];
        let p = place(&gpus, Some(&pods), &gpu_demand(2));
        assert_eq!(
            p.blocker,
            Some(Blocker::PodsInUse {
                copies_empty: 1,
                now: 1,
                pods: 2,
                holders: vec![Holder { pod: "ns/train-0".into(), node: "g1".into() }]
            })
        );
    }

    #[test]
    fn gated_nodes_are_grouped_by_what_stops_them() {
        let sku = Some(("sku", "gpu"));
        let nodes = [gpu_node("g0", None), gpu_node("g1", sku), gpu_node("g2", sku)];
        let p = place(&nodes, None, &gpu_demand(2));
        let Some(Blocker::TooFewSlots { usable, takes, gates, .. }) = &p.blocker else { panic!("{:?}", p.blocker) };
        assert_eq!((*usable, *takes), (1, 1));
        assert_eq!(gates.as_slice(), [Gated { gate: Gate::Taint("sku=gpu:NoSchedule".into()), nodes: vec!["g1".into(), "g2".into()] }]);
        // All of them: the platform's fix is named where the data knows the taint.
        let p = place(&nodes[1..], None, &gpu_demand(1));
        let Some(Blocker::Gated { help: Some(Fix::Tolerate { taint, .. }), .. }) = &p.blocker else { panic!("{:?}", p.blocker) };
        assert_eq!(taint, "sku=gpu:NoSchedule");
    }

    #[test]
    fn the_pods_of_a_multi_host_slice_never_share_a_host() {
        let mut d = tpu_demand(2);
        d.node_selector.insert("cloud.google.com/gke-tpu-topology".into(), "2x4".into());
        d.slice = Some("TPU v5e 2x4".into());
        // One ct5lp-hightpu-8t host has the chips of two 4-chip pods: the slice would be broken.
        let p = place(&[tpu_2x4_host("big-0", "p8", "ct5lp-hightpu-8t", "8")], None, &d);
        assert_eq!(p.copies, 0);
        let Some(Blocker::SharedHost { hosts, help: Some(Fix::PinMachineType { machine_type, .. }), .. }) = &p.blocker else {
            panic!("{:?}", p.blocker)
        };
        assert_eq!(hosts.as_slice(), [("big-0".to_string(), 2)]);
        assert_eq!(machine_type, "ct5lp-hightpu-4t");
        // Two ct5lp-hightpu-4t hosts: one pod each.
        let four = [tpu_2x4_host("small-0", "p4", "ct5lp-hightpu-4t", "4"), tpu_2x4_host("small-1", "p4", "ct5lp-hightpu-4t", "4")];
        let p = place(&four, None, &d);
        assert_eq!((p.copies, p.blocker), (1, None));
        // Without the slice (a CPU-like gang), pods may share: the 8-chip host takes both.
        d.slice = None;
        assert_eq!(place(&[tpu_2x4_host("big-0", "p8", "ct5lp-hightpu-8t", "8")], None, &d).copies, 1);
    }

    #[test]
    fn a_selector_no_node_has_names_the_closest_pool() {
        let mut d = tpu_demand(4);
        d.node_selector.insert("cloud.google.com/gke-tpu-topology".into(), "2x4".into());
        let p = place(&[tpu_host("a-0", "a", "4")], None, &d);
        let Some(Blocker::NoNodeWithLabels { closest: Some(c), accelerator, .. }) = p.blocker else { panic!("{:?}", p.blocker) };
        assert_eq!(accelerator.as_deref(), Some("TPU v5e 2x4"));
        assert_eq!(c.place, NodePlace::Pool("a".into()));
        assert_eq!(c.differs, [("cloud.google.com/gke-tpu-topology".to_string(), Some("4x4".to_string()))]);
        assert_eq!(p.reasons, [(Why::Affinity, 1)]);
    }
}
