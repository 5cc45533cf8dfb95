//! Rules of the KRM function: the ResourceList it reads and the items it writes back.

use super::rule::define_rules;

define_rules! {
    KRM_UNREADABLE_INPUT = "krm/unreadable-input", Error, Krm,
        "Standard input could not be read.",
        "Run the function from kpt or kustomize, which send a ResourceList on standard input.";
    KRM_INPUT_TOO_LARGE = "krm/input-too-large", Error, Krm,
        "The ResourceList is over the 256 MiB limit.",
        "Run the function on a smaller package.";
    KRM_NOT_UTF8 = "krm/not-utf8", Error, Krm,
        "The ResourceList is not valid UTF-8.",
        "Save the package's files as UTF-8.";
    KRM_MALFORMED_INPUT = "krm/malformed-input", Error, Krm,
        "Standard input is not one valid YAML or JSON document, or its `items` is not a list.",
        "Send one ResourceList (`kind: ResourceList`) on standard input.";
    KRM_NOT_A_RESOURCE_LIST = "krm/not-a-resource-list", Error, Krm,
        "Standard input holds a document that is not a `ResourceList` (or `List`): jax-runtimes without arguments is the KRM function.",
        "Use `jax-runtimes --help` for the command line, or run the function from kpt or kustomize.";
    KRM_FUNCTION_CONFIG = "krm/function-config", Error, Krm,
        "The functionConfig is neither a catalog object nor a `JaxRuntimeValidation`, or a `JaxRuntimeValidation` has a field it does not know.",
        "Point the function's config at a catalog object (to generate) or a `JaxRuntimeValidation` (to validate), or give none; the finding's help names the kinds.";
    KRM_NOT_OWNED = "krm/not-owned", Error, Krm,
        "A runtime would replace an object of the same kind and name that jax-runtimes did not generate (it lacks the `app.kubernetes.io/managed-by: jax-runtimes` label and the `jax-runtimes.dev/source` annotation). It is left untouched.",
        "Rename the catalog entry, or delete or rename the existing object.";
    KRM_FILE_TAKEN = "krm/file-taken", Error, Krm,
        "A new runtime's file (`runtimes/<kind>_<name>.yaml`) already holds another object.",
        "Move the object that is in that file elsewhere.";
    KRM_LOCAL_CONFIG = "krm/local-config", Warning, Krm,
        "A catalog object in a kpt package without `config.kubernetes.io/local-config: \"true\"`: `kpt live apply` would try to apply it to the cluster, which has no such kind. The function never edits the files it did not generate, so it does not add the mark itself.",
        "Add `config.kubernetes.io/local-config: \"true\"` to the catalog object's `metadata.annotations`.";
    KRM_NO_CATALOG = "krm/no-catalog", Error, Krm,
        "The package holds runtimes jax-runtimes generated, but the function's input holds no catalog object at all (the catalog folder was deleted, or a selector filtered it out). Pruning would delete every generated runtime (and, with Argo CD or Flux pruning on, every one of them from the cluster), so nothing is pruned.",
        "Restore the catalog, or fix the selector; to retire the catalog and remove every runtime it generated, run the function once with the config `allow-prune-all: \"true\"` (`kpt fn eval --exec jax-runtimes -- allow-prune-all=true`).";
    KRM_PRUNED = "krm/pruned", Info, Krm,
        "A runtime (or Kueue object) the function generated was removed, because the catalog object it came from is gone or no longer generates it.",
        "Nothing to do if the removal is intended; otherwise restore the catalog entry named in the message.";
    KRM_DEFAULTS_NOT_LISTED = "krm/defaults-not-listed", Error, Krm,
        "kustomize legacy plugin route (`kubectl kustomize --enable-alpha-plugins`): a `JaxRuntimeDefaults` in the kustomization's folder is not listed under `generators:` (not at all, or under `resources:`), so kustomize never hands it to jax-runtimes and its defaults would be dropped from every runtime.",
        "List the file under `generators:` in the kustomization; every `JaxRuntimeDefaults` listed there applies to the generators of that kustomization.";
    KRM_WRITE = "krm/write", Error, Krm,
        "The output ResourceList could not be written to standard output.",
        "Check what reads the function's output (kpt, kustomize).";
}
