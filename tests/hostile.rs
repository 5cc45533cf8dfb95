//! Hostile input through both front doors: `jax-runtimes render FILE` (CLI) and the KRM function
//! (no arguments, ResourceList on stdin). Every input must end in a clear error or a correct
//! result, never a panic, a hang, runaway memory or partial output.
//!
//! "Bounded" is enforced here as a hang and blow-up detector, not a speed test: each child runs
//! with a generous wall-clock limit and an address-space limit (`ulimit -v`); speed targets live
//! in benches/. The 100 MB and 100,000-item inputs are generated in a temporary folder.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Wall-clock limit per child. Debug builds on 2 shared cores are slow: this only catches hangs.
const TIME_LIMIT: Duration = Duration::from_secs(240);
/// Address-space limit per child (KiB): several times what a correct run of the largest input
/// needs, far below what an unbounded alias expansion or copy storm would take.
const MEMORY_LIMIT_KIB: u64 = 6 * 1024 * 1024;

struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

impl Run {
    fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// Runs the binary under `sh -c 'ulimit -v ..; exec ..'` with stdin from `input` (or nothing),
/// killing it past [`TIME_LIMIT`]: support::cli with the bounds this file is about.
fn run_bounded(args: &[&str], input: Option<&Path>, what: &str) -> Run {
    let bin = support::bin();
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!("ulimit -v {MEMORY_LIMIT_KIB} && exec \"$0\" \"$@\"")).arg(bin).args(args);
    cmd.stdin(match input {
        Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
        None => Stdio::null(),
    });
    let out_dir = tempfile::tempdir().unwrap();
    // Output to files, not pipes: a child blocked on a full pipe would look like a hang.
    let out_path = out_dir.path().join("stdout");
    let err_path = out_dir.path().join("stderr");
    cmd.stdout(std::fs::File::create(&out_path).unwrap()).stderr(std::fs::File::create(&err_path).unwrap());
    let started = Instant::now();
    let mut child = cmd.spawn().expect("spawn jax-runtimes");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {TIME_LIMIT:?}: a hang");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let run = Run { code: status.code(), stdout: std::fs::read(&out_path).unwrap(), stderr };
    // A panic exits 101; a signal (abort on allocation failure under the memory limit, stack
    // overflow) leaves no code.
    assert!(!run.stderr.contains("panicked"), "{what}: panicked:\n{}", tail(&run.stderr));
    assert!(run.code.is_some() && run.code != Some(101), "{what}: crashed ({status}):\n{}", tail(&run.stderr));
    run
}

fn tail(s: &str) -> &str {
    let cut = s.len().saturating_sub(4000);
    let cut = (cut..=s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len());
    &s[cut..]
}

/// Writes `content` into a fresh file in `dir`.
fn file(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

/// CLI: non-zero exit, nothing on stdout, an error on stderr naming the file and saying `expect`.
fn cli_refuses(path: &Path, expect: &[&str], what: &str) {
    let r = run_bounded(&["render", path.to_str().unwrap()], None, what);
    assert_ne!(r.code, Some(0), "{what}: exit 0; stdout: {}", r.stdout_text().chars().take(500).collect::<String>());
    assert!(r.stdout.is_empty(), "{what}: partial output on stdout ({} bytes)", r.stdout.len());
    assert!(r.stderr.contains("error["), "{what}: no error on stderr:\n{}", tail(&r.stderr));
    assert!(
        r.stderr.contains(path.file_name().unwrap().to_str().unwrap()),
        "{what}: the error does not name the file:\n{}",
        tail(&r.stderr)
    );
    for e in expect {
        assert!(r.stderr.to_lowercase().contains(&e.to_lowercase()), "{what}: stderr lacks {e:?}:\n{}", tail(&r.stderr));
    }
}

/// KRM: non-zero exit, an error on stderr saying `expect`, and stdout either empty or a
/// ResourceList with no items and the error as a result (kpt shows results on failure; an
/// empty item list with a non-zero exit makes kpt and kustomize write nothing).
fn krm_refuses(input: &Path, expect: &[&str], what: &str) {
    let r = run_bounded(&[], Some(input), what);
    assert_ne!(r.code, Some(0), "{what}: exit 0");
    for e in expect {
        assert!(r.stderr.to_lowercase().contains(&e.to_lowercase()), "{what}: stderr lacks {e:?}:\n{}", tail(&r.stderr));
    }
    if r.stdout.is_empty() {
        return;
    }
    let out = jax_runtimes::yaml::parse_one(&r.stdout_text()).unwrap_or_else(|e| panic!("{what}: stdout is not one YAML document: {e}"));
    assert_eq!(out["kind"], "ResourceList", "{what}");
    assert_eq!(out["items"], Value::Array(vec![]), "{what}: items on stdout after an error");
    let results = out["results"].as_array().unwrap_or_else(|| panic!("{what}: no results"));
    assert!(results.iter().any(|r| r["severity"] == "error"), "{what}: no error result");
}

/// A ResourceList wrapping `items` (YAML block list text, each line indented by 0).
fn resource_list(items: &str) -> String {
    format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{items}")
}

fn indent(text: &str, by: usize) -> String {
    text.lines().map(|l| format!("{}{l}\n", " ".repeat(by))).collect()
}

const RUNTIME_HEAD: &str = "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: x}\n";

/// 9 anchors, each a list of 9 aliases of the previous one: 9^9 (387 million) strings if
/// expanded, from 700 bytes.
fn billion_laughs() -> String {
    let mut s = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        s.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    s
}

#[test]
fn alias_bomb_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cat = file(
        dir.path(),
        "bomb.yaml",
        format!("{RUNTIME_HEAD}spec:\n  accelerator: {{cpu: {{}}}}\n  bomb:\n{}", indent(&billion_laughs(), 4)),
    );
    cli_refuses(&cat, &["budget"], "CLI alias bomb");
    // An item the function does not own is never expanded: it passes through as it came, at once.
    let item = format!("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: c}}\n  data:\n{}", indent(&billion_laughs(), 4));
    let rl = file(dir.path(), "bomb-rl.yaml", resource_list(&item));
    let started = Instant::now();
    let r = run_bounded(&[], Some(&rl), "KRM alias bomb");
    assert_eq!(r.code, Some(0), "{}", tail(&r.stderr));
    assert!(r.stdout_text().contains(&item), "the item comes back byte for byte:\n{}", tail(&r.stdout_text()));
    assert!(started.elapsed() < Duration::from_secs(30), "the aliases were expanded");
    // ... but a catalog object is read, and the budget holds there.
    let catalog = format!(
        "- {}",
        indent(&format!("{RUNTIME_HEAD}spec:\n  accelerator: {{cpu: {{}}}}\n  bomb:\n{}", indent(&billion_laughs(), 4)), 2).trim_start()
    );
    let rl = file(dir.path(), "bomb-catalog-rl.yaml", resource_list(&catalog));
    let r = run_bounded(&[], Some(&rl), "KRM alias bomb in a catalog object");
    assert_eq!(r.code, Some(1), "a finding, not a crash: {}", tail(&r.stderr));
    assert!(r.stderr.contains("budget"), "{}", tail(&r.stderr));
    assert!(r.stdout_text().contains(&catalog), "on an error every item comes back as it was");
}

#[test]
fn nesting_10000_deep_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let flow = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let cat = file(dir.path(), "deep.yaml", format!("{RUNTIME_HEAD}spec: {flow}\n"));
    cli_refuses(&cat, &["recursion limit"], "CLI flow nesting");
    // Block nesting: each level one key deeper (50 MB of indentation).
    let block: String = (0..10_000).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
    let cat = file(dir.path(), "deep-block.yaml", &block);
    cli_refuses(&cat, &["nested deeper"], "CLI block nesting");
    let rl = file(dir.path(), "deep-rl.yaml", resource_list(&format!("- {flow}\n")));
    krm_refuses(&rl, &["nested deeper"], "KRM YAML nesting");
    let json = format!("{{\"kind\": \"ResourceList\", \"items\": [{flow}]}}");
    let rl = file(dir.path(), "deep-rl.json", json);
    krm_refuses(&rl, &["nested deeper"], "KRM JSON nesting");
}

#[test]
fn invalid_utf8_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = RUNTIME_HEAD.replace("name: x", "name: \"x\u{0}\"").into_bytes();
    bytes.truncate(RUNTIME_HEAD.len() - 3);
    bytes.extend_from_slice(b"\xff\xfe}\nspec: {accelerator: {cpu: {}}}\n");
    let cat = file(dir.path(), "latin1.yaml", &bytes);
    cli_refuses(&cat, &["UTF-8"], "CLI invalid UTF-8");
    let mut rl = resource_list("- {apiVersion: v1, kind: ConfigMap, metadata: {name: \"c").into_bytes();
    rl.extend_from_slice(b"\xc3\x28\"}}\n");
    let rl = file(dir.path(), "latin1-rl.yaml", rl);
    krm_refuses(&rl, &["UTF-8"], "KRM invalid UTF-8");
}

#[test]
fn duplicate_keys_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cat = file(dir.path(), "dup.yaml", format!("{RUNTIME_HEAD}spec:\n  accelerator: {{cpu: {{}}}}\n  numNodes: 1\n  numNodes: 2\n"));
    cli_refuses(&cat, &["duplicate", "numNodes"], "CLI duplicate key");
    // Two `metadata` keys: which name identifies the item is not clear, so it is refused.
    let rl = file(
        dir.path(),
        "dup-rl.yaml",
        resource_list("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  metadata: {name: d}\n"),
    );
    krm_refuses(&rl, &["duplicate", "metadata"], "KRM duplicate key");
}

#[test]
fn nan_infinity_and_huge_numbers() {
    let dir = tempfile::tempdir().unwrap();
    for (i, v) in [".nan", ".inf", "-.Inf", "1e999"].iter().enumerate() {
        let cat =
            file(dir.path(), &format!("nan{i}.yaml"), format!("{RUNTIME_HEAD}spec:\n  accelerator: {{cpu: {{}}}}\n  numNodes: {v}\n"));
        cli_refuses(&cat, &[v], &format!("CLI numNodes: {v}"));
        // An item the function does not own is not interpreted: it comes back as written.
        let item = format!("- apiVersion: example.com/v1\n  kind: Thing\n  metadata: {{name: t}}\n  spec: {{x: {v}}}\n");
        let rl = file(dir.path(), &format!("nan{i}-rl.yaml"), resource_list(&item));
        let r = run_bounded(&[], Some(&rl), &format!("KRM item with {v}"));
        assert_eq!(r.code, Some(0), "{v}: {}", r.stderr);
        assert!(r.stdout_text().contains(&item), "{v}: {}", r.stdout_text());
    }
    let item = r#"{"apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}, "spec": {"x": 1e999}}"#;
    let rl = file(dir.path(), "inf-rl.json", format!(r#"{{"kind": "ResourceList", "items": [{item}]}}"#));
    let r = run_bounded(&[], Some(&rl), "KRM JSON 1e999");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout_text().contains(item), "{}", r.stdout_text());

    // Out of range for the field: a typed error naming the field.
    for v in ["123456789012345678901234567890", "4294967296", "-1e300"] {
        let cat = file(dir.path(), "huge.yaml", format!("{RUNTIME_HEAD}spec:\n  accelerator: {{cpu: {{}}}}\n  numNodes: {v}\n"));
        cli_refuses(&cat, &["numNodes"], &format!("CLI numNodes: {v}"));
    }

    // Passthrough: numbers of any size come back exactly as written.
    let item = "- apiVersion: example.com/v1\n  kind: Thing\n  metadata: {name: t}\n  spec: {u: 18446744073709551615, i: -9223372036854775808, f: 1.5e300, big: 123456789012345678901234567890, s: \"1e999\"}\n";
    let rl = file(dir.path(), "big-rl.yaml", resource_list(item));
    let r = run_bounded(&[], Some(&rl), "KRM huge numbers");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout_text().contains(item), "{}", r.stdout_text());
}

#[test]
fn input_over_the_size_limit_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    // Sparse: the limit is checked on the file's size, so this costs no disk and no time.
    let p = dir.path().join("huge.yaml");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(jax_runtimes::yaml::MAX_INPUT_BYTES as u64 + 1).unwrap();
    cli_refuses(&p, &["limit"], "CLI file over the limit");
}

/// 100 documents of 1 MiB each: a catalog entry among large unrelated manifests (CLI), and a
/// package of large ConfigMaps (KRM), 100 MB in all. Both are under the input limit and must
/// give the right answer.
#[test]
fn input_of_100_mb_is_handled() {
    let dir = tempfile::tempdir().unwrap();
    let blob = "x".repeat(1024 * 1024 - 100);
    let mut cat = format!("{RUNTIME_HEAD}spec: {{accelerator: {{cpu: {{}}}}}}\n");
    for i in 0..100 {
        cat.push_str(&format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: big-{i}}}\ndata: {{blob: {blob}}}\n"));
    }
    assert!(cat.len() > 100_000_000);
    let p = file(dir.path(), "big.yaml", &cat);
    let r = run_bounded(&["render", p.to_str().unwrap()], None, "CLI 100 MB");
    assert_eq!(r.code, Some(0), "{}", tail(&r.stderr));
    let docs = jax_runtimes::yaml::parse_stream(&r.stdout_text()).unwrap();
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0]["metadata"]["name"], "x");
    drop(cat);

    let mut rl = resource_list("");
    for i in 0..100 {
        rl.push_str(&format!("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: big-{i}}}\n  data: {{blob: {blob}}}\n"));
    }
    let p = file(dir.path(), "big-rl.yaml", &rl);
    drop(rl);
    let r = run_bounded(&[], Some(&p), "KRM 100 MB");
    assert_eq!(r.code, Some(0), "{}", tail(&r.stderr));
    let out = jax_runtimes::yaml::parse_one(&r.stdout_text()).unwrap();
    let items = out["items"].as_array().unwrap();
    assert_eq!(items.len(), 100);
    assert!(items.iter().enumerate().all(|(i, it)| it["metadata"]["name"] == format!("big-{i}") && it["data"]["blob"] == blob.as_str()));
}

/// 100,000 unrelated items and a catalog entry: all passed through in order, the runtime added.
#[test]
fn resource_list_of_100000_items_is_handled() {
    let dir = tempfile::tempdir().unwrap();
    let mut items = String::new();
    for i in 0..100_000 {
        items.push_str(&format!(
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-{i}\n    annotations: {{internal.config.kubernetes.io/path: 'cm/{i}.yaml'}}\n  data: {{key: value-{i}, flag: \"on\"}}\n"
        ));
    }
    items.push_str(&indent(
        &format!(
            "- {}",
            &"apiVersion: jax-runtimes.dev/v1alpha1\n  kind: JaxRuntime\n  metadata: {name: x}\n  spec: {accelerator: {cpu: {}}}"
        ),
        0,
    ));
    let p = file(dir.path(), "rl.yaml", resource_list(&items));
    let r = run_bounded(&[], Some(&p), "KRM 100,000 items");
    assert_eq!(r.code, Some(0), "{}", tail(&r.stderr));
    let out = jax_runtimes::yaml::parse_one(&r.stdout_text()).unwrap();
    let got = out["items"].as_array().unwrap();
    assert_eq!(got.len(), 100_002, "100,000 ConfigMaps, the catalog entry, one runtime");
    for i in [0, 1, 49_999, 99_999] {
        assert_eq!(got[i]["metadata"]["name"], format!("cm-{i}"));
        assert_eq!(got[i]["data"]["flag"], "on", "a YAML 1.1 look-alike stays a string");
    }
    assert_eq!(got[100_001]["kind"], "ClusterTrainingRuntime");
    assert_eq!(got[100_001]["metadata"]["name"], "x");
}

/// Garbage and truncated input: clear errors, never a panic.
#[test]
fn garbage_and_truncated_input_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8]); 5] = [
        ("binary", &[0u8, 1, 2, 3, 0xff, 0x00, 0x7f]),
        ("tabs", b"apiVersion: x\n\tkind: y\n"),
        ("truncated-flow", b"apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata: {name: x\n"),
        ("unclosed-quote", b"kind: \"ResourceList\nitems: []\n"),
        ("bad-anchor", b"kind: ResourceList\nitems: *nowhere\n"),
    ];
    for (name, bytes) in cases {
        let p = file(dir.path(), &format!("{name}.yaml"), bytes);
        cli_refuses(&p, &[], &format!("CLI {name}"));
        krm_refuses(&p, &[], &format!("KRM {name}"));
    }
    // Empty stdin for the function: a clear error, not an empty list.
    let p = file(dir.path(), "empty.yaml", b"");
    krm_refuses(&p, &[], "KRM empty input");
    let r = run_bounded(&[], None, "no args, no stdin");
    assert_ne!(r.code, Some(0));
    let _ = std::io::stderr().flush();
}
