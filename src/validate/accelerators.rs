//! Accelerator consistency, from the data in [`crate::accelerators`] (never a copy of it):
//! - TPU: the pod selects an accelerator and a topology the generation has; the `google.com/tpu`
//!   count is the chips per host of that slice; `numNodes` is its host count;
//! - GPU: the count per pod fits the selected model or machine type;
//! - both: the pod tolerates the accelerator taint; extended resources have requests equal to
//!   limits (or no requests), as Kubernetes requires.
//!
//! Node labels are read from `nodeSelector` and from a single required node-affinity term
//! (`In` with one value), the two ways a runtime pins a node pool.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, PodSpec, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::finding;
use crate::accelerators::{data, TpuGeneration};
use crate::catalog::Platform;
use crate::diag::Diagnostic;
use crate::trainer::{TrainingRuntime, LABEL_ANCESTOR};

pub fn check(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let num_nodes = rt.spec.ml_policy.as_ref().and_then(|m| m.num_nodes).unwrap_or(1);
    for (i, job) in rt.spec.template.spec.replicated_jobs.iter().enumerate() {
        let Some(pod) = job.template.spec.as_ref().and_then(|s| s.template.spec.as_ref()) else { continue };
        let is_trainer = job
            .template
            .metadata
            .as_ref()
            .and_then(|m| m.labels.as_ref())
            .and_then(|l| l.get(LABEL_ANCESTOR))
            .is_some_and(|s| s == "trainer");
        let pod_path = format!("spec.template.spec.replicatedJobs[{i}].template.spec.template.spec");
        let labels = node_labels(pod);
        let all = pod.containers.iter().enumerate().map(|(c, x)| (format!("{pod_path}.containers[{c}]"), x));
        let init = pod.init_containers.iter().flatten().enumerate().map(|(c, x)| (format!("{pod_path}.initContainers[{c}]"), x));
        for (cpath, container) in all.chain(init) {
            requests_limits(&cpath, container, &mut out);
            let limits = container.resources.as_ref().and_then(|r| r.limits.clone()).unwrap_or_default();
            let tpu = &data().tpu;
            if let Some(q) = limits.get(&tpu.resource) {
                tpu_checks(&pod_path, &cpath, pod, &labels, count(q), is_trainer.then_some(num_nodes), &mut out);
            }
            for vendor in &data().gpu.vendors {
                if let Some(q) = limits.get(&vendor.resource) {
                    let n = count(q);
                    gpu_checks(&pod_path, &format!("{cpath}.resources.limits.{}", vendor.resource), &labels, n, &mut out);
                    if !tolerated(pod.tolerations.as_deref(), &vendor.resource) {
                        out.push(finding(
                            "accelerator/missing-toleration",
                            format!("{pod_path}.tolerations"),
                            format!(
                                "the pod requests `{}` but does not tolerate the `{}` taint GPU nodes carry",
                                vendor.resource, vendor.resource
                            ),
                        ));
                    }
                }
            }
        }
    }
    // One finding per pod and rule is enough for selector and toleration problems.
    let mut seen = std::collections::HashSet::new();
    out.retain(|d| {
        !matches!(d.rule.as_str(), "accelerator/missing-toleration" | "accelerator/missing-selector" | "tpu/missing-selector")
            || seen.insert((d.rule.clone(), d.field.clone()))
    });
    out
}

fn count(q: &Quantity) -> Option<u32> {
    q.0.trim().parse().ok()
}

/// nodeSelector plus the labels of a single required node-affinity term.
fn node_labels(pod: &PodSpec) -> BTreeMap<String, String> {
    let mut labels = pod.node_selector.clone().unwrap_or_default();
    let terms = pod
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
        .map(|r| r.node_selector_terms.as_slice())
        .unwrap_or_default();
    if let [term] = terms {
        for e in term.match_expressions.iter().flatten() {
            if e.operator == "In" {
                if let Some([v]) = e.values.as_deref() {
                    labels.entry(e.key.clone()).or_insert_with(|| v.clone());
                }
            }
        }
    }
    labels
}

/// Does one of the tolerations tolerate a `key:NoSchedule` taint?
fn tolerated(tolerations: Option<&[Toleration]>, key: &str) -> bool {
    tolerations.unwrap_or_default().iter().any(|t| {
        let key_ok = match t.key.as_deref() {
            Some(k) if !k.is_empty() => k == key,
            _ => t.operator.as_deref() == Some("Exists"),
        };
        key_ok && matches!(t.effect.as_deref(), None | Some("") | Some("NoSchedule"))
    })
}

fn tpu_checks(
    pod_path: &str,
    cpath: &str,
    pod: &PodSpec,
    labels: &BTreeMap<String, String>,
    chips: Option<u32>,
    num_nodes: Option<i32>,
    out: &mut Vec<Diagnostic>,
) {
    let tpu = &data().tpu;
    let limit_path = format!("{cpath}.resources.limits.{}", tpu.resource);
    if !tolerated(pod.tolerations.as_deref(), &tpu.resource) {
        out.push(finding(
            "accelerator/missing-toleration",
            format!("{pod_path}.tolerations"),
            format!("the pod requests `{}` but does not tolerate the `{}` taint TPU nodes carry", tpu.resource, tpu.resource),
        ));
    }
    let accel = labels.get(&tpu.accelerator_label);
    let topo = labels.get(&tpu.topology_label);
    let (Some(accel), Some(topo)) = (accel, topo) else {
        let missing: Vec<String> = [(&tpu.accelerator_label, accel), (&tpu.topology_label, topo)]
            .iter()
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| format!("`{k}`"))
            .collect();
        out.push(finding(
            "tpu/missing-selector",
            format!("{pod_path}.nodeSelector"),
            format!("the pod requests `{}` but does not select {}", tpu.resource, missing.join(" and ")),
        ));
        return;
    };
    let selector = format!("{pod_path}.nodeSelector");
    let Some(generation) = tpu.by_accelerator_label(accel) else {
        out.push(finding(
            "tpu/unknown-accelerator",
            format!("{selector}.{}", tpu.accelerator_label),
            format!(
                "`{accel}` is not a TPU accelerator jax-runtimes knows ({}); chips, topology and hosts are not checked",
                tpu.generations.iter().map(|g| format!("`{}`", g.accelerator_label)).collect::<Vec<_>>().join(", ")
            ),
        ));
        return;
    };
    let shapes = generation.shapes_for(topo);
    if shapes.is_empty() {
        out.push(finding(
            "tpu/topology",
            format!("{selector}.{}", tpu.topology_label),
            format!("TPU {} has no topology `{topo}`; nearest: {}", generation.name, nearest(generation, topo)),
        ));
        return;
    }
    let Some(chips) = chips else { return };
    let Some(shape) = shapes.iter().find(|s| s.chips_per_host == chips) else {
        let per_host: Vec<String> =
            shapes.iter().map(|s| format!("{} ({}, {} host(s))", s.chips_per_host, s.machine_type, s.hosts)).collect();
        out.push(finding(
            "tpu/chips-per-host",
            limit_path,
            format!(
                "{} {topo} hosts have {} chips, not {chips}; set `{}` to that number",
                generation.name,
                per_host.join(" or "),
                tpu.resource
            ),
        ));
        return;
    };
    if let Some(n) = num_nodes {
        if u32::try_from(n).ok() != Some(shape.hosts) {
            out.push(finding(
                "tpu/hosts",
                "spec.mlPolicy.numNodes",
                format!(
                    "numNodes is {n} but a {} {topo} slice with {chips} chips per host has {} host(s) ({} chips / {chips})",
                    generation.name, shape.hosts, shape.chips
                ),
            ));
        }
    }
}

fn nearest(generation: &TpuGeneration, topo: &str) -> String {
    generation.nearest_topologies(topo, 4).iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")
}

fn gpu_checks(pod_path: &str, limit_path: &str, labels: &BTreeMap<String, String>, gpus: Option<u32>, out: &mut Vec<Diagnostic>) {
    let gpu = &data().gpu;
    // (what was selected, the most GPUs it has)
    let mut found: Option<(String, u32)> = None;
    for platform in &gpu.platforms {
        if let Some(mt) = platform.machine_type_label.as_ref().and_then(|k| labels.get(k)) {
            for model in &gpu.models {
                if let Some(m) = model.on(platform.name).and_then(|on| on.machine_types.iter().find(|m| &m.name == mt)) {
                    found = Some((format!("machine type `{mt}` ({})", model.description), m.gpus));
                }
            }
        }
    }
    if found.is_none() {
        for platform in &gpu.platforms {
            let Some(key) = platform.model_label.as_ref() else { continue };
            let Some(value) = labels.get(key) else { continue };
            for model in &gpu.models {
                if let Some(on) = model.on(platform.name).filter(|on| on.model_label.as_deref() == Some(value.as_str())) {
                    found = Some((format!("`{key}: {value}` ({} on {})", model.description, platform.name), on.max_gpus()));
                }
            }
        }
    }
    if found.is_none() {
        for model in &gpu.models {
            if let Some(on) = model.on(Platform::Generic) {
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
    let selects_something =
        gpu.platforms.iter().any(|p| {
            p.model_label.as_ref().is_some_and(|k| labels.contains_key(k))
                || p.machine_type_label.as_ref().is_some_and(|k| labels.contains_key(k))
        }) || gpu.models.iter().filter_map(|m| m.on(Platform::Generic)).any(|on| on.node_labels.keys().any(|k| labels.contains_key(k)));
    match found {
        Some((what, max)) => {
            if let Some(n) = gpus {
                if max > 0 && n > max {
                    out.push(finding("gpu/count", limit_path, format!("{n} GPUs per pod, but {what} has at most {max} per node")));
                }
            }
        }
        None if !selects_something => out.push(finding(
            "accelerator/missing-selector",
            format!("{pod_path}.nodeSelector"),
            "the pod requests GPUs but selects no GPU model or machine type; it can land on any GPU node",
        )),
        None => {}
    }
}

/// Extended resources (outside the `kubernetes.io` domain): requests must equal limits.
fn requests_limits(cpath: &str, c: &Container, out: &mut Vec<Diagnostic>) {
    let Some(res) = c.resources.as_ref() else { return };
    let empty = BTreeMap::new();
    let limits = res.limits.as_ref().unwrap_or(&empty);
    for (name, req) in res.requests.iter().flatten() {
        if !is_extended(name) {
            continue;
        }
        let field = format!("{cpath}.resources.requests.{name}");
        match limits.get(name) {
            None => out.push(finding(
                "resources/requests-limits",
                field,
                format!("`{name}` has a request ({}) but no limit; extended resources need a limit", req.0),
            )),
            Some(lim) if !same(req, lim) => out.push(finding(
                "resources/requests-limits",
                field,
                format!("`{name}` request {} differs from its limit {}; extended resources cannot be overcommitted", req.0, lim.0),
            )),
            Some(_) => {}
        }
    }
}

fn is_extended(name: &str) -> bool {
    match name.split_once('/') {
        Some((domain, _)) => !(domain == "kubernetes.io" || domain.ends_with(".kubernetes.io")),
        None => false,
    }
}

fn same(a: &Quantity, b: &Quantity) -> bool {
    let (a, b) = (a.0.trim(), b.0.trim());
    a == b || matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if x == y)
}
