//! GPUs wired by DRA (DRANET): the runtimes of catalog/runtimes/gpu-dra.yaml render their pod's
//! `resourceClaims` and the ResourceClaimTemplates beside them with the facts of the sources
//! (fabrics.yaml cites them), pass `validate` for every Trainer release, fit an inventory whose
//! nodes carry the labels DRANET needs (and not one without them), and get Kueue objects.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use support::{documents, node_container, node_pod, run_in};

const A4X_MAX: &str = "jax-gpu-gke-a4xmax-2nodes";
const AKS: &str = "jax-gpu-aks-ndh100v5-dranet-2nodes";

fn catalog() -> [PathBuf; 2] {
    let root = support::root();
    [root.join("catalog/runtimes/defaults.yaml"), root.join("catalog/runtimes/gpu-dra.yaml")]
}

fn rendered() -> Vec<Value> {
    let [d, c] = catalog();
    documents(&support::render(&[&d, &c]))
}

fn object<'a>(docs: &'a [Value], kind: &str, name: &str) -> &'a Value {
    docs.iter().find(|d| d["kind"] == kind && d["metadata"]["name"] == name).unwrap_or_else(|| panic!("no {kind}/{name}"))
}

#[test]
fn a4x_max_claims_the_mrdma_nics_through_a_template_written_beside_it() {
    let docs = rendered();
    let rt = object(&docs, "ClusterTrainingRuntime", A4X_MAX);
    let pod = node_pod(rt);
    assert_eq!(pod["resourceClaims"][0], json!({"name": "rdma", "resourceClaimTemplateName": "jax-gpu-gke-a4xmax-2nodes-rdma"}));
    assert_eq!(node_container(rt)["resources"]["claims"][0], json!({"name": "rdma"}));
    assert_eq!(node_container(rt)["resources"]["limits"]["nvidia.com/gpu"], "4", "whole-node RDMA: all 4 GPUs");
    // NVIDIA/aicr docs/integrator/gke-a4x-max-networking.md: the profile label the workload must
    // select, the node-pool label that turns DRANET on, the host driver mount.
    assert_eq!(pod["nodeSelector"]["gke.networks.io/accelerator-network-profile"], "auto");
    assert_eq!(pod["nodeSelector"]["cloud.google.com/gke-networking-dra-driver"], "true");
    assert_eq!(pod["nodeSelector"]["cloud.google.com/gke-accelerator"], "nvidia-gb300");
    assert!(
        pod.get("metadata").is_none() || pod["metadata"]["annotations"]["networking.gke.io/interfaces"].is_null(),
        "no multi-networking on A4X Max"
    );
    let host = pod["volumes"].as_array().unwrap().iter().find(|v| v["name"] == "library-dir-host").unwrap();
    assert_eq!(host["hostPath"]["path"], "/home/kubernetes/bin/nvidia");
    assert_eq!(rt["metadata"]["annotations"]["jax-runtimes.dev/interconnect"], "gke-dranet-mrdma");

    let t = object(&docs, "ResourceClaimTemplate", "jax-gpu-gke-a4xmax-2nodes-rdma");
    assert_eq!(t["apiVersion"], "resource.k8s.io/v1");
    assert!(t["metadata"].get("namespace").is_none(), "a ClusterTrainingRuntime's template is applied in each TrainJob namespace");
    assert_eq!(
        t["spec"]["spec"]["devices"]["requests"],
        json!([{"name": "rdma", "exactly": {"deviceClassName": "mrdma.google.com", "allocationMode": "ExactCount", "count": 8}}])
    );
    assert_eq!(t["metadata"]["labels"]["app.kubernetes.io/managed-by"], "jax-runtimes");
}

#[test]
fn aks_dranet_is_chosen_with_interconnect_dra_and_replaces_the_device_plugin_resource() {
    let docs = rendered();
    let rt = object(&docs, "ClusterTrainingRuntime", AKS);
    let c = node_container(rt);
    assert!(c["resources"]["limits"].get("rdma/ib").is_none(), "DRANET claims the NICs; no device-plugin resource: {c}");
    assert_eq!(c["resources"]["claims"], json!([{"name": "rdma"}]));
    assert_eq!(c["securityContext"]["capabilities"]["add"], json!(["IPC_LOCK"]));
    assert_eq!(node_pod(rt)["resourceClaims"][0]["resourceClaimTemplateName"], "jax-gpu-aks-ndh100v5-dranet-2nodes-rdma");
    let t = object(&docs, "ResourceClaimTemplate", "jax-gpu-aks-ndh100v5-dranet-2nodes-rdma");
    // kubernetes-sigs/dranet examples/azure_aks_examples/mi300x/resource-claim-template.yaml (8nic-all).
    assert_eq!(
        t["spec"]["spec"]["devices"]["requests"][0]["exactly"],
        json!({"deviceClassName": "dranet.net", "allocationMode": "ExactCount", "count": 8,
               "selectors": [{"cel": {"expression": "device.attributes[\"dra.net\"][\"rdma\"] == true"}}]})
    );
    // `auto` on the same machine keeps the device-plugin fabric.
    let root = support::root();
    let dir = support::dir_with(&[(
        "c.yaml",
        "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: ib}\nspec:\n  platform: aks\n  numNodes: 2\n  accelerator: {gpu: {model: h100-80gb}}\n",
    )]);
    let auto = documents(&support::render(&[&root.join("catalog/runtimes/defaults.yaml"), &dir.path().join("c.yaml")]));
    let rt = object(&auto, "ClusterTrainingRuntime", "ib");
    assert_eq!(node_container(rt)["resources"]["limits"]["rdma/ib"], "8");
    assert!(node_pod(rt).get("resourceClaims").is_none());
    assert!(!auto.iter().any(|d| d["kind"] == "ResourceClaimTemplate"));
}

#[test]
fn dra_on_a_machine_without_a_dra_fabric_is_not_wired_and_says_so() {
    let text = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: x}\nspec:\n  platform: gke\n  numNodes: 2\n  accelerator: {gpu: {model: h100-mega-80gb, interconnect: dra}}\n";
    let out = jax_runtimes::generate(&support::parse("c.yaml", text));
    let found: Vec<String> = out.diagnostics.iter().map(|d| format!("{} {}", d.rule.id, d.message)).collect();
    assert!(found.iter().any(|d| d.starts_with("interconnect/not-wired") && d.contains("no DRA fabric")), "{found:?}");
    let rt = &out.runtimes[0].object;
    assert!(node_pod(rt).get("resourceClaims").is_none(), "{rt}");
    assert_eq!(rt["metadata"]["annotations"]["jax-runtimes.dev/interconnect"], "none");
    assert!(out.companions.is_empty());
}

#[test]
fn every_trainer_release_accepts_the_claims_and_its_schema_does_check_them() {
    let [d, c] = catalog();
    let dir = tempfile::tempdir().unwrap();
    let text = support::render(&[&d, &c]);
    std::fs::write(dir.path().join("out.yaml"), &text).unwrap();
    for release in ["v2.2.0", "v2.2.1", "v2.3.0", "next"] {
        let r = run_in(dir.path(), &["validate", "out.yaml", "--trainer-version", release, "--color", "never"], None);
        assert_eq!(r.code, 0, "{release}: {}", r.all());
    }
    // A template name that is not a string is refused by the schema: the field is checked.
    let broken = text.replace("resourceClaimTemplateName: jax-gpu-gke-a4xmax-2nodes-rdma", "resourceClaimTemplateName: [1]");
    assert_ne!(broken, text);
    std::fs::write(dir.path().join("broken.yaml"), broken).unwrap();
    let r = run_in(dir.path(), &["validate", "broken.yaml", "--color", "never"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.all().contains("resourceClaimTemplateName"), "{}", r.all());
}

/// One A4X Max node as `kubectl get nodes -o yaml` prints it, with or without the DRANET label.
fn a4x_max_node(i: usize, dranet: bool) -> String {
    let mut labels = vec![
        ("kubernetes.io/hostname".to_string(), format!("gke-a4xmax-{i}")),
        ("kubernetes.io/arch".into(), "arm64".into()),
        ("kubernetes.io/os".into(), "linux".into()),
        ("node.kubernetes.io/instance-type".into(), "a4x-maxgpu-4g-metal".into()),
        ("cloud.google.com/gke-accelerator".into(), "nvidia-gb300".into()),
        ("cloud.google.com/gke-nodepool".into(), "a4xmax".into()),
        ("gke.networks.io/accelerator-network-profile".into(), "auto".into()),
    ];
    if dranet {
        labels.push(("cloud.google.com/gke-networking-dra-driver".into(), "true".into()));
    }
    let labels: String = labels.iter().map(|(k, v)| format!("      {k}: \"{v}\"\n")).collect();
    format!(
        "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: gke-a4xmax-{i}\n    labels:\n{labels}  spec:\n    taints:\n    - {{key: nvidia.com/gpu, value: present, effect: NoSchedule}}\n    - {{key: kubernetes.io/arch, value: arm64, effect: NoSchedule}}\n  status:\n    allocatable: {{cpu: \"140\", memory: 900Gi, nvidia.com/gpu: \"4\", pods: \"110\"}}\n    capacity: {{cpu: \"144\", memory: 960Gi, nvidia.com/gpu: \"4\", pods: \"110\"}}\n    conditions:\n    - {{type: Ready, status: \"True\", reason: KubeletReady}}\n"
    )
}

fn nodes(items: &[String]) -> String {
    format!("apiVersion: v1\nkind: List\nitems:\n{}", items.concat())
}

fn fit_json(dir: &Path, nodes_file: &str) -> (i32, Value) {
    let [d, c] = catalog();
    let r = run_in(dir, &["fit", "--nodes", nodes_file, d.to_str().unwrap(), c.to_str().unwrap(), "--format", "json"], None);
    let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", r.all()));
    (r.code, v)
}

fn verdict<'a>(v: &'a Value, runtime: &str) -> &'a Value {
    v.as_array().unwrap().iter().find(|o| o["runtime"] == runtime).unwrap_or_else(|| panic!("no verdict for {runtime}: {v}"))
}

#[test]
fn a4x_max_fits_a_pool_with_the_dranet_labels_and_not_one_without() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("with.yaml"), nodes(&[a4x_max_node(0, true), a4x_max_node(1, true)])).unwrap();
    std::fs::write(dir.path().join("without.yaml"), nodes(&[a4x_max_node(0, false), a4x_max_node(1, false)])).unwrap();
    let (_, v) = fit_json(dir.path(), "with.yaml");
    let a = verdict(&v, A4X_MAX);
    assert_eq!(a["fits"], true, "{a}");
    assert_eq!(a["copies"], 1, "{a}");
    let (code, v) = fit_json(dir.path(), "without.yaml");
    assert_eq!(code, 1);
    let a = verdict(&v, A4X_MAX);
    assert_eq!(a["fits"], false, "{a}");
    assert!(a.to_string().contains("cloud.google.com/gke-networking-dra-driver"), "the reason names the missing label: {a}");
}

#[test]
fn the_aks_dranet_runtime_fits_nd_nodes_that_advertise_no_rdma_resource() {
    let node = |i: usize| {
        format!(
            "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: aks-gpunp-{i}\n    labels:\n      kubernetes.io/hostname: aks-gpunp-{i}\n      kubernetes.io/os: linux\n      node.kubernetes.io/instance-type: Standard_ND96isr_H100_v5\n      kubernetes.azure.com/agentpool: gpunp\n      agentpool: gpunp\n  spec:\n    taints:\n    - {{key: sku, value: gpu, effect: NoSchedule}}\n  status:\n    allocatable: {{cpu: 95500m, memory: 1858215876Ki, nvidia.com/gpu: \"8\", pods: \"110\"}}\n    capacity: {{cpu: \"96\", memory: 1900000000Ki, nvidia.com/gpu: \"8\", pods: \"110\"}}\n    conditions:\n    - {{type: Ready, status: \"True\", reason: KubeletReady}}\n"
        )
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("nd.yaml"), nodes(&[node(0), node(1)])).unwrap();
    let (_, v) = fit_json(dir.path(), "nd.yaml");
    assert_eq!(verdict(&v, AKS)["fits"], true, "{}", verdict(&v, AKS));
}

#[test]
fn queues_serving_the_dra_runtimes_get_kueue_objects() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("nodes.yaml"), nodes(&[a4x_max_node(0, true), a4x_max_node(1, true)])).unwrap();
    let [d, c] = catalog();
    let queue = format!(
        "{}---\n{}---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeQueue\nmetadata: {{name: gb300}}\nspec:\n  runtimes: {{names: [{A4X_MAX}]}}\n  namespaces: [research]\n  quotas: [{{runtime: {A4X_MAX}, nodes: 2}}]\n",
        std::fs::read_to_string(d).unwrap(),
        std::fs::read_to_string(c).unwrap()
    );
    std::fs::write(dir.path().join("catalog.yaml"), queue).unwrap();
    let r = run_in(dir.path(), &["kueue", "--nodes", "nodes.yaml", "catalog.yaml", "--color", "never"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let objects = documents(&r.stdout);
    let cq = objects.iter().find(|o| o["kind"] == "ClusterQueue").unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(cq.to_string().contains("nvidia.com/gpu"), "{cq}");
    assert!(objects.iter().any(|o| o["kind"] == "LocalQueue" && o["metadata"]["namespace"] == "research"), "{}", r.stdout);
    // `render` of the same catalog writes the runtimes, their templates and the Kueue objects.
    let all = documents(&support::render(&[&dir.path().join("catalog.yaml")]));
    for kind in ["ClusterTrainingRuntime", "ResourceClaimTemplate", "ClusterQueue", "LocalQueue"] {
        assert!(all.iter().any(|o| o["kind"] == kind), "no {kind}");
    }
}

#[test]
fn render_to_a_folder_writes_each_template_in_its_own_file() {
    let [d, c] = catalog();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let r = run_in(dir.path(), &["render", d.to_str().unwrap(), c.to_str().unwrap(), "-o", "out"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let files = support::text_tree(&out);
    let t = &files["resourceclaimtemplate_jax-gpu-gke-a4xmax-2nodes-rdma.yaml"];
    assert!(t.contains("deviceClassName: mrdma.google.com"), "{t}");
    assert!(
        files["kustomization.yaml"].contains("resourceclaimtemplate_jax-gpu-aks-ndh100v5-dranet-2nodes-rdma.yaml"),
        "{}",
        files["kustomization.yaml"]
    );
    // Idempotent: `--check` finds it up to date.
    let r = run_in(dir.path(), &["render", d.to_str().unwrap(), c.to_str().unwrap(), "-o", "out", "--check"], None);
    assert_eq!(r.code, 0, "{}", r.all());
}

#[test]
fn validate_checks_the_claims_against_the_templates_given_with_the_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let docs = rendered();
    let runtimes: Vec<&Value> = docs.iter().filter(|o| o["kind"] == "ClusterTrainingRuntime").collect();
    // With the ComputeDomain A4X Max's pods claim the channel of (its template is the driver's).
    let templates: Vec<&Value> = docs.iter().filter(|o| o["kind"] == "ResourceClaimTemplate" || o["kind"] == "ComputeDomain").collect();
    assert_eq!((runtimes.len(), templates.len()), (2, 3));
    let write = |name: &str, objects: &[&Value]| {
        let owned: Vec<Value> = objects.iter().map(|v| (*v).clone()).collect();
        support::write_stream(&dir.path().join(name), &owned);
    };
    write("runtimes.yaml", &runtimes);
    write("templates.yaml", &templates);
    // With their templates: nothing to say about the claims, and the templates are not "skipped".
    let r = run_in(dir.path(), &["validate", "runtimes.yaml", "templates.yaml", "--color", "never"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(!r.all().contains("dra/") && !r.all().contains("input/not-a-runtime"), "{}", r.all());
    // Without them: a warning per claim (the templates may exist in the cluster), exit 0; A4X Max's
    // pods claim its RDMA NICs and the ComputeDomain's channel.
    let r = run_in(dir.path(), &["validate", "runtimes.yaml", "--color", "never", "--format", "json"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let found: Value = serde_json::from_str(&r.stdout).unwrap();
    let ids: Vec<&str> = found.as_array().unwrap().iter().filter_map(|f| f["rule"].as_str()).filter(|id| id.starts_with("dra/")).collect();
    assert_eq!(ids, ["dra/template-not-given"; 3], "{found}");
    // A template of another DeviceClass than the fabric's: a warning at the template.
    let mut wrong = templates[1].clone();
    assert_eq!(wrong["metadata"]["name"], "jax-gpu-gke-a4xmax-2nodes-rdma");
    wrong["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = json!("netdev.google.com");
    write("wrong.yaml", &[templates[0], &wrong]);
    let r = run_in(dir.path(), &["validate", "runtimes.yaml", "wrong.yaml", "--color", "never"], None);
    assert!(
        r.stderr.contains("warning[dra/device-class]: wrong.yaml") || r.stdout.contains("warning[dra/device-class]: wrong.yaml"),
        "{}",
        r.all()
    );
    assert!(r.all().contains("`netdev.google.com`") && r.all().contains("`mrdma.google.com`"), "{}", r.all());
    // A container claim the pod does not declare: an error (the API server refuses the pods).
    let mut broken = runtimes[1].clone();
    broken["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["resources"]
        ["claims"] = json!([{"name": "rdma"}, {"name": "imex"}]);
    write("broken.yaml", &[&broken]);
    let r = run_in(dir.path(), &["validate", "broken.yaml", "templates.yaml", "--color", "never"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.all().contains("error[dra/claim-not-in-pod]") && r.all().contains("`imex`"), "{}", r.all());
}

// ------------------------------------------------------------------ TPU v6e: GKE DRANET netdev

/// A TPU v6e entry with `interconnect: dra`, and the same slice without it.
const V6E: &str = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: v6e-dranet}\nspec:\n  platform: gke\n  accelerator:\n    tpu: {type: v6e, topology: 4x4, interconnect: dra}\n---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: v6e-plain}\nspec:\n  platform: gke\n  accelerator:\n    tpu: {type: v6e, topology: 4x4}\n";

/// A GKE v6e 4x4 node pool of 4 ct6e-standard-4t hosts, with or without the DRANET node-pool label.
fn v6e_pool(dranet: bool) -> String {
    let label = if dranet { "      cloud.google.com/gke-networking-dra-driver: \"true\"\n" } else { "" };
    let items: Vec<String> = (0..4)
        .map(|i| {
            format!(
                "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: gke-v6e-{i}\n    labels:\n      kubernetes.io/hostname: gke-v6e-{i}\n      kubernetes.io/os: linux\n      cloud.google.com/gke-nodepool: v6e-a\n      cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice\n      cloud.google.com/gke-tpu-topology: 4x4\n      node.kubernetes.io/instance-type: ct6e-standard-4t\n{label}  spec:\n    taints:\n    - {{effect: NoSchedule, key: google.com/tpu, value: present}}\n  status:\n    allocatable: {{cpu: \"180\", memory: 700Gi, google.com/tpu: \"4\", pods: \"110\"}}\n    conditions:\n    - {{type: Ready, status: \"True\", reason: KubeletReady}}\n"
            )
        })
        .collect();
    nodes(&items)
}

/// Issue 53 item 3: a v6e slice asks for GKE managed DRANET with `interconnect: dra` and claims
/// every non-RDMA NIC of its host (the GKE page's `all-netdev` template: DeviceClass
/// `netdev.google.com`, `allocationMode: All`), selects the node-pool label that turns the driver
/// on, validates clean with its template, fits a pool with the label and not one without, and a
/// queue's flavor carries the label.
#[test]
fn a_v6e_slice_with_interconnect_dra_claims_every_netdev_nic_of_its_host() {
    let dir = support::dir_with(&[
        ("v6e.yaml", V6E),
        ("with.yaml", &v6e_pool(true)),
        ("without.yaml", &v6e_pool(false)),
        (
            "queue.yaml",
            "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeQueue\nmetadata: {name: v6e}\nspec:\n  runtimes: {names: [v6e-dranet]}\n  namespaces: [research]\n",
        ),
    ]);
    let defaults = support::root().join("catalog/runtimes/defaults.yaml");
    let defaults = defaults.to_str().unwrap();
    let r = run_in(dir.path(), &["render", defaults, "v6e.yaml"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let docs = documents(&r.stdout);
    let rt = object(&docs, "ClusterTrainingRuntime", "v6e-dranet");
    let pod = node_pod(rt);
    assert_eq!(pod["resourceClaims"], json!([{"name": "netdev", "resourceClaimTemplateName": "v6e-dranet-netdev"}]));
    assert_eq!(node_container(rt)["resources"]["claims"], json!([{"name": "netdev"}]));
    assert_eq!(node_container(rt)["resources"]["limits"]["google.com/tpu"], "4");
    assert_eq!(pod["nodeSelector"]["cloud.google.com/gke-networking-dra-driver"], "true");
    assert_eq!(pod["nodeSelector"]["cloud.google.com/gke-tpu-accelerator"], "tpu-v6e-slice");
    assert_eq!(rt["metadata"]["annotations"]["jax-runtimes.dev/interconnect"], "gke-dranet-netdev");
    let t = object(&docs, "ResourceClaimTemplate", "v6e-dranet-netdev");
    assert_eq!(
        t["spec"]["spec"]["devices"]["requests"],
        json!([{"name": "netdev", "exactly": {"deviceClassName": "netdev.google.com", "allocationMode": "All"}}])
    );
    // Without `interconnect: dra` the slice is as before: no claim, no template, no DRANET label.
    let plain = object(&docs, "ClusterTrainingRuntime", "v6e-plain");
    assert!(
        node_pod(plain).get("resourceClaims").is_none()
            && node_pod(plain)["nodeSelector"].get("cloud.google.com/gke-networking-dra-driver").is_none()
    );
    assert_eq!(docs.iter().filter(|d| d["kind"] == "ResourceClaimTemplate").count(), 1);

    // Validated with its template: clean; a template of another DeviceClass: dra/device-class.
    std::fs::write(dir.path().join("out.yaml"), &r.stdout).unwrap();
    let v = run_in(dir.path(), &["validate", "out.yaml", "--color", "never"], None);
    assert_eq!(v.code, 0, "{}", v.all());
    assert!(!v.all().contains("warning[") && !v.all().contains("dra/"), "{}", v.all());
    std::fs::write(
        dir.path().join("wrong.yaml"),
        r.stdout.replace("deviceClassName: netdev.google.com", "deviceClassName: mrdma.google.com"),
    )
    .unwrap();
    let v = run_in(dir.path(), &["validate", "wrong.yaml", "--color", "never"], None);
    assert!(v.all().contains("warning[dra/device-class]") && v.all().contains("`netdev.google.com`"), "{}", v.all());

    // fit: the pool with the DRANET label takes it, the one without does not (and says why); the
    // plain slice fits both.
    let fit = |nodes_file: &str| -> Value {
        let r = run_in(dir.path(), &["fit", "--nodes", nodes_file, defaults, "v6e.yaml", "--format", "json"], None);
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", r.all()))
    };
    let with = fit("with.yaml");
    assert_eq!(
        (verdict(&with, "v6e-dranet")["copies"].as_u64(), verdict(&with, "v6e-plain")["fits"].as_bool()),
        (Some(1), Some(true)),
        "{with}"
    );
    let without = fit("without.yaml");
    let no = verdict(&without, "v6e-dranet");
    assert_eq!(no["fits"], false, "{no}");
    assert!(no["reason"].as_str().unwrap().contains("has no cloud.google.com/gke-networking-dra-driver"), "{no}");
    assert_eq!(verdict(&without, "v6e-plain")["fits"], true);

    // Kueue: the flavor selects the DRANET label too, so the pool without it gives no quota.
    let r = run_in(dir.path(), &["kueue", "--nodes", "with.yaml", defaults, "v6e.yaml", "queue.yaml"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let objects = documents(&r.stdout);
    let flavor = objects.iter().find(|o| o["kind"] == "ResourceFlavor").unwrap_or_else(|| panic!("{}", r.stdout));
    assert_eq!(flavor["spec"]["nodeLabels"], pod["nodeSelector"], "{flavor}");
    let r = run_in(dir.path(), &["kueue", "--nodes", "without.yaml", defaults, "v6e.yaml", "queue.yaml"], None);
    assert_eq!(r.code, 1, "{}", r.all());
}

#[test]
fn interconnect_dra_on_a_tpu_without_a_dra_fabric_is_refused_and_names_the_ones_with() {
    let text = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: x}\nspec:\n  platform: gke\n  accelerator: {tpu: {type: v5e, topology: 4x4, interconnect: dra}}\n";
    let dir = support::dir_with(&[("c.yaml", text)]);
    let r = run_in(dir.path(), &["render", "c.yaml", "--color", "never"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stdout.is_empty(), "nothing written: {}", r.stdout);
    assert!(r.stderr.contains("spec.accelerator.tpu.interconnect") && r.stderr.contains("`ct6e-standard-4t`"), "{}", r.all());
}

// ------------------------------------------------------------------ A4X Max: the ComputeDomain

const DOMAIN: &str = "jax-gpu-gke-a4xmax-2nodes-compute-domain";
const CHANNEL: &str = "jax-gpu-gke-a4xmax-2nodes-compute-domain-channel";

/// Issue 53 item 3: Trainer cannot carry A4X Max's ComputeDomain (multi-node NVLink, IMEX), so
/// render writes it beside the runtime and the pod claims its channel from the template the NVIDIA
/// DRA driver makes (NVIDIA/aicr gke-a4x-max-networking.md "Workload wiring"; the driver's
/// computedomain.go: `spec.channel.resourceClaimTemplate.name`, namespaced, `numNodes`).
#[test]
fn a4x_max_gets_its_compute_domain_beside_it_and_claims_the_channel() {
    let docs = rendered();
    let d = object(&docs, "ComputeDomain", DOMAIN);
    assert_eq!(d["apiVersion"], "resource.nvidia.com/v1beta1");
    assert!(d["metadata"].get("namespace").is_none(), "a ClusterTrainingRuntime's ComputeDomain is applied in each TrainJob namespace");
    assert_eq!(d["spec"], json!({"numNodes": 2, "channel": {"resourceClaimTemplate": {"name": CHANNEL}}}));
    let rt = object(&docs, "ClusterTrainingRuntime", A4X_MAX);
    assert_eq!(
        node_pod(rt)["resourceClaims"],
        json!([{"name": "rdma", "resourceClaimTemplateName": "jax-gpu-gke-a4xmax-2nodes-rdma"},
               {"name": "compute-domain-channel", "resourceClaimTemplateName": CHANNEL}])
    );
    assert_eq!(node_container(rt)["resources"]["claims"], json!([{"name": "rdma"}, {"name": "compute-domain-channel"}]));
    // The driver makes the channel's template: render does not write one.
    assert!(!docs.iter().any(|o| o["kind"] == "ResourceClaimTemplate" && o["metadata"]["name"] == CHANNEL));
    // AKS DRANET has no ComputeDomain.
    assert_eq!(docs.iter().filter(|o| o["kind"] == "ComputeDomain").count(), 1);

    // render -o: its own file, listed in the kustomization.
    let [def, cat] = catalog();
    let dir = tempfile::tempdir().unwrap();
    let r = run_in(dir.path(), &["render", def.to_str().unwrap(), cat.to_str().unwrap(), "-o", "out"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let files = support::text_tree(&dir.path().join("out"));
    assert!(files[&format!("computedomain_{DOMAIN}.yaml")].contains("kind: ComputeDomain"));
    assert!(files["kustomization.yaml"].contains(&format!("computedomain_{DOMAIN}.yaml")), "{}", files["kustomization.yaml"]);
}

#[test]
fn validate_checks_the_compute_domain_against_the_pod_claims() {
    let dir = tempfile::tempdir().unwrap();
    let docs = rendered();
    let rt = object(&docs, "ClusterTrainingRuntime", A4X_MAX).clone();
    let template = object(&docs, "ResourceClaimTemplate", "jax-gpu-gke-a4xmax-2nodes-rdma").clone();
    let domain = object(&docs, "ComputeDomain", DOMAIN).clone();
    let write = |name: &str, objects: &[&Value]| {
        let owned: Vec<Value> = objects.iter().map(|v| (*v).clone()).collect();
        support::write_stream(&dir.path().join(name), &owned);
    };
    let rules = |files: &[&str]| -> (i32, Vec<String>) {
        let mut args = vec!["validate", "--format", "json"];
        args.extend(files);
        let r = run_in(dir.path(), &args, None);
        let found: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
        let ids = found
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] != "info")
            .map(|f| format!("{} {}", f["rule"].as_str().unwrap(), f["message"].as_str().unwrap()))
            .collect();
        (r.code, ids)
    };
    write("rt.yaml", &[&rt]);
    write("template.yaml", &[&template]);
    write("domain.yaml", &[&domain]);
    // As render writes them: nothing to say (the channel's template is the driver's).
    assert_eq!(rules(&["rt.yaml", "template.yaml", "domain.yaml"]), (0, vec![]));
    // Without the ComputeDomain: its channel's template is not among the objects.
    let (_, found) = rules(&["rt.yaml", "template.yaml"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("dra/template-not-given") && found[0].contains(CHANNEL), "{found:?}");
    // A pod that does not claim the channel: dra/compute-domain.
    let mut unclaimed = rt.clone();
    let pod = &mut unclaimed["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
    pod["resourceClaims"].as_array_mut().unwrap().retain(|c| c["name"] != "compute-domain-channel");
    pod["containers"][0]["resources"]["claims"].as_array_mut().unwrap().retain(|c| c["name"] != "compute-domain-channel");
    write("unclaimed.yaml", &[&unclaimed]);
    let (code, found) = rules(&["unclaimed.yaml", "template.yaml", "domain.yaml"]);
    assert_eq!(code, 0, "a warning");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("dra/compute-domain") && found[0].contains("`compute-domain-channel`"), "{found:?}");
    // A ComputeDomain that expects fewer nodes than the runtime runs: dra/compute-domain at it.
    let mut small = domain.clone();
    small["spec"]["numNodes"] = json!(1);
    write("small.yaml", &[&small]);
    let (_, found) = rules(&["rt.yaml", "template.yaml", "small.yaml"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("dra/compute-domain") && found[0].contains("expects 1 node(s)") && found[0].contains("runs 2"),
        "{found:?}"
    );
}
