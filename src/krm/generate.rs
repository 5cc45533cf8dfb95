//! The generator mode of the KRM function: the package's catalog objects -> runtimes (and the
//! Kueue objects of its `JaxRuntimeQueue`s, in `kueue/`), upserted into the items and the stale
//! ones pruned. In steps: gather the catalog documents, generate (the
//! pipeline), plan every change, then apply the plan. Only runtimes the function generated are
//! ever replaced or removed; every other item is passed on as the exact text it came as. On any
//! error nothing is changed and nothing is pruned.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use super::annotations::{self, Key};
use super::output::Output;
use crate::catalog::{self, Identity, Kind};
use crate::diag::{has_errors, Diagnostic, ObjectRef};
use crate::exit::Exit;
use crate::keys::{MANAGED_BY, MANAGED_BY_VALUE, SOURCE};
use crate::pipeline;
use crate::read::{Document, Source};
use crate::resource_list::{Item, Meta, ResourceList};
use crate::rules::krm::{KRM_FILE_TAKEN, KRM_FUNCTION_CONFIG, KRM_MALFORMED_INPUT, KRM_NOT_OWNED};

/// Folder, relative to the package, that new runtimes are written to.
pub const OUTPUT_DIR: &str = "runtimes";
/// Folder, relative to the package, that new Kueue objects (of `JaxRuntimeQueue`s) go to.
pub const KUEUE_DIR: &str = "kueue";

/// A runtime (or Kueue object) the pipeline generated, as the function writes it.
struct NewRuntime {
    source: ObjectRef,
    file_name: String,
    object: Value,
    dir: &'static str,
}

/// What to do with one generated runtime.
enum Change {
    /// Replace the item at this index (a runtime generated before).
    Replace(usize, Value),
    /// Add a new item.
    Add(Value),
}

/// The generator: see the module docs.
pub fn process(mut list: ResourceList) -> Output {
    let mut diagnostics = Vec::new();
    let docs = catalog_documents(&list, &mut diagnostics);
    let generated = pipeline::generate_with(&docs, |r| NewRuntime {
        source: r.source().clone(),
        file_name: r.file_name,
        object: r.object,
        dir: OUTPUT_DIR,
    });
    diagnostics.extend(generated.diagnostics);
    let mut new = generated.runtimes;
    new.extend(generated.queues.into_iter().map(|q| NewRuntime {
        source: q.source,
        file_name: q.file_name,
        object: q.object,
        dir: KUEUE_DIR,
    }));
    let changes = if has_errors(&diagnostics) { Vec::new() } else { plan(&list.items, new, &mut diagnostics) };
    if has_errors(&diagnostics) {
        // A broken entry must not delete, or change, what it generated last time.
        return Output { list, diagnostics, exit: Exit::Findings };
    }
    list.items = apply(std::mem::take(&mut list.items), changes);
    Output { list, diagnostics, exit: Exit::Ok }
}

/// Where an item is, for findings about it.
fn place(meta: &Meta, d: Diagnostic) -> Diagnostic {
    match annotations::file_of(meta) {
        (Some(p), index) => d.with_file(p, index, None),
        (None, _) => d,
    }
}

/// The catalog documents of the package: items first (they know their file), then the
/// functionConfig unless an item is the same object (kustomize passes a generator's config both
/// ways). A misspelt catalog object is an error here, never passed through: it would prune the
/// runtime it generated.
fn catalog_documents(list: &ResourceList, diagnostics: &mut Vec<Diagnostic>) -> Vec<Document> {
    let mut docs = Vec::new();
    let mut catalog_keys = BTreeSet::new();
    for (i, item) in list.items.iter().enumerate() {
        let meta = &item.meta;
        match catalog::identify(meta.gvk()) {
            Identity::Ours(kind) if kind.generates() => {
                catalog_keys.insert(annotations::key(meta));
                if let Some(d) = annotations::local_config_warning(meta) {
                    diagnostics.push(d);
                }
                let (path, index) = annotations::file_of(meta);
                let name = path.unwrap_or_else(|| format!("<items[{i}]>"));
                match item.value() {
                    Ok(v) => docs.push(Document::new(Source::named(name), index.unwrap_or(0), annotations::pipeline_copy(v))),
                    Err(e) => diagnostics.push(place(
                        meta,
                        Diagnostic::new(&KRM_MALFORMED_INPUT, format!("the catalog object cannot be read: {}", e.message))
                            .with_object(meta.object_ref()),
                    )),
                }
            }
            Identity::Misspelt(d) => diagnostics.push(place(meta, d.with_object(meta.object_ref()))),
            // A near miss of a Trainer or JobSet kind would pass through unchecked.
            Identity::Foreign => {
                if let Some(d) = crate::kinds::near_miss(meta.gvk()) {
                    diagnostics.push(place(meta, d.with_object(meta.object_ref())));
                }
            }
            Identity::Ours(_) => {}
        }
    }
    let Some(fc) = &list.function_config else { return docs };
    let value = match fc.value() {
        Ok(v) => v,
        Err(e) => {
            diagnostics.push(Diagnostic::new(&KRM_MALFORMED_INPUT, format!("the functionConfig cannot be read: {}", e.message)));
            return docs;
        }
    };
    match catalog::identify(fc.meta.gvk()) {
        Identity::Ours(kind) if kind.generates() => {
            if !catalog_keys.contains(&annotations::key(&fc.meta)) {
                let (path, index) = annotations::file_of(&fc.meta);
                let name = path.unwrap_or_else(|| "<functionConfig>".to_string());
                docs.push(Document::new(Source::named(name), index.unwrap_or(0), annotations::pipeline_copy(value)));
            }
        }
        Identity::Misspelt(d) => diagnostics.push(d.with_object(fc.meta.object_ref())),
        _ if annotations::is_empty_placeholder(value) => {}
        _ => diagnostics.push(
            Diagnostic::new(
                &KRM_FUNCTION_CONFIG,
                format!(
                    "the functionConfig is not a catalog object; expected apiVersion `{}` with kind {}",
                    catalog::API_VERSION,
                    Kind::CATALOG.map(|k| k.name()).join(", ")
                ),
            )
            .with_object(fc.meta.object_ref())
            .with_help("point the function's config at a JaxRuntime, JaxRuntimeDefaults or JaxRuntimeMatrix, or give none and keep the catalog in the package"),
        ),
    }
    docs
}

/// Where each generated runtime goes: over the runtime it generated before, or into a new file.
/// A same-named object the function does not own, or a file already taken, is an error.
fn plan(items: &[Item], runtimes: Vec<NewRuntime>, diagnostics: &mut Vec<Diagnostic>) -> Vec<Change> {
    let mut index_of: HashMap<Key, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        index_of.entry(annotations::key(&item.meta)).or_insert(i);
    }
    let mut used_files: BTreeSet<(String, usize)> = items
        .iter()
        .filter_map(|item| {
            let (path, index) = annotations::file_of(&item.meta);
            Some((path?, index.unwrap_or(0)))
        })
        .collect();
    let mut changes = Vec::new();
    for g in runtimes {
        let mut object = g.object;
        annotations::strip_orchestrator_annotations(&mut object);
        match index_of.get(&annotations::key(&Meta::of(&object))) {
            Some(&i) if annotations::is_owned(&items[i].meta) => {
                annotations::carry_orchestrator_annotations(&items[i].meta, &mut object);
                changes.push(Change::Replace(i, object));
            }
            Some(&i) => {
                let existing = &items[i].meta;
                let place = match annotations::file_of(existing).0 {
                    Some(p) => format!(" (in `{p}`)"),
                    None => String::new(),
                };
                diagnostics.push(
                    Diagnostic::new(
                        &KRM_NOT_OWNED,
                        format!(
                            "{} already exists{place} and was not generated by jax-runtimes (it lacks the `{MANAGED_BY}: {MANAGED_BY_VALUE}` label and the `{SOURCE}` annotation); it is left untouched",
                            existing.object_ref()
                        ),
                    )
                    .with_object(g.source.clone())
                    .with_field("metadata.name")
                    .with_help("rename the catalog entry, or delete or rename the existing object"),
                );
            }
            None => {
                let path = format!("{}/{}", g.dir, g.file_name);
                if !used_files.insert((path.clone(), 0)) {
                    diagnostics.push(
                        Diagnostic::new(
                            &KRM_FILE_TAKEN,
                            format!("cannot write {} to `{path}`: another object already lives there", ObjectRef::of(&object)),
                        )
                        .with_object(g.source.clone())
                        .with_help(format!("move the object that is in `{path}` elsewhere")),
                    );
                    continue;
                }
                annotations::set_file(&mut object, &path);
                changes.push(Change::Add(object));
            }
        }
    }
    changes
}

/// Applies a plan that has no error: runtimes are replaced in place, runtimes generated before
/// from entries that are gone are pruned, new ones appended. No other item is touched.
fn apply(mut items: Vec<Item>, changes: Vec<Change>) -> Vec<Item> {
    let mut generated = BTreeSet::new();
    let mut added = Vec::new();
    for change in changes {
        match change {
            Change::Replace(i, object) => {
                let item = Item::new(object);
                generated.insert(annotations::key(&item.meta));
                // An unchanged runtime keeps its text: a second run gives the same bytes anyway,
                // and kpt sees no change at all.
                if items[i].value().ok() != item.value().ok() {
                    items[i] = item;
                }
            }
            Change::Add(object) => {
                let item = Item::new(object);
                generated.insert(annotations::key(&item.meta));
                added.push(item);
            }
        }
    }
    items.retain(|item| !annotations::is_owned(&item.meta) || generated.contains(&annotations::key(&item.meta)));
    items.extend(added);
    items
}
