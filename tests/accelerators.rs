//! Accelerator knowledge, checked against tables the tests carry themselves (tests/accelerators/*.csv,
//! written from public documentation with a source per row) rather than against the embedded data:
//! the library's derivation (accelerator label, topology, chips per host, hosts, resource counts,
//! selectors) and the rendered runtimes (the `google.com/tpu` / GPU limit, nodeSelector, numNodes,
//! tolerations, the exclusive-topology annotation of multi-host slices), valid and invalid shapes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use jax_runtimes::accelerators::{self, GpuError};
use jax_runtimes::read::{parse_source, Source};
use serde_json::Value;
use support::{node_container, node_pod as pod};

const EXCLUSIVE: &str = "alpha.jobset.sigs.k8s.io/exclusive-topology";
const TPU_ACCEL_LABEL: &str = "cloud.google.com/gke-tpu-accelerator";
const TPU_TOPOLOGY_LABEL: &str = "cloud.google.com/gke-tpu-topology";

// ---------------------------------------------------------------------------------------------
// The tables

fn table(name: &str, columns: usize) -> Vec<Vec<String>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/accelerators").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            // The last column (the source) may contain commas.
            let row: Vec<String> = l.splitn(columns, ',').map(|c| c.trim().to_string()).collect();
            assert_eq!(row.len(), columns, "{name}: `{l}` has {} columns, expected {columns}", row.len());
            assert!(!row[columns - 1].is_empty(), "{name}: `{l}` names no source");
            row
        })
        .collect()
}

#[derive(Debug)]
struct TpuRow {
    generation: String,
    topology: String,
    chips_per_host: u32,
    machine_type: String,
    chips: u32,
    hosts: u32,
    accelerator_type: String,
    accelerator_label: String,
}

fn tpu_rows() -> Vec<TpuRow> {
    table("tpu_shapes.csv", 9)
        .into_iter()
        .map(|r| TpuRow {
            generation: r[0].clone(),
            topology: r[1].clone(),
            chips_per_host: r[2].parse().unwrap(),
            machine_type: r[3].clone(),
            chips: r[4].parse().unwrap(),
            hosts: r[5].parse().unwrap(),
            accelerator_type: r[6].clone(),
            accelerator_label: r[7].clone(),
        })
        .collect()
}

#[derive(Debug)]
struct GpuRow {
    model: String,
    platform: String,
    count: u32,
    pinned: Option<String>,
    machine_type: Option<String>,
    node_selector: BTreeMap<String, String>,
    resource: String,
    toleration_keys: BTreeSet<String>,
}

fn platform(name: &str) -> String {
    assert!(jax_runtimes::accelerators::data().platform(name).is_ok(), "unknown platform {name}");
    name.to_string()
}

fn gpu_rows() -> Vec<GpuRow> {
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    table("gpu_shapes.csv", 9)
        .into_iter()
        .map(|r| GpuRow {
            model: r[0].clone(),
            platform: platform(&r[1]),
            count: r[2].parse().unwrap(),
            pinned: opt(&r[3]),
            machine_type: opt(&r[4]),
            node_selector: r[5]
                .split(';')
                .filter(|kv| !kv.is_empty())
                .map(|kv| {
                    let (k, v) = kv.split_once('=').unwrap_or_else(|| panic!("selector entry `{kv}`"));
                    (k.to_string(), v.to_string())
                })
                .collect(),
            resource: r[6].clone(),
            toleration_keys: r[7].split(';').map(str::to_string).collect(),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Rendering through the public API

/// Renders `docs` (YAML documents) and returns the runtimes by name, or the error messages (with help).
fn render(yaml: &str) -> Result<BTreeMap<String, Value>, Vec<String>> {
    let docs = parse_source(Arc::new(Source::new("test.yaml", Some(yaml.to_string())))).expect("test YAML parses");
    let out = jax_runtimes::generate(&docs);
    if out.has_errors() {
        return Err(out
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("{} [{}] help: {}", d.message, d.field.clone().unwrap_or_default(), d.help.clone().unwrap_or_default()))
            .collect());
    }
    Ok(out.runtimes.into_iter().map(|r| (r.object["metadata"]["name"].as_str().unwrap().to_string(), r.object)).collect())
}

fn runtime_doc(name: &str, spec: &str) -> String {
    format!("---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {{name: {name}}}\nspec:\n{spec}\n")
}

fn string_map(v: &Value) -> BTreeMap<String, String> {
    v.as_object().map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string())).collect()).unwrap_or_default()
}

fn toleration_keys(rt: &Value) -> BTreeSet<String> {
    pod(rt)["tolerations"].as_array().map(|a| a.iter().map(|t| t["key"].as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

fn jobset_annotations(rt: &Value) -> BTreeMap<String, String> {
    string_map(&rt["spec"]["template"]["metadata"]["annotations"])
}

// ---------------------------------------------------------------------------------------------
// TPU

#[test]
fn the_tpu_table_covers_every_generation_and_the_hard_cases() {
    let rows = tpu_rows();
    assert!(rows.len() >= 60, "only {} TPU shapes", rows.len());
    let generations: BTreeSet<&str> = rows.iter().map(|r| r.generation.as_str()).collect();
    assert_eq!(generations, BTreeSet::from(["tpu7", "tpu7x", "v4", "v5e", "v5p", "v6e"]));
    // 3D permutations and the 2x4 ambiguity are in the table.
    assert!(rows.iter().any(|r| r.generation == "v4" && r.topology == "8x4x4"));
    for g in ["v5e", "v6e"] {
        assert_eq!(rows.iter().filter(|r| r.generation == g && r.topology == "2x4").count(), 2, "{g} 2x4");
    }
    for r in &rows {
        assert_eq!(r.chips, accelerators::parse_topology(&r.topology).unwrap().iter().product::<u32>(), "{r:?}");
        assert_eq!(r.chips, r.hosts * r.chips_per_host, "{r:?}");
    }
}

#[test]
fn tpu_derivation_matches_the_documented_shapes() {
    let data = &accelerators::data().tpu;
    for r in tpu_rows() {
        let generation = data.generation(&r.generation).unwrap();
        assert_eq!(generation.accelerator_label, r.accelerator_label, "{r:?}");
        assert_eq!(data.by_accelerator_label(&r.accelerator_label).map(|g| g.name.as_str()), Some(generation.name.as_str()));
        let shapes = generation.shapes_for(&r.topology);
        let shape = shapes
            .iter()
            .find(|s| s.chips_per_host == r.chips_per_host)
            .unwrap_or_else(|| panic!("{} {} has no shape with {} chips per host: {shapes:?}", r.generation, r.topology, r.chips_per_host));
        assert_eq!(shape.machine_type, r.machine_type, "{r:?}");
        assert_eq!(shape.chips, r.chips, "{r:?}");
        assert_eq!(shape.hosts, r.hosts, "{r:?}");
        assert_eq!(shape.accelerator_type, r.accelerator_type, "{r:?}");
        assert_eq!(shape.multi_host(), r.hosts > 1, "{r:?}");
        // The accelerator type name counts what the documentation says it counts.
        let (g, chips) = data.accelerator_type(&r.accelerator_type).unwrap();
        assert_eq!((g.name.as_str(), chips), (generation.name.as_str(), r.chips), "{}", r.accelerator_type);
        // Every documented shape is listed by `all_shapes` (what `accelerators` prints).
        assert!(generation.all_shapes().iter().any(|s| s == shape), "{r:?} missing from all_shapes");
    }
}

#[test]
fn rendered_tpu_runtimes_carry_the_documented_shape() {
    let rows = tpu_rows();
    let mut yaml = String::new();
    for (i, r) in rows.iter().enumerate() {
        // chipsPerHost only where the topology fits two machine shapes.
        let ambiguous = rows.iter().filter(|o| o.generation == r.generation && o.topology == r.topology).count() > 1;
        let cph = if ambiguous { format!(", chipsPerHost: {}", r.chips_per_host) } else { String::new() };
        yaml += &runtime_doc(
            &format!("t{i}"),
            &format!("  accelerator:\n    tpu: {{type: {}, topology: \"{}\"{cph}}}", r.generation, r.topology),
        );
    }
    let runtimes = render(&yaml).unwrap_or_else(|e| panic!("rendering the TPU table failed:\n{}", e.join("\n")));
    for (i, r) in rows.iter().enumerate() {
        let rt = &runtimes[&format!("t{i}")];
        let ctx = format!("{} {} ({} chips/host)", r.generation, r.topology, r.chips_per_host);
        let c = node_container(rt);
        let want = Value::String(r.chips_per_host.to_string());
        assert_eq!(c["resources"]["limits"]["google.com/tpu"], want, "{ctx}: limit");
        assert_eq!(c["resources"]["requests"]["google.com/tpu"], want, "{ctx}: request");
        // Where the topology has two machine shapes with the same labels, the machine type is pinned.
        let ambiguous = rows.iter().filter(|o| o.generation == r.generation && o.topology == r.topology).count() > 1;
        let mut selector = BTreeMap::from([
            (TPU_ACCEL_LABEL.to_string(), r.accelerator_label.clone()),
            (TPU_TOPOLOGY_LABEL.to_string(), r.topology.clone()),
        ]);
        if ambiguous {
            selector.insert("node.kubernetes.io/instance-type".to_string(), r.machine_type.clone());
        }
        assert_eq!(string_map(&pod(rt)["nodeSelector"]), selector, "{ctx}: nodeSelector");
        assert!(
            pod(rt)["tolerations"].as_array().unwrap().iter().any(|t| t["key"] == "google.com/tpu" && t["operator"] == "Exists"),
            "{ctx}: tolerations {}",
            pod(rt)["tolerations"]
        );
        assert_eq!(rt["spec"]["mlPolicy"]["numNodes"], r.hosts, "{ctx}: numNodes");
        let annotations = jobset_annotations(rt);
        if r.hosts > 1 {
            assert_eq!(
                annotations.get(EXCLUSIVE).map(String::as_str),
                Some("cloud.google.com/gke-nodepool"),
                "{ctx}: multi-host needs one slice per node pool"
            );
        } else {
            assert!(!annotations.contains_key(EXCLUSIVE), "{ctx}: single-host slice got {annotations:?}");
        }
        let summary = rt["metadata"]["annotations"]["jax-runtimes.dev/accelerator"].as_str().unwrap();
        assert!(summary.contains(&r.machine_type), "{ctx}: summary `{summary}` lacks the machine type");
    }
}

#[test]
fn two_by_four_on_v5e_and_v6e_needs_chips_per_host() {
    for (g, machines) in [("v5e", ["ct5lp-hightpu-4t", "ct5lp-hightpu-8t"]), ("v6e", ["ct6e-standard-4t", "ct6e-standard-8t"])] {
        let err = render(&runtime_doc("x", &format!("  accelerator:\n    tpu: {{type: {g}, topology: \"2x4\"}}"))).unwrap_err().join("\n");
        assert!(err.contains("chipsPerHost"), "{g}: {err}");
        for m in machines {
            assert!(err.contains(m), "{g}: the error should name {m}: {err}");
        }
        let err = render(&runtime_doc("x", &format!("  accelerator:\n    tpu: {{type: {g}, topology: \"2x4\", chipsPerHost: 2}}")))
            .unwrap_err()
            .join("\n");
        assert!(err.contains('4') && err.contains('8'), "{g}: {err}");
    }
}

#[test]
fn invalid_topologies_are_refused_with_the_nearest_valid_ones() {
    let data = &accelerators::data().tpu;
    let rows = table("tpu_invalid.csv", 5);
    assert!(rows.len() >= 10);
    for r in &rows {
        let (g, topology, suggest) = (&r[0], &r[1], &r[2]);
        let generation = data.generation(g).unwrap();
        assert!(generation.shapes_for(topology).is_empty(), "{g} {topology} should be invalid ({})", r[3]);
        let near = generation.nearest_topologies(topology, 5);
        assert!(near.contains(suggest), "{g} {topology}: nearest {near:?} should include {suggest}");
        for t in &near {
            assert!(!generation.shapes_for(t).is_empty(), "{g}: suggested {t} is not valid itself");
        }
        let err =
            render(&runtime_doc("x", &format!("  accelerator:\n    tpu: {{type: {g}, topology: \"{topology}\"}}"))).unwrap_err().join("\n");
        assert!(err.contains(topology.as_str()) && err.contains(suggest.as_str()), "{g} {topology}: error should name {suggest}: {err}");
        assert!(err.contains("spec.accelerator.tpu.topology"), "{err}");
    }
}

#[test]
fn a_reordered_topology_suggests_its_valid_order_first() {
    let data = &accelerators::data().tpu;
    assert_eq!(data.generation("v5p").unwrap().nearest_topologies("8x4x4", 5)[0], "4x4x8");
    assert_eq!(data.generation("tpu7x").unwrap().nearest_topologies("16x8x8", 5)[0], "8x8x16");
    assert_eq!(data.generation("v4").unwrap().nearest_topologies("4x2x2", 5)[0], "2x2x4");
    // v4 accepts the permutation itself.
    assert!(!data.generation("v4").unwrap().shapes_for("16x8x8").is_empty());
}

#[test]
fn accelerator_types_resolve_to_their_default_topology() {
    let data = &accelerators::data().tpu;
    let rows = table("tpu_accelerator_types.csv", 3);
    for r in &rows {
        let resolved = data.accelerator_type(&r[0]).ok().and_then(|(g, chips)| g.default_topology(chips));
        let want = (!r[1].is_empty()).then(|| r[1].clone());
        assert_eq!(resolved, want, "{}", r[0]);
    }
    // One rendering per valid row; the invalid ones must each fail on their own.
    let valid: String = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| !r[1].is_empty())
        .map(|(i, r)| runtime_doc(&format!("a{i}"), &format!("  accelerator:\n    tpu: {{acceleratorType: {}}}", r[0])))
        .collect();
    let runtimes = render(&valid).unwrap_or_else(|e| panic!("{}", e.join("\n")));
    for (i, r) in rows.iter().enumerate().filter(|(_, r)| !r[1].is_empty()) {
        let rt = &runtimes[&format!("a{i}")];
        assert_eq!(pod(rt)["nodeSelector"][TPU_TOPOLOGY_LABEL], r[1].as_str(), "{}", r[0]);
    }
    for r in rows.iter().filter(|r| r[1].is_empty()) {
        let err = render(&runtime_doc("bad", &format!("  accelerator:\n    tpu: {{acceleratorType: {}}}", r[0]))).unwrap_err().join("\n");
        assert!(err.contains(&r[0]), "{}: {err}", r[0]);
    }
}

/// xpk's `generate_tpu_topologies` (src/xpk/core/system_characteristics.py), as tests/accelerators/xpk_tpu.csv describes it.
fn xpk_generate_tpu_topologies(max_cubes: u32, any_order: bool) -> Vec<String> {
    let mut out: Vec<String> = ["2x2x1", "2x2x2", "2x2x4", "2x4x4"].map(String::from).to_vec();
    for x in (4..=256u32).step_by(4) {
        for y in ((if any_order { 4 } else { x })..=256).step_by(4) {
            for z in ((if any_order { 4 } else { y })..=256).step_by(4) {
                if (x / 4) * (y / 4) * (z / 4) <= max_cubes {
                    out.push(format!("{x}x{y}x{z}"));
                }
            }
        }
    }
    out
}

fn xpk_topologies(spec: &str) -> Vec<String> {
    match spec.strip_prefix("generate(max_cubes=").and_then(|s| s.strip_suffix(')')) {
        Some(args) => match args.split_once(' ') {
            None => xpk_generate_tpu_topologies(args.parse().unwrap(), false),
            Some((n, "any_order")) => xpk_generate_tpu_topologies(n.parse().unwrap(), true),
            Some(_) => panic!("xpk_tpu.csv: `{spec}`"),
        },
        None => spec.split_whitespace().map(str::to_string).collect(),
    }
}

/// Every (generation, topology, machine type) of xpk's TPU table that the data must have, after
/// checking each one's labels, chips per host, hosts and accelerator type against xpk's arithmetic.
fn xpk_tpu_shapes_in_the_data() -> BTreeSet<(String, String, String)> {
    let data = &accelerators::data().tpu;
    let mut shapes = BTreeSet::new();
    for r in table("xpk_tpu.csv", 8) {
        let (name, prefix, label, machine, cores) = (&r[0], &r[1], &r[2], &r[3], r[4].parse::<u32>().unwrap());
        let generation = data.generation(name).unwrap();
        assert_eq!(&generation.accelerator_label, label, "{name}: xpk's gke_accelerator");
        assert_eq!(generation.tensor_cores_per_chip, cores, "{name}: xpk's tensorcores_per_chip");
        let max_cubes: Option<u32> =
            (!r[6].is_empty()).then(|| r[6].strip_prefix("cubes>").expect("not_in_data: cubes>N").parse().unwrap());
        let topologies = xpk_topologies(&r[5]);
        assert!(!topologies.is_empty(), "{r:?}");
        for t in topologies {
            let dims = accelerators::parse_topology(&t).unwrap();
            let chips: u32 = dims.iter().product();
            let in_data = generation.shapes_for(&t).into_iter().find(|s| s.machine_type == *machine);
            let cubes: u32 = if dims.len() == 3 && dims.iter().all(|d| d % 4 == 0) { dims.iter().map(|d| d / 4).product() } else { 0 };
            if max_cubes.is_some_and(|m| cubes > m) {
                assert!(in_data.is_none(), "{name} {t}: left out on purpose ({}), yet in the data", r[7]);
                continue;
            }
            let shape = in_data.unwrap_or_else(|| panic!("xpk's {name} {t} on {machine} is not in catalog/accelerators/tpu.yaml"));
            let per_vm = if chips == 1 { 1 } else { 4 };
            assert_eq!(
                (shape.chips_per_host, shape.hosts, shape.accelerator_type.clone()),
                (per_vm, chips / per_vm, format!("{prefix}-{}", chips * cores)),
                "{name} {t} on {machine}"
            );
            shapes.insert((name.clone(), t, machine.clone()));
        }
    }
    shapes
}

#[test]
fn every_xpk_tpu_shape_is_in_the_data_or_left_out_on_purpose() {
    let xpk = xpk_tpu_shapes_in_the_data();
    let count = |g: &str| xpk.iter().filter(|(n, ..)| n == g).count();
    // xpk 367c8382: tpu7 1 + 9, tpu7x 1 + 432 (its own test: len(generate_tpu_topologies(144)) == 432).
    assert_eq!((count("tpu7"), count("tpu7x"), count("v4"), count("v6e"), count("v5e")), (10, 433, 800, 8, 6));
}

#[test]
fn the_data_has_no_tpu_shape_without_a_source() {
    // A shape is xpk's, or a row of tpu_shapes.csv (with its documentation source), or one of the
    // known long shapes below.
    let xpk = xpk_tpu_shapes_in_the_data();
    let documented: BTreeSet<(String, String, String)> =
        tpu_rows().into_iter().map(|r| (r.generation, r.topology, r.machine_type)).collect();
    let mut beyond_256: BTreeMap<String, usize> = BTreeMap::new();
    for generation in &accelerators::data().tpu.generations {
        for s in generation.all_shapes() {
            let key = (generation.name.clone(), s.topology.clone(), s.machine_type.clone());
            if xpk.contains(&key) || documented.contains(&key) {
                continue;
            }
            // Known, not settled: xpk's generator caps each dimension at 256 (`MAX = 256`), the
            // data's large-topology rule caps only the cubes, so v5p and tpu7x have slices such
            // as 4x4x384 that neither xpk nor tpu_shapes.csv lists. No other shape may appear unsourced.
            assert!(accelerators::parse_topology(&s.topology).unwrap().iter().any(|d| *d > 256), "{key:?} has no source");
            *beyond_256.entry(generation.name.clone()).or_default() += 1;
        }
    }
    assert_eq!(beyond_256, BTreeMap::from([("tpu7x".to_string(), 88), ("v5p".to_string(), 32)]));
}

#[test]
fn a_tpu7_slice_renders_for_tpu7_pools_not_tpu7x_ones() {
    // tpu7 (xpk 7b93a313): `cloud.google.com/gke-tpu-accelerator: tpu7`, 4 chips per tpu7-standard-4t VM.
    let yaml = [
        runtime_doc("tpu7", "  accelerator:\n    tpu: {type: tpu7, topology: 2x2x2}"),
        runtime_doc("tpu7-by-name", "  accelerator:\n    tpu: {acceleratorType: tpu7-16}"),
        runtime_doc("tpu7-single", "  accelerator:\n    tpu: {type: tpu7, topology: 2x2x1}"),
        runtime_doc("tpu7-1t", "  accelerator:\n    tpu: {type: tpu7, topology: 1x1x1}"),
        runtime_doc("tpu7x", "  accelerator:\n    tpu: {type: tpu7x, topology: 2x2x2}"),
    ]
    .concat();
    let rts = render(&yaml).unwrap_or_else(|e| panic!("{}", e.join("\n")));
    for (name, accelerator, topology, chips, nodes) in [
        ("tpu7", "tpu7", "2x2x2", "4", 2),
        ("tpu7-by-name", "tpu7", "2x2x2", "4", 2),
        ("tpu7-single", "tpu7", "2x2x1", "4", 1),
        ("tpu7-1t", "tpu7", "1x1x1", "1", 1),
        ("tpu7x", "tpu7x", "2x2x2", "4", 2),
    ] {
        let rt = &rts[name];
        assert_eq!(
            string_map(&pod(rt)["nodeSelector"]),
            BTreeMap::from([
                (TPU_ACCEL_LABEL.to_string(), accelerator.to_string()),
                (TPU_TOPOLOGY_LABEL.to_string(), topology.to_string())
            ]),
            "{name}"
        );
        assert_eq!(node_container(rt)["resources"]["limits"]["google.com/tpu"], chips, "{name}");
        assert_eq!(rt["spec"]["mlPolicy"]["numNodes"], nodes, "{name}");
        assert_eq!(jobset_annotations(rt).contains_key(EXCLUSIVE), nodes > 1, "{name}");
    }
    let summary = rts["tpu7"]["metadata"]["annotations"]["jax-runtimes.dev/accelerator"].as_str().unwrap();
    assert!(summary.contains("tpu7-standard-4t"), "{summary}");
    // The largest tpu7 slice is 4 cubes; 8x8x8 is a tpu7x slice only.
    let err = render(&runtime_doc("x", "  accelerator:\n    tpu: {type: tpu7, topology: 8x8x8}")).unwrap_err().join("\n");
    assert!(err.contains("4x8x8"), "{err}");
}

/// A GKE node list of `n` TPU hosts of 4 chips in node pool `pool`, labelled as GKE labels slice
/// nodes: accelerator, topology, machine type (tpu7: xpk 7b93a313, `tpu7` / `tpu7-standard-4t`).
fn tpu_pool(pool: &str, accelerator: &str, machine: &str, topology: &str, n: usize) -> String {
    let nodes: String = (0..n)
        .map(|i| {
            format!(
                "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: gke-{pool}-{i:02}\n    labels:\n      kubernetes.io/hostname: gke-{pool}-{i:02}\n      kubernetes.io/os: linux\n      kubernetes.io/arch: amd64\n      cloud.google.com/gke-nodepool: {pool}\n      {TPU_ACCEL_LABEL}: {accelerator}\n      {TPU_TOPOLOGY_LABEL}: {topology}\n      node.kubernetes.io/instance-type: {machine}\n  spec:\n    taints:\n    - {{effect: NoSchedule, key: google.com/tpu, value: present}}\n  status:\n    allocatable: {{cpu: \"200\", memory: 900Gi, google.com/tpu: \"4\", pods: \"110\"}}\n    capacity: {{cpu: \"200\", memory: 900Gi, google.com/tpu: \"4\", pods: \"110\"}}\n    conditions:\n    - {{type: Ready, status: \"True\", reason: KubeletReady}}\n"
            )
        })
        .collect();
    format!("apiVersion: v1\nkind: List\nitems:\n{nodes}")
}

/// Issue 53: the built-in tpu7 runtime (catalog/runtimes/tpu7.yaml) is in the built-in render,
/// validates clean, fits a tpu7 pool of its 16 hosts and no tpu7x pool of the same topology nor
/// a pool short of one host, and a queue serving it gets its ResourceFlavor and quota (no slice
/// controller's AdmissionCheck: tpu7 has no dynamic slicing).
#[test]
fn the_built_in_tpu7_slice_renders_validates_fits_its_pool_and_gets_kueue_objects() {
    let builtin = support::documents(&support::render(&[]));
    let rt = builtin.iter().find(|d| d["metadata"]["name"] == "jax-tpu7-4x4x4").expect("jax-tpu7-4x4x4 is a built-in runtime");
    // 4x4x4 = 64 chips on tpu7-standard-4t (4 chips per VM): 16 pods of 4 chips, one slice per pool.
    assert_eq!(rt["spec"]["mlPolicy"]["numNodes"], 16);
    assert_eq!(node_container(rt)["resources"]["limits"]["google.com/tpu"], "4");
    assert_eq!(
        string_map(&pod(rt)["nodeSelector"]),
        BTreeMap::from([(TPU_ACCEL_LABEL.to_string(), "tpu7".to_string()), (TPU_TOPOLOGY_LABEL.to_string(), "4x4x4".to_string())])
    );
    assert_eq!(jobset_annotations(rt)[EXCLUSIVE], "cloud.google.com/gke-nodepool");
    assert_eq!(toleration_keys(rt), BTreeSet::from(["google.com/tpu".to_string()]));

    let root = support::root();
    let catalog = [root.join("catalog/runtimes/defaults.yaml"), root.join("catalog/runtimes/tpu7.yaml")];
    let catalog: Vec<&str> = catalog.iter().map(|p| p.to_str().unwrap()).collect();
    let queue = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeQueue\nmetadata: {name: tpu7}\nspec:\n  namespaces: [research]\n";
    let dir = support::dir_with(&[
        ("tpu7.yaml", &tpu_pool("tpu7-a", "tpu7", "tpu7-standard-4t", "4x4x4", 16)),
        ("short.yaml", &tpu_pool("tpu7-a", "tpu7", "tpu7-standard-4t", "4x4x4", 15)),
        ("tpu7x.yaml", &tpu_pool("tpu7x-a", "tpu7x", "tpu7x-standard-4t", "4x4x4", 16)),
        ("queue.yaml", queue),
    ]);
    let cmd = |args: &[&str]| support::run_in(dir.path(), &[args, &catalog].concat(), None);

    // Rendered with a queue and validated: no warning, no error; the Kueue objects pass their CRDs.
    let r = cmd(&["render", "queue.yaml"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stderr.is_empty(), "{}", r.all());
    std::fs::write(dir.path().join("out.yaml"), &r.stdout).unwrap();
    let v = support::run_in(dir.path(), &["validate", "out.yaml", "--format", "json"], None);
    assert_eq!(v.code, 0, "{}", v.all());
    let report: Value = serde_json::from_str(&v.stdout).unwrap_or_else(|e| panic!("{e}: {}", v.all()));
    let problems: Vec<&Value> = report.as_array().unwrap().iter().filter(|f| f["severity"] != "info").collect();
    assert!(problems.is_empty(), "{problems:?}");
    let docs = support::documents(&r.stdout);
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["ClusterTrainingRuntime", "ResourceFlavor", "ClusterQueue", "LocalQueue"]);
    assert_eq!(
        string_map(&docs[1]["spec"]["nodeLabels"]),
        string_map(&pod(&docs[0])["nodeSelector"]),
        "the flavor selects the runtime's pool"
    );

    // fit: one copy on a tpu7 pool of 16 hosts; none on a tpu7x pool or on 15 hosts.
    let fit = |nodes: &str| -> (i32, Value) {
        let r = cmd(&["fit", "--nodes", nodes, "--format", "json"]);
        let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", r.all()));
        (r.code, v[0].clone())
    };
    let (code, v) = fit("tpu7.yaml");
    assert_eq!((code, v["copies"].as_u64(), v["where"].clone()), (0, Some(1), serde_json::json!(["tpu7-a"])), "{v}");
    let (code, v) = fit("tpu7x.yaml");
    assert_eq!((code, v["fits"].as_bool()), (1, Some(false)), "{v}");
    assert!(v["reason"].as_str().unwrap().starts_with("no node pool for TPU tpu7 4x4x4"), "{v}");
    let (code, v) = fit("short.yaml");
    assert_eq!((code, v["fits"].as_bool()), (1, Some(false)), "{v}");
    assert!(v["reason"].as_str().unwrap().starts_with("needs 16 pods"), "{v}");

    // kueue from the inventory: the pool's 64 chips are the quota; a tpu7x pool gives none.
    let r = cmd(&["kueue", "--nodes", "tpu7.yaml", "queue.yaml"]);
    assert_eq!(r.code, 0, "{}", r.all());
    let objects = support::documents(&r.stdout);
    let cq = objects.iter().find(|o| o["kind"] == "ClusterQueue").unwrap_or_else(|| panic!("{}", r.stdout));
    let quota = &cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0];
    assert_eq!((quota["name"].as_str(), quota["nominalQuota"].as_u64()), (Some("google.com/tpu"), Some(64)), "{cq}");
    assert!(!objects.iter().any(|o| o["kind"] == "AdmissionCheck"), "{}", r.stdout);
    let r = cmd(&["kueue", "--nodes", "tpu7x.yaml", "queue.yaml"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("kueue/no-matching-flavor"), "{}", r.all());
}

/// `tpu/pool-shape` (issue 53 item 4): a hand-written runtime whose accelerator and topology two
/// machine types share (v5e and v6e 2x4) and that selects nothing telling their pools apart is
/// warned, once, in both directions (the two-host `-4t` shape and the one-host `-8t` one); a
/// machine type, a node pool or a ComputeClass tells them apart, and a topology of one machine
/// type needs none.
#[test]
fn a_tpu_pod_that_cannot_tell_two_pool_shapes_apart_is_warned() {
    let base: Value =
        jax_runtimes::yaml::parse_one(&std::fs::read_to_string(support::root().join("tests/validate/base/tpu.yaml")).unwrap()).unwrap();
    let pool_shape = |edit: &dyn Fn(&mut Value)| -> Vec<String> {
        let mut rt = base.clone();
        edit(&mut rt);
        jax_runtimes::validate::object(&rt, &Default::default())
            .iter()
            .filter(|d| d.rule.id != "jobset/trainjob-name-length")
            .map(|d| format!("{} {}: {}", d.rule.id, d.severity, d.message))
            .collect()
    };
    fn set(rt: &mut Value, path: &[&str], v: Value) {
        let mut at = &mut rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
        for k in path {
            at = &mut at[*k];
        }
        *at = v;
    }
    let unpin = |rt: &mut Value| {
        set(rt, &["nodeSelector"], serde_json::json!({TPU_ACCEL_LABEL: "tpu-v5-lite-podslice", TPU_TOPOLOGY_LABEL: "2x4"}));
    };
    let chips = |rt: &mut Value, n: u32| {
        set(
            rt,
            &["containers"],
            serde_json::json!([{"name": "node", "image": "x", "env": [{"name": "JAX_PLATFORMS", "value": "tpu,cpu"}],
            "resources": {"limits": {"google.com/tpu": n}, "requests": {"google.com/tpu": n}}}]),
        );
    };
    // The base pins ct5lp-hightpu-4t: clean.
    assert_eq!(pool_shape(&|_| {}), Vec::<String>::new());
    // Without it, warned (a warning: the runtime is valid, its pool is not told).
    let two_hosts = pool_shape(&unpin);
    assert_eq!(two_hosts.len(), 1, "{two_hosts:?}");
    assert!(
        two_hosts[0].starts_with(
            "tpu/pool-shape warning: TPU v5e 2x4 is 2 hosts x 4 chips on ct5lp-hightpu-4t or 1 host x 8 chips on ct5lp-hightpu-8t"
        ),
        "{two_hosts:?}"
    );
    assert!(two_hosts[0].contains("land on a `ct5lp-hightpu-8t` pool, where its 2 pods of 4 chips share a host"), "{two_hosts:?}");
    // The other direction: one v6e host of 8 chips, unpinned.
    let one_host = pool_shape(&|rt| {
        unpin(rt);
        set(rt, &["nodeSelector", TPU_ACCEL_LABEL], "tpu-v6e-slice".into());
        chips(rt, 8);
        rt["spec"]["mlPolicy"]["numNodes"] = 1.into();
        rt["spec"]["template"]["metadata"] = serde_json::json!({});
    });
    assert_eq!(one_host.len(), 1, "{one_host:?}");
    assert!(
        one_host[0].contains("(8 chips: the ct6e-standard-8t shape)")
            && one_host[0].contains("land on a `ct6e-standard-4t` pool, whose hosts never have the 8 chips"),
        "{one_host:?}"
    );
    // What tells the pools apart: the machine type (also as a required node affinity `In` of one
    // shape), the node pool, a ComputeClass.
    let one_type = serde_json::json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["ct5lp-hightpu-4t"]}]}]}}});
    let told = [
        ("node pool", vec!["nodeSelector", "cloud.google.com/gke-nodepool"], Value::from("tpu-2x4")),
        ("ComputeClass", vec!["nodeSelector", "cloud.google.com/compute-class"], Value::from("tpu-multihost-v5-8")),
        ("affinity of one machine type", vec!["affinity"], one_type),
        ("machine type", vec!["nodeSelector", "node.kubernetes.io/instance-type"], Value::from("ct5lp-hightpu-4t")),
    ];
    for (what, path, value) in told {
        let found = pool_shape(&|rt| {
            unpin(rt);
            set(rt, &path, value.clone());
        });
        assert!(!found.iter().any(|f| f.starts_with("tpu/pool-shape")), "{what}: {found:?}");
    }
    // An affinity that allows both machine types tells nothing.
    let both = pool_shape(&|rt| {
        unpin(rt);
        set(
            rt,
            &["affinity"],
            serde_json::json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["ct5lp-hightpu-4t", "ct5lp-hightpu-8t"]}]}]}}}),
        );
    });
    assert!(both.iter().any(|f| f.starts_with("tpu/pool-shape")), "{both:?}");
    // A topology on one machine type only (v5e 4x4: ct5lp-hightpu-4t) needs no pin.
    let four_by_four = pool_shape(&|rt| {
        unpin(rt);
        set(rt, &["nodeSelector", TPU_TOPOLOGY_LABEL], "4x4".into());
        rt["spec"]["mlPolicy"]["numNodes"] = 4.into();
    });
    assert_eq!(four_by_four, Vec::<String>::new());
}

#[test]
fn the_tpu_node_pool_must_match_the_runtime_host_count() {
    let err = render(&runtime_doc("x", "  numNodes: 2\n  accelerator:\n    tpu: {type: v5p, topology: 4x4x4}")).unwrap_err().join("\n");
    assert!(err.contains("16"), "numNodes must equal the 16 hosts of v5p 4x4x4: {err}");
}

// ---------------------------------------------------------------------------------------------
// GPU

#[test]
fn the_gpu_table_covers_every_platform_and_vendor() {
    let rows = gpu_rows();
    assert!(rows.len() >= 20, "only {} GPU shapes", rows.len());
    let platforms: BTreeSet<&str> = rows.iter().map(|r| r.platform.as_str()).collect();
    assert_eq!(platforms.len(), 4);
    let models: BTreeSet<&str> = rows.iter().map(|r| r.model.as_str()).collect();
    for m in ["l4", "a100-40gb", "a100-80gb", "h100-80gb", "h100-mega-80gb", "h200-141gb", "b200", "gb200", "mi300x"] {
        assert!(models.contains(m), "{m} missing from the GPU table");
    }
}

#[test]
fn gpu_placement_matches_the_documented_shapes() {
    let data = &accelerators::data().gpu;
    for r in gpu_rows() {
        let model = data.model(&r.model).unwrap();
        let shape = data.place(model, Some(r.count), &r.platform, r.pinned.as_deref()).unwrap_or_else(|e| panic!("{r:?}: {e}"));
        assert_eq!(shape.resource, r.resource, "{r:?}");
        assert_eq!(data.vendor_by_resource(&r.resource).map(|v| v.name.as_str()), Some(model.vendor.as_str()));
        assert_eq!(shape.count, r.count, "{r:?}");
        assert_eq!(shape.node_selector, r.node_selector, "{r:?}");
        let keys: BTreeSet<String> = shape.tolerations.iter().map(|t| t.key.clone().unwrap_or_default()).collect();
        assert_eq!(keys, r.toleration_keys, "{r:?}");
        match r.machine_type.as_deref().map(|m| m.split('|').collect::<Vec<_>>()) {
            Some(several) if several.len() > 1 => {
                assert_eq!(shape.machine_type, None, "{r:?}");
                let a = shape.affinity.as_ref().unwrap_or_else(|| panic!("{r:?}: no node affinity"));
                assert_eq!(
                    (a.key.as_str(), a.values.clone()),
                    ("node.kubernetes.io/instance-type", several.iter().map(|s| s.to_string()).collect()),
                    "{r:?}"
                );
                assert_eq!(shape.machine_types, a.values, "{r:?}");
            }
            Some(one) => {
                assert_eq!(shape.machine_type.as_deref(), Some(one[0]), "{r:?}");
                assert!(shape.affinity.is_none(), "{r:?}");
            }
            None => assert!(shape.affinity.is_none(), "{r:?}"),
        }
    }
}

#[test]
fn rendered_gpu_runtimes_carry_the_documented_shape() {
    let rows = gpu_rows();
    let mut yaml = String::new();
    for (i, r) in rows.iter().enumerate() {
        let pin = r.pinned.as_ref().map(|m| format!(", machineType: {m}")).unwrap_or_default();
        // The Kubeflow SDK knows no `amd.com/gpu` device: the validator wants a `cpu` limit next to it.
        let cpu = if r.resource == "amd.com/gpu" { "  resources: {limits: {cpu: \"32\"}}\n" } else { "" };
        yaml += &runtime_doc(
            &format!("g{i}"),
            &format!(
                "  platform: {}\n  numNodes: 2\n{cpu}  accelerator:\n    gpu: {{model: {}, count: {}{pin}}}",
                r.platform, r.model, r.count
            ),
        );
    }
    let runtimes = render(&yaml).unwrap_or_else(|e| panic!("rendering the GPU table failed:\n{}", e.join("\n")));
    for (i, r) in rows.iter().enumerate() {
        let rt = &runtimes[&format!("g{i}")];
        let ctx = format!("{} on {} x{}", r.model, r.platform, r.count);
        let c = node_container(rt);
        assert_eq!(c["resources"]["limits"][&r.resource], r.count.to_string().as_str(), "{ctx}: limit");
        assert_eq!(string_map(&pod(rt)["nodeSelector"]), r.node_selector, "{ctx}: nodeSelector");
        // AKS GPU pools made as the AKS GPU guide says are tainted `sku=gpu:NoSchedule`: rendered
        // runtimes tolerate it too (nodes.yaml, the table `fit` reads).
        let mut tolerations = r.toleration_keys.clone();
        if r.platform == "aks" && r.resource == "nvidia.com/gpu" {
            tolerations.insert("sku".to_string());
        }
        assert_eq!(toleration_keys(rt), tolerations, "{ctx}: tolerations");
        assert_eq!(rt["spec"]["mlPolicy"]["numNodes"], 2, "{ctx}");
        assert!(!jobset_annotations(rt).contains_key(EXCLUSIVE), "{ctx}: exclusive placement is for TPU slices");
        let affinity = &pod(rt)["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
        if let Some(mt) = &r.machine_type {
            let annotations = &rt["metadata"]["annotations"];
            let summary = annotations["jax-runtimes.dev/accelerator"].as_str().unwrap();
            let several: Vec<&str> = mt.split('|').collect();
            for m in &several {
                assert!(summary.contains(m), "{ctx}: `{summary}`");
            }
            assert_eq!(annotations["jax-runtimes.dev/machine-types"], several.join(","), "{ctx}: the machine types it assumed");
            if several.len() > 1 {
                let e = &affinity[0]["matchExpressions"][0];
                assert_eq!((e["key"].as_str(), e["operator"].as_str()), (Some("node.kubernetes.io/instance-type"), Some("In")), "{ctx}");
                assert_eq!(e["values"], serde_json::json!(several), "{ctx}");
            } else {
                assert!(affinity.is_null(), "{ctx}: one machine type is a nodeSelector");
            }
        } else {
            assert!(affinity.is_null(), "{ctx}");
        }
    }
}

#[test]
fn invalid_gpu_shapes_are_refused_with_what_exists() {
    let data = &accelerators::data().gpu;
    let h100 = data.model("h100-80gb").unwrap();
    match data.place(h100, Some(16), "gke", None) {
        Err(GpuError::TooMany { limit: 8, shapes, .. }) => assert!(shapes.iter().any(|s| s.contains("a3-highgpu-8g")), "{shapes:?}"),
        other => panic!("16 H100 on one GKE node: {other:?}"),
    }
    let mi300x = data.model("mi300x").unwrap();
    match data.place(mi300x, Some(8), "gke", None) {
        Err(GpuError::NotOnPlatform { available, .. }) => assert_eq!(available, vec!["aks".to_string(), "generic".to_string()]),
        other => panic!("MI300X on GKE: {other:?}"),
    }
    assert!(matches!(data.place(data.model("l4").unwrap(), None, "aks", None), Err(GpuError::NotOnPlatform { .. })));
    assert!(matches!(data.place(h100, Some(8), "eks", Some("p4d.24xlarge")), Err(GpuError::UnknownMachineType { .. })));
    assert!(matches!(data.place(h100, Some(0), "eks", None), Err(GpuError::Zero)));
    assert!(matches!(data.place(h100, Some(2), "eks", Some("p5.4xlarge")), Err(GpuError::TooMany { limit: 1, .. })));
    assert!(data.model("h300").is_err());

    let cases = [
        ("  platform: gke\n  accelerator:\n    gpu: {model: h100-80gb, count: 16}", "spec.accelerator.gpu.count", "a3-highgpu-8g"),
        ("  platform: gke\n  accelerator:\n    gpu: {model: mi300x}", "spec.platform", "aks"),
        (
            "  platform: eks\n  accelerator:\n    gpu: {model: h100-80gb, machineType: p4d.24xlarge}",
            "spec.accelerator.gpu.machineType",
            "p5.48xlarge",
        ),
        ("  accelerator:\n    gpu: {model: h300}", "spec.accelerator.gpu.model", "h100-80gb"),
        ("  accelerator:\n    gpu: {model: mi300x, vendor: nvidia}", "spec.accelerator.gpu.vendor", "amd"),
    ];
    for (spec, field, hint) in cases {
        let err = render(&runtime_doc("x", spec)).unwrap_err().join("\n");
        assert!(err.contains(field) && err.contains(hint), "{spec}: expected {field} and {hint} in {err}");
    }
}

#[test]
fn gpu_count_defaults_to_a_whole_machine() {
    let data = &accelerators::data().gpu;
    let shape = data.place(data.model("b200").unwrap(), None, "eks", None).unwrap();
    assert_eq!((shape.count, shape.machine_type.as_deref()), (8, Some("p6-b200.48xlarge")));
    let shape = data.place(data.model("gb200").unwrap(), None, "gke", None).unwrap();
    assert_eq!(shape.count, 4);
    // The usual machine, not the largest: a2-megagpu-16g is the only 16-GPU A100 machine, and the
    // usual a2-highgpu-8g pools would leave every 16-GPU pod Pending.
    for platform in ["gke", "generic"] {
        let shape = data.place(data.model("a100-40gb").unwrap(), None, platform, None).unwrap();
        assert_eq!(shape.count, 8, "{platform}");
    }
    assert_eq!(data.place(data.model("l4").unwrap(), None, "eks", None).unwrap().count, 1, "most L4 machines carry one");
}

// ---------------------------------------------------------------------------------------------
// Pod choices: shared memory and host network

#[test]
fn shared_memory_is_on_for_accelerators_and_host_network_is_opt_in() {
    let yaml = [
        runtime_doc("tpu", "  accelerator:\n    tpu: {type: v6e, topology: 4x4}"),
        runtime_doc("gpu", "  accelerator:\n    gpu: {model: h100-80gb}"),
        runtime_doc("cpu", "  accelerator:\n    cpu: {}"),
        runtime_doc(
            "tpu-hostnet",
            "  hostNetwork: true\n  sharedMemory: {sizeLimit: 64Gi}\n  accelerator:\n    tpu: {type: v6e, topology: 4x4}",
        ),
        runtime_doc("gpu-noshm", "  sharedMemory: {enabled: false}\n  accelerator:\n    gpu: {model: h100-80gb}"),
    ]
    .concat();
    let rts = render(&yaml).unwrap_or_else(|e| panic!("{}", e.join("\n")));
    let shm = |name: &str| -> Option<Value> {
        let p = pod(&rts[name]);
        let vol = p["volumes"].as_array().and_then(|v| v.iter().find(|v| v["emptyDir"]["medium"] == "Memory").cloned())?;
        let mounted = node_container(&rts[name])["volumeMounts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["mountPath"] == "/dev/shm" && m["name"] == vol["name"]);
        assert!(mounted, "{name}: memory volume not mounted at /dev/shm");
        Some(vol)
    };
    assert!(shm("tpu").is_some() && shm("gpu").is_some(), "GPU and TPU runtimes get a memory-backed /dev/shm");
    assert!(shm("cpu").is_none() && shm("gpu-noshm").is_none());
    assert_eq!(shm("tpu-hostnet").unwrap()["emptyDir"]["sizeLimit"], "64Gi");
    for name in ["tpu", "gpu", "cpu", "gpu-noshm"] {
        assert!(pod(&rts[name]).get("hostNetwork").is_none(), "{name}: hostNetwork is off by default");
    }
    assert_eq!(pod(&rts["tpu-hostnet"])["hostNetwork"], true);
    assert_eq!(pod(&rts["tpu-hostnet"])["dnsPolicy"], "ClusterFirstWithHostNet");
}

// ---------------------------------------------------------------------------------------------
// `jax-runtimes accelerators`

fn accelerators_json(args: &[&str]) -> Vec<Value> {
    let out = support::cli(&["accelerators"]).args(args).args(["--format", "json"]).output().unwrap();
    assert!(out.status.success(), "accelerators {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap()
}

#[test]
fn the_accelerators_command_lists_the_documented_shapes() {
    let v5e = accelerators_json(&["--kind", "tpu", "--type", "v5e"]);
    assert!(v5e.iter().all(|r| r["kind"] == "tpu" && r["name"] == "v5e"));
    let two_by_four: BTreeSet<(u64, u64)> =
        v5e.iter().filter(|r| r["topology"] == "2x4").map(|r| (r["hosts"].as_u64().unwrap(), r["perHost"].as_u64().unwrap())).collect();
    assert_eq!(two_by_four, BTreeSet::from([(1, 8), (2, 4)]));

    let tpus = accelerators_json(&["--kind", "tpu"]);
    for r in tpu_rows() {
        assert!(
            tpus.iter().any(|row| row["name"] == r.generation.as_str()
                && row["topology"] == r.topology.as_str()
                && row["perHost"] == r.chips_per_host
                && row["hosts"] == r.hosts
                && row["acceleratorType"] == r.accelerator_type.as_str()),
            "`accelerators --kind tpu` lacks {r:?}"
        );
    }

    let eks = accelerators_json(&["--kind", "gpu", "--platform", "eks"]);
    assert!(eks.iter().all(|r| r["platform"] == "eks"));
    for r in gpu_rows().into_iter().filter(|r| r.platform == "eks") {
        for mt in r.machine_type.as_deref().unwrap().split('|') {
            assert!(eks.iter().any(|row| row["name"] == r.model.as_str() && row["machineType"] == mt), "eks listing lacks {mt}");
        }
    }

    let fabric = |machine: &str| eks.iter().find(|r| r["machineType"] == machine).and_then(|r| r["fabric"].as_str()).map(str::to_string);
    assert_eq!(fabric("p5.48xlarge").as_deref(), Some("efa"), "the listing names the machine type's fabric");
    assert_eq!(fabric("g6.48xlarge"), None);

    let out = support::cli(&["accelerators", "--kind", "tpu", "--type", "v9"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("v5e"), "an unknown generation should list the known ones");
}
