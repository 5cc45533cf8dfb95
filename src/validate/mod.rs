//! Validate stage: checks Kubeflow Trainer runtimes (`ClusterTrainingRuntime`, `TrainingRuntime`),
//! generated or written by hand, in six layers:
//!
//! 1. structure: against the project's typed Trainer/JobSet/Pod model ([`structure`]), or against
//!    the `openAPIV3Schema` of CRD files the user passes ([`crd`]), with unknown fields reported;
//! 2. the CRD's `x-kubernetes-validations` CEL rules ([`cel`]);
//! 3. Trainer admission webhook rules ([`admission`]);
//! 4. what the Kubeflow SDK, the JAX plugin and the JobSet controller need ([`ecosystem`]);
//! 5. accelerator consistency: TPU chips, topology and hosts, GPU counts, selectors ([`accelerators`]),
//!    contradictory selectors, `JAX_PLATFORMS` and images ([`consistency`]), and the GPU fabric of
//!    the machine type ([`interconnect`]);
//! 6. Kubernetes' own rules: what the API server checks at apply, and what JobSet, the Job
//!    controller and Pod admission check when a TrainJob starts ([`kubernetes`]), with the longest
//!    TrainJob name the runtime allows as an info finding (hand-written runtimes only).
//!
//! Layers 3 to 6 are one table, [`checks::RUNTIME_CHECKS`], which the TrainJob checks run too. A
//! Kubernetes finding at a field that a structure error already covers (the same field or one
//! inside it) is dropped: one mistake, one finding.
//!
//! TrainJobs among the documents are checked against the runtimes they reference ([`trainjob`]):
//! those among the documents and those in [`Options::runtimes`].
//!
//! Input: documents (or one object); output: findings, each of a rule in [`crate::rules`].

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::diag::{within, Diagnostic, ObjectRef};
use crate::read::Document;
use crate::rules::input::INPUT_DUPLICATE_OBJECT;
use crate::rules::validate::{CRD_NOT_COVERED, CRD_UNUSABLE, SCHEMA_DUPLICATE_KEY};
use crate::trainer;
use crate::trainer::TrainingRuntime;
use crate::trainjob::TrainerVersion;

pub mod accelerators;
pub mod admission;
pub mod autopilot;
pub mod cel;
pub mod checks;
pub mod claims;
pub mod consistency;
pub mod crd;
pub mod crd_cel;
pub mod ecosystem;
pub mod export;
pub mod go_regexp;
pub mod initializer;
pub mod interconnect;
pub mod kubernetes;
pub mod kueue;
pub mod queues;
pub mod structure;
pub mod taints;
pub mod tas;
pub mod trainjob;
pub mod upstream;

pub use crate::trainer::{is_runtime, is_trainjob};

/// What the validator checks against.
#[derive(Clone, Default)]
pub struct Options {
    /// CRDs to check structure and CEL rules against (`--crd`). Empty: the typed model and the
    /// built-in equivalents of the Trainer CRD's CEL rules.
    pub crds: Vec<Arc<crd::Crd>>,
    /// Runtimes TrainJobs may reference besides those among the documents (`--runtimes`).
    pub runtimes: Arc<[TrainingRuntime]>,
    /// Kueue objects TrainJobs and queues are looked up in besides those among the documents (the
    /// LocalQueues, ClusterQueues and flavors of `--runtimes` and `--queues`): context, never
    /// reported on.
    pub kueue: Arc<[Document]>,
    /// The Trainer release TrainJobs are checked for (`--trainer-version`); `None`: the one each
    /// runtime's `jax-runtimes.dev/trainer-version` annotation names, else v2.3.
    pub trainer_version: Option<TrainerVersion>,
    /// The embedded release whose CRD schemas judge every object (`--trainer-version`, exact:
    /// `v2.2.0`); `None`: a runtime's `jax-runtimes.dev/trainer-version` annotation, else
    /// [`structure::DEFAULT_RELEASE`].
    pub release: Option<&'static str>,
}

impl Options {
    /// The embedded release whose schemas judge `value` (see [`Options::release`]).
    pub fn release_for(&self, value: &Value) -> &'static str {
        self.release
            .or_else(|| {
                let named =
                    value.pointer("/metadata/annotations").and_then(|a| a.get(crate::keys::TRAINER_VERSION)).and_then(Value::as_str);
                named.and_then(|n| structure::release(n).ok())
            })
            .unwrap_or(structure::DEFAULT_RELEASE)
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("crds", &self.crds.iter().map(|c| c.name.as_str()).collect::<Vec<_>>())
            .field("runtimes", &self.runtimes.len())
            .field("kueue", &self.kueue.len())
            .field("trainer_version", &self.trainer_version)
            .finish()
    }
}

/// The Trainer release a user names (`--trainer-version`, `JaxRuntimeValidation`'s
/// `spec.trainerVersion`): the embedded release whose CRD schemas judge every object, and how its
/// TrainJobs are merged (`None` before the JAX policy: as the default release merges them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    pub schemas: &'static str,
    pub merge: Option<TrainerVersion>,
}

impl Release {
    /// A release (`v2.2.1`), a minor (`v2.2`: its newest patch) or `next`; the error lists the
    /// releases there are.
    pub fn named(name: &str) -> Result<Release, String> {
        let schemas = structure::release(name)?;
        Ok(Release { schemas, merge: TrainerVersion::parse(name).ok() })
    }

    /// What a user is told of a release without the JAX policy (`None` for one with it, and for
    /// `next`).
    pub fn note(&self) -> Option<String> {
        (self.merge.is_none() && self.schemas != "next").then(|| {
            format!(
                "Trainer {} has no JAX policy: objects are judged by its CRDs' schemas, TrainJobs merged as {} merges them",
                self.schemas,
                TrainerVersion::default()
            )
        })
    }
}

impl Options {
    /// The options judging for `release` (`None`: each object's own, see [`Options::release`]).
    pub fn for_release(self, release: Option<Release>) -> Options {
        match release {
            Some(r) => Options { release: Some(r.schemas), trainer_version: r.merge, ..self },
            None => self,
        }
    }

    /// Loads CRD files (each compiled once). Every unusable file is reported.
    pub fn with_crd_files(paths: &[impl AsRef<Path>]) -> Result<Options, Vec<Diagnostic>> {
        let mut crds = Vec::new();
        let mut errors = Vec::new();
        for p in paths {
            match crate::read::read_file(p.as_ref()) {
                Ok(docs) => match crd::from_documents(&docs) {
                    Ok(mut c) if !c.is_empty() => crds.append(&mut c),
                    Ok(_) => errors.push(Diagnostic::finding(&CRD_UNUSABLE, "", "the file holds no CustomResourceDefinition").with_file(
                        p.as_ref().display().to_string(),
                        None,
                        None,
                    )),
                    Err(mut e) => errors.append(&mut e),
                },
                Err(d) => errors.push(Diagnostic { rule: &CRD_UNUSABLE, severity: CRD_UNUSABLE.severity, ..d }),
            }
        }
        if errors.is_empty() {
            Ok(Options { crds: crds.into_iter().map(Arc::new).collect(), ..Options::default() })
        } else {
            Err(errors)
        }
    }

    /// The CRD (and version) defining `apiVersion`/`kind`, if any was given.
    pub fn crd_for(&self, api_version: &str, kind: &str) -> Option<(&crd::Crd, &crd::Version)> {
        self.crds.iter().find_map(|c| c.version(api_version, kind).map(|v| (c.as_ref(), v)))
    }
}

/// Checks one runtime object. Field paths are relative to the object; `object` is set; file
/// and line are not (see [`objects`]). Findings come sorted by layer, in document order.
pub fn object(value: &Value, opts: &Options) -> Vec<Diagnostic> {
    object_with(value, None, opts)
}

/// `object`, given the typed form when the caller already has it: `known` must be the runtime
/// `value` was serialized from (the renderer's case), so nothing reads the value back.
fn object_with(value: &Value, known: Option<&TrainingRuntime>, opts: &Options) -> Vec<Diagnostic> {
    let api_version = value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or_default();
    let mut out = Vec::new();
    match opts.crd_for(api_version, kind) {
        Some((_, version)) => {
            out.extend(version.check_structure(value));
            out.extend(version.check_cel(value));
        }
        None => {
            if !opts.crds.is_empty() {
                out.push(Diagnostic::finding(
                    &CRD_NOT_COVERED,
                    "",
                    format!(
                        "no --crd file defines {api_version} {kind}; checked against the embedded schema of Trainer {} instead",
                        opts.release_for(value)
                    ),
                ));
            }
            out.extend(structure::check(value, opts.release_for(value)));
            // A runtime render just generated is for a release with the JAX policy (v2.2.0 on),
            // whose rules the built-in equivalents make exactly (tests/mutations.rs checks it on
            // every mutant): they spare render kube-cel's conversion of the whole JobSet spec.
            if known.is_some() {
                out.extend(cel::builtin(value, opts.release_for(value)));
            } else {
                out.extend(cel::judged(structure::check_cel(value, opts.release_for(value)), cel::builtin(value, opts.release_for(value))));
            }
        }
    }
    // The later layers read the typed model. k8s-openapi fills missing required fields with
    // defaults and a wrong type does not read at all, so they run only on an object whose
    // structure reads faithfully.
    let misread = out.iter().any(|d| d.is_error() && (d.rule.id.ends_with("/required") || d.rule.id.ends_with("/type")));
    // Both judges (embedded schema, `--crd`) read the object the same way after the schema.
    let read;
    let typed = match known {
        _ if misread => None,
        Some(rt) => Some(rt),
        None => match structure::decoded(value) {
            Ok(rt) => {
                read = rt;
                Some(&read)
            }
            // A value the schema already refuses is said once, by the schema.
            Err(d) => {
                if !out.iter().any(is_structure) {
                    out.push(d);
                }
                None
            }
        },
    };
    if let Some(rt) = typed {
        // One finding per mistake: what a structure error already reports is not repeated.
        let covered: Vec<String> =
            out.iter().filter(|d| is_structure(d) && d.rule != &SCHEMA_DUPLICATE_KEY).filter_map(|d| d.field.clone()).collect();
        for c in checks::RUNTIME_CHECKS {
            let mut found = (c.check)(rt);
            if c.restates_kubernetes {
                // The longest TrainJob name a hand-written runtime allows (info); a generated
                // runtime's page says it.
                if known.is_none() {
                    found.extend(kubernetes::trainjob_name_length(rt));
                }
                found.retain(|d| !d.field.as_deref().is_some_and(|f| covered.iter().any(|x| within(f, x))));
            }
            out.extend(found);
        }
    }
    // The GKE version a dynamic TPU slice needs (info) is the catalog data's: `render` does not
    // repeat it for each runtime it generates.
    if known.is_some() {
        out.retain(|d| d.rule != &crate::rules::validate::TPU_SLICE_GKE_VERSION);
    }
    // A repeated key the Kubernetes rules name by its item is said once, by them.
    let named: Vec<String> = out.iter().filter(|d| d.rule.id == "k8s/duplicate-key").filter_map(|d| d.field.clone()).collect();
    out.retain(|d| d.rule != &SCHEMA_DUPLICATE_KEY || !d.field.as_deref().is_some_and(|f| named.iter().any(|n| within(n, f))));
    let object = ObjectRef::of(value);
    out.into_iter().map(|d| d.with_object(object.clone())).collect()
}

fn is_structure(d: &Diagnostic) -> bool {
    d.is_error() && (d.rule.id.starts_with("schema/") || d.rule.id.starts_with("crd/"))
}

/// Checks every runtime, TrainJob and Kueue object among `docs` and places each finding in its
/// file and line: the runtimes' findings first, then the TrainJobs', the Kueue objects', and
/// what the Kueue objects, runtimes and TrainJobs say of each other ([`queues`]). Other
/// documents are skipped (the CLI reports them).
///
/// Large inputs are checked on every core, in contiguous slices whose findings are joined in
/// document order, so the output does not depend on the number of threads.
pub fn objects(docs: &[Document], opts: &Options) -> Vec<Diagnostic> {
    let mut out = runtime_objects(docs, opts);
    out.extend(trainjob_objects(docs, opts));
    for doc in docs.iter().filter(|d| crate::kueue::is_kueue(&d.value)) {
        let api_version = doc.value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        let crd = opts.crd_for(api_version, crate::gvk::Gvk::of(&doc.value).kind).map(|(_, v)| v);
        out.extend(kueue::check(&doc.value, crd, !opts.crds.is_empty()).into_iter().map(|d| doc.locate(d)));
    }
    out.extend(queues::check(docs, &opts.kueue, &opts.runtimes, opts.trainer_version));
    out.extend(claims::check(docs));
    out.extend(duplicates(docs));
    out
}

/// `input/duplicate-object`: a Trainer or Kueue object a second time (by group, kind, namespace
/// and name), at the second, naming the first.
fn duplicates(docs: &[Document]) -> Vec<Diagnostic> {
    /// An object's identity to the API server: group, kind, namespace, name.
    type Key = (String, String, Option<String>, String);
    let mut first: std::collections::HashMap<Key, &Document> = std::collections::HashMap::new();
    let mut out = Vec::new();
    // Where a document's name is: worked out only for a duplicate (a line costs the document's
    // line index).
    let at = |doc: &Document| {
        let d = doc.locate(Diagnostic::finding(&INPUT_DUPLICATE_OBJECT, "metadata.name", String::new()));
        let place = match d.line {
            Some(line) => format!("{}:{line}", doc.source.name),
            None => doc.source.name.clone(),
        };
        (d, place)
    };
    for doc in docs.iter().filter(|d| is_runtime(&d.value) || is_trainjob(&d.value) || crate::kueue::is_kueue(&d.value)) {
        let o = ObjectRef::of(&doc.value);
        if o.name.is_empty() {
            continue;
        }
        let group = o.api_version.split('/').next().unwrap_or_default().to_string();
        match first.entry((group, o.kind.clone(), o.namespace.clone(), o.name.clone())) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(doc);
            }
            // The same document read twice (a file given twice) is one object.
            std::collections::hash_map::Entry::Occupied(e) if e.get().source.name == doc.source.name && e.get().index == doc.index => {}
            std::collections::hash_map::Entry::Occupied(e) => {
                let effect = if is_trainjob(&doc.value) {
                    "applied together, the second apply changes the TrainJob the first made, or is refused where its fields are immutable"
                } else {
                    "applied together, the later one replaces the other"
                };
                let (here, _) = at(doc);
                let (_, there) = at(e.get());
                let message = format!("{} `{}` is also at {there}: {effect}", o.kind, o.name);
                out.push(Diagnostic { message, ..here.with_object(o) });
            }
        }
    }
    out
}

/// The one gate: [`objects`] (what `validate` says of `docs`), each finding with the position in
/// `docs` of the document it is about (`None` for one placed elsewhere). `fit` and `preview` call
/// this on the objects they judge, so that no verdict of theirs can pass what `validate` refuses.
pub fn objects_by_document(docs: &[Document], opts: &Options) -> Vec<(Option<usize>, Diagnostic)> {
    let mut at: std::collections::HashMap<(&str, usize, ObjectRef), usize> = std::collections::HashMap::new();
    for (i, d) in docs.iter().enumerate() {
        at.entry((d.source.name.as_str(), d.index, ObjectRef::of(&d.value))).or_insert(i);
    }
    // A kind of ours at a version its CRD does not serve: what `validate` says first.
    let unserved = docs.iter().enumerate().filter(|(_, d)| is_runtime(&d.value) || is_trainjob(&d.value)).filter_map(|(i, d)| {
        crate::kinds::near_miss(crate::gvk::Gvk::of(&d.value)).map(|f| (Some(i), d.locate(f.with_object(ObjectRef::of(&d.value)))))
    });
    let unserved: Vec<(Option<usize>, Diagnostic)> = unserved.collect();
    unserved
        .into_iter()
        .chain(objects(docs, opts).into_iter().map(|d| {
            let i = match (&d.file, d.index, &d.object) {
                (Some(f), Some(n), Some(o)) => at.get(&(f.as_str(), n, o.clone())).copied(),
                _ => None,
            };
            (i, d)
        }))
        .collect()
}

/// Every TrainJob among `docs`, against the runtimes among `docs` and in `opts.runtimes` (the
/// documents' first: they win on a name both have).
fn trainjob_objects(docs: &[Document], opts: &Options) -> Vec<Diagnostic> {
    let trainjobs: Vec<&Document> = docs.iter().filter(|d| is_trainjob(&d.value)).collect();
    if trainjobs.is_empty() {
        return Vec::new();
    }
    let mut runtimes: Vec<TrainingRuntime> =
        docs.iter().filter(|d| is_runtime(&d.value)).filter_map(|d| structure::typed(&d.value)).collect();
    runtimes.extend(opts.runtimes.iter().cloned());
    let ctx = trainjob::Context {
        runtimes: &runtimes,
        version: opts.trainer_version,
        release: opts.release.unwrap_or(structure::DEFAULT_RELEASE),
    };
    trainjobs
        .into_iter()
        .flat_map(|doc| {
            let api_version = doc.value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
            let crd = opts.crd_for(api_version, trainer::KIND_TRAINJOB).map(|(_, v)| v);
            let mut found = trainjob::check(&doc.value, crd, !opts.crds.is_empty(), &ctx);
            if crd.is_none() {
                // The CEL rules of the TrainJob CRD that the typed model does not hold.
                found.extend(
                    cel::builtin_trainjob(&doc.value, ctx.release)
                        .into_iter()
                        .map(|d| d.with_object(crate::diag::ObjectRef::of(&doc.value))),
                );
            }
            found.into_iter().map(|d| doc.locate(d)).collect::<Vec<_>>()
        })
        .collect()
}

fn runtime_objects(docs: &[Document], opts: &Options) -> Vec<Diagnostic> {
    let runtimes: Vec<&Document> = docs.iter().filter(|d| is_runtime(&d.value)).collect();
    let check = |slice: &[&Document]| -> Vec<Diagnostic> {
        slice.iter().flat_map(|doc| object(&doc.value, opts).into_iter().map(|d| place(doc, d))).collect()
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(runtimes.len() / PARALLEL_MIN_PER_THREAD);
    if threads <= 1 {
        return check(&runtimes);
    }
    let chunk = runtimes.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = runtimes.chunks(chunk).map(|slice| (slice, crate::yaml::spawn_scoped(s, move || check(slice)))).collect();
        handles
            .into_iter()
            .flat_map(|(slice, h)| match h {
                Some(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                None => check(slice),
            })
            .collect()
    })
}

/// Places a finding in its document: file and line. The TrainJob-name info, which every runtime
/// gets, names only the file and object: looking up a line indexes the whole file (a second parse
/// of every input, about a fifth of `validate`'s time on clean runtimes) for a finding that points
/// at `metadata.name` anyway.
fn place(doc: &Document, d: Diagnostic) -> Diagnostic {
    if std::ptr::eq(d.rule, &crate::rules::kubernetes::JOBSET_TRAINJOB_NAME_LENGTH) {
        let mut d = d;
        d.file = Some(doc.source.name.clone());
        d.index = Some(doc.index);
        return d;
    }
    doc.locate(d)
}

/// Below this many runtimes per thread, one thread is faster than starting more.
const PARALLEL_MIN_PER_THREAD: usize = 32;

/// Checks a runtime the generator produced, with the same checks as `jax-runtimes validate`
/// without `--crd`. Every finding here is a generator bug or a catalog value that slipped past
/// resolve.
pub fn generated(object: &Value, typed: &TrainingRuntime) -> Vec<Diagnostic> {
    object_with(object, Some(typed), &Options::default())
}
