//! Accelerator consistency that no Kubernetes check catches (a runtime Kubernetes accepts whose
//! pods never schedule or run JAX on the wrong device), from the accelerator data:
//! - contradictory selectors: TPU node labels on a pod that requests GPUs or the reverse, a GPU
//!   model label with a machine type of another model;
//! - `JAX_PLATFORMS` without the platform of the accelerator the container requests
//!   ([`crate::accelerators::jax`]), and an image built for another accelerator;
//! - a multi-host TPU slice without the exclusive-topology annotation the generator adds.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, PodSpec};

use super::accelerators::pod_request;
use crate::accelerators::{data, jax::jax};
use crate::diag::{Diagnostic, FieldPath};
use crate::k8s::selection::{pinned_labels, pinned_values};
use crate::rules::consistency::{ACCELERATOR_CONTRADICTORY_SELECTOR, ACCELERATOR_IMAGE, ACCELERATOR_JAX_PLATFORMS, TPU_EXCLUSIVE_TOPOLOGY};
use crate::trainer::paths::{self, PodPaths};
use crate::trainer::TrainingRuntime;

pub fn check(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let jobset_annotations = rt.spec.template.metadata.as_ref().map(|m| &m.annotations);
    let mut exclusive_reported = false;
    for (i, job, pod) in rt.pods() {
        let Some(pod) = pod else { continue };
        let pod_path = paths::pod_spec(i);
        let labels = pinned_values(pod);
        let tpu = &data().tpu;
        let tpu_request = pod_request(pod, &pod_path, &tpu.resource);
        let gpu_requested = data().gpu.vendors.iter().any(|v| pod_request(pod, &pod_path, &v.resource).is_some());
        selectors(&pod_path, pod, &labels, tpu_request.is_some(), gpu_requested, &mut out);
        containers(pod, &pod_path, &mut out);
        // Multi-host TPU slice: the generator's JobSet annotations must be there. A dynamic slice
        // is not a node pool: its exclusivity is the slice label's, or Kueue's (v6e sub-slices).
        let dynamic = super::accelerators::slice_topology(job).is_some();
        if let (Some(req), false, false) = (&tpu_request, exclusive_reported, dynamic) {
            let hosts = multi_host(&labels, req.total);
            let missing: Vec<&String> =
                tpu.multi_host_annotations.keys().filter(|k| !jobset_annotations.is_some_and(|a| a.contains_key(*k))).collect();
            if let (Some(hosts), false) = (hosts, missing.is_empty()) {
                exclusive_reported = true;
                out.push(Diagnostic::finding(
                    &TPU_EXCLUSIVE_TOPOLOGY,
                    "spec.template.metadata.annotations",
                    format!(
                        "the pods fill a {hosts}-host TPU slice but the JobSet has no {} annotation; its pods can be spread over slices or share one with another job",
                        missing.iter().map(|k| format!("`{k}: {}`", tpu.multi_host_annotations[*k])).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
        }
    }
    out
}

/// The host count of the selected slice when it has more than one host.
fn multi_host(labels: &BTreeMap<String, String>, chips: Option<u32>) -> Option<u32> {
    let tpu = &data().tpu;
    let generation = tpu.by_accelerator_label(labels.get(&tpu.accelerator_label)?)?;
    let shapes = generation.shapes_for(labels.get(&tpu.topology_label)?);
    let shape = shapes.iter().find(|s| Some(s.chips_per_host) == chips)?;
    (shape.hosts > 1).then_some(shape.hosts)
}

fn selectors(pod_path: &FieldPath, pod: &PodSpec, labels: &BTreeMap<String, String>, tpu: bool, gpu: bool, out: &mut Vec<Diagnostic>) {
    let d = data();
    let at = |k: &str| pod_path.field("nodeSelector").key(k);
    let tpu_keys = [&d.tpu.accelerator_label, &d.tpu.topology_label];
    let gpu_keys: Vec<&String> = d
        .gpu
        .platforms
        .iter()
        .filter_map(|p| p.model_label.as_ref())
        .chain(d.gpu.models.iter().flat_map(|m| m.platforms.values()).flat_map(|on| on.node_labels.keys()))
        .collect();
    if gpu && !tpu {
        for k in tpu_keys.iter().filter(|k| labels.contains_key(k.as_str())) {
            out.push(Diagnostic::finding(
                &ACCELERATOR_CONTRADICTORY_SELECTOR,
                at(k),
                format!("the pod requests GPUs but selects the TPU node label `{k}`; no GPU node has it, so the pods stay Pending"),
            ));
        }
    }
    if tpu && !gpu {
        if let Some(k) = gpu_keys.iter().find(|k| labels.contains_key(k.as_str())) {
            out.push(Diagnostic::finding(
                &ACCELERATOR_CONTRADICTORY_SELECTOR,
                at(k),
                format!("the pod requests TPU chips but selects the GPU node label `{k}`; no TPU node has it, so the pods stay Pending"),
            ));
        }
    }
    // A GPU model label and machine types (one in nodeSelector, or an `In` list of a node
    // affinity: the pod may land on any of them) of which none is of that model.
    let choices = pinned_labels(pod);
    for platform in &d.gpu.platforms {
        let (Some(model_key), Some(type_key)) = (&platform.model_label, &platform.machine_type_label) else { continue };
        let (Some(value), Some(machines)) = (labels.get(model_key), choices.get(type_key)) else { continue };
        let Some(a) = d.gpu.models.iter().find(|m| m.on(&platform.name).and_then(|o| o.model_label.as_deref()) == Some(value.as_str()))
        else {
            continue;
        };
        let model_of = |machine: &String| {
            d.gpu.models.iter().find(|m| m.platforms.values().any(|o| o.machine_types.iter().any(|t| &t.name == machine)))
        };
        let known: Vec<(&String, &crate::accelerators::gpu::GpuModel)> = machines.iter().filter_map(|m| Some((m, model_of(m)?))).collect();
        // Only when every machine type is known and none is of the model (an unknown type may be).
        if known.is_empty() || known.len() != machines.len() || known.iter().any(|(_, b)| b.name == a.name) {
            continue;
        }
        let field = if pod.node_selector.as_ref().is_some_and(|s| s.contains_key(type_key)) {
            at(type_key)
        } else {
            pod_path.field("affinity").field("nodeAffinity").field("requiredDuringSchedulingIgnoredDuringExecution")
        };
        let what = match known.as_slice() {
            [(m, b)] => format!("`{type_key}: {m}` is a {} machine", b.description),
            _ => format!(
                "none of the `{type_key}` values is of that model ({})",
                known.iter().map(|(m, b)| format!("`{m}`: {}", b.description)).collect::<Vec<_>>().join(", ")
            ),
        };
        out.push(Diagnostic::finding(
            &ACCELERATOR_CONTRADICTORY_SELECTOR,
            field,
            format!("`{model_key}: {value}` selects {} nodes but {what}; no node is both, so the pods stay Pending", a.description),
        ));
    }
}

fn containers(pod: &PodSpec, pod_path: &FieldPath, out: &mut Vec<Diagnostic>) {
    let j = jax();
    let all = pod.containers.iter().enumerate().map(|(c, x)| (pod_path.container(c), x));
    let init = pod.init_containers.iter().flatten().enumerate().map(|(c, x)| (pod_path.init_container(c), x));
    let pod_accelerators: Vec<&str> =
        pod.containers.iter().chain(pod.init_containers.iter().flatten()).flat_map(requested).map(|a| a.resource.as_str()).collect();
    for (cpath, c) in all.chain(init) {
        let mine: Vec<&crate::accelerators::jax::JaxAccelerator> = requested(c).collect();
        if let Some((e, value)) =
            c.env.iter().flatten().enumerate().find(|(_, e)| e.name == "JAX_PLATFORMS").and_then(|(i, e)| Some((i, e.value.as_deref()?)))
        {
            let listed: Vec<String> = value.split(',').map(|p| p.trim().to_lowercase()).filter(|p| !p.is_empty()).collect();
            let field = cpath.field("env").index(e).field("value");
            if !listed.is_empty() {
                if let Some(a) = mine.first() {
                    if !listed.iter().any(|p| a.jax_platforms.contains(p)) {
                        out.push(Diagnostic::finding(
                            &ACCELERATOR_JAX_PLATFORMS,
                            field,
                            format!(
                                "`JAX_PLATFORMS={value}` has no {} platform ({}) although the container requests `{}`; JAX will not use the devices",
                                a.description,
                                a.jax_platforms.join(", "),
                                a.resource
                            ),
                        ));
                    }
                } else if pod_accelerators.is_empty() && !listed.contains(&j.cpu_platform) {
                    out.push(Diagnostic::finding(
                        &ACCELERATOR_JAX_PLATFORMS,
                        field,
                        format!(
                            "`JAX_PLATFORMS={value}` names no `{}` but the pod requests no accelerator; JAX fails to start its backend",
                            j.cpu_platform
                        ),
                    ));
                }
            }
        }
        if let (Some(a), Some(image)) = (mine.first(), c.image.as_deref()) {
            let built_for: Vec<&crate::accelerators::jax::JaxAccelerator> = j.image_for(image).collect();
            if !built_for.is_empty() && !built_for.iter().any(|b| b.resource == a.resource) {
                out.push(Diagnostic::finding(
                    &ACCELERATOR_IMAGE,
                    cpath.field("image"),
                    format!(
                        "the image `{image}` looks built for {} but the container requests `{}` ({})",
                        built_for.iter().map(|b| b.description.as_str()).collect::<Vec<_>>().join(" or "),
                        a.resource,
                        a.description
                    ),
                ));
            }
        }
    }
}

/// The accelerators a container requests (by its limits).
fn requested(c: &Container) -> impl Iterator<Item = &'static crate::accelerators::jax::JaxAccelerator> + '_ {
    let limits = c.resources.as_ref().and_then(|r| r.limits.as_ref());
    jax().accelerators.iter().filter(move |a| limits.is_some_and(|l| l.contains_key(&a.resource)))
}
