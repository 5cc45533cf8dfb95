//! What GKE Autopilot refuses of the pods of an Autopilot runtime (one whose
//! `jax-runtimes.dev/capacity` annotation names `autopilot`, or whose pods select a ComputeClass
//! only Autopilot runs; `catalog/capacity.yaml`). GKE Warden, Autopilot's admission, rejects the
//! Pods the Job controller creates, so a TrainJob on such a runtime never starts. The constraint
//! names are GKE's (`autogke-*`), as GKE prints them when it refuses a pod.
//!
//! Sources: docs.cloud.google.com/kubernetes-engine/docs/concepts/autopilot-security ("Built-in
//! security measures": privileged pods, host namespaces, hostPath, capabilities, node selectors),
//! concepts/autopilot-resource-requests (defaults for containers without requests), how-to/
//! tpus-autopilot and how-to/autopilot-gpus (accelerators are selected with their node labels and
//! requested in `resources`).

use super::rule::define_rules;

define_rules! {
    sourced;
    AUTOPILOT_PRIVILEGED = "autopilot/privileged", Error, Kubernetes,
        "A container of an Autopilot runtime's pod is privileged (`securityContext.privileged: true`): Autopilot refuses the pod (`autogke-disallow-privilege`).",
        "Remove `privileged: true`; add only the capabilities Autopilot allows, or run the runtime on a GKE Standard node pool.",
        fails PodStart, source "GKE docs concepts/autopilot-security \"Built-in security measures\" (constraint `autogke-disallow-privilege`)";
    AUTOPILOT_HOST_NAMESPACES = "autopilot/host-namespaces", Error, Kubernetes,
        "An Autopilot runtime's pod sets `hostNetwork`, `hostPID` or `hostIPC`: Autopilot refuses the pod (`autogke-disallow-hostnamespaces`).",
        "Remove the host namespace; the JAX coordinator works over the pod network.",
        fails PodStart, source "GKE docs concepts/autopilot-security (constraint `autogke-disallow-hostnamespaces`)";
    AUTOPILOT_HOST_PATH = "autopilot/host-path", Error, Kubernetes,
        "An Autopilot runtime's pod mounts a `hostPath` volume outside `/var/log/`, or mounts one writable: Autopilot refuses the pod (`autogke-no-write-mode-hostpath`). GPU fabrics that mount the node's drivers or NCCL plugin are of this kind.",
        "Use an `emptyDir`, a PersistentVolumeClaim or a CSI volume; mount `/var/log/` read-only.",
        fails PodStart, source "GKE docs concepts/autopilot-security (constraint `autogke-no-write-mode-hostpath`)";
    AUTOPILOT_HOST_PORT = "autopilot/host-port", Error, Kubernetes,
        "A container of an Autopilot runtime's pod asks for a `hostPort`: Autopilot refuses the pod (`autogke-no-host-port`).",
        "Remove `hostPort`; reach the pod through its IP or a Service.",
        fails PodStart, source "GKE docs concepts/autopilot-security (constraint `autogke-no-host-port`)";
    AUTOPILOT_CAPABILITIES = "autopilot/capabilities", Error, Kubernetes,
        "A container of an Autopilot runtime's pod adds a Linux capability Autopilot does not allow (`NET_ADMIN`, `IPC_LOCK`, `SYS_ADMIN`, ...): Autopilot refuses the pod (`autogke-default-linux-capabilities`).",
        "Add only the capabilities the message lists; a GPU fabric that needs `IPC_LOCK` or `NET_ADMIN` runs on GKE Standard.",
        fails PodStart, source "GKE docs concepts/autopilot-security (constraint `autogke-default-linux-capabilities`)";
    AUTOPILOT_NODE_SELECTOR = "autopilot/node-selector", Error, Kubernetes,
        "An Autopilot runtime's pod selects a node label Autopilot does not let pods select (`cloud.google.com/gke-nodepool`): Autopilot refuses the pod (`autogke-node-affinity-selector-limitation`).",
        "Select the accelerator, the topology or a ComputeClass instead of a node pool.",
        fails PodStart, source "GKE docs concepts/autopilot-security (constraint `autogke-node-affinity-selector-limitation`)";
    AUTOPILOT_ACCELERATOR = "autopilot/accelerator", Error, Kubernetes,
        "An Autopilot runtime's pod requests TPU chips or GPUs without selecting their kind (`cloud.google.com/gke-tpu-accelerator`, `cloud.google.com/gke-accelerator` or a ComputeClass), or selects or tolerates an accelerator without requesting it in `resources`: Autopilot provisions nodes from the request and the selector together, and refuses the pod (`autogke-gpu-limitation`).",
        "Request the chips in the container's `resources.limits` and select their kind (`jax-runtimes render` does both from `spec.accelerator`).",
        fails PodStart, source "GKE docs how-to/tpus-autopilot \"How TPUs work in Autopilot\", how-to/autopilot-gpus (constraint `autogke-gpu-limitation`)";
    AUTOPILOT_DEFAULT_REQUESTS = "autopilot/default-requests", Warning, Kubernetes,
        "A container of an Autopilot runtime's pod requests no `cpu` or no `memory`: Autopilot does not refuse it, it sets its own defaults (and bills them), which may be far from what the JAX process needs.",
        "Request `cpu` and `memory` for every container (`spec.resources.requests` of the catalog entry).",
        fails Run, source "GKE docs concepts/autopilot-resource-requests \"Default resource requests\"";
}
