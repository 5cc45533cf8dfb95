//! The whole flow in one call: documents -> resolve -> render -> validate. The CLI and the KRM
//! adapter both call this, so they cannot disagree about what a catalog means.

use serde_json::Value;

use crate::diag::{has_errors, Diagnostic, ObjectRef};
use crate::read::Document;
use crate::{render, resolve, validate};

/// One generated runtime.
#[derive(Debug, Clone)]
pub struct Runtime {
    /// The catalog object it came from (`JaxRuntime/x` or `JaxRuntimeMatrix/y`).
    pub source: ObjectRef,
    /// Stable file name: `clustertrainingruntime_<name>.yaml` or `trainingruntime_<ns>_<name>.yaml`.
    pub file_name: String,
    pub object: Value,
}

/// Everything generate produced.
#[derive(Debug, Default)]
pub struct Generated {
    pub runtimes: Vec<Runtime>,
    pub diagnostics: Vec<Diagnostic>,
    /// Input documents that are not catalog objects.
    pub ignored: Vec<Document>,
}

impl Generated {
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
    let resolution = resolve::resolve(docs);
    let mut out = Generated { diagnostics: resolution.diagnostics, ignored: resolution.ignored, ..Default::default() };
    for r in &resolution.runtimes {
        let typed = render::render(r);
        let object = serde_json::to_value(&typed).expect("typed runtime serializes");
        let findings = validate::generated(&object);
        out.diagnostics.extend(findings.into_iter().map(|d| {
            let message = match &d.field {
                Some(f) => format!("the generated runtime fails at `{f}`: {}", d.message),
                None => format!("the generated runtime fails: {}", d.message),
            };
            r.origin.locate(Diagnostic { message, field: None, ..d.with_object(r.origin.object.clone()) })
        }));
        out.runtimes.push(Runtime { source: r.origin.object.clone(), file_name: file_name(r.namespace.as_deref(), &r.name), object });
    }
    if out.has_errors() {
        out.runtimes.clear();
    }
    out
}
