//! kubectl's JSON lists (`kubectl get nodes -o json`, `kubectl get pods -A -o json`) -> the
//! cluster, read straight from the text into the fields placement reads, each pod counted as it
//! is read and then dropped. The document path ([`super::inventory::from_documents`]) builds a
//! JSON tree of every object and a typed Pod of every pod in use first: for 50,000 pods, several
//! times the time and memory of the placement itself.
//!
//! Only a text that is plainly one JSON list of Nodes (of Pods) is read here, with the same
//! result as the document path: a text that the YAML reader would judge differently (duplicate
//! keys, deep nesting; [`crate::yaml::plain_json`]), an item of another kind (a ComputeClass in
//! the node list), a field placement reads that does not have its type, a quantity that does not
//! read, or an empty node list: `None`, and the caller reads the text as documents, which says
//! what is wrong at its file and line. Fields placement does not read are skipped unread: a pod
//! whose `spec.containers[0].image` is a number is counted here, where the document path's typed
//! Pod refuses it.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::inventory::{Builder, Cluster};
use crate::diag::{Diagnostic, ObjectRef};
use crate::read::{Place, Source};
use crate::rules::fit::FIT_POD_ON_UNKNOWN_NODE;
use crate::yaml;

/// The Nodes of a JSON node list, with only what placement reads; `None` when the text is not
/// plainly a non-empty list of Nodes.
pub fn nodes(source: &Source) -> Option<Vec<core::Node>> {
    let text = source.text()?;
    if !yaml::plain_json(text) {
        return None;
    }
    let list: List<NodeItem> = serde_json::from_str(text).ok()?;
    if !list.is_list() || list.items.is_empty() {
        return None;
    }
    list.items.into_iter().map(NodeItem::into_node).collect()
}

/// The cluster of these nodes and the pods of a JSON pod list, with a note for each pod bound to
/// a node the list does not have (as the document path places it); `None` when the pod list is
/// not plainly a list of Pods, or a node or pod cannot be counted.
pub fn cluster(node_list: &[core::Node], pods: Option<&Arc<Source>>) -> Option<(Cluster, Vec<Diagnostic>)> {
    let mut b = Builder::of_nodes(node_list);
    let mut notes = Vec::new();
    if let Some(source) = pods {
        let text = source.text()?;
        if !yaml::plain_json(text) {
            return None;
        }
        b.cluster.pods.given = true;
        let mut de = serde_json::Deserializer::from_str(text);
        let head = PodList { builder: &mut b, source, notes: &mut notes }.deserialize(&mut de).ok()?;
        de.end().ok()?;
        if !head.is_list() {
            return None;
        }
    }
    if b.failed() {
        return None;
    }
    b.finish().ok().map(|c| (c, notes))
}

/// A list's `kind` and `apiVersion`, as [`crate::read::list_items`] tells a list.
#[derive(Default)]
struct Head {
    kind: Option<String>,
    api_version: Option<String>,
}

impl Head {
    fn is_list(&self) -> bool {
        self.kind
            .as_deref()
            .is_some_and(|k| k == "List" || (k.len() > 4 && k.ends_with("List") && k != "ResourceList" && self.api_version.is_some()))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct List<T> {
    kind: String,
    #[serde(default)]
    api_version: Option<String>,
    items: Vec<T>,
}

impl<T> List<T> {
    fn is_list(&self) -> bool {
        Head { kind: Some(self.kind.clone()), api_version: self.api_version.clone() }.is_list()
    }
}

/// A present `apiVersion` or `kind` must be a string (null too is refused, as k8s-openapi does).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

/// `apiVersion` and `kind` of an item, as k8s-openapi checks them: `v1` and `kind` where given.
fn right_kind(api_version: Option<&str>, kind: Option<&str>, want: &str) -> bool {
    api_version.is_none_or(|v| v == "v1") && kind.is_none_or(|k| k == want)
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Meta {
    name: Option<String>,
    namespace: Option<String>,
    labels: Option<BTreeMap<String, String>>,
}

impl Meta {
    fn into_meta(self) -> ObjectMeta {
        ObjectMeta { name: self.name, namespace: self.namespace, labels: self.labels, ..ObjectMeta::default() }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NodeItem {
    #[serde(default, deserialize_with = "present")]
    api_version: Option<String>,
    #[serde(default, deserialize_with = "present")]
    kind: Option<String>,
    #[serde(default)]
    metadata: Option<Meta>,
    #[serde(default)]
    spec: Option<NodeSpec>,
    #[serde(default)]
    status: Option<NodeStatus>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct NodeSpec {
    taints: Option<Vec<core::Taint>>,
    unschedulable: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct NodeStatus {
    allocatable: Option<BTreeMap<String, Quantity>>,
    capacity: Option<BTreeMap<String, Quantity>>,
    conditions: Option<Vec<Condition>>,
}

/// A node's or pod's condition: what readiness and resize read.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Condition {
    #[serde(rename = "type")]
    type_: Option<String>,
    status: Option<String>,
    reason: Option<String>,
    message: Option<String>,
}

impl NodeItem {
    fn into_node(self) -> Option<core::Node> {
        if !right_kind(self.api_version.as_deref(), self.kind.as_deref(), "Node") {
            return None;
        }
        Some(core::Node {
            metadata: self.metadata.unwrap_or_default().into_meta(),
            spec: self.spec.map(|s| core::NodeSpec { taints: s.taints, unschedulable: s.unschedulable, ..core::NodeSpec::default() }),
            status: self.status.map(|s| core::NodeStatus {
                allocatable: s.allocatable,
                capacity: s.capacity,
                conditions: s.conditions.map(|c| {
                    c.into_iter()
                        .map(|c| core::NodeCondition {
                            type_: c.type_.unwrap_or_default(),
                            status: c.status.unwrap_or_default(),
                            reason: c.reason,
                            message: c.message,
                            ..core::NodeCondition::default()
                        })
                        .collect()
                }),
                ..core::NodeStatus::default()
            }),
        })
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PodItem {
    #[serde(default, deserialize_with = "present")]
    api_version: Option<String>,
    #[serde(default, deserialize_with = "present")]
    kind: Option<String>,
    #[serde(default)]
    metadata: Option<Meta>,
    #[serde(default)]
    spec: Option<PodSpec>,
    #[serde(default)]
    status: Option<PodStatus>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PodSpec {
    node_name: Option<String>,
    host_network: Option<bool>,
    containers: Option<Vec<Container>>,
    init_containers: Option<Vec<Container>>,
    resources: Option<core::ResourceRequirements>,
    overhead: Option<BTreeMap<String, Quantity>>,
    affinity: Option<Affinity>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Affinity {
    pod_anti_affinity: Option<core::PodAntiAffinity>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Container {
    name: Option<String>,
    resources: Option<core::ResourceRequirements>,
    ports: Option<Vec<core::ContainerPort>>,
    restart_policy: Option<String>,
}

impl Container {
    fn into_container(self) -> core::Container {
        core::Container {
            name: self.name.unwrap_or_default(),
            resources: self.resources,
            ports: self.ports,
            restart_policy: self.restart_policy,
            ..core::Container::default()
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PodStatus {
    phase: Option<String>,
    conditions: Option<Vec<Condition>>,
    container_statuses: Option<Vec<ContainerStatus>>,
    init_container_statuses: Option<Vec<ContainerStatus>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ContainerStatus {
    name: Option<String>,
    allocated_resources: Option<BTreeMap<String, Quantity>>,
    resources: Option<core::ResourceRequirements>,
}

impl ContainerStatus {
    fn into_status(self) -> core::ContainerStatus {
        core::ContainerStatus {
            name: self.name.unwrap_or_default(),
            allocated_resources: self.allocated_resources,
            resources: self.resources,
            ..core::ContainerStatus::default()
        }
    }
}

impl PodItem {
    fn into_pod(self) -> core::Pod {
        let containers = |c: Option<Vec<Container>>| c.map(|c| c.into_iter().map(Container::into_container).collect::<Vec<_>>());
        let statuses = |s: Option<Vec<ContainerStatus>>| s.map(|s| s.into_iter().map(ContainerStatus::into_status).collect());
        core::Pod {
            metadata: self.metadata.unwrap_or_default().into_meta(),
            spec: self.spec.map(|s| core::PodSpec {
                node_name: s.node_name,
                host_network: s.host_network,
                containers: containers(s.containers).unwrap_or_default(),
                init_containers: containers(s.init_containers),
                resources: s.resources,
                overhead: s.overhead,
                affinity: s.affinity.map(|a| core::Affinity { pod_anti_affinity: a.pod_anti_affinity, ..core::Affinity::default() }),
                ..core::PodSpec::default()
            }),
            status: self.status.map(|s| core::PodStatus {
                phase: s.phase,
                conditions: s.conditions.map(|c| {
                    c.into_iter()
                        .map(|c| core::PodCondition {
                            type_: c.type_.unwrap_or_default(),
                            status: c.status.unwrap_or_default(),
                            reason: c.reason,
                            message: c.message,
                            ..core::PodCondition::default()
                        })
                        .collect()
                }),
                container_statuses: statuses(s.container_statuses),
                init_container_statuses: statuses(s.init_container_statuses),
                ..core::PodStatus::default()
            }),
        }
    }
}

/// The pod list, each item handed to the builder as it is read; the list's head comes back.
struct PodList<'a> {
    builder: &'a mut Builder,
    source: &'a Arc<Source>,
    notes: &'a mut Vec<Diagnostic>,
}

impl<'de> DeserializeSeed<'de> for PodList<'_> {
    type Value = Head;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Head, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for PodList<'_> {
    type Value = Head;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a pod list")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Head, A::Error> {
        let mut head = Head::default();
        let mut items = false;
        let PodList { builder, source, notes } = self;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "kind" => head.kind = Some(map.next_value()?),
                "apiVersion" => head.api_version = map.next_value::<serde_json::Value>()?.as_str().map(str::to_string),
                "items" => {
                    map.next_value_seed(Pods { builder: &mut *builder, source, notes: &mut *notes })?;
                    items = true;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !items {
            return Err(de::Error::custom("no items"));
        }
        Ok(head)
    }
}

/// The `items` of the pod list.
struct Pods<'a> {
    builder: &'a mut Builder,
    source: &'a Arc<Source>,
    notes: &'a mut Vec<Diagnostic>,
}

impl<'de> DeserializeSeed<'de> for Pods<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Pods<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of pods")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        while let Some(item) = seq.next_element::<PodItem>()? {
            if !right_kind(item.api_version.as_deref(), item.kind.as_deref(), "Pod") {
                return Err(de::Error::custom("not a Pod"));
            }
            self.pod(item, i);
            if self.builder.failed() {
                return Err(de::Error::custom("a pod that cannot be counted"));
            }
            i += 1;
        }
        Ok(())
    }
}

impl Pods<'_> {
    /// Counts pod `i` of the list as the document path does ([`super::inventory::read_pods`],
    /// [`Cluster::new`], the note of [`super::inventory::from_documents`]).
    fn pod(&mut self, item: PodItem, i: usize) {
        let phase = item.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or_default();
        if matches!(phase, "Succeeded" | "Failed") {
            self.builder.cluster.pods.finished += 1;
            return;
        }
        let node = item.spec.as_ref().and_then(|s| s.node_name.as_deref()).unwrap_or_default();
        if node.is_empty() {
            self.builder.cluster.pods.unbound += 1;
            return;
        }
        if !self.builder.knows(node) {
            let meta = item.metadata.as_ref();
            let object = ObjectRef {
                api_version: item.api_version.clone().unwrap_or_default(),
                kind: item.kind.clone().filter(|k| !k.is_empty()).unwrap_or_else(|| "Pod".to_string()),
                name: meta.and_then(|m| m.name.clone()).unwrap_or_default(),
                namespace: meta.and_then(|m| m.namespace.clone()),
            };
            let place = Place { source: self.source.clone(), index: 0, within: format!("items[{i}]") };
            self.notes.push(
                place.locate(
                    Diagnostic::finding(
                        &FIT_POD_ON_UNKNOWN_NODE,
                        "spec.nodeName",
                        format!("bound to node `{node}`, which the node inventory does not list; not counted"),
                    )
                    .with_object(object),
                ),
            );
        }
        self.builder.pod(&item.into_pod());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::inventory::from_documents;
    use crate::read::parse_source;

    fn source(name: &str, text: &str) -> Arc<Source> {
        Arc::new(Source::new(name, Some(text.to_string())))
    }

    /// The cluster and notes of the document path, as text to compare.
    fn by_documents(nodes: &str, pods: Option<&str>) -> Result<String, String> {
        let n = parse_source(source("nodes.json", nodes)).map_err(|e| format!("{e:?}"))?;
        let p = pods.map(|p| parse_source(source("pods.json", p)).map_err(|e| format!("{e:?}"))).transpose()?;
        from_documents(&n, p.as_deref()).map(|(c, notes)| seen(&c, &notes)).map_err(|e| format!("{e:?}"))
    }

    /// Everything a cluster holds, in a stable order (its name index is a hash map).
    fn seen(c: &Cluster, notes: &[Diagnostic]) -> String {
        let names: Vec<&str> = (0..32).map(|i| c.resource_name(i)).collect();
        format!(
            "{:?}\n{:?}\n{} {} {:?}\n{names:?}\n{notes:?}",
            c.nodes, c.pods, c.extended_resource_toleration, c.auto_provisioning, c.compute_classes
        )
    }

    fn straight(nodes: &str, pods: Option<&str>) -> Option<String> {
        let n = super::nodes(&source("nodes.json", nodes))?;
        let p = pods.map(|p| source("pods.json", p));
        cluster(&n, p.as_ref()).map(|(c, notes)| seen(&c, &notes))
    }

    const NODES: &str = r#"{"apiVersion": "v1", "items": [
      {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a", "labels": {"cloud.google.com/gke-nodepool": "p", "cloud.google.com/gke-tpu-topology": "2x2", "kubernetes.io/hostname": "a"}, "annotations": {"x": "y"}},
       "spec": {"taints": [{"key": "google.com/tpu", "value": "present", "effect": "NoSchedule"}, {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": "2026-05-01T10:00:00Z"}], "unschedulable": true, "podCIDR": "10.0.0.0/24"},
       "status": {"allocatable": {"cpu": "111650m", "memory": "187089387Ki", "google.com/tpu": "4", "pods": "110", "hugepages-2Mi": "0"}, "capacity": {"cpu": "112", "memory": "190Gi", "google.com/tpu": "4", "pods": "110", "example.com/zero": "0"},
                  "conditions": [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "True", "reason": "KubeletReady", "lastHeartbeatTime": "2026-05-01T10:00:00Z"}], "nodeInfo": {"kernelVersion": "6.1"}}},
      {"metadata": {"name": "b", "labels": {"cloud.google.com/gke-nodepool": "p"}}, "status": {"capacity": {"cpu": "4", "nvidia.com/gpu": "8"},
                  "conditions": [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown", "message": "Kubelet stopped posting node status."}]}},
      {"kind": "Node", "metadata": {"name": "c"}}
    ], "kind": "List", "metadata": {"resourceVersion": ""}}"#;

    const PODS: &str = r#"{"apiVersion": "v1", "items": [
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ds", "namespace": "kube-system", "labels": {"k8s-app": "x"}},
       "spec": {"nodeName": "a", "hostNetwork": true, "containers": [{"name": "c", "image": "x", "ports": [{"containerPort": 8080}, {"containerPort": 53, "protocol": "UDP"}],
                "resources": {"requests": {"cpu": "100m"}, "limits": {"memory": "1Gi"}}}],
                "initContainers": [{"name": "side", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}, "ports": [{"containerPort": 9, "hostPort": 9000}]},
                                   {"name": "setup", "resources": {"requests": {"cpu": "3"}}}],
                "overhead": {"cpu": "250m"}, "volumes": [{"name": "v", "emptyDir": {}}]},
       "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                  "containerStatuses": [{"name": "c", "image": "x", "imageID": "", "ready": true, "restartCount": 0, "allocatedResources": {"cpu": "200m"}, "resources": {"requests": {"cpu": "300m"}}}]}},
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "leader", "namespace": "t", "labels": {"jobset.sigs.k8s.io/job-key": "k1", "jobset.sigs.k8s.io/priority": "5"}},
       "spec": {"nodeName": "a", "containers": [{"name": "m", "resources": {"limits": {"google.com/tpu": "4"}}}],
                "resources": {"requests": {"cpu": "2"}},
                "affinity": {"nodeAffinity": {}, "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "cloud.google.com/gke-nodepool",
                  "labelSelector": {"matchExpressions": [{"key": "jobset.sigs.k8s.io/job-key", "operator": "Exists"}, {"key": "jobset.sigs.k8s.io/job-key", "operator": "NotIn", "values": ["k1"]},
                                                          {"key": "jobset.sigs.k8s.io/priority", "operator": "In", "values": ["5"]}]}}]}}},
       "status": {"phase": "Pending", "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}]}},
      {"metadata": {"name": "done", "namespace": "t"}, "spec": {"nodeName": "a", "containers": [{"name": "m"}]}, "status": {"phase": "Succeeded"}},
      {"metadata": {"name": "failed", "namespace": "t"}, "spec": {"nodeName": "b"}, "status": {"phase": "Failed"}},
      {"metadata": {"name": "queued", "namespace": "t"}, "spec": {"containers": [{"name": "m"}]}, "status": {"phase": "Pending"}},
      {"metadata": {"name": "blank", "namespace": "t"}, "spec": {"nodeName": "", "containers": [{"name": "m"}]}},
      {"metadata": {"name": "away", "namespace": "t"}, "spec": {"nodeName": "gone", "containers": [{"name": "m", "resources": {"requests": {"cpu": "1"}}}]}, "status": {"phase": "Running"}},
      {"kind": "Pod", "metadata": {"name": "b-pod"}, "spec": {"nodeName": "b", "containers": [{"name": "m", "resources": {"requests": {"nvidia.com/gpu": "2", "cpu": "1"}}}]}}
    ], "kind": "List", "metadata": {"resourceVersion": ""}}"#;

    #[test]
    fn kubectl_json_reads_into_the_same_cluster_and_notes_as_the_documents() {
        for pods in [None, Some(PODS), Some(r#"{"kind": "PodList", "apiVersion": "v1", "items": []}"#)] {
            let want = by_documents(NODES, pods).unwrap();
            assert_eq!(straight(NODES, pods).as_deref(), Some(want.as_str()), "{pods:?}");
        }
        let n = super::nodes(&source("nodes.json", NODES)).unwrap();
        let (c, notes) = cluster(&n, Some(&source("pods.json", PODS))).unwrap();
        assert_eq!(notes.len(), 1, "the pod on node `gone`");
        assert_eq!((notes[0].file.as_deref(), notes[0].line), (Some("pods.json"), Some(21)), "{:?}", notes[0]);
        assert_eq!((c.pods.in_use, c.pods.finished, c.pods.unbound, c.pods.elsewhere), (3, 2, 2, 1));
    }

    #[test]
    fn what_does_not_plainly_read_is_left_to_the_documents() {
        let node = |n: &str| {
            format!(r#"{{"kind": "List", "items": [{{"metadata": {{"name": "a"}}, "status": {{"allocatable": {{"cpu": "4"}}}}}}{n}]}}"#)
        };
        for nodes in [
            "kind: List\nitems: []\n".to_string(),
            r#"{"kind": "List", "items": []}"#.into(),
            r#"{"kind": "NodeList", "items": [{"metadata": {"name": "a"}}]}"#.into(),
            r#"{"kind": "Node", "metadata": {"name": "a"}}"#.into(),
            node(r#", {"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": {"name": "c"}}"#),
            node(r#", {"apiVersion": "v2", "kind": "Node", "metadata": {"name": "b"}}"#),
            node(r#", {"kind": null, "metadata": {"name": "b"}}"#),
            node(r#", {"metadata": {"name": "b", "labels": {"x": "1", "x": "2"}}}"#),
            node(r#", {"metadata": {"name": "b"}, "spec": {"unschedulable": "yes"}}"#),
            node(r#", {"metadata": {"name": "b", "labels": {"x": 1}}}"#),
        ] {
            assert_eq!(super::nodes(&source("nodes.json", &nodes)).map(|n| format!("{n:?}")), None, "{nodes}");
        }
        let n = super::nodes(&source("nodes.json", &node(""))).unwrap();
        let pods = |p: &str| format!(r#"{{"kind": "List", "items": [{p}]}}"#);
        for p in [
            pods(r#"{"kind": "ConfigMap", "metadata": {"name": "x"}}"#),
            pods(
                r#"{"metadata": {"name": "x"}, "spec": {"nodeName": "a", "containers": [{"name": "m", "resources": {"requests": {"cpu": "lots"}}}]}}"#,
            ),
            pods(r#"{"metadata": {"name": "x"}, "spec": {"nodeName": 5}}"#),
            pods(r#"{"metadata": {"name": "x", "name": "y"}}"#),
            r#"{"kind": "Pod", "items": []}"#.into(),
            r#"{"kind": "List"}"#.into(),
            "kind: List\nitems: []\n".into(),
        ] {
            assert!(cluster(&n, Some(&source("pods.json", &p))).is_none(), "{p}");
        }
        // A quantity on a node that does not read: the document path says where.
        let bad = super::nodes(&source(
            "n.json",
            r#"{"kind": "List", "items": [{"metadata": {"name": "a"}, "status": {"allocatable": {"cpu": "x"}}}]}"#,
        ));
        assert!(cluster(&bad.unwrap(), None).is_none());
    }
}
