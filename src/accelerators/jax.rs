//! What JAX calls each accelerator (`JAX_PLATFORMS` names) and which image names mark an image
//! built for it, loaded once from `catalog/accelerators/jax.yaml` (embedded); keyed by the
//! extended resource a container requests, so the rest of the accelerator data stays the key.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

const JAX_YAML: &str = include_str!("../../catalog/accelerators/jax.yaml");

/// The table.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JaxData {
    pub accelerators: Vec<JaxAccelerator>,
    pub cpu_platform: String,
}

/// One accelerator as JAX and its images name it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JaxAccelerator {
    pub resource: String,
    pub description: String,
    pub jax_platforms: Vec<String>,
    pub image_markers: Vec<String>,
}

impl JaxData {
    pub fn parse(text: &str) -> Result<JaxData, super::error::AcceleratorError> {
        crate::yaml::from_str(text).map_err(|e| super::error::AcceleratorError::Data { file: "jax.yaml", message: e.message })
    }

    /// The accelerator requested through `resource`.
    pub fn by_resource(&self, resource: &str) -> Option<&JaxAccelerator> {
        self.accelerators.iter().find(|a| a.resource == resource)
    }

    /// The accelerators whose image markers `image` carries (case-insensitive).
    pub fn image_for<'a>(&'a self, image: &str) -> impl Iterator<Item = &'a JaxAccelerator> + 'a {
        let image = image.to_lowercase();
        self.accelerators.iter().filter(move |a| a.image_markers.iter().any(|m| image.contains(m.as_str())))
    }
}

/// The embedded table, parsed once (unit-tested, so this never fails in a built binary).
#[allow(clippy::expect_used, reason = "embedded data, not input; the unit tests prove it parses")]
pub fn jax() -> &'static JaxData {
    static DATA: OnceLock<JaxData> = OnceLock::new();
    DATA.get_or_init(|| JaxData::parse(JAX_YAML).expect("catalog/accelerators/jax.yaml is valid (unit-tested)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_accelerator_resource_is_known_and_default_images_are_recognised() {
        let d = super::super::data();
        let j = JaxData::parse(JAX_YAML).unwrap();
        assert!(j.by_resource(&d.tpu.resource).is_some());
        for v in &d.gpu.vendors {
            let a = j.by_resource(&v.resource).unwrap_or_else(|| panic!("{} is not in jax.yaml", v.resource));
            assert!(j.image_for(&v.default_image).any(|x| x.resource == a.resource), "{}", v.default_image);
        }
        let tpu: Vec<&str> = j.image_for(&d.tpu.default_image).map(|a| a.resource.as_str()).collect();
        assert_eq!(tpu, [d.tpu.resource.as_str()]);
        // The TPU env of the data names the TPU platform.
        let env = d.tpu.env.iter().find(|e| e.name == "JAX_PLATFORMS").and_then(|e| e.value.clone()).unwrap_or_default();
        assert!(env.split(',').any(|p| j.by_resource(&d.tpu.resource).is_some_and(|a| a.jax_platforms.iter().any(|x| x == p))));
    }
}
