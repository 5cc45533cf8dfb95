//! Resolve stage: catalog documents -> fully specified runtimes. Sorts the documents by what they
//! are ([`crate::catalog::identify`]), applies `JaxRuntimeDefaults`, expands `JaxRuntimeMatrix`
//! objects ([`matrix`]), and resolves each entry ([`entry`]: accelerator lookup in [`tpu`] and
//! [`gpu`] with its interconnect in [`fabric`], resources, env, selectors). Every problem in the input is collected, so one bad entry
//! does not hide the others.

use std::borrow::Cow;
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
pub use resolved::{Accel, Origin, Resolved};

/// One entry to resolve: a `JaxRuntime`, or a row of a matrix (`row`: the matrix's index among
/// the input's matrices and the row's index in it).
struct Entry {
    runtime: Packed,
    origin: Origin,
    row: Option<(usize, usize)>,
}

/// A typed `JaxRuntime` kept as compact JSON until it is resolved: the struct is about 3 KB
/// whatever it holds (its optional Kubernetes fields are inline), its JSON a tenth of that, and a
/// catalog's entries are all held until every `JaxRuntimeDefaults` is known. Read back each time
/// it is resolved; the round trip gives the same value (tested below).
struct Packed(Box<str>);

impl Packed {
    fn new(r: &JaxRuntime) -> Result<Packed, Diagnostic> {
        // Copied to a block of its own size (see `write::Text::new`).
        serde_json::to_string(r).map(|s| Packed(Box::from(s.as_str()))).map_err(|e| unreadable_again(&e))
    }

    fn get(&self) -> Result<JaxRuntime, Diagnostic> {
        serde_json::from_str(&self.0).map_err(|e| unreadable_again(&e))
    }
}

/// A typed entry that does not serialize or read back (it cannot: both are derived): said, never
/// left out in silence.
fn unreadable_again(e: &serde_json::Error) -> Diagnostic {
    Diagnostic::new(&crate::rules::catalog::CATALOG_WRONG_TYPE, format!("the entry cannot be kept for resolving: {e}"))
}

/// The catalog objects of the input, read into their types. The documents of defaults and
/// matrices are kept (`kept`, indexed by the pairs): their findings are placed in them later.
/// Other documents are not: an entry keeps its typed object and where it was written.
#[derive(Default)]
struct Objects<'a> {
    entries: Vec<Entry>,
    defaults: Vec<(JaxRuntimeDefaults, usize)>,
    matrices: Vec<(JaxRuntimeMatrix, usize)>,
    kept: Vec<Cow<'a, Document>>,
}

/// Resolves every catalog object among `docs`: every finding, and the runtimes to generate
/// ([`Pending`]), each resolved again when it is taken, so that no more than one resolved runtime
/// is held at a time however large the catalog.
pub fn resolve(docs: &[Document]) -> Resolution {
    resolve_from(docs.iter().map(Cow::Borrowed))
}

/// [`resolve`], freeing each document once read into its type (what the other documents are,
/// and the findings, do not change): with documents parsed as they are taken
/// ([`crate::read::Texts::stream`]), the input's trees are never all held at once.
pub fn resolve_owned(docs: impl IntoIterator<Item = Document>) -> Resolution {
    resolve_from(docs.into_iter().map(Cow::Owned))
}

fn resolve_from<'a>(docs: impl Iterator<Item = Cow<'a, Document>>) -> Resolution {
    let mut res = Resolution::default();
    let mut objects = sort(docs, &mut res);
    let kept = std::mem::take(&mut objects.kept);
    let defaults_docs: Vec<(JaxRuntimeDefaults, &Document)> =
        std::mem::take(&mut objects.defaults).into_iter().map(|(d, i)| (d, kept[i].as_ref())).collect();
    let defaults = defaults::DefaultsSet::new(&defaults_docs, &mut res.diagnostics);
    drop(defaults_docs);
    let matrix_docs: Vec<(JaxRuntimeMatrix, &Document)> =
        std::mem::take(&mut objects.matrices).into_iter().map(|(m, i)| (m, kept[i].as_ref())).collect();
    let mut findings = rows::Findings::default();
    let matrices = expand_matrices(&matrix_docs, &mut objects.entries, &mut findings);
    // A finding on a matrix row is grouped with the same finding on the matrix's other rows.
    let report = |findings: &mut rows::Findings, entry: &Entry, d: Diagnostic| match entry.row {
        Some((m, row)) => findings.row(m, row, d),
        None => findings.push(entry.origin.locate(d)),
    };
    // The first entry of each runtime name (where it is is worked out only for a duplicate: a
    // line costs the document's line index).
    let mut seen: HashMap<(Option<String>, String), Origin> = HashMap::new();
    let mut pending = Vec::new();
    // By value: an entry that does not resolve is freed at once; one that does is kept, typed,
    // for [`Pending`] to resolve again (its resolved form, several times larger, is dropped).
    for entry in std::mem::take(&mut objects.entries) {
        let runtime = match entry.runtime.get() {
            Ok(r) => r,
            Err(d) => {
                report(&mut findings, &entry, d);
                continue;
            }
        };
        let runtime = &runtime;
        let origin = &entry.origin;
        let key = (runtime.metadata.namespace.clone(), runtime.metadata.name.clone());
        if let Some(first_origin) = seen.get(&key) {
            let first = &first_origin.object;
            let at = match first_origin.name_line() {
                Some(line) => format!("{}:{line}", first_origin.doc.source.name),
                None => first_origin.doc.source.name.clone(),
            };
            let what = match &key.0 {
                Some(ns) => format!("TrainingRuntime `{}` in namespace `{ns}`", key.1),
                None => format!("ClusterTrainingRuntime `{}`", key.1),
            };
            findings.push(
                origin.locate(
                    Diagnostic::new(&CATALOG_DUPLICATE_NAME, format!("{what} is generated twice; {first} ({at}) generates it too"))
                        .with_field("metadata.name")
                        .with_help("give every runtime a unique name"),
                ),
            );
            continue;
        }
        seen.insert(key, origin.clone());
        let spec = match defaults.of(runtime, &origin.doc.source.name) {
            Ok(spec) => spec,
            Err(d) => {
                report(&mut findings, &entry, d);
                continue;
            }
        };
        match entry::resolve_entry(runtime, spec, origin.clone()) {
            Ok((resolved, warnings)) => {
                for w in warnings {
                    report(&mut findings, &entry, w);
                }
                pending.push(((resolved.namespace.clone(), resolved.name.clone()), entry));
            }
            Err(errs) => {
                for e in errs {
                    report(&mut findings, &entry, e);
                }
            }
        }
    }
    res.diagnostics.extend(findings.finish(&matrices));
    res.diagnostics.extend(defaults.unused());
    // Names are unique here (duplicates were refused above).
    pending.sort_by(|a, b| a.0.cmp(&b.0));
    res.runtimes = Pending { entries: pending.into_iter().map(|(_, e): (_, Entry)| (e.runtime, e.origin)).collect(), defaults };
    res
}

/// What resolve produced: runtimes (sorted by namespace and name, resolved as they are taken)
/// and findings.
#[derive(Debug, Default)]
pub struct Resolution {
    pub runtimes: Pending,
    pub diagnostics: Vec<Diagnostic>,
    /// Documents that are not catalog objects (other groups), in input order.
    pub ignored: Vec<Document>,
    /// How many documents were catalog objects (right or wrong).
    pub catalog_objects: usize,
    /// The `JaxRuntimeQueue` objects, read into their type, in input order.
    pub queues: Vec<(crate::catalog::JaxRuntimeQueue, Origin)>,
    /// The `JaxCluster` objects, read into their type, in input order.
    pub clusters: Vec<(crate::catalog::JaxCluster, Origin)>,
}

/// The runtimes a catalog generates, in namespace and name order, not yet resolved: each entry
/// is kept in its typed form with its defaults, and resolved when taken. Resolving is
/// deterministic, so what is taken is what [`resolve`] resolved (and found no error in) before.
#[derive(Default)]
pub struct Pending {
    entries: Vec<(Packed, Origin)>,
    defaults: defaults::DefaultsSet,
}

impl Pending {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Each runtime resolved, in order, every entry freed once resolved. An entry that does not
    /// resolve again (it cannot: resolve checked it) gives its errors, placed in its document,
    /// so that nothing is left out in silence.
    pub fn into_resolved(self) -> impl Iterator<Item = Result<Resolved, Vec<Diagnostic>>> {
        let Pending { entries, defaults } = self;
        entries.into_iter().map(move |(packed, origin)| {
            let runtime = packed.get().map_err(|d| vec![origin.locate(d)])?;
            let spec = defaults.of(&runtime, &origin.doc.source.name).map_err(|d| vec![origin.locate(d)])?;
            match entry::resolve_entry(&runtime, spec, origin.clone()) {
                Ok((mut resolved, _)) => {
                    resolved.defaults = defaults.written(&runtime, &origin.doc.source.name);
                    Ok(resolved)
                }
                Err(errs) => Err(errs.into_iter().map(|d| origin.locate(d)).collect()),
            }
        })
    }

    /// Every runtime resolved, in order (the errors of any that does not resolve dropped: see
    /// [`Pending::into_resolved`]).
    pub fn resolve_all(self) -> Vec<Resolved> {
        self.into_resolved().filter_map(Result::ok).collect()
    }
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending").field("entries", &self.entries.len()).finish_non_exhaustive()
    }
}

/// Sorts the documents into catalog objects (read into their types) and the others.
fn sort<'a>(docs: impl Iterator<Item = Cow<'a, Document>>, res: &mut Resolution) -> Objects<'a> {
    let mut objects = Objects::default();
    for doc in docs {
        let doc_ref: &Document = &doc;
        if !doc_ref.value.is_object() {
            res.diagnostics.push(doc_ref.locate(Diagnostic::new(&CATALOG_NOT_AN_OBJECT, "a document must be a YAML mapping (an object)")));
            continue;
        }
        let object = ObjectRef::of(&doc_ref.value);
        match catalog::identify(Gvk::of(&doc_ref.value)) {
            Identity::Foreign => match crate::kinds::near_miss(Gvk::of(&doc_ref.value)) {
                Some(d) => res.diagnostics.push(doc_ref.locate(d.with_object(object))),
                None => res.ignored.push(doc.into_owned()),
            },
            Identity::Misspelt(d) => {
                res.catalog_objects += 1;
                res.diagnostics.push(doc_ref.locate(d.with_object(object)));
            }
            Identity::Ours(kind) => {
                res.catalog_objects += 1;
                match kind {
                    Kind::Runtime => {
                        if let Some(r) = shape::typed::<JaxRuntime>(doc_ref, kind, &object, &mut res.diagnostics) {
                            let origin = Origin { doc: doc_ref.place(), object, row: None, generated: None, field_prefix: "" };
                            match Packed::new(&r) {
                                Ok(runtime) => objects.entries.push(Entry { runtime, origin, row: None }),
                                Err(d) => res.diagnostics.push(origin.locate(d)),
                            }
                        }
                    }
                    Kind::Defaults => {
                        if let Some(d) = shape::typed::<JaxRuntimeDefaults>(doc_ref, kind, &object, &mut res.diagnostics) {
                            objects.defaults.push((d, objects.kept.len()));
                            objects.kept.push(doc);
                        }
                    }
                    Kind::Matrix => {
                        if let Some(m) = shape::typed::<JaxRuntimeMatrix>(doc_ref, kind, &object, &mut res.diagnostics) {
                            objects.matrices.push((m, objects.kept.len()));
                            objects.kept.push(doc);
                        }
                    }
                    Kind::Queue => {
                        if let Some(q) =
                            shape::typed::<crate::catalog::JaxRuntimeQueue>(doc_ref, Kind::Queue, &object, &mut res.diagnostics)
                        {
                            res.queues.push((q, Origin { doc: doc_ref.place(), object, row: None, generated: None, field_prefix: "" }));
                        }
                    }
                    Kind::Cluster => {
                        if let Some(c) = shape::typed::<crate::catalog::JaxCluster>(doc_ref, Kind::Cluster, &object, &mut res.diagnostics) {
                            res.clusters.push((c, Origin { doc: doc_ref.place(), object, row: None, generated: None, field_prefix: "" }));
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
                    match Packed::new(&runtime) {
                        Ok(runtime) => entries.push(Entry { runtime, origin, row: Some((index, row)) }),
                        Err(d) => findings.row(index, row, d),
                    }
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
    fn a_packed_entry_reads_back_the_same() {
        // Every entry of the built-in catalog and of the test catalogs, matrices' rows included.
        let mut texts: Vec<String> = crate::read::BUILTIN.iter().map(|(_, t)| t.to_string()).collect();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for dir in ["tests/golden", "functions"] {
            for f in walk(&root.join(dir)) {
                texts.extend(std::fs::read_to_string(f).ok());
            }
        }
        let mut n = 0;
        for text in texts {
            let Ok(parsed) = crate::read::parse_source(Arc::new(crate::read::Source::new("c.yaml", Some(text)))) else { continue };
            for doc in &parsed {
                if let Ok(original) = shape::read::<JaxRuntime>(Kind::Runtime, &doc.value) {
                    assert_eq!(Packed::new(&original).unwrap().get().unwrap(), original);
                }
            }
            let mut res = Resolution::default();
            let mut objects = sort(parsed.iter().map(Cow::Borrowed), &mut res);
            let matrices: Vec<_> = objects.matrices.drain(..).map(|(m, i)| (m, objects.kept[i].as_ref().clone())).collect();
            let refs: Vec<(JaxRuntimeMatrix, &Document)> = matrices.iter().map(|(m, d)| (m.clone(), d)).collect();
            expand_matrices(&refs, &mut objects.entries, &mut rows::Findings::default());
            for e in &objects.entries {
                let r = e.runtime.get().unwrap();
                assert_eq!(&*Packed::new(&r).unwrap().0, &*e.runtime.0);
                n += 1;
            }
        }
        assert!(n > 50, "only {n} entries tried");
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else if p.extension().is_some_and(|x| x == "yaml") {
                out.push(p);
            }
        }
        out
    }

    #[test]
    fn duplicate_names_name_both_objects() {
        let entry = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: x}\nspec: {accelerator: {cpu: {}}}\n";
        let res = resolve(&docs(&format!("{entry}---\n{entry}")));
        assert_eq!(res.runtimes.len(), 1);
        assert_eq!(rules(&res), ["catalog/duplicate-name"]);
        let m = &res.diagnostics[0].message;
        assert!(m.contains("JaxRuntime/x (") && m.contains(":3) generates it too"), "names the first and where it is: {m}");
    }

    #[test]
    fn runtimes_come_sorted_by_namespace_and_name() {
        let e = |n: &str, ns: &str| {
            format!("apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {{name: {n}{ns}}}\nspec: {{accelerator: {{cpu: {{}}}}}}\n")
        };
        let res = resolve(&docs(&[e("b", ""), e("a", ", namespace: z"), e("a", "")].join("---\n")));
        assert!(res.diagnostics.is_empty());
        let resolved = res.runtimes.resolve_all();
        let names: Vec<(Option<&str>, &str)> = resolved.iter().map(|r| (r.namespace.as_deref(), r.name.as_str())).collect();
        assert_eq!(names, [(None, "a"), (None, "b"), (Some("z"), "a")]);
    }
}
