//! Golden tests: each folder under tests/golden/ holds a catalog (`catalog.yaml`) and the exact
//! runtimes `jax-runtimes render` must print for it (`expected.yaml`). Rendering twice must give
//! byte-identical output. `UPDATE_GOLDEN=1 cargo test --test golden` rewrites the expectations
//! (review the diff before committing).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::fs;
use std::path::{Path, PathBuf};

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    assert!(dirs.len() >= 8, "golden cases went missing from {}", root.display());
    dirs
}

fn render(args: &[&str]) -> (i32, String, String) {
    let out = support::cli(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn every_golden_catalog_renders_exactly_as_expected() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for dir in cases() {
        let catalog = dir.join("catalog.yaml");
        let (code, stdout, stderr) = render(&["render", catalog.to_str().unwrap()]);
        assert_eq!(code, 0, "{}: render failed:\n{stderr}", dir.display());
        let expected_path = dir.join("expected.yaml");
        if update {
            fs::write(&expected_path, &stdout).unwrap();
            continue;
        }
        let expected =
            fs::read_to_string(&expected_path).unwrap_or_else(|_| panic!("{} missing: run with UPDATE_GOLDEN=1", expected_path.display()));
        if stdout != expected {
            let diff = similar::TextDiff::from_lines(&expected, &stdout).unified_diff().header("expected", "actual").to_string();
            failures.push(format!("{}:\n{diff}", dir.display()));
        }
        let (_, again, _) = render(&["render", catalog.to_str().unwrap()]);
        assert_eq!(stdout, again, "{}: two renders differ", dir.display());
    }
    assert!(failures.is_empty(), "golden mismatches:\n{}", failures.join("\n"));
}

#[test]
fn builtin_catalog_renders_deterministically_and_covers_every_kind() {
    let (code, first, stderr) = render(&["render"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.is_empty(), "the built-in catalog must render without findings:\n{stderr}");
    let (_, second, _) = render(&["render"]);
    assert_eq!(first, second);
    let all: Vec<serde_json::Value> = jax_runtimes::yaml::parse_stream(&first).unwrap();
    // Beside the runtimes, only what a DRA fabric's runtime needs: its ResourceClaimTemplates, and
    // A4X Max's ComputeDomain.
    let (docs, beside): (Vec<serde_json::Value>, Vec<serde_json::Value>) =
        all.into_iter().partition(|d| d["kind"] == "ClusterTrainingRuntime");
    assert!(
        !beside.is_empty() && beside.iter().all(|d| d["kind"] == "ResourceClaimTemplate" || d["kind"] == "ComputeDomain"),
        "{beside:?}"
    );
    assert_eq!(beside.iter().filter(|d| d["kind"] == "ComputeDomain").count(), 1, "{beside:?}");
    let names: Vec<&str> = docs.iter().map(|d| d["metadata"]["name"].as_str().unwrap()).collect();
    let summary = |n: &str| -> String {
        docs.iter().find(|d| d["metadata"]["name"] == n).unwrap()["metadata"]["annotations"]["jax-runtimes.dev/accelerator"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // What the issue promises the built-in catalog holds.
    assert!(names.contains(&"jax-cpu"), "{names:?}");
    assert!(summary("jax-gpu-gke-h100").starts_with("gpu h100-80gb x8 per node (gke"));
    assert!(names.iter().any(|n| n.starts_with("jax-gpu-gke-h100-") && summary(n).contains("gke")), "a multi-node GKE H100 runtime");
    assert!(summary("jax-gpu-h100").contains("(generic)"));
    for gen in ["v5e", "v5p", "v6e"] {
        let tpu: Vec<&&str> = names.iter().filter(|n| summary(n).starts_with(&format!("tpu {gen} "))).collect();
        assert!(tpu.iter().any(|n| summary(n).contains("(1 host x")), "{gen}: a single-host slice");
        assert!(tpu.iter().any(|n| summary(n).contains("hosts x")), "{gen}: a multi-host slice");
    }
    for d in &docs {
        assert_eq!(d["metadata"]["labels"]["trainer.kubeflow.org/framework"], "jax");
        assert_eq!(d["spec"]["mlPolicy"]["jax"], serde_json::json!({}));
    }
}

#[test]
fn render_to_a_directory_writes_one_file_per_runtime_with_stable_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("runtimes");
    let catalog = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/namespaced/catalog.yaml");
    let (code, stdout, stderr) = render(&["render", catalog.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty());
    let mut files: Vec<String> = fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    files.sort();
    assert_eq!(files, ["clustertrainingruntime_team-runtime.yaml", "kustomization.yaml", "trainingruntime_team-a_team-runtime.yaml"]);
    let namespaced = fs::read_to_string(out.join("trainingruntime_team-a_team-runtime.yaml")).unwrap();
    assert!(namespaced.contains("kind: TrainingRuntime\n") && namespaced.contains("namespace: team-a\n"), "{namespaced}");
}

/// The KRM path gives the same runtimes as the CLI for every golden catalog, and running the
/// function on its own output changes nothing (byte-identical).
#[test]
fn every_golden_catalog_gives_the_same_runtimes_through_the_krm_function() {
    for dir in cases() {
        let catalog = fs::read_to_string(dir.join("catalog.yaml")).unwrap();
        let items = jax_runtimes::yaml::parse_stream(&catalog).unwrap();
        let list = serde_json::json!({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items});
        let input = jax_runtimes::yaml::to_string(&list).unwrap();
        let run = |stdin: &str| {
            let o = support::feed(support::cli(&[]), stdin.as_bytes());
            assert!(o.status.success(), "{}: KRM run failed:\n{}", dir.display(), String::from_utf8_lossy(&o.stderr));
            String::from_utf8(o.stdout).unwrap()
        };
        let once = run(&input);
        assert_eq!(run(&once), once, "{}: the function is not idempotent", dir.display());

        let out: serde_json::Value = jax_runtimes::yaml::parse_one(&once).unwrap();
        let mut generated: Vec<serde_json::Value> =
            out["items"].as_array().unwrap().iter().filter(|i| i["apiVersion"] == "trainer.kubeflow.org/v1alpha1").cloned().collect();
        for g in &mut generated {
            let ann = g["metadata"]["annotations"].as_object_mut().unwrap();
            ann.retain(|k, _| !k.starts_with("config.kubernetes.io/") && !k.starts_with("internal.config.kubernetes.io/"));
        }
        let (_, cli, _) = render(&["render", dir.join("catalog.yaml").to_str().unwrap()]);
        let expected = jax_runtimes::yaml::parse_stream(&cli).unwrap();
        assert_eq!(generated, expected, "{}: KRM and CLI runtimes differ", dir.display());
    }
}
