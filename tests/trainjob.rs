//! TrainJobs against their runtimes (`validate`, the KRM validator) and `jax-runtimes preview`:
//! the corpus (tests/trainjob/corpus.yaml, a case per check and legal controls), the CLI with
//! `--runtimes` (catalogs rendered first) and with runtimes in the same input, the example
//! TrainJob of every built-in runtime's docs page, and previews of a CPU, a multi-node GPU and
//! a multi-host TPU runtime with TrainJobs that override image, numNodes, env and resources.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::BTreeSet;

use jax_runtimes::diag::{Diagnostic, Severity};
use jax_runtimes::rules::{self, Layer};
use jax_runtimes::trainjob::TrainerVersion;
use jax_runtimes::validate::{self, Options};
use serde_json::{json, Value};
use support::trainjob_corpus::{self, Case, Expect};
use support::{documents, parse, root, run};

// ---------------------------------------------------------------------------------------------
// Corpus

fn corpus() -> Vec<Case> {
    trainjob_corpus::cases()
}

fn base(name: &str) -> Value {
    let text = std::fs::read_to_string(root().join(format!("tests/validate/base/{name}.yaml"))).unwrap();
    parse(name, &text).remove(0).value
}

fn trainjob(v: &Value) -> Value {
    let mut tj = json!({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob"});
    for (k, x) in v.as_object().expect("a TrainJob mapping") {
        tj[k] = x.clone();
    }
    tj
}

fn show(diags: &[Diagnostic]) -> String {
    diags.iter().map(|d| format!("  {d}\n")).collect()
}

/// The runtime and the TrainJob as one YAML stream, checked as `validate` checks files.
fn check_case(case: &Case) -> (String, Vec<Diagnostic>) {
    let text = case.text();
    let docs = parse("case.yaml", &text);
    // As `--trainer-version` sets it: the release's schemas and its TrainJob merge.
    let opts = Options::default().for_release(case.version.as_deref().map(|v| validate::Release::named(v).expect("a known release")));
    (text, validate::objects(&docs, &opts))
}

#[test]
fn corpus_each_case_reports_its_rule_at_its_field_and_controls_pass() {
    let mut failures = Vec::new();
    let cases = corpus();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    for case in &cases {
        let (text, diags) = check_case(case);
        let problems: Vec<&Diagnostic> = diags.iter().filter(|d| d.severity >= Severity::Warning).collect();
        match &case.expect {
            Expect::Clean(word) => {
                assert_eq!(word, "clean", "{}: `expect` is a finding or `clean`", case.name);
                if !problems.is_empty() {
                    failures.push(format!("{}: a legal TrainJob got findings:\n{}", case.name, show(&diags)));
                }
            }
            Expect::Finding { rule, field, severity } => {
                let Some(hit) = diags.iter().find(|d| d.rule.id == rule && d.field.as_deref() == Some(field.as_str())) else {
                    failures.push(format!("{}: expected {rule} at `{field}`, got:\n{}", case.name, show(&diags)));
                    continue;
                };
                let want = severity.clone().unwrap_or_else(|| rules::by_id(rule).expect("registered").severity.to_string());
                if hit.severity.to_string() != want {
                    failures.push(format!("{}: {} is {}, expected {want}", case.name, hit.rule, hit.severity));
                }
                if let Some(m) = &case.message {
                    if !hit.message.contains(m.as_str()) {
                        failures.push(format!("{}: message lacks `{m}`: {}", case.name, hit.message));
                    }
                }
                // Located in the TrainJob: the file, its document, a line, the object and a help.
                let alone = case.runtime == "none";
                let runtime_lines = if alone { 0 } else { text.split("---\n").next().unwrap_or_default().lines().count() };
                let located = hit.file.as_deref() == Some("case.yaml")
                    && hit.index == Some(usize::from(!alone))
                    && hit.line.is_some_and(|l| l > runtime_lines)
                    && hit.object.as_ref().is_some_and(|o| o.kind == "TrainJob")
                    && hit.help.is_some();
                if !located {
                    failures.push(format!("{}: finding not located in the TrainJob: {hit:?}", case.name));
                }
                let extra: Vec<&&Diagnostic> =
                    problems.iter().filter(|d| d.rule.id != rule && !case.also.iter().any(|a| a == d.rule.id)).collect();
                if !extra.is_empty() {
                    failures.push(format!(
                        "{}: more than the one mistake:\n{}",
                        case.name,
                        extra.iter().map(|d| format!("  {d}\n")).collect::<String>()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} corpus failure(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn corpus_covers_every_trainjob_rule() {
    let covered: BTreeSet<String> = corpus().into_iter().filter_map(|c| c.expect.rule().map(str::to_string)).collect();
    let missing: Vec<&str> =
        rules::all().filter(|r| r.layer == Layer::TrainJob).map(|r| r.id).filter(|id| !covered.contains(*id)).collect();
    assert!(missing.is_empty(), "trainjob rules without a corpus case: {missing:?}");
}

// ---------------------------------------------------------------------------------------------
// The CLI and the KRM validator

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

const TPU_JOB: &str = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: llama, namespace: ml}
spec:
  runtimeRef: {name: jax-tpu-v5e-4x4}
  trainer:
    numNodes: NODES
";

#[test]
fn validate_checks_trainjobs_against_a_catalog_rendered_first() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = root().join("catalog/runtimes").display().to_string();
    let bad = write(dir.path(), "bad.yaml", &TPU_JOB.replace("NODES", "2"));
    let r = run(&["validate", &bad, "--runtimes", &catalog, "--format", "json"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let f = findings.iter().find(|f| f["rule"] == "trainjob/tpu-num-nodes").unwrap_or_else(|| panic!("{}", r.all()));
    assert_eq!(f["field"], "spec.trainer.numNodes");
    assert_eq!(f["line"], 7);
    assert!(f["message"].as_str().unwrap().contains("4 hosts"), "{f}");
    let r = run(&["validate", &bad, "--runtimes", &catalog], None);
    assert!(r.stderr.contains("0 runtimes and 1 TrainJob checked"), "{}", r.stderr);
    let good = write(dir.path(), "good.yaml", &TPU_JOB.replace("NODES", "4"));
    let r = run(&["validate", &good, "--runtimes", &catalog], None);
    assert_eq!(r.code, 0, "{}", r.all());
    // Without any runtime the TrainJob is checked alone: a warning that says how to pass them,
    // not an error (issue 41: a TrainJob without `--runtimes` always exited 1).
    let r = run(&["validate", &good], None);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("warning[trainjob/runtime-unchecked]") && r.stdout.contains("--runtimes"), "{}", r.all());
    // A runtimeRef naming none of the runtimes given stays an error.
    let other = write(dir.path(), "other.yaml", &TPU_JOB.replace("NODES", "4").replace("jax-tpu-v5e-4x4", "jax-tpu-v5e-4x9"));
    let r = run(&["validate", &other, "--runtimes", &catalog], None);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stdout.contains("error[trainjob/runtime-ref]"), "{}", r.all());
}

#[test]
fn validate_takes_runtimes_from_the_same_input_and_a_list() {
    let rt = base("gpu");
    let tj = json!({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "j"},
        "spec": {"runtimeRef": {"name": "jax-gpu-h100-2nodes"}, "trainer": {"env": [{"name": "JAX_PROCESS_ID", "value": "1"}]}}});
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [rt, tj]});
    let r = run(&["validate", "-", "--format", "json"], Some(&serde_json::to_string_pretty(&list).unwrap()));
    assert_eq!(r.code, 1, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let f = findings.iter().find(|f| f["rule"] == "trainjob/jax-env").unwrap_or_else(|| panic!("{}", r.all()));
    assert_eq!(f["field"], "spec.trainer.env[0].value");
    assert!(f["line"].as_u64().is_some() && f["column"].as_u64().is_some(), "at the value, line and column: {f}");
    let r = run(&["validate", "-"], Some(&serde_json::to_string_pretty(&list).unwrap()));
    assert!(r.stderr.contains("1 runtime and 1 TrainJob checked"), "{}", r.stderr);
}

#[test]
fn an_unusable_runtimes_path_stops_validate() {
    let r = run(&["validate", "tests/validate/base/cpu.yaml", "--runtimes", "tests/no-such-dir"], None);
    assert_eq!(r.code, 2, "{}", r.all());
    let dir = tempfile::tempdir().unwrap();
    let bad = write(dir.path(), "catalog.yaml", "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: x}\nspec: {accelerator: {tpu: {type: v5e, topology: 3x3}}}\n");
    let r = run(&["validate", "tests/validate/base/cpu.yaml", "--runtimes", &bad], None);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.all().contains("catalog/"), "the catalog's own finding is shown:\n{}", r.all());
}

#[test]
fn krm_validator_checks_trainjob_items_against_runtime_items() {
    let mut tj = json!({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
        "metadata": {"name": "j", "annotations": {"internal.config.kubernetes.io/path": "jobs/j.yaml", "internal.config.kubernetes.io/index": "0"}},
        "spec": {"runtimeRef": {"name": "jax-tpu-v5e-2x4"}, "trainer": {"numNodes": 1}}});
    let list = json!({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [base("tpu"), tj.clone()],
        "functionConfig": {"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeValidation", "metadata": {"name": "v"}}});
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = jax_runtimes::krm::run(serde_json::to_string(&list).unwrap().as_bytes(), &mut out, &mut err);
    assert_eq!(code.code(), 1, "{}", String::from_utf8_lossy(&err));
    let got: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(got["items"], list["items"], "a validator leaves items alone");
    let r = got["results"].as_array().unwrap().iter().find(|r| r["tags"]["rule"] == "trainjob/tpu-num-nodes").expect("result");
    assert_eq!(r["file"]["path"], "jobs/j.yaml");
    assert_eq!(r["resourceRef"]["kind"], "TrainJob");
    // Fixed, it passes.
    tj["spec"]["trainer"]["numNodes"] = json!(2);
    let list = json!({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [base("tpu"), tj],
        "functionConfig": {"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeValidation", "metadata": {"name": "v"}}});
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = jax_runtimes::krm::run(serde_json::to_string(&list).unwrap().as_bytes(), &mut out, &mut err);
    assert_eq!(code.code(), 0, "{}", String::from_utf8_lossy(&err));
}

#[test]
fn the_docs_example_trainjob_of_every_builtin_runtime_is_clean_and_previews() {
    let docs = jax_runtimes::read::builtin().into_result().unwrap();
    let generated = jax_runtimes::pipeline::generate(&docs);
    let runtimes: Vec<_> = generated.runtimes.iter().map(|r| r.runtime.clone()).collect();
    assert!(runtimes.len() >= 10);
    for r in &generated.runtimes {
        let tj = jax_runtimes::write::pages::example_trainjob(&r.resolved);
        let value = serde_json::to_value(&tj).unwrap();
        let ctx = validate::trainjob::Context { runtimes: &runtimes, version: None, release: validate::structure::DEFAULT_RELEASE };
        let d = validate::trainjob::check(&value, None, false, &ctx);
        assert!(d.iter().all(|d| d.severity < Severity::Warning), "{}:\n{}", r.file_name, show(&d));
        let eff = jax_runtimes::trainjob::build(&r.runtime, &tj, TrainerVersion::V2_3, jax_runtimes::trainjob::Steps::All);
        let last = i64::from(eff.num_nodes() - 1);
        let p = jax_runtimes::trainjob::predict(&eff, last).unwrap_or_else(|e| panic!("{}: {e}", r.file_name));
        let env = &p.pod.spec.as_ref().unwrap().containers[0].env;
        let id = env.iter().flatten().find(|e| e.name == "JAX_PROCESS_ID").and_then(|e| e.value.clone());
        assert_eq!(id, Some(last.to_string()), "{}", r.file_name);
    }
}

// ---------------------------------------------------------------------------------------------
// preview

/// `preview` on a TrainJob file against the built-in catalog's files: the pod, parsed, and the
/// comment header.
fn preview(trainjob: &str, args: &[&str]) -> (Value, String, support::Run) {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "job.yaml", trainjob);
    let catalog = root().join("catalog/runtimes").display().to_string();
    let mut all = vec!["preview", &file, "--runtimes", &catalog];
    all.extend_from_slice(args);
    let r = run(&all, None);
    assert_eq!(r.code, 0, "{}", r.all());
    let header: String = r.stdout.lines().take_while(|l| l.starts_with('#')).map(|l| format!("{l}\n")).collect();
    let pod = documents(&r.stdout).remove(0);
    (pod, header, r)
}

/// The `node` container of a Pod.
fn node(pod: &Value) -> &Value {
    support::container_node(&pod["spec"])
}

fn env(pod: &Value, name: &str) -> Option<String> {
    node(pod)["env"].as_array()?.iter().find(|e| e["name"] == name).and_then(|e| e["value"].as_str().map(str::to_string))
}

#[test]
fn preview_cpu_runtime_with_image_env_and_resources() {
    let job = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: cpu-job}
spec:
  runtimeRef: {name: jax-cpu}
  trainer:
    image: python:3.12
    command: [python, train.py]
    env: [{name: JAX_PLATFORMS, value: cpu}, {name: STEPS, value: '10'}]
    resourcesPerNode: {limits: {cpu: '8', memory: 32Gi}, requests: {cpu: '8', memory: 32Gi}}
";
    let (pod, header, _) = preview(job, &[]);
    assert_eq!(pod["kind"], "Pod");
    assert_eq!(node(&pod)["image"], "python:3.12");
    assert_eq!(node(&pod)["command"], json!(["python", "train.py"]));
    assert_eq!(node(&pod)["resources"]["limits"]["cpu"], "8");
    assert_eq!(node(&pod)["resources"]["requests"]["memory"], "32Gi");
    assert_eq!(env(&pod, "STEPS").as_deref(), Some("10"));
    assert_eq!(env(&pod, "JAX_NUM_PROCESSES").as_deref(), Some("1"));
    assert_eq!(env(&pod, "JAX_PROCESS_ID").as_deref(), Some("0"));
    assert_eq!(env(&pod, "JAX_COORDINATOR_ADDRESS").as_deref(), Some("cpu-job-node-0-0.cpu-job:29500"));
    assert_eq!(node(&pod)["ports"], json!([{"containerPort": 29500, "protocol": "TCP"}]));
    assert_eq!(pod["spec"]["hostname"], "cpu-job-node-0-0");
    assert_eq!(pod["spec"]["subdomain"], "cpu-job");
    assert!(header.contains("Kubeflow Trainer v2.3") && header.contains("predicted by jax-runtimes"), "{header}");
    assert!(header.contains("metadata.annotations['batch.kubernetes.io/job-completion-index']"), "{header}");
    assert!(header.contains("merged into the runtime's per resource"), "{header}");
}

#[test]
fn preview_gpu_runtime_on_more_nodes_shows_each_process() {
    let job = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: gpt, namespace: research}
spec:
  runtimeRef: {name: jax-gpu-h100-2nodes}
  trainer:
    numNodes: 4
    image: nvcr.io/nvidia/jax:25.10-py3
    env: [{name: NCCL_DEBUG, value: INFO}]
    resourcesPerNode: {limits: {memory: 512Gi}}
";
    for process in 0..4 {
        let p = process.to_string();
        let (pod, _, _) = preview(job, &["--process", &p]);
        assert_eq!(env(&pod, "JAX_NUM_PROCESSES").as_deref(), Some("4"), "numNodes 4 overrides the runtime's 2");
        assert_eq!(env(&pod, "JAX_PROCESS_ID").as_deref(), Some(p.as_str()));
        assert_eq!(env(&pod, "JOB_COMPLETION_INDEX").as_deref(), Some(p.as_str()));
        assert_eq!(env(&pod, "JAX_COORDINATOR_ADDRESS").as_deref(), Some("gpt-node-0-0.gpt:29500"));
        assert_eq!(env(&pod, "NCCL_DEBUG").as_deref(), Some("INFO"));
        assert_eq!(pod["spec"]["hostname"], format!("gpt-node-0-{process}"));
        assert_eq!(pod["metadata"]["namespace"], "research");
        assert_eq!(pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"], p);
        let limits = &node(&pod)["resources"]["limits"];
        assert_eq!((limits["nvidia.com/gpu"].as_str(), limits["memory"].as_str()), (Some("8"), Some("512Gi")), "v2.3 keeps the GPUs");
        assert!(pod["spec"]["tolerations"].as_array().unwrap().iter().any(|t| t["key"] == "nvidia.com/gpu"));
    }
    // v2.2 replaces the resources: the preview shows the GPU limit gone, and says why (exit 1).
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "job.yaml", job);
    let catalog = root().join("catalog/runtimes").display().to_string();
    let r = run(&["preview", &file, "--runtimes", &catalog, "--trainer-version", "v2.2"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    let pod = documents(&r.stdout).remove(0);
    assert_eq!(node(&pod)["resources"]["limits"], json!({"memory": "512Gi"}));
    assert!(r.stderr.contains("trainjob/accelerator-dropped"), "{}", r.all());
    assert!(r.stdout.contains("Kubeflow Trainer v2.2"), "{}", r.stdout);
}

#[test]
fn preview_tpu_multi_host_slice_with_env_and_resources() {
    let job = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: llama-tpu}
spec:
  runtimeRef: {name: jax-tpu-v5e-4x4}
  trainer:
    image: us-docker.pkg.dev/me/llama:1
    env: [{name: JAX_PLATFORMS, value: tpu}, {name: LIBTPU_INIT_ARGS, value: --xla_tpu_enable_latency_hiding_scheduler=true}]
    resourcesPerNode: {limits: {memory: 100Gi}, requests: {memory: 100Gi}}
";
    let (pod, header, _) = preview(job, &["--process", "3"]);
    assert_eq!(env(&pod, "JAX_NUM_PROCESSES").as_deref(), Some("4"), "v5e 4x4: 4 hosts");
    assert_eq!(env(&pod, "JAX_PROCESS_ID").as_deref(), Some("3"));
    assert_eq!(env(&pod, "JAX_PLATFORMS").as_deref(), Some("tpu"), "the TrainJob's env replaces the runtime's");
    assert_eq!(env(&pod, "LIBTPU_INIT_ARGS").as_deref(), Some("--xla_tpu_enable_latency_hiding_scheduler=true"));
    assert_eq!(node(&pod)["image"], "us-docker.pkg.dev/me/llama:1");
    let res = &node(&pod)["resources"];
    assert_eq!(res["limits"]["google.com/tpu"], "4");
    assert_eq!(res["limits"]["memory"], "100Gi");
    assert_eq!(pod["spec"]["nodeSelector"]["cloud.google.com/gke-tpu-topology"], "4x4");
    assert_eq!(pod["spec"]["nodeSelector"]["cloud.google.com/gke-tpu-accelerator"], "tpu-v5-lite-podslice");
    assert!(pod["spec"]["volumes"].as_array().is_some_and(|v| !v.is_empty()));
    assert_eq!(pod["metadata"]["annotations"]["alpha.jobset.sigs.k8s.io/exclusive-topology"], "cloud.google.com/gke-nodepool");
    assert!(header.contains("Exclusive placement"), "{header}");
    assert!(header.contains("process 3 of 4"), "{header}");
}

/// `preview --jobset`: the JobSet Trainer creates, from the model the pod comes from. Its trainer
/// job's pod template is the pod `preview` prints, apart from what JobSet and the Job controller
/// add (their labels, annotations, subdomain, hostname, the completion index); it is a valid
/// JobSet by JobSet v0.12.0's CRD (the upstream reference data, when there).
#[test]
fn preview_jobset_prints_the_jobset_the_pod_comes_from() {
    let job = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: llama-tpu, namespace: research}
spec:
  runtimeRef: {name: jax-tpu-v5e-4x4}
  trainer:
    image: us-docker.pkg.dev/me/llama:1
    env: [{name: JAX_PLATFORMS, value: tpu}]
    resourcesPerNode: {limits: {memory: 100Gi}}
";
    let (js, header, _) = preview(job, &["--jobset"]);
    assert_eq!((js["apiVersion"].as_str(), js["kind"].as_str()), (Some("jobset.x-k8s.io/v1alpha2"), Some("JobSet")));
    assert_eq!((js["metadata"]["name"].as_str(), js["metadata"]["namespace"].as_str()), (Some("llama-tpu"), Some("research")));
    assert_eq!(js["metadata"]["annotations"]["alpha.jobset.sigs.k8s.io/exclusive-topology"], "cloud.google.com/gke-nodepool");
    assert!(js["metadata"].get("ownerReferences").is_none(), "no uid to own it by");
    assert!(header.contains("The JobSet that Kubeflow Trainer v2.3") && header.contains("node (4 pods)"), "{header}");
    let jobs = js["spec"]["replicatedJobs"].as_array().unwrap();
    let node_job = jobs.iter().find(|j| j["name"] == "node").unwrap();
    assert_eq!((node_job["replicas"].as_i64(), node_job["template"]["spec"]["parallelism"].as_i64()), (Some(1), Some(4)));
    assert_eq!(node_job["template"]["spec"]["completions"].as_i64(), Some(4));

    // The pod of process 2 is the JobSet's pod template with what JobSet and the Job controller add.
    let (pod, _, _) = preview(job, &["--process", "2"]);
    let template = &node_job["template"]["spec"]["template"];
    let c = support::container_node(&template["spec"]);
    assert_eq!(c["image"], node(&pod)["image"]);
    assert_eq!(c["resources"], node(&pod)["resources"]);
    assert_eq!(c["resources"]["limits"]["memory"], "100Gi");
    for field in ["nodeSelector", "tolerations", "volumes", "affinity"] {
        assert_eq!(template["spec"].get(field), pod["spec"].get(field), "{field}");
    }
    let by_name = |env: &Value| -> Vec<(String, Value)> {
        env.as_array().into_iter().flatten().map(|e| (e["name"].as_str().unwrap().to_string(), e.clone())).collect()
    };
    let (in_jobset, in_pod) = (by_name(&c["env"]), by_name(&node(&pod)["env"]));
    for (name, e) in &in_jobset {
        let p = &in_pod.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} is in the pod")).1;
        if name == "JAX_PROCESS_ID" {
            // Set from the completion-index annotation in the JobSet; resolved in the pod.
            assert!(e["valueFrom"]["fieldRef"]["fieldPath"].as_str().unwrap().contains("job-completion-index"), "{e}");
            assert_eq!(p["value"], "2");
        } else {
            assert_eq!(e, p, "{name}");
        }
    }
    let added: Vec<&str> = in_pod.iter().map(|(n, _)| n.as_str()).filter(|n| !in_jobset.iter().any(|(m, _)| m == n)).collect();
    assert_eq!(added, ["JOB_COMPLETION_INDEX", "TPU_WORKER_ID", "TPU_WORKER_HOSTNAMES"], "the Job controller's and GKE's TPU webhook's");

    // The same TrainJob without `--jobset` prints what it printed before: a pod, exit 0.
    assert_eq!(pod["kind"], "Pod");

    // JobSet v0.12.0's CRD takes it.
    let Some(reference) = support::reference() else { return };
    let text = std::fs::read_to_string(reference.join("jobset-v0.12.0/jobset.x-k8s.io_jobsets.yaml")).unwrap();
    let crd = jax_runtimes::yaml::parse_one(&text).unwrap();
    let version = crd["spec"]["versions"].as_array().unwrap().iter().find(|v| v["name"] == "v1alpha2").unwrap();
    let validator = jsonschema::validator_for(&version["schema"]["openAPIV3Schema"]).unwrap();
    let errors: Vec<String> = validator.iter_errors(&js).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "the JobSet is refused by JobSet v0.12.0's CRD:\n{}", errors.join("\n"));
}

#[test]
fn preview_says_when_the_trainjob_env_replaces_the_plugins() {
    let job = TPU_JOB.replace("NODES", "4") + "    env: [{name: JAX_PROCESS_ID, value: '0'}]\n";
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "job.yaml", &job);
    let catalog = root().join("catalog/runtimes").display().to_string();
    let r = run(&["preview", &file, "--runtimes", &catalog, "--process", "2"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    let pod = documents(&r.stdout).remove(0);
    assert_eq!(env(&pod, "JAX_PROCESS_ID").as_deref(), Some("0"), "the TrainJob's value wins (builder.go Trainer runs after the plugin)");
    assert!(r.stdout.contains("JAX_PROCESS_ID: the TrainJob's value, not the plugin's"), "{}", r.stdout);
    assert!(r.stderr.contains("trainjob/jax-env"), "{}", r.stderr);
}

#[test]
fn preview_refuses_what_it_cannot_show() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = root().join("catalog/runtimes").display().to_string();
    let file = write(dir.path(), "job.yaml", &TPU_JOB.replace("NODES", "4"));
    let r = run(&["preview", &file, "--runtimes", &catalog, "--process", "4"], None);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stderr.contains("process 4 does not exist: the TrainJob runs 4 processes, 0 to 3"), "{}", r.stderr);
    let r = run(&["preview", &file], None);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("trainjob/runtime-unchecked") && r.stderr.contains("no preview") && r.stdout.is_empty(), "{}", r.all());
    let two = write(
        dir.path(),
        "two.yaml",
        &format!("{}---\n{}", TPU_JOB.replace("NODES", "4"), TPU_JOB.replace("NODES", "4").replace("llama", "other")),
    );
    let r = run(&["preview", &two, "--runtimes", &catalog], None);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stderr.contains("pick one with --name"), "{}", r.stderr);
    let r = run(&["preview", &two, "--runtimes", &catalog, "--name", "other"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("generateName: other-node-0-0-"), "{}", r.stdout);
}

// ---------------------------------------------------------------------------------------------
// The typed TrainJob model against the Trainer v2.3.0 TrainJob CRD

#[test]
fn the_typed_trainjob_model_finds_what_the_trainjob_crd_finds() {
    let Some(reference) = support::reference() else { return };
    let crd = reference.join("kubeflow-trainer-v2.3.0/crds/trainer.kubeflow.org_trainjobs.yaml");
    let with_crd = Options::with_crd_files(&[crd]).expect("the TrainJob CRD loads");
    let mut inputs: Vec<(String, Value)> = corpus().iter().map(|c| (c.name.clone(), trainjob(&c.trainjob))).collect();
    let job = |spec: Value| trainjob(&json!({"metadata": {"name": "j"}, "spec": spec}));
    for (name, spec) in [
        ("command as a string", json!({"runtimeRef": {"name": "x"}, "trainer": {"command": "python"}})),
        ("a patch without a manager", json!({"runtimeRef": {"name": "x"}, "runtimePatches": [{"trainingRuntimeSpec": {}}]})),
        ("suspend as a word", json!({"runtimeRef": {"name": "x"}, "suspend": "yes"})),
        ("no runtimeRef name", json!({"runtimeRef": {"kind": "ClusterTrainingRuntime"}})),
        ("deadline of zero", json!({"runtimeRef": {"name": "x"}, "activeDeadlineSeconds": 0})),
        (
            "a typo in a pod patch",
            json!({"runtimeRef": {"name": "x"}, "runtimePatches": [{"manager": "a.io/b",
            "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {"nodeSelectr": {}}}}}}]}}}}]}),
        ),
        (
            "an image field in a container patch",
            json!({"runtimeRef": {"name": "x"}, "runtimePatches": [{"manager": "a.io/b",
            "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {"containers": [{"name": "node", "image": "x"}]}}}}}]}}}}]}),
        ),
        (
            "seventeen patches",
            json!({"runtimeRef": {"name": "x"}, "runtimePatches": (0..17).map(|i| json!({"manager": format!("a.io/m{i}")})).collect::<Vec<_>>()}),
        ),
        (
            "initializer with a storage uri",
            json!({"runtimeRef": {"name": "x"}, "initializer": {"dataset": {"storageUri": "hf://a/b", "env": [{"name": "A", "value": "b"}]}}}),
        ),
        ("the status kubectl prints", json!({"runtimeRef": {"name": "x"}})),
    ] {
        let mut tj = job(spec);
        if name.starts_with("the status") {
            tj["status"] = json!({"conditions": [{"type": "Created", "status": "True", "reason": "JobSetCreated", "message": "ok",
                "lastTransitionTime": "2026-01-01T00:00:00Z"}], "jobsStatus": [{"name": "node", "ready": 1, "succeeded": 0, "failed": 0, "active": 1, "suspended": 0}]});
        }
        inputs.push((name.to_string(), tj));
    }
    let fields = |v: &Value, opts: &Options, structural: &dyn Fn(&str) -> bool| -> BTreeSet<String> {
        let ctx = validate::trainjob::Context { runtimes: &[], version: None, release: validate::structure::DEFAULT_RELEASE };
        let crd = opts.crd_for("trainer.kubeflow.org/v1alpha1", "TrainJob").map(|(_, v)| v);
        let mut found = validate::trainjob::check(v, crd, !opts.crds.is_empty(), &ctx);
        if crd.is_none() {
            // What `validate` adds without a CRD: the TrainJob CRD's CEL rules (src/validate/mod.rs).
            found.extend(validate::cel::builtin_trainjob(v, validate::structure::DEFAULT_RELEASE));
        }
        found
            .into_iter()
            .filter(|d| structural(d.rule.id) && d.field.as_deref().is_some_and(|f| !f.is_empty()))
            .map(|d| d.field.unwrap_or_default())
            .collect()
    };
    let mut disagree = Vec::new();
    let mut found = 0;
    for (name, v) in &inputs {
        // Without a CRD the quantity pattern is `k8s/quantity`'s.
        // The CRD's name rules are `trainjob/name`'s without a CRD.
        let typed = fields(v, &Options::default(), &|id| {
            id.starts_with("schema/") || id == "k8s/quantity" || id == "trainjob/storage-uri" || id == "trainjob/name"
        });
        let theirs = fields(v, &with_crd, &|id| id.starts_with("crd/") || id == "cel/rule" || id == "trainjob/name");
        found += usize::from(!typed.is_empty());
        if typed != theirs {
            disagree.push(format!("{name}:\n  typed model: {typed:?}\n  CRD:         {theirs:?}"));
        }
    }
    assert!(disagree.is_empty(), "the typed TrainJob model and the CRD disagree:\n{}", disagree.join("\n"));
    assert!(found >= 8, "the comparison is not vacuous: {found} inputs with structural findings");
}

/// `generateName` (issue 41): the API server names the object before it validates it, so a
/// TrainJob with `generateName` and no name is legal, its prefix is checked, and its generated
/// name meets the CRD's rules; the verdict is the same with and without `--crd`.
#[test]
fn generate_name_gets_the_same_verdict_with_and_without_the_trainjob_crd() {
    let Some(reference) = support::reference() else { return };
    let crd = reference.join("kubeflow-trainer-v2.3.0/crds/trainer.kubeflow.org_trainjobs.yaml");
    let with_crd = Options::with_crd_files(&[crd]).expect("the TrainJob CRD loads");
    let verdict = |metadata: Value, opts: &Options| -> Vec<(Severity, String)> {
        let tj = trainjob(&json!({"metadata": metadata, "spec": {"runtimeRef": {"name": "x"}}}));
        let ctx = validate::trainjob::Context { runtimes: &[], version: None, release: validate::structure::DEFAULT_RELEASE };
        let crd = opts.crd_for("trainer.kubeflow.org/v1alpha1", "TrainJob").map(|(_, v)| v);
        let mut v: Vec<(Severity, String)> = validate::trainjob::check(&tj, crd, !opts.crds.is_empty(), &ctx)
            .into_iter()
            .filter(|d| d.severity >= Severity::Warning && d.rule.id != "trainjob/runtime-unchecked")
            .map(|d| (d.severity, d.field.unwrap_or_default()))
            .collect();
        v.sort();
        v
    };
    for (metadata, want) in [
        (json!({"generateName": "llama-"}), vec![]),
        (json!({"generateName": "a".repeat(80)}), vec![]),
        (json!({"namespace": "default"}), vec![(Severity::Error, "metadata.name".to_string())]),
        (json!({"generateName": "My_Job-"}), vec![(Severity::Error, "metadata.generateName".to_string())]),
        (json!({"generateName": "7b-job-"}), vec![(Severity::Error, "metadata.generateName".to_string())]),
        (json!({"generateName": "job.v1-"}), vec![(Severity::Error, "metadata.generateName".to_string())]),
        (json!({"name": "job", "generateName": "Not_Used-"}), vec![]),
    ] {
        let without = verdict(metadata.clone(), &Options::default());
        assert_eq!(without, want, "{metadata} without --crd");
        let with = verdict(metadata.clone(), &with_crd);
        // The CRD's CEL name rules report at the object; ours at the field: compare severities.
        let sev = |v: &[(Severity, String)]| v.iter().map(|(s, _)| *s).collect::<Vec<_>>();
        assert_eq!(sev(&with), sev(&want), "{metadata} with --crd: {with:?}");
    }
}

#[test]
fn extreme_trainjobs_are_reported_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let runtimes = root().join("tests/validate/base").display().to_string();
    let jobs = [
        "spec: {runtimeRef: {name: jax-gpu-h100-2nodes}, trainer: {numNodes: 2147483647}}",
        "spec: {runtimeRef: {name: jax-gpu-h100-2nodes}, trainer: {numNodes: -2147483648}}",
        "spec: {runtimeRef: {name: jax-tpu-v5e-2x4}, trainer: {resourcesPerNode: {limits: {google.com/tpu: 1e9, cpu: 1Ei}, requests: {cpu: 0.000000001}}}}",
        "spec: {runtimeRef: {name: jax-tpu-v5e-2x4}, trainer: {env: [{name: JAX_PROCESS_ID, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]}}",
        "spec: {runtimeRef: {name: ''}, trainer: {}}",
        "spec: {runtimeRef: {name: jax-gpu-h100-2nodes}, runtimePatches: [{manager: 'é/ü', trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: node}, {name: node}]}}}}]}",
        "spec: {runtimeRef: {name: torch-with-initializers}, trainer: {numNodes: 3}}",
    ];
    for (i, spec) in jobs.iter().enumerate() {
        let text = format!("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {{name: j{i}}}\n{spec}\n");
        let file = write(dir.path(), &format!("j{i}.yaml"), &text);
        for args in [
            vec!["validate", &file, "--runtimes", &runtimes],
            vec!["preview", &file, "--runtimes", &runtimes, "--process", "9223372036854775807"],
        ] {
            let r = run(&args, None);
            assert!([0, 1, 2].contains(&r.code) && !r.stderr.contains("panicked"), "{spec}: {args:?}\n{}", r.all());
        }
    }
}

/// A runtime that sets a JAX plugin variable itself: render (from a `JaxRuntimeDefaults`),
/// validate (on the rendered runtime) and preview say one sentence, and preview's pod agrees
/// with it: Trainer's plugin replaces the value by name only for a TrainJob with `spec.trainer`
/// (kubeflow/trainer v2.3.0 pkg/runtime/framework/plugins/jax/jax.go EnforceMLPolicy).
#[test]
fn render_validate_and_preview_say_the_same_of_a_plugin_variable_the_runtime_sets() {
    let said = jax_runtimes::trainer::facts().jax.set_by_runtime("JAX_PROCESS_ID");
    let dir = tempfile::tempdir().unwrap();
    let catalog = write(
        dir.path(),
        "catalog.yaml",
        "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeDefaults\nmetadata: {name: d}\nspec:\n  env: [{name: JAX_PROCESS_ID, value: \"0\"}]\n---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: jax-cpu}\nspec:\n  numNodes: 2\n  accelerator: {cpu: {}}\n",
    );
    // render reports on stderr (its product is the YAML), validate on stdout (the report is its product).
    let findings = |r: &support::Run, rule: &str| -> Vec<String> {
        let report = if r.stdout.trim_start().starts_with('[') { &r.stdout } else { &r.stderr };
        let all: Vec<Value> = serde_json::from_str(report).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
        all.iter().filter(|f| f["rule"] == rule).map(|f| f["message"].as_str().unwrap().to_string()).collect()
    };
    let r = run(&["render", &catalog, "--format", "json"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let rendered = findings(&r, "catalog/jax-plugin-env");
    assert_eq!(rendered.len(), 1, "{}", r.all());
    assert!(rendered[0].ends_with(&said), "render: {}", rendered[0]);
    let runtime = write(dir.path(), "runtime.yaml", &r.stdout);
    let r = run(&["validate", &runtime, "--format", "json"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(findings(&r, "jax/plugin-env"), std::slice::from_ref(&said), "validate: {}", r.all());
    for (name, trainer, gets, value) in [
        // Process 1's pod: the plugin's fieldRef resolves to its completion index.
        ("with", "  trainer: {numNodes: 2}\n", "so the pod gets the plugin's value", "1"),
        ("without", "", "so the pod gets the runtime's value", "0"),
    ] {
        let job = write(
            dir.path(),
            "job.yaml",
            &format!("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {{name: {name}}}\nspec:\n  runtimeRef: {{name: jax-cpu}}\n{trainer}"),
        );
        let r = run(&["preview", &job, "--runtimes", &runtime, "--process", "1"], None);
        assert_eq!(r.code, 0, "{}", r.all());
        let header: String = r.stdout.lines().take_while(|l| l.starts_with('#')).collect::<Vec<_>>().join("\n");
        assert!(header.contains(&format!("sets JAX_PROCESS_ID: {said}; this TrainJob")) && header.contains(gets), "{name}: {header}");
        let pod = documents(&r.stdout).remove(0);
        let e = node(&pod)["env"].as_array().unwrap().iter().find(|e| e["name"] == "JAX_PROCESS_ID").cloned().unwrap();
        assert_eq!(e["value"].as_str(), Some(value), "{name}: {e}");
    }
}
