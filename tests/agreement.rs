//! One verdict per question: every runtime and TrainJob fixture of the suite (the validate
//! corpora, tests/validate/corpus.yaml and kubernetes.yaml, the TrainJob corpus,
//! tests/trainjob/corpus.yaml, and the public-manifest corpus, tests/public/) goes through
//! `validate`, `fit` and `preview` (each TrainJob of the file), as a user would run them on the
//! same file, and the three must agree object by object:
//! - an object `validate` has an error on is an `invalid` row in `fit` (never "yes"), a TrainJob
//!   on such a runtime too, and `fit` and `preview` then exit non-zero;
//! - an object `validate` passes is placed by `fit` (whatever the nodes say) and previewed by
//!   `preview` with exit 0: no command refuses what another passes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use serde_json::{json, Value};
use support::{run_in, trainjob_corpus, validate_corpus, Run};

/// One CPU node: enough for `fit` to give every valid object a row (it need not fit).
const NODES: &str = "apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: cpu-a
    labels: {kubernetes.io/hostname: cpu-a, kubernetes.io/os: linux, kubernetes.io/arch: amd64}
  status:
    allocatable: {cpu: \"32\", memory: 128Gi, pods: \"110\"}
    conditions: [{type: Ready, status: \"True\"}]
";

/// A fixture as the user's file: its text, the Trainer release to check it for, and the runtimes
/// its TrainJobs may use besides the file's (`--runtimes`).
struct Fixture {
    name: String,
    text: String,
    version: Option<String>,
    runtimes: Option<std::path::PathBuf>,
}

/// The objects a finding or a row is about: `Kind/[namespace/]name`.
fn key(kind: &str, namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) => format!("{kind}/{ns}/{name}"),
        None => format!("{kind}/{name}"),
    }
}

/// A TrainJob on the runtime `rt`, so that `preview` has something to show of a runtime fixture.
fn trainjob_on(rt: &Value) -> Value {
    let kind = rt["kind"].as_str().unwrap_or_default();
    let mut tj = json!({
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "agree"},
        "spec": {"runtimeRef": {"name": rt["metadata"]["name"].clone(), "kind": kind}, "trainer": {}},
    });
    if let Some(ns) = rt["metadata"]["namespace"].as_str() {
        tj["metadata"]["namespace"] = ns.into();
    }
    tj
}

fn fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    let runtime_cases = validate_corpus::corpus().into_iter().chain(validate_corpus::kubernetes_corpus());
    // Cases checked against a CRD of their own are about `--crd`; the rest are what a user's file holds.
    for case in runtime_cases.filter(|c| c.crd.is_none()) {
        let rt = case.object();
        let text =
            format!("{}---\n{}", jax_runtimes::yaml::to_string(&rt).unwrap(), jax_runtimes::yaml::to_string(&trainjob_on(&rt)).unwrap());
        out.push(Fixture { name: format!("validate corpus: {}", case.name), text, version: None, runtimes: None });
    }
    for case in trainjob_corpus::cases() {
        let name = format!("trainjob corpus: {}", case.name);
        out.push(Fixture { name, text: case.text(), version: case.version.clone(), runtimes: None });
    }
    // The public corpus, with Trainer's own runtimes where the reference data is (CI has it).
    let reference = support::reference().map(|r| r.join("kubeflow-trainer-v2.3.0/runtimes"));
    let public = support::root().join("tests/public");
    let mut files: Vec<std::path::PathBuf> = fs::read_dir(&public)
        .unwrap()
        .flat_map(|d| fs::read_dir(d.unwrap().path()).into_iter().flatten())
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    for f in files {
        let name = format!("public corpus: {}", f.strip_prefix(&public).unwrap().display());
        out.push(Fixture { name, text: fs::read_to_string(&f).unwrap(), version: None, runtimes: reference.clone() });
    }
    out
}

/// Each TrainJob of a file: its name, and the runtime it names (`Kind/[namespace/]name`).
fn trainjobs(text: &str) -> Vec<(String, String)> {
    support::parse("case.yaml", text)
        .iter()
        .filter(|d| d.value["kind"] == "TrainJob")
        .filter_map(|d| {
            let tj = &d.value;
            let kind = tj.pointer("/spec/runtimeRef/kind").and_then(Value::as_str).unwrap_or("ClusterTrainingRuntime");
            let ns = tj.pointer("/metadata/namespace").and_then(Value::as_str);
            let runtime = tj.pointer("/spec/runtimeRef/name").and_then(Value::as_str)?;
            let runtime = key(kind, if kind == "TrainingRuntime" { ns } else { None }, runtime);
            Some((tj.pointer("/metadata/name").and_then(Value::as_str)?.to_string(), runtime))
        })
        .collect()
}

/// The objects `validate --format json` has an error on.
fn validate_errors(r: &Run) -> BTreeSet<String> {
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .filter_map(|f| {
            let o = f.get("object")?;
            Some(key(o["kind"].as_str()?, o["namespace"].as_str(), o["name"].as_str()?))
        })
        .collect()
}

/// `fit`'s rows, by object: whether each is `invalid`, and the runtime a TrainJob row runs on.
fn fit_rows(r: &Run) -> BTreeMap<String, (bool, Option<String>)> {
    let rows: Vec<Value> = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    rows.iter()
        .map(|v| {
            let invalid = v["invalid"].as_bool().unwrap_or(false);
            let runtime_ns = if v["kind"] == "TrainingRuntime" { v["namespace"].as_str() } else { None };
            let runtime = key(v["kind"].as_str().unwrap(), runtime_ns, v["runtime"].as_str().unwrap());
            match v["trainJob"].as_str() {
                Some(tj) => (key("TrainJob", v["namespace"].as_str(), tj), (invalid, Some(runtime))),
                None => (runtime, (invalid, None)),
            }
        })
        .collect()
}

/// What one fixture gave: its disagreements, one line each, and how many rows of `fit` were
/// invalid and how many placed (so that the test is seen to cover both).
#[derive(Default)]
struct Outcome {
    disagreements: Vec<String>,
    invalid: usize,
    placed: usize,
}

/// Runs the three commands on one fixture, in `dir`.
fn check(dir: &Path, f: &Fixture) -> Outcome {
    fs::write(dir.join("case.yaml"), &f.text).unwrap();
    let mut version = Vec::new();
    if let Some(v) = &f.version {
        version = vec!["--trainer-version", v.as_str()];
    }
    let runtimes = f.runtimes.as_ref().map(|r| r.to_string_lossy().to_string());
    if let Some(r) = &runtimes {
        version.extend(["--runtimes", r.as_str()]);
    }
    let with = |args: &[&str]| -> Vec<String> { args.iter().chain(&version).map(|s| s.to_string()).collect() };
    let run = |args: Vec<String>| run_in(dir, &args.iter().map(String::as_str).collect::<Vec<_>>(), None);
    let v = run(with(&["validate", "case.yaml", "--format", "json"]));
    let fit = run(with(&["fit", "--nodes", "nodes.yaml", "case.yaml", "--format", "json"]));
    let jobs = trainjobs(&f.text);
    let previews: Vec<(String, String, Run)> =
        jobs.iter().map(|(tj, rt)| (tj.clone(), rt.clone(), run(with(&["preview", "case.yaml", "--name", tj])))).collect();
    let mut out = Outcome::default();
    let mut say = |what: String| out.disagreements.push(format!("{}: {what}", f.name));
    if v.code == 2 {
        // Not readable as objects: the other two must refuse it too.
        if fit.code == 0 || previews.iter().any(|(_, _, p)| p.code == 0) {
            say(format!("validate exit 2, fit exit {}", fit.code));
        }
        return out;
    }
    let errors = validate_errors(&v);
    if v.code == 1 && fit.code == 0 {
        say(format!("validate exit 1 ({errors:?}), fit exit 0"));
    }
    // Each TrainJob's preview fails exactly when validate has an error on it or on its runtime
    // (a TrainJob whose runtime was not given is not previewed: nothing to compare).
    for (tj, rt, p) in &previews {
        if p.stderr.contains("runtime is not among the runtimes given") {
            continue;
        }
        let ns = support::parse("case.yaml", &f.text)
            .iter()
            .find(|d| d.value["kind"] == "TrainJob" && d.value["metadata"]["name"] == tj.as_str())
            .and_then(|d| d.value.pointer("/metadata/namespace").and_then(Value::as_str).map(str::to_string));
        let bad = errors.contains(&key("TrainJob", ns.as_deref(), tj)) || errors.contains(rt);
        if bad != (p.code != 0) {
            say(format!("TrainJob {tj}: validate {}, preview exit {}: {}", if bad { "error" } else { "no error" }, p.code, p.stderr));
        }
    }
    let kinds = ["ClusterTrainingRuntime", "TrainingRuntime", "TrainJob"];
    let docs = support::parse("case.yaml", &f.text);
    if !docs.iter().any(|d| kinds.iter().any(|k| d.value["kind"] == *k)) {
        // Kueue objects alone: nothing for fit to place.
        return out;
    }
    if fit.code == 2 {
        // fit refused the input as unreadable (validate must have an error on it), or could not
        // place a TrainJob whose runtime was not given (validate: not checked against it).
        if v.code == 0 && !fit.stderr.contains("--runtimes PATH") {
            say(format!("validate exit 0, fit exit 2: {}", fit.stderr));
        }
        return out;
    }
    let rows = fit_rows(&fit);
    let named: BTreeSet<&str> =
        docs.iter().filter(|d| d.value["kind"] == "TrainJob").filter_map(|d| d.value["metadata"]["name"].as_str()).collect();
    for (invalid, _) in rows.values() {
        *(if *invalid { &mut out.invalid } else { &mut out.placed }) += 1;
    }
    for (object, (invalid, runtime)) in &rows {
        // A TrainJob with only `generateName` is named by it in fit's row, and has no name in
        // validate's findings.
        let unnamed = runtime.is_some()
            && !named.iter().any(|n| object.ends_with(&format!("/{n}")))
            && errors.iter().any(|e| e.starts_with("TrainJob/") && e.ends_with('/'));
        let expected = errors.contains(object) || unnamed || runtime.as_ref().is_some_and(|r| errors.contains(r));
        if *invalid != expected {
            let fit_says = if *invalid { "invalid" } else { "placed" };
            out.disagreements.push(format!(
                "{}: {object}: validate {}, fit {fit_says}",
                f.name,
                if expected { "error" } else { "no error" }
            ));
        }
    }
    out
}

#[test]
fn validate_fit_and_preview_give_one_verdict_on_every_fixture() {
    let all = fixtures();
    assert!(all.len() > 200, "the corpora hold {} fixtures", all.len());
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    let outcomes: Vec<Outcome> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .chunks(all.len().div_ceil(threads))
            .map(|chunk| {
                s.spawn(move || {
                    let dir = tempfile::tempdir().unwrap();
                    fs::write(dir.path().join("nodes.yaml"), NODES).unwrap();
                    chunk.iter().map(|f| check(dir.path(), f)).collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let found: Vec<&String> = outcomes.iter().flat_map(|o| &o.disagreements).collect();
    let invalid: usize = outcomes.iter().map(|o| o.invalid).sum();
    let placed: usize = outcomes.iter().map(|o| o.placed).sum();
    assert!(
        found.is_empty(),
        "{} disagreements among {} fixtures:\n{}",
        found.len(),
        all.len(),
        found.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
    // Both verdicts are exercised: objects refused and objects placed.
    assert!(invalid >= 50 && placed >= 50, "fit rows: {invalid} invalid, {placed} placed");
    eprintln!(
        "agreement: {} fixtures through validate, fit and preview: {invalid} fit rows invalid, {placed} placed, no disagreement",
        all.len()
    );
}

/// A catalog with a queue, as a user's CI holds it: rendered into a folder (runtimes, the
/// LocalQueue `cpu` in `research` and its ClusterQueue), and a TrainJob whose queue label has a
/// typo. Given positionally, as `--runtimes DIR` or as `--runtimes catalog.yaml`, validate, fit
/// and preview find the same unknown LocalQueue, and exit 1; the TrainJob with the right label
/// passes all three in every form.
#[test]
fn a_runtimes_folder_and_the_same_files_given_positionally_give_one_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("nodes.yaml"), NODES).unwrap();
    fs::write(
        d.join("catalog.yaml"),
        "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: jax-cpu}\nspec: {accelerator: {cpu: {}}, resources: {requests: {cpu: '2', memory: 4Gi}}}\n---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeQueue\nmetadata: {name: cpu}\nspec: {namespaces: [research]}\n",
    )
    .unwrap();
    let r = run_in(d, &["render", "catalog.yaml", "-o", "deploy"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let job = |queue: &str| {
        format!("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: train\n  namespace: research\n  labels: {{kueue.x-k8s.io/queue-name: {queue}}}\nspec:\n  runtimeRef: {{name: jax-cpu}}\n")
    };
    fs::write(d.join("typo.yaml"), job("cpus")).unwrap();
    fs::write(d.join("right.yaml"), job("cpu")).unwrap();
    let forms: [&[&str]; 3] = [&["deploy"], &["--runtimes", "deploy"], &["--runtimes", "catalog.yaml"]];
    for form in forms {
        for (file, bad) in [("typo.yaml", true), ("right.yaml", false)] {
            let with = |cmd: &[&str]| -> Vec<String> { cmd.iter().chain(form).chain(&[file]).map(|s| s.to_string()).collect() };
            let run = |args: Vec<String>| run_in(d, &args.iter().map(String::as_str).collect::<Vec<_>>(), None);
            let v = run(with(&["validate", "--format", "json"]));
            let f = run(with(&["fit", "--nodes", "nodes.yaml", "--format", "json"]));
            let what = format!("{file} with {form:?}");
            let unknown = |r: &Run| r.all().contains("kueue/unknown-local-queue");
            if bad {
                assert!(v.code == 1 && unknown(&v), "validate {what}: {}", v.all());
                assert!(f.code == 1 && unknown(&f), "fit {what}: {}", f.all());
                let rows: Vec<Value> = serde_json::from_str(&f.stdout).unwrap();
                let row = rows.iter().find(|r| r["trainJob"] == "train").unwrap_or_else(|| panic!("no row for train: {}", f.stdout));
                assert_eq!(row["invalid"], true, "{what}: {row:#}");
            } else {
                assert!(v.code == 0 && !unknown(&v), "validate {what}: {}", v.all());
                assert!(!unknown(&f), "fit {what}: {}", f.all());
            }
            if form[0] == "--runtimes" {
                let p = run(with(&["preview"]));
                assert_eq!(p.code != 0, bad, "preview {what}: {}", p.all());
                assert_eq!(unknown(&p), bad, "preview {what}: {}", p.all());
            }
        }
    }
}

/// A TrainJob with only `generateName` has one name in every command: the name the API server
/// generates (`cpu-smoke-xxxxx`, `x` for each random character). preview's hostname, subdomain,
/// JobSet name and coordinator address follow it (never `-node-0-0` or an empty subdomain), fit's
/// row and `preview --name` use it, and validate passes the TrainJob.
#[test]
fn a_generate_name_trainjob_has_one_name_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("nodes.yaml"), NODES).unwrap();
    fs::write(
        d.join("catalog.yaml"),
        "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: jax-cpu}\nspec: {accelerator: {cpu: {}}, resources: {requests: {cpu: '2', memory: 4Gi}}}\n",
    )
    .unwrap();
    let job = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {generateName: cpu-smoke-, namespace: ci}\nspec:\n  runtimeRef: {name: jax-cpu}\n  trainer: {numNodes: 2}\n";
    fs::write(d.join("job.yaml"), job).unwrap();
    let name = "cpu-smoke-xxxxx";
    let v = run_in(d, &["validate", "job.yaml", "--runtimes", "catalog.yaml"], None);
    assert_eq!(v.code, 0, "{}", v.all());
    let f = run_in(d, &["fit", "--nodes", "nodes.yaml", "--runtimes", "catalog.yaml", "job.yaml", "--format", "json"], None);
    let rows: Vec<Value> = serde_json::from_str(&f.stdout).unwrap_or_else(|e| panic!("{e}: {}", f.all()));
    assert_eq!(rows.len(), 1, "{}", f.stdout);
    assert_eq!(rows[0]["trainJob"], name, "{:#}", rows[0]);
    for pick in [None, Some(name), Some("cpu-smoke-")] {
        let mut args = vec!["preview", "job.yaml", "--runtimes", "catalog.yaml", "--process", "1"];
        if let Some(n) = pick {
            args.extend(["--name", n]);
        }
        let p = run_in(d, &args, None);
        assert_eq!(p.code, 0, "{pick:?}: {}", p.all());
        let pod = &p.stdout;
        for want in [
            format!("hostname: {name}-node-0-1"),
            format!("subdomain: {name}"),
            format!("jobset.sigs.k8s.io/jobset-name: {name}"),
            format!("value: {name}-node-0-0.{name}:"),
        ] {
            assert!(pod.contains(&want), "{pick:?}: no `{want}` in\n{pod}");
        }
        assert!(!pod.contains(" -node-0") && !pod.contains("subdomain: \"\""), "{pod}");
    }
    let typo = run_in(d, &["preview", "job.yaml", "--runtimes", "catalog.yaml", "--name", "cpu-smoke-xxxx"], None);
    assert_eq!(typo.code, 2, "{}", typo.all());
    assert!(typo.stderr.contains(&format!("did you mean `{name}`?")), "{}", typo.stderr);
}
