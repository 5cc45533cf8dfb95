//! A `gpu:` entry -> its placement on the platform's machine shapes: the vendor's extended
//! resource per node, the model and machine-type selectors (a node affinity where several machine
//! types serve it), the vendor's tolerations and those of the taints the platform's GPU pools carry
//! (`nodes.yaml`: AKS GPU pools are `sku=gpu:NoSchedule`, the data `fit` explains pools with), and
//! the interconnect ([`super::fabric`]): the fabric's env and extended resources join the plan, the
//! rest of its pod patch rides on the shape.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::resolved::{Accel, AcceleratorPlan};
use crate::accelerators::nodes::nodes;
use crate::accelerators::{data, GpuError};
use crate::catalog::{DefaultsSpec, GpuSpec, JaxRuntimeSpec, Platform};
use crate::diag::Diagnostic;
use crate::rules::catalog::{CATALOG_GPU_SHAPE, CATALOG_GPU_VENDOR, CATALOG_UNKNOWN_GPU};

/// The plan for a GPU entry: `Err` when the model or its placement is unknown; `Ok` with the
/// errors that do not stop it (a contradicting vendor).
pub(super) fn plan(
    gpu: &GpuSpec,
    spec: &JaxRuntimeSpec,
    defaults: &DefaultsSpec,
    platform: &Platform,
) -> Result<(AcceleratorPlan, Vec<Diagnostic>), Vec<Diagnostic>> {
    let num_nodes = spec.num_nodes;
    let data = &data().gpu;
    let mut errors = Vec::new();
    let model = data.model(&gpu.model).map_err(|e| {
        vec![Diagnostic::new(&CATALOG_UNKNOWN_GPU, e.to_string())
            .with_field("spec.accelerator.gpu.model")
            .with_help("`jax-runtimes accelerators --kind gpu` lists the models")]
    })?;
    if let Some(v) = &gpu.vendor {
        if v != &model.vendor {
            errors.push(
                Diagnostic::new(&CATALOG_GPU_VENDOR, format!("GPU model `{}` is made by `{}`, not `{v}`", model.name, model.vendor))
                    .with_field("spec.accelerator.gpu.vendor")
                    .with_help("remove `vendor` (the model implies it) or fix it"),
            );
        }
    }
    let vendor = data.vendor(&model.vendor).map_err(|e| vec![Diagnostic::new(&CATALOG_UNKNOWN_GPU, e.to_string())])?;
    if gpu.machine_type.is_some() && !gpu.machine_types.is_empty() {
        errors.push(
            Diagnostic::new(&CATALOG_GPU_SHAPE, "both `machineType` and `machineTypes` are set")
                .with_field("spec.accelerator.gpu.machineTypes")
                .with_help("pin one machine type with `machineType`, or name several with `machineTypes`, not both"),
        );
        return Err(errors);
    }
    let shape = match data.place_on(model, gpu.count, platform.as_str(), gpu.machine_type.as_deref(), &gpu.machine_types) {
        Ok(shape) => shape,
        Err(e) => {
            let field = match &e {
                GpuError::UnknownMachineType { .. } if !gpu.machine_types.is_empty() => "spec.accelerator.gpu.machineTypes",
                GpuError::TooFew { .. } => "spec.accelerator.gpu.machineTypes",
                GpuError::UnknownMachineType { .. } => "spec.accelerator.gpu.machineType",
                GpuError::NotOnPlatform { .. } => "spec.platform",
                _ => "spec.accelerator.gpu.count",
            };
            errors.push(
                Diagnostic::new(&CATALOG_GPU_SHAPE, e.to_string())
                    .with_field(field)
                    .with_help("`jax-runtimes accelerators --kind gpu` lists models, platforms and machine shapes"),
            );
            return Err(errors);
        }
    };
    let mut shape = shape;
    let pool = nodes().pool_tolerations(platform.as_str(), &shape.resource, &shape.tolerations);
    shape.tolerations.extend(pool);
    let wiring = super::fabric::wire(
        &shape,
        gpu,
        defaults.fabric.as_ref(),
        platform.as_str(),
        num_nodes.unwrap_or(1),
        spec.host_network.unwrap_or(false),
    );
    errors.extend(wiring.findings);
    let mut limits = BTreeMap::from([(shape.resource.clone(), Quantity(shape.count.to_string()))]);
    let mut env = Vec::new();
    let mut fallback_requests = BTreeMap::new();
    if let Some(f) = &wiring.fabric {
        limits.extend(f.resources.clone());
        env = f.env.clone();
        if let Some(m) = &f.memory_request {
            fallback_requests.insert("memory".to_string(), m.clone());
        }
    }
    shape.fabric = wiring.fabric;
    Ok((
        AcceleratorPlan {
            num_nodes: num_nodes.unwrap_or(1),
            node_selector: {
                let mut selector = shape.node_selector.clone();
                if let Some(f) = &shape.fabric {
                    selector.extend(f.node_selector.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                selector
            },
            tolerations: shape.tolerations.clone(),
            env,
            jobset_annotations: BTreeMap::new(),
            limits,
            fallback_requests,
            image_key: vendor.image_key.clone(),
            default_image: vendor.default_image.clone(),
            accel: Accel::Gpu(shape),
        },
        errors,
    ))
}
