//! Every class of bad catalog input gives a non-zero exit, writes nothing, and names the file,
//! line, object and field path with what is accepted.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::fs;

const HEAD: &str = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\n";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn render_text(file_name: &str, text: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(file_name);
    fs::write(&path, text).unwrap();
    let out_dir = dir.path().join("out");
    // Once to stdout, once into a directory: neither may write anything.
    let out = support::cli(&["render", file_name]).current_dir(dir.path()).output().unwrap();
    let to_dir = support::cli(&["render", file_name, "-o", "out"]).current_dir(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), to_dir.status.code());
    if out.status.code() != Some(0) {
        assert!(!out_dir.exists(), "an output directory was created despite errors");
    }
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// Asserts a failed render whose stderr holds every `needle`.
fn fails_with(file_name: &str, text: &str, needles: &[&str]) -> String {
    let r = render_text(file_name, text);
    assert_eq!(r.code, 1, "expected exit 1, got {}:\n{}", r.code, r.stderr);
    assert!(r.stdout.is_empty(), "nothing may be written on error, got:\n{}", r.stdout);
    for n in needles {
        assert!(r.stderr.contains(n), "stderr lacks {n:?}:\n{}", r.stderr);
    }
    r.stderr
}

#[test]
fn malformed_yaml_names_file_and_line() {
    fails_with("bad.yaml", &format!("{HEAD}metadata: {{name: x}}\nspec: [1, 2\n"), &["error[input/malformed-yaml]", "bad.yaml:4"]);
}

#[test]
fn unknown_field_is_an_error_at_its_path_and_line() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  accelerator: {{cpu: {{}}}}\n  nodeSelectr: {{a: b}}\n");
    fails_with(
        "typo.yaml",
        &text,
        &[
            "error[catalog/unknown-field]",
            "typo.yaml:6",
            "JaxRuntime/x",
            "`spec.nodeSelectr`",
            "did you mean `nodeSelector`?",
            "[typo.yaml:6:3]",
        ],
    );
}

#[test]
fn yaml_11_booleans_in_string_fields_get_a_quoting_hint() {
    let text = format!("{HEAD}metadata: {{name: on}}\nspec: {{accelerator: {{cpu: {{}}}}}}\n");
    fails_with("b.yaml", &text, &["`metadata.name`", "quote the value"]);
}

#[test]
fn wrong_type_names_the_field_and_expected_type() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  numNodes: two\n  accelerator: {{cpu: {{}}}}\n");
    fails_with(
        "t.yaml",
        &text,
        &["error[catalog/wrong-type]", "t.yaml:5", "`spec.numNodes`", "expected a whole number", "found the string \"two\""],
    );
}

#[test]
fn unknown_accelerator_lists_the_known_ones() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  accelerator:\n    gpu: {{model: h900}}\n");
    fails_with("g.yaml", &text, &["error[catalog/unknown-gpu]", "g.yaml:6", "`spec.accelerator.gpu.model`", "`h100-80gb`"]);
    let text = format!("{HEAD}metadata: {{name: z}}\nspec:\n  accelerator:\n    tpu: {{type: v9, topology: 2x2}}\n");
    fails_with("t.yaml", &text, &["error[catalog/unknown-tpu]", "`spec.accelerator.tpu.type`", "`v5e`", "`tpu7x`"]);
}

#[test]
fn impossible_topology_lists_nearest_valid_shapes() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  accelerator:\n    tpu: {{type: v5e, topology: 3x3}}\n");
    let err = fails_with("t.yaml", &text, &["error[catalog/tpu-topology]", "`spec.accelerator.tpu.topology`", "nearest valid topologies"]);
    assert!(err.contains("2x4") || err.contains("4x4"), "{err}");
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  accelerator:\n    tpu: {{type: v5p, topology: 4x4}}\n");
    fails_with("t.yaml", &text, &["3D (AxBxC)"]);
}

#[test]
fn two_accelerators_in_one_entry() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  accelerator: {{cpu: {{}}, gpu: {{model: l4}}}}\n");
    fails_with("a.yaml", &text, &["error[catalog/accelerator-count]", "`spec.accelerator`", "exactly one of"]);
}

#[test]
fn duplicate_runtime_names_name_both_objects() {
    let one = format!("{HEAD}metadata: {{name: dup}}\nspec: {{accelerator: {{cpu: {{}}}}}}\n");
    let text = format!("{one}---\n{one}");
    fails_with("d.yaml", &text, &["error[catalog/duplicate-name]", "d.yaml:8", "ClusterTrainingRuntime `dup` is generated twice"]);
}

#[test]
fn duplicate_yaml_keys_are_refused() {
    let text = format!("{HEAD}metadata: {{name: x}}\nmetadata: {{name: y}}\nspec: {{accelerator: {{cpu: {{}}}}}}\n");
    fails_with("k.yaml", &text, &["error[input/malformed-yaml]", "duplicate"]);
}

#[test]
fn trainer_without_jax_policy_is_refused() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  trainer: v2.1\n  accelerator: {{cpu: {{}}}}\n");
    fails_with("v.yaml", &text, &["error[catalog/trainer-version]", "`spec.trainer`", "v2.2"]);
}

#[test]
fn multislice_is_refused_with_the_reason() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  accelerator: {{tpu: {{type: v5e, topology: 4x4, slices: 2}}}}\n");
    fails_with("m.yaml", &text, &["error[catalog/tpu-multislice]", "kubeflow/trainer#3408"]);
}

#[test]
fn ambiguous_two_by_four_requires_chips_per_host() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  accelerator: {{tpu: {{type: v5e, topology: 2x4}}}}\n");
    fails_with(
        "a.yaml",
        &text,
        &["error[catalog/tpu-chips-per-host]", "ct5lp-hightpu-8t", "ct5lp-hightpu-4t", "set `chipsPerHost` to 4 or 8"],
    );
}

#[test]
fn tpu_num_nodes_must_match_the_slice() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  numNodes: 3\n  accelerator: {{tpu: {{type: v5e, topology: 4x4}}}}\n");
    fails_with("n.yaml", &text, &["error[catalog/tpu-num-nodes]", "`spec.numNodes`", "has 4 hosts"]);
}

#[test]
fn gpu_count_above_the_machine_shape_is_refused() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  platform: gke\n  accelerator: {{gpu: {{model: h100-80gb, count: 16}}}}\n");
    fails_with("g.yaml", &text, &["error[catalog/gpu-shape]", "`spec.accelerator.gpu.count`", "at most 8", "a3-highgpu-8g"]);
}

#[test]
fn tpu_on_a_non_gke_platform_is_refused() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  platform: eks\n  accelerator: {{tpu: {{type: v5e, topology: 2x2}}}}\n");
    fails_with("p.yaml", &text, &["error[catalog/tpu-platform]", "`spec.platform`"]);
}

#[test]
fn every_bad_entry_is_reported_not_just_the_first() {
    let a = format!("{HEAD}metadata: {{name: a}}\nspec: {{accelerator: {{tpu: {{type: v5e, topology: 3x3}}}}}}\n");
    let b = format!("{HEAD}metadata: {{name: b}}\nspec: {{accelerator: {{gpu: {{model: nope}}}}}}\n");
    let c = format!("{HEAD}metadata: {{name: c}}\nspec: {{accelerator: {{cpu: {{}}}}}}\n");
    let err = fails_with("many.yaml", &format!("{a}---\n{b}---\n{c}"), &["JaxRuntime/a", "JaxRuntime/b", "nothing written: 2 errors"]);
    assert!(!err.contains("JaxRuntime/c"), "{err}");
}

#[test]
fn matrix_errors_point_at_the_bad_value_and_name_the_row() {
    let text = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeMatrix\nmetadata: {name: m}\nspec:\n  matrix: {topology: [2x2, 3x3]}\n  template:\n    metadata: {name: \"x-{{ topology }}\"}\n    spec:\n      accelerator: {tpu: {type: v5e, topology: \"{{ topology }}\"}}\n";
    fails_with(
        "m.yaml",
        text,
        &[
            "JaxRuntimeMatrix/m",
            "`spec.matrix.topology[1]`",
            "at `spec.template.spec.accelerator.tpu.topology`",
            "matrix row topology=3x3",
            "[m.yaml:5:28]",
        ],
    );
}

#[test]
fn plugin_env_and_memory_limits_warn_but_render() {
    let text = format!(
        "{HEAD}metadata: {{name: x}}\nspec:\n  accelerator: {{cpu: {{}}}}\n  env: [{{name: JAX_PROCESS_ID, value: \"0\"}}]\n  resources: {{requests: {{cpu: \"2\"}}, limits: {{memory: 1Gi}}}}\n"
    );
    let r = render_text("w.yaml", &text);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("warning[catalog/jax-plugin-env]") && r.stderr.contains("`spec.env[0].name`"), "{}", r.stderr);
    assert!(r.stderr.contains("warning[catalog/memory-limit]"), "{}", r.stderr);
    // Said once, in the catalog's terms: the same finding on the generated runtime is dropped.
    assert!(!r.stderr.contains("[jax/plugin-env]"), "{}", r.stderr);
    assert!(r.stdout.contains("kind: ClusterTrainingRuntime"));
}

#[test]
fn amd_gpus_need_a_cpu_limit_for_the_sdk() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  platform: aks\n  accelerator: {{gpu: {{model: mi300x}}}}\n");
    fails_with("amd.yaml", &text, &["error[catalog/sdk-unreadable-device]", "`spec.resources`", "list_runtimes()"]);
    let ok = format!("{HEAD}metadata: {{name: x}}\nspec:\n  platform: aks\n  accelerator: {{gpu: {{model: mi300x}}}}\n  resources: {{requests: {{cpu: \"96\"}}}}\n");
    let r = render_text("amd.yaml", &ok);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("amd.com/gpu: \"8\"") && r.stdout.contains("cpu: \"96\""), "{}", r.stdout);
}

#[test]
fn unreadable_path_is_a_usage_error() {
    let out = support::cli(&["render", "/nonexistent/catalog.yaml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/catalog.yaml"));
    assert!(out.stdout.is_empty());
}

#[test]
fn values_kubernetes_refuses_are_errors_at_the_catalog_field_and_nothing_is_written() {
    // The mistakes, as a new user writes them in the catalog.
    let text = format!(
        "{HEAD}metadata:\n  name: jax-cpu-bad\n  labels:\n    team: ML Platform!\n    a/b/c: x\n  annotations:\n    \"bad key\": v\nspec:\n  accelerator: {{cpu: {{}}}}\n  resources:\n    requests:\n      cpu: eight\n      memory: 32GB\n  nodeSelector:\n    pool: big pool\n  tolerations:\n  - {{key: x, operator: Bogus, effect: Sometimes}}\n  serviceAccountName: my_sa\n"
    );
    let err = fails_with(
        "k8s.yaml",
        &text,
        &[
            "error[k8s/label-value]: k8s.yaml:6: JaxRuntime/jax-cpu-bad: `metadata.labels.team`: \"ML Platform!\" is not a valid label value",
            "error[k8s/label-key]: k8s.yaml:7: JaxRuntime/jax-cpu-bad: `metadata.labels.a/b/c`",
            "error[k8s/annotation-key]: k8s.yaml:9:",
            "error[k8s/quantity]: k8s.yaml:14: JaxRuntime/jax-cpu-bad: `spec.resources.requests.cpu`: \"eight\" is not a Kubernetes quantity (e.g. 8, 500m, 1.5)",
            "error[k8s/quantity]: k8s.yaml:15: JaxRuntime/jax-cpu-bad: `spec.resources.requests.memory`: \"32GB\"",
            "error[k8s/label-value]: k8s.yaml:17: JaxRuntime/jax-cpu-bad: `spec.nodeSelector.pool`",
            "`spec.tolerations[0].operator`: operator `Bogus`",
            "`spec.tolerations[0].effect`: effect `Sometimes`",
            "error[k8s/service-account-name]: k8s.yaml:20:",
            "the API server rejects the runtime at apply",
            "Kubernetes rejects it when a TrainJob starts",
        ],
    );
    // Each mistake once, in the catalog's terms: not again from the generated runtime.
    assert!(!err.contains("in the generated runtime"), "{err}");
    assert_eq!(err.matches("error[").count(), 9, "{err}");
}

#[test]
fn a_huge_description_is_an_error_at_the_description() {
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  accelerator: {{cpu: {{}}}}\n  description: {}\n", "x".repeat(300 * 1024));
    fails_with("big.yaml", &text, &["error[k8s/annotations-size]: big.yaml:6: JaxRuntime/x: `spec.description`", "over the 256 KiB"]);
}

#[test]
fn defaults_values_are_checked_at_the_defaults_and_portable_env_names_only_warn() {
    let text = format!(
        "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeDefaults\nmetadata: {{name: d}}\nspec:\n  tolerations:\n  - {{operator: exists}}\n---\n{HEAD}metadata: {{name: x}}\nspec:\n  accelerator: {{cpu: {{}}}}\n"
    );
    fails_with("d.yaml", &text, &["error[k8s/toleration]: d.yaml:6: JaxRuntimeDefaults/d: `spec.tolerations[0].operator`"]);
    let text = format!("{HEAD}metadata: {{name: x}}\nspec:\n  accelerator: {{cpu: {{}}}}\n  env:\n  - {{name: 1ST, value: a}}\n");
    let r = render_text("w.yaml", &text);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr.matches("warning[k8s/env-name-portable]: w.yaml:7:").count(), 1, "once, at the catalog: {}", r.stderr);
}

/// A stream large enough to be parsed in pieces, full of multi-byte text, with one bad entry deep
/// inside: the finding is at the same line as in one parse, and nothing panics where a cut falls.
#[test]
fn a_large_multibyte_stream_reports_the_line_of_a_single_parse() {
    let mut text = String::new();
    let mut bad_line = 0;
    for i in 0..4000 {
        text.push_str("---\n# Beschreibung: 日本語のテキスト 🎉 ü\n");
        text.push_str(&format!("apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: cpu-{i}\nspec:\n  description: \"Größe — {i} 🎉\"\n  accelerator: {{cpu: {{}}}}\n"));
        if i == 2999 {
            bad_line = text.lines().count() + 1;
            text.push_str("  nodeSelectr: {a: b}\n");
        }
    }
    assert!(text.len() > 600_000, "big enough to be cut: {}", text.len());
    let err = fails_with("big.yaml", &text, &["error[catalog/unknown-field]", "`spec.nodeSelectr`"]);
    assert!(err.contains(&format!("big.yaml:{bad_line}:")), "expected line {bad_line}:\n{}", &err[..err.len().min(2000)]);
}

/// `jax-runtimes ARGS` in a folder holding `files`: (exit code, stderr).
fn run_on(files: &[(&str, &str)], args: &[&str]) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        fs::write(dir.path().join(name), text).unwrap();
    }
    let out = support::cli(args).current_dir(dir.path()).output().unwrap();
    // What the user sees: validate's report (stdout) and every command's findings and notes (stderr).
    (out.status.code().unwrap_or(-1), format!("{}{}", String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap()))
}

#[test]
fn a_helm_or_envsubst_template_is_named_as_one_with_the_command_that_renders_it() {
    // A chart's template: the markers break the YAML; the message says what the file is.
    let chart = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: {{ .Values.name }}\n  labels:\n    {{- include \"chart.labels\" . | nindent 4 }}\nspec:\n  mlPolicy: {numNodes: 1, jax: {}}\n";
    let (code, err) = run_on(&[("runtime.yaml", chart)], &["validate", "runtime.yaml"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[input/malformed-yaml]: runtime.yaml:4:"), "{err}");
    assert!(
        err.contains("line 4 holds `{{ .Values.name }}`: this looks like a Helm template: render it first (`helm template RELEASE CHART > out.yaml`)"),
        "{err}"
    );
    // The same for a catalog file `render` reads.
    let catalog = format!("{HEAD}metadata: {{name: {{{{ .Values.name }}}}}}\nspec:\n  accelerator: {{cpu: {{}}}}\n");
    fails_with("catalog.yaml", &catalog, &["error[input/malformed-yaml]", "catalog.yaml:3", "this looks like a Helm template"]);
    // Quoted markers parse, as strings where a number or a name belongs: the finding says it.
    let quoted = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: \"{{ .Values.name }}\"\nspec:\n  runtimeRef: {name: jax-cpu}\n  trainer:\n    numNodes: \"{{ .Values.nodes }}\"\n";
    let (code, err) = run_on(&[("job.yaml", quoted)], &["validate", "job.yaml"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[schema/type]: job.yaml:8:"), "{err}");
    assert!(err.contains("help: the value holds `{{ .Values.nodes }}`: this looks like a Helm template: render it first"), "{err}");
    // An envsubst file: `${VAR}` parses as a string.
    let envsubst = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: ${JOB_NAME}\nspec:\n  runtimeRef: {name: jax-cpu}\n  trainer:\n    numNodes: ${NODES}\n";
    let (code, err) = run_on(&[("job.yaml", envsubst)], &["validate", "job.yaml"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[trainjob/name]: job.yaml:4:"), "{err}");
    assert!(
        err.contains(
            "help: the value holds `${JOB_NAME}`: this looks like an envsubst template: render it first (`envsubst < job.yaml > out.yaml`)"
        ),
        "{err}"
    );
    assert!(err.contains("help: the value holds `${NODES}`"), "{err}");
    // A matrix template's `{{ }}` is the catalog's own template language: no Helm hint there.
    let matrix = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeMatrix\nmetadata: {name: m}\nspec:\n  matrix: {nodes: [1, 2]}\n  template:\n    metadata: {name: \"x-{{ nodes }}\"}\n    spec:\n      accelerator: {cpu: {}}\n      numNodes: \"{{ node }}\"\n";
    let err = fails_with("m.yaml", matrix, &["error[catalog/template]"]);
    assert!(!err.contains("Helm"), "{err}");
    // A YAML mistake with no marker gets no template hint.
    let err = fails_with("bad.yaml", &format!("{HEAD}metadata: {{name: x}}\nspec: [1, 2\n"), &["error[input/malformed-yaml]"]);
    assert!(!err.contains("template"), "{err}");
}

/// Issue 54 item 10, from the outside: one mistake, one finding that names it. An empty file and
/// a folder without YAML say so; a tab says to use spaces; a kind typo is one near miss (not also
/// "no runtime"); a catalog given to validate is rendered as render, fit and kueue render it: its
/// error is shown at its line, and a TrainJob beside it runs on its runtimes.
#[test]
fn each_input_mistake_gets_one_finding_that_names_it() {
    let (code, out) = run_on(&[("empty.yaml", "")], &["validate", "empty.yaml"]);
    assert!(code == 1 && out.contains("the input is empty: no YAML document"), "{out}");
    let (code, out) = run_on(&[("tab.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n")], &["validate", "tab.yaml"]);
    assert!(code == 1 && out.contains("help: replace the tab with spaces"), "{out}");
    let typo = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJobb\nmetadata: {name: x}\nspec: {runtimeRef: {name: a}}\n";
    let (code, out) = run_on(&[("kind.yaml", typo)], &["validate", "kind.yaml"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[input/near-miss]") && out.contains("did you mean `TrainJob`?"), "{out}");
    assert_eq!(out.matches("error[").count(), 1, "one error for one mistake: {out}");
    let catalog = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: jax-cpu}\nspec: {accelerator: {cpu: {}}}\n";
    let job = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j}\nspec: {runtimeRef: {name: jax-cpu}}\n";
    let (code, out) = run_on(&[("catalog.yaml", catalog), ("job.yaml", job)], &["validate", "catalog.yaml", "job.yaml"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("(and 1 runtime the catalog objects render) checked: 0 errors"), "{out}");
    let broken = catalog.replace("{cpu: {}}}", "{cpu: {}}, numNodes: two}");
    let (code, out) = run_on(&[("catalog.yaml", &broken)], &["validate", "catalog.yaml"]);
    assert!(code == 1 && out.contains("error[catalog/wrong-type]: catalog.yaml:4"), "{out}");
    assert!(!out.contains("input/no-runtime"), "{out}");
    // A fleet folder that also holds node lists: one info per file and kind, not one per Node.
    let node = |n: &str| format!("apiVersion: v1\nkind: Node\nmetadata: {{name: {n}}}\n");
    let nodes = [node("a"), node("b"), node("c")].join("---\n");
    let (code, out) = run_on(&[("catalog.yaml", catalog), ("nodes.yaml", &nodes)], &["render", ".", "--min-severity", "info"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.matches("info[input/not-a-catalog-object]").count(), 1, "{out}");
    assert!(out.contains("3 `Node` objects in this file are not jax-runtimes catalog objects"), "{out}");
}

/// A TrainJob without `spec.runtimeRef`: the help gives the field's shape and the runtimes given.
#[test]
fn a_missing_runtime_ref_says_its_shape_and_the_runtimes_there_are() {
    let catalog = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: jax-cpu}\nspec: {accelerator: {cpu: {}}}\n";
    let job = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j}\nspec:\n  trainer: {numNodes: 1}\n";
    let (code, out) = run_on(&[("catalog.yaml", catalog), ("job.yaml", job)], &["validate", "job.yaml", "--runtimes", "catalog.yaml"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("help: add `spec.runtimeRef: {name: <runtime>}`") && out.contains("the runtimes given: `jax-cpu`"), "{out}");
}
