//! Shared by every test binary (`mod support;`): the project root, the binary, running it, and
//! the real components the tests use (the upstream reference data, kpt, kubectl, the Python venv
//! that tests/run creates). A component that is missing fails the test with what to do: no test
//! skips and passes.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use jax_runtimes::read::{self, Document, Source};

/// Project root (where Cargo.toml is).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The jax-runtimes binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_jax-runtimes"))
}

/// What a run of the binary printed and returned.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn of(out: Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Everything it printed, for assertion messages.
    pub fn all(&self) -> String {
        format!("exit {}\n--- stdout\n{}\n--- stderr\n{}", self.code, self.stdout, self.stderr)
    }
}

/// Runs `jax-runtimes ARGS` in `cwd` with `stdin` (empty when `None`).
pub fn run_in(cwd: &Path, args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run jax-runtimes");
    {
        let mut i = child.stdin.take().expect("stdin");
        if let Some(s) = stdin {
            // The binary may exit before reading everything (bad input): not an error here.
            let _ = i.write_all(s);
        }
    }
    Run::of(child.wait_with_output().expect("wait for jax-runtimes"))
}

/// Runs `jax-runtimes ARGS` in the project root.
pub fn run(args: &[&str], stdin: Option<&str>) -> Run {
    run_in(&root(), args, stdin.map(str::as_bytes))
}

/// `jax-runtimes render ARGS...`: asserts success and returns stdout (the YAML stream).
pub fn render(args: &[&Path]) -> String {
    let args: Vec<String> = args.iter().map(|p| p.display().to_string()).collect();
    let mut all = vec!["render"];
    all.extend(args.iter().map(String::as_str));
    let r = run(&all, None);
    assert_eq!(r.code, 0, "jax-runtimes {all:?} failed:\n{}", r.all());
    r.stdout
}

/// `../shared/reference`: the upstream Trainer v2.3.0 CRDs and runtimes and the JobSet CRD. The
/// tests need it; without it they fail and say where it belongs.
pub fn reference() -> PathBuf {
    let dir = reference_root();
    assert!(
        dir.join("kubeflow-trainer-v2.3.0/crds").is_dir(),
        "{} is missing: the tests check against the upstream Trainer CRDs and runtimes there (see ../shared/reference/README.md)",
        dir.display()
    );
    dir
}

/// Where the reference data is: `JAX_RUNTIMES_REFERENCE`, else `../shared/reference`.
pub fn reference_root() -> PathBuf {
    std::env::var_os("JAX_RUNTIMES_REFERENCE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/reference"))
}

/// The Kueue v0.19.2 CRD files of the reference data, or `None` when the folder is absent: the
/// caller's checks do not run, and this says so on stderr. In CI (`CI` set) the folder must be
/// there.
pub fn kueue_crd_files(test: &str) -> Option<Vec<PathBuf>> {
    let dir = reference_root().join("kueue-v0.19.2/crds");
    if !dir.is_dir() {
        assert!(std::env::var_os("CI").is_none(), "{} is missing in CI: {test} needs the Kueue v0.19.2 CRDs", dir.display());
        eprintln!("NOT RUN: {test}: {} is missing (the Kueue v0.19.2 CRDs; see ../shared/reference/README.md)", dir.display());
        return None;
    }
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "yaml")).collect();
    files.sort();
    assert_eq!(files.len(), 8, "the eight Kueue v0.19.2 CRDs in {}", dir.display());
    Some(files)
}

/// The Trainer runtime CRDs of the reference data.
pub fn reference_crd_files() -> Vec<PathBuf> {
    let crds = reference().join("kubeflow-trainer-v2.3.0/crds");
    vec![crds.join("trainer.kubeflow.org_clustertrainingruntimes.yaml"), crds.join("trainer.kubeflow.org_trainingruntimes.yaml")]
}

/// A program the end-to-end tests run (kpt, kubectl). Missing, the test fails.
pub fn tool(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file()).unwrap_or_else(|| {
        panic!("`{name}` is not on PATH; the end-to-end tests need it (kpt 1.0.0-beta.56, kubectl 1.32); .ci/run installs what CI needs")
    })
}

/// The venv interpreter that tests/run creates (JAX on CPU, the Kubeflow SDK, jsonschema).
/// Unset, the test fails: run the tests through tests/run.
pub fn python() -> PathBuf {
    let p = std::env::var_os("JAX_RUNTIMES_PYTHON")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("JAX_RUNTIMES_PYTHON is not set: run the tests through tests/run, which creates .venv and sets it"));
    assert!(p.exists(), "JAX_RUNTIMES_PYTHON={} does not exist; run the tests through tests/run", p.display());
    p
}

/// PATH with the freshly built jax-runtimes first, so that `exec: jax-runtimes` finds it.
pub fn path_with_bin() -> std::ffi::OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(bin().parent().expect("bin dir").to_path_buf()).chain(std::env::split_paths(&rest)))
        .expect("PATH joins")
}

/// Copies a folder recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every file under `dir`: relative path -> bytes.
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                let rel = p.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    if dir.exists() {
        walk(dir, dir, &mut out);
    }
    out
}

/// Every file under `dir` as text.
pub fn text_tree(dir: &Path) -> BTreeMap<String, String> {
    tree(dir).into_iter().map(|(k, v)| (k, String::from_utf8_lossy(&v).into_owned())).collect()
}

/// A process's exit code and output, for assertion messages.
pub fn show(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Documents of a YAML text, as the project's read stage gives them.
pub fn parse(name: &str, text: &str) -> Vec<Document> {
    read::parse_source(Arc::new(Source::new(name, Some(text.to_string())))).expect("valid YAML")
}

/// Every YAML document of a stream, as JSON values (parsed with the project's YAML library).
pub fn documents(yaml: &str) -> Vec<serde_json::Value> {
    jax_runtimes::yaml::parse_stream(yaml).expect("the output parses as YAML")
}

/// Writes documents as a YAML stream (JSON documents are valid YAML).
pub fn write_stream(path: &Path, docs: &[serde_json::Value]) {
    let text: Vec<String> = docs.iter().map(|d| serde_json::to_string_pretty(d).unwrap()).collect();
    std::fs::write(path, text.join("\n---\n") + "\n").unwrap();
}

pub fn name_of(doc: &serde_json::Value) -> &str {
    doc["metadata"]["name"].as_str().expect("metadata.name")
}

/// The test catalog owned by the e2e tests.
pub fn fixture_catalog() -> PathBuf {
    root().join("tests/fixtures/e2e/catalog.yaml")
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

/// Set `UPDATE_GOLDEN=1` (or the older `UPDATE_DOCS=1` / `JAX_RUNTIMES_BLESS=1`) to rewrite
/// committed expected files from the current output instead of comparing.
pub fn bless() -> bool {
    ["UPDATE_GOLDEN", "UPDATE_DOCS", "JAX_RUNTIMES_BLESS"].iter().any(|k| std::env::var(k).is_ok_and(|v| v == "1"))
}
