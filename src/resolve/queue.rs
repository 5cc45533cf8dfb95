//! `JaxRuntimeQueue` objects and the resolved runtimes -> resolved queues ([`ResolvedQueue`]:
//! names defaulted and checked), which queue serves each runtime, and what serving does to a
//! runtime: the `jax-runtimes.dev/cluster-queue` and `jax-runtimes.dev/local-queue` annotations,
//! and with Topology Aware Scheduling the podset annotations of a GPU runtime ([`serve`]).
//! Errors carry field paths relative to the queue object; the caller places them.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::resolved::{Accel, Origin, Resolved};
use crate::catalog::{JaxRuntimeQueue, PriorityClass, Quota, RuntimeSelector};
use crate::diag::Diagnostic;
use crate::k8s::names;
use crate::keys;
use crate::kueue::{self, facts};
use crate::rules::catalog::{CATALOG_QUEUE, CATALOG_QUEUE_TOPOLOGY};

/// A queue with every default applied.
#[derive(Debug, Clone)]
pub struct ResolvedQueue {
    pub origin: Origin,
    /// `metadata.name` of the JaxRuntimeQueue.
    pub name: String,
    pub api_version: String,
    pub cluster_queue: String,
    pub local_queue: String,
    pub namespaces: Vec<String>,
    pub namespace_selector: LabelSelector,
    pub cohort: Option<String>,
    pub queueing_strategy: Option<String>,
    pub preemption: Option<kueue::Preemption>,
    pub quotas: Vec<Quota>,
    pub priority_classes: Vec<PriorityClass>,
    /// `Some` with Topology Aware Scheduling: the Topology's name and levels when given.
    pub tas: Option<(Option<String>, Vec<String>)>,
    pub selector: Option<RuntimeSelector>,
    /// `spec.capacity`: the capacity types each shape gets a flavor of, in the order Kueue tries them.
    pub capacity: Vec<crate::catalog::Capacity>,
}

/// The Topology a served runtime's flavor uses under Topology Aware Scheduling.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TasTopology {
    pub name: String,
    pub levels: Vec<String>,
    /// Admitted through GKE's slice controller too (a dynamic TPU slice it forms).
    pub slice_controller: bool,
}

/// How a queue serves one runtime.
#[derive(Debug, Clone, PartialEq)]
pub struct Serving {
    /// Index of the queue.
    pub queue: usize,
    /// The Topology of the runtime's flavor, with TAS.
    pub tas: Option<TasTopology>,
}

/// Resolves one queue.
pub fn resolve_queue(q: &JaxRuntimeQueue, origin: Origin) -> Result<ResolvedQueue, Vec<Diagnostic>> {
    let f = facts();
    let spec = &q.spec;
    let mut errors = Vec::new();
    let mut bad = |field: &str, message: String| errors.push(Diagnostic::new(&CATALOG_QUEUE, message).with_field(field));
    let api_version = spec.kueue_api_version.clone().unwrap_or_else(|| f.api_versions.default.clone());
    if !f.supports(&api_version) {
        bad(
            "spec.kueueApiVersion",
            format!(
                "`{api_version}` is not a Kueue API jax-runtimes writes; expected one of {}",
                crate::k8s::facts::listed(&f.api_versions.supported)
            ),
        );
    }
    let cluster_queue = spec.cluster_queue.clone().unwrap_or_else(|| q.metadata.name.clone());
    let local_queue = spec.local_queue.clone().unwrap_or_else(|| cluster_queue.clone());
    for (field, name) in [("spec.clusterQueue", &cluster_queue), ("spec.localQueue", &local_queue)] {
        if let Err(e) = names::dns1123_subdomain(name) {
            bad(
                if spec.cluster_queue.is_none() && field == "spec.clusterQueue" { "metadata.name" } else { field },
                format!("`{name}` is not a valid queue name: it {e}"),
            );
        }
    }
    let namespaces = if spec.namespaces.is_empty() { vec!["default".to_string()] } else { spec.namespaces.clone() };
    for (i, ns) in spec.namespaces.iter().enumerate() {
        if let Err(e) = names::dns1123_label(ns) {
            bad(&format!("spec.namespaces[{i}]"), format!("`{ns}` is not a valid namespace: it {e}"));
        }
        if spec.namespaces[..i].contains(ns) {
            bad(&format!("spec.namespaces[{i}]"), format!("namespace `{ns}` is listed twice"));
        }
    }
    if let Some(c) = &spec.cohort {
        if let Err(e) = names::dns1123_subdomain(c) {
            bad("spec.cohort", format!("`{c}` is not a valid cohort name: it {e}"));
        }
    }
    for (i, p) in spec.priority_classes.iter().enumerate() {
        if let Err(e) = names::dns1123_subdomain(&p.name) {
            bad(&format!("spec.priorityClasses[{i}].name"), format!("`{}` is not a valid WorkloadPriorityClass name: it {e}", p.name));
        }
    }
    let mut enum_of = |field: &str, value: Option<&String>, allowed: &[String]| {
        if let Some(v) = value.filter(|v| !allowed.contains(v)) {
            bad(field, format!("`{v}` is not one of {}", crate::k8s::facts::listed(allowed)));
        }
    };
    if let Some(p) = &spec.preemption {
        enum_of("spec.preemption.reclaimWithinCohort", p.reclaim_within_cohort.as_ref(), &f.enums.reclaim_within_cohort);
        enum_of("spec.preemption.withinClusterQueue", p.within_cluster_queue.as_ref(), &f.enums.within_cluster_queue);
        enum_of("spec.preemption.borrowWithinCohort", p.borrow_within_cohort.as_ref(), &f.enums.borrow_within_cohort);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(ResolvedQueue {
        origin,
        name: q.metadata.name.clone(),
        api_version,
        cluster_queue,
        local_queue,
        namespaces,
        namespace_selector: spec.namespace_selector.clone().unwrap_or_default(),
        cohort: spec.cohort.clone(),
        queueing_strategy: spec.queueing_strategy.map(|s| format!("{s:?}")),
        preemption: spec.preemption.as_ref().map(|p| kueue::Preemption {
            reclaim_within_cohort: p.reclaim_within_cohort.clone(),
            within_cluster_queue: p.within_cluster_queue.clone(),
            borrow_within_cohort: p
                .borrow_within_cohort
                .clone()
                .map(|policy| kueue::BorrowWithinCohort { policy: Some(policy), max_priority_threshold: None }),
        }),
        quotas: spec.quotas.clone(),
        priority_classes: spec.priority_classes.clone(),
        tas: spec.topology_aware_scheduling.as_ref().map(|t| (t.topology.clone(), t.levels.clone())),
        selector: spec.runtimes.clone(),
        capacity: spec.capacity.clone(),
    })
}

/// True when the queue serves the runtime.
fn selects(q: &ResolvedQueue, r: &Resolved) -> bool {
    let Some(s) = &q.selector else { return true };
    (s.names.is_empty() || s.names.contains(&r.name)) && s.match_labels.iter().all(|(k, v)| r.labels.get(k) == Some(v))
}

/// Which queue serves each runtime, and what it does to it: the queue annotations, and for a GPU
/// runtime of a queue with Topology Aware Scheduling that sets no `spec.topology`, a preferred
/// topology that keeps a multi-node job compact (`unconstrained` for one node). Errors: a
/// runtime two queues serve, a queue that serves none, TAS without known levels.
/// Runtimes are handed over one at a time ([`Serve::one`], in the order they are generated), and
/// the queues that served none are told at the end ([`Serve::finish`]).
pub struct Serve<'q> {
    queues: &'q [ResolvedQueue],
    served: Vec<usize>,
    pub errors: Vec<Diagnostic>,
}

impl<'q> Serve<'q> {
    pub fn new(queues: &'q [ResolvedQueue]) -> Serve<'q> {
        Serve { queues, served: vec![0; queues.len()], errors: Vec::new() }
    }

    /// The queue that serves `r` (its annotations set), if any.
    pub fn one(&mut self, r: &mut Resolved) -> Option<Serving> {
        let (queues, errors) = (self.queues, &mut self.errors);
        let f = facts();
        let mine: Vec<usize> = queues.iter().enumerate().filter(|(_, q)| selects(q, r)).map(|(i, _)| i).collect();
        let &qi = mine.first()?;
        if let Some(&other) = mine.get(1) {
            errors.push(
                queues[other].origin.locate(
                    Diagnostic::new(
                        &CATALOG_QUEUE,
                        format!(
                            "runtime `{}` is served by JaxRuntimeQueue `{}` and `{}`; a runtime may be served by one queue",
                            r.name, queues[qi].name, queues[other].name
                        ),
                    )
                    .with_field("spec.runtimes"),
                ),
            );
            return None;
        }
        self.served[qi] += 1;
        let q = &queues[qi];
        r.annotations.insert(keys::CLUSTER_QUEUE.into(), q.cluster_queue.clone());
        r.annotations.insert(keys::LOCAL_QUEUE.into(), q.local_queue.clone());
        let mut tas = None;
        if let (Some((name, levels)), Accel::Gpu(_)) = (&q.tas, &r.accelerator) {
            let platform = f.topologies.get(r.platform.as_str());
            let topology = match (levels.is_empty(), platform) {
                (false, _) => Some(TasTopology {
                    name: name.clone().unwrap_or_else(|| format!("{}-topology", q.cluster_queue)),
                    levels: levels.clone(),
                    slice_controller: false,
                }),
                (true, Some(p)) => Some(TasTopology {
                    name: name.clone().unwrap_or_else(|| p.name.clone()),
                    levels: p.levels.clone(),
                    slice_controller: false,
                }),
                (true, None) => {
                    errors.push(
                        q.origin.locate(
                            Diagnostic::new(
                                &CATALOG_QUEUE_TOPOLOGY,
                                format!(
                                    "the queue serves GPU runtime `{}` on platform `{}`, whose topology levels jax-runtimes does not know",
                                    r.name, r.platform
                                ),
                            )
                            .with_field("spec.topologyAwareScheduling.levels"),
                        ),
                    );
                    None
                }
            };
            if let Some(t) = &topology {
                if r.pod_annotations.is_empty() {
                    let a = &f.annotations;
                    if r.num_nodes > 1 {
                        let level = match (levels.is_empty(), platform) {
                            (true, Some(p)) => p.multi_node_gpu.preferred.clone().or_else(|| p.multi_node_gpu.required.clone()),
                            _ => None,
                        }
                        .or_else(|| t.levels.iter().rev().nth(1).or(t.levels.last()).cloned());
                        if let Some(level) = level {
                            r.pod_annotations.insert(a.podset_preferred_topology.clone(), level);
                        }
                    } else {
                        r.pod_annotations.insert(a.podset_unconstrained_topology.clone(), "true".into());
                    }
                }
            }
            tas = topology;
        }
        // A dynamic TPU slice is admitted over the Topology of its partitions (its podset
        // annotations are the runtime's already, `resolve::tpu::pod_annotations`).
        if let Accel::Tpu(shape) = &r.accelerator {
            if let Some((name, levels)) = crate::accelerators::data().tpu.dynamic_topology(shape, &f.hostname_label) {
                let slice_controller = shape.dynamic.as_ref().is_some_and(|d| d.controller);
                tas = Some(TasTopology { name, levels, slice_controller });
            }
        }
        Some(Serving { queue: qi, tas })
    }

    /// Every error: those of the runtimes, then a queue that served none, unless a catalog
    /// entry `failed` (the queue may serve the runtimes it would have generated): with how many
    /// such follow-on errors were left out.
    pub fn finish(self, failed: bool) -> (Vec<Diagnostic>, usize) {
        let Serve { queues, served, mut errors } = self;
        let mut left_out = 0;
        for (q, n) in queues.iter().zip(&served) {
            if *n != 0 {
                continue;
            }
            if failed {
                left_out += 1;
                continue;
            }
            let (field, help) = match q.selector {
                Some(_) => {
                    ("spec.runtimes", "make `spec.runtimes` select a runtime of the catalog (by name or label), or remove the queue")
                }
                None => ("metadata.name", "every runtime is served by another queue: give this one `spec.runtimes`, or remove it"),
            };
            errors.push(
                q.origin.locate(
                    Diagnostic::new(&CATALOG_QUEUE, format!("JaxRuntimeQueue `{}` serves no runtime of the catalog", q.name))
                        .with_field(field)
                        .with_help(help),
                ),
            );
        }
        (errors, left_out)
    }
}
