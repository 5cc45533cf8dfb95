#!/usr/bin/env python3
"""Writes the inputs of the `fit` benchmarks: a cluster as `kubectl get nodes -o json` and
`kubectl get pods -A -o json` print it, and a catalog of plain `JaxRuntime` entries.

The cluster is made of real node shapes (GKE TPU v5e/v6e/v5p slice pools, A3 H100 pools, EKS
p5.48xlarge, AKS ND H100 v5, GPU Feature Discovery B200 nodes, CPU pools; 2% cordoned, 1% not
Ready), each with DaemonSet pods and workload pods (some finished, some JobSet pods on TPU slices).
The runtimes cycle through CPU, GPU (GKE, EKS, AKS, generic) and TPU entries. The output is
deterministic for given sizes: benches/fit.rs (divan, in process) and the instruction-count gate
(.ci/perf-gate, through the binary) read the same files.

Usage: benches/gen_fit.py NODES PODS RUNTIMES DIR   (writes DIR/nodes.json, pods.json, catalog.yaml)
"""
import json
import os
import sys

# (accelerator, platform, numNodes) of the catalog entries.
SHAPES = [
    ("{cpu: {}}", None, 1),
    ("{cpu: {}}", None, 4),
    ("{gpu: {model: h100-80gb, count: 8}}", "gke", 2),
    ("{gpu: {model: l4, count: 1}}", "gke", 1),
    ("{gpu: {model: h100-80gb, count: 8}}", "eks", 4),
    ("{gpu: {model: h100-80gb, count: 8}}", "aks", 2),
    ("{gpu: {model: b200, count: 8}}", "generic", 2),
    ("{tpu: {type: v5e, topology: 2x2}}", None, None),
    ("{tpu: {type: v5e, topology: 4x4}}", None, None),
    ("{tpu: {type: v6e, topology: 8x8}}", None, None),
    ("{tpu: {type: v5p, topology: 2x2x2}}", None, None),
    ("{tpu: {type: v6e, topology: 4x4}}", None, None),
]


def catalog(n):
    out = []
    for i in range(n):
        accel, platform, nodes = SHAPES[i % len(SHAPES)]
        out.append(f"---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: bench-{i:05d}\nspec:\n  accelerator: {accel}\n")
        if platform:
            out.append(f"  platform: {platform}\n")
        if nodes:
            out.append(f"  numNodes: {nodes}\n")
        if accel.startswith("{cpu"):
            out.append(f'  resources:\n    requests: {{cpu: "{2 + i % 6}", memory: {8 + i % 24}Gi}}\n')
    return "".join(out)


TPU_TAINT = [{"key": "google.com/tpu", "value": "present", "effect": "NoSchedule"}]
GPU_TAINT = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
TPU_ALLOC = {"cpu": "111650m", "memory": "187089387Ki", "ephemeral-storage": "47060071478", "google.com/tpu": "4", "pods": "110"}


def tpu_pool(pool, accelerator, topology):
    return {"cloud.google.com/gke-nodepool": pool, "cloud.google.com/gke-tpu-accelerator": accelerator, "cloud.google.com/gke-tpu-topology": topology}


def node(i):
    """Node `i`: (labels, taints, allocatable) of its pool's shape. 10% TPU hosts, 8% GKE GPU, 8%
    EKS, 8% AKS, 4% generic GPU, the rest CPU."""
    k = i % 50
    if k <= 1:
        labels, taints, alloc = tpu_pool(f"v5e-4x4-{i // 200}", "tpu-v5-lite-podslice", "4x4"), TPU_TAINT, TPU_ALLOC
    elif k == 2:
        labels, taints, alloc = tpu_pool(f"v5e-2x2-{i // 50}", "tpu-v5-lite-podslice", "2x2"), TPU_TAINT, TPU_ALLOC
    elif k == 3:
        labels, taints, alloc = tpu_pool(f"v6e-8x8-{i // 800}", "tpu-v6e-slice", "8x8"), TPU_TAINT, TPU_ALLOC
    elif k == 4:
        labels, taints, alloc = tpu_pool(f"v5p-{i // 100}", "tpu-v5p-slice", "2x2x2"), TPU_TAINT, TPU_ALLOC
    elif k <= 8:
        labels = {"cloud.google.com/gke-nodepool": f"a3-{i // 500}", "cloud.google.com/gke-accelerator": "nvidia-h100-80gb", "node.kubernetes.io/instance-type": "a3-highgpu-8g"}
        taints, alloc = GPU_TAINT, {"cpu": "207410m", "memory": "1887040797Ki", "nvidia.com/gpu": "8", "pods": "110"}
    elif k <= 12:
        labels = {"node.kubernetes.io/instance-type": "p5.48xlarge", "karpenter.sh/nodepool": f"gpu-{i // 1000}", "karpenter.k8s.aws/ec2nodeclass": "gpu"}
        taints = [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
        alloc = {"cpu": "191450m", "memory": "1938410Mi", "hugepages-2Mi": "10Gi", "nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32", "pods": "100"}
    elif k <= 16:
        labels = {"node.kubernetes.io/instance-type": "Standard_ND96isr_H100_v5", "kubernetes.azure.com/agentpool": f"gpunp{i // 1000}", "kubernetes.azure.com/cluster": "MC_x"}
        taints = [{"key": "sku", "value": "gpu", "effect": "NoSchedule"}]
        alloc = {"cpu": "95500m", "memory": "1858215876Ki", "nvidia.com/gpu": "8", "pods": "110"}
    elif k <= 18:
        labels, taints = {"nvidia.com/gpu.product": "NVIDIA-B200", "nvidia.com/gpu.present": "true"}, []
        alloc = {"cpu": "223", "memory": "2102981580Ki", "nvidia.com/gpu": "8", "pods": "110"}
    else:
        labels = {"cloud.google.com/gke-nodepool": f"cpu-{i % 20}", "topology.kubernetes.io/zone": f"us-central1-{'abc'[i % 3]}"}
        taints, alloc = [], {"cpu": "31850m", "memory": "122329333Ki", "ephemeral-storage": "47060071478", "pods": "110"}
    name = f"node-{i:05d}"
    labels = dict(labels, **{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"})
    taints = list(taints)
    spec, ready = {}, "True"
    if i % 50 == 49:
        spec["unschedulable"] = True
        taints.append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
    elif i % 100 == 23:
        ready = "Unknown"
        taints.append({"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"})
    spec["taints"] = taints
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": spec,
            "status": {"allocatable": alloc, "capacity": alloc, "conditions": [{"type": "Ready", "status": ready, "reason": "KubeletReady"}]}}


def pod(j, nodes):
    """Pod `j` on a cluster of `nodes`: DaemonSet pods on every node, then workloads."""
    n, rnd = j % nodes, j // nodes
    if rnd == 0:
        resources, labels, phase = {"requests": {"cpu": "100m", "memory": "200Mi"}}, {"k8s-app": "fluentbit"}, "Running"
    elif rnd == 1:
        resources, labels, phase = {"requests": {"cpu": "250m", "memory": "256Mi"}}, {"k8s-app": "kube-proxy"}, "Running"
    else:
        phase = ["Running", "Running", "Running", "Succeeded", "Pending", "Failed"][(j // 7) % 6]
        k = n % 50
        if k <= 4 and rnd == 2:
            resources = {"limits": {"google.com/tpu": "4"}}
            labels = {"jobset.sigs.k8s.io/job-key": f"job-{n // 4}", "jobset.sigs.k8s.io/priority": "0"}
            phase = "Running" if n % 3 == 0 else "Succeeded"
        elif 5 <= k <= 18:
            resources, labels = {"limits": {"nvidia.com/gpu": f"{1 + j % 4}"}}, {"app": "inference"}
        else:
            resources, labels = {"requests": {"cpu": f"{1 + j % 3}", "memory": f"{1 + j % 8}Gi"}}, {"app": "batch"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"pod-{j:06d}", "namespace": "ns", "labels": labels},
            "spec": {"nodeName": f"node-{n:05d}", "containers": [{"name": "c", "image": "x", "resources": resources}]}, "status": {"phase": phase}}


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    nodes, pods, runtimes, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    os.makedirs(out, exist_ok=True)

    def write_list(name, items):
        with open(os.path.join(out, name), "w") as f:
            json.dump({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}, f, separators=(",", ":"))

    write_list("nodes.json", [node(i) for i in range(nodes)])
    write_list("pods.json", [pod(j, nodes) for j in range(pods)])
    with open(os.path.join(out, "catalog.yaml"), "w") as f:
        f.write(catalog(runtimes))


if __name__ == "__main__":
    main()
