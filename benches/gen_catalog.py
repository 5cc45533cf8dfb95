#!/usr/bin/env python3
"""Writes a benchmark catalog of N plain `JaxRuntime` entries (no JaxRuntimeMatrix, so that the
"floor" comparison, which parses the catalog and writes the same output bytes, reads exactly the
input render reads).

Entries cycle through varied accelerators (CPU, NVIDIA/AMD GPUs on GKE, EKS, AKS and generic
clusters, TPU v5e/v6e/v5p slices), node counts, env and resources, so that every render path is
exercised. Names are unique; the output is deterministic for a given N.

Usage: benches/gen_catalog.py N [OUT]    (OUT defaults to stdout)
       benches/gen_catalog.py --standard DIR   (writes catalog-10.yaml, catalog-1000.yaml,
                                                catalog-100000.yaml into DIR)
"""
import sys

# (kind, platform, accelerator flow mapping, nodes); every combination exists in catalog/accelerators.
SHAPES = [
    ("cpu", None, "{cpu: {}}", 1),
    ("cpu", None, "{cpu: {}}", 4),
    ("gpu", "gke", "{gpu: {model: h100-80gb, count: 8}}", 2),
    ("gpu", "gke", "{gpu: {model: l4, count: 1}}", 1),
    ("gpu", "eks", "{gpu: {model: h200-141gb, count: 8}}", 4),
    ("gpu", "eks", "{gpu: {model: a100-80gb, count: 8}}", 2),
    ("gpu", "aks", "{gpu: {model: h100-80gb, count: 8}}", 2),
    ("gpu", "aks", "{gpu: {model: a100-80gb, count: 4}}", 1),
    ("gpu", "generic", "{gpu: {model: b200, count: 8}}", 8),
    ("gpu", "generic", "{gpu: {model: gb200, count: 4}}", 2),
    ("tpu", "gke", "{tpu: {type: v5e, topology: 2x2}}", None),
    ("tpu", "gke", "{tpu: {type: v5e, topology: 4x4}}", None),
    ("tpu", "gke", "{tpu: {type: v6e, topology: 8x8}}", None),
    ("tpu", "gke", "{tpu: {type: v5p, topology: 2x2x2}}", None),
]


def entry(i: int) -> str:
    kind, platform, accel, nodes = SHAPES[i % len(SHAPES)]
    lines = [
        "apiVersion: jax-runtimes.dev/v1alpha1",
        "kind: JaxRuntime",
        "metadata:",
        f"  name: bench-{kind}-{i:06d}",
    ]
    if i % 5 == 0:
        lines += ["  labels:", f"    team: team-{i % 17}"]
    lines += ["spec:", f"  description: Benchmark runtime {i} ({kind})"]
    if platform:
        lines.append(f"  platform: {platform}")
    lines.append(f"  accelerator: {accel}")
    if nodes is not None:
        lines.append(f"  numNodes: {nodes}")
    if i % 3 == 0:
        lines += ["  env:", f"  - {{name: BENCH_INDEX, value: \"{i}\"}}", "  - {name: XLA_FLAGS, value: \"--xla_dump_to=/tmp/x\"}"]
    if kind == "cpu":
        lines += ["  resources:", "    requests: {cpu: \"4\", memory: 16Gi}"]
    return "\n".join(lines) + "\n"


def catalog(n: int) -> str:
    return "---\n".join(entry(i) for i in range(n))


def main(argv):
    if len(argv) == 3 and argv[1] == "--standard":
        import os
        os.makedirs(argv[2], exist_ok=True)
        for n in (10, 1000, 100000):
            with open(os.path.join(argv[2], f"catalog-{n}.yaml"), "w") as f:
                f.write(catalog(n))
        return 0
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    text = catalog(int(argv[1]))
    if len(argv) == 3:
        with open(argv[2], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
