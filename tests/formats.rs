//! Issue 43 item 2: the findings documents are ones real consumers accept. Every command that
//! reports findings (`validate`, `render`, `kueue`, `docs`) runs on inputs that give errors,
//! warnings and infos, with and without lines, a stale folder, a file that is not YAML and
//! stdin; each document is checked against what reads it:
//! - `sarif`: the OASIS SARIF 2.1.0 JSON schema (in-process, `jsonschema`), and what GitHub code
//!   scanning needs besides: every result has a location with an artifact, a folder no region;
//! - `junit`: the Apache Ant JUnit schema and the Jenkins xunit plugin's `junit-10.xsd`, with
//!   `xmllint --schema` (Debian: libxml2-utils; tests/run installs it);
//! - `github`: every line one well-formed workflow command;
//! - `json`: one array of findings.
//!
//! The schemas, their sources and licences: tests/formats/README.md.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use support::{dir_with, entry, Run};

fn run(dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    support::run_in(dir, args, stdin.map(str::as_bytes))
}

fn schemas() -> PathBuf {
    support::root().join("tests/formats")
}

/// The one findings document of a run. `validate` and `fit` (with a findings format) print
/// nothing else, on stdout. The generators (`render`, `kueue`, `docs`) print what they generate,
/// or the `--check` diff, on stdout, and `preview` the pod: their document is on stderr.
fn document<'a>(command: &str, r: &'a Run) -> &'a str {
    if ["validate", "fit"].contains(&command) && !r.stdout.is_empty() {
        &r.stdout
    } else {
        &r.stderr
    }
}

/// `xmllint`, which the JUnit checks run.
fn xmllint() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|d| d.join("xmllint")).find(|p| p.is_file()).unwrap_or_else(|| {
        panic!("`xmllint` is not on PATH: the JUnit reports are checked with `xmllint --schema` (Debian and Ubuntu: apt-get install libxml2-utils; tests/run installs it as root)")
    })
}

/// What was checked, for the closing count.
#[derive(Default)]
struct Count {
    sarif: usize,
    junit: usize,
    github: usize,
    json: usize,
    results: usize,
    regions: usize,
}

struct Checker {
    sarif: jsonschema::Validator,
    xmllint: PathBuf,
    tmp: tempfile::TempDir,
    count: Count,
}

impl Checker {
    fn new() -> Checker {
        let text = fs::read_to_string(schemas().join("sarif-schema-2.1.0.json")).unwrap();
        let schema: Value = serde_json::from_str(&text).unwrap();
        let sarif = jsonschema::options().should_validate_formats(true).build(&schema).expect("the SARIF 2.1.0 schema compiles");
        Checker { sarif, xmllint: xmllint(), tmp: tempfile::tempdir().unwrap(), count: Count::default() }
    }

    /// Runs `args` (after `--format FORMAT` is added) in `dir` for each format, and checks each
    /// document. `code`: the exit code every format gives.
    fn check(&mut self, dir: &Path, args: &[&str], stdin: Option<&str>, code: i32) {
        let command = args[0];
        // fit's `--format json` is its answer, not findings (tests/fit.rs).
        let formats: &[&str] = if command == "fit" { &["github", "sarif", "junit"] } else { &["json", "github", "sarif", "junit"] };
        for &format in formats {
            let mut all = args.to_vec();
            all.extend(["--format", format]);
            let r = run(dir, &all, stdin);
            let what = format!("jax-runtimes {}", all.join(" "));
            assert_eq!(r.code, code, "{what}: {}", r.all());
            let doc = document(command, &r);
            match format {
                "json" => self.json(&what, doc),
                "github" => self.github(&what, doc),
                "sarif" => self.sarif(&what, doc),
                _ => self.junit(&what, doc),
            }
        }
    }

    fn json(&mut self, what: &str, doc: &str) {
        let findings: Vec<Value> = serde_json::from_str(doc).unwrap_or_else(|e| panic!("{what}: not one JSON document: {e}\n{doc}"));
        for f in &findings {
            assert!(["error", "warning", "info"].contains(&f["severity"].as_str().unwrap()), "{what}: {f}");
            assert!(f["rule"].is_string() && f["message"].is_string() && f["docs"].is_string(), "{what}: {f}");
        }
        self.count.json += 1;
    }

    /// Every line a workflow command the Actions runner reads: `::error|warning|notice`, then
    /// `key=value` properties (comma-separated, `:` and `,` in a value escaped), `::`, and the
    /// message with CR and LF escaped.
    fn github(&mut self, what: &str, doc: &str) {
        let command = regex::Regex::new(r"^::(error|warning|notice)(?: ([^:]*))?::(.*)$").unwrap();
        let property = regex::Regex::new(r"^(file|line|col|endLine|endColumn|title)=([^:,]*)$").unwrap();
        for line in doc.lines() {
            let c = command.captures(line).unwrap_or_else(|| panic!("{what}: not a workflow command: {line}"));
            let mut keys = Vec::new();
            for p in c.get(2).map(|m| m.as_str().split(',')).into_iter().flatten() {
                let m = property.captures(p).unwrap_or_else(|| panic!("{what}: property `{p}` in {line}"));
                let (key, value) = (&m[1], &m[2]);
                assert!(!keys.contains(&key.to_string()), "{what}: `{key}` twice in {line}");
                keys.push(key.to_string());
                if ["line", "col", "endLine", "endColumn"].contains(&key) {
                    assert!(value.parse::<u32>().is_ok_and(|n| n >= 1), "{what}: {key}={value} in {line}");
                }
                // What is escaped is a `%` and two hex digits.
                assert!(value.split('%').skip(1).all(|rest| rest.len() >= 2 && rest[..2].chars().all(|c| c.is_ascii_hexdigit())), "{line}");
            }
            if keys.iter().any(|k| k == "line") {
                assert!(keys.iter().any(|k| k == "file"), "{what}: a line without its file: {line}");
            }
            assert!(!c[3].is_empty() && !c[3].contains('\r'), "{what}: {line}");
            assert!(c[3].contains("%0Adocs: https://"), "{what}: the docs link: {line}");
        }
        assert!(doc.is_empty() || doc.ends_with('\n'), "{what}: {doc}");
        self.count.github += 1;
    }

    /// The SARIF 2.1.0 schema, and what GitHub code scanning reads besides: every result has a
    /// location with an artifact; a result with a real file points at it (a folder with a
    /// trailing `/` and no region); a result without one at the first file the run names, or, with
    /// none at all (stdin only, or the built-in catalog), at a described or built-in artifact.
    fn sarif(&mut self, what: &str, doc: &str) {
        let log: Value = serde_json::from_str(doc).unwrap_or_else(|e| panic!("{what}: not one JSON document: {e}\n{doc}"));
        let errors: Vec<String> = self.sarif.iter_errors(&log).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{what}: not valid SARIF 2.1.0:\n{}\n{doc}", errors.join("\n"));
        let run = &log["runs"][0];
        let results = run["results"].as_array().unwrap();
        let real = |f: &str| !f.starts_with('<') && !f.starts_with("builtin:");
        let any_file = results.iter().any(|r| r["properties"]["file"].as_str().is_some_and(real));
        for r in results {
            let loc = &r["locations"].as_array().unwrap_or_else(|| panic!("{what}: a result without locations: {r}"))[0];
            let artifact = &loc["physicalLocation"]["artifactLocation"];
            let uri = artifact["uri"].as_str();
            match r["properties"]["file"].as_str() {
                Some(file) if real(file) => {
                    let uri = uri.unwrap_or_else(|| panic!("{what}: no uri for {file}: {r}"));
                    if r["ruleId"].as_str().unwrap().starts_with("output/") {
                        assert!(uri.ends_with('/') && loc["physicalLocation"].get("region").is_none(), "{what}: a folder: {r}");
                    } else {
                        assert_eq!(uri.trim_end_matches('/'), file.replace(' ', "%20").trim_end_matches('/'), "{what}: {r}");
                    }
                    if let Some(region) = loc["physicalLocation"].get("region") {
                        assert!(region["startLine"].as_u64().is_some_and(|l| l >= 1), "{what}: {r}");
                        self.count.regions += 1;
                    }
                }
                Some(file) if file.starts_with("builtin:") => {
                    assert_eq!(artifact["uriBaseId"], "JAXRUNTIMES_BUILTIN", "{what}: {r}");
                    assert!(run["originalUriBaseIds"]["JAXRUNTIMES_BUILTIN"]["uri"].is_string(), "{what}: {run}");
                }
                Some(_) => assert!(artifact["description"]["text"].is_string(), "{what}: a stand-in is described: {r}"),
                // No file: the first of the files it names (the summary of the TrainJob-name
                // infos over several files), else the first file the run names, when there is one.
                None if r["properties"]["files"].is_array() => {
                    let first = r["properties"]["files"][0].as_str().unwrap().replace(' ', "%20");
                    assert_eq!(uri, Some(first.as_str()), "{what}: {r}");
                }
                None if any_file => assert!(uri.is_some_and(|u| !u.is_empty()), "{what}: {r}"),
                None => assert!(uri.is_some() || artifact["description"]["text"].is_string(), "{what}: {r}"),
            }
        }
        self.count.results += results.len();
        self.count.sarif += 1;
    }

    /// Both JUnit schemas, with xmllint.
    fn junit(&mut self, what: &str, doc: &str) {
        assert!(doc.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"), "{what}: {doc}");
        for (xsd, errors) in self.xsd_errors(doc) {
            assert!(errors.is_empty(), "{what}: not valid against {xsd}:\n{errors}\n{doc}");
        }
        self.count.junit += 1;
    }

    /// What `xmllint --schema` says of `doc` against each JUnit schema (empty: valid).
    fn xsd_errors(&self, doc: &str) -> Vec<(&'static str, String)> {
        let file = self.tmp.path().join("report.xml");
        fs::write(&file, doc).unwrap();
        ["JUnit.xsd", "junit-10.xsd"]
            .into_iter()
            .map(|xsd| {
                let out = Command::new(&self.xmllint).arg("--noout").arg("--schema").arg(schemas().join(xsd)).arg(&file).output().unwrap();
                let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
                (xsd, if out.status.success() { String::new() } else { stderr })
            })
            .collect()
    }
}

/// The checks can fail: the schemas refuse what their consumers refuse (a SARIF level that is
/// not one; a JUnit report as jax-runtimes wrote it before, without a suite's `errors`).
#[test]
fn the_schemas_refuse_what_their_consumers_refuse() {
    let c = Checker::new();
    let log = |level: &str| serde_json::json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": [{"message": {"text": "m"}, "level": level}]}]});
    assert!(c.sarif.is_valid(&log("note")));
    assert!(!c.sarif.is_valid(&log("info")), "SARIF has no level `info`");
    let old = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"jax-runtimes validate\" tests=\"1\" failures=\"0\">\n  <testsuite name=\"a.yaml\" tests=\"1\" failures=\"0\">\n    <testcase name=\"r a.yaml\" classname=\"r\">\n      <system-out>info: m</system-out>\n    </testcase>\n  </testsuite>\n</testsuites>\n";
    let errors = c.xsd_errors(old);
    assert!(errors.iter().all(|(_, e)| !e.is_empty()), "{errors:?}");
    assert!(errors[1].1.contains("The attribute 'errors' is required"), "{}", errors[1].1);
}

/// A file that is valid YAML but no object, one that is not YAML, a runtime with a misspelt
/// field, a TrainJob whose name is too long, two runtimes in two files (the TrainJob-name infos
/// summed up over both), stdin: `validate` in each format.
#[test]
fn every_findings_document_is_valid_for_its_consumers() {
    let mut c = Checker::new();
    let base = tempfile::tempdir().unwrap();
    let r = run(base.path(), &["render", &support::root().join("catalog/runtimes/cpu.yaml").display().to_string()], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let runtimes = r.stdout;
    let one = runtimes.split("\n---\n").next().unwrap().to_string();
    let long_name = "x".repeat(70);
    let trainjob = format!(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {{name: {long_name}, namespace: default}}\nspec:\n  runtimeRef: {{name: jax-cpu-multinode, kind: ClusterTrainingRuntime, apiGroup: trainer.kubeflow.org}}\n"
    );
    let misspelt = one.replacen("numNodes:", "numNode:", 1);
    assert_ne!(misspelt, one);
    let dir = dir_with(&[
        ("rt.yaml", &runtimes),
        ("one.yaml", &one),
        ("two.yaml", runtimes.split("\n---\n").nth(1).unwrap()),
        ("misspelt runtime.yaml", &misspelt),
        ("tj.yaml", &trainjob),
        ("not-yaml.yaml", "a: [b\n  c: {\n\t- ]: :\n"),
        ("bad-image.yaml", &entry("a", "my image:1")),
        ("good.yaml", &entry("b", "ghcr.io/org/jax:1")),
    ]);
    let d = dir.path();

    // validate: an error with a line (the misspelt field, in a file whose name needs escaping).
    c.check(d, &["validate", "misspelt runtime.yaml"], None, 1);
    // Errors and warnings with lines (the TrainJob), infos without (the runtimes' name room).
    c.check(d, &["validate", "rt.yaml", "tj.yaml"], None, 1);
    c.check(d, &["validate", "rt.yaml", "tj.yaml", "--min-severity", "info", "--fail-on", "warning"], None, 1);
    // Infos only, over two files: the summary names no file.
    c.check(d, &["validate", "one.yaml", "two.yaml"], None, 0);
    // Not YAML.
    c.check(d, &["validate", "not-yaml.yaml"], None, 1);
    // Stdin: no file to point at.
    c.check(d, &["validate", "-"], Some(&trainjob), 1);

    // render: the built-in catalog, clean (infos with --min-severity info); a catalog file with
    // an error at its line; a stale folder (output/stale).
    c.check(d, &["render", "--min-severity", "info"], None, 0);
    c.check(d, &["render", "bad-image.yaml"], None, 1);
    assert_eq!(run(d, &["render", "good.yaml", "-o", "out"], None).code, 0);
    fs::remove_file(d.join("out/clustertrainingruntime_b.yaml")).unwrap();
    c.check(d, &["render", "good.yaml", "-o", "out", "--check"], None, 1);

    // docs: an error at its line, and a stale folder.
    c.check(d, &["docs", "bad-image.yaml", "-o", "pages"], None, 1);
    assert_eq!(run(d, &["docs", "good.yaml", "-o", "pages"], None).code, 0);
    fs::remove_file(d.join("pages/b.md")).unwrap();
    c.check(d, &["docs", "good.yaml", "-o", "pages", "--check"], None, 1);

    // kueue: a cluster of CPU nodes only; the built-in catalog's TPU and GPU runtimes are left
    // out with a warning.
    let node = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: cpu-0, labels: {kubernetes.io/hostname: cpu-0, kubernetes.io/os: linux, kubernetes.io/arch: amd64}}\n  status:\n    allocatable: {cpu: '16', memory: 64Gi, pods: '110'}\n    capacity: {cpu: '16', memory: 64Gi, pods: '110'}\n    conditions: [{type: Ready, status: 'True'}]\n";
    fs::write(d.join("nodes.yaml"), node).unwrap();
    c.check(d, &["kueue", "--nodes", "nodes.yaml", "--fail-on", "warning"], None, 1);
    c.check(d, &["kueue", "--nodes", "nodes.yaml", "bad-image.yaml"], None, 1);

    // fit: a runtime that does not fit the CPU nodes (a finding at its catalog line), a TrainJob
    // whose runtime is not given, and one that fits (no finding, exit 0).
    c.check(d, &["fit", "--nodes", "nodes.yaml", &support::root().join("catalog/runtimes/tpu-v5e.yaml").display().to_string()], None, 1);
    c.check(d, &["fit", "--nodes", "nodes.yaml", "tj.yaml"], None, 1);
    c.check(d, &["fit", "--nodes", "nodes.yaml", "one.yaml"], None, 0);
    // preview: the pod on stdout, the findings (the TrainJob's name is too long) on stderr.
    c.check(d, &["preview", "tj.yaml", "--runtimes", "rt.yaml"], None, 1);

    let n = &c.count;
    assert!(n.results > 15 && n.regions > 5, "the SARIF documents hold {} results, {} with a line", n.results, n.regions);
    eprintln!(
        "validated {} documents: {} SARIF ({} results) against sarif-schema-2.1.0.json, {} JUnit against JUnit.xsd and junit-10.xsd, {} github, {} JSON",
        n.sarif + n.junit + n.github + n.json,
        n.sarif,
        n.results,
        n.junit,
        n.github,
        n.json
    );
}
