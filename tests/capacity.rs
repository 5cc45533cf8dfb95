//! Capacity as users buy it, from the outside: `spec.capacity` rendered per platform (the upstream
//! Trainer JAX-on-TPU guide's Autopilot ComputeClass setup, Spot on GKE, EKS and AKS), its errors,
//! GKE Autopilot's refusals on hand-written runtimes, and `fit` on an autoscaling cluster.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::fs;

use serde_json::{json, Value};
use support::{documents, node_pod, run_in, Run};

/// The guide's facts (tests/capacity/trainer-jax-tpu-guide.yaml, with its source).
fn guide() -> Value {
    let text = fs::read_to_string(support::root().join("tests/capacity/trainer-jax-tpu-guide.yaml")).unwrap();
    documents(&text).remove(0)
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn run(dir: &std::path::Path, args: &[&str]) -> Run {
    run_in(dir, args, None)
}

/// The runtimes `render` writes for a catalog (asserting it succeeds with nothing on stderr).
fn render(catalog: &str) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "c.yaml", catalog);
    let r = run(dir.path(), &["render", &path]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(r.stderr, "", "no finding: {}", r.all());
    documents(&r.stdout)
}

fn entry(name: &str, spec: &str) -> String {
    format!("apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {{name: {name}}}\nspec:\n{spec}")
}

const GUIDE_ENTRY: &str = "  accelerator: {tpu: {type: v5e, topology: 2x4, chipsPerHost: 4}}\n  capacity: {autopilot: true, computeClass: tpu-multihost-v5-8}\n  resources: {requests: {cpu: '8', memory: 32Gi}}\n";

#[test]
fn the_upstream_guides_autopilot_tpu_slice_renders_from_a_short_entry_with_its_selectors_and_tolerations() {
    let g = guide();
    let rt = render(&entry("v5e-autopilot", GUIDE_ENTRY)).remove(0);
    let pod = node_pod(&rt);
    assert_eq!(
        pod["nodeSelector"], g["nodeSelector"],
        "the guide's node selector, nothing more (no instance-type pin: GKE rejects it beside a ComputeClass)"
    );
    assert_eq!(pod["tolerations"], g["tolerations"]);
    assert_eq!(rt["spec"]["mlPolicy"]["numNodes"], g["numNodes"]);
    let node = support::container_node(pod);
    assert_eq!(node["resources"]["limits"]["google.com/tpu"], json!(g["chipsPerNode"].to_string()));
    assert_eq!(rt["metadata"]["annotations"]["jax-runtimes.dev/capacity"], "computeClass=tpu-multihost-v5-8, autopilot");
    // The built-in catalog's runtime is the same shape.
    let r = support::run(&["render"], None);
    let builtin = documents(&r.stdout).into_iter().find(|d| d["metadata"]["name"] == "jax-tpu-v5e-2x4-autopilot").expect("built in");
    assert_eq!(node_pod(&builtin)["nodeSelector"], g["nodeSelector"]);
    assert_eq!(node_pod(&builtin)["tolerations"], g["tolerations"]);
}

#[test]
fn spot_selects_and_tolerates_spot_nodes_on_each_platform() {
    let r = support::run(&["render"], None);
    let spot = documents(&r.stdout).into_iter().find(|d| d["metadata"]["name"] == "jax-gpu-gke-l4-spot").expect("built in");
    let pod = node_pod(&spot);
    assert_eq!(pod["nodeSelector"]["cloud.google.com/gke-spot"], "true");
    let tolerations = pod["tolerations"].as_array().unwrap();
    assert!(
        tolerations.contains(&json!({"key": "cloud.google.com/gke-spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"})),
        "{tolerations:?}"
    );
    let eks =
        render(&entry("e", "  platform: eks\n  accelerator: {gpu: {model: a100-80gb, count: 8}}\n  capacity: {spot: true}\n")).remove(0);
    assert_eq!(node_pod(&eks)["nodeSelector"]["karpenter.sh/capacity-type"], "spot");
    let aks =
        render(&entry("a", "  platform: aks\n  accelerator: {gpu: {model: a100-80gb, count: 8}}\n  capacity: {spot: true}\n")).remove(0);
    assert_eq!(node_pod(&aks)["nodeSelector"]["kubernetes.azure.com/scalesetpriority"], "spot");
    let t = node_pod(&aks)["tolerations"].as_array().unwrap().clone();
    assert!(
        t.contains(&json!({"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"})),
        "{t:?}"
    );
    let res =
        render(&entry("r", "  platform: gke\n  accelerator: {tpu: {type: v5p, topology: 2x2x1}}\n  capacity: {reservation: my-res}\n"))
            .remove(0);
    assert_eq!(node_pod(&res)["nodeSelector"]["cloud.google.com/reservation-name"], "my-res");
    assert_eq!(node_pod(&res)["nodeSelector"]["cloud.google.com/reservation-affinity"], "specific");
}

#[test]
fn capacity_a_platform_refuses_is_an_error_at_its_field() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("  platform: eks\n  accelerator: {cpu: {}}\n  capacity: {computeClass: c}\n", "catalog/capacity", "spec.capacity.computeClass"),
        ("  accelerator: {tpu: {type: v5e, topology: 4x4}}\n  capacity: {spot: true, reservation: r1}\n", "catalog/capacity-conflict", "spec.capacity"),
        ("  accelerator: {tpu: {type: v5e, topology: 4x4}}\n  capacity: {flexStart: true}\n", "catalog/capacity", "spec.capacity.flexStart"),
        ("  accelerator: {tpu: {type: v5e, topology: 2x4, chipsPerHost: 4}}\n  capacity: {computeClass: c}\n  nodeSelector: {node.kubernetes.io/instance-type: ct5lp-hightpu-4t}\n", "catalog/capacity", "spec.nodeSelector"),
    ];
    for (spec, rule, field) in cases {
        let path = write(dir.path(), "c.yaml", &entry("x", spec));
        let r = run(dir.path(), &["render", &path]);
        assert_eq!(r.code, 1, "{}", r.all());
        assert!(r.stderr.contains(&format!("error[{rule}]")), "{rule}: {}", r.all());
        assert!(r.stderr.contains(field), "{field}: {}", r.all());
    }
}

/// A hand-written Autopilot runtime (the annotation the generator writes) with one change.
fn autopilot_runtime(container: Value, selector: Value) -> String {
    let rt = json!({
        "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
        "metadata": {"name": "ap", "labels": {"trainer.kubeflow.org/framework": "jax"}, "annotations": {"jax-runtimes.dev/capacity": "autopilot"}},
        "spec": {"mlPolicy": {"numNodes": 2, "jax": {}}, "template": {"spec": {"replicatedJobs": [{"name": "node", "replicas": 1,
            "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
            "spec": {"template": {"spec": {"nodeSelector": selector,
                "tolerations": [{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}],
                "containers": [container]}}}}}]}}}
    });
    serde_json::to_string_pretty(&rt).unwrap()
}

#[test]
fn an_autopilot_runtime_gke_would_refuse_is_an_error_with_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let selector = json!({"cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice", "cloud.google.com/gke-tpu-topology": "2x4"});
    let good = json!({"name": "node", "image": "i", "resources": {"requests": {"cpu": "8", "memory": "32Gi", "google.com/tpu": "4"}, "limits": {"google.com/tpu": "4"}}});
    let path = write(dir.path(), "ok.json", &autopilot_runtime(good.clone(), selector.clone()));
    let r = run(dir.path(), &["validate", &path, "--format", "json"]);
    let findings: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    let ids: Vec<&str> = findings.as_array().expect("a JSON array of findings").iter().filter_map(|d| d["rule"].as_str()).collect();
    assert!(!ids.iter().any(|i| i.starts_with("autopilot/")), "{}", r.all());
    // The same runtime without cpu and memory requests: Autopilot's defaults, a warning.
    let mut bare = good.clone();
    bare["resources"] = json!({"limits": {"google.com/tpu": "4"}});
    let path = write(dir.path(), "bare.json", &autopilot_runtime(bare, selector.clone()));
    let r = run(dir.path(), &["validate", &path]);
    assert!(r.all().contains("warning[autopilot/default-requests]"), "{}", r.all());

    let mut privileged = good.clone();
    privileged["securityContext"] = json!({"privileged": true});
    let path = write(dir.path(), "priv.json", &autopilot_runtime(privileged, selector.clone()));
    let r = run(dir.path(), &["validate", &path]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.all().contains("autopilot/privileged") && r.all().contains("autogke-disallow-privilege"), "{}", r.all());

    let no_request = json!({"name": "node", "image": "i", "resources": {"requests": {"cpu": "8", "memory": "32Gi"}}});
    let path = write(dir.path(), "noreq.json", &autopilot_runtime(no_request, selector));
    let r = run(dir.path(), &["validate", &path]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.all().contains("autopilot/accelerator"), "{}", r.all());
    // Every autopilot/* rule cites its source in the rules list.
    let r = support::run(&["validate", "--list-rules", "--format", "json"], None);
    let rules: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let autopilot: Vec<&Value> = rules.iter().filter(|r| r["id"].as_str().is_some_and(|i| i.starts_with("autopilot/"))).collect();
    assert!(autopilot.len() >= 8, "{}", autopilot.len());
    for rule in autopilot {
        assert!(rule["source"].as_str().is_some_and(|s| s.contains("GKE docs")), "{rule}");
    }
}

/// A node list as `kubectl get nodes,computeclasses -o yaml` prints it: one CPU node and,
/// optionally, the guide's ComputeClass.
fn inventory(with_class: bool) -> String {
    let mut items = vec![json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "gk3-pool-1", "labels": {"kubernetes.io/hostname": "gk3-pool-1", "cloud.google.com/gke-nodepool": "pool-1"}},
        "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "32"}, "conditions": [{"type": "Ready", "status": "True"}]}})];
    if with_class {
        items.push(guide()["computeClass"].clone());
    }
    serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": "List", "items": items})).unwrap()
}

#[test]
fn fit_on_a_cluster_without_tpu_nodes_says_a_matching_compute_class_would_provision_the_slice() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = write(dir.path(), "c.yaml", &entry("v5e-autopilot", GUIDE_ENTRY));
    let with = write(dir.path(), "with.json", &inventory(true));
    let r = run(dir.path(), &["fit", &catalog, "--nodes", &with]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("would be provisioned (ComputeClass tpu-multihost-v5-8)"), "{}", r.all());
    assert!(r.stdout.contains("no standing node takes it now"), "{}", r.all());
    let json = run(dir.path(), &["fit", &catalog, "--nodes", &with, "--format", "json"]);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v[0]["provisioned"], "ComputeClass tpu-multihost-v5-8", "{v}");
    assert_eq!(v[0]["fits"], false);

    let without = write(dir.path(), "without.json", &inventory(false));
    let r = run(dir.path(), &["fit", &catalog, "--nodes", &without]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stdout.contains("no node pool for TPU v5e 2x4 on ComputeClass tpu-multihost-v5-8"), "{}", r.all());

    // A class of another TPU shape would not provision it, and says why.
    let other = inventory(true).replace("\"count\": 4", "\"count\": 8");
    let other = write(dir.path(), "other.json", &other);
    let r = run(dir.path(), &["fit", &catalog, "--nodes", &other]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(
        r.stdout.contains("no priority of ComputeClass tpu-multihost-v5-8 has tpu {type: tpu-v5-lite-podslice, count: 4, topology: 2x4}"),
        "{}",
        r.all()
    );
}

#[test]
fn fit_matches_capacity_labels_like_any_selector_and_names_the_missing_capacity() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = write(
        dir.path(),
        "c.yaml",
        &entry("spot", "  platform: gke\n  accelerator: {gpu: {model: l4, count: 1}}\n  capacity: {spot: true}\n"),
    );
    let node = |spot: bool| {
        let mut labels = json!({"kubernetes.io/hostname": "g2", "cloud.google.com/gke-nodepool": "l4", "cloud.google.com/gke-accelerator": "nvidia-l4", "node.kubernetes.io/instance-type": "g2-standard-8"});
        let mut taints = json!([{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]);
        if spot {
            labels["cloud.google.com/gke-spot"] = json!("true");
            taints.as_array_mut().unwrap().push(json!({"key": "cloud.google.com/gke-spot", "value": "true", "effect": "NoSchedule"}));
        }
        json!({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "g2", "labels": labels},
            "spec": {"taints": taints},
            "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "1"}, "conditions": [{"type": "Ready", "status": "True"}]}}]})
        .to_string()
    };
    let on_demand = write(dir.path(), "od.json", &node(false));
    let r = run(dir.path(), &["fit", &catalog, "--nodes", &on_demand]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stdout.contains("no node pool for NVIDIA L4 24GB on Spot VMs"), "{}", r.all());
    let spot = write(dir.path(), "spot.json", &node(true));
    let r = run(dir.path(), &["fit", &catalog, "--nodes", &spot]);
    assert_eq!(r.code, 0, "{}", r.all());
    // With node auto-provisioning declared, the on-demand cluster would provision it.
    let r = run(dir.path(), &["fit", &catalog, "--nodes", &on_demand, "--auto-provisioning"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("would be provisioned (node auto-provisioning)"), "{}", r.all());
}

#[test]
fn auto_provisioning_does_not_provision_spot_nodes_for_pods_without_the_spot_toleration() {
    // Issue 41: a runtime that selects GKE Spot VMs without tolerating the taint node
    // auto-provisioning puts on them was "would be provisioned", and validate said nothing.
    let dir = tempfile::tempdir().unwrap();
    let runtime = |tolerations: &str| {
        format!(
            "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: l4-spot\n  labels: {{trainer.kubeflow.org/framework: jax}}\nspec:\n  mlPolicy: {{numNodes: 1, jax: {{}}}}\n  template:\n    spec:\n      replicatedJobs:\n      - name: node\n        template:\n          metadata: {{labels: {{trainer.kubeflow.org/trainjob-ancestor-step: trainer}}}}\n          spec:\n            template:\n              spec:\n                nodeSelector: {{cloud.google.com/gke-accelerator: nvidia-l4, cloud.google.com/gke-spot: 'true'}}\n{tolerations}                containers: [{{name: node, image: python:3.12, resources: {{limits: {{nvidia.com/gpu: 1}}}}}}]\n"
        )
    };
    let nodes = json!({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "c1", "labels": {"kubernetes.io/hostname": "c1", "cloud.google.com/gke-nodepool": "default"}},
        "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}, "conditions": [{"type": "Ready", "status": "True"}]}}]});
    let nodes = write(dir.path(), "nodes.json", &nodes.to_string());
    let bare = write(dir.path(), "bare.yaml", &runtime(""));
    let r = run(dir.path(), &["fit", &bare, "--nodes", &nodes, "--auto-provisioning"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(!r.stdout.contains("would be provisioned"), "{}", r.all());
    assert!(r.all().contains("carry the taint cloud.google.com/gke-spot=true:NoSchedule, which the pods do not tolerate"), "{}", r.all());
    // validate names the same taint (a warning: a Spot pool made by hand may lack it).
    let v = run(dir.path(), &["validate", &bare]);
    assert!(
        v.all().contains("warning[taint/untolerated-some-pools]") && v.all().contains("cloud.google.com/gke-spot=true:NoSchedule"),
        "{}",
        v.all()
    );
    // With the toleration, node auto-provisioning would provision it (the GPU taint is
    // ExtendedResourceToleration's), and validate is quiet about taints.
    let tolerated = write(
        dir.path(),
        "tolerated.yaml",
        &runtime("                tolerations: [{key: cloud.google.com/gke-spot, operator: Equal, value: 'true', effect: NoSchedule}]\n"),
    );
    let r = run(dir.path(), &["fit", &tolerated, "--nodes", &nodes, "--auto-provisioning"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("would be provisioned (node auto-provisioning)"), "{}", r.all());
    let v = run(dir.path(), &["validate", &tolerated]);
    assert!(!v.all().contains("taint/") && !v.all().contains("accelerator/missing-toleration"), "{}", v.all());
    // render's catalog path runs the same check on what it generates.
    let hand = write(
        dir.path(),
        "hand.yaml",
        &entry(
            "cpu-spot-hand",
            "  platform: gke\n  accelerator: {cpu: {}}\n  podTemplate: {spec: {nodeSelector: {cloud.google.com/gke-spot: 'true'}}}\n",
        ),
    );
    let r = run(dir.path(), &["render", &hand]);
    assert!(
        r.all().contains("warning[taint/untolerated-some-pools]") && r.all().contains("cloud.google.com/gke-spot=true:NoSchedule"),
        "{}",
        r.all()
    );
    let spot = write(dir.path(), "spot.yaml", &entry("cpu-spot", "  platform: gke\n  accelerator: {cpu: {}}\n  capacity: {spot: true}\n"));
    let r = run(dir.path(), &["render", &spot]);
    assert!(!r.all().contains("taint/"), "the generated Spot runtime tolerates the taint: {}", r.all());
}

#[test]
fn a_queue_makes_spot_and_on_demand_flavors_of_one_shape_in_the_order_given() {
    let catalog = format!(
        "{}---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeQueue\nmetadata: {{name: tpu}}\nspec:\n  capacity: [{{spot: true}}, {{onDemand: true}}]\n  quotas:\n  - {{runtime: v5e, slices: 2}}\n",
        entry("v5e", "  accelerator: {tpu: {type: v5e, topology: 4x4}}\n")
    );
    let docs = render(&catalog);
    let flavors: Vec<&Value> = docs.iter().filter(|d| d["kind"] == "ResourceFlavor").collect();
    let names: Vec<&str> = flavors.iter().map(|f| f["metadata"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["tpu-v5-lite-podslice-4x4-spot", "tpu-v5-lite-podslice-4x4-on-demand"]);
    assert_eq!(flavors[0]["spec"]["nodeLabels"]["cloud.google.com/gke-spot"], "true");
    assert_eq!(
        flavors[0]["spec"]["tolerations"],
        json!([{"key": "cloud.google.com/gke-spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"}])
    );
    assert!(flavors[1]["spec"]["nodeLabels"].get("cloud.google.com/gke-spot").is_none());
    assert!(flavors[1]["spec"].get("tolerations").is_none(), "on-demand pods keep off the Spot nodes by their taint");
    let cq = docs.iter().find(|d| d["kind"] == "ClusterQueue").unwrap();
    let order: Vec<&str> =
        cq["spec"]["resourceGroups"][0]["flavors"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(order, names, "Kueue tries them in the order given");
    for f in cq["spec"]["resourceGroups"][0]["flavors"].as_array().unwrap() {
        assert_eq!(f["resources"][0]["nominalQuota"], json!(32), "the runtime's quota in each capacity type's flavor");
    }
    // A served runtime that picks its own capacity would count on one flavor and land on another.
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "c.yaml", &catalog.replace("topology: 4x4}}\n", "topology: 4x4}}\n  capacity: {spot: true}\n"));
    let r = run(dir.path(), &["render", &path]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("selects Spot VMs itself"), "{}", r.all());
}
