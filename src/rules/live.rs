//! Rules of live mode: reading a cluster (`fit` without `--nodes`, `snapshot`) and asking it
//! (`validate --server`).

use super::rule::define_rules;

define_rules! {
    LIVE_NO_CLUSTER = "live/no-cluster", Error, Cluster,
        "Live mode (`fit` and `kueue` without `--nodes`, `doctor` without `--snapshot`, `snapshot`) has no cluster to read: the kubeconfig (`--kubeconfig`, else `$KUBECONFIG`, else `~/.kube/config`) does not load, its context (`--context`, else the current one) is missing, or the API server does not answer. The command exits 2.",
        "Check `kubectl --context CONTEXT get nodes` with the same kubeconfig; or pass the cluster as files: `fit --nodes nodes.yaml --pods pods.yaml`, `doctor --snapshot cluster.yaml` (a `jax-runtimes snapshot` file, taken where the cluster answers).";
    LIVE_FORBIDDEN = "live/forbidden", Error, Cluster,
        "RBAC refused a list the command cannot answer without (`fit`: nodes, and pods in every namespace). The message names the verb and the resource. The command exits 2.",
        "Ask for the verb on the resource (a ClusterRole bound to you), or pass the lists as files.";
    LIVE_LEFT_OUT = "live/left-out", Warning, Cluster,
        "RBAC refused a list the command can answer without (ComputeClasses, Kueue objects, runtimes, TrainJobs): those objects are left out of the answer or the snapshot, and the message names the verb and the resource.",
        "Ask for the verb on the resource (a ClusterRole bound to you) to have them read.";
    LIVE_SERVER_REFUSED = "live/server-refused", Error, Cluster,
        "`validate --server`: the cluster's API server refused the object in a server-side dry run with strict field validation (`kubectl create --dry-run=server --validate=strict`): its CRD schema and CEL rules, its admission webhooks (Trainer's, JobSet's, Kueue's, where installed) and policies. The message is the server's. Where the offline checks found no error the server gives at apply, the message says so: the cluster differs from what jax-runtimes checks against (another Trainer release, a webhook, a policy).",
        "Fix what the server names; where the offline checks passed, compare the cluster's Trainer release with `--trainer-version`.";
    LIVE_SERVER_ACCEPTED = "live/server-accepted", Warning, Cluster,
        "`validate --server`: the cluster's API server accepts, in a server-side dry run, an object the offline checks say it refuses at apply (named in the message). The cluster runs another release of the CRDs than `--trainer-version` says, or the offline check is wrong. The offline errors stay.",
        "Pass the cluster's Trainer release as `--trainer-version`; if it is the same, report the disagreement.";
    LIVE_NOT_SERVED = "live/not-served", Error, Cluster,
        "`validate --server`: the cluster does not serve the object's kind at its apiVersion (the CRD is not installed, or serves other versions): `kubectl apply` fails with \"no matches for kind\", and the server cannot judge it.",
        "Install the CRD (Kubeflow Trainer, JobSet, Kueue) on the cluster, or use a served apiVersion.";
}
