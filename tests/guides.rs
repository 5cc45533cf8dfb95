//! The user guides in docs/ (and README.md, CONTRIBUTING.md) cannot rot: every command they show
//! runs here, and every output they show is what the command prints, byte for byte.
//!
//! Conventions (docs/README.md says them to writers too):
//! - A ```` ```console ```` block is run. Each line starting with `$ ` is a command (a line ending
//!   in `\` continues it), run with `bash -o pipefail -c`, stderr merged into stdout in the order
//!   written, and asserted to exit 0; a command that is meant to fail is written so the shell
//!   succeeds (`... || echo "exit code $?"`). The lines after a command, up to the next `$ `, are
//!   its whole output, compared exactly (trailing spaces and trailing blank lines aside). A guide
//!   that shows part of an output says so in the command (`| head -3`, `| grep ...`).
//!   `UPDATE_DOCS=1 cargo test --test guides` rewrites every shown output with the real one.
//! - A command `cd DIR` (or `mkdir -p DIR && cd DIR`) changes the folder the guide's later
//!   commands and files use: each guide works in a folder of its own.
//! - A block right after a line ``File: `PATH` `` (shown to readers as the file's caption) is
//!   written to PATH before the commands that follow it run.
//! - A ```` ```text ```` block is shown, never run: commands that need a cluster
//!   (`kubectl apply`), a network or minutes of build time (`cargo install`), and what a cluster
//!   prints (marked in the guide as an example, not as tested output).
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
    File {
        path: String,
        content: String,
    },
    /// `output` is the range of the guide's lines (0-based, end exclusive) that show the output.
    Run {
        line: usize,
        command: String,
        expected: Vec<String>,
        output: (usize, usize),
    },
    Yaml {
        line: usize,
        content: String,
    },
    Python {
        line: usize,
        content: String,
    },
}

/// The caption that names the file a block is written to: ``File: `PATH` ``.
fn caption(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("File: `")?;
    let path = rest.strip_suffix('`')?;
    (!path.is_empty() && !path.contains('`')).then(|| path.to_string())
}

/// Output lines as they are compared: no trailing spaces, no trailing blank lines.
fn normalize<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut v: Vec<String> = lines.into_iter().map(|l| l.trim_end().to_string()).collect();
    while v.last().is_some_and(String::is_empty) {
        v.pop();
    }
    v
}

/// The steps of one guide, in order.
fn steps(text: &str) -> Vec<Step> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut pending_file: Option<String> = None;
    while i < lines.len() {
        let l = lines[i].trim_start();
        if let Some(path) = caption(l) {
            pending_file = Some(path);
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
                    let from = j;
                    while j < body.len() && !body[j].starts_with("$ ") {
                        j += 1;
                    }
                    let expected = normalize(body[from..j].iter().copied());
                    out.push(Step::Run { line, command, expected, output: (start + from, start + j) });
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

/// The folder a command moves the guide to (`cd DIR`, `mkdir -p DIR && cd DIR`), if it does.
fn moves_to(command: &str) -> Option<&str> {
    if command.contains(['|', ';', '\n']) {
        return None;
    }
    let last = command.rsplit("&&").next()?.trim();
    let dir = last.strip_prefix("cd ")?.trim();
    (!dir.is_empty() && !dir.contains(' ')).then_some(dir)
}

/// The pages whose commands run: docs/*.md, README.md and CONTRIBUTING.md.
fn guides() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    v.sort();
    for top in ["README.md", "CONTRIBUTING.md"] {
        if root().join(top).exists() {
            v.push(root().join(top));
        }
    }
    v
}

fn python3() -> PathBuf {
    tool("python3")
}

/// What one guide's run found: its failures, and (for bless mode) the real output of each command
/// whose shown output differs, by the range of lines that show it.
struct Outcome {
    /// Commands that failed, blocks that do not parse: no bless mends them.
    failures: Vec<String>,
    /// Shown outputs that differ from the real ones.
    mismatches: Vec<String>,
    rewrites: Vec<((usize, usize), Vec<String>)>,
}

/// Runs every step of one guide.
fn run_guide(guide: &Path) -> Outcome {
    let name = guide.file_name().unwrap().to_string_lossy().to_string();
    let text = fs::read_to_string(guide).unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut cwd = work.path().to_path_buf();
    let path = support::path_with_bin();
    let mut outcome = Outcome { failures: Vec::new(), mismatches: Vec::new(), rewrites: Vec::new() };
    for step in steps(&text) {
        match step {
            Step::File { path: p, content } => {
                let target = cwd.join(&p);
                fs::create_dir_all(target.parent().unwrap()).unwrap();
                fs::write(target, content).unwrap();
            }
            Step::Run { line, command, expected, output } => {
                if command.split_whitespace().next() == Some("kubectl") || command.contains("| kubectl") || command.contains("&& kubectl") {
                    // Fails the test with what to do when kubectl is missing.
                    tool("kubectl");
                }
                // stderr into stdout, in the order the command writes them, as a terminal shows.
                let o = Command::new("bash")
                    .args(["-o", "pipefail", "-c", &format!("exec 2>&1\n{command}")])
                    .current_dir(&cwd)
                    .env("PATH", &path)
                    .env_remove("CI")
                    .env_remove("NO_COLOR")
                    // Box-drawing frames, as on a terminal (`TERM=dumb` gives ASCII ones).
                    .env("TERM", "xterm-256color")
                    .output()
                    .expect("bash");
                let all = String::from_utf8_lossy(&o.stdout).to_string();
                if !o.status.success() {
                    outcome.failures.push(format!("{name}:{line}: `{command}` exited {:?}:\n{all}", o.status.code()));
                    continue;
                }
                if let Some(dir) = moves_to(&command) {
                    cwd = cwd.join(dir);
                }
                let real = normalize(all.lines());
                if real != expected {
                    outcome.mismatches.push(format!(
                        "{name}:{line}: `{command}`: the guide shows\n{}\n--- the command printed:\n{}",
                        expected.join("\n"),
                        real.join("\n")
                    ));
                    outcome.rewrites.push((output, real));
                }
            }
            Step::Yaml { line, content } => {
                if let Err(e) = jax_runtimes::yaml::parse_stream(&content) {
                    outcome.failures.push(format!("{name}:{line}: YAML block does not parse: {e}"));
                }
            }
            Step::Python { line, content } => {
                let py = python3();
                let f = work.path().join(format!(".block-{line}.py"));
                fs::write(&f, &content).unwrap();
                let o = Command::new(py).args(["-m", "py_compile"]).arg(&f).output().unwrap();
                let _ = fs::remove_file(&f);
                if !o.status.success() {
                    outcome.failures.push(format!("{name}:{line}: Python block does not compile:\n{}", String::from_utf8_lossy(&o.stderr)));
                }
            }
        }
    }
    outcome
}

/// The guide's text with each range of lines replaced by its new lines.
fn rewrite(text: &str, mut rewrites: Vec<((usize, usize), Vec<String>)>) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    rewrites.sort_by_key(|((from, _), _)| std::cmp::Reverse(*from));
    for ((from, to), new) in rewrites {
        lines.splice(from..to, new);
    }
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

#[test]
fn every_command_in_the_guides_runs_and_prints_what_the_guide_shows() {
    let mut failures = Vec::new();
    let mut commands = 0;
    for g in guides() {
        let text = fs::read_to_string(&g).unwrap();
        commands += steps(&text).iter().filter(|s| matches!(s, Step::Run { .. })).count();
        let outcome = run_guide(&g);
        failures.extend(outcome.failures);
        if support::bless() {
            if !outcome.rewrites.is_empty() {
                fs::write(&g, rewrite(&text, outcome.rewrites)).unwrap();
            }
        } else {
            failures.extend(outcome.mismatches);
        }
    }
    assert!(
        failures.is_empty(),
        "{} failure(s) (`UPDATE_DOCS=1 cargo test --test guides` writes the real outputs into the guides):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(commands >= 20, "the guides show commands; found only {commands}");
}

#[test]
fn the_expected_guides_exist_and_the_index_links_them() {
    let index = fs::read_to_string(root().join("docs/README.md")).unwrap();
    for g in [
        "getting-started.md",
        "concepts.md",
        "jax-single-node.md",
        "jax-multi-node-gpu.md",
        "jax-tpu.md",
        "catalog-guide.md",
        "pipelines.md",
        "trainjobs.md",
        "kueue.md",
        "capacity.md",
        "production.md",
        "troubleshooting.md",
        "fleets.md",
    ] {
        assert!(root().join("docs").join(g).exists(), "docs/{g} missing");
        assert!(index.contains(&format!("]({g})")), "docs/README.md does not link {g}");
        // The words are explained once, in concepts.md, and every guide links there.
        let text = fs::read_to_string(root().join("docs").join(g)).unwrap();
        assert!(g == "concepts.md" || text.contains("](concepts.md"), "docs/{g} does not link concepts.md");
    }
}

#[test]
fn files_are_named_by_a_visible_caption_not_a_comment() {
    for g in guides() {
        let text = fs::read_to_string(&g).unwrap();
        assert!(
            !text.contains("<!-- file:"),
            "{}: name a file block with a caption line ``File: `PATH` `` that readers see, not an HTML comment",
            g.display()
        );
    }
}

/// The anchors of a Markdown page: explicit `<a id="...">`s and the ids GitHub gives headings
/// (lower case, punctuation dropped, spaces made `-`).
fn anchors(text: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if let Some(rest) = line.strip_prefix("<a id=\"") {
            if let Some((id, _)) = rest.split_once('"') {
                out.insert(id.to_string());
            }
        }
        if line.starts_with('#') {
            let title = line.trim_start_matches('#').trim();
            let slug: String = title
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
                .map(|c| if c == ' ' { '-' } else { c })
                .collect();
            out.insert(slug);
        }
    }
    out
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
            // `](` inside a regex or code is no link.
            let code = target.contains(['[', '*', ' ', '`', '\\']);
            if code || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let linked = if file.is_empty() { g.clone() } else { g.parent().unwrap().join(file) };
            if !linked.exists() {
                broken.push(format!("{}: ({target})", g.file_name().unwrap().to_string_lossy()));
            } else if !fragment.is_empty()
                && linked.extension().is_some_and(|e| e == "md")
                && !anchors(&fs::read_to_string(&linked).unwrap()).contains(fragment)
            {
                broken.push(format!("{}: ({target}): no such anchor", g.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn shown_output_is_compared_whole_and_bless_rewrites_it() {
    let md = "```console\n$ echo a; echo b\na\n$ true\n```\n";
    let s = steps(md);
    let Step::Run { expected, output, .. } = &s[0] else { panic!("{s:?}") };
    assert_eq!(expected, &vec!["a".to_string()]);
    assert_eq!(*output, (2, 3));
    assert_ne!(expected, &normalize("a\nb\n".lines()), "a missing line is a difference");
    assert_ne!(normalize(["a  b"]), normalize(["a b"]), "column padding is compared too");
    assert_eq!(normalize(["a  ", "", ""]), vec!["a".to_string()], "trailing spaces and blank lines are not");
    let blessed = rewrite(md, vec![(*output, vec!["a".into(), "b".into()])]);
    assert_eq!(blessed, "```console\n$ echo a; echo b\na\nb\n$ true\n```\n");
}

#[test]
fn the_step_parser_follows_the_convention() {
    let md = "File: `a/b.yaml`\n```yaml\nx: 1\n```\n\n```console\n$ echo hi \\\n  there\nhi there\n$ true\n```\n\n```text\n$ kubectl apply -k x\n```\n";
    let s = steps(md);
    assert!(matches!(&s[0], Step::File { path, content } if path == "a/b.yaml" && content == "x: 1\n"));
    assert!(matches!(&s[1], Step::Yaml { .. }));
    assert!(
        matches!(&s[2], Step::Run { command, expected, .. } if command == "echo hi \n  there" && expected == &vec!["hi there".to_string()])
    );
    assert!(matches!(&s[3], Step::Run { command, expected, .. } if command == "true" && expected.is_empty()));
    assert_eq!(s.len(), 4, "text blocks are not run: {s:?}");
    assert_eq!(moves_to("mkdir -p guide && cd guide"), Some("guide"));
    assert_eq!(moves_to("cd guide"), Some("guide"));
    assert_eq!(moves_to("ls | cd x"), None);
    let a = anchors("<a id=\"sdk-unknown-device\"></a>\n## What `fit` says, briefly\n```text\n# not a heading\n```\n");
    assert!(a.contains("sdk-unknown-device") && a.contains("what-fit-says-briefly") && !a.contains("not-a-heading"), "{a:?}");
}

/// The text of the first ```` ```text ```` block after `heading` in `page`.
fn block_after(page: &str, heading: &str) -> String {
    let rest = &page[page.find(heading).unwrap_or_else(|| panic!("no `{heading}`"))..];
    let start = rest.find("```text\n").expect("a text block") + "```text\n".len();
    rest[start..start + rest[start..].find("```").unwrap()].to_string()
}

#[test]
fn one_install_story_in_the_readme_and_getting_started() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let started = fs::read_to_string(root().join("docs/getting-started.md")).unwrap();
    // First the release archive (tests/dist.rs runs this block on the archive .ci/dist makes),
    // then the build from source.
    let archive = block_after(&readme, "## Install");
    assert_eq!(archive, block_after(&started, "## Install jax-runtimes"), "README and getting-started tell different install stories");
    assert!(archive.contains("sha256sum -c"), "the archive is checked before it is unpacked: {archive}");
    let from_source =
        |page: &str| block_after(&page[page.find("git clone").map_or(0, |at| page[..at].rfind("```text").unwrap_or(0))..], "```text");
    let install = from_source(&readme);
    assert_eq!(install, from_source(&started), "README and getting-started build from source differently");
    // The clone is this repository, and `cargo install --locked --path .` builds what `cargo
    // package --locked` (CI) proves buildable from the packaged crate.
    let manifest = fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let repo = install.lines().find_map(|l| l.strip_prefix("git clone ")).expect("a git clone line");
    assert!(manifest.contains(&format!("repository = \"{repo}\"")), "the clone URL is not Cargo.toml's repository");
    assert!(install.contains("cargo install --locked --path .\n"), "{install}");
    // Nothing else on the two pages tells another story.
    for page in [&readme, &started] {
        assert_eq!(page.matches("cargo install").count(), 1, "one `cargo install` per page");
    }
    // The two commands at the top of the README stay where .ci/run and newcomers look for them.
    assert!(readme.starts_with("# jax-runtimes\n\n```sh\ncargo run --release -- render "), "the README's first block moved");
    assert!(readme.contains("\ntests/run                         # the whole test suite"), "the README's test command moved");
}
