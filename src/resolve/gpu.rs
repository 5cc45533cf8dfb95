//! A `gpu:` entry -> its placement on the platform's machine shapes: the vendor's extended
//! resource per node, the model and machine-type selectors, and the vendor's tolerations.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::resolved::{Accel, AcceleratorPlan};
use crate::accelerators::{data, GpuError};
use crate::catalog::{GpuSpec, Platform};
use crate::diag::Diagnostic;
use crate::rules::catalog::{CATALOG_GPU_SHAPE, CATALOG_GPU_VENDOR, CATALOG_UNKNOWN_GPU};

/// The plan for a GPU entry: `Err` when the model or its placement is unknown; `Ok` with the
/// errors that do not stop it (a contradicting vendor).
pub(super) fn plan(
    gpu: &GpuSpec,
    num_nodes: Option<i32>,
    platform: &Platform,
) -> Result<(AcceleratorPlan, Vec<Diagnostic>), Vec<Diagnostic>> {
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
    let shape = match data.place(model, gpu.count, platform.as_str(), gpu.machine_type.as_deref()) {
        Ok(shape) => shape,
        Err(e) => {
            let field = match &e {
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
    let limits = BTreeMap::from([(shape.resource.clone(), Quantity(shape.count.to_string()))]);
    Ok((
        AcceleratorPlan {
            num_nodes: num_nodes.unwrap_or(1),
            node_selector: shape.node_selector.clone(),
            tolerations: shape.tolerations.clone(),
            env: Vec::new(),
            jobset_annotations: BTreeMap::new(),
            limits,
            image_key: vendor.image_key.clone(),
            default_image: vendor.default_image.clone(),
            accel: Accel::Gpu(shape),
        },
        errors,
    ))
}
