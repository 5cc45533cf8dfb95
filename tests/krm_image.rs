//! End-to-end: the KRM function as a container image, under the real kpt with
//! `KPT_FN_RUNTIME=podman`. Whatever the function prints, the image route must give what the exec
//! route gives, byte for byte: the same files, the same results, the same failures. It also runs
//! the image the way kpt and Kubernetes do and looks at the running process from the host: no
//! network, a read-only root filesystem, not root.
//!
//! Needs podman (tests/run sets it up). The first test to need the image builds it with
//! `functions/build-image.sh` (`$JAX_RUNTIMES_IMAGE`, default `localhost/jax-runtimes:dev`): the
//! static release binary of this checkout, and the image when that binary changed. A missing
//! podman, a failed build and an image that does not hold this binary all fail.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use jax_runtimes::yaml;
use serde_json::Value;
use support::{copy_dir, path_with_bin, root, show, tool, tree};

const DEFAULT_IMAGE: &str = "localhost/jax-runtimes:dev";
/// The user and group `nobody` of functions/image/etc/.
const NOBODY: &str = "65534";

fn podman() -> PathBuf {
    support::needs("podman");
    tool("podman")
}

/// The image under test, built or found up to date once per run by `functions/build-image.sh`
/// (the static binary of this checkout; the image only when that binary changed), then checked
/// to hold that binary.
fn image() -> &'static str {
    static IMAGE: OnceLock<String> = OnceLock::new();
    IMAGE.get_or_init(|| {
        support::needs("podman");
        let tag = std::env::var("JAX_RUNTIMES_IMAGE").ok().filter(|t| !t.is_empty()).unwrap_or_else(|| DEFAULT_IMAGE.to_string());
        // Cargo's and podman's progress go straight to the terminal: a cold build takes minutes.
        let _ = writeln!(
            std::io::stderr(),
            "krm_image: functions/build-image.sh {tag} (the static release binary, then the image if it changed)"
        );
        let status = Command::new(root().join("functions/build-image.sh"))
            .arg(&tag)
            .env("CONTAINER_ENGINE", "podman")
            .stdout(Stdio::null())
            .status()
            .expect("run functions/build-image.sh");
        assert!(status.success(), "functions/build-image.sh {tag} failed ({status}); its output is above");
        let config = inspect(&tag);
        let built_from = config["Labels"]["dev.jax-runtimes.binary"].as_str().unwrap_or_default().to_string();
        let out = Command::new(root().join("functions/build-image.sh")).arg("--hash").output().unwrap();
        assert!(out.status.success(), "functions/build-image.sh --hash failed:\n{}", show(&out));
        let binary = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert_eq!(built_from, binary, "image {tag} does not hold this checkout's binary (label dev.jax-runtimes.binary)");
        tag
    })
}

/// `podman image inspect TAG`: the image's config (`User`, `Entrypoint`, `Cmd`, `Labels`).
fn inspect(tag: &str) -> Value {
    let out = Command::new(podman()).args(["image", "inspect", tag]).output().unwrap();
    assert!(
        out.status.success(),
        "image {tag} is not in podman's image store: build it with `functions/build-image.sh {tag}`:\n{}",
        show(&out)
    );
    let all: Value = serde_json::from_slice(&out.stdout).unwrap();
    all[0]["Config"].clone()
}

/// `kpt ARGS` in `cwd`, with podman as the container runtime and the tested binary first on PATH.
fn kpt(args: &[&str], cwd: &Path) -> Output {
    Command::new(tool("kpt")).args(args).current_dir(cwd).env("KPT_FN_RUNTIME", "podman").env("PATH", path_with_bin()).output().unwrap()
}

/// A fresh copy of `pkg` (relative to the project root) as `NAME` in a new temporary folder.
fn copy(pkg: &str, tweak: impl Fn(&Path)) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join(Path::new(pkg).file_name().unwrap());
    copy_dir(&root().join(pkg), &to);
    tweak(&to);
    (dir, to)
}

/// The function's part of a kpt results file: every item without the `image:` / `exec:` that
/// names the route (exit code, results, stderr stay). kpt itself treats the function's stderr
/// differently by route: from a container it re-joins the lines without the final newline
/// (kpt internal/fnruntime/container.go, `filterPodmanCLIOutput`), from exec it keeps the bytes;
/// so stderr is compared without trailing newlines.
fn function_results(results_dir: &Path) -> Value {
    let text = std::fs::read_to_string(results_dir.join("results.yaml")).unwrap();
    let mut list = yaml::parse_one(&text).unwrap();
    for item in list["items"].as_array_mut().unwrap() {
        let item = item.as_object_mut().unwrap();
        assert!(item.remove("image").is_some() ^ item.remove("exec").is_some(), "a result item names neither route: {text}");
        if let Some(Value::String(stderr)) = item.get_mut("stderr") {
            *stderr = stderr.trim_end_matches('\n').to_string();
        }
    }
    list
}

/// One kpt run: what it returned, the package's files after it and the function's results.
struct Route {
    ok: bool,
    files: BTreeMap<String, Vec<u8>>,
    results: Value,
    out: Output,
}

fn route(args: &[&str], pkg: &Path) -> Route {
    let results = tempfile::tempdir().unwrap();
    let mut all: Vec<&str> = args.to_vec();
    let dir = results.path().to_str().unwrap();
    all.extend(["--results-dir", dir]);
    let out = kpt(&all, pkg.parent().unwrap());
    Route { ok: out.status.success(), files: tree(pkg), results: function_results(results.path()), out }
}

/// `kpt fn eval` of `pkg` by image and by exec (extra arguments for both): the same outcome and
/// the same files, byte for byte; a second image run changes nothing.
fn eval_both_ways(pkg: &str, tweak: impl Fn(&Path) + Copy, extra: &[&str]) -> Route {
    let (_a, by_image) = copy(pkg, tweak);
    let (_b, by_exec) = copy(pkg, tweak);
    let eval = |p: &Path, how: [&str; 2]| {
        let mut args = vec!["fn", "eval", p.to_str().unwrap(), how[0], how[1]];
        args.extend(extra);
        route(&args, p)
    };
    let image_run = eval(&by_image, ["--image", image()]);
    let bin = support::bin();
    let exec_run = eval(&by_exec, ["--exec", bin.to_str().unwrap()]);
    assert_eq!(image_run.ok, exec_run.ok, "{pkg}: image and exec routes disagree:\n{}\n---\n{}", show(&image_run.out), show(&exec_run.out));
    assert_eq!(image_run.results, exec_run.results, "{pkg}: the function's results differ between image and exec");
    assert_eq!(image_run.files, exec_run.files, "{pkg}: `kpt fn eval --image` wrote other files than `--exec`");
    if image_run.ok {
        let again = eval(&by_image, ["--image", image()]);
        assert!(again.ok, "{pkg}: second eval failed:\n{}", show(&again.out));
        assert_eq!(again.files, image_run.files, "{pkg}: the second `kpt fn eval --image` changed files");
    }
    image_run
}

fn no_runtimes(pkg: &Path) {
    std::fs::remove_dir_all(pkg.join("runtimes")).unwrap();
}

fn as_is(_: &Path) {}

/// Adds a TPU entry whose topology does not exist to the example's catalog.
fn bad_entry(pkg: &Path) {
    let catalog = pkg.join("catalog/runtimes.yaml");
    let mut text = std::fs::read_to_string(&catalog).unwrap();
    text.push_str("---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: jax-tpu-bad\nspec:\n  platform: gke\n  accelerator:\n    tpu: {type: v5e, topology: 3x3}\n");
    std::fs::write(&catalog, text).unwrap();
}

#[test]
fn kpt_fn_eval_by_image_writes_what_the_exec_route_writes() {
    // The package at rest, its runtimes generated from scratch, the passthrough golden package.
    let rest = eval_both_ways("functions/kpt/example", as_is, &[]);
    assert!(rest.ok, "{}", show(&rest.out));
    assert_eq!(rest.files, tree(&root().join("functions/kpt/example")), "eval by image changed the example package at rest");
    let fresh = eval_both_ways("functions/kpt/example", no_runtimes, &[]);
    assert_eq!(fresh.files, rest.files, "eval by image did not regenerate the example's runtimes");
    let passthrough = eval_both_ways("tests/krm/passthrough", as_is, &[]);
    assert!(passthrough.ok && passthrough.files.contains_key("runtimes/clustertrainingruntime_jax-cpu.yaml"), "{}", show(&passthrough.out));
}

#[test]
fn kpt_fn_eval_by_image_takes_a_function_config_from_outside_the_package() {
    let config = root().join("tests/krm/passthrough/catalog/cpu.yaml");
    let run = eval_both_ways("tests/krm/passthrough/app", as_is, &["--fn-config", config.to_str().unwrap()]);
    assert!(run.ok && run.files.contains_key("runtimes/clustertrainingruntime_jax-cpu.yaml"), "{}", show(&run.out));
}

#[test]
fn a_bad_entry_fails_the_image_route_with_the_exec_routes_results() {
    let run = eval_both_ways("functions/kpt/example", bad_entry, &[]);
    assert!(!run.ok, "a bad entry passed:\n{}", show(&run.out));
    let (_d, untouched) = copy("functions/kpt/example", bad_entry);
    assert_eq!(run.files, tree(&untouched), "a failed eval by image changed files");
    let results = serde_json::to_string(&run.results).unwrap();
    assert!(results.contains("jax-tpu-bad") && results.contains("\"severity\":\"error\""), "{results}");
}

/// The package's Kptfile with its `exec: jax-runtimes` mutator replaced by `image: IMAGE`.
fn image_pipeline(pkg: &Path) {
    let kptfile = pkg.join("Kptfile");
    let text = std::fs::read_to_string(&kptfile).unwrap();
    assert_eq!(
        text.matches("- exec: jax-runtimes\n").count(),
        1,
        "{} has no single `exec: jax-runtimes` mutator:\n{text}",
        kptfile.display()
    );
    std::fs::write(&kptfile, text.replace("- exec: jax-runtimes\n", &format!("- image: {}\n", image()))).unwrap();
}

/// `kpt fn render` of `pkg` with `image:` in its Kptfile, twice, and with `exec:` and
/// --allow-exec: the same files byte for byte but that one Kptfile line.
fn render_both_ways(pkg: &str, tweak: impl Fn(&Path) + Copy) -> Route {
    let (_a, by_image) = copy(pkg, |p| {
        tweak(p);
        image_pipeline(p);
    });
    let (_b, by_exec) = copy(pkg, tweak);
    let render = |p: &Path, allow_exec: bool| {
        let mut args = vec!["fn", "render", p.to_str().unwrap()];
        if allow_exec {
            args.push("--allow-exec");
        }
        route(&args, p)
    };
    let image_run = render(&by_image, false);
    let exec_run = render(&by_exec, true);
    assert_eq!(
        image_run.ok,
        exec_run.ok,
        "{pkg}: image and exec pipelines disagree:\n{}\n---\n{}",
        show(&image_run.out),
        show(&exec_run.out)
    );
    assert_eq!(image_run.results, exec_run.results, "{pkg}: the function's results differ between image and exec");
    let mut files = image_run.files.clone();
    let kptfile = String::from_utf8(files["Kptfile"].clone()).unwrap();
    files.insert("Kptfile".into(), kptfile.replace(&format!("- image: {}\n", image()), "- exec: jax-runtimes\n").into_bytes());
    assert_eq!(files, exec_run.files, "{pkg}: the `image:` pipeline wrote other files than the `exec:` pipeline");
    if image_run.ok {
        let again = render(&by_image, false);
        assert!(again.ok, "{pkg}: second render failed:\n{}", show(&again.out));
        assert_eq!(again.files, image_run.files, "{pkg}: the second render of the `image:` pipeline changed files");
    }
    image_run
}

#[test]
fn kpt_fn_render_of_an_image_pipeline_writes_what_the_exec_pipeline_writes() {
    let rest = render_both_ways("functions/kpt/example", as_is);
    assert!(rest.ok, "{}", show(&rest.out));
    let fresh = render_both_ways("functions/kpt/example", no_runtimes);
    assert_eq!(fresh.files, rest.files, "the image pipeline did not regenerate the example's runtimes");
    let passthrough = render_both_ways("tests/krm/passthrough", as_is);
    assert!(passthrough.ok, "{}", show(&passthrough.out));
    let failed = render_both_ways("functions/kpt/example", bad_entry);
    assert!(!failed.ok && String::from_utf8_lossy(&failed.out.stderr).contains("jax-tpu-bad"), "{}", show(&failed.out));
}

/// What the host sees of a container's process while it waits for its stdin.
struct Observed {
    /// `Uid:` and `Gid:` of /proc/PID/status: real, effective, saved, filesystem ids.
    ids: Vec<String>,
    /// Network interfaces in its network namespace (/proc/PID/net/dev).
    interfaces: Vec<String>,
    /// Mount options of its root filesystem (/proc/PID/mountinfo).
    root_options: Vec<String>,
    /// What it wrote and returned once stdin was closed.
    out: Output,
}

/// `podman run -i --name NAME ARGS IMAGE` with `input` on stdin, sent only after the process has
/// been looked at through /proc.
fn observe(args: &[&str], input: &[u8]) -> Observed {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let name = format!("jax-runtimes-test-{}-{}", std::process::id(), N.fetch_add(1, std::sync::atomic::Ordering::SeqCst));
    let mut child = Command::new(podman())
        .args(["run", "--rm", "-i", "--name", &name])
        .args(args)
        .arg(image())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let pid = loop {
        let out = Command::new(podman()).args(["container", "inspect", "--format", "{{.State.Pid}}", &name]).output().unwrap();
        let pid = String::from_utf8_lossy(&out.stdout).trim().parse::<u32>().unwrap_or(0);
        if pid > 0 {
            break pid;
        }
        if child.try_wait().unwrap().is_some() {
            panic!("container {name} ended before it read its input:\n{}", show(&child.wait_with_output().unwrap()));
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("container {name} did not start within 120 s:\n{}", show(&child.wait_with_output().unwrap()));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let proc = |f: &str| std::fs::read_to_string(format!("/proc/{pid}/{f}")).unwrap_or_else(|e| panic!("/proc/{pid}/{f}: {e}"));
    let status = proc("status");
    let ids = status
        .lines()
        .filter(|l| l.starts_with("Uid:") || l.starts_with("Gid:"))
        .flat_map(|l| l.split_whitespace().skip(1).map(str::to_string).collect::<Vec<_>>())
        .collect();
    let interfaces = proc("net/dev").lines().skip(2).filter_map(|l| l.split(':').next()).map(|i| i.trim().to_string()).collect();
    // mountinfo: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ...; the last `/` mount is the visible one.
    let mountinfo = proc("mountinfo");
    let root_line =
        mountinfo.lines().rfind(|l| l.split_whitespace().nth(4) == Some("/")).unwrap_or_else(|| panic!("no / in mountinfo:\n{mountinfo}"));
    let root_options = root_line.split_whitespace().nth(5).unwrap_or_default().split(',').map(str::to_string).collect();
    {
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input).unwrap();
    }
    Observed { ids, interfaces, root_options, out: child.wait_with_output().unwrap() }
}

/// `kpt fn source` of the example package: the ResourceList kpt hands a function.
fn example_input() -> Vec<u8> {
    let out = kpt(&["fn", "source", "functions/kpt/example"], &root());
    assert!(out.status.success(), "{}", show(&out));
    out.stdout
}

fn exec_output(input: &[u8]) -> Output {
    support::feed(support::cli(&[]), input)
}

#[test]
fn the_container_runs_without_network_on_a_read_only_root_as_nobody() {
    let input = example_input();
    let want = exec_output(&input);
    assert!(want.status.success(), "{}", show(&want));
    // kpt's own flags (internal/fnruntime/container.go, ContainerFn.getCmd) plus a read-only root;
    // and the image's defaults alone, as a Kubernetes pod with readOnlyRootFilesystem runs it.
    let kpt_flags = ["--network", "none", "--user", "nobody", "--security-opt=no-new-privileges", "--read-only"];
    let defaults = ["--network", "none", "--read-only"];
    for args in [&kpt_flags[..], &defaults[..]] {
        let seen = observe(args, &input);
        assert_eq!(seen.ids, vec![NOBODY; 8], "{args:?}: the function does not run as nobody (Uid/Gid of /proc/PID/status)");
        assert_eq!(seen.interfaces, ["lo"], "{args:?}: the container has a network");
        assert!(seen.root_options.iter().any(|o| o == "ro"), "{args:?}: the root filesystem is writable: {:?}", seen.root_options);
        assert!(seen.out.status.success(), "{args:?}: the function failed in the container:\n{}", show(&seen.out));
        assert_eq!(seen.out.stdout, want.stdout, "{args:?}: the container printed another ResourceList than the binary");
        assert_eq!(seen.out.stderr, want.stderr, "{args:?}: the container printed other findings than the binary");
    }
}

#[test]
fn the_image_holds_the_binary_and_the_nobody_entries_only() {
    let config = inspect(image());
    assert_eq!(config["User"], "65534:65534");
    assert_eq!(config["Entrypoint"], serde_json::json!(["/usr/local/bin/jax-runtimes"]));
    assert!(config["Cmd"].is_null() || config["Cmd"] == serde_json::json!([]), "{}", config["Cmd"]);

    // The image's root filesystem as podman stores it (not a container's, which gets /etc/hosts).
    let out = Command::new(podman()).args(["image", "mount", image()]).output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let rootfs = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let files = tree(&rootfs);
    let version = Command::new(rootfs.join("usr/local/bin/jax-runtimes")).arg("--version").output().unwrap();
    let binary = std::fs::metadata(rootfs.join("usr/local/bin/jax-runtimes")).map(|m| {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        (m.uid(), m.permissions().mode() & 0o7777)
    });
    let _ = Command::new(podman()).args(["image", "unmount", image()]).output();
    assert_eq!(binary.ok(), Some((0, 0o755)), "the binary is root's, read-only to the function's user");
    assert_eq!(files.keys().collect::<Vec<_>>(), ["etc/group", "etc/passwd", "usr/local/bin/jax-runtimes"], "no shell, nothing else");
    for f in ["etc/group", "etc/passwd"] {
        assert_eq!(files[f], std::fs::read(root().join("functions/image").join(f)).unwrap(), "{f}");
    }
    let passwd = String::from_utf8_lossy(&files["etc/passwd"]).to_string();
    assert!(passwd.lines().any(|l| l.starts_with(&format!("nobody:x:{NOBODY}:{NOBODY}:"))), "{passwd}");
    // The binary is static (it ran above on the host as it is), and it is the version under test.
    assert!(
        String::from_utf8_lossy(&version.stdout).starts_with(&format!("jax-runtimes {} (", env!("CARGO_PKG_VERSION"))),
        "{}",
        show(&version)
    );
}

#[test]
fn the_argocd_init_container_installs_a_working_binary_from_the_image() {
    // What functions/argocd/repo-server-patch.yaml runs: the same image, its command, its mount.
    let patch = yaml::parse_one(&std::fs::read_to_string(root().join("functions/argocd/repo-server-patch.yaml")).unwrap()).unwrap();
    let init = &patch["spec"]["template"]["spec"]["initContainers"][0];
    let sidecar_image = yaml::parse_one(&std::fs::read_to_string(root().join("functions/argocd/repo-server-cmp-patch.yaml")).unwrap())
        .unwrap()["spec"]["template"]["spec"]["containers"][0]["image"]
        .clone();
    assert_eq!(init["image"], sidecar_image, "the installer is the function image itself");
    let command: Vec<&str> = init["command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert_eq!(command.first(), Some(&"/usr/local/bin/jax-runtimes"));
    let mount = init["volumeMounts"][0]["mountPath"].as_str().unwrap();

    // An emptyDir is writable by everyone; the init container runs as the image's user.
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("custom-tools");
    std::fs::create_dir(&tools).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tools, std::fs::Permissions::from_mode(0o777)).unwrap();
    let volume = format!("{}:{mount}", tools.display());
    let out = Command::new(podman())
        .args(["run", "--rm", "--network", "none", "--read-only", "-v", &volume, "--entrypoint", command[0], image()])
        .args(&command[1..])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let installed = tools.join("jax-runtimes");
    let meta = std::fs::metadata(&installed).unwrap_or_else(|e| panic!("{}: {e}\n{}", installed.display(), show(&out)));
    assert_eq!(meta.permissions().mode() & 0o777, 0o755, "the repo-server runs it as another user");
    // The copy is the function: the same answer as the binary under test.
    let input = example_input();
    let mut child = Command::new(&installed).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let got = child.wait_with_output().unwrap();
    let want = exec_output(&input);
    assert!(got.status.success(), "{}", show(&got));
    assert_eq!(got.stdout, want.stdout);
}

/// The stages of functions/Dockerfile: (FROM line, the instructions after it), comments and
/// continuation lines joined.
fn dockerfile_stages() -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(root().join("functions/Dockerfile")).unwrap();
    let mut stages: Vec<(String, Vec<String>)> = Vec::new();
    let mut pending = String::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        pending.push_str(line.trim_end_matches('\\'));
        if line.ends_with('\\') {
            continue;
        }
        let instruction = std::mem::take(&mut pending);
        if instruction.starts_with("FROM ") {
            stages.push((instruction, Vec::new()));
        } else if let Some((_, steps)) = stages.last_mut() {
            steps.push(instruction);
        }
    }
    stages
}

#[test]
fn the_published_build_and_the_offline_build_end_in_the_same_layout() {
    // build-image.sh builds `--target prebuilt`, users the default (last) stage: both must be the
    // layout stage plus the binary at the same path, and nothing else.
    let stages = dockerfile_stages();
    let prebuilt = stages.iter().find(|(from, _)| from.ends_with(" AS prebuilt")).expect("a `prebuilt` stage");
    let last = stages.last().unwrap();
    for (from, steps) in [prebuilt, last] {
        assert!(from.starts_with("FROM layout"), "{from}: not built on the layout stage");
        assert_eq!(steps.len(), 1, "{from}: more than the binary: {steps:?}");
        assert!(steps[0].starts_with("COPY ") && steps[0].ends_with(" /usr/local/bin/jax-runtimes"), "{from}: {steps:?}");
    }
    assert_eq!(last.1[0], "COPY --from=build /out/jax-runtimes /usr/local/bin/jax-runtimes");
    let layout = stages.iter().find(|(from, _)| from == "FROM scratch AS layout").expect("a `layout` stage on scratch");
    assert!(layout.1.contains(&"USER 65534:65534".to_string()), "{:?}", layout.1);
    let build = stages.iter().find(|(from, _)| from.ends_with(" AS build")).expect("a `build` stage");
    assert!(build.1.iter().any(|s| s.contains("functions/build-static.sh")), "the build stage builds the binary as build-image.sh does");
    let script = std::fs::read_to_string(root().join("functions/build-image.sh")).unwrap();
    assert!(script.contains("--target prebuilt"), "build-image.sh builds another target");
}
