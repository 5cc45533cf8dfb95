//! Resolve stage: catalog documents -> fully specified runtimes. Sorts the documents by what they
//! are ([`crate::catalog::identify`]), applies `JaxRuntimeDefaults`, expands `JaxRuntimeMatrix`
//! objects ([`matrix`]), and resolves each entry ([`entry`]: accelerator lookup in [`tpu`] and
//! [`gpu`] with its interconnect in [`fabric`], resources, env, selectors). Every problem in the input is collected, so one bad entry
//! does not hide the others.

use std::collections::HashMap;

use crate::catalog::{self, Identity, JaxRuntime, JaxRuntimeDefaults, JaxRuntimeMatrix, Kind};
use crate::diag::{Diagnostic, ObjectRef};
use crate::gvk::Gvk;
use crate::read::Document;
use crate::rules::catalog::{CATALOG_DUPLICATE_NAME, CATALOG_NOT_AN_OBJECT};

pub mod capacity;
mod defaults;
pub mod entry;
pub mod fabric;
pub mod gpu;
pub mod initializers;
pub mod kubernetes;
pub mod matrix;
pub mod pod_template;
pub mod queue;
mod release;
mod resolved;
mod rows;
mod shape;
pub mod storage;
pub mod tpu;

pub use defaults::generator_labels;
pub use resolved::{Accel, Origin, Resolution, Resolved};

/// One entry to resolve: a `JaxRuntime`, or a row of a matrix (`row`: the matrix's index among
/// the input's matrices and the row's index in it).
struct Entry {
    runtime: JaxRuntime,
    origin: Origin,
    row: Option<(usize, usize)>,
}

/// The catalog objects of the input, read into their types.
#[derive(Default)]
struct Objects<'a> {
    entries: Vec<Entry>,
    defaults: Vec<(JaxRuntimeDefaults, &'a Document)>,
    matrices: Vec<(JaxRuntimeMatrix, &'a Document)>,
}

/// Resolves every catalog object among `docs`.
pub fn resolve(docs: &[Document]) -> Resolution {
    let mut res = Resolution::default();
    let mut objects = sort(docs, &mut res);
    let defaults = defaults::DefaultsSet::new(&objects.defaults, &mut res.diagnostics);
    let mut findings = rows::Findings::default();
    let matrices = expand_matrices(&objects.matrices, &mut objects.entries, &mut findings);
    // A finding on a matrix row is grouped with the same finding on the matrix's other rows.
    let report = |findings: &mut rows::Findings, entry: &Entry, d: Diagnostic| match entry.row {
        Some((m, row)) => findings.row(m, row, d),
        None => findings.push(entry.origin.locate(d)),
    };
    let mut seen: HashMap<(Option<String>, String), ObjectRef> = HashMap::new();
    // By value: each entry's typed object is freed once it is resolved.
    for entry in std::mem::take(&mut objects.entries) {
        let entry = &entry;
        let runtime = &entry.runtime;
        let origin = &entry.origin;
        let key = (runtime.metadata.namespace.clone(), runtime.metadata.name.clone());
        if let Some(first) = seen.get(&key) {
            let what = match &key.0 {
                Some(ns) => format!("TrainingRuntime `{}` in namespace `{ns}`", key.1),
                None => format!("ClusterTrainingRuntime `{}`", key.1),
            };
            findings.push(
                origin.locate(
                    Diagnostic::new(&CATALOG_DUPLICATE_NAME, format!("{what} is generated twice; {first} generates it too"))
                        .with_field("metadata.name")
                        .with_help("give every runtime a unique name"),
                ),
            );
            continue;
        }
        seen.insert(key, origin.object.clone());
        let spec = match defaults.of(runtime, &origin.doc.source.name) {
            Ok(spec) => spec,
            Err(d) => {
                report(&mut findings, entry, d);
                continue;
            }
        };
        match entry::resolve_entry(runtime, spec, origin.clone()) {
            Ok((resolved, warnings)) => {
                for w in warnings {
                    report(&mut findings, entry, w);
                }
                res.runtimes.push(resolved);
            }
            Err(errs) => {
                for e in errs {
                    report(&mut findings, entry, e);
                }
            }
        }
    }
    res.diagnostics.extend(findings.finish(&matrices));
    res.diagnostics.extend(defaults.unused());
    res.runtimes.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    res
}

/// Sorts the documents into catalog objects (read into their types) and the others.
fn sort<'a>(docs: &'a [Document], res: &mut Resolution) -> Objects<'a> {
    let mut objects = Objects::default();
    for doc in docs {
        if !doc.value.is_object() {
            res.diagnostics.push(doc.locate(Diagnostic::new(&CATALOG_NOT_AN_OBJECT, "a document must be a YAML mapping (an object)")));
            continue;
        }
        let object = ObjectRef::of(&doc.value);
        match catalog::identify(Gvk::of(&doc.value)) {
            Identity::Foreign => match crate::kinds::near_miss(Gvk::of(&doc.value)) {
                Some(d) => res.diagnostics.push(doc.locate(d.with_object(object))),
                None => res.ignored.push(doc.clone()),
            },
            Identity::Misspelt(d) => {
                res.catalog_objects += 1;
                res.diagnostics.push(doc.locate(d.with_object(object)));
            }
            Identity::Ours(kind) => {
                res.catalog_objects += 1;
                match kind {
                    Kind::Runtime => {
                        if let Some(r) = shape::typed::<JaxRuntime>(doc, kind, &object, &mut res.diagnostics) {
                            let origin = Origin { doc: doc.place(), object, row: None, generated: None, field_prefix: "" };
                            objects.entries.push(Entry { runtime: r, origin, row: None });
                        }
                    }
                    Kind::Defaults => {
                        if let Some(d) = shape::typed::<JaxRuntimeDefaults>(doc, kind, &object, &mut res.diagnostics) {
                            objects.defaults.push((d, doc));
                        }
                    }
                    Kind::Matrix => {
                        if let Some(m) = shape::typed::<JaxRuntimeMatrix>(doc, kind, &object, &mut res.diagnostics) {
                            objects.matrices.push((m, doc));
                        }
                    }
                    Kind::Queue => {
                        if let Some(q) = shape::typed::<crate::catalog::JaxRuntimeQueue>(doc, Kind::Queue, &object, &mut res.diagnostics) {
                            res.queues.push((q, Origin { doc: doc.place(), object, row: None, generated: None, field_prefix: "" }));
                        }
                    }
                    Kind::Cluster => {
                        if let Some(c) = shape::typed::<crate::catalog::JaxCluster>(doc, Kind::Cluster, &object, &mut res.diagnostics) {
                            res.clusters.push((c, Origin { doc: doc.place(), object, row: None, generated: None, field_prefix: "" }));
                        }
                    }
                    // The KRM function's validator config describes no runtime.
                    Kind::Validation => {}
                }
            }
        }
    }
    objects
}

/// Every row of every matrix becomes an entry, within the input's budget of rows. Findings about a
/// matrix are placed in its document; those about its rows are grouped.
fn expand_matrices<'a>(
    matrices: &[(JaxRuntimeMatrix, &'a Document)],
    entries: &mut Vec<Entry>,
    findings: &mut rows::Findings,
) -> Vec<rows::Matrix<'a>> {
    let mut budget = matrix::Budget::default();
    let mut out = Vec::with_capacity(matrices.len());
    for (index, (m, doc)) in matrices.iter().enumerate() {
        let object = ObjectRef::new(Kind::Matrix.name(), &m.metadata.name);
        let mut expansion = matrix::expand(m, &mut budget);
        for d in std::mem::take(&mut expansion.findings) {
            findings.push(doc.locate(d.with_object(object.clone())));
        }
        for (row, d) in std::mem::take(&mut expansion.row_errors) {
            findings.row(index, row, d);
        }
        for (row, r) in expansion.rendered() {
            let mut origin = Origin {
                doc: doc.place(),
                object: object.clone(),
                row: Some(r.describe()),
                generated: None,
                field_prefix: "spec.template",
            };
            match shape::read::<JaxRuntime>(Kind::Runtime, &r.runtime) {
                Ok(runtime) => {
                    origin.generated = Some(runtime.metadata.name.clone());
                    entries.push(Entry { runtime, origin, row: Some((index, row)) });
                }
                Err(errors) => errors.into_iter().for_each(|d| findings.row(index, row, d)),
            }
        }
        // The rows' JSON is not needed any more: only their variables, for messages, and the
        // name each generated (a finding's `generated`).
        for r in &mut expansion.rows {
            let name = r.runtime.pointer("/metadata/name").cloned().unwrap_or_default();
            r.runtime = serde_json::json!({"metadata": {"name": name}});
        }
        out.push(rows::Matrix { doc, object, expansion });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn docs(text: &str) -> Vec<Document> {
        crate::read::parse_source(Arc::new(crate::read::Source::new("c.yaml", Some(text.to_string())))).unwrap()
    }

    fn rules(res: &Resolution) -> Vec<&'static str> {
        res.diagnostics.iter().map(|d| d.rule.id).collect()
    }

    #[test]
    fn foreign_objects_are_ignored_and_misspelt_catalog_objects_are_errors() {
        let res = resolve(&docs(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntme\nmetadata: {name: x}\n---\napiVersion: jax-runtimes.dev/v1alpha\nkind: JaxRuntime\nmetadata: {name: y}\n",
        ));
        assert_eq!(res.ignored.len(), 1);
        assert_eq!(res.catalog_objects, 2);
        assert_eq!(rules(&res), ["catalog/unknown-kind", "catalog/api-version"]);
        assert_eq!(res.diagnostics[0].line, Some(6), "the kind's line");
        assert_eq!(res.diagnostics[1].line, Some(9), "the apiVersion's line");
    }

    #[test]
    fn duplicate_names_name_both_objects() {
        let entry = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: x}\nspec: {accelerator: {cpu: {}}}\n";
        let res = resolve(&docs(&format!("{entry}---\n{entry}")));
        assert_eq!(res.runtimes.len(), 1);
        assert_eq!(rules(&res), ["catalog/duplicate-name"]);
        assert!(res.diagnostics[0].message.contains("JaxRuntime/x generates it too"));
    }

    #[test]
    fn runtimes_come_sorted_by_namespace_and_name() {
        let e = |n: &str, ns: &str| {
            format!("apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {{name: {n}{ns}}}\nspec: {{accelerator: {{cpu: {{}}}}}}\n")
        };
        let res = resolve(&docs(&[e("b", ""), e("a", ", namespace: z"), e("a", "")].join("---\n")));
        let names: Vec<(Option<&str>, &str)> = res.runtimes.iter().map(|r| (r.namespace.as_deref(), r.name.as_str())).collect();
        assert_eq!(names, [(None, "a"), (None, "b"), (Some("z"), "a")]);
        assert!(res.diagnostics.is_empty());
    }
}
