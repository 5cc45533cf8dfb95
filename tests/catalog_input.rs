//! What the catalog maintainer wrote is what ships: strict input at every depth (inside the
//! Kubernetes types too), every unknown field in one run with its nearest name at the key, a JSON
//! Schema that refuses what `render` refuses, matrices that cannot lie (undefined names, include
//! and exclude keys, one finding per bad value, caps), several `JaxRuntimeDefaults` with
//! selectors, exact Trainer releases, and objects that nearly are Trainer, JobSet or catalog kinds
//! refused everywhere. Each case runs through the CLI, the KRM function (the binary on a
//! ResourceList, and kpt where a package matters) and the schema.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::{json, Value};
use support::{path_with_bin, root, run_in, show, tool, Run};

const HEAD: &str = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\n";

/// Writes `files` (path, text) into a new folder.
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// `jax-runtimes ARGS` in a folder holding `files`.
fn cli(files: &[(&str, &str)], args: &[&str]) -> Run {
    let dir = folder(files);
    run_in(dir.path(), args, None)
}

/// `jax-runtimes render --format json` of `files`: the exit code and the findings.
fn render_json(files: &[(&str, &str)]) -> (i32, Vec<Value>) {
    let mut args = vec!["render", "--format", "json"];
    args.extend(files.iter().map(|(p, _)| *p));
    let r = cli(files, &args);
    let findings: Vec<Value> = serde_json::from_str(&r.stderr).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    (r.code, findings)
}

/// The KRM function (the binary on stdin) on a ResourceList of `files`' documents, each with its
/// path as kpt sends it, and `config` as the functionConfig: the exit code and the list it wrote.
fn krm(files: &[(&str, &str)], config: Option<Value>) -> (i32, Value) {
    let mut items = Vec::new();
    for (path, text) in files {
        for (i, mut doc) in support::documents(text).into_iter().enumerate() {
            let annotations = doc["metadata"].as_object_mut().map(|m| m.entry("annotations").or_insert(json!({})));
            if let Some(Value::Object(a)) = annotations {
                a.insert("internal.config.kubernetes.io/path".into(), json!(path));
                a.insert("internal.config.kubernetes.io/index".into(), json!(i.to_string()));
            }
            items.push(doc);
        }
    }
    let mut list = json!({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items});
    if let Some(c) = config {
        list["functionConfig"] = c;
    }
    let dir = tempfile::tempdir().unwrap();
    let r = run_in(dir.path(), &[], Some(serde_json::to_string(&list).unwrap().as_bytes()));
    let out: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    (r.code, out)
}

/// The results of a ResourceList: (rule, severity, field, message).
fn results(list: &Value) -> Vec<(String, String, String, String)> {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    list["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| (s(&r["tags"]["rule"]), s(&r["severity"]), s(&r["field"]["path"]), s(&r["message"])))
        .collect()
}

/// The committed JSON Schema (what editors use), compiled.
fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("docs/schema/jax-runtimes.schema.json")).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).expect("the schema compiles")
}

fn errors(findings: &[Value]) -> Vec<&Value> {
    findings.iter().filter(|f| f["severity"] == "error").collect()
}

// ---------------------------------------------------------------------------------------------
// Strict everywhere, all at once, at the key.

const TYPOS: &str = "apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata:
  name: typos
  lables: {team: ml}
spec:
  platfrom: gke
  numNode: 2
  accelerator:
    tpu: {type: v5e, topolgy: 2x2}
  env:
  - name: A
    valu: b
  - name: B
    valueFrom: {secretKeyRef: {name: s, kee: k}}
  tolerations:
  - key: x
    operater: Exists
  resources:
    request: {cpu: \"1\"}
";

#[test]
fn every_unknown_field_is_found_in_one_run_inside_kubernetes_types_with_its_nearest_name_at_the_key() {
    let (code, findings) = render_json(&[("typos.yaml", TYPOS)]);
    assert_eq!(code, 1);
    let got: Vec<(String, u64, u64, String)> = errors(&findings)
        .iter()
        .map(|f| {
            (
                f["field"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        ("metadata.lables", 5, 3, "labels"),
        ("spec.platfrom", 7, 3, "platform"),
        ("spec.numNode", 8, 3, "numNodes"),
        ("spec.accelerator.tpu.topolgy", 10, 22, "topology"),
        ("spec.env[0].valu", 13, 5, "value"),
        ("spec.env[1].valueFrom.secretKeyRef.kee", 15, 41, "key"),
        ("spec.tolerations[0].operater", 18, 5, "operator"),
        ("spec.resources.request", 20, 5, "requests"),
    ];
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for ((field, line, column, message), (f, l, c, near)) in got.iter().zip(want) {
        assert_eq!((field.as_str(), *line, *column), (f, l, c), "the key's line and column: {message}");
        let name = f.rsplit('.').next().unwrap();
        assert_eq!(message, &format!("unknown field `{name}`; did you mean `{near}`?"));
    }
    assert!(findings.iter().all(|f| f["rule"] == "catalog/unknown-field"), "{findings:#?}");
    // The KRM function finds the same, in one run.
    let (code, list) = krm(&[("catalog/typos.yaml", TYPOS)], None);
    assert_eq!(code, 1);
    let fields: Vec<String> = results(&list).into_iter().filter(|r| r.0 == "catalog/unknown-field").map(|r| r.2).collect();
    assert_eq!(fields, want.map(|w| w.0), "{list:#}");
    // The schema refuses each of them too.
    let doc = &support::documents(TYPOS)[0];
    let unknown: usize = schema().iter_errors(doc).count();
    assert!(unknown >= want.len(), "the schema reports {unknown} errors");
}

#[test]
fn a_typo_in_a_kubernetes_type_no_longer_renders_a_different_runtime() {
    // Before, each rendered with exit 0: an env var without value, a toleration without its
    // operator (so it matched differently), a container without resources.
    for (spec, field) in [
        ("env: [{name: A, valu: b}]", "spec.env[0].valu"),
        ("tolerations: [{key: x, operater: Exists}]", "spec.tolerations[0].operater"),
        ("resources: {request: {cpu: \"1\"}}", "spec.resources.request"),
        ("tolerations: [{key: x, operator: Equal, value: y, efect: NoSchedule}]", "spec.tolerations[0].efect"),
    ] {
        let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  accelerator: {{cpu: {{}}}}\n  {spec}\n");
        let r = cli(&[("x.yaml", &text)], &["render", "x.yaml"]);
        assert_eq!(r.code, 1, "{spec}: {}", r.all());
        assert!(r.stdout.is_empty() && r.stderr.contains(&format!("`{field}`: unknown field")), "{spec}: {}", r.all());
    }
}

// ---------------------------------------------------------------------------------------------
// The schema says what render says.

/// A `JaxRuntime` with `spec` (YAML, indented by 2) and name `name`.
fn runtime(name: &str, spec: &str) -> String {
    format!("{HEAD}metadata:\n  name: {name}\nspec:\n{spec}")
}

/// Mistakes render refuses, each as one catalog object: (what, the object).
fn mistakes() -> Vec<(&'static str, String)> {
    let cpu = "  accelerator: {cpu: {}}\n";
    let tpu = |tpu: &str| format!("  accelerator:\n    tpu: {tpu}\n");
    let gpu = |gpu: &str| format!("  platform: gke\n  accelerator:\n    gpu: {gpu}\n");
    let matrix = |template_spec: &str| {
        format!(
            "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeMatrix\nmetadata: {{name: m}}\nspec:\n  matrix: {{n: [1, 2]}}\n  template:\n    metadata: {{name: \"m-{{{{ n }}}}\"}}\n    spec:\n{template_spec}"
        )
    };
    vec![
        ("an unknown patch release", runtime("a", &format!("  trainer: v2.2.7\n{cpu}"))),
        ("a release without the JAX policy", runtime("a", &format!("  trainer: v2.1\n{cpu}"))),
        ("a release as a number", runtime("a", &format!("  trainer: 2.3\n{cpu}"))),
        ("a release without its v", runtime("a", &format!("  trainer: \"2.3\"\n{cpu}"))),
        ("a toleration operator", runtime("a", &format!("{cpu}  tolerations: [{{key: x, operator: Bogus}}]\n"))),
        ("a toleration effect", runtime("a", &format!("{cpu}  tolerations: [{{key: x, operator: Exists, effect: Sometimes}}]\n"))),
        ("a toleration key", runtime("a", &format!("{cpu}  tolerations: [{{key: \"a b\", operator: Exists}}]\n"))),
        ("count: 0", runtime("a", &gpu("{model: h100-80gb, count: 0}"))),
        ("numNodes: 0", runtime("a", &format!("  numNodes: 0\n{cpu}"))),
        ("a name with capitals", runtime("My_Runtime", cpu)),
        ("a name too long", runtime(&"a".repeat(254), cpu)),
        ("a namespace with a dot", format!("{HEAD}metadata: {{name: a, namespace: team.ml}}\nspec:\n{cpu}")),
        ("a quantity", runtime("a", &format!("{cpu}  resources: {{requests: {{cpu: eight}}}}\n"))),
        ("a shared-memory size", runtime("a", &format!("{cpu}  sharedMemory: {{sizeLimit: lots}}\n"))),
        ("a TPU topology the generation lacks", runtime("a", &tpu("{type: v5e, topology: 3x3}"))),
        ("a TPU topology of the wrong dimension", runtime("a", &tpu("{type: v5p, topology: 2x2}"))),
        ("a TPU topology that is not one", runtime("a", &tpu("{type: v6e, topology: four}"))),
        ("a TPU generation", runtime("a", &tpu("{type: v9, topology: 2x2}"))),
        ("chips per host no machine has", runtime("a", &tpu("{type: v5e, topology: 2x4, chipsPerHost: 3}"))),
        ("two slices", runtime("a", &tpu("{type: v5e, topology: 2x2, slices: 2}"))),
        ("an accelerator type", runtime("a", &tpu("{acceleratorType: v9-8}"))),
        ("a GPU model", runtime("a", &gpu("{model: h900}"))),
        ("a GPU vendor", runtime("a", &gpu("{model: h100-80gb, vendor: intel}"))),
        ("a machine type", runtime("a", &gpu("{model: h100-80gb, machineType: p9.huge}"))),
        ("a platform", runtime("a", &format!("  platform: gek\n{cpu}"))),
        ("no accelerator", runtime("a", "  accelerator: {}\n")),
        ("two accelerators", runtime("a", "  accelerator: {cpu: {}, tpu: {type: v5e, topology: 2x2}}\n")),
        ("no accelerator field", runtime("a", "  numNodes: 2\n")),
        ("no name", format!("{HEAD}metadata: {{labels: {{a: b}}}}\nspec:\n{cpu}")),
        ("a label value", format!("{HEAD}metadata: {{name: a, labels: {{team: \"ML Platform!\"}}}}\nspec:\n{cpu}")),
        ("a label key", format!("{HEAD}metadata: {{name: a, labels: {{\"a/b/c\": x}}}}\nspec:\n{cpu}")),
        ("a node-selector value", runtime("a", &format!("{cpu}  nodeSelector: {{pool: \"big pool\"}}\n"))),
        ("an env name", runtime("a", &format!("{cpu}  env: [{{name: \"A=B\", value: x}}]\n"))),
        ("an empty image", runtime("a", &format!("{cpu}  image: \"\"\n"))),
        ("an image with spaces around", runtime("a", &format!("{cpu}  image: \" jax:1\"\n"))),
        ("a service account", runtime("a", &format!("{cpu}  serviceAccountName: my_sa\n"))),
        ("a YAML 1.1 boolean", runtime("a", &format!("{cpu}  hostNetwork: \"yes\"\n"))),
        ("an unknown field", runtime("a", &format!("{cpu}  nodeSelectr: {{a: b}}\n"))),
        ("an unknown field in an env var", runtime("a", &format!("{cpu}  env: [{{name: A, valu: b}}]\n"))),
        ("an unknown field in a toleration", runtime("a", &format!("{cpu}  tolerations: [{{key: x, operater: Exists}}]\n"))),
        ("an unknown field in resources", runtime("a", &format!("{cpu}  resources: {{request: {{cpu: \"1\"}}}}\n"))),
        ("a misspelt kind", "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntme\nmetadata: {name: a}\nspec: {accelerator: {cpu: {}}}\n".into()),
        ("a misspelt apiVersion", "apiVersion: jax-runtimes.dev/v1alpha\nkind: JaxRuntime\nmetadata: {name: a}\nspec: {accelerator: {cpu: {}}}\n".into()),
        ("an image key of the defaults", "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeDefaults\nmetadata: {name: d}\nspec: {images: {gpuu: x}}\n".into()),
        ("a defaults' release", "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeDefaults\nmetadata: {name: d}\nspec: {trainer: v2.3.7}\n".into()),
        ("a defaults' selector operator", "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeDefaults\nmetadata: {name: d}\nspec: {selector: {matchExpressions: [{key: team, operator: Inn, values: [a]}]}}\n".into()),
        ("a matrix variable without values", "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeMatrix\nmetadata: {name: m}\nspec:\n  matrix: {n: []}\n  template: {metadata: {name: m}, spec: {accelerator: {cpu: {}}}}\n".into()),
        ("an unknown field in a matrix template", matrix("      accelerator: {cpu: {}}\n      numNodes: \"{{ n }}\"\n      hostNetwerk: true\n")),
        ("an unknown field in a template's env var", matrix("      accelerator: {cpu: {}}\n      env: [{name: A, valu: \"{{ n }}\"}]\n")),
        ("numNodes: 0 in a template", matrix("      accelerator: {cpu: {}}\n      numNodes: 0\n")),
        ("an unknown release in a template", matrix("      accelerator: {cpu: {}}\n      trainer: v2.2.7\n")),
        ("a toleration operator in a template", matrix("      accelerator: {cpu: {}}\n      tolerations: [{key: x, operator: Bogus}]\n")),
    ]
}

/// Every mistake of the corpus is refused by `render` (through the CLI) and by the JSON Schema
/// editors use; every catalog that renders is accepted by the schema.
#[test]
fn the_schema_refuses_every_mistake_render_refuses_and_accepts_what_renders() {
    let validator = schema();
    let corpus = mistakes();
    assert!(corpus.len() >= 25, "the issue's corpus had 25 mistakes");
    let mut disagree = Vec::new();
    for (what, text) in &corpus {
        let r = cli(&[("c.yaml", text)], &["render", "c.yaml"]);
        let doc = &support::documents(text)[0];
        let schema_refuses = !validator.is_valid(doc);
        if r.code != 1 || !r.stderr.contains("error[") || !schema_refuses {
            disagree.push(format!("{what}: render exit {} / schema refuses: {schema_refuses}\n{text}{}", r.code, r.stderr));
        }
    }
    assert!(disagree.is_empty(), "schema and render disagree on:\n{}", disagree.join("\n---\n"));

    // What renders, the schema accepts: the built-in catalog, the golden catalogs, and a matrix
    // whose template holds templates where numbers, lists and objects belong.
    let mut files: Vec<std::path::PathBuf> =
        std::fs::read_dir(root().join("catalog/runtimes")).unwrap().map(|e| e.unwrap().path()).collect();
    files.extend(std::fs::read_dir(root().join("tests/golden")).unwrap().map(|e| e.unwrap().path().join("catalog.yaml")));
    let mut docs = Vec::new();
    for f in &files {
        let r = support::run(&["render", &f.display().to_string()], None);
        assert_eq!(r.code, 0, "{}: {}", f.display(), r.all());
        docs.extend(support::documents(&std::fs::read_to_string(f).unwrap()).into_iter().map(|d| (f.display().to_string(), d)));
    }
    let templated = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeMatrix\nmetadata: {name: t}\nspec:\n  matrix:\n    shape: [{n: 2, acc: {tpu: {type: v5e, topology: 2x4, chipsPerHost: 4}}}]\n    env: [[{name: A, value: b}]]\n  template:\n    metadata: {name: \"t-{{ shape.n }}\", labels: {n: \"n{{ shape.n }}\"}}\n    spec:\n      numNodes: \"{{ shape.n }}\"\n      accelerator: \"{{ shape.acc }}\"\n      env: \"{{ env }}\"\n      tolerations: [{key: x, operator: Exists, effect: \"{{ 'NoSchedule' }}\"}]\n";
    let r = cli(&[("t.yaml", templated)], &["render", "t.yaml"]);
    assert_eq!(r.code, 0, "{}", r.all());
    docs.push(("templated".into(), support::documents(templated).remove(0)));
    // Names render reads in any case (and GPU models with `_` for `-`).
    for (name, spec) in [
        ("cased-gpu", "  platform: gke\n  accelerator: {gpu: {model: H100_80GB}}\n"),
        ("cased-tpu", "  accelerator: {tpu: {type: Trillium, topology: 2x2}}\n"),
    ] {
        let text = runtime(name, spec);
        let r = cli(&[("v.yaml", &text)], &["render", "v.yaml"]);
        assert_eq!(r.code, 0, "{}", r.all());
        docs.push((name.into(), support::documents(&text).remove(0)));
    }
    for (file, doc) in &docs {
        if doc["apiVersion"] != "jax-runtimes.dev/v1alpha1" {
            continue;
        }
        let errs: Vec<String> = validator.iter_errors(doc).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errs.is_empty(), "{file}: {} renders but the schema refuses it: {errs:?}", support::name_of(doc));
    }
}

/// An editor completes a matrix template's fields: the template's spec has the runtime's fields.
#[test]
fn matrix_templates_have_a_schema_an_editor_can_complete() {
    let s: Value = serde_json::from_str(&std::fs::read_to_string(root().join("docs/schema/jax-runtimes.schema.json")).unwrap()).unwrap();
    let spec = &s["$defs"]["MatrixTemplate"]["properties"]["spec"];
    let target = spec["anyOf"][0]["$ref"].as_str().unwrap().trim_start_matches("#/$defs/").to_string();
    let twin = &s["$defs"][&target];
    let runtime = &s["$defs"]["JaxRuntimeSpec"];
    let keys = |v: &Value| v["properties"].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(twin), keys(runtime), "the template's spec lists the runtime's fields");
    assert_eq!(twin["additionalProperties"], json!(false));
}

// ---------------------------------------------------------------------------------------------
// Matrices that cannot lie.

fn matrix_doc(matrix: &str, template: &str) -> String {
    format!("apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeMatrix\nmetadata: {{name: m}}\nspec:\n{matrix}  template:\n{template}")
}

#[test]
fn an_undefined_variable_or_attribute_is_one_error_wherever_it_appears() {
    for (matrix, template, field, says) in [
        (
            "  matrix: {nodes: [1, 2]}\n",
            "    metadata: {name: \"x-{{ nodes }}\"}\n    spec:\n      accelerator: {cpu: {}}\n      numNodes: \"{{ node }}\"\n",
            "spec.template.spec.numNodes",
            "`node` is not defined; the row's variables are `nodes`; did you mean `nodes`?",
        ),
        (
            "  matrix:\n    shape: [{name: a, team: x}, {name: b, team: y}]\n",
            "    metadata: {name: \"x-{{ shape.name }}\", labels: {team: \"{{ shape.taem }}\"}}\n    spec: {accelerator: {cpu: {}}}\n",
            "spec.template.metadata.labels.team",
            "`shape` has no attribute `taem` (it has `name`, `team`); did you mean `shape.team`?",
        ),
        (
            "  matrix: {nodes: [1, 2]}\n",
            "    metadata: {name: \"x-{{ nodez }}\"}\n    spec: {accelerator: {cpu: {}}}\n",
            "spec.template.metadata.name",
            "`nodez` is not defined",
        ),
    ] {
        let text = matrix_doc(matrix, template);
        let (code, findings) = render_json(&[("m.yaml", &text)]);
        assert_eq!(code, 1, "{text}");
        let errs = errors(&findings);
        assert_eq!(errs.len(), 1, "one error for the one mistake, not one per row: {findings:#?}");
        assert_eq!(errs[0]["rule"], "catalog/template");
        assert_eq!(errs[0]["field"], field);
        let message = errs[0]["message"].as_str().unwrap();
        assert!(message.contains(says) && message.contains("(every row of the matrix") || message.contains("2 matrix rows"), "{message}");
        let (code, list) = krm(&[("catalog/m.yaml", &text)], None);
        assert_eq!(code, 1);
        assert_eq!(results(&list).iter().filter(|r| r.1 == "error").count(), 1, "{list:#}");
    }
    // `default(none)` still leaves a field unset.
    let text = matrix_doc(
        "  matrix: {nodes: [1, 2]}\n",
        "    metadata: {name: \"x-{{ nodes }}\"}\n    spec:\n      accelerator: {cpu: {}}\n      image: \"{{ image | default(none) }}\"\n",
    );
    let r = cli(&[("m.yaml", &text)], &["render", "m.yaml"]);
    assert_eq!(r.code, 0, "{}", r.all());
}

#[test]
fn include_and_exclude_keys_must_be_matrix_variables() {
    let template = "    metadata: {name: \"x-{{ nodes }}-{{ size }}\"}\n    spec:\n      accelerator: {cpu: {}}\n      numNodes: \"{{ nodes }}\"\n      image: \"{{ image | default(none) }}\"\n";
    for (extra, field, says) in [
        ("  exclude: [{nodez: 2}]\n", "spec.exclude[0].nodez", "did you mean `nodes`?"),
        ("  include: [{nodes: 3, size: s, imgae: x}]\n", "spec.include[0].imgae", "did you mean `image`?"),
    ] {
        let text = matrix_doc(&format!("  matrix: {{nodes: [1, 2], size: [s, m]}}\n{extra}"), template);
        let (code, findings) = render_json(&[("m.yaml", &text)]);
        assert_eq!(code, 1, "{text}");
        let errs = errors(&findings);
        assert_eq!(errs.len(), 1, "{findings:#?}");
        assert_eq!((errs[0]["rule"].as_str(), errs[0]["field"].as_str()), (Some("catalog/matrix-variable"), Some(field)));
        assert!(errs[0]["message"].as_str().unwrap().ends_with(says), "{:#}", errs[0]);
        assert_eq!(errs[0]["line"], 6, "the key's line");
        let (code, list) = krm(&[("catalog/m.yaml", &text)], None);
        assert_eq!(code, 1);
        assert!(results(&list).iter().any(|r| r.0 == "catalog/matrix-variable" && r.2 == field), "{list:#}");
    }
    // A value that matches no row excludes nothing: a warning, and the rows render.
    let text = matrix_doc("  matrix: {nodes: [1, 2], size: [s, m]}\n  exclude: [{nodes: 3}]\n", template);
    let (code, findings) = render_json(&[("m.yaml", &text)]);
    assert_eq!(code, 0, "{findings:#?}");
    assert_eq!(findings.iter().map(|f| f["rule"].as_str().unwrap()).collect::<Vec<_>>(), ["catalog/matrix-exclude-unused"]);
}

#[test]
fn exclude_inside_the_matrix_and_variables_no_template_uses_are_errors_at_their_line() {
    let template = "    metadata: {name: \"x-{{ nodes }}\"}\n    spec:\n      accelerator: {cpu: {}}\n      numNodes: \"{{ nodes }}\"\n";
    for (matrix, rule, field, line, says) in [
        // `exclude` one level too deep: today a variable of mappings, the exclusion lost.
        (
            "  matrix:\n    nodes: [1, 2]\n    exclude: [{nodes: 2}]\n",
            "catalog/matrix-variable-unused",
            "spec.matrix.exclude",
            7,
            "nothing is excluded; did you mean `spec.exclude`?",
        ),
        (
            "  matrix:\n    nodes: [1, 2]\n    include:\n    - {nodes: 4}\n",
            "catalog/matrix-variable-unused",
            "spec.matrix.include",
            7,
            "no row is included; did you mean `spec.include`?",
        ),
        (
            "  matrix:\n    nodes: [1, 2]\n    zone: [a, b]\n",
            "catalog/matrix-variable-unused",
            "spec.matrix.zone",
            7,
            "its 2 values make 2 copies of every runtime, with the same names",
        ),
        (
            "  matrix:\n    nodes: [[1, 2]]\n",
            "catalog/invalid-matrix",
            "spec.matrix.nodes[0]",
            6,
            "is a list, and `spec.template.metadata.name` puts `{{ nodes }}` inside a string",
        ),
    ] {
        let text = matrix_doc(matrix, template);
        let (code, findings) = render_json(&[("m.yaml", &text)]);
        assert_eq!(code, 1, "{text}\n{findings:#?}");
        let errs = errors(&findings);
        assert_eq!(errs.len(), 1, "{findings:#?}");
        assert_eq!((errs[0]["rule"].as_str(), errs[0]["field"].as_str()), (Some(rule), Some(field)), "{text}");
        assert_eq!(errs[0]["file"], "m.yaml");
        assert_eq!(errs[0]["line"], line, "{text}");
        assert!(errs[0]["message"].as_str().unwrap().contains(says), "{:#}", errs[0]);
        let (code, list) = krm(&[("catalog/m.yaml", &text)], None);
        assert_eq!(code, 1);
        assert!(results(&list).iter().any(|r| r.0 == rule && r.2 == field), "{list:#}");
    }
    // Written where it belongs, the same exclusion renders one runtime.
    let text = matrix_doc("  matrix:\n    nodes: [1, 2]\n  exclude: [{nodes: 2}]\n", template);
    let (code, findings) = render_json(&[("m.yaml", &text)]);
    assert_eq!(code, 0, "{findings:#?}");
}

#[test]
fn one_bad_value_is_one_error_at_the_value_with_the_rows_it_affects() {
    let text = matrix_doc(
        "  matrix:\n    model: [h100-80gb, h900]\n    nodes: [1, 2, 4, 8, 16]\n",
        "    metadata: {name: \"jax-{{ model }}-{{ nodes }}\"}\n    spec:\n      platform: gke\n      numNodes: \"{{ nodes }}\"\n      accelerator: {gpu: {model: \"{{ model }}\"}}\n",
    );
    let (code, findings) = render_json(&[("m.yaml", &text)]);
    assert_eq!(code, 1);
    let errs = errors(&findings);
    assert_eq!(errs.len(), 1, "one error, not one per row: {findings:#?}");
    let e = errs[0];
    assert_eq!(
        (e["rule"].as_str(), e["field"].as_str(), e["line"].as_u64(), e["column"].as_u64()),
        (Some("catalog/unknown-gpu"), Some("spec.matrix.model[1]"), Some(6), Some(24))
    );
    let m = e["message"].as_str().unwrap();
    assert!(
        m.contains("unknown GPU model `h900`")
            && m.contains("at `spec.template.spec.accelerator.gpu.model`, in 5 matrix rows: model=h900, nodes=1;"),
        "{m}"
    );
    assert!(m.contains("and 2 more"), "{m}");
    // A bad value inside a map value points inside it; a row-specific mistake names its row.
    let text = matrix_doc(
        "  matrix:\n    shape:\n    - {name: a, tpu: {type: v5e, topology: 2x2}}\n    - {name: b, tpu: {type: v5e, topolgy: 4x4}}\n    trainer: [v2.2, v2.3]\n",
        "    metadata: {name: \"x-{{ shape.name }}-{{ trainer | replace('.', '') }}\"}\n    spec:\n      trainer: \"{{ trainer }}\"\n      accelerator: {tpu: \"{{ shape.tpu }}\"}\n",
    );
    let (code, findings) = render_json(&[("m.yaml", &text)]);
    assert_eq!(code, 1);
    let errs = errors(&findings);
    assert_eq!(errs.len(), 1, "{findings:#?}");
    assert_eq!((errs[0]["field"].as_str(), errs[0]["line"].as_u64()), (Some("spec.matrix.shape[1].tpu.topolgy"), Some(8)), "{:#}", errs[0]);
    assert!(errs[0]["message"].as_str().unwrap().starts_with("unknown field `topolgy`; did you mean `topology`?"), "{:#}", errs[0]);
    // Numbers where a release belongs: one error per value, each saying how to quote it.
    let text = matrix_doc("  matrix: {trainer: [2.2, 2.3], n: [1, 2]}\n", "    metadata: {name: \"x-{{ n }}-{{ trainer | string | replace('.', '') }}\"}\n    spec:\n      trainer: \"{{ trainer }}\"\n      accelerator: {cpu: {}}\n");
    let (code, findings) = render_json(&[("m.yaml", &text)]);
    assert_eq!(code, 1);
    let got: Vec<(&str, &str)> = errors(&findings).iter().map(|f| (f["field"].as_str().unwrap(), f["message"].as_str().unwrap())).collect();
    assert_eq!(got.len(), 2, "{findings:#?}");
    assert_eq!(got[0].0, "spec.matrix.trainer[0]");
    assert!(got[0].1.starts_with("expected a string, found the number 2.2; quote it: \"v2.2\""), "{}", got[0].1);
    assert_eq!(got[1].0, "spec.matrix.trainer[1]");
}

#[test]
fn a_matrix_past_the_documented_caps_is_refused_naming_the_cap() {
    let list = (0..100).map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
    let text = matrix_doc(
        &format!("  matrix: {{a: [{list}], b: [{list}], c: [{list}]}}\n"),
        "    metadata: {name: \"x-{{ a }}-{{ b }}-{{ c }}\"}\n    spec: {accelerator: {cpu: {}}}\n",
    );
    let (code, findings) = render_json(&[("m.yaml", &text)]);
    assert_eq!(code, 1);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["rule"], "catalog/matrix-limit");
    let m = findings[0]["message"].as_str().unwrap();
    assert!(m.contains("1000000 rows (100 a x 100 b x 100 c)") && m.contains("at most 20000 rows"), "{m}");
    // The text cap: a 1 MiB description times 100 rows.
    let text = matrix_doc(
        &format!("  matrix: {{a: [{list}]}}\n"),
        &format!(
            "    metadata: {{name: \"x-{{{{ a }}}}\"}}\n    spec: {{accelerator: {{cpu: {{}}}}, description: {}}}\n",
            "d".repeat(1 << 20)
        ),
    );
    let (code, findings) = render_json(&[("m.yaml", &text)]);
    assert_eq!(code, 1);
    assert!(findings[0]["message"].as_str().unwrap().contains("at most 64 MiB"), "{:#}", findings[0]);
    // The caps are documented where matrices are.
    let guide = std::fs::read_to_string(root().join("docs/catalog-guide.md")).unwrap();
    assert!(guide.contains("20,000 rows") && guide.contains("64 MiB"), "docs/catalog-guide.md documents the caps");
}

/// Four teams, each with its defaults, five matrices: 200 runtimes.
fn big_catalog() -> Vec<(String, String)> {
    let teams = ["vision", "speech", "search", "ads"];
    let mut files = Vec::new();
    for t in teams {
        files.push((
            format!("catalog/{t}/defaults.yaml"),
            format!(
                "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeDefaults\nmetadata: {{name: {t}}}\nspec:\n  selector: {{matchLabels: {{team: {t}}}}}\n  labels: {{cost-center: {t}-ml}}\n  env: [{{name: TEAM, value: {t}}}]\n  tolerations: [{{key: team, operator: Equal, value: {t}, effect: NoSchedule}}]\n"
            ),
        ));
    }
    files.push((
        "catalog/defaults.yaml".into(),
        "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeDefaults\nmetadata: {name: platform}\nspec:\n  platform: gke\n  images: {tpu: ghcr.io/example/jax-tpu:0.6}\n".into(),
    ));
    let team_list = teams.join(", ");
    let matrix = |name: &str, vars: &str, template_name: &str, spec: &str| {
        format!(
            "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeMatrix\nmetadata: {{name: {name}}}\nspec:\n  matrix:\n    team: [{team_list}]\n{vars}  template:\n    metadata: {{name: \"{{{{ team }}}}-{template_name}\", labels: {{team: \"{{{{ team }}}}\"}}}}\n    spec:\n{spec}"
        )
    };
    files.push((
        "catalog/cpu.yaml".into(),
        matrix(
            "cpu",
            "    size: [1, 2, 4, 8, 16, 24, 32, 48, 64, 96]\n    trainer: [v2.2, v2.3]\n",
            "cpu-{{ size }}-{{ trainer | replace('.', '') }}",
            "      trainer: \"{{ trainer }}\"\n      accelerator: {cpu: {}}\n      resources: {requests: {cpu: \"{{ size }}\", memory: \"{{ size * 4 }}Gi\"}}\n",
        ),
    ));
    files.push((
        "catalog/tpu-v5e.yaml".into(),
        matrix(
            "v5e",
            "    topology: [2x2, 4x4, 4x8, 8x8, 8x16, 16x16]\n    trainer: [v2.2, v2.3]\n",
            "v5e-{{ topology }}-{{ trainer | replace('.', '') }}",
            "      trainer: \"{{ trainer }}\"\n      accelerator: {tpu: {type: v5e, topology: \"{{ topology }}\"}}\n",
        ),
    ));
    files.push((
        "catalog/tpu-v6e.yaml".into(),
        matrix(
            "v6e",
            "    topology: [1x1, 2x2, 4x4, 4x8, 8x8, 16x16]\n",
            "v6e-{{ topology }}",
            "      accelerator: {tpu: {type: v6e, topology: \"{{ topology }}\"}}\n",
        ),
    ));
    files.push((
        "catalog/tpu-v5p.yaml".into(),
        matrix(
            "v5p",
            "    topology: [2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4, 4x4x8]\n",
            "v5p-{{ topology }}",
            "      accelerator: {tpu: {type: v5p, topology: \"{{ topology }}\"}}\n",
        ),
    ));
    files.push((
        "catalog/gpu.yaml".into(),
        matrix(
            "gpu",
            "    gpu: [{model: h100-80gb, short: h100}, {model: h200-141gb, short: h200}]\n    nodes: [1, 2, 4]\n",
            "{{ gpu.short }}-x{{ nodes }}",
            "      numNodes: \"{{ nodes }}\"\n      accelerator: {gpu: {model: \"{{ gpu.model }}\"}}\n",
        ),
    ));
    files
}

#[test]
fn a_200_runtime_matrix_catalog_with_team_defaults_renders() {
    let files = big_catalog();
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let dir = folder(&borrowed);
    let r = run_in(dir.path(), &["render", "catalog", "-o", "out"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(!r.stderr.contains("warning[") && !r.stderr.contains("error["), "a clean catalog: {}", r.stderr);
    let runtimes: Vec<String> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("clustertrainingruntime_"))
        .collect();
    assert_eq!(runtimes.len(), 200, "{runtimes:?}");
    // Each runtime has its team's defaults over the platform defaults.
    let text = std::fs::read_to_string(dir.path().join("out/clustertrainingruntime_speech-v5e-4x4-v23.yaml")).unwrap();
    let rt = &support::documents(&text)[0];
    assert_eq!(rt["metadata"]["labels"]["cost-center"], "speech-ml");
    let pod = &rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
    assert_eq!(pod["containers"][0]["image"], "ghcr.io/example/jax-tpu:0.6");
    assert!(pod["containers"][0]["env"].as_array().unwrap().iter().any(|e| e["name"] == "TEAM" && e["value"] == "speech"), "{pod:#}");
    assert!(pod["tolerations"].as_array().unwrap().iter().any(|t| t["value"] == "speech"), "{pod:#}");
    // The KRM function makes the same 200.
    let (code, list) = krm(&borrowed, None);
    assert_eq!(code, 0, "{list:#}");
    let generated = list["items"].as_array().unwrap().iter().filter(|i| i["kind"] == "ClusterTrainingRuntime").count();
    assert_eq!(generated, 200);

    // #31: the folder as a shared repository keeps it. A user's manifest is listed and kept.
    let out = dir.path().join("out");
    std::fs::write(out.join("namespace.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: ml}\n").unwrap();
    let count = |prefix: &str| {
        std::fs::read_dir(&out).unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with(prefix)).count()
    };
    let r = run_in(dir.path(), &["render", "catalog", "-o", "out"], None);
    assert!(r.code == 0 && r.stderr.contains("(0 created, 1 updated, 0 pruned)"), "{}", r.all());
    // A rename: the v6e matrix's runtimes get another name; 24 new files, 24 pruned.
    let v6e = dir.path().join("catalog/tpu-v6e.yaml");
    let text = std::fs::read_to_string(&v6e).unwrap();
    std::fs::write(&v6e, text.replace("-v6e-{{ topology }}", "-trillium-{{ topology }}")).unwrap();
    let r = run_in(dir.path(), &["render", "catalog", "-o", "out"], None);
    assert!(r.code == 0 && r.stderr.contains("(24 created, 1 updated, 24 pruned)"), "{}", r.all());
    assert_eq!(count("clustertrainingruntime_"), 200);
    assert_eq!(count("clustertrainingruntime_ads-trillium-"), 6);
    // A removal: the v5p matrix goes; its 24 runtimes are pruned, nothing else.
    std::fs::remove_file(dir.path().join("catalog/tpu-v5p.yaml")).unwrap();
    let r = run_in(dir.path(), &["render", "./catalog/", "-o", "out"], None);
    assert!(r.code == 0 && r.stderr.contains("(0 created, 1 updated, 24 pruned)"), "{}", r.all());
    assert_eq!(count("clustertrainingruntime_"), 176);
    assert!(out.join("namespace.yaml").exists());
    let r = run_in(dir.path(), &["render", "catalog", "-o", "out", "--check"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    // The catalog path forgotten: refused, the 176 stay.
    let r = run_in(dir.path(), &["render", "-o", "out"], None);
    assert_ne!(r.code, 0, "{}", r.all());
    assert!(r.stderr.contains("name the catalog"), "{}", r.all());
    assert_eq!(count("clustertrainingruntime_"), 176);

    // As a CI gate, in each format: one bad matrix value (a CPU count Kubernetes cannot read)
    // fails the render with exit 1, names its row, writes nothing, and stderr is one document.
    let cpu = dir.path().join("catalog/cpu.yaml");
    let text = std::fs::read_to_string(&cpu).unwrap();
    std::fs::write(&cpu, text.replace("size: [1, 2,", "size: [1, 2x,")).unwrap();
    for format in ["text", "json", "github", "sarif", "junit"] {
        let r = run_in(dir.path(), &["render", "catalog", "-o", "out", "--format", format], None);
        assert_eq!(r.code, 1, "{format}: {}", r.all());
        assert_eq!(count("clustertrainingruntime_"), 176, "{format}: nothing written");
        let errors = match format {
            "text" => r.stderr.matches("\nerror[").count() + usize::from(r.stderr.starts_with("error[")),
            "json" => {
                serde_json::from_str::<Vec<serde_json::Value>>(&r.stderr).unwrap().iter().filter(|f| f["severity"] == "error").count()
            }
            "github" => {
                assert!(r.stderr.lines().all(|l| l.starts_with("::")), "{}", r.stderr);
                r.stderr.lines().filter(|l| l.starts_with("::error ")).count()
            }
            "sarif" => {
                let log: serde_json::Value = serde_json::from_str(&r.stderr).unwrap();
                log["runs"][0]["results"].as_array().unwrap().iter().filter(|x| x["level"] == "error").count()
            }
            _ => {
                assert!(r.stderr.trim_end().ends_with("</testsuites>"), "{}", r.stderr);
                r.stderr.matches("<failure type=\"error\"").count()
            }
        };
        // One finding per field the bad value reaches (cpu and memory), each naming the 8 rows.
        assert_eq!(errors, 2, "{format}: {errors} errors:\n{}", r.stderr);
        assert!(r.stderr.contains("2x") && r.stderr.contains("in 8 matrix rows"), "{format}: value and rows named: {}", r.stderr);
    }
}

// ---------------------------------------------------------------------------------------------
// Several JaxRuntimeDefaults.

fn defaults(name: &str, spec: &str) -> String {
    format!("apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeDefaults\nmetadata: {{name: {name}}}\nspec:\n{spec}")
}

fn cpu_runtime(name: &str, labels: &str) -> String {
    format!("{HEAD}metadata: {{name: {name}, labels: {{{labels}}}}}\nspec: {{accelerator: {{cpu: {{}}}}, resources: {{requests: {{cpu: \"1\"}}}}}}\n")
}

/// The env of each runtime in a rendered stream, by name.
fn env_by_runtime(stream: &str) -> BTreeMap<String, Vec<String>> {
    support::documents(stream)
        .into_iter()
        .map(|rt| {
            let env = rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["env"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|e| e["name"] != "JAX_PLATFORMS")
                .map(|e| format!("{}={}", e["name"].as_str().unwrap(), e["value"].as_str().unwrap_or_default()))
                .collect();
            (support::name_of(&rt).to_string(), env)
        })
        .collect()
}

#[test]
fn defaults_select_their_runtimes_by_labels_names_and_folder_over_the_global_defaults() {
    let files = [
        ("catalog/defaults.yaml", defaults("all", "  env: [{name: WHO, value: all}, {name: GLOBAL, value: \"1\"}]\n")),
        ("catalog/team-a/defaults.yaml", defaults("team-a", "  selector: {sameFolder: true}\n  env: [{name: WHO, value: folder-a}]\n")),
        ("catalog/team-a/runtimes.yaml", cpu_runtime("a-one", "")),
        ("catalog/team-b/runtimes.yaml", format!("{}---\n{}", cpu_runtime("b-one", "team: b"), cpu_runtime("b-two", ""))),
        ("catalog/labels.yaml", defaults("team-b", "  selector: {matchLabels: {team: b}}\n  env: [{name: WHO, value: label-b}]\n")),
        ("catalog/names.yaml", defaults("nightly", "  selector: {names: [\"*-two\"]}\n  env: [{name: WHO, value: name-two}]\n")),
    ];
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let r = cli(&borrowed, &["render", "catalog"]);
    assert_eq!(r.code, 0, "{}", r.all());
    let want: BTreeMap<String, Vec<String>> =
        [("a-one", ["WHO=folder-a", "GLOBAL=1"]), ("b-one", ["WHO=label-b", "GLOBAL=1"]), ("b-two", ["WHO=name-two", "GLOBAL=1"])]
            .into_iter()
            .map(|(n, e)| (n.to_string(), e.iter().map(|s| s.to_string()).collect()))
            .collect();
    assert_eq!(env_by_runtime(&r.stdout), want);
    // The KRM function selects the same by the package's paths.
    let (code, list) = krm(&borrowed, None);
    assert_eq!(code, 0, "{list:#}");
    let generated: Vec<Value> =
        list["items"].as_array().unwrap().iter().filter(|i| i["kind"] == "ClusterTrainingRuntime").cloned().collect();
    let stream = generated.iter().map(|v| serde_json::to_string(v).unwrap()).collect::<Vec<_>>().join("\n---\n");
    assert_eq!(env_by_runtime(&stream), want);
}

#[test]
fn overlapping_selectors_are_an_error_and_a_selector_that_selects_nothing_warns() {
    let files = [
        ("c/runtimes.yaml", format!("{}---\n{}", cpu_runtime("a", "team: a"), cpu_runtime("b", ""))),
        ("c/d1.yaml", defaults("by-label", "  selector: {matchLabels: {team: a}}\n  labels: {x: \"1\"}\n")),
        ("c/d2.yaml", defaults("by-name", "  selector: {names: [a]}\n  labels: {x: \"2\"}\n")),
        ("c/d3.yaml", defaults("nobody", "  selector: {matchExpressions: [{key: team, operator: In, values: [zzz]}]}\n")),
        ("c/d4.yaml", defaults("global-1", "  labels: {g: \"1\"}\n")),
        ("c/d5.yaml", defaults("global-2", "  labels: {g: \"2\"}\n")),
    ];
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let (code, findings) = render_json(&borrowed);
    assert_eq!(code, 1);
    let got: Vec<(&str, &str, &str)> =
        findings.iter().map(|f| (f["rule"].as_str().unwrap(), f["file"].as_str().unwrap(), f["severity"].as_str().unwrap())).collect();
    assert!(got.contains(&("catalog/defaults-overlap", "c/runtimes.yaml", "error")), "{findings:#?}");
    assert!(got.contains(&("catalog/duplicate-defaults", "c/d5.yaml", "error")), "{findings:#?}");
    assert!(got.contains(&("catalog/defaults-unused", "c/d3.yaml", "warning")), "{findings:#?}");
    let overlap = findings.iter().find(|f| f["rule"] == "catalog/defaults-overlap").unwrap();
    let m = overlap["message"].as_str().unwrap();
    assert!(m.contains("`by-label` (c/d1.yaml), `by-name` (c/d2.yaml)"), "{m}");
    let (code, list) = krm(&borrowed, None);
    assert_eq!(code, 1);
    assert!(results(&list).iter().any(|r| r.0 == "catalog/defaults-overlap"), "{list:#}");
}

#[test]
fn labels_and_annotations_the_generator_owns_warn_when_set() {
    let files = [
        ("c/d.yaml", defaults("d", "  labels: {app.kubernetes.io/managed-by: argocd}\n")),
        (
            "c/r.yaml",
            format!("{HEAD}metadata:\n  name: r\n  labels: {{trainer.kubeflow.org/framework: pytorch}}\n  annotations: {{jax-runtimes.dev/source: mine}}\nspec: {{accelerator: {{cpu: {{}}}}}}\n"),
        ),
        ("c/ok.yaml", format!("{HEAD}metadata:\n  name: ok\n  labels: {{app.kubernetes.io/managed-by: jax-runtimes}}\nspec: {{accelerator: {{cpu: {{}}}}}}\n")),
    ];
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let (code, findings) = render_json(&borrowed);
    assert_eq!(code, 0, "warnings only: {findings:#?}");
    let got: Vec<(&str, &str)> = findings.iter().map(|f| (f["file"].as_str().unwrap(), f["field"].as_str().unwrap())).collect();
    assert_eq!(
        got,
        [
            ("c/d.yaml", "spec.labels.app.kubernetes.io/managed-by"),
            ("c/r.yaml", "metadata.labels.trainer.kubeflow.org/framework"),
            ("c/r.yaml", "metadata.annotations.jax-runtimes.dev/source"),
        ],
        "{findings:#?}"
    );
    assert!(findings.iter().all(|f| f["rule"] == "catalog/generator-metadata" && f["severity"] == "warning"));
    assert!(findings[0]["message"]
        .as_str()
        .unwrap()
        .contains("`app.kubernetes.io/managed-by: argocd` is replaced by `app.kubernetes.io/managed-by: jax-runtimes`"));
    let (code, list) = krm(&borrowed, None);
    assert_eq!(code, 0);
    assert_eq!(results(&list).iter().filter(|r| r.0 == "catalog/generator-metadata").count(), 3, "{list:#}");
}

// ---------------------------------------------------------------------------------------------
// Trainer releases.

#[test]
fn trainer_takes_exactly_the_releases_the_data_lists() {
    for (value, says) in [
        ("v2.2.7", "did you mean `v2.2`?"),
        ("v2.3.7", "did you mean `v2.3`?"),
        ("\"2.3\"", "did you mean `v2.3`?"),
        ("2.3", "expected a string, found the number 2.3; quote it: \"v2.3\""),
        (
            "v2.9",
            "unknown Trainer release `v2.9`; the known releases are `v2.2`, `v2.3` (or a release: `v2.2.0`, `v2.2.1`, `v2.3.0`, `next`)",
        ),
    ] {
        let text = runtime("a", &format!("  trainer: {value}\n  accelerator: {{cpu: {{}}}}\n"));
        let (code, findings) = render_json(&[("t.yaml", &text)]);
        assert_eq!(code, 1, "{value}");
        assert_eq!(findings.len(), 1, "{value}: {findings:#?}");
        assert_eq!(findings[0]["field"], "spec.trainer");
        let m = findings[0]["message"].as_str().unwrap();
        assert!(m.contains(says) && (m.contains("`v2.2`, `v2.3`") || m.contains("quote it")), "{value}: {m}");
        let (code, list) = krm(&[("c/t.yaml", &text)], None);
        assert_eq!(code, 1);
        assert!(results(&list).iter().any(|r| r.2 == "spec.trainer" && r.3.contains(says)), "{value}: {list:#}");
        assert!(!schema().is_valid(&support::documents(&text)[0]), "the schema refuses trainer: {value}");
    }
    // A release whose CRDs the binary holds is taken as written, by render and by the schema.
    for value in ["v2.2.1", "v2.3.0", "next"] {
        let text = runtime("a", &format!("  trainer: {value}\n  accelerator: {{cpu: {{}}}}\n"));
        let (code, findings) = render_json(&[("t.yaml", &text)]);
        assert_eq!(code, 0, "{value}: {findings:#?}");
        assert!(schema().is_valid(&support::documents(&text)[0]), "the schema takes trainer: {value}");
    }
    let docs = std::fs::read_to_string(root().join("docs/schema/jax-runtimes.schema.json")).unwrap();
    for release in ["\"v2.2\",\n", "\"v2.3\",\n", "\"v2.2.1\",\n", "\"next\"\n"] {
        assert!(docs.contains(release), "the schema lists the release {release}");
    }
}

// ---------------------------------------------------------------------------------------------
// Near misses of Trainer, JobSet and catalog kinds.

const NEAR_MISSES: &str = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJobb
metadata: {name: a}
spec: {runtimeRef: {name: jax-cpu}, trainer: {numNodes: 0}}
---
apiVersion: trainer.kubeflow.com/v1alpha1
kind: TrainJob
metadata: {name: b}
spec: {runtimeRef: {name: jax-cpu}}
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSett
metadata: {name: c}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntme
metadata: {name: d}
spec: {accelerator: {cpu: {}}}
";

const FOREIGN: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n";

fn near_miss_fields(findings: &[Value]) -> Vec<(String, String)> {
    findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| (f["rule"].as_str().unwrap().to_string(), format!("{}:{}", f["line"], f["field"].as_str().unwrap_or_default())))
        .collect()
}

#[test]
fn near_misses_of_trainer_jobset_and_catalog_kinds_are_errors_in_every_command() {
    let want = [
        ("input/near-miss", "2:kind"),
        ("input/near-miss", "6:apiVersion"),
        ("input/near-miss", "12:kind"),
        ("catalog/unknown-kind", "16:kind"),
    ]
    .map(|(r, f)| (r.to_string(), f.to_string()));
    let files = [("objects.yaml", NEAR_MISSES), ("settings.yaml", FOREIGN)];
    // validate
    let r = cli(&files, &["validate", "--format", "json", "objects.yaml", "settings.yaml"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let near: Vec<(String, String)> = near_miss_fields(&findings).into_iter().filter(|(r, _)| r != "input/no-runtime").collect();
    assert_eq!(near, want, "{findings:#?}");
    let messages: Vec<&str> = findings.iter().filter_map(|f| f["message"].as_str()).collect();
    for says in [
        "did you mean `TrainJob`?",
        "did you mean `trainer.kubeflow.org/v1alpha1`?",
        "did you mean `JobSet`?",
        "did you mean `JaxRuntime`?",
    ] {
        assert!(messages.iter().any(|m| m.contains(says)), "{says}: {messages:?}");
    }
    // The ConfigMap is someone else's: info, as before.
    assert!(findings.iter().any(|f| f["rule"] == "input/not-a-runtime" && f["severity"] == "info" && f["file"] == "settings.yaml"));
    // render
    let catalog = cpu_runtime("ok", "");
    let files = [("objects.yaml", NEAR_MISSES), ("settings.yaml", FOREIGN), ("catalog.yaml", catalog.as_str())];
    let (code, findings) = render_json(&files);
    assert_eq!(code, 1);
    assert_eq!(near_miss_fields(&findings), want, "{findings:#?}");
    assert!(findings.iter().any(|f| f["rule"] == "input/not-a-catalog-object" && f["severity"] == "info"));
    // The KRM generator: an error, and nothing changes.
    let (code, list) = krm(&files, None);
    assert_eq!(code, 1);
    let near: Vec<String> = results(&list).into_iter().filter(|r| r.1 == "error").map(|r| format!("{} {}", r.0, r.2)).collect();
    assert_eq!(
        near,
        ["input/near-miss kind", "input/near-miss apiVersion", "input/near-miss kind", "catalog/unknown-kind kind"],
        "{list:#}"
    );
    assert!(list["items"].as_array().unwrap().iter().all(|i| i["kind"] != "ClusterTrainingRuntime"), "nothing generated");
    // The KRM validator.
    let config = json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeValidation", "metadata": {"name": "v"}});
    let (code, list) = krm(&files, Some(config));
    assert_eq!(code, 1);
    let near: Vec<String> = results(&list).into_iter().filter(|r| r.1 == "error").map(|r| format!("{} {}", r.0, r.2)).collect();
    assert_eq!(
        near,
        ["input/near-miss kind", "input/near-miss apiVersion", "input/near-miss kind", "catalog/unknown-kind kind"],
        "{list:#}"
    );
    // A clean package with a ConfigMap passes both.
    let files = [("settings.yaml", FOREIGN), ("catalog.yaml", catalog.as_str())];
    assert_eq!(krm(&files, None).0, 0);
}

/// From the outside: kpt renders a package with a misspelt TrainJob beside its catalog and
/// fails with the spelling; the package's files are left as they were.
#[test]
fn kpt_refuses_a_package_with_a_near_miss_and_changes_nothing() {
    let kpt = tool("kpt");
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("example");
    support::copy_dir(&root().join("functions/kpt/example"), &pkg);
    std::fs::write(
        pkg.join("app/job.yaml"),
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJobb\nmetadata: {name: j}\nspec: {runtimeRef: {name: jax-cpu-small}}\n",
    )
    .unwrap();
    let before = support::tree(&pkg);
    let results = tempfile::tempdir().unwrap();
    let out = Command::new(kpt)
        .args(["fn", "render", "--allow-exec", "--results-dir"])
        .arg(results.path())
        .current_dir(&pkg)
        .env("PATH", path_with_bin())
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", show(&out));
    let text = show(&out) + &std::fs::read_to_string(results.path().join("results.yaml")).unwrap_or_default();
    assert!(text.contains("did you mean `TrainJob`?"), "{text}");
    assert!(support::tree(&pkg) == before, "files changed");
}

/// From the outside: kpt renders a package whose teams keep their defaults in their folders.
#[test]
fn kpt_applies_each_folders_defaults() {
    let kpt = tool("kpt");
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    support::copy_dir(&root().join("functions/kpt/example"), &pkg);
    std::fs::remove_dir_all(pkg.join("catalog")).unwrap();
    std::fs::remove_dir_all(pkg.join("runtimes")).unwrap();
    let team = |t: &str| {
        let d = pkg.join("catalog").join(t);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("defaults.yaml"), defaults(t, &format!("  selector: {{sameFolder: true}}\n  labels: {{team: {t}}}\n")))
            .unwrap();
        std::fs::write(d.join("runtimes.yaml"), cpu_runtime(&format!("{t}-cpu"), "")).unwrap();
    };
    team("red");
    team("blue");
    let out = Command::new(kpt).args(["fn", "render", "--allow-exec"]).arg(&pkg).env("PATH", path_with_bin()).output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    for t in ["red", "blue"] {
        let text = std::fs::read_to_string(pkg.join(format!("runtimes/clustertrainingruntime_{t}-cpu.yaml"))).unwrap();
        assert_eq!(support::documents(&text)[0]["metadata"]["labels"]["team"], t, "{text}");
    }
}

/// `validate` of a hand-written runtime: every unknown field in one run, each with the field it
/// may mean, at its key; the KRM validator says the same.
#[test]
fn validate_names_the_nearest_field_of_every_unknown_one_at_its_key() {
    let text = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: x, labels: {trainer.kubeflow.org/framework: jax}}
spec:
  mlPolicy: {numNodes: 1, jax: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              spec:
                nodeSelectr: {a: b}
                containers:
                - name: node
                  image: x:1
                  resorces: {}
";
    let r = cli(&[("rt.yaml", text)], &["validate", "--format", "json", "rt.yaml"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let mut got: Vec<(u64, u64, String)> = findings
        .iter()
        .filter(|f| f["rule"] == "schema/unknown-field")
        .map(|f| (f["line"].as_u64().unwrap(), f["column"].as_u64().unwrap(), f["message"].as_str().unwrap().to_string()))
        .collect();
    got.sort();
    // What `kubectl apply` does with an unknown field, as the message says it.
    let strict = |f: &str| {
        format!("`kubectl apply` refuses the object (its default `--validate=strict`: unknown field \"{f}\"); with `--validate=false` the API server drops the field")
    };
    assert_eq!(
        got,
        [
            (15, 17, format!("unknown field `nodeSelectr` (did you mean `nodeSelector`?): {STRICT}", STRICT = strict("nodeSelectr"))),
            (19, 19, format!("unknown field `resorces` (did you mean `resources`?): {STRICT}", STRICT = strict("resorces"))),
        ],
        "{findings:#?}"
    );
    let config = json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeValidation", "metadata": {"name": "v"}});
    let (code, list) = krm(&[("rt.yaml", text)], Some(config));
    assert_eq!(code, 1);
    let messages: Vec<String> = results(&list).into_iter().filter(|r| r.0 == "schema/unknown-field").map(|r| r.3).collect();
    assert_eq!(messages.len(), 2, "{list:#}");
    assert!(messages.iter().all(|m| m.contains("(did you mean `")), "{messages:?}");
    // The validator's own config is strict too, with the field it may mean.
    let config = json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeValidation", "metadata": {"name": "v"}, "spec": {"failOnWarning": true}});
    let (code, list) = krm(&[("rt.yaml", text)], Some(config));
    assert_eq!(code, 1);
    assert!(
        results(&list)
            .iter()
            .any(|r| r.0 == "krm/function-config" && r.2 == "spec.failOnWarning" && r.3.contains("did you mean `failOnWarnings`?")),
        "{list:#}"
    );
}

/// The keys `catalog/generator-metadata` knows are the ones the generator writes: a catalog with
/// no labels or annotations of its own renders no other key.
#[test]
fn the_generator_owned_keys_are_every_key_the_generator_writes() {
    let text = format!(
        "{}---\n{}---\n{}",
        runtime("g", "  description: multi-node GPUs\n  platform: gke\n  numNodes: 2\n  accelerator:\n    gpu: {model: h100-80gb}\n"),
        runtime("t", "  accelerator:\n    tpu: {type: v5e, topology: 4x4}\n  capacity: {spot: true}\n"),
        runtime("c", "  accelerator: {cpu: {}}\n"),
    );
    let r = cli(&[("c.yaml", &text)], &["render", "c.yaml"]);
    assert_eq!(r.code, 0, "{}", r.all());
    let mut written = std::collections::BTreeSet::new();
    for rt in support::documents(&r.stdout) {
        for part in ["labels", "annotations"] {
            for k in rt["metadata"][part].as_object().unwrap().keys() {
                written.insert(k.clone());
            }
        }
    }
    let owned: std::collections::BTreeSet<String> = jax_runtimes::resolve::generator_labels()
        .iter()
        .map(|(k, _)| k.to_string())
        .chain(jax_runtimes::keys::GENERATOR_ANNOTATIONS.iter().map(|k| k.to_string()))
        .collect();
    assert_eq!(written, owned, "the generator's keys and keys::GENERATOR_* differ");
}
