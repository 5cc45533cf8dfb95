//! `jax-runtimes schema`: the JSON Schema of the catalog kinds ([`crate::catalog::schema`]), with
//! the names of the accelerator data.

use crate::exit::Exit;

use super::out;

pub fn run() -> Exit {
    out::stdout(&(text() + "\n"))
}

/// The schema as pretty JSON (what `docs/schema/jax-runtimes.schema.json` holds).
pub fn text() -> String {
    crate::catalog::schema::text()
}
