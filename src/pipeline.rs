//! The middle of the flow in one call: catalog documents -> resolve -> render -> validate -> the
//! generated runtimes (each with what it was resolved from), the Kueue objects of the catalog's
//! `JaxRuntimeQueue`s (each checked as `validate` checks Kueue objects, and against the runtimes
//! it serves), and every finding. The CLI and the KRM function both call this, so they cannot
//! disagree about what a catalog means.

use std::collections::HashSet;

use serde_json::Value;

use crate::diag::{has_errors, Diagnostic, ObjectRef, Rule};
use crate::fit::inventory::Cluster;
use crate::fleet::Fleet;
pub use crate::fleet::Inventories;
use crate::queues::shape::{Served, Unit};
use crate::queues::{podsets, Queues};
use crate::read::Document;
use crate::resolve::queue::{self as queue, ResolvedQueue};
use crate::resolve::{Accel, Resolution, Resolved};
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
    /// The Kueue objects of the `JaxRuntimeQueue`s, in the order `kubectl apply` needs them.
    pub queues: Vec<QueueObject>,
    /// Objects a runtime needs beside it that Trainer cannot carry (the ResourceClaimTemplates of a
    /// DRA fabric), in runtime order.
    pub companions: Vec<Companion>,
    /// The catalog's `JaxCluster`s and what each serves (empty without clusters).
    pub clusters: Vec<crate::fleet::Assignment>,
    /// Findings left out because they follow from an error reported (a queue that serves no
    /// runtime when the runtimes it would serve failed).
    pub left_out: usize,
}

/// One generated Kueue object: the queue it came from, its file name and its JSON form.
#[derive(Debug, Clone)]
pub struct QueueObject {
    pub source: ObjectRef,
    /// `kueue_<kind>_<name>.yaml`, `kueue_localqueue_<namespace>_<name>.yaml` for a LocalQueue.
    pub file_name: String,
    pub object: Value,
    /// The other queues that generate the same object (a shared flavor, Topology or priority class).
    pub also: Vec<ObjectRef>,
}

/// An object written beside a runtime: its file name (`<kind>_<namespace>_<name>.yaml`), the
/// runtime it serves (namespace, name) and its JSON form.
#[derive(Debug, Clone)]
pub struct Companion {
    pub source: ObjectRef,
    pub runtime: (Option<String>, String),
    pub file_name: String,
    pub object: Value,
}

/// The queues of a catalog, resolved, and the runtimes each serves: what [`queue_objects`]
/// makes Kueue objects of (`render`, and `jax-runtimes kueue` with a cluster's nodes).
#[derive(Debug, Clone, Default)]
pub struct QueuePlan {
    pub queues: Vec<ResolvedQueue>,
    pub served: Vec<Vec<Served>>,
}

impl<R> Generated<R> {
    pub fn has_errors(&self) -> bool {
        has_errors(&self.diagnostics)
    }
}

/// The stable file name of a runtime (see [`fit_file_name`] for long names).
pub fn file_name(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) => fit_file_name(&format!("trainingruntime_{ns}_{name}"), ".yaml"),
        None => fit_file_name(&format!("clustertrainingruntime_{name}"), ".yaml"),
    }
}

/// The most bytes a file name may have on Linux, macOS and Windows file systems (`NAME_MAX`).
pub const MAX_FILE_NAME: usize = 255;

/// `stem` + `ext`, or, when that is longer than [`MAX_FILE_NAME`] bytes (a 253-character name),
/// the stem cut at a character boundary, `-`, and 16 hex digits of the FNV-1a hash of the whole
/// stem, + `ext`: distinct for distinct names and the same on every run and machine.
pub fn fit_file_name(stem: &str, ext: &str) -> String {
    if stem.len() + ext.len() <= MAX_FILE_NAME {
        return format!("{stem}{ext}");
    }
    let hash = stem.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    let mut cut = MAX_FILE_NAME - ext.len() - 17;
    while !stem.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}-{hash:016x}{ext}", &stem[..cut])
}

/// Resolves, renders and validates every catalog object in `docs`. On any error no runtime is
/// returned: callers never write a partial or invalid result.
pub fn generate(docs: &[Document]) -> Generated {
    generate_with(docs, |r| r)
}

/// `generate`, handing each runtime to `keep` as soon as it is checked and keeping what that
/// returns. `render` keeps only the YAML text: a runtime's JSON tree is several times its text,
/// and every runtime is held until the last one has passed its checks.
pub fn generate_with<R>(docs: &[Document], keep: impl FnMut(Runtime) -> R) -> Generated<R> {
    generate_in(docs, Inventories::Files, keep)
}

/// [`generate_with`], reading the clusters' inventories from `inventories`.
pub fn generate_in<R>(docs: &[Document], inventories: Inventories<'_>, keep: impl FnMut(Runtime) -> R) -> Generated<R> {
    with_queues(plan_in(docs, inventories, keep))
}

/// [`generate_with`], freeing each document once it is read into its type: only the typed
/// catalog entries and what `keep` keeps of each runtime are held while the runtimes are
/// resolved, rendered and checked one at a time.
/// The clusters' inventories are read from files.
pub fn generate_owned<R>(docs: Vec<Document>, keep: impl FnMut(Runtime) -> R) -> Generated<R> {
    with_queues(plan_resolved(resolve::resolve_owned(docs), Inventories::Files, keep))
}

/// [`generate_owned`] on documents parsed as they are taken: the input's trees are freed a batch
/// at a time, so that a large catalog is never held whole as trees. The read errors instead, when
/// any text did not read or parse (nothing is generated then, as when the input is read first).
pub fn generate_stream<R>(mut docs: crate::read::Stream, keep: impl FnMut(Runtime) -> R) -> Result<Generated<R>, Vec<Diagnostic>> {
    let resolution = resolve::resolve_owned(&mut docs);
    let errors = docs.errors();
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(with_queues(plan_resolved(resolution, Inventories::Files, keep)))
}

/// The Kueue objects of the plan's queues added, or nothing kept on any error.
fn with_queues<R>((mut out, plan): (Generated<R>, QueuePlan)) -> Generated<R> {
    if !plan.queues.is_empty() && !out.has_errors() {
        let (objects, diagnostics) = queue_objects(&plan, None);
        out.queues = objects;
        out.diagnostics.extend(diagnostics);
    }
    if out.has_errors() {
        out.runtimes.clear();
        out.queues.clear();
        out.companions.clear();
        out.clusters.clear();
    }
    out
}

/// `generate_with`, and the queue plan instead of the queues' objects.
pub fn plan_with<R>(docs: &[Document], keep: impl FnMut(Runtime) -> R) -> (Generated<R>, QueuePlan) {
    plan_in(docs, Inventories::Files, keep)
}

/// [`plan_with`], reading the clusters' inventories from `inventories`.
pub fn plan_in<R>(docs: &[Document], inventories: Inventories<'_>, keep: impl FnMut(Runtime) -> R) -> (Generated<R>, QueuePlan) {
    plan_resolved(resolve::resolve(docs), inventories, keep)
}

/// [`plan_in`] on what resolve made of the documents.
fn plan_resolved<R>(resolution: Resolution, inventories: Inventories<'_>, mut keep: impl FnMut(Runtime) -> R) -> (Generated<R>, QueuePlan) {
    let Resolution { runtimes, mut diagnostics, ignored, catalog_objects, queues, clusters } = resolution;
    for d in diagnostics.iter_mut().filter(|d| d.rule.id == catalog::CATALOG_UNKNOWN_FIELD.id) {
        newer_pod_field(d);
    }
    let mut plan = QueuePlan::default();
    for (q, origin) in &queues {
        match queue::resolve_queue(q, origin.clone()) {
            Ok(r) => plan.queues.push(r),
            Err(errs) => diagnostics.extend(errs.into_iter().map(|d| origin.locate(d))),
        }
    }
    // The serving errors go where they were always reported: after the queues' own.
    let serve_at = diagnostics.len();
    let mut serve = queue::Serve::new(&plan.queues);
    let mut served = vec![Vec::new(); plan.queues.len()];
    let queue_names: Vec<&str> = queues.iter().map(|(q, _)| q.metadata.name.as_str()).collect();
    let mut fleet = Fleet::new(&clusters, &queue_names, inventories, &mut diagnostics);
    let mut fleet_findings = Vec::new();
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
    let mut out = Generated {
        runtimes: Vec::with_capacity(runtimes.len()),
        diagnostics: Vec::new(),
        ignored,
        catalog_objects,
        queues: Vec::new(),
        companions: Vec::new(),
        clusters: Vec::new(),
        left_out: 0,
    };
    let mut at_values = AtValues::default();
    // One runtime at a time: each is resolved, rendered, checked and handed to `keep`, and freed
    // before the next, so that what is held is the typed catalog entries and what `keep` keeps.
    for resolved in runtimes.into_resolved() {
        let mut resolved = match resolved {
            Ok(r) => r,
            Err(errors) => {
                out.diagnostics.extend(errors);
                continue;
            }
        };
        let serving = if plan.queues.is_empty() { None } else { serve.one(&mut resolved) };
        let runtime = match render::render(&resolved) {
            Ok(runtime) => runtime,
            Err(errors) => {
                for d in errors {
                    at_values.add(&mut out.diagnostics, &resolved, place_render(&resolved, d));
                }
                continue;
            }
        };
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
            at_values.add(&mut out.diagnostics, &resolved, place_generated(&resolved, &object, d));
        }
        if let Some(s) = &serving {
            // A quantity that does not read is the runtime's own finding: such a runtime is not served.
            if let Ok((_, sets)) = podsets::of_runtime(&runtime) {
                served[s.queue].push(Served {
                    name: resolved.name.clone(),
                    platform: resolved.platform.to_string(),
                    capacity: resolved.capacity.clone(),
                    unit: unit_of(&resolved),
                    podsets: sets,
                    tas: s.tas.clone(),
                });
            }
        }
        fleet.add(&resolved, &runtime, &mut fleet_findings);
        let templates =
            render::claim_templates(&resolved).into_iter().map(|t| ("resourceclaimtemplate", t.metadata.clone(), serde_json::to_value(&t)));
        let domains =
            render::compute_domains(&resolved).into_iter().map(|d| ("computedomain", d.metadata.clone(), serde_json::to_value(&d)));
        for (kind, meta, value) in templates.chain(domains) {
            let name = meta.name.clone().unwrap_or_default();
            let stem = match &meta.namespace {
                Some(ns) => format!("{kind}_{ns}_{name}"),
                None => format!("{kind}_{name}"),
            };
            match value {
                Ok(object) => out.companions.push(Companion {
                    source: resolved.origin.object.clone(),
                    runtime: (resolved.namespace.clone(), resolved.name.clone()),
                    file_name: fit_file_name(&stem, ".yaml"),
                    object,
                }),
                Err(e) => out.diagnostics.push(
                    resolved
                        .origin
                        .locate(Diagnostic::new(&catalog::CATALOG_WRONG_TYPE, format!("the generated {kind} cannot be serialized: {e}"))),
                ),
            }
        }
        let file_name = file_name(resolved.namespace.as_deref(), &resolved.name);
        out.runtimes.push(keep(Runtime { resolved, runtime, object, file_name }));
    }
    at_values.finish(&mut out.diagnostics);
    if !plan.queues.is_empty() {
        // A queue that serves none because the runtimes it would serve have errors is not a
        // second mistake.
        let failed = diagnostics.iter().chain(&out.diagnostics).any(Diagnostic::is_error);
        let (errors, left_out) = serve.finish(failed);
        diagnostics.splice(serve_at..serve_at, errors);
        out.left_out += left_out;
    }
    plan.served = served;
    let generated = std::mem::replace(&mut out.diagnostics, diagnostics);
    out.diagnostics.extend(generated);
    let queue_runtimes: Vec<(&str, Vec<&str>)> =
        plan.queues.iter().zip(&plan.served).map(|(q, s)| (q.name.as_str(), s.iter().map(|r| r.name.as_str()).collect())).collect();
    out.clusters = fleet.finish(&queue_runtimes, &mut fleet_findings);
    out.diagnostics.extend(fleet_findings);
    if out.has_errors() {
        out.runtimes.clear();
        out.companions.clear();
        out.clusters.clear();
    }
    (out, plan)
}

/// An unknown field of a catalog pod template that is a pod field of a Trainer release's CRDs
/// (`schedulingGroup`, `hostnameOverride`: a Kubernetes newer than the catalog's PodSpec): the
/// help says so, and the way to set it.
fn newer_pod_field(d: &mut Diagnostic) {
    let Some(field) = d.field.as_deref() else { return };
    let Some((_, rest)) = field.split_once("podTemplate.spec.") else { return };
    let releases = validate::structure::pod_field_releases(rest);
    if releases.is_empty() {
        return;
    }
    let name = rest.rsplit('.').next().unwrap_or(rest);
    let releases = match releases.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    d.message = format!(
        "`{name}` is a pod field of the CRDs of Trainer {releases} (a Kubernetes newer than the 1.33 PodSpec the catalog's pod template takes), which the pod template cannot carry yet"
    );
    d.help = Some("set it with a patch on the rendered runtime (a kustomize patch, or a kpt function after this one)".into());
}

/// What a runtime's accelerator is to a queue's quota units.
fn unit_of(r: &Resolved) -> Unit {
    match &r.accelerator {
        Accel::Cpu => Unit::Cpu,
        Accel::Gpu(g) => Unit::Gpu { resource: g.resource.clone() },
        Accel::Tpu(t) => Unit::Tpu {
            resource: crate::accelerators::data().tpu.resource.clone(),
            slice_chips: i64::from(t.chips),
            host_chips: i64::from(t.chips_per_host),
        },
    }
}

/// The Kueue objects of every queue of the plan (with `inventory`, quotas from its nodes), in
/// apply order, each marked as ours (the label and source annotation runtimes get), and the
/// findings: a queue that cannot be generated, an object Kueue would refuse, two queues writing
/// one object differently, a served runtime its queue would never admit. Findings are placed at
/// the `JaxRuntimeQueue`.
pub fn queue_objects(plan: &QueuePlan, inventory: Option<&Cluster>) -> (Vec<QueueObject>, Vec<Diagnostic>) {
    use crate::kueue::KINDS;
    let mut diagnostics = Vec::new();
    let mut by_kind: Vec<Vec<QueueObject>> = vec![Vec::new(); KINDS.len()];
    let mut generated = Vec::new();
    for (q, served) in plan.queues.iter().zip(&plan.served) {
        let objects = match crate::queues::generate::generate(q, served, inventory) {
            Ok(o) => o,
            Err(errs) => {
                diagnostics.extend(errs.into_iter().map(|d| q.origin.locate(d)));
                continue;
            }
        };
        let source = q.origin.object.clone();
        let values: Vec<Value> = objects
            .priority_classes
            .iter()
            .map(serde_json::to_value)
            .chain(objects.topologies.iter().map(serde_json::to_value))
            .chain(objects.flavors.iter().map(serde_json::to_value))
            .chain(objects.admission_checks.iter().map(serde_json::to_value))
            .chain(objects.cluster_queue.iter().map(serde_json::to_value))
            .chain(objects.local_queues.iter().map(serde_json::to_value))
            .filter_map(Result::ok)
            .collect();
        for value in values {
            let object = ObjectRef::of(&value);
            for d in validate::kueue::check(&value, None, false) {
                let message = match &d.field {
                    Some(f) => format!("in the generated {object} at `{f}`: {}", d.message),
                    None => format!("in the generated {object}: {}", d.message),
                };
                diagnostics.push(q.origin.locate(Diagnostic { message, field: None, object: None, ..d }));
            }
            let kind = KINDS.iter().position(|k| *k == object.kind).unwrap_or(0);
            let file_name = match &object.namespace {
                Some(ns) => fit_file_name(&format!("kueue_{}_{ns}_{}", object.kind.to_lowercase(), object.name), ".yaml"),
                None => fit_file_name(&format!("kueue_{}_{}", object.kind.to_lowercase(), object.name), ".yaml"),
            };
            // Two queues may share a flavor, a Topology or a priority class: written once.
            match by_kind[kind].iter().find(|o| ObjectRef::of(&o.object) == object) {
                Some(first) if same_but_source(&first.object, &value) => {
                    if let Some(first) = by_kind[kind].iter_mut().find(|o| ObjectRef::of(&o.object) == object) {
                        first.also.push(source.clone());
                    }
                }
                Some(first) => diagnostics.push(
                    q.origin.locate(
                        Diagnostic::new(
                            &crate::rules::catalog::CATALOG_QUEUE,
                            format!("{object} is generated differently by {} and by this queue", first.source),
                        )
                        .with_help("give the queues' shapes or priority classes the same settings, or different names"),
                    ),
                ),
                None => by_kind[kind].push(QueueObject { source: source.clone(), file_name, object: value, also: Vec::new() }),
            }
        }
        generated.push((q, objects));
    }
    // Every served runtime must be admitted by its queue, as generated.
    let flavors: Vec<crate::kueue::ResourceFlavor> = generated.iter().flat_map(|(_, o)| o.flavors.iter().cloned()).collect();
    let topologies: Vec<crate::kueue::Topology> = generated.iter().flat_map(|(_, o)| o.topologies.iter().cloned()).collect();
    let queues = Queues {
        cluster_queues: generated.iter().filter_map(|(q, o)| o.cluster_queue.as_ref().map(|c| (q.cluster_queue.clone(), c))).collect(),
        flavors: Some(flavors.iter().map(|f| (f.metadata.name.clone().unwrap_or_default(), f)).collect()),
        topologies: Some(topologies.iter().map(|t| (t.metadata.name.clone().unwrap_or_default(), t)).collect()),
        usage: Default::default(),
    };
    for (q, served) in plan.queues.iter().zip(&plan.served) {
        if !queues.cluster_queues.contains_key(&q.cluster_queue) {
            continue;
        }
        for s in served {
            let crate::queues::Verdict::Never(blocker) = queues.admit(&q.cluster_queue, &s.podsets) else { continue };
            // At the quota of the runtime or its flavor, where there is one.
            let flavor = match &blocker {
                crate::queues::Blocker::BelowGang { flavor, .. } => Some(flavor.as_str()),
                _ => None,
            };
            let field = q
                .quotas
                .iter()
                .position(|x| x.runtime.as_deref() == Some(s.name.as_str()) || (flavor.is_some() && x.flavor.as_deref() == flavor))
                .map_or_else(|| "spec.quotas".to_string(), |i| format!("spec.quotas[{i}]"));
            let whose = format!("TrainJobs of runtime `{}`", s.name);
            if let Some(d) = validate::queues::blocker_finding(&queues, &q.cluster_queue, &blocker, &field, &whose) {
                diagnostics.push(q.origin.locate(d));
            }
        }
    }
    (by_kind.into_iter().flatten().collect(), diagnostics)
}

fn same_but_source(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(m) = v.pointer_mut("/metadata").and_then(Value::as_object_mut) {
            m.remove("annotations");
        }
        v
    };
    strip(a) == strip(b)
}

/// The findings placed at a value of the catalog ([`Placed::AtValue`]), each once, with the
/// runtimes (and matrix rows) it is in: a value of a matrix template is in each row's runtime,
/// one of a defaults in each runtime it applies to.
#[derive(Default)]
struct AtValues(Vec<(usize, Vec<InRuntime>)>);

/// A runtime's name, and the matrix row that generated it.
type InRuntime = (String, Option<String>);

impl AtValues {
    fn add(&mut self, out: &mut Vec<Diagnostic>, resolved: &Resolved, placed: Placed) {
        let d = match placed {
            Placed::AtName(d) => return out.push(d),
            Placed::AtValue(d) => d,
        };
        let runtime = (resolved.name.clone(), resolved.origin.row.clone());
        match self.0.iter_mut().find(|(i, _)| same_place(&out[*i], &d)) {
            Some((_, runtimes)) => runtimes.push(runtime),
            None => {
                self.0.push((out.len(), vec![runtime]));
                out.push(d);
            }
        }
    }

    /// Says in each finding which runtimes (or matrix row) it is in.
    fn finish(self, out: &mut [Diagnostic]) {
        for (i, runtimes) in self.0 {
            let Some(d) = out.get_mut(i) else { continue };
            let in_defaults = d.object.as_ref().is_some_and(|o| o.kind == crate::catalog::Kind::Defaults.name());
            match runtimes.as_slice() {
                [(_, Some(row))] => {
                    note_before_clause(d, &format!(" (matrix row {row})"));
                    d.row = Some(row.clone());
                }
                [(name, None)] if in_defaults => note_before_clause(d, &format!(" (in the runtime `{name}`)")),
                [_] => {}
                many => {
                    let names: Vec<String> = many.iter().map(|(n, _)| format!("`{n}`")).collect();
                    let list = match names.as_slice() {
                        [a, b] => format!("{a} and {b}"),
                        [a, b, c] => format!("{a}, {b} and {c}"),
                        _ => format!("{}, {} and {} more", names[0], names[1], names.len() - 2),
                    };
                    note_before_clause(d, &format!(" (in the runtimes {list})"));
                    d.generated = None;
                }
            }
        }
    }
}

/// A finding of `render` on a catalog field of the runtime's entry (a pod template value that
/// contradicts a generated one): where the entry writes it, else where its defaults do.
fn place_render(resolved: &Resolved, d: Diagnostic) -> Placed {
    let origin = &resolved.origin;
    if let Some(f) = d.field.as_deref().filter(|f| !written_in_entry(origin, f)) {
        if let Some((place, object)) = resolved.defaults.iter().find(|(place, _)| place.exact(f).is_some()) {
            return Placed::AtValue(place.locate(Diagnostic { generated: None, ..d.with_object(object.clone()) }));
        }
    }
    let at = resolve::Origin { row: None, ..origin.clone() };
    Placed::AtValue(at.locate(d))
}

/// The entry of `origin` writes field `f` (a field of a `JaxRuntime`, under a matrix's template).
fn written_in_entry(origin: &resolve::Origin, f: &str) -> bool {
    match origin.field_prefix {
        "" => origin.doc.exact(f).is_some(),
        prefix => origin.doc.exact(&format!("{prefix}.{f}")).is_some(),
    }
}

/// Where a finding on a generated runtime was placed.
enum Placed {
    /// At the catalog entry's name, its message saying where in the runtime.
    AtName(Diagnostic),
    /// At the value of the entry or its defaults that set the field (the same finding may come
    /// from every row of a matrix, or every runtime of the defaults: the caller says which).
    AtValue(Diagnostic),
}

/// A finding on a generated runtime (`runtime`), placed in the catalog: at the field of the entry
/// that set the value ([`render::catalog_fields`]: `spec.podTemplate...`, `spec.resources...`),
/// else at that field of its defaults, else at the entry's name, its message saying where in
/// the runtime (the finding is about the whole runtime the entry generates).
fn place_generated(resolved: &Resolved, runtime: &Value, d: Diagnostic) -> Placed {
    let origin = &resolved.origin;
    if let Some(field) = d.field.as_deref() {
        let set_by = render::catalog_fields(resolved, runtime, field);
        if let Some(f) = set_by.entry.iter().find(|f| written_in_entry(origin, f)) {
            // The matrix row is said once the rows that share the value are known.
            let at = resolve::Origin { row: None, ..origin.clone() };
            return Placed::AtValue(at.locate(Diagnostic { field: Some(f.clone()), ..d.with_object(origin.object.clone()) }));
        }
        for (place, object) in &resolved.defaults {
            if let Some(f) = set_by.defaults.iter().find(|f| place.exact(f).is_some()) {
                let d = Diagnostic { field: Some(f.clone()), generated: None, ..d.with_object(object.clone()) };
                return Placed::AtValue(place.locate(d));
            }
        }
    }
    let prefix = match &d.field {
        Some(f) => format!("in the generated runtime at `{f}`: "),
        None => "in the generated runtime: ".to_string(),
    };
    let fails = d.fails.map(|f| crate::diag::Fails { at: f.at + prefix.len(), ..f });
    let message = format!("{prefix}{}", d.message);
    Placed::AtName(origin.locate_at_name(Diagnostic { message, field: None, fails, ..d.with_object(origin.object.clone()) }))
}

/// Two findings at the same value, saying the same.
fn same_place(a: &Diagnostic, b: &Diagnostic) -> bool {
    a.rule.id == b.rule.id && a.file == b.file && a.index == b.index && a.field == b.field && a.message == b.message
}

/// Adds `note` to a finding's message, before the clause that says when Kubernetes refuses it.
fn note_before_clause(d: &mut Diagnostic, note: &str) {
    match &mut d.fails {
        Some(f) if d.message.is_char_boundary(f.at) => {
            d.message.insert_str(f.at, note);
            f.at += note.len();
        }
        _ => d.message.push_str(note),
    }
}

/// The runtimes TrainJobs may reference, from documents that hold catalog objects and runtimes
/// (what `--runtimes` reads): every runtime the catalog objects generate, and every runtime
/// document as it is; the Kueue objects among the documents and those the catalog's queues
/// generate (the LocalQueues a TrainJob's queue label is looked up in); the findings of the
/// catalog, and the errors of a runtime document that does not read into the typed model. Other
/// documents are left out.
#[derive(Debug, Default)]
pub struct Runtimes {
    pub runtimes: Vec<TrainingRuntime>,
    /// Context, not judged: looked up, never reported on.
    pub kueue: Vec<Document>,
    pub diagnostics: Vec<Diagnostic>,
}

/// `input/empty-catalog`: the input holds no object of the catalog's group; `without_paths` says
/// what the command does with no path (`renders the built-in catalog`).
pub fn empty_catalog(command: &str, without_paths: &str) -> Diagnostic {
    Diagnostic::new(
        &crate::rules::input::INPUT_EMPTY_CATALOG,
        format!("the input holds no catalog object (no object of the `{}` group)", crate::catalog::kinds::GROUP),
    )
    .with_help(format!("check the paths; `jax-runtimes {command}` with no path {without_paths}"))
}

/// The Kueue objects a catalog's queues generate, as documents of the stand-in source
/// `(the catalog's queues)`: context the TrainJobs' queue labels are looked up in.
pub fn queue_documents(objects: impl IntoIterator<Item = Value>) -> Vec<Document> {
    let catalog = crate::read::Source::named("(the catalog's queues)");
    objects.into_iter().enumerate().map(|(i, v)| Document::new(catalog.clone(), i, v)).collect()
}

/// A Trainer or Kueue object, at any version (a near-miss version included): judged as it is,
/// never read as a catalog object.
pub fn judged_as_is(value: &Value) -> bool {
    validate::is_runtime(value) || validate::is_trainjob(value) || crate::kueue::is_kueue(value)
}

/// See [`Runtimes`].
pub fn runtimes(docs: &[Document]) -> Runtimes {
    let generated = generate(docs);
    let mut out = Runtimes { diagnostics: generated.diagnostics, ..Runtimes::default() };
    out.runtimes.extend(generated.runtimes.into_iter().map(|r| r.runtime));
    out.kueue.extend(queue_documents(generated.queues.into_iter().map(|q| q.object)));
    for doc in &generated.ignored {
        match crate::read::list_items(doc.value.clone()) {
            Ok(items) => {
                out.kueue.extend(items.into_iter().enumerate().filter(|(_, v)| crate::kueue::is_kueue(v)).map(|(i, value)| Document {
                    within: format!("items[{i}]"),
                    value,
                    ..doc.clone()
                }));
            }
            Err(_) if crate::kueue::is_kueue(&doc.value) => out.kueue.push(doc.clone()),
            Err(_) => {}
        }
    }
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
