//! Rules of the output directories that `render -o` and `docs -o` own: what `--check` and the
//! writing itself report. With `--format json` they are findings in the one JSON document on
//! stderr; in text they are the `jax-runtimes:` lines that say the same.

use super::rule::define_rules;

define_rules! {
    OUTPUT_STALE = "output/stale", Error, Output,
        "`--check` found the output directory out of date: files missing, changed or extra (the diff is on stdout). The command exits 1 and writes nothing.",
        "Run the same command without `--check` and commit the result.";
    OUTPUT_NOT_OWNED = "output/not-owned", Error, Output,
        "The output directory holds a file where the tool would write one, and jax-runtimes did not generate it: an ownership conflict, a finding (exit 1) as in the KRM function (`krm/not-owned`). Nothing is written.",
        "Move or rename the file, or render into another directory.";
    OUTPUT_UNWRITABLE = "output/unwritable", Error, Output,
        "The output directory could not be read or written: permissions, a file where the folder belongs, a full disk, The command exits 2.",
        "Check the path and its permissions; move files the tool did not write out of its way.";
}
