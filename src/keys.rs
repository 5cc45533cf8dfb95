//! Every label and annotation key jax-runtimes reads or writes, in one place: the marks on the
//! runtimes it generates, the JobSet and Job keys it relies on, and the kpt and kustomize
//! annotations it must keep or never copy. Kubeflow Trainer's own labels (the ancestor step, the
//! framework label the SDK reads, webhook validation, support) are Trainer facts:
//! `catalog/trainer.yaml`, [`crate::trainer::facts`].

// --- Written on every generated runtime -------------------------------------------------------

/// Label key marking a generated runtime; with [`SOURCE`], what makes an object ours.
pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
pub const MANAGED_BY_VALUE: &str = "jax-runtimes";
/// Annotation naming the catalog object a runtime was generated from (`JaxRuntime/<name>`).
pub const SOURCE: &str = "jax-runtimes.dev/source";
/// On the `kustomization.yaml` of a folder `render -o` writes: the catalog the folder is rendered
/// from ([`crate::write::owned::Identity`]), so that a second catalog cannot prune the first.
pub const CATALOG: &str = "jax-runtimes.dev/catalog";
/// On a cluster folder's generated `kustomization.yaml`: the `JaxCluster` it is rendered for.
pub const CLUSTER: &str = "jax-runtimes.dev/cluster";
/// The entry's `spec.description`.
pub const DESCRIPTION: &str = "jax-runtimes.dev/description";
/// Summary of the accelerator, e.g. `tpu v5e 4x4 (4 hosts x 4 chips, ct5lp-hightpu-4t)`.
pub const ACCELERATOR: &str = "jax-runtimes.dev/accelerator";
/// The Trainer release the runtime targets.
pub const TRAINER_VERSION: &str = "jax-runtimes.dev/trainer-version";
/// GPU runtimes: the machine types the runtime assumed (comma-separated), where the platform lists any.
pub const MACHINE_TYPES: &str = "jax-runtimes.dev/machine-types";
/// Multi-node GPU runtimes: the fabric wired in (`gpudirect-tcpxo`, `efa`, ...) or `none`. A
/// hand-written runtime annotated `none` is not warned about an unused fabric.
pub const INTERCONNECT: &str = "jax-runtimes.dev/interconnect";
/// The value of [`INTERCONNECT`] for a runtime without a fabric.
pub const INTERCONNECT_NONE: &str = "none";
/// Runtimes with `spec.capacity`: the capacity they select, e.g. `autopilot,
/// computeClass=tpu-multihost-v5-8` ([`crate::capacity::annotation`]). `validate` takes a runtime
/// whose annotation names `autopilot` for GKE Autopilot (a hand-written runtime may carry it too).
pub const CAPACITY: &str = "jax-runtimes.dev/capacity";

/// The annotations the generator sets (the description only for a runtime with one, the machine
/// types and interconnect for GPU runtimes, the capacity for runtimes with one).
pub const GENERATOR_ANNOTATIONS: [&str; 7] = [SOURCE, ACCELERATOR, TRAINER_VERSION, DESCRIPTION, MACHINE_TYPES, INTERCONNECT, CAPACITY];

// --- Written on runtimes a JaxRuntimeQueue serves ----------------------------------------------

/// The ClusterQueue whose quota the runtime's TrainJobs use: `validate` checks the runtime's
/// gang against it (a hand-written runtime may carry it too).
pub const CLUSTER_QUEUE: &str = "jax-runtimes.dev/cluster-queue";
/// The LocalQueue TrainJobs of the runtime name with `kueue.x-k8s.io/queue-name`.
pub const LOCAL_QUEUE: &str = "jax-runtimes.dev/local-queue";

// --- What a TrainJob's pods carry (for `preview`) ----------------------------------------------

/// Job controller (k8s.io/api `batch/v1/types.go`): the completion index of an Indexed Job's pod,
/// an annotation and (feature gate `PodIndexLabel`, on by default since Kubernetes 1.28) a label.
pub const JOB_COMPLETION_INDEX: &str = "batch.kubernetes.io/job-completion-index";
/// Job controller: the Job's name on its pods, and the older key it also writes.
pub const JOB_NAME: &str = "batch.kubernetes.io/job-name";
pub const LEGACY_JOB_NAME: &str = "job-name";
/// JobSet v0.12.0 (`api/jobset/v1alpha2/jobset_types.go`, `pkg/constants`): labels and
/// annotations on every Job and pod of a JobSet.
pub const JOBSET_NAME: &str = "jobset.sigs.k8s.io/jobset-name";
pub const JOBSET_REPLICATED_JOB_NAME: &str = "jobset.sigs.k8s.io/replicatedjob-name";
pub const JOBSET_REPLICATED_JOB_REPLICAS: &str = "jobset.sigs.k8s.io/replicatedjob-replicas";
pub const JOBSET_JOB_INDEX: &str = "jobset.sigs.k8s.io/job-index";
pub const JOBSET_GLOBAL_REPLICAS: &str = "jobset.sigs.k8s.io/global-replicas";
pub const JOBSET_JOB_GLOBAL_INDEX: &str = "jobset.sigs.k8s.io/job-global-index";
pub const JOBSET_GROUP_NAME: &str = "jobset.sigs.k8s.io/group-name";
pub const JOBSET_GROUP_REPLICAS: &str = "jobset.sigs.k8s.io/group-replicas";
pub const JOBSET_JOB_GROUP_INDEX: &str = "jobset.sigs.k8s.io/job-group-index";
pub const JOBSET_RESTART_ATTEMPT: &str = "jobset.sigs.k8s.io/restart-attempt";
/// JobSet exclusive placement: copied onto pods, whose webhook then adds pod (anti-)affinity.
pub const JOBSET_EXCLUSIVE_TOPOLOGY: &str = "alpha.jobset.sigs.k8s.io/exclusive-topology";
/// Trainer's scheduler plugins: the coscheduling pod-group label (scheduler-plugins
/// `PodGroupLabel`) and the Volcano group annotation, both set to the TrainJob's name.
pub const POD_GROUP_LABEL: &str = "scheduling.x-k8s.io/pod-group";
pub const VOLCANO_GROUP_ANNOTATION: &str = "scheduling.k8s.io/group-name";
/// Annotation choosing the node-selector strategy for exclusive placement (nodes labelled beforehand).
pub const JOBSET_NODE_SELECTOR_STRATEGY: &str = "alpha.jobset.sigs.k8s.io/node-selector";
/// Label on every pod of a JobSet's Job: a hash of the Job's namespace and name.
pub const JOBSET_JOB_KEY: &str = "jobset.sigs.k8s.io/job-key";
/// Label the JobSet pod webhook sets to the pod's priority; exclusive placement holds within one.
pub const JOBSET_PRIORITY: &str = "jobset.sigs.k8s.io/priority";

// --- kpt and kustomize (kustomize `kyaml/kio/kioutil/kioutil.go`) ------------------------------

/// `"true"`: a client-side object, never applied.
pub const LOCAL_CONFIG: &str = "config.kubernetes.io/local-config";
/// The item's file, relative to the package.
pub const PATH: &str = "internal.config.kubernetes.io/path";
/// The item's document index in its file.
pub const INDEX: &str = "internal.config.kubernetes.io/index";
/// Deprecated twins of [`PATH`] and [`INDEX`] that kpt and kustomize still send and read.
pub const LEGACY_PATH: &str = "config.kubernetes.io/path";
pub const LEGACY_INDEX: &str = "config.kubernetes.io/index";

/// Annotation prefixes owned by orchestrators (kpt, kustomize): kept on items as they are, never
/// handed to the pipeline, never copied from a catalog object onto a runtime.
const ORCHESTRATOR_PREFIXES: [&str; 4] =
    ["internal.config.kubernetes.io/", "config.kubernetes.io/", "config.k8s.io/", "kustomize.config.k8s.io/"];

/// True for annotation keys that belong to kpt or kustomize (paths, ids, `local-config`,
/// `config.kubernetes.io/function`).
pub fn is_orchestrator_annotation(key: &str) -> bool {
    ORCHESTRATOR_PREFIXES.iter().any(|p| key.starts_with(p))
}

// --- Written by kubectl ---------------------------------------------------------------------------

/// Where plain `kubectl apply` keeps the object it applied (k8s.io/api `core/v1`
/// `annotation_key_constants.go` `LastAppliedConfigAnnotation`).
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orchestrator_annotations_are_recognised_and_ours_are_not() {
        for k in [LOCAL_CONFIG, PATH, INDEX, LEGACY_PATH, LEGACY_INDEX, "config.k8s.io/id", "kustomize.config.k8s.io/id"] {
            assert!(is_orchestrator_annotation(k), "{k}");
        }
        for k in [SOURCE, DESCRIPTION, MANAGED_BY, "team", "config.kubernetes.io.example/x"] {
            assert!(!is_orchestrator_annotation(k), "{k}");
        }
    }
}
