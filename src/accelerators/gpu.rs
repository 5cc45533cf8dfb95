//! GPU knowledge (`catalog/accelerators/gpu.yaml`): vendors with their extended resource and
//! taint, per-platform node labels, and the machine shapes of each model per platform with the
//! most common one; and the placement of a model x count x platform on those shapes: the machine
//! types a pod can land on, and the node labels or node affinity that select them.

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
    /// The model's most common machine shape here; its GPUs are the default count. Required where
    /// several machine types are listed.
    #[serde(default)]
    pub default_machine_type: Option<String>,
    /// The default count where no machine types are listed (else `maxPerNode`).
    #[serde(default)]
    pub default_count: Option<u32>,
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

    /// The machine type named `name`.
    pub fn machine(&self, name: &str) -> Option<&GpuMachineType> {
        self.machine_types.iter().find(|m| m.name == name)
    }

    /// The GPU count of the model's most common shape here (the default count).
    pub fn default_gpus(&self) -> u32 {
        let by_machine = match (&self.default_machine_type, self.machine_types.as_slice()) {
            (Some(name), _) => self.machine(name).map(|m| m.gpus),
            (None, [only]) => Some(only.gpus),
            _ => None,
        };
        by_machine.or(self.default_count).unwrap_or_else(|| self.max_gpus())
    }

    /// The entry's own consistency: the default machine is listed, the default count fits.
    pub fn check(&self) -> Result<(), String> {
        match &self.default_machine_type {
            Some(name) if self.machine(name).is_none() => return Err(format!("defaultMachineType `{name}` is not listed")),
            None if self.machine_types.len() > 1 => return Err("several machine types and no defaultMachineType".into()),
            _ => {}
        }
        if self.default_count.is_some_and(|c| c == 0 || c > self.max_gpus()) {
            return Err("defaultCount is 0 or more than a node has".into());
        }
        Ok(())
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
    /// The one machine type the node selector pins, if it pins one.
    pub machine_type: Option<String>,
    /// Every machine type the pod can land on (the ones the runtime assumed), in data order; empty
    /// where the platform lists none.
    pub machine_types: Vec<String>,
    pub node_selector: BTreeMap<String, String>,
    /// A required node affinity `In` on the machine-type label, where several are selected.
    pub affinity: Option<MachineAffinity>,
    pub tolerations: Vec<Toleration>,
    /// The fabric wired for the machine type (set by resolve for multi-node runtimes).
    pub fabric: Option<super::fabric::FabricPatch>,
}

/// `key In values`: a required node-affinity term selecting several machine types.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MachineAffinity {
    pub key: String,
    pub values: Vec<String>,
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
        self.place_on(model, count, platform, machine_type, &[])
    }

    /// Resolves model x count x platform to a placement, with a pinned machine type or a set of
    /// them (`machine_types`, which must all be the model's and hold `count` GPUs). Without either,
    /// every machine type with at least `count` GPUs can serve it; the count defaults to the GPUs
    /// of the model's most common machine shape.
    pub fn place_on(
        &self,
        model: &GpuModel,
        count: Option<u32>,
        platform: &str,
        machine_type: Option<&str>,
        machine_types: &[String],
    ) -> Result<GpuShape, GpuError> {
        let vendor = self.vendor(&model.vendor).map_err(|e| GpuError::Data(e.to_string()))?;
        let on = model.on(platform).ok_or_else(|| GpuError::NotOnPlatform {
            model: model.name.clone(),
            platform: platform.to_string(),
            available: model.platforms().to_vec(),
        })?;
        let plat = self.platform(platform).ok_or_else(|| GpuError::Data(format!("no GPU platform entry for `{platform}`")))?;
        let shapes = || on.machine_types.iter().map(|m| format!("{} ({})", m.name, crate::words::count(m.gpus, "GPU"))).collect::<Vec<_>>();
        let lookup = |name: &str| {
            on.machine(name).ok_or_else(|| GpuError::UnknownMachineType {
                name: name.to_string(),
                model: model.name.clone(),
                platform: platform.to_string(),
                known: shapes(),
            })
        };
        let pinned = machine_type.map(lookup).transpose()?;
        let listed = machine_types.iter().map(|n| lookup(n)).collect::<Result<Vec<_>, _>>()?;
        let count = match (count, pinned) {
            (Some(c), _) => c,
            (None, Some(m)) => m.gpus,
            (None, None) if !listed.is_empty() => {
                let usual = on.default_machine_type.as_deref().filter(|d| listed.iter().any(|m| &m.name == d));
                usual.and_then(|d| on.machine(d)).map(|m| m.gpus).unwrap_or_else(|| listed.iter().map(|m| m.gpus).min().unwrap_or(0))
            }
            (None, None) => on.default_gpus(),
        };
        if count == 0 {
            return Err(GpuError::Zero);
        }
        let limit = pinned.map(|m| m.gpus).unwrap_or_else(|| on.max_gpus());
        if count > limit {
            return Err(GpuError::TooMany { count, limit, model: model.name.clone(), platform: platform.to_string(), shapes: shapes() });
        }
        if let Some(small) = listed.iter().find(|m| m.gpus < count) {
            return Err(GpuError::TooFew { count, machine: small.name.clone(), gpus: small.gpus });
        }
        // The machine types the pod can land on: the pinned one, the listed ones (in data order), or
        // every one with enough GPUs.
        let serving: Vec<String> = match pinned {
            Some(m) => vec![m.name.clone()],
            None => on
                .machine_types
                .iter()
                .filter(|m| if listed.is_empty() { m.gpus >= count } else { machine_types.contains(&m.name) })
                .map(|m| m.name.clone())
                .collect(),
        };
        let by_label = pinned.is_some() || !listed.is_empty() || plat.select_machine_type;
        let mut node_selector = on.node_labels.clone();
        if let (Some(key), Some(value)) = (&plat.model_label, &on.model_label) {
            node_selector.insert(key.clone(), value.clone());
        }
        let mut affinity = None;
        let mut chosen = None;
        if let (Some(key), true) = (&plat.machine_type_label, by_label) {
            match serving.as_slice() {
                [one] if listed.is_empty() => {
                    node_selector.insert(key.clone(), one.clone());
                    chosen = Some(one.clone());
                }
                [] => {}
                many => affinity = Some(MachineAffinity { key: key.clone(), values: many.to_vec() }),
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
            machine_types: serving,
            node_selector,
            affinity,
            tolerations,
            fabric: None,
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
    #[error("machine type `{machine}` has {gpus} GPUs, fewer than the {count} per pod; a pod could never land there")]
    TooFew { count: u32, machine: String, gpus: u32 },
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

    #[test]
    fn the_default_count_is_the_usual_machine_not_the_largest() {
        let g = &data().gpu;
        let a100 = g.model("a100-40gb").unwrap();
        let s = g.place(a100, None, "gke", None).unwrap();
        assert_eq!((s.count, s.machine_types.as_slice()), (8, ["a2-highgpu-8g".to_string(), "a2-megagpu-16g".to_string()].as_slice()));
        assert!(s.affinity.is_none(), "GKE selects by the accelerator label");
        assert_eq!(g.place(a100, None, "generic", None).unwrap().count, 8);
        assert_eq!(g.place(a100, Some(16), "gke", None).unwrap().machine_types, ["a2-megagpu-16g"]);
    }

    #[test]
    fn a_count_several_machine_types_serve_selects_all_of_them() {
        let g = &data().gpu;
        let l4 = g.model("l4").unwrap();
        let s = g.place(l4, Some(2), "eks", None).unwrap();
        let a = s.affinity.unwrap();
        assert_eq!(
            (a.key.as_str(), a.values.as_slice()),
            ("node.kubernetes.io/instance-type", ["g6.12xlarge", "g6.24xlarge", "g6.48xlarge"].map(String::from).as_slice())
        );
        assert!(!s.node_selector.contains_key("node.kubernetes.io/instance-type"));
        assert!(s.machine_type.is_none());
        let listed = ["g6.24xlarge".to_string(), "g6.12xlarge".to_string()];
        let s = g.place_on(l4, None, "eks", None, &listed).unwrap();
        assert_eq!((s.count, s.affinity.unwrap().values), (4, vec!["g6.12xlarge".to_string(), "g6.24xlarge".to_string()]));
        let s = g.place_on(l4, None, "gke", None, &["g2-standard-48".to_string()]).unwrap();
        assert_eq!(s.affinity.map(|a| a.values), Some(vec!["g2-standard-48".to_string()]), "machineTypes is an affinity on GKE too");
        assert!(matches!(g.place_on(l4, Some(8), "eks", None, &listed), Err(GpuError::TooFew { gpus: 4, .. })));
        assert!(matches!(g.place_on(l4, None, "eks", None, &["p5.48xlarge".to_string()]), Err(GpuError::UnknownMachineType { .. })));
    }
}
