//! Rules of the output directories that `render -o` and `docs -o` own: what `--check` and the
//! writing itself report. With `--format json` they are findings in the one JSON document on
//! stderr; in text they are the `jax-runtimes:` lines that say the same.

use super::rule::define_rules;

define_rules! {
    OUTPUT_STALE = "output/stale", Error, Output,
        "`--check` found the output directory out of date: files missing, changed or extra (the diff is on stdout). The command exits 1 and writes nothing.",
        "Run the same command without `--check` and commit the result.";
    OUTPUT_NOT_OWNED = "output/not-owned", Error, Output,
        "The output directory holds a file where the tool would write one, and jax-runtimes did not generate it, or the directory is a sub-folder of a fleet the tool rendered (its shared `runtimes/` folder or a cluster folder): an ownership conflict, a finding (exit 1) as in the KRM function (`krm/not-owned`). Nothing is written.",
        "Move or rename the file, or render into another directory; a fleet renders into its own folder (the one that holds `runtimes/` and `clusters/`), never into one of its sub-folders.";
    OUTPUT_UNWRITABLE = "output/unwritable", Error, Output,
        "The output directory could not be read or written: permissions, a file where the folder belongs, a full disk, The command exits 2.",
        "Check the path and its permissions; move files the tool did not write out of its way.";
    OUTPUT_LEFT_BEHIND = "output/left-behind", Warning, Output,
        "A file of yours stays in a folder the render retires: the folder of a cluster the catalog no longer has (removed or renamed), or a fleet's shared folder once the catalog has no `JaxCluster`. The tool prunes only what it wrote; your file is kept, and no generated kustomization builds it any more.",
        "Move the file into the folder of the cluster that should get it (a renamed cluster's new folder), or delete it.";
}
