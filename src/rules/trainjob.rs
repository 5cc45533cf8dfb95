//! Rules for TrainJobs, checked against the runtimes they use with Kubeflow Trainer v2.2/v2.3
//! semantics (`validate` and the KRM validator; the merge itself is [`crate::trainjob`]).

use super::rule::define_rules;

define_rules! {
    TRAINJOB_NAME = "trainjob/name", Error, TrainJob,
        "`metadata.name` is missing (and no `metadata.generateName`), or not an RFC 1035 label of at most 63 characters (lowercase letters, digits and `-`, starting with a letter); the TrainJob CRD rejects it. With `generateName` the API server generates the name (the prefix cut to 58 characters, then 5 random ones) and checks that: the prefix must be a valid name prefix and make valid names.",
        "Rename the TrainJob (or change `generateName`): lowercase letters, digits and `-`, starting with a letter, ending with a letter or digit.",
        fails Apply, source "Kubeflow Trainer v2.3.0 `manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml`, the root's `x-kubernetes-validations`: `self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')`, `size(self.metadata.name) <= 63` (`pkg/apis/trainer/v1alpha1/trainjob_types.go`)";
    TRAINJOB_STORAGE_URI = "trainjob/storage-uri", Error, TrainJob,
        "`spec.initializer.dataset.storageUri` or `spec.initializer.model.storageUri` is neither empty nor a URI with a scheme (`hf:/my-org/data`, `my-org/data`); the TrainJob CRD's CEL rule rejects it.",
        "Write the URI with its scheme and `://`: `hf://my-org/data`, `s3://bucket/path`.",
        fails Apply, source "Kubeflow Trainer v2.3.0 `manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml`, `x-kubernetes-validations` of `storageUri`: `self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')`";
    TRAINJOB_NAME_LENGTH = "trainjob/name-length", Error, TrainJob,
        "The TrainJob's name makes a pod name longer than 63 characters: JobSet names pods `<name>-<job>-0-<index>-<5 characters>` and rejects the JobSet (\"JobSet name is too long\"), so Trainer never starts the job. The limit depends on the replicated jobs and on numNodes.",
        "Shorten the name to the length the message gives.";
    TRAINJOB_RUNTIME_REF = "trainjob/runtime-ref", Error, TrainJob,
        "`spec.runtimeRef` names no runtime among those given (a ClusterTrainingRuntime by default; a TrainingRuntime only in the TrainJob's namespace), or a kind or apiGroup Trainer does not know. The Trainer webhook rejects the TrainJob.",
        "Use one of the names the message lists, set `runtimeRef.kind` to the runtime's kind, or pass the runtimes with `--runtimes`.";
    TRAINJOB_RUNTIME_DEPRECATED = "trainjob/runtime-deprecated", Warning, TrainJob,
        "The ClusterTrainingRuntime is labelled `trainer.kubeflow.org/support: deprecated`; Trainer warns and will remove it.",
        "Move the TrainJob to a supported runtime.";
    TRAINJOB_NUM_NODES = "trainjob/num-nodes", Error, TrainJob,
        "`spec.trainer.numNodes` is below 1: Trainer v2.2/v2.3 accept it, the Job then gets 0 pods (and finishes at once) or is rejected for a negative count.",
        "Set numNodes to 1 or more, or remove it to use the runtime's.";
    TRAINJOB_TPU_NUM_NODES = "trainjob/tpu-num-nodes", Error, TrainJob,
        "`spec.trainer.numNodes` on a TPU slice runtime is not the slice's host count: a partial slice is never scheduled, a larger one leaves pods Pending.",
        "Remove `numNodes` (the runtime's is the slice's), or pick a runtime for the slice size you want.";
    TRAINJOB_ACCELERATOR_COUNT = "trainjob/accelerator-count", Error, TrainJob,
        "`spec.trainer.resourcesPerNode` asks for an accelerator count the runtime's node shape lacks: TPU chips other than one host's, or more GPUs than the node has. The pods stay Pending.",
        "Remove the accelerator from `resourcesPerNode`, or set it to the count the message gives.";
    TRAINJOB_ACCELERATOR_DROPPED = "trainjob/accelerator-dropped", Error, TrainJob,
        "With Trainer's merge, the `node` container no longer requests the accelerator the runtime requests (v2.2 replaces the runtime's resources with `resourcesPerNode`; a zero count drops it in both): the pod lands on an accelerator node without using it, or on a node without one.",
        "Add the runtime's accelerator limit to `resourcesPerNode` (or remove the zero).";
    TRAINJOB_RESOURCES = "trainjob/resources", Error, TrainJob,
        "With Trainer's merge of `resourcesPerNode`, a request of the `node` container is above its limit, or an accelerator's request differs from its limit or has no limit (v2.3 merges per resource key, so a TrainJob that sets only the limit keeps the runtime's request, and one that sets only the request of a resource the runtime does not limit leaves it without a limit); Kubernetes rejects every pod.",
        "Set `requests` and `limits` of that resource together in `resourcesPerNode` (the same value for an accelerator), or raise the limit.";
    TRAINJOB_EMPTY_IMAGE = "trainjob/empty-image", Error, TrainJob,
        "`spec.trainer.image` is an empty string: Trainer replaces the `node` container's image whenever the field is set, and Kubernetes rejects the Job JobSet creates from it (`spec.template.spec.containers[0].image: Required value`), so no pod starts.",
        "Remove `image` to keep the runtime's, or name an image.";
    TRAINJOB_NODE_POD = "trainjob/node-pod", Error, TrainJob,
        "The TrainJob's overrides make the `node` pod break a runtime rule that the runtime alone passes, Kubernetes' own rules (`k8s/*`) included: a value in `resourcesPerNode`, `env`, `image` or a runtime patch that the Job or Pod admission refuses when this TrainJob starts (the message names the rule; the finding has that rule's severity).",
        "Fix the override the message names; the finding's help is the named rule's.";
    TRAINJOB_JAX_ENV = "trainjob/jax-env", Error, TrainJob,
        "`spec.trainer.env` sets `JAX_NUM_PROCESSES`, `JAX_PROCESS_ID` or `JAX_COORDINATOR_ADDRESS` to a value other than the JAX plugin's. Trainer upserts the TrainJob's env after the plugin's, so the TrainJob's value is what the pods get: every process with the same id, or a wrong count or address, and `jax.distributed.initialize()` hangs. kubeflow/trainer#3670 proposes to reject it.",
        "Remove the variable: the JAX plugin sets all three.";
    TRAINJOB_JAX_ENV_REDUNDANT = "trainjob/jax-env-redundant", Warning, TrainJob,
        "`spec.trainer.env` sets a JAX plugin variable to the value the plugin sets anyway; it works, but stops being right when numNodes or the name changes, and kubeflow/trainer#3670 proposes to reject it.",
        "Remove the variable: the JAX plugin sets it.";
    TRAINJOB_NO_TRAINER = "trainjob/no-trainer", Warning, TrainJob,
        "A TrainJob without `spec.trainer` on a multi-node JAX runtime: the JAX plugin injects its variables only when `spec.trainer` is set, so the processes do not know each other (outside TPU auto-detection `jax.distributed.initialize()` fails).",
        "Add `trainer: {}` (or the overrides you need) to the spec.";
    TRAINJOB_OVERRIDES_DROPPED = "trainjob/overrides-dropped", Error, TrainJob,
        "The TrainJob sets `spec.trainer` fields that Trainer applies to nothing for this runtime: `image`, `command`, `args`, `env` and `resourcesPerNode` go only to the container `node` of the replicated job labelled `trainer.kubeflow.org/trainjob-ancestor-step: trainer` (kubeflow/trainer plugins/jobset/builder.go `Trainer`, pkg/runtime/core/trainingruntime.go `newRuntimeInfo`; v2.3 merges `resourcesPerNode` only into a runtime with an `mlPolicy`), `numNodes` only to the job with that label (MPI: the job named `node`). Trainer accepts the TrainJob and silently runs the runtime's image, command and sizes instead.",
        "Use a runtime whose trainer job is labelled `trainer.kubeflow.org/trainjob-ancestor-step: trainer` and has a container `node`, or remove the fields the message names.";
    TRAINJOB_RUNTIME_UNCHECKED = "trainjob/runtime-unchecked", Warning, TrainJob,
        "No runtime was given at all (none in the input, no `--runtimes`): the TrainJob's own fields were checked, but not what its runtime makes of them (the merge, the pod, the node count).",
        "Pass the runtime: `--runtimes` with its file or folder (or the catalog), or put it in the same input.";
    TRAINJOB_PATCH_TARGET = "trainjob/patch-target", Error, TrainJob,
        "A `runtimePatches` entry names a replicated job, container or init container the runtime does not have. v2.2 skips an unknown job silently; v2.3 appends it (a job or container without an image, which JobSet and the pod reject).",
        "Use a name the runtime has (the message lists them).";
    TRAINJOB_PATCH_ENV = "trainjob/patch-env", Error, TrainJob,
        "A runtime patch sets `env` on the `node`, `dataset-initializer` or `model-initializer` container; the Trainer webhook rejects it (\"must not have envs for the ... containers\").",
        "Put the variables in `spec.trainer.env` (for `node`) or `spec.initializer.*.env`.";
    TRAINJOB_INITIALIZER = "trainjob/initializer", Error, TrainJob,
        "`spec.initializer.dataset` (or `.model`) is set, but the runtime (with the TrainJob's runtime patches) has no `dataset-initializer` (`model-initializer`) replicated job, no container of that name in it, or (Trainer v2.3) that container has no volumeMount named `initializer`; the Trainer webhook rejects the TrainJob (plugins/jobset/jobset.go `Validate`).",
        "Use a runtime with that initializer job (the container mounting the `initializer` volume), or remove `spec.initializer.dataset`/`.model` and fetch the data in the trainer.";
    TRAINJOB_PATCH_MANAGER = "trainjob/patch-manager", Error, TrainJob,
        "A `runtimePatches[].manager` is not a domain-prefixed path such as `example.com/my-controller`; the Trainer webhook rejects the TrainJob.",
        "Name the manager `<domain>/<name>`.";
}
