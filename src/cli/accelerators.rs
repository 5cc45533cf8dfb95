//! `jax-runtimes accelerators`: every accelerator shape of the accelerator data, filtered, as a
//! table, YAML or JSON.

use std::collections::BTreeMap;

use clap::ValueEnum;
use serde::Serialize;

use super::out;
use crate::accelerators::{data, AcceleratorError, GpuModel, TpuGeneration};
use crate::exit::Exit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    Cpu,
    Gpu,
    Tpu,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    Table,
    Yaml,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct AcceleratorsArgs {
    /// Only this kind.
    #[arg(long, value_enum)]
    pub kind: Option<Kind>,
    /// Only this TPU generation (e.g. v5e) or GPU model (e.g. h100-80gb).
    #[arg(long)]
    pub generation: Option<String>,
    /// Only GPU shapes on this platform (gke, eks, aks, generic, ...).
    #[arg(long)]
    pub platform: Option<String>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = TableFormat::Table)]
    pub output: TableFormat,
}

pub fn run(a: &AcceleratorsArgs) -> Exit {
    if let Some(p) = &a.platform {
        if let Err(e) = data().platform(p) {
            out::error(&e.to_string());
            return Exit::Usage;
        }
    }
    let kind = a.kind.map(|k| match k {
        Kind::Cpu => "cpu",
        Kind::Gpu => "gpu",
        Kind::Tpu => "tpu",
    });
    let rows = match table(kind, a.generation.as_deref(), a.platform.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            out::error(&e);
            return Exit::Usage;
        }
    };
    let text = match a.output {
        TableFormat::Json => serde_json::to_string_pretty(&rows).map(|s| s + "\n").map_err(|e| e.to_string()),
        TableFormat::Yaml => crate::yaml::to_string(&rows).map_err(|e| e.to_string()),
        TableFormat::Table => Ok(format_table(&rows)),
    };
    match text {
        Ok(t) => out::stdout(&t),
        Err(e) => {
            out::error(&e);
            Exit::Usage
        }
    }
}

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
    /// The GPU fabric of the machine type (`catalog/accelerators/fabrics.yaml`), or empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub fabric: String,
}

/// Every known shape, filtered.
pub fn table(kind: Option<&str>, name: Option<&str>, platform: Option<&str>) -> Result<Vec<Row>, String> {
    let d = data();
    let mut rows = Vec::new();
    let err = |e: AcceleratorError| e.to_string();
    if kind.is_none_or(|k| k == "tpu") && platform.is_none_or(|p| d.tpu.platforms.iter().any(|t| t == p)) {
        let gens: Vec<&TpuGeneration> = match name {
            Some(n) if kind == Some("tpu") => vec![d.tpu.generation(n).map_err(err)?],
            Some(n) => d.tpu.generation(n).map(|g| vec![g]).unwrap_or_default(),
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
    if kind.is_none_or(|k| k == "gpu") {
        let models: Vec<&GpuModel> = match name {
            Some(n) if kind == Some("gpu") => vec![d.gpu.model(n).map_err(err)?],
            Some(n) => d.gpu.model(n).map(|m| vec![m]).unwrap_or_default(),
            None => d.gpu.models.iter().collect(),
        };
        for m in models {
            for p in m.platforms() {
                if platform.is_some_and(|want| want != p) {
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
                        platform: p.to_string(),
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
            fabric: String::new(),
        });
    }
    if rows.is_empty() {
        return Err("no accelerator shape matches these filters".into());
    }
    Ok(rows)
}

/// Rows as an aligned text table.
pub fn format_table(rows: &[Row]) -> String {
    let header = ["KIND", "NAME", "PLATFORM", "TOPOLOGY", "TYPE", "MACHINE", "HOSTS", "PER-HOST", "RESOURCE", "NODE SELECTOR", "FABRIC"];
    let cells: Vec<[String; 11]> = rows
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
                if r.fabric.is_empty() { "-".into() } else { r.fabric.clone() },
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
