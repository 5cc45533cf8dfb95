//! End-to-end proof that a generated runtime launches a real multi-process JAX job.
//!
//! `jax-runtimes render` turns the test catalog (tests/fixtures/e2e/catalog.yaml) into runtimes;
//! tests/python/jax_launch.py then starts one local process per node with what Trainer and JobSet
//! would give each pod (the runtime container's command, args and env plus the JAX plugin's
//! JAX_NUM_PROCESSES / JAX_PROCESS_ID / JAX_COORDINATOR_ADDRESS), and every process runs
//! `jax.distributed.initialize()` and a psum across all devices with real JAX (CPU build).
//! GPU and TPU runtimes run with JAX_PLATFORMS forced to cpu and one CPU device per accelerator.
//!
//! The same proof runs from a TrainJob: `jax-runtimes preview --process N` prints the pod of each
//! process, and jax_launch.py --pods starts one process per printed pod with nothing but that
//! pod's env and command (the coordinator host, which must be pod 0's, mapped to localhost).
//!
//! Needs JAX_RUNTIMES_PYTHON (set by tests/run); fails without it.
//! The numbers asserted here come from the catalog entries, not from the rendered output.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::path::{Path, PathBuf};

use support::{documents, fixture_catalog, name_of, node_container, python, render, run_python, text, write_stream};

/// Renders the test catalog into a temp dir; returns (dir guard, runtimes file).
fn rendered_fixture() -> (tempfile::TempDir, PathBuf) {
    let yaml = render(&[&fixture_catalog()]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("runtimes.yaml");
    std::fs::write(&file, yaml).unwrap();
    (dir, file)
}

fn launch(py: &Path, file: &Path, name: &str, extra: &[&str]) -> (bool, String) {
    let mut args = vec![file.to_str().unwrap(), "--name", name];
    args.extend_from_slice(extra);
    let out = run_python(py, "jax_launch.py", &args);
    (out.status.success(), text(&out))
}

fn assert_passed(ok: bool, out: &str, name: &str) {
    assert!(ok, "the JAX job on runtime {name} failed:\n{out}");
    assert!(out.contains(&format!("PASSED: runtime {name}")), "no PASSED line:\n{out}");
}

/// Every process reported this line (index, count, local and global devices, psum result).
fn assert_all_processes(out: &str, processes: usize, local: usize) {
    let global = processes * local;
    let psum = global * (global + 1) / 2;
    for i in 0..processes {
        let line = format!("e2e-node-0-{i}: ok: process {i}/{processes}, {local} local / {global} global devices, psum {psum}");
        assert!(out.contains(&line), "missing `{line}` in:\n{out}");
    }
}

#[test]
fn cpu_runtime_runs_a_three_process_jax_job() {
    let py = python();
    let (_dir, file) = rendered_fixture();
    let (ok, out) = launch(&py, &file, "e2e-cpu", &[]);
    assert_passed(ok, &out, "e2e-cpu");
    assert!(out.contains("numNodes=3"), "{out}");
    // 2 devices per process come from the runtime's env (JAX_NUM_CPU_DEVICES=2 in the catalog).
    assert_all_processes(&out, 3, 2);
}

#[test]
fn a_runtime_with_a_pod_template_runs_a_two_process_jax_job() {
    // e2e-production merges a PVC mount, a priority class, a pull secret, an annotation and a
    // sidecar into the pod: the trainer container's launch is unchanged.
    let py = python();
    let (_dir, file) = rendered_fixture();
    let yaml = std::fs::read_to_string(&file).unwrap();
    let runtime = documents(&yaml).into_iter().find(|d| name_of(d) == "e2e-production").unwrap();
    let pod = &runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"];
    assert_eq!(pod["spec"]["priorityClassName"], "training-high");
    assert_eq!(pod["spec"]["containers"][1]["name"], "checkpoint-sync");
    assert_eq!(node_container(&runtime)["volumeMounts"][0]["mountPath"], "/checkpoints");
    let (ok, out) = launch(&py, &file, "e2e-production", &[]);
    assert_passed(ok, &out, "e2e-production");
    assert_all_processes(&out, 2, 1);
}

#[test]
fn gpu_runtime_env_runs_with_cpu_standing_in_for_the_gpus() {
    let py = python();
    let (_dir, file) = rendered_fixture();
    let (ok, out) = launch(&py, &file, "e2e-gpu", &[]);
    assert_passed(ok, &out, "e2e-gpu");
    assert!(out.contains("numNodes=2"), "{out}");
    assert!(out.contains("nvidia.com/gpu=8/node"), "the runtime must request 8 GPUs per node:\n{out}");
    assert!(out.contains("JAX_PLATFORMS forced to cpu"), "{out}");
    assert_all_processes(&out, 2, 8);
}

#[test]
fn tpu_runtime_env_runs_with_cpu_standing_in_for_the_chips() {
    let py = python();
    let (_dir, file) = rendered_fixture();
    let (ok, out) = launch(&py, &file, "e2e-tpu", &[]);
    assert_passed(ok, &out, "e2e-tpu");
    // v5e 4x4: 16 chips, 4 per ct5lp-hightpu-4t host -> 4 nodes of 4 chips.
    assert!(out.contains("numNodes=4"), "v5e 4x4 must span 4 hosts:\n{out}");
    assert!(out.contains("google.com/tpu=4/node"), "{out}");
    // The runtime's own JAX_PLATFORMS (tpu,cpu) is what the test had to override.
    assert!(out.contains("JAX_PLATFORMS forced to cpu (runtime: tpu,cpu)"), "{out}");
    assert_all_processes(&out, 4, 4);
}

#[test]
fn runtime_command_runs_and_a_trainjob_command_replaces_it() {
    let py = python();
    let (_dir, file) = rendered_fixture();

    // No TrainJob command: the runtime's own command and args are the entrypoint.
    let (ok, out) = launch(&py, &file, "e2e-command", &[]);
    assert_passed(ok, &out, "e2e-command");
    assert!(out.contains("command: python jax_psum_job.py"), "{out}");
    assert!(!out.contains("TrainJob trainer.command"), "{out}");
    assert_all_processes(&out, 2, 1);

    // A TrainJob command replaces the runtime's: a program that exits 7 makes the job fail.
    let (ok, out) = launch(&py, &file, "e2e-command", &["--trainjob-command", r#"["python", "-c", "raise SystemExit(7)"]"#]);
    assert!(!ok, "the TrainJob command must replace the runtime's:\n{out}");
    assert!(out.contains("exited with status 7"), "{out}");
}

#[test]
fn fewer_processes_than_num_nodes_fail() {
    let py = python();
    let (_dir, file) = rendered_fixture();
    let (ok, out) = launch(&py, &file, "e2e-cpu", &["--processes", "2", "--init-timeout", "10"]);
    assert!(!ok, "2 processes for numNodes=3 must fail:\n{out}");
    assert!(out.contains("FAILED: runtime e2e-cpu"), "{out}");
    assert!(!out.contains("PASSED"), "{out}");
}

#[test]
fn more_processes_than_num_nodes_fail() {
    let py = python();
    let (_dir, file) = rendered_fixture();
    let (ok, out) = launch(&py, &file, "e2e-cpu", &["--processes", "4", "--init-timeout", "10"]);
    assert!(!ok, "4 processes for numNodes=3 must fail:\n{out}");
    assert!(out.contains("e2e-node-0-3 (JAX_PROCESS_ID=3)"), "{out}");
    assert!(out.contains("FAILED: runtime e2e-cpu"), "{out}");
}

#[test]
fn a_runtime_whose_num_nodes_was_tampered_with_fails() {
    let py = python();
    let (dir, file) = rendered_fixture();
    // Break the runtime itself: numNodes 3 -> 5, while the job is still launched on 3 pods.
    let mut docs = documents(&std::fs::read_to_string(&file).unwrap());
    let doc = docs.iter_mut().find(|d| name_of(d) == "e2e-cpu").expect("e2e-cpu rendered");
    assert_eq!(doc["spec"]["mlPolicy"]["numNodes"], 3);
    doc["spec"]["mlPolicy"]["numNodes"] = 5.into();
    let broken = dir.path().join("broken.yaml");
    write_stream(&broken, std::slice::from_ref(doc));
    let (ok, out) = launch(&py, &broken, "e2e-cpu", &["--processes", "3", "--init-timeout", "10"]);
    assert!(!ok, "numNodes=5 on 3 processes must fail:\n{out}");
    assert!(out.contains("FAILED: runtime e2e-cpu"), "{out}");
}

/// The `node` container of the `node` replicatedJob (where Trainer puts the job).
/// The built-in catalog, too: every multi-node runtime small enough for this machine
/// (at most 4 nodes of at most 8 devices) runs its job.
#[test]
fn small_builtin_multi_node_runtimes_launch() {
    let py = python();
    let yaml = support::runtimes_only(&render(&[]));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("builtin.yaml");
    std::fs::write(&file, &yaml).unwrap();
    let mut launched = Vec::new();
    for doc in documents(&yaml) {
        let nodes = doc["spec"]["mlPolicy"]["numNodes"].as_u64().unwrap_or(1);
        let limits = &node_container(&doc)["resources"]["limits"];
        let devices = ["google.com/tpu", "nvidia.com/gpu", "amd.com/gpu"]
            .iter()
            .find_map(|k| limits.get(*k))
            .map(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or(u64::MAX))
            .unwrap_or(1);
        if !(2..=4).contains(&nodes) || devices > 8 {
            continue;
        }
        let name = name_of(&doc).to_string();
        let (ok, out) = launch(&py, &file, &name, &[]);
        assert_passed(ok, &out, &name);
        launched.push(name);
    }
    assert!(!launched.is_empty(), "the built-in catalog has no runtime with 2-4 nodes of at most 8 devices; widen the filter");
    eprintln!("launched built-in runtimes: {launched:?}");
}

// ---------------------------------------------------------------------------------------------
// From a TrainJob: the pods `jax-runtimes preview` prints, launched as they are.

/// Previews processes 0..n-1 of a TrainJob on the test catalog (and checks that process n does
/// not exist); returns the files.
fn previewed_pods(dir: &Path, trainjob: &str, n: usize) -> Vec<PathBuf> {
    let job = dir.join("trainjob.yaml");
    std::fs::write(&job, trainjob).unwrap();
    let catalog = fixture_catalog();
    let preview = |i: usize| {
        support::run(&["preview", job.to_str().unwrap(), "--runtimes", catalog.to_str().unwrap(), "--process", &i.to_string()], None)
    };
    let files: Vec<PathBuf> = (0..n)
        .map(|i| {
            let r = preview(i);
            assert_eq!(r.code, 0, "preview --process {i}:\n{}", r.all());
            let file = dir.join(format!("pod-{i}.yaml"));
            std::fs::write(&file, &r.stdout).unwrap();
            file
        })
        .collect();
    let r = preview(n);
    assert_eq!(r.code, 2, "process {n} must not exist:\n{}", r.all());
    files
}

fn launch_pods(py: &Path, pods: &[PathBuf], extra: &[&str]) -> (bool, String) {
    let mut args: Vec<&str> = vec!["--pods"];
    args.extend(pods.iter().map(|p| p.to_str().unwrap()));
    args.extend_from_slice(extra);
    let out = run_python(py, "jax_launch.py", &args);
    (out.status.success(), text(&out))
}

#[test]
fn previewed_pods_of_a_trainjob_on_the_cpu_runtime_run_jax() {
    let py = python();
    let dir = tempfile::tempdir().unwrap();
    // numNodes 2 over the runtime's 3, 3 CPU devices over the runtime's 2, a command of its own.
    let job = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: psum, namespace: ml}
spec:
  runtimeRef: {name: e2e-cpu}
  trainer:
    numNodes: 2
    image: python:3.11
    command: [python, jax_psum_job.py]
    env: [{name: JAX_NUM_CPU_DEVICES, value: '3'}]
";
    let pods = previewed_pods(dir.path(), job, 2);
    let (ok, out) = launch_pods(&py, &pods, &[]);
    assert!(ok, "{out}");
    assert!(out.contains("PASSED: TrainJob psum: 2 processes initialised JAX from the previewed pod env"), "{out}");
    for i in 0..2 {
        let line = format!("psum-node-0-{i}: ok: process {i}/2, 3 local / 6 global devices, psum 21");
        assert!(out.contains(&line), "missing `{line}`:\n{out}");
    }
}

#[test]
fn previewed_pods_of_a_trainjob_on_more_gpu_nodes_run_jax() {
    let py = python();
    let dir = tempfile::tempdir().unwrap();
    // The GPU runtime has 2 nodes of 8 GPUs; the TrainJob asks for 3.
    let job = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: gpt}
spec:
  runtimeRef: {name: e2e-gpu}
  trainer:
    numNodes: 3
    command: [python, jax_psum_job.py]
    env: [{name: XLA_FLAGS, value: --xla_cpu_enable_fast_math=false}]
";
    let pods = previewed_pods(dir.path(), job, 3);
    let (ok, out) = launch_pods(&py, &pods, &[]);
    assert!(ok, "{out}");
    assert!(out.contains("JAX_PLATFORMS forced to cpu"), "{out}");
    for i in 0..3 {
        let line = format!("gpt-node-0-{i}: ok: process {i}/3, 8 local / 24 global devices, psum 300");
        assert!(out.contains(&line), "missing `{line}`:\n{out}");
    }
}

#[test]
fn previewed_pods_with_a_hand_set_process_id_fail_as_validate_says() {
    let py = python();
    let dir = tempfile::tempdir().unwrap();
    // `validate` reports trainjob/jax-env here; the pods show why: every process is process 0.
    let job = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: same}
spec:
  runtimeRef: {name: e2e-cpu}
  trainer:
    command: [python, jax_psum_job.py]
    env: [{name: JAX_PROCESS_ID, value: '0'}]
";
    let file = dir.path().join("trainjob.yaml");
    std::fs::write(&file, job).unwrap();
    let r = support::run(&["validate", file.to_str().unwrap(), "--runtimes", fixture_catalog().to_str().unwrap()], None);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stdout.contains("error[trainjob/jax-env]"), "{}", r.all());
    let catalog = fixture_catalog();
    let pods: Vec<PathBuf> = (0..3)
        .map(|i| {
            let r = support::run(
                &["preview", file.to_str().unwrap(), "--runtimes", catalog.to_str().unwrap(), "--process", &i.to_string()],
                None,
            );
            assert_eq!(r.code, 1, "the preview is printed, with the error:\n{}", r.all());
            let f = dir.path().join(format!("pod-{i}.yaml"));
            std::fs::write(&f, &r.stdout).unwrap();
            f
        })
        .collect();
    let (ok, out) = launch_pods(&py, &pods, &["--init-timeout", "10"]);
    assert!(!ok, "three processes that all say JAX_PROCESS_ID=0 must not form a job:\n{out}");
    assert!(out.contains("FAILED: TrainJob same"), "{out}");
}
