//! `jax-runtimes accelerators`: the accelerator data, filtered, as a summary that fits a
//! terminal (one row per TPU generation, one per GPU model and platform), as the full table of
//! every shape (`--all`), or as YAML or JSON rows for tools.

use std::collections::BTreeMap;

use clap::ValueEnum;
use serde::Serialize;

use super::out;
use crate::accelerators::{data, AcceleratorError, GpuModel, TpuGeneration};
use crate::exit::Exit;
use crate::words;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    Cpu,
    Gpu,
    Tpu,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Cpu => "cpu",
            Kind::Gpu => "gpu",
            Kind::Tpu => "tpu",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    /// For people: a summary, or every shape with `--all`.
    Table,
    /// Every shape, as YAML rows.
    Yaml,
    /// Every shape, as JSON rows.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct AcceleratorsArgs {
    /// Only this kind.
    #[arg(long, value_enum)]
    pub kind: Option<Kind>,
    /// Only this TPU generation (e.g. v5e, or an alias such as tpu-v5-lite-podslice).
    #[arg(long = "type", value_name = "TPU")]
    pub tpu_type: Option<String>,
    /// Only this GPU model (e.g. h100-80gb).
    #[arg(long, value_name = "GPU")]
    pub model: Option<String>,
    /// Only shapes on this platform (gke, eks, aks, generic, ...).
    #[arg(long)]
    pub platform: Option<String>,
    /// Every shape, one row each (the full table), instead of the summary.
    #[arg(long)]
    pub all: bool,
    /// Output format; YAML and JSON always hold every shape.
    #[arg(long, value_enum, default_value_t = TableFormat::Table)]
    pub format: TableFormat,
    /// Old spelling of `--format`: refused with the new one.
    #[arg(short = 'o', long = "output", hide = true, value_name = "FORMAT")]
    pub old_output: Option<String>,
    /// Old spelling of `--type` / `--model`: refused with the new ones.
    #[arg(long = "generation", hide = true, value_name = "NAME")]
    pub old_generation: Option<String>,
}

/// What to list.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub kind: Option<Kind>,
    pub tpu_type: Option<String>,
    pub model: Option<String>,
    pub platform: Option<String>,
}

impl Filter {
    /// Whether rows of `kind` are listed: the kind asked for, else the kinds the name filters
    /// are for, else TPU and GPU (and CPU in the summary).
    fn wants(&self, kind: Kind) -> bool {
        match (self.kind, &self.tpu_type, &self.model) {
            (Some(k), _, _) => k == kind,
            (None, None, None) => true,
            (None, t, m) => (kind == Kind::Tpu && t.is_some()) || (kind == Kind::Gpu && m.is_some()),
        }
    }
}

pub fn run(a: &AcceleratorsArgs) -> Exit {
    if let Some(old) = &a.old_output {
        out::error(&format!(
            "`-o` is the output directory in jax-runtimes; the format is `--format`: use `jax-runtimes accelerators --format {old}`"
        ));
        return Exit::Usage;
    }
    if let Some(old) = &a.old_generation {
        let instead = match (data().tpu.generation(old).is_ok(), data().gpu.model(old).is_ok()) {
            (true, false) => format!("use `--type {old}`"),
            (false, true) => format!("use `--model {old}`"),
            _ => format!("use `--type {old}` or `--model {old}`"),
        };
        out::error(&format!("`--generation` is now `--type` for TPU generations and `--model` for GPU models: {instead}"));
        return Exit::Usage;
    }
    let filter = Filter { kind: a.kind, tpu_type: a.tpu_type.clone(), model: a.model.clone(), platform: a.platform.clone() };
    if let Err(e) = check(&filter) {
        out::error(&e);
        return Exit::Usage;
    }
    let rows = match table(&filter) {
        Ok(r) => r,
        Err(e) => {
            out::error(&e);
            return Exit::Usage;
        }
    };
    let text = match a.format {
        TableFormat::Json => serde_json::to_string_pretty(&rows).map(|s| s + "\n").map_err(|e| e.to_string()),
        TableFormat::Yaml => crate::yaml::to_string(&rows).map_err(|e| e.to_string()),
        TableFormat::Table if a.all => Ok(format_table(&rows)),
        TableFormat::Table => Ok(summary(&rows, &filter)),
    };
    match text {
        Ok(t) => out::stdout(&t),
        Err(e) => {
            out::error(&e);
            Exit::Usage
        }
    }
}

/// Filters that contradict each other, or name what the data does not know.
fn check(f: &Filter) -> Result<(), String> {
    if let Some(p) = &f.platform {
        data().platform(p).map_err(|e| e.to_string())?;
    }
    match (f.kind, &f.tpu_type, &f.model) {
        (Some(k), Some(_), _) if k != Kind::Tpu => {
            Err(format!("`--type` picks a TPU generation; with `--kind {}` use `--model`", k.name()))
        }
        (Some(k), _, Some(_)) if k != Kind::Gpu => Err(format!("`--model` picks a GPU model; with `--kind {}` use `--type`", k.name())),
        _ => Ok(()),
    }
}

/// One row of `jax-runtimes accelerators --all` (and of its YAML and JSON).
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
    /// The GPU fabric of the machine type (`catalog/accelerators/fabrics.yaml`), or empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub fabric: String,
}

/// Every known shape, filtered: TPU and GPU rows (CPU only when `--kind cpu` asks for it).
pub fn table(f: &Filter) -> Result<Vec<Row>, String> {
    let d = data();
    let mut rows = Vec::new();
    let err = |e: AcceleratorError| e.to_string();
    if f.wants(Kind::Tpu) && f.platform.as_deref().is_none_or(|p| d.tpu.platforms.iter().any(|t| t == p)) {
        let gens: Vec<&TpuGeneration> = match &f.tpu_type {
            Some(n) => vec![d.tpu.generation(n).map_err(err)?],
            None => d.tpu.generations.iter().collect(),
        };
        for g in gens {
            for s in g.all_shapes() {
                rows.push(Row {
                    kind: "tpu".into(),
                    name: g.name.clone(),
                    platform: d.tpu.platforms.first().cloned().unwrap_or_default(),
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
                    fabric: String::new(),
                });
            }
        }
    }
    if f.wants(Kind::Gpu) {
        let models: Vec<&GpuModel> = match &f.model {
            Some(n) => vec![d.gpu.model(n).map_err(err)?],
            None => d.gpu.models.iter().collect(),
        };
        for m in models {
            for p in m.platforms() {
                if f.platform.as_ref().is_some_and(|want| want != p) {
                    continue;
                }
                let Some(on) = m.on(p) else { continue };
                let shapes: Vec<(Option<String>, u32)> = if on.machine_types.is_empty() {
                    vec![(None, on.max_gpus())]
                } else {
                    on.machine_types.iter().map(|mt| (Some(mt.name.clone()), mt.gpus)).collect()
                };
                for (mt, gpus) in shapes {
                    let placed = d.gpu.place(m, Some(gpus), p, mt.as_deref()).map_err(|e| e.to_string())?;
                    let fabric = mt.as_deref().and_then(|mt| d.fabrics.of_machine(p, mt)).map(|(f, _)| f.name.clone()).unwrap_or_default();
                    rows.push(Row {
                        kind: "gpu".into(),
                        name: m.name.clone(),
                        platform: p.clone(),
                        topology: String::new(),
                        accelerator_type: String::new(),
                        machine_type: mt.unwrap_or_else(|| "-".into()),
                        hosts: 1,
                        per_host: gpus,
                        resource: placed.resource,
                        node_selector: placed.node_selector,
                        fabric,
                    });
                }
            }
        }
    }
    if f.kind == Some(Kind::Cpu) {
        rows.push(cpu_row());
    }
    if rows.is_empty() {
        return Err("no accelerator shape matches these filters".into());
    }
    Ok(rows)
}

fn cpu_row() -> Row {
    Row {
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
        fabric: String::new(),
    }
}

/// Aligned columns, two spaces apart, no trailing spaces.
fn columns(header: &[&str], cells: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for c in cells {
        for (i, s) in c.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(s.chars().count());
            }
        }
    }
    let mut out = String::new();
    let mut line = |cols: Vec<&str>| {
        let last = cols.len().saturating_sub(1);
        let l: Vec<String> = cols
            .iter()
            .enumerate()
            .map(|(i, s)| if i == last { s.to_string() } else { format!("{:w$}", s, w = widths.get(i).copied().unwrap_or(0)) })
            .collect();
        out.push_str(l.join("  ").trim_end());
        out.push('\n');
    };
    line(header.to_vec());
    for c in cells {
        line(c.iter().map(String::as_str).collect());
    }
    out
}

/// Rows as an aligned text table (`--all`).
pub fn format_table(rows: &[Row]) -> String {
    let header = ["KIND", "NAME", "PLATFORM", "TOPOLOGY", "TYPE", "MACHINE", "HOSTS", "PER-HOST", "RESOURCE", "NODE SELECTOR", "FABRIC"];
    let dash = |s: &str| if s.is_empty() { "-".to_string() } else { s.to_string() };
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.kind.clone(),
                r.name.clone(),
                r.platform.clone(),
                dash(&r.topology),
                dash(&r.accelerator_type),
                r.machine_type.clone(),
                r.hosts.to_string(),
                r.per_host.to_string(),
                r.resource.clone(),
                r.node_selector.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","),
                dash(&r.fabric),
            ]
        })
        .collect();
    columns(&header, &cells)
}

/// `4` or `1-64`.
fn range(values: impl IntoIterator<Item = u32>) -> String {
    let v: Vec<u32> = values.into_iter().collect();
    match (v.iter().min(), v.iter().max()) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) => format!("{a}-{b}"),
        _ => "-".into(),
    }
}

/// `1, 2, 4, 8`: the distinct values, sorted.
fn list(values: impl IntoIterator<Item = u32>) -> String {
    let mut v: Vec<u32> = values.into_iter().collect();
    v.sort_unstable();
    v.dedup();
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// Distinct names, in order: up to four with a shared stem and short ends as `stem{a,b}`
/// (`a3-highgpu-{1g,8g}`), else up to three as they are, more as `first .. last (N)`.
fn names(values: &[String]) -> String {
    let mut v: Vec<&str> = Vec::new();
    for s in values {
        if !v.contains(&s.as_str()) {
            v.push(s);
        }
    }
    // The longest common prefix that ends in `-`, `.` or `_`.
    let stem = |a: &str, b: &str| {
        let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
        a.get(..common).and_then(|c| c.rfind(['-', '.', '_'])).map(|i| i + 1).unwrap_or(0)
    };
    let shared = v.iter().skip(1).fold(v.first().map(|f| f.len()).unwrap_or(0), |n, s| n.min(stem(v[0], s)));
    match v.as_slice() {
        [] => "-".into(),
        [one] => one.to_string(),
        [first, ..] if v.len() <= 4 && shared > 0 && v.iter().all(|s| s.len() - shared <= 8) => {
            let rest: Vec<&str> = v.iter().map(|s| s.get(shared..).unwrap_or(s)).collect();
            format!("{}{{{}}}", first.get(..shared).unwrap_or_default(), rest.join(","))
        }
        [first, .., last] if v.len() > 3 => format!("{first} .. {last} ({})", v.len()),
        all => all.join(", "),
    }
}

/// `v5litepod-1..256`: the accelerator types of a generation, smallest and largest.
fn type_range(smallest: &str, largest: &str) -> String {
    match (smallest.rsplit_once('-'), largest.rsplit_once('-')) {
        _ if smallest == largest => smallest.to_string(),
        (Some((p, a)), Some((q, b))) if p == q => format!("{p}-{a}..{b}"),
        _ => format!("{smallest} .. {largest}"),
    }
}

/// What the summary groups rows by: kind and name, and for GPUs the platform.
fn group_key(r: &Row) -> (&str, &str, &str) {
    (r.kind.as_str(), r.name.as_str(), if r.kind == "gpu" { r.platform.as_str() } else { "" })
}

/// The summary: one row per TPU generation, one per GPU model and platform, and the CPU line,
/// with how to see more.
pub fn summary(rows: &[Row], f: &Filter) -> String {
    let mut out = String::new();
    // TPU rows by generation, GPU rows by model and platform, in the order of the data.
    let mut groups: Vec<(&str, &str, Vec<&Row>)> = Vec::new();
    for r in rows {
        match groups.iter_mut().find(|(_, _, g)| g.first().is_some_and(|first| group_key(first) == group_key(r))) {
            Some((_, _, g)) => g.push(r),
            None => groups.push((&r.kind, &r.name, vec![r])),
        }
    }
    let tpu: Vec<Vec<String>> = groups
        .iter()
        .filter(|(k, _, _)| *k == "tpu")
        .map(|(_, name, g)| {
            let chips = |r: &Row| r.hosts * r.per_host;
            // The largest slice: most chips, then the most cube-like (smallest surface).
            let surface = |r: &Row| {
                let d = crate::accelerators::parse_topology(&r.topology).unwrap_or_default();
                d.iter().enumerate().flat_map(|(i, a)| d.iter().skip(i + 1).map(move |b| u64::from(*a) * u64::from(*b))).sum::<u64>()
            };
            let smallest = g.iter().min_by_key(|r| (chips(r), surface(r)));
            let largest = g.iter().max_by_key(|r| (chips(r), std::cmp::Reverse(surface(r))));
            let mut topologies: Vec<&str> = Vec::new();
            for r in g {
                if !topologies.contains(&r.topology.as_str()) {
                    topologies.push(&r.topology);
                }
            }
            let (small, large) = match (smallest, largest) {
                (Some(a), Some(b)) => (*a, *b),
                _ => return vec![name.to_string()],
            };
            let span =
                if small.topology == large.topology { small.topology.clone() } else { format!("{} .. {}", small.topology, large.topology) };
            let machine_types: Vec<String> = g.iter().map(|r| r.machine_type.clone()).collect();
            vec![
                name.to_string(),
                format!("{span} ({})", topologies.len()),
                type_range(&small.accelerator_type, &large.accelerator_type),
                range(g.iter().map(|r| chips(r))),
                range(g.iter().map(|r| r.hosts)),
                list(g.iter().map(|r| r.per_host)),
                names(&machine_types),
            ]
        })
        .collect();
    let gpu: Vec<Vec<String>> = groups
        .iter()
        .filter(|(k, _, _)| *k == "gpu")
        .map(|(_, name, g)| {
            let machine_types: Vec<String> = g.iter().filter(|r| r.machine_type != "-").map(|r| r.machine_type.clone()).collect();
            let per_node = if machine_types.is_empty() {
                range(1..=g.iter().map(|r| r.per_host).max().unwrap_or(0))
            } else {
                list(g.iter().map(|r| r.per_host))
            };
            let first = g.first();
            vec![
                name.to_string(),
                first.map(|r| r.platform.clone()).unwrap_or_default(),
                per_node,
                if machine_types.is_empty() { "any (selected by node labels)".into() } else { names(&machine_types) },
                first.map(|r| r.resource.clone()).unwrap_or_default(),
            ]
        })
        .collect();
    if !tpu.is_empty() {
        let tpus: Vec<&Row> = rows.iter().filter(|r| r.kind == "tpu").collect();
        let mut platforms: Vec<&str> = tpus.iter().map(|r| r.platform.as_str()).collect();
        platforms.dedup();
        out.push_str(&format!("TPU slices on {} ({}):\n", platforms.join(", "), words::count(tpus.len(), "shape")));
        out.push_str(&columns(&["TYPE", "TOPOLOGIES", "ACCELERATOR TYPES", "CHIPS", "HOSTS", "CHIPS PER HOST", "MACHINE TYPES"], &tpu));
    }
    if !gpu.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("GPU nodes ({}):\n", words::count(rows.iter().filter(|r| r.kind == "gpu").count(), "shape")));
        out.push_str(&columns(&["MODEL", "PLATFORM", "GPUS PER NODE", "MACHINE TYPES", "RESOURCE"], &gpu));
    }
    if f.wants(Kind::Cpu) && f.tpu_type.is_none() && f.model.is_none() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("CPU nodes: `accelerator: {cpu: {}}` on any node, no accelerator resource.\n");
    }
    out.push_str("\n`--all` lists every shape with its hosts, machine type and node selector; `--format json` and\n");
    out.push_str("`--format yaml` give them to tools. Filters: `--kind`, `--type` (TPU), `--model` (GPU), `--platform`.\n");
    out
}
