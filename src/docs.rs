//! `jax-runtimes docs`: a Markdown reference of every runtime in a catalog. One page per
//! runtime plus an index (`README.md`), written into a directory this tool owns (the same
//! ownership, atomic write and `--check` rules as `render -o`, see [`crate::write`]).
//!
//! Pages are minijinja templates (`src/templates/*.md.j2`, embedded) over data taken from the
//! resolved runtime ([`crate::resolve`]) and the rendered object ([`crate::render`]): what the
//! runtime requests, where it schedules, what Kubeflow Trainer injects, and how to use it from
//! a TrainJob and from the Kubeflow Python SDK. YAML in the pages is serialized from typed
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
use std::path::PathBuf;

use minijinja::Environment;
use serde::Serialize;
use serde_json::{json, Value};

use crate::diag::{Diagnostic, Severity};
use crate::resolve::{Accel, Resolved};
use crate::{cli, pipeline, render, report, resolve, trainer, write};

/// Arguments of `jax-runtimes docs`.
#[derive(Debug, clap::Args)]
pub struct DocsArgs {
    /// Catalog files or folders (`*.yaml`, `*.yml`, `*.json`), or `-` for stdin. None: the built-in catalog.
    pub paths: Vec<PathBuf>,
    /// Write the pages (one per runtime, and README.md) into DIR.
    #[arg(short = 'o', long = "output-dir", value_name = "DIR", required = true)]
    pub output_dir: PathBuf,
    /// Write nothing; exit 1 and print a diff if DIR is not up to date.
    #[arg(long)]
    pub check: bool,
    /// How to print findings on stderr.
    #[arg(long, value_enum, default_value_t = report::Format::Text)]
    pub format: report::Format,
}

/// Port the Trainer JAX plugin uses for the coordinator (`ContainerTrainerPort`).
pub const COORDINATOR_PORT: u16 = 29500;

const RUNTIME_TEMPLATE: &str = include_str!("templates/runtime.md.j2");
const INDEX_TEMPLATE: &str = include_str!("templates/index.md.j2");

/// File name of a runtime's page: `<name>.md`, or `<namespace>_<name>.md` for a
/// TrainingRuntime (`_` cannot occur in Kubernetes names, so the two never collide).
pub fn page_name(r: &Resolved) -> String {
    match &r.namespace {
        Some(ns) => format!("{ns}_{}.md", r.name),
        None => format!("{}.md", r.name),
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
    tolerations: Vec<String>,
    jobset_annotations: Vec<KeyValue>,
    labels: Vec<KeyValue>,
    env: Vec<KeyValue>,
    shared_memory: Option<String>,
    host_network: bool,
    pod_group_policy: Option<String>,
    service_account_name: Option<String>,
    sdk_device: String,
    sdk_problem: Option<String>,
    fixed_num_nodes: bool,
    coordinator_port: u16,
    trainjob_yaml: String,
    trainjob_namespace: String,
}

fn quantity_map(v: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>) -> BTreeMap<String, String> {
    v.map(|m| m.iter().map(|(k, q)| (k.clone(), q.0.clone())).collect()).unwrap_or_default()
}

/// What the Kubeflow SDK reports as the device of the `node` container, following
/// `get_container_devices` (limits only; nvidia.com/gpu, google.com/tpu, nvidia.com/mig-*,
/// huawei.com/Ascend910, cpu, else an error). `(device, problem)`.
fn sdk_device(limits: &BTreeMap<String, String>, num_nodes: i32) -> (String, Option<String>) {
    let total = |per: &str| match per.parse::<i64>() {
        Ok(n) => format!("{} ({per} per node x {num_nodes} nodes)", n * num_nodes as i64),
        Err(_) => format!("{per} per node"),
    };
    if limits.is_empty() {
        return ("unknown (the runtime sets no limits)".into(), None);
    }
    for (key, device) in [("nvidia.com/gpu", "gpu"), ("google.com/tpu", "tpu")] {
        if let Some(v) = limits.get(key) {
            return (format!("`{device}`, count {}", total(v)), None);
        }
    }
    let mig: Vec<&String> = limits.keys().filter(|k| k.starts_with("nvidia.com/mig-")).collect();
    if mig.len() == 1 {
        return (format!("`{}`, count {}", mig[0].trim_start_matches("nvidia.com/"), total(&limits[mig[0]])), None);
    }
    if let Some(v) = limits.get("huawei.com/Ascend910") {
        return (format!("`npu`, count {}", total(v)), None);
    }
    if let Some(v) = limits.get("cpu") {
        return (format!("`cpu`, count {}", total(v)), None);
    }
    (
        "none".into(),
        Some(format!(
            "the SDK's `get_runtime()` and `list_runtimes()` raise \"Unknown device type in the container resources\" for limits {{{}}}; use the runtime from a TrainJob, or add a `cpu` limit",
            limits.keys().cloned().collect::<Vec<_>>().join(", ")
        )),
    )
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

/// The example TrainJob for a runtime, as a typed value (serialized to YAML for the page).
pub fn example_trainjob(r: &Resolved) -> Value {
    let script = "import os\n\
                  import jax\n\
                  jax.distributed.initialize(\n\
                  \x20   coordinator_address=os.environ[\"JAX_COORDINATOR_ADDRESS\"],\n\
                  \x20   num_processes=int(os.environ[\"JAX_NUM_PROCESSES\"]),\n\
                  \x20   process_id=int(os.environ[\"JAX_PROCESS_ID\"]),\n\
                  )\n\
                  print(jax.process_index(), jax.process_count(), jax.device_count())\n";
    let mut metadata = json!({ "name": "my-jax-job" });
    if let Some(ns) = &r.namespace {
        metadata["namespace"] = Value::String(ns.clone());
    }
    json!({
        "apiVersion": trainer::API_VERSION,
        "kind": "TrainJob",
        "metadata": metadata,
        "spec": {
            "runtimeRef": {
                "apiGroup": "trainer.kubeflow.org",
                "kind": if r.namespace.is_some() { trainer::KIND_NAMESPACED } else { trainer::KIND_CLUSTER },
                "name": r.name,
            },
            "trainer": {
                "command": ["python", "-c", script],
            },
        },
    })
}

fn page(r: &Resolved, manifest_file: &str) -> Result<Page, String> {
    let object = render::render(r);
    let pod =
        object.spec.template.spec.replicated_jobs.first().and_then(|j| j.template.spec.as_ref()).and_then(|s| s.template.spec.as_ref());
    let container = pod.and_then(|p| p.containers.first());
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
        Accel::Cpu => {
            (None, None, format!("{} node{} (one JAX process each), CPU only", r.num_nodes, if r.num_nodes == 1 { "" } else { "s" }))
        }
        Accel::Gpu(g) => (
            None,
            Some(json!({ "model": g.model, "vendor": g.vendor, "resource": g.resource, "count": g.count, "machineType": g.machine_type })),
            format!(
                "{} GPUs: {} x {} per node on {} node{}",
                g.count as i64 * r.num_nodes as i64,
                g.count,
                g.model,
                r.num_nodes,
                if r.num_nodes == 1 { "" } else { "s" }
            ),
        ),
        Accel::Tpu(t) => (
            Some(serde_json::to_value(t).map_err(|e| e.to_string())?),
            None,
            format!(
                "one TPU {} slice of {} chips: {} host{} x {} chips",
                t.generation,
                t.chips,
                t.hosts,
                if t.hosts == 1 { "" } else { "s" },
                t.chips_per_host
            ),
        ),
    };
    let (sdk_device, sdk_problem) = sdk_device(&limits, r.num_nodes);
    let trainjob = example_trainjob(r);
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
        accelerator: render::accelerator_summary(r),
        tpu,
        gpu,
        totals,
        resources: resource_rows,
        node_selector: kv(&r.node_selector),
        tolerations: r.tolerations.iter().map(toleration_text).collect(),
        jobset_annotations: kv(&r.jobset_annotations),
        labels: kv(&labels),
        env: r.env.iter().map(|e| KeyValue { key: e.name.clone(), value: env_text(e) }).collect(),
        shared_memory: r.shared_memory.as_ref().map(|s| match s {
            Some(limit) => format!("memory-backed `/dev/shm`, size limit {limit}"),
            None => "memory-backed `/dev/shm`, no size limit (counts against the pod's memory)".into(),
        }),
        host_network: r.host_network,
        pod_group_policy: r.pod_group_policy.as_ref().map(|v| serde_json::to_string(v).unwrap_or_default()),
        service_account_name: r.service_account_name.clone(),
        sdk_device,
        sdk_problem,
        fixed_num_nodes: matches!(r.accelerator, Accel::Tpu(_)),
        coordinator_port: COORDINATOR_PORT,
        trainjob_yaml: crate::yaml::to_string(&trainjob)?,
        trainjob_namespace: r.namespace.clone().unwrap_or_else(|| "default".into()),
    })
}

fn environment() -> Result<Environment<'static>, String> {
    let mut env = Environment::new();
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .keep_trailing_newline(true)
            .build()
            .map_err(|e| e.to_string())?,
    );
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    // A table cell: `|` would end the cell, a newline the row.
    env.add_filter("cell", |s: String| s.replace('|', "\\|").replace('\n', " "));
    env.add_template("runtime.md", RUNTIME_TEMPLATE).map_err(|e| format!("template runtime.md: {e:#}"))?;
    env.add_template("index.md", INDEX_TEMPLATE).map_err(|e| format!("template index.md: {e:#}"))?;
    Ok(env)
}

/// The pages for resolved runtimes: file name -> Markdown (each starting with
/// [`write::MARKDOWN_HEADER`]), `README.md` the index. Sorted; deterministic.
pub fn pages(runtimes: &[Resolved]) -> Result<BTreeMap<String, String>, String> {
    let env = environment()?;
    let mut pages = Vec::new();
    for r in runtimes {
        pages.push(page(r, &pipeline::file_name(r.namespace.as_deref(), &r.name))?);
    }
    pages.sort_by(|a, b| (a.accelerator_kind.as_str(), &a.namespace, &a.name).cmp(&(b.accelerator_kind.as_str(), &b.namespace, &b.name)));
    let mut out = BTreeMap::new();
    let runtime = env.get_template("runtime.md").map_err(|e| e.to_string())?;
    for p in &pages {
        let body = runtime.render(minijinja::Value::from(minijinja::value::Serde(p))).map_err(|e| format!("page {}: {e:#}", p.file))?;
        if out.insert(p.file.clone(), format!("{}\n{body}", write::MARKDOWN_HEADER)).is_some() {
            return Err(format!("two runtimes would be documented in the same page {}", p.file));
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
        .and_then(|t| t.render(minijinja::Value::from(minijinja::value::Serde(json!({ "groups": groups, "count": pages.len() })))))
        .map_err(|e| format!("index: {e:#}"))?;
    out.insert("README.md".into(), format!("{}\n{index}", write::MARKDOWN_HEADER));
    Ok(out)
}

/// `jax-runtimes docs`: returns the exit code.
pub fn run(a: &DocsArgs) -> i32 {
    let docs = match cli::read_catalog(&a.paths) {
        Ok(d) => d,
        Err(diags) => {
            report::print(&diags, a.format);
            return if diags.iter().any(|d| d.rule == "input/malformed-yaml") { cli::EXIT_FINDINGS } else { cli::EXIT_USAGE };
        }
    };
    // The same gate as `render`: a catalog that does not render is not documented.
    let generated = pipeline::generate(&docs);
    let mut diags = generated.diagnostics.clone();
    if docs.len() == generated.ignored.len() {
        diags.push(
            Diagnostic::error(
                "input/empty-catalog",
                "the input holds no catalog object (JaxRuntime, JaxRuntimeDefaults or JaxRuntimeMatrix)",
            )
            .with_help("check the paths; `jax-runtimes docs -o DIR` with no path documents the built-in catalog"),
        );
    }
    let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    report::print(&diags, a.format);
    if errors > 0 {
        eprintln!("jax-runtimes: nothing written: {errors} error(s)");
        return cli::EXIT_FINDINGS;
    }
    let resolution = resolve::resolve(&docs);
    let dir = &a.output_dir;
    let plan = match pages(&resolution.runtimes).and_then(|files| write::plan_for(dir, &files, &write::MARKDOWN)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("jax-runtimes: {e}");
            return cli::EXIT_USAGE;
        }
    };
    cli::sync_dir(dir, &plan, a.check, "docs", &a.paths, resolution.runtimes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin() -> Vec<Resolved> {
        let docs = crate::read::builtin().unwrap();
        let res = resolve::resolve(&docs);
        assert!(!crate::diag::has_errors(&res.diagnostics));
        res.runtimes
    }

    #[test]
    fn every_runtime_has_a_page_and_an_index_entry() {
        let rts = builtin();
        let pages = pages(&rts).unwrap();
        assert_eq!(pages.len(), rts.len() + 1);
        let index = &pages["README.md"];
        for r in &rts {
            let p = &pages[&page_name(r)];
            assert!(p.starts_with(write::MARKDOWN_HEADER));
            assert!(p.contains(&format!("runtime=\"{}\"", r.name)), "{}: SDK usage", r.name);
            assert!(index.contains(&format!("]({})", page_name(r))), "{}: index link", r.name);
        }
    }

    #[test]
    fn pages_state_what_trainer_injects_and_the_slice_shape() {
        let rts = builtin();
        let pages = pages(&rts).unwrap();
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
        assert_eq!(pages(&builtin()).unwrap(), pages(&builtin()).unwrap());
    }
}
