//! The upstream reference data (Kubeflow Trainer v2.3.0 CRDs and built-in runtimes, the JobSet
//! v0.12.0 CRD, the Kueue v0.19.2 CRDs): where it is, and what a test does when it is not there.
//!
//! It lives outside the project (its files are upstream's, descriptions and all, and are not
//! copied in): `../shared/reference` beside the checkout, or the folder `JAX_RUNTIMES_REFERENCE`
//! names. A test that compares with it starts with
//!
//! ```ignore
//! let Some(reference) = support::reference() else { return };
//! ```
//!
//! With the data there, that is its folder. Without it:
//! - with `CI=true` (CI always has the data) the test fails, saying where the data belongs;
//! - elsewhere (a user's clone) the test does not run: it says so on the terminal (past the test
//!   harness's capture), adds its name to the file `JAX_RUNTIMES_SKIPPED` names, and returns.
//!   `tests/run` sets that file and ends with a loud notice that names every test it holds.
//!
//! Shared by the integration tests (`tests/support/mod.rs`) and the unit tests in `src/` that
//! compare with upstream data (`#[path]`), so there is one rule for both. Only `std` is used.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder of one upstream release inside the reference data, and what the tests read there.
pub const TRAINER: &str = "kubeflow-trainer-v2.3.0";

/// How to get the data, for the messages below and tests/run's notice.
pub const HOW_TO_GET_IT: &str = "put the upstream files in ../shared/reference beside the checkout, or point \
JAX_RUNTIMES_REFERENCE at a folder that holds them: `tests/reference/fetch DIR` downloads them (the \
list of files is in tests/reference/README.md)";

/// The reference data's folder, or `None` (after recording the skip) when a user's clone does
/// not have it. Fails the test in CI and when `JAX_RUNTIMES_REFERENCE` names a folder that does
/// not hold the data.
pub fn reference() -> Option<PathBuf> {
    match locate(std::env::var_os("JAX_RUNTIMES_REFERENCE").map(PathBuf::from), &project_root()) {
        Ok(dir) => Some(dir),
        Err(Missing::Named(dir)) => {
            panic!(
                "JAX_RUNTIMES_REFERENCE={} does not hold the upstream reference data ({TRAINER}/crds is missing); {HOW_TO_GET_IT}",
                dir.display()
            )
        }
        Err(Missing::Beside(dir)) => {
            let test = test_name();
            if required() {
                panic!(
                    "{test} compares with the upstream reference data, which CI must have (CI=true), but {} is missing \
                     and JAX_RUNTIMES_REFERENCE is not set; {HOW_TO_GET_IT}",
                    dir.display()
                );
            }
            not_run("reference", &test, &format!("needs the upstream reference data ({} is missing)", dir.display()));
            None
        }
    }
}

/// Where the data was looked for and not found.
pub enum Missing {
    /// `JAX_RUNTIMES_REFERENCE` names this folder: a mistake, never a skip.
    Named(PathBuf),
    /// Nothing named; this is `../shared/reference` of the checkout.
    Beside(PathBuf),
}

/// The reference folder: `named` when given, else `../shared/reference` beside `root`. It holds
/// the data when the Trainer CRDs are there.
pub fn locate(named: Option<PathBuf>, root: &Path) -> Result<PathBuf, Missing> {
    let holds = |dir: &Path| dir.join(TRAINER).join("crds").is_dir();
    match named.filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) if holds(&dir) => Ok(dir),
        Some(dir) => Err(Missing::Named(dir)),
        None => {
            let dir = root.join("../shared/reference");
            if holds(&dir) {
                Ok(dir)
            } else {
                Err(Missing::Beside(dir))
            }
        }
    }
}

/// CI must run every test: `CI=true` (what CI systems set), or `JAX_RUNTIMES_REQUIRE_REFERENCE=1`.
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") || std::env::var("JAX_RUNTIMES_REQUIRE_REFERENCE").is_ok_and(|v| v == "1")
}

fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `binary::test`: the test harness names each test's thread after the test.
pub fn test_name() -> String {
    let thread = std::thread::current();
    format!("{}::{}", env!("CARGO_CRATE_NAME"), thread.name().unwrap_or("<unnamed test>"))
}

/// Records that `test` did not run for want of `need` (`reference`, `controlplane`): a line
/// `NEED TEST` appended whole to the file `JAX_RUNTIMES_SKIPPED` names, and `NOT RUN: TEST: WHY`
/// on the real stderr (the harness captures only `eprintln!`), once per test however often it
/// asks; tests/run's closing notice names each.
pub fn not_run(need: &str, test: &str, why: &str) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if said.iter().any(|t| t == test) {
        return;
    }
    said.push(test.to_string());
    let _ = writeln!(std::io::stderr(), "NOT RUN: {test}: {why}");
    let line = format!("{need} {test}\n");
    if let Some(file) = std::env::var_os("JAX_RUNTIMES_SKIPPED").filter(|f| !f.is_empty()) {
        let written = std::fs::OpenOptions::new().create(true).append(true).open(&file).and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            panic!("{test}: cannot record the skip in JAX_RUNTIMES_SKIPPED={}: {e}", PathBuf::from(file).display());
        }
    }
}
