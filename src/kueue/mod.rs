//! Kueue's API as typed objects: ResourceFlavor, ClusterQueue, LocalQueue, Topology,
//! WorkloadPriorityClass and the part of a Workload that says what it holds, as
//! `kueue.x-k8s.io/v1beta2` writes them (v1beta1 differs, for these, only in ClusterQueue's
//! `cohort`). Reading is lenient: fields jax-runtimes does not model are ignored here (the `--crd`
//! structure check reports unknown ones). Kueue's facts (keys, limits, enums) are [`facts`].

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Taint, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod facts;

pub use facts::facts;

pub const KIND_RESOURCE_FLAVOR: &str = "ResourceFlavor";
pub const KIND_CLUSTER_QUEUE: &str = "ClusterQueue";
pub const KIND_LOCAL_QUEUE: &str = "LocalQueue";
pub const KIND_TOPOLOGY: &str = "Topology";
pub const KIND_PRIORITY_CLASS: &str = "WorkloadPriorityClass";
pub const KIND_WORKLOAD: &str = "Workload";
pub const KIND_ADMISSION_CHECK: &str = "AdmissionCheck";

/// The kinds `validate` checks, in the order the generated objects are written.
pub const KINDS: [&str; 6] =
    [KIND_PRIORITY_CLASS, KIND_TOPOLOGY, KIND_RESOURCE_FLAVOR, KIND_ADMISSION_CHECK, KIND_CLUSTER_QUEUE, KIND_LOCAL_QUEUE];

/// True for a ResourceFlavor, AdmissionCheck, ClusterQueue, LocalQueue, Topology or WorkloadPriorityClass.
pub fn is_kueue(value: &Value) -> bool {
    let gvk = crate::gvk::Gvk::of(value);
    gvk.group == facts().group && KINDS.contains(&gvk.kind)
}

/// True for a Workload (what `kubectl get workloads -A -o yaml` lists).
pub fn is_workload(value: &Value) -> bool {
    let gvk = crate::gvk::Gvk::of(value);
    gvk.group == facts().group && gvk.kind == KIND_WORKLOAD
}

/// A quantity as Kueue's fields take it: an integer or a string (`x-kubernetes-int-or-string`).
/// Written back as an integer when it is one, so `nominalQuota: 8` stays `8`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Amount(pub String);

impl Serialize for Amount {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.parse::<u64>() {
            Ok(n) if n.to_string() == self.0 => s.serialize_u64(n),
            _ => s.serialize_str(&self.0),
        }
    }
}

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Amount, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(Amount(s)),
            Value::Number(n) => Ok(Amount(n.to_string())),
            other => Err(serde::de::Error::custom(format!("expected a quantity (a string or an integer), got {other}"))),
        }
    }
}

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `ResourceFlavor`: the nodes a flavor stands for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceFlavor {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ResourceFlavorSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceFlavorSpec {
    /// Labels of the flavor's nodes; an admitted workload's pods get them as a node selector.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_labels: BTreeMap<String, String>,
    /// Taints of the flavor's nodes: a workload that does not tolerate them is not given it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_taints: Vec<Taint>,
    /// Added to an admitted workload's pods.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    /// The Topology of its nodes (Topology Aware Scheduling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_name: Option<String>,
}

/// `ClusterQueue`: quotas per flavor and resource, and how workloads queue and preempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueue {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ClusterQueueSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueueSpec {
    /// v1beta2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cohort_name: Option<String>,
    /// v1beta1's name of the same field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cohort: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queueing_strategy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption: Option<Preemption>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flavor_fungibility: Option<FlavorFungibility>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_groups: Vec<ResourceGroup>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission_checks_strategy: Option<AdmissionChecksStrategy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_policy: Option<String>,
}

impl ClusterQueueSpec {
    /// The cohort, under either version's field name.
    pub fn cohort(&self) -> Option<&str> {
        self.cohort_name.as_deref().or(self.cohort.as_deref()).filter(|c| !c.is_empty())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Preemption {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reclaim_within_cohort: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_cluster_queue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borrow_within_cohort: Option<BorrowWithinCohort>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BorrowWithinCohort {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_priority_threshold: Option<i32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlavorFungibility {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_can_borrow: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_can_preempt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preference: Option<String>,
}

/// Resources whose quota comes from the same flavor, and the flavors in the order Kueue tries them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceGroup {
    #[serde(default)]
    pub covered_resources: Vec<String>,
    #[serde(default)]
    pub flavors: Vec<FlavorQuotas>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlavorQuotas {
    pub name: String,
    /// One per covered resource, in the same order.
    #[serde(default)]
    pub resources: Vec<ResourceQuota>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceQuota {
    pub name: String,
    pub nominal_quota: Amount,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borrowing_limit: Option<Amount>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lending_limit: Option<Amount>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionChecksStrategy {
    #[serde(default)]
    pub admission_checks: Vec<AdmissionCheckStrategyRule>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheckStrategyRule {
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on_flavors: Vec<String>,
}

/// `LocalQueue`: where a namespace's jobs queue, pointing at a ClusterQueue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueue {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: LocalQueueSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueueSpec {
    #[serde(default)]
    pub cluster_queue: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_policy: Option<String>,
}

/// `Topology`: the node labels of Topology Aware Scheduling's levels, highest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Topology {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: TopologySpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologySpec {
    #[serde(default)]
    pub levels: Vec<TopologyLevel>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologyLevel {
    #[serde(default)]
    pub node_label: String,
}

/// `AdmissionCheck`: a controller that must also admit the workloads of the flavors a
/// ClusterQueue's `admissionChecksStrategy` names (GKE's slice controller forms TPU slices).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheck {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: AdmissionCheckSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheckSpec {
    #[serde(default)]
    pub controller_name: String,
}

/// `WorkloadPriorityClass`: a priority TrainJobs name with `kueue.x-k8s.io/priority-class`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadPriorityClass {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    /// Required by the CRD; `None` when missing (a finding).
    #[serde(default)]
    pub value: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The part of a `Workload` that says which ClusterQueue's quota it holds, and how much.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Workload {
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub status: Option<WorkloadStatus>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadStatus {
    #[serde(default)]
    pub admission: Option<Admission>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Admission {
    #[serde(default)]
    pub cluster_queue: String,
    #[serde(default)]
    pub pod_set_assignments: Vec<PodSetAssignment>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSetAssignment {
    #[serde(default)]
    pub name: String,
    /// Resource -> the flavor it was assigned.
    #[serde(default)]
    pub flavors: BTreeMap<String, String>,
    /// Resource -> what the podset holds of it.
    #[serde(default)]
    pub resource_usage: BTreeMap<String, Amount>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Condition {
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub status: String,
}

impl Workload {
    /// The ClusterQueue whose quota it holds now: it has quota reserved (condition
    /// `QuotaReserved` true) and is not finished (`Finished` not true).
    /// (kueue v0.19.2 `pkg/workload/workload.go` `HasQuotaReservation`, `IsFinished`.)
    pub fn holding(&self) -> Option<&Admission> {
        let status = self.status.as_ref()?;
        let is = |t: &str| status.conditions.iter().any(|c| c.type_ == t && c.status == "True");
        if !is("QuotaReserved") || is("Finished") {
            return None;
        }
        status.admission.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_integers_and_strings_and_write_integers_back() {
        let q: ResourceQuota =
            serde_json::from_value(serde_json::json!({"name": "cpu", "nominalQuota": 8, "lendingLimit": "500m"})).unwrap();
        assert_eq!(q.nominal_quota, Amount("8".into()));
        let back = serde_json::to_value(&q).unwrap();
        assert_eq!(back["nominalQuota"], serde_json::json!(8));
        assert_eq!(back["lendingLimit"], serde_json::json!("500m"));
        assert!(serde_json::from_value::<ResourceQuota>(serde_json::json!({"name": "cpu", "nominalQuota": [1]})).is_err());
    }

    #[test]
    fn a_workload_holds_quota_while_reserved_and_not_finished() {
        let wl = |conditions: Value| -> Workload {
            serde_json::from_value(
                serde_json::json!({"metadata": {"name": "w"}, "status": {"admission": {"clusterQueue": "cq"}, "conditions": conditions}}),
            )
            .unwrap()
        };
        assert!(wl(serde_json::json!([{"type": "QuotaReserved", "status": "True"}])).holding().is_some());
        assert!(wl(serde_json::json!([{"type": "QuotaReserved", "status": "False"}])).holding().is_none());
        assert!(wl(serde_json::json!([{"type": "QuotaReserved", "status": "True"}, {"type": "Finished", "status": "True"}]))
            .holding()
            .is_none());
    }
}
