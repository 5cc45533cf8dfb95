//! The GPU interconnect of a runtime, generated or hand-written: a multi-node trainer job whose
//! pods take whole machines of a type with a fabric (from [`crate::accelerators::fabric`]) must use
//! it (`interconnect/unused`). The machine types are read from the pod's node selector or
//! required node affinity, or, where only a GPU model label is selected (GKE), they are the model's
//! machine types with exactly the pod's GPU count. A runtime annotated
//! `jax-runtimes.dev/interconnect: none` is left alone.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::PodSpec;

use super::accelerators::pod_request;
use crate::accelerators::{data, Fabric};
use crate::diag::{Diagnostic, FieldPath};
use crate::k8s::selection::pinned_labels;
use crate::keys::{INTERCONNECT, INTERCONNECT_NONE};
use crate::rules::interconnect::INTERCONNECT_UNUSED;
use crate::trainer::paths;
use crate::trainer::TrainingRuntime;

pub fn check(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if rt.metadata.annotations.as_ref().and_then(|a| a.get(INTERCONNECT)).is_some_and(|v| v == INTERCONNECT_NONE) {
        return out;
    }
    let num_nodes = rt.spec.ml_policy.as_ref().and_then(|m| m.num_nodes).unwrap_or(1);
    if num_nodes <= 1 {
        return out;
    }
    for (i, job) in rt.spec.template.spec.replicated_jobs.iter().enumerate() {
        let trainer = job.is_trainer();
        let Some(template) = job.template.spec.as_ref().map(|s| &s.template) else { continue };
        let (Some(pod), true) = (template.spec.as_ref(), trainer) else { continue };
        let Some(gpus) = gpu_count(pod) else { continue };
        let Some((fabric, machines)) = fabric_of(pod, gpus) else { continue };
        let annotations = template.metadata.as_ref().and_then(|m| m.annotations.clone()).unwrap_or_default();
        let resources: Vec<&str> = pod
            .containers
            .iter()
            .chain(pod.init_containers.iter().flatten())
            .filter_map(|c| c.resources.as_ref())
            .flat_map(|r| r.limits.iter().chain(r.requests.iter()).flat_map(BTreeMap::keys))
            .map(String::as_str)
            .collect();
        if fabric.detect.matches(&annotations, resources.into_iter()) {
            continue;
        }
        // A pod that claims devices (DRA) on a machine type with a DRA fabric uses that fabric; its
        // claims are checked against their templates where the templates are given.
        let claims = pod.resource_claims.as_ref().is_some_and(|c| !c.is_empty());
        let dra = data()
            .fabrics
            .fabrics
            .iter()
            .any(|f| f.is_dra() && f.platform == fabric.platform && f.machine_types.iter().any(|m| machines.contains(&m.name)));
        if claims && dra {
            continue;
        }
        let base = paths::pod_template(i);
        // The pod template, whose annotations lack the fabric's; or its containers, which lack its resource.
        let field = if fabric.detect.annotation.is_some() { base } else { base.field("spec").field("containers") };
        out.push(Diagnostic::finding(
            &INTERCONNECT_UNUSED,
            field,
            format!(
                "{num_nodes} pods take all {gpus} GPUs of {} each, which {} {}, but the pod lacks {}: NCCL runs over one ordinary NIC per node",
                machines.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(" or "),
                if machines.len() == 1 { "has" } else { "have" },
                fabric.title,
                fabric.detect.describe()
            ),
        ));
    }
    out
}

/// The GPUs per pod: the first GPU vendor's resource the pod asks for, summed over its containers
/// as the scheduler sums them ([`pod_request`]).
fn gpu_count(pod: &PodSpec) -> Option<u32> {
    data().gpu.vendors.iter().find_map(|v| pod_request(pod, &FieldPath::root(), &v.resource)).and_then(|r| r.total)
}

/// The fabric every machine type the pod can land on has, when the pod takes each whole.
fn fabric_of(pod: &PodSpec, gpus: u32) -> Option<(&'static Fabric, Vec<String>)> {
    let d = data();
    let choices = pinned_labels(pod);
    // (platform, machine type, its GPUs)
    let mut machines: Vec<(String, String, u32)> = Vec::new();
    for platform in &d.gpu.platforms {
        if let Some(values) = platform.machine_type_label.as_ref().and_then(|k| choices.get(k)) {
            for v in values {
                for model in &d.gpu.models {
                    if let Some(m) = model.on(&platform.name).and_then(|on| on.machine(v)) {
                        machines.push((platform.name.clone(), m.name.clone(), m.gpus));
                    }
                }
            }
        }
    }
    if machines.is_empty() {
        for platform in &d.gpu.platforms {
            let Some(key) = &platform.model_label else { continue };
            let Some([value]) = choices.get(key).map(Vec::as_slice) else { continue };
            for model in &d.gpu.models {
                if let Some(on) = model.on(&platform.name).filter(|on| on.model_label.as_deref() == Some(value.as_str())) {
                    machines.extend(
                        on.machine_types.iter().filter(|m| m.gpus == gpus).map(|m| (platform.name.clone(), m.name.clone(), m.gpus)),
                    );
                }
            }
        }
    }
    machines.dedup();
    let first = machines.first()?;
    let (fabric, _) = d.fabrics.of_machine(&first.0, &first.1)?;
    let all_whole_with_it =
        machines.iter().all(|(p, m, g)| *g == gpus && d.fabrics.of_machine(p, m).is_some_and(|(f, _)| f.name == fabric.name));
    all_whole_with_it.then(|| (fabric, machines.into_iter().map(|(_, m, _)| m).collect()))
}
