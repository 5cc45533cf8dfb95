//! The node and pod lists (`kubectl get nodes -o yaml`, `kubectl get pods -A -o yaml`) -> the
//! cluster as kube-scheduler sees it: each node's labels, taints, cordon and Ready state, its pool,
//! its allocatable, and what the pods bound to it hold.
//!
//! Facts (Kubernetes v1.34): the scheduler compares requests with `status.allocatable`, which
//! defaults to `status.capacity` (`pkg/apis/core/v1/defaults.go` `SetDefaults_NodeStatus`); its
//! pod informer leaves out pods in phase Succeeded or Failed, and a pod with a `spec.nodeName`
//! holds its requests and one of the node's `pods` on that node, terminating or not
//! (`pkg/scheduler/scheduler.go` `newPodInformer`, `eventhandlers.go` `assignedPod`); pods of
//! every namespace and owner count (DaemonSets too). No scheduler filter reads node conditions:
//! the node lifecycle controller turns them into taints; `fit` also refuses a node whose Ready
//! condition is not True when those taints are missing (a hand-written inventory).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use k8s_openapi::api::core::v1::{Node, Pod, Taint};
use serde_json::Value;

use crate::accelerators::nodes::nodes;
use crate::diag::{Diagnostic, ObjectRef};
use crate::k8s::facts::facts;
use crate::k8s::quantity::{self, NotAQuantity};
use crate::k8s::requests::{self, RequestError};
use crate::keys;
use crate::read::Document;
use crate::rules::fit::{FIT_NOT_A_NODE, FIT_NOT_A_POD, FIT_NO_NODES, FIT_POD_ON_UNKNOWN_NODE};

/// Why a node or pod of the lists cannot be counted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InventoryError {
    #[error("node #{index}: `{field}`: {source}")]
    NodeQuantity { index: usize, field: String, source: NotAQuantity },
    #[error("pod #{index}: {source}")]
    PodRequests { index: usize, source: RequestError },
}

/// A node's Ready condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    Ready,
    /// Ready is `False` or `Unknown`; with the condition's reason and message.
    NotReady {
        status: String,
        reason: String,
    },
    /// The node reports no Ready condition.
    Unreported,
}

/// A pod in use on a node: its name, what it holds there and, for a JobSet pod, its Job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodInUse {
    /// `namespace/name`.
    pub name: String,
    /// By resource index, what it requests (non-zero amounts only).
    pub amounts: Vec<(usize, i64)>,
    /// The host ports it takes, `(protocol, port)`.
    pub ports: Vec<(String, i32)>,
    /// Its `jobset.sigs.k8s.io/job-key` and `jobset.sigs.k8s.io/priority` labels, for a JobSet pod.
    pub job: Option<(String, Option<String>)>,
}

impl PodInUse {
    /// True when it holds some of resource `r`.
    pub fn holds(&self, r: usize) -> bool {
        self.amounts.iter().any(|(i, a)| *i == r && *a > 0)
    }
}

/// One node as the scheduler sees it.
#[derive(Debug, Clone)]
pub struct NodeInfo {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub taints: Vec<Taint>,
    pub unschedulable: bool,
    pub ready: Readiness,
    /// The node's pool (`cloud.google.com/gke-nodepool`, ...), where its platform names one.
    pub pool: Option<String>,
    /// By resource index: allocatable, whether the node has the resource at all (in capacity or
    /// allocatable, even as 0), and what pods in use request.
    allocatable: Vec<i64>,
    has: Vec<bool>,
    used: Vec<i64>,
    /// Allocatable `pods`, and the pods bound to it that are not finished.
    pub max_pods: i64,
    pub pods: i64,
    /// Host ports the pods in use take, `(protocol, port)`.
    pub host_ports: Vec<(String, i32)>,
    /// The pods in use on it, in the pod list's order.
    pub in_use: Vec<PodInUse>,
    /// JobSet pods may not come here: the node is in the topology domain of a JobSet leader pod
    /// in use whose required anti-affinity keeps other Jobs out, for pods of this priority
    /// (`None`: of any priority).
    pub repels: Vec<Option<String>>,
}

impl NodeInfo {
    /// True when a pod of a JobSet with this priority (`None`: not known) may not come here
    /// because of the anti-affinity of a JobSet pod in use.
    pub fn repels(&self, priority: Option<i32>) -> bool {
        self.repels.iter().any(|p| match (p, priority) {
            (None, _) | (Some(_), None) => true,
            (Some(p), Some(mine)) => p.parse::<i32>().ok() == Some(mine),
        })
    }
}

impl NodeInfo {
    /// What is free of resource `r` (by index): allocatable minus what pods in use hold, or all
    /// of allocatable on an `empty` cluster.
    pub fn free(&self, r: usize, empty: bool) -> i64 {
        let alloc = self.allocatable.get(r).copied().unwrap_or(0);
        if empty {
            alloc
        } else {
            alloc.saturating_sub(self.used.get(r).copied().unwrap_or(0))
        }
    }

    pub fn allocatable(&self, r: usize) -> i64 {
        self.allocatable.get(r).copied().unwrap_or(0)
    }

    /// True when the node has resource `r` in its capacity or allocatable.
    pub fn has(&self, r: usize) -> bool {
        self.has.get(r).copied().unwrap_or(false)
    }

    /// Pods the node can still take (allocatable `pods` minus pods in use, or all of it).
    pub fn free_pods(&self, empty: bool) -> i64 {
        if empty {
            self.max_pods
        } else {
            self.max_pods.saturating_sub(self.pods)
        }
    }
}

/// How many pods the pod list had, by what they hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodCounts {
    /// Whether a pod list was given at all.
    pub given: bool,
    /// Bound to a listed node and not finished: they hold resources.
    pub in_use: usize,
    /// Succeeded or Failed.
    pub finished: usize,
    /// Not bound to a node (Pending in the queue).
    pub unbound: usize,
    /// Bound to a node the inventory does not list.
    pub elsewhere: usize,
}

/// The cluster: its nodes and the resource names they and their pods use.
#[derive(Debug, Clone)]
pub struct Cluster {
    pub nodes: Vec<NodeInfo>,
    names: Vec<String>,
    index: HashMap<String, usize>,
    /// The API server adds tolerations for requested extended resources (GKE).
    pub extended_resource_toleration: bool,
    pub pods: PodCounts,
    /// The GKE ComputeClasses the node list holds (`kubectl get nodes,computeclasses -o yaml`).
    pub compute_classes: Vec<crate::capacity::compute_class::ComputeClass>,
    /// The cluster creates node pools for pending pods (GKE node auto-provisioning), as declared
    /// by `fit --auto-provisioning`.
    pub auto_provisioning: bool,
}

impl Cluster {
    /// The cluster of these nodes with these pods on them. `pods` is `None` without a pod list.
    pub fn new(node_list: &[Node], pod_list: Option<&[Pod]>) -> Result<Cluster, Vec<InventoryError>> {
        let mut b = Builder::of_nodes(node_list);
        if let Some(pods) = pod_list {
            b.cluster.pods.given = true;
            for pod in pods {
                b.pod(pod);
            }
        }
        b.finish()
    }

    /// The index of a resource name, if a node or pod uses it.
    pub fn resource(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The name of resource index `r`.
    pub fn resource_name(&self, r: usize) -> &str {
        self.names.get(r).map(String::as_str).unwrap_or_default()
    }

    fn intern(&mut self, name: &str) -> usize {
        if let Some(i) = self.index.get(name) {
            return *i;
        }
        let i = self.names.len();
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }

    fn node(&mut self, node: &Node, index: usize) -> Result<NodeInfo, InventoryError> {
        let labels = node.metadata.labels.clone().unwrap_or_default();
        let spec = node.spec.as_ref();
        let status = node.status.as_ref();
        let capacity = status.and_then(|s| s.capacity.as_ref());
        let (alloc, field) = match status.and_then(|s| s.allocatable.as_ref()) {
            Some(a) => (Some(a), "status.allocatable"),
            None => (capacity, "status.capacity"),
        };
        let mut info = NodeInfo {
            name: node.metadata.name.clone().unwrap_or_default(),
            pool: nodes().pool_of(&labels).map(|(_, v)| v.to_string()),
            labels,
            taints: spec.and_then(|s| s.taints.clone()).unwrap_or_default(),
            unschedulable: spec.and_then(|s| s.unschedulable).unwrap_or(false),
            ready: readiness(node),
            allocatable: Vec::new(),
            has: Vec::new(),
            used: Vec::new(),
            max_pods: 0,
            pods: 0,
            host_ports: Vec::new(),
            in_use: Vec::new(),
            repels: Vec::new(),
        };
        for (name, q) in alloc.into_iter().flatten() {
            let amount = quantity::read(&q.0)
                .map_err(|source| InventoryError::NodeQuantity { index, field: format!("{field}.{name}"), source })?
                .scheduler_amount(name);
            if *name == facts().scheduling.pods_resource {
                info.max_pods = amount;
                continue;
            }
            if !requests::counted(name) {
                continue;
            }
            let r = self.intern(name);
            set(&mut info.allocatable, r, amount);
            set_flag(&mut info.has, r);
        }
        for name in capacity.into_iter().flatten().map(|(n, _)| n).filter(|n| requests::counted(n)) {
            let r = self.intern(name);
            set_flag(&mut info.has, r);
        }
        Ok(info)
    }

    /// Marks the nodes in the topology domain of each `(key, node, priority)` as repelling
    /// JobSet pods of that priority: every node whose label `key` has the value of that node's.
    fn repel(&mut self, repulsions: &[(String, usize, Option<String>)]) {
        let mut domains: HashMap<(&str, &str), Vec<Option<String>>> = HashMap::new();
        for (key, n, prio) in repulsions {
            if let Some(value) = self.nodes.get(*n).and_then(|node| node.labels.get(key)) {
                domains.entry((key.as_str(), value.as_str())).or_default().push(prio.clone());
            }
        }
        if domains.is_empty() {
            return;
        }
        let keys: BTreeSet<&str> = domains.keys().map(|(k, _)| *k).collect();
        let mut marks: Vec<(usize, Vec<Option<String>>)> = Vec::new();
        for (i, node) in self.nodes.iter().enumerate() {
            for key in &keys {
                if let Some(prios) = node.labels.get(*key).and_then(|v| domains.get(&(*key, v.as_str()))) {
                    marks.push((i, prios.clone()));
                }
            }
        }
        for (i, prios) in marks {
            if let Some(node) = self.nodes.get_mut(i) {
                node.repels.extend(prios);
            }
        }
    }

    /// Adds a pod of the list; the index of its node when it holds resources there.
    fn add_pod(&mut self, pod: &Pod, index: usize, by_name: &HashMap<String, usize>) -> Result<Option<usize>, InventoryError> {
        let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or_default();
        if matches!(phase, "Succeeded" | "Failed") {
            self.pods.finished += 1;
            return Ok(None);
        }
        let Some(spec) = &pod.spec else { return Ok(None) };
        let Some(node_name) = spec.node_name.as_deref().filter(|n| !n.is_empty()) else {
            self.pods.unbound += 1;
            return Ok(None);
        };
        let Some(&n) = by_name.get(node_name) else {
            self.pods.elsewhere += 1;
            return Ok(None);
        };
        let amounts = requests::pod_requests(spec, pod.status.as_ref()).map_err(|source| InventoryError::PodRequests { index, source })?;
        let ids: Vec<(usize, i64)> = amounts.iter().map(|(name, a)| (self.intern(name), *a)).collect();
        let labels = pod.metadata.labels.as_ref();
        let Some(node) = self.nodes.get_mut(n) else { return Ok(None) };
        for (r, a) in &ids {
            let have = node.used.get(*r).copied().unwrap_or(0);
            set(&mut node.used, *r, have.saturating_add(*a));
        }
        node.pods += 1;
        let ports = requests::host_ports(spec);
        node.host_ports.extend(ports.iter().cloned());
        let job = labels
            .and_then(|l| l.get(keys::JOBSET_JOB_KEY))
            .map(|key| (key.clone(), labels.and_then(|l| l.get(keys::JOBSET_PRIORITY)).cloned()));
        let ns = pod.metadata.namespace.as_deref().unwrap_or("default");
        node.in_use.push(PodInUse {
            name: format!("{ns}/{}", pod.metadata.name.as_deref().unwrap_or_default()),
            amounts: ids.into_iter().filter(|(_, a)| *a != 0).collect(),
            ports,
            job,
        });
        self.pods.in_use += 1;
        Ok(Some(n))
    }
}

/// A cluster built a node list first, then one pod at a time (so that a pod list read as a
/// stream is never held whole).
pub(crate) struct Builder {
    pub(crate) cluster: Cluster,
    by_name: HashMap<String, usize>,
    repulsions: Vec<(String, usize, Option<String>)>,
    errors: Vec<InventoryError>,
    /// Index of the next pod among those given.
    next_pod: usize,
}

impl Builder {
    pub(crate) fn of_nodes(node_list: &[Node]) -> Builder {
        let mut cluster = Cluster {
            nodes: Vec::with_capacity(node_list.len()),
            names: Vec::new(),
            index: HashMap::new(),
            extended_resource_toleration: false,
            pods: PodCounts::default(),
            compute_classes: Vec::new(),
            auto_provisioning: false,
        };
        let data = nodes();
        let mut errors = Vec::new();
        for (i, node) in node_list.iter().enumerate() {
            match cluster.node(node, i) {
                Ok(n) => {
                    cluster.extended_resource_toleration |= data.platform_of(&n.labels).is_some_and(|p| p.extended_resource_toleration);
                    cluster.nodes.push(n);
                }
                Err(e) => errors.push(e),
            }
        }
        let by_name = cluster.nodes.iter().enumerate().map(|(i, n)| (n.name.clone(), i)).collect();
        Builder { cluster, by_name, repulsions: Vec::new(), errors, next_pod: 0 }
    }

    /// True when the node list has a node of this name.
    pub(crate) fn knows(&self, node: &str) -> bool {
        self.by_name.contains_key(node)
    }

    /// Adds the next pod of the list.
    pub(crate) fn pod(&mut self, pod: &Pod) {
        let i = self.next_pod;
        self.next_pod += 1;
        match self.cluster.add_pod(pod, i, &self.by_name) {
            Ok(Some(n)) => self.repulsions.extend(jobset_repulsions(pod).into_iter().map(|(key, prio)| (key, n, prio))),
            Ok(None) => {}
            Err(e) => self.errors.push(e),
        }
    }

    /// True when a node or pod so far could not be counted.
    pub(crate) fn failed(&self) -> bool {
        !self.errors.is_empty()
    }

    pub(crate) fn finish(mut self) -> Result<Cluster, Vec<InventoryError>> {
        self.cluster.repel(&self.repulsions);
        if self.errors.is_empty() {
            Ok(self.cluster)
        } else {
            Err(self.errors)
        }
    }
}

/// The required pod anti-affinity terms of a pod in use that keep other JobSet Jobs out of its
/// topology domain, as `(topology key, priority)`: the terms JobSet's pod webhook gives the leader
/// pod of an exclusive Job (`jobset.sigs.k8s.io/job-key` Exists and NotIn its own, and
/// `jobset.sigs.k8s.io/priority` In its own; any namespace: jobset v0.12.0
/// `pkg/webhooks/pod_webhook.go` `setExclusiveAffinities`). Every pod of a Trainer JobSet has
/// a job key, so it matches the term when the priorities do. Terms on other labels are not read.
fn jobset_repulsions(pod: &Pod) -> Vec<(String, Option<String>)> {
    let terms = pod
        .spec
        .as_ref()
        .and_then(|s| s.affinity.as_ref())
        .and_then(|a| a.pod_anti_affinity.as_ref())
        .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_deref())
        .unwrap_or_default();
    terms
        .iter()
        .filter(|t| !t.topology_key.is_empty())
        .filter_map(|t| {
            let selector = t.label_selector.as_ref()?;
            let expressions = selector.match_expressions.as_deref().unwrap_or_default();
            let on_job_key = expressions.iter().any(|e| e.key == keys::JOBSET_JOB_KEY && e.operator == "Exists");
            let only_jobset = expressions.iter().all(|e| e.key == keys::JOBSET_JOB_KEY || e.key == keys::JOBSET_PRIORITY)
                && selector.match_labels.as_ref().is_none_or(|m| m.is_empty());
            if !(on_job_key && only_jobset) {
                return None;
            }
            let priority = expressions
                .iter()
                .find(|e| e.key == keys::JOBSET_PRIORITY && e.operator == "In")
                .and_then(|e| e.values.as_ref().and_then(|v| v.first()).cloned());
            Some((t.topology_key.clone(), priority))
        })
        .collect()
}

fn set(v: &mut Vec<i64>, i: usize, value: i64) {
    if v.len() <= i {
        v.resize(i + 1, 0);
    }
    if let Some(slot) = v.get_mut(i) {
        *slot = value;
    }
}

fn set_flag(v: &mut Vec<bool>, i: usize) {
    if v.len() <= i {
        v.resize(i + 1, false);
    }
    if let Some(slot) = v.get_mut(i) {
        *slot = true;
    }
}

fn readiness(node: &Node) -> Readiness {
    let ready = node.status.as_ref().and_then(|s| s.conditions.as_ref()).and_then(|c| c.iter().find(|c| c.type_ == "Ready"));
    match ready {
        None => Readiness::Unreported,
        Some(c) if c.status == "True" => Readiness::Ready,
        Some(c) => Readiness::NotReady {
            status: c.status.clone(),
            reason: [c.reason.as_deref(), c.message.as_deref()]
                .into_iter()
                .flatten()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(": "),
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Reading the lists from documents, with errors placed at their file and line.

/// The Nodes of the inventory documents, or every document that is not one (placed).
pub fn read_nodes(docs: &[Document]) -> Result<Vec<Node>, Vec<Diagnostic>> {
    let (classes, docs) = split_compute_classes(docs);
    let (nodes, mut errors) = read_kind::<Node>(&docs, "Node", &FIT_NOT_A_NODE, true, |_| true);
    // An Autopilot cluster with nothing running lists ComputeClasses and no node.
    if errors.is_empty() && nodes.is_empty() && classes.is_empty() {
        let others = docs.iter().filter(|d| !kind_is(d, "Node")).count();
        let message = if others > 0 {
            format!(
                "the node inventory holds no Node, only {} of other kinds (a pod list goes to --pods)",
                crate::words::count(others, "object")
            )
        } else {
            "the node inventory holds no Node".to_string()
        };
        let mut d = Diagnostic::finding(&FIT_NO_NODES, "", message);
        if let Some(doc) = docs.first() {
            d = doc.locate(d);
        }
        errors.push(d);
    }
    if errors.is_empty() {
        Ok(nodes.into_iter().map(|(_, n)| n).collect())
    } else {
        Err(errors)
    }
}

/// The ComputeClass objects of the node list (apiVersion `cloud.google.com/...`), and the other
/// documents.
fn split_compute_classes(docs: &[Document]) -> (Vec<&Document>, Vec<Document>) {
    use crate::capacity::compute_class::{GROUP, KIND};
    let is_class = |d: &Document| {
        d.value.get("kind").and_then(Value::as_str) == Some(KIND)
            && d.value.get("apiVersion").and_then(Value::as_str).is_some_and(|v| v.split('/').next() == Some(GROUP))
    };
    let classes = docs.iter().filter(|d| is_class(d)).collect();
    let others = docs.iter().filter(|d| !is_class(d)).cloned().collect();
    (classes, others)
}

/// The ComputeClasses of the node list; one that does not read is an error at its place.
pub fn read_compute_classes(docs: &[Document]) -> Result<Vec<crate::capacity::compute_class::ComputeClass>, Vec<Diagnostic>> {
    let (classes, _) = split_compute_classes(docs);
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for doc in classes {
        match serde_path_to_error::deserialize::<_, crate::capacity::compute_class::ComputeClass>(&doc.value) {
            Ok(c) => out.push(c),
            Err(e) => errors.push(
                doc.locate(
                    Diagnostic::finding(&FIT_NOT_A_NODE, e.path().to_string(), format!("does not read as a ComputeClass: {}", e.inner()))
                        .with_object(object_ref(&doc.value, "ComputeClass")),
                ),
            ),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The pods in use of a pod list, the documents they came from, and the count of the others.
#[derive(Debug)]
pub struct PodList<'a> {
    pub pods: Vec<Pod>,
    pub docs: Vec<&'a Document>,
    pub counts: PodCounts,
}

/// The pods of the pod list that hold resources (bound, not finished), with the number of pods
/// left out as finished or unbound, or every document that is not a pod (placed).
/// The pods in use of `docs`; with `snapshot` (the pod list is the node list's file: a cluster
/// snapshot), the other kinds of a snapshot are skipped, else they are errors (a node list given
/// as `--pods` must not read as a cluster with no pod in use).
pub fn read_pods(docs: &[Document], snapshot: bool) -> Result<PodList<'_>, Vec<Diagnostic>> {
    let mut counts = PodCounts { given: true, ..PodCounts::default() };
    let holds = |v: &Value| {
        let phase = v.pointer("/status/phase").and_then(Value::as_str).unwrap_or_default();
        let bound = v.pointer("/spec/nodeName").and_then(Value::as_str).is_some_and(|n| !n.is_empty());
        !matches!(phase, "Succeeded" | "Failed") && bound
    };
    for d in docs.iter().filter(|d| kind_is(d, "Pod") && !holds(&d.value)) {
        let phase = d.value.pointer("/status/phase").and_then(Value::as_str).unwrap_or_default();
        if matches!(phase, "Succeeded" | "Failed") {
            counts.finished += 1;
        } else {
            counts.unbound += 1;
        }
    }
    let (pods, errors) = read_kind::<Pod>(docs, "Pod", &FIT_NOT_A_POD, snapshot, holds);
    if errors.is_empty() {
        let (docs, pods): (Vec<&Document>, Vec<Pod>) = pods.into_iter().unzip();
        Ok(PodList { pods, docs, counts })
    } else {
        Err(errors)
    }
}

/// The object a finding is about; items of a typed list (`NodeList`) may come without a kind.
fn object_ref(value: &Value, kind: &str) -> ObjectRef {
    let mut r = ObjectRef::of(value);
    if r.kind.is_empty() {
        r.kind = kind.to_string();
    }
    r
}

/// A kind a cluster snapshot holds (`catalog/live.yaml`), under its API group.
fn snapshot_kind(doc: &Document) -> bool {
    let (Some(kind), Some(api)) = (doc.value.get("kind").and_then(Value::as_str), doc.value.get("apiVersion").and_then(Value::as_str))
    else {
        return false;
    };
    let group = api.rsplit_once('/').map_or("", |(g, _)| g);
    crate::live::table().resources.iter().any(|r| r.kind == kind && r.group == group)
}

fn kind_is(doc: &Document, kind: &str) -> bool {
    match doc.value.get("kind").and_then(Value::as_str) {
        Some(k) => k == kind,
        // Items of a typed list (`NodeList` from the API) may come without a kind.
        None => !doc.within.is_empty(),
    }
}

/// Every document of kind `kind` that `wanted` keeps, read as `T`; the others are errors.
fn read_kind<'a, T: serde::de::DeserializeOwned>(
    docs: &'a [Document],
    kind: &str,
    rule: &'static crate::rules::Rule,
    snapshot: bool,
    wanted: impl Fn(&Value) -> bool,
) -> (Vec<(&'a Document, T)>, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for doc in docs {
        if !kind_is(doc, kind) {
            // A snapshot (`jax-runtimes snapshot`, `kubectl get nodes,pods,... -o yaml`) holds
            // the other kinds live mode reads: each list takes its own.
            if snapshot && snapshot_kind(doc) {
                continue;
            }
            let found = doc.value.get("kind").and_then(Value::as_str).unwrap_or("an object without a kind");
            errors.push(doc.locate(
                Diagnostic::finding(rule, "kind", format!("expected a {kind}, found {found}")).with_object(ObjectRef::of(&doc.value)),
            ));
            continue;
        }
        if !wanted(&doc.value) {
            continue;
        }
        match serde_path_to_error::deserialize::<_, T>(&doc.value) {
            Ok(v) => out.push((doc, v)),
            Err(e) => {
                let path = e.path().to_string();
                let d = Diagnostic::finding(
                    rule,
                    if path == "." { String::new() } else { path },
                    format!("does not read as a {kind}: {}", e.inner()),
                )
                .with_object(object_ref(&doc.value, kind));
                errors.push(doc.locate(d));
            }
        }
    }
    (out, errors)
}

/// The cluster of the node and pod documents: every problem placed at its file and line.
pub fn from_documents(node_docs: &[Document], pod_docs: Option<&[Document]>) -> Result<(Cluster, Vec<Diagnostic>), Vec<Diagnostic>> {
    let node_list = read_nodes(node_docs)?;
    let compute_classes = read_compute_classes(node_docs)?;
    let node_places: Vec<&Document> = node_docs.iter().filter(|d| kind_is(d, "Node")).collect();
    let (pods, pod_places, counts) = match pod_docs {
        Some(docs) => {
            // The same file as the node list: a snapshot of the cluster.
            let snapshot = docs.iter().any(|p| node_docs.iter().any(|n| p.source.name == n.source.name));
            let list = read_pods(docs, snapshot)?;
            (Some(list.pods), list.docs, list.counts)
        }
        None => (None, Vec::new(), PodCounts::default()),
    };
    let mut cluster = Cluster::new(&node_list, pods.as_deref()).map_err(|errs| {
        errs.into_iter()
            .map(|e| match e {
                InventoryError::NodeQuantity { index, field, source } => {
                    let d = Diagnostic::finding(&FIT_NOT_A_NODE, field, source.to_string());
                    match node_places.get(index) {
                        Some(doc) => doc.locate(d.with_object(object_ref(&doc.value, "Node"))),
                        None => d,
                    }
                }
                InventoryError::PodRequests { index, source } => {
                    let d = Diagnostic::finding(&FIT_NOT_A_POD, source.field, source.source.to_string());
                    match pod_places.get(index) {
                        Some(doc) => doc.locate(d.with_object(object_ref(&doc.value, "Pod"))),
                        None => d,
                    }
                }
            })
            .collect::<Vec<_>>()
    })?;
    cluster.compute_classes = compute_classes;
    cluster.pods.finished += counts.finished;
    cluster.pods.unbound += counts.unbound;
    let mut notes = Vec::new();
    let known: std::collections::HashSet<&str> = cluster.nodes.iter().map(|n| n.name.as_str()).collect();
    for doc in &pod_places {
        let node = doc.value.pointer("/spec/nodeName").and_then(Value::as_str).unwrap_or_default();
        if !known.contains(node) {
            notes.push(
                doc.locate(
                    Diagnostic::finding(
                        &FIT_POD_ON_UNKNOWN_NODE,
                        "spec.nodeName",
                        format!("bound to node `{node}`, which the node inventory does not list; not counted"),
                    )
                    .with_object(object_ref(&doc.value, "Pod")),
                ),
            );
        }
    }
    Ok((cluster, notes))
}
