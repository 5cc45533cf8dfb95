//! The real control plane of the `controlplane` tier (tests/tiers.txt): etcd, kube-apiserver,
//! the Job controller and kube-scheduler from `../shared/controlplane`, which `tests/run` starts
//! once for the run, with the reference CRDs installed and Established, and hands over as
//! `JAX_RUNTIMES_KUBECONFIG`. A test that uses it starts with
//!
//! ```ignore
//! let Some(cluster) = support::controlplane::cluster() else { return };
//! ```
//!
//! Without `../shared/controlplane` the test does not run: it says so and is named in tests/run's
//! closing notice; with `CI=true` (CI always has it) it fails instead. With it, but run outside
//! tests/run (no kubeconfig handed over), the test fails and says to run it through tests/run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::reference::{not_run, required, test_name};
use super::{root, tool};

/// A running control plane: `kubectl` against it.
#[derive(Debug, Clone)]
pub struct Cluster {
    pub kubeconfig: PathBuf,
}

/// Where the control plane's `start` and `stop` are.
pub fn home() -> PathBuf {
    std::env::var_os("JAX_RUNTIMES_CONTROLPLANE")
        .filter(|v| !v.is_empty())
        .map_or_else(|| root().join("../shared/controlplane"), PathBuf::from)
}

/// The control plane tests/run started, or `None` (after recording the skip) where there is none.
pub fn cluster() -> Option<Cluster> {
    if let Some(kc) = std::env::var_os("JAX_RUNTIMES_KUBECONFIG").filter(|v| !v.is_empty()).map(PathBuf::from) {
        assert!(kc.is_file(), "JAX_RUNTIMES_KUBECONFIG={} is not a file; run the tier through tests/run --test controlplane", kc.display());
        return Some(Cluster { kubeconfig: kc });
    }
    let test = test_name();
    let home = home();
    if home.join("start").is_file() {
        panic!(
            "{test} needs the control plane that tests/run starts from {} (JAX_RUNTIMES_KUBECONFIG is not set): run `tests/run --test controlplane`",
            home.display()
        );
    }
    if required() {
        panic!("{test} needs a real control plane, which CI must have (CI=true), but {} is missing", home.display());
    }
    not_run("controlplane", &test, &format!("needs a real control plane ({} is missing)", home.display()));
    None
}

impl Cluster {
    /// `kubectl --kubeconfig KC ARGS`.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        Command::new(tool("kubectl"))
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .args(args)
            .current_dir(root())
            .output()
            .expect("run kubectl")
    }

    /// `kubectl ARGS` that must succeed: its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let o = self.kubectl(args);
        assert!(o.status.success(), "kubectl {}:\n{}", args.join(" "), super::show(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// Creates the namespaces (those already there are left as they are).
    pub fn namespaces<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        for ns in names {
            let o = self.kubectl(&["create", "namespace", ns]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success() || err.contains("AlreadyExists"), "kubectl create namespace {ns}:\n{}", super::show(&o));
        }
    }
}

impl Cluster {
    /// The server's verdict on each of `files` (JSON objects) in a server-side dry run with strict
    /// field validation, as `kubectl create --dry-run=server --validate=strict` asks it: `None`
    /// when it would create the object, else its refusal. One request each on one connection
    /// (tests/support/dry_run.py), for thousands of objects.
    pub fn dry_run(&self, files: &[PathBuf]) -> Vec<Option<String>> {
        let script = root().join("tests/support/dry_run.py");
        let mut cmd = Command::new("python3");
        cmd.arg(&script).arg(&self.kubeconfig).args(files);
        // kubectl (for the kubeconfig) as the tests find it.
        if let Some(dir) = tool("kubectl").parent() {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let mut dirs = vec![dir.to_path_buf()];
            dirs.extend(std::env::split_paths(&path));
            cmd.env("PATH", std::env::join_paths(dirs).unwrap());
        }
        let o = cmd.output().expect("run python3 tests/support/dry_run.py");
        assert!(o.status.success(), "dry_run.py failed:\n{}", super::show(&o));
        let lines: Vec<serde_json::Value> =
            String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
        assert_eq!(lines.len(), files.len(), "one verdict per file:\n{}", super::show(&o));
        lines.iter().map(|l| l["refused"].as_str().map(str::to_string)).collect()
    }
}

/// What `kubectl create -f DIR` (or `get`) said of each file of `files`: the line of its error,
/// where it has one. kubectl goes on after a refused file and names each in its error.
pub fn errors_by_file(stderr: &str, files: &[PathBuf]) -> Vec<Option<String>> {
    files
        .iter()
        .map(|f| {
            let quoted = format!("\"{}\"", f.display());
            let bare = format!("{}:", f.display());
            stderr.lines().find(|l| l.contains(&quoted) || l.contains(&bare)).map(|l| l.trim().to_string())
        })
        .collect()
}

/// `dir/NAME` for each name, written as JSON.
pub fn write_files(dir: &Path, objects: &[(String, serde_json::Value)]) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    objects
        .iter()
        .map(|(name, v)| {
            let p = dir.join(format!("{name}.json"));
            std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
            p
        })
        .collect()
}
