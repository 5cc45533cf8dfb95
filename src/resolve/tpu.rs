//! A `tpu:` entry -> the slice it names (generation, topology, machine shape) and what the
//! runtime needs for it: `google.com/tpu` per host, the accelerator and topology selectors (and the
//! machine type where the topology exists on several machine types with the same labels: v5e and
//! v6e 2x4 on a 4-chip or an 8-chip host), the TPU toleration (and those of the platform's TPU pool
//! taints, `nodes.yaml`) and env, numNodes = hosts, and for multi-host slices the JobSet
//! annotations.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::resolved::{Accel, AcceleratorPlan};
use crate::accelerators::nodes::nodes;
use crate::accelerators::{data, parse_topology, DynamicSlice, FabricPatch, Overrides, TpuGeneration, TpuShape};
use crate::catalog::{Interconnect, Platform, TpuSlicing, TpuSpec};
use crate::diag::Diagnostic;
use crate::rules::catalog::*;

/// The plan for a TPU entry: `Err` when the slice cannot be resolved; `Ok` with the errors that
/// do not stop it (platform, numNodes).
pub(super) fn plan(
    tpu: &TpuSpec,
    num_nodes: Option<i32>,
    platform: &Platform,
    platform_given: bool,
) -> Result<(AcceleratorPlan, Vec<Diagnostic>), Vec<Diagnostic>> {
    let data = &data().tpu;
    let mut errors = Vec::new();
    if !data.platforms.iter().any(|p| p == platform.as_str()) {
        let on = data.platforms.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ");
        errors.push(
            Diagnostic::new(&CATALOG_TPU_PLATFORM, format!("TPU slices are scheduled on {on}; platform is `{platform}`"))
                .with_field(if platform_given { "spec.platform" } else { "spec.accelerator.tpu" })
                .with_help(format!(
                    "set `spec.platform: {}` for TPU runtimes",
                    data.platforms.first().map(String::as_str).unwrap_or("gke")
                )),
        );
    }
    let shape = match shape(tpu) {
        Ok(s) => s,
        Err(e) => {
            errors.push(e);
            return Err(errors);
        }
    };
    if let Some(n) = num_nodes {
        if n != shape.hosts as i32 {
            errors.push(
                Diagnostic::new(
                    &CATALOG_TPU_NUM_NODES,
                    format!(
                        "numNodes is {n}, but a TPU {} {} slice on {} ({} chips per host) has {} host{}",
                        shape.generation,
                        shape.topology,
                        shape.machine_type,
                        shape.chips_per_host,
                        shape.hosts,
                        if shape.hosts == 1 { "" } else { "s" }
                    ),
                )
                .with_field("spec.numNodes")
                .with_help(format!("remove `numNodes` (it is derived for TPU) or set it to {}", shape.hosts)),
            );
        }
    }
    let mut node_selector = BTreeMap::from([
        (data.accelerator_label.clone(), shape.accelerator_label.clone()),
        (data.topology_label.clone(), shape.topology.clone()),
    ]);
    // The accelerator and topology labels alone would also match the topology's other machine
    // type: a 2-host slice's pods would share one 8-chip host, a 1-host slice wait for one forever.
    let ambiguous = data.generation(&shape.generation).is_ok_and(|g| g.shapes_for(&shape.topology).len() > 1);
    if ambiguous && shape.dynamic.is_none() {
        node_selector.insert(data.machine_type_label.clone(), shape.machine_type.clone());
    }
    let mut jobset_annotations = if shape.multi_host() { data.multi_host_annotations.clone() } else { BTreeMap::new() };
    if let Some(d) = &shape.dynamic {
        dynamic_selection(d, &mut node_selector, &mut jobset_annotations);
    }
    let mut tolerations = data.tolerations.clone();
    tolerations.extend(nodes().pool_tolerations(platform.as_str(), &data.resource, &tolerations));
    let limits = BTreeMap::from([(data.resource.clone(), Quantity(shape.chips_per_host.to_string()))]);
    let mut env = data.env.clone();
    let mut shape = shape;
    if tpu.interconnect == Some(Interconnect::Dra) {
        match dra_fabric(&shape, platform.as_str()) {
            Ok(f) => {
                node_selector.extend(f.node_selector.iter().map(|(k, v)| (k.clone(), v.clone())));
                env.extend(f.env.iter().cloned());
                shape.fabric = Some(f);
            }
            Err(e) => errors.push(e),
        }
    }
    Ok((
        AcceleratorPlan {
            num_nodes: shape.hosts as i32,
            node_selector,
            tolerations,
            env,
            jobset_annotations,
            limits,
            fallback_requests: BTreeMap::new(),
            image_key: "tpu".into(),
            default_image: data.default_image.clone(),
            accel: Accel::Tpu(shape),
        },
        errors,
    ))
}

/// `interconnect: dra`: the DRA fabric of the slice's machine type on the platform (GKE managed
/// DRANET's `netdev.google.com` NICs on v6e hosts), or why there is none.
fn dra_fabric(shape: &TpuShape, platform: &str) -> Result<FabricPatch, Diagnostic> {
    let field = "spec.accelerator.tpu.interconnect";
    let Some((f, m)) = data().fabrics.dra_of_machine(platform, &shape.machine_type) else {
        let with: Vec<String> = data()
            .fabrics
            .fabrics
            .iter()
            .filter(|f| f.platform == platform && f.is_dra())
            .flat_map(|f| &f.machine_types)
            .filter(|m| data().tpu.generations.iter().any(|g| g.machine_types.iter().any(|t| t.name == m.name)))
            .map(|m| format!("`{}`", m.name))
            .collect();
        return Err(Diagnostic::new(
            &CATALOG_INVALID_VALUE,
            format!(
                "`interconnect` is `dra`, but no DRA fabric (DRANET) is known for TPU {} {} on `{}` on `{platform}`; TPU machine types with one: {}",
                shape.generation,
                shape.topology,
                shape.machine_type,
                if with.is_empty() { "none".to_string() } else { with.join(", ") }
            ),
        )
        .with_field(field)
        .with_help("remove `interconnect`, or choose a slice on a machine type with a DRA fabric (`jax-runtimes accelerators --kind tpu`)"));
    };
    f.patch(m, &Overrides::default()).map_err(|e| Diagnostic::new(&CATALOG_INVALID_VALUE, e.to_string()).with_field(field))
}

/// A dynamic slice's node selection (S1/S3 in `tpu.yaml`): the accelerator, and the partition
/// state the data selects (tpu7x: no topology label, the slice is formed across node pools) or the
/// pool's topology (v6e subslices); slices formed by the slice controller are exclusive per
/// `cloud.google.com/gke-tpu-slice` (the data's value for the multi-host annotation's key) instead
/// of per node pool.
fn dynamic_selection(d: &DynamicSlice, node_selector: &mut BTreeMap<String, String>, jobset_annotations: &mut BTreeMap<String, String>) {
    let data = &data().tpu;
    let ds = &data.dynamic_slicing;
    match &d.pool {
        Some(pool) => {
            node_selector.insert(data.topology_label.clone(), pool.clone());
        }
        None => {
            node_selector.remove(&data.topology_label);
        }
    }
    if let Some(state) = &d.state_label {
        node_selector.insert(state.clone(), ds.select_state.clone());
    }
    jobset_annotations.clear();
    if d.controller {
        jobset_annotations.extend(data.multi_host_annotations.keys().map(|k| (k.clone(), ds.exclusive_topology.clone())));
    }
}

/// The pod template annotations of a dynamic slice: its topology, and Kueue's podset topology
/// annotations. Where the slice controller forms it, those are what its webhook writes on a Job or
/// JobSet (S2 webhooks/defaults.go: the block, the partition level, the pods per partition); Kueue
/// builds a TrainJob's workload from the runtime (before any JobSet exists), so the runtime carries
/// them (derived). A v6e subslice requires its slice level (S3 scheduling.py).
pub fn pod_annotations(accel: &Accel) -> BTreeMap<String, String> {
    let Accel::Tpu(shape) = accel else { return BTreeMap::new() };
    let Some(d) = &shape.dynamic else { return BTreeMap::new() };
    let ds = &data().tpu.dynamic_slicing;
    let k = &crate::kueue::facts().annotations;
    let mut out = BTreeMap::from([(ds.slice_topology_annotation.clone(), shape.topology.clone())]);
    if d.controller {
        out.insert(k.podset_required_topology.clone(), ds.block_label.clone());
        out.insert(k.podset_slice_required_topology.clone(), d.partition_label.clone());
        out.insert(k.podset_slice_size.clone(), d.pods_per_partition.to_string());
    } else {
        out.insert(k.podset_required_topology.clone(), d.partition_label.clone());
    }
    out
}

/// The slice shape a `tpu:` entry names.
pub fn shape(tpu: &TpuSpec) -> Result<TpuShape, Diagnostic> {
    let data = &data().tpu;
    let field = "spec.accelerator.tpu";
    if let Some(slices) = tpu.slices {
        if slices != 1 {
            return Err(Diagnostic::new(
                &CATALOG_TPU_MULTISLICE,
                format!("{slices} slices requested; Trainer v2.3 runs exactly one replica of the `node` job, so a multislice runtime cannot start (kubeflow/trainer#3408)"),
            )
            .with_field(format!("{field}.slices"))
            .with_help("use one slice (`slices: 1`, the default) until Trainer supports multislice JAX"));
        }
    }
    let (generation, topology) = match (&tpu.accelerator_type, &tpu.generation, &tpu.topology) {
        (Some(at), g, t) => {
            let (generation, chips) = data.accelerator_type(at).map_err(|e| {
                Diagnostic::new(&CATALOG_UNKNOWN_TPU, e.to_string())
                    .with_field(format!("{field}.acceleratorType"))
                    .with_help("`jax-runtimes accelerators --kind tpu` lists accelerator types")
            })?;
            if let Some(g) = g {
                let named = data
                    .generation(g)
                    .map_err(|e| Diagnostic::new(&CATALOG_UNKNOWN_TPU, e.to_string()).with_field(format!("{field}.type")))?;
                if named.name != generation.name {
                    return Err(Diagnostic::new(
                        &CATALOG_UNKNOWN_TPU,
                        format!("type `{g}` contradicts acceleratorType `{at}` (a {} name)", generation.name),
                    )
                    .with_field(format!("{field}.type"))
                    .with_help("give `acceleratorType` alone, or `type` with `topology`"));
                }
            }
            let topology = match t {
                Some(t) => {
                    let t_chips = parse_topology(t).map(|d| d.iter().product::<u32>());
                    if t_chips != Some(chips) {
                        return Err(Diagnostic::new(
                            &CATALOG_TPU_TOPOLOGY,
                            format!("topology `{t}` does not have the {chips} chips of `{at}`"),
                        )
                        .with_field(format!("{field}.topology"))
                        .with_help("remove `topology` to use the accelerator type's default, or give one with the same chip count"));
                    }
                    t.clone()
                }
                None => generation.default_topology(chips).ok_or_else(|| {
                    Diagnostic::new(&CATALOG_TPU_TOPOLOGY, format!("`{at}` ({chips} chips) is not a valid {} slice size", generation.name))
                        .with_field(format!("{field}.acceleratorType"))
                        .with_help(format!(
                            "nearest valid topologies: {}",
                            generation.nearest_topologies(&format!("{chips}x1"), 5).join(", ")
                        ))
                })?,
            };
            (generation, topology)
        }
        (None, Some(g), Some(t)) => {
            let generation = data.generation(g).map_err(|e| {
                Diagnostic::new(&CATALOG_UNKNOWN_TPU, e.to_string())
                    .with_field(format!("{field}.type"))
                    .with_help("`jax-runtimes accelerators --kind tpu` lists TPU types")
            })?;
            (generation, t.clone())
        }
        (None, _, _) => {
            return Err(Diagnostic::new(&CATALOG_UNKNOWN_TPU, "a TPU needs `type` and `topology`, or `acceleratorType`")
                .with_field(field)
                .with_help("for example `tpu: {type: v5e, topology: 4x4}` or `tpu: {acceleratorType: v5litepod-16}`"));
        }
    };
    if tpu.slicing == Some(TpuSlicing::Dynamic) {
        return dynamic_shape(tpu, generation, &topology);
    }
    if tpu.pool.is_some() {
        return Err(Diagnostic::new(&CATALOG_TPU_TOPOLOGY, "`pool` is only for a dynamic slice carved from a larger node pool")
            .with_field(format!("{field}.pool"))
            .with_help("add `slicing: dynamic`, or remove `pool`"));
    }
    let shapes = generation.shapes_for(&topology);
    if shapes.is_empty() {
        let dims_ok = parse_topology(&topology).is_some_and(|d| d.len() == generation.dimensions);
        let why = if dims_ok {
            format!("`{topology}` is not a valid TPU {} topology", generation.name)
        } else {
            format!(
                "`{topology}` is not a TPU {} topology: {} slices are {}",
                generation.name,
                generation.name,
                if generation.dimensions == 2 { "2D (AxB)" } else { "3D (AxBxC)" }
            )
        };
        return Err(Diagnostic::new(&CATALOG_TPU_TOPOLOGY, why)
            .with_field(format!("{field}.topology"))
            .with_help(format!("nearest valid topologies: {}", generation.nearest_topologies(&topology, 5).join(", "))));
    }
    match tpu.chips_per_host {
        Some(c) => shapes.iter().find(|s| s.chips_per_host == c).cloned().ok_or_else(|| {
            Diagnostic::new(
                &CATALOG_TPU_CHIPS_PER_HOST,
                format!("TPU {} {topology} has no machine shape with {c} chips per host", generation.name),
            )
            .with_field(format!("{field}.chipsPerHost"))
            .with_help(format!(
                "use {}",
                shapes.iter().map(|s| format!("{} ({})", s.chips_per_host, s.machine_type)).collect::<Vec<_>>().join(" or ")
            ))
        }),
        None if shapes.len() == 1 => Ok(shapes[0].clone()),
        None => Err(Diagnostic::new(
            &CATALOG_TPU_CHIPS_PER_HOST,
            format!(
                "TPU {} {topology} fits {} machine shapes with identical node labels ({}); the pod's `google.com/tpu` and the host count depend on which node pool you created",
                generation.name,
                shapes.len(),
                shapes.iter().map(|s| format!("{} x {} on {}", crate::words::count(s.hosts, "host"), crate::words::count(s.chips_per_host, "chip"), s.machine_type)).collect::<Vec<_>>().join(", or ")
            ),
        )
        .with_field(format!("{field}.chipsPerHost"))
        .with_help(format!(
            "set `chipsPerHost` to {} to match your node pool's machine type",
            shapes.iter().map(|s| s.chips_per_host.to_string()).collect::<Vec<_>>().join(" or ")
        ))),
    }
}

/// `slicing: dynamic`: the slice the dynamic slicing data forms for this topology.
fn dynamic_shape(tpu: &TpuSpec, generation: &TpuGeneration, topology: &str) -> Result<TpuShape, Diagnostic> {
    let field = "spec.accelerator.tpu";
    let data = &data().tpu;
    let shape = data.dynamic_shape(generation, topology, tpu.pool.as_deref()).map_err(|why| {
        let field = if why.starts_with("`pool`") || why.starts_with("pool ") || why.contains("set `pool`") { "pool" } else { "topology" };
        Diagnostic::new(&CATALOG_TPU_TOPOLOGY, why).with_field(format!("spec.accelerator.tpu.{field}")).with_help(
            "`jax-runtimes accelerators --kind tpu` lists the topologies; dynamic slices are in `dynamicSlicing` of the TPU data",
        )
    })?;
    if let Some(c) = tpu.chips_per_host.filter(|c| *c != shape.chips_per_host) {
        return Err(Diagnostic::new(
            &CATALOG_TPU_CHIPS_PER_HOST,
            format!(
                "TPU {} dynamic slices are formed on {} hosts of {} chips, not {c}",
                generation.name, shape.machine_type, shape.chips_per_host
            ),
        )
        .with_field(format!("{field}.chipsPerHost"))
        .with_help("remove `chipsPerHost`"));
    }
    Ok(shape)
}
