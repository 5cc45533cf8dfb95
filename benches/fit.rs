//! In-process benchmarks (divan) of `fit`: 1,000 runtimes against a cluster of 5,000 nodes and
//! 50,000 pods, the cost of reading the cluster and of the verdicts apart, and the same at a
//! quarter and half the cluster (time per node+pod must stay flat: linear in nodes plus pods).
//!
//!   cargo bench --bench fit
//!   JAX_BENCH_FIT_WRITE=DIR cargo bench --bench fit   # write DIR/{nodes,pods}.json and
//!                                                     # DIR/catalog.yaml for timing the binary
//!
//! The cluster is made of real node shapes (GKE TPU v5e/v6e/v5p slice pools, A3 H100 pools,
//! EKS p5.48xlarge, AKS ND H100 v5, GPU Feature Discovery B200 nodes, CPU pools; 2% cordoned,
//! 1% not Ready), each with DaemonSet pods and workload pods (some finished, some JobSet pods on
//! TPU slices). The runtimes cycle through CPU, GPU (GKE, EKS, AKS, generic) and TPU entries.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

use std::sync::Arc;

use divan::counter::ItemsCount;
use divan::{black_box, Bencher};
use jax_runtimes::fit::{self, Cluster};
use jax_runtimes::pipeline;
use jax_runtimes::read::{self, Source};
use jax_runtimes::trainer::TrainingRuntime;
use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::{json, Value};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const RUNTIMES: usize = 1_000;
const NODES: usize = 5_000;
const PODS: usize = 50_000;

fn main() {
    if let Some(dir) = std::env::var_os("JAX_BENCH_FIT_WRITE") {
        write_inputs(std::path::Path::new(&dir));
        return;
    }
    divan::main();
}

/// (accelerator, platform, numNodes) of the benchmark's catalog entries.
const SHAPES: [(&str, Option<&str>, Option<u32>); 12] = [
    ("{cpu: {}}", None, Some(1)),
    ("{cpu: {}}", None, Some(4)),
    ("{gpu: {model: h100-80gb, count: 8}}", Some("gke"), Some(2)),
    ("{gpu: {model: l4, count: 1}}", Some("gke"), Some(1)),
    ("{gpu: {model: h100-80gb, count: 8}}", Some("eks"), Some(4)),
    ("{gpu: {model: h100-80gb, count: 8}}", Some("aks"), Some(2)),
    ("{gpu: {model: b200, count: 8}}", Some("generic"), Some(2)),
    ("{tpu: {type: v5e, topology: 2x2}}", None, None),
    ("{tpu: {type: v5e, topology: 4x4}}", None, None),
    ("{tpu: {type: v6e, topology: 8x8}}", None, None),
    ("{tpu: {type: v5p, topology: 2x2x2}}", None, None),
    ("{tpu: {type: v6e, topology: 4x4}}", None, None),
];

fn catalog(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let (accel, platform, nodes) = SHAPES[i % SHAPES.len()];
        s.push_str(&format!("---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: bench-{i:05}\nspec:\n  accelerator: {accel}\n"));
        if let Some(p) = platform {
            s.push_str(&format!("  platform: {p}\n"));
        }
        if let Some(n) = nodes {
            s.push_str(&format!("  numNodes: {n}\n"));
        }
        if accel.starts_with("{cpu") {
            s.push_str(&format!("  resources:\n    requests: {{cpu: \"{}\", memory: {}Gi}}\n", 2 + i % 6, 8 + i % 24));
        }
    }
    s
}

fn runtimes(n: usize) -> Vec<TrainingRuntime> {
    let docs = read::parse_source(Arc::new(Source::new("bench.yaml", Some(catalog(n))))).unwrap();
    let g = pipeline::generate(&docs);
    assert!(!g.has_errors(), "{:?}", g.diagnostics.iter().filter(|d| d.is_error()).collect::<Vec<_>>());
    g.runtimes.into_iter().map(|r| r.runtime).collect()
}

/// Node `i` of a cluster: (labels, taints, allocatable) of its pool's shape.
fn node_value(i: usize) -> Value {
    let tpu_taint = json!([{"key": "google.com/tpu", "value": "present", "effect": "NoSchedule"}]);
    let gpu_taint = json!([{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]);
    let tpu_alloc =
        json!({"cpu": "111650m", "memory": "187089387Ki", "ephemeral-storage": "47060071478", "google.com/tpu": "4", "pods": "110"});
    // 10% TPU hosts, 8% GKE GPU, 8% EKS, 8% AKS, 4% generic GPU, the rest CPU.
    let (labels, taints, alloc) = match i % 50 {
        0..=1 => (
            json!({"cloud.google.com/gke-nodepool": format!("v5e-4x4-{}", i / 200), "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice", "cloud.google.com/gke-tpu-topology": "4x4"}),
            tpu_taint,
            tpu_alloc,
        ),
        2 => (
            json!({"cloud.google.com/gke-nodepool": format!("v5e-2x2-{}", i / 50), "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice", "cloud.google.com/gke-tpu-topology": "2x2"}),
            tpu_taint,
            tpu_alloc,
        ),
        3 => (
            json!({"cloud.google.com/gke-nodepool": format!("v6e-8x8-{}", i / 800), "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "8x8"}),
            tpu_taint,
            tpu_alloc,
        ),
        4 => (
            json!({"cloud.google.com/gke-nodepool": format!("v5p-{}", i / 100), "cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice", "cloud.google.com/gke-tpu-topology": "2x2x2"}),
            tpu_taint,
            tpu_alloc,
        ),
        5..=8 => (
            json!({"cloud.google.com/gke-nodepool": format!("a3-{}", i / 500), "cloud.google.com/gke-accelerator": "nvidia-h100-80gb", "node.kubernetes.io/instance-type": "a3-highgpu-8g"}),
            gpu_taint,
            json!({"cpu": "207410m", "memory": "1887040797Ki", "nvidia.com/gpu": "8", "pods": "110"}),
        ),
        9..=12 => (
            json!({"node.kubernetes.io/instance-type": "p5.48xlarge", "karpenter.sh/nodepool": format!("gpu-{}", i / 1000), "karpenter.k8s.aws/ec2nodeclass": "gpu"}),
            json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
            json!({"cpu": "191450m", "memory": "1938410Mi", "hugepages-2Mi": "10Gi", "nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32", "pods": "100"}),
        ),
        13..=16 => (
            json!({"node.kubernetes.io/instance-type": "Standard_ND96isr_H100_v5", "kubernetes.azure.com/agentpool": format!("gpunp{}", i / 1000), "kubernetes.azure.com/cluster": "MC_x"}),
            json!([{"key": "sku", "value": "gpu", "effect": "NoSchedule"}]),
            json!({"cpu": "95500m", "memory": "1858215876Ki", "nvidia.com/gpu": "8", "pods": "110"}),
        ),
        17..=18 => (
            json!({"nvidia.com/gpu.product": "NVIDIA-B200", "nvidia.com/gpu.present": "true"}),
            json!([]),
            json!({"cpu": "223", "memory": "2102981580Ki", "nvidia.com/gpu": "8", "pods": "110"}),
        ),
        _ => (
            json!({"cloud.google.com/gke-nodepool": format!("cpu-{}", i % 20), "topology.kubernetes.io/zone": format!("us-central1-{}", ["a", "b", "c"][i % 3])}),
            json!([]),
            json!({"cpu": "31850m", "memory": "122329333Ki", "ephemeral-storage": "47060071478", "pods": "110"}),
        ),
    };
    let name = format!("node-{i:05}");
    let mut labels = labels;
    labels["kubernetes.io/hostname"] = json!(name);
    labels["kubernetes.io/os"] = json!("linux");
    let mut taints = taints.as_array().cloned().unwrap_or_default();
    let mut spec = json!({});
    let mut ready = "True";
    if i % 50 == 49 {
        spec["unschedulable"] = json!(true);
        taints.push(json!({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}));
    } else if i % 100 == 23 {
        ready = "Unknown";
        taints.push(json!({"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}));
    }
    spec["taints"] = Value::Array(taints);
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": spec,
        "status": {"allocatable": alloc.clone(), "capacity": alloc, "conditions": [{"type": "Ready", "status": ready, "reason": "KubeletReady"}]}})
}

/// Pod `j` of `pods` on a cluster of `nodes`: DaemonSet pods on every node, then workloads.
fn pod_value(j: usize, nodes: usize) -> Value {
    let node = j % nodes;
    let round = j / nodes;
    let name = format!("pod-{j:06}");
    let (resources, labels, phase) = match round {
        0 => (json!({"requests": {"cpu": "100m", "memory": "200Mi"}}), json!({"k8s-app": "fluentbit"}), "Running"),
        1 => (json!({"requests": {"cpu": "250m", "memory": "256Mi"}}), json!({"k8s-app": "kube-proxy"}), "Running"),
        r => {
            let phase = ["Running", "Running", "Running", "Succeeded", "Pending", "Failed"][(j / 7) % 6];
            match node % 50 {
                0..=4 if r == 2 => (
                    json!({"limits": {"google.com/tpu": "4"}}),
                    json!({"jobset.sigs.k8s.io/job-key": format!("job-{}", node / 4), "jobset.sigs.k8s.io/priority": "0"}),
                    if node.is_multiple_of(3) { "Running" } else { "Succeeded" },
                ),
                5..=18 => (json!({"limits": {"nvidia.com/gpu": format!("{}", 1 + j % 4)}}), json!({"app": "inference"}), phase),
                _ => (
                    json!({"requests": {"cpu": format!("{}", 1 + j % 3), "memory": format!("{}Gi", 1 + j % 8)}}),
                    json!({"app": "batch"}),
                    phase,
                ),
            }
        }
    };
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns", "labels": labels},
        "spec": {"nodeName": format!("node-{node:05}"), "containers": [{"name": "c", "image": "x", "resources": resources}]}, "status": {"phase": phase}})
}

fn inventory(nodes: usize, pods: usize) -> (Vec<Node>, Vec<Pod>) {
    let n = (0..nodes).map(|i| serde_json::from_value(node_value(i)).unwrap()).collect();
    let p = (0..pods).map(|j| serde_json::from_value(pod_value(j, nodes)).unwrap()).collect();
    (n, p)
}

fn write_inputs(dir: &std::path::Path) {
    std::fs::create_dir_all(dir).unwrap();
    let list = |items: Vec<Value>| json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items});
    std::fs::write(dir.join("nodes.json"), list((0..NODES).map(node_value).collect()).to_string()).unwrap();
    std::fs::write(dir.join("pods.json"), list((0..PODS).map(|j| pod_value(j, NODES)).collect()).to_string()).unwrap();
    std::fs::write(dir.join("catalog.yaml"), catalog(RUNTIMES)).unwrap();
    eprintln!("wrote {}/nodes.json, pods.json, catalog.yaml", dir.display());
}

/// The whole stage, cluster and verdicts, on typed input: 1,000 runtimes x (nodes, pods).
#[divan::bench(args = [(1_250, 12_500), (2_500, 25_000), (NODES, PODS)], sample_count = 10, sample_size = 1)]
fn fit_cluster(bencher: Bencher, (nodes, pods): (usize, usize)) {
    let rts = runtimes(RUNTIMES);
    let refs: Vec<&TrainingRuntime> = rts.iter().collect();
    let (n, p) = inventory(nodes, pods);
    bencher.counter(ItemsCount::new(nodes + pods)).bench(|| {
        let cluster = Cluster::new(black_box(&n), Some(black_box(&p))).unwrap();
        black_box(fit::fit(&cluster, &refs))
    });
}

/// Reading the nodes and pods into the cluster, alone.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn cluster_only(bencher: Bencher) {
    let (n, p) = inventory(NODES, PODS);
    bencher.counter(ItemsCount::new(NODES + PODS)).bench(|| black_box(Cluster::new(black_box(&n), Some(black_box(&p))).unwrap()));
}

/// The 1,000 verdicts on a cluster already read.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn verdicts_only(bencher: Bencher) {
    let rts = runtimes(RUNTIMES);
    let refs: Vec<&TrainingRuntime> = rts.iter().collect();
    let (n, p) = inventory(NODES, PODS);
    let cluster = Cluster::new(&n, Some(&p)).unwrap();
    bencher.counter(ItemsCount::new(RUNTIMES)).bench(|| black_box(fit::fit(black_box(&cluster), &refs)));
}
