//! Kueue: the CRDs of Kueue v0.19.2 as `validate --crd` inputs, and the queues, flavors and quotas
//! jax-runtimes generates and checks.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use support::*;

/// Every Kueue v0.19.2 CRD compiles as a `--crd` file: their patterns are Go regular expressions
/// (the admissionchecks CRD has `^(?i)[a-z]...`, which ECMA 262 has no syntax for).
#[test]
fn validate_takes_every_kueue_crd() {
    let Some(files) = kueue_crd_files() else { return };
    let runtimes = root().join("tests/validate/base");
    let mut args = vec!["validate".to_string(), "--format".into(), "json".into()];
    for f in &files {
        args.push("--crd".into());
        args.push(f.display().to_string());
    }
    args.push(runtimes.display().to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(&args, None);
    assert!(!r.stdout.contains("crd/unusable") && !r.stderr.contains("crd/unusable"), "{}", r.all());
    assert_ne!(r.code, 2, "{}", r.all());
}

/// Two runtimes of different shapes: a TPU v5e 4x4 slice (4 hosts of 4 chips) and two EKS p5 nodes
/// (8 GPUs, 32 EFA devices, hugepages and memory per pod).
const CATALOG: &str = "\
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: tpu-4x4}
spec:
  accelerator: {tpu: {type: v5e, topology: 4x4}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: p5-2nodes}
spec:
  platform: eks
  numNodes: 2
  accelerator: {gpu: {model: h100-80gb, machineType: p5.48xlarge}}
";

/// Queues that admit both runtimes: a flavor per shape, a queue covering what they request.
const QUEUES: &str = "\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: v5e-4x4}
spec:
  nodeLabels: {cloud.google.com/gke-tpu-accelerator: tpu-v5-lite-podslice, cloud.google.com/gke-tpu-topology: 4x4}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: p5}
spec:
  nodeLabels: {node.kubernetes.io/instance-type: p5.48xlarge}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: training}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [google.com/tpu, nvidia.com/gpu, vpc.amazonaws.com/efa, hugepages-2Mi, memory]
    flavors:
    - name: v5e-4x4
      resources:
      - {name: google.com/tpu, nominalQuota: 16}
      - {name: nvidia.com/gpu, nominalQuota: 0}
      - {name: vpc.amazonaws.com/efa, nominalQuota: 0}
      - {name: hugepages-2Mi, nominalQuota: 0}
      - {name: memory, nominalQuota: 0}
    - name: p5
      resources:
      - {name: google.com/tpu, nominalQuota: 0}
      - {name: nvidia.com/gpu, nominalQuota: 16}
      - {name: vpc.amazonaws.com/efa, nominalQuota: 64}
      - {name: hugepages-2Mi, nominalQuota: 10Gi}
      - {name: memory, nominalQuota: 64000Mi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: training, namespace: team-a}
spec: {clusterQueue: training}
";

/// A TrainJob of each runtime, queued in team-a.
const TRAINJOBS: &str = "\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tpu-job, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: training}}
spec: {runtimeRef: {name: tpu-4x4}, trainer: {}}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: gpu-job, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: training}}
spec: {runtimeRef: {name: p5-2nodes}, trainer: {}}
";

/// The runtimes of [`CATALOG`], each annotated as served by ClusterQueue `training`.
fn runtimes(dir: &std::path::Path) -> String {
    std::fs::write(dir.join("catalog.yaml"), CATALOG).unwrap();
    let mut docs = documents(&render(&[&dir.join("catalog.yaml")]));
    for d in &mut docs {
        d["metadata"]["annotations"]["jax-runtimes.dev/cluster-queue"] = "training".into();
    }
    docs.iter().map(|d| serde_json::to_string(d).unwrap()).collect::<Vec<_>>().join("\n---\n")
}

/// `validate` of the runtimes, the queues and the TrainJobs: the findings as (rule, object).
fn check(queues: &str, trainjobs: &str) -> (i32, Vec<(String, String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    let all = format!("{}\n---\n{queues}---\n{trainjobs}", runtimes(dir.path()));
    std::fs::write(dir.path().join("all.yaml"), all).unwrap();
    let r = run_in(dir.path(), &["validate", "--format", "json", "all.yaml"], None);
    assert_ne!(r.code, 2, "{}", r.all());
    let found: Vec<serde_json::Value> = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    let found = found
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| {
            let o = &d["object"];
            let object = match o["namespace"].as_str() {
                Some(ns) => format!("{}/{ns}/{}", o["kind"].as_str().unwrap_or_default(), o["name"].as_str().unwrap_or_default()),
                None => format!("{}/{}", o["kind"].as_str().unwrap_or_default(), o["name"].as_str().unwrap_or_default()),
            };
            (d["rule"].as_str().unwrap_or_default().to_string(), object, d["message"].as_str().unwrap_or_default().to_string())
        })
        .collect();
    (r.code, found)
}

fn rules(found: &[(String, String, String)]) -> Vec<(&str, &str)> {
    found.iter().map(|(r, o, _)| (r.as_str(), o.as_str())).collect()
}

#[test]
fn queues_that_admit_their_runtimes_pass() {
    let (code, found) = check(QUEUES, TRAINJOBS);
    assert!(found.is_empty() && code == 0, "{found:#?}");
}

#[test]
fn a_runtime_no_flavor_matches_is_never_admitted() {
    let (_, found) = check(&QUEUES.replace("topology: 4x4}", "topology: 2x4}"), TRAINJOBS);
    assert_eq!(
        rules(&found),
        [("kueue/no-matching-flavor", "ClusterTrainingRuntime/tpu-4x4"), ("kueue/no-matching-flavor", "TrainJob/team-a/tpu-job")],
        "{found:#?}"
    );
    assert!(found[0].2.contains("flavor `v5e-4x4` (cloud.google.com/gke-tpu-accelerator=tpu-v5-lite-podslice, cloud.google.com/gke-tpu-topology=2x4) doesn't match"), "{}", found[0].2);
    assert!(found[0].2.ends_with("the TrainJob stays suspended: Kueue never admits it"), "{}", found[0].2);
}

#[test]
fn a_requested_fabric_resource_the_queue_does_not_cover_is_never_admitted() {
    let queues = QUEUES
        .replace(", vpc.amazonaws.com/efa, hugepages", ", hugepages")
        .replace("      - {name: vpc.amazonaws.com/efa, nominalQuota: 0}\n", "")
        .replace("      - {name: vpc.amazonaws.com/efa, nominalQuota: 64}\n", "");
    let (_, found) = check(&queues, TRAINJOBS);
    assert_eq!(
        rules(&found),
        [("kueue/resource-not-covered", "ClusterTrainingRuntime/p5-2nodes"), ("kueue/resource-not-covered", "TrainJob/team-a/gpu-job")],
        "{found:#?}"
    );
    assert!(found[0].2.contains("requests `vpc.amazonaws.com/efa`"), "{}", found[0].2);
}

#[test]
fn a_quota_below_one_gang_is_never_admitted() {
    let (_, found) =
        check(&QUEUES.replace("{name: nvidia.com/gpu, nominalQuota: 16}", "{name: nvidia.com/gpu, nominalQuota: 8}"), TRAINJOBS);
    assert_eq!(
        rules(&found),
        [("kueue/quota-below-gang", "ClusterTrainingRuntime/p5-2nodes"), ("kueue/quota-below-gang", "TrainJob/team-a/gpu-job")],
        "{found:#?}"
    );
    assert!(
        found[0].2.contains("needs 16 of `nvidia.com/gpu` (2 pods of 8 each), and flavor `p5` can hold at most 8 (1 pod)"),
        "{}",
        found[0].2
    );
}

#[test]
fn a_queue_name_with_no_local_queue_in_the_namespace() {
    let (_, found) = check(QUEUES, &TRAINJOBS.replace("name: gpu-job, namespace: team-a", "name: gpu-job, namespace: team-b"));
    assert_eq!(rules(&found), [("kueue/unknown-local-queue", "TrainJob/team-b/gpu-job")], "{found:#?}");
    assert!(found[0].2.contains("no LocalQueue `training` in namespace `team-b`"), "{}", found[0].2);
    // Without LocalQueues in the input, nothing is known about them: no finding.
    let no_lq = QUEUES.split("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue").next().unwrap();
    let (_, found) = check(no_lq, &TRAINJOBS.replace("namespace: team-a", "namespace: team-b"));
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn a_slice_size_larger_than_the_pod_count_is_rejected_at_create() {
    let patch = "runtimePatches: [{manager: example.com/tas, trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: {template: {metadata: {annotations: {kueue.x-k8s.io/podset-slice-required-topology: cloud.google.com/gke-nodepool, kueue.x-k8s.io/podset-slice-size: '8'}}}}}}]}}}}]";
    let trainjobs = TRAINJOBS.replace(
        "spec: {runtimeRef: {name: tpu-4x4}, trainer: {}}",
        &format!("spec: {{runtimeRef: {{name: tpu-4x4}}, trainer: {{}}, {patch}}}"),
    );
    let (_, found) = check(QUEUES, &trainjobs);
    // The queue has no Topology Aware Scheduling flavor either: the TrainJob would never be admitted.
    assert_eq!(
        rules(&found),
        [("kueue/no-matching-flavor", "TrainJob/team-a/tpu-job"), ("kueue/tas-slice-size", "TrainJob/team-a/tpu-job")],
        "{found:#?}"
    );
    assert!(
        found[1].2.contains("\"8\" must not be greater than pod set count 4")
            && found[1].2.ends_with("Kueue's webhook rejects this TrainJob at create"),
        "{}",
        found[1].2
    );
    assert!(found[0].2.contains("flavor `v5e-4x4` does not support Topology Aware Scheduling"), "{}", found[0].2);
}

/// TAS annotations on the runtime's own pod template are checked on the runtime, where the fix is.
#[test]
fn tas_annotations_of_a_runtime_are_checked_against_its_pod_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut docs: Vec<serde_json::Value> = documents(&runtimes(dir.path()));
    let tpu = docs.iter_mut().find(|d| d["metadata"]["name"] == "tpu-4x4").unwrap();
    tpu["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"] = serde_json::json!({"annotations": {
        "kueue.x-k8s.io/podset-slice-required-topology": "cloud.google.com/gke-nodepool",
        "kueue.x-k8s.io/podset-slice-size": "8",
        "kueue.x-k8s.io/podset-preferred-topology": "cloud.google.com/gke-nodepool",
        "kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gke-nodepool",
    }});
    write_stream(&dir.path().join("runtimes.yaml"), &docs);
    let r = run_in(dir.path(), &["validate", "--format", "json", "runtimes.yaml"], None);
    let found: Vec<serde_json::Value> = serde_json::from_str(&r.stdout).unwrap();
    let rules: Vec<(&str, &str)> = found.iter().map(|d| (d["rule"].as_str().unwrap(), d["field"].as_str().unwrap_or_default())).collect();
    let at = "spec.template.spec.replicatedJobs[0].template.spec.template.metadata.annotations";
    assert!(rules.contains(&("kueue/tas-topology", at)), "{rules:?}");
    assert!(rules.contains(&("kueue/tas-slice-size", &format!("{at}.kueue.x-k8s.io/podset-slice-size"))), "{rules:?}");
    assert_eq!(r.code, 1);
}

/// The KRM validator checks the package's Kueue objects too, with the runtimes and TrainJobs.
#[test]
fn the_krm_validator_checks_kueue_objects() {
    let dir = tempfile::tempdir().unwrap();
    let mut items: Vec<serde_json::Value> = documents(&runtimes(dir.path()));
    items.extend(documents(&QUEUES.replace("{name: nvidia.com/gpu, nominalQuota: 16}", "{name: nvidia.com/gpu, nominalQuota: 8}")));
    items.extend(documents(TRAINJOBS));
    let list = serde_json::json!({
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": items,
        "functionConfig": {"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeValidation", "metadata": {"name": "validate"}},
    });
    let r = run(&[], Some(&serde_json::to_string(&list).unwrap()));
    assert_eq!(r.code, 1, "{}", r.all());
    let out: serde_json::Value = jax_runtimes::yaml::parse_one(&r.stdout).unwrap();
    let results = out["results"].as_array().unwrap();
    assert!(
        results.iter().any(|x| x["tags"]["rule"] == "kueue/quota-below-gang" && x["resourceRef"]["kind"] == "TrainJob"),
        "{results:#?}"
    );
    assert_eq!(out["items"].as_array().unwrap().len(), items.len(), "every item passes through");
}

/// A catalog of every platform, served by three queues: GKE TPU and GPU with Topology Aware
/// Scheduling, EKS, and AKS with CPU on Kueue's older v1beta1 API.
const QUEUED_CATALOG: &str = "\
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: tpu-4x4, labels: {cluster: gke}}
spec: {accelerator: {tpu: {type: v5e, topology: 4x4}}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: tpu-2x4-1host, labels: {cluster: gke}}
spec: {accelerator: {tpu: {type: v5e, topology: 2x4, chipsPerHost: 8}}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: tpu-2x4-2hosts, labels: {cluster: gke}}
spec: {accelerator: {tpu: {type: v5e, topology: 2x4, chipsPerHost: 4}}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: gke-h100-2nodes, labels: {cluster: gke}}
spec: {platform: gke, numNodes: 2, accelerator: {gpu: {model: h100-80gb}}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: gke-h100, labels: {cluster: gke}}
spec: {platform: gke, accelerator: {gpu: {model: h100-80gb}}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: p5-2nodes, labels: {cluster: eks}}
spec: {platform: eks, numNodes: 2, accelerator: {gpu: {model: h100-80gb, machineType: p5.48xlarge}}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: aks-h100-2nodes, labels: {cluster: aks}}
spec: {platform: aks, numNodes: 2, accelerator: {gpu: {model: h100-80gb, machineType: Standard_ND96isr_H100_v5}}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: cpu, labels: {cluster: aks}}
spec: {accelerator: {cpu: {}}, resources: {requests: {cpu: '8', memory: 32Gi}}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntimeQueue
metadata: {name: gke}
spec:
  runtimes: {matchLabels: {cluster: gke}}
  namespaces: [research, prod]
  cohort: ml
  quotas:
  - {runtime: tpu-4x4, slices: 2}
  - {runtime: gke-h100-2nodes, nodes: 4, borrowingLimit: 2}
  priorityClasses: [{name: prod, value: 1000}, {name: batch, value: 100}]
  topologyAwareScheduling: {}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntimeQueue
metadata: {name: eks}
spec:
  runtimes: {matchLabels: {cluster: eks}}
  quotas: [{runtime: p5-2nodes, nodes: 2}]
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntimeQueue
metadata: {name: aks}
spec:
  kueueApiVersion: kueue.x-k8s.io/v1beta1
  runtimes: {matchLabels: {cluster: aks}}
  cohort: ml
  quotas: [{runtime: cpu, nodes: 4, resources: {cpu: '64'}}]
";

fn render_queued(dir: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::write(dir.join("catalog.yaml"), QUEUED_CATALOG).unwrap();
    documents(&render(&[&dir.join("catalog.yaml")]))
}

fn of_kind<'a>(docs: &'a [serde_json::Value], kind: &str) -> Vec<&'a serde_json::Value> {
    docs.iter().filter(|d| d["kind"] == kind).collect()
}

/// The generated Kueue objects pass the Kueue v0.19.2 CRDs (schema and CEL), and the runtimes
/// with their queue annotations the Trainer CRDs: what `kubectl apply` takes.
#[test]
fn generated_queues_pass_the_kueue_crds() {
    let (Some(mut crds), Some(trainer)) = (kueue_crd_files(), reference_crd_files()) else { return };
    crds.extend(trainer);
    let dir = tempfile::tempdir().unwrap();
    let docs = render_queued(dir.path());
    assert_eq!(of_kind(&docs, "ClusterQueue").len(), 3);
    write_stream(&dir.path().join("out.yaml"), &docs);
    let mut args = vec!["validate".to_string(), "--format".into(), "json".into()];
    for c in &crds {
        args.extend(["--crd".to_string(), c.display().to_string()]);
    }
    args.push("out.yaml".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run_in(dir.path(), &args, None);
    let found: Vec<serde_json::Value> = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    let serious: Vec<&serde_json::Value> = found.iter().filter(|d| d["severity"] != "info").collect();
    assert!(serious.is_empty() && r.code == 0, "{serious:#?}");
    let text: Vec<&str> = args.iter().copied().filter(|a| *a != "--format" && *a != "json").collect();
    let r = run_in(dir.path(), &text, None);
    assert!(r.stderr.contains("8 runtimes and 17 Kueue objects checked"), "{}", r.stderr);
}

/// Every served runtime gets a flavor whose nodeLabels are exactly what its pods select on, its
/// queue covers every resource they request (fabric and hugepages included), in one order, and
/// TAS puts a preferred block on the multi-node GKE GPU runtime only.
#[test]
fn every_served_runtime_has_its_flavor_and_every_resource_covered() {
    let dir = tempfile::tempdir().unwrap();
    let docs = render_queued(dir.path());
    let flavors = of_kind(&docs, "ResourceFlavor");
    let queues = of_kind(&docs, "ClusterQueue");
    for rt in of_kind(&docs, "ClusterTrainingRuntime") {
        let name = name_of(rt);
        let cq = rt["metadata"]["annotations"]["jax-runtimes.dev/cluster-queue"].as_str().unwrap_or_else(|| panic!("{name} is served"));
        let pod = &rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"];
        let selector = pod["spec"]["nodeSelector"].as_object().cloned().unwrap_or_default();
        let queue = queues.iter().find(|q| name_of(q) == cq).unwrap();
        let group = &queue["spec"]["resourceGroups"][0];
        let flavor = group["flavors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| flavors.iter().find(|rf| name_of(rf) == f["name"]).unwrap())
            .find(|rf| rf["spec"]["nodeLabels"].as_object().cloned().unwrap_or_default() == selector)
            .unwrap_or_else(|| panic!("{name}: no flavor with nodeLabels {selector:?}"));
        let covered: Vec<&str> = group["coveredResources"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
        for c in pod["spec"]["containers"].as_array().unwrap() {
            for (r, _) in c["resources"]["requests"]
                .as_object()
                .into_iter()
                .flatten()
                .chain(c["resources"]["limits"].as_object().into_iter().flatten())
            {
                assert!(covered.contains(&r.as_str()), "{name}: `{r}` is not covered by {cq}: {covered:?}");
            }
        }
        for f in group["flavors"].as_array().unwrap() {
            let names: Vec<&str> = f["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
            assert_eq!(names, covered, "{cq}: flavor {} lists the covered resources in their order", f["name"]);
        }
        let tas = pod["metadata"]["annotations"].as_object().cloned().unwrap_or_default();
        let preferred = tas.get("kueue.x-k8s.io/podset-preferred-topology").and_then(|v| v.as_str());
        match name {
            "gke-h100-2nodes" => {
                assert_eq!(preferred, Some("cloud.google.com/gce-topology-block"));
                assert_eq!(flavor["spec"]["topologyName"], "gke-default");
            }
            "gke-h100" => assert_eq!(tas.get("kueue.x-k8s.io/podset-unconstrained-topology").and_then(|v| v.as_str()), Some("true")),
            _ => {
                assert!(!tas.keys().any(|k| k.starts_with("kueue.x-k8s.io/")), "{name}: no TAS annotation: {tas:?}");
                assert!(flavor["spec"].get("topologyName").is_none(), "{name}");
            }
        }
    }
    let aks = queues.iter().find(|q| name_of(q) == "aks").unwrap();
    assert_eq!(aks["apiVersion"], "kueue.x-k8s.io/v1beta1");
    assert_eq!(aks["spec"]["cohort"], "ml", "v1beta1 spells cohortName `cohort`");
    let covered = aks["spec"]["resourceGroups"][0]["coveredResources"].clone();
    assert_eq!(covered, serde_json::json!(["nvidia.com/gpu", "cpu", "memory", "rdma/ib"]), "accelerators, cpu, memory, then the fabric");
    let gke = queues.iter().find(|q| name_of(q) == "gke").unwrap();
    let quota = |flavor: &str, resource: &str| {
        gke["spec"]["resourceGroups"][0]["flavors"].as_array().unwrap().iter().find(|f| f["name"] == flavor).unwrap()["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == resource)
            .unwrap()
            .clone()
    };
    assert_eq!(quota("tpu-v5-lite-podslice-4x4", "google.com/tpu")["nominalQuota"], 32, "2 slices of 16 chips");
    assert_eq!(quota("tpu-v5-lite-podslice-2x4-ct5lp-hightpu-4t", "google.com/tpu")["nominalQuota"], 8, "no quota given: one slice");
    assert_eq!(
        quota("nvidia-h100-80gb", "nvidia.com/gpu"),
        serde_json::json!({"name": "nvidia.com/gpu", "nominalQuota": 32, "borrowingLimit": 16})
    );
    assert_eq!(of_kind(&docs, "LocalQueue").iter().filter(|l| l["spec"]["clusterQueue"] == "gke").count(), 2);
    assert_eq!(of_kind(&docs, "WorkloadPriorityClass").len(), 2);
    assert_eq!(of_kind(&docs, "Topology").iter().map(|t| name_of(t)).collect::<Vec<_>>(), ["gke-default"]);
}

/// The KRM function writes the Kueue objects into `kueue/` next to the runtimes, and prunes them
/// when the queue goes.
#[test]
fn the_krm_function_generates_and_prunes_queues() {
    let items: Vec<serde_json::Value> = documents(QUEUED_CATALOG);
    let list =
        |items: &[serde_json::Value]| serde_json::json!({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items});
    let r = run(&[], Some(&serde_json::to_string(&list(&items)).unwrap()));
    assert_eq!(r.code, 0, "{}", r.all());
    let out: serde_json::Value = jax_runtimes::yaml::parse_one(&r.stdout).unwrap();
    let out_items = out["items"].as_array().unwrap().clone();
    let flavor = out_items.iter().find(|i| i["kind"] == "ResourceFlavor").unwrap();
    let path = flavor["metadata"]["annotations"]["internal.config.kubernetes.io/path"].as_str().unwrap();
    assert!(path.starts_with("kueue/kueue_resourceflavor_"), "{path}");
    // The queues removed from the catalog: their objects are pruned, the runtimes stay.
    let without: Vec<serde_json::Value> = out_items.into_iter().filter(|i| i["kind"] != "JaxRuntimeQueue").collect();
    let r = run(&[], Some(&serde_json::to_string(&list(&without)).unwrap()));
    assert_eq!(r.code, 0, "{}", r.all());
    let again: serde_json::Value = jax_runtimes::yaml::parse_one(&r.stdout).unwrap();
    let kinds: Vec<&str> = again["items"].as_array().unwrap().iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert!(
        !kinds.iter().any(|k| ["ResourceFlavor", "ClusterQueue", "LocalQueue", "Topology", "WorkloadPriorityClass"].contains(k)),
        "{kinds:?}"
    );
    assert_eq!(kinds.iter().filter(|k| **k == "ClusterTrainingRuntime").count(), 8);
}

/// Mistakes in a JaxRuntimeQueue are errors at their field, and nothing is written.
#[test]
fn queue_mistakes_are_catalog_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (from, to, rule) in [
        ("  quotas: [{runtime: p5-2nodes, nodes: 2}]", "  quotas: [{runtime: p5-2nodes, slices: 2}]", "catalog/queue-quota"),
        ("  quotas: [{runtime: p5-2nodes, nodes: 2}]", "  quotas: [{runtime: p5-3nodes, nodes: 2}]", "catalog/queue-quota"),
        ("  quotas: [{runtime: p5-2nodes, nodes: 2}]", "  quotas: [{runtime: p5-2nodes, nodes: 1}]", "kueue/quota-below-gang"),
        ("  runtimes: {matchLabels: {cluster: eks}}", "  runtimes: {matchLabels: {cluster: gke}}", "catalog/queue"),
        ("  runtimes: {matchLabels: {cluster: eks}}", "  runtimes: {matchLabels: {cluster: oke}}", "catalog/queue"),
        ("  kueueApiVersion: kueue.x-k8s.io/v1beta1", "  kueueApiVersion: kueue.x-k8s.io/v1alpha1", "catalog/queue"),
        (
            "  runtimes: {matchLabels: {cluster: aks}}",
            "  runtimes: {matchLabels: {cluster: aks}}\n  topologyAwareScheduling: {}",
            "catalog/queue-topology",
        ),
        (
            "  cohort: ml\n  quotas: [{runtime: cpu",
            "  cohort: ml\n  queueingStrategy: Fifo\n  quotas: [{runtime: cpu",
            "catalog/invalid-value",
        ),
        ("  cohort: ml\n  quotas: [{runtime: cpu", "  cohort: ml\n  quota: []\n  quotas: [{runtime: cpu", "catalog/unknown-field"),
    ] {
        assert!(QUEUED_CATALOG.contains(from), "{from}");
        std::fs::write(dir.path().join("catalog.yaml"), QUEUED_CATALOG.replacen(from, to, 1)).unwrap();
        let r = run_in(dir.path(), &["render", "--format", "json", "catalog.yaml"], None);
        assert_eq!(r.code, 1, "{to}: {}", r.all());
        assert!(r.stdout.is_empty(), "nothing is written");
        assert!(r.stderr.contains(&format!("\"rule\": \"{rule}\"")), "{to}: expected {rule}: {}", r.stderr);
    }
}

/// `spec.topology` puts Kueue's podset annotations on the trainer pod template, and the rules of
/// Kueue's webhook hold for it at render; a multi-host TPU slice keeps JobSet's exclusive
/// topology and gets no TAS annotation, queue or not.
#[test]
fn runtimes_ready_for_topology_aware_scheduling() {
    let dir = tempfile::tempdir().unwrap();
    let docs = render_queued(dir.path());
    let tpu = docs.iter().find(|d| name_of(d) == "tpu-4x4").unwrap();
    assert_eq!(
        tpu["spec"]["template"]["metadata"]["annotations"]["alpha.jobset.sigs.k8s.io/exclusive-topology"],
        "cloud.google.com/gke-nodepool"
    );
    assert!(tpu["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"].get("metadata").is_none());
    let entry = |topology: &str| {
        format!("apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {{name: gpu}}\nspec: {{platform: gke, numNodes: 4, accelerator: {{gpu: {{model: h100-80gb}}}}, topology: {topology}}}\n")
    };
    std::fs::write(dir.path().join("c.yaml"), entry("{sliceRequired: cloud.google.com/gce-topology-host, sliceSize: 2}")).unwrap();
    let out = documents(&render(&[&dir.path().join("c.yaml")]));
    let annotations = &out[0]["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]["annotations"];
    assert_eq!(annotations["kueue.x-k8s.io/podset-slice-required-topology"], "cloud.google.com/gce-topology-host");
    assert_eq!(annotations["kueue.x-k8s.io/podset-slice-size"], "2");
    assert!(annotations["networking.gke.io/interfaces"].is_string(), "next to the fabric's annotations");
    for (topology, rule) in [
        ("{required: cloud.google.com/gce-topology-block, preferred: kubernetes.io/hostname}", "kueue/tas-topology"),
        ("{sliceRequired: cloud.google.com/gce-topology-host, sliceSize: 8}", "kueue/tas-slice-size"),
        ("{sliceSize: 2}", "kueue/tas-slice"),
        ("{prefered: kubernetes.io/hostname}", "catalog/unknown-field"),
    ] {
        std::fs::write(dir.path().join("c.yaml"), entry(topology)).unwrap();
        let r = run_in(dir.path(), &["render", "--format", "json", "c.yaml"], None);
        assert_eq!(r.code, 1, "{topology}: {}", r.all());
        assert!(r.stderr.contains(&format!("\"rule\": \"{rule}\"")), "{topology}: {}", r.stderr);
    }
}

/// A node of `kubectl get nodes -o yaml`.
fn kube_node(name: &str, labels: &[(&str, &str)], taint: Option<&str>, allocatable: &[(&str, &str)]) -> String {
    let mut s =
        format!("- apiVersion: v1\n  kind: Node\n  metadata:\n    name: {name}\n    labels:\n      kubernetes.io/hostname: {name}\n");
    for (k, v) in labels {
        s.push_str(&format!("      {k}: \"{v}\"\n"));
    }
    if let Some(t) = taint {
        s.push_str(&format!("  spec:\n    taints:\n    - {{key: {t}, value: present, effect: NoSchedule}}\n"));
    }
    s.push_str("  status:\n    conditions: [{type: Ready, status: \"True\"}]\n    allocatable:\n");
    for (k, v) in allocatable {
        s.push_str(&format!("      {k}: \"{v}\"\n"));
    }
    s
}

/// Two whole TPU v5e 4x4 slices and half of a third, three H100 nodes, two CPU nodes, and a
/// v6e node of a shape the catalog does not use.
fn inventory() -> String {
    let mut nodes = String::from("apiVersion: v1\nkind: List\nitems:\n");
    let tpu = |pool: &'static str| {
        vec![
            ("cloud.google.com/gke-tpu-accelerator", "tpu-v5-lite-podslice"),
            ("cloud.google.com/gke-tpu-topology", "4x4"),
            ("cloud.google.com/gke-nodepool", pool),
        ]
    };
    for (pool, n) in [("pool-a", 4), ("pool-b", 4), ("pool-c", 2)] {
        for i in 0..n {
            nodes.push_str(&kube_node(
                &format!("{pool}-{i}"),
                &tpu(pool),
                Some("google.com/tpu"),
                &[("google.com/tpu", "4"), ("cpu", "224"), ("memory", "400Gi"), ("pods", "110")],
            ));
        }
    }
    for i in 0..3 {
        nodes.push_str(&kube_node(
            &format!("h100-{i}"),
            &[("cloud.google.com/gke-accelerator", "nvidia-h100-80gb"), ("cloud.google.com/gke-nodepool", "gpu")],
            Some("nvidia.com/gpu"),
            &[("nvidia.com/gpu", "8"), ("cpu", "207"), ("memory", "1800Gi"), ("pods", "110")],
        ));
    }
    for i in 0..2 {
        nodes.push_str(&kube_node(
            &format!("cpu-{i}"),
            &[("cloud.google.com/gke-nodepool", "default")],
            None,
            &[("cpu", "15890m"), ("memory", "60Gi"), ("pods", "110")],
        ));
    }
    nodes.push_str(&kube_node(
        "v6e-0",
        &[("cloud.google.com/gke-tpu-accelerator", "tpu-v6e-slice"), ("cloud.google.com/gke-tpu-topology", "2x2")],
        Some("google.com/tpu"),
        &[("google.com/tpu", "4"), ("cpu", "180")],
    ));
    nodes
}

const INVENTORY_CATALOG: &str = "\
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: tpu-4x4}
spec: {accelerator: {tpu: {type: v5e, topology: 4x4}}, resources: {requests: {cpu: '8', memory: 32Gi}}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: gke-h100-2nodes}
spec: {platform: gke, numNodes: 2, accelerator: {gpu: {model: h100-80gb}}, resources: {requests: {cpu: '100', memory: 800Gi}}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: cpu}
spec: {accelerator: {cpu: {}}, resources: {requests: {cpu: '8', memory: 32Gi}}}
";

/// `jax-runtimes kueue`: the quota of each flavor is exactly what its nodes hold, each node
/// counted once; a partial slice, and a node of a shape no runtime uses, are left out.
#[test]
fn kueue_quotas_equal_what_the_inventory_holds() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("nodes.yaml"), inventory()).unwrap();
    std::fs::write(dir.path().join("catalog.yaml"), INVENTORY_CATALOG).unwrap();
    let r = run_in(dir.path(), &["kueue", "--nodes", "nodes.yaml", "--namespace", "team-a", "--namespace", "team-b", "catalog.yaml"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let docs = documents(&r.stdout);
    let cq = docs.iter().find(|d| d["kind"] == "ClusterQueue").unwrap();
    assert_eq!(name_of(cq), "jax-runtimes", "a catalog without a queue gets one for every runtime");
    let group = &cq["spec"]["resourceGroups"][0];
    assert_eq!(group["coveredResources"], serde_json::json!(["google.com/tpu", "nvidia.com/gpu", "cpu", "memory"]));
    let quotas: std::collections::BTreeMap<(String, String), serde_json::Value> = group["flavors"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            f["resources"].as_array().unwrap().iter().map(move |r| {
                ((f["name"].as_str().unwrap().to_string(), r["name"].as_str().unwrap().to_string()), r["nominalQuota"].clone())
            })
        })
        .collect();
    let q = |f: &str, r: &str| quotas[&(f.to_string(), r.to_string())].clone();
    // Two whole slices of 4 hosts: 8 nodes; pool-c's two nodes hold no slice.
    assert_eq!(q("tpu-v5-lite-podslice-4x4", "google.com/tpu"), 32);
    assert_eq!(q("tpu-v5-lite-podslice-4x4", "cpu"), 8 * 224);
    assert_eq!(q("tpu-v5-lite-podslice-4x4", "memory"), "3200Gi");
    assert_eq!(q("nvidia-h100-80gb", "nvidia.com/gpu"), 24);
    assert_eq!(q("nvidia-h100-80gb", "cpu"), 3 * 207);
    assert_eq!(q("nvidia-h100-80gb", "memory"), "5400Gi");
    assert_eq!(q("nvidia-h100-80gb", "google.com/tpu"), 0);
    // The CPU nodes only: the tainted TPU and GPU nodes are not a CPU runtime's.
    assert_eq!(q("default-flavor", "cpu"), "31780m");
    assert_eq!(q("default-flavor", "memory"), "120Gi");
    assert_eq!(q("default-flavor", "google.com/tpu"), 0);
    let lqs: Vec<&str> = docs.iter().filter(|d| d["kind"] == "LocalQueue").map(|d| d["metadata"]["namespace"].as_str().unwrap()).collect();
    assert_eq!(lqs, ["team-a", "team-b"]);
    assert!(r.stderr.contains("left out: 1 node of no shape the queue serves, 2 nodes of partial TPU slices"), "{}", r.stderr);
    // The objects pass Kueue's own rules, and every runtime fits its queue: validate says so.
    std::fs::write(dir.path().join("kueue.yaml"), &r.stdout).unwrap();
    let v = run_in(dir.path(), &["validate", "kueue.yaml"], None);
    assert_eq!(v.code, 0, "{}", v.all());
}

/// A cluster too small for a runtime is said with the error `validate` gives (Kueue never admits
/// the TrainJob); the command exits 1 and writes nothing, on stdout or with `-o DIR` (all or
/// nothing: `kueue ... | kubectl apply -f -` never applies what it refused). The runtimes of
/// shapes the cluster has no node of are left out of the implicit queue, with one warning.
#[test]
fn kueue_says_when_the_cluster_cannot_hold_one_trainjob() {
    let dir = tempfile::tempdir().unwrap();
    let one_gpu_node = format!(
        "apiVersion: v1\nkind: List\nitems:\n{}",
        kube_node(
            "h100-0",
            &[("cloud.google.com/gke-accelerator", "nvidia-h100-80gb")],
            Some("nvidia.com/gpu"),
            &[("nvidia.com/gpu", "8"), ("cpu", "207"), ("memory", "1800Gi")]
        )
    );
    std::fs::write(dir.path().join("nodes.yaml"), one_gpu_node).unwrap();
    std::fs::write(dir.path().join("catalog.yaml"), INVENTORY_CATALOG).unwrap();
    let r = run_in(dir.path(), &["kueue", "--nodes", "nodes.yaml", "catalog.yaml", "--color", "never"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(
        r.stderr.contains("error[kueue/quota-below-gang]") && r.stderr.contains("the cluster's nodes do not hold one TrainJob"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty(), "a refused run prints no YAML: {}", r.stdout);
    assert!(r.stderr.contains("nothing written: 1 error"), "{}", r.stderr);
    assert!(!r.stderr.contains("no-matching-flavor"), "no error for the shapes the cluster lacks: {}", r.stderr);
    assert!(
        r.stderr.contains("warning[kueue/runtimes-left-out]") && r.stderr.contains("`tpu-4x4`") && r.stderr.contains("`cpu`"),
        "the TPU and CPU runtimes are left out (the one node is a tainted GPU node): {}",
        r.stderr
    );
    let o = run_in(dir.path(), &["kueue", "--nodes", "nodes.yaml", "catalog.yaml", "-o", "queues"], None);
    assert_eq!(o.code, 1, "{}", o.all());
    assert!(
        !dir.path().join("queues").exists() || std::fs::read_dir(dir.path().join("queues")).unwrap().next().is_none(),
        "-o wrote files"
    );
    assert!(!o.stderr.contains("wrote"), "{}", o.stderr);
}

/// A catalog for several clouds and accelerators on a CPU-only cluster: the implicit queue serves
/// the runtimes the nodes can take, names the rest in one warning, and exits 0 with the objects.
/// A JaxRuntimeQueue that names a runtime the nodes lack is the user's choice: an error, nothing
/// written.
#[test]
fn kueue_on_a_catalog_for_several_clouds_serves_what_the_cluster_has() {
    let dir = tempfile::tempdir().unwrap();
    let cpu_node = format!("apiVersion: v1\nkind: List\nitems:\n{}", kube_node("cpu-0", &[], None, &[("cpu", "32"), ("memory", "128Gi")]));
    std::fs::write(dir.path().join("nodes.yaml"), cpu_node).unwrap();
    std::fs::write(dir.path().join("catalog.yaml"), INVENTORY_CATALOG).unwrap();
    let r = run_in(dir.path(), &["kueue", "--nodes", "nodes.yaml", "catalog.yaml", "--color", "never"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(!r.stderr.contains("error["), "{}", r.stderr);
    let warnings: Vec<&str> = r.stderr.lines().filter(|l| l.starts_with("warning[kueue/runtimes-left-out]")).collect();
    assert_eq!(warnings.len(), 1, "one warning: {}", r.stderr);
    assert!(r.stderr.contains("`tpu-4x4`, `gke-h100-2nodes`") || r.stderr.contains("`gke-h100-2nodes`, `tpu-4x4`"), "{}", r.stderr);
    let docs = documents(&r.stdout);
    let cq = docs.iter().find(|d| d["kind"] == "ClusterQueue").unwrap();
    assert_eq!(cq["spec"]["resourceGroups"][0]["coveredResources"], serde_json::json!(["cpu", "memory"]), "{cq:#}");
    // A queue the user wrote for the GPU runtime on the same nodes: refused, nothing written.
    let queue = format!("{INVENTORY_CATALOG}---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeQueue\nmetadata: {{name: gpus}}\nspec: {{runtimes: {{names: [gke-h100-2nodes]}}}}\n");
    std::fs::write(dir.path().join("queued.yaml"), queue).unwrap();
    let q = run_in(dir.path(), &["kueue", "--nodes", "nodes.yaml", "queued.yaml", "--color", "never"], None);
    assert_eq!(q.code, 1, "{}", q.all());
    assert!(q.stdout.is_empty(), "{}", q.stdout);
    assert!(q.stderr.contains("error[kueue/"), "{}", q.stderr);
}

/// `fit` with queues: Kueue's verdict first (admitted now, waits for what Workloads hold, never),
/// then the scheduler's, with the flavors' node labels on the pods.
#[test]
fn fit_says_whether_kueue_admits_then_whether_the_scheduler_places() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("nodes.yaml"), inventory()).unwrap();
    let catalog = format!("{INVENTORY_CATALOG}---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeQueue\nmetadata: {{name: training}}\nspec: {{quotas: [{{runtime: tpu-4x4, slices: 1}}]}}\n");
    std::fs::write(dir.path().join("catalog.yaml"), &catalog).unwrap();
    let r = run_in(dir.path(), &["fit", "--nodes", "nodes.yaml", "catalog.yaml"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let header = r.stdout.lines().next().unwrap();
    assert!(header.starts_with("RUNTIME") && header.contains("QUEUE"), "{header}");
    let row = r.stdout.lines().find(|l| l.starts_with("tpu-4x4")).unwrap();
    assert!(row.contains("admitted (training: tpu-v5-lite-podslice-4x4)") && row.contains("yes"), "{row}");
    assert!(!r.stderr.contains("Kueue quotas"), "not checked: Kueue quotas goes: {}", r.stderr);
    // A running TrainJob holds the one slice: the next one waits in the queue.
    let workloads = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: Workload\n  metadata: {name: trainjob-a, namespace: default}\n  status:\n    conditions: [{type: QuotaReserved, status: 'True'}]\n    admission:\n      clusterQueue: training\n      podSetAssignments: [{name: node, flavors: {google.com/tpu: tpu-v5-lite-podslice-4x4}, resourceUsage: {google.com/tpu: '16'}}]\n";
    std::fs::write(dir.path().join("workloads.yaml"), workloads).unwrap();
    let r =
        run_in(dir.path(), &["fit", "--nodes", "nodes.yaml", "--workloads", "workloads.yaml", "catalog.yaml", "--format", "json"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    let verdicts: Vec<serde_json::Value> = serde_json::from_str(&r.stdout).unwrap();
    let tpu = verdicts.iter().find(|v| v["runtime"] == "tpu-4x4").unwrap();
    assert_eq!(tpu["queue"]["admission"], "waits", "{tpu:#}");
    assert!(tpu["queue"]["reason"].as_str().unwrap().contains("has 0 of `google.com/tpu` free of 16"), "{tpu:#}");
    assert_eq!(tpu["fits"], true, "the scheduler would place it once admitted");
    // The cluster's own queues instead (`kubectl get clusterqueues,resourceflavors -o yaml`), for
    // runtimes rendered without a JaxRuntimeQueue: no queue serves them (no annotation), so they
    // are not checked, unless `--cluster-queue` names the one to check them against. Never a guess
    // (the built output of a cluster folder has one ClusterQueue; the catalog may have several).
    let k = run_in(dir.path(), &["kueue", "--nodes", "nodes.yaml", "catalog.yaml"], None);
    assert_eq!(k.code, 0, "{}", k.all());
    std::fs::write(dir.path().join("kueue.yaml"), &k.stdout).unwrap();
    std::fs::write(dir.path().join("plain.yaml"), INVENTORY_CATALOG).unwrap();
    let r = run_in(dir.path(), &["fit", "--nodes", "nodes.yaml", "--queues", "kueue.yaml", "plain.yaml"], None);
    assert_eq!(r.code, 0, "not checked is not a refusal: {}", r.all());
    for name in ["cpu", "gke-h100-2nodes", "tpu-4x4"] {
        let row = r.stdout.lines().find(|l| l.starts_with(&format!("{name} "))).unwrap_or_else(|| panic!("{}", r.stdout));
        assert!(row.contains("not checked"), "{row}");
    }
    assert!(r.stdout.contains("cpu: queue: no queue serves it"), "{}", r.stdout);
    let r =
        run_in(dir.path(), &["fit", "--nodes", "nodes.yaml", "--queues", "kueue.yaml", "--cluster-queue", "training", "plain.yaml"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    for name in ["cpu", "gke-h100-2nodes", "tpu-4x4"] {
        let row = r.stdout.lines().find(|l| l.starts_with(&format!("{name} "))).unwrap_or_else(|| panic!("{}", r.stdout));
        assert!(row.contains("admitted (training: "), "{row}");
    }
    // A TrainJob gets its own row: its pods as Trainer makes them, in its LocalQueue's ClusterQueue.
    let trainjob = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: big, namespace: default, labels: {kueue.x-k8s.io/queue-name: training}}\nspec: {runtimeRef: {name: cpu}, trainer: {numNodes: 16}}\n";
    std::fs::write(dir.path().join("job.yaml"), trainjob).unwrap();
    let r = run_in(dir.path(), &["fit", "--nodes", "nodes.yaml", "--queues", "kueue.yaml", "plain.yaml", "job.yaml"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    let row = r.stdout.lines().find(|l| l.starts_with("TrainJob/default/big")).unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(row.contains("never (training)"), "16 pods of 8 cpu are more than the CPU nodes' quota: {row}");
    // A queue too small for a TrainJob: never admitted, whatever the scheduler would do.
    let small = k.stdout.replacen("nominalQuota: 32", "nominalQuota: 8", 1);
    std::fs::write(dir.path().join("kueue.yaml"), small).unwrap();
    let r =
        run_in(dir.path(), &["fit", "--nodes", "nodes.yaml", "--queues", "kueue.yaml", "--cluster-queue", "training", "plain.yaml"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    let row = r.stdout.lines().find(|l| l.starts_with("tpu-4x4")).unwrap();
    assert!(row.contains("never (training)"), "{row}");
    assert!(
        r.stdout.contains(
            "tpu-4x4: queue: replicated job `node` needs 16 of `google.com/tpu` (4 pods of 4 each), and flavor `tpu-v5-lite-podslice-4x4` can hold at most 8 (2 pods)"
        ),
        "{}",
        r.stdout
    );
}

/// `kueue --nodes` on a fleet's catalog (functions/fleet): the cluster whose JaxCluster lists the
/// node list as its inventory (or `--cluster NAME`) gets its own queues, or, without any, one
/// queue serving its runtimes; not every queue of every cluster with a quota of 0. A cluster that
/// autoscales the pools it does not have yet is refused with the reason (quotas from its nodes
/// would never admit the TrainJob that makes it scale up), and nothing is written.
#[test]
fn kueue_on_a_fleet_catalog_scopes_to_the_cluster_of_the_node_list() {
    let kinds = |yaml: &str| -> Vec<(String, String)> {
        documents(yaml).iter().map(|d| (d["kind"].as_str().unwrap().to_string(), name_of(d).to_string())).collect()
    };
    let aks = support::run(&["kueue", "--nodes", "functions/fleet/nodes/aks.yaml", "functions/fleet/catalog"], None);
    assert_eq!(aks.code, 0, "{}", aks.all());
    assert!(aks.stderr.contains("JaxCluster aks: no JaxRuntimeQueue of its own"), "{}", aks.stderr);
    let objects = kinds(&aks.stdout);
    assert!(objects.contains(&("ClusterQueue".to_string(), "jax-runtimes".to_string())), "{objects:?}");
    assert!(!objects.iter().any(|(_, n)| n.contains("tpu")), "no TPU object for an AKS cluster: {objects:?}");
    // The same cluster named, from a copy of its node list elsewhere.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(support::root().join("functions/fleet/nodes/aks.yaml"), dir.path().join("nodes.yaml")).unwrap();
    let nodes = dir.path().join("nodes.yaml").display().to_string();
    let named = support::run(&["kueue", "--nodes", &nodes, "--cluster", "aks", "functions/fleet/catalog"], None);
    assert_eq!((named.code, kinds(&named.stdout)), (0, objects), "{}", named.all());
    let typo = support::run(&["kueue", "--nodes", &nodes, "--cluster", "ekss", "functions/fleet/catalog"], None);
    assert_eq!(typo.code, 2, "{}", typo.all());
    assert!(typo.stderr.contains("did you mean `eks`?") && typo.stdout.is_empty(), "{}", typo.all());
    let tpu = support::run(&["kueue", "--nodes", "functions/fleet/nodes/gke-tpu.yaml", "functions/fleet/catalog"], None);
    assert_eq!((tpu.code, tpu.stdout.as_str()), (1, ""), "{}", tpu.all());
    assert!(tpu.stderr.contains("JaxCluster gke-tpu: its queues `tpu`") && tpu.stderr.contains("the cluster autoscales"), "{}", tpu.stderr);
}
