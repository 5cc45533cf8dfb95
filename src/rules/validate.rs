//! Rules of the validator: structure (the embedded release CRDs or `--crd`), CEL, the Trainer webhook, what the
//! Kubeflow SDK, the JAX plugin and JobSet need, and accelerator consistency.

use super::rule::define_rules;

define_rules! {
    SCHEMA_UNKNOWN_FIELD = "schema/unknown-field", Error, Schema,
        "A field the Trainer, JobSet or Pod API does not have (a typo such as `nodeSelectr`). `kubectl apply` refuses the object: its default `--validate=strict` asks for the API server's strict field validation, which fails on every field the schema would prune (`unknown field \"spec...\"`). Only with `--validate=false` (or `ignore`) does the API server drop the field silently, so the setting never takes effect. A subtree marked `x-kubernetes-preserve-unknown-fields` keeps any field.",
        "Fix the spelling or move the field to where the API defines it; `kubectl explain` shows the valid fields.";
    SCHEMA_TYPE = "schema/type", Error, Schema,
        "A value of the wrong JSON type (a list where an object belongs, a string where an integer belongs).",
        "Write the value with the type the field expects.";
    SCHEMA_REQUIRED = "schema/required", Error, Schema,
        "A required field is missing (for example a container `name`, a replicated job `template`).",
        "Add the field.";
    SCHEMA_ENUM = "schema/enum", Error, Schema,
        "A value outside the field's allowed set.",
        "Use one of the values the message lists.";
    SCHEMA_CONSTRAINT = "schema/constraint", Error, Schema,
        "A value breaks a bound of the field: minimum, maximum, length, number of items or properties, uniqueness.",
        "Bring the value within the bound the message names.";
    SCHEMA_FORMAT = "schema/format", Error, Schema,
        "A string that does not have the field's format or pattern (a date-time, a name). A quantity is `k8s/quantity`'s.",
        "Write the value in the format the message names.";
    SCHEMA_NULL_DROPPED = "schema/null-dropped", Warning, Schema,
        "`null` on a field that is not nullable: the API server drops the field, so it is as if it were not there.",
        "Remove the field, or give it a value.";
    SCHEMA_DUPLICATE_KEY = "schema/duplicate-key", Error, Schema,
        "Two items of an `x-kubernetes-list-type: map` list share their key (two `dependsOn` items on one replicated job, two volume claim templates of one name), or a `set` list repeats an item. The API server rejects it. Lists Kubernetes' own rules cover (env, containers, volumes, ports) say it as `k8s/duplicate-key`, which names the item.",
        "Give each item a unique key, or merge the duplicates.";
    CRD_UNKNOWN_FIELD = "crd/unknown-field", Error, Crd,
        "A field the CRD's schema does not have and does not preserve (no `x-kubernetes-preserve-unknown-fields` above it; `type: object` without properties, such as Trainer's `mlPolicy.jax`, takes no field at all): `kubectl apply` refuses the object with its default `--validate=strict` (\"unknown field\"); with `--validate=false` the API server prunes it silently.",
        "Fix the spelling or move the field to where the CRD defines it.";
    CRD_TYPE = "crd/type", Error, Crd,
        "A value of the wrong type for the CRD's schema (including `x-kubernetes-int-or-string` fields that get neither an integer nor a string).",
        "Write the value with the type the schema expects.";
    CRD_REQUIRED = "crd/required", Error, Crd,
        "A field the CRD's schema requires is missing.",
        "Add the field.";
    CRD_ENUM = "crd/enum", Error, Crd,
        "A value outside the CRD's `enum`.",
        "Use one of the values the message lists.";
    CRD_CONSTRAINT = "crd/constraint", Error, Crd,
        "A value breaks a bound of the CRD's schema: minimum, maximum, length, items, properties, uniqueness.",
        "Bring the value within the bound the message names.";
    CRD_FORMAT = "crd/format", Error, Crd,
        "A string that does not match the CRD's `pattern` or `format` (for example a resource quantity).",
        "Write the value in the format the message names.";
    CRD_NULL_DROPPED = "crd/null-dropped", Warning, Crd,
        "`null` on a field the CRD does not mark `nullable`: the API server drops the field.",
        "Remove the field, or give it a value.";
    CRD_DUPLICATE_KEY = "crd/duplicate-key", Error, Crd,
        "Two items of an `x-kubernetes-list-type: map` list share their key (for example two replicated jobs with the same name), or a `set` list repeats an item. The API server rejects it.",
        "Give each item a unique key, or merge the duplicates.";
    CRD_NOT_COVERED = "crd/not-covered", Warning, Crd,
        "CRD files were given but none defines this object's apiVersion and kind; it was checked against the typed model instead.",
        "Pass the CRD that defines the kind (`trainer.kubeflow.org_clustertrainingruntimes.yaml` or `..._trainingruntimes.yaml`).";
    CRD_UNUSABLE = "crd/unusable", Error, Crd,
        "A `--crd` file (or a CRD in a KRM package) cannot be used: unreadable, not a CustomResourceDefinition, or a schema that does not compile.",
        "Pass the CRD YAML exactly as the cluster has it (`kubectl get crd NAME -o yaml`).";
    CEL_RULE = "cel/rule", Error, Cel,
        "A CEL rule (`x-kubernetes-validations`) of the CRD evaluates to false; the API server would reject the object with the rule's message.",
        "Change the object so the rule holds; the message is the CRD's own.";
    CEL_UNEVALUATED = "cel/unevaluated", Warning, Cel,
        "A CEL rule of the CRD could not be evaluated client-side (a function this validator lacks, or an evaluation error). The API server still evaluates it.",
        "Check the rule by hand or with a server-side dry run (`kubectl apply --dry-run=server`).";
    CEL_ONE_ML_POLICY = "cel/one-ml-policy", Error, Cel,
        "More than one ML policy (`torch`, `mpi`, `jax`, `xgboost`, `flux`) is set under `spec.mlPolicy`; the Trainer CRD allows only one.",
        "Keep the one policy that matches the framework (`jax: {}` for JAX) and remove the others.";
    CEL_NUM_PROC_PER_NODE = "cel/num-proc-per-node", Error, Cel,
        "`spec.mlPolicy.flux.numProcPerNode` is below 1.",
        "Set it to 1 or more.";
    CEL_ENV_INJECTION_NODE = "cel/env-injection-node", Error, Cel,
        "`spec.mlPolicy.torch.envInjection.targets[].containerNames` names the `node` container, which always gets the `PET_*` variables.",
        "Remove `node` from the list.";
    CEL_STARTUP_DEPENDS_ON = "cel/startup-depends-on", Error, Cel,
        "`startupPolicy.startupPolicyOrder: InOrder` together with `dependsOn` on a replicated job; the JobSet API makes them mutually exclusive.",
        "Use either `startupPolicyOrder: InOrder` or `dependsOn`, not both.";
    CEL_CLAIM_NAMESPACE = "cel/claim-namespace", Error, Cel,
        "A `volumeClaimPolicies[].templates[]` item sets `metadata.namespace`; the claims always live in the TrainJob's namespace.",
        "Remove `metadata.namespace` from the template.";
    ADMISSION_REPLICAS = "admission/replicas", Error, Admission,
        "A replicated job labelled `trainer.kubeflow.org/trainjob-ancestor-step` has `replicas` other than 1; the Trainer webhook rejects it (\"always must be 1\").",
        "Remove `replicas` or set it to 1; scale with `spec.mlPolicy.numNodes` instead.";
    ADMISSION_DECODE = "admission/decode", Error, Admission,
        "The object passes its CRD's schema, so the API server alone would store it, but Trainer's Go types cannot read it: an integer past the range of an `int32` field (`numNodes`, `numProcPerNode`, `replicas`, `parallelism`), which the schema's `format: int32` does not bound. Trainer's admission webhook cannot decode it and refuses the object; with the webhook off, Trainer's controller cannot read it.",
        "Bring the value within the range the message names.";
    ADMISSION_ANCESTOR_CONTAINER = "admission/ancestor-container", Error, Admission,
        "A replicated job labelled `trainer.kubeflow.org/trainjob-ancestor-step` lacks the container its step needs: `node` for `trainer`, `dataset-initializer`, `model-initializer`.",
        "Rename the main container of that job to the name the step needs.";
    SDK_FRAMEWORK_LABEL = "sdk/framework-label", Warning, Ecosystem,
        "The runtime has no `trainer.kubeflow.org/framework` label: the Kubeflow SDK skips it in `list_runtimes()` and `get_runtime()` fails. kubectl and Trainer do not need it: a warning, an error with `validate --require sdk` (or `spec.require: [sdk]` of `JaxRuntimeValidation`).",
        "Add `metadata.labels: {trainer.kubeflow.org/framework: <framework>}`, the framework of the runtime's `mlPolicy` (the message names it).";
    SDK_TRAINER_CONTAINER = "sdk/trainer-container", Warning, Ecosystem,
        "The Kubeflow SDK cannot find the trainer: no replicated job carries the `trainer.kubeflow.org/trainjob-ancestor-step` label, or the first one has no container `node` with an image. kubectl needs neither: a warning, an error with `validate --require sdk` (or `spec.require: [sdk]` of `JaxRuntimeValidation`).",
        "Label the trainer replicated job `trainer.kubeflow.org/trainjob-ancestor-step: trainer` and give it a container named `node` with an `image`.";
    SDK_UNKNOWN_DEVICE = "sdk/unknown-device", Warning, Ecosystem,
        "The trainer container's `resources.limits` has no key the Kubeflow SDK reads (`nvidia.com/gpu`, `google.com/tpu`, `nvidia.com/mig-*`, `cpu`), or more than one MIG key: the SDK raises while listing the runtime. kubectl and Trainer do not read them: a warning, an error with `validate --require sdk` (or `spec.require: [sdk]` of `JaxRuntimeValidation`).",
        "Add a `cpu` limit (or the accelerator's limit) next to the other limits.";
    TRAINER_NODE_CONTAINER = "trainer/node-container", Warning, Ecosystem,
        "No replicated job is labelled `trainer.kubeflow.org/trainjob-ancestor-step: trainer` with a container `node` (or the webhook that would refuse a labelled job without one is disabled): Trainer v2.3 applies a TrainJob's `image`, `command`, `args`, `env`, `numNodes` and `resourcesPerNode` to nothing (kubeflow/trainer plugins/jobset/builder.go `Trainer`), so every TrainJob runs the runtime as written; TrainJobs that set them are errors (`trainjob/overrides-dropped`).",
        "Label the replicated job that trains `trainer.kubeflow.org/trainjob-ancestor-step: trainer` and name its training container `node`.";
    TRAINER_NUM_NODES = "trainer/num-nodes", Error, Ecosystem,
        "The runtime's `spec.mlPolicy.numNodes` is below 1. Trainer v2.3 reads it as the trainer job's pod count (kubeflow/trainer pkg/runtime/core/trainingruntime.go `ptr.Deref(mlPolicy.NumNodes, 1)`): with 0 every TrainJob that does not set its own `numNodes` gets a Job of 0 pods that completes at once without training; a negative count is refused by Kubernetes when JobSet creates the Job. The same 0 in a TrainJob is `trainjob/num-nodes`, in a catalog entry `catalog/num-nodes`.",
        "Set `spec.mlPolicy.numNodes` to 1 or more, or remove it (1).";
    JAX_PLUGIN_ENV = "jax/plugin-env", Warning, Ecosystem,
        "The runtime sets `JAX_NUM_PROCESSES`, `JAX_PROCESS_ID` or `JAX_COORDINATOR_ADDRESS` itself in its `node` container: for a TrainJob with `spec.trainer` the Trainer JAX plugin's value replaces it (kubeflow/trainer `pkg/runtime/framework/plugins/jax/jax.go` `EnforceMLPolicy` upserts by name), and a TrainJob without `spec.trainer` would run with the hand-written, wrong values. `render` (`catalog/jax-plugin-env`) and `preview` say the same.",
        "Remove the variable from the container's env.";
    JOBSET_SUBDOMAIN = "jobset/subdomain", Error, Ecosystem,
        "`spec.template.spec.network.subdomain` is set: the Trainer plugins build the coordinator address from the TrainJob name (`<trainjob>-node-0-0.<trainjob>`), which then does not resolve.",
        "Remove `network.subdomain`.";
    JOBSET_DNS_HOSTNAMES = "jobset/dns-hostnames", Error, Ecosystem,
        "`spec.template.spec.network.enableDNSHostnames: false`: pods get no DNS names, so the coordinator address does not resolve.",
        "Remove `enableDNSHostnames` or set it to true.";
    JOBSET_MANAGED_FIELD = "jobset/managed-field", Warning, Ecosystem,
        "`parallelism` or `completions` is set on the trainer job; the Trainer controller overwrites both with `numNodes`.",
        "Remove them and set `spec.mlPolicy.numNodes`.";
    TPU_MISSING_SELECTOR = "tpu/missing-selector", Error, Accelerators,
        "A container requests `google.com/tpu` but the pod does not select the TPU accelerator and topology node labels (`cloud.google.com/gke-tpu-accelerator`, `cloud.google.com/gke-tpu-topology`): GKE cannot place it on a slice.",
        "Add both labels to the pod's `nodeSelector` (or as required node affinity).";
    TPU_UNKNOWN_ACCELERATOR = "tpu/unknown-accelerator", Warning, Accelerators,
        "The TPU accelerator label value is not a generation jax-runtimes knows, so chips, topology and hosts are not checked.",
        "Use a known value (`jax-runtimes accelerators --kind tpu`), or ignore this if the generation is newer than jax-runtimes.";
    TPU_TOPOLOGY = "tpu/topology", Error, Accelerators,
        "The TPU topology label names a topology that the selected TPU generation does not have.",
        "Use one of the topologies the message suggests (`jax-runtimes accelerators --type GEN --all` lists all).";
    TPU_CHIPS_PER_HOST = "tpu/chips-per-host", Error, Accelerators,
        "The `google.com/tpu` count per pod is not the number of chips one host of that slice has; the pod stays Pending or leaves chips idle.",
        "Set the `google.com/tpu` limit to the chips per host the message gives.";
    TPU_HOSTS = "tpu/hosts", Error, Accelerators,
        "`spec.mlPolicy.numNodes` is not the number of hosts in the TPU slice (chips in the topology / chips per host); the slice never fills or pods stay Pending.",
        "Set `numNodes` to the host count the message gives.";
    TPU_POOL_SHAPE = "tpu/pool-shape", Warning, Accelerators,
        "The pod selects a TPU accelerator and topology that node pools of two machine types share (`catalog/accelerators/tpu.yaml`: v5e and v6e `2x4` is two 4-chip hosts, `-4t`, or one 8-chip host, `-8t`; GKE labels both `gke-tpu-topology: 2x4`), and nothing that tells the pools apart: no machine type (`node.kubernetes.io/instance-type`), no node pool, no ComputeClass. On the other pool the slice does not form: the pods of a two-host slice share one 8-chip host or take half of two one-host slices each, and a one-host pod waits for 8 chips the 4-chip hosts never have.",
        "Select the machine type of the pool the slice is for, `node.kubernetes.io/instance-type` (what `jax-runtimes render` writes), or the node pool (`cloud.google.com/gke-nodepool`).";
    TPU_SLICE_HEALTH = "tpu/slice-health", Warning, Accelerators,
        "A pod asks for a dynamic TPU slice (`cloud.google.com/gke-tpu-slice-topology`) formed from partitions that carry a state label (TPU7x: `cloud.google.com/gke-tpu-partition-<topology>-state`), and does not select a usable state (`HEALTHY` or `DEGRADED`), or selects one slices are not formed from. The slice controller's webhook adds `In [HEALTHY, DEGRADED]` to the Jobs and JobSets it sees (xpk slice/internal/webhooks/defaults.go), but Kueue admits a TrainJob from the runtime's pod template before any JobSet exists, so its Topology Aware Scheduling can pick partitions in any state.",
        "Select `cloud.google.com/gke-tpu-partition-<topology>-state: HEALTHY` (what `jax-runtimes render` writes), or a required node affinity `In [HEALTHY, DEGRADED]`.";
    TPU_SLICE_GKE_VERSION = "tpu/slice-gke-version", Info, Accelerators,
        "A pod asks for a TPU7x dynamic slice: superslices need GKE 1.35.2-gke.1842000 or later, subslices 1.36.0-gke.3712000 or later, in the Rapid channel, with the slice controller enabled (`--enable-slice-controller`) and All Capacity mode reservations. The message names the version the slice needs (`dynamicSlicing` in catalog/accelerators/tpu.yaml). A note, not a warning: `validate` does not know the cluster's version, and every such runtime needs it; `render` does not repeat it for the runtimes it generates.",
        "Check the cluster's version (`gcloud container clusters describe`) before using the runtime.";
    TPU_WEBHOOK_ENV = "tpu/webhook-env", Warning, Accelerators,
        "A container of a TPU pod (runtime or TrainJob env) sets `TPU_WORKER_ID` or `TPU_WORKER_HOSTNAMES`, which GKE's TPU webhook injects into every pod of a multi-host slice (Indexed Job, a subdomain, parallelism > 1, a `google.com/tpu` request) from the pod's index and its peers' hostnames: a hand-set value fights the webhook and is wrong on every pod but one.",
        "Remove the variable; `jax-runtimes preview` shows the values GKE gives each pod.";
    TPU_WEBHOOK_SINGLE_HOST = "tpu/webhook-single-host", Warning, Accelerators,
        "A container of a single-host TPU pod refers to `$(TPU_WORKER_ID)` or `$(TPU_WORKER_HOSTNAMES)` in its command, args or env: GKE's TPU webhook sets them only in multi-host slices, so they are empty here.",
        "Do not rely on them on one host (the worker is 0, its hostname the pod's own), or use a multi-host topology.";
    GPU_COUNT = "gpu/count", Error, Accelerators,
        "The GPU count per pod is above what one node of the selected GPU model or machine type has; the pod stays Pending.",
        "Lower the GPU limit to the machine's GPU count, or select a bigger machine.";
    ACCELERATOR_MISSING_SELECTOR = "accelerator/missing-selector", Warning, Accelerators,
        "A container requests GPUs but the pod selects no GPU model or machine type: it may land on any GPU node.",
        "Add a node selector for the GPU model (GKE `cloud.google.com/gke-accelerator`, `node.kubernetes.io/instance-type`, or `nvidia.com/gpu.product`).";
    ACCELERATOR_MISSING_TOLERATION = "accelerator/missing-toleration", Warning, Accelerators,
        "A container requests an accelerator but the pod does not tolerate the taint accelerator nodes carry (`google.com/tpu`, `nvidia.com/gpu`, `amd.com/gpu`), and its node labels say no platform: unless the cluster adds the toleration, the pod stays Pending. GKE does (its API server runs the ExtendedResourceToleration admission plugin, which adds it to a pod that requests the resource): a pod that selects GKE node labels is not warned, its pool taints are `taint/*`'s.",
        "Add `tolerations: [{key: <resource>, operator: Exists, effect: NoSchedule}]`.";
    TAINT_UNTOLERATED = "taint/untolerated", Error, Accelerators,
        "The pod selects nodes that always carry a taint it does not tolerate (`catalog/capacity.yaml` and `catalog/accelerators/nodes.yaml` say which: an AKS Spot pool's `kubernetes.azure.com/scalesetpriority=spot`, a GKE ComputeClass's `cloud.google.com/compute-class=NAME`): the scheduler never puts it there, whatever the cluster autoscales, so it stays Pending.",
        "Add the toleration the message gives to the pod template (or to the catalog entry's `spec.tolerations`).";
    TAINT_UNTOLERATED_SOME_POOLS = "taint/untolerated-some-pools", Warning, Accelerators,
        "The pod selects nodes of which some carry a taint it does not tolerate: GKE Spot nodes that node auto-provisioning or Autopilot create carry `cloud.google.com/gke-spot=true:NoSchedule` (a Spot pool made by hand only if given it); some accelerator pools carry their accelerator's taint (AKS `sku=gpu`). On such nodes the pod stays Pending.",
        "Add the toleration the message gives; it does no harm on nodes without the taint.";
}
