//! A pod's resource requests as kube-scheduler adds them up, and the host ports it takes: a pod
//! spec (and, for a pod that runs, its status) -> the amount of each resource the scheduler
//! compares with a node's allocatable. Used for the pods a runtime's TrainJob makes and for the
//! pods already on a cluster alike (`fit`), and, one resource at a time, by the accelerator
//! checks of the validator ([`aggregate`]).
//!
//! Facts (kubernetes v1.34, not its code):
//! - requests default to limits where only a limit is set, on Pods (not on PodTemplates):
//!   `pkg/apis/core/v1/defaults.go` `SetDefaults_Pod`; pod-level requests default to pod-level
//!   limits the same way;
//! - the pod's request (kubernetes/component-helpers `resource/helpers.go` `PodRequests`,
//!   `AggregateContainerRequests`, `aggregateContainerResourcesByFn`): the containers add up; a
//!   restartable init container (a sidecar, `restartPolicy: Always`) adds to that sum; every init
//!   container needs its own requests plus those of the sidecars started before it, and the pod
//!   needs the largest of those needs where it is larger than the sum; pod-level requests replace
//!   the aggregate for `cpu`, `memory` and `hugepages-*` (`IsSupportedPodLevelResource`); then the
//!   overhead is added;
//! - a running pod counts, per resource, the largest of three aggregates: the spec's, the
//!   allocated one (`status.containerStatuses[].allocatedResources`, else the spec) and the
//!   actuated one (`status.containerStatuses[].resources.requests`, else allocated, else the
//!   spec); a resize marked infeasible (`PodResizePending` with reason `Infeasible`) leaves the
//!   spec out (`containerAllocatedRequests`, `containerActuatedRequests`, `IsPodResizeInfeasible`);
//! - the scheduler counts cpu in millicores and everything else in units
//!   ([`super::quantity::Quantity::scheduler_amount`]), and only cpu, memory, ephemeral-storage and
//!   the scalar resources: extended resources, `hugepages-*`, prefixed native names and
//!   `attachable-volumes-*` (`pkg/scheduler/framework/types.go` `(*Resource).Add`,
//!   `pkg/scheduler/util/utils.go` `IsScalarResourceName`); other names are dropped;
//! - with `hostNetwork` every container port is a host port (`defaults.go`
//!   `defaultHostNetworkPorts`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, ContainerStatus, PodSpec, PodStatus, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use super::facts::facts;
use super::quantity::{self, NotAQuantity};
use super::resources::{is_extended, is_hugepages, is_native};
use crate::diag::FieldPath;

/// Resource name -> amount (millicores for cpu, units otherwise); only resources the scheduler counts.
pub type Amounts = BTreeMap<String, i64>;

/// A quantity of a pod that does not read, and where it is (relative to the Pod:
/// `spec.containers[0].resources.limits.cpu`, `status.containerStatuses[1].allocatedResources.memory`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{field}`: {source}")]
pub struct RequestError {
    pub field: String,
    pub source: NotAQuantity,
}

/// True for a resource name kube-scheduler compares with a node's allocatable.
pub fn counted(name: &str) -> bool {
    let container = &facts().resources.container;
    container.iter().any(|c| c == name)
        || is_extended(name)
        || is_hugepages(name)
        || (is_native(name) && name.contains('/'))
        || name.starts_with(facts().scheduling.attachable_volumes_prefix.as_str())
}

/// An amount that containers add up to and that init containers raise: one resource's count, or
/// every resource's ([`Amounts`]).
pub trait Amount: Clone + Default {
    /// `self + other`, saturating.
    fn add(&mut self, other: &Self);
    /// `max(self, other)`, per resource.
    fn raise(&mut self, other: &Self);
}

impl Amount for u64 {
    fn add(&mut self, other: &u64) {
        *self = self.saturating_add(*other);
    }
    fn raise(&mut self, other: &u64) {
        *self = (*self).max(*other);
    }
}

impl Amount for Amounts {
    fn add(&mut self, other: &Amounts) {
        for (k, v) in other {
            let e = self.entry(k.clone()).or_insert(0);
            *e = e.saturating_add(*v);
        }
    }
    fn raise(&mut self, other: &Amounts) {
        for (k, v) in other {
            let e = self.entry(k.clone()).or_insert(0);
            *e = (*e).max(*v);
        }
    }
}

/// `aggregateContainerResourcesByFn`: what a pod needs of its containers' amounts. `init` are the
/// init containers in order, each with whether it is restartable (a sidecar); `containers` the
/// regular ones.
pub fn aggregate<A: Amount>(init: impl IntoIterator<Item = (A, bool)>, containers: impl IntoIterator<Item = A>) -> A {
    let mut sum = A::default();
    for c in containers {
        sum.add(&c);
    }
    let mut sidecars = A::default();
    let mut init_need = A::default();
    for (amount, restartable) in init {
        let need = if restartable {
            sum.add(&amount);
            sidecars.add(&amount);
            sidecars.clone()
        } else {
            let mut n = amount;
            n.add(&sidecars);
            n
        };
        init_need.raise(&need);
    }
    sum.raise(&init_need);
    sum
}

/// True for a restartable init container (a native sidecar).
pub fn is_sidecar(c: &Container) -> bool {
    c.restart_policy.as_deref() == Some("Always")
}

/// What a pod requests, as the scheduler adds it up. `status` is the pod's status for a pod that
/// runs (`None` for a template or a pod not yet started).
pub fn pod_requests(spec: &PodSpec, status: Option<&PodStatus>) -> Result<Amounts, RequestError> {
    let init = spec.init_containers.as_deref().unwrap_or_default();
    // Each container's spec requests, defaulted from its limits, with its field path.
    let spec_of = |list: &[Container], field: &str| -> Result<Vec<Amounts>, RequestError> {
        list.iter().enumerate().map(|(i, c)| container_requests(c, &|| FieldPath::from("spec").field(field).index(i).into())).collect()
    };
    let spec_containers = spec_of(&spec.containers, "containers")?;
    let spec_init = spec_of(init, "initContainers")?;
    let fold = |containers: &[Amounts], init_amounts: &[Amounts]| {
        aggregate(init_amounts.iter().cloned().zip(init.iter().map(is_sidecar)), containers.iter().cloned())
    };
    let mut sum = fold(&spec_containers, &spec_init);
    if let Some(status) = status {
        let infeasible = resize_infeasible(status);
        let (allocated_c, actuated_c) = from_status(&spec.containers, &spec_containers, status, infeasible)?;
        let (allocated_i, actuated_i) = from_status(init, &spec_init, status, infeasible)?;
        let allocated = fold(&allocated_c, &allocated_i);
        let actuated = fold(&actuated_c, &actuated_i);
        if infeasible {
            sum = allocated.clone();
        }
        sum.raise(&allocated);
        sum.raise(&actuated);
    }
    if let Some(pod) = &spec.resources {
        // Pod-level requests, defaulted from pod-level limits, replace the aggregate.
        let requests = read(pod.requests.as_ref(), &|| "spec.resources.requests".into())?;
        let limits = read(pod.limits.as_ref(), &|| "spec.resources.limits".into())?;
        let defaulted: Amounts = limits.into_iter().filter(|(n, _)| !requests.contains_key(n)).collect();
        let s = &facts().scheduling;
        for (name, amount) in defaulted.into_iter().chain(requests) {
            if s.pod_level_resources.contains(&name) || is_hugepages(&name) {
                sum.insert(name, amount);
            }
        }
    }
    sum.add(&read(spec.overhead.as_ref(), &|| "spec.overhead".into())?);
    sum.retain(|_, v| *v != 0);
    Ok(sum)
}

fn resize_infeasible(s: &PodStatus) -> bool {
    s.conditions.iter().flatten().find(|c| c.type_ == "PodResizePending").is_some_and(|c| c.reason.as_deref() == Some("Infeasible"))
}

/// Per container: the allocated and the actuated requests (`containerAllocatedRequests`,
/// `containerActuatedRequests`), from the statuses, falling back as upstream does.
fn from_status(
    list: &[Container],
    spec: &[Amounts],
    status: &PodStatus,
    infeasible: bool,
) -> Result<(Vec<Amounts>, Vec<Amounts>), RequestError> {
    fn statuses<'s>(
        field: &'static str,
        of: &'s Option<Vec<ContainerStatus>>,
    ) -> impl Iterator<Item = (&'static str, usize, &'s ContainerStatus)> {
        of.iter().flatten().enumerate().map(move |(i, s)| (field, i, s))
    }
    let all: Vec<_> = statuses("containerStatuses", &status.container_statuses)
        .chain(statuses("initContainerStatuses", &status.init_container_statuses))
        .collect();
    let mut allocated = Vec::with_capacity(list.len());
    let mut actuated = Vec::with_capacity(list.len());
    for (c, own) in list.iter().zip(spec) {
        let found = all.iter().find(|(_, _, s)| s.name == c.name);
        let fallback = if infeasible { Amounts::new() } else { own.clone() };
        let alloc = match found.and_then(|(f, i, s)| s.allocated_resources.as_ref().map(|a| (f, i, a))) {
            Some((f, i, a)) => Some(read(Some(a), &|| format!("status.{f}[{i}].allocatedResources"))?),
            None => None,
        };
        let act = match found.and_then(|(f, i, s)| s.resources.as_ref().and_then(|r| r.requests.as_ref()).map(|r| (f, i, r))) {
            Some((f, i, r)) => Some(read(Some(r), &|| format!("status.{f}[{i}].resources.requests"))?),
            None => None,
        };
        actuated.push(act.or_else(|| alloc.clone()).unwrap_or_else(|| fallback.clone()));
        allocated.push(alloc.unwrap_or(fallback));
    }
    Ok((allocated, actuated))
}

/// One container's requests, limits standing in where a request is missing (`SetDefaults_Pod`).
/// `at` names the container's field path; it is worked out only for an error.
pub fn container_requests(c: &Container, at: &dyn Fn() -> String) -> Result<Amounts, RequestError> {
    let Some(ResourceRequirements { requests, limits, .. }) = &c.resources else { return Ok(Amounts::new()) };
    let mut out = read(requests.as_ref(), &|| format!("{}.resources.requests", at()))?;
    for (name, amount) in read(limits.as_ref(), &|| format!("{}.resources.limits", at()))? {
        out.entry(name).or_insert(amount);
    }
    Ok(out)
}

/// The counted resources of a list, as the scheduler's amounts.
fn read(list: Option<&BTreeMap<String, K8sQuantity>>, at: &dyn Fn() -> String) -> Result<Amounts, RequestError> {
    let mut out = Amounts::new();
    for (name, q) in list.into_iter().flatten() {
        if !counted(name) {
            continue;
        }
        let amount = quantity::read(&q.0).map_err(|source| RequestError { field: format!("{}.{name}", at()), source })?;
        out.insert(name.clone(), amount.scheduler_amount(name));
    }
    Ok(out)
}

/// The host ports a pod takes on its node, `(protocol, port)`: every `hostPort` of its
/// containers and sidecars, and with `hostNetwork` every `containerPort` (`defaultHostNetworkPorts`
/// sets `hostPort = containerPort` there). A port without a protocol is TCP.
pub fn host_ports(spec: &PodSpec) -> Vec<(String, i32)> {
    let host_network = spec.host_network == Some(true);
    let sidecars = spec.init_containers.iter().flatten().filter(|c| is_sidecar(c));
    let mut out: Vec<(String, i32)> = spec
        .containers
        .iter()
        .chain(sidecars)
        .flat_map(|c| c.ports.iter().flatten())
        .filter_map(|p| {
            let port = p.host_port.filter(|h| *h > 0).or(if host_network { Some(p.container_port) } else { None })?;
            Some((p.protocol.clone().unwrap_or_else(|| "TCP".into()), port))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(yaml: &str) -> PodSpec {
        crate::yaml::from_str(yaml).unwrap()
    }

    fn amounts(pairs: &[(&str, i64)]) -> Amounts {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn limits_stand_in_for_missing_requests() {
        let s = spec("containers:\n- name: node\n  resources:\n    limits: {google.com/tpu: 4, cpu: '8'}\n    requests: {cpu: '2'}\n");
        assert_eq!(pod_requests(&s, None).unwrap(), amounts(&[("cpu", 2000), ("google.com/tpu", 4)]));
    }

    #[test]
    fn init_containers_raise_the_request_and_sidecars_add_to_it() {
        // Containers: 1 cpu. Sidecar (Always): 1 cpu, added. A later init container of 3 cpu
        // needs 3 + the 1 of the sidecar started before it = 4, more than the 2 of the sum.
        let s = spec(
            "containers:\n- {name: a, resources: {requests: {cpu: '1', memory: 1Gi}}}\ninitContainers:\n- {name: side, restartPolicy: Always, resources: {requests: {cpu: '1'}}}\n- {name: setup, resources: {requests: {cpu: '3'}}}\n",
        );
        assert_eq!(pod_requests(&s, None).unwrap(), amounts(&[("cpu", 4000), ("memory", 1 << 30)]));
        let small = spec("containers:\n- {name: a, resources: {requests: {cpu: '2'}}}\ninitContainers:\n- {name: setup, resources: {requests: {cpu: '1'}}}\n");
        assert_eq!(pod_requests(&small, None).unwrap(), amounts(&[("cpu", 2000)]));
        // An init container before the sidecar does not count it.
        let before = spec("containers:\n- {name: a, resources: {requests: {cpu: '1'}}}\ninitContainers:\n- {name: setup, resources: {requests: {cpu: '2'}}}\n- {name: side, restartPolicy: Always, resources: {requests: {cpu: '1'}}}\n");
        assert_eq!(pod_requests(&before, None).unwrap(), amounts(&[("cpu", 2000)]));
    }

    #[test]
    fn one_resource_folds_the_same_way() {
        // 4 chips in the container, a sidecar with 0, an init container with 8: the pod needs 8.
        assert_eq!(aggregate([(0u64, true), (8, false)], [4u64]), 8);
        assert_eq!(aggregate([(2u64, true)], [4u64, 4]), 10, "containers and sidecars add up");
        assert_eq!(aggregate::<u64>([], []), 0);
    }

    #[test]
    fn pod_level_requests_replace_the_sum_and_overhead_adds() {
        let s = spec("containers:\n- {name: a, resources: {requests: {cpu: '1', nvidia.com/gpu: 8}}}\nresources: {limits: {cpu: '6'}}\noverhead: {cpu: 250m}\n");
        assert_eq!(pod_requests(&s, None).unwrap(), amounts(&[("cpu", 6250), ("nvidia.com/gpu", 8)]));
    }

    #[test]
    fn names_the_scheduler_does_not_count_are_dropped_and_bad_quantities_named() {
        let s = spec("containers:\n- {name: a, resources: {requests: {foo: '1', hugepages-2Mi: 2Mi, vpc.amazonaws.com/efa: 32, kubernetes.io/batch-cpu: 3}}}\n");
        assert_eq!(
            pod_requests(&s, None).unwrap(),
            amounts(&[("hugepages-2Mi", 2 << 20), ("kubernetes.io/batch-cpu", 3), ("vpc.amazonaws.com/efa", 32)])
        );
        let bad = spec("containers:\n- {name: a}\n- {name: b, resources: {limits: {memory: 32GB}}}\n");
        let err = pod_requests(&bad, None).unwrap_err();
        assert_eq!(err.field, "spec.containers[1].resources.limits.memory");
        assert!(err.to_string().contains("`32GB` is not a Kubernetes quantity"), "{err}");
    }

    #[test]
    fn a_resized_container_counts_the_larger_of_spec_and_status() {
        let s = spec("containers:\n- {name: a, resources: {requests: {cpu: '1'}}}\n- {name: b, resources: {requests: {cpu: '1'}}}\n");
        let status: PodStatus = crate::yaml::from_str(
            "containerStatuses:\n- {name: a, image: x, imageID: '', ready: true, restartCount: 0, allocatedResources: {cpu: '3'}}\n",
        )
        .unwrap();
        assert_eq!(pod_requests(&s, Some(&status)).unwrap(), amounts(&[("cpu", 4000)]));
        // Shrunk in the status: the spec's larger request still counts.
        let smaller: PodStatus = crate::yaml::from_str(
            "containerStatuses:\n- {name: a, image: x, imageID: '', ready: true, restartCount: 0, allocatedResources: {cpu: 500m}, resources: {requests: {cpu: 500m}}}\n",
        )
        .unwrap();
        assert_eq!(pod_requests(&s, Some(&smaller)).unwrap(), amounts(&[("cpu", 2000)]));
        // An infeasible resize: the spec is left out.
        let infeasible: PodStatus = crate::yaml::from_str(
            "conditions: [{type: PodResizePending, status: 'True', reason: Infeasible}]\ncontainerStatuses:\n- {name: a, image: x, imageID: '', ready: true, restartCount: 0, allocatedResources: {cpu: 500m}}\n- {name: b, image: x, imageID: '', ready: true, restartCount: 0, allocatedResources: {cpu: 500m}}\n",
        )
        .unwrap();
        assert_eq!(pod_requests(&s, Some(&infeasible)).unwrap(), amounts(&[("cpu", 1000)]));
        let bad: PodStatus = crate::yaml::from_str(
            "containerStatuses:\n- {name: b, image: x, imageID: '', ready: true, restartCount: 0, allocatedResources: {cpu: lots}}\n",
        )
        .unwrap();
        assert_eq!(pod_requests(&s, Some(&bad)).unwrap_err().field, "status.containerStatuses[0].allocatedResources.cpu");
    }

    #[test]
    fn host_network_turns_container_ports_into_host_ports() {
        let s = spec("containers:\n- {name: a, ports: [{containerPort: 8080}, {containerPort: 9090, hostPort: 9091, protocol: UDP}]}\n");
        assert_eq!(host_ports(&s), vec![("UDP".to_string(), 9091)]);
        let hn = spec("hostNetwork: true\ncontainers:\n- {name: a, ports: [{containerPort: 8080}, {containerPort: 29500}]}\n");
        assert_eq!(host_ports(&hn), vec![("TCP".to_string(), 8080), ("TCP".to_string(), 29500)]);
    }

    #[test]
    fn the_scheduler_counts_native_extended_and_scalar_names() {
        for n in [
            "cpu",
            "memory",
            "ephemeral-storage",
            "google.com/tpu",
            "hugepages-1Gi",
            "kubernetes.io/batch-cpu",
            "attachable-volumes-aws-ebs",
        ] {
            assert!(counted(n), "{n}");
        }
        for n in ["pods", "foo", "requests.nvidia.com/gpu", "NVIDIA.com/gpu"] {
            assert!(!counted(n), "{n}");
        }
    }
}
