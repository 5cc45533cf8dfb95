//! The rendered-manifests workflow (`jax-runtimes render -o DIR`, `--check`) as a GitOps repo
//! uses it: DIR is owned file by file (only files whose objects carry the generated marks are
//! updated or pruned) and records its catalog in kustomization.yaml, writes are all-or-nothing, `--check` is a CI gate that prints a unified
//! diff, and the kustomization.yaml makes `kubectl kustomize DIR` / `kubectl apply -k DIR` work.
//! The same ownership rules hold for `jax-runtimes docs -o DIR` (Markdown).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use jax_runtimes::write::HEADER;
use support::tool;

fn run(cwd: &Path, args: &[&str]) -> Output {
    support::cli(args).current_dir(cwd).output().expect("run jax-runtimes")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

/// Every file under `dir` (relative path -> bytes), hidden ones included: what "DIR unchanged" means.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.insert(p.strip_prefix(root).unwrap().to_path_buf(), b"<dir>".to_vec());
                walk(root, &p, out);
            } else {
                out.insert(p.strip_prefix(root).unwrap().to_path_buf(), fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    if dir.exists() {
        walk(dir, dir, &mut out);
    }
    out
}

fn cpu_runtime(name: &str, cpus: u32) -> String {
    format!(
        "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: {name}\nspec:\n  accelerator:\n    cpu: {{}}\n  resources:\n    requests:\n      cpu: \"{cpus}\"\n"
    )
}

/// A catalog folder `cat/` in `root` holding the given runtime names (2 CPUs each).
fn catalog(root: &Path, names: &[&str]) {
    let dir = root.join("cat");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let docs: Vec<String> = names.iter().map(|n| cpu_runtime(n, 2)).collect();
    fs::write(dir.join("runtimes.yaml"), docs.join("---\n")).unwrap();
}

fn render_ok(root: &Path, args: &[&str]) -> Output {
    let o = run(root, args);
    assert_eq!(code(&o), 0, "jax-runtimes {args:?} failed:\n{}", text(&o.stderr));
    o
}

#[test]
fn render_writes_one_file_per_runtime_and_a_kustomization_kubectl_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    render_ok(root, &["render", "-o", "out"]);
    let stream = text(&render_ok(root, &["render"]).stdout);
    let expected_names: Vec<String> = stream.lines().filter_map(|l| l.strip_prefix("  name: ")).map(str::to_string).collect();
    assert!(expected_names.len() > 10, "the built-in catalog has many runtimes: {expected_names:?}");

    let snap = snapshot(&root.join("out"));
    for (path, bytes) in &snap {
        assert!(text(bytes).starts_with(HEADER), "{} lacks the ownership header", path.display());
    }
    let kust = jax_runtimes::yaml::parse_one(&text(&snap[Path::new("kustomization.yaml")])).unwrap();
    let resources: Vec<&str> = kust["resources"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let mut files: Vec<String> = snap.keys().map(|p| p.display().to_string()).filter(|n| n != "kustomization.yaml").collect();
    files.sort();
    let mut listed: Vec<String> = resources.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(listed, files, "kustomization.yaml lists exactly the runtime files");

    let kubectl = tool("kubectl");
    let o = Command::new(kubectl).args(["kustomize", "out"]).current_dir(root).output().unwrap();
    assert!(o.status.success(), "kubectl kustomize out failed:\n{}", text(&o.stderr));
    let built = text(&o.stdout);
    let docs = jax_runtimes::yaml::parse_stream(&built).unwrap();
    let mut built_names: Vec<String> = docs.iter().map(|d| d["metadata"]["name"].as_str().unwrap().to_string()).collect();
    built_names.sort();
    let mut expected = expected_names.clone();
    expected.sort();
    assert_eq!(built_names, expected, "kubectl kustomize yields every runtime once");
    // Runtimes, and the ResourceClaimTemplates (and A4X Max's ComputeDomain) of the DRA runtimes beside them.
    assert!(docs
        .iter()
        .all(|d| ["ClusterTrainingRuntime", "ResourceClaimTemplate", "ComputeDomain"].contains(&d["kind"].as_str().unwrap_or_default())));
}

#[test]
fn prune_removes_only_owned_files_and_leaves_foreign_files_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    catalog(root, &["alpha", "beta"]);
    render_ok(root, &["render", "cat", "-o", "out"]);
    let out = root.join("out");
    assert!(out.join("clustertrainingruntime_beta.yaml").exists());
    // Files a GitOps repo keeps next to the rendered ones.
    fs::write(out.join("namespace.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n").unwrap();
    fs::write(out.join("README.md"), "# runtimes\n").unwrap();
    fs::write(out.join("notes.txt"), format!("{HEADER}\nnot yaml, so not ours\n")).unwrap();
    fs::create_dir(out.join("overlays")).unwrap();
    fs::write(out.join("overlays/clustertrainingruntime_beta.yaml"), format!("{HEADER}\nin a subfolder\n")).unwrap();
    // A hand-written file that merely mentions the header later on is not ours either.
    fs::write(out.join("patch.yaml"), format!("# patch\n{HEADER}\n")).unwrap();
    let before = snapshot(&out);

    catalog(root, &["alpha"]);
    let o = render_ok(root, &["render", "cat", "-o", "out"]);
    assert!(text(&o.stderr).contains("1 pruned"), "{}", text(&o.stderr));
    let after = snapshot(&out);
    assert!(!out.join("clustertrainingruntime_beta.yaml").exists(), "the owned file of the removed entry is pruned");
    for name in [
        "namespace.yaml",
        "README.md",
        "notes.txt",
        "overlays/clustertrainingruntime_beta.yaml",
        "patch.yaml",
        "clustertrainingruntime_alpha.yaml",
    ] {
        assert_eq!(before[Path::new(name)], after[Path::new(name)], "{name} must be untouched");
    }
    let kust = text(&after[Path::new("kustomization.yaml")]);
    assert!(kust.contains("clustertrainingruntime_alpha.yaml") && !kust.contains("clustertrainingruntime_beta"), "{kust}");
    let extra: Vec<_> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    assert!(extra.is_empty(), "no new files (temporary files removed): {extra:?}");
}

#[test]
fn a_foreign_file_with_a_generated_name_is_an_error_and_dir_is_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    catalog(root, &["alpha", "beta"]);
    render_ok(root, &["render", "cat", "-o", "out"]);
    let out = root.join("out");
    fs::write(out.join("clustertrainingruntime_gamma.yaml"), "# mine\nkind: ConfigMap\n").unwrap();
    let before = snapshot(&out);

    // gamma is new, alpha changes, beta goes: nothing of it may happen.
    let dir = root.join("cat");
    fs::write(dir.join("runtimes.yaml"), [cpu_runtime("alpha", 8), cpu_runtime("gamma", 2)].join("---\n")).unwrap();
    for check in [false, true] {
        let mut args = vec!["render", "cat", "-o", "out"];
        if check {
            args.push("--check");
        }
        let o = run(root, &args);
        assert_eq!(
            code(&o),
            1,
            "{args:?}: an ownership conflict is a finding (README: output and exit codes); stderr:\n{}",
            text(&o.stderr)
        );
        let err = text(&o.stderr);
        assert!(err.contains("clustertrainingruntime_gamma.yaml") && err.contains("not generated by jax-runtimes"), "{err}");
        assert_eq!(snapshot(&out), before, "{args:?}: DIR must be as it was");
    }

    // A folder in the way is refused the same way.
    fs::remove_file(out.join("clustertrainingruntime_gamma.yaml")).unwrap();
    fs::create_dir(out.join("clustertrainingruntime_gamma.yaml")).unwrap();
    let before = snapshot(&out);
    let o = run(root, &["render", "cat", "-o", "out"]);
    assert_eq!(code(&o), 2, "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("is a directory"), "{}", text(&o.stderr));
    assert_eq!(snapshot(&out), before);
}

#[test]
fn a_foreign_kustomization_is_never_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    catalog(root, &["alpha"]);
    let out = root.join("out");
    for name in ["kustomization.yaml", "kustomization.yml", "Kustomization"] {
        let _ = fs::remove_dir_all(&out);
        fs::create_dir(&out).unwrap();
        fs::write(out.join(name), "resources: [team.yaml]\n").unwrap();
        let before = snapshot(&out);
        let o = run(root, &["render", "cat", "-o", "out"]);
        assert_eq!(code(&o), 1, "{name}: an ownership conflict; {}", text(&o.stderr));
        assert!(text(&o.stderr).contains(name), "{name}: {}", text(&o.stderr));
        assert_eq!(snapshot(&out), before, "{name}: DIR unchanged");
    }
}

#[test]
fn an_error_in_the_catalog_leaves_dir_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    catalog(root, &["alpha", "beta"]);
    render_ok(root, &["render", "cat", "-o", "out"]);
    let before = snapshot(&root.join("out"));
    // beta is dropped (would prune) and a broken entry added: a TPU v5e topology that does not exist.
    fs::write(
        root.join("cat/runtimes.yaml"),
        format!(
            "{}---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: broken\nspec:\n  platform: gke\n  accelerator:\n    tpu: {{type: v5e, topology: 3x3}}\n",
            cpu_runtime("alpha", 4)
        ),
    )
    .unwrap();
    let o = run(root, &["render", "cat", "-o", "out"]);
    assert_eq!(code(&o), 1, "findings exit code; stderr:\n{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("nothing written"), "{}", text(&o.stderr));
    assert_eq!(snapshot(&root.join("out")), before);

    // Malformed YAML: the same.
    fs::write(root.join("cat/runtimes.yaml"), "apiVersion: [unclosed\n").unwrap();
    let o = run(root, &["render", "cat", "-o", "out"]);
    assert_ne!(code(&o), 0);
    assert_eq!(snapshot(&root.join("out")), before);
    // And a new DIR is not even created.
    let o = run(root, &["render", "cat", "-o", "new/out"]);
    assert_ne!(code(&o), 0);
    assert!(!root.join("new").exists());
}

#[test]
fn check_exits_1_with_a_unified_diff_when_stale_and_0_when_current() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    catalog(root, &["alpha", "beta", "gamma"]);

    // Missing DIR: everything is missing; nothing is created.
    let o = run(root, &["render", "cat", "-o", "out", "--check"]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    let diff = text(&o.stdout);
    assert!(diff.contains("--- /dev/null\n+++ b/out/clustertrainingruntime_alpha.yaml\n"), "{diff}");
    assert!(diff.contains("+++ b/out/kustomization.yaml"), "{diff}");
    assert!(text(&o.stderr).contains("4 missing, 0 changed, 0 extra"), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("jax-runtimes render cat -o out"), "says how to fix: {}", text(&o.stderr));
    assert!(!root.join("out").exists(), "--check writes nothing");

    render_ok(root, &["render", "cat", "-o", "out"]);
    let o = run(root, &["render", "cat", "-o", "out", "--check"]);
    assert_eq!(code(&o), 0, "current DIR: {}", text(&o.stderr));
    assert!(o.stdout.is_empty(), "no diff when current: {}", text(&o.stdout));

    // Changed, missing and extra at once.
    let out = root.join("out");
    let alpha = out.join("clustertrainingruntime_alpha.yaml");
    let edited = fs::read_to_string(&alpha).unwrap().replace("cpu: \"2\"", "cpu: \"3\"");
    fs::write(&alpha, &edited).unwrap();
    fs::remove_file(out.join("clustertrainingruntime_beta.yaml")).unwrap();
    fs::copy(out.join("clustertrainingruntime_gamma.yaml"), out.join("clustertrainingruntime_old.yaml")).unwrap();
    fs::write(out.join("team.yaml"), "kind: Namespace\n").unwrap();
    let before = snapshot(&out);
    let o = run(root, &["render", "cat", "-o", "out", "--check"]);
    assert_eq!(code(&o), 1);
    let diff = text(&o.stdout);
    assert!(diff.contains("--- a/out/clustertrainingruntime_alpha.yaml\n+++ b/out/clustertrainingruntime_alpha.yaml\n"), "{diff}");
    assert!(
        diff.contains("-                      cpu: \"3\"\n") && diff.contains("+                      cpu: \"2\"\n"),
        "changed lines: {diff}"
    );
    assert!(diff.contains("--- /dev/null\n+++ b/out/clustertrainingruntime_beta.yaml\n"), "missing: {diff}");
    assert!(diff.contains("--- a/out/clustertrainingruntime_old.yaml\n+++ /dev/null\n"), "extra: {diff}");
    assert!(!diff.contains("team.yaml"), "foreign files are not part of the diff: {diff}");
    assert!(text(&o.stderr).contains("1 missing, 1 changed, 1 extra"), "{}", text(&o.stderr));
    assert_eq!(snapshot(&out), before, "--check writes nothing");

    // The diff is a real patch: applied with git, DIR becomes current.
    let patch = root.join("stale.patch");
    fs::write(&patch, &diff).unwrap();
    let g = Command::new(tool("git")).args(["apply", "--unsafe-paths", "stale.patch"]).current_dir(root).output().unwrap();
    assert!(g.status.success(), "git apply of the --check diff failed:\n{}\n{diff}", text(&g.stderr));
    let o = run(root, &["render", "cat", "-o", "out", "--check"]);
    assert_eq!(code(&o), 0, "after git apply of the diff: {}", text(&o.stdout));
}

#[test]
fn a_second_render_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    render_ok(root, &["render", "-o", "out"]);
    let out = root.join("out");
    let stamps = |dir: &Path| -> BTreeMap<String, (std::time::SystemTime, u64)> {
        use std::os::unix::fs::MetadataExt;
        fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let m = e.metadata().unwrap();
                (e.file_name().to_string_lossy().into_owned(), (m.modified().unwrap(), m.ino()))
            })
            .collect()
    };
    let before = (snapshot(&out), stamps(&out));
    std::thread::sleep(std::time::Duration::from_millis(20));
    let o = render_ok(root, &["render", "-o", "out"]);
    assert!(text(&o.stderr).contains("0 created, 0 updated, 0 pruned"), "{}", text(&o.stderr));
    assert_eq!((snapshot(&out), stamps(&out)), before, "no file rewritten (same content, mtime and inode)");

    // And two renders into fresh folders are byte-identical.
    render_ok(root, &["render", "-o", "again"]);
    assert_eq!(snapshot(&root.join("again")), before.0);
}

#[test]
fn docs_output_follows_the_same_ownership_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    catalog(root, &["alpha", "beta"]);
    render_ok(root, &["docs", "cat", "-o", "ref"]);
    let out = root.join("ref");
    let index = fs::read_to_string(out.join("README.md")).unwrap();
    assert!(index.contains("[alpha](alpha.md)") && index.contains("[beta](beta.md)"), "{index}");
    fs::write(out.join("guide.md"), "# ours, hand-written\n").unwrap();
    let o = run(root, &["docs", "cat", "-o", "ref", "--check"]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));

    catalog(root, &["alpha"]);
    let o = run(root, &["docs", "cat", "-o", "ref", "--check"]);
    assert_eq!(code(&o), 1);
    assert!(text(&o.stdout).contains("--- a/ref/beta.md\n+++ /dev/null\n"), "{}", text(&o.stdout));
    render_ok(root, &["docs", "cat", "-o", "ref"]);
    assert!(!out.join("beta.md").exists());
    assert_eq!(fs::read_to_string(out.join("guide.md")).unwrap(), "# ours, hand-written\n");

    fs::write(out.join("gamma.md"), "# mine\n").unwrap();
    catalog(root, &["alpha", "gamma"]);
    let before = snapshot(&out);
    let o = run(root, &["docs", "cat", "-o", "ref"]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    assert_eq!(snapshot(&out), before);
}

// ---------------------------------------------------------------------------------------------
// #31: output folders that are safe to share (write/owned.rs).

fn files_of(dir: &Path) -> Vec<String> {
    let mut f: Vec<String> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    f.sort();
    f
}

#[test]
fn a_folder_remembers_its_catalog_so_a_second_catalog_or_the_builtin_one_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    catalog(root, &["team-a", "team-b"]);
    render_ok(root, &["render", "cat", "-o", "deploy/runtimes"]);
    let kustomization = fs::read_to_string(root.join("deploy/runtimes/kustomization.yaml")).unwrap();
    assert!(kustomization.contains("jax-runtimes.dev/catalog: ../../cat"), "{kustomization}");
    let before = snapshot(&root.join("deploy"));
    // The catalog path forgotten: the built-in catalog would prune the team's runtimes.
    let o = run(root, &["render", "-o", "deploy/runtimes"]);
    assert_ne!(code(&o), 0, "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("name the catalog: `jax-runtimes render cat -o deploy/runtimes`"), "{}", text(&o.stderr));
    assert_eq!(snapshot(&root.join("deploy")), before, "a refused render changed the folder");
    // A second catalog into the same folder: an error, not mutual pruning.
    fs::create_dir_all(root.join("other")).unwrap();
    fs::write(root.join("other/runtimes.yaml"), cpu_runtime("other-x", 2)).unwrap();
    let o = run(root, &["render", "other", "-o", "deploy/runtimes"]);
    assert_ne!(code(&o), 0);
    assert!(text(&o.stderr).contains("holds the runtimes of the catalog `../../cat`"), "{}", text(&o.stderr));
    assert_eq!(snapshot(&root.join("deploy")), before);
    // The same catalog, however its path is spelt, from wherever: the folder is current.
    for spelling in ["./cat/", &root.join("cat").display().to_string()] {
        let o = render_ok(root, &["render", spelling, "-o", "deploy/runtimes", "--check"]);
        assert!(o.stdout.is_empty(), "{spelling}: {}", text(&o.stdout));
    }
    let o = render_ok(&root.join("deploy"), &["render", "../cat", "-o", "runtimes", "--check"]);
    assert!(o.stdout.is_empty());
}

#[test]
fn the_users_manifests_in_the_folder_are_listed_and_a_header_look_alike_is_never_pruned() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    catalog(root, &["a", "b"]);
    let out = root.join("out");
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("namespace.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ml\n").unwrap();
    // Starts like a generated file, but is the user's: no marks.
    let look_alike = format!("{HEADER}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n");
    fs::write(out.join("settings.yaml"), &look_alike).unwrap();
    fs::write(out.join("values.yaml"), "replicas: 2\n").unwrap();
    render_ok(root, &["render", "cat", "-o", "out"]);
    let kubectl = tool("kubectl");
    let built = Command::new(&kubectl).arg("kustomize").arg(&out).output().unwrap();
    assert!(built.status.success(), "{}", text(&built.stderr));
    let built = text(&built.stdout);
    for want in ["kind: Namespace", "name: settings", "name: a\n", "name: b\n"] {
        assert!(built.contains(want), "kubectl kustomize misses {want:?}:\n{built}");
    }
    let kustomization = fs::read_to_string(out.join("kustomization.yaml")).unwrap();
    assert!(kustomization.contains("- namespace.yaml\n- settings.yaml\n"), "{kustomization}");
    assert!(!kustomization.contains("values.yaml"), "values.yaml is not a manifest:\n{kustomization}");
    // Remove every runtime of the catalog: only generated files go.
    catalog(root, &["c"]);
    let o = render_ok(root, &["render", "cat", "-o", "out"]);
    assert!(text(&o.stderr).contains("2 pruned"), "{}", text(&o.stderr));
    assert_eq!(fs::read_to_string(out.join("settings.yaml")).unwrap(), look_alike);
    assert_eq!(files_of(&out), ["clustertrainingruntime_c.yaml", "kustomization.yaml", "namespace.yaml", "settings.yaml", "values.yaml"]);
}

#[test]
fn a_name_too_long_for_a_file_name_still_renders_and_documents() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let long = format!("jax-{}", "a".repeat(236));
    assert_eq!(long.len(), 240);
    let longer = format!("jax-{}", "a".repeat(249));
    catalog(root, &[&long, &longer]);
    render_ok(root, &["render", "cat", "-o", "out"]);
    render_ok(root, &["docs", "cat", "-o", "pages"]);
    let names = files_of(&root.join("out"));
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.iter().all(|n| n.len() <= 255), "{names:?}");
    // Stable: a second render writes nothing.
    let o = render_ok(root, &["render", "cat", "-o", "out", "--check"]);
    assert!(o.stdout.is_empty());
    let o = render_ok(root, &["docs", "cat", "-o", "pages", "--check"]);
    assert!(o.stdout.is_empty());
    let kubectl = tool("kubectl");
    let built = Command::new(&kubectl).arg("kustomize").arg(root.join("out")).output().unwrap();
    assert!(built.status.success() && text(&built.stdout).contains(&longer), "{}", text(&built.stderr));
}

#[test]
fn docs_pages_are_the_same_however_the_catalog_path_is_spelt() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    catalog(root, &["a"]);
    let abs = root.join("cat").display().to_string();
    for (dir, spelling) in [("p1", "./cat"), ("p2", "cat/"), ("p3", abs.as_str())] {
        render_ok(root, &["docs", spelling, "-o", dir]);
    }
    assert_eq!(snapshot(&root.join("p1")), snapshot(&root.join("p2")));
    assert_eq!(snapshot(&root.join("p1")), snapshot(&root.join("p3")));
    // And one spelling checks what another wrote.
    render_ok(root, &["docs", "cat", "-o", "p3", "--check"]);
}

#[test]
fn kueue_files_are_generated_files_of_the_folder() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    fs::create_dir_all(root.join("cat")).unwrap();
    let queue =
        "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeQueue\nmetadata: {name: ml}\nspec:\n  quotas: [{runtime: a, nodes: 2}]\n";
    fs::write(root.join("cat/runtimes.yaml"), format!("{}---\n{queue}", cpu_runtime("a", 2))).unwrap();
    render_ok(root, &["render", "cat", "-o", "out"]);
    let kueue: Vec<String> = files_of(&root.join("out")).into_iter().filter(|n| n.starts_with("kueue_")).collect();
    assert!(!kueue.is_empty());
    let kustomization = fs::read_to_string(root.join("out/kustomization.yaml")).unwrap();
    for f in &kueue {
        assert!(kustomization.contains(f.as_str()), "{f} not listed:\n{kustomization}");
    }
    // The queue leaves the catalog: its objects are pruned, nothing else.
    fs::write(root.join("cat/runtimes.yaml"), cpu_runtime("a", 2)).unwrap();
    let o = render_ok(root, &["render", "cat", "-o", "out"]);
    assert!(text(&o.stderr).contains(&format!("{} pruned", kueue.len())), "{}", text(&o.stderr));
    assert_eq!(files_of(&root.join("out")), ["clustertrainingruntime_a.yaml", "kustomization.yaml"]);
}
