//! GKE Autopilot's refusals (`autopilot/*`, [`crate::rules::autopilot`]) on the pods of an Autopilot
//! runtime: one whose `jax-runtimes.dev/capacity` annotation names `autopilot` (the generator
//! writes it for `spec.capacity.autopilot: true`; a hand-written runtime may carry it), or whose
//! trainer pod selects a ComputeClass only Autopilot runs. What Autopilot allows is data
//! (`catalog/capacity.yaml`, `autopilot:`).

use k8s_openapi::api::core::v1::{Container, PodSpec};

use crate::capacity::{data, is_autopilot};
use crate::diag::{Diagnostic, FieldPath};
use crate::rules::autopilot::*;
use crate::trainer::paths::{self, PodPaths};
use crate::trainer::TrainingRuntime;

pub fn check(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let jobs = &rt.spec.template.spec.replicated_jobs;
    let trainer_selector = rt.trainer_job().and_then(|(_, j)| j.template.spec.as_ref()?.template.spec.as_ref()?.node_selector.as_ref());
    if !is_autopilot(rt.metadata.annotations.as_ref(), trainer_selector) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let Some(pod) = job.template.spec.as_ref().and_then(|s| s.template.spec.as_ref()) else { continue };
        pod_checks(pod, &paths::pod_spec(i), &mut out);
    }
    out
}

/// Every container of the pod with its field path: init containers, then containers.
fn containers<'a>(pod: &'a PodSpec, at: &FieldPath) -> Vec<(FieldPath, &'a Container)> {
    let init = pod.init_containers.iter().flatten().enumerate().map(|(c, x)| (at.init_container(c), x));
    init.chain(pod.containers.iter().enumerate().map(|(c, x)| (at.container(c), x))).collect()
}

fn pod_checks(pod: &PodSpec, at: &FieldPath, out: &mut Vec<Diagnostic>) {
    let ap = &data().autopilot;
    for (field, on) in [("hostNetwork", pod.host_network), ("hostPID", pod.host_pid), ("hostIPC", pod.host_ipc)] {
        if on == Some(true) {
            out.push(Diagnostic::finding(
                &AUTOPILOT_HOST_NAMESPACES,
                at.field(field),
                format!("`{field}: true` on GKE Autopilot: Autopilot refuses the pod (autogke-disallow-hostnamespaces)"),
            ));
        }
    }
    for (v, vol) in pod.volumes.iter().flatten().enumerate() {
        let Some(hp) = &vol.host_path else { continue };
        let under = ap.host_path_prefixes.iter().any(|p| hp.path.starts_with(p.as_str()));
        let writable = containers(pod, at)
            .iter()
            .any(|(_, c)| c.volume_mounts.iter().flatten().any(|m| m.name == vol.name && m.read_only != Some(true)));
        if !under || writable {
            let why = if under { "mounted writable".to_string() } else { format!("outside {}", ap.host_path_prefixes.join(", ")) };
            out.push(Diagnostic::finding(
                &AUTOPILOT_HOST_PATH,
                at.field("volumes").index(v).field("hostPath").field("path"),
                format!("hostPath volume `{}` (`{}`) {why}: Autopilot refuses the pod (autogke-no-write-mode-hostpath)", vol.name, hp.path),
            ));
        }
    }
    for (path, c) in containers(pod, at) {
        let sc = c.security_context.as_ref();
        if sc.and_then(|s| s.privileged) == Some(true) {
            out.push(Diagnostic::finding(
                &AUTOPILOT_PRIVILEGED,
                path.field("securityContext").field("privileged"),
                format!("container `{}` is privileged: GKE Autopilot refuses the pod (autogke-disallow-privilege)", c.name),
            ));
        }
        for (k, cap) in sc.and_then(|s| s.capabilities.as_ref()).and_then(|c| c.add.as_ref()).into_iter().flatten().enumerate() {
            let name = cap.trim_start_matches("CAP_");
            if !ap.capabilities.iter().any(|a| a == name) {
                out.push(
                    Diagnostic::finding(
                        &AUTOPILOT_CAPABILITIES,
                        path.field("securityContext").field("capabilities").field("add").index(k),
                        format!(
                            "container `{}` adds `{cap}`, which GKE Autopilot does not allow (autogke-default-linux-capabilities)",
                            c.name
                        ),
                    )
                    .with_help(format!("Autopilot allows {}", ap.capabilities.join(", "))),
                );
            }
        }
        for (p, port) in c.ports.iter().flatten().enumerate() {
            if port.host_port.is_some_and(|h| h != 0) {
                out.push(Diagnostic::finding(
                    &AUTOPILOT_HOST_PORT,
                    path.field("ports").index(p).field("hostPort"),
                    format!(
                        "container `{}` asks for host port {}: GKE Autopilot refuses the pod (autogke-no-host-port)",
                        c.name,
                        port.host_port.unwrap_or_default()
                    ),
                ));
            }
        }
        let requests = c.resources.as_ref().and_then(|r| r.requests.as_ref());
        let limits = c.resources.as_ref().and_then(|r| r.limits.as_ref());
        // Kubernetes defaults a request from a limit of the same resource.
        let asks = |r: &str| requests.is_some_and(|m| m.contains_key(r)) || limits.is_some_and(|m| m.contains_key(r));
        let missing: Vec<&str> = ["cpu", "memory"].into_iter().filter(|r| !asks(r)).collect();
        if !missing.is_empty() {
            out.push(Diagnostic::finding(
                &AUTOPILOT_DEFAULT_REQUESTS,
                path.field("resources").field("requests"),
                format!(
                    "container `{}` requests no {}: GKE Autopilot sets its defaults, not refusing the pod",
                    c.name,
                    missing.join(" and ")
                ),
            ));
        }
    }
    let selector = pod.node_selector.clone().unwrap_or_default();
    for key in &ap.refused_selectors {
        if selector.contains_key(key) {
            out.push(Diagnostic::finding(
                &AUTOPILOT_NODE_SELECTOR,
                at.field("nodeSelector").key(key),
                format!("the pod selects `{key}`: GKE Autopilot refuses the pod (autogke-node-affinity-selector-limitation)"),
            ));
        }
    }
    let tolerated: Vec<&str> = pod.tolerations.iter().flatten().filter_map(|t| t.key.as_deref()).collect();
    for acc in &ap.accelerators {
        let requested = containers(pod, at).iter().any(|(_, c)| {
            let r = c.resources.as_ref();
            r.and_then(|r| r.limits.as_ref()).is_some_and(|l| l.contains_key(&acc.resource))
                || r.and_then(|r| r.requests.as_ref()).is_some_and(|l| l.contains_key(&acc.resource))
        });
        // The selector keys that name this accelerator's kind (a ComputeClass names any).
        let kind_keys: Vec<&String> = acc.selectors.iter().filter(|k| **k != crate::capacity::compute_class_key()).collect();
        let selects_kind = kind_keys.iter().any(|k| selector.contains_key(k.as_str()));
        let selects = selects_kind || acc.selectors.iter().any(|k| selector.contains_key(k));
        if requested && !selects {
            out.push(Diagnostic::finding(
                &AUTOPILOT_ACCELERATOR,
                at.field("nodeSelector"),
                format!(
                    "the pod requests `{}` but selects none of {}: GKE Autopilot refuses the pod (autogke-gpu-limitation)",
                    acc.resource,
                    acc.selectors.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        let tolerates = acc.tolerations.iter().any(|t| tolerated.contains(&t.as_str()));
        if !requested && (selects_kind || tolerates) {
            let what = if selects_kind { "selects" } else { "tolerates" };
            out.push(
                Diagnostic::finding(
                    &AUTOPILOT_ACCELERATOR,
                    at.field(if selects_kind { "nodeSelector" } else { "tolerations" }),
                    format!(
                        "the pod {what} the `{}` accelerator but no container requests it: GKE Autopilot refuses the pod (autogke-gpu-limitation)",
                        acc.resource
                    ),
                )
                .with_help(format!("request `{}` in the container's `resources.limits`, or remove the selector and toleration", acc.resource)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime(pod: serde_json::Value, annotated: bool) -> TrainingRuntime {
        let ann = if annotated { serde_json::json!({"jax-runtimes.dev/capacity": "autopilot"}) } else { serde_json::json!({}) };
        serde_json::from_value(serde_json::json!({
            "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
            "metadata": {"name": "r", "annotations": ann},
            "spec": {"mlPolicy": {"numNodes": 1, "jax": {}}, "template": {"spec": {"replicatedJobs": [{"name": "node",
                "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                "spec": {"template": {"spec": pod}}}}]}}}
        }))
        .unwrap()
    }

    fn ids(rt: &TrainingRuntime) -> Vec<&'static str> {
        check(rt).iter().map(|d| d.rule.id).collect()
    }

    #[test]
    fn autopilot_refusals_are_errors_only_on_autopilot_runtimes() {
        let pod = serde_json::json!({"hostNetwork": true, "containers": [{"name": "node", "image": "i",
            "securityContext": {"privileged": true, "capabilities": {"add": ["IPC_LOCK", "SYS_PTRACE"]}},
            "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]});
        assert_eq!(ids(&runtime(pod.clone(), true)), ["autopilot/host-namespaces", "autopilot/privileged", "autopilot/capabilities"]);
        assert!(ids(&runtime(pod, false)).is_empty(), "not an Autopilot runtime");
    }

    #[test]
    fn accelerators_are_requested_and_selected_together() {
        let tpu = |sel: serde_json::Value, limits: serde_json::Value| {
            serde_json::json!({"nodeSelector": sel, "containers": [{"name": "node", "image": "i",
                "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": limits}}]})
        };
        let sel =
            serde_json::json!({"cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice", "cloud.google.com/gke-tpu-topology": "2x4"});
        assert!(ids(&runtime(tpu(sel.clone(), serde_json::json!({"google.com/tpu": "4"})), true)).is_empty());
        assert_eq!(ids(&runtime(tpu(sel, serde_json::json!({})), true)), ["autopilot/accelerator"], "selects a TPU, requests none");
        assert_eq!(ids(&runtime(tpu(serde_json::json!({}), serde_json::json!({"google.com/tpu": "4"})), true)), ["autopilot/accelerator"]);
        let by_class = serde_json::json!({"cloud.google.com/compute-class": "Accelerator"});
        let rt = runtime(tpu(by_class, serde_json::json!({"nvidia.com/gpu": "1"})), false);
        assert!(ids(&rt).is_empty(), "an Autopilot class selects it: {:?}", check(&rt));
        let bare = serde_json::json!({"containers": [{"name": "node", "image": "i", "volumeMounts": [{"name": "d", "mountPath": "/d"}]}],
            "volumes": [{"name": "d", "hostPath": {"path": "/dev"}}], "nodeSelector": {"cloud.google.com/gke-nodepool": "p"}});
        assert_eq!(ids(&runtime(bare, true)), ["autopilot/host-path", "autopilot/default-requests", "autopilot/node-selector"]);
    }
}
