//! Findings from the outside (issue 24 points 5, 8, 9, 10; issue 31 point 4; the docs links of
//! issue 32): one output rule for every command, CI formats, bounded output, the image grammar,
//! and one line for the TrainJob-name infos.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use support::{dir_with, entry, root, Run};

fn run(dir: &Path, args: &[&str]) -> Run {
    let mut c = support::cli(args);
    c.current_dir(dir).env_remove("NO_COLOR").env_remove("TERM");
    Run::of(c.output().unwrap())
}

/// The built-in catalog rendered into `dir/rt.yaml`: 25 clean runtimes.
fn rendered(dir: &Path) -> String {
    let r = run(dir, &["render"]);
    assert_eq!(r.code, 0, "{}", r.all());
    fs::write(dir.join("rt.yaml"), &r.stdout).unwrap();
    r.stdout
}

// ---------------------------------------------------------------------------------------------
// Point 9: images the kubelet refuses.

#[test]
fn images_the_kubelet_refuses_are_errors_at_pod_start_in_render_and_validate() {
    let dir = dir_with(&[
        ("space.yaml", &entry("a", "my image:1")),
        ("upper.yaml", &entry("b", "ghcr.io/MyOrg/jax:1")),
        ("tag.yaml", &entry("c", "ghcr.io/org/jax:-1")),
        ("digest.yaml", &entry("d", "ghcr.io/org/jax@sha256:abc")),
        (
            "good.yaml",
            &entry("e", "localhost:5000/org/jax_cpu:v1.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
        ),
    ]);
    for (file, why) in [
        ("space.yaml", "holds whitespace"),
        ("upper.yaml", "the repository `MyOrg/jax` must be lowercase"),
        ("tag.yaml", "the tag `-1`"),
        ("digest.yaml", "the digest `sha256:abc`"),
    ] {
        let r = run(dir.path(), &["render", file, "--format", "json"]);
        assert_eq!(r.code, 1, "{file}: {}", r.all());
        let findings: Vec<Value> = serde_json::from_str(&r.stderr).unwrap();
        let f = findings.iter().find(|f| f["rule"] == "k8s/image-reference").unwrap_or_else(|| panic!("{file}: {}", r.all()));
        let message = f["message"].as_str().unwrap();
        assert!(message.contains(why) && message.contains("InvalidImageName") && message.contains("when a TrainJob starts"), "{message}");
        assert_eq!(f["file"], file);
        assert_eq!(f["line"], 5, "{f}");
    }
    let r = run(dir.path(), &["render", "good.yaml"]);
    assert_eq!(r.code, 0, "{}", r.all());
    // validate: a hand-written runtime with the image changed.
    let text = rendered(dir.path()).replacen("image: ", "image: My/App ", 1);
    fs::write(dir.path().join("rt.yaml"), text).unwrap();
    let r = run(dir.path(), &["validate", "rt.yaml"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stdout.contains("error[k8s/image-reference]: rt.yaml:"), "{}", r.all());
}

// ---------------------------------------------------------------------------------------------
// Point 8: one output rule.

#[test]
fn findings_are_sorted_by_line_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let text = rendered(dir.path());
    // Mistakes in two files, named in reverse order: the report is by file, then line.
    let bad = text.replacen("numNodes: 1", "numNode: 1", 1).replacen("image: ", "image: UPPER ", 1);
    fs::write(dir.path().join("rt.yaml"), &bad).unwrap();
    // Other runtime names in a.yaml: the same runtime in two files is a finding of its own
    // (`input/duplicate-object`).
    fs::write(dir.path().join("a.yaml"), text.replacen("image: ", "image: x y ", 1).replace("\n  name: ", "\n  name: a-")).unwrap();
    let r = run(dir.path(), &["validate", "rt.yaml", "a.yaml", "--format", "json", "--min-severity", "warning"]);
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let places: Vec<(&str, u64)> = findings.iter().map(|f| (f["file"].as_str().unwrap(), f["line"].as_u64().unwrap())).collect();
    assert_eq!(places, [("a.yaml", 34), ("rt.yaml", 16), ("rt.yaml", 34)], "{findings:#?}");
    // validate's report is its product, on stdout; only the count is on stderr.
    for args in [vec!["validate", "rt.yaml"], vec!["validate", "rt.yaml", "--format", "json"]] {
        let r = run(dir.path(), &args);
        assert_eq!(r.code, 1, "{}", r.all());
        assert!(!r.stderr.contains("k8s/image-reference"), "findings are not on stderr: {args:?}");
        assert!(r.stdout.contains("k8s/image-reference"), "{}", r.all());
    }
    let r = run(dir.path(), &["validate", "rt.yaml", "--format", "json"]);
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let lines: Vec<u64> = findings.iter().filter_map(|f| f["line"].as_u64()).collect();
    assert!(lines.len() >= 2, "{findings:#?}");
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "sorted by line: {lines:?}");
    // render: findings on stderr too, the same JSON shape.
    let cat = dir_with(&[("c.yaml", &entry("a", "my image:1"))]);
    let r = run(cat.path(), &["render", "c.yaml", "--format", "json"]);
    assert_eq!((r.code, r.stdout.as_str()), (1, ""), "{}", r.all());
    assert!(serde_json::from_str::<Vec<Value>>(&r.stderr).is_ok(), "{}", r.all());
    // validate --format kpt: the ResourceList is the product, on stdout.
    let r = run(dir.path(), &["validate", "rt.yaml", "--format", "kpt"]);
    assert!(r.stdout.starts_with("apiVersion: config.kubernetes.io/v1\nkind: ResourceList"), "{}", r.all());
}

#[test]
fn an_ownership_conflict_exits_1_like_the_krm_function() {
    let dir = dir_with(&[("c.yaml", &entry("a", "ghcr.io/org/jax:1"))]);
    fs::create_dir(dir.path().join("out")).unwrap();
    fs::write(dir.path().join("out/clustertrainingruntime_a.yaml"), "kind: ConfigMap\n").unwrap();
    let r = run(dir.path(), &["render", "c.yaml", "-o", "out"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let r = run(dir.path(), &["render", "c.yaml", "-o", "out", "--format", "json"]);
    let findings: Vec<Value> = serde_json::from_str(&r.stderr).unwrap();
    assert_eq!(findings[0]["rule"], "output/not-owned", "{findings:#?}");
    // A folder that cannot be written is still an I/O error.
    fs::write(dir.path().join("file"), "x").unwrap();
    assert_eq!(run(dir.path(), &["render", "c.yaml", "-o", "file"]).code, 2);
}

#[test]
fn fail_on_warning_and_min_severity() {
    let dir = tempfile::tempdir().unwrap();
    let text = rendered(dir.path());
    // A warning-only runtime: a `null` the API server drops.
    let warned = text.replacen("  labels:\n", "  finalizers: null\n  labels:\n", 1);
    fs::write(dir.path().join("w.yaml"), &warned).unwrap();
    let r = run(dir.path(), &["validate", "w.yaml", "--format", "json"]);
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    assert!(findings.iter().any(|f| f["severity"] == "warning"), "a warning to gate on: {findings:#?}");
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(run(dir.path(), &["validate", "w.yaml", "--fail-on", "warning"]).code, 1);
    // --min-severity warning: no info in the report.
    let r = run(dir.path(), &["validate", "w.yaml", "--format", "json", "--min-severity", "warning"]);
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    assert!(!findings.is_empty() && findings.iter().all(|f| f["severity"] != "info"), "{findings:#?}");
}

#[test]
fn infos_true_of_every_clean_catalog_are_shown_only_with_min_severity_info() {
    let golden = root().join("tests/golden/gpu-platforms/catalog.yaml");
    let golden = golden.to_str().unwrap();
    let r = run(&root(), &["render", golden]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(!r.stderr.contains("interconnect/not-wired"), "{}", r.stderr);
    let r = run(&root(), &["render", golden, "--min-severity", "info"]);
    assert!(r.stderr.contains("info[interconnect/not-wired]"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------------------------
// Point 10: one line for the TrainJob-name infos.

#[test]
fn the_trainjob_name_info_is_one_line_in_text_and_one_per_runtime_in_json() {
    let dir = tempfile::tempdir().unwrap();
    rendered(dir.path());
    let r = run(dir.path(), &["validate", "rt.yaml"]);
    assert_eq!(r.code, 0, "{}", r.all());
    // As many as the built-in catalog holds.
    let runtimes = fs::read_to_string(dir.path().join("rt.yaml")).unwrap().matches("\nkind: ClusterTrainingRuntime\n").count();
    assert!(runtimes > 20, "{runtimes}");
    let infos: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with("info[jobset/trainjob-name-length]")).collect();
    assert_eq!(infos.len(), 1, "{}", r.all());
    assert!(
        infos[0].contains(&format!("these {runtimes} runtimes")) && infos[0].contains("the smallest limit, set by ClusterTrainingRuntime/"),
        "{}",
        infos[0]
    );
    let r = run(dir.path(), &["validate", "rt.yaml", "--format", "json"]);
    let findings: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(findings.iter().filter(|f| f["rule"] == "jobset/trainjob-name-length").count(), runtimes);
    let r = run(dir.path(), &["validate", "rt.yaml", "--format", "kpt"]);
    assert_eq!(r.stdout.matches("rule: jobset/trainjob-name-length").count(), 1, "{}", r.stdout);
}

// ---------------------------------------------------------------------------------------------
// Point 5: bounded output.

/// The peak resident memory, in bytes, of the binary running `args` in `dir` (GNU time), with
/// its stderr and exit code.
fn peak(dir: &Path, args: &[&str]) -> (usize, String, Option<i32>) {
    let time = Path::new("/usr/bin/time");
    assert!(time.exists(), "/usr/bin/time (GNU time) is needed to measure the peak memory: apt-get install time");
    let out = Command::new(time).arg("-v").arg(support::bin()).args(args).current_dir(dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let kb: usize = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes): "))
        .and_then(|v| v.parse().ok())
        .expect("GNU time reports the peak");
    let report = stderr.split("\tCommand being timed").next().unwrap().to_string();
    (kb * 1024, report, out.status.code())
}

fn one_runtime_json(description: &str) -> String {
    format!(
        "{{\"apiVersion\": \"jax-runtimes.dev/v1alpha1\", \"kind\": \"JaxRuntime\", \"metadata\": {{\"name\": \"big\"}}, \"spec\": {{\"description\": \"{description}\", \"accelerator\": {{\"cpu\": {{}}}}}}}}\n"
    )
}

#[test]
fn an_80_mb_one_line_input_gives_a_short_report_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let size = 80_000_000;
    fs::write(dir.path().join("small.json"), one_runtime_json("a runtime")).unwrap();
    fs::write(dir.path().join("big.json"), one_runtime_json(&"x".repeat(size))).unwrap();
    let (baseline, report, code) = peak(dir.path(), &["render", "small.json"]);
    assert_eq!(code, Some(0), "{report}");
    let (rss, report, code) = peak(dir.path(), &["render", "big.json"]);
    let head = &report[..report.len().min(2000)];
    assert_eq!(code, Some(1), "{head}");
    // Refused as it is read, at its line and field, with the limit and where it comes from.
    assert!(
        report.starts_with(
            "error[input/scalar-too-long]: big.json:1: `spec.description` is a string of 80000000 bytes; the reader takes at most 3145728 bytes (3 MiB, the largest request the Kubernetes API server accepts)"
        ),
        "{head}"
    );
    assert!(report.len() < 1_000_000, "stderr of {} bytes", report.len());
    assert!(report.lines().all(|l| l.len() < 2_000), "every line is cut: {}", report.lines().map(str::len).max().unwrap_or(0));
    assert!(report.contains('…'), "the cut is marked:\n{report}");
    // The text is held once; the string is refused before it is copied (it was the text, the
    // JSON tree and the typed catalog object: baseline + 2.9x the input).
    assert!(rss <= baseline + 2 * size, "peak {} MB, baseline {} MB, input {} MB", rss >> 20, baseline >> 20, size / 1_000_000);
}

#[test]
fn an_80_mb_escaped_plain_or_block_string_and_a_resource_list_are_refused_in_bounded_memory() {
    // The forms the YAML scanner builds by appending (an escape, a plain string, a block over
    // many lines), and the KRM function on stdin: each refused before it is parsed, within
    // baseline + 2x (a plain one in a ResourceList peaked at 2.8x).
    let size = 80_000_000;
    let entry = |description: &str| {
        format!("apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: big\nspec:\n  accelerator:\n    cpu: {{}}\n  description: {description}\n")
    };
    let escaped = format!("\"\\t{}\"", "x".repeat(size));
    let plain = "x".repeat(size);
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("small.yaml"), entry("a runtime")).unwrap();
    fs::write(dir.path().join("escaped.yaml"), entry(&escaped)).unwrap();
    fs::write(dir.path().join("plain.yaml"), entry(&plain)).unwrap();
    fs::write(dir.path().join("block.yaml"), entry(&format!("|\n{}", format!("    {}\n", "x".repeat(99)).repeat(size / 100)))).unwrap();
    let (baseline, report, code) = peak(dir.path(), &["render", "small.yaml"]);
    assert_eq!(code, Some(0), "{report}");
    for (file, column) in [("escaped.yaml", 16), ("plain.yaml", 16), ("block.yaml", 16)] {
        let (rss, report, code) = peak(dir.path(), &["render", file]);
        let head = &report[..report.len().min(2000)];
        assert_eq!(code, Some(1), "{head}");
        assert!(report.starts_with(&format!("error[input/scalar-too-long]: {file}:8: a string of at least ")), "{head}");
        assert!(report.contains(&format!("[{file}:8:{column}]")), "{head}");
        assert!(rss <= baseline + 2 * size, "{file}: peak {} MB, baseline {} MB, input {} MB", rss >> 20, baseline >> 20, size / 1_000_000);
    }
    // The KRM function, the escaped and the plain string in an item on stdin.
    for (name, description) in [("escaped", &escaped), ("plain", &plain)] {
        let list = format!(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{}",
            entry(description).lines().enumerate().map(|(i, l)| format!("{}{l}\n", if i == 0 { "- " } else { "  " })).collect::<String>()
        );
        fs::write(dir.path().join("list.yaml"), &list).unwrap();
        let time = Path::new("/usr/bin/time");
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("{} -v {} < list.yaml", time.display(), support::bin().display()))
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let kb: usize = stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes): "))
            .and_then(|v| v.parse().ok())
            .expect("GNU time reports the peak");
        assert!(
            stderr.contains("error[krm/malformed-input]: the ResourceList (line 11): a string of at least"),
            "{name}: {}",
            &stderr[..stderr.len().min(2000)]
        );
        assert!(kb * 1024 <= baseline + 2 * size, "KRM, {name}: peak {} MB, baseline {} MB", kb >> 10, baseline >> 20);
    }
}

#[test]
fn a_long_string_is_refused_by_every_command_that_reads_yaml_and_the_limit_itself_is_read() {
    let limit = 3 * 1024 * 1024;
    let yaml = |n: usize| {
        format!(
            "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: big\nspec:\n  description: '{}'\n  accelerator:\n    cpu: {{}}\n",
            "x".repeat(n)
        )
    };
    let dir = dir_with(&[("at.yaml", &yaml(limit)), ("over.yaml", &yaml(limit + 1))]);
    // At the limit the string is read, and the annotation it becomes is what is wrong.
    let r = run(dir.path(), &["render", "at.yaml"]);
    assert!(
        r.stderr.contains("error[k8s/annotations-size]") && !r.stderr.contains("scalar-too-long"),
        "{}",
        &r.stderr[..r.stderr.len().min(2000)]
    );
    for args in [&["render", "over.yaml"][..], &["validate", "over.yaml"], &["fit", "--nodes", "over.yaml"]] {
        let r = run(dir.path(), args);
        // validate's report is on stdout, the other commands' findings on stderr.
        let report = if args[0] == "validate" { &r.stdout } else { &r.stderr };
        let line = report.lines().next().unwrap_or_default();
        // A quoted string is found before the text is parsed: where it starts.
        assert!(
            line.starts_with("error[input/scalar-too-long]: over.yaml:6: a string of at least 3145729 bytes starts here"),
            "{args:?}: {}",
            &r.stderr[..r.stderr.len().min(2000)]
        );
        assert_ne!(r.code, 0, "{args:?}");
    }
    // The KRM function on stdin: the item's field, in kpt's results.
    let list = format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{}",
        yaml(limit + 1).lines().enumerate().map(|(i, l)| format!("{}{l}\n", if i == 0 { "- " } else { "  " })).collect::<String>()
    );
    let mut c = support::cli(&[]);
    c.current_dir(dir.path()).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), list.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The whole ResourceList is refused before it is parsed (exit 2: nothing passed through).
    assert_eq!(out.status.code(), Some(2), "{}", &stderr[..stderr.len().min(2000)]);
    assert!(
        stderr.contains("error[krm/malformed-input]: the ResourceList (line 9): a string of at least 3145729 bytes starts here"),
        "{}",
        &stderr[..stderr.len().min(2000)]
    );
}

#[test]
fn a_multi_mb_one_line_node_list_of_small_values_is_read_by_fit() {
    // `kubectl get nodes -o json | jq -c`: one line of many MB, every value short.
    let node = |i: usize| {
        format!(
            "{{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{{\"name\":\"cpu-{i}\",\"labels\":{{\"kubernetes.io/hostname\":\"cpu-{i}\",\"kubernetes.io/os\":\"linux\",\"kubernetes.io/arch\":\"amd64\",\"pad\":\"{}\"}}}},\"spec\":{{}},\"status\":{{\"allocatable\":{{\"cpu\":\"16\",\"memory\":\"64Gi\",\"pods\":\"110\"}},\"capacity\":{{\"cpu\":\"16\",\"memory\":\"64Gi\",\"pods\":\"110\"}},\"conditions\":[{{\"type\":\"Ready\",\"status\":\"True\"}}]}}}}",
            "p".repeat(60)
        )
    };
    let items: Vec<String> = (0..20_000).map(node).collect();
    let text =
        format!("{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{}],\"metadata\":{{\"resourceVersion\":\"\"}}}}\n", items.join(","));
    assert!(text.len() > 2 * 3 * 1024 * 1024 && text.lines().count() == 1, "{} bytes", text.len());
    let dir = dir_with(&[("nodes.json", &text)]);
    let cpu = root().join("catalog/runtimes/cpu.yaml");
    let r = run(dir.path(), &["fit", "--nodes", "nodes.json", &cpu.display().to_string(), "--format", "json"]);
    assert!(!r.stderr.contains("scalar-too-long") && !r.stderr.contains("error["), "{}", &r.stderr[..r.stderr.len().min(2000)]);
    let verdicts: Vec<Value> = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    assert!(!verdicts.is_empty() && verdicts.iter().any(|v| v["fits"] == true), "{}", r.stdout);
}

// ---------------------------------------------------------------------------------------------
// Issue 31 point 4: CI formats, JSON fields; issue 32: docs links.

#[test]
fn ci_formats_carry_rule_file_line_and_docs_link_in_validate_and_render() {
    let dir = dir_with(&[("c.yaml", &entry("a", "my image:1"))]);
    let url = "https://github.com/jax-runtimes/jax-runtimes/blob/main/docs/rules.md#k8s-image-reference";
    for command in ["render", "validate"] {
        let target = if command == "render" {
            "c.yaml".to_string()
        } else {
            let rt = run(dir.path(), &["render", &root().join("catalog/runtimes/cpu.yaml").display().to_string()]).stdout;
            fs::write(dir.path().join("rt.yaml"), rt.replacen("image: ", "image: my image ", 1)).unwrap();
            "rt.yaml".to_string()
        };
        // validate's report is on stdout (its product); render's findings on stderr (its product is the YAML).
        let report = |r: &Run| if command == "validate" { r.stdout.clone() } else { r.stderr.clone() };
        let r = run(dir.path(), &[command, &target, "--format", "github"]);
        assert_eq!(r.code, 1, "{}", r.all());
        assert!(command == "validate" || r.stdout.is_empty(), "{}", r.all());
        let text = report(&r);
        let line = text.lines().find(|l| l.contains("title=k8s/image-reference")).unwrap_or_else(|| panic!("{}", r.all()));
        assert!(line.starts_with(&format!("::error file={target},line=")), "{line}");
        assert!(line.contains(",col=") && line.contains(&format!("%0Adocs: {url}")), "{line}");
        assert!(report(&r).lines().all(|l| l.starts_with("::")), "nothing but workflow commands:\n{}", report(&r));

        let r = run(dir.path(), &[command, &target, "--format", "sarif"]);
        assert_eq!(r.code, 1);
        let log: Value = serde_json::from_str(&report(&r)).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
        assert_eq!(log["version"], "2.1.0");
        let results = log["runs"][0]["results"].as_array().unwrap();
        let res = results.iter().find(|x| x["ruleId"] == "k8s/image-reference").unwrap();
        assert_eq!(res["level"], "error");
        assert_eq!(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], target.as_str());
        assert!(res["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().is_some());
        let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
        assert_eq!(rules[res["ruleIndex"].as_u64().unwrap() as usize]["helpUri"], url);

        let r = run(dir.path(), &[command, &target, "--format", "junit"]);
        assert_eq!(r.code, 1);
        let xml = report(&r);
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"), "{xml}");
        assert!(xml.contains("<failure type=\"error\"") && xml.trim_end().ends_with("</testsuites>"), "{xml}");

        let r = run(dir.path(), &[command, &target, "--format", "json"]);
        let findings: Vec<Value> = serde_json::from_str(&report(&r)).unwrap();
        let f = findings.iter().find(|f| f["rule"] == "k8s/image-reference").unwrap();
        assert_eq!(f["docs"], url);
        let r = run(dir.path(), &[command, &target]);
        let r = Run { stderr: report(&r), ..r };
        assert!(r.stderr.contains(&format!("\n  docs: {url}\n")), "{}", r.stderr);
    }
}

#[test]
fn json_findings_name_the_matrix_row_the_generated_runtime_and_the_stale_files() {
    let matrix = "apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntimeMatrix
metadata: {name: images}
spec:
  matrix:
    tag: ['1', '-2']
  template:
    metadata: {name: 'cpu-{{ loop_index | default(0) }}{{ tag | replace(\"-\", \"m\") }}'}
    spec:
      image: 'ghcr.io/org/jax:{{ tag }}'
      accelerator: {cpu: {}}
";
    let dir = dir_with(&[("m.yaml", matrix), ("ok.yaml", &entry("a", "ghcr.io/org/jax:1"))]);
    let r = run(dir.path(), &["render", "m.yaml", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stderr).unwrap();
    let f = findings.iter().find(|f| f["rule"] == "k8s/image-reference").unwrap_or_else(|| panic!("{findings:#?}"));
    assert_eq!(f["row"], "tag=-2", "{f}");
    assert_eq!(f["generated"], "cpu-0m2", "{f}");
    // --check of a stale folder: the files in the finding.
    assert_eq!(run(dir.path(), &["render", "ok.yaml", "-o", "out"]).code, 0);
    fs::remove_file(dir.path().join("out/clustertrainingruntime_a.yaml")).unwrap();
    let r = run(dir.path(), &["render", "ok.yaml", "-o", "out", "--check", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stderr).unwrap();
    let stale = findings.iter().find(|f| f["rule"] == "output/stale").unwrap();
    assert_eq!(stale["files"], serde_json::json!(["clustertrainingruntime_a.yaml"]), "{stale}");
}

// ---------------------------------------------------------------------------------------------
// Point 7: a parse error inside a ResourceList names the file kpt read it from.

#[test]
fn kpt_names_the_file_and_line_of_a_duplicate_key() {
    let kpt = support::tool("kpt");
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    fs::create_dir(&pkg).unwrap();
    fs::write(pkg.join("Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n").unwrap();
    fs::copy(root().join("catalog/runtimes/cpu.yaml"), pkg.join("catalog.yaml")).unwrap();
    fs::write(
        pkg.join("jobs.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    team: a\n    team: b\ndata: {x: '1'}\n",
    )
    .unwrap();
    let eval = |cwd: &Path, target: &str, render: bool| {
        let mut c = Command::new(&kpt);
        if render {
            fs::write(
                pkg.join("Kptfile"),
                format!(
                    "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\npipeline:\n  mutators:\n  - exec: {}\n",
                    support::bin().display()
                ),
            )
            .unwrap();
            c.args(["fn", "render", target, "--allow-exec", "--truncate-output=false"]);
        } else {
            c.args(["fn", "eval", target, "--truncate-output=false", "--exec"]).arg(support::bin());
        }
        let out = c.current_dir(cwd).output().unwrap();
        (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    };
    // In the package folder: the file and its line.
    let (ok, out) = eval(&pkg, ".", false);
    assert!(!ok, "{out}");
    assert!(out.contains("`jobs.yaml` is not valid YAML at line 7: duplicate key `team`"), "{out}");
    // From elsewhere the file cannot be read: the file, and the line of the ResourceList.
    let (ok, out) = eval(tmp.path(), "pkg", false);
    assert!(!ok, "{out}");
    assert!(out.contains("`jobs.yaml` is not valid YAML (line ") && out.contains("of the ResourceList"), "{out}");
    // kpt fn render --allow-exec too.
    let (ok, out) = eval(&pkg, ".", true);
    assert!(!ok, "{out}");
    assert!(out.contains("`jobs.yaml` is not valid YAML"), "{out}");
}

// ---------------------------------------------------------------------------------------------
// Issue 43 point 4: a finding on the merged pod points at the catalog line that set the value.

#[test]
fn a_finding_on_the_merged_pod_points_at_the_catalog_value_that_set_it() {
    let defaults = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeDefaults\nmetadata: {name: site}\nspec:\n  podTemplate:\n    spec:\n      priorityClassName: ML_High\n";
    let runtime = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: one}\nspec:\n  accelerator: {cpu: {}}\n  podTemplate:\n    spec:\n      restartPolicy: Always\n";
    let matrix = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeMatrix\nmetadata: {name: cpus}\nspec:\n  matrix:\n    nodes: [1, 2, 4]\n  template:\n    metadata: {name: 'cpu-{{ nodes }}'}\n    spec:\n      accelerator: {cpu: {}}\n      numNodes: '{{ nodes }}'\n      podTemplate:\n        spec:\n          activeDeadlineSeconds: 0\n";
    let dir = dir_with(&[("defaults.yaml", defaults), ("one.yaml", runtime), ("matrix.yaml", matrix)]);
    let r = run(dir.path(), &["render", ".", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stderr).unwrap();
    let at = |rule: &str| -> Vec<&Value> { findings.iter().filter(|f| f["rule"] == rule).collect() };
    // The runtime's own pod template: its line, its field.
    let restart = at("k8s/restart-policy");
    assert_eq!(restart.len(), 1, "{}", r.all());
    assert_eq!((&restart[0]["file"], &restart[0]["line"]), (&Value::from("./one.yaml"), &Value::from(8)), "{}", restart[0]);
    assert_eq!(restart[0]["field"], "spec.podTemplate.spec.restartPolicy");
    assert!(!restart[0]["message"].as_str().unwrap().contains("generated runtime"), "{}", restart[0]);
    // The defaults' value: once, at the defaults' line, naming the runtimes it is in (one, and
    // the matrix's three).
    let class: Vec<&Value> =
        at("k8s/pod-field").into_iter().filter(|f| f["field"].as_str().unwrap().ends_with("priorityClassName")).collect();
    assert_eq!(class.len(), 1, "{}", r.all());
    assert_eq!((&class[0]["file"], &class[0]["line"]), (&Value::from("./defaults.yaml"), &Value::from(7)), "{}", class[0]);
    assert_eq!(class[0]["object"]["kind"], "JaxRuntimeDefaults");
    let message = class[0]["message"].as_str().unwrap();
    assert!(message.contains("(in the runtimes `cpu-1`, `cpu-2` and 2 more); Kubernetes rejects it"), "{message}");
    assert!(class[0]["help"].as_str().unwrap().starts_with("write `ml-high`"), "{}", class[0]);
    // The matrix template's value: once for the three rows.
    let deadline: Vec<&Value> =
        at("k8s/pod-field").into_iter().filter(|f| f["field"].as_str().unwrap().ends_with("activeDeadlineSeconds")).collect();
    assert_eq!(deadline.len(), 1, "{}", r.all());
    assert_eq!((&deadline[0]["file"], &deadline[0]["line"]), (&Value::from("./matrix.yaml"), &Value::from(14)), "{}", deadline[0]);
    assert_eq!(deadline[0]["field"], "spec.template.spec.podTemplate.spec.activeDeadlineSeconds");
    assert!(deadline[0]["message"].as_str().unwrap().contains("(in the runtimes `cpu-1`, `cpu-2` and `cpu-4`)"), "{}", deadline[0]);
    // One matrix row alone says its row.
    let one_row = matrix.replace("nodes: [1, 2, 4]", "nodes: [2]");
    let dir = dir_with(&[("matrix.yaml", &one_row)]);
    let r = run(dir.path(), &["render", "matrix.yaml", "--format", "json"]);
    let findings: Vec<Value> = serde_json::from_str(&r.stderr).unwrap();
    assert_eq!(findings.len(), 1, "{}", r.all());
    assert_eq!(findings[0]["row"], "nodes=2", "{}", findings[0]);
    assert!(findings[0]["message"].as_str().unwrap().contains("(matrix row nodes=2)"), "{}", findings[0]);
}

#[test]
fn a_finding_that_follows_from_an_error_is_left_out_and_counted() {
    let catalog = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: a100}\nspec:\n  accelerator: {gpu: {model: a100-40gbb, count: 8}}\n---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeQueue\nmetadata: {name: a100}\nspec:\n  runtimes: {names: [a100]}\n";
    let dir = dir_with(&[("c.yaml", catalog)]);
    for command in ["render", "docs"] {
        let args: Vec<&str> = match command {
            "docs" => vec!["docs", "c.yaml", "-o", "site", "--color", "never"],
            _ => vec!["render", "c.yaml", "--color", "never"],
        };
        let r = run(dir.path(), &args);
        assert_eq!(r.code, 1, "{command}: {}", r.all());
        assert!(r.stderr.contains("error[catalog/unknown-gpu]"), "{command}: {}", r.stderr);
        assert!(!r.stderr.contains("serves no runtime"), "{command}: {}", r.stderr);
        assert!(r.stderr.contains("nothing written: 1 error (1 finding that follows from it left out)"), "{command}: {}", r.stderr);
    }
    let r = run(dir.path(), &["validate", "c.yaml", "--color", "never"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(!r.all().contains("serves no runtime"), "{}", r.all());
    assert!(r.stderr.contains("1 error, 0 warnings (1 finding that follows from the errors left out)"), "{}", r.stderr);
    // A queue that serves nothing of a good catalog is an error of its own, with the way out.
    let dir = dir_with(&[("c.yaml", &catalog.replace("a100-40gbb", "a100-40gb").replace("names: [a100]", "names: [a10]"))]);
    let r = run(dir.path(), &["render", "c.yaml", "--color", "never"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("JaxRuntimeQueue `a100` serves no runtime of the catalog"), "{}", r.stderr);
    assert!(r.stderr.contains("help: make `spec.runtimes` select a runtime of the catalog"), "{}", r.stderr);
    assert!(r.stderr.contains("nothing written: 1 error\n"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------------------------
// Issue 52 point 3: the catalog names a release as --trainer-version does, and its runtimes are
// judged by that release's schemas.

#[test]
fn a_catalog_entry_names_a_patch_release_and_is_judged_by_its_schemas() {
    let entry = |trainer: &str| {
        format!("apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {{name: x}}\nspec:\n  trainer: {trainer}\n  accelerator: {{cpu: {{}}}}\n")
    };
    let dir = dir_with(&[
        ("v220.yaml", &entry("v2.2.0")),
        ("next.yaml", &entry("next")),
        ("v21.yaml", &entry("v2.1.0")),
        ("typo.yaml", &entry("v2.2.7")),
    ]);
    for (file, release) in [("v220.yaml", "v2.2.0"), ("next.yaml", "next")] {
        let r = run(dir.path(), &["render", file]);
        assert_eq!(r.code, 0, "{}", r.all());
        assert!(r.stdout.contains(&format!("jax-runtimes.dev/trainer-version: {release}")), "{}", r.stdout);
        fs::write(dir.path().join("out.yaml"), &r.stdout).unwrap();
        let r = run(dir.path(), &["validate", "out.yaml"]);
        assert_eq!(r.code, 0, "{}", r.all());
    }
    // Judged by the release it names: a v2.2.0 pod field passes v2.2.0 only.
    let rendered = run(dir.path(), &["render", "v220.yaml"]).stdout;
    let at = rendered.find("containers:").unwrap();
    let indent = &rendered[rendered[..at].rfind('\n').unwrap() + 1..at];
    let with_field = format!("{}workloadRef: {{name: w, podGroup: g}}\n{indent}{}", &rendered[..at], &rendered[at..]);
    assert_ne!(with_field, rendered);
    fs::write(dir.path().join("out.yaml"), &with_field).unwrap();
    let r = run(dir.path(), &["validate", "out.yaml"]);
    assert_eq!(r.code, 0, "{}", r.all());
    fs::write(dir.path().join("out.yaml"), with_field.replace("trainer-version: v2.2.0", "trainer-version: v2.2.1")).unwrap();
    let r = run(dir.path(), &["validate", "out.yaml"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stdout.contains("Trainer v2.2.1's schema has no such field, v2.2.0 does"), "{}", r.all());
    // Before the JAX policy: refused, naming the release that brought it; an unknown patch says
    // how to write it.
    let r = run(dir.path(), &["render", "v21.yaml"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("Trainer `v2.1.0` has no JAX policy (`mlPolicy.jax` arrived in v2.2.0)"), "{}", r.stderr);
    let r = run(dir.path(), &["render", "typo.yaml"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("did you mean `v2.2`?") && r.stderr.contains("`v2.2.0`, `v2.2.1`, `v2.3.0`, `next`"), "{}", r.stderr);
}

/// A pod field of a newer Kubernetes than the catalog's PodSpec (Trainer v2.3.0's
/// `schedulingGroup`) is not called a typo: the error says which releases have it and how to set
/// it; a real typo keeps its spelling help.
#[test]
fn a_newer_pod_field_in_a_catalog_pod_template_says_what_it_is() {
    let text = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: x}\nspec:\n  accelerator: {cpu: {}}\n  podTemplate:\n    spec:\n      schedulingGroup: {podGroupName: g}\n      priorityClasName: high\n";
    let dir = dir_with(&[("c.yaml", text)]);
    let r = run(dir.path(), &["render", "c.yaml", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let findings: Vec<Value> = serde_json::from_str(&r.stderr).unwrap();
    let newer = findings.iter().find(|f| f["field"] == "spec.podTemplate.spec.schedulingGroup").unwrap_or_else(|| panic!("{}", r.all()));
    let message = newer["message"].as_str().unwrap();
    assert!(
        message.contains("a pod field of the CRDs of Trainer v2.2.1, v2.3.0 and next") && !message.contains("did you mean"),
        "{message}"
    );
    assert!(newer["help"].as_str().unwrap().contains("patch on the rendered runtime"), "{newer}");
    let typo = findings.iter().find(|f| f["field"] == "spec.podTemplate.spec.priorityClasName").unwrap_or_else(|| panic!("{}", r.all()));
    assert!(typo["message"].as_str().unwrap().contains("did you mean `priorityClassName`?"), "{typo}");
}
