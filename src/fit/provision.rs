//! Autoscaling: a gang no standing node takes now that the cluster would create nodes for. A pod
//! that selects a GKE ComputeClass the inventory lists, whose priorities have its accelerator and
//! which creates node pools ([`crate::capacity::compute_class`]), would be provisioned by the
//! class; with node auto-provisioning declared (`fit --auto-provisioning`), a pod that selects a
//! TPU (and topology) or GPU type and requests it would be provisioned by GKE, unless the nodes
//! it would create carry a taint the pods do not tolerate (the Spot taint: the same data and
//! matching `validate` uses, [`crate::capacity::taints`]). The standing nodes' blocker stays the
//! placement's, as a note.

use super::demand::Demand;
use super::inventory::Cluster;
use super::place::{Blocker, Note, Placement, Provision};
use crate::capacity::compute_class::{self, Pod, Refusal};

/// `p` with what autoscaling would provision, where no copy fits now.
pub fn provision(cluster: &Cluster, d: &Demand, mut p: Placement) -> Placement {
    if p.copies > 0 || matches!(p.blocker, None | Some(Blocker::Demand(_))) {
        return p;
    }
    let pod = Pod { node_selector: &d.node_selector, tolerations: &d.tolerations, requests: &d.requests };
    let by = match compute_class::selected(&d.node_selector) {
        Some(name) => match compute_class::provisions(&cluster.compute_classes, name, &pod) {
            Ok(n) => Some(Provision::ComputeClass(n.to_string())),
            // A node list without ComputeClasses says nothing of them: no note.
            Err(Refusal::Unknown(_)) if cluster.compute_classes.is_empty() => None,
            Err(r) => {
                p.notes.insert(0, Note::NotProvisioned(r));
                None
            }
        },
        None if cluster.auto_provisioning && compute_class::auto_provisions(&pod) => {
            match compute_class::provisioned_taint(&pod, d.affinity.as_ref()) {
                None => Some(Provision::AutoProvisioning),
                // The nodes it would create carry a taint the pods do not tolerate: say so.
                Some(r) => {
                    p.notes.insert(0, Note::NotProvisioned(r));
                    None
                }
            }
        }
        None => None,
    };
    p.provision = by;
    p
}
