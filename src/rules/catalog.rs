//! Rules of the catalog: what `render`, `docs` and the KRM function report about catalog objects
//! (the kinds of [`crate::catalog::Kind`]). Nothing is written while any of them is an error.

use super::rule::define_rules;

define_rules! {
    CATALOG_NOT_AN_OBJECT = "catalog/not-an-object", Error, Catalog,
        "A document that is not a YAML mapping (a list or a scalar where an object belongs).",
        "Write each catalog object as a mapping with `apiVersion`, `kind`, `metadata` and `spec`.";
    CATALOG_API_VERSION = "catalog/api-version", Error, Catalog,
        "An object in the `jax-runtimes.dev` group (or a group one typo away from it) whose apiVersion is not `jax-runtimes.dev/v1alpha1`. It is an error, not ignored: a misspelt catalog object must never make the function prune the runtimes it generated.",
        "Write `apiVersion: jax-runtimes.dev/v1alpha1`.";
    CATALOG_UNKNOWN_KIND = "catalog/unknown-kind", Error, Catalog,
        "An object in the `jax-runtimes.dev` group whose kind is none of the group's (the finding's help lists them).",
        "Fix the kind; the message names the nearest one.";
    CATALOG_UNKNOWN_FIELD = "catalog/unknown-field", Error, Catalog,
        "A field the catalog kind does not have, at any depth: the catalog's own fields and those of the Kubernetes types inside it (`env`, `tolerations`, `resources`, selectors), e.g. `nodeSelectr` or `valu`. Every one is reported in one run, at its key, with the nearest field.",
        "Remove the field or fix its spelling; `jax-runtimes schema` lists every field.";
    CATALOG_MISSING_FIELD = "catalog/missing-field", Error, Catalog,
        "A required field of the catalog kind is missing (`metadata.name`, `spec.accelerator`, a GPU `model`).",
        "Add the field; `jax-runtimes schema` lists the required fields.";
    CATALOG_INVALID_VALUE = "catalog/invalid-value", Error, Catalog,
        "A value outside the field's accepted set (a platform other than those the accelerator data knows).",
        "Use one of the values the message lists.";
    CATALOG_WRONG_TYPE = "catalog/wrong-type", Error, Catalog,
        "A value of the wrong type: a list where a map belongs, a word where a number belongs, a YAML 1.1 boolean (`on`, `yes`) where a string belongs.",
        "Write the value with the type the field expects; quote strings that YAML 1.1 reads as booleans.";
    CATALOG_DUPLICATE_DEFAULTS = "catalog/duplicate-defaults", Error, Catalog,
        "More than one `JaxRuntimeDefaults` without a `spec.selector` in the same input (one may apply to every runtime; others select theirs).",
        "Merge them, or give all but one a `spec.selector`.";
    CATALOG_DUPLICATE_NAME = "catalog/duplicate-name", Error, Catalog,
        "Two entries (or matrix rows) generate the same ClusterTrainingRuntime, or the same TrainingRuntime in one namespace.",
        "Give every runtime a unique name.";
    CATALOG_INVALID_NAME = "catalog/invalid-name", Error, Catalog,
        "A runtime name that is not a DNS-1123 subdomain, or a namespace that is not a DNS-1123 label: the API server refuses the runtime.",
        "Use lowercase letters, digits, `-` (and `.` in names), starting and ending with a letter or digit.";
    CATALOG_TRAINER_VERSION = "catalog/trainer-version", Error, Catalog,
        "A Trainer release that is not exactly one jax-runtimes knows (`v2.2`, `v2.3`): one without the JAX policy (before v2.2), an unknown patch release (`v2.2.7`), or a known release in another spelling (`2.3`, `v2.3.0`).",
        "Set `spec.trainer` to v2.2 or v2.3.";
    CATALOG_ACCELERATOR_COUNT = "catalog/accelerator-count", Error, Catalog,
        "`spec.accelerator` sets none, or more than one, of `cpu`, `gpu`, `tpu`.",
        "Give exactly one; split a runtime for two kinds of node into two entries.";
    CATALOG_TPU_PLATFORM = "catalog/tpu-platform", Error, Catalog,
        "A TPU runtime on a platform other than GKE: TPU slices are scheduled by GKE.",
        "Set `spec.platform: gke` (the default for TPU runtimes).";
    CATALOG_TPU_MULTISLICE = "catalog/tpu-multislice", Error, Catalog,
        "More than one TPU slice: Trainer v2.3 runs exactly one replica of the `node` job (kubeflow/trainer#3408), so a multislice runtime cannot start.",
        "Use one slice until Trainer supports multislice JAX.";
    CATALOG_UNKNOWN_TPU = "catalog/unknown-tpu", Error, Catalog,
        "A TPU generation or accelerator type the accelerator data does not know, or a `type` that contradicts `acceleratorType`.",
        "Use a generation or accelerator type from `jax-runtimes accelerators --kind tpu`.";
    CATALOG_TPU_TOPOLOGY = "catalog/tpu-topology", Error, Catalog,
        "A topology the TPU generation does not have, or of the wrong dimension: each generation's slices are 2D (`AxB`) or 3D (`AxBxC`), as the message says and the TOPOLOGIES column of `jax-runtimes accelerators --kind tpu` shows.",
        "Use one of the nearest valid topologies the message lists.";
    CATALOG_TPU_CHIPS_PER_HOST = "catalog/tpu-chips-per-host", Error, Catalog,
        "A topology that two machine shapes can form with identical node labels (2x4 on v5e and v6e), without `chipsPerHost`, or a `chipsPerHost` no machine shape has.",
        "Set `chipsPerHost` to the chips per host of your node pool's machine type.";
    CATALOG_TPU_NUM_NODES = "catalog/tpu-num-nodes", Error, Catalog,
        "`numNodes` on a TPU runtime that differs from the slice's host count; a TPU slice is used whole.",
        "Remove `numNodes` (it is derived for TPU) or set it to the host count.";
    CATALOG_UNKNOWN_GPU = "catalog/unknown-gpu", Error, Catalog,
        "A GPU model the accelerator data does not know.",
        "Use a model from `jax-runtimes accelerators --kind gpu`.";
    CATALOG_GPU_VENDOR = "catalog/gpu-vendor", Error, Catalog,
        "A GPU `vendor` that is not the vendor of the model.",
        "Remove `vendor` (the model implies it) or fix it.";
    CATALOG_GPU_SHAPE = "catalog/gpu-shape", Error, Catalog,
        "A GPU model not offered on the platform, a machine type without that model, a count of 0, or more GPUs per node than any machine shape has.",
        "Pick a model, count and machine type from `jax-runtimes accelerators --kind gpu`.";
    CATALOG_NUM_NODES = "catalog/num-nodes", Error, Catalog,
        "`numNodes` below 1.",
        "Set `numNodes` to 1 or more.";
    CATALOG_ACCELERATOR_IN_RESOURCES = "catalog/accelerator-in-resources", Error, Catalog,
        "`spec.resources` names an accelerator resource (`google.com/tpu`, `nvidia.com/gpu`, `amd.com/gpu`) that the generator sets from `spec.accelerator`.",
        "Remove it from `spec.resources`; choose the accelerator and count under `spec.accelerator`.";
    CATALOG_MEMORY_LIMIT = "catalog/memory-limit", Warning, Catalog,
        "A `memory` limit on the `node` container: the JAX process is killed when it grows past it, and the Kubeflow SDK fails on limits that hold memory but no cpu or accelerator.",
        "Request memory under `spec.resources.requests` instead; keep a cpu limit beside a memory limit.";
    CATALOG_SDK_UNREADABLE_DEVICE = "catalog/sdk-unreadable-device", Error, Catalog,
        "A GPU whose resource the Kubeflow SDK cannot read (`amd.com/gpu`) without a `cpu` limit: `list_runtimes()` fails for every runtime of the cluster.",
        "Set `spec.resources.requests.cpu`; it becomes the cpu limit too.";
    CATALOG_CPU_LIMIT_OFF = "catalog/cpu-limit-off", Warning, Catalog,
        "A CPU runtime with `accelerator.cpu.limitFromRequest: false` and no `cpu` limit: the Kubeflow SDK reads the device from limits only, so `list_runtimes()` shows its device and count as `Unknown` (and with a memory limit alone it cannot read the runtime at all).",
        "Leave `limitFromRequest` unset (the `cpu` request becomes the limit), set `spec.resources.limits.cpu`, or accept `Unknown` in the SDK.";
    CATALOG_JAX_PLUGIN_ENV = "catalog/jax-plugin-env", Warning, Catalog,
        "The catalog sets `JAX_NUM_PROCESSES`, `JAX_PROCESS_ID` or `JAX_COORDINATOR_ADDRESS` (in `spec.env`, the defaults' or in `spec.podTemplate`), which Trainer's JAX plugin injects: for a TrainJob with `spec.trainer` the plugin's value replaces the catalog's (kubeflow/trainer `pkg/runtime/framework/plugins/jax/jax.go` `EnforceMLPolicy` upserts by name); a TrainJob without `spec.trainer` runs with the catalog's value in every pod, which can make `jax.distributed.initialize()` hang. `validate` (`jax/plugin-env`) and `preview` say the same.",
        "Remove it; the plugin sets all three for every TrainJob with `spec.trainer`.";
    CATALOG_POD_TEMPLATE_CONFLICT = "catalog/pod-template-conflict", Error, Catalog,
        "A `spec.podTemplate` value that contradicts one the generator sets (the accelerator's resources, the TPU or GPU node selectors, the image, the JAX and accelerator env, `/dev/shm`, the fabric), or that sets env GKE's TPU webhook (`TPU_WORKER_ID`, `TPU_WORKER_HOSTNAMES`) injects (env Trainer's JAX plugin injects is `catalog/jax-plugin-env`, wherever it is set). The fragment never overwrites a generated value silently: the message names both places.",
        "Remove the value from `spec.podTemplate`, or change the catalog field that generates it (`spec.accelerator`, `spec.image`, `spec.env`, ...).";
    CATALOG_INITIALIZER = "catalog/initializer", Error, Catalog,
        "`spec.initializers` that Trainer's initializers cannot run: no `dataset` or `model`, a `storageUri` whose scheme the initializer does not read (dataset: `hf://`, `s3://`, `cache://`; model: `hf://`, `s3://`), `STORAGE_URI` in `env`, a claim name that is not a Kubernetes name, or a claim per TrainJob that only one node can mount while several trainer pods mount it.",
        "Fix the field the message names; `docs/production.md` shows a dataset initializer.";
    CATALOG_STORAGE = "catalog/storage", Error, Catalog,
        "A `spec.storage` volume Kubernetes refuses or that says too little: a volume name that is not a DNS-1123 label (or is the generator's own, or another volume's), a PersistentVolumeClaim name that is not a Kubernetes name, a bucket name with a path, neither or both of `persistentVolumeClaim` and `gcs`, a sidecar resource the Cloud Storage FUSE driver has no setting for.",
        "Fix the field the message names.";
    CATALOG_STORAGE_MOUNT_PATH = "catalog/storage-mount-path", Error, Catalog,
        "A `spec.storage` mount path that is not absolute, collides with `/dev/shm` (the memory-backed shared memory the generator mounts) or another path the generator mounts (the initializers' `/workspace`), or that another volume uses: the kubelet refuses two mounts at one path.",
        "Mount the volume at its own absolute path (`/checkpoints`, `/data`).";
    CATALOG_STORAGE_GCS_OFF_GKE = "catalog/storage-gcs-off-gke", Error, Catalog,
        "A Cloud Storage bucket (`spec.storage[].gcs`) on a runtime for a platform other than GKE: the Cloud Storage FUSE CSI driver is a GKE add-on, so elsewhere the pod never starts (its volume's driver is not registered).",
        "Use a PersistentVolumeClaim of a driver the cluster has, or `spec.platform: gke`.";
    CATALOG_IMAGE = "catalog/image", Error, Catalog,
        "The runtime's image is empty.",
        "Set `spec.image`, or an image per accelerator kind in `JaxRuntimeDefaults.spec.images`.";
    CATALOG_INVALID_MATRIX = "catalog/invalid-matrix", Error, Catalog,
        "A `JaxRuntimeMatrix` whose variable is not a list, has no values, or that produces no runtime; or a variable whose values are lists or mappings written bare inside a longer string (`name: \"jax-{{ shape }}\"`, `topology: [[2x2, 4x4]]` read as `{{ topology }}` in a name): every row would get the value's text. A list or mapping is read by attribute (`{{ shape.topology }}`), through a filter, or as a whole value (`\"{{ env }}\"` alone keeps its type).",
        "Give every variable a list of values, or rows under `include`.";
    CATALOG_TEMPLATE = "catalog/template", Error, Catalog,
        "A template string of a `JaxRuntimeMatrix` that does not render: an undefined variable or attribute (as a whole value or inside a string), a syntax error, a value that cannot be used.",
        "Use only variables defined under `spec.matrix` or `spec.include`; `{{ x | default(none) }}` leaves a field unset.";
    CATALOG_MATRIX_VARIABLE = "catalog/matrix-variable", Error, Catalog,
        "An `exclude` key that is not a variable of `spec.matrix`, or an `include` key that is neither a matrix variable nor one the template uses: a typo that would exclude nothing, or add a value nothing reads.",
        "Fix the key; the message names the nearest variable.";
    CATALOG_MATRIX_EXCLUDE_UNUSED = "catalog/matrix-exclude-unused", Warning, Catalog,
        "An `exclude` entry that matches no combination of the matrix (a value that is not in the variable's list): it excludes nothing.",
        "Fix the value, or remove the entry.";
    CATALOG_MATRIX_LIMIT = "catalog/matrix-limit", Error, Catalog,
        "The matrices of one input would make more than 20,000 rows, or more than 64 MiB of template text, together; refused before anything is expanded.",
        "Render the catalog in parts, or make the matrix smaller.";
    CATALOG_DEFAULTS_OVERLAP = "catalog/defaults-overlap", Error, Catalog,
        "Two `JaxRuntimeDefaults` with a `spec.selector` both select the same runtime: which one wins would depend on file order.",
        "Make the selectors disjoint, or merge the two defaults.";
    CATALOG_DEFAULTS_UNUSED = "catalog/defaults-unused", Warning, Catalog,
        "A `JaxRuntimeDefaults` whose `spec.selector` selects no runtime of the input.",
        "Fix the selector, or remove the defaults.";
    CATALOG_GENERATOR_METADATA = "catalog/generator-metadata", Warning, Catalog,
        "A label or annotation the generator sets on every runtime (`app.kubernetes.io/managed-by`, `trainer.kubeflow.org/framework`, the `jax-runtimes.dev/*` annotations), set in a runtime or in defaults to another value: the generator's value replaces it.",
        "Remove it; the generator owns these keys (ownership, the SDK and prunes rely on them).";
    CATALOG_CAPACITY = "catalog/capacity", Error, Catalog,
        "A `spec.capacity` that cannot be rendered: a kind `catalog/capacity.yaml` does not know, a value of the wrong type (`spot: yes`, `computeClass: true`), a kind the runtime's platform does not offer (a ComputeClass on EKS), flex-start for a multi-host TPU slice, or a node selector the capacity decides (GKE rejects a pod that selects a ComputeClass and `node.kubernetes.io/instance-type`).",
        "Use a kind and platform of `catalog/capacity.yaml` (the message lists them); leave the selectors the capacity decides to it.";
    CATALOG_CAPACITY_CONFLICT = "catalog/capacity-conflict", Error, Catalog,
        "Two capacity kinds that no node is both of, or that the platform refuses together: Spot and a reservation, a ComputeClass and Spot VMs (GKE rejects the pods), Spot and on-demand.",
        "Keep one of them; the message says why they exclude each other (say Spot or a reservation in the ComputeClass's priorities).";
    CATALOG_QUEUE = "catalog/queue", Error, Catalog,
        "A `JaxRuntimeQueue` that cannot be generated: an unsupported `kueueApiVersion`, a name or namespace that is not a valid Kubernetes name, a queue that serves no runtime, a runtime two queues serve, two queues generating the same object differently, or more flavors than one resource group takes.",
        "Fix the field the message names; split a large catalog into several queues with `spec.runtimes`.";
    CATALOG_QUEUE_QUOTA = "catalog/queue-quota", Error, Catalog,
        "A quota of a `JaxRuntimeQueue` that does not name one shape (exactly one of `runtime` and `flavor`, of a runtime the queue serves) in one unit (exactly one of `slices`, `nodes`, `chips`), a unit the shape has no meaning for (slices of a GPU, chips of a CPU), or a `resources` entry the queue does not cover.",
        "Name a served runtime or a generated flavor, and give its quota in slices (TPU), nodes or chips.";
    CATALOG_QUEUE_TOPOLOGY = "catalog/queue-topology", Error, Catalog,
        "`topologyAwareScheduling` on a queue that serves a GPU runtime of a platform without known topology levels, with no `levels` given.",
        "List the Topology's node labels under `topologyAwareScheduling.levels`, broadest first, `kubernetes.io/hostname` last.";
    CATALOG_CLUSTER = "catalog/cluster", Error, Catalog,
        "A `JaxCluster` that cannot be rendered: a name that is not a DNS label (it names the cluster's folder), two clusters of one name, an unknown platform, a runtime or `JaxRuntimeQueue` it names that the catalog does not have, or an inventory file that cannot be read as a node list.",
        "Fix the field the message names; `jax-runtimes render` lists the catalog's runtimes.";
    CATALOG_CLUSTER_UNSERVED = "catalog/cluster-unserved", Warning, Catalog,
        "With `JaxCluster`s in the catalog, a runtime that no cluster serves: it is written to the shared folder, but no cluster folder lists it.",
        "Give a cluster the runtime's platform, or add the runtime to a cluster's `spec.runtimes.include`, or remove the runtime.";
    CATALOG_CLUSTER_DOES_NOT_FIT = "catalog/cluster-does-not-fit", Error, Catalog,
        "A runtime a `JaxCluster` serves that does not fit the cluster's inventory even with every node empty, as `jax-runtimes fit` finds: its pods would stay Pending there. The message gives fit's reason.",
        "Fix what the reason names (the runtime's selector, the cluster's node pools), narrow the cluster's `spec.runtimes`, or set `spec.inventory.autoscaling: true` if the cluster adds such nodes on demand.";
    CATALOG_CLUSTER_QUEUE_UNUSED = "catalog/cluster-queue-unused", Warning, Catalog,
        "A `JaxCluster` names a `JaxRuntimeQueue` in `spec.queues` that serves none of the runtimes the cluster serves: the cluster's folder gets the queue's Kueue objects, but no TrainJob of the cluster's runtimes is admitted through them.",
        "Name the queue that serves the cluster's runtimes, widen the queue's `spec.runtimes` (or the cluster's), or drop the queue from the cluster's `spec.queues`.";
    CATALOG_CLUSTER_SCALE_UP = "catalog/cluster-scale-up", Warning, Catalog,
        "A runtime an autoscaling `JaxCluster` serves that does not fit the nodes its inventory lists: it runs only once the cluster adds nodes. The message gives fit's reason.",
        "Check that the autoscaler (node auto-provisioning, Karpenter, a node pool with a minimum of 0) can add the nodes the reason names.";
    CATALOG_MATRIX_VARIABLE_UNUSED = "catalog/matrix-variable-unused", Error, Catalog,
        "A variable of `spec.matrix` that no template string uses: each of its values makes another copy of every runtime, with the same names. `exclude` or `include` written inside `spec.matrix` is such a variable (its entries are taken as values, the exclusion or row is lost); they belong beside it, as `spec.exclude` and `spec.include`.",
        "Use the variable in the template (`{{ name }}`), remove it, or move `exclude`/`include` up one level, beside `spec.matrix` (`spec.exclude`, `spec.include`).";
}
