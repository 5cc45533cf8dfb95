//! A cluster's nodes ([`crate::fit::inventory`], what `kubectl get nodes -o yaml` lists) and a
//! queue's shapes -> what each shape's nodes hold ([`Holdings`]), the quotas of
//! `jax-runtimes kueue`: so the queue admits exactly what the cluster can hold.
//!
//! Each node is counted once, for the first shape whose labels it carries and whose pods tolerate
//! its taints (shapes with more labels first: a node of `{accelerator, topology}` is not also
//! counted for `{accelerator}`, a tainted TPU node not for a CPU runtime's label-less shape),
//! at its `status.allocatable`, whatever its readiness (quota is capacity, not what is free). A
//! TPU slice of several hosts counts only whole: a node pool holding fewer nodes than the slice
//! has hosts holds no slice, one holding more counts its whole slices.

use std::collections::BTreeMap;

use super::shape::{Served, Shape, Unit};
use crate::fit::inventory::{Cluster, NodeInfo};
use crate::k8s::selection as filter;

/// Per flavor: the resources its nodes hold (cpu in millicores), and how many nodes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holdings {
    amounts: BTreeMap<String, BTreeMap<String, i64>>,
    nodes: BTreeMap<String, i64>,
    /// Nodes of no shape, and pool nodes left out as a partial slice.
    pub unused: usize,
    pub partial: usize,
}

impl Holdings {
    /// What the nodes of each shape hold of each of `resources`.
    pub fn of(cluster: &Cluster, shapes: &[Shape], served: &[Served], resources: &[String]) -> Holdings {
        let mut order: Vec<usize> = (0..shapes.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(shapes[i].labels.len()));
        let mut members: BTreeMap<usize, Vec<&NodeInfo>> = BTreeMap::new();
        let mut out = Holdings::default();
        // A shape's pods tolerate what its first use's pods tolerate (its uses share the labels).
        let tolerations = |i: usize| {
            shapes[i].uses.first().and_then(|(r, p)| served.get(*r)?.podsets.get(*p)).map(|ps| ps.tolerations.clone()).unwrap_or_default()
        };
        for node in &cluster.nodes {
            let fits = |i: usize| {
                shapes[i].labels.iter().all(|(k, v)| node.labels.get(k) == Some(v))
                    && filter::untolerated(&node.taints, &tolerations(i)).is_none()
            };
            match order.iter().find(|&&i| fits(i)) {
                Some(&i) => members.entry(i).or_default().push(node),
                None => out.unused += 1,
            }
        }
        for (i, nodes) in members {
            let shape = &shapes[i];
            let hosts = shape
                .uses
                .iter()
                .find_map(|(r, _)| match &served[*r].unit {
                    Unit::Tpu { slice_chips, host_chips, .. } if *host_chips > 0 => Some(slice_chips / host_chips),
                    _ => None,
                })
                .unwrap_or(1)
                .max(1) as usize;
            let counted: Vec<&NodeInfo> = if hosts > 1 {
                let mut pools: BTreeMap<String, Vec<&NodeInfo>> = BTreeMap::new();
                for n in nodes {
                    pools.entry(n.pool.clone().unwrap_or_else(|| n.name.clone())).or_default().push(n);
                }
                let mut kept = Vec::new();
                for (_, pool) in pools {
                    let whole = pool.len() / hosts * hosts;
                    out.partial += pool.len() - whole;
                    kept.extend(pool.into_iter().take(whole));
                }
                kept
            } else {
                nodes
            };
            let sums = out.amounts.entry(shape.name.clone()).or_default();
            for r in resources {
                let total: i64 = match cluster.resource(r) {
                    Some(idx) => counted.iter().map(|n| n.allocatable(idx)).fold(0i64, i64::saturating_add),
                    None => 0,
                };
                sums.insert(r.clone(), total);
            }
            out.nodes.insert(shape.name.clone(), counted.len() as i64);
        }
        out
    }

    /// The served runtimes (their positions in `served`) that no node of the cluster could take:
    /// a PodSet's shape matches no node by labels and taints (a platform or accelerator the
    /// cluster does not have). A shape with nodes too few for a whole slice is not among them:
    /// such a cluster has the hardware, and the quota it holds is the finding.
    pub fn without_nodes(cluster: &Cluster, served: &[Served]) -> Vec<usize> {
        let shapes = super::shape::shapes(served);
        let mut absent = Vec::new();
        for (r, s) in served.iter().enumerate() {
            let missing = s.podsets.iter().enumerate().any(|(p, ps)| {
                let Some(shape) = shapes.iter().find(|sh| sh.uses.contains(&(r, p))) else { return false };
                !cluster.nodes.iter().any(|node| {
                    shape.labels.iter().all(|(k, v)| node.labels.get(k) == Some(v))
                        && filter::untolerated(&node.taints, &ps.tolerations).is_none()
                })
            });
            if missing {
                absent.push(r);
            }
        }
        absent
    }

    /// What flavor `flavor`'s nodes hold of `resource`.
    pub fn amount(&self, flavor: &str, resource: &str) -> i64 {
        self.amounts.get(flavor).and_then(|a| a.get(resource)).copied().unwrap_or(0)
    }

    /// How many nodes flavor `flavor` has.
    pub fn nodes(&self, flavor: &str) -> i64 {
        self.nodes.get(flavor).copied().unwrap_or(0)
    }

    /// Everything flavor `flavor`'s nodes hold.
    pub fn resources(&self, flavor: &str) -> BTreeMap<String, i64> {
        self.amounts.get(flavor).cloned().unwrap_or_default()
    }
}
