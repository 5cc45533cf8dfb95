//! `jax-runtimes fit` from the outside, on inventories shaped like real clusters (the labels,
//! taints and allocatable that GKE, EKS, AKS and GPU Feature Discovery put on nodes, in the
//! `kind: List` layout `kubectl get nodes -o yaml` prints), with pods in use: one test per
//! reason a gang stays Pending, the exit codes, the JSON shape, and bad input placed at its line.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::fs;
use std::path::Path;

use serde_json::{json, Value};
use support::{run_in, Run};

// ------------------------------------------------------------------ inventories, as kubectl prints them

/// One node as `kubectl get nodes -o yaml` prints it (an item of the List): labels (the kubelet's
/// own plus `extra`), taints, allocatable (= capacity here) and the Ready condition.
fn node(
    name: &str,
    extra: &[(&str, &str)],
    taints: &[(&str, &str, &str)],
    allocatable: &[(&str, &str)],
    ready: &str,
    cordoned: bool,
) -> String {
    let mut s = format!("- apiVersion: v1\n  kind: Node\n  metadata:\n    name: {name}\n    labels:\n      kubernetes.io/hostname: {name}\n      kubernetes.io/os: linux\n      kubernetes.io/arch: amd64\n      beta.kubernetes.io/os: linux\n");
    for (k, v) in extra {
        s.push_str(&format!("      {k}: \"{v}\"\n"));
    }
    s.push_str("  spec:\n");
    if cordoned {
        s.push_str("    unschedulable: true\n");
    }
    let mut taints: Vec<(&str, &str, &str)> = taints.to_vec();
    if cordoned {
        taints.push(("node.kubernetes.io/unschedulable", "", "NoSchedule"));
    }
    if ready == "Unknown" {
        taints.push(("node.kubernetes.io/unreachable", "", "NoSchedule"));
        taints.push(("node.kubernetes.io/unreachable", "", "NoExecute"));
    }
    if !taints.is_empty() {
        s.push_str("    taints:\n");
        for (k, v, e) in taints {
            s.push_str(&format!("    - effect: {e}\n      key: {k}\n"));
            if !v.is_empty() {
                s.push_str(&format!("      value: \"{v}\"\n"));
            }
            if k.starts_with("node.kubernetes.io/") {
                s.push_str("      timeAdded: \"2026-05-01T10:00:00Z\"\n");
            }
        }
    }
    s.push_str("  status:\n    allocatable:\n");
    for (k, v) in allocatable {
        s.push_str(&format!("      {k}: \"{v}\"\n"));
    }
    s.push_str("    capacity:\n");
    for (k, v) in allocatable {
        s.push_str(&format!("      {k}: \"{v}\"\n"));
    }
    let (reason, message) = match ready {
        "True" => ("KubeletReady", "kubelet is posting ready status"),
        _ => ("NodeStatusUnknown", "Kubelet stopped posting node status."),
    };
    s.push_str(&format!(
        "    conditions:\n    - lastHeartbeatTime: \"2026-05-01T10:00:00Z\"\n      lastTransitionTime: \"2026-05-01T09:00:00Z\"\n      message: {message}\n      reason: {reason}\n      status: \"{ready}\"\n      type: Ready\n    - {{type: MemoryPressure, status: \"False\", reason: KubeletHasSufficientMemory}}\n"
    ));
    s
}

fn list(items: &[String]) -> String {
    format!("apiVersion: v1\nitems:\n{}kind: List\nmetadata:\n  resourceVersion: \"\"\n", items.concat())
}

const TPU_ALLOC: &[(&str, &str)] =
    &[("cpu", "111650m"), ("ephemeral-storage", "47060071478"), ("google.com/tpu", "4"), ("memory", "187089387Ki"), ("pods", "110")];

/// A GKE TPU v5e slice node pool of `n` ct5lp-hightpu-4t nodes; `not_ready` of them Ready=Unknown.
fn gke_v5e_pool(pool: &str, topology: &str, n: usize, not_ready: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            node(
                &format!("gke-tpu-c1-{pool}-3f1c2a9d-{i:04}"),
                &[
                    ("cloud.google.com/gke-nodepool", pool),
                    ("cloud.google.com/gke-tpu-accelerator", "tpu-v5-lite-podslice"),
                    ("cloud.google.com/gke-tpu-topology", topology),
                    ("cloud.google.com/machine-family", "ct5lp"),
                    ("node.kubernetes.io/instance-type", "ct5lp-hightpu-4t"),
                    ("topology.kubernetes.io/zone", "us-west4-a"),
                ],
                &[("google.com/tpu", "present", "NoSchedule")],
                TPU_ALLOC,
                if i + not_ready >= n { "Unknown" } else { "True" },
                false,
            )
        })
        .collect()
}

/// A GKE A3 High pool (a3-highgpu-8g, 8 x H100 80GB); the nodes in `cordoned` are cordoned.
fn gke_a3_pool(n: usize, cordoned: &[usize], gpus: &str) -> Vec<String> {
    (0..n)
        .map(|i| {
            node(
                &format!("gke-gpu-c1-a3-h100-9b2e7c41-{i:04}"),
                &[
                    ("cloud.google.com/gke-nodepool", "a3-h100"),
                    ("cloud.google.com/gke-accelerator", "nvidia-h100-80gb"),
                    ("cloud.google.com/gke-gpu", "true"),
                    ("node.kubernetes.io/instance-type", "a3-highgpu-8g"),
                ],
                &[("nvidia.com/gpu", "present", "NoSchedule")],
                &[("cpu", "207410m"), ("memory", "1887040797Ki"), ("nvidia.com/gpu", gpus), ("pods", "110")],
                "True",
                cordoned.contains(&i),
            )
        })
        .collect()
}

/// A GKE n2-standard-32 CPU pool.
fn gke_cpu_pool(names: &[&str], cordoned: &[&str]) -> Vec<String> {
    names
        .iter()
        .map(|name| {
            node(
                name,
                &[("cloud.google.com/gke-nodepool", "cpu-pool"), ("node.kubernetes.io/instance-type", "n2-standard-32")],
                &[],
                &[("cpu", "31850m"), ("ephemeral-storage", "47060071478"), ("memory", "122329333Ki"), ("pods", "110")],
                "True",
                cordoned.contains(name),
            )
        })
        .collect()
}

/// EKS p5.48xlarge nodes of a Karpenter NodePool `gpu-h100`, tainted as its docs show.
fn eks_p5(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            node(
                &format!("ip-10-0-131-{}.us-east-2.compute.internal", 70 + i),
                &[
                    ("node.kubernetes.io/instance-type", "p5.48xlarge"),
                    ("karpenter.sh/nodepool", "gpu-h100"),
                    ("karpenter.sh/capacity-type", "on-demand"),
                    ("karpenter.k8s.aws/ec2nodeclass", "gpu"),
                    ("karpenter.k8s.aws/instance-gpu-name", "h100"),
                    ("karpenter.k8s.aws/instance-gpu-count", "8"),
                    ("topology.kubernetes.io/zone", "us-east-2b"),
                ],
                &[("nvidia.com/gpu", "true", "NoSchedule")],
                &[
                    ("cpu", "191450m"),
                    ("ephemeral-storage", "17Gi"),
                    // The EKS accelerated AMI reserves 2 MiB huge pages on EFA instances.
                    ("hugepages-2Mi", "10Gi"),
                    ("memory", "1938410Mi"),
                    ("nvidia.com/gpu", "8"),
                    ("pods", "100"),
                    ("vpc.amazonaws.com/efa", "32"),
                ],
                "True",
                false,
            )
        })
        .collect()
}

/// AKS ND H100 v5 nodes of user pool `gpunp`, created as the AKS GPU guide does (`sku=gpu:NoSchedule`),
/// with the InfiniBand devices the SR-IOV device plugin of Azure's RDMA guide advertises.
fn aks_nd_h100(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            node(
                &format!("aks-gpunp-28993262-vmss00000{i}"),
                &[
                    ("node.kubernetes.io/instance-type", "Standard_ND96isr_H100_v5"),
                    ("kubernetes.azure.com/agentpool", "gpunp"),
                    ("agentpool", "gpunp"),
                    ("kubernetes.azure.com/mode", "user"),
                    ("kubernetes.azure.com/cluster", "MC_rg_aks1_eastus"),
                    ("kubernetes.azure.com/accelerator", "nvidia"),
                    ("topology.kubernetes.io/zone", "0"),
                ],
                &[("sku", "gpu", "NoSchedule")],
                &[
                    ("cpu", "95500m"),
                    ("ephemeral-storage", "972991057538"),
                    ("memory", "1858215876Ki"),
                    ("nvidia.com/gpu", "8"),
                    ("pods", "110"),
                    ("rdma/ib", "8"),
                ],
                "True",
                false,
            )
        })
        .collect()
}

/// A pod as `kubectl get pods -A -o yaml` prints it (trimmed to what matters).
fn pod(ns: &str, name: &str, node: Option<&str>, phase: &str, resources: &str, labels: &[(&str, &str)]) -> String {
    let mut s = format!("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: {name}\n    namespace: {ns}\n");
    if !labels.is_empty() {
        s.push_str("    labels:\n");
        for (k, v) in labels {
            s.push_str(&format!("      {k}: \"{v}\"\n"));
        }
    }
    s.push_str(&format!("  spec:\n    containers:\n    - name: main\n      image: busybox\n      resources: {resources}\n"));
    if let Some(n) = node {
        s.push_str(&format!("    nodeName: {n}\n"));
    }
    s.push_str(&format!("    priority: 0\n  status:\n    phase: {phase}\n"));
    s
}

// ------------------------------------------------------------------ running it

/// `jax-runtimes fit` in a fresh directory holding `files`; `args` name them.
fn fit(files: &[(&str, &str)], args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    let mut all = vec!["fit"];
    all.extend(args);
    run_in(dir.path(), &all, None)
}

/// The JSON verdicts of `fit ... --format json`, by runtime name.
fn verdicts(r: &Run) -> std::collections::BTreeMap<String, Value> {
    let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", r.all()));
    v.as_array().unwrap().iter().map(|o| (o["runtime"].as_str().unwrap().to_string(), o.clone())).collect()
}

fn reason(v: &Value) -> &str {
    v["reason"].as_str().unwrap()
}

/// A catalog of one JaxRuntime.
fn entry(name: &str, spec: &str) -> String {
    format!("apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: {name}\nspec:\n{spec}")
}

// ------------------------------------------------------------------ TPU slices

#[test]
fn two_tpu_slices_take_two_copies_of_a_4x4_runtime_one_per_node_pool() {
    let nodes = list(
        &[gke_v5e_pool("v5e-4x4-a", "4x4", 4, 0), gke_v5e_pool("v5e-4x4-b", "4x4", 4, 0), gke_v5e_pool("v5e-2x2", "2x2", 1, 0)].concat(),
    );
    let r = fit(&[("nodes.yaml", &nodes)], &["--nodes", "nodes.yaml", "--format", "json"]);
    assert_eq!(r.code, 1, "the built-in catalog has runtimes this cluster cannot take\n{}", r.all());
    let v = verdicts(&r);
    let t = &v["jax-tpu-v5e-4x4"];
    assert_eq!((t["fits"].as_bool(), t["copies"].as_u64(), t["pods"].as_u64()), (Some(true), Some(2), Some(4)), "{t}");
    assert_eq!(t["where"], serde_json::json!(["v5e-4x4-a", "v5e-4x4-b"]));
    assert_eq!(reason(t), "");
    // The single-host 2x2 runtime fits the 2x2 pool only, once.
    assert_eq!(v["jax-tpu-v5e-2x2"]["copies"], 1);
    assert_eq!(v["jax-tpu-v5e-2x2"]["where"], serde_json::json!(["v5e-2x2"]));
    // A topology with no pool says so in the accelerator's terms, and names the closest pool.
    let missing = reason(&v["jax-tpu-v5e-2x4-2hosts"]);
    assert!(missing.starts_with("no node pool for TPU v5e 2x4: no node has cloud.google.com/gke-tpu-accelerator=tpu-v5-lite-podslice and cloud.google.com/gke-tpu-topology=2x4"), "{missing}");
    assert!(missing.contains("the closest, node pool v5e-2x2, has cloud.google.com/gke-tpu-topology=2x2"), "{missing}");
    assert!(reason(&v["jax-tpu-v6e-2x4-1host"]).starts_with("no node pool for TPU v6e 2x4"), "{}", reason(&v["jax-tpu-v6e-2x4-1host"]));
    // kube-scheduler's view of the nodes a v6e pod cannot use.
    assert_eq!(v["jax-tpu-v6e-2x2"]["nodes"]["node(s) didn't match Pod's node affinity/selector"], 9);
}

/// A GKE TPU v5e 2x4 node pool of `n` hosts of `machine` (`ct5lp-hightpu-4t`: 4 chips, or
/// `ct5lp-hightpu-8t`: 8 chips): the same accelerator and topology labels either way.
fn gke_v5e_2x4_pool(pool: &str, machine: &str, n: usize) -> Vec<String> {
    let chips = if machine.ends_with("-8t") { "8" } else { "4" };
    let mut alloc: Vec<(&str, &str)> = TPU_ALLOC.iter().copied().filter(|(k, _)| *k != "google.com/tpu").collect();
    alloc.push(("google.com/tpu", chips));
    (0..n)
        .map(|i| {
            node(
                &format!("gke-tpu-c1-{pool}-7d0e1b2c-{i:04}"),
                &[
                    ("cloud.google.com/gke-nodepool", pool),
                    ("cloud.google.com/gke-tpu-accelerator", "tpu-v5-lite-podslice"),
                    ("cloud.google.com/gke-tpu-topology", "2x4"),
                    ("node.kubernetes.io/instance-type", machine),
                ],
                &[("google.com/tpu", "present", "NoSchedule")],
                &alloc,
                "True",
                false,
            )
        })
        .collect()
}

#[test]
fn the_two_host_v5e_2x4_runtime_fits_a_4t_pool_and_not_an_8t_pool_whose_one_host_its_pods_would_share() {
    let four = list(&gke_v5e_2x4_pool("v5e-2x4-4t", "ct5lp-hightpu-4t", 2));
    let eight = list(&gke_v5e_2x4_pool("v5e-2x4-8t", "ct5lp-hightpu-8t", 1));
    let on = |nodes: &str| verdicts(&fit(&[("nodes.yaml", nodes)], &["--nodes", "nodes.yaml", "--format", "json"]));
    let (v4, v8) = (on(&four), on(&eight));
    assert_eq!(
        (v4["jax-tpu-v5e-2x4-2hosts"]["fits"].as_bool(), v4["jax-tpu-v5e-2x4-2hosts"]["where"].clone()),
        (Some(true), serde_json::json!(["v5e-2x4-4t"]))
    );
    assert_eq!(v8["jax-tpu-v5e-2x4-2hosts"]["fits"], false, "the runtime pins ct5lp-hightpu-4t");
    let why = reason(&v8["jax-tpu-v5e-2x4-2hosts"]);
    assert!(why.contains("the closest, node pool v5e-2x4-8t, has node.kubernetes.io/instance-type=ct5lp-hightpu-8t"), "{why}");
    // And the one-host variant the other way round.
    assert_eq!((v8["jax-tpu-v5e-2x4-1host"]["fits"].as_bool(), v4["jax-tpu-v5e-2x4-1host"]["fits"].as_bool()), (Some(true), Some(false)));
    // A hand-written runtime without the pin (the validator's TPU base without its machine type)
    // lands both pods on the one 8-chip host: fit says so, and how to pin it.
    let pinned = fs::read_to_string(support::root().join("tests/validate/base/tpu.yaml")).unwrap();
    let unpinned = pinned.replace("                  node.kubernetes.io/instance-type: ct5lp-hightpu-4t\n", "");
    assert_ne!(unpinned, pinned, "the base pins its machine type");
    let r = fit(&[("nodes.yaml", &eight), ("rt.yaml", &unpinned)], &["--nodes", "nodes.yaml", "rt.yaml", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let v = &verdicts(&r)["jax-tpu-v5e-2x4"];
    let why = reason(v);
    assert!(
        why.starts_with("needs 2 pods (4 google.com/tpu each), each on a host of its own (TPU v5e 2x4 runs one pod per host)"),
        "{why}"
    );
    assert!(why.contains("gke-tpu-c1-v5e-2x4-8t-7d0e1b2c-0000 (2)"), "{why}");
    assert!(v["help"].as_str().unwrap().contains("`node.kubernetes.io/instance-type: ct5lp-hightpu-4t`"), "{v}");
    let r = fit(&[("nodes.yaml", &four), ("rt.yaml", &unpinned)], &["--nodes", "nodes.yaml", "rt.yaml", "--format", "json"]);
    assert_eq!((r.code, verdicts(&r)["jax-tpu-v5e-2x4"]["copies"].as_u64()), (0, Some(1)), "{}", r.all());
}

/// A GKE TPU v6e 2x4 node pool of `n` hosts of `machine` (`ct6e-standard-4t`: two VMs of 4 chips
/// make one slice, or `ct6e-standard-8t`: one VM of 8 chips is a slice): both labelled
/// `gke-tpu-topology: 2x4` (vllm-project/ci-infra#525). `instance_type`: with the machine type label.
fn gke_v6e_2x4_pool(pool: &str, machine: &str, n: usize, instance_type: bool) -> Vec<String> {
    let chips = if machine.ends_with("-8t") { "8" } else { "4" };
    let mut alloc: Vec<(&str, &str)> = TPU_ALLOC.iter().copied().filter(|(k, _)| *k != "google.com/tpu").collect();
    alloc.push(("google.com/tpu", chips));
    let mut labels = vec![
        ("cloud.google.com/gke-nodepool", pool),
        ("cloud.google.com/gke-tpu-accelerator", "tpu-v6e-slice"),
        ("cloud.google.com/gke-tpu-topology", "2x4"),
    ];
    if instance_type {
        labels.push(("node.kubernetes.io/instance-type", machine));
    }
    (0..n)
        .map(|i| {
            node(
                &format!("gke-tpu-c1-{pool}-5a1e9c4d-{i:04}"),
                &labels,
                &[("google.com/tpu", "present", "NoSchedule")],
                &alloc,
                "True",
                false,
            )
        })
        .collect()
}

/// A hand-written v6e 2x4 runtime of `hosts` pods of `chips` chips that selects only the
/// accelerator and topology (no machine type, no pool): what `tpu/pool-shape` warns of.
fn v6e_2x4_unpinned(name: &str, hosts: u32, chips: u32) -> String {
    let base = fs::read_to_string(support::root().join("tests/validate/base/tpu.yaml")).unwrap();
    let out = base
        .replace("name: jax-tpu-v5e-2x4", &format!("name: {name}"))
        .replace("numNodes: 2", &format!("numNodes: {hosts}"))
        .replace("google.com/tpu: 4", &format!("google.com/tpu: {chips}"))
        .replace("tpu-v5-lite-podslice", "tpu-v6e-slice")
        .replace("                  node.kubernetes.io/instance-type: ct5lp-hightpu-4t\n", "");
    assert!(!out.contains("instance-type") && out.contains("tpu-v6e-slice"), "{out}");
    out
}

/// Issue 53 item 4: a v6e 2x4 runtime for the `-4t` pools (two hosts of 4 chips) never fits an
/// inventory of `ct6e-standard-8t` nodes, however many and however pooled, and a runtime for the
/// `-8t` pools (one host of 8 chips) never fits `-4t` nodes; pinned (as `render` writes them) or
/// not (hand-written, accelerator and topology only), nodes with or without the machine type
/// label. Each fits its own pool.
#[test]
fn a_v6e_2x4_runtime_fits_only_the_pool_shape_it_is_for() {
    let runtimes = [
        ("jax-tpu-v6e-2x4-2hosts", None),
        ("jax-tpu-v6e-2x4-1host", None),
        ("hand-2hosts", Some(v6e_2x4_unpinned("hand-2hosts", 2, 4))),
        ("hand-1host", Some(v6e_2x4_unpinned("hand-1host", 1, 8))),
    ];
    let for_4t = |name: &str| name.ends_with("2hosts");
    let hand: String = runtimes.iter().filter_map(|(_, t)| t.clone()).collect::<Vec<_>>().join("---\n");
    for labelled in [true, false] {
        // Inventories of one kind of host: one pool of 1, 2 or 4 nodes, and 4 pools of one node.
        for machine in ["ct6e-standard-4t", "ct6e-standard-8t"] {
            let short = &machine[machine.len() - 2..];
            let inventories = [
                gke_v6e_2x4_pool(&format!("v6e-{short}"), machine, 1, labelled),
                gke_v6e_2x4_pool(&format!("v6e-{short}"), machine, 2, labelled),
                gke_v6e_2x4_pool(&format!("v6e-{short}"), machine, 4, labelled),
                (0..4).flat_map(|p| gke_v6e_2x4_pool(&format!("v6e-{short}-{p}"), machine, 1, labelled)).collect(),
            ];
            for nodes in &inventories {
                let nodes = list(nodes);
                let builtin = verdicts(&fit(&[("nodes.yaml", &nodes)], &["--nodes", "nodes.yaml", "--format", "json"]));
                let r = fit(&[("nodes.yaml", &nodes), ("rt.yaml", &hand)], &["--nodes", "nodes.yaml", "rt.yaml", "--format", "json"]);
                let written = verdicts(&r);
                let hosts = nodes.matches("kind: Node").count();
                for (name, text) in &runtimes {
                    let v = if text.is_some() { &written[*name] } else { &builtin[*name] };
                    let mine = for_4t(name) == (machine == "ct6e-standard-4t");
                    // A 2-host slice needs a pool of two -4t hosts, the 1-host runtime any -8t host;
                    // a runtime that pins the machine type, nodes that carry it (as GKE's do).
                    let expect = mine && (text.is_some() || labelled) && (!for_4t(name) || hosts / pools_of(&nodes) >= 2);
                    assert_eq!(
                        v["fits"].as_bool(),
                        Some(expect),
                        "{name} on {hosts} {machine} node(s) (machine type label: {labelled}): {v:#}"
                    );
                    if !mine && for_4t(name) && text.is_some() {
                        // Its pods would take 4 of an 8-chip host's chips: fit names the host and the pin.
                        assert!(reason(v).contains("each on a host of its own (TPU v6e 2x4 runs one pod per host)"), "{}", reason(v));
                        assert!(
                            v["help"].as_str().unwrap_or_default().contains("`node.kubernetes.io/instance-type: ct6e-standard-4t`"),
                            "{v:#}"
                        );
                    }
                }
            }
        }
    }
}

/// The node pools of a node list (`cloud.google.com/gke-nodepool` values).
fn pools_of(nodes: &str) -> usize {
    let pools: std::collections::BTreeSet<&str> =
        nodes.lines().filter_map(|l| l.trim().strip_prefix("cloud.google.com/gke-nodepool: ")).collect();
    pools.len().max(1)
}

#[test]
fn a_pool_with_a_not_ready_node_cannot_take_a_whole_slice() {
    let nodes = list(&gke_v5e_pool("v5e-4x4-b", "4x4", 4, 1));
    let r = fit(&[("nodes.yaml", &nodes)], &["--nodes", "nodes.yaml", "--format", "json"]);
    let v = verdicts(&r);
    let t = &v["jax-tpu-v5e-4x4"];
    assert_eq!((t["fits"].as_bool(), t["fitsEmpty"].as_bool(), t["copies"].as_u64()), (Some(false), Some(false), Some(0)));
    let why = reason(t);
    assert!(why.starts_with("needs 4 pods (4 google.com/tpu each) in one node pool (cloud.google.com/gke-nodepool)"), "{why}");
    assert!(why.contains("the closest, node pool v5e-4x4-b, takes 3: 3 of its 4 nodes are usable"), "{why}");
    assert!(why.contains("gke-tpu-c1-v5e-4x4-b-3f1c2a9d-0003 is not Ready (Ready=Unknown"), "{why}");
    assert_eq!(t["nodes"]["node(s) had untolerated taint {node.kubernetes.io/unreachable: }"], 1);
    // The text table says the same in one row.
    let text = fit(&[("nodes.yaml", &nodes)], &["--nodes", "nodes.yaml"]);
    let row = text.stdout.lines().find(|l| l.starts_with("jax-tpu-v5e-4x4 ")).unwrap();
    assert!(row.contains(" no ") && row.contains("node pool v5e-4x4-b, takes 3"), "{row}");
}

#[test]
fn a_slice_held_by_another_jobset_fits_only_an_empty_cluster() {
    let nodes = list(&gke_v5e_pool("v5e-4x4-a", "4x4", 4, 0));
    let first = "gke-tpu-c1-v5e-4x4-a-3f1c2a9d-0000";
    let jobset = |prio: &str| {
        list(&[pod(
            "ml",
            "llama-node-0-0-x7k2p",
            Some(first),
            "Running",
            "{limits: {google.com/tpu: \"4\"}, requests: {google.com/tpu: \"4\"}}",
            &[("jobset.sigs.k8s.io/job-key", "6b3c0f"), ("jobset.sigs.k8s.io/priority", prio)],
        )])
    };
    let r =
        fit(&[("nodes.yaml", &nodes), ("pods.yaml", &jobset("0"))], &["--nodes", "nodes.yaml", "--pods", "pods.yaml", "--format", "json"]);
    let t = &verdicts(&r)["jax-tpu-v5e-4x4"];
    assert_eq!((t["fits"].as_bool(), t["fitsEmpty"].as_bool(), t["copiesEmpty"].as_u64()), (Some(false), Some(true), Some(1)), "{t}");
    assert!(
        reason(t).contains("node pool v5e-4x4-a holds ml/llama-node-0-0-x7k2p of another JobSet (one Job per node pool)"),
        "{}",
        reason(t)
    );
    assert_eq!(t["nodes"]["node(s) didn't satisfy existing pods anti-affinity rules"], 3);
    // Exclusive placement holds within a priority: a JobSet at another priority does not block
    // the pool, it only holds the chips of its node.
    let r = fit(
        &[("nodes.yaml", &nodes), ("pods.yaml", &jobset("1000"))],
        &["--nodes", "nodes.yaml", "--pods", "pods.yaml", "--format", "json"],
    );
    let t = &verdicts(&r)["jax-tpu-v5e-4x4"];
    assert_eq!(t["fits"], false);
    assert!(reason(t).contains("node pool v5e-4x4-a takes 3 of 4 now (in use by ml/llama-node-0-0-x7k2p)"), "{}", reason(t));
}

#[test]
fn the_pods_named_as_in_the_way_are_those_holding_the_chips_not_the_daemonsets() {
    let nodes = list(&gke_v5e_pool("v5e-4x4-a", "4x4", 4, 0));
    // A logging DaemonSet on every host and another team's plain (non-JobSet) pod on one.
    let mut items: Vec<String> = (0..4)
        .map(|i| {
            pod(
                "kube-system",
                &format!("fluentbit-gke-{i:04}"),
                Some(&format!("gke-tpu-c1-v5e-4x4-a-3f1c2a9d-{i:04}")),
                "Running",
                "{requests: {cpu: 100m, memory: 200Mi}}",
                &[],
            )
        })
        .collect();
    items.push(pod(
        "team-b",
        "notebook-0",
        Some("gke-tpu-c1-v5e-4x4-a-3f1c2a9d-0002"),
        "Running",
        "{limits: {google.com/tpu: \"4\"}}",
        &[],
    ));
    let r =
        fit(&[("nodes.yaml", &nodes), ("pods.yaml", &list(&items))], &["--nodes", "nodes.yaml", "--pods", "pods.yaml", "--format", "json"]);
    let t = &verdicts(&r)["jax-tpu-v5e-4x4"];
    assert_eq!((t["fits"].as_bool(), t["fitsEmpty"].as_bool()), (Some(false), Some(true)), "{t}");
    assert!(reason(t).ends_with("node pool v5e-4x4-a takes 3 of 4 now (in use by team-b/notebook-0)"), "{}", reason(t));
    assert!(!reason(t).contains("fluentbit"), "{}", reason(t));
}

#[test]
fn one_node_and_many_nodes_agree_with_their_verbs() {
    // Two of three A3 nodes cordoned: a two-node runtime gets the one left.
    let nodes = list(&gke_a3_pool(3, &[1, 2], "8"));
    let r = fit(&[("nodes.yaml", &nodes)], &["--nodes", "nodes.yaml", "--format", "json"]);
    let why = reason(&verdicts(&r)["jax-gpu-gke-h100-2nodes"]).to_string();
    assert!(
        why.ends_with("the one usable node takes 1; gke-gpu-c1-a3-h100-9b2e7c41-0001 and gke-gpu-c1-a3-h100-9b2e7c41-0002 are cordoned (spec.unschedulable)"),
        "{why}"
    );
    // Untolerated taints on two nodes of a generic cluster: "have", and the pod "does" not tolerate.
    let dgx = |name: &str, taint: &str| {
        node(
            name,
            &[("nvidia.com/gpu.present", "true"), ("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")],
            &[(taint, "present", "NoSchedule")],
            &[("cpu", "223"), ("memory", "2102981580Ki"), ("nvidia.com/gpu", "8"), ("pods", "110")],
            "True",
            false,
        )
    };
    let nodes =
        list(&[dgx("dgx-0", "nvidia.com/gpu"), dgx("dgx-1", "site.example.com/reserved"), dgx("dgx-2", "site.example.com/reserved")]);
    let rt = BARE_GPU_RUNTIME.replace(
        "                containers:",
        "                tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n                containers:",
    );
    let r = fit(
        &[("nodes.yaml", &nodes), ("rt.yaml", &rt.replace("numNodes: 1", "numNodes: 2"))],
        &["--nodes", "nodes.yaml", "rt.yaml", "--format", "json"],
    );
    let why = reason(&verdicts(&r)["bare-gpu"]).to_string();
    assert!(
        why.ends_with("dgx-1 and dgx-2 have the taint site.example.com/reserved=present:NoSchedule, which the pod does not tolerate"),
        "{why}"
    );
    assert!(!why.contains(" is has ") && !why.contains("do not tolerate"), "{why}");
}

// ------------------------------------------------------------------ GPU pools

#[test]
fn a_cordoned_gpu_node_leaves_a_two_node_runtime_pending() {
    let nodes = list(&gke_a3_pool(2, &[1], "8"));
    let r = fit(&[("nodes.yaml", &nodes)], &["--nodes", "nodes.yaml", "--format", "json"]);
    let v = verdicts(&r);
    assert_eq!(v["jax-gpu-gke-h100"]["copies"], 1, "the one-node runtime takes the Ready node");
    assert_eq!(v["jax-gpu-gke-h100"]["where"], serde_json::json!(["a3-h100"]));
    let two = &v["jax-gpu-gke-h100-2nodes"];
    assert_eq!((two["fits"].as_bool(), two["fitsEmpty"].as_bool()), (Some(false), Some(false)));
    let why = reason(two);
    assert!(why.starts_with("needs 2 pods (8 nvidia.com/gpu each) on nodes for NVIDIA H100"), "{why}");
    assert!(why.contains("the one usable node takes 1; gke-gpu-c1-a3-h100-9b2e7c41-0001 is cordoned (spec.unschedulable)"), "{why}");
    assert_eq!(two["nodes"]["node(s) were unschedulable"], 1);
    // Every node cordoned: said in one sentence, with the fix.
    let all = list(&gke_a3_pool(2, &[0, 1], "8"));
    let r = fit(&[("nodes.yaml", &all)], &["--nodes", "nodes.yaml", "--format", "json"]);
    let one = &verdicts(&r)["jax-gpu-gke-h100"];
    assert!(reason(one).starts_with("every node for NVIDIA H100 80GB HBM3 (SXM) is cordoned (spec.unschedulable): gke-gpu-c1-a3-h100-9b2e7c41-0000, gke-gpu-c1-a3-h100-9b2e7c41-0001"), "{}", reason(one));
    assert!(one["help"].as_str().unwrap().contains("kubectl uncordon"));
}

#[test]
fn a_gpu_node_whose_device_plugin_has_not_registered_has_no_gpus_to_give() {
    let nodes = list(&gke_a3_pool(1, &[], "0"));
    let r = fit(&[("nodes.yaml", &nodes)], &["--nodes", "nodes.yaml", "--format", "json"]);
    let one = &verdicts(&r)["jax-gpu-gke-h100"];
    assert_eq!(one["fits"], false);
    assert!(reason(one).contains("Insufficient nvidia.com/gpu (0 allocatable, 8 needed)"), "{}", reason(one));
    assert_eq!(one["nodes"]["Insufficient nvidia.com/gpu"], 1);
}

#[test]
fn eks_karpenter_gpu_nodes_take_an_eks_runtime_and_efa_is_counted_like_any_resource() {
    let catalog = entry(
        "h100-eks",
        "  platform: eks\n  numNodes: 2\n  accelerator:\n    gpu: {model: h100-80gb, count: 8}\n  resources:\n    limits: {vpc.amazonaws.com/efa: \"32\"}\n    requests: {vpc.amazonaws.com/efa: \"32\"}\n",
    );
    let nodes = list(&eks_p5(3));
    let r = fit(&[("nodes.yaml", &nodes), ("catalog.yaml", &catalog)], &["--nodes", "nodes.yaml", "catalog.yaml", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.all());
    let v = &verdicts(&r)["h100-eks"];
    assert_eq!((v["copies"].as_u64(), v["pods"].as_u64()), (Some(1), Some(2)), "3 nodes, 2 per copy: {v}");
    assert_eq!(v["where"], serde_json::json!(["gpu-h100"]), "named by the Karpenter NodePool");
    // The fabric of p5.48xlarge asks for huge pages: nodes that reserve none cannot take a pod.
    let bare = nodes.replace("      hugepages-2Mi: \"10Gi\"\n", "");
    assert_ne!(bare, nodes);
    let r = fit(&[("nodes.yaml", &bare), ("catalog.yaml", &catalog)], &["--nodes", "nodes.yaml", "catalog.yaml", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let v = &verdicts(&r)["h100-eks"];
    assert!(reason(v).contains("Insufficient hugepages-2Mi (0 allocatable, 5Gi needed)"), "{}", reason(v));
    assert_eq!(v["nodes"]["Insufficient hugepages-2Mi"], 3);
    // A pod already holding EFA devices on two nodes leaves one node with room: no copy.
    let busy = list(&[
        pod(
            "infra",
            "efa-test-0",
            Some("ip-10-0-131-70.us-east-2.compute.internal"),
            "Running",
            "{requests: {vpc.amazonaws.com/efa: \"1\"}, limits: {vpc.amazonaws.com/efa: \"1\"}}",
            &[],
        ),
        pod(
            "infra",
            "efa-test-1",
            Some("ip-10-0-131-71.us-east-2.compute.internal"),
            "Running",
            "{requests: {vpc.amazonaws.com/efa: \"1\"}, limits: {vpc.amazonaws.com/efa: \"1\"}}",
            &[],
        ),
    ]);
    let r = fit(
        &[("nodes.yaml", &nodes), ("pods.yaml", &busy), ("catalog.yaml", &catalog)],
        &["--nodes", "nodes.yaml", "--pods", "pods.yaml", "catalog.yaml", "--format", "json"],
    );
    assert_eq!(r.code, 1);
    let v = &verdicts(&r)["h100-eks"];
    assert_eq!((v["fits"].as_bool(), v["fitsEmpty"].as_bool()), (Some(false), Some(true)));
    assert!(reason(v).contains("pods in use leave room for 1 of its 2 pods"), "{}", reason(v));
    assert_eq!(v["nodes"]["Insufficient vpc.amazonaws.com/efa"], 2);
}

#[test]
fn an_aks_runtime_fits_a_gpu_pool_made_as_the_aks_guide_says_and_a_runtime_without_its_toleration_is_told_the_fix() {
    // jax-runtimes renders the toleration of the taint the AKS GPU guide puts on GPU pools.
    let catalog = entry("h100-aks", "  platform: aks\n  accelerator:\n    gpu: {model: h100-80gb, count: 8}\n");
    let nodes = list(&aks_nd_h100(2));
    let r = fit(&[("nodes.yaml", &nodes), ("catalog.yaml", &catalog)], &["--nodes", "nodes.yaml", "catalog.yaml", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(verdicts(&r)["h100-aks"]["copies"], 2);
    assert_eq!(verdicts(&r)["h100-aks"]["where"], serde_json::json!(["gpunp"]));
    // So does the built-in AKS runtime, on two such nodes.
    let r = fit(&[("nodes.yaml", &nodes)], &["--nodes", "nodes.yaml", "--format", "json"]);
    assert_eq!(verdicts(&r)["jax-gpu-aks-ndh100v5-2nodes"]["fits"], true, "{}", verdicts(&r)["jax-gpu-aks-ndh100v5-2nodes"]);
    // A hand-written runtime that tolerates only nvidia.com/gpu: every node has the taint, and the
    // help names the toleration the guide's pools need.
    let rt = BARE_GPU_RUNTIME.replace(
        "                containers:",
        "                tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n                nodeSelector: {node.kubernetes.io/instance-type: Standard_ND96isr_H100_v5}\n                containers:",
    );
    let r = fit(&[("nodes.yaml", &nodes), ("rt.yaml", &rt)], &["--nodes", "nodes.yaml", "rt.yaml", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let v = &verdicts(&r)["bare-gpu"];
    let why = reason(v);
    assert!(why.starts_with("every node for NVIDIA H100 80GB HBM3 (SXM) on Standard_ND96isr_H100_v5 has the taint sku=gpu:NoSchedule, which the pod does not tolerate"), "{why}");
    let help = v["help"].as_str().unwrap();
    assert!(
        help.contains("AKS GPU node pools") && help.contains("{key: sku, operator: Equal, value: \"gpu\", effect: NoSchedule}"),
        "{help}"
    );
}

/// A hand-written runtime asking for 8 GPUs with no selector and no toleration.
const BARE_GPU_RUNTIME: &str = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: bare-gpu\nspec:\n  mlPolicy: {numNodes: 1, jax: {}}\n  template:\n    spec:\n      replicatedJobs:\n      - name: node\n        template:\n          metadata:\n            labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}\n          spec:\n            template:\n              spec:\n                containers:\n                - name: node\n                  image: nvcr.io/nvidia/jax:25.10-py3\n                  resources:\n                    limits: {nvidia.com/gpu: 8}\n";

#[test]
fn an_untolerated_gpu_taint_blocks_except_where_the_api_server_adds_the_toleration() {
    // Generic nodes (GPU Feature Discovery labels, a site taint): no admission plugin adds the
    // toleration, so every node with GPUs is out of reach.
    let dgx = node(
        "dgx-h100-07",
        &[("nvidia.com/gpu.present", "true"), ("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"), ("nvidia.com/gpu.count", "8")],
        &[("nvidia.com/gpu", "present", "NoSchedule")],
        &[("cpu", "223"), ("memory", "2102981580Ki"), ("nvidia.com/gpu", "8"), ("pods", "110")],
        "True",
        false,
    );
    let cpu = gke_cpu_pool(&["cpu-1"], &[]).concat().replace("cloud.google.com/gke-nodepool", "pool");
    let nodes = list(&[dgx, cpu]);
    let r = fit(&[("nodes.yaml", &nodes), ("rt.yaml", BARE_GPU_RUNTIME)], &["--nodes", "nodes.yaml", "rt.yaml", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let v = &verdicts(&r)["bare-gpu"];
    assert_eq!(
        reason(v),
        "every node with nvidia.com/gpu has the taint nvidia.com/gpu=present:NoSchedule, which the pod does not tolerate: dgx-h100-07"
    );
    // GKE runs ExtendedResourceToleration: a pod requesting nvidia.com/gpu tolerates the taint.
    let gke = list(&gke_a3_pool(1, &[], "8"));
    let r = fit(&[("nodes.yaml", &gke), ("rt.yaml", BARE_GPU_RUNTIME)], &["--nodes", "nodes.yaml", "rt.yaml", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(verdicts(&r)["bare-gpu"]["copies"], 1);
}

// ------------------------------------------------------------------ TrainJobs, as Trainer merges them

/// A TrainJob on `runtime` with `trainer` as its `spec.trainer` (YAML flow).
fn trainjob(name: &str, runtime: &str, trainer: &str) -> String {
    format!("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {{name: {name}, namespace: ml}}\nspec:\n  runtimeRef: {{name: {runtime}}}\n  trainer: {trainer}\n")
}

/// A node short of several resources is counted under each, and the reason names each with its
/// amounts, as kube-scheduler's NodeResourcesFit does (`0/2 nodes are available: 2 Insufficient
/// cpu, 2 Insufficient memory`), not only the first.
#[test]
fn a_node_short_of_several_resources_is_named_under_each() {
    let nodes = list(&gke_a3_pool(2, &[], "8"));
    let runtimes =
        support::render(&[&support::root().join("catalog/runtimes/gpu-gke.yaml"), &support::root().join("catalog/runtimes/defaults.yaml")]);
    let job = trainjob(
        "big",
        "jax-gpu-gke-h100",
        "{resourcesPerNode: {requests: {cpu: \"300\", memory: 4000Gi}, limits: {cpu: \"300\", memory: 4000Gi}}}",
    );
    let files = [("nodes.yaml", nodes.as_str()), ("runtimes.yaml", runtimes.as_str()), ("jobs.yaml", job.as_str())];
    let r = fit(&files, &["--nodes", "nodes.yaml", "--runtimes", "runtimes.yaml", "jobs.yaml", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let all: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let big = &all[0];
    assert_eq!(big["fits"], false, "{big}");
    assert!(reason(big).contains("Insufficient cpu (207410m allocatable, 300 needed), Insufficient memory ("), "{}", reason(big));
    assert_eq!((&big["nodes"]["Insufficient cpu"], &big["nodes"]["Insufficient memory"]), (&json!(2), &json!(2)), "{big}");
}

#[test]
fn a_trainjob_that_raises_resources_per_node_past_allocatable_does_not_fit_though_its_runtime_does() {
    let nodes = list(&gke_a3_pool(2, &[], "8"));
    let runtimes =
        support::render(&[&support::root().join("catalog/runtimes/gpu-gke.yaml"), &support::root().join("catalog/runtimes/defaults.yaml")]);
    let jobs = [
        trainjob("plain", "jax-gpu-gke-h100", "{}"),
        trainjob("big-cpu", "jax-gpu-gke-h100", "{resourcesPerNode: {requests: {cpu: \"300\"}, limits: {cpu: \"300\"}}}"),
        trainjob("three-nodes", "jax-gpu-gke-h100-2nodes", "{numNodes: 3}"),
    ]
    .join("---\n");
    let files = [("nodes.yaml", nodes.as_str()), ("runtimes.yaml", runtimes.as_str()), ("jobs.yaml", jobs.as_str())];
    let r = fit(&files, &["--nodes", "nodes.yaml", "--runtimes", "runtimes.yaml", "jobs.yaml", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let all: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let by: std::collections::BTreeMap<&str, &Value> = all.iter().map(|v| (v["trainJob"].as_str().unwrap(), v)).collect();
    assert_eq!(all.len(), 3, "one row per TrainJob; --runtimes get none: {}", r.stdout);
    assert_eq!((by["plain"]["fits"].as_bool(), by["plain"]["runtime"].as_str()), (Some(true), Some("jax-gpu-gke-h100")));
    let big = by["big-cpu"];
    assert_eq!((big["fits"].as_bool(), big["fitsEmpty"].as_bool()), (Some(false), Some(false)), "{big}");
    assert!(reason(big).contains("needs 1 pod (8 nvidia.com/gpu, cpu 300)"), "{}", reason(big));
    assert!(reason(big).contains("Insufficient cpu (207410m allocatable, 300 needed)"), "{}", reason(big));
    // numNodes 3 on two nodes: the TrainJob's count, not the runtime's 2.
    let three = by["three-nodes"];
    assert_eq!((three["pods"].as_u64(), three["fits"].as_bool()), (Some(3), Some(false)), "{three}");
    // Its runtime alone fits (the same nodes, rows for the runtimes).
    let r = fit(&files, &["--nodes", "nodes.yaml", "runtimes.yaml", "--format", "json"]);
    assert_eq!(verdicts(&r)["jax-gpu-gke-h100"]["fits"], true);
    assert_eq!(verdicts(&r)["jax-gpu-gke-h100-2nodes"]["fits"], true);
    // The table names the TrainJob.
    let r = fit(&files, &["--nodes", "nodes.yaml", "--runtimes", "runtimes.yaml", "jobs.yaml"]);
    assert!(r.stdout.lines().any(|l| l.starts_with("TrainJob/ml/big-cpu ") && l.contains(" no ")), "{}", r.stdout);
}

#[test]
fn fit_in_a_findings_format_prints_one_document_with_a_finding_at_each_job_that_is_not_placed() {
    let nodes = list(&gke_a3_pool(2, &[], "8"));
    let runtimes =
        support::render(&[&support::root().join("catalog/runtimes/gpu-gke.yaml"), &support::root().join("catalog/runtimes/defaults.yaml")]);
    let jobs =
        [trainjob("plain", "jax-gpu-gke-h100", "{}"), trainjob("three-nodes", "jax-gpu-gke-h100-2nodes", "{numNodes: 3}")].join("---\n");
    let files = [("nodes.yaml", nodes.as_str()), ("runtimes.yaml", runtimes.as_str()), ("jobs.yaml", jobs.as_str())];
    let r = fit(&files, &["--nodes", "nodes.yaml", "--runtimes", "runtimes.yaml", "jobs.yaml", "--format", "sarif"]);
    assert_eq!(r.code, 1, "the exit code is the table's: {}", r.all());
    assert_eq!(r.stderr, "", "one document, on stdout, and nothing else");
    let log: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not one SARIF log ({e}):\n{}", r.stdout));
    let results = log["runs"][0]["results"].as_array().unwrap();
    let not_placed: Vec<&Value> = results.iter().filter(|x| x["ruleId"] == "fit/does-not-fit").collect();
    assert_eq!(not_placed.len(), 1, "the TrainJob that fits has none: {}", r.stdout);
    let at = &not_placed[0]["locations"][0]["physicalLocation"];
    assert_eq!(at["artifactLocation"]["uri"], "jobs.yaml");
    // The second document of jobs.yaml starts after the first one's 6 lines and its `---`.
    assert!(at["region"]["startLine"].as_u64().unwrap() >= 8, "{at}");
    let text = not_placed[0]["message"]["text"].as_str().unwrap();
    assert!(text.contains("TrainJob/ml/three-nodes") && text.contains("its pods would stay Pending on `nodes.yaml`"), "{text}");
    // The same verdicts as GitHub annotations; and all fit: exit 0, no annotation.
    let r = fit(&files, &["--nodes", "nodes.yaml", "--runtimes", "runtimes.yaml", "jobs.yaml", "--format", "github"]);
    assert_eq!((r.code, r.stdout.lines().filter(|l| l.contains("title=fit/does-not-fit")).count()), (1, 1), "{}", r.all());
    let plain = trainjob("plain", "jax-gpu-gke-h100", "{}");
    let files = [("nodes.yaml", nodes.as_str()), ("runtimes.yaml", runtimes.as_str()), ("jobs.yaml", plain.as_str())];
    let r = fit(&files, &["--nodes", "nodes.yaml", "--runtimes", "runtimes.yaml", "jobs.yaml", "--format", "github"]);
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""), "{}", r.all());
}

#[test]
fn fit_places_the_pod_preview_prints() {
    // v2.3 merges resourcesPerNode into the runtime's resources: the pod preview shows is the pod
    // fit places. v2.2 replaces them (the GPUs are gone): `validate` has an error on that
    // (trainjob/accelerator-dropped), and preview and fit both say it rather than place the pod.
    let nodes = list(&gke_a3_pool(1, &[], "8"));
    let runtimes =
        support::render(&[&support::root().join("catalog/runtimes/gpu-gke.yaml"), &support::root().join("catalog/runtimes/defaults.yaml")]);
    let job = trainjob("tuned", "jax-gpu-gke-h100", "{resourcesPerNode: {limits: {cpu: \"250\", memory: 64Gi}}}");
    let files = [("nodes.yaml", nodes.as_str()), ("runtimes.yaml", runtimes.as_str()), ("job.yaml", job.as_str())];
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        fs::write(dir.path().join(name), text).unwrap();
    }
    for version in ["v2.2", "v2.3"] {
        let p = run_in(dir.path(), &["preview", "job.yaml", "--runtimes", "runtimes.yaml", "--trainer-version", version], None);
        let pod: k8s_openapi::api::core::v1::Pod = jax_runtimes::yaml::from_str(&p.stdout).unwrap_or_else(|e| panic!("{e:?}\n{}", p.all()));
        let per_pod = jax_runtimes::k8s::requests::pod_requests(pod.spec.as_ref().unwrap(), None).unwrap();
        let r = fit(
            &files,
            &["--nodes", "nodes.yaml", "--trainer-version", version, "--runtimes", "runtimes.yaml", "job.yaml", "--format", "json"],
        );
        let all: Vec<Value> = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}\n{}", r.all()));
        let why = reason(&all[0]);
        assert_eq!(per_pod.contains_key("nvidia.com/gpu"), version == "v2.3", "{version}: {per_pod:?}");
        if version == "v2.2" {
            assert_eq!((p.code, r.code, &all[0]["invalid"]), (1, 1, &Value::Bool(true)), "{}\n{}", p.all(), r.all());
            assert!(why.starts_with("trainjob/accelerator-dropped: ") && p.stderr.contains("error[trainjob/accelerator-dropped]"), "{why}");
        } else {
            // 250 cores: more than a node has, so the reason names the pod's requests.
            assert_eq!((p.code, all[0].get("invalid")), (0, None), "{}\n{}", p.all(), r.all());
            assert!(why.contains(&format!("needs 1 pod ({})", jax_runtimes::fit::words::requests(&per_pod))), "{version}: {why}");
        }
    }
}

#[test]
fn trainjobs_fit_needs_their_runtimes_and_refuses_what_does_not_read() {
    let nodes = list(&gke_cpu_pool(&["cpu-a"], &[]));
    let job = trainjob("j", "jax-cpu", "{}");
    // Input that was read but is not valid: exit 1, as validate (one exit-code rule).
    let r = fit(&[("nodes.yaml", &nodes), ("job.yaml", &job)], &["--nodes", "nodes.yaml", "job.yaml"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("error[trainjob/runtime-ref]: job.yaml:") && r.stderr.contains("--runtimes PATH"), "{}", r.stderr);
    let j = fit(&[("nodes.yaml", &nodes), ("job.yaml", &job)], &["--nodes", "nodes.yaml", "job.yaml", "--format", "json"]);
    assert_eq!((j.code, j.stdout.as_str()), (1, "[]\n"), "--format json prints one array: {}", j.all());
    let bad = job.replace("trainer: {}", "trainer: {numNodes: many}");
    let catalog = support::root().join("catalog/runtimes/cpu.yaml");
    let r =
        fit(&[("nodes.yaml", &nodes), ("job.yaml", &bad)], &["--nodes", "nodes.yaml", "--runtimes", catalog.to_str().unwrap(), "job.yaml"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("error[fit/unreadable-trainjob]: job.yaml:") && r.stderr.contains("spec.trainer.numNodes"), "{}", r.stderr);
    let r =
        fit(&[("nodes.yaml", &nodes), ("job.yaml", &job)], &["--nodes", "nodes.yaml", "--runtimes", catalog.to_str().unwrap(), "job.yaml"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stderr.contains("1 of 1 fits now (1 TrainJob)"), "{}", r.stderr);
}

// ------------------------------------------------------------------ CPU pools and pods in use

#[test]
fn pods_in_use_hold_their_requests_and_finished_or_pending_pods_hold_nothing() {
    let names = ["gke-c1-cpu-pool-5a6b7c8d-2h9k", "gke-c1-cpu-pool-5a6b7c8d-8mzt", "gke-c1-cpu-pool-5a6b7c8d-q7wd"];
    let nodes = list(&gke_cpu_pool(&names, &["gke-c1-cpu-pool-5a6b7c8d-8mzt"]));
    let pods = list(&[
        // Requests default from limits: 30 of 31.85 cores held.
        pod("team-a", "big-batch-0", Some(names[2]), "Running", "{limits: {cpu: \"30\", memory: 100Gi}}", &[]),
        // Finished and not-yet-bound pods hold nothing.
        pod("team-a", "finished-0", Some(names[0]), "Succeeded", "{requests: {cpu: \"31\"}}", &[]),
        pod("team-a", "failed-0", Some(names[0]), "Failed", "{requests: {cpu: \"31\"}}", &[]),
        pod("team-a", "queued-0", None, "Pending", "{requests: {cpu: \"31\"}}", &[]),
        // Bound but still Pending (pulling images) holds its requests.
        pod("team-b", "starting-0", Some(names[0]), "Pending", "{requests: {cpu: \"3\"}}", &[]),
    ]);
    let r = fit(&[("nodes.yaml", &nodes), ("pods.yaml", &pods)], &["--nodes", "nodes.yaml", "--pods", "pods.yaml", "--format", "json"]);
    let v = verdicts(&r);
    // -2h9k: 28.85 cores free -> 7 pods of 4 cores; -8mzt cordoned; -q7wd: 1.85 free -> 0.
    let multi = &v["jax-cpu-multinode"];
    assert_eq!((multi["copies"].as_u64(), multi["copiesEmpty"].as_u64()), (Some(3), Some(7)), "{multi}");
    assert_eq!(multi["nodes"]["node(s) were unschedulable"], 1);
    assert_eq!(multi["nodes"]["Insufficient cpu"], 1);
    assert!(multi["notes"][0]
        .as_str()
        .unwrap()
        .starts_with("pods of one TrainJob may share a node (up to 2 on gke-c1-cpu-pool-5a6b7c8d-2h9k)"));
    assert_eq!(v["jax-cpu"]["copies"], 7);
    assert!(r.stderr.contains("2 pods in use (2 finished, 1 not bound)"), "{}", r.stderr);
    // Without the pod list the same nodes are empty.
    let r = fit(&[("nodes.yaml", &nodes)], &["--nodes", "nodes.yaml", "--format", "json"]);
    assert_eq!(verdicts(&r)["jax-cpu-multinode"]["copies"], 7);
    assert!(r.stderr.contains("no pod list: every node is taken as empty"), "{}", r.stderr);
}

#[test]
fn a_full_cpu_pool_fits_an_empty_cluster_but_not_now() {
    let names = ["cpu-a", "cpu-b"];
    let nodes = list(&gke_cpu_pool(&names, &[]));
    let pods = list(&[
        pod("team-a", "etl-0", Some("cpu-a"), "Running", "{requests: {cpu: \"30\"}}", &[]),
        pod("team-a", "etl-1", Some("cpu-b"), "Running", "{requests: {memory: 110Gi}}", &[]),
    ]);
    let r = fit(&[("nodes.yaml", &nodes), ("pods.yaml", &pods)], &["--nodes", "nodes.yaml", "--pods", "pods.yaml"]);
    let row = r.stdout.lines().find(|l| l.starts_with("jax-cpu-multinode ")).unwrap();
    assert!(row.contains("not now"), "{row}");
    assert!(row.contains("fits an empty cluster (7 copies), not now: pods in use leave room for 0 of its 2 pods (team-a/etl-0 on cpu-a, team-a/etl-1 on cpu-b)"), "{row}");
}

#[test]
fn a_jobset_leader_placed_exclusively_keeps_other_jobs_off_its_node() {
    // Another team's JobSet runs with `exclusive-topology: kubernetes.io/hostname`: JobSet's
    // webhook gave its leader pod an anti-affinity against every other Job of its priority.
    let names = ["cpu-a", "cpu-b"];
    let nodes = list(&gke_cpu_pool(&names, &[]));
    let leader = pod(
        "team-b",
        "sweep-0-0-abcde",
        Some("cpu-a"),
        "Running",
        "{requests: {cpu: \"1\"}}",
        &[("jobset.sigs.k8s.io/job-key", "0f3c"), ("jobset.sigs.k8s.io/priority", "0")],
    )
    .replace(
        "    priority: 0\n",
        "    priority: 0\n    affinity:\n      podAntiAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n        - labelSelector:\n            matchExpressions:\n            - {key: jobset.sigs.k8s.io/job-key, operator: Exists}\n            - {key: jobset.sigs.k8s.io/job-key, operator: NotIn, values: [\"0f3c\"]}\n            - {key: jobset.sigs.k8s.io/priority, operator: In, values: [\"0\"]}\n          namespaceSelector: {}\n          topologyKey: kubernetes.io/hostname\n",
    );
    let pods = list(std::slice::from_ref(&leader));
    let r = fit(&[("nodes.yaml", &nodes), ("pods.yaml", &pods)], &["--nodes", "nodes.yaml", "--pods", "pods.yaml", "--format", "json"]);
    let v = verdicts(&r);
    let one = &v["jax-cpu"];
    // Each node takes 7 of its pods; cpu-a takes none now.
    assert_eq!((one["fits"].as_bool(), one["copies"].as_u64(), one["copiesEmpty"].as_u64()), (Some(true), Some(7), Some(14)), "{one}");
    assert_eq!(one["where"], serde_json::json!(["cpu-pool"]));
    assert_eq!(one["nodes"]["node(s) didn't satisfy existing pods anti-affinity rules"], 1, "{one}");
    let two = &v["jax-cpu-multinode"];
    assert!(two["copies"].as_u64() < two["copiesEmpty"].as_u64(), "cpu-a takes none of its pods now: {two}");
    // At another priority the leader's term does not match: the node is open again.
    let other = list(&[leader.replace("values: [\"0\"]}", "values: [\"1000\"]}")]);
    let r = fit(&[("nodes.yaml", &nodes), ("pods.yaml", &other)], &["--nodes", "nodes.yaml", "--pods", "pods.yaml", "--format", "json"]);
    let one = &verdicts(&r)["jax-cpu"];
    assert_eq!(one["copies"], one["copiesEmpty"], "{one}");
    assert!(one["nodes"].get("node(s) didn't satisfy existing pods anti-affinity rules").is_none(), "{one}");
}

#[test]
fn host_network_keeps_one_pod_per_node() {
    let rt = BARE_GPU_RUNTIME
        .replace("name: bare-gpu", "name: cpu-hostnet")
        .replace("numNodes: 1", "numNodes: 2")
        .replace("limits: {nvidia.com/gpu: 8}", "requests: {cpu: \"1\"}")
        .replace("                containers:", "                hostNetwork: true\n                containers:");
    let nodes = list(&gke_cpu_pool(&["cpu-a", "cpu-b", "cpu-c"], &[]));
    let r = fit(&[("nodes.yaml", &nodes), ("rt.yaml", &rt)], &["--nodes", "nodes.yaml", "rt.yaml", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(verdicts(&r)["cpu-hostnet"]["copies"], 1, "3 nodes, one pod each (port 29500), 2 pods per copy");
}

#[test]
fn exit_0_when_every_runtime_fits_and_runtime_files_are_read_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let rendered =
        support::render(&[&support::root().join("catalog/runtimes/cpu.yaml"), &support::root().join("catalog/runtimes/defaults.yaml")]);
    fs::write(dir.path().join("runtimes.yaml"), rendered).unwrap();
    fs::write(dir.path().join("nodes.yaml"), list(&gke_cpu_pool(&["cpu-a"], &[]))).unwrap();
    let r = run_in(dir.path(), &["fit", "--nodes", "nodes.yaml", "runtimes.yaml"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.starts_with("RUNTIME"), "{}", r.stdout);
    assert!(r.stderr.contains("2 of 2 fit now (2 runtimes)"), "{}", r.stderr);
    // The nodes may come from stdin, as a raw NodeList whose items carry no kind.
    let raw = list(&gke_cpu_pool(&["cpu-a"], &[])).replace("kind: List", "kind: NodeList").replace("  kind: Node\n", "");
    let r = run_in(dir.path(), &["fit", "--nodes", "-", "runtimes.yaml", "--format", "json"], Some(raw.as_bytes()));
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(verdicts(&r)["jax-cpu"]["copies"], 7);
}

#[test]
fn the_json_answer_has_one_object_per_runtime_with_the_documented_fields() {
    let nodes = list(&gke_cpu_pool(&["cpu-a"], &[]));
    let r = fit(&[("nodes.yaml", &nodes)], &["--nodes", "nodes.yaml", "--format", "json"]);
    let all: Value = serde_json::from_str(&r.stdout).unwrap();
    let builtin = support::render(&[]).matches("\nkind: ClusterTrainingRuntime").count();
    assert_eq!(all.as_array().unwrap().len(), builtin, "one object per built-in runtime");
    for v in all.as_array().unwrap() {
        for field in ["runtime", "kind", "pods", "fits", "copies", "fitsEmpty", "copiesEmpty", "where", "reason", "nodes", "notes"] {
            assert!(v.get(field).is_some(), "{field} missing in {v}");
        }
        assert_eq!(v["fits"].as_bool().unwrap(), v["copies"].as_u64().unwrap() > 0);
        assert_eq!(v["fits"].as_bool().unwrap(), v["reason"].as_str().unwrap().is_empty(), "{v}");
    }
}

// ------------------------------------------------------------------ bad input: exit 2, at its line

#[test]
fn bad_inventories_are_refused_with_their_file_and_line() {
    let nodes = list(&gke_cpu_pool(&["cpu-a"], &[])).replacen("cpu: \"31850m\"", "cpu: \"lots\"", 1);
    let r = fit(&[("nodes.yaml", &nodes)], &["--nodes", "nodes.yaml"]);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stderr.contains("error[fit/not-a-node]: nodes.yaml:"), "{}", r.stderr);
    assert!(r.stderr.contains("`status.allocatable.cpu`: `lots` is not a Kubernetes quantity"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    // A pod list passed as the node list (a snapshot's Pods are skipped there; no Node is left).
    let pods = list(&[pod("a", "p", Some("cpu-a"), "Running", "{}", &[])]);
    let r = fit(&[("pods.yaml", &pods)], &["--nodes", "pods.yaml"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains(
            "error[fit/no-nodes]: pods.yaml:3: the node inventory holds no Node, only 1 object of other kinds (a pod list goes to --pods)"
        ),
        "{}",
        r.stderr
    );
    // A kind no snapshot holds is still refused where it is.
    let odd = list(&["- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c, namespace: a}\n".to_string()]);
    let r = fit(&[("nodes.yaml", &odd)], &["--nodes", "nodes.yaml"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("error[fit/not-a-node]: nodes.yaml:4: ConfigMap/a/c: `kind`: expected a Node, found ConfigMap"),
        "{}",
        r.stderr
    );
    // An empty list (a cluster with no nodes, or the wrong context).
    let r = fit(&[("nodes.yaml", "apiVersion: v1\nkind: List\nitems: []\n")], &["--nodes", "nodes.yaml"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("error[fit/no-nodes]"), "{}", r.stderr);
    // A file that is not YAML, and one that does not exist.
    let r = fit(&[("nodes.yaml", "items: [\n")], &["--nodes", "nodes.yaml"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("error[input/malformed-yaml]: nodes.yaml:"), "{}", r.stderr);
    assert_eq!(fit(&[], &["--nodes", "missing.yaml"]).code, 2);
}

#[test]
fn bad_pod_lists_and_runtimes_are_refused_and_unlisted_nodes_noted() {
    let nodes = list(&gke_cpu_pool(&["cpu-a"], &[]));
    let pods = list(&[pod("a", "p", Some("cpu-a"), "Running", "{requests: {memory: 32GB}}", &[])]);
    let r = fit(&[("nodes.yaml", &nodes), ("pods.yaml", &pods)], &["--nodes", "nodes.yaml", "--pods", "pods.yaml"]);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stderr.contains("error[fit/not-a-pod]: pods.yaml:"), "{}", r.stderr);
    assert!(r.stderr.contains("`spec.containers[0].resources.requests.memory`: `32GB` is not a Kubernetes quantity"), "{}", r.stderr);
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n";
    let r = fit(&[("nodes.yaml", &nodes), ("pods.yaml", deployment)], &["--nodes", "nodes.yaml", "--pods", "pods.yaml"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("error[fit/not-a-pod]: pods.yaml:2: Deployment/d: `kind`: expected a Pod, found Deployment"), "{}", r.stderr);
    // A pod on a node the inventory does not list is noted, not counted.
    let elsewhere = list(&[pod("a", "p", Some("gone-node"), "Running", "{requests: {cpu: \"30\"}}", &[])]);
    let r =
        fit(&[("nodes.yaml", &nodes), ("pods.yaml", &elsewhere)], &["--nodes", "nodes.yaml", "--pods", "pods.yaml", "--format", "json"]);
    assert!(r.stderr.contains("info[fit/pod-on-unknown-node]: pods.yaml:"), "{}", r.stderr);
    assert_eq!(verdicts(&r)["jax-cpu"]["copies"], 7);
    // A runtime that does not read as one.
    let bad = BARE_GPU_RUNTIME.replace("numNodes: 1", "numNodes: many");
    let r = fit(&[("nodes.yaml", &nodes), ("rt.yaml", &bad)], &["--nodes", "nodes.yaml", "rt.yaml"]);
    assert_eq!(r.code, 1, "a runtime that was read but is not valid: {}", r.all());
    assert!(r.stderr.contains("error[fit/unreadable-runtime]: rt.yaml:"), "{}", r.stderr);
    assert!(r.stderr.contains("spec.mlPolicy.numNodes"), "{}", r.stderr);
    // A runtime at an apiVersion Trainer does not serve: validate's error, an `invalid` row, exit 1
    // (not "the catalog has errors").
    let unserved = BARE_GPU_RUNTIME.replace("trainer.kubeflow.org/v1alpha1", "trainer.kubeflow.org/v2alpha1");
    let r = fit(&[("nodes.yaml", &nodes), ("rt.yaml", &unserved)], &["--nodes", "nodes.yaml", "rt.yaml", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("input/unserved-version") && !r.stderr.contains("the catalog has errors"), "{}", r.stderr);
    assert_eq!(verdicts(&r)["bare-gpu"]["invalid"], true, "{}", r.stdout);
    // Two inputs on stdin cannot both be read.
    assert_eq!(fit(&[], &["--nodes", "-", "--pods", "-"]).code, 2);
}

/// A runtime without a trainer job: Trainer applies nothing of a TrainJob, but JobSet still runs
/// its replicated jobs as written. validate warns (`trainer/node-container`), preview shows no
/// TrainJob pod and exits 0, and fit places the job as written, with a note: one answer.
#[test]
fn a_runtime_without_a_trainer_job_is_placed_as_written_with_a_note() {
    let rt = BARE_GPU_RUNTIME
        .replace("- name: node", "- name: worker")
        .replace("trainjob-ancestor-step: trainer", "trainjob-ancestor-step: other")
        .replace("nvidia.com/gpu: 8", "cpu: 2");
    let nodes = list(&gke_cpu_pool(&["cpu-a"], &[]));
    let r = fit(&[("nodes.yaml", &nodes), ("rt.yaml", &rt)], &["--nodes", "nodes.yaml", "rt.yaml", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.all());
    let v = &verdicts(&r)["bare-gpu"];
    assert_eq!(v["fits"], true, "{v:#}");
    assert!(v["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("replicated job `worker` as written")), "{v:#}");
    assert!(r.stderr.contains("trainer/node-container"), "validate's warning is said: {}", r.stderr);
}

// ------------------------------------------------------------------ the KRM validator

#[test]
fn the_krm_validator_fits_the_packages_runtimes_to_its_node_inventory() {
    let rendered =
        support::render(&[&support::root().join("catalog/runtimes/gpu-gke.yaml"), &support::root().join("catalog/runtimes/defaults.yaml")]);
    let runtimes: Vec<Value> = jax_runtimes::yaml::parse_stream(&rendered).unwrap();
    let nodes: Value = jax_runtimes::yaml::parse_one(&list(&gke_a3_pool(2, &[1], "8"))).unwrap();
    let annotate = |mut v: Value, path: &str, i: usize| {
        v["metadata"]["annotations"]["internal.config.kubernetes.io/path"] = path.into();
        v["metadata"]["annotations"]["internal.config.kubernetes.io/index"] = i.to_string().into();
        v
    };
    let mut items: Vec<Value> = runtimes.into_iter().enumerate().map(|(i, r)| annotate(r, "runtimes.yaml", i)).collect();
    for (i, n) in nodes["items"].as_array().unwrap().iter().enumerate() {
        items.push(annotate(n.clone(), "cluster/nodes.yaml", i));
    }
    let config = |spec: Value| serde_json::json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeValidation", "metadata": {"name": "v"}, "spec": spec});
    let run = |fc: Value| {
        let list = serde_json::json!({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items.clone(), "functionConfig": fc});
        run_in(Path::new("."), &[], Some(list.to_string().as_bytes()))
    };
    let r = run(config(serde_json::json!({"nodes": "cluster/nodes.yaml"})));
    assert_eq!(r.code, 1, "{}", r.all());
    let out: Value = serde_json::from_str(&r.stdout).unwrap();
    let results = out["results"].as_array().unwrap();
    let fits: Vec<&Value> = results.iter().filter(|x| x["tags"]["rule"] == "fit/does-not-fit").collect();
    let names: Vec<&str> = fits.iter().map(|x| x["resourceRef"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["jax-gpu-gke-h100-2nodes", "jax-gpu-gke-h100-4nodes"], "{results:?}");
    assert!(fits[0]["message"].as_str().unwrap().contains("is cordoned"), "{:?}", fits[0]);
    assert_eq!(fits[0]["file"]["path"], "runtimes.yaml");
    // Without `spec.nodes` nothing is fitted; a path no item comes from is an error.
    let r = run(config(serde_json::json!({})));
    assert!(!r.stdout.contains("fit/does-not-fit"), "{}", r.all());
    let r = run(config(serde_json::json!({"nodes": "cluster/nodes.yaml", "pods": "cluster/pods.yaml"})));
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("fit/inventory-missing") && r.stdout.contains("cluster/pods.yaml"), "{}", r.all());
}

#[test]
fn the_krm_validator_fits_the_packages_trainjobs_on_their_runtimes() {
    let rendered =
        support::render(&[&support::root().join("catalog/runtimes/gpu-gke.yaml"), &support::root().join("catalog/runtimes/defaults.yaml")]);
    let mut items: Vec<Value> = jax_runtimes::yaml::parse_stream(&rendered).unwrap();
    let nodes: Value = jax_runtimes::yaml::parse_one(&list(&gke_a3_pool(1, &[], "8"))).unwrap();
    items.extend(nodes["items"].as_array().unwrap().iter().cloned().map(|mut n| {
        n["metadata"]["annotations"]["internal.config.kubernetes.io/path"] = "cluster/nodes.yaml".into();
        n
    }));
    for (name, trainer) in
        [("fits", "{}"), ("too-big", "{resourcesPerNode: {limits: {nvidia.com/gpu: \"16\"}, requests: {nvidia.com/gpu: \"16\"}}}")]
    {
        let mut tj: Value = jax_runtimes::yaml::parse_one(&trainjob(name, "jax-gpu-gke-h100", trainer)).unwrap();
        tj["metadata"]["annotations"]["internal.config.kubernetes.io/path"] = "jobs.yaml".into();
        items.push(tj);
    }
    let list = serde_json::json!({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items,
        "functionConfig": {"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeValidation", "metadata": {"name": "v"}, "spec": {"nodes": "cluster/nodes.yaml"}}});
    let r = run_in(Path::new("."), &[], Some(list.to_string().as_bytes()));
    let out: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}\n{}", r.all()));
    let fits: Vec<(&str, &str)> = out["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["tags"]["rule"] == "fit/does-not-fit")
        .map(|x| (x["resourceRef"]["kind"].as_str().unwrap(), x["resourceRef"]["name"].as_str().unwrap()))
        .collect();
    assert!(fits.contains(&("TrainJob", "too-big")), "{fits:?}");
    assert!(!fits.contains(&("TrainJob", "fits")), "{fits:?}");
}

#[test]
fn exclusive_placement_needs_the_topology_label_on_the_nodes() {
    // A hand-written runtime that keeps each Job in one rack, on nodes that carry no rack label.
    let rt = BARE_GPU_RUNTIME.replace("  template:\n    spec:\n      replicatedJobs:", "  template:\n    metadata:\n      annotations: {alpha.jobset.sigs.k8s.io/exclusive-topology: example.com/rack}\n    spec:\n      replicatedJobs:");
    let nodes = list(&eks_p5(2));
    let tolerating = rt.replace(
        "                containers:",
        "                tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n                containers:",
    );
    let r = fit(&[("nodes.yaml", &nodes), ("rt.yaml", &tolerating)], &["--nodes", "nodes.yaml", "rt.yaml", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let v = &verdicts(&r)["bare-gpu"];
    assert!(reason(v).starts_with("no usable node with nvidia.com/gpu has the label example.com/rack"), "{}", reason(v));
    assert_eq!(v["nodes"]["node(s) didn't match pod affinity rules"], 2);
    // Labelled, each rack takes one Job.
    let racked = nodes.replace(
        "      karpenter.sh/nodepool: \"gpu-h100\"\n",
        "      karpenter.sh/nodepool: \"gpu-h100\"\n      example.com/rack: \"r1\"\n",
    );
    let r = fit(&[("nodes.yaml", &racked), ("rt.yaml", &tolerating)], &["--nodes", "nodes.yaml", "rt.yaml", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(verdicts(&r)["bare-gpu"]["where"], serde_json::json!(["r1"]));
}

#[test]
fn kpt_runs_the_validator_on_a_package_holding_kubectls_node_list() {
    // As docs/fit.md says: the List kubectl printed, with a name (kpt refuses items without one)
    // and marked local, next to the runtimes.
    let kpt = support::tool("kpt");
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    fs::create_dir_all(pkg.join("cluster")).unwrap();
    let rendered =
        support::render(&[&support::root().join("catalog/runtimes/gpu-gke.yaml"), &support::root().join("catalog/runtimes/defaults.yaml")]);
    fs::write(pkg.join("runtimes.yaml"), rendered).unwrap();
    let nodes = list(&gke_a3_pool(2, &[1], "8")).replace(
        "metadata:\n  resourceVersion: \"\"\n",
        "metadata:\n  name: nodes\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n",
    );
    fs::write(pkg.join("cluster/nodes.yaml"), &nodes).unwrap();
    let config = dir.path().join("validate.yaml");
    fs::write(
        &config,
        "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeValidation\nmetadata:\n  name: v\nspec:\n  nodes: cluster/nodes.yaml\n",
    )
    .unwrap();
    let bin_dir = support::bin().parent().unwrap().to_path_buf();
    let path =
        std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()))).unwrap();
    let out = std::process::Command::new(kpt)
        .args(["fn", "eval", "--truncate-output=false"])
        .arg(&pkg)
        .args(["--exec", "jax-runtimes", "--fn-config"])
        .arg(&config)
        .env("PATH", path)
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "two runtimes do not fit:\n{all}");
    assert!(all.contains("ClusterTrainingRuntime/jax-gpu-gke-h100-2nodes: its pods would stay Pending on `cluster/nodes.yaml`"), "{all}");
    assert!(!all.contains("ClusterTrainingRuntime/jax-gpu-gke-h100: its pods"), "the one-node runtime fits:\n{all}");
    assert_eq!(fs::read_to_string(pkg.join("cluster/nodes.yaml")).unwrap(), nodes, "a failed validator changes nothing");
}

// ------------------------------------------------------------------ render and fit share the data

/// The nodes a runtime's accelerator data describes: `count` hosts with the labels, taints and
/// allocatable the accelerator tables (`tpu.yaml`, `gpu.yaml`, `fabrics.yaml`) and the platform's
/// node data (`nodes.yaml`) say its node pool has. `machine` overrides the machine type.
fn data_pool(r: &jax_runtimes::resolve::Resolved, machine: Option<&str>) -> Vec<k8s_openapi::api::core::v1::Node> {
    use jax_runtimes::accelerators::{data, nodes::nodes};
    use jax_runtimes::resolve::Accel;
    let d = data();
    let platform = nodes().platforms.iter().find(|p| p.name == r.platform.as_str()).unwrap();
    let mut labels = serde_json::Map::new();
    for k in platform.node_labels.iter().chain(&platform.pool_labels) {
        labels.insert(k.clone(), format!("{}-pool", r.name).into());
    }
    let mut alloc = serde_json::Map::from_iter([
        ("cpu".to_string(), Value::from("1000")),
        ("memory".to_string(), "10Ti".into()),
        ("ephemeral-storage".to_string(), "10Ti".into()),
        ("pods".to_string(), "110".into()),
    ]);
    let (resource, count) = match &r.accelerator {
        Accel::Cpu => (None, r.num_nodes as u32),
        Accel::Tpu(s) => {
            let g = d.tpu.generation(&s.generation).unwrap();
            let machine = machine.unwrap_or(&s.machine_type);
            let chips = g.machine_types.iter().find(|m| m.name == machine).unwrap().chips_per_host;
            labels.insert(d.tpu.accelerator_label.clone(), s.accelerator_label.clone().into());
            labels.insert(d.tpu.topology_label.clone(), s.topology.clone().into());
            labels.insert(d.tpu.machine_type_label.clone(), machine.into());
            alloc.insert(d.tpu.resource.clone(), chips.to_string().into());
            // A dynamic slice's hosts: one block, one partition, in the state it selects, of its pool.
            if let Some(dy) = &s.dynamic {
                let ds = &d.tpu.dynamic_slicing;
                labels.insert(ds.block_label.clone(), format!("{}-block", r.name).into());
                labels.insert(dy.partition_label.clone(), format!("{}-partition", r.name).into());
                if let Some(state) = &dy.state_label {
                    labels.insert(state.clone(), ds.select_state.clone().into());
                }
                if let Some(pool) = &dy.pool {
                    labels.insert(d.tpu.topology_label.clone(), pool.clone().into());
                }
            }
            (Some(d.tpu.resource.as_str()), s.chips / chips)
        }
        Accel::Gpu(s) => {
            let model = d.gpu.model(&s.model).unwrap();
            let on = model.on(r.platform.as_str()).unwrap();
            let plat = d.gpu.platform(r.platform.as_str()).unwrap();
            for (k, v) in &on.node_labels {
                labels.insert(k.clone(), v.clone().into());
            }
            if let (Some(k), Some(v)) = (&plat.model_label, &on.model_label) {
                labels.insert(k.clone(), v.clone().into());
            }
            let gpus = match s.machine_types.first() {
                Some(m) => {
                    labels.insert(plat.machine_type_label.clone().unwrap(), m.clone().into());
                    on.machine(m).unwrap().gpus
                }
                None => on.max_gpus(),
            };
            alloc.insert(s.resource.clone(), gpus.to_string().into());
            for (k, q) in s.fabric.iter().flat_map(|f| &f.resources) {
                alloc.insert(k.clone(), q.0.clone().into());
            }
            // A DRA fabric's node labels (GKE A4X Max: the DRANET and network-profile labels).
            for (k, v) in s.fabric.iter().flat_map(|f| &f.node_selector) {
                labels.insert(k.clone(), v.clone().into());
            }
            (Some(s.resource.as_str()), r.num_nodes as u32)
        }
    };
    let mut taints: Vec<Value> = platform
        .taints
        .iter()
        .filter(|t| resource.is_some_and(|res| t.resources.iter().any(|x| x == res)))
        .map(|t| serde_json::json!({"key": t.key, "value": t.value, "effect": t.effect}))
        .collect();
    // The nodes of the runtime's capacity (Spot VMs, a ComputeClass) carry its labels and taints.
    for c in &r.capacity {
        for (k, v) in c.node_selector(r.platform.as_str()) {
            labels.insert(k, v.into());
        }
        for t in c.node_taints(r.platform.as_str()) {
            taints.push(serde_json::json!({"key": t.key, "value": t.value, "effect": t.effect}));
        }
    }
    (0..count)
        .map(|i| {
            serde_json::from_value(serde_json::json!({"metadata": {"name": format!("{}-{i}", r.name), "labels": labels},
                "spec": {"taints": taints}, "status": {"allocatable": alloc, "conditions": [{"type": "Ready", "status": "True"}]}}))
            .unwrap()
        })
        .collect()
}

#[test]
fn every_built_in_runtime_fits_the_node_pool_its_accelerator_data_describes() {
    use jax_runtimes::read::{self, Source, BUILTIN};
    let mut docs = Vec::new();
    for (name, text) in BUILTIN {
        docs.extend(read::parse_source(std::sync::Arc::new(Source::new(*name, Some(text.to_string())))).unwrap());
    }
    let generated = jax_runtimes::pipeline::generate(&docs);
    assert!(generated.runtimes.len() >= 20);
    let mut twins = 0;
    for rendered in &generated.runtimes {
        let r = &rendered.resolved;
        let cluster = jax_runtimes::fit::Cluster::new(&data_pool(r, None), None).unwrap();
        let v = &jax_runtimes::fit::fit(&cluster, &[&rendered.runtime])[0];
        assert!(v.outcome.fits, "{} does not fit the pool its data describes: {}", r.name, v.outcome.reason);
        if !matches!(r.accelerator, jax_runtimes::resolve::Accel::Cpu) {
            assert_eq!(v.outcome.copies, 1, "{}: a pool of its hosts takes one copy", r.name);
        }
        // A TPU topology with the same labels on another machine type: that pool is not the
        // runtime's, and fit says so.
        if let jax_runtimes::resolve::Accel::Tpu(s) = &r.accelerator {
            let generation = jax_runtimes::accelerators::data().tpu.generation(&s.generation).unwrap();
            // (A dynamic slice selects its pool's partitions, not a topology two pools share.)
            for other in generation.shapes_for(&s.topology).iter().filter(|o| o.machine_type != s.machine_type && s.dynamic.is_none()) {
                twins += 1;
                let cluster = jax_runtimes::fit::Cluster::new(&data_pool(r, Some(&other.machine_type)), None).unwrap();
                let v = &jax_runtimes::fit::fit(&cluster, &[&rendered.runtime])[0];
                assert!(!v.outcome.fits, "{} fits a pool of {}", r.name, other.machine_type);
            }
        }
    }
    // The Autopilot 2x4 runtime selects no machine type (its ComputeClass's `count: 4` does), and
    // still does not fit an 8-chip host: its pods would share one.
    assert_eq!(twins, 5, "v5e and v6e 2x4, one host and two hosts, and the Autopilot v5e 2x4");
}

/// The same YAML list as `kubectl get ... -o json` prints it (one JSON object, 4-space indent).
fn as_json(yaml: &str) -> String {
    let v = jax_runtimes::yaml::parse_one(yaml).unwrap();
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, serde_json::ser::PrettyFormatter::with_indent(b"    "));
    serde::Serialize::serialize(&v, &mut ser).unwrap();
    String::from_utf8(out).unwrap() + "\n"
}

#[test]
fn kubectl_json_lists_get_the_answer_and_the_errors_their_yaml_gets() {
    // Every shape of node and pod the reader tells apart: pools of each platform, cordoned and
    // not-Ready nodes, DaemonSet pods, a JobSet leader, finished, unbound and unlisted-node pods.
    let mut nodes = gke_v5e_pool("v5e-4x4-a", "4x4", 4, 1);
    nodes.extend(gke_a3_pool(2, &[1], "8"));
    nodes.extend(eks_p5(2));
    nodes.extend(aks_nd_h100(2));
    nodes.extend(gke_cpu_pool(&["cpu-a", "cpu-b"], &["cpu-b"]));
    let nodes = list(&nodes);
    let first = "gke-tpu-c1-v5e-4x4-a-3f1c2a9d-0000";
    let pods = list(&[
        pod("kube-system", "fluentbit-0", Some(first), "Running", "{requests: {cpu: 100m, memory: 200Mi}}", &[]),
        pod("kube-system", "fluentbit-1", Some("cpu-a"), "Running", "{requests: {cpu: 100m}, limits: {memory: 1Gi}}", &[]),
        pod(
            "ml",
            "llama-node-0-0-x7k2p",
            Some(first),
            "Running",
            "{limits: {google.com/tpu: \"4\"}}",
            &[("jobset.sigs.k8s.io/job-key", "6b3c0f"), ("jobset.sigs.k8s.io/priority", "0")],
        ),
        pod("a", "done", Some("cpu-a"), "Succeeded", "{requests: {cpu: \"30\"}}", &[]),
        pod("a", "queued", None, "Pending", "{requests: {cpu: \"30\"}}", &[]),
        pod("a", "away", Some("gone-node"), "Running", "{requests: {cpu: \"30\"}}", &[]),
    ]);
    let catalog = [
        entry("tpu", "  accelerator: {tpu: {type: v5e, topology: 4x4}}\n"),
        entry("gpu", "  platform: gke\n  numNodes: 2\n  accelerator: {gpu: {model: h100-80gb, count: 8}}\n"),
        entry("eks", "  platform: eks\n  numNodes: 2\n  accelerator: {gpu: {model: h100-80gb, count: 8}}\n"),
        entry("cpu", "  accelerator: {cpu: {}}\n"),
    ]
    .join("---\n");
    let same = |nodes: &str, pods: &str| {
        let yaml = fit(
            &[("nodes.yaml", nodes), ("pods.yaml", pods), ("catalog.yaml", &catalog)],
            &["--nodes", "nodes.yaml", "--pods", "pods.yaml", "catalog.yaml", "--format", "json"],
        );
        let json = fit(
            &[("nodes.yaml", &as_json(nodes)), ("pods.yaml", &as_json(pods)), ("catalog.yaml", &catalog)],
            &["--nodes", "nodes.yaml", "--pods", "pods.yaml", "catalog.yaml", "--format", "json"],
        );
        assert_eq!((json.code, &json.stdout), (yaml.code, &yaml.stdout), "{}", json.all());
        // The notes and errors name the same object; the lines are the JSON text's own.
        let words = |s: &str| {
            s.lines()
                .filter(|l| ["error[", "warning[", "info["].iter().any(|p| l.starts_with(p)))
                .map(|l| match l.split_once(".yaml:") {
                    Some((head, rest)) => format!("{head}.yaml: {}", rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == ':')),
                    None => l.to_string(),
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(words(&json.stderr), words(&yaml.stderr), "{}\n{}", json.stderr, yaml.stderr);
        json
    };
    let r = same(&nodes, &pods);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("info[fit/pod-on-unknown-node]: pods.yaml:"), "{}", r.stderr);
    assert!(r.stderr.contains("3 pods in use (1 finished, 1 not bound, 1 on unlisted nodes)"), "{}", r.stderr);
    assert!(reason(&verdicts(&r)["tpu"]).contains("is not Ready"), "{}", r.stdout);
    // Bad input in JSON is placed at its line as in YAML.
    let bad = pods.replace("cpu: 100m}, limits", "cpu: lots}, limits");
    let r = same(&nodes, &bad);
    assert_eq!(r.code, 2);
    let line = as_json(&bad).lines().position(|l| l.contains("\"lots\"")).unwrap() + 1;
    assert!(r.stderr.contains(&format!("error[fit/not-a-pod]: pods.yaml:{line}:")), "{}", r.stderr);
    let r = same(&nodes.replace("cpu: \"111650m\"", "cpu: \"x\""), &pods);
    assert_eq!(r.code, 2, "{}", r.all());
}

// ------------------------------------------------------------------ one verdict with validate

/// The cases of issue 41 where `fit` said "yes" (or "admitted") and `validate` said the job never
/// starts: each is now an `invalid` row with validate's error, and exit 1; the control fits.
#[test]
fn fit_never_says_yes_where_validate_says_no() {
    let nodes = list(&[gke_v5e_pool("v5e-4x4-a", "4x4", 4, 0), gke_a3_pool(2, &[], "8")].concat());
    let runtimes = support::render(&[
        &support::root().join("catalog/runtimes/gpu-gke.yaml"),
        &support::root().join("catalog/runtimes/tpu-v5e.yaml"),
        &support::root().join("catalog/runtimes/defaults.yaml"),
    ]);
    let job = |name: &str, labels: &str, runtime: &str, trainer: &str| {
        format!("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {{name: {name}, namespace: team-a{labels}}}\nspec:\n  runtimeRef: {{name: {runtime}}}\n  trainer: {trainer}\n")
    };
    let queued = ", labels: {kueue.x-k8s.io/queue-name: training}";
    let jobs = [
        job("control", queued, "jax-tpu-v5e-4x4", "{}"),
        job("typo", ", labels: {kueue.x-k8s.io/queue-name: trainin}", "jax-tpu-v5e-4x4", "{}"),
        job("two-of-a-slice", queued, "jax-tpu-v5e-4x4", "{numNodes: 2}"),
        job("gpu-limit", queued, "jax-gpu-gke-h100", "{resourcesPerNode: {requests: {nvidia.com/gpu: 8}, limits: {nvidia.com/gpu: 16}}}"),
        job(&"n".repeat(59), queued, "jax-gpu-gke-h100-2nodes", "{}"),
        // A namespace with no LocalQueue.
        job("elsewhere", queued, "jax-tpu-v5e-4x4", "{}").replace("namespace: team-a", "namespace: team-b"),
    ]
    .join("---\n");
    let queues = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: training, namespace: team-a}\nspec: {clusterQueue: training}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: training}\nspec:\n  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu, memory, google.com/tpu, nvidia.com/gpu]\n    flavors:\n    - name: default\n      resources: [{name: cpu, nominalQuota: 10k}, {name: memory, nominalQuota: 100Ti}, {name: google.com/tpu, nominalQuota: 64}, {name: nvidia.com/gpu, nominalQuota: 64}]\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n";
    let files =
        [("nodes.yaml", nodes.as_str()), ("runtimes.yaml", runtimes.as_str()), ("jobs.yaml", jobs.as_str()), ("queues.yaml", queues)];
    let args = ["--nodes", "nodes.yaml", "--runtimes", "runtimes.yaml", "--queues", "queues.yaml", "jobs.yaml", "--format", "json"];
    let r = fit(&files, &args);
    assert_eq!(r.code, 1, "{}", r.all());
    let rows: Vec<Value> = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    let by: std::collections::BTreeMap<&str, &Value> = rows.iter().map(|v| (v["trainJob"].as_str().unwrap(), v)).collect();
    let control = by["control"];
    assert_eq!((control["fits"].as_bool(), control["queue"]["admission"].as_str()), (Some(true), Some("admitted")), "{control:#}");
    for (name, rule) in [
        ("typo", "kueue/unknown-local-queue"),
        ("two-of-a-slice", "trainjob/tpu-num-nodes"),
        ("gpu-limit", "trainjob/resources"),
        (&"n".repeat(59), "trainjob/name-length"),
        ("elsewhere", "kueue/unknown-local-queue"),
    ] {
        let row = by[name];
        assert_eq!((row["invalid"].as_bool(), row["fits"].as_bool()), (Some(true), Some(false)), "{name}: {row:#}");
        assert!(reason(row).starts_with(&format!("{rule}: ")), "{name}: {}", reason(row));
        assert_ne!(row["queue"]["admission"], "admitted", "{name}: {row:#}");
        assert!(r.stderr.contains(&format!("error[{rule}]: jobs.yaml:")), "{name}: validate's finding is said: {}", r.stderr);
    }
    assert!(reason(by["typo"]).contains("namespace `team-a` has `training`"), "{}", reason(by["typo"]));
    // validate says the same of the same files.
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        fs::write(dir.path().join(name), text).unwrap();
    }
    let v = run_in(dir.path(), &["validate", "jobs.yaml", "queues.yaml", "--runtimes", "runtimes.yaml"], None);
    assert_eq!(v.code, 1, "{}", v.all());
    for rule in ["kueue/unknown-local-queue", "trainjob/tpu-num-nodes", "trainjob/resources", "trainjob/name-length"] {
        assert!(v.stdout.contains(&format!("error[{rule}]")), "{rule}: {}", v.all());
    }
}

/// Live mode's refusals, without a cluster to read: a kubeconfig that is not there, a context it
/// lacks, a server that does not answer. Each is one `live/no-cluster` finding and exit 2 (what
/// cannot be read), never a crash; `--context` with `--nodes` is a usage error.
#[test]
fn live_mode_without_a_cluster_says_why_and_exits_2() {
    let nodes = list(&gke_a3_pool(1, &[], "8"));
    // Port 1 on loopback: nothing listens there.
    let kubeconfig = "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\"}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: prod\n  context: {cluster: c, user: u}\ncurrent-context: prod\n";
    let files = [("kc.yaml", kubeconfig), ("nodes.yaml", nodes.as_str())];
    let cases: [(&[&str], &str); 4] = [
        (&["--kubeconfig", "missing.yaml"], "kubeconfig missing.yaml: No such file"),
        (&["--kubeconfig", "kc.yaml", "--context", "staging"], "kubeconfig kc.yaml has no context `staging`; it has: prod"),
        (&["--kubeconfig", "kc.yaml"], "context prod (https://127.0.0.1:1/): the API server does not answer"),
        (&["--kubeconfig", "kc.yaml", "--format", "json"], "the API server does not answer"),
    ];
    for (args, says) in cases {
        let r = fit(&files, args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.all());
        assert!(r.all().contains("live/no-cluster") && r.all().contains(says), "{args:?}: {}", r.all());
    }
    let r = fit(&files, &["--nodes", "nodes.yaml", "--context", "prod"]);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stderr.contains("leave out --nodes"), "{}", r.stderr);
    let r = fit(&files, &["--pods", "nodes.yaml"]);
    assert_eq!(r.code, 2, "--pods needs --nodes: {}", r.all());
}

/// A snapshot (`jax-runtimes snapshot`, or `kubectl get nodes,pods -A -o yaml`) is one list of
/// several kinds: `--nodes` takes its Nodes and `--pods` its Pods, and the verdict is that of the
/// two lists apart. A list with no Node at all says it holds other kinds.
#[test]
fn a_snapshot_file_serves_as_both_the_node_and_the_pod_list() {
    let nodes: Value = jax_runtimes::yaml::parse_stream(&list(&gke_a3_pool(2, &[], "8"))).unwrap().remove(0);
    let busy = "apiVersion: v1\nkind: Pod\nmetadata: {name: busy, namespace: team-a}\nspec:\n  nodeName: NODE\n  containers:\n  - name: c\n    image: busy:1\n    resources: {requests: {nvidia.com/gpu: \"8\"}, limits: {nvidia.com/gpu: \"8\"}}\nstatus: {phase: Running}\n";
    let first = nodes["items"][0]["metadata"]["name"].as_str().unwrap();
    let pod: Value = jax_runtimes::yaml::parse_stream(&busy.replace("NODE", first)).unwrap().remove(0);
    let queue = json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "team-a"}, "spec": {"clusterQueue": "q"}});
    let mut items = nodes["items"].as_array().unwrap().clone();
    items.push(pod.clone());
    items.push(queue);
    let snapshot = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let pods = json!({"apiVersion": "v1", "kind": "List", "items": [pod]}).to_string();
    let node_list = nodes.to_string();
    let files = [("snap.json", snapshot.as_str()), ("nodes.json", node_list.as_str()), ("pods.json", pods.as_str())];
    let apart = fit(&files, &["--nodes", "nodes.json", "--pods", "pods.json", "--format", "json"]);
    let together = fit(&files, &["--nodes", "snap.json", "--pods", "snap.json", "--format", "json"]);
    assert_eq!(apart.code, together.code, "{}\n{}", apart.all(), together.all());
    assert_eq!(apart.stdout, together.stdout);
    let v = verdicts(&together);
    assert_eq!(
        (&v["jax-gpu-gke-h100"]["fits"], &v["jax-gpu-gke-h100-2nodes"]["fits"]),
        (&json!(true), &json!(false)),
        "one of two nodes is busy"
    );
    // The snapshot alone as --nodes: its Pods are the pods in use.
    let alone = fit(&files, &["--nodes", "snap.json", "--format", "json"]);
    assert_eq!(alone.stdout, together.stdout, "{}", alone.all());
    // A node list given as --pods is refused, not read as a cluster with no pod in use.
    let r = fit(&files, &["--nodes", "snap.json", "--pods", "nodes.json"]);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.all().contains("fit/not-a-pod") && r.all().contains("expected a Pod, found Node"), "{}", r.all());
    let r = fit(&files, &["--nodes", "pods.json"]);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(
        r.all().contains("fit/no-nodes") && r.all().contains("only 1 object of other kinds (a pod list goes to --pods)"),
        "{}",
        r.all()
    );
}
