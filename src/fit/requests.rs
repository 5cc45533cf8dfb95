//! A pod spec -> what it requests as kube-scheduler computes it, resource by resource: container
//! requests defaulted from limits, init containers and sidecars, pod-level requests, overhead.
//! Also its host ports. Used for the runtime's pods and for the pods already on the cluster alike.
//!
//! Facts (kubernetes v1.34, not its code): requests default to limits where only a limit is set,
//! on Pods, not on PodTemplates (`pkg/apis/core/v1/defaults.go` `SetDefaults_Pod`); the pod's
//! request is the sum over containers, raised to what each init container needs (its own requests
//! plus the sidecars started before it; a sidecar, `restartPolicy: Always`, adds to the sum),
//! pod-level requests replace the aggregate for the resources they set, and overhead is added
//! (kubernetes/component-helpers `resource/helpers.go` `PodRequests`, `AggregateContainerRequests`).
//! The scheduler counts cpu, memory, ephemeral-storage and scalar resources: names with a domain
//! (`google.com/tpu`), `hugepages-*` and `attachable-volumes-*`; other names are dropped
//! (`pkg/scheduler/framework/types.go` `(*Resource).Add`, `pkg/scheduler/util/utils.go`
//! `IsScalarResourceName`). A running pod's container counts the larger of its spec and its
//! status (`allocatedResources`, `resources.requests`) after an in-place resize
//! (component-helpers `determineContainerReqs`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, ContainerStatus, PodSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::quantity::{self, QuantityError};

/// A quantity that does not read, and where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{field}`: {source}")]
pub struct RequestError {
    /// Field path in the pod spec: `containers[0].resources.limits.cpu`.
    pub field: String,
    pub source: QuantityError,
}

/// Resource name -> amount (millicores for cpu); only resources the scheduler counts.
pub type Amounts = BTreeMap<String, i64>;

/// True for a resource name kube-scheduler compares with the node's allocatable.
pub fn counted(name: &str) -> bool {
    matches!(name, "cpu" | "memory" | "ephemeral-storage")
        || name.contains('/')
        || name.starts_with("hugepages-")
        || name.starts_with("attachable-volumes-")
}

/// True for an extended resource (`<domain>/<name>` outside `kubernetes.io`), whose requests
/// must equal their limits and which ExtendedResourceToleration tolerates
/// (`pkg/apis/core/v1/helper/helpers.go` `IsExtendedResourceName`).
pub fn extended(name: &str) -> bool {
    match name.split_once('/') {
        Some((domain, _)) => !(domain == "kubernetes.io" || domain.ends_with(".kubernetes.io") || name.starts_with("requests.")),
        None => false,
    }
}

/// What a pod spec requests, as the scheduler adds it up. `status` is the pod's container
/// statuses, for a pod already running (empty for a template).
pub fn pod_requests(spec: &PodSpec, status: &[ContainerStatus]) -> Result<Amounts, RequestError> {
    let mut sum = Amounts::new();
    for (i, c) in spec.containers.iter().enumerate() {
        let mut reqs = container_requests(c, &|| format!("containers[{i}]"))?;
        if let Some(s) = status.iter().find(|s| s.name == c.name) {
            for (field, list) in [
                ("allocatedResources", s.allocated_resources.as_ref()),
                ("resources.requests", s.resources.as_ref().and_then(|r| r.requests.as_ref())),
            ] {
                for (name, amount) in read(list, &|| format!("status.containerStatuses[{i}].{field}"))? {
                    let e = reqs.entry(name).or_insert(0);
                    *e = (*e).max(amount);
                }
            }
        }
        add(&mut sum, &reqs);
    }
    let mut sidecars = Amounts::new();
    let mut init_need = Amounts::new();
    for (i, c) in spec.init_containers.iter().flatten().enumerate() {
        let reqs = container_requests(c, &|| format!("initContainers[{i}]"))?;
        let need = if c.restart_policy.as_deref() == Some("Always") {
            add(&mut sum, &reqs);
            add(&mut sidecars, &reqs);
            sidecars.clone()
        } else {
            let mut n = reqs;
            add(&mut n, &sidecars);
            n
        };
        max_into(&mut init_need, &need);
    }
    max_into(&mut sum, &init_need);
    if let Some(pod) = &spec.resources {
        // Pod-level requests (cpu, memory, hugepages) replace the aggregate; they default to
        // pod-level limits.
        let requests = read(pod.requests.as_ref(), &|| "resources.requests".into())?;
        let limits = read(pod.limits.as_ref(), &|| "resources.limits".into())?;
        let defaulted: Amounts = limits.into_iter().filter(|(n, _)| !requests.contains_key(n)).collect();
        for (name, amount) in defaulted.into_iter().chain(requests) {
            if name == "cpu" || name == "memory" || name.starts_with("hugepages-") {
                sum.insert(name, amount);
            }
        }
    }
    add(&mut sum, &read(spec.overhead.as_ref(), &|| "overhead".into())?);
    sum.retain(|_, v| *v != 0);
    Ok(sum)
}

/// One container's requests, with limits standing in where a request is missing.
/// `at` names the container's field path; it is worked out only for an error.
fn container_requests(c: &Container, at: &dyn Fn() -> String) -> Result<Amounts, RequestError> {
    let Some(ResourceRequirements { requests, limits, .. }) = &c.resources else { return Ok(Amounts::new()) };
    let mut out = read(requests.as_ref(), &|| format!("{}.resources.requests", at()))?;
    for (name, amount) in read(limits.as_ref(), &|| format!("{}.resources.limits", at()))? {
        out.entry(name).or_insert(amount);
    }
    Ok(out)
}

fn read(list: Option<&BTreeMap<String, Quantity>>, at: &dyn Fn() -> String) -> Result<Amounts, RequestError> {
    let mut out = Amounts::new();
    for (name, q) in list.into_iter().flatten() {
        if !counted(name) {
            continue;
        }
        let amount = quantity::amount(name, &q.0).map_err(|source| RequestError { field: format!("{}.{name}", at()), source })?;
        out.insert(name.clone(), amount);
    }
    Ok(out)
}

fn add(into: &mut Amounts, more: &Amounts) {
    for (k, v) in more {
        let e = into.entry(k.clone()).or_insert(0);
        *e = e.saturating_add(*v);
    }
}

fn max_into(into: &mut Amounts, other: &Amounts) {
    for (k, v) in other {
        let e = into.entry(k.clone()).or_insert(0);
        *e = (*e).max(*v);
    }
}

/// The host ports a pod takes on its node, `(protocol, port)`: every `hostPort` of its
/// containers and sidecars, and with `hostNetwork` every `containerPort` (defaulting sets
/// `hostPort = containerPort` there: `defaults.go` `defaultHostNetworkPorts`). `extra` are
/// container ports someone else adds (the Trainer JAX plugin's coordinator port).
pub fn host_ports(spec: &PodSpec, extra: &[i32]) -> Vec<(String, i32)> {
    let host_network = spec.host_network == Some(true);
    let sidecars = spec.init_containers.iter().flatten().filter(|c| c.restart_policy.as_deref() == Some("Always"));
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
    if host_network {
        out.extend(extra.iter().map(|p| ("TCP".to_string(), *p)));
    }
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
        assert_eq!(pod_requests(&s, &[]).unwrap(), amounts(&[("cpu", 2000), ("google.com/tpu", 4)]));
    }

    #[test]
    fn init_containers_raise_the_request_and_sidecars_add_to_it() {
        // Containers: 1 cpu. Sidecar (Always): 1 cpu, added. A later init container of 3 cpu
        // needs 3 + the 1 of the sidecar started before it = 4, more than the 2 of the sum.
        let s = spec(
            "containers:\n- {name: a, resources: {requests: {cpu: '1', memory: 1Gi}}}\ninitContainers:\n- {name: side, restartPolicy: Always, resources: {requests: {cpu: '1'}}}\n- {name: setup, resources: {requests: {cpu: '3'}}}\n",
        );
        assert_eq!(pod_requests(&s, &[]).unwrap(), amounts(&[("cpu", 4000), ("memory", 1 << 30)]));
        let small = spec("containers:\n- {name: a, resources: {requests: {cpu: '2'}}}\ninitContainers:\n- {name: setup, resources: {requests: {cpu: '1'}}}\n");
        assert_eq!(pod_requests(&small, &[]).unwrap(), amounts(&[("cpu", 2000)]));
    }

    #[test]
    fn pod_level_requests_replace_the_sum_and_overhead_adds() {
        let s = spec("containers:\n- {name: a, resources: {requests: {cpu: '1', nvidia.com/gpu: 8}}}\nresources: {limits: {cpu: '6'}}\noverhead: {cpu: 250m}\n");
        assert_eq!(pod_requests(&s, &[]).unwrap(), amounts(&[("cpu", 6250), ("nvidia.com/gpu", 8)]));
    }

    #[test]
    fn names_the_scheduler_does_not_count_are_dropped_and_bad_quantities_named() {
        let s = spec("containers:\n- {name: a, resources: {requests: {foo: '1', hugepages-2Mi: 2Mi, vpc.amazonaws.com/efa: 32}}}\n");
        assert_eq!(pod_requests(&s, &[]).unwrap(), amounts(&[("hugepages-2Mi", 2 << 20), ("vpc.amazonaws.com/efa", 32)]));
        let bad = spec("containers:\n- {name: a}\n- {name: b, resources: {limits: {memory: 32GB}}}\n");
        let err = pod_requests(&bad, &[]).unwrap_err();
        assert_eq!(err.field, "containers[1].resources.limits.memory");
    }

    #[test]
    fn a_resized_container_counts_the_larger_of_spec_and_status() {
        let s = spec("containers:\n- {name: a, resources: {requests: {cpu: '1'}}}\n");
        let status: Vec<ContainerStatus> =
            crate::yaml::from_str("- {name: a, image: x, imageID: '', ready: true, restartCount: 0, allocatedResources: {cpu: '3'}}\n")
                .unwrap();
        assert_eq!(pod_requests(&s, &status).unwrap(), amounts(&[("cpu", 3000)]));
    }

    #[test]
    fn host_network_turns_container_ports_into_host_ports() {
        let s = spec("containers:\n- {name: a, ports: [{containerPort: 8080}, {containerPort: 9090, hostPort: 9091, protocol: UDP}]}\n");
        assert_eq!(host_ports(&s, &[29500]), vec![("UDP".to_string(), 9091)]);
        let hn = spec("hostNetwork: true\ncontainers:\n- {name: a, ports: [{containerPort: 8080}]}\n");
        assert_eq!(host_ports(&hn, &[29500]), vec![("TCP".to_string(), 8080), ("TCP".to_string(), 29500)]);
    }

    #[test]
    fn extended_resources_are_the_ones_outside_kubernetes_io() {
        assert!(extended("google.com/tpu") && extended("vpc.amazonaws.com/efa") && extended("rdma/ib"));
        assert!(
            !extended("cpu") && !extended("kubernetes.io/batch-cpu") && !extended("hugepages-2Mi") && !extended("example.kubernetes.io/x")
        );
    }
}
