//! The generator mode of the KRM function: the package's catalog objects -> runtimes, upserted
//! into the items and the stale ones pruned. In steps: gather the catalog documents, generate
//! (the pipeline), plan every change, then apply the plan; on any error nothing is changed and
//! nothing is pruned.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use super::annotations::{self, Key};
use super::output::Output;
use crate::catalog::{self, Identity, Kind};
use crate::diag::{has_errors, Diagnostic, ObjectRef};
use crate::exit::Exit;
use crate::gvk::Gvk;
use crate::keys::{MANAGED_BY, MANAGED_BY_VALUE, SOURCE};
use crate::pipeline;
use crate::read::{Document, Source};
use crate::resource_list::ResourceList;
use crate::rules::krm::{KRM_FILE_TAKEN, KRM_FUNCTION_CONFIG, KRM_NOT_OWNED};

/// Folder, relative to the package, that new runtimes are written to.
pub const OUTPUT_DIR: &str = "runtimes";

/// A runtime the pipeline generated, as the function writes it.
struct NewRuntime {
    source: ObjectRef,
    file_name: String,
    object: Value,
}

/// What to do with one generated runtime.
enum Change {
    /// Replace the item at this index (a runtime generated before).
    Replace(usize, Value),
    /// Add a new item in this file.
    Add(Value),
}

/// The generator: see the module docs.
pub fn process(list: ResourceList) -> Output {
    let ResourceList { items, function_config } = list;
    let mut diagnostics = Vec::new();
    let (docs, catalog_items) = catalog_documents(&items, function_config.as_ref(), &mut diagnostics);
    let generated = pipeline::generate_with(&docs, |r| NewRuntime { source: r.source().clone(), file_name: r.file_name, object: r.object });
    diagnostics.extend(generated.diagnostics);
    let changes = if has_errors(&diagnostics) { Vec::new() } else { plan(&items, generated.runtimes, &mut diagnostics) };
    if has_errors(&diagnostics) {
        // A broken entry must not delete, or change, what it generated last time.
        return Output { list: ResourceList { items, function_config }, diagnostics, exit: Exit::Findings };
    }
    let items = apply(items, &catalog_items, changes);
    Output { list: ResourceList { items, function_config }, diagnostics, exit: Exit::Ok }
}

/// The catalog documents of the package: items first (they know their file), then the
/// functionConfig unless an item is the same object (kustomize passes a generator's config both
/// ways). Returns them with the indexes of the catalog items. A misspelt catalog object is an
/// error here, never passed through: it would prune the runtime it generated.
fn catalog_documents(items: &[Value], function_config: Option<&Value>, diagnostics: &mut Vec<Diagnostic>) -> (Vec<Document>, Vec<usize>) {
    let mut docs = Vec::new();
    let mut catalog_items = Vec::new();
    let mut catalog_keys = BTreeSet::new();
    for (i, item) in items.iter().enumerate() {
        let (path, index) = annotations::file_of(item);
        let place = |d: Diagnostic| match &path {
            Some(p) => d.with_file(p.clone(), index, None),
            None => d,
        };
        match catalog::identify(Gvk::of(item)) {
            Identity::Ours(kind) if Kind::CATALOG.contains(&kind) => {
                catalog_keys.insert(annotations::key(item));
                let name = path.clone().unwrap_or_else(|| format!("<items[{i}]>"));
                docs.push(Document::new(Source::named(name), index.unwrap_or(0), annotations::pipeline_copy(item)));
                catalog_items.push(i);
                local_config_warning(item, diagnostics);
            }
            Identity::Misspelt(d) => diagnostics.push(place(d.with_object(ObjectRef::of(item)))),
            Identity::Ours(_) | Identity::Foreign => {}
        }
    }
    if let Some(fc) = function_config {
        match catalog::identify(Gvk::of(fc)) {
            Identity::Ours(kind) if Kind::CATALOG.contains(&kind) => {
                if !catalog_keys.contains(&annotations::key(fc)) {
                    let (path, index) = annotations::file_of(fc);
                    let name = path.unwrap_or_else(|| "<functionConfig>".to_string());
                    docs.push(Document::new(Source::named(name), index.unwrap_or(0), annotations::pipeline_copy(fc)));
                }
            }
            Identity::Misspelt(d) => diagnostics.push(d.with_object(ObjectRef::of(fc))),
            _ if annotations::is_empty_placeholder(fc) => {}
            _ => diagnostics.push(
                Diagnostic::new(
                    &KRM_FUNCTION_CONFIG,
                    format!(
                        "the functionConfig is not a catalog object; expected apiVersion `{}` with kind {}",
                        catalog::API_VERSION,
                        Kind::CATALOG.map(|k| k.name()).join(", ")
                    ),
                )
                .with_object(ObjectRef::of(fc))
                .with_help("point the function's config at a JaxRuntime, JaxRuntimeDefaults or JaxRuntimeMatrix, or give none and keep the catalog in the package"),
            ),
        }
    }
    (docs, catalog_items)
}

/// The warning for a catalog item whose `local-config` is set to something other than "true".
fn local_config_warning(item: &Value, diagnostics: &mut Vec<Diagnostic>) {
    let mut probe = item.clone();
    annotations::mark_local_config(&mut probe, diagnostics);
}

/// Where each generated runtime goes: over the runtime it generated before, or into a new file.
/// A same-named object the function does not own, or a file already taken, is an error.
fn plan(items: &[Value], runtimes: Vec<NewRuntime>, diagnostics: &mut Vec<Diagnostic>) -> Vec<Change> {
    let mut index_of: HashMap<Key, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        index_of.entry(annotations::key(item)).or_insert(i);
    }
    let mut used_files: BTreeSet<(String, usize)> = items
        .iter()
        .filter_map(|item| {
            let (path, index) = annotations::file_of(item);
            Some((path?, index.unwrap_or(0)))
        })
        .collect();
    let mut changes = Vec::new();
    for g in runtimes {
        let mut object = g.object;
        annotations::strip_orchestrator_annotations(&mut object);
        match index_of.get(&annotations::key(&object)) {
            Some(&i) if annotations::is_owned(&items[i]) => {
                annotations::carry_orchestrator_annotations(&items[i], &mut object);
                changes.push(Change::Replace(i, object));
            }
            Some(&i) => {
                let existing = &items[i];
                let place = match annotations::file_of(existing).0 {
                    Some(p) => format!(" (in `{p}`)"),
                    None => String::new(),
                };
                diagnostics.push(
                    Diagnostic::new(
                        &KRM_NOT_OWNED,
                        format!(
                            "{} already exists{place} and was not generated by jax-runtimes (it lacks the `{MANAGED_BY}: {MANAGED_BY_VALUE}` label and the `{SOURCE}` annotation); it is left untouched",
                            ObjectRef::of(existing)
                        ),
                    )
                    .with_object(g.source.clone())
                    .with_field("metadata.name")
                    .with_help("rename the catalog entry, or delete or rename the existing object"),
                );
            }
            None => {
                let path = format!("{OUTPUT_DIR}/{}", g.file_name);
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

/// Applies a plan that has no error: catalog items become local-config, runtimes are replaced in
/// place, runtimes generated before from entries that are gone are pruned, new ones appended.
fn apply(mut items: Vec<Value>, catalog_items: &[usize], changes: Vec<Change>) -> Vec<Value> {
    let mut ignored = Vec::new();
    for &i in catalog_items {
        annotations::mark_local_config(&mut items[i], &mut ignored);
    }
    let mut generated = BTreeSet::new();
    let mut added = Vec::new();
    for change in changes {
        match change {
            Change::Replace(i, object) => {
                generated.insert(annotations::key(&object));
                items[i] = object;
            }
            Change::Add(object) => {
                generated.insert(annotations::key(&object));
                added.push(object);
            }
        }
    }
    items.retain(|item| !annotations::is_owned(item) || generated.contains(&annotations::key(item)));
    items.extend(added);
    items
}
