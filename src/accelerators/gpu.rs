//! GPU knowledge (`catalog/accelerators/gpu.yaml`): vendors with their extended resource and
//! taint, per-platform node labels, and the machine shapes of each model per platform; and the
//! placement of a model x count x platform on those shapes.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Toleration;
use serde::{Deserialize, Serialize};

use super::error::AcceleratorError;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuData {
    pub vendors: Vec<GpuVendor>,
    pub platforms: Vec<GpuPlatform>,
    pub models: Vec<GpuModel>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuVendor {
    pub name: String,
    /// The key of `JaxRuntimeDefaults.spec.images` that sets this vendor's image.
    pub image_key: String,
    /// For people, e.g. `NVIDIA GPUs`.
    pub description: String,
    /// Extended resource name, e.g. `nvidia.com/gpu`.
    pub resource: String,
    pub tolerations: Vec<Toleration>,
    /// From `images.yaml` (this vendor's `image_key`).
    #[serde(default, skip_deserializing)]
    pub default_image: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuPlatform {
    /// A platform of `platforms.yaml`.
    pub name: String,
    /// Node label key whose value names the GPU model (GKE).
    #[serde(default)]
    pub model_label: Option<String>,
    /// Node label key whose value names the machine (instance) type.
    #[serde(default)]
    pub machine_type_label: Option<String>,
    /// Select the node by machine type even when the user did not pin one.
    pub select_machine_type: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuModel {
    pub name: String,
    pub vendor: String,
    pub description: String,
    /// Platform name -> how the model is offered there.
    pub platforms: BTreeMap<String, GpuOnPlatform>,
    /// The platforms of `platforms`, in the order of `platforms.yaml` (set when the data loads).
    #[serde(skip)]
    pub platform_order: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuOnPlatform {
    /// Value of the platform's model label (GKE `cloud.google.com/gke-accelerator`).
    #[serde(default)]
    pub model_label: Option<String>,
    /// Other node labels that select this model (generic clusters).
    #[serde(default)]
    pub node_labels: BTreeMap<String, String>,
    #[serde(default)]
    pub machine_types: Vec<GpuMachineType>,
    /// Largest GPU count per node where no machine types are listed.
    #[serde(default)]
    pub max_per_node: Option<u32>,
    /// Extra tolerations on this platform.
    #[serde(default)]
    pub tolerations: Vec<Toleration>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuMachineType {
    pub name: String,
    pub gpus: u32,
}

impl GpuModel {
    pub fn on(&self, platform: &str) -> Option<&GpuOnPlatform> {
        self.platforms.get(platform)
    }

    /// The platforms that offer the model, in `platforms.yaml` order.
    pub fn platforms(&self) -> &[String] {
        &self.platform_order
    }
}

impl GpuOnPlatform {
    /// The most GPUs one node of this model can have on this platform.
    pub fn max_gpus(&self) -> u32 {
        self.machine_types.iter().map(|m| m.gpus).chain(self.max_per_node).max().unwrap_or(0)
    }
}

/// A resolved GPU placement.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GpuShape {
    pub model: String,
    pub vendor: String,
    pub resource: String,
    pub count: u32,
    pub machine_type: Option<String>,
    pub node_selector: BTreeMap<String, String>,
    pub tolerations: Vec<Toleration>,
}

impl GpuData {
    pub fn vendor(&self, name: &str) -> Result<&GpuVendor, AcceleratorError> {
        self.vendors.iter().find(|v| v.name == name).ok_or_else(|| AcceleratorError::UnknownGpuVendor {
            name: name.to_string(),
            known: self.vendors.iter().map(|v| v.name.clone()).collect(),
        })
    }

    pub fn platform(&self, platform: &str) -> Option<&GpuPlatform> {
        self.platforms.iter().find(|p| p.name == platform)
    }

    /// Finds a model by name (case-insensitive, `_` and `-` alike).
    pub fn model(&self, name: &str) -> Result<&GpuModel, AcceleratorError> {
        let norm = |s: &str| s.trim().to_ascii_lowercase().replace('_', "-");
        let wanted = norm(name);
        self.models.iter().find(|m| norm(&m.name) == wanted).ok_or_else(|| AcceleratorError::UnknownGpu {
            name: name.to_string(),
            known: self.models.iter().map(|m| m.name.clone()).collect(),
        })
    }

    /// Resource name -> vendor, e.g. `nvidia.com/gpu` -> nvidia.
    pub fn vendor_by_resource(&self, resource: &str) -> Option<&GpuVendor> {
        self.vendors.iter().find(|v| v.resource == resource)
    }

    /// Resolves model x count x platform (x pinned machine type) to a placement.
    pub fn place(&self, model: &GpuModel, count: Option<u32>, platform: &str, machine_type: Option<&str>) -> Result<GpuShape, GpuError> {
        let vendor = self.vendor(&model.vendor).map_err(|e| GpuError::Data(e.to_string()))?;
        let on = model.on(platform).ok_or_else(|| GpuError::NotOnPlatform {
            model: model.name.clone(),
            platform: platform.to_string(),
            available: model.platforms().to_vec(),
        })?;
        let plat = self.platform(platform).ok_or_else(|| GpuError::Data(format!("no GPU platform entry for `{platform}`")))?;
        let max = on.max_gpus();
        let pinned = match machine_type {
            Some(name) => Some(on.machine_types.iter().find(|m| m.name == name).ok_or_else(|| GpuError::UnknownMachineType {
                name: name.to_string(),
                model: model.name.clone(),
                platform: platform.to_string(),
                known: on.machine_types.iter().map(|m| format!("{} ({})", m.name, crate::words::count(m.gpus, "GPU"))).collect(),
            })?),
            None => None,
        };
        let count = count.or(pinned.map(|m| m.gpus)).unwrap_or(max);
        if count == 0 {
            return Err(GpuError::Zero);
        }
        let limit = pinned.map(|m| m.gpus).unwrap_or(max);
        if count > limit {
            return Err(GpuError::TooMany {
                count,
                limit,
                model: model.name.clone(),
                platform: platform.to_string(),
                shapes: on.machine_types.iter().map(|m| format!("{} ({})", m.name, crate::words::count(m.gpus, "GPU"))).collect(),
            });
        }
        let chosen = match pinned {
            Some(m) => Some(m.name.clone()),
            None if plat.select_machine_type => {
                // The fewest GPUs that fit; among equals, the first listed (the data lists smallest first).
                on.machine_types.iter().filter(|m| m.gpus >= count).min_by_key(|m| m.gpus).map(|m| m.name.clone())
            }
            None => None,
        };
        let mut node_selector = on.node_labels.clone();
        if let (Some(key), Some(value)) = (&plat.model_label, &on.model_label) {
            node_selector.insert(key.clone(), value.clone());
        }
        if let (Some(key), Some(mt)) = (&plat.machine_type_label, &chosen) {
            if pinned.is_some() || plat.select_machine_type {
                node_selector.insert(key.clone(), mt.clone());
            }
        }
        let mut tolerations = vendor.tolerations.clone();
        tolerations.extend(on.tolerations.iter().cloned());
        Ok(GpuShape {
            model: model.name.clone(),
            vendor: vendor.name.clone(),
            resource: vendor.resource.clone(),
            count,
            machine_type: chosen,
            node_selector,
            tolerations,
        })
    }
}

/// Why a GPU request has no placement.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GpuError {
    #[error("GPU model `{model}` is not offered on platform `{platform}`; it is on: {}", join(.available))]
    NotOnPlatform { model: String, platform: String, available: Vec<String> },
    #[error("machine type `{name}` does not have `{model}` GPUs on `{platform}`; expected one of: {}", .known.join(", "))]
    UnknownMachineType { name: String, model: String, platform: String, known: Vec<String> },
    #[error("{} per node is more than any `{model}` machine on `{platform}` has (at most {limit}; shapes: {})", crate::words::count(*.count, "GPU"), if .shapes.is_empty() { "none listed".to_string() } else { .shapes.join(", ") })]
    TooMany { count: u32, limit: u32, model: String, platform: String, shapes: Vec<String> },
    #[error("a GPU count of 0 requests no GPU; use `accelerator: {{cpu: {{}}}}` for a CPU runtime")]
    Zero,
    #[error("{0}")]
    Data(String),
}

fn join(p: &[String]) -> String {
    if p.is_empty() {
        return "no platform".into();
    }
    p.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accelerators::data;

    #[test]
    fn gpu_count_above_machine_shape_is_refused() {
        let g = &data().gpu;
        let h100 = g.model("h100-80gb").unwrap();
        let err = g.place(h100, Some(16), "gke", None).unwrap_err();
        assert!(matches!(err, GpuError::TooMany { limit: 8, .. }), "{err}");
        let ok = g.place(h100, Some(8), "eks", None).unwrap();
        assert_eq!(ok.node_selector.get("node.kubernetes.io/instance-type").map(String::as_str), Some("p5.48xlarge"));
    }
}
