//! The example of every `functions/*/` folder, run the way its README says, the kpt function
//! catalog's way: each `example/` holds its expected output in `example/.expected/`, and this one
//! test walks them all. `.expected/config.yaml` lists the steps; each runs in a copy of the
//! functions folder, in its `example/`, with the binary under test first on PATH (and as
//! `$JAX_RUNTIMES`, which the legacy kustomize plugin runs), twice: the second run must print the
//! same and change nothing. Expected: each step's exit code and stdout (a file in `.expected/`),
//! and the example's files as committed (an example is a fixed point of its own pipeline).
//!
//! `UPDATE_GOLDEN=1 cargo test --test examples` rewrites the expected outputs and the example's
//! files from what the steps made (review the diff before committing).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde::Deserialize;
use serde_json::{json, Value};
use support::{bless, copy_dir, path_with_bin, root, show, tree};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    steps: Vec<Step>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Step {
    /// A command line, run in the example folder (`jax-runtimes` is the binary under test).
    #[serde(default)]
    run: Vec<String>,
    /// Instead of a command: what standalone kustomize does with this file of generator configs
    /// (`generators:` with `exec:`): for each config, a ResourceList with the config as
    /// `functionConfig` and as the only item, marked local-config, sent to the function.
    #[serde(default)]
    generator: Option<String>,
    /// Extra environment; a value starting with `./` or `../` is a path from the example folder.
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    exit_code: i32,
    /// The file in `.expected/` that holds the step's stdout.
    #[serde(default)]
    stdout: Option<String>,
}

/// Every `functions/*/example` folder.
fn examples() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> =
        std::fs::read_dir(root().join("functions")).unwrap().map(|e| e.unwrap().path().join("example")).filter(|p| p.is_dir()).collect();
    found.sort();
    found
}

/// The example's own files, `.expected/` left out: relative path -> bytes.
fn files(example: &Path) -> BTreeMap<String, Vec<u8>> {
    tree(example).into_iter().filter(|(p, _)| !p.starts_with(".expected/")).collect()
}

fn run_step(step: &Step, dir: &Path) -> Output {
    let mut outputs = Vec::new();
    if let Some(file) = &step.generator {
        assert!(step.run.is_empty(), "a step runs a command or a generator, not both");
        let configs = jax_runtimes::yaml::parse_stream(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap();
        assert!(!configs.is_empty(), "{file}: no generator config");
        for config in configs {
            let mut item = config.clone();
            item["metadata"]["annotations"]["config.kubernetes.io/local-config"] = Value::from("true");
            let list = json!({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [item], "functionConfig": config});
            let mut cmd = support::cli(&[]);
            cmd.current_dir(dir);
            outputs.push(support::feed(cmd, jax_runtimes::yaml::to_string(&list).unwrap().as_bytes()));
        }
    } else {
        let (program, args) = step.run.split_first().expect("a step has `run` or `generator`");
        let program = if program == "jax-runtimes" { support::bin() } else { support::tool(program) };
        let mut cmd = std::process::Command::new(program);
        cmd.args(args).current_dir(dir).env("PATH", path_with_bin()).env("JAX_RUNTIMES", support::bin());
        for (k, v) in &step.env {
            if v.starts_with("./") || v.starts_with("../") {
                cmd.env(k, dir.join(v));
            } else {
                cmd.env(k, v);
            }
        }
        outputs.push(cmd.output().unwrap());
    }
    // One output: the exit code of the first that failed (else 0), everything printed in order.
    let mut all = outputs.remove(0);
    for o in outputs {
        if all.status.success() {
            all.status = o.status;
        }
        all.stdout.extend(o.stdout);
        all.stderr.extend(o.stderr);
    }
    all
}

/// Runs one example's steps twice in a copy; returns what differs from its expectations.
fn check(example: &Path) -> Vec<String> {
    let name = example.parent().unwrap().file_name().unwrap().to_string_lossy().to_string();
    let expected = example.join(".expected");
    let config_path = expected.join("config.yaml");
    let text = std::fs::read_to_string(&config_path)
        .unwrap_or_else(|e| panic!("functions/{name}/example has no .expected/config.yaml ({e}): every example says how it runs"));
    let config: Config = serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", config_path.display()));
    assert!(!config.steps.is_empty(), "{}: no steps", config_path.display());

    let work = tempfile::tempdir().unwrap();
    let folder = work.path().join(&name);
    copy_dir(example.parent().unwrap(), &folder);
    let dir = folder.join("example");
    let mut failures = Vec::new();
    let mut first: Vec<Output> = Vec::new();
    for round in 0..2 {
        for (i, step) in config.steps.iter().enumerate() {
            let what =
                format!("functions/{name}/example step {} ({})", i + 1, step.generator.clone().unwrap_or_else(|| step.run.join(" ")));
            let out = run_step(step, &dir);
            if out.status.code() != Some(step.exit_code) {
                failures.push(format!("{what}: exit {:?}, expected {}:\n{}", out.status.code(), step.exit_code, show(&out)));
                continue;
            }
            if round == 0 {
                if let Some(file) = &step.stdout {
                    let path = expected.join(file);
                    if bless() {
                        std::fs::write(&path, &out.stdout).unwrap();
                    }
                    let want = std::fs::read(&path).unwrap_or_default();
                    if want != out.stdout {
                        failures.push(format!(
                            "{what}: stdout is not .expected/{file} (UPDATE_GOLDEN=1 rewrites it):\n{}",
                            similar::TextDiff::from_lines(&String::from_utf8_lossy(&want), &String::from_utf8_lossy(&out.stdout))
                                .unified_diff()
                                .header("expected", "got")
                        ));
                    }
                }
                first.push(out);
            } else if first[i].stdout != out.stdout {
                failures.push(format!("{what}: the second run printed something else:\n{}", show(&out)));
            }
        }
        let (want, got) = (files(example), files(&dir));
        if round == 0 && bless() && want != got {
            for path in want.keys().filter(|p| !got.contains_key(*p)) {
                std::fs::remove_file(example.join(path)).unwrap();
            }
            for (path, bytes) in &got {
                let to = example.join(path);
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::write(to, bytes).unwrap();
            }
        }
        let want = files(example);
        for (path, bytes) in &got {
            match want.get(path) {
                None => failures.push(format!("functions/{name}/example: run {} made {path}", round + 1)),
                Some(w) if w != bytes => failures.push(format!(
                    "functions/{name}/example: run {} changed {path} (UPDATE_GOLDEN=1 takes the change):\n{}",
                    round + 1,
                    similar::TextDiff::from_lines(&String::from_utf8_lossy(w), &String::from_utf8_lossy(bytes))
                        .unified_diff()
                        .header("committed", "after the run")
                )),
                Some(_) => {}
            }
        }
        for path in want.keys().filter(|p| !got.contains_key(*p)) {
            failures.push(format!("functions/{name}/example: run {} removed {path}", round + 1));
        }
    }
    failures
}

#[test]
fn every_functions_example_gives_its_expected_output_twice() {
    let examples = examples();
    let names: Vec<String> = examples.iter().map(|e| e.parent().unwrap().file_name().unwrap().to_string_lossy().to_string()).collect();
    for want in ["argocd", "flux", "kpt", "kustomize", "kustomize-legacy", "validate"] {
        assert!(names.iter().any(|n| n == want), "functions/{want}/example went missing: {names:?}");
    }
    let failures: Vec<String> = examples.iter().flat_map(|e| check(e)).collect();
    assert!(failures.is_empty(), "{} example failure(s):\n\n{}", failures.len(), failures.join("\n\n"));
}

/// One install story (README "Install"): every `cargo install` in the README, docs/ and
/// functions/ builds from jax-runtimes' source with `--locked --path`, never from a registry or a
/// repository address this project does not have.
#[test]
fn every_install_line_tells_the_readme_story() {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md" || e == "yaml" || e == "yml") {
                out.push(p);
            }
        }
    }
    let mut files = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut files);
    walk(&root().join("functions"), &mut files);
    let mut seen = 0;
    let mut wrong = Vec::new();
    for f in &files {
        for (i, line) in std::fs::read_to_string(f).unwrap().lines().enumerate() {
            let Some(at) = line.find("cargo install ") else { continue };
            seen += 1;
            let command = &line[at..];
            let told = ["cargo install --locked --path .", "cargo install --locked --path jax-runtimes-src"];
            if !told.iter().any(|t| command.split('#').next().unwrap().trim_end() == *t) {
                wrong.push(format!("{}:{}: {}", f.strip_prefix(root()).unwrap().display(), i + 1, line.trim()));
            }
        }
    }
    // README's and getting-started's build from source; CI recipes download a release (tests/dist.rs).
    assert!(seen >= 2, "the install lines went missing ({seen})");
    assert!(wrong.is_empty(), "install lines that tell another story:\n{}", wrong.join("\n"));
}
