//! Kueue objects against each other and against the runtimes and TrainJobs they serve -> findings
//! placed at the object they are about:
//! - a LocalQueue whose ClusterQueue, a ClusterQueue whose ResourceFlavor, a flavor whose Topology
//!   is not in the input (each checked only when the input has objects of that kind);
//! - a runtime annotated `jax-runtimes.dev/cluster-queue` (what a JaxRuntimeQueue puts on the
//!   runtimes it serves) whose TrainJob that queue would never admit: a requested resource not
//!   covered, no flavor matching its pods, a quota below one gang ([`crate::queues::admit`]);
//! - a TrainJob whose `kueue.x-k8s.io/queue-name` is not a valid name, names no LocalQueue of its
//!   namespace (when the input has LocalQueues), or leads to a ClusterQueue that would never admit
//!   it; and TAS annotations its runtime patches or numNodes make invalid ([`super::tas`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::de::DeserializeOwned;

use super::kueue::finding;
use super::structure;
use super::tas;
use crate::diag::{join_path, Diagnostic, ObjectRef, Rule};
use crate::gvk::Gvk;
use crate::k8s::names;
use crate::keys;
use crate::kueue::{self, facts, ClusterQueue, LocalQueue, ResourceFlavor, Topology};
use crate::queues::{podsets, Blocker, PodSet, Queues, Verdict};
use crate::read::Document;
use crate::rules::kueue::*;
use crate::trainer::{is_runtime, is_trainjob, TrainJob, TrainingRuntime};
use crate::trainjob::{self, Steps, TrainerVersion};

/// The Kueue objects of the input, read into their types, with their documents.
struct Objects<'a, T> {
    items: Vec<(&'a Document, T)>,
}

impl<'a, T: DeserializeOwned> Objects<'a, T> {
    fn of(docs: impl Iterator<Item = &'a Document>, kind: &str) -> Objects<'a, T> {
        let items = docs
            .filter(|d| kueue::is_kueue(&d.value) && Gvk::of(&d.value).kind == kind)
            .filter_map(|d| serde_json::from_value::<T>(d.value.clone()).ok().map(|t| (d, t)))
            .collect();
        Objects { items }
    }
}

/// Every cross-object finding of the input. `context` are Kueue objects looked up besides the
/// input's and never reported on (those of `--runtimes`); `extra` are runtimes TrainJobs may use
/// besides the input's (`--runtimes`); `version` the Trainer release TrainJobs are built for, if
/// one was given.
pub fn check(docs: &[Document], context: &[Document], extra: &[TrainingRuntime], version: Option<TrainerVersion>) -> Vec<Diagnostic> {
    let all = || docs.iter().chain(context);
    let flavors = Objects::<ResourceFlavor>::of(all(), kueue::KIND_RESOURCE_FLAVOR);
    let cqs = Objects::<ClusterQueue>::of(all(), kueue::KIND_CLUSTER_QUEUE);
    let lqs = Objects::<LocalQueue>::of(all(), kueue::KIND_LOCAL_QUEUE);
    let topologies = Objects::<Topology>::of(all(), kueue::KIND_TOPOLOGY);
    // Findings are on the judged documents only.
    let judged = |d: &Document| docs.as_ptr_range().contains(&(d as *const Document));
    let has_trainjob = docs.iter().any(|d| is_trainjob(&d.value));
    let annotated = docs
        .iter()
        .any(|d| is_runtime(&d.value) && d.value.pointer("/metadata/annotations").and_then(|a| a.get(keys::CLUSTER_QUEUE)).is_some());
    if flavors.items.is_empty()
        && cqs.items.is_empty()
        && lqs.items.is_empty()
        && topologies.items.is_empty()
        && !has_trainjob
        && !annotated
    {
        return Vec::new();
    }
    let name = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| m.name.clone().unwrap_or_default();
    let queues = Queues {
        cluster_queues: cqs.items.iter().map(|(_, q)| (name(&q.metadata), q)).collect(),
        flavors: (!flavors.items.is_empty()).then(|| flavors.items.iter().map(|(_, f)| (name(&f.metadata), f)).collect()),
        topologies: (!topologies.items.is_empty()).then(|| topologies.items.iter().map(|(_, t)| (name(&t.metadata), t)).collect()),
        usage: Default::default(),
    };
    let mut out = Vec::new();
    let cq_names: BTreeSet<&str> = queues.cluster_queues.keys().map(String::as_str).collect();
    for (doc, lq) in lqs.items.iter().filter(|(d, _)| judged(d)) {
        let cq = lq.spec.cluster_queue.as_str();
        let missing = if cq.is_empty() {
            Some("names no ClusterQueue (`spec.clusterQueue` is empty)".to_string())
        } else if !cq_names.is_empty() && !cq_names.contains(cq) {
            Some(format!("names ClusterQueue `{cq}`, which is not among the input's ({})", listed(cq_names.iter())))
        } else {
            None
        };
        if let Some(m) = missing {
            out.push(place(doc, finding(&KUEUE_UNKNOWN_CLUSTER_QUEUE, "spec.clusterQueue", m)));
        }
    }
    if let Some(known) = &queues.flavors {
        for (doc, cq) in cqs.items.iter().filter(|(d, _)| judged(d)) {
            for (g, group) in cq.spec.resource_groups.iter().enumerate() {
                for (j, f) in group.flavors.iter().enumerate() {
                    if !known.contains_key(&f.name) {
                        out.push(place(
                            doc,
                            finding(
                                &KUEUE_UNKNOWN_FLAVOR,
                                format!("spec.resourceGroups[{g}].flavors[{j}].name"),
                                format!("ResourceFlavor `{}` is not among the input's ({})", f.name, listed(known.keys())),
                            ),
                        ));
                    }
                }
            }
        }
    }
    if let Some(known) = &queues.topologies {
        for (doc, rf) in flavors.items.iter().filter(|(d, _)| judged(d)) {
            if let Some(t) = rf.spec.topology_name.as_deref().filter(|t| !known.contains_key(*t)) {
                out.push(place(
                    doc,
                    finding(
                        &KUEUE_UNKNOWN_FLAVOR,
                        "spec.topologyName",
                        format!("Topology `{t}` is not among the input's ({})", listed(known.keys())),
                    ),
                ));
            }
        }
    }
    // Runtimes that say which ClusterQueue serves them.
    let mut runtimes: Vec<TrainingRuntime> = Vec::new();
    for doc in docs.iter().filter(|d| is_runtime(&d.value)) {
        let Some(rt) = structure::typed(&doc.value) else { continue };
        if let Some(cq) = rt.metadata.annotations.as_ref().and_then(|a| a.get(keys::CLUSTER_QUEUE)).cloned() {
            if !queues.cluster_queues.is_empty() {
                let field = join_path("metadata.annotations", keys::CLUSTER_QUEUE);
                if let Ok((_, sets)) = podsets::of_runtime(&rt) {
                    if let Some(d) = never_admitted(&queues, &cq, &sets, &field, "its TrainJobs") {
                        out.push(place(doc, d));
                    }
                }
            }
        }
        runtimes.push(rt);
    }
    runtimes.extend(extra.iter().cloned());
    let local: BTreeMap<(String, String), &LocalQueue> = lqs
        .items
        .iter()
        .map(|(_, lq)| ((lq.metadata.namespace.clone().unwrap_or_else(|| "default".into()), name(&lq.metadata)), lq))
        .collect();
    for doc in docs.iter().filter(|d| is_trainjob(&d.value)) {
        let Some(tj) = structure::typed_trainjob(&doc.value) else { continue };
        out.extend(trainjob(&tj, &runtimes, &local, !lqs.items.is_empty(), &queues, version).into_iter().map(|d| place(doc, d)));
    }
    out
}

fn place(doc: &Document, d: Diagnostic) -> Diagnostic {
    doc.locate(d.with_object(ObjectRef::of(&doc.value)))
}

fn listed<'a>(names: impl Iterator<Item = &'a (impl AsRef<str> + 'a + ?Sized)>) -> String {
    let all: Vec<String> = names.map(|n| format!("`{}`", n.as_ref())).collect();
    if all.is_empty() {
        "none".into()
    } else {
        all.join(", ")
    }
}

/// The finding for a workload ClusterQueue `cq` would never admit, at `field`; `whose` names the
/// workload in the message.
pub fn never_admitted(queues: &Queues, cq: &str, sets: &[PodSet], field: &str, whose: &str) -> Option<Diagnostic> {
    let Verdict::Never(blocker) = queues.admit(cq, sets) else { return None };
    blocker_finding(queues, cq, &blocker, field, whose)
}

/// The finding of a workload `blocker` keeps out of ClusterQueue `cq` forever.
pub fn blocker_finding(queues: &Queues, cq: &str, blocker: &Blocker, field: &str, whose: &str) -> Option<Diagnostic> {
    let rule: &'static Rule = match blocker {
        Blocker::NoClusterQueue { .. } if queues.cluster_queues.is_empty() => return None,
        Blocker::NoClusterQueue { .. } => &KUEUE_UNKNOWN_CLUSTER_QUEUE,
        Blocker::NotCovered { .. } => &KUEUE_RESOURCE_NOT_COVERED,
        Blocker::NoMatchingFlavor { .. } => &KUEUE_NO_MATCHING_FLAVOR,
        Blocker::BelowGang { .. } => &KUEUE_QUOTA_BELOW_GANG,
    };
    let known = match blocker {
        Blocker::NoClusterQueue { .. } => format!(" (the input has {})", listed(queues.cluster_queues.keys())),
        _ => String::new(),
    };
    Some(finding(rule, field, format!("ClusterQueue `{cq}` never admits {whose}: {blocker}{known}")))
}

fn trainjob(
    tj: &TrainJob,
    runtimes: &[TrainingRuntime],
    local: &BTreeMap<(String, String), &LocalQueue>,
    have_local_queues: bool,
    queues: &Queues,
    version: Option<TrainerVersion>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let f = facts();
    let labels = tj.metadata.labels.clone().unwrap_or_default();
    let label_path = |k: &str| join_path("metadata.labels", k);
    let queue = labels.get(&f.labels.queue_name);
    if let Some(q) = queue {
        if let Err(e) = names::dns1123_subdomain(q) {
            out.push(finding(&KUEUE_QUEUE_NAME, label_path(&f.labels.queue_name), format!("`{q}` is not a valid LocalQueue name: it {e}")));
        }
    }
    if let Some(v) = labels.get(&f.labels.max_exec_time_seconds) {
        if !v.parse::<i64>().is_ok_and(|n| n > 0) {
            out.push(finding(
                &KUEUE_QUEUE_NAME,
                label_path(&f.labels.max_exec_time_seconds),
                format!("{v:?} should be a whole number greater than 0"),
            ));
        }
    }
    let Ok(rt) = trainjob::find(tj, runtimes) else { return out };
    let version = version.or_else(|| TrainerVersion::of_runtime(rt)).unwrap_or_default();
    let eff = trainjob::build(rt, tj, version, Steps::All);
    let Ok(sets) = podsets::of(&eff) else { return out };
    // TAS findings the TrainJob makes: those its runtime alone does not have.
    if sets.iter().any(|s| s.annotations.keys().any(|k| f.topology_annotations().contains(&k.as_str()))) {
        let own =
            |sets: &[PodSet]| tas::check(sets, &|_| String::new()).into_iter().map(|d| (d.rule.id, d.message)).collect::<BTreeSet<_>>();
        let alone = podsets::of_runtime(rt).map(|(_, s)| own(&s)).unwrap_or_default();
        for d in tas::check(&sets, &|_| String::new()) {
            if !alone.contains(&(d.rule.id, d.message.clone())) {
                let field = if tj.spec.runtime_patches.as_ref().is_some_and(|p| !p.is_empty()) {
                    "spec.runtimePatches"
                } else {
                    "spec.trainer.numNodes"
                };
                let message =
                    d.message.replace(crate::rules::Moment::TrainJobCreate.clause(), "Kueue's webhook rejects this TrainJob at create");
                out.push(Diagnostic { message: format!("with this TrainJob's {field}: {message}"), ..d.clone() }.with_field(field));
            }
        }
    }
    let Some(q) = queue else { return out };
    let ns = tj.metadata.namespace.clone().unwrap_or_else(|| "default".into());
    let cq = match local.get(&(ns.clone(), q.clone())) {
        Some(lq) => lq.spec.cluster_queue.clone(),
        None if have_local_queues => {
            let here: Vec<&String> = local.keys().filter(|(n, _)| *n == ns).map(|(_, name)| name).collect();
            let mean = crate::spelling::nearest(q, here.iter().map(|n| n.as_str()), 3)
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
            // A TrainJob without a namespace lands where `kubectl apply -n` puts it: say what was assumed.
            let assumed = if tj.metadata.namespace.is_none() {
                " (the TrainJob sets no namespace, so `default` is assumed; `kubectl apply -n NS` would put it in NS)"
            } else {
                ""
            };
            out.push(finding(
                &KUEUE_UNKNOWN_LOCAL_QUEUE,
                label_path(&f.labels.queue_name),
                format!(
                    "no LocalQueue `{q}` in namespace `{ns}`{assumed} among the input's (namespace `{ns}` has {}){mean}",
                    listed(here.iter().copied())
                ),
            ));
            return out;
        }
        None => return out,
    };
    if queues.cluster_queues.contains_key(&cq) {
        if let Some(d) = never_admitted(queues, &cq, &sets, &label_path(&f.labels.queue_name), "this TrainJob") {
            out.push(d);
        }
    }
    out
}
