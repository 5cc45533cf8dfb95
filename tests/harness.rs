//! The test harness itself: tests/tiers.txt names real tests, and the upstream reference data is
//! found where tests/reference/README.md says, a named folder without it being a mistake.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use support::reference::{locate, Missing, TRAINER};
use support::root;

/// Every line of tests/tiers.txt names a need tests/run knows, an integration test binary, and
/// (when it names one) a test function of that binary. A test that needs the venv or podman and
/// is missing from the list fails under `tests/run --quick` (support::needs).
#[test]
fn tiers_txt_names_existing_binaries_and_tests() {
    let text = std::fs::read_to_string(root().join("tests/tiers.txt")).unwrap();
    let mut binaries = BTreeSet::new();
    let mut lines = 0;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert!(matches!(fields.len(), 2 | 3), "tests/tiers.txt: `{line}`: expected NEED BINARY [TEST]");
        assert!(
            ["venv", "podman", "controlplane"].contains(&fields[0]),
            "tests/tiers.txt: `{line}`: the needs are venv, podman and controlplane"
        );
        let file = root().join("tests").join(format!("{}.rs", fields[1]));
        let source = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("tests/tiers.txt: `{line}`: {}: {e}", file.display()));
        if let Some(test) = fields.get(2) {
            assert!(source.contains(&format!("#[test]\nfn {test}()")), "tests/tiers.txt: `{line}`: no test `{test}` in {}", file.display());
        }
        binaries.insert(fields[1]);
        lines += 1;
    }
    // The ones the quick tier is defined by: JAX, the SDK, the image and the control plane.
    for b in ["e2e_jax", "sdk", "krm_image", "controlplane"] {
        assert!(binaries.contains(b), "tests/tiers.txt lacks {b}");
    }
    assert!(lines >= 4);
}

#[test]
fn the_reference_data_is_found_beside_the_checkout_or_where_the_variable_points() {
    let dir = tempfile::tempdir().unwrap();
    let checkout = dir.path().join("checkout");
    // Nothing there: beside the checkout, a skip (or a failure in CI); a named folder, a mistake.
    assert!(matches!(locate(None, &checkout), Err(Missing::Beside(d)) if d.ends_with("shared/reference")));
    assert!(matches!(locate(Some(dir.path().to_path_buf()), &checkout), Err(Missing::Named(_))));
    // An empty variable is no name.
    assert!(matches!(locate(Some("".into()), &checkout), Err(Missing::Beside(_))));
    // The data is there when the Trainer CRDs are.
    std::fs::create_dir_all(dir.path().join("shared/reference").join(TRAINER).join("crds")).unwrap();
    std::fs::create_dir_all(&checkout).unwrap();
    let beside = locate(None, &checkout).ok().expect("found beside the checkout");
    assert_eq!(beside.canonicalize().unwrap(), dir.path().join("shared/reference").canonicalize().unwrap());
    let named = dir.path().join("shared/reference");
    assert_eq!(locate(Some(named.clone()), Path::new("/nowhere")).ok(), Some(named));
}
