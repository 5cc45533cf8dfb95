//! Resolve stage: catalog documents -> fully specified runtimes. Applies `JaxRuntimeDefaults`,
//! expands `JaxRuntimeMatrix` objects, looks accelerators up in the accelerator data, and checks
//! everything a runtime must satisfy before it can be rendered. Every problem in the input is
//! collected, so one bad entry does not hide the others.

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::core::v1::{EnvVar, ResourceRequirements, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::accelerators::{self, GpuShape, TpuShape};
use crate::catalog::{self, DefaultsSpec, JaxRuntime, JaxRuntimeDefaults, JaxRuntimeMatrix, Platform};
use crate::diag::{Diagnostic, ObjectRef};
use crate::matrix;
use crate::read::{Document, Place};
use crate::trainer::JAX_PLUGIN_ENV;

/// Trainer releases with the JAX policy.
pub const TRAINER_VERSIONS: [&str; 2] = ["v2.2", "v2.3"];
pub const TRAINER_DEFAULT: &str = "v2.3";

/// Where a resolved runtime came from: the document and catalog object, and for a matrix row,
/// its variables. Field paths of the runtime map to `field_prefix` + path in the document.
#[derive(Debug, Clone)]
pub struct Origin {
    pub doc: Place,
    pub object: ObjectRef,
    pub row: Option<String>,
    pub field_prefix: &'static str,
}

impl Origin {
    /// Places a diagnostic about the runtime's own field path in the source document.
    pub fn locate(&self, d: Diagnostic) -> Diagnostic {
        let d = if self.field_prefix.is_empty() { d } else { d.under(self.field_prefix) };
        let d = match &self.row {
            Some(row) if !d.message.contains("matrix row") => {
                let message = format!("{} (matrix row {row})", d.message);
                Diagnostic { message, ..d }
            }
            _ => d,
        };
        let d = if d.object.is_none() { d.with_object(self.object.clone()) } else { d };
        self.doc.locate(d)
    }
}

/// The accelerator a runtime ended up with.
#[derive(Debug, Clone, PartialEq)]
pub enum Accel {
    Cpu,
    Gpu(GpuShape),
    Tpu(TpuShape),
}

impl Accel {
    pub fn kind(&self) -> &'static str {
        match self {
            Accel::Cpu => "cpu",
            Accel::Gpu(_) => "gpu",
            Accel::Tpu(_) => "tpu",
        }
    }
}

/// A runtime with every default applied and every derived value computed.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub origin: Origin,
    pub name: String,
    pub namespace: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub description: Option<String>,
    pub trainer: String,
    pub platform: Platform,
    pub image: String,
    pub num_nodes: i32,
    pub accelerator: Accel,
    pub command: Vec<String>,
    pub args: Vec<String>,
    pub env: Vec<EnvVar>,
    pub resources: ResourceRequirements,
    pub node_selector: BTreeMap<String, String>,
    pub tolerations: Vec<Toleration>,
    pub pod_group_policy: Option<Value>,
    /// `Some(size limit)` when a memory-backed `/dev/shm` is mounted.
    pub shared_memory: Option<Option<String>>,
    pub host_network: bool,
    pub service_account_name: Option<String>,
    /// Annotations for the JobSet template (`spec.template.metadata.annotations`).
    pub jobset_annotations: BTreeMap<String, String>,
}

/// What resolve produced: runtimes (sorted by namespace and name) and findings.
#[derive(Debug, Default)]
pub struct Resolution {
    pub runtimes: Vec<Resolved>,
    pub diagnostics: Vec<Diagnostic>,
    /// Documents that are not catalog objects (other kinds), in input order.
    pub ignored: Vec<Document>,
}

/// Is this document a catalog object (by its apiVersion group)?
pub fn is_catalog_object(v: &Value) -> bool {
    v.get("apiVersion").and_then(Value::as_str).is_some_and(|a| a.split('/').next() == Some(catalog::GROUP))
}

/// Resolves every catalog object among `docs`.
pub fn resolve(docs: &[Document]) -> Resolution {
    let mut res = Resolution::default();
    let mut entries: Vec<(JaxRuntime, Origin)> = Vec::new();
    let mut defaults: Vec<(JaxRuntimeDefaults, &Document)> = Vec::new();
    let mut matrices: Vec<(JaxRuntimeMatrix, &Document)> = Vec::new();

    for doc in docs {
        if !doc.value.is_object() {
            res.diagnostics.push(doc.locate(Diagnostic::error("catalog/not-an-object", "a document must be a YAML mapping (an object)")));
            continue;
        }
        if !is_catalog_object(&doc.value) {
            res.ignored.push(doc.clone());
            continue;
        }
        let object = ObjectRef::of(&doc.value);
        let api = doc.value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        if api != catalog::API_VERSION {
            res.diagnostics.push(
                doc.locate(
                    Diagnostic::error(
                        "catalog/api-version",
                        format!("unsupported apiVersion `{api}`; expected `{}`", catalog::API_VERSION),
                    )
                    .with_object(object)
                    .with_field("apiVersion"),
                ),
            );
            continue;
        }
        match object.kind.as_str() {
            catalog::KIND_RUNTIME => {
                if let Some(r) = typed::<JaxRuntime>(doc, &object, &mut res.diagnostics) {
                    entries.push((r, Origin { doc: doc.place(), object, row: None, field_prefix: "" }));
                }
            }
            catalog::KIND_DEFAULTS => {
                if let Some(d) = typed::<JaxRuntimeDefaults>(doc, &object, &mut res.diagnostics) {
                    defaults.push((d, doc));
                }
            }
            catalog::KIND_MATRIX => {
                if let Some(m) = typed::<JaxRuntimeMatrix>(doc, &object, &mut res.diagnostics) {
                    matrices.push((m, doc));
                }
            }
            other => res.diagnostics.push(
                doc.locate(
                    Diagnostic::error(
                        "catalog/unknown-kind",
                        format!("unknown kind `{other}`; expected one of {}", catalog::KINDS.map(|k| format!("`{k}`")).join(", ")),
                    )
                    .with_object(object)
                    .with_field("kind"),
                ),
            ),
        }
    }

    if defaults.len() > 1 {
        for (d, doc) in &defaults[1..] {
            res.diagnostics.push(
                doc.locate(
                    Diagnostic::error(
                        "catalog/duplicate-defaults",
                        format!("a second JaxRuntimeDefaults; the input already has `{}`", defaults[0].0.metadata.name),
                    )
                    .with_object(ObjectRef::new(catalog::KIND_DEFAULTS, &d.metadata.name))
                    .with_help("merge them into one JaxRuntimeDefaults object"),
                ),
            );
        }
    }
    let defaults_spec = defaults.first().map(|(d, _)| d.spec.clone()).unwrap_or_default();

    for (m, doc) in matrices {
        let object = ObjectRef::new(catalog::KIND_MATRIX, &m.metadata.name);
        match matrix::expand(&m) {
            Ok(rows) => {
                for row in rows {
                    let origin =
                        Origin { doc: doc.place(), object: object.clone(), row: Some(row.describe()), field_prefix: "spec.template" };
                    match serde_path_to_error::deserialize::<_, JaxRuntime>(&row.runtime) {
                        Ok(r) => entries.push((r, origin)),
                        Err(e) => res.diagnostics.push(origin.locate(shape_error(&e))),
                    }
                }
            }
            Err(errs) => {
                res.diagnostics.extend(errs.into_iter().map(|d| doc.locate(d.with_object(object.clone()))));
            }
        }
    }

    let mut seen: HashMap<(Option<String>, String), ObjectRef> = HashMap::new();
    for (entry, origin) in entries {
        let key = (entry.metadata.namespace.clone(), entry.metadata.name.clone());
        if let Some(first) = seen.get(&key) {
            let what = match &key.0 {
                Some(ns) => format!("TrainingRuntime `{}` in namespace `{ns}`", key.1),
                None => format!("ClusterTrainingRuntime `{}`", key.1),
            };
            res.diagnostics.push(
                origin.locate(
                    Diagnostic::error("catalog/duplicate-name", format!("{what} is generated twice; {first} generates it too"))
                        .with_field("metadata.name")
                        .with_help("give every runtime a unique name"),
                ),
            );
            continue;
        }
        seen.insert(key, origin.object.clone());
        match resolve_entry(&entry, &defaults_spec) {
            Ok((resolved, warnings)) => {
                res.diagnostics.extend(warnings.into_iter().map(|w| origin.locate(w)));
                res.runtimes.push(Resolved { origin, ..resolved });
            }
            Err(errs) => res.diagnostics.extend(errs.into_iter().map(|e| origin.locate(e))),
        }
    }
    res.runtimes.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    res
}

/// Deserializes a catalog object, turning serde's error into a located diagnostic.
fn typed<T: DeserializeOwned>(doc: &Document, object: &ObjectRef, diags: &mut Vec<Diagnostic>) -> Option<T> {
    match serde_path_to_error::deserialize::<_, T>(&doc.value) {
        Ok(t) => Some(t),
        Err(e) => {
            diags.push(doc.locate(shape_error(&e).with_object(object.clone())));
            None
        }
    }
}

/// `unknown field `nodeSelectr`, expected one of ...` at `spec.nodeSelectr`.
fn shape_error(e: &serde_path_to_error::Error<serde_json::Error>) -> Diagnostic {
    let path = e.path().to_string();
    let inner = e.inner().to_string();
    let (rule, help) = if inner.starts_with("unknown field") {
        ("catalog/unknown-field", "remove the field or fix its spelling; `jax-runtimes schema` lists every field")
    } else if inner.starts_with("missing field") {
        ("catalog/missing-field", "add the field; `jax-runtimes schema` lists the required fields")
    } else if inner.starts_with("unknown variant") {
        ("catalog/invalid-value", "use one of the accepted values")
    } else {
        ("catalog/wrong-type", "check the value's type against `jax-runtimes schema`")
    };
    // serde_path_to_error reports `.` for the root and the parent for unknown fields.
    let mut field = if path == "." { String::new() } else { path };
    if let Some(name) = inner.strip_prefix("unknown field `").and_then(|s| s.split('`').next()) {
        let already = field == name || field.ends_with(&format!(".{name}"));
        if !already {
            field = if field.is_empty() { name.to_string() } else { format!("{field}.{name}") };
        }
    }
    let help = if inner.contains("invalid type: boolean") && inner.contains("string") {
        "YAML 1.1 (what kubectl reads) takes y, yes, on, n, no and off for booleans: quote the value, e.g. \"on\""
    } else {
        help
    };
    let d = Diagnostic::error(rule, inner).with_help(help);
    if field.is_empty() {
        d
    } else {
        d.with_field(field)
    }
}

fn q(s: impl Into<String>) -> Quantity {
    Quantity(s.into())
}

/// Resolves one entry against the defaults. Errors carry field paths relative to the entry.
pub fn resolve_entry(entry: &JaxRuntime, defaults: &DefaultsSpec) -> Result<(Resolved, Vec<Diagnostic>), Vec<Diagnostic>> {
    let data = accelerators::data();
    let spec = &entry.spec;
    let mut errors = Vec::new();
    let mut warnings = Vec::new();

    if entry.api_version != catalog::API_VERSION {
        errors.push(
            Diagnostic::error("catalog/api-version", format!("expected apiVersion `{}`", catalog::API_VERSION)).with_field("apiVersion"),
        );
    }
    check_name(&entry.metadata.name, "metadata.name", 253, &mut errors);
    if let Some(ns) = &entry.metadata.namespace {
        check_name(ns, "metadata.namespace", 63, &mut errors);
    }

    // Trainer release.
    let trainer = match spec.trainer.as_deref().or(defaults.trainer.as_deref()) {
        None => TRAINER_DEFAULT.to_string(),
        Some(t) => match normalize_trainer(t) {
            Ok(v) => v,
            Err(e) => {
                errors.push(
                    Diagnostic::error("catalog/trainer-version", e)
                        .with_field("spec.trainer")
                        .with_help(format!("set `spec.trainer` to one of {}", TRAINER_VERSIONS.join(", "))),
                );
                TRAINER_DEFAULT.to_string()
            }
        },
    };

    // Accelerator: exactly one.
    let acc = &spec.accelerator;
    let set: Vec<&str> = [("cpu", acc.cpu.is_some()), ("gpu", acc.gpu.is_some()), ("tpu", acc.tpu.is_some())]
        .into_iter()
        .filter(|(_, s)| *s)
        .map(|(n, _)| n)
        .collect();
    if set.len() != 1 {
        errors.push(
            Diagnostic::error(
                "catalog/accelerator-count",
                if set.is_empty() {
                    "no accelerator given; expected exactly one of `cpu`, `gpu`, `tpu`".to_string()
                } else {
                    format!("{} accelerators given ({}); expected exactly one of `cpu`, `gpu`, `tpu`", set.len(), set.join(", "))
                },
            )
            .with_field("spec.accelerator")
            .with_help("a runtime targets one kind of node: split it into one JaxRuntime per accelerator"),
        );
        return Err(errors);
    }

    let platform_given = spec.platform.or(defaults.platform);
    let platform = platform_given.unwrap_or(if acc.tpu.is_some() { Platform::Gke } else { Platform::Generic });
    let mut node_selector = BTreeMap::new();
    let mut tolerations: Vec<Toleration> = Vec::new();
    let mut env: Vec<EnvVar> = Vec::new();
    let mut jobset_annotations = BTreeMap::new();
    let mut limits: BTreeMap<String, Quantity> = BTreeMap::new();
    let num_nodes: i32;
    let accel: Accel;
    let default_image: String;
    let default_image_from_defaults: Option<&String>;

    if let Some(tpu) = &acc.tpu {
        default_image = data.tpu.default_image.clone();
        default_image_from_defaults = defaults.images.tpu.as_ref();
        if platform != Platform::Gke {
            errors.push(
                Diagnostic::error("catalog/tpu-platform", format!("TPU slices are scheduled by GKE; platform is `{platform}`"))
                    .with_field(if spec.platform.is_some() { "spec.platform" } else { "spec.accelerator.tpu" })
                    .with_help("set `spec.platform: gke` for TPU runtimes"),
            );
        }
        match resolve_tpu(tpu) {
            Ok(shape) => {
                if let Some(n) = spec.num_nodes {
                    if n != shape.hosts as i32 {
                        errors.push(
                            Diagnostic::error(
                                "catalog/tpu-num-nodes",
                                format!(
                                    "numNodes is {n}, but a TPU {} {} slice on {} ({} chips per host) has {} host{}",
                                    shape.generation,
                                    shape.topology,
                                    shape.machine_type,
                                    shape.chips_per_host,
                                    shape.hosts,
                                    if shape.hosts == 1 { "" } else { "s" }
                                ),
                            )
                            .with_field("spec.numNodes")
                            .with_help(format!("remove `numNodes` (it is derived for TPU) or set it to {}", shape.hosts)),
                        );
                    }
                }
                num_nodes = shape.hosts as i32;
                node_selector.insert(data.tpu.accelerator_label.clone(), shape.accelerator_label.clone());
                node_selector.insert(data.tpu.topology_label.clone(), shape.topology.clone());
                tolerations.extend(data.tpu.tolerations.iter().cloned());
                env.extend(data.tpu.env.iter().cloned());
                limits.insert(data.tpu.resource.clone(), q(shape.chips_per_host.to_string()));
                if shape.multi_host() {
                    jobset_annotations.extend(data.tpu.multi_host_annotations.clone());
                }
                accel = Accel::Tpu(shape);
            }
            Err(e) => {
                errors.push(e);
                return Err(errors);
            }
        }
    } else if let Some(gpu) = &acc.gpu {
        num_nodes = spec.num_nodes.unwrap_or(1);
        let model = match data.gpu.model(&gpu.model) {
            Ok(m) => m,
            Err(e) => {
                errors.push(
                    Diagnostic::error("catalog/unknown-gpu", e)
                        .with_field("spec.accelerator.gpu.model")
                        .with_help("`jax-runtimes accelerators --kind gpu` lists the models"),
                );
                return Err(errors);
            }
        };
        if let Some(v) = &gpu.vendor {
            if v != &model.vendor {
                errors.push(
                    Diagnostic::error("catalog/gpu-vendor", format!("GPU model `{}` is made by `{}`, not `{v}`", model.name, model.vendor))
                        .with_field("spec.accelerator.gpu.vendor")
                        .with_help("remove `vendor` (the model implies it) or fix it"),
                );
            }
        }
        let vendor = data.gpu.vendor(&model.vendor).map_err(|e| vec![Diagnostic::error("catalog/unknown-gpu", e)])?;
        default_image = vendor.default_image.clone();
        default_image_from_defaults = if vendor.name == "amd" { defaults.images.amd_gpu.as_ref() } else { defaults.images.gpu.as_ref() };
        match data.gpu.place(model, gpu.count, platform, gpu.machine_type.as_deref()) {
            Ok(shape) => {
                node_selector.extend(shape.node_selector.clone());
                tolerations.extend(shape.tolerations.iter().cloned());
                limits.insert(shape.resource.clone(), q(shape.count.to_string()));
                accel = Accel::Gpu(shape);
            }
            Err(e) => {
                let field = match &e {
                    accelerators::GpuError::UnknownMachineType { .. } => "spec.accelerator.gpu.machineType",
                    accelerators::GpuError::NotOnPlatform { .. } => "spec.platform",
                    _ => "spec.accelerator.gpu.count",
                };
                errors.push(
                    Diagnostic::error("catalog/gpu-shape", e.to_string())
                        .with_field(field)
                        .with_help("`jax-runtimes accelerators --kind gpu` lists models, platforms and machine shapes"),
                );
                return Err(errors);
            }
        }
    } else {
        num_nodes = spec.num_nodes.unwrap_or(1);
        default_image = data.cpu.default_image.clone();
        default_image_from_defaults = defaults.images.cpu.as_ref();
        env.extend(data.cpu.env.iter().cloned());
        accel = Accel::Cpu;
    }
    if num_nodes < 1 {
        errors.push(
            Diagnostic::error("catalog/num-nodes", format!("numNodes is {num_nodes}; it must be at least 1")).with_field("spec.numNodes"),
        );
    }

    // Resources: the entry's non-accelerator resources plus the accelerator's, requests == limits.
    let mut resources = spec.resources.clone().unwrap_or_default();
    let accelerator_keys = accelerator_resource_keys();
    for (section, map) in [("requests", &resources.requests), ("limits", &resources.limits)] {
        for key in map.iter().flat_map(|m| m.keys()) {
            if accelerator_keys.iter().any(|k| k == key) {
                errors.push(
                    Diagnostic::error(
                        "catalog/accelerator-in-resources",
                        format!("`{key}` is set by the generator from `spec.accelerator`"),
                    )
                    .with_field(format!("spec.resources.{section}.{key}"))
                    .with_help("remove it from `spec.resources`; use `spec.accelerator` to choose the accelerator and count"),
                );
            }
        }
    }
    if resources.limits.as_ref().is_some_and(|l| l.contains_key("memory")) {
        warnings.push(
            Diagnostic::warning(
                "catalog/memory-limit",
                "a `memory` limit on the `node` container: the JAX process is killed when it grows past it, and the Kubeflow SDK fails with \"Unknown device type\" on a runtime whose limits hold memory but no cpu or accelerator",
            )
            .with_field("spec.resources.limits.memory")
            .with_help("request memory under `spec.resources.requests` instead; keep a cpu limit beside a memory limit"),
        );
    }
    // The Kubeflow SDK reads the device kind from limits and knows only cpu, nvidia.com/gpu,
    // google.com/tpu and nvidia.com/mig-*. CPU runtimes get a cpu limit equal to their request so
    // the SDK shows them as cpu. For AMD GPUs a limit the SDK cannot read makes list_runtimes()
    // fail for every runtime of the cluster (kubeflow SDK 0.5), so a cpu limit is required there.
    let sdk_blind = matches!(&accel, Accel::Gpu(g) if !sdk_reads(&g.resource));
    if matches!(accel, Accel::Cpu) || sdk_blind {
        let cpu_request = resources.requests.as_ref().and_then(|r| r.get("cpu")).cloned();
        match cpu_request {
            Some(cpu) => {
                resources.limits.get_or_insert_with(BTreeMap::new).entry("cpu".into()).or_insert(cpu);
            }
            None if sdk_blind && !resources.limits.as_ref().is_some_and(|l| l.contains_key("cpu")) => {
                let resource = if let Accel::Gpu(g) = &accel { g.resource.clone() } else { String::new() };
                errors.push(
                    Diagnostic::error(
                        "catalog/sdk-unreadable-device",
                        format!(
                            "the Kubeflow SDK cannot read `{resource}` limits: it raises \"Unknown device type\" and `list_runtimes()` fails for every runtime in the cluster unless the `node` container also has a `cpu` limit"
                        ),
                    )
                    .with_field("spec.resources")
                    .with_help("set `spec.resources.requests.cpu` (it becomes the cpu limit too); the SDK then lists the runtime as a cpu device"),
                );
            }
            None => {}
        }
    }
    if !limits.is_empty() {
        let l = resources.limits.get_or_insert_with(BTreeMap::new);
        let r = resources.requests.get_or_insert_with(BTreeMap::new);
        for (k, v) in limits {
            l.insert(k.clone(), v.clone());
            r.insert(k, v);
        }
    }

    // Env: accelerator env, then the defaults', then the entry's; a later same name replaces.
    for e in defaults.env.iter().chain(&spec.env) {
        upsert_env(&mut env, e.clone());
    }
    for (i, e) in spec.env.iter().enumerate() {
        if JAX_PLUGIN_ENV.contains(&e.name.as_str()) {
            warnings.push(
                Diagnostic::warning(
                    "catalog/jax-plugin-env",
                    format!("`{}` is injected by Trainer's JAX plugin; a value here overrides it and can make `jax.distributed.initialize()` hang", e.name),
                )
                .with_field(format!("spec.env[{i}].name"))
                .with_help("remove it: Trainer sets JAX_NUM_PROCESSES, JAX_PROCESS_ID and JAX_COORDINATOR_ADDRESS for every pod"),
            );
        }
    }
    for (i, e) in defaults.env.iter().enumerate() {
        if JAX_PLUGIN_ENV.contains(&e.name.as_str()) {
            warnings.push(
                Diagnostic::warning(
                    "catalog/jax-plugin-env",
                    format!("`{}` (from JaxRuntimeDefaults env[{i}]) is injected by Trainer's JAX plugin; a value overrides it", e.name),
                )
                .with_field("spec.env")
                .with_help("remove it from the defaults"),
            );
        }
    }

    for (k, v) in defaults.node_selector.iter().chain(&spec.node_selector) {
        node_selector.insert(k.clone(), v.clone());
    }
    for t in defaults.tolerations.iter().chain(&spec.tolerations) {
        if !tolerations.contains(t) {
            tolerations.push(t.clone());
        }
    }

    let mut labels = defaults.labels.clone();
    labels.extend(entry.metadata.labels.clone());
    // Orchestrator annotations (kpt/kustomize paths, local-config, function config) describe the
    // catalog file, not the runtime: never copy them.
    let mut annotations: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in defaults.annotations.iter().chain(&entry.metadata.annotations) {
        if !crate::krm::is_orchestrator_annotation(k) {
            annotations.insert(k.clone(), v.clone());
        }
    }

    let image = spec.image.clone().or_else(|| default_image_from_defaults.cloned()).unwrap_or(default_image);
    if image.trim().is_empty() {
        errors.push(Diagnostic::error("catalog/image", "the image is empty").with_field("spec.image"));
    }

    let shared_default = !matches!(accel, Accel::Cpu);
    let shared_memory = match &spec.shared_memory {
        Some(s) if s.enabled == Some(false) => None,
        Some(s) if s.enabled == Some(true) || shared_default || s.size_limit.is_some() => Some(s.size_limit.clone()),
        Some(_) => None,
        None if shared_default => Some(None),
        None => None,
    };

    if !errors.is_empty() {
        return Err(errors);
    }
    let doc = Place { source: crate::read::Source::named(""), index: 0 };
    Ok((
        Resolved {
            origin: Origin { doc, object: ObjectRef::new(catalog::KIND_RUNTIME, &entry.metadata.name), row: None, field_prefix: "" },
            name: entry.metadata.name.clone(),
            namespace: entry.metadata.namespace.clone(),
            labels,
            annotations,
            description: spec.description.clone(),
            trainer,
            platform,
            image,
            num_nodes,
            accelerator: accel,
            command: spec.command.clone(),
            args: spec.args.clone(),
            env,
            resources,
            node_selector,
            tolerations,
            pod_group_policy: spec.pod_group_policy.clone().or_else(|| defaults.pod_group_policy.clone()),
            shared_memory,
            host_network: spec.host_network.unwrap_or(false),
            service_account_name: spec.service_account_name.clone(),
            jobset_annotations,
        },
        warnings,
    ))
}

/// Extended resources the Kubeflow SDK maps to a device kind.
fn sdk_reads(resource: &str) -> bool {
    matches!(resource, "nvidia.com/gpu" | "google.com/tpu" | "cpu") || resource.starts_with("nvidia.com/mig-")
}

/// Every extended resource name the accelerator data knows.
pub fn accelerator_resource_keys() -> Vec<String> {
    let data = accelerators::data();
    std::iter::once(data.tpu.resource.clone()).chain(data.gpu.vendors.iter().map(|v| v.resource.clone())).collect()
}

fn upsert_env(env: &mut Vec<EnvVar>, e: EnvVar) {
    match env.iter_mut().find(|x| x.name == e.name) {
        Some(x) => *x = e,
        None => env.push(e),
    }
}

fn normalize_trainer(t: &str) -> Result<String, String> {
    let s = t.trim().trim_start_matches('v');
    let mut parts = s.split('.');
    let major = parts.next().and_then(|p| p.parse::<u32>().ok());
    let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
    match (major, minor) {
        (Some(2), Some(0 | 1)) => Err(format!(
            "Trainer `{t}` has no JAX policy (`mlPolicy.jax` arrived in v2.2); expected one of {}",
            TRAINER_VERSIONS.join(", ")
        )),
        (Some(ma), Some(mi)) if TRAINER_VERSIONS.contains(&format!("v{ma}.{mi}").as_str()) => Ok(format!("v{ma}.{mi}")),
        _ => Err(format!("unsupported Trainer release `{t}`; expected one of {}", TRAINER_VERSIONS.join(", "))),
    }
}

/// DNS-1123 subdomain (runtime names) or label (namespaces).
fn check_name(name: &str, field: &str, max: usize, errors: &mut Vec<Diagnostic>) {
    let ok = !name.is_empty()
        && name.len() <= max
        && name.split('.').all(|part| {
            !part.is_empty()
                && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !part.starts_with('-')
                && !part.ends_with('-')
        })
        && (max > 63 || !name.contains('.'));
    if !ok {
        errors.push(
            Diagnostic::error("catalog/invalid-name", format!("`{name}` is not a valid Kubernetes name"))
                .with_field(field)
                .with_help(format!("use at most {max} lowercase letters, digits and '-', starting and ending with a letter or digit")),
        );
    }
}

fn resolve_tpu(tpu: &catalog::TpuSpec) -> Result<TpuShape, Diagnostic> {
    let data = &accelerators::data().tpu;
    let field = "spec.accelerator.tpu";
    if let Some(slices) = tpu.slices {
        if slices != 1 {
            return Err(Diagnostic::error(
                "catalog/tpu-multislice",
                format!("{slices} slices requested; Trainer v2.3 runs exactly one replica of the `node` job, so a multislice runtime cannot start (kubeflow/trainer#3408)"),
            )
            .with_field(format!("{field}.slices"))
            .with_help("use one slice (`slices: 1`, the default) until Trainer supports multislice JAX"));
        }
    }
    let (generation, topology) = match (&tpu.accelerator_type, &tpu.generation, &tpu.topology) {
        (Some(at), g, t) => {
            let (generation, chips) = data.accelerator_type(at).map_err(|e| {
                Diagnostic::error("catalog/unknown-tpu", e)
                    .with_field(format!("{field}.acceleratorType"))
                    .with_help("`jax-runtimes accelerators --kind tpu` lists accelerator types")
            })?;
            if let Some(g) = g {
                let named =
                    data.generation(g).map_err(|e| Diagnostic::error("catalog/unknown-tpu", e).with_field(format!("{field}.type")))?;
                if named.name != generation.name {
                    return Err(Diagnostic::error(
                        "catalog/unknown-tpu",
                        format!("type `{g}` contradicts acceleratorType `{at}` (a {} name)", generation.name),
                    )
                    .with_field(format!("{field}.type"))
                    .with_help("give `acceleratorType` alone, or `type` with `topology`"));
                }
            }
            let topology = match t {
                Some(t) => {
                    let t_chips = accelerators::parse_topology(t).map(|d| d.iter().product::<u32>());
                    if t_chips != Some(chips) {
                        return Err(Diagnostic::error(
                            "catalog/tpu-topology",
                            format!("topology `{t}` does not have the {chips} chips of `{at}`"),
                        )
                        .with_field(format!("{field}.topology"))
                        .with_help("remove `topology` to use the accelerator type's default, or give one with the same chip count"));
                    }
                    t.clone()
                }
                None => generation.default_topology(chips).ok_or_else(|| {
                    Diagnostic::error(
                        "catalog/tpu-topology",
                        format!("`{at}` ({chips} chips) is not a valid {} slice size", generation.name),
                    )
                    .with_field(format!("{field}.acceleratorType"))
                    .with_help(format!("nearest valid topologies: {}", generation.nearest_topologies(&format!("{chips}x1"), 5).join(", ")))
                })?,
            };
            (generation, topology)
        }
        (None, Some(g), Some(t)) => {
            let generation = data.generation(g).map_err(|e| {
                Diagnostic::error("catalog/unknown-tpu", e)
                    .with_field(format!("{field}.type"))
                    .with_help("`jax-runtimes accelerators --kind tpu` lists TPU types")
            })?;
            (generation, t.clone())
        }
        (None, _, _) => {
            return Err(Diagnostic::error("catalog/unknown-tpu", "a TPU needs `type` and `topology`, or `acceleratorType`")
                .with_field(field)
                .with_help("for example `tpu: {type: v5e, topology: 4x4}` or `tpu: {acceleratorType: v5litepod-16}`"));
        }
    };
    let shapes = generation.shapes_for(&topology);
    if shapes.is_empty() {
        let dims_ok = accelerators::parse_topology(&topology).is_some_and(|d| d.len() == generation.dimensions);
        let why = if dims_ok {
            format!("`{topology}` is not a valid TPU {} topology", generation.name)
        } else {
            format!(
                "`{topology}` is not a TPU {} topology: {} slices are {}",
                generation.name,
                generation.name,
                if generation.dimensions == 2 { "2D (AxB)" } else { "3D (AxBxC)" }
            )
        };
        return Err(Diagnostic::error("catalog/tpu-topology", why)
            .with_field(format!("{field}.topology"))
            .with_help(format!("nearest valid topologies: {}", generation.nearest_topologies(&topology, 5).join(", "))));
    }
    match tpu.chips_per_host {
        Some(c) => shapes.iter().find(|s| s.chips_per_host == c).cloned().ok_or_else(|| {
            Diagnostic::error(
                "catalog/tpu-chips-per-host",
                format!("TPU {} {topology} has no machine shape with {c} chips per host", generation.name),
            )
            .with_field(format!("{field}.chipsPerHost"))
            .with_help(format!(
                "use {}",
                shapes.iter().map(|s| format!("{} ({})", s.chips_per_host, s.machine_type)).collect::<Vec<_>>().join(" or ")
            ))
        }),
        None if shapes.len() == 1 => Ok(shapes[0].clone()),
        None => Err(Diagnostic::error(
            "catalog/tpu-chips-per-host",
            format!(
                "TPU {} {topology} fits {} machine shapes with identical node labels ({}); the pod's `google.com/tpu` and the host count depend on which node pool you created",
                generation.name,
                shapes.len(),
                shapes.iter().map(|s| format!("{} host{} x {} chips on {}", s.hosts, if s.hosts == 1 { "" } else { "s" }, s.chips_per_host, s.machine_type)).collect::<Vec<_>>().join(", or ")
            ),
        )
        .with_field(format!("{field}.chipsPerHost"))
        .with_help(format!(
            "set `chipsPerHost` to {} to match your node pool's machine type",
            shapes.iter().map(|s| s.chips_per_host.to_string()).collect::<Vec<_>>().join(" or ")
        ))),
    }
}
