//! The public corpus (issue 41): Trainer v2 objects written in the shape of public manifests from
//! at least 10 repositories (tests/public/<repo>/*.yaml, each citing the repository, path and
//! commit it follows), and for each file the verdict `jax-runtimes validate` must give
//! (tests/public/expect.yaml): the exit code, the exact set of error rules, each with the
//! upstream rule that refuses it, and the set of warning rules. The expected verdicts are what
//! Kubernetes and Trainer really do, not what the tool says today: a case where the tool still
//! disagrees carries `pending: <reason>` and is printed in a table instead of failing the test;
//! any other disagreement fails it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;
use support::{bin, documents, root};

/// At least this many objects (documents with a `kind`) and this many repositories.
const MIN_OBJECTS: usize = 60;
const MIN_REPOSITORIES: usize = 10;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expectations {
    cases: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// Path under tests/public.
    file: String,
    /// `reference`: the Trainer v2.3.0 built-in runtimes are passed with `--runtimes`.
    #[serde(default)]
    runtimes: Option<String>,
    exit: i32,
    /// Error rule -> the upstream rule that refuses the object.
    errors: BTreeMap<String, String>,
    warnings: BTreeSet<String>,
    #[serde(default)]
    pending: Option<String>,
}

impl Case {
    fn label(&self) -> String {
        match &self.runtimes {
            Some(r) => format!("{} (--runtimes {r})", self.file),
            None => self.file.clone(),
        }
    }
}

fn corpus_dir() -> PathBuf {
    root().join("tests/public")
}

fn expectations() -> Vec<Case> {
    let text = std::fs::read_to_string(corpus_dir().join("expect.yaml")).unwrap();
    let parsed: Expectations = serde_saphyr::from_str(&text).expect("tests/public/expect.yaml parses");
    parsed.cases
}

/// Every corpus file (`<repo>/<name>.yaml`), relative to tests/public, sorted.
fn corpus_files() -> Vec<String> {
    let mut files = Vec::new();
    for dir in std::fs::read_dir(corpus_dir()).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(f.strip_prefix(corpus_dir()).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    files
}

/// The repository a corpus file follows, from its opening comment: `# Follows OWNER/REPO PATH` or
/// `# Variant of OWNER/REPO PATH`, with the commit (40 hex digits) or tag (`vX.Y.Z`) in the
/// opening comment block. Panics with what is missing.
fn cited_repository(file: &str, text: &str) -> String {
    let header: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
    let first = header.first().copied().unwrap_or_default();
    let rest = first.strip_prefix("# Follows ").or_else(|| first.strip_prefix("# Variant of ")).unwrap_or_else(|| {
        panic!("{file}: the first line must be `# Follows OWNER/REPO PATH` or `# Variant of OWNER/REPO PATH`, not {first:?}")
    });
    let repo = rest.split_whitespace().next().unwrap_or_default();
    let parts: Vec<&str> = repo.split('/').collect();
    assert!(parts.len() == 2 && parts.iter().all(|p| !p.is_empty()), "{file}: `{repo}` is not OWNER/REPO");
    assert!(rest.split_whitespace().nth(1).is_some(), "{file}: the opening comment names no path in {repo}");
    let block = header.join(" ");
    let commit = block
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '.')
        .any(|w| (w.len() == 40 && w.chars().all(|c| c.is_ascii_hexdigit())) || is_tag(w));
    assert!(commit, "{file}: the opening comment names no commit (40 hex digits) or tag (vX.Y.Z) of {repo}");
    repo.to_string()
}

fn is_tag(w: &str) -> bool {
    w.strip_prefix('v').is_some_and(|v| {
        let parts: Vec<&str> = v.split('.').collect();
        parts.len() == 3 && parts.iter().all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    })
}

/// What one run of `validate` said about a file.
#[derive(Debug, PartialEq)]
struct Verdict {
    exit: i32,
    errors: BTreeSet<String>,
    warnings: BTreeSet<String>,
}

fn validate(file: &Path, runtimes: Option<&Path>) -> Result<Verdict, String> {
    let mut cmd = std::process::Command::new(bin());
    cmd.current_dir(root()).arg("validate").arg(file).args(["--format", "json"]);
    if let Some(r) = runtimes {
        cmd.arg("--runtimes").arg(r);
    }
    let out = cmd.output().map_err(|e| format!("cannot run {}: {e}", bin().display()))?;
    let report = String::from_utf8_lossy(&out.stdout);
    let findings: Vec<Value> =
        serde_json::from_str(&report).map_err(|e| format!("stdout is not a JSON array of findings ({e}):\n{report}"))?;
    let rules = |severity: &str| -> BTreeSet<String> {
        findings.iter().filter(|f| f["severity"] == severity).map(|f| f["rule"].as_str().unwrap_or_default().to_string()).collect()
    };
    Ok(Verdict { exit: out.status.code().unwrap_or(-1), errors: rules("error"), warnings: rules("warning") })
}

fn show(set: &BTreeSet<String>) -> String {
    if set.is_empty() {
        "-".to_string()
    } else {
        set.iter().cloned().collect::<Vec<_>>().join(", ")
    }
}

#[test]
fn corpus_cites_its_sources_and_is_large_enough() {
    let files = corpus_files();
    let mut objects = 0;
    let mut repositories = BTreeSet::new();
    for file in &files {
        let text = std::fs::read_to_string(corpus_dir().join(file)).unwrap();
        repositories.insert(cited_repository(file, &text));
        let docs = documents(&text);
        let kinds = docs.iter().filter(|d| d.get("kind").and_then(Value::as_str).is_some()).count();
        assert!(kinds > 0, "{file}: no object");
        objects += kinds;
    }
    assert!(objects >= MIN_OBJECTS, "tests/public holds {objects} objects, fewer than {MIN_OBJECTS}");
    assert!(
        repositories.len() >= MIN_REPOSITORIES,
        "tests/public follows {} repositories, fewer than {MIN_REPOSITORIES}: {repositories:?}",
        repositories.len()
    );
    eprintln!("tests/public: {objects} objects in {} files from {} repositories", files.len(), repositories.len());
}

#[test]
fn every_file_has_a_verdict_and_every_error_a_reason() {
    let cases = expectations();
    let files: BTreeSet<String> = corpus_files().into_iter().collect();
    let covered: BTreeSet<String> = cases.iter().map(|c| c.file.clone()).collect();
    let missing: Vec<&String> = files.difference(&covered).collect();
    assert!(missing.is_empty(), "tests/public/expect.yaml has no case for {missing:?}");
    let unknown: Vec<&String> = covered.difference(&files).collect();
    assert!(unknown.is_empty(), "tests/public/expect.yaml names files that do not exist: {unknown:?}");
    let mut seen = BTreeSet::new();
    for c in &cases {
        assert!(seen.insert(c.label()), "{}: two cases with the same file and runtimes", c.label());
        if let Some(r) = &c.runtimes {
            assert_eq!(r, "reference", "{}: `runtimes` is `reference` or absent", c.label());
        }
        assert_eq!(c.exit, i32::from(!c.errors.is_empty()), "{}: exit must be 1 exactly when errors are expected", c.label());
        for (rule, why) in &c.errors {
            assert!(why.trim().len() >= 20, "{}: error {rule} needs a `why` naming the upstream rule", c.label());
        }
        if let Some(p) = &c.pending {
            assert!(!p.trim().is_empty(), "{}: `pending` needs a reason", c.label());
        }
    }
}

#[test]
fn validate_gives_the_upstream_verdict() {
    let cases = expectations();
    let reference = if cases.iter().any(|c| c.runtimes.is_some()) {
        support::reference().map(|r| r.join(support::reference::TRAINER).join("runtimes"))
    } else {
        None
    };
    let runnable: Vec<&Case> = cases.iter().filter(|c| c.runtimes.is_none() || reference.is_some()).collect();
    let not_run = cases.len() - runnable.len();

    // The binary on every case, a few at a time (each run is a separate process).
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 4);
    let chunk = runnable.len().div_ceil(threads).max(1);
    let verdicts: Vec<(&Case, Result<Verdict, String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = runnable
            .chunks(chunk)
            .map(|part| {
                let reference = reference.as_deref();
                s.spawn(move || {
                    part.iter()
                        .map(|c| {
                            let rt = c.runtimes.as_ref().and(reference);
                            (*c, validate(&corpus_dir().join(&c.file), rt))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });

    let mut failures = Vec::new();
    let mut pending_rows = Vec::new();
    let mut agree_now = Vec::new();
    for (case, verdict) in verdicts {
        let verdict = match verdict {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{}: {e}", case.label()));
                continue;
            }
        };
        let expected = Verdict { exit: case.exit, errors: case.errors.keys().cloned().collect(), warnings: case.warnings.clone() };
        let agrees = verdict == expected;
        match (&case.pending, agrees) {
            (None, true) => {}
            (Some(_), true) => agree_now.push(case.label()),
            (reason, false) => {
                let row = format!(
                    "{}\n    expected: exit {}, errors [{}], warnings [{}]\n    today:    exit {}, errors [{}], warnings [{}]",
                    case.label(),
                    expected.exit,
                    show(&expected.errors),
                    show(&expected.warnings),
                    verdict.exit,
                    show(&verdict.errors),
                    show(&verdict.warnings)
                );
                match reason {
                    Some(r) => pending_rows.push(format!("{row}\n    pending:  {r}")),
                    None => failures.push(row),
                }
            }
        }
    }

    if !pending_rows.is_empty() {
        eprintln!(
            "\n{} pending case(s) of tests/public/expect.yaml (the tool still disagrees with upstream):\n{}\n",
            pending_rows.len(),
            pending_rows.join("\n")
        );
    }
    if !agree_now.is_empty() {
        eprintln!(
            "\n{} case(s) marked pending now agree with upstream: remove their `pending` mark in tests/public/expect.yaml:\n  {}\n",
            agree_now.len(),
            agree_now.join("\n  ")
        );
    }
    if not_run > 0 {
        eprintln!("{not_run} case(s) that need the upstream reference data (--runtimes) were not run");
    }
    assert!(
        failures.is_empty(),
        "{} case(s) of tests/public/expect.yaml disagree with `jax-runtimes validate` and are not marked pending:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
