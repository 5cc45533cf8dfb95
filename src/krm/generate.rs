//! The generator mode of the KRM function: the package's catalog objects -> runtimes (and the
//! Kueue objects of its `JaxRuntimeQueue`s, in `kueue/`), upserted into the items and the stale
//! ones pruned. In steps: gather the catalog documents, generate (the
//! pipeline), plan every change, then apply the plan. Only runtimes the function generated are
//! ever replaced or removed; every other item is passed on as the exact text it came as. On any
//! error nothing is changed and nothing is pruned. Every prune is an info naming the runtime and
//! the catalog object it came from; a package whose input holds generated runtimes but no catalog
//! object at all (a deleted catalog folder, a selector that filtered it out) prunes nothing and
//! is an error, unless the config says `allow-prune-all: "true"` (retiring a catalog).

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use super::annotations::{self, Key};
use super::output::Output;
use crate::catalog::{self, Identity, Kind};
use crate::diag::{has_errors, Diagnostic, ObjectRef};
use crate::exit::Exit;
use crate::fleet::Assignment;
use crate::keys::{MANAGED_BY, MANAGED_BY_VALUE, SOURCE};
use crate::pipeline::{self, Inventories};
use crate::read::{Document, Source};
use crate::resource_list::{Item, Meta, ResourceList};
use crate::rules::krm::{KRM_FILE_TAKEN, KRM_FUNCTION_CONFIG, KRM_MALFORMED_INPUT, KRM_NOT_OWNED, KRM_NO_CATALOG, KRM_PRUNED};
use crate::write::fleet::{cluster_object, From, Meta as KustomizationMeta, Shared, CLUSTERS_DIR};
use crate::write::owned::KUSTOMIZATION;

/// The functionConfig key (a ConfigMap's `data`, `kpt fn eval -- allow-prune-all=true`) that lets
/// a run without any catalog object prune every runtime the function generated.
pub const ALLOW_PRUNE_ALL: &str = "allow-prune-all";

/// Folder, relative to the package, that new runtimes are written to.
pub const OUTPUT_DIR: &str = "runtimes";
/// Folder, relative to the package, that new Kueue objects (of `JaxRuntimeQueue`s) go to.
pub const KUEUE_DIR: &str = "kueue";

/// A runtime (or Kueue object) the pipeline generated, as the function writes it.
struct NewRuntime {
    source: ObjectRef,
    file_name: String,
    object: Value,
    dir: String,
    /// Which clusters of a fleet get it (`None`: not a runtime or Kueue object).
    from: Option<From>,
    /// Local config (a fleet's kustomizations): `kpt live apply` skips it.
    local: bool,
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
    let mut allow_prune_all = false;
    let docs = catalog_documents(&list, &mut allow_prune_all, &mut diagnostics);
    let nodes = inventory_documents(&list.items);
    let generated = pipeline::generate_in(&docs, Inventories::Items(&nodes), |r| NewRuntime {
        source: r.source().clone(),
        from: Some(From::Runtime(r.resolved.namespace.clone(), r.resolved.name.clone())),
        file_name: r.file_name,
        object: r.object,
        dir: OUTPUT_DIR.to_string(),
        local: false,
    });
    diagnostics.extend(generated.diagnostics);
    let clusters = generated.clusters;
    let mut new = generated.runtimes;
    // Objects beside runtimes (ResourceClaimTemplates) go where the runtimes go.
    new.extend(generated.companions.into_iter().map(|c| NewRuntime {
        from: Some(From::Runtime(c.runtime.0, c.runtime.1)),
        source: c.source,
        file_name: c.file_name,
        object: c.object,
        dir: OUTPUT_DIR.to_string(),
        local: false,
    }));
    new.extend(generated.queues.into_iter().map(|q| NewRuntime {
        from: Some(From::Queues(std::iter::once(&q.source).chain(&q.also).map(|s| s.name.clone()).collect())),
        source: q.source,
        file_name: q.file_name,
        object: q.object,
        dir: KUEUE_DIR.to_string(),
        local: false,
    }));
    let shared: Vec<Shared> = new
        .iter()
        .filter_map(|n| Some(Shared { object: ObjectRef::of(&n.object), file_name: n.file_name.clone(), from: n.from.clone()? }))
        .collect();
    let mut changes = if has_errors(&diagnostics) { Vec::new() } else { plan(&list.items, new, &mut diagnostics) };
    if !clusters.is_empty() && !has_errors(&diagnostics) {
        let kustomizations = fleet_kustomizations(&changes, &shared, &clusters, &mut diagnostics);
        let more = plan(&list.items, kustomizations, &mut diagnostics);
        changes.extend(more);
    }
    if docs.is_empty() && !allow_prune_all && !has_errors(&diagnostics) {
        if let Some(d) = no_catalog(&list.items) {
            diagnostics.push(d);
        }
    }
    if has_errors(&diagnostics) {
        // A broken entry must not delete, or change, what it generated last time.
        return Output { list, diagnostics, exit: Exit::Findings };
    }
    list.items = apply(std::mem::take(&mut list.items), changes, &mut diagnostics);
    Output { list, diagnostics, exit: Exit::Ok }
}

/// The error for an input without any catalog object whose items hold generated runtimes: pruning
/// them all is what a deleted catalog folder or a selector that missed it would do in silence.
fn no_catalog(items: &[Item]) -> Option<Diagnostic> {
    let owned: Vec<&Item> = items.iter().filter(|i| annotations::is_owned(&i.meta)).collect();
    let first = owned.first()?;
    let names: Vec<String> = owned.iter().take(3).map(|i| i.meta.object_ref().to_string()).collect();
    let more = if owned.len() > 3 { format!(" and {} more", owned.len() - 3) } else { String::new() };
    Some(
        place(
            &first.meta,
            Diagnostic::new(
                &KRM_NO_CATALOG,
                format!(
                    "the input holds no catalog object ({}), but {} generated by jax-runtimes ({}{more}); pruning them all is refused, nothing changed",
                    Kind::names(Kind::generates),
                    crate::words::count(owned.len(), "object"),
                    names.join(", ")
                ),
            ),
        )
        .with_help(KRM_NO_CATALOG.fix),
    )
}

/// The options a non-catalog functionConfig may carry: a ConfigMap whose `data` holds only
/// [`ALLOW_PRUNE_ALL`] (`"true"` or `"false"`). `None` when `value` is no such ConfigMap.
fn options(value: &Value) -> Option<Result<bool, Diagnostic>> {
    if value.get("kind").and_then(Value::as_str) != Some("ConfigMap") {
        return None;
    }
    let data = value.get("data")?.as_object()?;
    let mut allow = false;
    for (k, v) in data {
        if k != ALLOW_PRUNE_ALL {
            let mean = crate::spelling::nearest(k, [ALLOW_PRUNE_ALL], 4).map(|m| format!(" (did you mean `{m}`?)")).unwrap_or_default();
            return Some(Err(Diagnostic::new(
                &KRM_FUNCTION_CONFIG,
                format!("the functionConfig's `data.{k}` is not an option of jax-runtimes{mean}; the only option is `{ALLOW_PRUNE_ALL}`"),
            )
            .with_field(format!("data.{k}"))
            .with_help(format!(
                "remove it, or write `{ALLOW_PRUNE_ALL}: \"true\"` to let a run without any catalog object prune every generated runtime"
            ))));
        }
        match v.as_str().map(|v| v.trim_matches(['\'', '"'])) {
            Some("true") => allow = true,
            Some("false") => {}
            _ => {
                return Some(Err(Diagnostic::new(
                    &KRM_FUNCTION_CONFIG,
                    format!("`data.{ALLOW_PRUNE_ALL}` is {v}; expected \"true\" or \"false\""),
                )
                .with_field(format!("data.{ALLOW_PRUNE_ALL}"))
                .with_help(format!("write `{ALLOW_PRUNE_ALL}: \"true\"`"))))
            }
        }
    }
    Some(Ok(allow))
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
fn catalog_documents(list: &ResourceList, allow_prune_all: &mut bool, diagnostics: &mut Vec<Diagnostic>) -> Vec<Document> {
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
        _ if options(value).is_some() => match options(value) {
            Some(Ok(allow)) => *allow_prune_all = allow,
            Some(Err(d)) => diagnostics.push(d.with_object(fc.meta.object_ref())),
            None => {}
        },
        _ => diagnostics.push(
            Diagnostic::new(
                &KRM_FUNCTION_CONFIG,
                format!(
                    "the functionConfig is not a catalog object; expected apiVersion `{}` with kind {}",
                    catalog::API_VERSION,
                    Kind::names(|_| true)
                ),
            )
            .with_object(fc.meta.object_ref())
            .with_help(format!(
                "point the function's config at a {} (to generate) or a `{}` (to validate), or give none and keep the catalog in the package",
                Kind::names(Kind::generates),
                Kind::Validation
            )),
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
        if g.local {
            annotations::set_local_config(&mut object);
        }
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
fn apply(mut items: Vec<Item>, changes: Vec<Change>, diagnostics: &mut Vec<Diagnostic>) -> Vec<Item> {
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
    items.retain(|item| {
        let keep = !annotations::is_owned(&item.meta) || generated.contains(&annotations::key(&item.meta));
        if !keep {
            let from = item.meta.annotation(SOURCE).unwrap_or_default();
            diagnostics.push(place(
                &item.meta,
                Diagnostic::new(&KRM_PRUNED, format!("pruned: it was generated from {from}, which is gone or no longer generates it"))
                    .with_object(item.meta.object_ref()),
            ));
        }
        keep
    });
    items.extend(added);
    items
}

/// The items of the package that may be a cluster's inventory (`Node`s, `List`s of them), each
/// with its file as its source, for the `JaxCluster`s' `spec.inventory.nodes`.
fn inventory_documents(items: &[Item]) -> Vec<Document> {
    items
        .iter()
        .filter(|i| matches!(i.meta.gvk().kind, "Node" | "NodeList" | "List"))
        .filter_map(|i| {
            let (path, index) = annotations::file_of(&i.meta);
            Some(Document::new(Source::named(path?), index.unwrap_or(0), annotations::pipeline_copy(i.value().ok()?)))
        })
        .collect()
}

/// The file of a planned object.
fn path_of(change: &Change) -> Option<String> {
    let object = match change {
        Change::Replace(_, o) | Change::Add(o) => o,
    };
    annotations::file_of(&Meta::of(object)).0
}

/// The kustomizations of a fleet inside a kpt package, as local-config items: one per folder that
/// holds generated runtimes or Kueue objects (listing those files), and one per cluster,
/// `clusters/<name>/kustomization.yaml`, over those folders with a delete patch per object the
/// cluster does not get (as `render -o` writes them, [`crate::write::fleet`]).
fn fleet_kustomizations(
    changes: &[Change],
    shared: &[Shared],
    clusters: &[Assignment],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<NewRuntime> {
    let mut folders: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
    for change in changes {
        let Some(path) = path_of(change) else { continue };
        match path.rsplit_once('/') {
            Some((dir, file)) if !dir.is_empty() && !dir.starts_with(CLUSTERS_DIR) => folders.entry(dir.to_string()).or_default().push(file.to_string()),
            _ => diagnostics.push(
                Diagnostic::new(
                    &KRM_FILE_TAKEN,
                    format!("`{path}` is not in a folder of the package, so no cluster's kustomization can name it (kustomize refuses a folder that holds the kustomization)"),
                )
                .with_file(path.clone(), None, None)
                .with_help(format!("move the object into a folder such as `{OUTPUT_DIR}/`")),
            ),
        }
    }
    let marks = |name: String, source: String, extra: Option<(&str, &str)>| {
        let mut m = KustomizationMeta { name: Some(name), ..KustomizationMeta::default() };
        m.labels.insert(MANAGED_BY.to_string(), MANAGED_BY_VALUE.to_string());
        m.annotations.insert(SOURCE.to_string(), source);
        if let Some((k, v)) = extra {
            m.annotations.insert(k.to_string(), v.to_string());
        }
        m
    };
    let mut out = Vec::new();
    let source = ObjectRef::new(Kind::Cluster.name(), "*");
    for (dir, files) in &mut folders {
        files.sort();
        files.dedup();
        let k = FolderKustomization {
            api_version: "kustomize.config.k8s.io/v1beta1",
            kind: "Kustomization",
            metadata: marks(format!("jax-runtimes-{}", dir.replace('/', "-")), source.to_string(), None),
            resources: files.clone(),
        };
        if let Ok(object) = serde_json::to_value(&k) {
            out.push(NewRuntime {
                source: source.clone(),
                file_name: KUSTOMIZATION.to_string(),
                object,
                dir: dir.clone(),
                from: None,
                local: true,
            });
        }
    }
    for a in clusters {
        let resources = folders.keys().map(|d| format!("../../{d}")).collect();
        let metadata = marks(format!("jax-runtimes-cluster-{}", a.name), a.source.to_string(), Some((crate::keys::CLUSTER, &a.name)));
        let object = cluster_object(a, shared, resources, metadata).ok().and_then(|(k, _)| serde_json::to_value(&k).ok());
        if let Some(object) = object {
            out.push(NewRuntime {
                source: a.source.clone(),
                file_name: KUSTOMIZATION.to_string(),
                object,
                dir: format!("{CLUSTERS_DIR}/{}", a.name),
                from: None,
                local: true,
            });
        }
    }
    out
}

/// A fleet's kustomization of a folder of generated objects in a kpt package.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct FolderKustomization {
    api_version: &'static str,
    kind: &'static str,
    metadata: KustomizationMeta,
    resources: Vec<String>,
}
