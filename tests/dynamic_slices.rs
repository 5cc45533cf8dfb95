//! TPU dynamic slices (`tpu: {slicing: dynamic}`, issue 53 item 1): what a catalog entry renders
//! for GKE's slice controller (TPU7x super- and sub-slices) and for xpk's v6e sub-slicing of a
//! larger pool, what `validate` says about runtimes of that shape (fixtures written here from the
//! pod templates of GoogleCloudPlatform/kubernetes-engine-samples@2b503651
//! ai-ml/gke-tpu-dynamic-slicing/*.yaml and xpk@367c8382 recipes/Workload_create_sub-slicing.md),
//! the Kueue objects a `JaxRuntimeQueue` of dynamic slices gets, and how `fit` places them.
//!
//! The expected labels and annotations are the upstream facts (sources in the comments), not the
//! tool's output copied back.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use serde_json::Value;
use support::{dir_with, documents, name_of, run};

const ACCEL: &str = "cloud.google.com/gke-tpu-accelerator";
const TOPOLOGY: &str = "cloud.google.com/gke-tpu-topology";
const SLICE_TOPOLOGY: &str = "cloud.google.com/gke-tpu-slice-topology";
const EXCLUSIVE: &str = "alpha.jobset.sigs.k8s.io/exclusive-topology";
const REQUIRED: &str = "kueue.x-k8s.io/podset-required-topology";
const SLICE_REQUIRED: &str = "kueue.x-k8s.io/podset-slice-required-topology";
const SLICE_SIZE: &str = "kueue.x-k8s.io/podset-slice-size";

/// The built-in dynamic entries, rendered.
fn rendered() -> Vec<Value> {
    let r = run(&["render", "catalog/runtimes/defaults.yaml", "catalog/runtimes/tpu-dynamic.yaml"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    documents(&r.stdout)
}

fn runtime<'a>(docs: &'a [Value], name: &str) -> &'a Value {
    docs.iter().find(|d| name_of(d) == name).unwrap_or_else(|| panic!("no runtime {name}"))
}

fn pod_template(rt: &Value) -> &Value {
    &rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
}

fn strings(v: &Value) -> Vec<(String, String)> {
    v.as_object().map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect()).unwrap_or_default()
}

fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = p.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    v.sort();
    v
}

#[test]
fn a_tpu7x_super_slice_renders_what_the_slice_controller_needs() {
    let docs = rendered();
    let rt = runtime(&docs, "jax-tpu7x-4x8x8-dynamic");
    let pod = pod_template(rt);
    // kubernetes-engine-samples two-super-slices.yaml: the accelerator and the partition state, no
    // topology selector; 4x8x8 / 4 chips per tpu7x-standard-4t host = 64 pods.
    assert_eq!(
        strings(&pod["spec"]["nodeSelector"]),
        pairs(&[(ACCEL, "tpu7x"), ("cloud.google.com/gke-tpu-partition-4x4x4-state", "HEALTHY")])
    );
    assert_eq!(rt["spec"]["mlPolicy"]["numNodes"], 64);
    assert_eq!(pod["spec"]["containers"][0]["resources"]["limits"]["google.com/tpu"], "4");
    // xpk slice/internal/webhooks/defaults.go: the block, the 4x4x4 partition level, 64 chips /
    // 4 per pod = 16 pods per partition.
    assert_eq!(
        strings(&pod["metadata"]["annotations"]),
        pairs(&[
            (SLICE_TOPOLOGY, "4x8x8"),
            (REQUIRED, "cloud.google.com/gce-topology-block"),
            (SLICE_REQUIRED, "cloud.google.com/gke-tpu-partition-4x4x4-id"),
            (SLICE_SIZE, "16"),
        ])
    );
    // tpu-multislice-jax.yaml: one slice per job, by the slice label, not the node pool.
    assert_eq!(rt["spec"]["template"]["metadata"]["annotations"][EXCLUSIVE], "cloud.google.com/gke-tpu-slice");
    let tolerations = pod["spec"]["tolerations"].as_array().unwrap();
    assert!(tolerations.iter().any(|t| t["key"] == "google.com/tpu" && t["effect"] == "NoSchedule"), "{tolerations:?}");
}

#[test]
fn a_tpu7x_sub_slice_is_one_partition_of_its_own_topology() {
    let docs = rendered();
    let rt = runtime(&docs, "jax-tpu7x-2x4x4-dynamic");
    let pod = pod_template(rt);
    // xpk slice/internal/topology/topology.go: a sub-slice's level and state are the labels of its
    // own topology; all its pods (32 chips / 4) in one partition.
    assert_eq!(
        strings(&pod["spec"]["nodeSelector"]),
        pairs(&[(ACCEL, "tpu7x"), ("cloud.google.com/gke-tpu-partition-2x4x4-state", "HEALTHY")])
    );
    assert_eq!(rt["spec"]["mlPolicy"]["numNodes"], 8);
    assert_eq!(pod["metadata"]["annotations"][SLICE_REQUIRED], "cloud.google.com/gke-tpu-partition-2x4x4-id");
    assert_eq!(pod["metadata"]["annotations"][SLICE_SIZE], "8");
    assert_eq!(pod["metadata"]["annotations"][SLICE_TOPOLOGY], "2x4x4");
}

#[test]
fn a_v6e_sub_slice_selects_its_pool_and_requires_its_slice_level() {
    let docs = rendered();
    let rt = runtime(&docs, "jax-tpu-v6e-2x4-of-4x4");
    let pod = pod_template(rt);
    // xpk recipes/Workload_create_sub-slicing.md (v6e-2x4 on a v6e-16 cluster): the pool's
    // topology, 2 pods of 4 chips, the 2x4 slice level, no JobSet exclusivity.
    assert_eq!(strings(&pod["spec"]["nodeSelector"]), pairs(&[(ACCEL, "tpu-v6e-slice"), (TOPOLOGY, "4x4")]));
    assert_eq!(rt["spec"]["mlPolicy"]["numNodes"], 2);
    assert_eq!(pod["spec"]["containers"][0]["resources"]["limits"]["google.com/tpu"], "4");
    assert_eq!(
        strings(&pod["metadata"]["annotations"]),
        pairs(&[(SLICE_TOPOLOGY, "2x4"), (REQUIRED, "cloud.google.com/gke-tpu-slice-2x4-id")])
    );
    assert!(rt["spec"]["template"]["metadata"]["annotations"].get(EXCLUSIVE).is_none(), "{rt}");
}

/// `validate --format json` of one runtime: (rule, severity, message) of each finding.
fn findings(yaml: &str) -> Vec<(String, String, String)> {
    let dir = dir_with(&[("rt.yaml", yaml)]);
    let path = dir.path().join("rt.yaml");
    let r = run(&["validate", "--format", "json", path.to_str().unwrap()], None);
    let report: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    report
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The rules of the warnings and errors, sorted.
fn problems(yaml: &str) -> Vec<String> {
    let mut out: Vec<String> = findings(yaml).into_iter().filter(|(_, s, _)| s != "info").map(|(r, _, _)| r).collect();
    out.sort();
    out
}

/// A ClusterTrainingRuntime with the pod template of a sample: `numNodes` pods, the pod
/// annotations, node selector and per-pod chips given.
fn runtime_yaml(num_nodes: u32, annotations: &[(&str, &str)], selector: &[(&str, &str)], chips: u32) -> String {
    let map = |p: &[(&str, &str)]| format!("{{{}}}", p.iter().map(|(k, v)| format!("{k}: \"{v}\"")).collect::<Vec<_>>().join(", "));
    format!(
        "apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: sample
  labels: {{trainer.kubeflow.org/framework: jax}}
spec:
  mlPolicy: {{numNodes: {num_nodes}, jax: {{}}}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels: {{trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              metadata:
                annotations: {}
              spec:
                tolerations: [{{key: google.com/tpu, operator: Equal, value: present, effect: NoSchedule}}]
                nodeSelector: {}
                containers:
                - name: node
                  image: us-docker.pkg.dev/cloud-tpu-images/jax-ai-image/tpu:latest
                  resources: {{limits: {{google.com/tpu: {chips}}}, requests: {{google.com/tpu: {chips}}}}}
",
        map(annotations),
        map(selector)
    )
}

#[test]
fn the_samples_pod_shapes_validate_without_a_false_error() {
    // two-super-slices.yaml: 4x8x8, 64 pods of 4 chips, accelerator and partition state.
    let two_super = runtime_yaml(
        64,
        &[(SLICE_TOPOLOGY, "4x8x8")],
        &[(ACCEL, "tpu7x"), ("cloud.google.com/gke-tpu-partition-4x4x4-state", "HEALTHY")],
        4,
    );
    assert_eq!(problems(&two_super), Vec::<String>::new());
    // The GKE version it needs is a note with the version (validate does not know the cluster's).
    let gke = findings(&two_super).into_iter().find(|(r, _, _)| r == "tpu/slice-gke-version").unwrap();
    assert_eq!(gke.1, "info");
    assert!(gke.2.contains("1.35.2-gke.1842000"), "{}", gke.2);
    // big-super-slice.yaml: 4x12x16, 192 pods, no state selector (the slice controller's webhook
    // adds one to a JobSet; a TrainJob's workload is admitted from the runtime, so it is a warning).
    let big = runtime_yaml(192, &[(SLICE_TOPOLOGY, "4x12x16")], &[(ACCEL, "tpu7x")], 4);
    assert_eq!(problems(&big), vec!["tpu/slice-health"]);
    // tpu-multislice-jax.yaml: a 4x4x4 slice that also selects the topology label.
    let multislice = runtime_yaml(16, &[(SLICE_TOPOLOGY, "4x4x4")], &[(ACCEL, "tpu7x"), (TOPOLOGY, "4x4x4")], 4);
    assert!(!problems(&multislice).iter().any(|r| r == "tpu/missing-selector" || r == "tpu/topology"), "{:?}", findings(&multislice));
    // xpk's v6e sub-slice: the pool's topology selected, the sub-slice annotated; no GKE floor published.
    let v6e = runtime_yaml(
        2,
        &[(SLICE_TOPOLOGY, "2x4"), (REQUIRED, "cloud.google.com/gke-tpu-slice-2x4-id")],
        &[(ACCEL, "tpu-v6e-slice"), (TOPOLOGY, "4x4")],
        4,
    );
    assert_eq!(problems(&v6e), Vec::<String>::new());
    // A sub-slice: its own GKE floor.
    let sub = runtime_yaml(
        8,
        &[(SLICE_TOPOLOGY, "2x4x4")],
        &[(ACCEL, "tpu7x"), ("cloud.google.com/gke-tpu-partition-2x4x4-state", "HEALTHY")],
        4,
    );
    let gke = findings(&sub).into_iter().find(|(r, _, _)| r == "tpu/slice-gke-version").unwrap();
    assert!(gke.2.contains("1.36.0-gke.3712000"), "{}", gke.2);
}

#[test]
fn validate_refuses_what_the_slice_controller_refuses() {
    let state = ("cloud.google.com/gke-tpu-partition-4x4x4-state", "HEALTHY");
    let err = |yaml: String| -> Vec<String> { findings(&yaml).into_iter().filter(|(_, s, _)| s == "error").map(|(r, _, _)| r).collect() };
    // Not non-decreasing, not multiples of 4 (xpk ParseTopologyV7), over 144 cubes (Slice CRD: 9216 chips).
    for topology in ["4x8x4", "4x6x8", "8x8x160"] {
        let chips: u32 = topology.split('x').map(|d| d.parse::<u32>().unwrap()).product();
        assert_eq!(
            err(runtime_yaml(chips / 4, &[(SLICE_TOPOLOGY, topology)], &[(ACCEL, "tpu7x"), state], 4)),
            vec!["tpu/topology"],
            "{topology}"
        );
    }
    // The largest super-slice is valid: 4x4x576, 144 cubes.
    assert_eq!(err(runtime_yaml(2304, &[(SLICE_TOPOLOGY, "4x4x576")], &[(ACCEL, "tpu7x"), state], 4)), Vec::<String>::new());
    // Pods that do not fill the slice (defaults.go "full utilization").
    assert_eq!(err(runtime_yaml(64, &[(SLICE_TOPOLOGY, "4x8x8")], &[(ACCEL, "tpu7x"), state], 2)), vec!["tpu/chips-per-host"]);
    assert_eq!(err(runtime_yaml(32, &[(SLICE_TOPOLOGY, "4x8x8")], &[(ACCEL, "tpu7x"), state], 4)), vec!["tpu/hosts"]);
    // No accelerator selected; a generation without dynamic slicing.
    assert_eq!(err(runtime_yaml(64, &[(SLICE_TOPOLOGY, "4x8x8")], &[state], 4)), vec!["tpu/missing-selector"]);
    assert_eq!(err(runtime_yaml(16, &[(SLICE_TOPOLOGY, "4x4x4")], &[(ACCEL, "tpu-v5p-slice")], 4)), vec!["tpu/topology"]);
    // v6e: a sub-slice larger than its pool, and one without the pool's topology.
    assert_eq!(err(runtime_yaml(8, &[(SLICE_TOPOLOGY, "4x8")], &[(ACCEL, "tpu-v6e-slice"), (TOPOLOGY, "4x4")], 4)), vec!["tpu/topology"]);
    assert_eq!(err(runtime_yaml(2, &[(SLICE_TOPOLOGY, "2x4")], &[(ACCEL, "tpu-v6e-slice")], 4)), vec!["tpu/missing-selector"]);
    // A partition state no slice is formed from (GKE docs: UNHEALTHY "can't be used"), or a typo.
    for bad in ["UNHEALTHY", "Healthy"] {
        let yaml = runtime_yaml(16, &[(SLICE_TOPOLOGY, "4x4x4")], &[(ACCEL, "tpu7x"), (state.0, bad)], 4);
        assert!(problems(&yaml).contains(&"tpu/slice-health".to_string()), "{bad}: {:?}", findings(&yaml));
    }
}

#[test]
fn the_built_in_dynamic_runtimes_render_and_validate_clean_and_validate_notes_the_gke_floor() {
    let r = run(&["render", "catalog/runtimes/defaults.yaml", "catalog/runtimes/tpu-dynamic.yaml"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stderr.is_empty(), "render says nothing of its own runtimes:\n{}", r.stderr);
    let dir = dir_with(&[("rendered.yaml", &r.stdout)]);
    let v = run(&["validate", "--format", "json", dir.path().join("rendered.yaml").to_str().unwrap()], None);
    let report: Value = serde_json::from_str(&v.stdout).unwrap_or_else(|e| panic!("{e}: {}", v.all()));
    let all = report.as_array().unwrap();
    let problems: Vec<&Value> = all.iter().filter(|f| f["severity"] != "info").collect();
    assert!(problems.is_empty(), "{}", v.all());
    let mut notes: Vec<(String, String)> = all
        .iter()
        .filter(|f| f["rule"] == "tpu/slice-gke-version")
        .map(|f| (f["object"]["name"].as_str().unwrap().to_string(), f["message"].as_str().unwrap().to_string()))
        .collect();
    notes.sort();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert_eq!(notes[0].0, "jax-tpu7x-2x4x4-dynamic");
    assert!(notes[0].1.contains("1.36.0-gke.3712000"), "{notes:?}");
    assert_eq!(notes[1].0, "jax-tpu7x-4x8x8-dynamic");
    assert!(notes[1].1.contains("1.35.2-gke.1842000"), "{notes:?}");
}

/// A catalog with one dynamic entry, rendered: the exit code and stderr.
fn render_entry(tpu: &str) -> support::Run {
    let yaml = format!(
        "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {{name: t}}\nspec:\n  platform: gke\n  accelerator:\n    tpu: {tpu}\n"
    );
    let dir = dir_with(&[("c.yaml", &yaml)]);
    run(&["render", dir.path().join("c.yaml").to_str().unwrap()], None)
}

#[test]
fn the_catalog_refuses_slices_dynamic_slicing_cannot_form() {
    for (tpu, field, says) in [
        ("{type: v5p, topology: 4x4x4, slicing: dynamic}", "spec.accelerator.tpu.topology", "no dynamic slicing"),
        ("{type: tpu7x, topology: 4x8x4, slicing: dynamic}", "spec.accelerator.tpu.topology", "not a TPU tpu7x dynamic slice"),
        ("{type: tpu7x, topology: 4x4x4, slicing: dynamic, pool: 4x4x8}", "spec.accelerator.tpu.pool", "`pool` is for subslices"),
        ("{type: v6e, topology: 2x4, slicing: dynamic}", "spec.accelerator.tpu.pool", "set `pool`"),
        (
            "{type: v6e, topology: 4x8, slicing: dynamic, pool: 4x4}",
            "spec.accelerator.tpu.topology",
            "not a TPU v6e subslice of a 4x4 pool",
        ),
        ("{type: v6e, topology: 2x4, pool: 4x4}", "spec.accelerator.tpu.pool", "only for a dynamic slice"),
        ("{type: tpu7x, topology: 4x4x4, slicing: dynamic, chipsPerHost: 1}", "spec.accelerator.tpu.chipsPerHost", "not 1"),
    ] {
        let r = render_entry(tpu);
        assert_ne!(r.code, 0, "{tpu}: {}", r.all());
        assert!(r.stderr.contains(field) && r.stderr.contains(says), "{tpu}: expected `{says}` at {field}:\n{}", r.all());
    }
    // Sub-slices of a 16x16 pool: every listed topology up to 16x16 (xpk is_topology_contained).
    for topology in ["2x4", "4x4", "4x8", "8x8", "8x16", "16x16"] {
        let r = render_entry(&format!("{{type: v6e, topology: {topology}, slicing: dynamic, pool: 16x16}}"));
        assert_eq!(r.code, 0, "{topology}: {}", r.all());
    }
}

// ------------------------------------------------------------------ fit

/// A GKE node of `pool` with these labels, a TPU host of 4 chips (tpu7x-standard-4t or
/// ct6e-standard-4t), Ready, tainted `google.com/tpu=present:NoSchedule`.
fn tpu_node(name: &str, labels: &[(String, String)]) -> String {
    let mut s = format!("- apiVersion: v1\n  kind: Node\n  metadata:\n    name: {name}\n    labels:\n      kubernetes.io/hostname: {name}\n      kubernetes.io/os: linux\n      kubernetes.io/arch: amd64\n");
    for (k, v) in labels {
        s.push_str(&format!("      {k}: \"{v}\"\n"));
    }
    s.push_str("  spec:\n    taints:\n    - {effect: NoSchedule, key: google.com/tpu, value: present}\n");
    s.push_str("  status:\n    allocatable: {cpu: 200, memory: 900Gi, google.com/tpu: \"4\", pods: \"110\"}\n    capacity: {cpu: 200, memory: 900Gi, google.com/tpu: \"4\", pods: \"110\"}\n");
    s.push_str("    conditions:\n    - {type: Ready, status: \"True\", reason: KubeletReady, lastHeartbeatTime: \"2026-12-01T10:00:00Z\", lastTransitionTime: \"2026-12-01T09:00:00Z\"}\n");
    s
}

fn owned(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// One block of TPU7x sub-blocks (node pools of 16 tpu7x-standard-4t hosts, a 4x4x4 partition
/// each, labelled as xpk slice/hack/kind-cluster-subslice.yaml labels its nodes: every partition
/// size's id and state), partition `p` in state `states[p]`.
fn tpu7x_block(block: &str, states: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for (p, state) in states.iter().enumerate() {
        for h in 0..16 {
            let mut labels = owned(&[
                (ACCEL, "tpu7x"),
                ("cloud.google.com/gke-nodepool", &format!("{block}-sub-block-{p}")),
                ("node.kubernetes.io/instance-type", "tpu7x-standard-4t"),
                ("cloud.google.com/gce-topology-block", block),
                ("cloud.google.com/gke-tpu-partition-4x4x4-id", &format!("{block}-p{p}")),
                ("cloud.google.com/gke-tpu-partition-4x4x4-state", state),
            ]);
            // Two 2x4x4 partitions of 8 hosts in each 4x4x4.
            labels.extend(owned(&[
                ("cloud.google.com/gke-tpu-partition-2x4x4-id", &format!("{block}-p{p}-h{}", h / 8)),
                ("cloud.google.com/gke-tpu-partition-2x4x4-state", state),
            ]));
            out.push(tpu_node(&format!("gke-tpu7x-{block}-{p}-{h:02}"), &labels));
        }
    }
    out
}

/// A v6e 4x4 node pool of 4 ct6e-standard-4t hosts, with xpk's sub-slicing levels: one 4x4
/// slice, two 2x4 slices (utils/topology.py get_slice_topology_level).
fn v6e_4x4_pool(pool: &str) -> Vec<String> {
    (0..4)
        .map(|h| {
            tpu_node(
                &format!("gke-v6e-{pool}-{h}"),
                &owned(&[
                    (ACCEL, "tpu-v6e-slice"),
                    (TOPOLOGY, "4x4"),
                    ("cloud.google.com/gke-nodepool", pool),
                    ("node.kubernetes.io/instance-type", "ct6e-standard-4t"),
                    ("cloud.google.com/gke-tpu-slice-4x4-id", &format!("{pool}-s")),
                    ("cloud.google.com/gke-tpu-slice-2x4-id", &format!("{pool}-s{}", h / 2)),
                ]),
            )
        })
        .collect()
}

/// `fit` of the built-in dynamic entries on these nodes: the JSON verdict of each runtime.
fn fit_dynamic(nodes: &[String]) -> std::collections::BTreeMap<String, Value> {
    let list = format!("apiVersion: v1\nkind: List\nmetadata: {{resourceVersion: \"\"}}\nitems:\n{}", nodes.concat());
    let dir = dir_with(&[("nodes.yaml", &list)]);
    let nodes = dir.path().join("nodes.yaml");
    let r = run(
        &[
            "fit",
            "catalog/runtimes/defaults.yaml",
            "catalog/runtimes/tpu-dynamic.yaml",
            "--nodes",
            nodes.to_str().unwrap(),
            "--format",
            "json",
        ],
        None,
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", r.all()));
    v.as_array().unwrap().iter().map(|o| (o["runtime"].as_str().unwrap().to_string(), o.clone())).collect()
}

fn copies(v: &std::collections::BTreeMap<String, Value>, name: &str) -> u64 {
    v[name]["copies"].as_u64().unwrap_or_else(|| panic!("{name}: {}", v[name]))
}

#[test]
fn fit_places_dynamic_slices_on_healthy_partitions() {
    // Four healthy 4x4x4 partitions in one block: one 4x8x8 super-slice (4 partitions), eight
    // 2x4x4 sub-slices; no v6e pool.
    let v = fit_dynamic(&tpu7x_block("b1", &["HEALTHY"; 4]));
    assert_eq!(copies(&v, "jax-tpu7x-4x8x8-dynamic"), 1, "{}", v["jax-tpu7x-4x8x8-dynamic"]);
    assert_eq!(v["jax-tpu7x-4x8x8-dynamic"]["where"], serde_json::json!(["b1"]));
    assert_eq!(copies(&v, "jax-tpu7x-2x4x4-dynamic"), 8, "{}", v["jax-tpu7x-2x4x4-dynamic"]);
    assert_eq!(copies(&v, "jax-tpu-v6e-2x4-of-4x4"), 0);
    // One partition unhealthy: three healthy partitions do not make four; its sub-slices are out too.
    let v = fit_dynamic(&tpu7x_block("b1", &["HEALTHY", "HEALTHY", "UNHEALTHY", "HEALTHY"]));
    assert_eq!(copies(&v, "jax-tpu7x-4x8x8-dynamic"), 0, "{}", v["jax-tpu7x-4x8x8-dynamic"]);
    assert_eq!(copies(&v, "jax-tpu7x-2x4x4-dynamic"), 6);
    // Partitions of two blocks never make one slice (the block is the required level).
    let v = fit_dynamic(&[tpu7x_block("b1", &["HEALTHY"; 2]), tpu7x_block("b2", &["HEALTHY"; 2])].concat());
    assert_eq!(copies(&v, "jax-tpu7x-4x8x8-dynamic"), 0, "{}", v["jax-tpu7x-4x8x8-dynamic"]);
    // A v6e 4x4 pool holds two 2x4 sub-slices.
    let v = fit_dynamic(&v6e_4x4_pool("v6e-a"));
    assert_eq!(copies(&v, "jax-tpu-v6e-2x4-of-4x4"), 2, "{}", v["jax-tpu-v6e-2x4-of-4x4"]);
}

// ------------------------------------------------------------------ Kueue

#[test]
fn a_queue_of_dynamic_slices_gets_their_topologies_and_the_slice_admission_check() {
    let queue = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeQueue\nmetadata: {name: tpu}\n";
    let dir = dir_with(&[("queue.yaml", queue)]);
    let q = dir.path().join("queue.yaml");
    let r = run(&["render", "catalog/runtimes/defaults.yaml", "catalog/runtimes/tpu-dynamic.yaml", q.to_str().unwrap()], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let docs = documents(&r.stdout);
    let of_kind = |k: &str| docs.iter().filter(|d| d["kind"] == k).collect::<Vec<_>>();
    let levels = |t: &Value| -> Vec<String> {
        t["spec"]["levels"].as_array().unwrap().iter().map(|l| l["nodeLabel"].as_str().unwrap().to_string()).collect()
    };
    // Each runtime's flavor names the Topology whose levels its podset annotations use.
    let flavors = of_kind("ResourceFlavor");
    let topologies = of_kind("Topology");
    let topology_of = |runtime: &str| -> Vec<String> {
        let rt = runtime_of(&docs, runtime);
        let selector = strings(&pod_template(rt)["spec"]["nodeSelector"]);
        let flavor =
            flavors.iter().find(|f| strings(&f["spec"]["nodeLabels"]) == selector).unwrap_or_else(|| panic!("no flavor for {runtime}"));
        let t = topologies.iter().find(|t| t["metadata"]["name"] == flavor["spec"]["topologyName"]).unwrap();
        levels(t)
    };
    // kubernetes-engine-samples dynamic-slice-topology.yaml (xpk templates/kueue_super_slicing_topology.yaml.j2).
    assert_eq!(
        topology_of("jax-tpu7x-4x8x8-dynamic"),
        ["cloud.google.com/gce-topology-block", "cloud.google.com/gke-tpu-partition-4x4x4-id", "kubernetes.io/hostname"]
    );
    // xpk slice/test/e2e/subslice/jobset_test.go.
    assert_eq!(
        topology_of("jax-tpu7x-2x4x4-dynamic"),
        [
            "cloud.google.com/gce-topology-block",
            "cloud.google.com/gke-tpu-partition-4x4x4-id",
            "cloud.google.com/gke-tpu-partition-2x4x4-id",
            "cloud.google.com/gke-tpu-partition-2x2x4-id",
            "cloud.google.com/gke-tpu-partition-2x2x2-id",
            "cloud.google.com/gke-tpu-partition-2x2x1-id",
            "kubernetes.io/hostname",
        ]
    );
    // xpk kueue_manager.py: the sub-slicing levels a 4x4 pool contains, largest first.
    assert_eq!(
        topology_of("jax-tpu-v6e-2x4-of-4x4"),
        ["cloud.google.com/gke-tpu-slice-4x4-id", "cloud.google.com/gke-tpu-slice-2x4-id", "kubernetes.io/hostname"]
    );
    // The slice controller's AdmissionCheck, on the tpu7x flavors only (v6e is Kueue's alone).
    let checks = of_kind("AdmissionCheck");
    assert_eq!(checks.len(), 1);
    assert_eq!(checks[0]["spec"]["controllerName"], "accelerator.gke.io/slice");
    let cq = of_kind("ClusterQueue");
    let rule = &cq[0]["spec"]["admissionChecksStrategy"]["admissionChecks"][0];
    assert_eq!(rule["name"], checks[0]["metadata"]["name"]);
    let mut on: Vec<Value> = rule["onFlavors"].as_array().unwrap().clone();
    on.sort_by_key(|v| v.to_string());
    let mut tpu7x: Vec<Value> =
        flavors.iter().filter(|f| f["spec"]["nodeLabels"][ACCEL] == "tpu7x").map(|f| f["metadata"]["name"].clone()).collect();
    tpu7x.sort_by_key(|v| v.to_string());
    assert_eq!(on, tpu7x);
    assert_eq!(tpu7x.len(), 2);
    // The generated objects pass the embedded Kueue CRDs.
    let v = run(&["validate", "--format", "json", "-"], Some(&r.stdout));
    let report: Value = serde_json::from_str(&v.stdout).unwrap_or_else(|e| panic!("{e}: {}", v.all()));
    let errors: Vec<&Value> = report.as_array().unwrap().iter().filter(|f| f["severity"] == "error").collect();
    assert!(errors.is_empty(), "{errors:?}");
}

fn runtime_of<'a>(docs: &'a [Value], name: &str) -> &'a Value {
    docs.iter()
        .find(|d| d["kind"] == "ClusterTrainingRuntime" && d["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no runtime {name}"))
}
