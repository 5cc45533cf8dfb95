//! Accelerator knowledge, loaded once from the YAML tables in `catalog/accelerators/`
//! (embedded in the binary): TPU generations with their topologies and machine shapes, GPU
//! models with their labels and machine shapes per platform. Resolve and validate both ask
//! this module; neither keeps a copy of the data.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use k8s_openapi::api::core::v1::{EnvVar, Toleration};
use serde::{Deserialize, Serialize};

use crate::catalog::Platform;

const TPU_YAML: &str = include_str!("../catalog/accelerators/tpu.yaml");
const GPU_YAML: &str = include_str!("../catalog/accelerators/gpu.yaml");
const CPU_YAML: &str = include_str!("../catalog/accelerators/cpu.yaml");

/// Every table, parsed.
#[derive(Debug, Clone, Serialize)]
pub struct Data {
    pub tpu: TpuData,
    pub gpu: GpuData,
    pub cpu: CpuData,
}

/// The embedded tables. Panics only if the embedded data is malformed, which a unit test rules out.
pub fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| Data::parse(TPU_YAML, GPU_YAML, CPU_YAML).expect("embedded accelerator data is valid"))
}

impl Data {
    pub fn parse(tpu: &str, gpu: &str, cpu: &str) -> Result<Data, String> {
        let tpu: TpuData = serde_saphyr::from_str(tpu).map_err(|e| format!("catalog/accelerators/tpu.yaml: {e}"))?;
        let gpu: GpuData = serde_saphyr::from_str(gpu).map_err(|e| format!("catalog/accelerators/gpu.yaml: {e}"))?;
        let cpu: CpuData = serde_saphyr::from_str(cpu).map_err(|e| format!("catalog/accelerators/cpu.yaml: {e}"))?;
        Ok(Data { tpu, gpu, cpu })
    }
}

// ---------------------------------------------------------------------------------------------
// CPU

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CpuData {
    pub default_image: String,
    #[serde(default)]
    pub env: Vec<EnvVar>,
}

// ---------------------------------------------------------------------------------------------
// TPU

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TpuData {
    /// Extended resource name, `google.com/tpu`.
    pub resource: String,
    /// Node label key holding the generation's accelerator value.
    pub accelerator_label: String,
    /// Node label key holding the slice topology.
    pub topology_label: String,
    pub tolerations: Vec<Toleration>,
    /// Annotations on the JobSet template of multi-host slices.
    pub multi_host_annotations: BTreeMap<String, String>,
    pub env: Vec<EnvVar>,
    pub default_image: String,
    pub generations: Vec<TpuGeneration>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TpuGeneration {
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Value of the accelerator node label, e.g. `tpu-v5-lite-podslice`.
    pub accelerator_label: String,
    /// Prefix of Cloud TPU accelerator type names, e.g. `v5litepod` in `v5litepod-16`.
    pub accelerator_type_prefix: String,
    /// 2 where accelerator type names count TensorCores (v4, v5p, tpu7x), 1 where they count chips.
    pub tensor_cores_per_chip: u32,
    /// 2 (`AxB`) or 3 (`AxBxC`).
    pub dimensions: usize,
    pub machine_types: Vec<TpuMachineType>,
    /// Topologies listed one by one, with the machine types that can form them.
    pub topologies: Vec<TpuTopologyEntry>,
    /// The rule for large 3D slices built from 4x4x4 cubes.
    #[serde(default)]
    pub large_topologies: Option<LargeTopologyRule>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TpuMachineType {
    pub name: String,
    pub chips_per_host: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TpuTopologyEntry {
    pub topology: String,
    pub machine_types: Vec<String>,
}

/// `AxBxC` where every dimension is a multiple of `multiple_of` and the slice holds at most
/// `max_cubes` cubes of 4x4x4 chips; `any_order` false requires A <= B <= C.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LargeTopologyRule {
    pub multiple_of: u32,
    pub max_cubes: u32,
    pub any_order: bool,
    pub machine_type: String,
}

/// One valid slice shape: a topology formed by one machine type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TpuShape {
    pub generation: String,
    pub accelerator_label: String,
    pub topology: String,
    pub chips: u32,
    pub chips_per_host: u32,
    pub hosts: u32,
    pub machine_type: String,
    /// Cloud TPU accelerator type name, e.g. `v5litepod-16`, `v5p-8`.
    pub accelerator_type: String,
}

impl TpuShape {
    pub fn multi_host(&self) -> bool {
        self.hosts > 1
    }
}

/// Parses `2x4` / `4x4x8` into dimensions.
pub fn parse_topology(topology: &str) -> Option<Vec<u32>> {
    let dims: Option<Vec<u32>> = topology.split('x').map(|d| d.parse::<u32>().ok().filter(|n| *n > 0)).collect();
    dims.filter(|d| (2..=3).contains(&d.len()))
}

fn format_topology(dims: &[u32]) -> String {
    dims.iter().map(u32::to_string).collect::<Vec<_>>().join("x")
}

impl TpuData {
    /// Finds a generation by name or alias, case-insensitively.
    pub fn generation(&self, name: &str) -> Result<&TpuGeneration, String> {
        let wanted = name.trim().to_ascii_lowercase();
        self.generations.iter().find(|g| g.name == wanted || g.aliases.contains(&wanted) || g.accelerator_label == wanted).ok_or_else(
            || {
                format!(
                    "unknown TPU type `{name}`; expected one of {}",
                    self.generations.iter().map(|g| format!("`{}`", g.name)).collect::<Vec<_>>().join(", ")
                )
            },
        )
    }

    /// Finds the generation whose accelerator node label value is `label`.
    pub fn by_accelerator_label(&self, label: &str) -> Option<&TpuGeneration> {
        self.generations.iter().find(|g| g.accelerator_label == label)
    }

    /// Splits an accelerator type such as `v5litepod-16` into its generation and chip count.
    pub fn accelerator_type(&self, name: &str) -> Result<(&TpuGeneration, u32), String> {
        let bad = || {
            format!(
                "unknown TPU accelerator type `{name}`; expected <prefix>-<cores>, prefixes: {}",
                self.generations.iter().map(|g| format!("`{}`", g.accelerator_type_prefix)).collect::<Vec<_>>().join(", ")
            )
        };
        let (prefix, count) = name.rsplit_once('-').ok_or_else(bad)?;
        let count: u32 = count.parse().map_err(|_| bad())?;
        let generation = self.generations.iter().find(|g| g.accelerator_type_prefix == prefix || g.name == prefix).ok_or_else(bad)?;
        if count == 0 || !count.is_multiple_of(generation.tensor_cores_per_chip) {
            return Err(format!(
                "`{name}`: {} accelerator types count TensorCores ({} per chip), so the number must be a multiple of {}",
                generation.name, generation.tensor_cores_per_chip, generation.tensor_cores_per_chip
            ));
        }
        Ok((generation, count / generation.tensor_cores_per_chip))
    }
}

impl TpuGeneration {
    fn machine_type(&self, name: &str) -> Option<&TpuMachineType> {
        self.machine_types.iter().find(|m| m.name == name)
    }

    fn shape(&self, topology: &str, dims: &[u32], machine_type: &TpuMachineType) -> TpuShape {
        let chips: u32 = dims.iter().product();
        TpuShape {
            generation: self.name.clone(),
            accelerator_label: self.accelerator_label.clone(),
            topology: topology.to_string(),
            chips,
            chips_per_host: machine_type.chips_per_host,
            hosts: chips / machine_type.chips_per_host,
            machine_type: machine_type.name.clone(),
            accelerator_type: format!("{}-{}", self.accelerator_type_prefix, chips * self.tensor_cores_per_chip),
        }
    }

    /// Does the large-topology rule accept these dimensions?
    fn large_rule_accepts(&self, dims: &[u32]) -> bool {
        let Some(rule) = &self.large_topologies else { return false };
        if dims.len() != 3 || dims.iter().any(|d| *d == 0 || !d.is_multiple_of(rule.multiple_of)) {
            return false;
        }
        if !rule.any_order && (dims[0] > dims[1] || dims[1] > dims[2]) {
            return false;
        }
        let cubes: u64 = dims.iter().map(|d| u64::from(d / 4)).product();
        cubes <= u64::from(rule.max_cubes)
    }

    /// Every shape a topology can have in this generation (one per machine type that fits).
    pub fn shapes_for(&self, topology: &str) -> Vec<TpuShape> {
        let Some(dims) = parse_topology(topology) else { return vec![] };
        if dims.len() != self.dimensions {
            return vec![];
        }
        let canonical = format_topology(&dims);
        if let Some(entry) = self.topologies.iter().find(|t| t.topology == canonical) {
            return entry.machine_types.iter().filter_map(|m| self.machine_type(m)).map(|m| self.shape(&canonical, &dims, m)).collect();
        }
        if self.large_rule_accepts(&dims) {
            let rule = self.large_topologies.as_ref().expect("checked");
            if let Some(m) = self.machine_type(&rule.machine_type) {
                return vec![self.shape(&canonical, &dims, m)];
            }
        }
        vec![]
    }

    /// Every valid shape, listed topologies first, then the large ones in increasing size.
    pub fn all_shapes(&self) -> Vec<TpuShape> {
        let mut out: Vec<TpuShape> = self.topologies.iter().flat_map(|t| self.shapes_for(&t.topology)).collect();
        if let Some(rule) = &self.large_topologies {
            let step = rule.multiple_of;
            let max_dim = step * rule.max_cubes; // no dimension can exceed this
            let mut large = Vec::new();
            let mut a = step;
            while a <= max_dim {
                let mut b = step;
                while b <= max_dim {
                    let mut c = step;
                    while c <= max_dim {
                        let dims = [a, b, c];
                        let cubes: u64 = dims.iter().map(|d| u64::from(d / 4)).product();
                        if cubes > u64::from(rule.max_cubes) {
                            break;
                        }
                        let t = format_topology(&dims);
                        if self.large_rule_accepts(&dims) && !self.topologies.iter().any(|e| e.topology == t) {
                            large.push(dims);
                        }
                        c += step;
                    }
                    b += step;
                }
                a += step;
            }
            large.sort_by_key(|d| (d.iter().product::<u32>(), *d));
            for dims in large {
                out.extend(self.shapes_for(&format_topology(&dims)));
            }
        }
        out
    }

    /// The topology an accelerator type name stands for: the listed topology with that chip
    /// count, else the most cube-like valid topology (smallest surface, then dimensions in
    /// non-decreasing order). Cloud TPU calls this the default topology of a chip count; the rule
    /// reproduces xpk's `default_topologies` lists for v4, v5p and tpu7x.
    pub fn default_topology(&self, chips: u32) -> Option<String> {
        if let Some(t) = self.topologies.iter().find(|t| parse_topology(&t.topology).map(|d| d.iter().product::<u32>()) == Some(chips)) {
            return Some(t.topology.clone());
        }
        self.all_shapes()
            .into_iter()
            .filter(|s| s.chips == chips)
            .filter_map(|s| parse_topology(&s.topology).map(|d| (surface(&d), d, s.topology)))
            .min_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)))
            .map(|(_, _, t)| t)
    }

    /// Valid topologies closest to `wanted`, at most `n`, best first: the same chips in another
    /// order (`4x2` -> `2x4`, `8x4x4` -> `4x4x8` where order matters), then the nearest chip
    /// counts (a smaller and a larger slice), then the nearest shape. Distinct topologies only.
    pub fn nearest_topologies(&self, wanted: &str, n: usize) -> Vec<String> {
        let wanted_dims = parse_topology(wanted);
        let wanted_chips = wanted_dims.as_ref().map(|d| d.iter().map(|x| f64::from(*x)).product::<f64>()).unwrap_or(16.0).max(1.0);
        let mut sorted_wanted = wanted_dims.clone().unwrap_or_default();
        sorted_wanted.sort_unstable();
        let mut topologies: Vec<String> = Vec::new();
        for s in self.all_shapes() {
            if !topologies.contains(&s.topology) {
                topologies.push(s.topology);
            }
        }
        let score = |t: &String| {
            let d = parse_topology(t).unwrap_or_default();
            let mut sorted = d.clone();
            sorted.sort_unstable();
            let same_dims = wanted_dims.as_ref().is_some_and(|w| w.len() == d.len());
            let permutation = same_dims && sorted == sorted_wanted;
            let chips: f64 = d.iter().map(|x| f64::from(*x)).product();
            let size = ((chips.ln() - wanted_chips.ln()).abs() * 1000.0).round() as u64;
            let shape: u32 = match &wanted_dims {
                Some(w) if same_dims => w.iter().zip(&d).map(|(a, b)| a.abs_diff(*b)).sum(),
                _ => u32::MAX,
            };
            (!permutation, size, shape, surface(&d))
        };
        topologies.sort_by_cached_key(|t| (score(t), t.clone()));
        topologies.truncate(n);
        topologies
    }

    /// `nearest_topologies` with what each one is, e.g. `4x4x8 (v5p-256, 32 hosts)`.
    pub fn nearest_shapes_described(&self, wanted: &str, n: usize) -> Vec<String> {
        self.nearest_topologies(wanted, n)
            .into_iter()
            .map(|t| {
                let shapes = self.shapes_for(&t);
                let hosts: Vec<String> =
                    shapes.iter().map(|s| format!("{} host{}", s.hosts, if s.hosts == 1 { "" } else { "s" })).collect();
                match shapes.first() {
                    Some(s) => format!("{t} ({}, {})", s.accelerator_type, hosts.join(" or ")),
                    None => t,
                }
            })
            .collect()
    }
}

/// Surface of a slice (sum of the pairwise products of its dimensions): smallest for the most
/// cube-like shape of a given chip count.
fn surface(d: &[u32]) -> u64 {
    let d: Vec<u64> = d.iter().map(|x| u64::from(*x)).collect();
    match d.as_slice() {
        [a, b] => a * b,
        [a, b, c] => a * b + b * c + a * c,
        _ => u64::MAX,
    }
}

// ---------------------------------------------------------------------------------------------
// GPU

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
    /// Extended resource name, e.g. `nvidia.com/gpu`.
    pub resource: String,
    pub tolerations: Vec<Toleration>,
    pub default_image: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuPlatform {
    pub name: Platform,
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
    #[serde(default)]
    pub gke: Option<GpuOnPlatform>,
    #[serde(default)]
    pub eks: Option<GpuOnPlatform>,
    #[serde(default)]
    pub aks: Option<GpuOnPlatform>,
    #[serde(default)]
    pub generic: Option<GpuOnPlatform>,
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
    pub fn on(&self, platform: Platform) -> Option<&GpuOnPlatform> {
        match platform {
            Platform::Gke => self.gke.as_ref(),
            Platform::Eks => self.eks.as_ref(),
            Platform::Aks => self.aks.as_ref(),
            Platform::Generic => self.generic.as_ref(),
        }
    }

    pub fn platforms(&self) -> Vec<Platform> {
        Platform::ALL.into_iter().filter(|p| self.on(*p).is_some()).collect()
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
    pub fn vendor(&self, name: &str) -> Result<&GpuVendor, String> {
        self.vendors.iter().find(|v| v.name == name).ok_or_else(|| {
            format!(
                "unknown GPU vendor `{name}`; expected one of {}",
                self.vendors.iter().map(|v| format!("`{}`", v.name)).collect::<Vec<_>>().join(", ")
            )
        })
    }

    pub fn platform(&self, platform: Platform) -> Option<&GpuPlatform> {
        self.platforms.iter().find(|p| p.name == platform)
    }

    /// Finds a model by name (case-insensitive, `_` and `-` alike).
    pub fn model(&self, name: &str) -> Result<&GpuModel, String> {
        let norm = |s: &str| s.trim().to_ascii_lowercase().replace('_', "-");
        let wanted = norm(name);
        self.models.iter().find(|m| norm(&m.name) == wanted).ok_or_else(|| {
            format!(
                "unknown GPU model `{name}`; expected one of {}",
                self.models.iter().map(|m| format!("`{}`", m.name)).collect::<Vec<_>>().join(", ")
            )
        })
    }

    /// Resource name -> vendor, e.g. `nvidia.com/gpu` -> nvidia.
    pub fn vendor_by_resource(&self, resource: &str) -> Option<&GpuVendor> {
        self.vendors.iter().find(|v| v.resource == resource)
    }

    /// Resolves model x count x platform (x pinned machine type) to a placement.
    pub fn place(
        &self,
        model: &GpuModel,
        count: Option<u32>,
        platform: Platform,
        machine_type: Option<&str>,
    ) -> Result<GpuShape, GpuError> {
        let vendor = self.vendor(&model.vendor).map_err(GpuError::Data)?;
        let on = model.on(platform).ok_or_else(|| GpuError::NotOnPlatform {
            model: model.name.clone(),
            platform,
            available: model.platforms(),
        })?;
        let plat = self.platform(platform).ok_or_else(|| GpuError::Data(format!("no GPU platform entry for `{platform}`")))?;
        let max = on.max_gpus();
        let pinned = match machine_type {
            Some(name) => Some(on.machine_types.iter().find(|m| m.name == name).ok_or_else(|| GpuError::UnknownMachineType {
                name: name.to_string(),
                model: model.name.clone(),
                platform,
                known: on.machine_types.iter().map(|m| format!("{} ({} GPUs)", m.name, m.gpus)).collect(),
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
                platform,
                shapes: on.machine_types.iter().map(|m| format!("{} ({} GPUs)", m.name, m.gpus)).collect(),
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
    NotOnPlatform { model: String, platform: Platform, available: Vec<Platform> },
    #[error("machine type `{name}` does not have `{model}` GPUs on `{platform}`; expected one of: {}", .known.join(", "))]
    UnknownMachineType { name: String, model: String, platform: Platform, known: Vec<String> },
    #[error("{count} GPUs per node is more than any `{model}` machine on `{platform}` has (at most {limit}; shapes: {})", if .shapes.is_empty() { "none listed".to_string() } else { .shapes.join(", ") })]
    TooMany { count: u32, limit: u32, model: String, platform: Platform, shapes: Vec<String> },
    #[error("a GPU count of 0 requests no GPU; use `accelerator: {{cpu: {{}}}}` for a CPU runtime")]
    Zero,
    #[error("{0}")]
    Data(String),
}

fn join(p: &[Platform]) -> String {
    if p.is_empty() {
        return "no platform".into();
    }
    p.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
}

// ---------------------------------------------------------------------------------------------
// The `accelerators` listing

/// One row of `jax-runtimes accelerators`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    pub kind: String,
    /// TPU generation or GPU model.
    pub name: String,
    pub platform: String,
    /// TPU topology, or empty for GPUs.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub topology: String,
    /// Cloud TPU accelerator type, or empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub accelerator_type: String,
    pub machine_type: String,
    /// Hosts per slice (TPU); 1 for GPU machine shapes.
    pub hosts: u32,
    /// Accelerators per host (the extended resource count of one pod).
    pub per_host: u32,
    pub resource: String,
    pub node_selector: BTreeMap<String, String>,
}

/// Every known shape, filtered.
pub fn table(kind: Option<&str>, name: Option<&str>, platform: Option<Platform>) -> Result<Vec<Row>, String> {
    let d = data();
    let mut rows = Vec::new();
    if kind.is_none_or(|k| k == "tpu") && platform.is_none_or(|p| p == Platform::Gke) {
        let gens: Vec<&TpuGeneration> = match name {
            Some(n) if kind == Some("tpu") => vec![d.tpu.generation(n)?],
            Some(n) => d.tpu.generation(n).map(|g| vec![g]).unwrap_or_default(),
            None => d.tpu.generations.iter().collect(),
        };
        for g in gens {
            for s in g.all_shapes() {
                rows.push(Row {
                    kind: "tpu".into(),
                    name: g.name.clone(),
                    platform: "gke".into(),
                    topology: s.topology.clone(),
                    accelerator_type: s.accelerator_type.clone(),
                    machine_type: s.machine_type.clone(),
                    hosts: s.hosts,
                    per_host: s.chips_per_host,
                    resource: d.tpu.resource.clone(),
                    node_selector: BTreeMap::from([
                        (d.tpu.accelerator_label.clone(), g.accelerator_label.clone()),
                        (d.tpu.topology_label.clone(), s.topology.clone()),
                    ]),
                });
            }
        }
    }
    if kind.is_none_or(|k| k == "gpu") {
        let models: Vec<&GpuModel> = match name {
            Some(n) if kind == Some("gpu") => vec![d.gpu.model(n)?],
            Some(n) => d.gpu.model(n).map(|m| vec![m]).unwrap_or_default(),
            None => d.gpu.models.iter().collect(),
        };
        for m in models {
            for p in m.platforms() {
                if platform.is_some_and(|want| want != p) {
                    continue;
                }
                let on = m.on(p).expect("listed platform");
                let shapes: Vec<(Option<String>, u32)> = if on.machine_types.is_empty() {
                    vec![(None, on.max_gpus())]
                } else {
                    on.machine_types.iter().map(|mt| (Some(mt.name.clone()), mt.gpus)).collect()
                };
                for (mt, gpus) in shapes {
                    let placed = d.gpu.place(m, Some(gpus), p, mt.as_deref()).map_err(|e| e.to_string())?;
                    rows.push(Row {
                        kind: "gpu".into(),
                        name: m.name.clone(),
                        platform: p.to_string(),
                        topology: String::new(),
                        accelerator_type: String::new(),
                        machine_type: mt.unwrap_or_else(|| "-".into()),
                        hosts: 1,
                        per_host: gpus,
                        resource: placed.resource,
                        node_selector: placed.node_selector,
                    });
                }
            }
        }
    }
    if kind == Some("cpu") {
        rows.push(Row {
            kind: "cpu".into(),
            name: "cpu".into(),
            platform: "any".into(),
            topology: String::new(),
            accelerator_type: String::new(),
            machine_type: "-".into(),
            hosts: 1,
            per_host: 0,
            resource: "cpu".into(),
            node_selector: BTreeMap::new(),
        });
    }
    if rows.is_empty() {
        return Err("no accelerator shape matches these filters".into());
    }
    Ok(rows)
}

/// Rows as an aligned text table.
pub fn format_table(rows: &[Row]) -> String {
    let header = ["KIND", "NAME", "PLATFORM", "TOPOLOGY", "TYPE", "MACHINE", "HOSTS", "PER-HOST", "RESOURCE", "NODE SELECTOR"];
    let cells: Vec<[String; 10]> = rows
        .iter()
        .map(|r| {
            [
                r.kind.clone(),
                r.name.clone(),
                r.platform.clone(),
                if r.topology.is_empty() { "-".into() } else { r.topology.clone() },
                if r.accelerator_type.is_empty() { "-".into() } else { r.accelerator_type.clone() },
                r.machine_type.clone(),
                r.hosts.to_string(),
                r.per_host.to_string(),
                r.resource.clone(),
                r.node_selector.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for c in &cells {
        for (i, s) in c.iter().enumerate() {
            widths[i] = widths[i].max(s.len());
        }
    }
    let mut out = String::new();
    let mut line = |cols: Vec<&str>| {
        let l: Vec<String> = cols
            .iter()
            .enumerate()
            .map(|(i, s)| if i + 1 == cols.len() { s.to_string() } else { format!("{:w$}", s, w = widths[i]) })
            .collect();
        out.push_str(l.join("  ").trim_end());
        out.push('\n');
    };
    line(header.to_vec());
    for c in &cells {
        line(c.iter().map(String::as_str).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn embedded_data_parses() {
        let d = data();
        assert!(d.tpu.generations.len() >= 5);
        assert!(d.gpu.models.len() >= 9);
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
                    let mt = g.machine_type(m).unwrap_or_else(|| panic!("{}: unknown machine type {m}", g.name));
                    assert_eq!(chips % mt.chips_per_host, 0, "{} {} on {m}: chips not a multiple of chips per host", g.name, t.topology);
                }
            }
        }
        let mut models = BTreeSet::new();
        for m in &d.gpu.models {
            assert!(models.insert(m.name.clone()), "GPU model {} twice", m.name);
            assert!(d.gpu.vendor(&m.vendor).is_ok(), "{}: vendor {}", m.name, m.vendor);
            assert!(!m.platforms().is_empty(), "{} on no platform", m.name);
            for p in m.platforms() {
                assert!(m.on(p).unwrap().max_gpus() > 0, "{} on {p}: no GPU count", m.name);
            }
        }
    }

    #[test]
    fn accelerator_type_names_count_cores_or_chips() {
        let t = &data().tpu;
        let (g, chips) = t.accelerator_type("v5p-8").unwrap();
        assert_eq!((g.name.as_str(), chips), ("v5p", 4));
        assert_eq!(g.default_topology(chips).as_deref(), Some("2x2x1"));
        let (g, chips) = t.accelerator_type("v5litepod-16").unwrap();
        assert_eq!((g.name.as_str(), chips), ("v5e", 16));
        assert_eq!(g.default_topology(chips).as_deref(), Some("4x4"));
        assert!(t.accelerator_type("v5p-7").is_err());
        assert!(t.accelerator_type("v9-8").is_err());
    }

    #[test]
    fn two_by_four_fits_two_machine_shapes_on_v5e_and_v6e() {
        for name in ["v5e", "v6e"] {
            let shapes = data().tpu.generation(name).unwrap().shapes_for("2x4");
            let per_host: Vec<(u32, u32)> = shapes.iter().map(|s| (s.chips_per_host, s.hosts)).collect();
            assert_eq!(per_host, vec![(4, 2), (8, 1)], "{name}");
        }
    }

    #[test]
    fn large_3d_rule_respects_order_and_cube_budget() {
        let t = &data().tpu;
        let v4 = t.generation("v4").unwrap();
        let v5p = t.generation("v5p").unwrap();
        assert_eq!(v4.shapes_for("8x4x4").len(), 1, "v4 accepts any order");
        assert!(v5p.shapes_for("8x4x4").is_empty(), "v5p needs non-decreasing dims");
        assert_eq!(v5p.shapes_for("4x4x8")[0].hosts, 32);
        assert!(v4.shapes_for("16x16x32").is_empty(), "v4 is limited to 64 cubes");
        assert!(v5p.shapes_for("4x4x6").is_empty(), "dims must be multiples of 4");
    }

    #[test]
    fn default_topology_is_the_most_cube_like() {
        let t = &data().tpu;
        let cases = [("v5p-2048", "8x8x16"), ("v5p-512", "4x8x8"), ("v4-4096", "8x16x16"), ("tpu7x-128", "4x4x4"), ("tpu7x-384", "4x4x12")];
        for (name, want) in cases {
            let (g, chips) = t.accelerator_type(name).unwrap();
            assert_eq!(g.default_topology(chips).as_deref(), Some(want), "{name}");
        }
    }

    #[test]
    fn nearest_topologies_put_the_reordered_shape_first() {
        let t = &data().tpu;
        assert_eq!(t.generation("v5p").unwrap().nearest_topologies("8x4x4", 3)[0], "4x4x8");
        assert_eq!(t.generation("v5e").unwrap().nearest_topologies("4x2", 3)[0], "2x4");
        let near = t.generation("v6e").unwrap().nearest_topologies("4x6", 3);
        assert!(near.contains(&"4x4".to_string()) && near.contains(&"4x8".to_string()), "{near:?}");
    }

    #[test]
    fn gpu_count_above_machine_shape_is_refused() {
        let g = &data().gpu;
        let h100 = g.model("h100-80gb").unwrap();
        let err = g.place(h100, Some(16), Platform::Gke, None).unwrap_err();
        assert!(matches!(err, GpuError::TooMany { limit: 8, .. }), "{err}");
        let ok = g.place(h100, Some(8), Platform::Eks, None).unwrap();
        assert_eq!(ok.node_selector.get("node.kubernetes.io/instance-type").map(String::as_str), Some("p5.48xlarge"));
    }
}
