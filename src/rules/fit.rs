//! Rules of `jax-runtimes fit` and of the KRM validator's `spec.nodes`: the node and pod lists
//! it reads, the runtimes and TrainJobs it fits, and those whose pods would stay Pending on the
//! cluster they describe.

use super::rule::define_rules;

define_rules! {
    FIT_NOT_A_NODE = "fit/not-a-node", Error, Fit,
        "A document of the node inventory (`--nodes`, the validator's `spec.nodes`) that is not a Node, or does not read as one: a field of the wrong type, an allocatable quantity that does not parse. `fit` exits 2.",
        "Pass what `kubectl get nodes -o yaml` (or `-o json`) prints, unchanged.";
    FIT_NO_NODES = "fit/no-nodes", Error, Fit,
        "The node inventory holds no Node: nothing could be placed anywhere. `fit` exits 2.",
        "Check the file: `kubectl get nodes -o yaml > nodes.yaml` against the cluster you mean.";
    FIT_NOT_A_POD = "fit/not-a-pod", Error, Fit,
        "A document of the pod list (`--pods`, the validator's `spec.pods`) that is not a Pod, or a pod in use that does not read as one (a request that is not a quantity). `fit` exits 2.",
        "Pass what `kubectl get pods -A -o yaml` (or `-o json`) prints, unchanged.";
    FIT_POD_ON_UNKNOWN_NODE = "fit/pod-on-unknown-node", Info, Fit,
        "A pod in use is bound to a node the inventory does not list (the lists were taken at different times, or from different clusters); what it holds is not counted.",
        "Take both lists from the same cluster, one right after the other.";
    FIT_UNREADABLE_RUNTIME = "fit/unreadable-runtime", Error, Fit,
        "A ClusterTrainingRuntime or TrainingRuntime that does not read as one (a field of the wrong type), so its pods cannot be worked out. `fit` exits 1 (input that was read but is not valid), as `validate` does.",
        "Run `jax-runtimes validate` on the file and fix what it reports.";
    FIT_UNREADABLE_TRAINJOB = "fit/unreadable-trainjob", Error, Fit,
        "A TrainJob given to `fit` that does not read as one (a field of the wrong type, a missing `spec.runtimeRef`), so the pods Trainer would make of it cannot be worked out. `fit` exits 1 (input that was read but is not valid), as `validate` does.",
        "Run `jax-runtimes validate` on the file and fix what it reports.";
    FIT_DOES_NOT_FIT = "fit/does-not-fit", Error, Fit,
        "A runtime (or a TrainJob on its runtime) whose pods would stay Pending on the cluster the node inventory describes: no node pool matches its node selector, its nodes are tainted, cordoned or not Ready, or they lack the free resources for the whole gang; with Kueue objects, also one Kueue never admits or holds back. The message names the first blocker. `fit --format github|sarif|junit` and the KRM validator report it.",
        "Fix what the message names: the runtime's selector or tolerations, the node pool, or free capacity on it.";
    FIT_INVENTORY_MISSING = "fit/inventory-missing", Error, Fit,
        "The `JaxRuntimeValidation` config names a `spec.nodes` or `spec.pods` file that no item of the package comes from.",
        "Add the file to the package (mark it `config.kubernetes.io/local-config: \"true\"`), or fix the path, relative to the package root.";
    KUEUE_RUNTIMES_LEFT_OUT = "kueue/runtimes-left-out", Warning, Kueue,
        "`jax-runtimes kueue --nodes` on a catalog without a `JaxRuntimeQueue`: the one queue it makes serves the runtimes the cluster has nodes for, and leaves out the others (a catalog for several clouds or accelerators), named here. Their TrainJobs would wait in no queue of this cluster.",
        "Nothing to do when those runtimes are meant for other clusters; otherwise add their nodes to the list, or write a `JaxRuntimeQueue` whose `spec.runtimes.names` lists them.";
}
