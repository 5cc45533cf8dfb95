//! Production runtimes: `spec.podTemplate` merged into the generated pod (each merge rule, the
//! contradictions of the tool's own fields with both places named), and the rendered result
//! checked by `validate --crd` with the upstream CRDs. The Kubeflow SDK and the real JAX launch of
//! such a runtime are in tests/sdk.rs and tests/e2e_jax.rs (`e2e-production` of the test catalog).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use serde_json::Value;
use support::{documents, node_pod, reference_crd_files, run, Run};

const HEAD: &str = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: prod}\nspec:\n";

/// Renders `text` (a catalog) from a temp file; the run and the file's path.
fn render_text(text: &str) -> (Run, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("catalog.yaml");
    std::fs::write(&file, text).unwrap();
    (run(&["render", file.to_str().unwrap()], None), dir)
}

fn rendered(text: &str) -> Value {
    let (r, _dir) = render_text(text);
    assert_eq!(r.code, 0, "{}", r.all());
    documents(&r.stdout).remove(0)
}

fn tpu(pod_template: &str) -> String {
    format!("{HEAD}  accelerator: {{tpu: {{type: v5e, topology: 4x4}}}}\n  podTemplate:\n{pod_template}")
}

fn cpu(pod_template: &str) -> String {
    format!("{HEAD}  accelerator: {{cpu: {{}}}}\n  resources: {{requests: {{cpu: \"2\"}}}}\n  podTemplate:\n{pod_template}")
}

#[test]
fn containers_volumes_mounts_and_env_merge_by_name_and_sidecars_are_added_whole() {
    let rt = rendered(&tpu("    spec:
      volumes:
      - {name: ckpt, persistentVolumeClaim: {claimName: ckpt}}
      containers:
      - name: node
        env: [{name: CKPT, value: /ckpt}, {name: JAX_PLATFORMS, value: 'tpu,cpu'}]
        volumeMounts: [{name: ckpt, mountPath: /ckpt}]
      - {name: proxy, image: envoyproxy/envoy:v1.31.0}
"));
    let pod = node_pod(&rt);
    let node = &pod["containers"][0];
    assert_eq!(node["name"], "node");
    let env: Vec<&str> = node["env"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(env, ["JAX_PLATFORMS", "CKPT"], "the generated env keeps its place, the fragment's is added, an equal one is not repeated");
    let mounts: Vec<&str> = node["volumeMounts"].as_array().unwrap().iter().map(|m| m["mountPath"].as_str().unwrap()).collect();
    assert_eq!(mounts, ["/dev/shm", "/ckpt"]);
    let volumes: Vec<&str> = pod["volumes"].as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(volumes, ["dshm", "ckpt"]);
    assert_eq!(pod["containers"][1]["name"], "proxy");
    assert_eq!(node["resources"]["limits"]["google.com/tpu"], "4", "the accelerator stays the generator's");
}

#[test]
fn tolerations_and_pull_secrets_are_appended_without_duplicates_and_maps_merge() {
    let rt = rendered(&tpu("    metadata:
      labels: {team: ml}
      annotations: {example.com/cost-center: research}
    spec:
      priorityClassName: high
      imagePullSecrets: [{name: a}]
      tolerations:
      - {key: google.com/tpu, operator: Exists, effect: NoSchedule}
      - {key: cloud.google.com/gke-spot, operator: Equal, value: 'true', effect: NoSchedule}
      nodeSelector: {cloud.google.com/gke-spot: 'true', cloud.google.com/gke-tpu-topology: 4x4}
"));
    let pod = node_pod(&rt);
    assert_eq!(pod["tolerations"].as_array().unwrap().len(), 2, "{}", pod["tolerations"]);
    assert_eq!(pod["imagePullSecrets"].as_array().unwrap().len(), 1);
    assert_eq!(pod["priorityClassName"], "high");
    assert_eq!(pod["nodeSelector"]["cloud.google.com/gke-spot"], "true");
    assert_eq!(pod["nodeSelector"]["cloud.google.com/gke-tpu-accelerator"], "tpu-v5-lite-podslice");
    let meta = &rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"];
    assert_eq!(meta["labels"]["team"], "ml");
    assert_eq!(meta["annotations"]["example.com/cost-center"], "research");
}

#[test]
fn the_runtimes_fragment_wins_over_the_defaults_fragment() {
    let defaults = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeDefaults\nmetadata: {name: d}\nspec:\n  podTemplate:\n    spec:\n      priorityClassName: low\n      imagePullSecrets: [{name: shared}]\n---\n";
    let rt = rendered(&format!(
        "{defaults}{}",
        cpu("    spec:\n      priorityClassName: high\n      imagePullSecrets: [{name: shared}, {name: own}]\n")
    ));
    let pod = node_pod(&rt);
    assert_eq!(pod["priorityClassName"], "high");
    assert_eq!(pod["imagePullSecrets"], serde_json::json!([{"name": "shared"}, {"name": "own"}]));
}

/// The run fails with `catalog/pod-template-conflict` at `line` (in the catalog file), and the
/// message names the generated side.
fn conflict(text: &str, line: usize, generated: &str) -> String {
    let (r, _dir) = render_text(text);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("error[catalog/pod-template-conflict]"), "{}", r.all());
    assert!(r.stderr.contains(&format!("catalog.yaml:{line}:")), "line {line}:\n{}", r.all());
    assert!(r.stderr.contains(generated), "`{generated}` in:\n{}", r.all());
    assert!(r.stdout.is_empty(), "nothing is written");
    r.stderr
}

#[test]
fn another_tpu_count_is_an_error_naming_both_places() {
    let err = conflict(
        &tpu("    spec:\n      containers:\n      - name: node\n        resources: {limits: {google.com/tpu: 8}}\n"),
        10,
        "from `spec.accelerator` (tpu v5e 4x4",
    );
    assert!(err.contains("spec.podTemplate.spec.containers[0].resources.limits.google.com/tpu"), "{err}");
    assert!(
        err.contains("spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources.limits.google.com/tpu"),
        "{err}"
    );
    // The same count in another spelling agrees.
    rendered(&tpu("    spec:\n      containers:\n      - name: node\n        resources: {limits: {google.com/tpu: 4}}\n"));
}

#[test]
fn a_different_tpu_topology_selector_is_an_error_naming_both_places() {
    let err = conflict(
        &tpu("    spec:\n      nodeSelector: {cloud.google.com/gke-tpu-topology: 2x2}\n"),
        8,
        "the TPU topology of `spec.accelerator.tpu`",
    );
    assert!(err.contains("sets `2x2` where the generator sets `4x4`"), "{err}");
}

#[test]
fn the_jax_plugins_env_in_the_pod_template_is_the_warning_spec_env_gets() {
    // The same fact as `spec.env` and `validate`'s `jax/plugin-env`: one rule, one sentence; a
    // warning, as the plugin replaces the value for a TrainJob with `spec.trainer`.
    let (r, _dir) = render_text(&cpu(
        "    spec:\n      containers:\n      - name: node\n        env: [{name: JAX_COORDINATOR_ADDRESS, value: 'x:1'}]\n",
    ));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stderr.contains("warning[catalog/jax-plugin-env]: ") && r.stderr.contains("catalog.yaml:11:"), "{}", r.all());
    assert!(!r.stderr.contains("[jax/plugin-env]"), "reported once, in the catalog's terms: {}", r.all());
    assert!(
        r.stderr.contains(&format!(
            "set in the pod template: {}",
            jax_runtimes::trainer::facts().jax.set_by_runtime("JAX_COORDINATOR_ADDRESS")
        )),
        "{}",
        r.all()
    );
    assert!(r.stderr.contains("spec.podTemplate.spec.containers[0].env[0].name"), "{}", r.all());
}

#[test]
fn the_tpu_webhooks_env_is_an_error() {
    conflict(
        &tpu("    spec:\n      containers:\n      - name: node\n        env: [{name: TPU_WORKER_ID, value: '0'}]\n"),
        10,
        "GKE's TPU webhook",
    );
}

#[test]
fn an_accelerator_the_generator_did_not_choose_is_an_error() {
    conflict(
        &cpu("    spec:\n      containers:\n      - name: node\n        resources: {limits: {nvidia.com/gpu: 1}}\n"),
        11,
        "from `spec.accelerator` only",
    );
}

#[test]
fn the_image_command_shared_memory_and_service_account_are_the_generators() {
    conflict(&cpu("    spec:\n      containers:\n      - {name: node, image: other:1}\n"), 10, "from `spec.image`");
    conflict(
        &format!("{HEAD}  accelerator: {{cpu: {{}}}}\n  serviceAccountName: a\n  podTemplate:\n    spec: {{serviceAccountName: b}}\n"),
        8,
        "from `spec.serviceAccountName`",
    );
    // Another volume at /dev/shm: volume mounts are keyed by their path.
    conflict(
        &tpu("    spec:\n      containers:\n      - name: node\n        volumeMounts: [{name: other, mountPath: /dev/shm}]\n"),
        10,
        "from `spec.sharedMemory`",
    );
}

#[test]
fn a_misspelt_fragment_field_is_refused_with_did_you_mean() {
    let (r, _dir) = render_text(&cpu("    spec:\n      priorityClass: high\n"));
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("catalog/unknown-field") && r.stderr.contains("priorityClassName"), "{}", r.all());
}

#[test]
fn a_pod_template_runtime_passes_validate_with_the_upstream_crds() {
    let Some(crds) = reference_crd_files() else { return };
    let text = rendered(&tpu("    metadata: {annotations: {example.com/cost-center: research}}
    spec:
      priorityClassName: high
      volumes: [{name: ckpt, persistentVolumeClaim: {claimName: ckpt}}]
      containers:
      - {name: node, volumeMounts: [{name: ckpt, mountPath: /ckpt}]}
      - {name: sync, image: busybox:1.36, volumeMounts: [{name: ckpt, mountPath: /ckpt, readOnly: true}]}
"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rt.yaml");
    std::fs::write(&file, serde_json::to_string_pretty(&text).unwrap()).unwrap();
    let crd = crds[0].display().to_string();
    let r = run(&["validate", "--crd", &crd, file.to_str().unwrap()], None);
    assert_eq!(r.code, 0, "{}", r.all());
}

#[test]
fn the_merged_pod_goes_through_the_kubernetes_checks() {
    // A mount of a volume the pod does not have: the kubelet never starts the pod.
    let (r, _dir) =
        render_text(&cpu("    spec:\n      containers:\n      - name: node\n        volumeMounts: [{name: nope, mountPath: /x}]\n"));
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("nope"), "{}", r.all());
}

// ---------------------------------------------------------------------------------------------
// GKE's TPU webhook: what preview adds, what validate flags

/// A TrainJob on the built-in runtime `runtime`, with `trainer` as its `spec.trainer` (flow YAML).
fn trainjob(runtime: &str, trainer: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tj.yaml");
    std::fs::write(
        &file,
        format!("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {{name: llama, namespace: ml}}\nspec:\n  runtimeRef: {{name: {runtime}}}\n  trainer: {trainer}\n"),
    )
    .unwrap();
    let path = file.to_str().unwrap().to_string();
    (dir, path)
}

fn env_of(pod: &Value, name: &str) -> Option<String> {
    pod["spec"]["containers"][0]["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .map(|e| e["value"].as_str().unwrap().to_string())
}

#[test]
fn preview_adds_the_tpu_webhooks_env_to_multi_host_tpu_pods_marked_as_gkes() {
    let (_dir, tj) = trainjob("jax-tpu-v5e-4x4", "{}");
    let r = run(&["preview", &tj, "--runtimes", "catalog/runtimes", "--process", "2"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let pod = documents(&r.stdout).remove(0);
    assert_eq!(env_of(&pod, "TPU_WORKER_ID").as_deref(), Some("2"));
    // 4 hosts: the pods' hostnames under the JobSet's subdomain, by index.
    assert_eq!(
        env_of(&pod, "TPU_WORKER_HOSTNAMES").as_deref(),
        Some("llama-node-0-0.llama,llama-node-0-1.llama,llama-node-0-2.llama,llama-node-0-3.llama")
    );
    assert!(r.stdout.contains("# From GKE's TPU webhook"), "{}", r.stdout);
}

#[test]
fn preview_adds_nothing_to_single_host_tpu_pods_or_cpu_pods() {
    for runtime in ["jax-tpu-v5e-2x2", "jax-cpu-multinode"] {
        let (_dir, tj) = trainjob(runtime, "{}");
        let r = run(&["preview", &tj, "--runtimes", "catalog/runtimes"], None);
        assert_eq!(r.code, 0, "{}", r.all());
        let pod = documents(&r.stdout).remove(0);
        assert_eq!(env_of(&pod, "TPU_WORKER_ID"), None, "{runtime}");
        assert!(!r.stdout.contains("TPU webhook"), "{runtime}");
    }
}

#[test]
fn validate_flags_a_trainjob_that_sets_the_webhooks_env() {
    let (_dir, tj) = trainjob("jax-tpu-v5e-4x4", "{env: [{name: TPU_WORKER_HOSTNAMES, value: a,b}]}");
    let r = run(&["validate", &tj, "--runtimes", "catalog/runtimes", "--format", "json"], None);
    assert!(r.stdout.contains("tpu/webhook-env"), "{}", r.all());
}

#[test]
fn validate_flags_a_runtime_that_sets_the_webhooks_env_and_a_single_host_pod_that_relies_on_it() {
    let rt = |name: &str, tpu: &str| {
        let mut v =
            rendered(&format!("{HEAD}  accelerator: {{tpu: {tpu}}}\n  command: [sh, -c, 'python train.py --worker $(TPU_WORKER_ID)']\n"));
        v["metadata"]["name"] = Value::from(name);
        v
    };
    let dir = tempfile::tempdir().unwrap();
    let mut multi = rt("multi", "{type: v5e, topology: 4x4}");
    let node = &mut multi["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0];
    node["env"].as_array_mut().unwrap().push(serde_json::json!({"name": "TPU_WORKER_ID", "value": "0"}));
    let single = rt("single", "{type: v5e, topology: 2x2}");
    for (name, doc, rule) in [("multi", &multi, "tpu/webhook-env"), ("single", &single, "tpu/webhook-single-host")] {
        let file = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&file, serde_json::to_string_pretty(doc).unwrap()).unwrap();
        let r = run(&["validate", file.to_str().unwrap(), "--format", "json"], None);
        assert!(r.stdout.contains(rule), "{name}: {}", r.all());
    }
    // The multi-host runtime's own reference is fine: the webhook sets the variable there.
    let clean = rt("clean", "{type: v5e, topology: 4x4}");
    let file = dir.path().join("clean.yaml");
    std::fs::write(&file, serde_json::to_string_pretty(&clean).unwrap()).unwrap();
    let r = run(&["validate", file.to_str().unwrap(), "--format", "json"], None);
    assert!(!r.stderr.contains("tpu/webhook"), "{}", r.all());
}

// ---------------------------------------------------------------------------------------------
// spec.initializers: Trainer's dataset and model initializer jobs

const INIT: &str = "  initializers:\n    dataset: {storageUri: 'hf://tatsu-lab/alpaca'}\n    model:\n      storageUri: 'hf://google/gemma-2b'\n      env: [{name: HF_TOKEN, valueFrom: {secretKeyRef: {name: hf, key: token}}}]\n";

fn with_initializers(accelerator: &str, extra: &str) -> Value {
    rendered(&format!("{HEAD}  accelerator: {accelerator}\n{INIT}{extra}"))
}

fn job<'a>(rt: &'a Value, name: &str) -> &'a Value {
    rt["spec"]["template"]["spec"]["replicatedJobs"].as_array().unwrap().iter().find(|j| j["name"] == name).unwrap()
}

#[test]
fn initializers_render_as_trainer_expects_them() {
    let rt = with_initializers("{tpu: {type: v5e, topology: 2x2}}", "");
    let jobs: Vec<&str> =
        rt["spec"]["template"]["spec"]["replicatedJobs"].as_array().unwrap().iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(jobs, ["dataset-initializer", "model-initializer", "node"], "JobSet needs a job's dependencies listed before it");
    for step in ["dataset-initializer", "model-initializer"] {
        let j = job(&rt, step);
        assert_eq!(j["template"]["metadata"]["labels"]["trainer.kubeflow.org/trainjob-ancestor-step"], step);
        let c = &j["template"]["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(c["name"], step);
        assert_eq!(c["image"], format!("ghcr.io/kubeflow/trainer/{step}:v2.3.0"));
        assert_eq!(c["volumeMounts"], serde_json::json!([{"name": "initializer", "mountPath": "/workspace"}]));
        assert_eq!(c["env"][0]["name"], "STORAGE_URI");
    }
    assert_eq!(job(&rt, "model-initializer")["template"]["spec"]["template"]["spec"]["containers"][0]["env"][1]["name"], "HF_TOKEN");
    let node = job(&rt, "node");
    assert_eq!(
        node["dependsOn"],
        serde_json::json!([{"name": "dataset-initializer", "status": "Complete"}, {"name": "model-initializer", "status": "Complete"}])
    );
    let mounts = &node["template"]["spec"]["template"]["spec"]["containers"][0]["volumeMounts"];
    assert!(mounts.as_array().unwrap().iter().any(|m| m["name"] == "initializer" && m["mountPath"] == "/workspace"), "{mounts}");
    let claim = &rt["spec"]["template"]["spec"]["volumeClaimPolicies"][0]["templates"][0];
    assert_eq!(claim["metadata"]["name"], "initializer");
    assert_eq!(claim["spec"]["accessModes"], serde_json::json!(["ReadWriteOnce"]));
    assert_eq!(claim["spec"]["resources"]["requests"]["storage"], "20Gi");
}

#[test]
fn a_multi_node_runtime_shares_the_claim_and_an_existing_claim_is_mounted_everywhere() {
    let rt = with_initializers("{cpu: {}}\n  numNodes: 2", "");
    let claim = &rt["spec"]["template"]["spec"]["volumeClaimPolicies"][0]["templates"][0];
    assert_eq!(claim["spec"]["accessModes"], serde_json::json!(["ReadWriteMany"]), "every trainer pod mounts it");
    let rt = with_initializers("{cpu: {}}", "    volume: {persistentVolumeClaim: models}\n");
    assert!(rt["spec"]["template"]["spec"]["volumeClaimPolicies"].is_null());
    for step in ["dataset-initializer", "model-initializer", "node"] {
        let vols = &job(&rt, step)["template"]["spec"]["template"]["spec"]["volumes"];
        assert!(
            vols.as_array().unwrap().iter().any(|v| v["name"] == "initializer" && v["persistentVolumeClaim"]["claimName"] == "models"),
            "{step}: {vols}"
        );
    }
}

#[test]
fn initializer_mistakes_are_errors_at_their_field() {
    let bad = |init: &str, field: &str| {
        let (r, _dir) = render_text(&format!("{HEAD}  accelerator: {{cpu: {{}}}}\n  numNodes: 2\n  initializers:\n{init}"));
        assert_eq!(r.code, 1, "{}", r.all());
        assert!(r.stderr.contains("error[catalog/initializer]") && r.stderr.contains(field), "`{field}`:\n{}", r.all());
    };
    bad("    model: {storageUri: 'gs://bucket/model'}\n", "spec.initializers.model.storageUri");
    bad("    volume: {size: 5Gi}\n", "spec.initializers`");
    bad("    dataset: {storageUri: 'hf://a/b'}\n    volume: {accessModes: [ReadWriteOnce]}\n", "spec.initializers.volume.accessModes");
    bad(
        "    dataset: {storageUri: 'hf://a/b'}\n    volume: {persistentVolumeClaim: Models_1}\n",
        "spec.initializers.volume.persistentVolumeClaim",
    );
    bad("    dataset: {env: [{name: STORAGE_URI, value: 'hf://a/b'}]}\n", "spec.initializers.dataset.env[0].name");
}

#[test]
fn an_initializer_runtime_passes_the_upstream_crds_and_preview_shows_the_jobs_with_the_trainjobs_source() {
    let rt = with_initializers("{tpu: {type: v5e, topology: 2x2}}", "");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rt.yaml");
    std::fs::write(&file, serde_json::to_string_pretty(&rt).unwrap()).unwrap();
    if let Some(crds) = reference_crd_files() {
        let r = run(&["validate", "--crd", &crds[0].display().to_string(), file.to_str().unwrap()], None);
        assert_eq!(r.code, 0, "{}", r.all());
    }
    let tj = dir.path().join("tj.yaml");
    std::fs::write(
        &tj,
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: ft, namespace: ml}\nspec:\n  runtimeRef: {name: prod}\n  initializer:\n    dataset: {storageUri: 'hf://other/data'}\n  trainer: {}\n",
    )
    .unwrap();
    let r = run(&["validate", tj.to_str().unwrap(), "--runtimes", file.to_str().unwrap()], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let r = run(&["preview", tj.to_str().unwrap(), "--runtimes", file.to_str().unwrap()], None);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("starts once these jobs are: dataset-initializer (Complete), model-initializer (Complete)"), "{}", r.stdout);
    assert!(r.stdout.contains("STORAGE_URI=hf://other/data"), "the TrainJob's source replaces the runtime's:\n{}", r.stdout);
    assert!(r.stdout.contains("STORAGE_URI=hf://google/gemma-2b"), "{}", r.stdout);
}

// ---------------------------------------------------------------------------------------------
// spec.storage: PVCs and Cloud Storage FUSE

#[test]
fn a_gcs_bucket_gets_the_drivers_annotation_csi_attributes_and_sidecar_annotations() {
    let rt = rendered(&format!(
        "{HEAD}  accelerator: {{tpu: {{type: v5e, topology: 4x4}}}}
  storage:
  - name: data
    mountPath: /data
    use: data
    gcs: {{bucket: 'gs://my-data', onlyDir: imagenet, mountOptions: [implicit-dirs], sidecarResources: {{limits: {{memory: '0'}}, requests: {{cpu: 500m}}}}}}
  - {{name: checkpoints, mountPath: /checkpoints, persistentVolumeClaim: ckpt}}
"
    ));
    let tmpl = &rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"];
    let a = &tmpl["metadata"]["annotations"];
    assert_eq!(a["gke-gcsfuse/volumes"], "true");
    assert_eq!(a["gke-gcsfuse/memory-limit"], "0");
    assert_eq!(a["gke-gcsfuse/cpu-request"], "500m");
    let vols = tmpl["spec"]["volumes"].as_array().unwrap();
    let data = vols.iter().find(|v| v["name"] == "data").unwrap();
    assert_eq!(data["csi"]["driver"], "gcsfuse.csi.storage.gke.io");
    assert_eq!(data["csi"]["readOnly"], true, "data is mounted read-only");
    assert_eq!(
        data["csi"]["volumeAttributes"],
        serde_json::json!({"bucketName": "my-data", "mountOptions": "only-dir=imagenet,implicit-dirs"})
    );
    let ckpt = vols.iter().find(|v| v["name"] == "checkpoints").unwrap();
    assert_eq!(ckpt["persistentVolumeClaim"], serde_json::json!({"claimName": "ckpt"}), "checkpoints are read-write");
    let mounts = tmpl["spec"]["containers"][0]["volumeMounts"].as_array().unwrap();
    assert!(mounts.iter().any(|m| m["name"] == "data" && m["mountPath"] == "/data" && m["readOnly"] == true));
    assert!(mounts.iter().any(|m| m["name"] == "checkpoints" && m["mountPath"] == "/checkpoints" && m["readOnly"].is_null()));
}

#[test]
fn storage_mistakes_are_errors_at_their_field() {
    let bad = |accelerator: &str, storage: &str, rule: &str, field: &str| {
        let (r, _dir) = render_text(&format!("{HEAD}  accelerator: {accelerator}\n  storage:\n{storage}"));
        assert_eq!(r.code, 1, "{}", r.all());
        assert!(r.stderr.contains(&format!("error[{rule}]")) && r.stderr.contains(field), "{rule} at `{field}`:\n{}", r.all());
    };
    let gpu = "{gpu: {model: h100-80gb, count: 8}}\n  platform: eks";
    bad(gpu, "  - {name: d, mountPath: /d, gcs: {bucket: b}}\n", "catalog/storage-gcs-off-gke", "spec.storage[0].gcs");
    let tpu = "{tpu: {type: v5e, topology: 2x2}}";
    bad(tpu, "  - {name: d, mountPath: /dev/shm, persistentVolumeClaim: c}\n", "catalog/storage-mount-path", "spec.storage[0].mountPath");
    bad(tpu, "  - {name: d, mountPath: /dev/shm/x, persistentVolumeClaim: c}\n", "catalog/storage-mount-path", "spec.storage[0].mountPath");
    bad(tpu, "  - {name: d, mountPath: data, persistentVolumeClaim: c}\n", "catalog/storage-mount-path", "spec.storage[0].mountPath");
    bad(tpu, "  - {name: d, mountPath: /d, persistentVolumeClaim: My_Claim}\n", "catalog/storage", "spec.storage[0].persistentVolumeClaim");
    bad(tpu, "  - {name: Data.Vol, mountPath: /d, persistentVolumeClaim: c}\n", "catalog/storage", "spec.storage[0].name");
    bad(tpu, "  - {name: dshm, mountPath: /d, persistentVolumeClaim: c}\n", "catalog/storage", "spec.storage[0].name");
    bad(
        tpu,
        "  - {name: a, mountPath: /d, persistentVolumeClaim: c}\n  - {name: b, mountPath: /d/, persistentVolumeClaim: c}\n",
        "catalog/storage-mount-path",
        "spec.storage[1].mountPath",
    );
    bad(tpu, "  - {name: a, mountPath: /d}\n", "catalog/storage", "spec.storage[0]");
    bad(tpu, "  - {name: a, mountPath: /d, gcs: {bucket: 'b/path'}}\n", "catalog/storage", "spec.storage[0].gcs.bucket");
    bad(
        tpu,
        "  - {name: a, mountPath: /d, gcs: {bucket: b, sidecarResources: {limits: {nvidia.com/gpu: 1}}}}\n",
        "catalog/storage",
        "spec.storage[0].gcs.sidecarResources.limits.nvidia.com/gpu",
    );
    // The initializers' volume is at /workspace.
    bad(
        "{cpu: {}}\n  initializers: {model: {storageUri: 'hf://a/b'}}",
        "  - {name: w, mountPath: /workspace/out, persistentVolumeClaim: c}\n",
        "catalog/storage-mount-path",
        "spec.storage[0].mountPath",
    );
}

#[test]
fn a_storage_runtime_passes_the_upstream_crds() {
    let Some(crds) = reference_crd_files() else { return };
    let rt = rendered(&format!(
        "{HEAD}  accelerator: {{tpu: {{type: v5e, topology: 4x4}}}}\n  storage:\n  - {{name: ckpt, mountPath: /ckpt, gcs: {{bucket: b}}}}\n  - {{name: data, mountPath: /data, use: data, persistentVolumeClaim: d}}\n"
    ));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rt.yaml");
    std::fs::write(&file, serde_json::to_string_pretty(&rt).unwrap()).unwrap();
    let r = run(&["validate", "--crd", &crds[0].display().to_string(), file.to_str().unwrap()], None);
    assert_eq!(r.code, 0, "{}", r.all());
}
