//! Cloud TPU knowledge (`catalog/accelerators/tpu.yaml`): generations, their topologies and
//! machine shapes, accelerator type names, and the slice arithmetic (hosts = chips / chips per host).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{EnvVar, Toleration};
use serde::{Deserialize, Serialize};

use super::error::AcceleratorError;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TpuData {
    /// Platforms that schedule TPU slices (`platforms.yaml` names); the first is the default.
    pub platforms: Vec<String>,
    /// Extended resource name, `google.com/tpu`.
    pub resource: String,
    /// Node label key holding the generation's accelerator value.
    pub accelerator_label: String,
    /// Node label key holding the slice topology.
    pub topology_label: String,
    /// Node label key holding the node's machine type, pinned where a topology has several.
    pub machine_type_label: String,
    pub tolerations: Vec<Toleration>,
    /// Annotations on the JobSet template of multi-host slices.
    pub multi_host_annotations: BTreeMap<String, String>,
    pub env: Vec<EnvVar>,
    /// The env GKE's TPU webhook injects into multi-host TPU pods.
    pub webhook: TpuWebhook,
    /// Slices formed at admission from the partitions of provisioned node pools.
    pub dynamic_slicing: DynamicSlicing,
    /// From `images.yaml` (key `tpu`).
    #[serde(default, skip_deserializing)]
    pub default_image: String,
    pub generations: Vec<TpuGeneration>,
}

/// What GKE's TPU webhook injects: the variables' names.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TpuWebhook {
    pub worker_id: String,
    pub worker_hostnames: String,
}

impl TpuWebhook {
    /// Both names.
    pub fn env(&self) -> [&str; 2] {
        [&self.worker_id, &self.worker_hostnames]
    }
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
/// `max_cubes` cubes of `cube`x`cube`x`cube` chips; `any_order` false requires A <= B <= C.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LargeTopologyRule {
    /// Edge of the cube large slices are built from (4: a 4x4x4 cube of 64 chips).
    pub cube: u32,
    pub multiple_of: u32,
    pub max_cubes: u32,
    pub any_order: bool,
    pub machine_type: String,
}

/// Dynamic slicing (`dynamicSlicing` in `tpu.yaml`): the labels, annotation and Kueue pieces of
/// slices formed at admission, and per generation which slices can be formed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DynamicSlicing {
    /// Pod template annotation holding the slice topology.
    pub slice_topology_annotation: String,
    /// JobSet exclusive-topology value for slices formed by the slice controller.
    pub exclusive_topology: String,
    /// Node label of the block a slice stays in (first level of the Kueue Topology).
    pub block_label: String,
    /// `controllerName` of the AdmissionCheck that forms the slices.
    pub admission_check_controller: String,
    /// The name `jax-runtimes` gives that AdmissionCheck.
    pub admission_check_name: String,
    /// Every value a partition state label can have.
    pub states: Vec<String>,
    /// The states a slice can be formed from.
    pub usable_states: Vec<String>,
    /// The state a rendered runtime selects.
    pub select_state: String,
    pub generations: Vec<DynamicGeneration>,
}

/// One generation's dynamic slices.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DynamicGeneration {
    pub generation: String,
    /// Formed by GKE's slice controller (an AdmissionCheck), not by Kueue TAS alone.
    pub controller: bool,
    /// The machine type of the node pools slices are formed from.
    pub machine_type: String,
    /// Node label of a partition of a topology, `{topology}` standing for it.
    pub partition_label: String,
    /// Node label of a partition's state, `{topology}` standing for it.
    #[serde(default)]
    pub state_label: Option<String>,
    #[serde(default)]
    pub super_slice: Option<SuperSliceRule>,
    pub sub_slices: SubSliceRule,
}

/// Superslices: several partitions of this topology (the large-topology rule of the generation
/// says which shapes).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SuperSliceRule {
    pub partition: String,
    pub min_gke: String,
}

/// Subslices: one partition of one of these topologies.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SubSliceRule {
    pub topologies: Vec<String>,
    #[serde(default)]
    pub min_gke: Option<String>,
    /// Carved from a larger node pool whose topology the pod selects (v6e).
    #[serde(default)]
    pub of_pool: bool,
}

/// Super- or subslice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SliceKind {
    Super,
    Sub,
}

impl std::fmt::Display for SliceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SliceKind::Super => "superslice",
            SliceKind::Sub => "subslice",
        })
    }
}

/// How a dynamic slice is formed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DynamicSlice {
    pub kind: SliceKind,
    /// Formed by the slice controller (AdmissionCheck), else by Kueue TAS alone.
    pub controller: bool,
    /// The node pool's topology a subslice is carved from (v6e).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// The node label whose domains are the slice's partitions.
    pub partition_label: String,
    /// The partition state label, where partitions have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_label: Option<String>,
    pub partitions: u32,
    pub pods_per_partition: u32,
    /// The oldest GKE version that forms this kind of slice, where one is published.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_gke: Option<String>,
}

/// One valid slice shape: a topology formed by one machine type.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// Set for a slice formed at admission (`slicing: dynamic`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dynamic: Option<DynamicSlice>,
    /// The DRA fabric of the slice's machine type (`interconnect: dra`), set by resolve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fabric: Option<super::fabric::FabricPatch>,
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
    pub fn generation(&self, name: &str) -> Result<&TpuGeneration, AcceleratorError> {
        let wanted = name.trim().to_ascii_lowercase();
        self.generations.iter().find(|g| g.name == wanted || g.aliases.contains(&wanted) || g.accelerator_label == wanted).ok_or_else(
            || AcceleratorError::UnknownTpu { name: name.to_string(), known: self.generations.iter().map(|g| g.name.clone()).collect() },
        )
    }

    /// Finds the generation whose accelerator node label value is `label`.
    pub fn by_accelerator_label(&self, label: &str) -> Option<&TpuGeneration> {
        self.generations.iter().find(|g| g.accelerator_label == label)
    }

    /// Splits an accelerator type such as `v5litepod-16` into its generation and chip count.
    pub fn accelerator_type(&self, name: &str) -> Result<(&TpuGeneration, u32), AcceleratorError> {
        let bad = || AcceleratorError::UnknownTpuAcceleratorType {
            name: name.to_string(),
            prefixes: self.generations.iter().map(|g| g.accelerator_type_prefix.clone()).collect(),
        };
        let (prefix, count) = name.rsplit_once('-').ok_or_else(bad)?;
        let count: u32 = count.parse().map_err(|_| bad())?;
        let generation = self.generations.iter().find(|g| g.accelerator_type_prefix == prefix || g.name == prefix).ok_or_else(bad)?;
        if count == 0 || !count.is_multiple_of(generation.tensor_cores_per_chip) {
            return Err(AcceleratorError::TensorCores {
                name: name.to_string(),
                generation: generation.name.clone(),
                per_chip: generation.tensor_cores_per_chip,
            });
        }
        Ok((generation, count / generation.tensor_cores_per_chip))
    }
}

impl DynamicSlicing {
    /// The dynamic slicing data of a generation (by its name).
    pub fn generation(&self, name: &str) -> Option<&DynamicGeneration> {
        self.generations.iter().find(|g| g.generation == name)
    }

    /// The generation whose partition label (or slice level label) this node label key is, and
    /// the topology in it, e.g. `cloud.google.com/gke-tpu-partition-4x4x4-id` -> (tpu7x, 4x4x4).
    pub fn partition_label_topology(&self, key: &str) -> Option<(&DynamicGeneration, String)> {
        self.generations.iter().find_map(|g| template_match(&g.partition_label, key).map(|t| (g, t)))
    }

    /// As [`Self::partition_label_topology`], for a partition state label.
    pub fn state_label_topology(&self, key: &str) -> Option<(&DynamicGeneration, String)> {
        self.generations.iter().find_map(|g| g.state_label.as_deref().and_then(|l| template_match(l, key)).map(|t| (g, t)))
    }
}

/// The `{topology}` of `template` that makes it `key`, if it is a topology.
fn template_match(template: &str, key: &str) -> Option<String> {
    let (before, after) = template.split_once("{topology}")?;
    let t = key.strip_prefix(before)?.strip_suffix(after)?;
    parse_topology(t).map(|d| format_topology(&d))
}

impl DynamicGeneration {
    /// The partition label of a topology.
    pub fn partition_label_of(&self, topology: &str) -> String {
        self.partition_label.replace("{topology}", topology)
    }

    /// The state label of a topology, where partitions have one.
    pub fn state_label_of(&self, topology: &str) -> Option<String> {
        self.state_label.as_ref().map(|l| l.replace("{topology}", topology))
    }

    /// Every topology a subslice of this generation can have inside a pool of `pool` (every
    /// listed one without a pool), largest first: the slice levels of a Kueue Topology.
    pub fn sub_slices_within(&self, pool: Option<&str>) -> Vec<String> {
        let pool_dims = pool.and_then(parse_topology);
        let mut out: Vec<(u32, String)> = self
            .sub_slices
            .topologies
            .iter()
            .filter_map(|t| parse_topology(t).map(|d| (d, t)))
            .filter(|(d, _)| pool_dims.as_ref().is_none_or(|p| contained(d, p)))
            .map(|(d, t)| (d.iter().product(), t.clone()))
            .collect();
        out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        out.into_iter().map(|(_, t)| t).collect()
    }

    /// What `slicing: dynamic` can form, for a message.
    pub fn describe(&self) -> String {
        let subs = self.sub_slices.topologies.join(", ");
        match (&self.super_slice, self.sub_slices.of_pool) {
            (Some(s), _) => format!("superslices of {} partitions (AxBxC, multiples of 4, A <= B <= C) or subslices {subs}", s.partition),
            (None, true) => format!("subslices {subs} of a larger pool of these topologies"),
            (None, false) => format!("subslices {subs}"),
        }
    }
}

/// Every dimension of `inner` at most that of `outer` (xpk utils/topology.py is_topology_contained).
fn contained(inner: &[u32], outer: &[u32]) -> bool {
    inner.len() == outer.len() && inner.iter().zip(outer).all(|(i, o)| i <= o)
}

impl TpuData {
    /// The dynamic slice of `topology` in `generation` (carved from a pool of `pool` where the
    /// generation's subslices are), or why there is none.
    pub fn dynamic_shape(&self, generation: &TpuGeneration, topology: &str, pool: Option<&str>) -> Result<TpuShape, String> {
        let ds = &self.dynamic_slicing;
        let Some(dg) = ds.generation(&generation.name) else {
            let have: Vec<&str> = ds.generations.iter().map(|g| g.generation.as_str()).collect();
            return Err(format!(
                "TPU {} has no dynamic slicing; {} {} it",
                generation.name,
                have.join(" and "),
                if have.len() == 1 { "has" } else { "have" }
            ));
        };
        let dims = parse_topology(topology)
            .filter(|d| d.len() == generation.dimensions)
            .ok_or_else(|| format!("`{topology}` is not a TPU {} topology ({}D)", generation.name, generation.dimensions))?;
        let canonical = format_topology(&dims);
        let machine = generation
            .machine_type(&dg.machine_type)
            .ok_or_else(|| format!("machine type `{}` is not a TPU {} machine type", dg.machine_type, generation.name))?;
        let chips: u32 = dims.iter().product();
        let hosts = chips / machine.chips_per_host.max(1);
        let listed = dg.sub_slices.topologies.contains(&canonical);
        let dynamic = if dg.sub_slices.of_pool {
            let Some(pool) = pool else {
                return Err(format!(
                    "a TPU {} subslice is carved from a larger node pool: set `pool` to the pool's topology (one of {})",
                    generation.name,
                    dg.sub_slices.topologies.join(", ")
                ));
            };
            let pool_dims = parse_topology(pool).map(|d| format_topology(&d));
            if !pool_dims.as_ref().is_some_and(|p| dg.sub_slices.topologies.contains(p)) {
                return Err(format!(
                    "pool `{pool}` is not a TPU {} sub-slicing pool ({})",
                    generation.name,
                    dg.sub_slices.topologies.join(", ")
                ));
            }
            let pool = pool_dims.unwrap_or_default();
            let within = dg.sub_slices_within(Some(&pool));
            if !within.contains(&canonical) {
                return Err(format!(
                    "`{canonical}` is not a TPU {} subslice of a {pool} pool; it can be one of {}",
                    generation.name,
                    within.join(", ")
                ));
            }
            DynamicSlice {
                kind: SliceKind::Sub,
                controller: dg.controller,
                pool: Some(pool),
                partition_label: dg.partition_label_of(&canonical),
                state_label: dg.state_label_of(&canonical),
                partitions: 1,
                pods_per_partition: hosts,
                min_gke: dg.sub_slices.min_gke.clone(),
            }
        } else if pool.is_some() {
            return Err(format!(
                "`pool` is for subslices of a larger node pool; TPU {} slices are formed from partitions ({})",
                generation.name,
                dg.describe()
            ));
        } else if listed {
            DynamicSlice {
                kind: SliceKind::Sub,
                controller: dg.controller,
                pool: None,
                partition_label: dg.partition_label_of(&canonical),
                state_label: dg.state_label_of(&canonical),
                partitions: 1,
                pods_per_partition: hosts,
                min_gke: dg.sub_slices.min_gke.clone(),
            }
        } else {
            let rule = dg
                .super_slice
                .as_ref()
                .ok_or_else(|| format!("`{canonical}` is not a TPU {} dynamic slice: {}", generation.name, dg.describe()))?;
            let part_dims = parse_topology(&rule.partition).unwrap_or_default();
            let part_chips: u32 = part_dims.iter().product();
            let fits = part_dims.len() == dims.len() && dims.iter().zip(&part_dims).all(|(d, p)| d.is_multiple_of(*p));
            if !fits || !generation.large_rule_accepts(&dims) {
                return Err(format!("`{canonical}` is not a TPU {} dynamic slice: {}", generation.name, dg.describe()));
            }
            DynamicSlice {
                kind: SliceKind::Super,
                controller: dg.controller,
                pool: None,
                partition_label: dg.partition_label_of(&rule.partition),
                state_label: dg.state_label_of(&rule.partition),
                partitions: chips / part_chips.max(1),
                pods_per_partition: part_chips / machine.chips_per_host.max(1),
                min_gke: Some(rule.min_gke.clone()),
            }
        };
        let mut shape = generation.shape(&canonical, &dims, machine);
        shape.dynamic = Some(dynamic);
        Ok(shape)
    }
}

impl TpuData {
    /// The Kueue Topology a dynamic slice is admitted over: its name and levels (highest first,
    /// `hostname` last). Slice controller (S1 dynamic-slice-topology.yaml, S2 e2e): the block, the
    /// superslice partitions, and for subslices every subslice partition, largest first. Kueue
    /// alone (v6e, S3 kueue_manager.py): the slice level of every subslice the pool contains,
    /// largest first.
    pub fn dynamic_topology(&self, shape: &TpuShape, hostname: &str) -> Option<(String, Vec<String>)> {
        let d = shape.dynamic.as_ref()?;
        let ds = &self.dynamic_slicing;
        let dg = ds.generation(&shape.generation)?;
        let subs = || dg.sub_slices_within(d.pool.as_deref()).into_iter().map(|t| dg.partition_label_of(&t));
        let (name, mut levels): (String, Vec<String>) = match (dg.controller, d.kind) {
            (true, kind) => {
                let mut levels = vec![ds.block_label.clone()];
                levels.extend(dg.super_slice.as_ref().map(|s| dg.partition_label_of(&s.partition)));
                if kind == SliceKind::Sub {
                    levels.extend(subs());
                }
                (format!("{}-{}s", shape.generation, kind), levels)
            }
            (false, _) => (format!("{}-subslices-{}", shape.generation, d.pool.as_deref().unwrap_or("any")), subs().collect()),
        };
        levels.push(hostname.to_string());
        Some((name, levels))
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
            dynamic: None,
            fabric: None,
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
        let cubes: u64 = dims.iter().map(|d| u64::from(d / rule.cube)).product();
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
        if let Some(rule) = self.large_topologies.as_ref().filter(|_| self.large_rule_accepts(&dims)) {
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
            let max_dim = rule.cube * rule.max_cubes; // no dimension can exceed this
            let mut large = Vec::new();
            let mut a = step;
            while a <= max_dim {
                let mut b = step;
                while b <= max_dim {
                    let mut c = step;
                    while c <= max_dim {
                        let dims = [a, b, c];
                        let cubes: u64 = dims.iter().map(|d| u64::from(d / rule.cube)).product();
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

#[cfg(test)]
mod tests {
    use crate::accelerators::data;

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
}
