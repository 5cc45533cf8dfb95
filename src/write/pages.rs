//! The reference pages of `jax-runtimes docs`: generated runtimes (resolved and rendered) -> one
//! Markdown page per runtime plus an index (`README.md`), for a directory this tool owns (the
//! same ownership, atomic write and `--check` rules as `render -o`, see [`crate::write::dir`]).
//!
//! Pages are minijinja templates (`src/templates/*.md.j2`, embedded) over data taken from the
//! resolved runtime ([`crate::resolve`]) and the rendered object ([`crate::render`]): what the
//! runtime requests, where it schedules, the GPU fabric it wires and what the node pool must
//! provide for it, what Kubeflow Trainer injects, and how to use it from a TrainJob and from the
//! Kubeflow Python SDK. YAML in the pages is serialized from typed
//! values, never templated text.
//!
//! Facts used:
//! - Trainer v2.3.0 JAX plugin (`pkg/runtime/framework/plugins/jax/jax.go`): when a TrainJob
//!   sets `spec.trainer`, container `node` gets `JAX_NUM_PROCESSES` (numNodes), `JAX_PROCESS_ID`
//!   (the Job completion index) and `JAX_COORDINATOR_ADDRESS=<trainjob>-node-0-0.<trainjob>:29500`,
//!   and container port 29500 (../shared/notes/trainer.md section 3).
//! - Kubeflow SDK `kubeflow==0.5.0` (the version tests/python/requirements.txt pins),
//!   `kubeflow/trainer/api/trainer_client.py`: `TrainerClient.train(runtime: str | Runtime | None,
//!   initializer, trainer: CustomTrainer | CustomTrainerContainer | BuiltinTrainer, options)`
//!   takes the runtime's name or a `Runtime` from `get_runtime(name)`; the SDK detects the
//!   device from `resources.limits` (`backends/kubernetes/utils.py` `get_container_devices`).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use minijinja::Environment;
use serde::Serialize;
use serde_json::{json, Value};

use crate::accelerators::{data, sdk::Device};
use crate::resolve::{Accel, Resolved};
use crate::trainer::{self, RuntimeRef, TrainJob, TrainJobSpec, TrainingRuntime};
use crate::{words, write, yaml};

const RUNTIME_TEMPLATE: &str = include_str!("../templates/runtime.md.j2");
const INDEX_TEMPLATE: &str = include_str!("../templates/index.md.j2");
const CLUSTER_TEMPLATE: &str = include_str!("../templates/cluster.md.j2");

/// Why pages could not be made (a template or serialization problem: a bug, reported as such).
#[derive(Debug, thiserror::Error)]
pub enum PagesError {
    #[error("template {name}: {message}")]
    Template { name: String, message: String },
    #[error("two runtimes would be documented in the same page {0}")]
    SamePage(String),
    #[error(transparent)]
    Yaml(#[from] yaml::YamlError),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

fn template_error(name: &str, e: minijinja::Error) -> PagesError {
    PagesError::Template { name: name.to_string(), message: format!("{e:#}") }
}

/// File name of a runtime's page: `<name>.md`, or `<namespace>_<name>.md` for a
/// TrainingRuntime (`_` cannot occur in Kubernetes names, so the two never collide).
pub fn page_name(r: &Resolved) -> String {
    match &r.namespace {
        Some(ns) => crate::pipeline::fit_file_name(&format!("{ns}_{}", r.name), ".md"),
        None => crate::pipeline::fit_file_name(&r.name, ".md"),
    }
}

#[derive(Serialize)]
struct KeyValue {
    key: String,
    value: String,
}

#[derive(Serialize)]
struct ResourceRow {
    name: String,
    request: String,
    limit: String,
}

#[derive(Serialize)]
struct Page {
    file: String,
    name: String,
    kind: String,
    namespace: Option<String>,
    description: Option<String>,
    source_object: String,
    source_file: String,
    matrix_row: Option<String>,
    manifest_file: String,
    trainer: String,
    platform: String,
    image: String,
    num_nodes: i32,
    accelerator_kind: String,
    accelerator: String,
    tpu: Option<Value>,
    gpu: Option<Value>,
    totals: String,
    resources: Vec<ResourceRow>,
    node_selector: Vec<KeyValue>,
    machine_types: Vec<String>,
    machine_affinity: Option<Value>,
    interconnect: Option<Value>,
    no_interconnect: Option<String>,
    tolerations: Vec<String>,
    jobset_annotations: Vec<KeyValue>,
    labels: Vec<KeyValue>,
    env: Vec<KeyValue>,
    shared_memory: Option<String>,
    /// What `spec.storage`, `spec.initializers` and `spec.podTemplate` add, one line each.
    production: Vec<String>,
    host_network: bool,
    pod_group_policy: Option<String>,
    service_account_name: Option<String>,
    sdk_device: String,
    sdk_problem: Option<String>,
    /// Why the `cpu` limit equals the request, when jax-runtimes copied it.
    cpu_limit_note: Option<String>,
    /// pip packages a job installs first (a default image without JAX), and them as a Python list.
    install: Vec<String>,
    install_python: String,
    fixed_num_nodes: bool,
    coordinator_port: u16,
    trainjob_yaml: String,
    trainjob_namespace: String,
    /// The longest TrainJob name the runtime allows, and the last pod's name pattern.
    trainjob_name_max: Option<usize>,
    trainjob_last_pod: String,
    /// The node count from which the limit is one character shorter (when nodes set it).
    trainjob_fewer_at: Option<u64>,
}

fn quantity_map(v: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>) -> BTreeMap<String, String> {
    v.map(|m| m.iter().map(|(k, q)| (k.clone(), q.0.clone())).collect()).unwrap_or_default()
}

/// What the Kubeflow SDK reports as the device of the `node` container (its device table is
/// [`crate::accelerators::sdk`]; the count is per node times numNodes). `(device, problem)`.
fn sdk_device(limits: &BTreeMap<String, String>, num_nodes: i32) -> (String, Option<String>) {
    let total = |per: &str| match crate::k8s::quantity::parse(per).ok().and_then(|q| q.count()) {
        Some(n) => {
            format!("{} ({per} per node x {})", n.saturating_mul(u64::try_from(num_nodes).unwrap_or(0)), words::count(num_nodes, "node"))
        }
        None => format!("{per} per node"),
    };
    match data().sdk.device_of(limits) {
        Device::Unknown => ("unknown (the runtime sets no limits)".into(), None),
        Device::Named { device, key } => (format!("`{device}`, count {}", total(&limits[&key])), None),
        Device::Unreadable | Device::Several { .. } => (
            "none".into(),
            Some(format!(
                "the SDK's `get_runtime()` and `list_runtimes()` raise \"Unknown device type in the container resources\" for limits {{{}}}; use the runtime from a TrainJob, or add a `cpu` limit",
                limits.keys().cloned().collect::<Vec<_>>().join(", ")
            )),
        ),
    }
}

fn toleration_text(t: &k8s_openapi::api::core::v1::Toleration) -> String {
    let key = t.key.clone().unwrap_or_default();
    let op = t.operator.clone().unwrap_or_else(|| "Equal".into());
    let mut s = if op == "Exists" {
        if key.is_empty() {
            "any taint (Exists)".to_string()
        } else {
            format!("`{key}` (Exists)")
        }
    } else {
        format!("`{key}={}`", t.value.clone().unwrap_or_default())
    };
    match &t.effect {
        Some(e) => s.push_str(&format!(", effect {e}")),
        None => s.push_str(", any effect"),
    }
    if let Some(secs) = t.toleration_seconds {
        s.push_str(&format!(", for {secs}s"));
    }
    s
}

fn env_text(e: &k8s_openapi::api::core::v1::EnvVar) -> String {
    if let Some(v) = &e.value {
        return format!("`{v}`");
    }
    match &e.value_from {
        Some(from) => {
            let v = serde_json::to_value(from).unwrap_or(Value::Null);
            format!("from `{}`", serde_json::to_string(&v).unwrap_or_default())
        }
        None => "empty".into(),
    }
}

/// Why the `cpu` limit is the request: for the page of a runtime whose limit jax-runtimes copied.
fn cpu_limit_note(r: &Resolved) -> Option<String> {
    if !r.cpu_limit_from_request {
        return None;
    }
    let cpu = r.resources.limits.as_ref().and_then(|l| l.get("cpu")).map(|q| q.0.clone())?;
    let opt_out = match r.accelerator {
        Accel::Cpu => " `accelerator: {cpu: {limitFromRequest: false}}` leaves it out; the SDK then lists the device as `Unknown`.",
        _ => " It is required here: without it the SDK cannot read this GPU's resource and `list_runtimes()` fails for every runtime of the cluster.",
    };
    Some(format!(
        "The `cpu` limit is the `cpu` request, copied by jax-runtimes: the Kubeflow SDK reads a runtime's device from its limits only, and lists this one as `cpu` with count {cpu} per node. The limit also caps the JAX process at {cpu} cores (the kubelet's CPU quota), which a request alone does not.{opt_out}"
    ))
}

/// The example TrainJob for a runtime (serialized to YAML for the page). In an image without
/// JAX (the default CPU image), the command installs it first.
pub fn example_trainjob(r: &Resolved) -> TrainJob {
    let script = "import os\n\
                  import jax\n\
                  jax.distributed.initialize(\n\
                  \x20   coordinator_address=os.environ[\"JAX_COORDINATOR_ADDRESS\"],\n\
                  \x20   num_processes=int(os.environ[\"JAX_NUM_PROCESSES\"]),\n\
                  \x20   process_id=int(os.environ[\"JAX_PROCESS_ID\"]),\n\
                  )\n\
                  print(jax.process_index(), jax.process_count(), jax.device_count())\n";
    TrainJob {
        api_version: trainer::API_VERSION.into(),
        kind: trainer::KIND_TRAINJOB.into(),
        metadata: ObjectMeta { name: Some("my-jax-job".into()), namespace: r.namespace.clone(), ..Default::default() },
        spec: TrainJobSpec {
            runtime_ref: RuntimeRef {
                api_group: Some(trainer::GROUP.into()),
                kind: Some(if r.namespace.is_some() { trainer::KIND_NAMESPACED } else { trainer::KIND_CLUSTER }.into()),
                name: r.name.clone(),
            },
            trainer: Some(trainer::Trainer { command: Some(trainjob_command(&r.image, script)), ..Default::default() }),
            ..Default::default()
        },
        status: None,
    }
}

/// `python -c SCRIPT`, or in an image without JAX `bash -c "pip install ... && exec python -c '...'"`
/// (the script holds no single quote).
fn trainjob_command(image: &str, script: &str) -> Vec<String> {
    let install = data().images.install_for(image);
    if install.is_empty() || script.contains('\'') {
        return vec!["python".into(), "-c".into(), script.into()];
    }
    vec!["bash".into(), "-c".into(), format!("pip install --quiet {}\nexec python -c '\n{script}'\n", install.join(" "))]
}

fn page(r: &Resolved, object: &TrainingRuntime, manifest_file: &str) -> Result<Page, PagesError> {
    let trainer = object.spec.template.spec.replicated_jobs.iter().find(|j| j.is_trainer());
    let pod = trainer.and_then(|j| j.template.spec.as_ref()).and_then(|s| s.template.spec.as_ref());
    let container = pod.and_then(|p| p.containers.iter().find(|c| c.name == crate::trainer::facts().node));
    let resources = container.and_then(|c| c.resources.as_ref());
    let requests = quantity_map(resources.and_then(|r| r.requests.as_ref()));
    let limits = quantity_map(resources.and_then(|r| r.limits.as_ref()));
    let mut names: Vec<&String> = requests.keys().chain(limits.keys()).collect();
    names.sort();
    names.dedup();
    let resource_rows = names
        .into_iter()
        .map(|n| ResourceRow {
            name: n.clone(),
            request: requests.get(n).cloned().unwrap_or_else(|| "-".into()),
            limit: limits.get(n).cloned().unwrap_or_else(|| "-".into()),
        })
        .collect();
    let kv = |m: &BTreeMap<String, String>| m.iter().map(|(k, v)| KeyValue { key: k.clone(), value: v.clone() }).collect::<Vec<_>>();
    let labels = object.metadata.labels.clone().unwrap_or_default();
    let (tpu, gpu, totals) = match &r.accelerator {
        Accel::Cpu => (None, None, format!("{} (one JAX process each), CPU only", words::count(r.num_nodes, "node"))),
        Accel::Gpu(g) => (
            None,
            Some(json!({ "model": g.model, "vendor": g.vendor, "resource": g.resource, "count": g.count, "machineType": g.machine_type })),
            format!(
                "{}: {} x {} per node on {}",
                words::count(i64::from(g.count) * i64::from(r.num_nodes), "GPU"),
                g.count,
                g.model,
                words::count(r.num_nodes, "node")
            ),
        ),
        Accel::Tpu(t) => (
            Some(serde_json::to_value(t)?),
            None,
            format!(
                "one TPU {} slice of {}: {} x {}",
                t.generation,
                words::count(t.chips, "chip"),
                words::count(t.hosts, "host"),
                words::count(t.chips_per_host, "chip")
            ),
        ),
    };
    let (sdk_device, sdk_problem) = sdk_device(&limits, r.num_nodes);
    let gpu_shape = match &r.accelerator {
        Accel::Gpu(g) => Some(g),
        _ => None,
    };
    let fabric = match &r.accelerator {
        Accel::Gpu(g) => g.fabric.as_ref(),
        Accel::Tpu(t) => t.fabric.as_ref(),
        Accel::Cpu => None,
    };
    let interconnect = fabric.map(fabric_view).transpose()?;
    let no_interconnect = match gpu_shape {
        Some(g) if r.num_nodes > 1 && g.fabric.is_none() => Some(
            "No fast interconnect is wired: NCCL between the nodes uses the pod network (one ordinary NIC per node). `render` says why (`interconnect/not-wired`) unless the runtime sets `interconnect: none`.".to_string(),
        ),
        _ => None,
    };
    let trainjob = example_trainjob(r);
    // JobSet's name rule (trainer::pods, jobset/trainjob-name-length in validate).
    let name_room = trainer::pods::max_trainjob_name_of(object).filter(|(n, _)| *n > 0);
    let limiting = name_room.as_ref().and_then(|(_, job)| trainer::pods::job_pods(object).into_iter().find(|p| p.name == job.as_str()));
    let last_pod = limiting
        .as_ref()
        .map(|p| format!("{}-<5 random characters>", trainer::names::hostname("<trainjob>", p.name, p.replicas - 1, p.pods - 1)))
        .unwrap_or_default();
    let fewer_at = limiting
        .filter(|p| p.pods_field == trainer::paths::num_nodes())
        .and_then(|p| u32::try_from((p.pods - 1).to_string().len()).ok())
        .and_then(|d| 10u64.checked_pow(d))
        .map(|n| n + 1);
    Ok(Page {
        file: page_name(r),
        name: r.name.clone(),
        kind: object.kind.clone(),
        namespace: r.namespace.clone(),
        description: r.description.clone(),
        source_object: r.origin.object.to_string(),
        source_file: r.origin.doc.source.name.clone(),
        matrix_row: r.origin.row.clone(),
        manifest_file: manifest_file.to_string(),
        trainer: r.trainer.clone(),
        platform: r.platform.to_string(),
        image: r.image.clone(),
        num_nodes: r.num_nodes,
        accelerator_kind: r.accelerator.kind().to_string(),
        accelerator: r.accelerator_summary(),
        tpu,
        gpu,
        totals,
        resources: resource_rows,
        node_selector: kv(&r.node_selector),
        machine_types: gpu_shape.map(|g| g.machine_types.clone()).unwrap_or_default(),
        machine_affinity: gpu_shape.and_then(|g| g.affinity.as_ref()).map(|a| json!({"key": a.key, "values": a.values})),
        interconnect,
        no_interconnect,
        tolerations: r.tolerations.iter().map(toleration_text).collect(),
        jobset_annotations: kv(&r.jobset_annotations),
        labels: kv(&labels),
        env: r.env.iter().map(|e| KeyValue { key: e.name.clone(), value: env_text(e) }).collect(),
        shared_memory: r.shared_memory.as_ref().map(|s| match s {
            Some(limit) => format!("memory-backed `/dev/shm`, size limit {limit}"),
            None => "memory-backed `/dev/shm`, no size limit (counts against the pod's memory)".into(),
        }),
        production: production(r),
        host_network: r.host_network,
        pod_group_policy: r.pod_group_policy.as_ref().map(serde_json::to_string).transpose()?,
        service_account_name: r.service_account_name.clone(),
        sdk_device,
        sdk_problem,
        cpu_limit_note: cpu_limit_note(r),
        install: data().images.install_for(&r.image).to_vec(),
        install_python: serde_json::to_string(data().images.install_for(&r.image))?,
        fixed_num_nodes: matches!(r.accelerator, Accel::Tpu(_)),
        coordinator_port: trainer::facts().jax.port,
        trainjob_yaml: yaml::to_string(&trainjob)?,
        trainjob_namespace: r.namespace.clone().unwrap_or_else(|| "default".into()),
        trainjob_name_max: name_room.map(|(n, _)| n),
        trainjob_last_pod: last_pod,
        trainjob_fewer_at: fewer_at,
    })
}

/// What `spec.storage`, `spec.initializers` and `spec.podTemplate` add to the runtime, in words.
fn production(r: &Resolved) -> Vec<String> {
    let mut out = Vec::new();
    for (v, m) in r.storage.volumes.iter().zip(&r.storage.mounts) {
        let access = if m.read_only == Some(true) { "read-only" } else { "read-write" };
        let what = match (&v.persistent_volume_claim, &v.csi) {
            (Some(c), _) => format!("the PersistentVolumeClaim `{}`", c.claim_name),
            (_, Some(csi)) => {
                let bucket = csi.volume_attributes.as_ref().and_then(|a| a.get("bucketName")).cloned().unwrap_or_default();
                format!("the Cloud Storage bucket `{bucket}` through Cloud Storage FUSE (GKE adds the driver's sidecar to the pod)")
            }
            _ => format!("volume `{}`", v.name),
        };
        out.push(format!("`{}` in container `node`: {what}, {access}.", m.mount_path, access = access));
    }
    if let Some(i) = &r.initializers {
        let f = &trainer::facts().initializers;
        let jobs: Vec<String> = i
            .jobs
            .iter()
            .map(|j| {
                let uri = j.env.iter().find(|e| e.name == f.storage_uri_env).and_then(|e| e.value.clone());
                match uri {
                    Some(u) => format!("`{}` (image `{}`, `{u}` unless the TrainJob names another)", j.step, j.image),
                    None => format!("`{}` (image `{}`; each TrainJob names the source in `spec.initializer`)", j.step, j.image),
                }
            })
            .collect();
        let volume = match &i.volume {
            crate::resolve::initializers::InitVolume::Claim { size, access_modes, .. } => {
                format!("a {} {} claim per TrainJob", size.0, access_modes.join(", "))
            }
            crate::resolve::initializers::InitVolume::Existing(c) => format!("the PersistentVolumeClaim `{c}`"),
        };
        out.push(format!(
            "Before the trainer starts: {}, writing to `{}` ({volume}), which container `node` mounts too.",
            jobs.join(" and "),
            f.mount_path
        ));
    }
    if let Some(t) = &r.pod_template {
        let m = &t.merged;
        let names = |v: &Value| -> Vec<String> {
            v.as_array().into_iter().flatten().filter_map(|x| x.get("name").and_then(Value::as_str)).map(|n| format!("`{n}`")).collect()
        };
        let node = &trainer::facts().node;
        let sidecars: Vec<String> = names(&m["spec"]["containers"]).into_iter().filter(|n| n != &format!("`{node}`")).collect();
        if !sidecars.is_empty() {
            out.push(format!("Sidecar containers (`spec.podTemplate`): {}.", sidecars.join(", ")));
        }
        let init = names(&m["spec"]["initContainers"]);
        if !init.is_empty() {
            out.push(format!("Init containers (`spec.podTemplate`): {}.", init.join(", ")));
        }
        if let Some(p) = m["spec"]["priorityClassName"].as_str() {
            out.push(format!("Priority class: `{p}` (it must exist in the cluster, or the API server refuses the pods)."));
        }
        let secrets = names(&m["spec"]["imagePullSecrets"]);
        if !secrets.is_empty() {
            out.push(format!("Image pull secrets: {} (in the TrainJob's namespace).", secrets.join(", ")));
        }
        for (what, key) in [("Pod labels", "labels"), ("Pod annotations", "annotations")] {
            let kv: Vec<String> = m["metadata"][key]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| format!("`{k}: {}`", crate::k8s::merge::scalar(v)))
                .collect();
            if !kv.is_empty() {
                out.push(format!("{what} (`spec.podTemplate`): {}.", kv.join(", ")));
            }
        }
        let shown = ["containers", "initContainers", "priorityClassName", "imagePullSecrets"];
        let other: Vec<String> = m["spec"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k)
            .filter(|k| !shown.contains(&k.as_str()))
            .map(|k| format!("`{k}`"))
            .collect();
        if !other.is_empty() {
            out.push(format!("Other pod fields from `spec.podTemplate`: {} (in the manifest).", other.join(", ")));
        }
    }
    out
}

/// What a wired fabric adds, for the page: its pieces by kind, and the node pool's part.
fn fabric_view(f: &crate::accelerators::FabricPatch) -> Result<Value, PagesError> {
    let volume = |v: &k8s_openapi::api::core::v1::Volume| match (&v.host_path, &v.empty_dir) {
        (Some(h), _) => format!("`{}`: host path `{}`", v.name, h.path),
        (_, Some(_)) => format!("`{}`: an emptyDir", v.name),
        _ => format!("`{}`", v.name),
    };
    let annotations: Vec<Value> = f
        .pod_annotations
        .iter()
        .map(|(k, v)| {
            let shown = if k == crate::accelerators::fabric::GKE_INTERFACES {
                "the interfaces listed below".to_string()
            } else if v.contains('\n') || v.len() > 60 {
                if k.starts_with(crate::accelerators::fabric::GKE_DEVICES_PREFIX) {
                    format!("{} device paths", v.lines().count())
                } else {
                    "see the manifest".to_string()
                }
            } else {
                format!("`{v}`")
            };
            json!({"key": k, "value": shown})
        })
        .collect();
    let interfaces = f
        .pod_annotations
        .get(crate::accelerators::fabric::GKE_INTERFACES)
        .map(|text| serde_json::from_str::<Vec<crate::accelerators::NetworkInterface>>(text))
        .transpose()?
        .unwrap_or_default();
    Ok(json!({
        "name": f.name,
        "title": f.title,
        "description": f.description,
        "annotations": annotations,
        "interfaces": interfaces.iter().map(|i| json!({"interface": i.interface_name, "network": i.network})).collect::<Vec<_>>(),
        "sidecars": f.sidecars.iter().map(|c| json!({"name": c.name, "image": c.image.clone().unwrap_or_default()})).collect::<Vec<_>>(),
        "volumes": f.volumes.iter().map(volume).collect::<Vec<_>>(),
        "mounts": f.node_mounts.iter().map(|m| format!("`{}` at `{}`", m.name, m.mount_path)).collect::<Vec<_>>(),
        "capabilities": f.capabilities,
        "resources": f.resources.iter().map(|(k, q)| format!("`{k}: {}`", q.0)).collect::<Vec<_>>(),
        "env": f.env.len(),
        "settings": f.settings,
        "requires": f.requires,
        "sources": f.sources,
    }))
}

fn environment() -> Result<Environment<'static>, PagesError> {
    let mut env = Environment::new();
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .keep_trailing_newline(true)
            .build()
            .map_err(|e| template_error("syntax", e))?,
    );
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    // A table cell: `|` would end the cell, a newline the row.
    env.add_filter("cell", |s: String| s.replace('|', "\\|").replace('\n', " "));
    env.add_template("runtime.md", RUNTIME_TEMPLATE).map_err(|e| template_error("runtime.md", e))?;
    env.add_template("index.md", INDEX_TEMPLATE).map_err(|e| template_error("index.md", e))?;
    env.add_template("cluster.md", CLUSTER_TEMPLATE).map_err(|e| template_error("cluster.md", e))?;
    Ok(env)
}

/// Where a page goes in the index: by accelerator kind, namespace, TPU generation or GPU model,
/// then by size (chips or GPUs in all, then nodes) as numbers, so `8x8x8` comes before
/// `8x16x16`; the name breaks ties.
fn shape_key(p: &Page) -> (String, Option<String>, String, u64, i32, String) {
    let num = |v: Option<&Value>, key: &str| v.and_then(|v| v.get(key)).and_then(Value::as_u64).unwrap_or(0);
    let text = |v: Option<&Value>, key: &str| v.and_then(|v| v.get(key)).and_then(Value::as_str).unwrap_or("").to_string();
    let (family, size) = match (&p.tpu, &p.gpu) {
        (Some(t), _) => (text(Some(t), "generation"), num(Some(t), "chips")),
        (_, Some(g)) => (text(Some(g), "model"), num(Some(g), "count") * u64::try_from(p.num_nodes).unwrap_or(0)),
        _ => (String::new(), 0),
    };
    (p.accelerator_kind.clone(), p.namespace.clone(), family, size, p.num_nodes, p.name.clone())
}

/// The pages for generated runtimes (each resolved and rendered): file name -> Markdown (each
/// starting with [`write::MARKDOWN_HEADER`]), `README.md` the index. Sorted; deterministic.
pub fn pages<'a>(runtimes: impl IntoIterator<Item = (&'a Resolved, &'a TrainingRuntime)>) -> Result<BTreeMap<String, String>, PagesError> {
    fleet_pages(runtimes, &[])
}

/// The data of a cluster's page (`cluster_<name>.md`).
#[derive(Debug, Serialize)]
struct ClusterPage<'a> {
    name: &'a str,
    file: String,
    platform: &'a str,
    description: Option<&'a str>,
    labels: String,
    inventory: Option<&'a str>,
    autoscaling: bool,
    nodes: usize,
    runtimes: Vec<ClusterRuntime>,
    queues: &'a [String],
    misfits: &'a [crate::fleet::Misfit],
}

#[derive(Debug, Serialize)]
struct ClusterRuntime {
    name: String,
    page: String,
    reason: Option<String>,
}

/// File name of a cluster's page.
pub fn cluster_page_name(name: &str) -> String {
    crate::pipeline::fit_file_name(&format!("cluster_{name}"), ".md")
}

/// [`pages`], and with `JaxCluster`s a page per cluster (`cluster_<name>.md`: which runtimes and
/// queues it gets, what does not fit its nodes and why) and a table of them in the index.
pub fn fleet_pages<'a>(
    runtimes: impl IntoIterator<Item = (&'a Resolved, &'a TrainingRuntime)>,
    clusters: &[crate::fleet::Assignment],
) -> Result<BTreeMap<String, String>, PagesError> {
    let env = environment()?;
    let mut pages = Vec::new();
    for (r, object) in runtimes {
        pages.push(page(r, object, &crate::pipeline::file_name(r.namespace.as_deref(), &r.name))?);
    }
    pages.sort_by_cached_key(shape_key);
    let mut out = BTreeMap::new();
    let runtime = env.get_template("runtime.md").map_err(|e| template_error("runtime.md", e))?;
    for p in &pages {
        let body = runtime.render(minijinja::Value::from(minijinja::value::Serde(p))).map_err(|e| template_error(&p.file, e))?;
        if out.insert(p.file.clone(), format!("{}\n{body}", write::MARKDOWN_HEADER)).is_some() {
            return Err(PagesError::SamePage(p.file.clone()));
        }
    }
    let page_of = |ns: &Option<String>, name: &str| {
        pages.iter().find(|p| p.namespace.as_deref() == ns.as_deref() && p.name == name).map(|p| p.file.clone())
    };
    let cluster_pages: Vec<ClusterPage<'_>> = clusters
        .iter()
        .map(|c| ClusterPage {
            name: &c.name,
            file: cluster_page_name(&c.name),
            platform: &c.platform,
            description: c.description.as_deref(),
            labels: c.labels.iter().map(|(k, v)| format!("`{k}={v}`")).collect::<Vec<_>>().join(", "),
            inventory: c.inventory.as_ref().map(|(f, _)| f.as_str()),
            autoscaling: c.inventory.as_ref().is_some_and(|(_, a)| *a),
            nodes: c.nodes,
            runtimes: c
                .runtimes
                .iter()
                .map(|(ns, name)| ClusterRuntime {
                    name: match ns {
                        Some(ns) => format!("{ns}/{name}"),
                        None => name.clone(),
                    },
                    page: page_of(ns, name).unwrap_or_default(),
                    reason: c.misfits.iter().find(|m| &m.runtime == name).map(|m| m.reason.clone()),
                })
                .collect(),
            queues: &c.queues,
            misfits: &c.misfits,
        })
        .collect();
    let cluster = env.get_template("cluster.md").map_err(|e| template_error("cluster.md", e))?;
    for c in &cluster_pages {
        let body = cluster.render(minijinja::Value::from(minijinja::value::Serde(c))).map_err(|e| template_error(&c.file, e))?;
        if out.insert(c.file.clone(), format!("{}\n{body}", write::MARKDOWN_HEADER)).is_some() {
            return Err(PagesError::SamePage(c.file.clone()));
        }
    }
    let mut groups: Vec<Value> = Vec::new();
    for (kind, title) in [("tpu", "TPU slices"), ("gpu", "GPU nodes"), ("cpu", "CPU nodes")] {
        let rows: Vec<&Page> = pages.iter().filter(|p| p.accelerator_kind == kind).collect();
        if !rows.is_empty() {
            groups.push(json!({ "title": title, "pages": rows }));
        }
    }
    let index = env
        .get_template("index.md")
        .and_then(|t| {
            t.render(minijinja::Value::from(minijinja::value::Serde(
                json!({ "groups": groups, "count": pages.len(), "clusters": cluster_pages }),
            )))
        })
        .map_err(|e| template_error("index.md", e))?;
    out.insert("README.md".into(), format!("{}\n{index}", write::MARKDOWN_HEADER));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin() -> Vec<(Resolved, TrainingRuntime)> {
        let docs = crate::read::builtin().into_result().unwrap();
        let generated = crate::pipeline::generate(&docs);
        assert!(!generated.has_errors());
        generated.runtimes.into_iter().map(|r| (r.resolved, r.runtime)).collect()
    }

    fn pages_of(rts: &[(Resolved, TrainingRuntime)]) -> BTreeMap<String, String> {
        pages(rts.iter().map(|(r, o)| (r, o))).unwrap()
    }

    #[test]
    fn every_runtime_has_a_page_and_an_index_entry() {
        let rts = builtin();
        let pages = pages_of(&rts);
        assert_eq!(pages.len(), rts.len() + 1);
        let index = &pages["README.md"];
        for (r, _) in &rts {
            let p = &pages[&page_name(r)];
            assert!(p.starts_with(write::MARKDOWN_HEADER));
            assert!(p.contains(&format!("runtime=\"{}\"", r.name)), "{}: SDK usage", r.name);
            assert!(index.contains(&format!("]({})", page_name(r))), "{}: index link", r.name);
            assert!(!p.contains(".\n## "), "{}: a heading glued to the line before it", r.name);
            if matches!(r.accelerator, Accel::Tpu(_)) {
                assert!(!p.contains("A TrainJob that sets `numNodes` to"), "{}: a TPU page forbids changing numNodes", r.name);
            }
        }
        // By shape, as numbers: 4x4 (16 chips) before 16x16 (256), v5p-8 (2x2x1) before 2x2x2.
        let at = |name: &str| index.find(&format!("[{name}]")).unwrap_or_else(|| panic!("{name} in the index"));
        assert!(at("jax-tpu-v6e-4x4") < at("jax-tpu-v6e-16x16"));
        assert!(at("jax-tpu-v5p-8") < at("jax-tpu-v5p-2x2x2"));
        assert!(at("jax-tpu-v6e-1x1") < at("jax-tpu-v6e-2x2"));
    }

    #[test]
    fn pages_state_what_trainer_injects_and_the_slice_shape() {
        let pages = pages_of(&builtin());
        let p = &pages["jax-tpu-v5e-4x4.md"];
        assert!(p.contains("JAX_COORDINATOR_ADDRESS"), "{p}");
        assert!(p.contains("<trainjob>-node-0-0.<trainjob>:29500"), "{p}");
        assert!(p.contains("cloud.google.com/gke-tpu-topology"), "{p}");
        assert!(p.contains("| 4 |") || p.contains("4 hosts"), "{p}");
        let g = &pages["jax-gpu-gke-h100-2nodes.md"];
        assert!(g.contains("16 GPUs"), "{g}");
    }

    #[test]
    fn sdk_device_follows_the_sdk_order() {
        let m = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>();
        assert!(sdk_device(&m(&[("cpu", "4"), ("nvidia.com/gpu", "8")]), 2).0.starts_with("`gpu`, count 16"));
        assert!(sdk_device(&m(&[("google.com/tpu", "4")]), 4).0.starts_with("`tpu`, count 16"));
        assert!(sdk_device(&m(&[("amd.com/gpu", "8")]), 1).1.is_some());
        assert!(sdk_device(&m(&[]), 1).1.is_none());
    }

    #[test]
    fn pages_are_deterministic() {
        assert_eq!(pages_of(&builtin()), pages_of(&builtin()));
    }
}
