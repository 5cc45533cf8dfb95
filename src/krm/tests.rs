//! The KRM function in process, with the real pipeline: upsert, prune, ownership, kustomize's
//! generator input, the validator mode, and the exact passthrough of items it does not own.

use serde_json::{json, Value};

use crate::exit::Exit;
use crate::yaml;

fn run_text(input: &str) -> (String, Exit, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = super::run(input.as_bytes(), &mut out, &mut err);
    (String::from_utf8(out).unwrap(), code, String::from_utf8(err).unwrap())
}

fn output(text: &str) -> Value {
    if text.trim_start().starts_with('{') {
        serde_json::from_str(text).unwrap()
    } else {
        yaml::parse_one(text).unwrap()
    }
}

fn items(text: &str) -> Vec<Value> {
    output(text)["items"].as_array().cloned().unwrap_or_default()
}

fn results(text: &str) -> Vec<Value> {
    output(text)["results"].as_array().cloned().unwrap_or_default()
}

fn annotation<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.pointer("/metadata/annotations")?.get(key)?.as_str()
}

const HEAD: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n";

/// A hand-written ConfigMap (with look-alikes a re-serializer would change), a Deployment with
/// flow maps, and a catalog entry, as kpt sends them.
const FOREIGN: &str = r#"- # a comment kpt moved before the first key
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: yaml11
    annotations:
      config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/id: '1'
  data:
    mode: 0755
    flag: on
    n: 1e3
    quoted: "on"
    multi: |
      line1
        line2
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web # trailing
    labels: {app: web}
    annotations: {internal.config.kubernetes.io/path: 'deploy.yaml', internal.config.kubernetes.io/id: '2'}
  spec: {replicas: 3, paused: false}
"#;

const CATALOG: &str = r#"- apiVersion: jax-runtimes.dev/v1alpha1
  kind: JaxRuntime
  metadata:
    name: cpu
    annotations:
      config.kubernetes.io/local-config: "true"
      internal.config.kubernetes.io/path: 'catalog.yaml'
      internal.config.kubernetes.io/index: '1'
      team: ml
  spec:
    accelerator: {cpu: {}}
    numNodes: 2
"#;

fn package(extra: &str) -> String {
    format!("{HEAD}{FOREIGN}{CATALOG}{extra}")
}

#[test]
fn items_it_does_not_own_come_back_byte_for_byte() {
    let (out, code, err) = run_text(&package(""));
    assert_eq!(code, Exit::Ok, "{err}");
    assert!(out.starts_with(&package("")), "the input's items are the start of the output:\n{out}");
    let got = items(&out);
    assert_eq!(got.len(), 4);
    let runtime = &got[3];
    assert_eq!(runtime["kind"], "ClusterTrainingRuntime");
    assert_eq!(annotation(runtime, "internal.config.kubernetes.io/path"), Some("runtimes/clustertrainingruntime_cpu.yaml"));
    assert_eq!(annotation(runtime, "jax-runtimes.dev/source"), Some("JaxRuntime/cpu"));
    assert_eq!(annotation(runtime, "team"), Some("ml"), "the entry's own annotations are copied");
    assert_eq!(annotation(runtime, "config.kubernetes.io/local-config"), None, "orchestrator annotations are not");
    assert!(results(&out).is_empty(), "{out}");
}

#[test]
fn output_fed_back_is_byte_identical() {
    let (first, _, _) = run_text(&package(""));
    let (second, code, _) = run_text(&first);
    assert_eq!(code, Exit::Ok);
    assert_eq!(first, second);
}

#[test]
fn json_in_json_out_with_items_as_they_came() {
    let v = yaml::parse_one(&package("")).unwrap();
    let input = serde_json::to_string(&v).unwrap();
    let (first, code, _) = run_text(&input);
    assert_eq!(code, Exit::Ok);
    assert!(first.starts_with('{'), "{first}");
    assert!(first.contains(&serde_json::to_string(&v["items"][0]).unwrap()), "the ConfigMap keeps its bytes");
    let (second, _, _) = run_text(&first);
    assert_eq!(first, second);
}

const OWNED: &str = r#"- apiVersion: trainer.kubeflow.org/v1alpha1
  kind: ClusterTrainingRuntime
  metadata:
    name: cpu
    labels: {app.kubernetes.io/managed-by: jax-runtimes}
    annotations:
      jax-runtimes.dev/source: JaxRuntime/cpu
      internal.config.kubernetes.io/path: 'custom/place.yaml'
      internal.config.kubernetes.io/id: '9'
  spec: {mlPolicy: {numNodes: 1}}
"#;

#[test]
fn a_runtime_generated_before_is_replaced_in_place_and_keeps_its_file() {
    let (out, code, err) = run_text(&package(OWNED));
    assert_eq!(code, Exit::Ok, "{err}");
    let got = items(&out);
    assert_eq!(got.len(), 4, "replaced, not duplicated: {out}");
    let runtime = &got[3];
    assert_eq!(runtime["spec"]["mlPolicy"]["numNodes"], json!(2), "content regenerated");
    assert_eq!(annotation(runtime, "internal.config.kubernetes.io/path"), Some("custom/place.yaml"), "file kept");
    assert_eq!(annotation(runtime, "internal.config.kubernetes.io/id"), Some("9"), "id kept for kpt");
}

#[test]
fn the_runtime_of_a_removed_entry_is_pruned_and_a_look_alike_is_not() {
    let gone = OWNED.replace("name: cpu", "name: gone").replace("JaxRuntime/cpu", "JaxRuntime/gone");
    let half = OWNED.replace("name: cpu", "name: half").replace("jax-runtimes.dev/source: JaxRuntime/cpu", "other: x");
    let (out, code, _) = run_text(&package(&format!("{gone}{half}")));
    assert_eq!(code, Exit::Ok);
    let names: Vec<Value> = items(&out).iter().map(|i| i["metadata"]["name"].clone()).collect();
    assert!(!names.contains(&json!("gone")), "pruned: {names:?}");
    assert!(names.contains(&json!("half")), "a label alone does not make an object ours: {names:?}");
}

#[test]
fn a_foreign_object_with_the_runtimes_name_is_an_error_and_nothing_changes() {
    let foreign = "- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: ClusterTrainingRuntime\n  metadata:\n    name: cpu\n    annotations: {internal.config.kubernetes.io/path: 'mine.yaml'}\n  spec: {handWritten: true}\n";
    let input = package(foreign);
    let (out, code, err) = run_text(&input);
    assert_eq!(code, Exit::Findings);
    assert!(out.starts_with(&input), "every item as it was");
    let r = results(&out);
    assert_eq!(r.len(), 1, "{out}");
    assert_eq!(r[0]["tags"]["rule"], "krm/not-owned");
    assert!(r[0]["message"].as_str().unwrap().contains("mine.yaml"));
    assert!(err.contains("krm/not-owned"), "{err}");
}

#[test]
fn an_error_changes_nothing_and_prunes_nothing() {
    let broken = package(OWNED).replace("    numNodes: 2\n", "    numNodes: 2\n    broken: yes\n");
    let (out, code, _) = run_text(&broken);
    assert_eq!(code, Exit::Findings);
    assert!(out.starts_with(&broken), "the owned runtime, stale or not, is still there as it was");
    let r = results(&out);
    assert_eq!(r[0]["tags"]["rule"], "catalog/unknown-field");
    assert_eq!(r[0]["field"]["path"], "spec.broken");
    assert_eq!(r[0]["file"], json!({"path": "catalog.yaml", "index": 1}));
}

#[test]
fn misspelt_catalog_objects_are_errors_that_name_the_spelling() {
    for (typo, rule, hint) in [
        ("kind: JaxRuntme", "catalog/unknown-kind", "`JaxRuntime`"),
        ("apiVersion: jax-runtimes.dev/v1alpha\n  kind: JaxRuntime", "catalog/api-version", "`jax-runtimes.dev/v1alpha1`"),
    ] {
        let input = package(OWNED).replace(
            "apiVersion: jax-runtimes.dev/v1alpha1\n  kind: JaxRuntime",
            &format!("{}{}", if typo.starts_with("kind") { "apiVersion: jax-runtimes.dev/v1alpha1\n  " } else { "" }, typo),
        );
        let (out, code, _) = run_text(&input);
        assert_eq!(code, Exit::Findings, "{typo}: {out}");
        assert!(out.starts_with(&input), "{typo}: the runtime generated before is not pruned");
        let r = results(&out);
        assert_eq!(r[0]["tags"]["rule"], rule, "{out}");
        assert!(r[0]["message"].as_str().unwrap().contains(hint), "{out}");
    }
}

#[test]
fn a_catalog_object_without_local_config_gets_a_warning_not_an_edit() {
    let input = package("").replace("      config.kubernetes.io/local-config: \"true\"\n", "");
    let (out, code, _) = run_text(&input);
    assert_eq!(code, Exit::Ok);
    assert!(out.starts_with(&input), "the catalog object is not edited");
    let r = results(&out);
    assert_eq!(r[0]["tags"]["rule"], "krm/local-config");
    assert_eq!(r[0]["severity"], "warning");
}

#[test]
fn kustomize_generator_config_is_read_once() {
    // kustomize passes a generator's config as functionConfig and, marked local-config, as the
    // only item (keys sorted, as it round-trips through JSON).
    let input = r#"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: jax-runtimes.dev/v1alpha1
  kind: JaxRuntime
  metadata:
    annotations:
      config.kubernetes.io/function: |
        exec:
          path: jax-runtimes
      config.kubernetes.io/local-config: "true"
    name: cpu
  spec: {accelerator: {cpu: {}}}
functionConfig:
  apiVersion: jax-runtimes.dev/v1alpha1
  kind: JaxRuntime
  metadata:
    annotations:
      config.kubernetes.io/function: |
        exec:
          path: jax-runtimes
    name: cpu
  spec: {accelerator: {cpu: {}}}
"#;
    let (out, code, err) = run_text(input);
    assert_eq!(code, Exit::Ok, "{err}");
    let got = items(&out);
    assert_eq!(got.len(), 2, "{out}");
    assert_eq!(annotation(&got[1], "config.kubernetes.io/function"), None);
    let (again, _, _) = run_text(&out);
    assert_eq!(out, again);
}

#[test]
fn the_function_config_alone_is_a_catalog_and_the_placeholder_is_none() {
    let solo = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: jax-runtimes.dev/v1alpha1\n  kind: JaxRuntime\n  metadata: {name: solo}\n  spec: {accelerator: {cpu: {}}}\n";
    let (out, code, _) = run_text(solo);
    assert_eq!(code, Exit::Ok);
    assert_eq!(items(&out)[0]["metadata"]["name"], "solo");
    let placeholder = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  metadata: {name: function-input}\n  data: {}\n  kind: ConfigMap\n  apiVersion: v1\n";
    let (out, code, _) = run_text(placeholder);
    assert_eq!(code, Exit::Ok);
    assert!(results(&out).is_empty());
    assert!(
        out.ends_with("functionConfig:\n  metadata: {name: function-input}\n  data: {}\n  kind: ConfigMap\n  apiVersion: v1\n"),
        "{out}"
    );
    let (out, code, _) = run_text(&placeholder.replace("data: {}", "data: {x: y}"));
    assert_eq!(code, Exit::Findings);
    assert_eq!(results(&out)[0]["tags"]["rule"], "krm/function-config");
}

#[test]
fn input_that_is_not_a_resource_list_fails_with_a_result_and_no_items() {
    for bad in ["apiVersion: v1\nkind: ConfigMap\n", "[1, 2]", "items: [\n", "{\"kind\": \"ResourceList\", \"items\": 3}"] {
        let (out, code, err) = run_text(bad);
        assert_eq!(code, Exit::Usage, "{bad}");
        assert!(!err.is_empty());
        assert_eq!(results(&out)[0]["severity"], "error", "{bad}: {out}");
        assert!(items(&out).is_empty());
    }
}

#[test]
fn the_validator_mode_leaves_every_item_as_it_came() {
    let input = format!(
        "{HEAD}{FOREIGN}- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: ClusterTrainingRuntime\n  metadata:\n    name: bad\n    annotations: {{internal.config.kubernetes.io/path: 'rt.yaml'}}\n  spec:\n    mlPolicy: {{numNodes: 1, jax: {{}}}}\n    template:\n      spec:\n        replicatedJobs:\n        - name: node\n          template:\n            spec:\n              template:\n                spec:\n                  containers: [{{name: node, image: x}}]\nfunctionConfig:\n  apiVersion: jax-runtimes.dev/v1alpha1\n  kind: JaxRuntimeValidation\n  metadata: {{name: v}}\n  spec: {{require: [sdk]}}\n"
    );
    // `require: [sdk]`: the SDK's needs are errors, so the runtime fails.
    let (out, code, _) = run_text(&input);
    assert_eq!(code, Exit::Findings, "{out}");
    assert!(out.starts_with(&input), "{out}");
    let r = results(&out);
    let rule = r.iter().find(|r| r["tags"]["rule"] == "sdk/framework-label").expect("the runtime is checked");
    assert_eq!(rule["file"]["path"], "rt.yaml");
}

#[test]
fn a_generated_runtime_without_any_catalog_object_is_kept_unless_the_config_allows_pruning_all() {
    let runtime = "- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: ClusterTrainingRuntime\n  metadata:\n    name: old\n    labels: {app.kubernetes.io/managed-by: jax-runtimes}\n    annotations: {jax-runtimes.dev/source: JaxRuntime/old, config.kubernetes.io/path: runtimes/old.yaml}\n  spec: {}\n";
    let config = |data: &str| {
        format!(
            "{HEAD}{runtime}functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: function-input}}\n  data: {data}\n"
        )
    };
    let (out, code, _) = run_text(&format!("{HEAD}{runtime}"));
    assert_eq!(code, Exit::Findings);
    assert_eq!(results(&out)[0]["tags"]["rule"], "krm/no-catalog");
    assert_eq!(items(&out).len(), 1, "nothing pruned");
    let (out, code, _) = run_text(&config("{allow-prune-all: \"false\"}"));
    assert_eq!((code, items(&out).len()), (Exit::Findings, 1));
    let (out, code, _) = run_text(&config("{allow-prune-all: \"true\"}"));
    assert_eq!(code, Exit::Ok, "{out}");
    assert!(items(&out).is_empty());
    let r = &results(&out)[0];
    assert_eq!((r["tags"]["rule"].as_str(), r["severity"].as_str()), (Some("krm/pruned"), Some("info")));
    assert!(r["message"].as_str().unwrap().contains("JaxRuntime/old"), "{r}");
    for bad in ["{allow-prune-all: maybe}", "{prune-all: \"true\"}"] {
        let (out, code, _) = run_text(&config(bad));
        assert_eq!((code, items(&out).len()), (Exit::Findings, 1), "{bad}");
        assert_eq!(results(&out)[0]["tags"]["rule"], "krm/function-config", "{bad}");
    }
}
