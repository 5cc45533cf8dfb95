//! End-to-end proof that the Kubeflow Python SDK (the `kubeflow` package, pinned in
//! tests/python/requirements.txt) reads every generated runtime right.
//!
//! tests/python/sdk_check.py serves the rendered runtimes from a stand-in API server and calls the
//! SDK's own `TrainerClient().list_runtimes()` and `get_runtime(name)`; it compares framework,
//! numNodes, device kind and devices per node with the expectations passed in from here.
//!
//! The expectations are written from the catalog entries (tests/fixtures/e2e/catalog.yaml and
//! catalog/), never read back from rendered output, so a renderer bug shows up as a mismatch.
//! Every rendered built-in runtime must have an entry: a new catalog entry without one fails.
//!
//! Needs JAX_RUNTIMES_PYTHON (set by tests/run); fails without it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::path::Path;

use serde_json::{json, Map, Value};
use support::{documents, fixture_catalog, name_of, python, render, run_python, text, write_stream};

/// What the SDK must report for one runtime (framework is always `jax`).
struct Expect {
    name: &'static str,
    num_nodes: u64,
    /// `tpu`, `gpu` or `cpu`: the SDK's device kind.
    device: &'static str,
    /// Accelerators (or CPU limit) per node, as the catalog entry states them.
    devices_per_node: &'static str,
}

const fn e(name: &'static str, num_nodes: u64, device: &'static str, devices_per_node: &'static str) -> Expect {
    Expect { name, num_nodes, device, devices_per_node }
}

/// The test catalog (tests/fixtures/e2e/catalog.yaml).
const FIXTURE: &[Expect] = &[
    e("e2e-cpu", 3, "cpu", "2"),
    e("e2e-gpu", 2, "gpu", "8"),
    // v5e 4x4: 16 chips, 4 per host.
    e("e2e-tpu", 4, "tpu", "4"),
    e("e2e-command", 2, "cpu", "1"),
    // spec.podTemplate adds a PVC, a priority class, an annotation and a sidecar: the SDK still
    // reads the `node` container's cpu limit.
    e("e2e-production", 2, "cpu", "1"),
];

/// The built-in catalog (catalog/runtimes/), one entry per generated runtime, worked out from the
/// catalog entries: GPU count as written; TPU nodes = chips in the topology / chips per host
/// (4 unless the entry says otherwise; v5p-8 is 2x2x1 = 4 chips); CPU = the cpu request per node.
const BUILTIN: &[Expect] = &[
    // cpu.yaml
    e("jax-cpu", 1, "cpu", "4"),
    e("jax-cpu-multinode", 2, "cpu", "4"),
    // gpu-generic.yaml
    e("jax-gpu-h100", 1, "gpu", "8"),
    e("jax-gpu-h100-2nodes", 2, "gpu", "8"),
    // gpu-gke.yaml
    e("jax-gpu-gke-h100", 1, "gpu", "8"),
    e("jax-gpu-gke-h100-2nodes", 2, "gpu", "8"),
    e("jax-gpu-gke-h100-4nodes", 4, "gpu", "8"),
    e("jax-gpu-gke-l4-spot", 1, "gpu", "1"),
    // gpu-fabrics.yaml: the fabric's extra resources (EFA devices, rdma/ib) do not change the device.
    e("jax-gpu-gke-a3mega-2nodes", 2, "gpu", "8"),
    e("jax-gpu-eks-p5-2nodes", 2, "gpu", "8"),
    e("jax-gpu-aks-ndh100v5-2nodes", 2, "gpu", "8"),
    // tpu-v5e.yaml
    e("jax-tpu-v5e-2x2", 1, "tpu", "4"),
    e("jax-tpu-v5e-2x4-1host", 1, "tpu", "8"),
    e("jax-tpu-v5e-2x4-2hosts", 2, "tpu", "4"),
    // capacity.yaml
    e("jax-tpu-v5e-2x4-autopilot", 2, "tpu", "4"),
    e("jax-tpu-v5e-4x4", 4, "tpu", "4"),
    e("jax-tpu-v5e-8x8", 16, "tpu", "4"),
    // tpu-v5p.yaml
    e("jax-tpu-v5p-8", 1, "tpu", "4"),
    e("jax-tpu-v5p-2x2x2", 2, "tpu", "4"),
    e("jax-tpu-v5p-2x2x4", 4, "tpu", "4"),
    e("jax-tpu-v5p-4x4x4", 16, "tpu", "4"),
    // tpu-v6e.yaml
    e("jax-tpu-v6e-1x1", 1, "tpu", "1"),
    e("jax-tpu-v6e-2x2", 1, "tpu", "4"),
    e("jax-tpu-v6e-2x4-1host", 1, "tpu", "8"),
    e("jax-tpu-v6e-2x4-2hosts", 2, "tpu", "4"),
    e("jax-tpu-v6e-4x4", 4, "tpu", "4"),
    e("jax-tpu-v6e-16x16", 64, "tpu", "4"),
    // production.yaml: storage, initializers and the pod template change neither the nodes nor the
    // device (the model initializer's job is not the trainer's).
    e("jax-prod-tpu-v5e-4x4", 4, "tpu", "4"),
    e("jax-prod-gpu-gke-h100-2nodes", 2, "gpu", "8"),
    e("jax-prod-gpu-eks-p5-2nodes", 2, "gpu", "8"),
    e("jax-prod-gpu-aks-ndh100v5-2nodes", 2, "gpu", "8"),
    // gpu-dra.yaml: NICs claimed through DRA change neither the nodes nor the device (A4X Max:
    // a4x-maxgpu-4g-metal, 4 GB300 per node; ND96isr H100 v5: 8).
    e("jax-gpu-gke-a4xmax-2nodes", 2, "gpu", "4"),
    e("jax-gpu-aks-ndh100v5-dranet-2nodes", 2, "gpu", "8"),
    // tpu-dynamic.yaml: 4 chips per host; tpu7x 4x8x8 = 256 chips, 2x4x4 = 32, v6e 2x4 = 8.
    e("jax-tpu7x-4x8x8-dynamic", 64, "tpu", "4"),
    e("jax-tpu7x-2x4x4-dynamic", 8, "tpu", "4"),
    e("jax-tpu-v6e-2x4-of-4x4", 2, "tpu", "4"),
    // tpu7.yaml: 4x4x4 = 64 chips on tpu7-standard-4t hosts of 4.
    e("jax-tpu7-4x4x4", 16, "tpu", "4"),
];

fn expectations(table: &[Expect]) -> Value {
    let mut m = Map::new();
    for x in table {
        m.insert(
            x.name.to_string(),
            json!({"framework": "jax", "num_nodes": x.num_nodes, "device": x.device,
                   "devices_per_node": x.devices_per_node}),
        );
    }
    Value::Object(m)
}

/// Writes runtimes and expectations to `dir` and runs the SDK check; (passed, output).
fn sdk_check(py: &Path, dir: &Path, runtimes: &str, expect: &Value) -> (bool, String) {
    let rt = dir.join("runtimes.yaml");
    let ex = dir.join("expect.json");
    std::fs::write(&rt, runtimes).unwrap();
    std::fs::write(&ex, serde_json::to_string_pretty(expect).unwrap()).unwrap();
    let out = run_python(py, "sdk_check.py", &[rt.to_str().unwrap(), "--expect", ex.to_str().unwrap()]);
    (out.status.success(), text(&out))
}

#[test]
fn sdk_reads_every_builtin_runtime_as_its_catalog_entry_says() {
    let py = python();
    let yaml = support::runtimes_only(&render(&[]));
    let n = documents(&yaml).len();
    assert!(n > 0, "the built-in catalog rendered no runtime");
    let dir = tempfile::tempdir().unwrap();
    let (ok, out) = sdk_check(&py, dir.path(), &yaml, &expectations(BUILTIN));
    assert!(ok, "the SDK does not read the built-in runtimes as the catalog says:\n{out}");
    assert!(out.contains(&format!("PASSED: the SDK lists all {n} runtime(s)")), "{out}");
}

#[test]
fn sdk_reads_the_test_catalog_runtimes() {
    let py = python();
    let yaml = render(&[&fixture_catalog()]);
    let dir = tempfile::tempdir().unwrap();
    let (ok, out) = sdk_check(&py, dir.path(), &yaml, &expectations(FIXTURE));
    assert!(ok, "{out}");
    assert!(out.contains(&format!("PASSED: the SDK lists all {} runtime(s)", FIXTURE.len())), "{out}");
}

#[test]
fn a_runtime_without_the_framework_label_is_hidden_by_the_sdk_and_reported() {
    let py = python();
    let mut docs = documents(&render(&[&fixture_catalog()]));
    let doc = docs.iter_mut().find(|d| name_of(d) == "e2e-tpu").expect("e2e-tpu rendered");
    let labels = doc["metadata"]["labels"].as_object_mut().expect("metadata.labels");
    assert!(labels.remove("trainer.kubeflow.org/framework").is_some(), "the runtime had no framework label");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stripped.yaml");
    write_stream(&file, &docs);
    let (ok, out) = sdk_check(&py, dir.path(), &std::fs::read_to_string(&file).unwrap(), &expectations(FIXTURE));
    assert!(!ok, "a runtime the SDK hides must fail the check:\n{out}");
    assert!(out.contains("e2e-tpu: not listed by list_runtimes()"), "{out}");
    assert!(out.contains("e2e-tpu: get_runtime() failed"), "{out}");
    // The others are still read right.
    assert!(!out.contains("e2e-cpu: not listed"), "{out}");
}

#[test]
fn a_runtime_the_sdk_reads_differently_from_its_catalog_entry_is_reported() {
    let py = python();
    let yaml = render(&[&fixture_catalog()]);
    let mut expect = expectations(FIXTURE);
    expect["e2e-gpu"]["devices_per_node"] = json!("4");
    expect["e2e-tpu"]["num_nodes"] = json!(2);
    let dir = tempfile::tempdir().unwrap();
    let (ok, out) = sdk_check(&py, dir.path(), &yaml, &expect);
    assert!(!ok, "{out}");
    assert!(out.contains("e2e-gpu: SDK reads devices_per_node = '8', catalog expects '4'"), "{out}");
    assert!(out.contains("e2e-tpu: SDK reads num_nodes = 4, catalog expects 2"), "{out}");
}

#[test]
fn a_rendered_runtime_without_expectations_fails_the_check() {
    let py = python();
    let yaml = render(&[&fixture_catalog()]);
    let mut expect = expectations(FIXTURE);
    expect.as_object_mut().unwrap().remove("e2e-command");
    let dir = tempfile::tempdir().unwrap();
    let (ok, out) = sdk_check(&py, dir.path(), &yaml, &expect);
    assert!(!ok, "{out}");
    assert!(out.contains("e2e-command: rendered, but has no expectation"), "{out}");
}
