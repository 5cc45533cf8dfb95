//! Rules of `doctor`: why one TrainJob of a cluster (read live, or from a `snapshot` file) is not
//! running, in the user's terms, each with what to change.

use super::rule::define_rules;

define_rules! {
    DOCTOR_NOT_FOUND = "doctor/not-found", Error, Cluster,
        "`doctor NAMESPACE/NAME`: the cluster (or the snapshot) has no TrainJob of that namespace and name. The message names the TrainJobs it has in that namespace, and the nearest spelling.",
        "Check the name and namespace (`kubectl get trainjobs -A`); a snapshot taken without the right to list TrainJobs has none (`live/left-out`).";
    DOCTOR_RUNTIME_MISSING = "doctor/runtime-missing", Error, Cluster,
        "The TrainJob's `spec.runtimeRef` names a ClusterTrainingRuntime (or a TrainingRuntime of its namespace) the cluster does not have: Trainer creates no JobSet and no pods for it. The message names the runtimes of that kind it has, and the nearest spelling.",
        "Apply the runtime (`jax-runtimes render` writes the catalog's), or point `spec.runtimeRef.name` at one the cluster has (the TrainJob's runtimeRef is immutable: delete and recreate it).",
        fails Run, source "kubeflow/trainer v2.3.0 pkg/runtime/core/clustertrainingruntime.go `NewObjects` (`errorNotFoundSpecifiedClusterTrainingRuntime`, \"not found ClusterTrainingRuntime specified in TrainJob\"): no JobSet is built without the runtime";
    DOCTOR_UNSCHEDULABLE = "doctor/unschedulable", Error, Cluster,
        "Pods of the TrainJob are Pending: kube-scheduler found no node for them (condition `PodScheduled` False, reason `Unschedulable`). The message quotes the scheduler and, with the snapshot's nodes, what fit's model of the same gang on the same nodes names: the pool, label, taint or resource that is short.",
        "Change what the message names: the node selector or toleration of the runtime, the resources per node, or the node pool (more nodes, another machine type); `jax-runtimes fit` on the same nodes checks the change.",
        fails Run, source "kubernetes v1.33 staging/src/k8s.io/api/core/v1/types.go `PodScheduled`, `PodReasonUnschedulable` (set by pkg/scheduler/schedule_one.go `handleSchedulingFailure`)";
    DOCTOR_IMAGE_PULL = "doctor/image-pull", Error, Cluster,
        "The `node` container of a pod of the TrainJob cannot start: the kubelet cannot pull its image (waiting reason `ErrImagePull`, `ImagePullBackOff` or `InvalidImageName`). The message names the image and quotes the kubelet.",
        "Fix the image reference (`spec.trainer.image`, or the runtime's `node` container image), or give the pods a pull secret or a node service account that may read the registry.",
        fails Run, source "kubernetes v1.33 pkg/kubelet/images/types.go `ErrImagePullBackOff`, `ErrImagePull`, `ErrInvalidImageName` (the container's `state.waiting.reason`)";
    DOCTOR_CRASH_LOOP = "doctor/crash-loop", Error, Cluster,
        "The `node` container of a pod of the TrainJob keeps exiting and the kubelet waits before restarting it (waiting reason `CrashLoopBackOff`). The message gives the restart count and the last exit (reason, exit code) of the container.",
        "Read the container's log (`kubectl logs -n NAMESPACE POD -c node --previous`): the program fails; an exit reason `OOMKilled` asks for more memory per node.",
        fails Run, source "kubernetes v1.33 pkg/kubelet/container/sync_result.go `ErrCrashLoopBackOff`; `lastState.terminated` of the container's status (staging/src/k8s.io/api/core/v1/types.go `ContainerStateTerminated`)";
    DOCTOR_FAILED = "doctor/failed", Error, Cluster,
        "The TrainJob has finished and failed (condition `Failed` True): the message gives the condition's reason and message (Trainer copies the JobSet's, or says `DeadlineExceeded`, `TrainingRuntimeNotSupported`) and the last exit of the `node` containers of its failed pods.",
        "Fix what the reason names, then create the TrainJob again (a finished TrainJob does not restart); for a program error read the pod log (`kubectl logs -n NAMESPACE POD -c node`).",
        fails Run, source "kubeflow/trainer v2.3.0 pkg/apis/trainer/v1alpha1/trainjob_types.go `TrainJobFailed`, `TrainJobDeadlineExceededReason`, `TrainJobRuntimeNotSupportedReason`; kubernetes-sigs/jobset v0.12.0 api/jobset/v1alpha2/jobset_types.go `JobSetFailed`";
    DOCTOR_SUSPENDED = "doctor/suspended", Error, Cluster,
        "The TrainJob is suspended (`spec.suspend: true`) and no queue manages it (it has no `kueue.x-k8s.io/queue-name` label): Trainer keeps its JobSet suspended and no pod starts until someone resumes it.",
        "Resume it: `kubectl patch trainjob -n NAMESPACE NAME --type merge -p '{\"spec\":{\"suspend\":false}}'`; if a queue should start it, give it the label `kueue.x-k8s.io/queue-name`.",
        fails Run, source "kubeflow/trainer v2.3.0 pkg/apis/trainer/v1alpha1/trainjob_types.go `TrainJobSpec.Suspend`, `TrainJobSuspended`";
    DOCTOR_LOCALQUEUE_MISSING = "doctor/localqueue-missing", Error, Cluster,
        "The TrainJob's `kueue.x-k8s.io/queue-name` label names a LocalQueue its namespace does not have: Kueue keeps it suspended (its Workload's `QuotaReserved` condition says \"LocalQueue NAME doesn't exist\"). The message names the LocalQueues the namespace has, and the nearest spelling.",
        "Create the LocalQueue in the TrainJob's namespace (`jax-runtimes kueue` writes one per runtime), or point the label at one the namespace has.",
        fails Run, source "kubernetes-sigs/kueue v0.19.2 pkg/controller/core/workload_controller.go `getQueueBlocker` (\"LocalQueue %s doesn't exist\", reason `Misconfigured`); pkg/controller/constants/constants.go `QueueLabel`";
    DOCTOR_CLUSTERQUEUE_MISSING = "doctor/clusterqueue-missing", Error, Cluster,
        "The TrainJob's LocalQueue points (`spec.clusterQueue`) at a ClusterQueue the cluster does not have: Kueue admits nothing from it and the TrainJob stays suspended.",
        "Create the ClusterQueue (`jax-runtimes kueue` writes it with the runtime's quota), or point the LocalQueue at one the cluster has (`spec.clusterQueue` is immutable: recreate the LocalQueue).",
        fails Run, source "kubernetes-sigs/kueue v0.19.2 pkg/controller/core/workload_controller.go `getQueueBlocker` (\"ClusterQueue %s doesn't exist\")";
    DOCTOR_QUEUE_INACTIVE = "doctor/queue-inactive", Error, Cluster,
        "The TrainJob's LocalQueue or its ClusterQueue is inactive (condition `Active` False): Kueue admits no new workload from it. The message quotes Kueue's reason, such as a ResourceFlavor or AdmissionCheck the ClusterQueue names that does not exist, or a `stopPolicy`.",
        "Fix what Kueue's reason names: create the missing ResourceFlavor or AdmissionCheck, or set the queue's `stopPolicy` to `None`.",
        fails Run, source "kubernetes-sigs/kueue v0.19.2 apis/kueue/v1beta2/clusterqueue_types.go `ClusterQueueActive` and its reasons; pkg/cache/scheduler/clusterqueue.go (\"Can't admit new workloads: ...\")";
    DOCTOR_NOT_ADMITTED = "doctor/not-admitted", Error, Cluster,
        "Kueue has not admitted the TrainJob's Workload: it waits for quota (condition `QuotaReserved` False: the message quotes Kueue, which names the pod set, the resource, the flavor and how much is short), or for an AdmissionCheck (quota reserved, a check still `Pending`). The TrainJob stays suspended meanwhile.",
        "Free or add quota in the ClusterQueue the message names (`nominalQuota` of the flavor, a cohort to borrow from), ask for less per TrainJob, or wait for the workloads ahead of it; a check that stays Pending is its controller's to explain.",
        fails Run, source "kubernetes-sigs/kueue v0.19.2 apis/kueue/v1beta2/workload_types.go `WorkloadQuotaReserved`, `WorkloadAdmitted`; pkg/scheduler/flavorassigner/flavorassigner.go (\"couldn't assign flavors to pod set ...\")";
    DOCTOR_NO_WORKLOAD = "doctor/no-workload", Error, Cluster,
        "The TrainJob carries `kueue.x-k8s.io/queue-name` and is suspended, its queues exist, but Kueue made no Workload for it: Kueue does not manage TrainJobs there. Its `trainer.kubeflow.org/trainjob` integration is off (the Configuration's `integrations.frameworks`), or Kueue is older than v0.14.0, the first release that manages TrainJobs.",
        "Enable the integration `trainer.kubeflow.org/trainjob` in Kueue's Configuration (`integrations.frameworks`) and restart Kueue, or upgrade Kueue to v0.14.0 or later.",
        fails Run, source "kubernetes-sigs/kueue v0.19.2 pkg/controller/jobs/trainjob/trainjob_controller.go `FrameworkName`; the integration came in 2031fd84 (#6597, first in v0.14.0)";
    DOCTOR_PODS_NOT_CREATED = "doctor/pods-not-created", Error, Cluster,
        "The TrainJob is not suspended but has no pods: a controller could not create what comes next. The message quotes the newest warning events of the TrainJob, its JobSet and its Jobs (such as the Job controller's `FailedCreate` when a ResourceQuota, a LimitRange or an admission webhook refuses the pods), or says that Trainer made no JobSet.",
        "Fix what the event names (raise the namespace's ResourceQuota, change the pod's resources, fix the webhook); with no JobSet and no event, check that the Trainer controller runs (`kubectl get pods -n kubeflow-system`).",
        fails Run, source "kubernetes v1.33 pkg/controller/job/job_controller.go (event reason `FailedCreate`, pkg/controller/controller_utils.go `FailedCreatePodReason`); core/v1 Event `involvedObject`";
    DOCTOR_COORDINATOR = "doctor/coordinator", Error, Cluster,
        "The TrainJob's processes cannot reach JAX's coordinator: the pods' `JAX_COORDINATOR_ADDRESS` does not name process 0's pod (its hostname and subdomain), the pods disagree on it, it has no valid port, or the pods have no subdomain (DNS hostnames off), so `jax.distributed.initialize()` waits until it times out. The message names the address the pods have and the one process 0 answers at.",
        "Leave `JAX_COORDINATOR_ADDRESS` to Trainer's JAX plugin (remove it from `spec.trainer.env` and the runtime), keep JobSet's `network.enableDNSHostnames` on, and do not set the pod's `subdomain` or `hostname` in the runtime.",
        fails Run, source "kubeflow/trainer v2.3.0 pkg/runtime/framework/plugins/jax/jax.go (`JAX_COORDINATOR_ADDRESS` = `<trainjob>-node-0-0.<trainjob>:<port>`); kubernetes v1.33 pkg/controller/job/indexed_job_utils.go (hostname `<job>-<index>`)";
    DOCTOR_RUNTIME_CHANGED = "doctor/runtime-changed", Warning, Cluster,
        "The TrainJob's runtime was edited after the TrainJob started: its JobSet (and so its pods) keeps what the runtime said then, because Trainer does not update the JobSet of a started TrainJob. The message lists what the runtime gives now and the JobSet lacks: pod counts, node selector entries, tolerations, the `node` container's image and resources.",
        "Delete and create the TrainJob again to run with the runtime as it is now (or suspend and resume it: Trainer rebuilds a suspended JobSet); to keep running jobs stable, give a changed runtime a new name.",
        fails Run, source "kubeflow/trainer v2.3.0 pkg/runtime/framework/plugins/jobset/jobset.go `Build` (\"Do not update the JobSet if it already exists and is not suspended\")";
}
