//! Rules for Kueue objects and for queues against the runtimes and TrainJobs they serve
//! (`validate`, the KRM validator, and `render` on the objects it generates). Each restates a
//! check of Kueue v0.19.2 (its webhooks, its CRDs' CEL rules, its scheduler), with the moment it
//! would otherwise fail and the upstream file and function.

use super::rule::define_rules;

define_rules! {
    sourced;
    KUEUE_UNREADABLE = "kueue/unreadable", Error, Kueue,
        "A Kueue object does not read as its kind: its `apiVersion` is one Kueue v0.19.2 does not serve (it serves v1beta1 and v1beta2), or a field the schema takes does not read into Kueue's types. The API server rejects it. (A field of the wrong type is the embedded CRD schema's `schema/type`.)",
        "Use an apiVersion the message names, or fix the field it names.",
        fails KueueApply, source "kueue v0.19.2 config/components/crd/bases/kueue.x-k8s.io_*.yaml (spec.versions, openAPIV3Schema)";
    KUEUE_FLAVOR_NODE_LABELS = "kueue/flavor-node-labels", Error, Kueue,
        "A ResourceFlavor's `nodeLabels` has an invalid label key or value, or more than 8 labels.",
        "Use valid label keys and values, at most 8 of them.",
        fails KueueApply, source "kueue v0.19.2 pkg/webhooks/resourceflavor_webhook.go ValidateResourceFlavor (ValidateLabels); CRD resourceflavors spec.nodeLabels maxProperties";
    KUEUE_FLAVOR_TAINTS = "kueue/flavor-taints", Error, Kueue,
        "A ResourceFlavor's `nodeTaints` has an invalid key or value, an effect other than NoSchedule, PreferNoSchedule or NoExecute, two taints with the same key and effect, or more than 8 taints.",
        "Fix the taint the message names; keep one taint per key and effect.",
        fails KueueApply, source "kueue v0.19.2 pkg/webhooks/resourceflavor_webhook.go validateNodeTaints; CRD resourceflavors CEL on spec.nodeTaints";
    KUEUE_FLAVOR_TOLERATIONS = "kueue/flavor-tolerations", Error, Kueue,
        "A ResourceFlavor's `tolerations` break a rule of tolerations (key, operator, value, effect, tolerationSeconds), or there are more than 8.",
        "Fix the toleration the message names.",
        fails KueueApply, source "kueue v0.19.2 pkg/webhooks/workload_webhook.go validateTolerations; CRD resourceflavors CEL on spec.tolerations";
    KUEUE_FLAVOR_TOPOLOGY = "kueue/flavor-topology", Error, Kueue,
        "A ResourceFlavor sets `topologyName` without any `nodeLabels`.",
        "Give the flavor the node labels of its nodes, or remove `topologyName`.",
        fails KueueApply, source "kueue v0.19.2 CRD resourceflavors CEL on spec (at least one nodeLabel is required when topology is set)";
    KUEUE_RESOURCE_NAME = "kueue/resource-name", Error, Kueue,
        "A ClusterQueue covers a resource whose name is not a valid qualified name.",
        "Name the resource as pods request it (`nvidia.com/gpu`, `cpu`, `memory`).",
        fails KueueApply, source "kueue v0.19.2 pkg/webhooks/common.go validateResourceName";
    KUEUE_DUPLICATE_RESOURCE = "kueue/duplicate-resource", Error, Kueue,
        "A ClusterQueue covers the same resource twice (in one resource group or in two).",
        "Cover each resource in exactly one resource group, once.",
        fails KueueApply, source "kueue v0.19.2 pkg/webhooks/clusterqueue_webhook.go validateResourceGroups";
    KUEUE_DUPLICATE_FLAVOR = "kueue/duplicate-flavor", Error, Kueue,
        "A ClusterQueue lists the same flavor twice (in one resource group or in two).",
        "List each flavor in one resource group, once.",
        fails KueueApply, source "kueue v0.19.2 pkg/webhooks/clusterqueue_webhook.go validateResourceGroups";
    KUEUE_FLAVOR_RESOURCES = "kueue/flavor-resources", Error, Kueue,
        "A flavor of a resource group does not list the group's `coveredResources` one for one, in the same order: a different count, or a resource name at a position where coveredResources has another.",
        "List the flavor's resources exactly as coveredResources lists them, in that order.",
        fails KueueApply, source "kueue v0.19.2 pkg/webhooks/clusterqueue_webhook.go validateFlavorQuotas; CRD clusterqueues CEL on spec.resourceGroups[] (flavors must have the same number of resources as the coveredResources)";
    KUEUE_QUOTA = "kueue/quota", Error, Kueue,
        "A `nominalQuota`, `borrowingLimit` or `lendingLimit` is negative or not a quantity, a `lendingLimit` is above its `nominalQuota`, or a limit is set on a ClusterQueue without a cohort.",
        "Use non-negative quantities, a lendingLimit at most the nominalQuota, and limits only with `cohortName`.",
        fails KueueApply, source "kueue v0.19.2 pkg/webhooks/clusterqueue_webhook.go validateFlavorQuotas, validateResourceQuantity, validateLimit, validateLendingLimit; CRD clusterqueues CEL on spec (borrowingLimit must be nil when cohort is empty)";
    KUEUE_QUEUE_SIZE = "kueue/queue-size", Error, Kueue,
        "A ClusterQueue is larger than Kueue takes: more than 16 resource groups, 64 covered resources or 64 flavors in a group, 256 flavors or covered resources in all, or 512 flavor-resource combinations in a group.",
        "Split the queue: serve fewer runtime shapes per JaxRuntimeQueue (`spec.runtimes`).",
        fails KueueApply, source "kueue v0.19.2 pkg/webhooks/clusterqueue_webhook.go validateTotalFlavors, validateTotalCoveredResources, validateFlavorResourceCombinations; CRD clusterqueues maxItems";
    KUEUE_QUEUE_POLICY = "kueue/queue-policy", Error, Kueue,
        "A ClusterQueue's queueing strategy, preemption, flavor fungibility or stop policy has a value Kueue does not know, or an inconsistent combination: `reclaimWithinCohort: Never` with `borrowWithinCohort.policy` other than Never; a fungibility `preference` unless both `whenCanBorrow` and `whenCanPreempt` are TryNextFlavor.",
        "Use the values the message lists.",
        fails KueueApply, source "kueue v0.19.2 pkg/webhooks/clusterqueue_webhook.go validatePreemption, validateFlavorFungibility; CRD clusterqueues enums";
    KUEUE_NAMESPACE_SELECTOR = "kueue/namespace-selector", Error, Kueue,
        "A ClusterQueue's `namespaceSelector` is not a valid label selector.",
        "Fix the selector; `{}` selects every namespace.",
        fails KueueApply, source "kueue v0.19.2 pkg/webhooks/clusterqueue_webhook.go validateClusterQueueSpec (ValidateLabelSelector)";
    KUEUE_NO_NAMESPACES = "kueue/no-namespaces", Warning, Kueue,
        "A ClusterQueue has no `namespaceSelector`: Kueue reads a missing selector as one that matches no namespace, so no LocalQueue can use it.",
        "Set `namespaceSelector: {}` (every namespace) or a selector of the namespaces that may use it.",
        fails Suspended, source "kueue v0.19.2 apis/kueue/v1beta2/clusterqueue_types.go ClusterQueueSpec.NamespaceSelector (nil matches nothing)";
    KUEUE_ADMISSION_CHECK_FLAVORS = "kueue/admission-check-flavors", Error, Kueue,
        "An `admissionChecksStrategy` entry names in `onFlavors` a flavor the ClusterQueue does not have.",
        "Name flavors of the queue's resource groups.",
        fails KueueApply, source "kueue v0.19.2 pkg/webhooks/clusterqueue_webhook.go validateAdmissionCheckOnFlavorsWithOld";
    KUEUE_LOCAL_QUEUE = "kueue/local-queue", Error, Kueue,
        "A LocalQueue has no `spec.clusterQueue`, or one that is not a valid name, or has no namespace.",
        "Point the LocalQueue at a ClusterQueue by name, in the namespace of the TrainJobs.",
        fails KueueApply, source "kueue v0.19.2 CRD localqueues spec.clusterQueue (pattern); apis/kueue/v1beta2/localqueue_types.go";
    KUEUE_TOPOLOGY_LEVELS = "kueue/topology-levels", Error, Kueue,
        "A Topology has no levels or more than 16, a level whose node label is not a valid label key, the same level twice, or `kubernetes.io/hostname` above the lowest level.",
        "List 1 to 16 distinct node labels, highest first, `kubernetes.io/hostname` only last.",
        fails KueueApply, source "kueue v0.19.2 CRD topologies spec.levels (minItems, maxItems, pattern, CEL: must be unique; hostname only at the lowest level)";
    KUEUE_PRIORITY_CLASS = "kueue/priority-class", Error, Kueue,
        "A WorkloadPriorityClass has no `value`.",
        "Set `value` (an int32: higher is admitted first).",
        fails KueueApply, source "kueue v0.19.2 CRD workloadpriorityclasses (required: value)";
    KUEUE_TAS_TOPOLOGY = "kueue/tas-topology", Error, Kueue,
        "A pod template of the runtime has more than one of `kueue.x-k8s.io/podset-required-topology`, `podset-preferred-topology` and `podset-unconstrained-topology`, a topology level that is not a valid label key, or an unconstrained value that is not a boolean.",
        "Keep one topology annotation per pod template, with a node label as its value (`true`/`false` for unconstrained).",
        fails TrainJobCreate, source "kueue v0.19.2 pkg/controller/jobframework/tas_validation.go ValidateTASPodSetRequest, validateTASUnconstrained (called by pkg/controller/jobs/trainjob/trainjob_webhook.go validateTopologyRequest)";
    KUEUE_TAS_SLICE = "kueue/tas-slice", Error, Kueue,
        "`kueue.x-k8s.io/podset-slice-required-topology` without `podset-slice-size` or the reverse, or a slice size that is not a number of at least 1.",
        "Set both slice annotations, the size a whole number of pods of at least 1.",
        fails TrainJobCreate, source "kueue v0.19.2 pkg/controller/jobframework/tas_validation.go ValidateTASPodSetRequest, validateSliceSizeAnnotation";
    KUEUE_TAS_SLICE_SIZE = "kueue/tas-slice-size", Error, Kueue,
        "`kueue.x-k8s.io/podset-slice-size` (or the first layer's size of `podset-slice-required-topology-constraints`) is larger than the pod count of its replicated job.",
        "Use a slice size of at most the job's pods (numNodes for the trainer job).",
        fails TrainJobCreate, source "kueue v0.19.2 pkg/controller/jobframework/tas_validation.go ValidateSliceSizeAnnotationUpperBound";
    KUEUE_TAS_GROUP = "kueue/tas-group", Error, Kueue,
        "`kueue.x-k8s.io/podset-group-name` is a number, is set with slice annotations, or without a required or preferred topology.",
        "Name the group with letters, keep it apart from slices, and give the pod template a required or preferred topology.",
        fails TrainJobCreate, source "kueue v0.19.2 pkg/controller/jobframework/tas_validation.go ValidateTASPodSetRequest, validatePodSetGroupNameAnnotation";
    KUEUE_TAS_CONSTRAINTS = "kueue/tas-constraints", Error, Kueue,
        "`kueue.x-k8s.io/podset-slice-required-topology-constraints` is set with the two-level slice annotations or a group name, is not a JSON list of `{topology, size}`, has no layer or more than 3, a layer with an invalid label, a size below 1, a repeated topology, or a size that does not divide its parent's.",
        "Write 1 to 3 layers, coarsest first, each size dividing the one above.",
        fails TrainJobCreate, source "kueue v0.19.2 pkg/controller/jobframework/tas_validation.go validateSliceRequiredTopologyConstraintsAnnotation";
    KUEUE_QUEUE_NAME = "kueue/queue-name", Error, Kueue,
        "A TrainJob's `kueue.x-k8s.io/queue-name` label is not a valid object name, or its `kueue.x-k8s.io/max-exec-time-seconds` label is not a whole number above 0.",
        "Name an existing LocalQueue; give the maximum run time in seconds.",
        fails TrainJobCreate, source "kueue v0.19.2 pkg/controller/jobframework/validation.go ValidateQueueName, validateCreateForMaxExecTime";
    KUEUE_UNKNOWN_LOCAL_QUEUE = "kueue/unknown-local-queue", Error, Kueue,
        "A TrainJob's `kueue.x-k8s.io/queue-name` names no LocalQueue in its namespace among the input's LocalQueues.",
        "Use one of the LocalQueues the message lists, or add the LocalQueue to the namespace.",
        fails Suspended, source "kueue v0.19.2 pkg/controller/jobframework/reconciler.go (the workload's LocalQueue must exist; its status reports LocalQueueDoesNotExist)";
    KUEUE_UNKNOWN_CLUSTER_QUEUE = "kueue/unknown-cluster-queue", Error, Kueue,
        "A LocalQueue names a ClusterQueue that is not among the input's ClusterQueues.",
        "Point it at one of the ClusterQueues the message lists.",
        fails Suspended, source "kueue v0.19.2 pkg/cache/queue/manager.go (a LocalQueue of a missing ClusterQueue holds its workloads: ClusterQueueDoesNotExist)";
    KUEUE_UNKNOWN_FLAVOR = "kueue/unknown-flavor", Error, Kueue,
        "A ClusterQueue names a ResourceFlavor that is not among the input's ResourceFlavors (or a flavor names a Topology that is not among its Topologies): Kueue keeps the queue inactive.",
        "Add the ResourceFlavor (or Topology), or remove it from the queue.",
        fails Suspended, source "kueue v0.19.2 pkg/cache/scheduler/clusterqueue.go updateQueueStatus (FlavorNotFound: the ClusterQueue is inactive); pkg/scheduler/flavorassigner/flavorassigner.go checkFlavorForPodSets";
    KUEUE_NO_MATCHING_FLAVOR = "kueue/no-matching-flavor", Error, Kueue,
        "No flavor of the runtime's ClusterQueue fits its pods: each flavor's `nodeLabels` contradict the pods' node selector or required affinity, or its `nodeTaints` are not tolerated.",
        "Add a ResourceFlavor with the node labels the runtime selects on to the queue (`jax-runtimes render` of a JaxRuntimeQueue generates it).",
        fails Suspended, source "kueue v0.19.2 pkg/scheduler/flavorassigner/flavorassigner.go checkFlavorForPodSets, flavorSelector";
    KUEUE_RESOURCE_NOT_COVERED = "kueue/resource-not-covered", Error, Kueue,
        "The runtime's pods request a resource the ClusterQueue does not cover (fabric resources such as `networking.gke.io.networks/...`, `vpc.amazonaws.com/efa`, `rdma/ib` included): \"resource ... unavailable in ClusterQueue\".",
        "Cover the resource in the queue's resource group, or exclude it in Kueue's configuration (`resources.excludeResourcePrefixes`).",
        fails Suspended, source "kueue v0.19.2 pkg/scheduler/flavorassigner/flavorassigner.go assignFlavors, findFlavorForPodSets";
    KUEUE_QUOTA_BELOW_GANG = "kueue/quota-below-gang", Error, Kueue,
        "One TrainJob of the runtime needs more of a resource than the ClusterQueue's flavors hold, borrowing included: Kueue admits a workload whole or not at all, so it is never admitted.",
        "Raise the nominal quota (or the borrowing limit in a cohort) to at least the gang the message gives, or serve a smaller runtime.",
        fails Suspended, source "kueue v0.19.2 pkg/scheduler/flavorassigner/flavorassigner.go fitsResourceQuota (insufficient quota ... > maximum capacity)";
}
