//! Accelerator consistency, from the data in [`crate::accelerators`] (never a copy of it):
//! - TPU: the pod selects an accelerator and a topology the generation has; the `google.com/tpu`
//!   count of the pod (its containers together, as the scheduler sums them) is the chips per host
//!   of that slice; `numNodes` is its host count;
//! - GPU: the count per pod (containers together) fits the selected model or machine type;
//! - both, where the pod's platform is not known: the pod tolerates the accelerator taint (where
//!   it is known, the platform's pool taints and the tolerations its admission adds, GKE's
//!   ExtendedResourceToleration, are [`super::taints`]').
//!
//! Node labels are read from `nodeSelector` and from a single required node-affinity term
//! (`In` with one value), the two ways a runtime pins a node pool; for GPU machine types also from
//! an `In` with several values (a runtime that may land on any of them): both
//! [`crate::k8s::selection::pinned_labels`]. Tolerations are matched as the scheduler matches them
//! ([`crate::k8s::selection::tolerates_pattern`]), and the per-pod count is summed over the
//! containers as the scheduler sums it ([`crate::k8s::requests::aggregate`]). Requests equal to
//! limits are Kubernetes' rule (`resources/requests-limits` in [`crate::k8s::resources`]).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, PodSpec, Toleration};

use crate::k8s::requests::{aggregate, is_sidecar};
use crate::k8s::selection::{pinned_labels, pinned_values, tolerates_pattern};

use crate::accelerators::{data, TpuGeneration, TpuShape};
use crate::diag::{Diagnostic, FieldPath};
use crate::rules::validate::{
    ACCELERATOR_MISSING_SELECTOR, ACCELERATOR_MISSING_TOLERATION, GPU_COUNT, TPU_CHIPS_PER_HOST, TPU_HOSTS, TPU_MISSING_SELECTOR,
    TPU_POOL_SHAPE, TPU_SLICE_GKE_VERSION, TPU_SLICE_HEALTH, TPU_TOPOLOGY, TPU_UNKNOWN_ACCELERATOR, TPU_WEBHOOK_ENV,
    TPU_WEBHOOK_SINGLE_HOST,
};
use crate::trainer::paths::{self, PodPaths};
use crate::trainer::TrainingRuntime;

pub fn check(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let num_nodes = rt.spec.ml_policy.as_ref().and_then(|m| m.num_nodes).unwrap_or(1);
    for (i, job) in rt.spec.template.spec.replicated_jobs.iter().enumerate() {
        let Some(pod) = job.template.spec.as_ref().and_then(|s| s.template.spec.as_ref()) else { continue };
        let is_trainer = job.is_trainer();
        let pod_path = paths::pod_spec(i);
        let choices = pinned_labels(pod);
        let labels = pinned_values(pod);
        let platform = pod_platform(pod);
        let tpu = &data().tpu;
        if let Some(request) = pod_request(pod, &pod_path, &tpu.resource) {
            if platform.is_none() {
                missing_toleration(&pod_path, pod, &tpu.resource, &tpu.tolerations, "TPU", &mut out);
            }
            let pods = if is_trainer { num_nodes } else { job.template.spec.as_ref().and_then(|s| s.parallelism).unwrap_or(1) };
            match slice_topology(job) {
                Some(t) => dynamic_checks(i, t, &request, &labels, &choices, pods, &mut out),
                None => tpu_checks(&pod_path, &request, &labels, &choices, is_trainer.then_some(num_nodes), &mut out),
            }
            webhook_env(&pod_path, pod, pods, &mut out);
        }
        for vendor in &data().gpu.vendors {
            if let Some(request) = pod_request(pod, &pod_path, &vendor.resource) {
                gpu_checks(&pod_path, &request, &choices, &mut out);
                if platform.is_none() {
                    missing_toleration(&pod_path, pod, &vendor.resource, &vendor.tolerations, "GPU", &mut out);
                }
            }
        }
    }
    out
}

/// GKE's TPU webhook injects `TPU_WORKER_ID` and `TPU_WORKER_HOSTNAMES` into the pods of a
/// multi-host slice (`catalog/accelerators/tpu.yaml`, `webhook`): a container that sets them
/// fights it; in a single-host pod (one pod per Job) the webhook injects nothing, so a container
/// whose env, command or args refer to them (`$(TPU_WORKER_ID)`) gets no value.
fn webhook_env(pod_path: &FieldPath, pod: &PodSpec, pods: i32, out: &mut Vec<Diagnostic>) {
    let names = data().tpu.webhook.env();
    for (c, container) in pod.containers.iter().enumerate() {
        for (e, env) in container.env.iter().flatten().enumerate() {
            if names.contains(&env.name.as_str()) {
                let why = if pods > 1 {
                    "GKE's TPU webhook injects it into every pod of a multi-host slice, from the pod's index and its peers' hostnames"
                } else {
                    "GKE's TPU webhook injects it only into multi-host slices (more than one pod per Job): a hand-set value here is one more thing to keep true"
                };
                out.push(Diagnostic::finding(
                    &TPU_WEBHOOK_ENV,
                    pod_path.container(c).field("env").index(e).field("name"),
                    format!("container `{}` sets `{}`; {why}", container.name, env.name),
                ));
            }
        }
        if pods > 1 {
            continue;
        }
        let refs = |text: &str| {
            names
                .iter()
                .find(|n| text.contains(&format!("$({n})")) || text.contains(&format!("${n}")) || text.contains(&format!("${{{n}}}")))
        };
        let texts = container
            .command
            .iter()
            .flatten()
            .chain(container.args.iter().flatten())
            .chain(container.env.iter().flatten().filter_map(|e| e.value.as_ref()));
        if let Some(name) = texts.filter_map(|t| refs(t)).next() {
            if container.env.iter().flatten().any(|e| e.name == *name) {
                continue;
            }
            out.push(Diagnostic::finding(
                &TPU_WEBHOOK_SINGLE_HOST,
                pod_path.container(c),
                format!(
                    "container `{}` refers to `{name}`, which GKE's TPU webhook sets only in multi-host slices; in this single-host pod it is empty",
                    container.name
                ),
            ));
        }
    }
}

/// What a pod asks of one extended resource: the count the scheduler sees and where it is set.
pub(crate) struct PodRequest {
    /// `None` when a container's amount is not a whole number (another rule reports it).
    pub total: Option<u32>,
    /// The container's limit when one container asks; the pod when several do.
    pub field: FieldPath,
    /// (container, count), for messages.
    pub parts: Vec<(String, u32)>,
}

impl PodRequest {
    /// `8 (4 in `node`, 4 in `proxy`)`, or `4` for a single container.
    pub fn describe(&self) -> String {
        let total = self.total.map_or("?".to_string(), |t| t.to_string());
        if self.parts.len() > 1 {
            format!("{total} ({})", self.parts.iter().map(|(c, n)| format!("{n} in `{c}`")).collect::<Vec<_>>().join(", "))
        } else {
            total
        }
    }
}

/// The pod's effective request of `resource` from its containers' limits, summed as kube-scheduler
/// sums a pod's requests ([`aggregate`]: regular containers and native sidecars add up; a plain
/// init container runs alone, with the sidecars started before it, so the pod needs the larger).
pub(crate) fn pod_request(pod: &PodSpec, pod_path: &FieldPath, resource: &str) -> Option<PodRequest> {
    let amount = |c: &Container| -> Option<Option<u32>> {
        let q = c.resources.as_ref()?.limits.as_ref()?.get(resource)?;
        Some(crate::k8s::quantity::parse(&q.0).ok().and_then(|q| q.count()).and_then(|n| u32::try_from(n).ok()))
    };
    let mut fields = Vec::new();
    let mut parts = Vec::new();
    let mut whole = true;
    let mut count = |field: FieldPath, c: &Container| -> u64 {
        let Some(n) = amount(c) else { return 0 };
        fields.push(field);
        let n = n.unwrap_or_else(|| {
            whole = false;
            0
        });
        parts.push((c.name.clone(), n));
        u64::from(n)
    };
    let init: Vec<(u64, bool)> = pod
        .init_containers
        .iter()
        .flatten()
        .enumerate()
        .map(|(c, container)| (count(pod_path.init_container(c).limit(resource), container), is_sidecar(container)))
        .collect();
    let containers: Vec<u64> =
        pod.containers.iter().enumerate().map(|(c, container)| count(pod_path.container(c).limit(resource), container)).collect();
    if fields.is_empty() {
        return None;
    }
    let total = u32::try_from(aggregate(init, containers)).unwrap_or(u32::MAX);
    let field = if fields.len() == 1 { fields.remove(0) } else { pod_path.clone() };
    Some(PodRequest { total: whole.then_some(total), field, parts })
}

/// The platform the pod runs on, where its pins or its accelerator say it
/// ([`crate::accelerators::nodes::NodeData::platform_of_pod`]). There the accelerator pools' own
/// taints, with the tolerations the platform's admission adds (GKE's ExtendedResourceToleration),
/// are `taint/*`'s ([`super::taints`]); `accelerator/missing-toleration` speaks only where the
/// platform is not known.
fn pod_platform(pod: &PodSpec) -> Option<&'static str> {
    let pinned = pinned_labels(pod);
    let extended = super::taints::extended_requests(pod);
    crate::accelerators::nodes::nodes().platform_of_pod(pinned.keys().map(String::as_str), &extended).map(|p| p.name.as_str())
}

/// `accelerator/missing-toleration` on a pod of an unknown platform that requests `resource` but
/// does not tolerate the taint the accelerator data says its nodes carry. Where the API server
/// runs ExtendedResourceToleration (GKE, `catalog/accelerators/nodes.yaml`) the request alone
/// adds the toleration: the message says so, and names the platforms that do.
fn missing_toleration(pod_path: &FieldPath, pod: &PodSpec, resource: &str, wanted: &[Toleration], what: &str, out: &mut Vec<Diagnostic>) {
    let ert: Vec<&str> =
        crate::accelerators::nodes::nodes().platforms.iter().filter(|p| p.extended_resource_toleration).map(|p| p.name.as_str()).collect();
    let plugin = if ert.is_empty() {
        String::new()
    } else {
        format!(
            " (on {} the ExtendedResourceToleration admission plugin adds it to a pod that requests `{resource}`: select the platform's node labels to say the pod runs there)",
            ert.iter().map(|p| p.to_uppercase()).collect::<Vec<_>>().join(", ")
        )
    };
    for taint in untolerated(pod.tolerations.as_deref(), wanted) {
        out.push(Diagnostic::finding(
            &ACCELERATOR_MISSING_TOLERATION,
            pod_path.field("tolerations"),
            format!("the pod requests `{resource}` but does not tolerate the `{taint}` taint {what} nodes carry{plugin}"),
        ));
    }
}

/// The keys of the taints, described by the tolerations the accelerator data lists for such
/// nodes (`wanted`), that none of the pod's tolerations tolerates ([`tolerates_pattern`]). A
/// toleration of that key with an operator Kubernetes does not know is `k8s/toleration`'s finding
/// (the pod is rejected), not a missing toleration as well.
fn untolerated(tolerations: Option<&[Toleration]>, wanted: &[Toleration]) -> Vec<String> {
    let operators = &crate::k8s::facts::facts().enums.toleration_operators;
    let unknown_operator = |t: &Toleration, w: &Toleration| {
        t.key == w.key && t.operator.as_deref().is_some_and(|o| !o.is_empty() && !operators.iter().any(|k| k == o))
    };
    wanted
        .iter()
        .filter(|w| !tolerations.unwrap_or_default().iter().any(|t| tolerates_pattern(t, w) || unknown_operator(t, w)))
        .map(|w| w.key.clone().unwrap_or_default())
        .collect()
}

/// The dynamic slice topology a job's pod template asks for (`dynamicSlicing.sliceTopologyAnnotation`).
pub(crate) fn slice_topology(job: &crate::trainer::ReplicatedJob) -> Option<&str> {
    let key = &data().tpu.dynamic_slicing.slice_topology_annotation;
    job.template.spec.as_ref()?.template.metadata.as_ref()?.annotations.as_ref()?.get(key).map(String::as_str)
}

/// A pod with the slice topology annotation asks for a dynamic slice (`dynamicSlicing` in
/// `tpu.yaml`): it selects the accelerator (and, for a v6e subslice, its pool's topology) but no
/// slice topology; the annotation must be a super- or subslice of the generation, the pods' chips
/// must fill it exactly (the slice controller's webhook refuses anything else, xpk slice/internal/
/// webhooks/defaults.go), and a partition state the pod does not select is left to the webhook,
/// which sees a JobSet but not the Kueue workload of a TrainJob (`tpu/slice-health`). The GKE
/// version the slice needs is said once per pod (`tpu/slice-gke-version`).
fn dynamic_checks(
    job: usize,
    topology: &str,
    request: &PodRequest,
    labels: &BTreeMap<String, String>,
    choices: &BTreeMap<String, Vec<String>>,
    pods: i32,
    out: &mut Vec<Diagnostic>,
) {
    let tpu = &data().tpu;
    let ds = &tpu.dynamic_slicing;
    let pod_path = paths::pod_spec(job);
    let annotation = paths::pod_template(job).field("metadata").field("annotations").key(&ds.slice_topology_annotation);
    let selector = pod_path.field("nodeSelector");
    let Some(accel) = labels.get(&tpu.accelerator_label) else {
        out.push(Diagnostic::finding(
            &TPU_MISSING_SELECTOR,
            selector,
            format!(
                "the pod asks for a dynamic `{topology}` slice and requests `{}` but does not select `{}`",
                tpu.resource, tpu.accelerator_label
            ),
        ));
        return;
    };
    let Some(generation) = tpu.by_accelerator_label(accel) else {
        out.push(Diagnostic::finding(
            &TPU_UNKNOWN_ACCELERATOR,
            selector.key(&tpu.accelerator_label),
            format!("`{accel}` is not a TPU accelerator jax-runtimes knows; the dynamic slice is not checked"),
        ));
        return;
    };
    let of_pool = ds.generation(&generation.name).is_some_and(|g| g.sub_slices.of_pool);
    let pool = labels.get(&tpu.topology_label).filter(|_| of_pool);
    if of_pool && pool.is_none() {
        out.push(Diagnostic::finding(
            &TPU_MISSING_SELECTOR,
            selector,
            format!(
                "a TPU {} `{topology}` subslice is carved from a larger node pool, but the pod does not select the pool's `{}`",
                generation.name, tpu.topology_label
            ),
        ));
        return;
    }
    let shape = match tpu.dynamic_shape(generation, topology, pool.map(String::as_str)) {
        Ok(s) => s,
        Err(why) => {
            out.push(Diagnostic::finding(&TPU_TOPOLOGY, annotation, why));
            return;
        }
    };
    let Some(d) = &shape.dynamic else { return };
    if let Some(chips) = request.total {
        if chips != shape.chips_per_host {
            out.push(Diagnostic::finding(
                &TPU_CHIPS_PER_HOST,
                request.field.clone(),
                format!(
                    "a TPU {} {topology} {} is formed on {} hosts of {} chips, but the pod asks for {}; the slice controller refuses pods that do not fill the slice exactly",
                    generation.name,
                    d.kind,
                    shape.machine_type,
                    shape.chips_per_host,
                    request.describe()
                ),
            ));
        } else if u32::try_from(pods).ok() != Some(shape.hosts) {
            out.push(Diagnostic::finding(
                &TPU_HOSTS,
                paths::num_nodes(),
                format!(
                    "{pods} pods of {chips} chips do not fill a TPU {} {topology} {} of {} chips: it has {} hosts",
                    generation.name, d.kind, shape.chips, shape.hosts
                ),
            ));
        }
    }
    if let Some(state) = &d.state_label {
        match choices.get(state) {
            None => out.push(Diagnostic::finding(
                &TPU_SLICE_HEALTH,
                selector.clone(),
                format!(
                    "the pod does not select the partition state `{state}`; the slice controller's webhook adds `In [{}]` to a Job or JobSet it sees, but Kueue admits a TrainJob from the runtime's pod template, so it can place the slice on partitions in any state",
                    ds.usable_states.join(", ")
                ),
            )),
            Some(values) => {
                let bad: Vec<&String> = values.iter().filter(|v| !ds.usable_states.contains(v)).collect();
                if !bad.is_empty() {
                    out.push(Diagnostic::finding(
                        &TPU_SLICE_HEALTH,
                        selector.key(state),
                        format!(
                            "the pod selects partition state {}; slices are formed from {} partitions (states: {})",
                            bad.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", "),
                            ds.usable_states.join(" or "),
                            ds.states.join(", ")
                        ),
                    ));
                }
            }
        }
    }
    if let Some(v) = &d.min_gke {
        out.push(Diagnostic::finding(
            &TPU_SLICE_GKE_VERSION,
            annotation,
            format!(
                "a TPU {} dynamic {} needs GKE {v} or later (Rapid channel) with the slice controller enabled",
                generation.name, d.kind
            ),
        ));
    }
}

fn tpu_checks(
    pod_path: &FieldPath,
    request: &PodRequest,
    labels: &BTreeMap<String, String>,
    choices: &BTreeMap<String, Vec<String>>,
    num_nodes: Option<i32>,
    out: &mut Vec<Diagnostic>,
) {
    let tpu = &data().tpu;
    let chips = request.total;
    let limit_path = request.field.clone();
    let accel = labels.get(&tpu.accelerator_label);
    let topo = labels.get(&tpu.topology_label);
    let (Some(accel), Some(topo)) = (accel, topo) else {
        let missing: Vec<String> = [(&tpu.accelerator_label, accel), (&tpu.topology_label, topo)]
            .iter()
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| format!("`{k}`"))
            .collect();
        out.push(Diagnostic::finding(
            &TPU_MISSING_SELECTOR,
            pod_path.field("nodeSelector"),
            format!("the pod requests `{}` but does not select {}", tpu.resource, missing.join(" and ")),
        ));
        return;
    };
    let selector = pod_path.field("nodeSelector");
    let Some(generation) = tpu.by_accelerator_label(accel) else {
        out.push(Diagnostic::finding(
            &TPU_UNKNOWN_ACCELERATOR,
            selector.key(&tpu.accelerator_label),
            format!(
                "`{accel}` is not a TPU accelerator jax-runtimes knows ({}); chips, topology and hosts are not checked",
                tpu.generations.iter().map(|g| format!("`{}`", g.accelerator_label)).collect::<Vec<_>>().join(", ")
            ),
        ));
        return;
    };
    let shapes = generation.shapes_for(topo);
    if shapes.is_empty() {
        out.push(Diagnostic::finding(
            &TPU_TOPOLOGY,
            selector.key(&tpu.topology_label),
            format!("TPU {} has no topology `{topo}`; nearest: {}", generation.name, nearest(generation, topo)),
        ));
        return;
    }
    let Some(chips) = chips else { return };
    let Some(shape) = shapes.iter().find(|s| s.chips_per_host == chips) else {
        let per_host: Vec<String> =
            shapes.iter().map(|s| format!("{} ({}, {} host(s))", s.chips_per_host, s.machine_type, s.hosts)).collect();
        out.push(Diagnostic::finding(
            &TPU_CHIPS_PER_HOST,
            limit_path,
            format!(
                "{} {topo} hosts have {} chips, but the pod asks for {}; set `{}` to that number",
                generation.name,
                per_host.join(" or "),
                request.describe(),
                tpu.resource
            ),
        ));
        return;
    };
    pool_shape(&selector, generation, shape, &shapes, choices, out);
    if let Some(n) = num_nodes {
        if u32::try_from(n).ok() != Some(shape.hosts) {
            out.push(Diagnostic::finding(
                &TPU_HOSTS,
                paths::num_nodes(),
                format!(
                    "numNodes is {n} but a {} {topo} slice with {chips} chips per host has {} host(s) ({} chips / {chips}){}",
                    generation.name,
                    shape.hosts,
                    shape.chips,
                    // Containers add up: say where the per-host count came from.
                    if request.parts.len() > 1 {
                        format!("; the pod's chips, its containers together: {}", request.describe())
                    } else {
                        String::new()
                    }
                ),
            ));
        }
    }
}

/// `tpu/pool-shape`: the topology exists on several machine types whose node pools carry the same
/// accelerator and topology labels (`catalog/accelerators/tpu.yaml`: v5e and v6e `2x4`), and the
/// pod selects nothing that tells those pools apart: the machine type (`machineTypeLabel`, one
/// value, or several of one shape), a node pool (`nodes.yaml` `poolLabels` of the TPU platforms),
/// or a GKE ComputeClass (its priorities name the machine). `shape` is the one the pod's chips
/// per host make it.
fn pool_shape(
    selector: &FieldPath,
    generation: &TpuGeneration,
    shape: &TpuShape,
    shapes: &[TpuShape],
    choices: &BTreeMap<String, Vec<String>>,
    out: &mut Vec<Diagnostic>,
) {
    let tpu = &data().tpu;
    let nodes = crate::accelerators::nodes::nodes();
    let pool_labels = tpu.platforms.iter().filter_map(|p| nodes.platform(p)).flat_map(|p| p.pool_labels.iter());
    if choices.contains_key(&crate::capacity::compute_class_key()) || pool_labels.into_iter().any(|k| choices.contains_key(k)) {
        return;
    }
    let possible: Vec<&TpuShape> =
        shapes.iter().filter(|s| choices.get(&tpu.machine_type_label).is_none_or(|v| v.contains(&s.machine_type))).collect();
    if possible.len() < 2 {
        return;
    }
    let describe = |s: &TpuShape| {
        format!("{} host{} x {} chips on {}", s.hosts, if s.hosts == 1 { "" } else { "s" }, s.chips_per_host, s.machine_type)
    };
    let others: Vec<&TpuShape> = possible.iter().copied().filter(|s| s.machine_type != shape.machine_type).collect();
    let other_types = others.iter().map(|s| format!("`{}`", s.machine_type)).collect::<Vec<_>>().join(" or ");
    let there = if others.iter().any(|o| o.chips_per_host > shape.chips_per_host) {
        format!(
            "where its {} pods of {} chips share a host or each take part of a one-host slice, and the slice never forms",
            shape.hosts, shape.chips_per_host
        )
    } else {
        format!("whose hosts never have the {} chips a pod asks for: where only such pools exist, it waits forever", shape.chips_per_host)
    };
    out.push(
        Diagnostic::finding(
            &TPU_POOL_SHAPE,
            selector.clone(),
            format!(
                "TPU {} {} is {}, node pools with the same `{}` and `{}` labels; the pod ({} chips: the {} shape) selects neither the machine type (`{}`) nor a node pool, so it can land on a {other_types} pool, {there}",
                generation.name,
                shape.topology,
                possible.iter().map(|s| describe(s)).collect::<Vec<_>>().join(" or "),
                tpu.accelerator_label,
                tpu.topology_label,
                shape.chips_per_host,
                shape.machine_type,
                tpu.machine_type_label,
            ),
        )
        .with_help(format!("add `{}: {}` to the pod's `nodeSelector` (what `jax-runtimes render` writes)", tpu.machine_type_label, shape.machine_type)),
    );
}

fn nearest(generation: &TpuGeneration, topo: &str) -> String {
    generation.nearest_topologies(topo, 4).iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")
}

fn gpu_checks(pod_path: &FieldPath, request: &PodRequest, choices: &BTreeMap<String, Vec<String>>, out: &mut Vec<Diagnostic>) {
    let gpus = request.total;
    let limit_path = &request.field;
    let gpu = &data().gpu;
    // One value per label where there is exactly one (the selector-style checks below).
    let labels: BTreeMap<String, String> = choices
        .iter()
        .filter_map(|(k, v)| match v.as_slice() {
            [one] => Some((k.clone(), one.clone())),
            _ => None,
        })
        .collect();
    // (what was selected, the most GPUs it has)
    let mut found: Option<(String, u32)> = None;
    for platform in &gpu.platforms {
        let Some(values) = platform.machine_type_label.as_ref().and_then(|k| choices.get(k)) else { continue };
        for mt in values {
            for model in &gpu.models {
                if let Some(m) = model.on(&platform.name).and_then(|on| on.machine_types.iter().find(|m| &m.name == mt)) {
                    if found.as_ref().is_none_or(|(_, most)| m.gpus > *most) {
                        let what = if values.len() == 1 {
                            format!("machine type `{mt}`")
                        } else {
                            format!("the largest of the machine types, `{mt}`")
                        };
                        found = Some((format!("{what} ({})", model.description), m.gpus));
                    }
                }
            }
        }
    }
    if found.is_none() {
        for platform in &gpu.platforms {
            let Some(key) = platform.model_label.as_ref() else { continue };
            let Some(value) = labels.get(key) else { continue };
            for model in &gpu.models {
                if let Some(on) = model.on(&platform.name).filter(|on| on.model_label.as_deref() == Some(value.as_str())) {
                    found = Some((format!("`{key}: {value}` ({} on {})", model.description, platform.name), on.max_gpus()));
                }
            }
        }
    }
    if found.is_none() {
        for model in &gpu.models {
            for on in model.platforms().iter().filter_map(|p| model.on(p)) {
                if !on.node_labels.is_empty() && on.node_labels.iter().all(|(k, v)| labels.get(k) == Some(v)) {
                    found = Some((
                        format!(
                            "{} (node labels {})",
                            model.description,
                            on.node_labels.iter().map(|(k, v)| format!("`{k}: {v}`")).collect::<Vec<_>>().join(", ")
                        ),
                        on.max_gpus(),
                    ));
                }
            }
        }
    }
    let selects_something = gpu.platforms.iter().any(|p| {
            p.model_label.as_ref().is_some_and(|k| choices.contains_key(k))
                || p.machine_type_label.as_ref().is_some_and(|k| choices.contains_key(k))
        }) || gpu.models.iter().flat_map(|m| m.platforms.values()).any(|on| on.node_labels.keys().any(|k| choices.contains_key(k)))
            // A GKE ComputeClass names the GPU in its priorities (`catalog/capacity.yaml`).
            || choices.contains_key(&crate::capacity::compute_class_key());
    match found {
        Some((what, max)) => {
            if let Some(n) = gpus {
                if max > 0 && n > max {
                    out.push(Diagnostic::finding(
                        &GPU_COUNT,
                        limit_path,
                        format!("{} GPUs per pod, but {what} has at most {max} per node", request.describe()),
                    ));
                }
            }
        }
        None if !selects_something => out.push(Diagnostic::finding(
            &ACCELERATOR_MISSING_SELECTOR,
            pod_path.field("nodeSelector"),
            "the pod requests GPUs but selects no GPU model or machine type; it can land on any GPU node",
        )),
        None => {}
    }
}
