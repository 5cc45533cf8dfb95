//! Fit and finish: every command's --help has an example, shell completions (--version: dist.rs), and the
//! generated files committed in docs/ (the catalog JSON Schema, the built-in runtimes reference)
//! match what the binary produces. `UPDATE_DOCS=1 cargo test --test fit_and_finish` rewrites them.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::fs;
use std::path::PathBuf;
use std::process::Command;

use clap::CommandFactory;

use support::root;

fn bin() -> Command {
    support::cli(&[])
}

fn update() -> bool {
    support::bless()
}

#[test]
fn every_command_help_has_an_example() {
    let cli = jax_runtimes::cli::Cli::command();
    let mut missing = Vec::new();
    let top = cli.get_after_help().map(|s| s.to_string()).unwrap_or_default();
    if !top.contains("jax-runtimes ") {
        missing.push("jax-runtimes".to_string());
    }
    for sub in cli.get_subcommands() {
        let name = sub.get_name();
        let after = sub.get_after_help().or(sub.get_after_long_help()).map(|s| s.to_string()).unwrap_or_default();
        if !after.contains(&format!("jax-runtimes {name}")) {
            missing.push(name.to_string());
        }
        // And it reaches the user: `--help` prints it.
        let o = bin().args([name, "--help"]).output().unwrap();
        assert!(o.status.success(), "{name} --help failed");
        assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("jax-runtimes {name}")), "{name} --help shows no example");
    }
    assert!(missing.is_empty(), "--help without an example (after_help with `jax-runtimes <command> ...`): {missing:?}");
}

#[test]
fn completions_are_valid_scripts_that_know_every_command() {
    let names: Vec<String> = jax_runtimes::cli::Cli::command().get_subcommands().map(|s| s.get_name().to_string()).collect();
    for (shell, checker) in [("bash", "bash"), ("zsh", "zsh"), ("fish", "fish")] {
        let o = bin().args(["completions", shell]).output().unwrap();
        assert!(o.status.success(), "completions {shell}: {}", String::from_utf8_lossy(&o.stderr));
        let script = String::from_utf8_lossy(&o.stdout).to_string();
        for n in &names {
            assert!(script.contains(n.as_str()), "{shell} completion lacks `{n}`");
        }
        // Syntax check with the shell itself where it is installed (bash always is).
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join(format!("completion.{shell}"));
        fs::write(&f, &script).unwrap();
        match Command::new(checker).arg("-n").arg(&f).output() {
            Ok(c) => assert!(c.status.success(), "{shell} -n rejects the completion script: {}", String::from_utf8_lossy(&c.stderr)),
            Err(_) if shell == "bash" => panic!("bash is needed"),
            Err(_) => eprintln!("note: {checker} not installed; {shell} completion syntax not checked"),
        }
    }
    let o = bin().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "an unknown shell is a usage error");
}

#[test]
fn the_committed_json_schema_is_current() {
    let o = bin().arg("schema").output().unwrap();
    assert!(o.status.success());
    let path = root().join("docs/schema/jax-runtimes.schema.json");
    if update() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, &o.stdout).unwrap();
    }
    let committed = fs::read(&path).unwrap_or_default();
    assert!(
        committed == o.stdout,
        "docs/schema/jax-runtimes.schema.json differs from `jax-runtimes schema`; run `UPDATE_DOCS=1 cargo test --test fit_and_finish` (or `jax-runtimes schema > docs/schema/jax-runtimes.schema.json`)"
    );
}

#[test]
fn builtin_catalog_files_point_editors_at_the_schema_and_validate_against_it() {
    let schema_path = root().join("docs/schema/jax-runtimes.schema.json");
    let schema: serde_json::Value = serde_json::from_slice(&fs::read(&schema_path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let dir = root().join("catalog/runtimes");
    let mut files: Vec<PathBuf> =
        fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "yaml")).collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        let text = fs::read_to_string(&f).unwrap();
        let first = text.lines().next().unwrap_or_default();
        let target = first
            .strip_prefix("# yaml-language-server: $schema=")
            .unwrap_or_else(|| panic!("{}: first line must be the yaml-language-server modeline, is `{first}`", f.display()));
        assert_eq!(
            fs::canonicalize(dir.join(target)).ok(),
            fs::canonicalize(&schema_path).ok(),
            "{}: the modeline must point at docs/schema/jax-runtimes.schema.json",
            f.display()
        );
        for (i, doc) in jax_runtimes::yaml::parse_stream(&text).unwrap().iter().enumerate() {
            let errors: Vec<String> = validator.iter_errors(doc).map(|e| format!("{}: {e}", e.instance_path())).collect();
            assert!(errors.is_empty(), "{} document {i} fails the schema editors use: {errors:?}", f.display());
        }
    }
}

#[test]
fn the_committed_builtin_runtimes_reference_is_current() {
    if update() {
        let o = bin().args(["docs", "-o", "docs/runtimes"]).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = bin().args(["docs", "-o", "docs/runtimes", "--check"]).output().unwrap();
    assert!(
        o.status.success(),
        "docs/runtimes is stale: run `UPDATE_DOCS=1 cargo test --test fit_and_finish` (or `jax-runtimes docs -o docs/runtimes`)\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The TrainJob examples of the generated reference pages and of the guides are valid TrainJobs
/// by the Trainer v2.3.0 CRD (the upstream reference data, see support::reference).
#[test]
fn trainjob_examples_match_the_trainjob_crd() {
    let Some(reference) = support::reference() else { return };
    let crd_path = reference.join("kubeflow-trainer-v2.3.0/crds/trainer.kubeflow.org_trainjobs.yaml");
    let crd_text = fs::read_to_string(&crd_path).unwrap();
    let crd = jax_runtimes::yaml::parse_one(&crd_text).unwrap();
    let version = crd["spec"]["versions"].as_array().unwrap().iter().find(|v| v["name"] == "v1alpha1").unwrap();
    let validator = jsonschema::validator_for(&version["schema"]["openAPIV3Schema"]).unwrap();
    let mut pages: Vec<PathBuf> = Vec::new();
    for dir in ["docs/runtimes", "docs"] {
        for e in fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            // The rule reference shows failing inputs on purpose (a `numNodes: many` that
            // `fit` cannot read): its examples are checked by the rules they illustrate.
            if p.extension().is_some_and(|x| x == "md") && !p.ends_with("docs/rules.md") {
                pages.push(p);
            }
        }
    }
    let mut checked = 0;
    for p in pages {
        let text = fs::read_to_string(&p).unwrap();
        for block in text.split("```yaml\n").skip(1) {
            let body = block.split("\n```").next().unwrap();
            let Ok(docs) = jax_runtimes::yaml::parse_stream(body) else { continue };
            for doc in docs.iter().filter(|d| d["kind"] == "TrainJob") {
                let errors: Vec<String> = validator.iter_errors(doc).map(|e| format!("{}: {e}", e.instance_path())).collect();
                assert!(errors.is_empty(), "{}: TrainJob example is invalid: {errors:?}", p.display());
                assert_eq!(doc["apiVersion"], "trainer.kubeflow.org/v1alpha1");
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "expected TrainJob examples in every runtime page; checked {checked}");
}

/// Every command ends quietly when its reader goes away (`jax-runtimes accelerators | head -1`):
/// no panic, no backtrace, exit 0, as ripgrep does.
#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let runtime = support::root().join("tests/validate/base/tpu.yaml");
    let rt = runtime.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["render"],
        vec!["accelerators"],
        vec!["accelerators", "--format", "json"],
        vec!["accelerators", "--all"],
        vec!["schema"],
        vec!["validate", rt, "--format", "json"],
        vec!["validate", "--list-rules"],
        vec!["completions", "bash"],
        vec!["--help"],
        vec!["render", "--help"],
    ];
    for args in commands {
        for read_first in [0usize, 1] {
            let mut child = support::cli(&args)
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            // Read nothing or one byte, then close the pipe, as `head` does.
            let mut stdout = child.stdout.take().unwrap();
            if read_first > 0 {
                let mut b = [0u8; 1];
                let _ = stdout.read(&mut b);
            }
            drop(stdout);
            let out = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!err.contains("panicked") && !err.contains("backtrace"), "{args:?}: {err}");
            assert_eq!(out.status.code(), Some(0), "{args:?}: exit {:?}\n{err}", out.status.code());
        }
    }
}
