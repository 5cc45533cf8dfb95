//! Start-up benchmarks (divan), each a fresh process of the release binary: what a user waits for
//! when `validate` checks one file, compiling the embedded schema it needs once (issue 52: one
//! runtime must not start more than 10 ms slower than before the Trainer CRDs were embedded).
//!
//!   cargo bench --bench startup
//!
//! - `version`: the process floor (`--version`: no input read, nothing compiled);
//! - `validate_one_runtime`: `validate` of the built-in `jax-cpu` runtime (the embedded Trainer
//!   v2.3.0 runtime schema compiled once, its CEL too);
//! - `validate_one_runtime_with_crd`: the same with `--crd` and Trainer v2.3.0's CRD file (needs
//!   ../shared/reference; the schema read from YAML instead of the embedded JSON);
//! - `validate_one_cluster_queue`: `validate` of one ClusterQueue (the embedded Kueue v0.19.2
//!   ClusterQueue v1beta2 schema compiled once).
//!
//! `.ci/perf-gate`'s `validate-1` counts the instructions of `validate_one_runtime`'s command, the
//! deterministic gate for the same start-up.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark that cannot go on fails with the message")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const BIN: &str = env!("CARGO_BIN_EXE_jax-runtimes");

fn main() {
    divan::main();
}

/// The inputs, written once into target/bench-startup/.
fn inputs() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-startup");
        std::fs::create_dir_all(&dir).unwrap();
        let catalog = dir.join("catalog.yaml");
        std::fs::write(
            &catalog,
            "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: jax-cpu}\nspec:\n  image: python:3.12\n  accelerator: {cpu: {}}\n",
        )
        .unwrap();
        let out = Command::new(BIN).arg("render").arg(&catalog).output().unwrap();
        assert!(out.status.success(), "render: {}", String::from_utf8_lossy(&out.stderr));
        std::fs::write(dir.join("runtime.yaml"), &out.stdout).unwrap();
        std::fs::write(
            dir.join("queue.yaml"),
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cpu}\nspec:\n  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu, memory]\n    flavors:\n    - name: default\n      resources: [{name: cpu, nominalQuota: 64}, {name: memory, nominalQuota: 256Gi}]\n",
        )
        .unwrap();
        dir
    })
}

/// Runs the binary with `args` (relative to the inputs' folder) and checks it succeeds.
fn run(args: &[&str]) {
    let out = Command::new(BIN).args(args).current_dir(inputs()).env("NO_COLOR", "1").output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Trainer v2.3.0's ClusterTrainingRuntime CRD in the reference data, if it is there.
fn reference_crd() -> Option<PathBuf> {
    let root = std::env::var_os("JAX_RUNTIMES_REFERENCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference"));
    let crd = root.join("kubeflow-trainer-v2.3.0/crds/trainer.kubeflow.org_clustertrainingruntimes.yaml");
    crd.is_file().then_some(crd)
}

#[divan::bench(sample_count = 30)]
fn version() {
    inputs();
    run(&["--version"]);
}

#[divan::bench(sample_count = 30)]
fn validate_one_runtime() {
    inputs();
    run(&["validate", "runtime.yaml"]);
}

#[divan::bench(sample_count = 30)]
fn validate_one_runtime_with_crd() {
    inputs();
    let Some(crd) = reference_crd() else { return };
    run(&["validate", "--crd", crd.to_str().unwrap(), "runtime.yaml"]);
}

#[divan::bench(sample_count = 30)]
fn validate_one_cluster_queue() {
    inputs();
    run(&["validate", "queue.yaml"]);
}
