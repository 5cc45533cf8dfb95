//! Property tests of `fit` (proptest), on random clusters built from real node shapes (GKE TPU
//! and GPU pools, CPU pools, EKS and AKS GPU nodes; cordoned, not Ready, tainted, device plugin
//! missing) and random pods in use (running, pending, finished, JobSet pods at two priorities):
//! - adding a node never turns "fits" into "does not fit", nor lowers `copies`;
//! - removing a pod never lowers `copies`;
//! - a cluster's verdicts do not depend on the order of its nodes and pods;
//! - whatever value a node or pod field holds, `fit` answers or refuses, and never panics.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::sync::{Arc, OnceLock};

use jax_runtimes::fit::{self, inventory, Cluster, Verdict};
use jax_runtimes::read::{self, Document, Source};
use jax_runtimes::trainer::TrainingRuntime;
use jax_runtimes::{pipeline, read::BUILTIN};
use k8s_openapi::api::core::v1::{Node, Pod};
use proptest::prelude::*;
use serde_json::{json, Value};

/// The built-in catalog's runtimes, rendered once, and a hand-written GPU runtime with no selector.
fn runtimes() -> &'static [TrainingRuntime] {
    static RT: OnceLock<Vec<TrainingRuntime>> = OnceLock::new();
    RT.get_or_init(|| {
        let mut docs = Vec::new();
        for (name, text) in BUILTIN {
            docs.extend(read::parse_source(Arc::new(Source::new(*name, Some(text.to_string())))).unwrap());
        }
        let mut out: Vec<TrainingRuntime> = pipeline::generate(&docs).runtimes.into_iter().map(|r| r.runtime).collect();
        let bare = json!({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime", "metadata": {"name": "bare-gpu"},
            "spec": {"mlPolicy": {"numNodes": 2, "jax": {}}, "template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
                "containers": [{"name": "node", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 4}}}]}}}}}]}}}});
        out.push(serde_json::from_value(bare).unwrap());
        out
    })
}

/// A node of one of the real shapes: `shape` picks it, `pool` its pool, `state` its condition.
fn node(i: usize, shape: u8, pool: u8, state: u8) -> Node {
    let name = format!("node-{i}");
    let (labels, taints, alloc) = match shape % 5 {
        0 => (
            json!({"cloud.google.com/gke-nodepool": format!("v5e-{pool}"), "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
                   "cloud.google.com/gke-tpu-topology": if pool.is_multiple_of(2) { "4x4" } else { "2x2" }}),
            json!([{"key": "google.com/tpu", "value": "present", "effect": "NoSchedule"}]),
            json!({"cpu": "111650m", "memory": "187089387Ki", "google.com/tpu": "4", "pods": "110"}),
        ),
        1 => (
            json!({"cloud.google.com/gke-nodepool": format!("a3-{pool}"), "cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}),
            json!([{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]),
            json!({"cpu": "207410m", "memory": "1887040797Ki", "nvidia.com/gpu": if state == 7 { "0" } else { "8" }, "pods": "110"}),
        ),
        2 => (
            json!({"cloud.google.com/gke-nodepool": format!("cpu-{pool}")}),
            json!([]),
            json!({"cpu": "31850m", "memory": "122329333Ki", "pods": "110"}),
        ),
        3 => (
            json!({"node.kubernetes.io/instance-type": "p5.48xlarge", "karpenter.sh/nodepool": format!("gpu-{pool}"), "karpenter.k8s.aws/ec2nodeclass": "gpu"}),
            json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
            json!({"cpu": "191450m", "memory": "1938410Mi", "nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32", "pods": "100"}),
        ),
        _ => (
            json!({"node.kubernetes.io/instance-type": "Standard_ND96isr_H100_v5", "kubernetes.azure.com/agentpool": format!("gpunp{pool}"), "kubernetes.azure.com/cluster": "MC_x"}),
            json!([{"key": "sku", "value": "gpu", "effect": "NoSchedule"}]),
            json!({"cpu": "95500m", "memory": "1858215876Ki", "nvidia.com/gpu": "8", "pods": "110"}),
        ),
    };
    let mut labels = labels;
    labels["kubernetes.io/hostname"] = Value::String(name.clone());
    let mut taints = taints.as_array().cloned().unwrap_or_default();
    let mut spec = json!({});
    let mut ready = "True";
    match state {
        1 => {
            spec["unschedulable"] = json!(true);
            taints.push(json!({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}));
        }
        2 => {
            ready = "Unknown";
            taints.push(json!({"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}));
        }
        3 => ready = "False",
        4 => taints.push(json!({"key": "dedicated", "value": "team-b", "effect": "NoSchedule"})),
        5 => taints.push(json!({"key": "soft", "effect": "PreferNoSchedule"})),
        _ => {}
    }
    spec["taints"] = Value::Array(taints);
    serde_json::from_value(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": spec,
        "status": {"allocatable": alloc, "conditions": [{"type": "Ready", "status": ready}]}}))
    .unwrap()
}

/// A pod on node `on` (or none): a share of a TPU host, GPUs, EFA, cpu and memory, in a phase;
/// some are JobSet pods.
fn pod(i: usize, on: Option<usize>, kind: u8, phase: u8, amount: u8) -> Pod {
    let resources = match kind % 5 {
        0 => json!({"limits": {"google.com/tpu": (amount % 5).to_string()}}),
        1 => json!({"limits": {"nvidia.com/gpu": (amount % 9).to_string()}}),
        2 => json!({"requests": {"cpu": format!("{}", amount % 40), "memory": format!("{}Gi", amount % 130)}}),
        3 => json!({"limits": {"vpc.amazonaws.com/efa": (amount % 33).to_string()}}),
        _ => json!({}),
    };
    let mut labels = json!({});
    let mut spec = json!({"containers": [{"name": "c", "image": "x", "resources": resources}]});
    if amount.is_multiple_of(3) {
        let key = format!("job-{}", amount % 4);
        let priority = if amount.is_multiple_of(2) { "0" } else { "100" };
        labels = json!({"jobset.sigs.k8s.io/job-key": key, "jobset.sigs.k8s.io/priority": priority});
        // Some are exclusive leaders: JobSet's anti-affinity on the node pool or the node.
        if amount.is_multiple_of(9) {
            let topology = if amount.is_multiple_of(18) { "cloud.google.com/gke-nodepool" } else { "kubernetes.io/hostname" };
            spec["affinity"] = json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchExpressions": [
                    {"key": "jobset.sigs.k8s.io/job-key", "operator": "Exists"},
                    {"key": "jobset.sigs.k8s.io/job-key", "operator": "NotIn", "values": [key]},
                    {"key": "jobset.sigs.k8s.io/priority", "operator": "In", "values": [priority]}]},
                "namespaceSelector": {}, "topologyKey": topology}]}});
        }
    }
    let phase = ["Running", "Pending", "Succeeded", "Failed", "Unknown"][usize::from(phase % 5)];
    if let Some(n) = on {
        spec["nodeName"] = json!(format!("node-{n}"));
    }
    serde_json::from_value(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": format!("p{i}"), "namespace": "ns", "labels": labels}, "spec": spec, "status": {"phase": phase}})).unwrap()
}

fn verdicts(nodes: &[Node], pods: &[Pod]) -> Vec<Verdict> {
    let cluster = Cluster::new(nodes, Some(pods)).expect("generated inventories read");
    let rts: Vec<&TrainingRuntime> = runtimes().iter().collect();
    fit::fit(&cluster, &rts)
}

type NodeSpec = (u8, u8, u8);
type PodSpec = (Option<u8>, u8, u8, u8);

/// A node: its shape (TPU hosts most often, so that slices fill up), pool and state (mostly healthy).
fn node_spec() -> impl Strategy<Value = NodeSpec> {
    (prop_oneof![3 => Just(0u8), 1 => 1u8..5], 0u8..3, prop_oneof![3 => Just(0u8), 1 => 1u8..9])
}

fn cluster_strategy() -> impl Strategy<Value = (Vec<NodeSpec>, Vec<PodSpec>)> {
    (
        prop::collection::vec(node_spec(), 0..24),
        prop::collection::vec((prop::option::weighted(0.85, 0u8..24), 0u8..5, 0u8..5, any::<u8>()), 0..40),
    )
}

fn build(nodes: &[NodeSpec], pods: &[PodSpec]) -> (Vec<Node>, Vec<Pod>) {
    let n: Vec<Node> = nodes.iter().enumerate().map(|(i, (s, p, st))| node(i, *s, *p, *st)).collect();
    let count = n.len().max(1);
    let p: Vec<Pod> = pods.iter().enumerate().map(|(i, (on, k, ph, a))| pod(i, on.map(|o| usize::from(o) % count), *k, *ph, *a)).collect();
    (n, p)
}

proptest! {
    #![proptest_config(support::proptest_config())]

    #[test]
    fn adding_a_node_never_turns_fits_into_does_not_fit((nodes, pods) in cluster_strategy(), extra in prop::option::weighted(0.3, node_spec()), like in any::<prop::sample::Index>()) {
        let (n, p) = build(&nodes, &pods);
        let before = verdicts(&n, &p);
        let mut more = n.clone();
        // A node of a new shape, or (more often) one more like a node already there: a pool grows.
        let (s, pl, st) = extra.or_else(|| (!nodes.is_empty()).then(|| nodes[like.index(nodes.len())])).unwrap_or((0, 0, 0));
        more.push(node(1000, s, pl, st));
        let after = verdicts(&more, &p);
        for (b, a) in before.iter().zip(&after) {
            prop_assert!(a.outcome.copies >= b.outcome.copies, "{}: {} copies before, {} after adding a node", b.runtime, b.outcome.copies, a.outcome.copies);
            prop_assert!(a.outcome.copies_empty >= b.outcome.copies_empty, "{}: empty copies fell", b.runtime);
            prop_assert!(!b.outcome.fits || a.outcome.fits, "{} stopped fitting", b.runtime);
        }
    }

    #[test]
    fn removing_a_pod_never_lowers_copies((nodes, pods) in cluster_strategy(), which in any::<prop::sample::Index>()) {
        prop_assume!(!pods.is_empty());
        let (n, p) = build(&nodes, &pods);
        let before = verdicts(&n, &p);
        let mut fewer = p.clone();
        fewer.remove(which.index(fewer.len()));
        let after = verdicts(&n, &fewer);
        for (b, a) in before.iter().zip(&after) {
            prop_assert!(a.outcome.copies >= b.outcome.copies, "{}: {} copies before, {} after removing a pod", b.runtime, b.outcome.copies, a.outcome.copies);
            prop_assert_eq!(a.outcome.copies_empty, b.outcome.copies_empty, "pods do not change the empty cluster");
        }
    }

    #[test]
    fn the_order_of_nodes_and_pods_does_not_change_the_answer((nodes, pods) in cluster_strategy()) {
        let (n, p) = build(&nodes, &pods);
        let mut rn = n.clone();
        rn.reverse();
        let mut rp = p.clone();
        rp.reverse();
        let a = verdicts(&n, &p);
        let b = verdicts(&rn, &rp);
        for (x, y) in a.iter().zip(&b) {
            prop_assert_eq!((x.outcome.copies, x.outcome.copies_empty, &x.outcome.placement), (y.outcome.copies, y.outcome.copies_empty, &y.outcome.placement), "{}", x.runtime);
        }
    }
}

/// Any JSON value: scalars that look like quantities, names and numbers, nested a little.
fn value() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        "[0-9]{0,25}(\\.[0-9]{0,4})?(m|Ki|Mi|Gi|Ei|e[+-]?[0-9]{1,5}|E|k|x)?".prop_map(Value::String),
        "[a-zA-Z./_=:-]{0,12}".prop_map(Value::String),
    ];
    scalar.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-zA-Z./-]{0,10}", inner), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// The fields `fit` reads, as JSON pointers.
const NODE_FIELDS: &[&str] = &[
    "/metadata/name",
    "/metadata/labels",
    "/spec",
    "/spec/taints",
    "/spec/unschedulable",
    "/status/allocatable",
    "/status/allocatable/cpu",
    "/status/allocatable/pods",
    "/status/capacity",
    "/status/conditions",
    "/kind",
    "",
];
const POD_FIELDS: &[&str] = &[
    "/metadata/labels",
    "/spec/nodeName",
    "/spec/containers",
    "/spec/containers/0/resources",
    "/spec/initContainers",
    "/spec/overhead",
    "/spec/resources",
    "/status",
    "/status/phase",
    "/kind",
];

fn set(v: &mut Value, pointer: &str, new: Value) {
    if pointer.is_empty() {
        *v = new;
    } else if let Some(slot) = v.pointer_mut(pointer) {
        *slot = new;
    } else if let Some((parent, key)) = pointer.rsplit_once('/') {
        if let Some(Value::Object(m)) = v.pointer_mut(parent) {
            m.insert(key.to_string(), new);
        }
    }
}

proptest! {
    #![proptest_config(support::proptest_config())]

    #[test]
    fn any_value_in_a_node_or_pod_field_is_answered_or_refused_never_a_panic(
        (nodes, pods) in cluster_strategy(),
        node_hits in prop::collection::vec((any::<prop::sample::Index>(), 0..NODE_FIELDS.len(), value()), 1..4),
        pod_hits in prop::collection::vec((any::<prop::sample::Index>(), 0..POD_FIELDS.len(), value()), 0..4),
    ) {
        let (n, p) = build(&nodes, &pods);
        let mut nv: Vec<Value> = n.iter().map(|x| serde_json::to_value(x).unwrap()).collect();
        let mut pv: Vec<Value> = p.iter().map(|x| serde_json::to_value(x).unwrap()).collect();
        if nv.is_empty() {
            nv.push(serde_json::to_value(node(0, 0, 0, 0)).unwrap());
        }
        for (i, f, v) in node_hits {
            let at = i.index(nv.len());
            set(&mut nv[at], NODE_FIELDS[f], v);
        }
        for (i, f, v) in pod_hits {
            if pv.is_empty() { break; }
            let at = i.index(pv.len());
            set(&mut pv[at], POD_FIELDS[f], v);
        }
        let source = Source::named("fuzz.yaml");
        let docs = |vals: Vec<Value>| -> Vec<Document> { vals.into_iter().enumerate().map(|(i, v)| Document::new(source.clone(), i, v)).collect() };
        let pod_docs = docs(pv);
        match inventory::from_documents(&docs(nv), Some(&pod_docs)) {
            Ok((cluster, _)) => {
                let rts: Vec<&TrainingRuntime> = runtimes().iter().collect();
                for v in fit::fit(&cluster, &rts) {
                    prop_assert_eq!(v.outcome.fits, v.outcome.copies > 0);
                    prop_assert_eq!(v.outcome.fits, v.outcome.reason.is_empty(), "{}: {}", v.runtime, v.outcome.reason);
                }
            }
            Err(errors) => {
                prop_assert!(!errors.is_empty());
                for e in errors {
                    prop_assert!(e.is_error() && e.rule.id.starts_with("fit/"), "{e}");
                    prop_assert_eq!(e.file.as_deref(), Some("fuzz.yaml"));
                }
            }
        }
    }
}
