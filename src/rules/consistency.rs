//! Rules of accelerator consistency that no Kubernetes check catches: a runtime Kubernetes
//! accepts whose pods never schedule, or run JAX on the wrong device. Each says when it bites
//! and where the fact comes from.

use super::rule::define_rules;

define_rules! {
    sourced;
    TPU_EXCLUSIVE_TOPOLOGY = "tpu/exclusive-topology", Warning, Accelerators,
        "A multi-host TPU runtime without the JobSet annotation `alpha.jobset.sigs.k8s.io/exclusive-topology` (the generator adds `cloud.google.com/gke-nodepool`): the pods of one job can land on different slices, or share a slice with another job, and `jax.distributed.initialize()` then waits forever.",
        "Add `spec.template.metadata.annotations: {alpha.jobset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool}`.",
        fails Run, source "JobSet v0.12.0 `pkg/webhooks/pod_webhook.go` `setExclusiveAffinities`; `multiHostAnnotations` in catalog/accelerators/tpu.yaml (xpk and the JobSet TPU examples)";
    ACCELERATOR_CONTRADICTORY_SELECTOR = "accelerator/contradictory-selector", Error, Accelerators,
        "The pod selects node labels no node has together: TPU labels on a pod that requests GPUs (or GPU labels on one that requests TPU chips), or a GPU model label and a machine type of another model. The pods stay Pending.",
        "Select the labels of the accelerator the pod requests, and a machine type of the selected model.",
        fails Run, source "kube-scheduler `NodeAffinity` (every `nodeSelector` label must match one node); node labels from catalog/accelerators/tpu.yaml and gpu.yaml";
    ACCELERATOR_JAX_PLATFORMS = "accelerator/jax-platforms", Error, Accelerators,
        "`JAX_PLATFORMS` names no platform of the accelerator the container requests (`cuda` on a TPU runtime, `tpu` on a GPU runtime): JAX fails to start its backend, or runs on the CPU and leaves the devices idle.",
        "Set `JAX_PLATFORMS` to the accelerator's platform (`tpu,cpu` on TPU, `cuda` on NVIDIA, `rocm` on AMD), or remove it.",
        fails Run, source "JAX `jax_platforms` configuration (`jax/_src/xla_bridge.py` `backends`); platform names in catalog/accelerators/jax.yaml";
    ACCELERATOR_IMAGE = "accelerator/image", Warning, Accelerators,
        "The container's image is built for another accelerator than it requests (a CUDA image on TPU chips, a TPU image on GPUs), so JAX finds no device of its kind.",
        "Use an image for the accelerator: the accelerator data's default (`jax-runtimes accelerators`) or your own build for it.",
        fails Run, source "image markers in catalog/accelerators/jax.yaml (the default images of tpu.yaml and gpu.yaml)";
}
