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
    only_finding_of(fixture, "ml/llama", rule)
}

/// [`only_finding`] for the TrainJob `trainjob`.
fn only_finding_of(fixture: &str, trainjob: &str, rule: &str) -> Value {
    let r = doctor(fixture, trainjob, &["--format", "json"]);
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

#[test]
fn a_misspelt_queue_label_names_the_local_queues_of_the_namespace_and_the_nearest() {
    let f = only_finding_of("kueue.yaml", "ml/typo", "doctor/localqueue-missing");
    let message = f["message"].as_str().unwrap();
    assert!(message.contains("`kueue.x-k8s.io/queue-name: cpu-queu` names no LocalQueue of its namespace (`ml` has `cpu-queue`, `orphan-queue`, `stalled-queue`)"), "{message}");
    assert!(message.contains("Kueue says \"LocalQueue cpu-queu doesn't exist\""), "Kueue's own words are quoted: {message}");
    assert!(f["help"].as_str().unwrap().starts_with("did you mean `cpu-queue`?"), "{f}");
    assert_eq!(f["field"], "metadata.labels.kueue.x-k8s.io/queue-name");
}

#[test]
fn a_local_queue_whose_cluster_queue_is_gone_is_named_at_the_local_queue() {
    let f = only_finding_of("kueue.yaml", "ml/orphan", "doctor/clusterqueue-missing");
    assert!(f["message"].as_str().unwrap().contains("points at ClusterQueue `gone`: the cluster has no such ClusterQueue"), "{f}");
    assert_eq!((f["object"]["kind"].as_str(), f["field"].as_str()), (Some("LocalQueue"), Some("spec.clusterQueue")), "{f}");
}

#[test]
fn an_inactive_cluster_queue_gives_kueue_s_reason_not_its_local_queue_s() {
    let f = only_finding_of("kueue.yaml", "ml/stalled", "doctor/queue-inactive");
    let message = f["message"].as_str().unwrap();
    assert!(message.contains("ClusterQueue `stalled`, which is inactive (FlavorNotFound)"), "{message}");
    assert!(message.contains("references missing ResourceFlavor(s): stalled-flavor"), "{message}");
}

#[test]
fn a_workload_short_of_quota_quotes_the_flavor_assigner_and_names_the_queues() {
    let f = only_finding_of("kueue.yaml", "ml/quota", "doctor/not-admitted");
    let message = f["message"].as_str().unwrap();
    assert!(message.contains("waits for quota in ClusterQueue `cpu` (LocalQueue `cpu-queue`)"), "{message}");
    assert!(message.contains("insufficient unused quota for cpu in flavor cpu-flavor, 4 more needed"), "{message}");
    assert_eq!(f["object"]["kind"], "Workload");
    // With quota reserved, a check that is still Pending holds it.
    let f = only_finding_of("kueue.yaml", "ml/provisioning", "doctor/not-admitted");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("has quota in ClusterQueue `cpu` but is not admitted: admission check `capacity` is Pending"),
        "{f}"
    );
}

#[test]
fn a_queued_trainjob_without_a_workload_says_kueue_does_not_manage_trainjobs() {
    let f = only_finding_of("kueue.yaml", "ml/unmanaged", "doctor/no-workload");
    assert!(f["message"].as_str().unwrap().contains("Kueue made no Workload for it"), "{f}");
    assert!(
        f["help"].as_str().unwrap().contains("`trainer.kubeflow.org/trainjob`") && f["help"].as_str().unwrap().contains("v0.14.0"),
        "{f}"
    );
}

#[test]
fn an_admitted_workload_is_not_a_cause_and_a_suspended_trainjob_in_no_queue_is() {
    // Admitted by Kueue: what holds it is elsewhere (here: no pods and nothing says why).
    let f = only_finding_of("kueue.yaml", "ml/admitted", "doctor/pods-not-created");
    assert!(f["message"].as_str().unwrap().contains("no pods"), "{f}");
    let f = only_finding_of("kueue.yaml", "ml/paused", "doctor/suspended");
    assert!(
        f["help"].as_str().unwrap().contains(r#"kubectl patch trainjob -n NAMESPACE NAME --type merge -p '{"spec":{"suspend":false}}'"#),
        "{f}"
    );
}

#[test]
fn pods_a_quota_refuses_are_named_with_the_job_controller_s_event() {
    let f = only_finding_of("no-pods.yaml", "ml/llama", "doctor/pods-not-created");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains(
            "Job `llama-node-0`: FailedCreate: Error creating: pods \"llama-node-0-0-x7k2q\" is forbidden: exceeded quota: ml-pods"
        ),
        "{message}"
    );
    assert!(!message.contains("SuccessfulCreate"), "a Normal event is not a cause: {message}");
    let f = only_finding_of("no-pods.yaml", "ml/llama-7b", "doctor/pods-not-created");
    assert!(f["message"].as_str().unwrap().contains("no pods and no JobSet: Trainer made none"), "{f}");
}

#[test]
fn pods_that_cannot_reach_the_coordinator_are_named_with_validate_s_reason() {
    let r = doctor("coordinator.yaml", "ml/llama", &["--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let rules: Vec<&str> = findings.iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(rules.len(), 2, "{rules:?}");
    assert!(rules.contains(&"doctor/coordinator") && rules.contains(&"jobset/subdomain"), "{rules:?}");
    let f = findings.iter().find(|f| f["rule"] == "doctor/coordinator").unwrap();
    assert!(
        f["message"].as_str().unwrap().contains(
            "the pods' `JAX_COORDINATOR_ADDRESS` is `llama-node-0-0.llama:29500`, but process 0's pod `llama-node-0-0-abcde` answers at `llama-node-0-0.workers`"
        ),
        "{f}"
    );
    let r = doctor("coordinator.yaml", "ml/llama", &[]);
    assert!(r.stderr.contains("TrainJob ml/llama: 2 of 2 pods Running, held back by the causes above"), "{}", r.all());
}

#[test]
fn a_runtime_edited_after_the_start_is_named_with_what_its_jobset_keeps() {
    let r = doctor("runtime-changed.yaml", "ml/llama", &["--format", "json"]);
    // A warning: the job runs, with what the runtime said when it started.
    assert_eq!(r.code, 0, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(findings.len(), 1, "{}", r.all());
    let f = &findings[0];
    assert_eq!(
        (f["rule"].as_str(), f["severity"].as_str(), f["object"]["kind"].as_str()),
        (Some("doctor/runtime-changed"), Some("warning"), Some("JobSet")),
        "{f}"
    );
    let message = f["message"].as_str().unwrap();
    assert!(message.contains("`node` image `nvcr.io/nvidia/jax:25.10-py3` (the JobSet's: `nvcr.io/nvidia/jax:25.04-py3`)"), "{message}");
    assert!(
        message.contains("`node` requests cpu: 4 (the JobSet's: 2)") && message.contains("`node` limits cpu: 4 (the JobSet's: 2)"),
        "{message}"
    );
    assert!(!message.contains("memory"), "8Gi on both sides is no change: {message}");
    assert!(f["help"].as_str().unwrap().contains("Delete and create the TrainJob again"), "{f}");
}

#[test]
fn a_bare_name_takes_the_namespace_of_dash_n() {
    let r = doctor("running.yaml", "llama", &["-n", "ml"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stderr.contains("TrainJob ml/llama: running"), "{}", r.all());
    let r = doctor("running.yaml", "ml/llama", &["--namespace", "prod"]);
    assert_eq!(r.code, 2, "NAMESPACE/NAME and another --namespace: {}", r.all());
}

#[test]
fn a_name_too_long_for_the_pods_dns_names_is_validate_s_finding_beside_the_missing_pods() {
    // ml/llama of no-pods.yaml renamed to 58 characters, without the JobSet, Job and events.
    let long = "llama-with-a-very-long-descriptive-name-for-the-sweep-0001";
    let text = std::fs::read_to_string("tests/doctor/no-pods.yaml").unwrap();
    let text =
        text[..text.find("- apiVersion: jobset.x-k8s.io/v1alpha2").unwrap()].replace("    name: llama\n", &format!("    name: {long}\n"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cluster.yaml");
    std::fs::write(&file, text).unwrap();
    let r = run(&["doctor", "--snapshot", file.to_str().unwrap(), &format!("ml/{long}"), "--format", "json"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let rules: Vec<&str> = findings.iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["doctor/pods-not-created", "trainjob/name-length"], "{}", r.all());
    assert!(findings[1]["message"].as_str().unwrap().contains("is 58 characters"), "{}", r.all());
}

#[test]
fn pods_that_disagree_on_the_coordinator_or_give_it_no_port_are_named() {
    let text = std::fs::read_to_string("tests/doctor/coordinator.yaml").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // The second pod's address is another (a per-pod patch); the subdomain as JobSet gives it.
        (text.replacen("value: llama-node-0-0.llama:29500", "value: llama-node-0-0.workers:29500", 1).replace("value: llama-node-0-0.llama:29500", "value: llama-node-0-0.workers:1234"),
         "the pods disagree on `JAX_COORDINATOR_ADDRESS`: process 0's pod `llama-node-0-0-abcde` has `llama-node-0-0.workers:29500`, pod `llama-node-0-1-abcde` has `llama-node-0-0.workers:1234`"),
        (text.replace("value: llama-node-0-0.llama:29500", "value: llama-node-0-0.workers"),
         "`JAX_COORDINATOR_ADDRESS` `llama-node-0-0.workers` has no port from 1 to 65535"),
    ];
    for (i, (snapshot, says)) in cases.iter().enumerate() {
        let file = dir.path().join(format!("cluster-{i}.yaml"));
        std::fs::write(&file, snapshot).unwrap();
        let r = run(&["doctor", "--snapshot", file.to_str().unwrap(), "ml/llama", "--format", "json"], None);
        let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
        let f = findings.iter().find(|f| f["rule"] == "doctor/coordinator").unwrap_or_else(|| panic!("case {i}: {}", r.all()));
        assert!(f["message"].as_str().unwrap().contains(says), "case {i}: {f}");
    }
}
