//! `jax-runtimes validate`: the mutation corpus (tests/validate/corpus.yaml) and the Kubernetes
//! corpus (tests/validate/kubernetes.yaml, mistakes and legal look-alikes), no false positive
//! on upstream runtimes or the built-in catalog, the `--crd` cross-check against Python
//! jsonschema, the CLI and KRM front doors, and docs/rules.md kept in step with the rule table.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use jax_runtimes::diag::{Diagnostic, Severity};
use jax_runtimes::read::{self, Document};
use jax_runtimes::rules::{self, Layer};
use jax_runtimes::validate::{self, Options};
use serde_json::{json, Value};
use support::examples::{self, finding_blocks, terminal};
use support::validate_corpus::{apply, base, corpus, kubernetes_corpus, Case, Op};
use support::{copy_dir, parse, path_with_bin, reference, reference_crd_files, root, tool};

/// The upstream Trainer CRDs, compiled once for the whole test binary (`None`: the reference
/// data is not there, and the calling test does not run: see support::reference).
fn reference_options() -> Option<Options> {
    static OPTS: OnceLock<Options> = OnceLock::new();
    let files = reference_crd_files()?;
    Some(OPTS.get_or_init(|| Options::with_crd_files(&files).expect("reference CRDs load")).clone())
}

fn problems(diags: &[Diagnostic]) -> Vec<&Diagnostic> {
    diags.iter().filter(|d| d.severity >= Severity::Warning).collect()
}

fn show(diags: &[Diagnostic]) -> String {
    diags.iter().map(|d| format!("  {d}\n")).collect()
}

// ---------------------------------------------------------------------------------------------
// Mutation corpus (its cases: tests/support/validate_corpus.rs)

/// The options a case without `crd: reference` is checked with.
fn options_for(case: &Case) -> Options {
    match case.crd.as_deref() {
        None => Options::default(),
        Some("reference") => panic!("{}: a case against the upstream CRD runs in its own test", case.name),
        Some(file) => Options::with_crd_files(&[root().join(file)]).expect("CRD loads"),
    }
}

/// Runs one case through the same path the CLI takes: YAML text -> documents -> findings.
fn run_case(case: &Case, opts: &Options) -> (String, Vec<Diagnostic>) {
    let text = jax_runtimes::yaml::to_string(&case.object()).expect("serializes");
    let docs = parse("case.yaml", &text);
    (text, validate::objects(&docs, opts))
}

const BASES: [&str; 4] = ["tpu", "gpu", "cpu", "initializers"];

#[test]
fn every_base_is_clean() {
    for name in BASES {
        let text = serde_json::to_string(&base(name)).unwrap();
        let docs = parse(name, &text);
        // Clean: nothing but the info that says how long its TrainJob names may be.
        let d = validate::objects(&docs, &Options::default());
        assert!(d.iter().all(|d| d.rule.id == "jobset/trainjob-name-length"), "base {name} must be clean:\n{}", show(&d));
    }
}

#[test]
fn every_base_is_clean_against_the_upstream_crd() {
    let Some(opts) = reference_options() else { return };
    for name in BASES {
        let text = serde_json::to_string(&base(name)).unwrap();
        let docs = parse(name, &text);
        let d = validate::objects(&docs, &opts);
        assert!(d.iter().all(|d| d.rule.id == "jobset/trainjob-name-length"), "base {name} must be clean against the CRD:\n{}", show(&d));
    }
}

/// Corpus cases checked against the upstream Trainer CRDs (`crd: reference`) or not.
fn against_upstream(case: &Case) -> bool {
    case.crd.as_deref() == Some("reference")
}

#[test]
fn mutation_corpus_each_case_reports_its_rule_at_its_field() {
    let cases: Vec<Case> = corpus().into_iter().filter(|c| !against_upstream(c)).collect();
    let failures = run_corpus(&cases);
    assert!(failures.is_empty(), "{} corpus failure(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn mutation_corpus_cases_against_the_upstream_crd_report_their_rule_at_their_field() {
    let Some(opts) = reference_options() else { return };
    let cases: Vec<Case> = corpus().into_iter().filter(against_upstream).collect();
    assert!(cases.len() >= 8, "the corpus checks the CRD and CEL rules against the upstream CRD");
    let failures = run_corpus_with(&cases, |_| opts.clone());
    assert!(failures.is_empty(), "{} corpus failure(s):\n{}", failures.len(), failures.join("\n"));
}

/// Runs every case: a mistake must report its rule at its field (located, with help) and
/// nothing else; a legal look-alike must report no error or warning.
fn run_corpus(cases: &[Case]) -> Vec<String> {
    run_corpus_with(cases, options_for)
}

fn run_corpus_with(cases: &[Case], options: impl Fn(&Case) -> Options) -> Vec<String> {
    let mut failures = Vec::new();
    assert!(!cases.is_empty());
    for case in cases {
        let opts = options(case);
        let (text, diags) = run_case(case, &opts);
        let Some(expect) = &case.expect else {
            let found = problems(&diags);
            if !found.is_empty() {
                failures.push(format!(
                    "{}: a legal look-alike was reported:\n{}",
                    case.name,
                    found.iter().map(|d| format!("  {d}\n")).collect::<String>()
                ));
            }
            continue;
        };
        let hit = diags.iter().find(|d| d.rule.id == expect.rule && d.field.as_deref().unwrap_or("") == expect.field);
        let Some(hit) = hit else {
            failures.push(format!("{}: expected {} at `{}`, got:\n{}", case.name, expect.rule, expect.field, show(&diags)));
            continue;
        };
        let want = expect.severity.clone().unwrap_or(rule(&expect.rule).severity.to_string());
        if hit.severity.to_string() != want {
            failures.push(format!("{}: {} has severity {}, expected {want}", case.name, hit.rule, hit.severity));
        }
        // Located: the file, an object, a line, and (for a field that is in the text) that line.
        assert_eq!(hit.file.as_deref(), Some("case.yaml"), "{}", case.name);
        assert!(hit.object.is_some() && hit.help.is_some(), "{}: finding lacks object or help", case.name);
        // The TrainJob-name info, which every runtime gets, names its file and object only.
        if expect.rule == "jobset/trainjob-name-length" {
            assert_eq!(hit.line, None, "{}: the info is not looked up in the text", case.name);
        } else {
            let line = hit.line.unwrap_or_else(|| panic!("{}: no line", case.name));
            let key = expect.field.rsplit('.').next().unwrap_or_default();
            // (A field the mistake removed is reported where its parent is.)
            if !key.is_empty() && !key.ends_with(']') && text.contains(&format!("{key}:")) && !expect.rule.ends_with("/required") {
                let at = text.lines().nth(line - 1).unwrap_or_default();
                if !at.contains(key) {
                    failures.push(format!("{}: line {line} is `{at}`, expected it to name `{key}`", case.name));
                }
            }
        }
        let unexpected: Vec<&Diagnostic> =
            problems(&diags).into_iter().filter(|d| d.rule.id != expect.rule && !case.also.iter().any(|a| a == d.rule.id)).collect();
        if !unexpected.is_empty() {
            failures.push(format!(
                "{}: more than the one mistake was reported:\n{}",
                case.name,
                unexpected.iter().map(|d| format!("  {d}\n")).collect::<String>()
            ));
        }
    }
    failures
}

#[test]
fn kubernetes_corpus_finds_each_mistake_and_passes_each_look_alike() {
    let cases = kubernetes_corpus();
    let mistakes = cases.iter().filter(|c| !c.legal).count();
    let legal = cases.iter().filter(|c| c.legal).count();
    assert!(mistakes >= 40 && legal >= 15, "{mistakes} mistakes and {legal} legal look-alikes; the corpus needs 40 and 15");
    for c in &cases {
        assert_eq!(c.legal, c.expect.is_none(), "{}: a case is legal (no expect) or expects a finding", c.name);
        assert!(c.source.as_deref().is_some_and(|s| s.len() > 10), "{}: every case names the upstream source of its rule", c.name);
    }
    let failures = run_corpus(&cases);
    assert!(failures.is_empty(), "{} Kubernetes corpus failure(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn kubernetes_corpus_covers_every_rule_of_the_new_layers() {
    let covered: BTreeSet<String> = kubernetes_corpus().into_iter().filter_map(|c| c.expect.map(|e| e.rule)).collect();
    let new_rules = rules::all().filter(|r| r.layer == Layer::Kubernetes).chain(rules::consistency::RULES.iter().copied());
    let missing: Vec<&str> = new_rules.map(|r| r.id).filter(|id| !covered.contains(*id)).collect();
    assert!(missing.is_empty(), "Kubernetes and consistency rules without a case in tests/validate/kubernetes.yaml: {missing:?}");
}

#[test]
fn kubernetes_corpus_mistakes_also_fail_against_the_reference_crd() {
    // With --crd the structure layer is the CRD's; the Kubernetes layer still reports each
    // mistake (a structural one, such as a quantity pattern, by the CRD's own rule instead).
    let Some(opts) = reference_options() else { return };
    let mut failures = Vec::new();
    for case in kubernetes_corpus() {
        let (_, diags) = run_case(&case, &opts);
        match &case.expect {
            None => {
                let found: Vec<&Diagnostic> = problems(&diags);
                if !found.is_empty() {
                    failures.push(format!(
                        "{}: legal, but with --crd:\n{}",
                        case.name,
                        found.iter().map(|d| format!("  {d}\n")).collect::<String>()
                    ));
                }
            }
            Some(e) => {
                let field = |d: &&Diagnostic| {
                    d.field.as_deref() == Some(e.field.as_str()) || d.field.as_deref().is_some_and(|f| e.field.starts_with(f))
                };
                if !diags.iter().filter(field).any(|d| d.rule.id == e.rule || d.rule.id.starts_with("crd/")) {
                    failures.push(format!("{}: with --crd, nothing at `{}`:\n{}", case.name, e.field, show(&diags)));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn rule(id: &str) -> &'static rules::Rule {
    rules::by_id(id).unwrap_or_else(|| panic!("`{id}` is not a registered rule"))
}

/// Validator rules exercised through the CLI tests below rather than the corpus.
// `dra/device-class` needs a ResourceClaimTemplate beside the runtime, which a corpus case (one
// object) cannot hold: tests/rules/dra.yaml and tests/dra.rs cover it.
const CLI_COVERED: [&str; 2] = ["crd/unusable", "dra/device-class"];

/// The layers whose rules the validator reports (the others belong to the catalog, the KRM
/// function and the inputs, and are covered by tests/rules.rs).
const VALIDATOR_LAYERS: [Layer; 7] =
    [Layer::Schema, Layer::Crd, Layer::Cel, Layer::Admission, Layer::Ecosystem, Layer::Accelerators, Layer::Kubernetes];

#[test]
fn corpus_covers_every_validator_rule_and_uses_only_known_rules() {
    let mut cases = corpus();
    cases.extend(kubernetes_corpus());
    let mut covered: BTreeSet<&str> = cases.iter().filter_map(|c| c.expect.as_ref()).map(|e| e.rule.as_str()).collect();
    covered.extend(CLI_COVERED);
    for c in &cases {
        if let Some(e) = &c.expect {
            rule(&e.rule);
        }
        c.also.iter().for_each(|r| {
            rule(r);
        });
    }
    let missing: Vec<&str> =
        rules::all().filter(|r| VALIDATOR_LAYERS.contains(&r.layer)).map(|r| r.id).filter(|id| !covered.contains(id)).collect();
    assert!(missing.is_empty(), "validator rules without a corpus case: {missing:?}");
}

// ---------------------------------------------------------------------------------------------
// No false positives

fn runtime_docs(dir: &Path) -> Vec<Document> {
    let docs = read::paths(&[dir.to_path_buf()]).into_result().expect("reference runtimes read");
    let runtimes: Vec<Document> = docs.into_iter().filter(|d| validate::is_runtime(&d.value)).collect();
    assert!(runtimes.len() >= 9, "expected the 9 upstream built-in runtimes in {}", dir.display());
    runtimes
}

#[test]
fn upstream_builtin_runtimes_have_no_error() {
    let (Some(reference), Some(with_crd)) = (reference(), reference_options()) else { return };
    let docs = runtime_docs(&reference.join("kubeflow-trainer-v2.3.0/runtimes"));
    for opts in [Options::default(), with_crd] {
        let d = validate::objects(&docs, &opts);
        let errors: Vec<Diagnostic> = d.iter().filter(|d| d.is_error()).cloned().collect();
        assert!(errors.is_empty(), "false positives on upstream runtimes ({opts:?}):\n{}", show(&errors));
        // The only warnings are about the torchtune runtimes' bare GPU request, which is real.
        for w in problems(&d) {
            assert!(w.rule.id.starts_with("accelerator/"), "unexpected warning on an upstream runtime: {w}");
        }
    }
}

fn builtin_runtimes() -> jax_runtimes::pipeline::Generated {
    let docs = read::builtin().into_result().expect("built-in catalog reads");
    jax_runtimes::pipeline::generate(&docs)
}

#[test]
fn builtin_catalog_renders_clean() {
    let generated = builtin_runtimes();
    assert!(generated.diagnostics.iter().all(|d| d.severity < Severity::Warning), "render findings:\n{}", show(&generated.diagnostics));
    assert!(!generated.runtimes.is_empty());
    for r in &generated.runtimes {
        let d = validate::generated(&r.object, &serde_json::from_value(r.object.clone()).unwrap());
        assert!(d.is_empty(), "{}:\n{}", r.file_name, show(&d));
    }
}

#[test]
fn builtin_catalog_passes_the_upstream_crd() {
    let Some(opts) = reference_options() else { return };
    let generated = builtin_runtimes();
    assert!(!generated.runtimes.is_empty());
    for r in &generated.runtimes {
        let d = validate::object(&r.object, &opts);
        assert!(problems(&d).is_empty(), "{} against the upstream CRD:\n{}", r.file_name, show(&d));
    }
}

#[test]
fn generated_reports_a_broken_runtime() {
    // The render-time hook is not a no-op: a broken object fails it.
    let mut v = base("tpu");
    v["spec"]["mlPolicy"]["numNodes"] = json!(3);
    let d = validate::generated(&v, &serde_json::from_value(v.clone()).unwrap());
    assert!(d.iter().any(|d| d.rule.id == "tpu/hosts"), "{}", show(&d));
}

// ---------------------------------------------------------------------------------------------
// --crd agrees with an independent JSON Schema validator

#[test]
fn crd_structure_agrees_with_python_jsonschema() {
    let (Some(reference), Some(opts), Some(crd_files)) = (reference(), reference_options(), reference_crd_files()) else { return };
    let python = support::python();
    // Inputs: the corpus cases checked against the CRD (and their structural mutations applied
    // to every base), the bases, the upstream runtimes, the built-in catalog.
    let mut inputs: Vec<(String, Value)> = Vec::new();
    for name in BASES {
        inputs.push((format!("base/{name}"), base(name)));
    }
    for case in corpus() {
        if case.crd.as_deref() == Some("reference") || case.crd.is_none() {
            let mut v = base(&case.base);
            case.ops.iter().for_each(|op| apply(&mut v, op));
            inputs.push((format!("case/{}", case.name), v));
        }
    }
    for d in runtime_docs(&reference.join("kubeflow-trainer-v2.3.0/runtimes")) {
        inputs.push((format!("upstream/{}", d.source.name), d.value));
    }
    for r in jax_runtimes::pipeline::generate(&read::builtin().into_result().unwrap()).runtimes {
        inputs.push((format!("builtin/{}", r.file_name), r.object));
    }
    let ours: BTreeMap<String, Vec<String>> = inputs
        .iter()
        .map(|(name, v)| {
            let fields: BTreeSet<String> = validate::object(v, &opts)
                .into_iter()
                .filter(|d| d.rule.id.starts_with("crd/"))
                .map(|d| d.field.unwrap_or_default())
                // The object's own metadata is decoded by the API server as ObjectMeta (label
                // values are strings, creationTimestamp a date), outside the CRD's schema, which is
                // all Python's validator sees: `--crd` checks it as the server does.
                .filter(|f| !f.starts_with("metadata."))
                .collect();
            (name.clone(), fields.into_iter().collect())
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("inputs.json");
    let list: Vec<Value> = inputs.iter().map(|(n, v)| json!({"name": n, "object": v})).collect();
    std::fs::write(&input, serde_json::to_string(&list).unwrap()).unwrap();
    let out =
        Command::new(python).arg(root().join("tests/validate/crd_crosscheck.py")).arg(&input).args(crd_files).output().expect("run python");
    assert!(out.status.success(), "crd_crosscheck.py failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let theirs: BTreeMap<String, Vec<String>> = serde_json::from_slice(&out.stdout).expect("crosscheck output is JSON");
    let mut disagree = Vec::new();
    for (name, fields) in &ours {
        let other = theirs.get(name).cloned().unwrap_or_default();
        if *fields != other {
            disagree.push(format!("{name}:\n  jax-runtimes: {fields:?}\n  jsonschema:   {other:?}"));
        }
    }
    assert!(disagree.is_empty(), "--crd disagrees with Python jsonschema:\n{}", disagree.join("\n"));
    // The comparison is not vacuous: both found structural errors in the corpus.
    assert!(ours.values().filter(|f| !f.is_empty()).count() >= 8, "{ours:?}");
}

// ---------------------------------------------------------------------------------------------
// CLI

fn cli(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut all = vec!["validate"];
    all.extend_from_slice(args);
    let r = support::run(&all, stdin);
    // The report is validate's product, on stdout in every format (README "Output and exit
    // codes"); stderr holds the count (text) or nothing. Returned: exit, report, stderr.
    if !args.contains(&"text") && args.iter().any(|a| ["json", "sarif", "junit", "github", "kpt"].contains(a)) {
        assert!(!r.stderr.contains("error[") && !r.stderr.contains("warning["), "findings on stderr:\n{}", r.stderr);
    }
    (r.code, r.stdout, r.stderr)
}

#[test]
fn cli_exit_codes_and_formats() {
    // Clean file: 0.
    let (code, _, err) = cli(&["tests/validate/base/tpu.yaml"], None);
    assert_eq!(code, 0, "{err}");
    // An error on stdin: 1, JSON on stdout with rule, field, file and line.
    let mut v = base("tpu");
    v["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["nodeSelectr"] = json!({"a": "b"});
    let text = jax_runtimes::yaml::to_string(&v).unwrap();
    let (code, out, _) = cli(&["-", "--format", "json"], Some(&text));
    assert_eq!(code, 1);
    let findings: Vec<Value> = serde_json::from_str(&out).expect("json findings");
    let f = findings.iter().find(|f| f["rule"] == "schema/unknown-field").expect("unknown field reported");
    assert_eq!(f["field"], "spec.template.spec.replicatedJobs[0].template.spec.template.spec.nodeSelectr");
    assert_eq!(f["file"], "<stdin>");
    assert!(f["line"].as_u64().is_some());
    // kpt format: a ResourceList with results.
    let (code, out, _) = cli(&["-", "--format", "kpt"], Some(&text));
    assert_eq!(code, 1);
    let list: Value = serde_saphyr::from_str(&out).expect("kpt output is YAML");
    assert_eq!(list["kind"], "ResourceList");
    assert!(list["results"].as_array().unwrap().iter().any(|r| r["tags"]["rule"] == "schema/unknown-field"));
    // Warnings alone do not fail.
    let mut w = base("gpu");
    let pod = &mut w["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
    pod.as_object_mut().unwrap().shift_remove("tolerations");
    // GPU Feature Discovery's label: no platform known, so no ExtendedResourceToleration assumed.
    pod["nodeSelector"] = serde_json::json!({"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"});
    let (code, out, _) = cli(&["-"], Some(&jax_runtimes::yaml::to_string(&w).unwrap()));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("warning[accelerator/missing-toleration]"), "{out}");
}

#[test]
fn cli_input_rules() {
    // Not a runtime: info, and no runtime at all: error (exit 1).
    let (code, out, _) = cli(&["-", "--format", "json"], Some("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"));
    assert_eq!(code, 1);
    let f: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert!(f.iter().any(|f| f["rule"] == "input/not-a-runtime" && f["severity"] == "info"), "{out}");
    assert!(f.iter().any(|f| f["rule"] == "input/no-runtime" && f["severity"] == "error"), "{out}");
    // An unusable --crd: usage error (2).
    let (code, out, _) = cli(&["--crd", "tests/validate/base/cpu.yaml", "tests/validate/base/cpu.yaml", "--format", "json"], None);
    assert_eq!(code, 2);
    assert!(out.contains("crd/unusable"), "{out}");
    // Missing path: usage error.
    let (code, _, _) = cli(&["tests/validate/no-such-file.yaml"], None);
    assert_eq!(code, 2);
}

/// The served versions jax-runtimes knows (catalog/trainer.yaml `served`, catalog/kueue.yaml
/// `apiVersions.supported`) are those of the reference CRDs, kind by kind: a served version
/// passes, any other is `input/unserved-version` naming exactly the served ones (issue 41:
/// `trainer.kubeflow.org/v2alpha1` was accepted silently).
#[test]
fn served_versions_are_those_of_the_reference_crds() {
    let Some(reference) = reference() else { return };
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["kubeflow-trainer-v2.3.0/crds", "jobset-v0.12.0", "kueue-v0.19.2/crds"] {
        for e in std::fs::read_dir(reference.join(dir)).unwrap() {
            files.push(e.unwrap().path());
        }
    }
    files.sort();
    let mut checked = 0;
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "yaml")) {
        for doc in parse(&f.display().to_string(), &std::fs::read_to_string(f).unwrap()) {
            let v = &doc.value;
            let (Some(group), Some(kind)) =
                (v.pointer("/spec/group").and_then(Value::as_str), v.pointer("/spec/names/kind").and_then(Value::as_str))
            else {
                continue;
            };
            let versions = v.pointer("/spec/versions").and_then(Value::as_array).unwrap();
            let served: Vec<String> = versions
                .iter()
                .filter(|x| x["served"] == json!(true))
                .map(|x| format!("`{group}/{}`", x["name"].as_str().unwrap()))
                .collect();
            for x in versions {
                let api = format!("{group}/{}", x["name"].as_str().unwrap());
                let found = jax_runtimes::kinds::near_miss(jax_runtimes::gvk::Gvk::new(&api, kind));
                assert_eq!(found.is_none(), x["served"] == json!(true), "{api} {kind}: {found:?}");
            }
            let d = jax_runtimes::kinds::near_miss(jax_runtimes::gvk::Gvk::new(&format!("{group}/v9alpha9"), kind))
                .unwrap_or_else(|| panic!("{group}/v9alpha9 {kind} is not served"));
            assert_eq!(d.rule.id, "input/unserved-version");
            let listed: BTreeSet<String> =
                d.message.split(" only as ").nth(1).unwrap().split(';').next().unwrap().split(", ").map(str::to_string).collect();
            assert_eq!(listed, served.iter().cloned().collect::<BTreeSet<_>>(), "{kind}: {}", d.message);
            checked += 1;
        }
    }
    assert!(checked >= 12, "{checked} CRDs compared");
}

/// `validate` reports an unserved version of a TrainJob with and without `--crd` (matched by
/// group and kind, the CRD's versions named), and still checks the rest of it.
#[test]
fn an_unserved_trainjob_version_is_an_error_with_and_without_crd() {
    let Some(reference) = reference() else { return };
    let dir = tempfile::tempdir().unwrap();
    let runtimes = reference.join("kubeflow-trainer-v2.3.0/runtimes").display().to_string();
    let crd = reference.join("kubeflow-trainer-v2.3.0/crds/trainer.kubeflow.org_trainjobs.yaml").display().to_string();
    let file = dir.path().join("megatron.yaml");
    std::fs::write(&file, "apiVersion: trainer.kubeflow.org/v2alpha1\nkind: TrainJob\nmetadata: {name: megatron}\nspec:\n  runtimeRef: {name: torch-distributed}\n").unwrap();
    let file = file.display().to_string();
    for extra in [vec![], vec!["--crd", crd.as_str()]] {
        let mut args = vec!["validate", file.as_str(), "--runtimes", runtimes.as_str(), "--format", "json"];
        args.extend(extra.iter().copied());
        let r = support::run(&args, None);
        assert_eq!(r.code, 1, "{args:?}: {}", r.all());
        let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
        let f = findings.iter().find(|f| f["rule"] == "input/unserved-version").unwrap_or_else(|| panic!("{}", r.all()));
        assert_eq!(f["field"], "apiVersion");
        assert!(f["message"].as_str().unwrap().contains("only as `trainer.kubeflow.org/v1alpha1`"), "{f}");
        if !extra.is_empty() {
            assert!(f["message"].as_str().unwrap().contains("trainjobs.trainer.kubeflow.org"), "{f}");
        }
        assert!(findings.iter().all(|f| f["rule"] != "crd/not-covered"), "{}", r.all());
    }
}

/// The nodes of a schema at one path: the node itself, what its `$ref`s name and its `allOf`
/// members (the built-in model's schema is schemars', with `$defs`).
fn schema_parts<'a>(node: &'a Value, root: &'a Value, out: &mut Vec<&'a Value>) {
    if out.len() > 64 {
        return;
    }
    out.push(node);
    if let Some(r) = node.get("$ref").and_then(Value::as_str) {
        if let Some(def) = r.strip_prefix("#/").and_then(|p| root.pointer(&format!("/{p}"))) {
            schema_parts(def, root, out);
        }
    }
    for m in node.get("allOf").and_then(Value::as_array).into_iter().flatten() {
        schema_parts(m, root, out);
    }
}

/// Walks a CRD's schema and the built-in model's side by side: every `required` of the model must
/// be one of the CRD's, and every `type` both state must agree.
fn compare_schemas(crd: &Value, ours: &Value, root: &Value, path: &str, depth: usize, problems: &mut Vec<String>) {
    if depth > 40 {
        return;
    }
    let mut parts = Vec::new();
    schema_parts(ours, root, &mut parts);
    let strs = |v: Option<&Value>| -> BTreeSet<String> {
        v.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
    };
    let theirs_required = strs(crd.get("required"));
    let our_required: BTreeSet<String> = parts.iter().flat_map(|p| strs(p.get("required"))).collect();
    for r in our_required.difference(&theirs_required) {
        // A field the CRD does not define at all is refused as unknown anyway.
        if crd.get("properties").is_some_and(|p| p.get(r).is_some()) {
            let def = parts.iter().rev().find_map(|p| p.get("$ref").and_then(Value::as_str)).unwrap_or("the root");
            problems.push(format!("{path} ({def}): the built-in model requires `{r}`, the CRD does not"));
        }
    }
    let int_or_string = |v: &Value| v.get("x-kubernetes-int-or-string") == Some(&json!(true));
    let their_type = crd.get("type").and_then(Value::as_str);
    let our_type = parts.iter().find_map(|p| p.get("type").and_then(Value::as_str));
    if let (Some(a), Some(b)) = (their_type, our_type) {
        let same = a == b || (a == "number" && b == "integer");
        if !same && !int_or_string(crd) && !parts.iter().any(|p| int_or_string(p)) {
            problems.push(format!("{path}: the CRD's type is `{a}`, the built-in model's `{b}`"));
        }
    }
    if let Some(props) = crd.get("properties").and_then(Value::as_object) {
        for (k, sub) in props {
            if let Some(o) = parts.iter().find_map(|p| p.get("properties").and_then(|ps| ps.get(k))) {
                compare_schemas(sub, o, root, &format!("{path}.{k}"), depth + 1, problems);
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = crd.get(key).filter(|s| s.is_object()) {
            if let Some(o) = parts.iter().find_map(|p| p.get(key).filter(|s| s.is_object())) {
                compare_schemas(sub, o, root, &format!("{path}[{key}]"), depth + 1, problems);
            }
        }
    }
}

/// The built-in model never requires what the CRD does not, and states the CRD's types (issue
/// 41: `schema/required replicatedJobs` came from the model, the v2.3 CRD does not require it):
/// every node of the ClusterTrainingRuntime, TrainingRuntime and TrainJob CRDs against the
/// schema `validate` uses without `--crd`.
#[test]
fn the_builtin_model_requires_and_types_what_the_reference_crds_do() {
    let Some(reference) = reference() else { return };
    let crds = reference.join("kubeflow-trainer-v2.3.0/crds");
    let mut problems = Vec::new();
    let mut nodes = 0;
    for (file, ours) in [
        ("trainer.kubeflow.org_clustertrainingruntimes.yaml", validate::structure::schema()),
        ("trainer.kubeflow.org_trainingruntimes.yaml", validate::structure::schema()),
        ("trainer.kubeflow.org_trainjobs.yaml", validate::structure::trainjob_schema()),
    ] {
        let text = std::fs::read_to_string(crds.join(file)).unwrap();
        let crd = parse(file, &text).remove(0).value;
        let schema = crd.pointer("/spec/versions/0/schema/openAPIV3Schema").unwrap();
        nodes += schema.to_string().matches("\"type\"").count();
        compare_schemas(schema, ours, ours, file, 0, &mut problems);
    }
    assert!(nodes > 1000, "{nodes} typed nodes compared");
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "{} difference(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn cli_with_reference_crd() {
    let (Some(crds), Some(reference)) = (reference_crd_files(), reference()) else { return };
    let crd = crds[0].display().to_string();
    let runtimes = reference.join("kubeflow-trainer-v2.3.0/runtimes").display().to_string();
    let (code, _, err) = cli(&["--crd", &crd, &runtimes], None);
    assert_eq!(code, 0, "{err}");
}

// ---------------------------------------------------------------------------------------------
// KRM validator mode

#[test]
fn krm_validation_config_validates_items_and_leaves_them_alone() {
    let mut bad = base("tpu");
    bad["spec"]["mlPolicy"]["numNodes"] = json!(8);
    bad["metadata"]["annotations"] =
        json!({"internal.config.kubernetes.io/path": "runtimes/tpu.yaml", "internal.config.kubernetes.io/index": "0"});
    let items = json!([base("cpu"), bad]);
    let got = validator_fails_on(&items);
    assert_eq!(got["items"], items, "a validator must not change items");
    let results = got["results"].as_array().unwrap();
    let r = results.iter().find(|r| r["tags"]["rule"] == "tpu/hosts").expect("tpu/hosts result");
    assert_eq!(r["file"]["path"], "runtimes/tpu.yaml");
    assert_eq!(r["field"]["path"], "spec.mlPolicy.numNodes");
}

/// The SDK-only rules are warnings (kubectl works without them), errors where the SDK is
/// required: `validate --require sdk` and `JaxRuntimeValidation` `spec.require: [sdk]`; their
/// help names the framework of the runtime's own mlPolicy (issue 41: "add framework: jax" on
/// torch and MPI runtimes).
#[test]
fn sdk_rules_are_warnings_unless_the_sdk_is_required() {
    let dir = tempfile::tempdir().unwrap();
    let mut rt = base("cpu");
    rt["metadata"]["labels"] = json!({});
    rt["spec"]["mlPolicy"] = json!({"numNodes": 1, "torch": {}});
    rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["env"] = json!([]);
    let file = dir.path().join("torch.yaml");
    std::fs::write(&file, jax_runtimes::yaml::to_string(&rt).unwrap()).unwrap();
    let file = file.display().to_string();
    let r = support::run(&["validate", &file, "--format", "json"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let f = findings.iter().find(|f| f["rule"] == "sdk/framework-label").unwrap_or_else(|| panic!("{}", r.all()));
    assert_eq!(f["severity"], "warning");
    let help = f["help"].as_str().unwrap();
    assert!(help.contains("mlPolicy is `torch`") && help.contains("framework: torch}") && !help.contains("jax"), "{help}");
    let r = support::run(&["validate", &file, "--require", "sdk", "--format", "json"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    assert!(findings.iter().any(|f| f["rule"] == "sdk/framework-label" && f["severity"] == "error"), "{}", r.all());
    let r = support::run(&["validate", &file, "--require", "pip"], None);
    assert_eq!(r.code, 2, "{}", r.all());
    // The KRM validator: a warning passes, `spec.require: [sdk]` fails.
    let list = |require: Value| {
        let list = json!({
            "apiVersion": "config.kubernetes.io/v1",
            "kind": "ResourceList",
            "items": [rt.clone()],
            "functionConfig": {"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeValidation", "metadata": {"name": "v"}, "spec": {"require": require}},
        });
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = jax_runtimes::krm::run(serde_json::to_string(&list).unwrap().as_bytes(), &mut out, &mut err);
        (code.code(), String::from_utf8_lossy(&out).to_string())
    };
    let (code, out) = list(json!([]));
    assert_eq!(code, 0, "{out}");
    let (code, out) = list(json!(["sdk"]));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("sdk/framework-label"), "{out}");
}

// ---------------------------------------------------------------------------------------------
// docs/rules.md

#[test]
fn docs_rules_md_is_generated_from_the_rule_registry() {
    let path = root().join("docs/rules.md");
    let mut examples = rule_examples();
    for (id, e) in trainjob_examples().into_iter().chain(command_examples()) {
        examples.entry(id).or_insert(e);
    }
    let want = rules::markdown_with(&|id| examples.get(id).cloned());
    if support::bless() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "docs/rules.md is stale; run `UPDATE_DOCS=1 cargo test --test validate docs_rules`");
    for r in rules::all() {
        let anchor: String = r.id.chars().map(|c| if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' { c } else { '-' }).collect();
        assert!(
            have.contains(&format!("<a id=\"{anchor}\"></a>\n\n### `{}`", r.id)),
            "{} has no heading and anchor on docs/rules.md",
            r.id
        );
    }
    // Every rule has an example, produced by the binary.
    let missing: Vec<&str> = rules::all().map(|r| r.id).filter(|id| !examples.contains_key(*id)).collect();
    assert!(missing.is_empty(), "{} rule(s) without an example on docs/rules.md (add a case to tests/rules/): {missing:?}", missing.len());
    // The CLI prints the same page, without the examples.
    let out = support::cli(&["validate", "--list-rules", "--format", "markdown"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), rules::markdown());
    // `--list-rules` is in `validate --help`.
    let help = support::cli(&["validate", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("--list-rules"), "validate --help does not show --list-rules");
}

/// The change a case makes to its base runtime, in words.
fn describe_ops(ops: &[Op]) -> Option<String> {
    let mut parts = Vec::new();
    for op in ops {
        parts.push(match op {
            Op::Set { path, value } => format!("`{path}` set to `{value}`"),
            Op::Remove(path) => format!("`{path}` removed"),
            Op::Rename { path, to } => format!("`{path}` renamed to `{to}`"),
            Op::Fill { .. } => return None,
        });
    }
    Some(parts.join(", "))
}

/// The examples of tests/rules/*.yaml: each case's files written to a fresh folder and its
/// command run there by the binary, which must report the case's rule.
fn command_examples() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut failures = Vec::new();
    for (name, case) in examples::cases() {
        assert!(rules::by_id(&case.rule).is_some(), "{name}: no rule {}", case.rule);
        assert!(case.shell.is_none() || case.args.is_empty(), "{name}: {} has both `args` and `shell`", case.rule);
        // A case that needs a cluster: the example the controlplane tier checks it still gives.
        let example = if case.cluster {
            let file = examples::recorded(&case.rule);
            std::fs::read_to_string(&file)
                .map_err(|e| format!("{}: {e} (run `UPDATE_DOCS=1 tests/run --test controlplane` to record it)", file.display()))
        } else {
            examples::run_example(&case)
        };
        match example {
            Ok(example) => assert!(out.insert(case.rule.clone(), example).is_none(), "{name}: {} twice", case.rule),
            Err(e) => failures.push(format!("{name}: {}: {e}", case.rule)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    out
}

/// Runs `jax-runtimes ARGS` in `dir` as a terminal user would see it (box-drawing frames, no
/// color) and returns stdout and stderr together.
fn run_in(dir: &Path, args: &[&str]) -> String {
    support::text(&terminal(support::cli(args).current_dir(dir)).output().unwrap())
}

/// The example of each trainjob rule: the first case of tests/trainjob/corpus.yaml that expects
/// it, the runtime and the TrainJob written to files and checked with `validate --runtimes`.
fn trainjob_examples() -> BTreeMap<String, String> {
    let cases = support::trainjob_corpus::cases();
    let dir = tempfile::tempdir().unwrap();
    let mut out = BTreeMap::new();
    for case in cases {
        let Some(rule) = case.expect.rule().map(str::to_string) else { continue };
        if out.contains_key(&rule) {
            continue;
        }
        let alone = case.runtime == "none";
        let mut rt = if alone { json!({}) } else { base(&case.runtime) };
        for (pointer, value) in &case.runtime_set {
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            rt.pointer_mut(parent).unwrap()[key.replace("~1", "/")] = value.clone();
        }
        let mut tj = json!({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob"});
        for (k, x) in case.trainjob.as_object().unwrap() {
            tj[k] = x.clone();
        }
        let tj_text = jax_runtimes::yaml::to_string(&tj).unwrap();
        std::fs::write(dir.path().join("runtime.yaml"), jax_runtimes::yaml::to_string(&rt).unwrap()).unwrap();
        std::fs::write(dir.path().join("trainjob.yaml"), &tj_text).unwrap();
        let mut args = if alone { vec!["validate"] } else { vec!["validate", "--runtimes", "runtime.yaml"] };
        if let Some(v) = &case.version {
            args.extend(["--trainer-version", v]);
        }
        args.push("trainjob.yaml");
        let block = finding_blocks(&run_in(dir.path(), &args), &rule);
        if block.is_empty() || block.lines().count() > 40 {
            continue;
        }
        let changed = if case.runtime_set.is_empty() {
            String::new()
        } else {
            format!(" with {}", case.runtime_set.iter().map(|(p, v)| format!("`{p}` set to `{v}`")).collect::<Vec<_>>().join(", "))
        };
        out.insert(
            rule,
            format!(
                "Example ({}): this TrainJob {}{changed}.\n\n```yaml\n{}```\n\n```text\n$ jax-runtimes {}\n{block}\n```",
                case.name,
                if alone { "alone, without any runtime".to_string() } else { format!("on the `{}` test runtime", case.runtime) },
                tj_text,
                args.join(" ")
            ),
        );
    }
    out
}

/// An example for each validator rule on docs/rules.md: the first case of tests/validate/ that
/// expects it (without `--crd`, so that it needs no upstream data), written to `runtime.yaml` and
/// run through `jax-runtimes validate`, and the findings of that rule it printed.
fn rule_examples() -> BTreeMap<String, String> {
    let dir = tempfile::tempdir().unwrap();
    let mut cases = corpus();
    cases.extend(kubernetes_corpus());
    let mut out = BTreeMap::new();
    for case in &cases {
        let Some(e) = &case.expect else { continue };
        if case.crd.as_deref() == Some("reference") || out.contains_key(&e.rule) {
            continue;
        }
        let Some(change) = describe_ops(&case.ops) else { continue };
        let mut v = base(&case.base);
        for op in &case.ops {
            apply(&mut v, op);
        }
        std::fs::write(dir.path().join("runtime.yaml"), jax_runtimes::yaml::to_string(&v).unwrap()).unwrap();
        let mut args = vec!["validate"];
        if let Some(crd) = &case.crd {
            std::fs::copy(root().join(crd), dir.path().join("crd.yaml")).unwrap();
            args.extend(["--crd", "crd.yaml"]);
        }
        args.push("runtime.yaml");
        let command = args.join(" ");
        let block = finding_blocks(&run_in(dir.path(), &args), &e.rule);
        if block.is_empty() || block.lines().count() > 40 || block.lines().any(|l| l.chars().count() > 1000) {
            continue;
        }
        out.insert(
            e.rule.clone(),
            format!(
                "Example ({}): a correct `{}` runtime with {change}.\n\n```text\n$ jax-runtimes {command}\n{block}\n```",
                case.name, case.base
            ),
        );
    }
    out
}

// ---------------------------------------------------------------------------------------------
// kpt: the functions/validate example as a real `validators:` step

#[test]
fn kpt_validators_step_passes_the_example_and_fails_a_mistake() {
    let kpt = tool("kpt");
    let search = path_with_bin();
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    copy_dir(&root().join("functions/validate/example"), &pkg);
    let render = || Command::new(&kpt).args(["fn", "render", "--allow-exec"]).arg(&pkg).env("PATH", &search).output().unwrap();
    let out = render();
    assert!(out.status.success(), "the example must validate:\n{}", String::from_utf8_lossy(&out.stderr));
    let file = pkg.join("runtimes/jax-tpu-v5e-2x4.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("numNodes: 2", "numNodes: 3")).unwrap();
    let out = render();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "a wrong numNodes must fail the pipeline:\n{all}");
    assert!(all.contains("tpu/hosts") && all.contains("spec.mlPolicy.numNodes"), "{all}");
    assert!(std::fs::read_to_string(&file).unwrap().contains("numNodes: 3"), "a validator never changes the package");
}

#[test]
fn a_list_as_kubectl_get_prints_it_is_unpacked_and_every_item_checked() {
    let mut bad = base("tpu");
    bad["spec"]["mlPolicy"]["numNodes"] = json!(8);
    for (format, text) in [
        (
            "yaml",
            jax_runtimes::yaml::to_string(
                &json!({"apiVersion": "v1", "kind": "List", "items": [base("cpu"), bad.clone()], "metadata": {"resourceVersion": ""}}),
            )
            .unwrap(),
        ),
        (
            "json",
            serde_json::to_string_pretty(
                &json!({"apiVersion": "v1", "kind": "List", "items": [base("cpu"), bad.clone()], "metadata": {"resourceVersion": ""}}),
            )
            .unwrap(),
        ),
    ] {
        let (_, _, err) = cli(&["-"], Some(&text));
        assert!(err.contains("2 runtimes checked"), "{format}: {err}");
        let (code, out, err) = cli(&["-", "--format", "json"], Some(&text));
        assert_eq!(code, 1, "{format}: {err}");
        let findings: Vec<Value> = serde_json::from_str(&out).unwrap();
        let hosts = findings.iter().find(|f| f["rule"] == "tpu/hosts").unwrap_or_else(|| panic!("{format}: {out}"));
        let line = hosts["line"].as_u64().unwrap() as usize;
        assert!(text.lines().nth(line - 1).unwrap().contains("numNodes"), "{format}: line {line} points at the item's numNodes");
    }
}

/// A runtime with the four mistakes of the issue that asked for Kubernetes' own rules.
fn the_issues_mistakes() -> Value {
    let pod = "/spec/template/spec/replicatedJobs/0/template/spec/template/spec";
    let mut v = base("tpu");
    for (path, value) in [
        ("/metadata/labels/team".to_string(), json!("ML Platform!")),
        (format!("{pod}/containers/0/resources/requests/cpu"), json!("eight")),
        (format!("{pod}/tolerations/0/operator"), json!("Bogus")),
        (format!("{pod}/serviceAccountName"), json!("my_sa")),
    ] {
        apply(&mut v, &Op::Set { path, value });
    }
    v
}

/// `jax-runtimes validate ARGS` on the runtime: each mistake is one error of its rule.
fn the_issues_mistakes_fail_validate(v: &Value, args: &[&str]) {
    let text = jax_runtimes::yaml::to_string(v).unwrap();
    let (code, out, err) = cli(args, Some(&text));
    assert_eq!(code, 1, "{args:?}: {err}");
    let findings: Vec<Value> = serde_json::from_str(&out).unwrap();
    let rules: BTreeSet<&str> = findings.iter().filter(|f| f["severity"] == "error").filter_map(|f| f["rule"].as_str()).collect();
    // The quantity is the CRD's pattern with --crd, Kubernetes' grammar without: once either way.
    let quantity = if args.contains(&"--crd") { "crd/format" } else { "k8s/quantity" };
    let want: BTreeSet<&str> = ["k8s/label-value", quantity, "k8s/toleration", "k8s/service-account-name"].into();
    assert_eq!(rules, want, "{args:?}: {out}");
    let on_cpu = findings.iter().filter(|f| f["field"].as_str().is_some_and(|p| p.ends_with("requests.cpu"))).count();
    assert_eq!(on_cpu, 1, "one finding for the one mistake: {out}");
}

#[test]
fn the_issues_mistakes_fail_validate_and_the_krm_validator() {
    let v = the_issues_mistakes();
    the_issues_mistakes_fail_validate(&v, &["-", "--format", "json"]);
    let got = validator_fails_on(&json!([v]));
    let results = got["results"].as_array().unwrap();
    for rule in ["k8s/label-value", "k8s/quantity", "k8s/toleration", "k8s/service-account-name"] {
        assert!(results.iter().any(|r| r["tags"]["rule"] == rule && r["severity"] == "error"), "KRM lacks {rule}: {results:?}");
    }
}

#[test]
fn the_issues_mistakes_fail_validate_against_the_upstream_crd() {
    let Some(crds) = reference_crd_files() else { return };
    let crd = crds[0].display().to_string();
    the_issues_mistakes_fail_validate(&the_issues_mistakes(), &["--crd", crd.as_str(), "-", "--format", "json"]);
}

/// Runs the KRM validator (`JaxRuntimeValidation`) on `items`, asserts that it fails (exit 1),
/// and returns the ResourceList it wrote.
fn validator_fails_on(items: &Value) -> Value {
    let list = json!({
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": items,
        "functionConfig": {"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeValidation", "metadata": {"name": "validate"}},
    });
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = jax_runtimes::krm::run(serde_json::to_string(&list).unwrap().as_bytes(), &mut out, &mut err);
    assert_eq!(code.code(), 1, "{}", String::from_utf8_lossy(&err));
    serde_json::from_slice(&out).unwrap()
}

/// The built-in judge is the release's own CRD schema (issue 52): pod fields of the Kubernetes
/// version Trainer v2.3.0 was built with (`hostnameOverride`, `schedulingGroup`) pass by default,
/// as with `--crd`; a misspelt one is refused by both.
#[test]
fn the_release_pod_fields_pass_by_default_as_with_the_crd() {
    let pod = "/spec/template/spec/replicatedJobs/0/template/spec/template/spec";
    let with = |field: &str, value: Value| {
        let mut v = base("cpu");
        apply(&mut v, &Op::Set { path: format!("{pod}/{field}"), value });
        jax_runtimes::yaml::to_string(&v).unwrap()
    };
    let crd: Vec<String> =
        reference_crd_files().unwrap_or_default().iter().flat_map(|f| ["--crd".to_string(), f.display().to_string()]).collect();
    for (field, value) in [("hostnameOverride", json!("node-0")), ("schedulingGroup", json!({"podGroupName": "g1"}))] {
        let text = with(field, value);
        let (code, out, err) = cli(&["-"], Some(&text));
        assert_eq!(code, 0, "{field}: {out}{err}");
        if !crd.is_empty() {
            let mut args: Vec<&str> = crd.iter().map(String::as_str).collect();
            args.push("-");
            let (code, out, err) = cli(&args, Some(&text));
            assert_eq!(code, 0, "--crd, {field}: {out}{err}");
        }
    }
    let (code, out, _) = cli(&["-", "--format", "json"], Some(&with("schedulingGroups", json!({"podGroupName": "g1"}))));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("\"rule\": \"schema/unknown-field\"") && out.contains("did you mean `schedulingGroup`?"), "{out}");
    // Each release by its own schema: `workloadRef` is a v2.2.0 pod field only.
    let workload_ref = with("workloadRef", json!({"name": "w", "podGroup": "g"}));
    let (code, out, err) = cli(&["--trainer-version", "v2.2.0", "-"], Some(&workload_ref));
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, _) = cli(&["-"], Some(&workload_ref));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("Trainer v2.3.0's schema has no such field, v2.2.0 does"), "{out}");
    assert!(out.contains("--trainer-version"), "the help names the way: {out}");
    let (code, _, err) = cli(&["--trainer-version", "v2.2.7", "-"], Some(&workload_ref));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown Trainer release `v2.2.7`") && err.contains("v2.2.0, v2.2.1, v2.3.0, next"), "{err}");
    // The KRM validator judges by the release its config names, as `--trainer-version` does.
    let krm = |trainer_version: Option<&str>| {
        let mut spec = json!({});
        if let Some(v) = trainer_version {
            spec["trainerVersion"] = json!(v);
        }
        let list = json!({
            "apiVersion": "config.kubernetes.io/v1",
            "kind": "ResourceList",
            "items": [jax_runtimes::yaml::from_str::<Value>(&workload_ref).unwrap()],
            "functionConfig": {"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeValidation", "metadata": {"name": "v"}, "spec": spec},
        });
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = jax_runtimes::krm::run(serde_json::to_string(&list).unwrap().as_bytes(), &mut out, &mut err);
        (code.code(), String::from_utf8_lossy(&out).to_string())
    };
    let (code, out) = krm(Some("v2.2.0"));
    assert_eq!(code, 0, "{out}");
    let (code, out) = krm(None);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("Trainer v2.3.0's schema has no such field, v2.2.0 does"), "{out}");
    let (code, out) = krm(Some("v2.2.7"));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("krm/function-config") && out.contains("unknown Trainer release `v2.2.7`"), "{out}");
}
