//! A resolved queue, the runtimes it serves and optionally a cluster's inventory -> the Kueue
//! objects: one ResourceFlavor per shape (the node labels the runtimes' pods select on), one
//! ClusterQueue with one resource group covering every resource the pods request, in one order
//! for every flavor, a LocalQueue per namespace, the WorkloadPriorityClasses, and the Topologies
//! of Topology Aware Scheduling. A pure function of its inputs: the same input, the same objects.
//! Shapes and the order of the covered resources are [`super::shape`]'s.
//!
//! The quota of a shape's accelerator is its quota's slices, nodes or chips; without a quota,
//! one TrainJob of its largest runtime. Another resource's quota is what the most demanding of
//! its runtimes' pods would request with that many accelerators (or nodes, for CPU), unless the
//! quota's `resources` give it. With an inventory, each quota is what the shape's nodes hold
//! ([`super::inventory`]).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::inventory::Holdings;
use super::shape::{covered, shapes, Served, Shape, Unit};
use crate::diag::Diagnostic;
use crate::fit::inventory::Cluster;
use crate::k8s::quantity;
use crate::kueue::{self, facts, Amount};
use crate::resolve::queue::{ResolvedQueue, TasTopology};
use crate::rules::catalog::{CATALOG_QUEUE, CATALOG_QUEUE_QUOTA};

/// The generated objects of one queue.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Objects {
    pub priority_classes: Vec<kueue::WorkloadPriorityClass>,
    pub topologies: Vec<kueue::Topology>,
    pub flavors: Vec<kueue::ResourceFlavor>,
    /// GKE's slice controller, where the queue serves dynamic TPU slices it forms.
    pub admission_checks: Vec<kueue::AdmissionCheck>,
    pub cluster_queue: Option<kueue::ClusterQueue>,
    pub local_queues: Vec<kueue::LocalQueue>,
}

/// A shape's quota: the accelerator's amount, and its borrowing and lending limits.
struct Quotas {
    accelerator: Option<(String, i64)>,
    /// Nodes (pods) of a CPU shape.
    nodes: Option<i64>,
    borrowing: Option<i64>,
    lending: Option<i64>,
    resources: BTreeMap<String, i64>,
}

/// Generates the queue's objects; with `inventory`, the quotas are what its nodes hold.
pub fn generate(q: &ResolvedQueue, served: &[Served], inventory: Option<&Cluster>) -> Result<Objects, Vec<Diagnostic>> {
    let f = facts();
    let mut errors = Vec::new();
    let (shapes, group) = super::capacity::expand(shapes(served), served, &q.capacity)?;
    let covered = covered(served);
    let holdings = inventory.map(|c| Holdings::of(c, &shapes, served, &covered));
    let inventory = holdings.as_ref();
    let limits = &f.limits;
    if shapes.len() > limits.flavors_per_group
        || covered.len() > limits.covered_resources_per_group
        || shapes.len() * covered.len() > limits.flavor_resource_combinations_per_group
    {
        errors.push(Diagnostic::new(
            &CATALOG_QUEUE,
            format!(
                "the queue's runtimes use {} shapes and request {} resources: one resource group takes at most {} flavors, {} resources and {} flavor-resource combinations",
                shapes.len(),
                covered.len(),
                limits.flavors_per_group,
                limits.covered_resources_per_group,
                limits.flavor_resource_combinations_per_group
            ),
        )
        .with_field("spec.runtimes")
        .with_help("split the catalog's runtimes over several JaxRuntimeQueues with `spec.runtimes`"));
    }
    // Which quota entry is whose.
    let mut quota_of: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, quota) in q.quotas.iter().enumerate() {
        let at = |f: &str| format!("spec.quotas[{i}].{f}");
        let shape = match (&quota.runtime, &quota.flavor) {
            (Some(r), None) => match served.iter().position(|s| &s.name == r) {
                Some(ri) => shapes
                    .iter()
                    .position(|s| s.uses.iter().any(|(u, p)| *u == ri && accelerator_of(&served[ri], *p).is_some()))
                    .or_else(|| shapes.iter().position(|s| s.uses.iter().any(|(u, _)| *u == ri))),
                None => {
                    errors.push(
                        Diagnostic::new(
                            &CATALOG_QUEUE_QUOTA,
                            format!(
                                "runtime `{r}` is not one the queue serves ({})",
                                served.iter().map(|s| format!("`{}`", s.name)).collect::<Vec<_>>().join(", ")
                            ),
                        )
                        .with_field(at("runtime")),
                    );
                    continue;
                }
            },
            (None, Some(fl)) => match shapes.iter().position(|s| &s.name == fl) {
                Some(si) => Some(si),
                None => {
                    errors.push(
                        Diagnostic::new(
                            &CATALOG_QUEUE_QUOTA,
                            format!(
                                "flavor `{fl}` is not one the queue generates ({})",
                                shapes.iter().map(|s| format!("`{}`", s.name)).collect::<Vec<_>>().join(", ")
                            ),
                        )
                        .with_field(at("flavor")),
                    );
                    continue;
                }
            },
            _ => {
                errors.push(
                    Diagnostic::new(&CATALOG_QUEUE_QUOTA, "a quota names its shape with exactly one of `runtime` and `flavor`")
                        .with_field(format!("spec.quotas[{i}]")),
                );
                continue;
            }
        };
        let units = [quota.slices, quota.nodes, quota.chips].iter().filter(|u| u.is_some()).count();
        if units != 1 && inventory.is_none() {
            errors.push(
                Diagnostic::new(&CATALOG_QUEUE_QUOTA, "a quota gives exactly one of `slices`, `nodes` and `chips`")
                    .with_field(format!("spec.quotas[{i}]")),
            );
            continue;
        }
        // A runtime's quota is its shape's, in each capacity type's flavor.
        let named: Vec<usize> = match shape {
            Some(si) if quota.runtime.is_some() => (0..shapes.len()).filter(|sj| group[*sj] == group[si]).collect(),
            Some(si) => vec![si],
            None => Vec::new(),
        };
        for si in named {
            if let Some(prev) = quota_of.insert(si, i) {
                errors.push(
                    Diagnostic::new(
                        &CATALOG_QUEUE_QUOTA,
                        format!("flavor `{}` already has the quota at spec.quotas[{prev}]", shapes[si].name),
                    )
                    .with_field(format!("spec.quotas[{i}]")),
                );
            }
        }
        for r in quota.resources.keys() {
            if !covered.contains(r) {
                errors.push(
                    Diagnostic::new(
                        &CATALOG_QUEUE_QUOTA,
                        format!("`{r}` is not a resource the queue's runtimes request ({})", covered.join(", ")),
                    )
                    .with_field(format!("spec.quotas[{i}].resources.{r}")),
                );
            }
        }
    }
    let mut flavors = Vec::new();
    let mut flavor_quotas = Vec::new();
    for (si, shape) in shapes.iter().enumerate() {
        let quotas = match shape_quotas(shape, served, q, quota_of.get(&si).copied(), inventory) {
            Ok(x) => x,
            Err(d) => {
                errors.push(d);
                continue;
            }
        };
        let resources = covered
            .iter()
            .map(|r| {
                let amount = resource_quota(shape, served, &quotas, r);
                let is_accel = quotas.accelerator.as_ref().is_some_and(|(a, _)| a == r);
                let amount_of = |v: i64| Amount(quantity_text(r, v));
                kueue::ResourceQuota {
                    name: r.clone(),
                    nominal_quota: amount_of(amount),
                    borrowing_limit: quotas.borrowing.filter(|_| is_accel && q.cohort.is_some()).map(amount_of),
                    lending_limit: quotas.lending.filter(|_| is_accel && q.cohort.is_some()).map(|l| amount_of(l.min(amount))),
                }
            })
            .collect();
        flavor_quotas.push(kueue::FlavorQuotas { name: shape.name.clone(), resources });
        flavors.push(kueue::ResourceFlavor {
            api_version: q.api_version.clone(),
            kind: kueue::KIND_RESOURCE_FLAVOR.into(),
            metadata: meta(q, &shape.name, None),
            spec: kueue::ResourceFlavorSpec {
                node_labels: shape.labels.clone(),
                node_taints: shape.taints.clone(),
                tolerations: shape.tolerations.clone(),
                topology_name: shape.tas.clone().filter(|_| !shape.labels.is_empty()),
            },
        });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // The flavors of dynamic TPU slices the slice controller forms: admitted through its
    // AdmissionCheck too (kubernetes-engine-samples ai-ml/gke-tpu-dynamic-slicing/dynamic-slice-topology.yaml).
    let ds = &crate::accelerators::data().tpu.dynamic_slicing;
    let sliced: Vec<String> = shapes
        .iter()
        .filter(|s| s.uses.iter().any(|(u, _)| served[*u].tas.as_ref().is_some_and(|t| t.slice_controller)))
        .map(|s| s.name.clone())
        .collect();
    let admission_checks: Vec<kueue::AdmissionCheck> = if sliced.is_empty() {
        Vec::new()
    } else {
        vec![kueue::AdmissionCheck {
            api_version: q.api_version.clone(),
            kind: kueue::KIND_ADMISSION_CHECK.into(),
            metadata: meta(q, &ds.admission_check_name, None),
            spec: kueue::AdmissionCheckSpec { controller_name: ds.admission_check_controller.clone() },
        }]
    };
    let admission_checks_strategy = (!sliced.is_empty()).then(|| kueue::AdmissionChecksStrategy {
        admission_checks: vec![kueue::AdmissionCheckStrategyRule { name: ds.admission_check_name.clone(), on_flavors: sliced.clone() }],
    });
    let v1beta1 = f.api_versions.cohort_field.get(&q.api_version).is_some_and(|c| c == "cohort");
    let cluster_queue = kueue::ClusterQueue {
        api_version: q.api_version.clone(),
        kind: kueue::KIND_CLUSTER_QUEUE.into(),
        metadata: meta(q, &q.cluster_queue, None),
        spec: kueue::ClusterQueueSpec {
            cohort_name: q.cohort.clone().filter(|_| !v1beta1),
            cohort: q.cohort.clone().filter(|_| v1beta1),
            namespace_selector: Some(q.namespace_selector.clone()),
            queueing_strategy: q.queueing_strategy.clone(),
            preemption: q.preemption.clone(),
            resource_groups: vec![kueue::ResourceGroup { covered_resources: covered.clone(), flavors: flavor_quotas }],
            admission_checks_strategy,
            ..Default::default()
        },
    };
    let local_queues = q
        .namespaces
        .iter()
        .map(|ns| kueue::LocalQueue {
            api_version: q.api_version.clone(),
            kind: kueue::KIND_LOCAL_QUEUE.into(),
            metadata: meta(q, &q.local_queue, Some(ns)),
            spec: kueue::LocalQueueSpec { cluster_queue: q.cluster_queue.clone(), stop_policy: None },
        })
        .collect();
    let priority_classes = q
        .priority_classes
        .iter()
        .map(|p| kueue::WorkloadPriorityClass {
            api_version: q.api_version.clone(),
            kind: kueue::KIND_PRIORITY_CLASS.into(),
            metadata: meta(q, &p.name, None),
            value: Some(p.value),
            description: p.description.clone(),
        })
        .collect();
    let topologies: BTreeSet<&TasTopology> = served.iter().filter_map(|s| s.tas.as_ref()).collect();
    let topologies = topologies
        .into_iter()
        .map(|t| kueue::Topology {
            api_version: q.api_version.clone(),
            kind: kueue::KIND_TOPOLOGY.into(),
            metadata: meta(q, &t.name, None),
            spec: kueue::TopologySpec { levels: t.levels.iter().map(|l| kueue::TopologyLevel { node_label: l.clone() }).collect() },
        })
        .collect();
    Ok(Objects { priority_classes, topologies, flavors, admission_checks, cluster_queue: Some(cluster_queue), local_queues })
}

/// An object's metadata, with the marks of a generated object: the `managed-by` label and the
/// queue it came from (what the KRM function owns and prunes by).
fn meta(q: &ResolvedQueue, name: &str, namespace: Option<&str>) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_string()),
        namespace: namespace.map(str::to_string),
        labels: Some(BTreeMap::from([(crate::keys::MANAGED_BY.to_string(), crate::keys::MANAGED_BY_VALUE.to_string())])),
        annotations: Some(BTreeMap::from([(crate::keys::SOURCE.to_string(), q.origin.object.to_string())])),
        ..Default::default()
    }
}

/// The accelerator resource a PodSet of a served runtime requests, and how much per pod.
fn accelerator_of(s: &Served, podset: usize) -> Option<(String, i64)> {
    let resource = match &s.unit {
        Unit::Gpu { resource } | Unit::Tpu { resource, .. } => resource,
        Unit::Cpu => return None,
    };
    let per_pod = s.podsets.get(podset)?.requests.get(resource).copied().filter(|n| *n > 0)?;
    Some((resource.clone(), per_pod))
}

fn shape_quotas(
    shape: &Shape,
    served: &[Served],
    q: &ResolvedQueue,
    entry: Option<usize>,
    inventory: Option<&Holdings>,
) -> Result<Quotas, Diagnostic> {
    let quota = entry.map(|i| &q.quotas[i]);
    let field = |f: &str| entry.map(|i| format!("spec.quotas[{i}].{f}")).unwrap_or_default();
    // The accelerator of the shape: that of its uses (one resource per shape).
    let accel: Vec<(usize, usize, String, i64)> =
        shape.uses.iter().filter_map(|(r, p)| accelerator_of(&served[*r], *p).map(|(res, n)| (*r, *p, res, n))).collect();
    let resource = accel.first().map(|a| a.2.clone());
    let gang = |r: usize, p: usize| served[r].podsets[p].total(resource.as_deref().unwrap_or_default());
    let units = |n: u32, what: &str| -> Result<i64, Diagnostic> {
        let n = i64::from(n);
        let bad = |m: String| Diagnostic::new(&CATALOG_QUEUE_QUOTA, m).with_field(field(what));
        match (what, accel.first().map(|a| &served[a.0].unit)) {
            ("slices", Some(Unit::Tpu { slice_chips, .. })) => Ok(n * slice_chips),
            ("slices", _) => Err(bad(format!("flavor `{}` is not a TPU slice: give its quota in `nodes` or `chips`", shape.name))),
            ("nodes", Some(Unit::Tpu { .. })) => {
                let hosts: BTreeSet<i64> = accel.iter().map(|a| a.3).collect();
                match hosts.len() {
                    1 => Ok(n * hosts.iter().next().copied().unwrap_or(0)),
                    _ => Err(bad(format!(
                        "flavor `{}` is used with {} chips per host: give its quota in `slices` or `chips`",
                        shape.name,
                        hosts.iter().map(i64::to_string).collect::<Vec<_>>().join(" and ")
                    ))),
                }
            }
            ("nodes", Some(_)) => Ok(n * accel.iter().map(|a| a.3).max().unwrap_or(0)),
            ("nodes", None) => Ok(n),
            ("chips", Some(_)) => Ok(n),
            ("chips", None) => Err(bad(format!("flavor `{}` has no accelerator: give its quota in `nodes`", shape.name))),
            _ => Ok(n),
        }
    };
    let (mut amount, mut nodes) = (None, None);
    if let Some(h) = inventory {
        match &resource {
            Some(r) => amount = Some(h.amount(&shape.name, r)),
            None => nodes = Some(h.nodes(&shape.name)),
        }
    } else if let Some(quota) = quota {
        let (n, what) = match (quota.slices, quota.nodes, quota.chips) {
            (Some(n), _, _) => (n, "slices"),
            (_, Some(n), _) => (n, "nodes"),
            (_, _, Some(n)) => (n, "chips"),
            _ => (0, "nodes"),
        };
        let v = units(n, what)?;
        if resource.is_some() {
            amount = Some(v);
        } else {
            nodes = Some(v);
        }
    } else {
        // One TrainJob of the largest runtime.
        match &resource {
            Some(_) => amount = accel.iter().map(|a| gang(a.0, a.1)).max(),
            None => nodes = shape.uses.iter().map(|(r, p)| served[*r].podsets[*p].count).max(),
        }
    }
    let limit = |v: Option<u32>, what: &str| -> Result<Option<i64>, Diagnostic> {
        let unit = quota
            .map(|q| {
                if q.slices.is_some() {
                    "slices"
                } else if q.chips.is_some() {
                    "chips"
                } else {
                    "nodes"
                }
            })
            .unwrap_or("chips");
        v.map(|n| units(n, unit).map_err(|d| d.with_field(field(what)))).transpose()
    };
    let resources = match (inventory, quota) {
        (Some(h), _) => h.resources(&shape.name),
        (None, Some(quota)) => {
            let mut out = BTreeMap::new();
            for (r, qty) in &quota.resources {
                let v = quantity::amount(r, &qty.0)
                    .map_err(|e| Diagnostic::new(&CATALOG_QUEUE_QUOTA, e.to_string()).with_field(field(&format!("resources.{r}"))))?;
                out.insert(r.clone(), v);
            }
            out
        }
        _ => BTreeMap::new(),
    };
    Ok(Quotas {
        accelerator: resource.zip(amount),
        nodes,
        borrowing: limit(quota.and_then(|q| q.borrowing_limit), "borrowingLimit")?,
        lending: limit(quota.and_then(|q| q.lending_limit), "lendingLimit")?,
        resources,
    })
}

/// The nominal quota of resource `r` in a shape.
fn resource_quota(shape: &Shape, served: &[Served], quotas: &Quotas, r: &str) -> i64 {
    if let Some(v) = quotas.resources.get(r) {
        return *v;
    }
    if let Some((accel, amount)) = &quotas.accelerator {
        if accel == r {
            return *amount;
        }
    }
    // What the most demanding use would request with the shape's accelerators (or nodes).
    shape
        .uses
        .iter()
        .map(|(ri, p)| {
            let ps = &served[*ri].podsets[*p];
            let per_pod = ps.requests.get(r).copied().unwrap_or(0);
            let pods = match (&quotas.accelerator, accelerator_of(&served[*ri], *p)) {
                (Some((_, amount)), Some((_, per))) => amount / per.max(1),
                (_, _) => quotas.nodes.unwrap_or(ps.count),
            };
            per_pod.saturating_mul(pods)
        })
        .max()
        .unwrap_or(0)
}

/// An amount as a quantity: cpu back from millicores, memory-like amounts in the largest binary
/// unit that keeps them whole.
pub fn quantity_text(resource: &str, amount: i64) -> String {
    if resource == "cpu" {
        return if amount % 1000 == 0 { (amount / 1000).to_string() } else { format!("{amount}m") };
    }
    let binary = resource == "memory" || resource == "ephemeral-storage" || resource.starts_with("hugepages-");
    if binary && amount > 0 {
        for (suffix, shift) in [("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)] {
            if amount % (1i64 << shift) == 0 {
                return format!("{}{suffix}", amount >> shift);
            }
        }
    }
    amount.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_read_as_people_write_them() {
        assert_eq!(quantity_text("memory", 64 * (1 << 30)), "64Gi");
        assert_eq!(quantity_text("cpu", 1500), "1500m");
        assert_eq!(quantity_text("cpu", 64000), "64");
        assert_eq!(quantity_text("nvidia.com/gpu", 16), "16");
    }
}
