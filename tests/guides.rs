//! The user guides in docs/ cannot rot: every command they show runs here.
//!
//! Conventions in `docs/*.md` (the guides say so too, in docs/README.md):
//! - A ```` ```console ```` block is run. Each line starting with `$ ` is a command (a line ending
//!   in `\` continues it), run with `bash -o pipefail -c` and asserted to exit 0; a command that
//!   is meant to fail is written so the shell succeeds (`... || echo "rejected"`). The lines
//!   after a command, up to the next `$ `, are expected output: each non-blank line, with runs
//!   of spaces collapsed, must be a whole line of the command's stdout+stderr (`...` lines are
//!   skipped; a line that ends in `...` is the start of an output line the guide cuts short).
//! - A block right after a line `<!-- file: PATH -->` is written to PATH before the commands
//!   that follow it run (so a guide shows a catalog file and then renders it).
//! - A ```` ```text ```` block is shown, never run: commands that need a cluster
//!   (`kubectl apply`), a network or minutes of build time (`cargo install`).
//! - Every ```` ```yaml ```` block must parse; every ```` ```python ```` block must compile
//!   (with `python3`, required in CI).
//!
//! Each guide runs in its own empty temporary directory, blocks in order, with the built
//! `jax-runtimes` first on PATH and the real `kubectl` (for `kubectl kustomize`) from PATH.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::{root, tool};

#[derive(Debug)]
enum Step {
    File { path: String, content: String },
    Run { line: usize, command: String, expected: Vec<String> },
    Yaml { line: usize, content: String },
    Python { line: usize, content: String },
}

/// The steps of one guide, in order.
fn steps(text: &str) -> Vec<Step> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut pending_file: Option<String> = None;
    while i < lines.len() {
        let l = lines[i].trim_start();
        if let Some(rest) = l.strip_prefix("<!-- file:") {
            pending_file = Some(rest.trim_end_matches("-->").trim().to_string());
            i += 1;
            continue;
        }
        let Some(info) = l.strip_prefix("```") else {
            if !l.is_empty() {
                pending_file = None;
            }
            i += 1;
            continue;
        };
        let lang = info.trim().to_string();
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && lines[end].trim_start() != "```" {
            end += 1;
        }
        assert!(end < lines.len(), "unclosed code block at line {}", i + 1);
        let body: Vec<&str> = lines[start..end].to_vec();
        let content = body.iter().map(|l| format!("{l}\n")).collect::<String>();
        if let Some(path) = pending_file.take() {
            out.push(Step::File { path, content: content.clone() });
        }
        match lang.as_str() {
            "console" => {
                let mut j = 0;
                while j < body.len() {
                    let Some(cmd) = body[j].strip_prefix("$ ") else {
                        j += 1;
                        continue;
                    };
                    let line = start + j + 1;
                    let mut command = cmd.to_string();
                    while command.ends_with('\\') && j + 1 < body.len() {
                        j += 1;
                        command.pop();
                        command.push('\n');
                        command.push_str(body[j]);
                    }
                    j += 1;
                    let mut expected = Vec::new();
                    while j < body.len() && !body[j].starts_with("$ ") {
                        let e = collapse(body[j]);
                        if !e.is_empty() && e != "..." {
                            expected.push(e);
                        }
                        j += 1;
                    }
                    out.push(Step::Run { line, command, expected });
                }
            }
            "yaml" => out.push(Step::Yaml { line: start, content }),
            "python" => out.push(Step::Python { line: start, content }),
            _ => {}
        }
        i = end + 1;
    }
    out
}

/// A line with runs of whitespace made one space, and no leading or trailing space.
fn collapse(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether output lines (collapsed) show the guide's line `e`: one of them is `e`, or, for a
/// line the guide cuts short with a trailing `...`, starts with what comes before it.
fn shows(lines: &[String], e: &str) -> bool {
    match e.strip_suffix("...") {
        Some(cut) => lines.iter().any(|l| l.starts_with(cut.trim_end())),
        None => lines.iter().any(|l| l == e),
    }
}

fn guides() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    v.sort();
    v
}

fn python3() -> PathBuf {
    tool("python3")
}

/// Runs every step of one guide; returns the failures.
fn run_guide(guide: &Path) -> Vec<String> {
    let name = guide.file_name().unwrap().to_string_lossy().to_string();
    let text = fs::read_to_string(guide).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = support::path_with_bin();
    let mut failures = Vec::new();
    for step in steps(&text) {
        match step {
            Step::File { path: p, content } => {
                let target = work.path().join(&p);
                fs::create_dir_all(target.parent().unwrap()).unwrap();
                fs::write(target, content).unwrap();
            }
            Step::Run { line, command, expected } => {
                if command.split_whitespace().next() == Some("kubectl") || command.contains("| kubectl") || command.contains("&& kubectl") {
                    // Fails the test with what to do when kubectl is missing.
                    tool("kubectl");
                }
                let o = Command::new("bash")
                    .args(["-o", "pipefail", "-c", &command])
                    .current_dir(work.path())
                    .env("PATH", &path)
                    .env_remove("CI")
                    .output()
                    .expect("bash");
                let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
                if !o.status.success() {
                    failures.push(format!("{name}:{line}: `{command}` exited {:?}:\n{all}", o.status.code()));
                    continue;
                }
                let lines: Vec<String> = all.lines().map(collapse).collect();
                for e in expected {
                    if !shows(&lines, &e) {
                        failures.push(format!("{name}:{line}: `{command}`: the guide shows `{e}`, the output was:\n{all}"));
                    }
                }
            }
            Step::Yaml { line, content } => {
                if let Err(e) = jax_runtimes::yaml::parse_stream(&content) {
                    failures.push(format!("{name}:{line}: YAML block does not parse: {e}"));
                }
            }
            Step::Python { line, content } => {
                let py = python3();
                let f = work.path().join(format!(".block-{line}.py"));
                fs::write(&f, &content).unwrap();
                let o = Command::new(py).args(["-m", "py_compile"]).arg(&f).output().unwrap();
                let _ = fs::remove_file(&f);
                if !o.status.success() {
                    failures.push(format!("{name}:{line}: Python block does not compile:\n{}", String::from_utf8_lossy(&o.stderr)));
                }
            }
        }
    }
    failures
}

#[test]
fn every_command_in_the_guides_runs() {
    let mut failures = Vec::new();
    let mut commands = 0;
    for g in guides() {
        commands += steps(&fs::read_to_string(&g).unwrap()).iter().filter(|s| matches!(s, Step::Run { .. })).count();
        failures.extend(run_guide(&g));
    }
    assert!(failures.is_empty(), "{} failure(s):\n\n{}", failures.len(), failures.join("\n\n"));
    assert!(commands >= 20, "the guides show commands; found only {commands}");
}

#[test]
fn the_expected_guides_exist_and_the_index_links_them() {
    let index = fs::read_to_string(root().join("docs/README.md")).unwrap();
    for g in [
        "getting-started.md",
        "jax-single-node.md",
        "jax-multi-node-gpu.md",
        "jax-tpu.md",
        "catalog-guide.md",
        "pipelines.md",
        "trainjobs.md",
        "kueue.md",
        "fleets.md",
    ] {
        assert!(root().join("docs").join(g).exists(), "docs/{g} missing");
        assert!(index.contains(&format!("]({g})")), "docs/README.md does not link {g}");
    }
}

#[test]
fn relative_links_in_the_guides_resolve() {
    let mut broken = Vec::new();
    for g in guides() {
        let text = fs::read_to_string(&g).unwrap();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            rest = &rest[end..];
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let file = target.split('#').next().unwrap();
            if !file.is_empty() && !g.parent().unwrap().join(file).exists() {
                broken.push(format!("{}: ({target})", g.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn shown_output_is_whole_lines_of_the_real_output() {
    let out: Vec<String> =
        "gpu  l4  gke  g2-standard-48  4  nvidia.com/gpu  cloud.google.com/gke-accelerator=nvidia-l4\n  wrote 2 runtimes\n"
            .lines()
            .map(collapse)
            .collect();
    assert!(shows(&out, "wrote 2 runtimes"));
    assert!(!shows(&out, "gpu l4 gke g2-standard-48 4 nvidia.com/gpu"), "a cut line must say so with `...`");
    assert!(shows(&out, "gpu l4 gke g2-standard-48 4 nvidia.com/gpu ..."));
    assert!(!shows(&out, "wrote 2"), "part of a line is not the line");
    assert!(!shows(&out, "runtimes"));
}

#[test]
fn the_step_parser_follows_the_convention() {
    let md = "<!-- file: a/b.yaml -->\n```yaml\nx: 1\n```\n\n```console\n$ echo hi \\\n  there\nhi there\n...\n$ true\n```\n\n```text\n$ kubectl apply -k x\n```\n";
    let s = steps(md);
    assert!(matches!(&s[0], Step::File { path, content } if path == "a/b.yaml" && content == "x: 1\n"));
    assert!(matches!(&s[1], Step::Yaml { .. }));
    assert!(
        matches!(&s[2], Step::Run { command, expected, .. } if command == "echo hi \n  there" && expected == &vec!["hi there".to_string()])
    );
    assert!(matches!(&s[3], Step::Run { command, expected, .. } if command == "true" && expected.is_empty()));
    assert_eq!(s.len(), 4, "text blocks are not run: {s:?}");
}
