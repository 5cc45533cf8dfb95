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
}
