//! The middle of the flow in one call: catalog documents -> resolve -> render -> validate -> the
//! generated runtimes (each with what it was resolved from) and every finding. The CLI and the KRM
//! function both call this, so they cannot disagree about what a catalog means.

use std::collections::HashSet;

use serde_json::Value;

use crate::diag::{has_errors, Diagnostic, ObjectRef, Rule};
use crate::read::Document;
use crate::resolve::{Resolution, Resolved};
use crate::rules::{catalog, validate as rules, Layer};
use crate::trainer::TrainingRuntime;
use crate::{render, resolve, validate};

/// Validator rules on generated output whose finding the catalog stage already reports in the
/// catalog's own terms (validator rule, catalog rule).
static COVERED_BY_CATALOG: [(&Rule, &Rule); 2] =
    [(&rules::JAX_PLUGIN_ENV, &catalog::CATALOG_JAX_PLUGIN_ENV), (&rules::SDK_UNKNOWN_DEVICE, &catalog::CATALOG_SDK_UNREADABLE_DEVICE)];

/// One generated runtime: what it was resolved from, the typed object and its JSON form.
#[derive(Debug, Clone)]
pub struct Runtime {
    pub resolved: Resolved,
    pub runtime: TrainingRuntime,
    pub object: Value,
    /// Stable file name: `clustertrainingruntime_<name>.yaml` or `trainingruntime_<ns>_<name>.yaml`.
    pub file_name: String,
}

impl Runtime {
    /// The catalog object it came from (`JaxRuntime/x` or `JaxRuntimeMatrix/y`).
    pub fn source(&self) -> &ObjectRef {
        &self.resolved.origin.object
    }
}

/// Everything generate produced: runtimes (or what the caller kept of each, see
/// [`generate_with`]), findings, and the documents that are not catalog objects.
#[derive(Debug)]
pub struct Generated<R = Runtime> {
    pub runtimes: Vec<R>,
    pub diagnostics: Vec<Diagnostic>,
    /// Input documents that are not catalog objects.
    pub ignored: Vec<Document>,
    /// How many input documents were catalog objects (right or wrong).
    pub catalog_objects: usize,
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
    let Resolution { runtimes, diagnostics, ignored, catalog_objects } = resolve::resolve(docs);
    // Which catalog objects already have a finding that covers a validator rule: looked up once
    // per generated finding, so a catalog with a warning on every entry stays linear. A Kubernetes
    // rule the catalog stage reported covers itself; one reported on the defaults covers every
    // runtime (`None`).
    let covered: HashSet<(Option<ObjectRef>, &'static str)> = diagnostics
        .iter()
        .filter_map(|d| {
            let object = d.object.clone()?;
            let rule = match COVERED_BY_CATALOG.iter().find(|(_, c)| d.rule == *c) {
                Some((v, _)) => v.id,
                None if d.rule.layer == Layer::Kubernetes => d.rule.id,
                None => return None,
            };
            Some(((object.kind != crate::catalog::Kind::Defaults.name()).then_some(object), rule))
        })
        .collect();
    let mut out = Generated { runtimes: Vec::new(), diagnostics: Vec::new(), ignored, catalog_objects };
    // By value: each resolved entry is freed once its runtime is kept.
    for resolved in runtimes {
        let runtime = render::render(&resolved);
        let object = match serde_json::to_value(&runtime) {
            Ok(v) => v,
            Err(e) => {
                // Typed objects always serialize; say so if that ever changes, do not panic.
                out.diagnostics.push(
                    resolved
                        .origin
                        .locate(Diagnostic::new(&catalog::CATALOG_WRONG_TYPE, format!("the generated runtime cannot be serialized: {e}"))),
                );
                continue;
            }
        };
        for d in validate::generated(&object, &runtime) {
            if covered.contains(&(Some(resolved.origin.object.clone()), d.rule.id)) || covered.contains(&(None, d.rule.id)) {
                continue;
            }
            out.diagnostics.push(place_generated(&resolved, d));
        }
        let file_name = file_name(resolved.namespace.as_deref(), &resolved.name);
        out.runtimes.push(keep(Runtime { resolved, runtime, object, file_name }));
    }
    let generated = std::mem::replace(&mut out.diagnostics, diagnostics);
    out.diagnostics.extend(generated);
    if out.has_errors() {
        out.runtimes.clear();
    }
    out
}

/// A finding on a generated runtime, placed at the catalog entry it came from: its message says
/// where in the runtime, and it points at the entry's name (the finding is about the whole
/// runtime the entry generates).
fn place_generated(resolved: &Resolved, d: Diagnostic) -> Diagnostic {
    let origin = &resolved.origin;
    let message = match &d.field {
        Some(f) => format!("in the generated runtime at `{f}`: {}", d.message),
        None => format!("in the generated runtime: {}", d.message),
    };
    let d = origin.locate(Diagnostic { message, field: None, ..d.with_object(origin.object.clone()) });
    match origin.name_position() {
        Some(p) => Diagnostic { line: Some(p.line), column: p.column.map(|c| c.0), width: p.column.map(|c| c.1), ..d },
        None => d,
    }
}

/// The runtimes TrainJobs may reference, from documents that hold catalog objects and runtimes
/// (what `--runtimes` reads): every runtime the catalog objects generate, and every runtime
/// document as it is; the findings of the catalog, and the errors of a runtime document that
/// does not read into the typed model. Other documents are left out.
#[derive(Debug, Default)]
pub struct Runtimes {
    pub runtimes: Vec<TrainingRuntime>,
    pub diagnostics: Vec<Diagnostic>,
}

/// See [`Runtimes`].
pub fn runtimes(docs: &[Document]) -> Runtimes {
    let generated = generate(docs);
    let mut out = Runtimes { diagnostics: generated.diagnostics, ..Runtimes::default() };
    out.runtimes.extend(generated.runtimes.into_iter().map(|r| r.runtime));
    for doc in generated.ignored.iter().filter(|d| validate::is_runtime(&d.value)) {
        match validate::structure::typed(&doc.value) {
            Some(rt) => out.runtimes.push(rt),
            None => out.diagnostics.extend(
                validate::object(&doc.value, &validate::Options::default()).into_iter().filter(Diagnostic::is_error).map(|d| doc.locate(d)),
            ),
        }
    }
    out
}
