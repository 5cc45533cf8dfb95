//! Rules about the inputs themselves: files, folders and stdin, before anything is understood.

use super::rule::define_rules;

define_rules! {
    INPUT_UNREADABLE = "input/unreadable", Error, Input,
        "A path that cannot be read: it does not exist, or permissions or I/O stop jax-runtimes from reading it. The command exits 2.",
        "Check the path and its permissions.";
    INPUT_TOO_LARGE = "input/too-large", Error, Input,
        "A file or stdin stream over the 256 MiB limit; it is refused before it is parsed.",
        "Split the input into smaller files.";
    INPUT_NOT_UTF8 = "input/not-utf8", Error, Input,
        "A file that is not valid UTF-8; YAML and JSON must be UTF-8.",
        "Save the file as UTF-8.";
    INPUT_MALFORMED_YAML = "input/malformed-yaml", Error, Input,
        "A file that is not valid YAML (or JSON): a syntax error, a duplicate key, nesting deeper than 128 levels or too many aliases.",
        "Fix the YAML at the line the message names.";
    INPUT_SCALAR_TOO_LONG = "input/scalar-too-long", Error, Input,
        "A file with a string (a value or a key) over 3 MiB, the largest request the Kubernetes API server accepts (`MaxRequestBodyBytes` in kubernetes `staging/src/k8s.io/apiserver/pkg/server/config.go`): no object can hold it. The file is refused as it is read, before the string is copied, so that memory stays bounded; a long line of many short values (`kubectl get nodes -o json | jq -c`) is read as usual.",
        "Shorten the value at the line the message names; a long text belongs in a file the job reads, not in a field.";
    INPUT_NOT_A_CATALOG_OBJECT = "input/not-a-catalog-object", Info, Input,
        "`render` read a document that is not a catalog object (not in the `jax-runtimes.dev` group); it is ignored (`docs` and `kueue` ignore it without a word).",
        "Nothing to do, or check the file list.";
    INPUT_EMPTY_CATALOG = "input/empty-catalog", Error, Input,
        "`render`, `docs` or `kueue` read no catalog object at all: no object of the `jax-runtimes.dev` group, of any kind.",
        "Check the paths; with no path the built-in catalog is used.";
    INPUT_NEAR_MISS = "input/near-miss", Error, Input,
        "An object whose kind or apiVersion is one typo away from a Trainer kind (`ClusterTrainingRuntime`, `TrainingRuntime`, `TrainJob`) or JobSet's (`JobSet`): a kind such as `TrainJobb`, a group such as `trainer.kubeflow.com`. Skipped, it would go unchecked; catalog kinds have `catalog/api-version` and `catalog/unknown-kind`.",
        "Fix the kind or apiVersion; the message names the nearest spelling.";
    INPUT_UNSERVED_VERSION = "input/unserved-version", Error, Input,
        "A Trainer, JobSet or Kueue kind at an apiVersion its CRD does not serve (`trainer.kubeflow.org/v2alpha1`): the API server refuses the object (\"no matches for kind\"). The served versions are those of the `--crd` CRD that defines the kind, else of the CRDs jax-runtimes follows (Trainer v2.3.0, JobSet v0.12.0, Kueue v0.19.2). The object is still checked as the served version.",
        "Use the served apiVersion the message names.";
    INPUT_NOT_A_RUNTIME = "input/not-a-runtime", Info, Input,
        "A document that is not a ClusterTrainingRuntime, TrainingRuntime or TrainJob (`trainer.kubeflow.org`); it is not checked.",
        "Nothing to do, or check the file list.";
    INPUT_DUPLICATE_OBJECT = "input/duplicate-object", Warning, Input,
        "The same Trainer or Kueue object (group, kind, namespace and name) twice among the inputs, in two files or two documents of one: applied together, the later one replaces the first (a TrainJob's immutable fields refuse the second), so what runs depends on the order of the files. Both are judged.",
        "Keep one copy: rename one of them, or remove it.";
    INPUT_NO_RUNTIME = "input/no-runtime", Error, Input,
        "The input holds no ClusterTrainingRuntime, TrainingRuntime or TrainJob at all.",
        "Check the paths you passed.";
}
