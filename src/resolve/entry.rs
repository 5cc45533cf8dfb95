//! One `JaxRuntime` entry resolved against the defaults, in steps that each read part of the
//! entry: names, the Trainer release, the accelerator ([`super::tpu`], [`super::gpu`], CPU),
//! resources, env, scheduling, metadata, image and shared memory. Errors carry field paths
//! relative to the entry; the caller places them.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{EnvVar, ResourceRequirements, Toleration};

use super::resolved::{Accel, AcceleratorPlan, Origin, Resolved};
use crate::accelerators::data;
use crate::catalog::{self, DefaultsSpec, JaxRuntime, Platform};
use crate::diag::Diagnostic;
use crate::k8s::names;
use crate::keys;
use crate::rules::catalog::*;
use crate::trainer::facts;

/// Errors and warnings of one entry.
#[derive(Default)]
struct Findings {
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
}

/// Resolves one entry against the defaults. `Err` holds every error found; `Ok` the runtime and
/// its warnings.
pub fn resolve_entry(entry: &JaxRuntime, defaults: &DefaultsSpec, origin: Origin) -> Result<(Resolved, Vec<Diagnostic>), Vec<Diagnostic>> {
    let spec = &entry.spec;
    let mut f = Findings::default();
    check_names(entry, &mut f);
    for d in super::kubernetes::check_entry(entry, defaults) {
        if d.is_error() {
            f.errors.push(d);
        } else {
            f.warnings.push(d);
        }
    }
    let trainer = trainer_version(spec.trainer.as_deref().or(defaults.trainer.as_deref()), &mut f);
    let platform = platform(entry, defaults, &mut f);
    let Some(mut plan) = accelerator(entry, defaults, &platform, &mut f) else { return Err(f.errors) };
    if plan.num_nodes < 1 {
        f.errors.push(
            Diagnostic::new(&CATALOG_NUM_NODES, format!("numNodes is {}; it must be at least 1", plan.num_nodes))
                .with_field("spec.numNodes"),
        );
    }
    let gpu = match &plan.accel {
        Accel::Gpu(g) => Some(g),
        _ => None,
    };
    let replaced = |k: &str| match k {
        keys::DESCRIPTION => spec.description.is_some(),
        keys::MACHINE_TYPES => gpu.is_some_and(|g| !g.machine_types.is_empty()),
        keys::INTERCONNECT => gpu.is_some() && plan.num_nodes > 1,
        keys::CAPACITY => spec.capacity.is_some() || defaults.capacity.is_some(),
        _ => true,
    };
    f.warnings.extend(super::defaults::generator_metadata(&entry.metadata.labels, &entry.metadata.annotations, "metadata", &replaced));
    let (resources, cpu_limit_from_request) = resources(entry, &plan, &mut f);
    let env = env(entry, defaults, std::mem::take(&mut plan.env), &mut f);
    let (mut node_selector, mut tolerations) = scheduling(entry, defaults, &plan);
    let capacity = match super::capacity::choices(spec.capacity.as_ref(), defaults.capacity.as_ref(), &platform, &plan.accel) {
        Ok(choices) => {
            let user: Vec<&str> = defaults.node_selector.keys().chain(entry.spec.node_selector.keys()).map(String::as_str).collect();
            f.errors.extend(super::capacity::apply(&choices, &platform, &user, &mut node_selector, &mut tolerations));
            choices
        }
        Err(errors) => {
            f.errors.extend(errors);
            Vec::new()
        }
    };
    let (labels, annotations) = metadata(entry, defaults);
    let image = spec.image.clone().or_else(|| defaults.images.get(&plan.image_key).cloned()).unwrap_or_else(|| plan.default_image.clone());
    if image.trim().is_empty() {
        f.errors.push(Diagnostic::new(&CATALOG_IMAGE, "the image is empty").with_field("spec.image"));
    }
    let shared_memory = shared_memory(entry, &plan.accel);
    let fragments = [(&defaults.pod_template, true), (&spec.pod_template, false)];
    for d in fragments
        .into_iter()
        .filter_map(|(t, from_defaults)| Some(super::pod_template::check(t.as_ref()?, "spec.podTemplate", from_defaults)))
        .flatten()
    {
        if d.is_error() {
            f.errors.push(d);
        } else {
            f.warnings.push(d);
        }
    }
    let initializers = spec.initializers.as_ref().and_then(|i| match super::initializers::resolve(i, &trainer, plan.num_nodes) {
        Ok(r) => Some(r),
        Err(e) => {
            f.errors.extend(e);
            None
        }
    });
    let storage = storage(spec, &platform, shared_memory.is_some(), initializers.is_some(), &plan, &mut f);
    if !f.errors.is_empty() {
        return Err(f.errors);
    }
    // A dynamic TPU slice's annotations, then `spec.topology`'s (which win).
    let mut pod_annotations = super::tpu::pod_annotations(&plan.accel);
    pod_annotations.extend(spec.topology.as_ref().map(topology_annotations).unwrap_or_default());
    Ok((
        Resolved {
            origin,
            name: entry.metadata.name.clone(),
            namespace: entry.metadata.namespace.clone(),
            labels,
            annotations,
            description: spec.description.clone(),
            trainer,
            platform,
            image,
            num_nodes: plan.num_nodes,
            accelerator: plan.accel,
            command: spec.command.clone(),
            args: spec.args.clone(),
            env,
            resources,
            cpu_limit_from_request,
            node_selector,
            tolerations,
            pod_group_policy: spec.pod_group_policy.clone().or_else(|| defaults.pod_group_policy.clone()),
            shared_memory,
            host_network: spec.host_network.unwrap_or(false),
            service_account_name: spec.service_account_name.clone(),
            jobset_annotations: plan.jobset_annotations,
            pod_annotations,
            capacity,
            pod_template: super::pod_template::resolve(defaults.pod_template.as_ref(), spec.pod_template.as_ref()),
            initializers,
            storage,
            defaults: Vec::new(),
        },
        f.warnings,
    ))
}

/// `spec.storage` against what the generator mounts itself: `/dev/shm`, the initializers'
/// volume, the fabric's volumes.
fn storage(
    spec: &catalog::JaxRuntimeSpec,
    platform: &Platform,
    shm: bool,
    initializers: bool,
    plan: &AcceleratorPlan,
    f: &mut Findings,
) -> super::storage::ResolvedStorage {
    if spec.storage.is_empty() {
        return super::storage::ResolvedStorage::default();
    }
    let init = &facts().initializers;
    let mut taken: Vec<(&str, &str, &str)> = Vec::new();
    if shm {
        taken.push(("/dev/shm", crate::accelerators::SHM_VOLUME, "`spec.sharedMemory`"));
    }
    if initializers {
        taken.push((init.mount_path.as_str(), init.volume.as_str(), "`spec.initializers`"));
    }
    if let Accel::Gpu(g) = &plan.accel {
        if let Some(fabric) = &g.fabric {
            taken.extend(fabric.node_mounts.iter().map(|m| (m.mount_path.as_str(), m.name.as_str(), "the GPU fabric")));
            taken.extend(fabric.volumes.iter().map(|v| ("", v.name.as_str(), "the GPU fabric")));
        }
    }
    match super::storage::resolve(&spec.storage, platform, &taken) {
        Ok(s) => s,
        Err(e) => {
            f.errors.extend(e);
            super::storage::ResolvedStorage::default()
        }
    }
}

/// `spec.topology` as Kueue's podset annotations (the validator checks them on the rendered runtime).
pub fn topology_annotations(t: &crate::catalog::PodTopology) -> BTreeMap<String, String> {
    let a = &crate::kueue::facts().annotations;
    let mut out = BTreeMap::new();
    let mut put = |k: &String, v: Option<String>| {
        if let Some(v) = v {
            out.insert(k.clone(), v);
        }
    };
    put(&a.podset_required_topology, t.required.clone());
    put(&a.podset_preferred_topology, t.preferred.clone());
    put(&a.podset_unconstrained_topology, t.unconstrained.map(|u| u.to_string()));
    put(&a.podset_slice_required_topology, t.slice_required.clone());
    put(&a.podset_slice_size, t.slice_size.map(|n| n.to_string()));
    out
}

/// The runtime's name is a DNS-1123 subdomain; a namespace a DNS-1123 label (the API server's
/// rules for both, k8s.io/apimachinery `ValidateObjectMeta` with `NameIsDNSSubdomain`).
fn check_names(entry: &JaxRuntime, f: &mut Findings) {
    let bad = |name: &str, field: &str, max: usize| {
        Diagnostic::new(&CATALOG_INVALID_NAME, format!("`{name}` is not a valid Kubernetes name"))
            .with_field(field)
            .with_help(format!("use at most {max} lowercase letters, digits and '-', starting and ending with a letter or digit"))
    };
    if !names::is_dns1123_subdomain(&entry.metadata.name) {
        f.errors.push(bad(&entry.metadata.name, "metadata.name", 253));
    }
    if let Some(ns) = &entry.metadata.namespace {
        if !names::is_dns1123_label(ns) {
            f.errors.push(bad(ns, "metadata.namespace", 63));
        }
    }
}

/// The Trainer release, exactly as [`catalog::trainer_releases`] lists it; the default when unset.
fn trainer_version(given: Option<&str>, f: &mut Findings) -> String {
    let Some(t) = given else { return catalog::trainer_default().to_string() };
    match super::release::trainer_error(t) {
        None => t.to_string(),
        Some(d) => {
            f.errors.push(d);
            catalog::trainer_default().to_string()
        }
    }
}

/// The entry's platform, else the defaults', else the accelerator's default (TPU: the first
/// platform of the TPU data; others: `platforms.yaml`'s default).
fn platform(entry: &JaxRuntime, defaults: &DefaultsSpec, f: &mut Findings) -> Platform {
    let d = data();
    if let Some(p) = &entry.spec.platform {
        if let Err(e) = super::defaults::check_platform(p.as_str(), "spec.platform") {
            f.errors.push(e);
        }
    }
    let default = if entry.spec.accelerator.tpu.is_some() {
        d.tpu.platforms.first().cloned().unwrap_or_else(|| d.platforms.default.clone())
    } else {
        d.platforms.default.clone()
    };
    entry.spec.platform.clone().or_else(|| defaults.platform.clone()).unwrap_or(Platform::new(default))
}

/// Exactly one accelerator, resolved on the platform. `None` when it cannot be resolved at all.
fn accelerator(entry: &JaxRuntime, defaults: &DefaultsSpec, platform: &Platform, f: &mut Findings) -> Option<AcceleratorPlan> {
    let spec = &entry.spec;
    let acc = &spec.accelerator;
    let set: Vec<&str> = [("cpu", acc.cpu.is_some()), ("gpu", acc.gpu.is_some()), ("tpu", acc.tpu.is_some())]
        .into_iter()
        .filter(|(_, s)| *s)
        .map(|(n, _)| n)
        .collect();
    if set.len() != 1 {
        f.errors.push(
            Diagnostic::new(
                &CATALOG_ACCELERATOR_COUNT,
                if set.is_empty() {
                    "no accelerator given; expected exactly one of `cpu`, `gpu`, `tpu`".to_string()
                } else {
                    format!("{} accelerators given ({}); expected exactly one of `cpu`, `gpu`, `tpu`", set.len(), set.join(", "))
                },
            )
            .with_field("spec.accelerator")
            .with_help("a runtime targets one kind of node: split it into one JaxRuntime per accelerator"),
        );
        return None;
    }
    let result = if let Some(tpu) = &acc.tpu {
        super::tpu::plan(tpu, spec.num_nodes, platform, spec.platform.is_some())
    } else if let Some(gpu) = &acc.gpu {
        super::gpu::plan(gpu, spec, defaults, platform)
    } else {
        let cpu = &data().cpu;
        let plan = AcceleratorPlan {
            accel: Accel::Cpu,
            num_nodes: spec.num_nodes.unwrap_or(1),
            node_selector: BTreeMap::new(),
            tolerations: Vec::new(),
            env: cpu.env.clone(),
            jobset_annotations: BTreeMap::new(),
            limits: BTreeMap::new(),
            fallback_requests: BTreeMap::new(),
            image_key: "cpu".into(),
            default_image: cpu.default_image.clone(),
        };
        Ok((plan, Vec::new()))
    };
    match result {
        Ok((plan, findings)) => {
            let (errors, others): (Vec<_>, Vec<_>) = findings.into_iter().partition(Diagnostic::is_error);
            f.errors.extend(errors);
            f.warnings.extend(others);
            Some(plan)
        }
        Err(errors) => {
            f.errors.extend(errors);
            None
        }
    }
}

/// The entry's non-accelerator resources plus the accelerator's (requests equal limits), and
/// the cpu limit the Kubeflow SDK needs to read the device; true when that limit was copied from
/// the request.
fn resources(entry: &JaxRuntime, plan: &AcceleratorPlan, f: &mut Findings) -> (ResourceRequirements, bool) {
    let d = data();
    let mut resources = entry.spec.resources.clone().unwrap_or_default();
    for (section, map) in [("requests", &resources.requests), ("limits", &resources.limits)] {
        for key in map.iter().flat_map(|m| m.keys()) {
            if d.accelerator_resources().any(|k| k == key) {
                f.errors.push(
                    Diagnostic::new(&CATALOG_ACCELERATOR_IN_RESOURCES, format!("`{key}` is set by the generator from `spec.accelerator`"))
                        .with_field(format!("spec.resources.{section}.{key}"))
                        .with_help("remove it from `spec.resources`; use `spec.accelerator` to choose the accelerator and count"),
                );
            }
        }
    }
    if resources.limits.as_ref().is_some_and(|l| l.contains_key("memory")) {
        f.warnings.push(
            Diagnostic::new(
                &CATALOG_MEMORY_LIMIT,
                "a `memory` limit on the `node` container: the JAX process is killed when it grows past it, and the Kubeflow SDK fails with \"Unknown device type\" on a runtime whose limits hold memory but no cpu or accelerator",
            )
            .with_field("spec.resources.limits.memory")
            .with_help("request memory under `spec.resources.requests` instead; keep a cpu limit beside a memory limit"),
        );
    }
    // The Kubeflow SDK reads the device kind from limits only (accelerators/sdk.rs). CPU runtimes
    // get a cpu limit equal to their request so the SDK shows them as cpu. For a GPU whose
    // resource the SDK cannot read, a limit it cannot read makes list_runtimes() fail for every
    // runtime of the cluster (kubeflow SDK 0.5), so a cpu limit is required there.
    let unreadable = match &plan.accel {
        Accel::Gpu(g) if !d.sdk.reads(&g.resource) => Some(g.resource.clone()),
        _ => None,
    };
    // `accelerator.cpu.limitFromRequest: false` opts a CPU runtime out of the copy.
    let opted_out = entry.spec.accelerator.cpu.as_ref().and_then(|c| c.limit_from_request) == Some(false);
    let has_cpu_limit = |r: &ResourceRequirements| r.limits.as_ref().is_some_and(|l| l.contains_key("cpu"));
    let mut copied = false;
    if (matches!(plan.accel, Accel::Cpu) && !opted_out) || unreadable.is_some() {
        let cpu_request = resources.requests.as_ref().and_then(|r| r.get("cpu")).cloned();
        match cpu_request {
            Some(cpu) => {
                copied = !has_cpu_limit(&resources);
                resources.limits.get_or_insert_with(BTreeMap::new).entry("cpu".into()).or_insert(cpu);
            }
            None => {
                if let Some(resource) = unreadable.filter(|_| !resources.limits.as_ref().is_some_and(|l| l.contains_key("cpu"))) {
                    f.errors.push(
                        Diagnostic::new(
                            &CATALOG_SDK_UNREADABLE_DEVICE,
                            format!(
                                "the Kubeflow SDK cannot read `{resource}` limits: it raises \"Unknown device type\" and `list_runtimes()` fails for every runtime in the cluster unless the `node` container also has a `cpu` limit"
                            ),
                        )
                        .with_field("spec.resources")
                        .with_help("set `spec.resources.requests.cpu` (it becomes the cpu limit too); the SDK then lists the runtime as a cpu device"),
                    );
                }
            }
        }
    }
    let has_cpu_or_memory = [&resources.requests, &resources.limits]
        .iter()
        .any(|m| m.as_ref().is_some_and(|m| m.contains_key("cpu") || m.contains_key("memory")));
    if opted_out && !has_cpu_limit(&resources) {
        let limits: Vec<&str> = resources.limits.iter().flat_map(|l| l.keys()).map(String::as_str).collect();
        let shows = if limits.is_empty() {
            "lists its device and device count as `Unknown`".to_string()
        } else {
            format!("cannot read its limits ({}): `get_runtime()` and `list_runtimes()` raise \"Unknown device type\"", limits.join(", "))
        };
        f.warnings.push(
            Diagnostic::new(
                &CATALOG_CPU_LIMIT_OFF,
                format!("`limitFromRequest: false` leaves the runtime without a `cpu` limit; the Kubeflow SDK reads the device from limits only and {shows}"),
            )
            .with_field("spec.accelerator.cpu.limitFromRequest")
            .with_help(CATALOG_CPU_LIMIT_OFF.fix),
        );
    }
    if !plan.limits.is_empty() {
        let l = resources.limits.get_or_insert_with(BTreeMap::new);
        let r = resources.requests.get_or_insert_with(BTreeMap::new);
        for (k, v) in &plan.limits {
            l.insert(k.clone(), v.clone());
            r.insert(k.clone(), v.clone());
        }
    }
    if !has_cpu_or_memory && !plan.fallback_requests.is_empty() {
        let r = resources.requests.get_or_insert_with(BTreeMap::new);
        for (k, v) in &plan.fallback_requests {
            r.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    (resources, copied)
}

/// The accelerator's env, then the defaults', then the entry's; a later same name replaces an
/// earlier one. Setting a variable the JAX plugin injects is a warning.
fn env(entry: &JaxRuntime, defaults: &DefaultsSpec, mut env: Vec<EnvVar>, f: &mut Findings) -> Vec<EnvVar> {
    for e in defaults.env.iter().chain(&entry.spec.env) {
        match env.iter_mut().find(|x| x.name == e.name) {
            Some(x) => *x = e.clone(),
            None => env.push(e.clone()),
        }
    }
    for (i, e) in entry.spec.env.iter().enumerate() {
        if facts().is_jax_variable(&e.name) {
            f.warnings.push(
                Diagnostic::new(&CATALOG_JAX_PLUGIN_ENV, facts().jax.set_by_runtime(&e.name))
                    .with_field(format!("spec.env[{i}].name"))
                    .with_help({
                        let [count, id, coordinator] = facts().jax.env();
                        format!(
                            "remove it: Trainer's JAX plugin sets {count}, {id} and {coordinator} for every TrainJob with `spec.trainer`"
                        )
                    }),
            );
        }
    }
    for (i, e) in defaults.env.iter().enumerate() {
        if facts().is_jax_variable(&e.name) {
            f.warnings.push(
                Diagnostic::new(
                    &CATALOG_JAX_PLUGIN_ENV,
                    format!("set by the JaxRuntimeDefaults' `spec.env[{i}]`: {}", facts().jax.set_by_runtime(&e.name)),
                )
                .with_field("spec.env")
                .with_help("remove it from the defaults"),
            );
        }
    }
    env
}

/// Node selector (the accelerator's, then the defaults', then the entry's) and tolerations (the
/// accelerator's, the defaults', the entry's; duplicates dropped).
fn scheduling(entry: &JaxRuntime, defaults: &DefaultsSpec, plan: &AcceleratorPlan) -> (BTreeMap<String, String>, Vec<Toleration>) {
    let mut node_selector = plan.node_selector.clone();
    for (k, v) in defaults.node_selector.iter().chain(&entry.spec.node_selector) {
        node_selector.insert(k.clone(), v.clone());
    }
    let mut tolerations = plan.tolerations.clone();
    for t in defaults.tolerations.iter().chain(&entry.spec.tolerations) {
        if !tolerations.contains(t) {
            tolerations.push(t.clone());
        }
    }
    (node_selector, tolerations)
}

/// Labels and annotations: the defaults', then the entry's. Orchestrator annotations (kpt and
/// kustomize paths, local-config, function config) describe the catalog file, not the runtime:
/// never copied.
fn metadata(entry: &JaxRuntime, defaults: &DefaultsSpec) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let mut labels = defaults.labels.clone();
    labels.extend(entry.metadata.labels.clone());
    let annotations = defaults
        .annotations
        .iter()
        .chain(&entry.metadata.annotations)
        .filter(|(k, _)| !keys::is_orchestrator_annotation(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (labels, annotations)
}

/// `Some(size limit)` for a memory-backed `/dev/shm`: on by default for accelerators.
fn shared_memory(entry: &JaxRuntime, accel: &Accel) -> Option<Option<String>> {
    let default = !matches!(accel, Accel::Cpu);
    match &entry.spec.shared_memory {
        Some(s) if s.enabled == Some(false) => None,
        Some(s) if s.enabled == Some(true) || default || s.size_limit.is_some() => Some(s.size_limit.clone()),
        Some(_) => None,
        None if default => Some(None),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::ObjectRef;
    use crate::read::{Place, Source};

    fn entry(spec: serde_json::Value) -> JaxRuntime {
        serde_json::from_value(
            serde_json::json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntime", "metadata": {"name": "x"}, "spec": spec}),
        )
        .unwrap()
    }

    fn origin() -> Origin {
        Origin {
            doc: Place::new(Source::named("t"), 0),
            object: ObjectRef::new("JaxRuntime", "x"),
            row: None,
            generated: None,
            field_prefix: "",
        }
    }

    fn resolve(spec: serde_json::Value) -> Result<(Resolved, Vec<Diagnostic>), Vec<Diagnostic>> {
        resolve_entry(&entry(spec), &DefaultsSpec::default(), origin())
    }

    #[test]
    fn cpu_runtimes_get_their_request_as_a_cpu_limit() {
        let (r, w) = resolve(serde_json::json!({"accelerator": {"cpu": {}}, "resources": {"requests": {"cpu": "4"}}})).unwrap();
        assert!(w.is_empty());
        assert!(r.cpu_limit_from_request);
        assert_eq!(r.resources.limits.unwrap()["cpu"].0, "4");
        assert!(r.shared_memory.is_none(), "no /dev/shm by default on CPU");
    }

    #[test]
    fn the_cpu_limit_can_be_turned_off_with_a_warning_that_says_what_the_sdk_shows() {
        let off = |resources: serde_json::Value| {
            resolve(serde_json::json!({"accelerator": {"cpu": {"limitFromRequest": false}}, "resources": resources})).unwrap()
        };
        let (r, w) = off(serde_json::json!({"requests": {"cpu": "4"}}));
        assert!(!r.cpu_limit_from_request);
        assert!(r.resources.limits.is_none(), "{:?}", r.resources);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].rule, &CATALOG_CPU_LIMIT_OFF);
        assert_eq!(w[0].field.as_deref(), Some("spec.accelerator.cpu.limitFromRequest"));
        assert!(w[0].message.contains("`Unknown`"), "{}", w[0].message);
        // Other limits without cpu: the SDK cannot read the runtime at all.
        let (_, w) = off(serde_json::json!({"requests": {"cpu": "4"}, "limits": {"memory": "8Gi"}}));
        let off_warning = w.iter().find(|d| d.rule == &CATALOG_CPU_LIMIT_OFF).expect("warned");
        assert!(off_warning.message.contains("Unknown device type"), "{}", off_warning.message);
        // A cpu limit of the user's own: the SDK reads it, nothing to warn about.
        let (r, w) = off(serde_json::json!({"requests": {"cpu": "4"}, "limits": {"cpu": "8"}}));
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(r.resources.limits.unwrap()["cpu"].0, "8");
        // `true` is the default.
        let (r, w) =
            resolve(serde_json::json!({"accelerator": {"cpu": {"limitFromRequest": true}}, "resources": {"requests": {"cpu": "2"}}}))
                .unwrap();
        assert!(w.is_empty() && r.cpu_limit_from_request);
    }

    #[test]
    fn later_env_replaces_earlier_and_plugin_env_warns() {
        let (r, w) = resolve(serde_json::json!({"accelerator": {"cpu": {}}, "env": [{"name": "JAX_PLATFORMS", "value": "cpu,x"}, {"name": "JAX_PROCESS_ID", "value": "0"}]}))
            .unwrap();
        assert_eq!(r.env.iter().filter(|e| e.name == "JAX_PLATFORMS").count(), 1);
        assert_eq!(r.env[0].value.as_deref(), Some("cpu,x"));
        assert_eq!(w.iter().map(|d| d.rule.id).collect::<Vec<_>>(), ["catalog/jax-plugin-env"]);
    }

    #[test]
    fn every_error_of_an_entry_is_collected() {
        let errs = resolve(serde_json::json!({"trainer": "v2.0", "accelerator": {"cpu": {}}, "numNodes": 0, "image": " "})).unwrap_err();
        let rules: Vec<&str> = errs.iter().map(|d| d.rule.id).collect();
        assert_eq!(rules, ["catalog/trainer-version", "catalog/num-nodes", "catalog/image"]);
    }

    #[test]
    fn orchestrator_annotations_are_not_copied() {
        let mut e = entry(serde_json::json!({"accelerator": {"cpu": {}}}));
        e.metadata.annotations.insert("config.kubernetes.io/local-config".into(), "true".into());
        e.metadata.annotations.insert("team".into(), "ml".into());
        let (r, _) = resolve_entry(&e, &DefaultsSpec::default(), origin()).unwrap();
        assert_eq!(r.annotations.keys().collect::<Vec<_>>(), ["team"]);
    }
}
