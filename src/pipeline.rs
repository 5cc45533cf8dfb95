//! The whole flow in one call: documents -> resolve -> render -> validate. The CLI and the KRM
//! adapter both call this, so they cannot disagree about what a catalog means.

use std::collections::HashSet;

use serde_json::Value;

use crate::diag::{has_errors, Diagnostic, ObjectRef};
use crate::read::Document;
use crate::{render, resolve, validate};

/// Validator rules on generated output whose finding the catalog stage already reports
/// (validator rule, catalog rule).
const COVERED_BY_CATALOG: [(&str, &str); 2] =
    [("jax/plugin-env", "catalog/jax-plugin-env"), ("sdk/unknown-device", "catalog/sdk-unreadable-device")];

/// One generated runtime.
#[derive(Debug, Clone)]
pub struct Runtime {
    /// The catalog object it came from (`JaxRuntime/x` or `JaxRuntimeMatrix/y`).
    pub source: ObjectRef,
    /// Stable file name: `clustertrainingruntime_<name>.yaml` or `trainingruntime_<ns>_<name>.yaml`.
    pub file_name: String,
    pub object: Value,
}

/// Everything generate produced: runtimes (or what the caller kept of each, see
/// [`generate_with`]), findings, and the documents that are not catalog objects.
#[derive(Debug)]
pub struct Generated<R = Runtime> {
    pub runtimes: Vec<R>,
    pub diagnostics: Vec<Diagnostic>,
    /// Input documents that are not catalog objects.
    pub ignored: Vec<Document>,
}

impl<R> Generated<R> {
    pub fn has_errors(&self) -> bool {
        has_errors(&self.diagnostics)
    }
}

/// The stable file name of a runtime.
pub fn file_name(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) => format!("trainingruntime_{ns}_{name}.yaml"),
        None => format!("clustertrainingruntime_{name}.yaml"),
    }
}

/// Resolves, renders and validates every catalog object in `docs`. On any error no runtime is
/// returned: callers never write a partial or invalid result.
pub fn generate(docs: &[Document]) -> Generated {
    generate_with(docs, |r| r)
}

/// `generate`, handing each runtime to `keep` as soon as it is checked and keeping what that
/// returns. `render` keeps only the YAML text: a runtime's JSON tree is several times its text,
/// and every runtime is held until the last one has passed its checks.
pub fn generate_with<R>(docs: &[Document], mut keep: impl FnMut(Runtime) -> R) -> Generated<R> {
    let resolution = resolve::resolve(docs);
    // Which catalog objects already have a finding that covers a validator rule: looked up once
    // per generated finding, so a catalog with a warning on every entry stays linear.
    let covered: HashSet<(&ObjectRef, &str)> = resolution
        .diagnostics
        .iter()
        .filter_map(|d| Some((d.object.as_ref()?, COVERED_BY_CATALOG.iter().find(|(_, c)| d.rule == *c)?.0)))
        .collect();
    let mut out = Generated { runtimes: Vec::new(), diagnostics: Vec::new(), ignored: resolution.ignored };
    // By value: each resolved entry is freed once its runtime is rendered.
    for r in resolution.runtimes {
        let typed = render::render(&r);
        let object = serde_json::to_value(&typed).expect("typed runtime serializes");
        let findings = validate::generated(&object, &typed);
        for d in findings {
            // The catalog stage already said it, in the user's own terms.
            if covered.contains(&(&r.origin.object, d.rule.as_str())) {
                continue;
            }
            let message = match &d.field {
                Some(f) => format!("in the generated runtime at `{f}`: {}", d.message),
                None => format!("in the generated runtime: {}", d.message),
            };
            let d = r.origin.locate(Diagnostic { message, field: None, ..d.with_object(r.origin.object.clone()) });
            // Point at the entry's name: the finding is about the whole runtime it generates.
            let name_path = if r.origin.field_prefix.is_empty() {
                "metadata.name".to_string()
            } else {
                format!("{}.metadata.name", r.origin.field_prefix)
            };
            let line = r.origin.doc.source.line(r.origin.doc.index, &name_path).or(d.line);
            out.diagnostics.push(Diagnostic { line, ..d });
        }
        out.runtimes.push(keep(Runtime { source: r.origin.object.clone(), file_name: file_name(r.namespace.as_deref(), &r.name), object }));
    }
    let generated = std::mem::replace(&mut out.diagnostics, resolution.diagnostics);
    out.diagnostics.extend(generated);
    if out.has_errors() {
        out.runtimes.clear();
    }
    out
}
