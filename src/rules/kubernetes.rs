//! Rules that restate Kubernetes' own checks (the API server at apply; JobSet, the Job controller
//! and Pod admission when a TrainJob starts), each with the moment it would otherwise fail and its
//! upstream source. They run in `validate` (with or without `--crd`), in the KRM validator, and on
//! the catalog's own values in `render`.
//!
//! Sources, abbreviated in the rules: apimachinery = kubernetes/apimachinery v0.34.1 (Kubernetes
//! 1.34.1); core = kubernetes/kubernetes v1.34.1 `pkg/apis/core/validation/validation.go`;
//! helpers = kubernetes/kubernetes v1.34.1 `pkg/apis/core/helper/helpers.go`; batch =
//! kubernetes/kubernetes `pkg/apis/batch/validation/validation.go` (v1.32 or later, not pinned to
//! a tag); JobSet = kubernetes-sigs/jobset v0.12.0; Trainer = kubeflow/trainer v2.3.0.

use super::rule::define_rules;

define_rules! {
    sourced;
    K8S_NAME = "k8s/name", Error, Kubernetes,
        "`metadata.name` is missing (without a `metadata.generateName` for the API server to generate it from) or not a DNS-1123 subdomain (at most 253 lowercase letters, digits, `-` and `.`); or `metadata.generateName` is not a valid prefix of one.",
        "Use lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit.",
        fails Apply, source "apimachinery `pkg/api/validation/objectmeta.go` `ValidateObjectMetaAccessor`; apiextensions-apiserver v0.34.1 `pkg/registry/customresource/validator.go` `customResourceValidator.Validate` (`NameIsDNSSubdomain`); apimachinery `pkg/util/validation/validation.go` `IsDNS1123Subdomain`";
    K8S_NAMESPACE = "k8s/namespace", Error, Kubernetes,
        "A TrainingRuntime's `metadata.namespace` is not a DNS-1123 label (at most 63 lowercase letters, digits and `-`).",
        "Name an existing namespace; namespace names are lowercase letters, digits and `-`.",
        fails Apply, source "apimachinery `pkg/api/validation/objectmeta.go` `ValidateObjectMetaAccessor`, `pkg/api/validation/generic.go` `ValidateNamespaceName`";
    K8S_LABEL_KEY = "k8s/label-key", Error, Kubernetes,
        "A label key (also a `nodeSelector` key) that is not a qualified name: a name of at most 63 letters, digits, `-`, `_`, `.` with an optional lowercase DNS prefix and one `/`.",
        "Write `name` or `prefix.example.com/name`; only one `/`, no spaces.",
        fails ApplyOrStart, source "apimachinery `pkg/apis/meta/v1/validation/validation.go` `ValidateLabels`, `ValidateLabelName`; `pkg/util/validation/validation.go` `IsQualifiedName`";
    K8S_LABEL_VALUE = "k8s/label-value", Error, Kubernetes,
        "A label value (also a `nodeSelector` value) that Kubernetes refuses: more than 63 characters, or characters other than letters, digits, `-`, `_`, `.`, or not starting and ending with a letter or digit. The empty value is legal.",
        "Shorten the value and use only letters, digits, `-`, `_` and `.`; put free text in an annotation.",
        fails ApplyOrStart, source "apimachinery `pkg/apis/meta/v1/validation/validation.go` `ValidateLabels`; `pkg/util/validation/validation.go` `IsValidLabelValue`";
    K8S_ANNOTATION_KEY = "k8s/annotation-key", Error, Kubernetes,
        "An annotation key that is not a qualified name once lower-cased (a space, a second `/`, an empty name). Annotation values may be any text.",
        "Write `name` or `prefix.example.com/name`; only one `/`, no spaces.",
        fails ApplyOrStart, source "apimachinery `pkg/api/validation/objectmeta.go` `ValidateAnnotations`";
    K8S_ANNOTATIONS_SIZE = "k8s/annotations-size", Error, Kubernetes,
        "The annotations of one object (keys and values together, in bytes) are over 256 KiB, for example a very long `description` (it becomes an annotation).",
        "Shorten the annotations; keep long documentation outside the runtime and link to it.",
        fails ApplyOrStart, source "apimachinery `pkg/api/validation/objectmeta.go` `ValidateAnnotationsSize` (`TotalAnnotationSizeLimitB`)";
    K8S_ANNOTATIONS_SIZE_CLIENT_SIDE_APPLY = "k8s/annotations-size-client-side-apply", Warning, Kubernetes,
        "The annotations fit in 256 KiB, but plain `kubectl apply` (client-side) copies the whole object into the annotation `kubectl.kubernetes.io/last-applied-configuration`, which takes them past it (a `description` over about 128 KiB doubles): that route is refused at apply; `kubectl apply --server-side`, `kubectl create` and kpt live apply are not.",
        "Apply with `kubectl apply --server-side` (or `kubectl create`, kpt live apply), or shorten the annotations; keep long documentation outside the runtime and link to it.",
        fails Apply, source "kubectl `pkg/util/apply.go` `GetModifiedConfiguration` (`kubectl.kubernetes.io/last-applied-configuration`, `LastAppliedConfigAnnotation`); apimachinery `pkg/api/validation/objectmeta.go` `ValidateAnnotationsSize` (`TotalAnnotationSizeLimitB`)";
    K8S_FINALIZER = "k8s/finalizer", Error, Kubernetes,
        "A finalizer that is not a qualified name.",
        "Write finalizers as `example.com/name`.",
        fails ApplyOrStart, source "apimachinery `pkg/api/validation/objectmeta.go` `ValidateFinalizers`";
    K8S_QUANTITY = "k8s/quantity", Error, Kubernetes,
        "A resource amount that is not a Kubernetes quantity (`eight`, `32GB`, `1K`, `4 cores`): a number with an optional suffix `m`, `k`, `M`, `G`, `T`, `P`, `E`, `Ki`, `Mi`, `Gi`, `Ti`, `Pi`, `Ei` or an exponent such as `e3`. Refused at apply, except a fractional exponent (`1e1.5`): the CRD's pattern takes it, and the API server refuses it in the Job that JobSet creates when a TrainJob starts.",
        "Write the amount as Kubernetes does: `8`, `500m`, `1.5`, `32Gi`, `129M`, `1e11`.",
        fails Apply, source "apimachinery `pkg/api/resource/quantity.go` `ParseQuantity`, `parseQuantityString`, `suffix.go` `newSuffixer`; the quantity `pattern` of the Trainer v2.3.0 CRD";
    K8S_QUANTITY_NEGATIVE = "k8s/quantity-negative", Error, Kubernetes,
        "A negative resource amount (a request, limit or `emptyDir.sizeLimit` below zero).",
        "Use zero or more.",
        fails Start, source "core `ValidateResourceQuantityValue` (`ValidateNonnegativeQuantity`), `validateVolumeSource`";
    K8S_RESOURCE_NAME = "k8s/resource-name", Error, Kubernetes,
        "A container resource name Kubernetes does not take: an unprefixed name other than `cpu`, `memory`, `ephemeral-storage`, `hugepages-<size>` (`gpu`, `requests.cpu`), or a prefixed one that is not a valid extended resource name.",
        "Use `cpu`, `memory`, `ephemeral-storage`, `hugepages-2Mi`, or the device plugin's full name (`nvidia.com/gpu`, `google.com/tpu`).",
        fails Start, source "core `validateContainerResourceName`, `validateResourceName`; helpers `IsStandardContainerResourceName`, `IsExtendedResourceName`";
    K8S_RESOURCE_INTEGER = "k8s/resource-integer", Error, Kubernetes,
        "A fractional amount of an extended resource (`google.com/tpu: 500m`, `nvidia.com/gpu: 0.5`): devices are whole numbers.",
        "Request whole devices: `1`, `4`, `8`.",
        fails Start, source "core `ValidateResourceQuantityValue`; helpers `IsIntegerResourceName`";
    K8S_REQUEST_ABOVE_LIMIT = "k8s/request-above-limit", Error, Kubernetes,
        "A `cpu`, `memory` or `ephemeral-storage` request above its limit.",
        "Lower the request to the limit or raise the limit.",
        fails Start, source "core `validateResourceRequirements`; helpers `IsOvercommitAllowed`";
    RESOURCES_REQUESTS_LIMITS = "resources/requests-limits", Error, Kubernetes,
        "An extended resource (`google.com/tpu`, `nvidia.com/gpu`, ...) or hugepages with a request different from its limit, or a request without a limit; these cannot be overcommitted.",
        "Set only the limit, or the same value as request and limit.",
        fails Start, source "core `validateResourceRequirements` (\"must be equal to ... limit\", \"Limit must be set for non overcommitable resources\"); helpers `IsOvercommitAllowed`";
    K8S_HUGEPAGES = "k8s/hugepages", Error, Kubernetes,
        "Hugepages in a container that requests neither cpu nor memory, or an amount that is not a whole number of pages (`hugepages-2Mi: 3Mi`).",
        "Add a cpu or memory request next to hugepages, and request a multiple of the page size.",
        fails Start, source "core `validateResourceRequirements` (\"HugePages require cpu or memory\"), `validateResourceQuantityHugePageValue`; helpers `IsHugePageResourceValueDivisible`";
    K8S_DUPLICATE_KEY = "k8s/duplicate-key", Error, Kubernetes,
        "Two items of a list Kubernetes keys by a field share the key: env names, container or init container names, volume names, mount paths, ports (`containerPort` and `protocol`), replicated job names.",
        "Give each item a unique key, or merge the duplicates.",
        fails Apply, source "apiextensions-apiserver v0.34.1 `pkg/apiserver/schema/listtype/validation.go` `validateListMap`, with the `x-kubernetes-list-map-keys` of the Trainer v2.3.0 CRD";
    K8S_CONTAINER_NAME = "k8s/container-name", Error, Kubernetes,
        "A container or init container name that is not a DNS-1123 label (`Node`, `node_1`, `trainer.main`), or an init container with the name of a container.",
        "Use lowercase letters, digits and `-`, and a name no other container of the pod has.",
        fails Start, source "core `validateContainerCommon` (`ValidateDNS1123Label`), `validateInitContainers`";
    K8S_IMAGE = "k8s/image", Error, Kubernetes,
        "A container without an image, or an image with spaces before or after it (the Job is accepted, every Pod is refused).",
        "Set `image` to the image reference without surrounding whitespace.",
        fails Start, source "core `validateContainerCommon` (image required), `validateContainerOnlyForPod` (\"must not have leading or trailing whitespace\")";
    K8S_IMAGE_REFERENCE = "k8s/image-reference", Error, Kubernetes,
        "An image reference the kubelet cannot parse: whitespace inside (`my image:1`), an upper-case repository (`ghcr.io/MyOrg/app`), a tag that is not 1-128 of `[A-Za-z0-9_.-]` starting with a letter, digit or `_`, a digest that is not `sha256:` and 64 lowercase hex digits (or sha384, sha512), a bare 64-hex image ID. The API server and the Job controller accept it; the container stays in `InvalidImageName` and the pod never runs.",
        "Write the image as `[registry/]repository[:tag][@digest]` with a lowercase repository (`us-docker.pkg.dev/my-project/train/llama:1`).",
        fails PodStart, source "distribution/reference 0965666a `normalize.go` `ParseNormalizedNamed`, `reference.go` `Parse`, `regexp.go` `referencePat`; kubelet `pkg/kubelet/images/image_manager.go` `EnsureImageExists` via `pkg/util/parsers/parsers.go` `ParseImageName`";
    K8S_PORT = "k8s/port", Error, Kubernetes,
        "A `containerPort` outside 1..65535, a `hostPort` outside 0..65535, or a `protocol` other than `TCP`, `UDP`, `SCTP`.",
        "Use a port number from 1 to 65535 and `TCP`, `UDP` or `SCTP`.",
        fails Start, source "core `validateContainerPorts`; apimachinery `IsValidPortNum`";
    K8S_PORT_NAME = "k8s/port-name", Error, Kubernetes,
        "A port name that is not an IANA service name (at most 15 lowercase letters, digits and `-`, with a letter, no `--`), or one used twice in a container.",
        "Shorten the name to 15 characters or fewer (`coordinator` rather than `coordinator-port`) and make it unique.",
        fails Start, source "core `validateContainerPorts`; apimachinery `pkg/util/validation/validation.go` `IsValidPortName`";
    K8S_ENV_NAME = "k8s/env-name", Error, Kubernetes,
        "An env variable name (or `envFrom` prefix) that Kubernetes 1.34 refuses: empty, with `=`, or with a character that is not printable ASCII.",
        "Use printable ASCII without `=`; `[A-Za-z_][A-Za-z0-9_]*` works everywhere.",
        fails Start, source "core `ValidateEnv`, `ValidateEnvFrom`; apimachinery `IsRelaxedEnvVarName` (`RelaxedEnvironmentVariableValidation`: on by default since 1.32, GA in 1.34)";
    K8S_ENV_NAME_PORTABLE = "k8s/env-name-portable", Warning, Kubernetes,
        "An env variable name legal since Kubernetes 1.32 but refused by older clusters (it starts with a digit or has a space, `:` or another character outside `[-._a-zA-Z0-9]`).",
        "Use `[A-Za-z_][A-Za-z0-9_]*` if the runtime may be applied to a cluster older than 1.32.",
        fails Start, source "apimachinery `IsEnvVarName` (the rule while `RelaxedEnvironmentVariableValidation` is off, before 1.32)";
    K8S_ENV_VALUE_FROM = "k8s/env-value-from", Error, Kubernetes,
        "`valueFrom` with no source or more than one (`fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef`), or together with a non-empty `value`; or a ConfigMap or Secret reference whose name or key is invalid.",
        "Give `valueFrom` exactly one source and no `value`; ConfigMap and Secret names are DNS subdomains, keys `[-._a-zA-Z0-9]+`.",
        fails Start, source "core `validateEnvVarValueFrom`, `validateConfigMapKeySelector`, `validateSecretKeySelector`; apimachinery `IsConfigMapKey`";
    K8S_ENV_FIELD_PATH = "k8s/env-field-path", Error, Kubernetes,
        "A `valueFrom.fieldRef` the downward API does not give env: a `fieldPath` other than `metadata.name`, `metadata.namespace`, `metadata.uid`, `metadata.labels['<key>']`, `metadata.annotations['<key>']`, `spec.nodeName`, `spec.serviceAccountName`, `status.hostIP(s)`, `status.podIP(s)`, or an `apiVersion` other than `v1`.",
        "Use one of the supported field paths; the Job completion index is `metadata.annotations['batch.kubernetes.io/job-completion-index']`.",
        fails Start, source "core `validateObjectFieldSelector`, `validEnvDownwardAPIFieldPathExpressions`; kubernetes v1.34.1 `pkg/apis/core/pods/helpers.go` `ConvertDownwardAPIFieldLabel`";
    K8S_ENV_RESOURCE_FIELD = "k8s/env-resource-field", Error, Kubernetes,
        "A `valueFrom.resourceFieldRef` with a `resource` other than `limits.*`/`requests.*` of cpu, memory, ephemeral-storage or hugepages, or a `divisor` Kubernetes does not take (`1m` or `1` for cpu; `1`, `1k`, `1M`, ..., `1Ki`, `1Mi`, ... for memory).",
        "Use a supported resource and divisor.",
        fails Start, source "core `validateContainerResourceFieldSelector`, `validateContainerResourceDivisor`";
    K8S_VOLUME = "k8s/volume", Error, Kubernetes,
        "A volume whose name is not a DNS-1123 label, or that names more than one source (`emptyDir` and `hostPath` together).",
        "Name volumes with lowercase letters, digits and `-`, and give each exactly one source.",
        fails Start, source "core `ValidateVolumes`, `validateVolumeSource`";
    K8S_VOLUME_MOUNT = "k8s/volume-mount", Error, Kubernetes,
        "A volume mount that names no volume of the pod (nor a JobSet `volumeClaimPolicies` template), or whose `subPath`/`subPathExpr` is absolute or has `..`, or sets both.",
        "Mount a volume the pod defines, with a relative sub-path.",
        fails Start, source "core `ValidateVolumeMounts`, `validateLocalDescendingPath`; JobSet `pkg/controllers/volume_claim_policy.go` `addVolumes`";
    K8S_SECURITY_CONTEXT = "k8s/security-context", Error, Kubernetes,
        "A security context Kubernetes refuses: `runAsUser`, `runAsGroup`, `fsGroup` or a supplemental group outside 0..2147483647, an unknown `fsGroupChangePolicy`, or `privileged: true` with `allowPrivilegeEscalation: false`.",
        "Use ids from 0 to 2147483647 and drop the contradicting setting.",
        fails Start, source "core `validatePodSpecSecurityContext`, `ValidateSecurityContext`, `validFSGroupChangePolicies`; apimachinery `IsValidUserID`, `IsValidGroupID`";
    K8S_TOLERATION = "k8s/toleration", Error, Kubernetes,
        "A toleration Kubernetes refuses: an `operator` other than `Equal`/`Exists`, an `effect` other than `NoSchedule`/`PreferNoSchedule`/`NoExecute`, `Exists` with a value, an empty key without `Exists`, a key that is not a qualified name, an `Equal` value that is not a label value, or `tolerationSeconds` without `NoExecute`.",
        "Write `{key: google.com/tpu, operator: Exists, effect: NoSchedule}`; `{operator: Exists}` alone tolerates every taint.",
        fails Start, source "core `ValidateTolerations`, `validateTaintEffect`";
    K8S_NODE_AFFINITY = "k8s/node-affinity", Error, Kubernetes,
        "A node affinity Kubernetes refuses: no `nodeSelectorTerms`, an unknown operator, the wrong number of values for the operator (`In`/`NotIn` at least one, `Exists`/`DoesNotExist` none, `Gt`/`Lt` exactly one), an invalid key or value, or a weight outside 1..100.",
        "Fix the expression as the message says.",
        fails Start, source "core `ValidateNodeSelector`, `ValidateNodeSelectorTerm`, `ValidateNodeSelectorRequirement`, `ValidateNodeFieldSelectorRequirement`, `ValidatePreferredSchedulingTerms`";
    K8S_POD_AFFINITY = "k8s/pod-affinity", Error, Kubernetes,
        "A pod (anti-)affinity term Kubernetes refuses: no or an invalid `topologyKey`, a label selector with an unknown operator or the wrong number of values, a namespace that is not a DNS label, or a weight outside 1..100.",
        "Fix the term as the message says.",
        fails Start, source "core `validatePodAffinityTerm`, `validateWeightedPodAffinityTerms`; apimachinery `pkg/apis/meta/v1/validation/validation.go` `ValidateLabelSelectorRequirement`";
    K8S_SERVICE_ACCOUNT = "k8s/service-account-name", Error, Kubernetes,
        "A `serviceAccountName` that is not a DNS-1123 subdomain (`my_sa`, upper case).",
        "Use the service account's name: lowercase letters, digits, `-` and `.`.",
        fails Start, source "core `ValidatePodSpec`; apimachinery `pkg/api/validation/generic.go` `ValidateServiceAccountName`";
    K8S_RESTART_POLICY = "k8s/restart-policy", Error, Kubernetes,
        "A restart policy a Job refuses: the pod's `restartPolicy: Always` (Jobs take `OnFailure` or `Never`; JobSet sets `OnFailure` when it is empty), anything but `Never` with a `podFailurePolicy`, a `restartPolicy` on a regular container, or an init container `restartPolicy` other than `Always` (which makes a native sidecar).",
        "Leave the pod's `restartPolicy` empty or set `OnFailure`/`Never`; only init containers take `restartPolicy: Always`.",
        fails Start, source "batch `validateJobSpec`; core `validateRestartPolicy`, `validateContainers`, `validateInitContainerRestartPolicy`; JobSet `pkg/webhooks/jobset_webhook.go` `Default`";
    K8S_INIT_CONTAINER = "k8s/init-container", Error, Kubernetes,
        "An init container that is not a sidecar (`restartPolicy: Always`) with `lifecycle`, `livenessProbe`, `readinessProbe` or `startupProbe`.",
        "Remove the probe or lifecycle hook, or make the init container a native sidecar with `restartPolicy: Always`.",
        fails Start, source "core `validateInitContainers`";
    K8S_ENUM = "k8s/enum", Error, Kubernetes,
        "A value outside the set Kubernetes takes for the field (values are case-sensitive): `imagePullPolicy`, `terminationMessagePolicy`, `dnsPolicy`, `preemptionPolicy`, a Job's `completionMode` or `podReplacementPolicy`.",
        "Use one of the values the message lists, spelt exactly.",
        fails Start, source "core `validatePullPolicy`, `validateContainerCommon`, `validateDNSPolicy`, `ValidatePreemptionPolicy`; batch `validateJobSpec`, `validatePodReplacementPolicy`";
    K8S_POD_FIELD = "k8s/pod-field", Error, Kubernetes,
        "A pod field Kubernetes refuses: `activeDeadlineSeconds` outside 1..2147483647, a `hostname` or `subdomain` that is not a DNS label, a `priorityClassName`, `runtimeClassName` or `nodeName` that is not a DNS subdomain, or `dnsPolicy: None` without nameservers.",
        "Write a value of the form the message gives (the finding's help names one where it can).",
        fails Start, source "core `ValidatePodSpec`, `validatePodDNSConfig`";
    K8S_JOB_FIELD = "k8s/job-field", Error, Kubernetes,
        "A Job field Kubernetes refuses once Trainer and JobSet have filled it in: a negative `backoffLimit`, `activeDeadlineSeconds`, `ttlSecondsAfterFinished`, `backoffLimitPerIndex` or `maxFailedIndexes`, `maxFailedIndexes` without `backoffLimitPerIndex`, or more than 100000 pods in a job (Trainer sets `parallelism` and `completions` to `numNodes`, JobSet makes the Job Indexed).",
        "Use values of zero or more, and at most 100000 nodes.",
        fails Start, source "batch `validateJobSpec` (`maxParallelismForIndexedJob`); Trainer `pkg/runtime/framework/plugins/jobset/jobset.go` `SyncParallelCount`; JobSet `pkg/webhooks/jobset_webhook.go` `Default`";
    JOBSET_REPLICATED_JOB_NAME = "jobset/replicated-job-name", Error, Kubernetes,
        "A replicated job whose name (or `groupName`) cannot be part of the DNS-1035 names JobSet builds (`<trainjob>-<job>-<index>`), or is so long that no TrainJob name leaves its pod names within 63 characters.",
        "Use a short name of lowercase letters, digits and `-` (`node`, `initializer`).",
        fails Start, source "JobSet `pkg/webhooks/jobset_webhook.go` `ValidateCreate`, `pkg/util/placement/placement.go` `GenJobName`, `GenPodName`";
    JOBSET_TRAINJOB_NAME_LENGTH = "jobset/trainjob-name-length", Info, Kubernetes,
        "How long a TrainJob name this runtime allows: JobSet names pods `<trainjob>-<job>-<job index>-<pod index>-<5 characters>` and refuses the JobSet when the longest is over 63 characters, so a TrainJob whose name is longer fails at start.",
        "Keep TrainJob names within the length the message gives (more nodes, more digits, less room).",
        fails Start, source "JobSet `pkg/webhooks/jobset_webhook.go` `ValidateCreate` (\"pod names generated for this JobSet will exceed 63 characters\"), `pkg/util/placement/placement.go` `GenPodName`";
}
