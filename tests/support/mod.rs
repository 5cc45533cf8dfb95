//! Shared by every test binary (`mod support;`): the project root, the binary, running it, and
//! the real components the tests use (the upstream reference data, kpt, kubectl, the Python venv
//! that tests/run creates). A component that is missing fails the test with what to do. The one
//! exception is the upstream reference data, which a user's clone may lack: see [`reference`].

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
    let mut cmd = cli(args);
    cmd.current_dir(cwd);
    Run::of(feed(cmd, stdin.unwrap_or_default()))
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

pub mod controlplane;
pub mod examples;
pub mod judge;
pub mod mutations;
pub mod reference;
pub mod trainjob_corpus;
pub mod validate_corpus;
pub use reference::reference;

/// The Trainer runtime CRDs of the reference data (`None`: see [`reference()`]).
pub fn reference_crd_files() -> Option<Vec<PathBuf>> {
    let crds = reference()?.join(reference::TRAINER).join("crds");
    Some(vec![crds.join("trainer.kubeflow.org_clustertrainingruntimes.yaml"), crds.join("trainer.kubeflow.org_trainingruntimes.yaml")])
}

/// The Kueue v0.19.2 CRD files of the reference data (`None`: see [`reference()`]).
pub fn kueue_crd_files() -> Option<Vec<PathBuf>> {
    let dir = reference()?.join("kueue-v0.19.2/crds");
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "yaml")).collect();
    files.sort();
    assert_eq!(files.len(), 8, "the eight Kueue v0.19.2 CRDs in {}", dir.display());
    Some(files)
}

/// A program the end-to-end tests run (kpt, kubectl). Missing, the test fails.
pub fn tool(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file()).unwrap_or_else(|| {
        panic!("`{name}` is not on PATH; the end-to-end tests need it (kpt 1.0.0-beta.56, kubectl 1.32); .ci/run installs what CI needs")
    })
}

/// Says that the calling test needs `what` of tests/tiers.txt (`venv`, `podman`): under
/// `tests/run --quick`, which sets up neither, a test that is not listed there fails here.
pub fn needs(what: &str) {
    let quick = std::env::var("JAX_RUNTIMES_TIER").is_ok_and(|t| t == "quick");
    assert!(
        !quick,
        "{}::{} needs `{what}`, which tests/run --quick does not set up: list it in tests/tiers.txt (`{what} BINARY [TEST]`)",
        env!("CARGO_CRATE_NAME"),
        std::thread::current().name().unwrap_or("?")
    );
}

/// The venv interpreter that tests/run creates (JAX on CPU, the Kubeflow SDK, jsonschema).
/// Unset, the test fails: run the tests through tests/run.
pub fn python() -> PathBuf {
    needs("venv");
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

/// A fresh folder holding `files` (name, text).
pub fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// A catalog entry of a CPU runtime with `image`.
pub fn entry(name: &str, image: &str) -> String {
    format!("apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {{name: {name}}}\nspec:\n  image: '{image}'\n  accelerator: {{cpu: {{}}}}\n")
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

/// The runtimes of a rendered stream (ClusterTrainingRuntime, TrainingRuntime), without what
/// render writes beside them (Kueue objects, a DRA fabric's ResourceClaimTemplates), as YAML.
pub fn runtimes_only(yaml: &str) -> String {
    let docs: Vec<serde_json::Value> =
        documents(yaml).into_iter().filter(|d| d["kind"].as_str().is_some_and(|k| k.ends_with("TrainingRuntime"))).collect();
    let text: Vec<String> = docs.iter().map(|d| jax_runtimes::yaml::to_string(d).unwrap()).collect();
    text.join("---\n")
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

/// The pod template of a runtime's `node` replicated job (the one Trainer runs the training in):
/// `spec.template.spec.replicatedJobs[name=node].template.spec.template`.
pub fn node_template(runtime: &serde_json::Value) -> &serde_json::Value {
    let jobs = runtime["spec"]["template"]["spec"]["replicatedJobs"].as_array().expect("spec.template.spec.replicatedJobs");
    let job =
        jobs.iter().find(|j| j["name"] == "node").unwrap_or_else(|| panic!("no replicatedJob `node` in {}", runtime["metadata"]["name"]));
    &job["template"]["spec"]["template"]
}

/// The pod spec of a runtime's `node` replicated job.
pub fn node_pod(runtime: &serde_json::Value) -> &serde_json::Value {
    &node_template(runtime)["spec"]
}

/// The container named `node` of a pod spec (a runtime's, or one of the pods Trainer makes).
pub fn container_node(pod_spec: &serde_json::Value) -> &serde_json::Value {
    let containers = pod_spec["containers"].as_array().expect("containers");
    containers.iter().find(|c| c["name"] == "node").unwrap_or_else(|| panic!("no container `node` in {pod_spec}"))
}

/// The `node` container of a runtime's `node` replicated job: the one way the tests find it.
pub fn node_container(runtime: &serde_json::Value) -> &serde_json::Value {
    container_node(node_pod(runtime))
}

/// The proptest configuration of every property test: `PROPTEST_CASES` cases (default 64), and
/// no failure files written into the tree (a failing case is printed, with its seed).
pub fn proptest_config() -> proptest::test_runner::Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64);
    proptest::test_runner::Config { cases, failure_persistence: None, ..proptest::test_runner::Config::default() }
}

/// The one way the tests start the binary: `jax-runtimes ARGS` in the project root, stdin empty,
/// stdout and stderr captured by `.output()`. Callers add what they need (`current_dir`, `env`,
/// more `args`), or hand it to [`feed`] for input on stdin.
pub fn cli(args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args(args).current_dir(root()).stdin(Stdio::null());
    c
}

/// Runs `cmd` with `stdin` on its standard input and returns what it printed. The program may
/// exit before reading everything (bad input): that is not an error here.
pub fn feed(mut cmd: Command, stdin: &[u8]) -> Output {
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("start the program");
    {
        let mut i = child.stdin.take().expect("stdin");
        let _ = i.write_all(stdin);
    }
    child.wait_with_output().expect("wait for the program")
}
