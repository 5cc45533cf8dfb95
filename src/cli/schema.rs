//! `jax-runtimes schema`: the JSON Schema of the catalog kinds, with the platforms and image keys
//! of the accelerator data.

use crate::accelerators::data;
use crate::catalog::{self, Choice};
use crate::exit::Exit;

use super::out;

pub fn run() -> Exit {
    out::stdout(&(text() + "\n"))
}

/// The schema as pretty JSON (what `docs/schema/jax-runtimes.schema.json` holds).
pub fn text() -> String {
    let d = data();
    let platforms: Vec<Choice> = d.platforms.platforms.iter().map(|p| Choice { name: &p.name, description: &p.description }).collect();
    let mut images = vec![Choice { name: "cpu", description: "CPU runtimes." }];
    images.extend(d.gpu.vendors.iter().map(|v| Choice { name: &v.image_key, description: &v.description }));
    images.push(Choice { name: "tpu", description: "TPU runtimes." });
    serde_json::to_string_pretty(&catalog::json_schema(&platforms, &images)).unwrap_or_default()
}
