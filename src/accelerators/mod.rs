//! Accelerator knowledge, loaded once from the YAML tables in `catalog/accelerators/` (embedded
//! in the binary): platforms, TPU generations with their topologies and machine shapes ([`tpu`]),
//! GPU models with their labels and machine shapes per platform ([`gpu`]), the GPU fabrics of
//! machine types ([`fabric`]), CPU defaults, the default image of each accelerator kind
//! (`images.yaml`), how the Kubeflow SDK names devices ([`sdk`]), and what a cluster's nodes look
//! like ([`nodes`]). Resolve, validate, fit and the docs all ask this module; none keeps a copy of
//! the data.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use k8s_openapi::api::core::v1::EnvVar;
use serde::{Deserialize, Serialize};

mod error;
pub mod fabric;
pub mod gpu;
pub mod jax;
pub mod nodes;
pub mod sdk;
pub mod tpu;

pub use error::AcceleratorError;

pub use fabric::{Fabric, FabricData, FabricError, FabricMachine, FabricPatch, NetworkInterface, Overrides};
pub use gpu::{GpuData, GpuError, GpuMachineType, GpuModel, GpuOnPlatform, GpuPlatform, GpuShape, GpuVendor, MachineAffinity};
pub use sdk::SdkData;
pub use tpu::{parse_topology, DynamicGeneration, DynamicSlice, DynamicSlicing, SliceKind, TpuData, TpuGeneration, TpuShape};

const PLATFORMS_YAML: &str = include_str!("../../catalog/accelerators/platforms.yaml");
const TPU_YAML: &str = include_str!("../../catalog/accelerators/tpu.yaml");
const GPU_YAML: &str = include_str!("../../catalog/accelerators/gpu.yaml");
const FABRICS_YAML: &str = include_str!("../../catalog/accelerators/fabrics.yaml");
const CPU_YAML: &str = include_str!("../../catalog/accelerators/cpu.yaml");
const SDK_YAML: &str = include_str!("../../catalog/accelerators/sdk.yaml");
const IMAGES_YAML: &str = include_str!("../../catalog/accelerators/images.yaml");

/// Every table, parsed.
#[derive(Debug, Clone, Serialize)]
pub struct Data {
    pub platforms: PlatformData,
    pub tpu: TpuData,
    pub gpu: GpuData,
    pub fabrics: FabricData,
    pub cpu: CpuData,
    pub sdk: SdkData,
    pub images: ImageData,
}

/// The embedded tables, parsed once. They are part of the binary, not input: the unit tests
/// below prove they parse and hold together, so this never fails in a built binary.
#[allow(clippy::expect_used, reason = "embedded data, not input; the unit tests prove it parses")]
pub fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        Data::parse(PLATFORMS_YAML, TPU_YAML, GPU_YAML, FABRICS_YAML, CPU_YAML, SDK_YAML)
            .expect("the embedded accelerator data is valid (unit-tested)")
    })
}

impl Data {
    /// The tables, with the default images of the embedded `images.yaml`.
    pub fn parse(platforms: &str, tpu: &str, gpu: &str, fabrics: &str, cpu: &str, sdk: &str) -> Result<Data, AcceleratorError> {
        Data::parse_with_images(platforms, tpu, gpu, fabrics, cpu, sdk, IMAGES_YAML)
    }

    /// The tables and the default images: every image key (`cpu`, `tpu`, each GPU vendor's)
    /// has exactly one image, and every image a key.
    pub fn parse_with_images(
        platforms: &str,
        tpu: &str,
        gpu: &str,
        fabrics: &str,
        cpu: &str,
        sdk: &str,
        images: &str,
    ) -> Result<Data, AcceleratorError> {
        fn table<T: serde::de::DeserializeOwned>(file: &'static str, text: &str) -> Result<T, AcceleratorError> {
            crate::yaml::from_str(text).map_err(|e| AcceleratorError::Data {
                file,
                message: format!("{}{}", e.message, e.line.map(|l| format!(" (line {l})")).unwrap_or_default()),
            })
        }
        let platforms: PlatformData = table("platforms.yaml", platforms)?;
        let mut tpu: TpuData = table("tpu.yaml", tpu)?;
        let mut gpu: GpuData = table("gpu.yaml", gpu)?;
        let fabrics: FabricData = table("fabrics.yaml", fabrics)?;
        let mut cpu: CpuData = table("cpu.yaml", cpu)?;
        let sdk: SdkData = table("sdk.yaml", sdk)?;
        let images: ImageData = table("images.yaml", images)?;
        let names: Vec<String> = platforms.platforms.iter().map(|p| p.name.clone()).collect();
        let check = |file: &'static str, name: &str| {
            if names.iter().any(|n| n == name) {
                Ok(())
            } else {
                Err(AcceleratorError::Data { file, message: format!("platform `{name}` is not in platforms.yaml") })
            }
        };
        check("platforms.yaml", &platforms.default)?;
        for p in &tpu.platforms {
            check("tpu.yaml", p)?;
        }
        for p in &gpu.platforms {
            check("gpu.yaml", &p.name)?;
        }
        for m in &mut gpu.models {
            for p in m.platforms.keys() {
                check("gpu.yaml", p)?;
            }
            m.platform_order = names.iter().filter(|n| m.platforms.contains_key(*n)).cloned().collect();
            for (p, on) in &m.platforms {
                on.check()
                    .map_err(|message| AcceleratorError::Data { file: "gpu.yaml", message: format!("{} on {p}: {message}", m.name) })?;
            }
        }
        for f in &fabrics.fabrics {
            check("fabrics.yaml", &f.platform)?;
        }
        let image = |key: &str| {
            images.images.get(key).map(|i| i.image.clone()).ok_or_else(|| AcceleratorError::Data {
                file: "images.yaml",
                message: format!("no image for `{key}`; every accelerator kind needs its default image"),
            })
        };
        cpu.default_image = image(IMAGE_KEY_CPU)?;
        tpu.default_image = image(IMAGE_KEY_TPU)?;
        for v in &mut gpu.vendors {
            v.default_image = image(&v.image_key)?;
        }
        let keys: Vec<&str> = [IMAGE_KEY_CPU, IMAGE_KEY_TPU].into_iter().chain(gpu.vendors.iter().map(|v| v.image_key.as_str())).collect();
        for (key, i) in &images.images {
            if !keys.contains(&key.as_str()) {
                return Err(AcceleratorError::Data {
                    file: "images.yaml",
                    message: format!("`{key}` is not an image key; expected one of {}", keys.join(", ")),
                });
            }
            if let Err(why) = pinned(&i.image) {
                return Err(AcceleratorError::Data { file: "images.yaml", message: format!("`{key}`: {why}") });
            }
        }
        Ok(Data { platforms, tpu, gpu, fabrics, cpu, sdk, images })
    }

    /// The platform named `name`.
    pub fn platform(&self, name: &str) -> Result<&Platform, AcceleratorError> {
        self.platforms.platforms.iter().find(|p| p.name == name).ok_or_else(|| AcceleratorError::UnknownPlatform {
            name: name.to_string(),
            known: self.platforms.platforms.iter().map(|p| p.name.clone()).collect(),
        })
    }

    /// Every extended resource name the accelerator data knows (`google.com/tpu`, one per GPU vendor).
    pub fn accelerator_resources(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.tpu.resource.as_str()).chain(self.gpu.vendors.iter().map(|v| v.resource.as_str()))
    }
}

/// `platforms.yaml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlatformData {
    pub platforms: Vec<Platform>,
    /// The platform of GPU and CPU runtimes that name none.
    pub default: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Platform {
    pub name: String,
    pub description: String,
}

/// The image keys of CPU and TPU runtimes (GPU vendors name theirs in `gpu.yaml`).
pub const IMAGE_KEY_CPU: &str = "cpu";
pub const IMAGE_KEY_TPU: &str = "tpu";

/// `images.yaml`: the default image of each accelerator kind, by image key.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageData {
    pub images: BTreeMap<String, DefaultImage>,
}

/// One default image.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DefaultImage {
    pub image: String,
    /// pip packages a job installs before it imports JAX (an image without JAX); empty when the
    /// image has JAX.
    #[serde(default)]
    pub install: Vec<String>,
}

impl ImageData {
    /// What a job in `image` must pip-install first, when `image` is a default image without JAX.
    pub fn install_for(&self, image: &str) -> &[String] {
        self.images.values().find(|i| i.image == image).map(|i| i.install.as_slice()).unwrap_or_default()
    }
}

/// An image reference pinned to a version: a digest, or a tag other than `latest`.
pub fn pinned(image: &str) -> Result<(), String> {
    if image.contains("@sha256:") {
        return Ok(());
    }
    // The tag follows the last `:` after the last `/` (a registry may have a port).
    let last = image.rsplit('/').next().unwrap_or(image);
    match last.split_once(':') {
        Some((_, tag)) if !tag.is_empty() && tag != "latest" => Ok(()),
        Some(_) => Err(format!("`{image}` uses the `latest` tag; pin a version so that an image change is a change in the runtimes")),
        None => Err(format!("`{image}` has no tag (it means `latest`); pin a version")),
    }
}

/// `cpu.yaml`: CPU-only runtimes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CpuData {
    /// From `images.yaml` (key `cpu`).
    #[serde(default, skip_deserializing)]
    pub default_image: String,
    #[serde(default)]
    pub env: Vec<EnvVar>,
}

/// The name jax-runtimes gives the memory-backed volume it mounts at `/dev/shm` (`spec.sharedMemory`);
/// the fabric data's checks and the storage rules refer to it.
pub const SHM_VOLUME: &str = "dshm";

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn embedded_data_parses() {
        let d = Data::parse(PLATFORMS_YAML, TPU_YAML, GPU_YAML, FABRICS_YAML, CPU_YAML, SDK_YAML).unwrap();
        assert!(d.tpu.generations.len() >= 5);
        assert!(d.gpu.models.len() >= 9);
        assert!(d.platform(&d.platforms.default).is_ok());
        assert!(!d.tpu.platforms.is_empty());
    }

    #[test]
    fn default_images_are_pinned_and_one_per_image_key() {
        let d = data();
        assert_eq!(d.cpu.default_image, d.images.images["cpu"].image);
        assert_eq!(d.tpu.default_image, d.images.images["tpu"].image);
        for v in &d.gpu.vendors {
            assert_eq!(v.default_image, d.images.images[&v.image_key].image, "{}", v.name);
        }
        assert_ne!(d.cpu.default_image, d.gpu.vendors[0].default_image, "CPU runtimes do not get the CUDA image");
        for (key, i) in &d.images.images {
            assert_eq!(pinned(&i.image), Ok(()), "{key}");
        }
        assert!(pinned("rocm/jax:latest").is_err());
        assert!(pinned("rocm/jax").is_err());
        assert!(pinned("localhost:5000/jax").is_err(), "a registry port is not a tag");
        assert!(pinned("localhost:5000/jax:0.8").is_ok());
        assert!(pinned("python@sha256:abc").is_ok());
        let latest = IMAGES_YAML.replace("rocm/jax:rocm7.2.4-jax0.8.2-py3.12", "rocm/jax:latest");
        let err = Data::parse_with_images(PLATFORMS_YAML, TPU_YAML, GPU_YAML, FABRICS_YAML, CPU_YAML, SDK_YAML, &latest).unwrap_err();
        assert!(err.to_string().contains("`latest` tag"), "{err}");
        let missing = IMAGES_YAML.replace("  amdGpu:", "  amd:");
        let err = Data::parse_with_images(PLATFORMS_YAML, TPU_YAML, GPU_YAML, FABRICS_YAML, CPU_YAML, SDK_YAML, &missing).unwrap_err();
        assert!(err.to_string().contains("no image for `amdGpu`"), "{err}");
    }

    #[test]
    fn a_platform_missing_from_platforms_yaml_is_refused() {
        let gpu = GPU_YAML.replace("- name: generic\n  selectMachineType", "- name: oke\n  selectMachineType");
        let err = Data::parse(PLATFORMS_YAML, TPU_YAML, &gpu, FABRICS_YAML, CPU_YAML, SDK_YAML).unwrap_err();
        assert!(err.to_string().contains("platform `oke` is not in platforms.yaml"), "{err}");
    }

    #[test]
    fn a_new_platform_is_a_data_change() {
        let platforms = PLATFORMS_YAML.replace("default: generic", "- name: oke\n  description: Oracle.\ndefault: generic");
        let platforms = platforms.replacen("- name: oke\n  description: Oracle.\n", "", 1);
        let platforms = platforms.replace("platforms:\n", "platforms:\n- name: oke\n  description: Oracle Kubernetes Engine.\n");
        let gpu = GPU_YAML.replace("- name: generic\n  selectMachineType: false", "- name: generic\n  selectMachineType: false\n- name: oke\n  machineTypeLabel: node.kubernetes.io/instance-type\n  selectMachineType: true").replace(
            "  platforms:\n    gke:\n      modelLabel: nvidia-h100-80gb",
            "  platforms:\n    oke:\n      machineTypes: [{name: BM.GPU.H100.8, gpus: 8}]\n    gke:\n      modelLabel: nvidia-h100-80gb",
        );
        let d = Data::parse(&platforms, TPU_YAML, &gpu, FABRICS_YAML, CPU_YAML, SDK_YAML).unwrap();
        let h100 = d.gpu.model("h100-80gb").unwrap();
        assert_eq!(h100.platforms()[0], "oke");
        let shape = d.gpu.place(h100, None, "oke", None).unwrap();
        assert_eq!(shape.machine_type.as_deref(), Some("BM.GPU.H100.8"));
    }

    #[test]
    fn names_are_unique_and_machine_types_exist() {
        let d = data();
        let mut seen = BTreeSet::new();
        for g in &d.tpu.generations {
            for n in std::iter::once(&g.name).chain(&g.aliases) {
                assert!(seen.insert(n.clone()), "TPU name or alias `{n}` used twice");
            }
            for t in &g.topologies {
                let dims = parse_topology(&t.topology).unwrap_or_else(|| panic!("bad topology {}", t.topology));
                assert_eq!(dims.len(), g.dimensions, "{} {}", g.name, t.topology);
                let chips: u32 = dims.iter().product();
                for m in &t.machine_types {
                    let mt =
                        g.machine_types.iter().find(|x| &x.name == m).unwrap_or_else(|| panic!("{}: unknown machine type {m}", g.name));
                    assert_eq!(chips % mt.chips_per_host, 0, "{} {} on {m}: chips not a multiple of chips per host", g.name, t.topology);
                }
            }
        }
        let mut models = BTreeSet::new();
        let mut image_keys = BTreeSet::new();
        for v in &d.gpu.vendors {
            assert!(image_keys.insert(v.image_key.clone()), "image key {} twice", v.image_key);
            assert!(!["cpu", "tpu"].contains(&v.image_key.as_str()), "image key {} is taken by another accelerator kind", v.image_key);
        }
        for m in &d.gpu.models {
            assert!(models.insert(m.name.clone()), "GPU model {} twice", m.name);
            assert!(d.gpu.vendor(&m.vendor).is_ok(), "{}: vendor {}", m.name, m.vendor);
            assert!(!m.platforms().is_empty(), "{} on no platform", m.name);
            for p in m.platforms() {
                assert!(m.on(p).unwrap().max_gpus() > 0, "{} on {p}: no GPU count", m.name);
                assert!(d.gpu.platform(p).is_some(), "{} on {p}: the platform has no GPU labels in gpu.yaml", m.name);
            }
        }
    }
}
