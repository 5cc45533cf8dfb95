//! Shared by the end-to-end tests (e2e_jax.rs, sdk.rs): run the CLI, find the Python that
//! tests/run set up, and run the Python harnesses in tests/python with it.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Project root (where Cargo.toml is).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The test catalog owned by the e2e tests.
pub fn fixture_catalog() -> PathBuf {
    root().join("tests/fixtures/e2e/catalog.yaml")
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// The venv interpreter from `JAX_RUNTIMES_PYTHON` (exported by tests/run). When it is unset the
/// test is skipped loudly on a workstation and fails in CI, so CI can never pass without running it.
pub fn python(test: &str) -> Option<PathBuf> {
    match std::env::var_os("JAX_RUNTIMES_PYTHON").filter(|v| !v.is_empty()) {
        Some(p) => {
            let p = PathBuf::from(p);
            assert!(p.exists(), "JAX_RUNTIMES_PYTHON={} does not exist; run the tests through tests/run", p.display());
            Some(p)
        }
        None if in_ci() => panic!(
            "{test}: JAX_RUNTIMES_PYTHON is not set and CI is: the e2e tests must run in CI. \
             Run them through tests/run, which creates the Python venv and sets it."
        ),
        None => {
            // Straight to the process's stderr: the test harness captures eprintln! of passing tests.
            let _ = writeln!(
                std::io::stderr(),
                "\n*** SKIPPED {test}: JAX_RUNTIMES_PYTHON is not set. Run `tests/run` (it creates \
                 .venv with JAX and the kubeflow SDK and sets the variable) to run this test. ***\n"
            );
            None
        }
    }
}

/// `jax-runtimes render ARGS...`: asserts success and returns stdout (the YAML stream).
pub fn render(args: &[&Path]) -> String {
    let out = Command::new(assert_cmd::cargo::cargo_bin!("jax-runtimes"))
        .arg("render")
        .args(args)
        .current_dir(root())
        .output()
        .expect("run jax-runtimes");
    assert!(out.status.success(), "jax-runtimes render {:?} failed ({}):\n{}", args, out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("render output is UTF-8")
}

/// Every YAML document of a stream, as JSON values (parsed with the project's YAML library).
pub fn documents(yaml: &str) -> Vec<serde_json::Value> {
    serde_saphyr::from_multiple::<serde_json::Value>(yaml)
        .expect("render output parses as YAML")
        .into_iter()
        .filter(|d| !d.is_null())
        .collect()
}

/// Writes documents as a YAML stream (JSON documents are valid YAML).
pub fn write_stream(path: &Path, docs: &[serde_json::Value]) {
    let text: Vec<String> = docs.iter().map(|d| serde_json::to_string_pretty(d).unwrap()).collect();
    std::fs::write(path, text.join("\n---\n") + "\n").unwrap();
}

pub fn name_of(doc: &serde_json::Value) -> &str {
    doc["metadata"]["name"].as_str().expect("metadata.name")
}

/// Runs `tests/python/<script> ARGS...` with the venv interpreter; echoes its output so
/// `cargo test -- --nocapture` shows what the harness saw.
pub fn run_python(python: &Path, script: &str, args: &[&str]) -> Output {
    let out = Command::new(python)
        .arg(root().join("tests/python").join(script))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run the Python harness");
    println!("$ {script} {}\n{}{}", args.join(" "), String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    out
}

pub fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}
