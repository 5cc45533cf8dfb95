//! Write stage: runtimes -> a YAML stream, or the files of a directory this tool owns ([`dir`]),
//! and the Markdown reference pages of `jax-runtimes docs` ([`pages`]).
//!
//! Ownership: a rendered YAML file is this tool's when its objects carry the generated marks, and
//! a folder records the catalog it belongs to ([`owned`]); a `jax-runtimes docs` page when its
//! first line is [`MARKDOWN_HEADER`]. Only such files are updated or pruned; every other file in
//! the directory is left alone.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diag::ObjectRef;
use crate::yaml::{self, YamlError};

pub mod dir;
pub mod fleet;
pub mod owned;
pub mod pages;
pub mod spool;

pub use dir::{apply, plan_for, DirError, Owner, Plan, HEADER, MARKDOWN, MARKDOWN_HEADER};

/// A runtime as the YAML text it is written as, with what the files need to know of it.
#[derive(Debug, Clone)]
pub struct Text {
    pub source: ObjectRef,
    pub file_name: String,
    /// One YAML document, no `---`, ending in a newline.
    pub yaml: String,
}

impl Text {
    /// `object` as YAML text, with the catalog object it came from and its file name.
    pub fn new(source: ObjectRef, file_name: String, object: &impl Serialize) -> Result<Text, YamlError> {
        let grown = yaml::to_string(object)?;
        // Held until every runtime is checked: copied to a block of its own size, without the
        // spare capacity the writer grew it by (shrinking in place keeps the block of an
        // allocator that reuses a block at least twice the size asked: up to 2x per runtime).
        let yaml = grown.as_str().to_owned();
        Ok(Text { yaml, source, file_name })
    }
}

/// The `kustomization.yaml` that `render -o` writes next to the runtimes (it opens with the
/// ownership header): part of the folder `validate DIR` or `fit DIR` is pointed at, skipped
/// without a word.
pub fn written_by_render(doc: &crate::read::Document) -> bool {
    doc.value.get("kind").and_then(|k| k.as_str()) == Some("Kustomization") && doc.source.text().is_some_and(|t| t.starts_with(HEADER))
}

/// The runtimes as one YAML stream.
pub fn stream(runtimes: &[Text]) -> String {
    yaml::join_documents(runtimes.iter().map(|r| r.yaml.as_str()))
}

/// Why the files of a render cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    #[error("two runtimes would be written to the same file {0}")]
    SameFile(String),
    #[error(transparent)]
    Yaml(#[from] YamlError),
}

/// The generated files of a render into a directory: one per runtime (and Kueue object), each
/// with the header and its source; [`owned::plan`] adds the folder's `kustomization.yaml`.
pub fn files(runtimes: &[Text]) -> Result<BTreeMap<String, String>, FilesError> {
    let mut out = BTreeMap::new();
    for r in runtimes {
        let body = &r.yaml;
        if out.insert(r.file_name.clone(), format!("{HEADER}\n# Source: {}\n{body}", r.source)).is_some() {
            return Err(FilesError::SameFile(r.file_name.clone()));
        }
    }
    Ok(out)
}
