//! Output that CI jobs and people can read (issue 18), from the outside: what each command
//! prints, on which stream, in which format, and what its messages say.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::fs;
use std::path::Path;

use serde_json::Value;
use support::{root, Run};

/// Runs `jax-runtimes ARGS` in `dir` with extra environment variables.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut c = support::cli(args);
    c.current_dir(dir).env_remove("NO_COLOR").env_remove("TERM");
    for (k, v) in env {
        c.env(k, v);
    }
    Run::of(c.output().unwrap())
}

const GOOD: &str = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: one\nspec:\n  accelerator: {cpu: {}}\n  resources: {requests: {cpu: \"2\"}}\n";
const BAD: &str = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: x\nspec:\n  platform: gke\n  accelerator:\n    gpu: {model: h100-80gb, count: \"three\"}\n";

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    dir
}

/// stderr as one JSON array of findings, or the test fails saying what else was there.
fn findings(r: &Run) -> Vec<Value> {
    match serde_json::from_str::<Value>(&r.stderr) {
        Ok(Value::Array(a)) => a,
        other => panic!("stderr is not one JSON array ({other:?}):\n{}", r.all()),
    }
}

// ---------------------------------------------------------------------------------------------
// `render --format json`: one JSON document on stderr, nothing else.

#[test]
fn render_json_findings_are_one_document_on_stderr_with_nothing_else() {
    let dir = dir_with(&[("bad.yaml", BAD), ("good.yaml", GOOD)]);
    let d = dir.path();
    // Errors: the findings, no "nothing written" line after them.
    let r = run(d, &["render", "bad.yaml", "--format", "json"], &[]);
    assert_eq!(r.code, 1, "{}", r.all());
    let f = findings(&r);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0]["rule"], "catalog/wrong-type");
    assert_eq!((f[0]["line"].as_u64(), f[0]["column"].as_u64()), (Some(8), Some(36)), "{}", f[0]);
    assert!(r.stdout.is_empty());
    // No finding: an empty array, and the YAML on stdout.
    let r = run(d, &["render", "good.yaml", "--format", "json"], &[]);
    assert_eq!((r.code, findings(&r).len()), (0, 0), "{}", r.all());
    assert!(r.stdout.contains("kind: ClusterTrainingRuntime"));
    // Into a directory, then --check: notes are left out, a stale directory is a finding.
    let r = run(d, &["render", "good.yaml", "-o", "out", "--format", "json"], &[]);
    assert_eq!((r.code, findings(&r).len()), (0, 0), "{}", r.all());
    let r = run(d, &["render", "good.yaml", "-o", "out", "--check", "--format", "json"], &[]);
    assert_eq!((r.code, findings(&r).len()), (0, 0), "{}", r.all());
    fs::write(d.join("good.yaml"), GOOD.replace("\"2\"", "\"3\"")).unwrap();
    let r = run(d, &["render", "good.yaml", "-o", "out", "--check", "--format", "json"], &[]);
    assert_eq!(r.code, 1, "{}", r.all());
    let f = findings(&r);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0]["rule"], "output/stale");
    assert!(f[0]["message"].as_str().unwrap().contains("0 missing, 1 changed, 0 extra"), "{}", f[0]);
    assert!(r.stdout.contains('+') && r.stdout.contains("cpu: \"3\""), "the diff stays on stdout:\n{}", r.stdout);
    // A path that does not exist: exit 2, still one JSON document.
    let r = run(d, &["render", "missing.yaml", "--format", "json"], &[]);
    assert_eq!(r.code, 2);
    assert_eq!(findings(&r)[0]["rule"], "input/unreadable");
    // docs keeps the same promise.
    let r = run(d, &["docs", "bad.yaml", "-o", "pages", "--format", "json"], &[]);
    assert_eq!((r.code, findings(&r).len()), (1, 1), "{}", r.all());
    // In text, the same run says it in words, once.
    let r = run(d, &["render", "bad.yaml"], &[]);
    assert!(r.stderr.ends_with("jax-runtimes: nothing written: 1 error\n"), "{}", r.all());
}

/// The report is validate's product: every format on stdout (`> report.json` captures it), or in
/// `--output FILE`; stderr holds only the count in text, and nothing in the document formats.
#[test]
fn validate_writes_its_report_on_stdout_or_to_output_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let good = root().join("tests/validate/base/tpu.yaml");
    let bad = dir.path().join("bad.yaml");
    fs::write(&bad, fs::read_to_string(&good).unwrap().replacen("numNodes:", "numNode:", 1)).unwrap();
    let r = run(&root(), &["validate", good.to_str().unwrap(), "--format", "json"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(serde_json::from_str::<Value>(&r.stdout).unwrap().is_array(), "{}", r.all());
    assert_eq!(r.stderr, "");
    for format in ["json", "sarif", "junit", "github", "kpt", "text"] {
        let r = run(&root(), &["validate", bad.to_str().unwrap(), "--format", format], &[]);
        assert_eq!(r.code, 1, "{format}: {}", r.all());
        assert!(r.stdout.contains("schema/unknown-field"), "{format}: the report is on stdout: {}", r.all());
        assert!(!r.stderr.contains("schema/unknown-field"), "{format}: stderr holds no finding: {}", r.stderr);
        match format {
            "json" => assert!(serde_json::from_str::<Vec<Value>>(&r.stdout).is_ok(), "{}", r.stdout),
            "sarif" => assert_eq!(serde_json::from_str::<Value>(&r.stdout).unwrap()["version"], "2.1.0"),
            "text" => assert!(r.stderr.starts_with("jax-runtimes: 1 runtime checked: ") && !r.stderr.contains("error["), "{}", r.stderr),
            _ => assert_eq!(r.stderr, "", "{format}"),
        }
        // --output FILE: the same report in the file, nothing on stdout.
        let file = dir.path().join(format!("report.{format}"));
        let o = run(&root(), &["validate", bad.to_str().unwrap(), "--format", format, "--output", file.to_str().unwrap()], &[]);
        // The JUnit timestamp is the time of the run (or SOURCE_DATE_EPOCH): compare without it.
        let stamp = |s: &str| s.split(" timestamp=\"").map(|p| p.split_once('"').map_or(p, |(_, rest)| rest)).collect::<String>();
        assert_eq!((o.code, o.stdout.as_str()), (1, ""), "{format}: {}", o.all());
        let written = fs::read_to_string(&file).unwrap();
        if format == "text" {
            assert!(written.contains("error[schema/unknown-field]") && !written.contains('\u{1b}'), "{written}");
        } else {
            assert_eq!(stamp(&written), stamp(&r.stdout), "{format}: --output holds what stdout would");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// One meaning per flag: formats are `--format`, `-o` is a directory.

#[test]
fn old_spellings_are_refused_with_the_new_one() {
    let dir = dir_with(&[("good.yaml", GOOD)]);
    let d = dir.path();
    let r = run(d, &["accelerators", "-o", "json"], &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("use `jax-runtimes accelerators --format json`"), "{}", r.all());
    let r = run(d, &["accelerators", "--output", "yaml"], &[]);
    assert!(r.code == 2 && r.stderr.contains("--format yaml"), "{}", r.all());
    let r = run(d, &["accelerators", "--generation", "v5e"], &[]);
    assert!(r.code == 2 && r.stderr.contains("use `--type v5e`"), "{}", r.all());
    let r = run(d, &["accelerators", "--generation", "h100-80gb"], &[]);
    assert!(r.code == 2 && r.stderr.contains("use `--model h100-80gb`"), "{}", r.all());
    // `render -o json` does not quietly create a folder named `json`.
    for command in ["render", "docs"] {
        let r = run(d, &[command, "good.yaml", "-o", "json"], &[]);
        assert_eq!(r.code, 2, "{}", r.all());
        assert!(r.stderr.contains("`--format json`") && r.stderr.contains("`-o ./json`"), "{}", r.all());
        assert!(!d.join("json").exists());
    }
    let r = run(d, &["render", "good.yaml", "-o", "./json"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(d.join("json/kustomization.yaml").is_file());
    // Once the folder exists, `-o json` is that folder.
    let r = run(d, &["render", "good.yaml", "-o", "json", "--check"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
}

// ---------------------------------------------------------------------------------------------
// `accelerators`: a summary that fits a terminal, the full table behind `--all`.

#[test]
fn the_accelerators_summary_fits_a_terminal_and_the_full_table_is_one_flag_away() {
    let d = root();
    let r = run(&d, &["accelerators"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines.len() <= 60, "{} lines:\n{}", lines.len(), r.stdout);
    let widest = lines.iter().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 120, "{widest} columns:\n{}", r.stdout);
    let data = jax_runtimes::accelerators::data();
    for g in &data.tpu.generations {
        assert_eq!(lines.iter().filter(|l| l.starts_with(&format!("{} ", g.name))).count(), 1, "one row for TPU {}", g.name);
    }
    for m in &data.gpu.models {
        let rows = lines.iter().filter(|l| l.split_whitespace().next() == Some(m.name.as_str())).count();
        assert_eq!(rows, m.platforms().len(), "one row per platform of {}", m.name);
    }
    let collapsed: Vec<String> = lines.iter().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    assert!(
        collapsed.contains(&"v5e 1x1 .. 16x16 (8) v5litepod-1..256 1-256 1-64 1, 4, 8 ct5lp-hightpu-{1t,4t,8t}".to_string()),
        "{}",
        r.stdout
    );
    assert!(collapsed.contains(&"h100-80gb eks 1, 8 p5.{4xlarge,48xlarge} nvidia.com/gpu".to_string()), "{}", r.stdout);
    assert!(r.stdout.contains("CPU nodes"), "{}", r.stdout);
    // `--all`: every shape, as many rows as the JSON has.
    let all = run(&d, &["accelerators", "--all"], &[]);
    let json = run(&d, &["accelerators", "--format", "json"], &[]);
    let rows = serde_json::from_str::<Vec<Value>>(&json.stdout).unwrap();
    assert_eq!(all.stdout.lines().count(), rows.len() + 1, "a header and one line per shape");
    assert!(rows.len() > 1000);
    // Filters.
    let r = run(&d, &["accelerators", "--type", "v5e"], &[]);
    assert!(r.stdout.contains("v5e") && !r.stdout.contains("v6e") && !r.stdout.contains("GPU nodes"), "{}", r.stdout);
    let r = run(&d, &["accelerators", "--model", "h100-80gb", "--platform", "eks"], &[]);
    assert!(r.stdout.contains("h100-80gb  eks"), "{}", r.stdout);
    assert!(!r.stdout.contains("gke") && !r.stdout.contains("TPU slices") && !r.stdout.contains("CPU nodes"), "{}", r.stdout);
    let r = run(&d, &["accelerators", "--kind", "gpu", "--type", "v5e"], &[]);
    assert!(r.code == 2 && r.stderr.contains("use `--model`"), "{}", r.all());
    let r = run(&d, &["accelerators", "--type", "v9"], &[]);
    assert!(r.code == 2 && r.stderr.contains("`v5e`"), "{}", r.all());
}

// ---------------------------------------------------------------------------------------------
// Messages: the user's terms, file:line once, the underline under the bad value.

#[test]
fn messages_use_the_users_terms_and_point_at_the_bad_value() {
    let dir = dir_with(&[
        ("bad.yaml", BAD),
        ("broken.yaml", "a: 1\nb:\n  - x\n   y: 2\n"),
        ("nokind.yaml", "apiVersion: jax-runtimes.dev/v1alpha1\nmetadata: {name: x}\nspec: {}\n"),
        ("dup.yaml", "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nkind: JaxRuntime\n"),
    ]);
    let d = dir.path();
    let r = run(d, &["render", "bad.yaml"], &[]);
    let first = r.stderr.lines().next().unwrap();
    assert_eq!(
        first,
        "error[catalog/wrong-type]: bad.yaml:8: JaxRuntime/x: `spec.accelerator.gpu.count`: expected a whole number from 0 to 4294967295, found the string \"three\""
    );
    // The underline is under `"three"` (7 characters), not under the whole `gpu: {...}` line.
    let source = r.stderr.lines().position(|l| l.contains("count: \"three\"")).unwrap();
    let under = r.stderr.lines().nth(source + 1).unwrap();
    let line = r.stderr.lines().nth(source).unwrap();
    let chars = |s: &str, pat: &str| s.find(pat).map(|i| s[..i].chars().count());
    assert_eq!(chars(under, "─"), chars(line, "\"three\""), "underline starts at the value:\n{}", r.stderr);
    assert_eq!(under.trim_end().chars().filter(|c| *c == '─' || *c == '┬').count(), 7, "{}", r.stderr);

    // Malformed YAML: the file and line once, no parser location repeated in the message.
    let r = run(d, &["render", "broken.yaml"], &[]);
    let first = r.stderr.lines().next().unwrap();
    assert_eq!(first, "error[input/malformed-yaml]: broken.yaml:4: mapping values are not allowed in this context");
    assert_eq!(r.stderr.matches("line 4").count() + r.stderr.matches("column").count(), 0, "{}", r.stderr);
    // A missing kind is a missing field, not a kind named ``.
    let r = run(d, &["render", "nokind.yaml"], &[]);
    assert!(
        r.stderr.starts_with("error[catalog/missing-field]: nokind.yaml:1: object/x: `kind`: the object has no `kind`"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("``"), "{}", r.stderr);
    // No library advice (serde-saphyr's `DuplicateKeyPolicy`, `Options`).
    let r = run(d, &["render", "dup.yaml"], &[]);
    assert!(r.stderr.contains("duplicate key `kind`"), "{}", r.stderr);
    for word in ["Policy", "Options", "i32", "u32"] {
        assert!(!r.stderr.contains(word), "{word}: {}", r.stderr);
    }
}

#[test]
fn counts_read_as_english() {
    let dir = dir_with(&[("good.yaml", GOOD)]);
    let d = dir.path();
    let r = run(d, &["render", "good.yaml", "-o", "out"], &[]);
    assert_eq!(r.stderr, "jax-runtimes: wrote 1 runtime to out (2 created, 0 updated, 0 pruned)\n");
    let r = run(d, &["render", "good.yaml", "-o", "out", "--check"], &[]);
    assert_eq!(r.stderr, "jax-runtimes: out is up to date (1 runtime)\n");
    let r = run(d, &["docs", "good.yaml", "-o", "pages"], &[]);
    assert_eq!(r.stderr, "jax-runtimes: documented 1 runtime in pages (2 created, 0 updated, 0 pruned)\n");
    let page = fs::read_to_string(d.join("pages/one.md")).unwrap();
    assert!(page.contains("The one pod (one JAX process) runs") && page.contains("(2 per node x 1 node)"), "{page}");
    for wrong in ["1 nodes", "1 pods", "1 GPUs", "1 chips", "1 hosts", "(s)"] {
        assert!(!page.contains(wrong), "{wrong}:\n{page}");
    }
    let r = run(d, &["validate", "out", "--min-severity", "warning"], &[]);
    assert_eq!(r.stderr, "jax-runtimes: 1 runtime checked: 0 errors, 0 warnings\n");
    // A GPU count that is too large names the machine shapes with their counts in words.
    fs::write(d.join("big.yaml"), BAD.replace("\"three\"", "9")).unwrap();
    let r = run(d, &["render", "big.yaml"], &[]);
    assert!(r.stderr.contains("a3-highgpu-1g (1 GPU), a3-highgpu-2g (2 GPUs)"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------------------------
// `--color` and NO_COLOR.

#[test]
fn color_and_plain_ascii_for_logs() {
    let dir = dir_with(&[("bad.yaml", BAD)]);
    let d = dir.path();
    // A pipe gets no color, box drawing.
    let r = run(d, &["render", "bad.yaml"], &[]);
    assert!(!r.stderr.contains('\x1b') && r.stderr.contains('╭'), "{}", r.stderr);
    // `always`: ANSI colors, even with NO_COLOR, which only `auto` follows.
    let r = run(d, &["render", "bad.yaml", "--color", "always"], &[("NO_COLOR", "1")]);
    assert!(r.stderr.starts_with("\x1b[1;31merror\x1b[0m[catalog/wrong-type]"), "{:?}", r.stderr);
    // `never`: plain ASCII, nothing else.
    let r = run(d, &["--color", "never", "render", "bad.yaml"], &[]);
    assert!(r.stderr.is_ascii(), "{}", r.stderr);
    assert!(r.stderr.contains(",-[bad.yaml:8:36]") && r.stderr.contains("^^^|^^^"), "{}", r.stderr);
    // TERM=dumb in auto mode: plain too.
    let r = run(d, &["render", "bad.yaml"], &[("TERM", "dumb")]);
    assert!(r.stderr.is_ascii(), "{}", r.stderr);
    // validate writes its report on stdout, in the same style.
    let rt = root().join("tests/validate/base/tpu.yaml");
    let other = dir_with(&[("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")]);
    let r = run(other.path(), &["validate", "cm.yaml", rt.to_str().unwrap(), "--color", "never"], &[]);
    assert!(r.stdout.contains("info[input/not-a-runtime]") && r.stdout.is_ascii() && !r.stderr.contains("info["), "{}", r.all());
}

// ---------------------------------------------------------------------------------------------
// `validate DIR` on what `render -o` wrote.

#[test]
fn validate_skips_the_kustomization_render_wrote_without_a_word() {
    let dir = dir_with(&[("good.yaml", GOOD)]);
    let d = dir.path();
    assert_eq!(run(d, &["render", "good.yaml", "-o", "out"], &[]).code, 0);
    let r = run(d, &["validate", "out"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    // Nothing about out/kustomization.yaml: only the runtime's own TrainJob-name info.
    assert!(!r.stdout.contains("kustomization"), "no info box for out/kustomization.yaml:\n{}", r.stdout);
    assert!(
        r.stdout
            .lines()
            .filter(|l| !l.starts_with(' '))
            .all(|l| l.starts_with("info[jobset/trainjob-name-length]") || l.starts_with("jax-runtimes: ")),
        "{}",
        r.stderr
    );
    // A kustomization of the user's own is still said to be skipped.
    fs::write(d.join("out/kustomization.yaml"), "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n")
        .unwrap();
    let r = run(d, &["validate", "out"], &[]);
    assert!(r.stdout.contains("info[input/not-a-runtime]: out/kustomization.yaml"), "{}", r.all());
}

// ---------------------------------------------------------------------------------------------
// Images and the cpu limit.

#[test]
fn built_in_images_are_pinned_and_cpu_runtimes_do_not_get_the_cuda_image() {
    let r = run(&root(), &["render"], &[]);
    assert_eq!(r.code, 0);
    let images: Vec<&str> =
        r.stdout.lines().filter_map(|l| l.trim().strip_prefix("image: ").or(l.trim().strip_prefix("- image: "))).collect();
    assert!(!images.is_empty());
    for image in &images {
        assert!(!image.ends_with(":latest") && image.rsplit('/').next().unwrap().contains(':'), "{image} is not pinned");
    }
    let docs = jax_runtimes::yaml::parse_stream(&r.stdout).unwrap();
    // The runtimes (the DRA runtimes' ResourceClaimTemplates have no image).
    for d in docs.iter().filter(|d| d["kind"] == "ClusterTrainingRuntime") {
        let name = d["metadata"]["name"].as_str().unwrap();
        let image = d.pointer("/spec/template/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image").unwrap();
        if name.starts_with("jax-cpu") {
            assert!(!image.as_str().unwrap().contains("nvidia") && !image.as_str().unwrap().contains("cuda"), "{name}: {image}");
        }
    }
}

#[test]
fn the_cpu_limit_can_be_turned_off_with_a_warning_and_the_page_says_why_it_is_there() {
    let off = GOOD.replace("accelerator: {cpu: {}}", "accelerator: {cpu: {limitFromRequest: false}}");
    let dir = dir_with(&[("good.yaml", GOOD), ("off.yaml", &off.replace("name: one", "name: two"))]);
    let d = dir.path();
    let r = run(d, &["render", "off.yaml"], &[]);
    assert_eq!(r.code, 0, "a warning, not an error: {}", r.all());
    assert!(
        r.stderr.starts_with("warning[catalog/cpu-limit-off]: off.yaml:6: JaxRuntime/two: `spec.accelerator.cpu.limitFromRequest`"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("`Unknown`"), "{}", r.stderr);
    assert!(!r.stdout.contains("limits:"), "no cpu limit:\n{}", r.stdout);
    let r = run(d, &["render", "good.yaml"], &[]);
    assert!(r.stdout.contains("limits:\n                      cpu: \"2\""), "{}", r.stdout);
    assert_eq!(run(d, &["docs", "good.yaml", "off.yaml", "-o", "pages"], &[]).code, 0);
    let page = fs::read_to_string(d.join("pages/one.md")).unwrap();
    assert!(
        page.contains("The `cpu` limit is the `cpu` request, copied by jax-runtimes") && page.contains("limitFromRequest: false"),
        "{page}"
    );
    let page = fs::read_to_string(d.join("pages/two.md")).unwrap();
    assert!(!page.contains("copied by jax-runtimes") && page.contains("device unknown"), "{page}");
}

/// One exit-code rule (issue 54 item 8): the same bad input gives the same code in every command
/// that reads it: 1 for a file that was read but is not valid input (not YAML, a Helm template,
/// empty, nothing the command reads), 2 for a path that cannot be read.
#[test]
fn every_command_exits_alike_on_the_same_bad_input() {
    let nodes = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: node-a}\n  status:\n    allocatable: {cpu: \"8\", memory: 32Gi, pods: \"110\"}\n    conditions: [{type: Ready, status: \"True\"}]\n";
    let inputs = [
        ("garbage.yaml", "items: [\n", 1),
        ("helm.yaml", "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: {{ .Values.name }}\n", 1),
        ("empty.yaml", "", 1),
        ("configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", 1),
    ];
    let dir = dir_with(&[("nodes.yaml", nodes)]);
    for (name, text, _) in &inputs {
        fs::write(dir.path().join(name), text).unwrap();
    }
    let cases: Vec<(&str, i32)> = inputs.iter().map(|(n, _, c)| (*n, *c)).chain([("missing.yaml", 2)]).collect();
    let mut found = Vec::new();
    for (file, want) in cases {
        for cmd in [vec!["validate", file], vec!["fit", "--nodes", "nodes.yaml", file], vec!["preview", file], vec!["render", file]] {
            let r = run(dir.path(), &cmd, &[]);
            if r.code != want {
                found.push(format!("{cmd:?}: exit {} (want {want}): {}", r.code, r.stderr.lines().next().unwrap_or_default()));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// `preview --format json|sarif|junit|github`: the pod stays YAML on stdout, the findings are one
/// document on stderr and nothing else (issue 54 item 9).
#[test]
fn preview_prints_its_findings_in_every_format() {
    let catalog = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: jax-cpu}\nspec: {accelerator: {cpu: {}}}\n";
    let job = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j}\nspec:\n  runtimeRef: {name: jax-cpu}\n  trainer:\n    env: [{name: JAX_PROCESS_ID, value: \"3\"}]\n";
    let dir = dir_with(&[("catalog.yaml", catalog), ("job.yaml", job)]);
    for format in ["json", "sarif", "junit", "github"] {
        let r = run(dir.path(), &["preview", "job.yaml", "--runtimes", "catalog.yaml", "--format", format], &[]);
        assert_eq!(r.code, 1, "{format}: {}", r.all());
        assert!(r.stdout.contains("kind: Pod"), "{format}: the pod is still shown: {}", r.all());
        match format {
            "json" => {
                let f: Vec<Value> = serde_json::from_str(&r.stderr).unwrap_or_else(|e| panic!("{e}: {}", r.stderr));
                assert!(f.iter().any(|f| f["rule"] == "trainjob/jax-env"), "{}", r.stderr);
            }
            "sarif" => assert_eq!(serde_json::from_str::<Value>(&r.stderr).unwrap()["version"], "2.1.0"),
            "junit" => assert!(r.stderr.starts_with("<?xml") && r.stderr.trim_end().ends_with("</testsuites>"), "{}", r.stderr),
            _ => assert!(r.stderr.lines().all(|l| l.starts_with("::")) && r.stderr.contains("trainjob/jax-env"), "{}", r.stderr),
        }
    }
    // Nothing to show: still one document.
    let r = run(dir.path(), &["preview", "catalog.yaml", "--format", "json"], &[]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(serde_json::from_str::<Vec<Value>>(&r.stderr).is_ok(), "{}", r.stderr);
}

/// All or nothing (issue 54): every generator, on a catalog it refuses (an error, or a warning
/// with `--fail-on warning`), exits 1 and writes nothing: no byte on stdout, no file created,
/// changed or pruned in an output folder, whatever it held before.
#[test]
fn every_generator_writes_nothing_when_it_refuses() {
    let node = "apiVersion: v1\nkind: Node\nmetadata: {name: cpu-0, labels: {kubernetes.io/hostname: cpu-0, kubernetes.io/os: linux, kubernetes.io/arch: amd64}}\nstatus:\n  allocatable: {cpu: '16', memory: 64Gi, pods: '110'}\n  capacity: {cpu: '16', memory: 64Gi, pods: '110'}\n  conditions: [{type: Ready, status: 'True'}]\n";
    // A good runtime beside a bad one; and a good CPU runtime beside one for GPUs the CPU nodes
    // do not have (kueue leaves it out with a warning).
    let with_error = format!("{GOOD}---\n{BAD}");
    let gpu = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: gpu\nspec:\n  platform: gke\n  accelerator:\n    gpu: {model: h100-80gb, count: 8}\n";
    let with_warning = format!("{GOOD}---\n{gpu}");
    let dir = dir_with(&[("error.yaml", &with_error), ("warning.yaml", &with_warning), ("good.yaml", GOOD), ("nodes.yaml", node)]);
    let d = dir.path();
    // Folders a good render wrote first: a refused render must leave them exactly as they are.
    for (args, folder) in [
        (&["render", "good.yaml", "-o", "rendered"][..], "rendered"),
        (&["docs", "good.yaml", "-o", "pages"][..], "pages"),
        (&["kueue", "--nodes", "nodes.yaml", "good.yaml", "-o", "queues"][..], "queues"),
    ] {
        let r = run(d, args, &[]);
        assert_eq!(r.code, 0, "{args:?}: {}", r.all());
        assert!(d.join(folder).is_dir());
    }
    let cases: Vec<Vec<&str>> = vec![
        vec!["render", "error.yaml"],
        vec!["render", "error.yaml", "-o", "rendered"],
        vec!["render", "error.yaml", "-o", "new-folder"],
        vec!["docs", "error.yaml", "-o", "pages"],
        vec!["docs", "error.yaml", "-o", "new-pages"],
        vec!["kueue", "--nodes", "nodes.yaml", "error.yaml"],
        vec!["kueue", "--nodes", "nodes.yaml", "error.yaml", "-o", "queues"],
        vec!["kueue", "--nodes", "nodes.yaml", "warning.yaml", "--fail-on", "warning"],
        vec!["kueue", "--nodes", "nodes.yaml", "warning.yaml", "--fail-on", "warning", "-o", "queues"],
    ];
    for args in cases {
        for format in ["text", "json"] {
            let mut all = args.clone();
            all.extend(["--format", format]);
            let before = support::tree(d);
            let r = run(d, &all, &[]);
            assert_eq!(r.code, 1, "{all:?}: {}", r.all());
            assert_eq!(r.stdout, "", "{all:?}: nothing on stdout");
            assert_eq!(support::tree(d), before, "{all:?}: no file created, changed or pruned");
            assert!(!d.join("new-folder").exists() && !d.join("new-pages").exists(), "{all:?}");
            if format == "text" {
                assert!(r.stderr.contains("nothing written"), "{all:?}: {}", r.stderr);
            } else if all.contains(&"error.yaml") {
                // One mistake, one error: the queue the failed runtime would be served by is not
                // a second one ("serves no runtime").
                let errors: Vec<Value> = findings(&r).into_iter().filter(|f| f["severity"] == "error").collect();
                assert_eq!(errors.len(), 1, "{all:?}: {errors:?}");
            }
        }
    }
}
