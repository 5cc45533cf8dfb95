//! Rules of live mode: reading a cluster (`fit` without `--nodes`, `snapshot`).

use super::rule::define_rules;

define_rules! {
    LIVE_NO_CLUSTER = "live/no-cluster", Error, Input,
        "Live mode (`fit` without `--nodes`, `snapshot`) has no cluster to read: the kubeconfig (`--kubeconfig`, else `$KUBECONFIG`, else `~/.kube/config`) does not load, its context (`--context`, else the current one) is missing, or the API server does not answer. The command exits 2.",
        "Check `kubectl --context CONTEXT get nodes` with the same kubeconfig; or pass the lists as files (`--nodes nodes.yaml --pods pods.yaml`, or a `snapshot` file).";
    LIVE_FORBIDDEN = "live/forbidden", Error, Input,
        "RBAC refused a list the command cannot answer without (`fit`: nodes, and pods in every namespace). The message names the verb and the resource. The command exits 2.",
        "Ask for the verb on the resource (a ClusterRole bound to you), or pass the lists as files.";
    LIVE_LEFT_OUT = "live/left-out", Warning, Input,
        "RBAC refused a list the command can answer without (ComputeClasses, Kueue objects, runtimes, TrainJobs): those objects are left out of the answer or the snapshot, and the message names the verb and the resource.",
        "Ask for the verb on the resource (a ClusterRole bound to you) to have them read.";
}
