//! `jax-runtimes doctor --snapshot FILE NAMESPACE/NAME`: each cause doctor names, reached from a
//! recorded cluster state (tests/doctor/*.yaml, snapshots in the shape Trainer v2.3, JobSet v0.12
//! and the kubelet write, each status field's source cited in the file), with its cause, its fix
//! and its exit code; the findings formats; and what it says of a TrainJob that runs.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use serde_json::Value;
use support::{run, Run};

fn doctor(fixture: &str, trainjob: &str, extra: &[&str]) -> Run {
    let path = format!("tests/doctor/{fixture}");
    let mut args = vec!["doctor", "--snapshot", path.as_str(), trainjob];
    args.extend_from_slice(extra);
    run(&args, None)
}

/// The one finding of `--format json`, after checking it is the only one and of `rule`.
fn only_finding(fixture: &str, rule: &str) -> Value {
    let r = doctor(fixture, "ml/llama", &["--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    assert_eq!(findings.len(), 1, "{}", r.all());
    assert_eq!(findings[0]["rule"], rule, "{}", r.all());
    findings[0].clone()
}

#[test]
fn a_pending_gang_quotes_the_scheduler_and_fit_names_the_taint_and_the_toleration() {
    let f = only_finding("pending-taint.yaml", "doctor/unschedulable");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains("the scheduler says \"0/2 nodes are available: 2 node(s) had untolerated taint {nvidia.com/gpu: present}"),
        "{message}"
    );
    assert!(message.contains("(and 1 more of its pods)"), "{message}");
    assert!(message.contains("fit's model on the same nodes: every node has the taint nvidia.com/gpu=present:NoSchedule"), "{message}");
    assert!(message.contains("cpu-a, cpu-b"), "{message}");
    assert!(f["help"].as_str().unwrap().contains("add the toleration {key: nvidia.com/gpu"), "{f}");
    assert_eq!(f["object"]["kind"], "Pod");
    assert_eq!(f["object"]["name"], "llama-node-0-0-abcde");
}

#[test]
fn an_image_that_does_not_pull_is_named_with_the_kubelet_s_words() {
    let f = only_finding("image-pull.yaml", "doctor/image-pull");
    let message = f["message"].as_str().unwrap();
    assert!(message.contains("image `nvcr.io/nvidia/jax:25.10-py3x` does not pull (ImagePullBackOff: Back-off pulling image"), "{message}");
    assert!(f["help"].as_str().unwrap().contains("Fix the image reference (`spec.trainer.image`"), "{f}");
}

#[test]
fn a_crash_loop_gives_the_restarts_and_the_last_exit() {
    let f = only_finding("crash-loop.yaml", "doctor/crash-loop");
    let message = f["message"].as_str().unwrap();
    assert!(message.contains("restarted 6 times") && message.contains("last exit: OOMKilled (exit code 137)"), "{message}");
    assert_eq!(f["object"]["name"], "llama-node-0-1-abcde", "the pod that loops, not its healthy sibling");
    assert!(f["help"].as_str().unwrap().contains("kubectl logs -n NAMESPACE POD -c node --previous"), "{f}");
}

#[test]
fn a_failed_trainjob_gives_its_condition_and_the_node_container_s_exit() {
    let f = only_finding("failed.yaml", "doctor/failed");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains("it failed: FailedJobs: jobset failed due to one or more job failures (first failed job: llama-node-0)"),
        "{message}"
    );
    assert!(message.contains("pod `llama-node-0-0-abcde`: Error (exit code 1)"), "{message}");
    assert!(f["help"].as_str().unwrap().contains("create the TrainJob again"), "{f}");
}

#[test]
fn a_missing_runtime_names_the_nearest_the_cluster_has() {
    let f = only_finding("runtime-missing.yaml", "doctor/runtime-missing");
    let message = f["message"].as_str().unwrap();
    assert!(message.contains("no ClusterTrainingRuntime named `jax-cpus`") && message.contains("nearest: `jax-cpu`"), "{message}");
    assert_eq!(f["field"], "spec.runtimeRef.name");
}

#[test]
fn a_name_not_in_the_snapshot_lists_what_it_has_and_the_nearest_spelling() {
    let r = doctor("running.yaml", "ml/lama", &[]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("error[doctor/not-found]: no TrainJob `ml/lama`; it has `ml/llama`, `ml/llama-7b`"), "{}", r.all());
    assert!(r.stderr.contains("help: did you mean `ml/llama`?"), "{}", r.all());
    // NAME alone is in namespace `default`.
    let r = doctor("running.yaml", "llama", &[]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("no TrainJob `default/llama`"), "{}", r.all());
}

#[test]
fn a_running_trainjob_has_no_cause_and_exits_0() {
    let r = doctor("running.yaml", "ml/llama", &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(!r.stderr.contains("error["), "{}", r.all());
    assert!(r.stderr.contains("TrainJob ml/llama: running: 2 of 2 pods Running"), "{}", r.all());
    let r = doctor("running.yaml", "ml/llama", &["--format", "json"]);
    assert_eq!((r.code, r.stdout.trim()), (0, "[]"), "{}", r.all());
}

#[test]
fn every_findings_format_carries_the_cause() {
    for (format, mark) in [("sarif", "\"ruleId\": \"doctor/image-pull\""), ("junit", "doctor/image-pull"), ("github", "::error ")] {
        let r = doctor("image-pull.yaml", "ml/llama", &["--format", format]);
        assert_eq!(r.code, 1, "{format}: {}", r.all());
        assert!(r.stdout.contains(mark), "{format}: {}", r.all());
    }
}

#[test]
fn input_it_cannot_read_exits_2() {
    let r = doctor("no-such-file.yaml", "ml/llama", &[]);
    assert_eq!(r.code, 2, "{}", r.all());
    let r = run(&["doctor", "--snapshot", "tests/doctor/running.yaml", "/llama"], None);
    assert_eq!(r.code, 2, "{}", r.all());
    let r = run(&["doctor", "--snapshot", "tests/doctor/running.yaml", "--context", "prod", "ml/llama"], None);
    assert_eq!(r.code, 2, "--snapshot and live mode's flags exclude each other: {}", r.all());
}
