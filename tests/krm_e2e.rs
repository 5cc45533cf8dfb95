//! End-to-end: the KRM function under the real kpt and kubectl, on the example packages in
//! functions/ and the golden package in tests/krm/. Each kpt case renders twice: the second run
//! must change nothing.
//!
//! kpt and kubectl must be on PATH (the tests fail without them). That each example is a fixed
//! point of its own pipeline is tests/examples.rs's (`UPDATE_GOLDEN=1` rewrites the examples).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use jax_runtimes::yaml;
use serde_json::Value;
use support::{copy_dir, path_with_bin, root, show, text_tree as tree, tool};

fn kpt_render(kpt: &Path, pkg: &Path, results: &Path) -> Output {
    Command::new(kpt)
        .args(["fn", "render", "--allow-exec", "--results-dir"])
        .arg(results)
        .current_dir(pkg)
        .env("PATH", path_with_bin())
        .output()
        .unwrap()
}

/// Renders a copy of `pkg` twice; asserts success and that the second run changed nothing.
fn render_twice(kpt: &Path, pkg: &Path) -> BTreeMap<String, String> {
    let results = tempfile::tempdir().unwrap();
    let out = kpt_render(kpt, pkg, results.path());
    assert!(out.status.success(), "first render failed:\n{}", show(&out));
    let first = tree(pkg);
    let out = kpt_render(kpt, pkg, results.path());
    assert!(out.status.success(), "second render failed:\n{}", show(&out));
    let second = tree(pkg);
    assert_eq!(first, second, "the second render changed files");
    first
}

fn docs(text: &str) -> Vec<Value> {
    yaml::parse_stream(text).unwrap()
}

fn without_annotation(mut v: Value, key: &str) -> Value {
    if let Some(a) = v.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut) {
        a.remove(key);
        if a.is_empty() {
            v["metadata"].as_object_mut().unwrap().remove("annotations");
        }
    }
    v
}

fn runtimes_of(values: Vec<Value>) -> BTreeMap<String, Value> {
    values
        .into_iter()
        .filter(|v| v["kind"] == "ClusterTrainingRuntime" || v["kind"] == "TrainingRuntime")
        .map(|v| (v["metadata"]["name"].as_str().unwrap().to_string(), v))
        .collect()
}

fn cli_render(files: &[PathBuf]) -> BTreeMap<String, Value> {
    let out = support::cli(&["render"]).args(files).output().unwrap();
    assert!(out.status.success(), "jax-runtimes render failed:\n{}", show(&out));
    runtimes_of(docs(&String::from_utf8(out.stdout).unwrap()))
}

#[test]
fn kpt_example_generates_its_runtimes_from_scratch_like_the_cli() {
    let kpt = tool("kpt");
    let example = root().join("functions/kpt/example");
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("example");
    copy_dir(&example, &pkg);
    std::fs::remove_dir_all(pkg.join("runtimes")).unwrap();
    let rendered = render_twice(&kpt, &pkg);
    assert_eq!(tree(&example), rendered);

    // The KRM route and `jax-runtimes render` agree on the same catalog.
    let generated: Vec<Value> = rendered.iter().filter(|(p, _)| p.starts_with("runtimes/")).flat_map(|(_, t)| docs(t)).collect();
    let krm = runtimes_of(generated);
    let cli = cli_render(&[pkg.join("catalog")]);
    assert_eq!(krm.keys().collect::<Vec<_>>(), cli.keys().collect::<Vec<_>>());
    for (name, runtime) in &krm {
        assert_eq!(runtime, &cli[name], "runtime {name} differs between kpt and the CLI");
    }
}

#[test]
fn kpt_render_prunes_runtimes_of_removed_entries_only() {
    let kpt = tool("kpt");
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("example");
    copy_dir(&root().join("functions/kpt/example"), &pkg);
    let before = tree(&pkg);
    // Drop the first document (JaxRuntime jax-cpu-small) of the catalog file.
    let catalog = pkg.join("catalog/runtimes.yaml");
    let text = std::fs::read_to_string(&catalog).unwrap();
    let rest = &text[text.find("\n---\n").unwrap() + 5..];
    std::fs::write(&catalog, rest).unwrap();
    let results = tempfile::tempdir().unwrap();
    let out = kpt_render(&kpt, &pkg, results.path());
    assert!(out.status.success(), "{}", show(&out));
    // The prune is listed: which runtime, from which catalog object.
    let listed = kpt_results(results.path());
    assert_eq!(listed.matches("rule: krm/pruned").count(), 1, "{listed}");
    assert!(listed.contains("name: jax-cpu-small") && listed.contains("generated from JaxRuntime/jax-cpu-small"), "{listed}");
    let after = render_twice(&kpt, &pkg);
    assert!(!after.contains_key("runtimes/clustertrainingruntime_jax-cpu-small.yaml"), "runtime of the removed entry is still there");
    for (path, text) in &before {
        if path != "catalog/runtimes.yaml" && path != "runtimes/clustertrainingruntime_jax-cpu-small.yaml" {
            assert_eq!(after.get(path), Some(text), "{path} changed");
        }
    }
}

/// A folder holding an executable `jax-runtimes` that is the `cat` function (echoes its input):
/// the same Kptfile and commands then run the identity instead of the real function.
fn cat_function() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let cat = dir.path().join("jax-runtimes");
    std::fs::write(&cat, "#!/bin/sh\nexec cat\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cat, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// PATH with `first` in front.
fn path_with(first: &Path) -> std::ffi::OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(first.to_path_buf()).chain(std::env::split_paths(&rest))).unwrap()
}

/// Runs `kpt fn eval --exec jax-runtimes` (or, with `render`, `kpt fn render --allow-exec`) on
/// `pkg` with PATH `path`; asserts success.
fn kpt_run(kpt: &Path, pkg: &Path, path: &std::ffi::OsString, render: bool) {
    let mut cmd = Command::new(kpt);
    if render {
        cmd.args(["fn", "render", "--allow-exec"]).arg(pkg);
    } else {
        cmd.args(["fn", "eval"]).arg(pkg).args(["--exec", "jax-runtimes"]);
    }
    let out = cmd.env("PATH", path).output().unwrap();
    assert!(out.status.success(), "kpt failed:\n{}", show(&out));
}

/// Every hand-written file comes out of `kpt fn eval` and `kpt fn render` byte for byte as a
/// `cat` function leaves it: YAML 1.1 look-alikes unquoted, flow maps, comments, anchors and
/// aliases, merge keys, block scalars, quoting styles, key order. Only the generated runtime is
/// new, and a second run changes nothing.
#[test]
fn kpt_passthrough_is_byte_identical_to_a_cat_function() {
    let kpt = tool("kpt");
    let cat = cat_function();
    for render in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (with_cat, with_us) = (dir.path().join("cat"), dir.path().join("ours"));
        copy_dir(&root().join("tests/krm/passthrough"), &with_cat);
        copy_dir(&root().join("tests/krm/passthrough"), &with_us);
        kpt_run(&kpt, &with_cat, &path_with(cat.path()), render);
        kpt_run(&kpt, &with_us, &path_with_bin(), render);
        let (cat_tree, ours) = (support::tree(&with_cat), support::tree(&with_us));
        for (path, bytes) in &cat_tree {
            let got = ours.get(path).unwrap_or_else(|| panic!("{path} is gone"));
            assert!(
                got == bytes,
                "{path} differs from what a cat function leaves (render: {render}):\n--- cat\n{}\n--- jax-runtimes\n{}",
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(got)
            );
        }
        let new: Vec<&String> = ours.keys().filter(|k| !cat_tree.contains_key(*k)).collect();
        assert_eq!(new, ["runtimes/clustertrainingruntime_jax-cpu.yaml"], "only the runtime is new");
        // The unquoted look-alikes really are there to be lost (the fixture is not trivial).
        let unquoted = String::from_utf8_lossy(&ours["app/unquoted.yaml"]).into_owned();
        for line in ["mode: 0755", "flag: on", "exp: 1e3", "labels: {app: web, tier: \"1\"}", "small: *defaults", "<<: *defaults"] {
            assert!(unquoted.contains(line), "`{line}` is not in:\n{unquoted}");
        }
        let first = ours;
        kpt_run(&kpt, &with_us, &path_with_bin(), render);
        assert!(support::tree(&with_us) == first, "a second run changed files (render: {render})");
    }
}

/// A one-letter typo in a catalog object's kind or apiVersion, in a package that already holds
/// the runtimes it generated: the pipeline fails with an error that names the spelling, and
/// every file is left as it was (nothing is pruned).
#[test]
fn a_misspelt_catalog_object_fails_and_changes_nothing() {
    let kpt = tool("kpt");
    for (from, to, says) in [
        (
            "kind: JaxRuntime\nmetadata:\n  name: jax-cpu-small",
            "kind: JaxRuntme\nmetadata:\n  name: jax-cpu-small",
            "did you mean `JaxRuntime`",
        ),
        (
            "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: jax-cpu-small",
            "apiVersion: jax-runtimes.dev/v1alpha\nkind: JaxRuntime\nmetadata:\n  name: jax-cpu-small",
            "did you mean `jax-runtimes.dev/v1alpha1`",
        ),
    ] {
        for render in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let pkg = dir.path().join("example");
            copy_dir(&root().join("functions/kpt/example"), &pkg);
            assert!(pkg.join("runtimes/clustertrainingruntime_jax-cpu-small.yaml").exists(), "the example holds the generated runtime");
            let catalog = pkg.join("catalog/runtimes.yaml");
            let text = std::fs::read_to_string(&catalog).unwrap();
            assert!(text.contains(from), "the fixture changed: {from}");
            std::fs::write(&catalog, text.replacen(from, to, 1)).unwrap();
            let before = support::tree(&pkg);
            let mut cmd = Command::new(&kpt);
            if render {
                cmd.args(["fn", "render", "--allow-exec"]).arg(&pkg);
            } else {
                cmd.args(["fn", "eval"]).arg(&pkg).args(["--exec", "jax-runtimes"]);
            }
            let out = cmd.env("PATH", path_with_bin()).output().unwrap();
            let all = show(&out);
            assert!(!out.status.success(), "a misspelt catalog object must fail the pipeline:\n{all}");
            assert!(all.contains(says), "the error names the spelling `{says}`:\n{all}");
            assert!(support::tree(&pkg) == before, "files changed after the error (render: {render}):\n{all}");
        }
    }
}

#[test]
fn kpt_passthrough_strings_survive_a_yaml_11_reader() {
    // kubectl's kustomize reads plain `2001-12-14` as a timestamp and `1_000` as a number; the
    // rendered ConfigMap must still give it the original strings.
    let (kpt, kubectl) = (tool("kpt"), tool("kubectl"));
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("passthrough");
    copy_dir(&root().join("tests/krm/passthrough"), &pkg);
    render_twice(&kpt, &pkg);
    let out = Command::new(&kubectl).arg("kustomize").arg(&pkg).output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let built = docs(&String::from_utf8(out.stdout).unwrap());
    let original = docs(&std::fs::read_to_string(root().join("tests/krm/passthrough/app/yaml11.yaml")).unwrap());
    for want in &original {
        let name = &want["metadata"]["name"];
        let got = built.iter().find(|v| v["kind"] == "ConfigMap" && &v["metadata"]["name"] == name).unwrap();
        assert_eq!(got["data"], want["data"], "ConfigMap {name} data changed for a YAML 1.1 reader");
    }
}

#[test]
fn kpt_bad_catalog_entry_fails_the_pipeline_with_a_result() {
    let kpt = tool("kpt");
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("example");
    copy_dir(&root().join("functions/kpt/example"), &pkg);
    let catalog = pkg.join("catalog/runtimes.yaml");
    let mut text = std::fs::read_to_string(&catalog).unwrap();
    text.push_str("---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: jax-tpu-bad\nspec:\n  platform: gke\n  accelerator:\n    tpu: {type: v5e, topology: 3x3}\n");
    std::fs::write(&catalog, &text).unwrap();
    let before = tree(&pkg);
    let results = tempfile::tempdir().unwrap();
    let out = kpt_render(&kpt, &pkg, results.path());
    assert!(!out.status.success(), "render passed with a bad entry:\n{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("[FAIL]"), "{stderr}");
    assert!(stderr.contains("[error] jax-runtimes.dev/v1alpha1/JaxRuntime/jax-tpu-bad"), "kpt does not show the result:\n{stderr}");
    assert_eq!(tree(&pkg), before, "a failed render changed files");

    let results = std::fs::read_to_string(results.path().join("results.yaml")).unwrap();
    let list = yaml::parse_one(&results).unwrap();
    let result = list["items"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["severity"] == "error")
        .unwrap_or_else(|| panic!("no error result:\n{results}"))
        .clone();
    assert_eq!(result["resourceRef"]["kind"], "JaxRuntime");
    assert_eq!(result["resourceRef"]["name"], "jax-tpu-bad");
    assert_eq!(result["file"]["path"], "catalog/runtimes.yaml");
    assert_eq!(result["file"]["index"], 2);
    assert!(result["field"]["path"].as_str().unwrap().starts_with("spec.accelerator.tpu"), "{result}");
}

#[test]
fn kpt_render_refuses_to_overwrite_a_hand_written_runtime() {
    let kpt = tool("kpt");
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("example");
    copy_dir(&root().join("functions/kpt/example"), &pkg);
    std::fs::remove_file(pkg.join("runtimes/clustertrainingruntime_jax-cpu-small.yaml")).unwrap();
    std::fs::write(
        pkg.join("mine.yaml"),
        "# Hand-written, same name as a catalog entry.\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: jax-cpu-small\nspec:\n  mlPolicy: {numNodes: 1}\n",
    )
    .unwrap();
    let before = tree(&pkg);
    let results = tempfile::tempdir().unwrap();
    let out = kpt_render(&kpt, &pkg, results.path());
    assert!(!out.status.success(), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("was not generated by jax-runtimes") && stderr.contains("mine.yaml"), "{stderr}");
    assert_eq!(tree(&pkg), before);
}

#[test]
fn kpt_eval_exec_with_a_config_outside_the_package() {
    let kpt = tool("kpt");
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    copy_dir(&root().join("tests/krm/passthrough/app"), &pkg);
    let config = root().join("tests/krm/passthrough/catalog/cpu.yaml");
    let eval = || {
        Command::new(&kpt)
            .args(["fn", "eval"])
            .arg(&pkg)
            .args(["--exec", "jax-runtimes", "--fn-config"])
            .arg(&config)
            .env("PATH", path_with_bin())
            .output()
            .unwrap()
    };
    let out = eval();
    assert!(out.status.success(), "{}", show(&out));
    let first = tree(&pkg);
    let runtime = docs(&first["runtimes/clustertrainingruntime_jax-cpu.yaml"]);
    assert_eq!(runtime.len(), 1);
    assert_eq!(runtime[0]["metadata"]["annotations"]["jax-runtimes.dev/source"], "JaxRuntime/jax-cpu");
    assert_eq!(runtime[0]["metadata"]["labels"]["app.kubernetes.io/managed-by"], "jax-runtimes");
    let out = eval();
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(tree(&pkg), first, "the second eval changed files");
    assert_eq!(cli_render(&[config]), runtimes_of(runtime));
}

#[test]
fn kubectl_legacy_plugin_matches_cli_render() {
    let kubectl = tool("kubectl");
    let legacy = root().join("functions/kustomize-legacy");
    let out = Command::new(&kubectl)
        .args(["kustomize", "--enable-alpha-plugins"])
        .arg(legacy.join("example"))
        .env("KUSTOMIZE_PLUGIN_HOME", legacy.join("plugin"))
        .env("JAX_RUNTIMES", support::bin())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let built = docs(&String::from_utf8(out.stdout).unwrap());
    let kustomized = runtimes_of(built.clone());
    let cli = cli_render(&[legacy.join("example/defaults.yaml"), legacy.join("example/runtime.yaml"), legacy.join("example/matrix.yaml")]);
    assert!(!cli.is_empty());
    for (name, runtime) in &cli {
        assert_eq!(runtime["metadata"]["labels"]["team"], "ml", "{name}: the defaults did not apply");
    }
    assert_eq!(kustomized, cli, "kubectl kustomize and `jax-runtimes render` disagree");
    // The plain resources of the kustomization are still there, strings intact.
    let cm = built.iter().find(|v| v["kind"] == "ConfigMap").unwrap();
    assert_eq!(cm["data"]["since"], "2001-12-14");
    assert_eq!(cm["data"]["max-steps"], "1_000");
}

#[test]
fn kustomize_generator_input_gives_the_cli_runtimes() {
    // Standalone kustomize is not installed here; feed the function exactly what
    // `kustomize build --enable-alpha-plugins --enable-exec` sends a generator (its config as
    // functionConfig, and again as the only item, marked local-config) and check the answer.
    let example = root().join("functions/kustomize/example");
    let config_text = std::fs::read_to_string(example.join("runtimes.yaml")).unwrap();
    let configs = docs(&config_text);
    assert!(!configs.is_empty());
    let mut all = BTreeMap::new();
    for config in configs {
        let mut item = config.clone();
        item["metadata"]["annotations"]["config.kubernetes.io/local-config"] = Value::from("true");
        let list = serde_json::json!({
            "apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
            "items": [item], "functionConfig": config,
        });
        let out = support::feed(support::cli(&[]), yaml::to_string(&list).unwrap().as_bytes());
        assert!(out.status.success(), "{}", show(&out));
        let answer = yaml::parse_one(&String::from_utf8(out.stdout).unwrap()).unwrap();
        let items = answer["items"].as_array().unwrap().clone();
        // kustomize drops the local-config config item and the path annotations itself.
        let runtimes: Vec<Value> = items
            .into_iter()
            .filter(|v| v.pointer("/metadata/annotations/config.kubernetes.io~1local-config").is_none())
            .map(|v| {
                let mut v = v;
                for k in [
                    "config.kubernetes.io/path",
                    "config.kubernetes.io/index",
                    "internal.config.kubernetes.io/path",
                    "internal.config.kubernetes.io/index",
                ] {
                    v = without_annotation(v, k);
                }
                v
            })
            .collect();
        for r in &runtimes {
            assert!(r.pointer("/metadata/annotations/config.kubernetes.io~1function").is_none(), "function annotation leaked: {r}");
        }
        all.extend(runtimes_of(runtimes));
    }
    // Same catalog through the CLI, without the kustomize function annotation.
    let dir = tempfile::tempdir().unwrap();
    let plain: Vec<Value> = docs(&config_text).into_iter().map(|v| without_annotation(v, "config.kubernetes.io/function")).collect();
    let file = dir.path().join("catalog.yaml");
    std::fs::write(&file, yaml::to_stream(&plain).unwrap()).unwrap();
    assert_eq!(all, cli_render(&[file]));
}

#[test]
fn argocd_cmp_generate_prints_the_cli_runtimes() {
    let argocd = root().join("functions/argocd");
    let cm = yaml::parse_one(&std::fs::read_to_string(argocd.join("cmp-plugin.yaml")).unwrap()).unwrap();
    let plugin = yaml::parse_one(cm["data"]["plugin.yaml"].as_str().unwrap()).unwrap();
    assert_eq!(plugin["kind"], "ConfigManagementPlugin");
    let command: Vec<String> =
        plugin["spec"]["generate"]["command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
    assert_eq!(command[0], "/usr/local/bin/jax-runtimes", "the sidecar image puts the binary there");
    let example = argocd.join("example");
    let out = support::cli(&[]).args(&command[1..]).current_dir(&example).output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    // Argo CD wants only Kubernetes objects on stdout.
    let objects = docs(&String::from_utf8(out.stdout).unwrap());
    assert!(!objects.is_empty());
    for o in &objects {
        assert!(o["apiVersion"].is_string() && o["kind"].is_string() && o["metadata"]["name"].is_string(), "{o}");
    }
    assert_eq!(runtimes_of(objects), cli_render(&[example.join("catalog.yaml")]));
}

#[test]
fn flux_example_is_rendered_and_builds_without_plugins() {
    let flux = root().join("functions/flux/example");
    // What the CI job runs: the committed runtimes match the catalog.
    let out = support::cli(&["render", "catalog", "-o", "deploy/runtimes", "--check"]).current_dir(&flux).output().unwrap();
    assert!(out.status.success(), "functions/flux/example/deploy/runtimes is stale:\n{}", show(&out));
    // What Flux does with it: a plain kustomize build, no plugins.
    let kubectl = tool("kubectl");
    let out = Command::new(&kubectl).arg("kustomize").arg(flux.join("deploy/runtimes")).output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let built = runtimes_of(docs(&String::from_utf8(out.stdout).unwrap()));
    assert_eq!(built, cli_render(&[flux.join("catalog")]));
}

/// `kpt fn eval --fn-config` (functions/kpt/README.md): the config is read together with the
/// package's own catalog objects. Runtimes of entries in either are kept; a runtime the function
/// generated from an entry that is in neither is pruned.
#[test]
fn kpt_eval_with_fn_config_keeps_the_package_catalog_and_prunes_only_entries_seen_nowhere() {
    let kpt = tool("kpt");
    let example = root().join("functions/kpt/example");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("extra.yaml");
    std::fs::write(
        &config,
        "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntime\nmetadata:\n  name: jax-cpu-extra\nspec:\n  accelerator: {cpu: {}}\n  resources: {requests: {cpu: \"2\"}}\n",
    )
    .unwrap();
    let eval = |pkg: &Path| {
        let out = Command::new(&kpt)
            .args(["fn", "eval"])
            .arg(pkg)
            .args(["--exec", "jax-runtimes", "--fn-config"])
            .arg(&config)
            .env("PATH", path_with_bin())
            .output()
            .unwrap();
        assert!(out.status.success(), "kpt fn eval failed:\n{}", show(&out));
        let mut files: Vec<String> =
            std::fs::read_dir(pkg.join("runtimes")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
        files.sort();
        files
    };
    let before: Vec<String> = {
        let mut f: Vec<String> =
            std::fs::read_dir(example.join("runtimes")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
        f.sort();
        f
    };
    assert!(before.len() >= 2, "{before:?}");
    // The catalog stays in the package: its runtimes are kept, the config's is added.
    let with_catalog = dir.path().join("with-catalog");
    copy_dir(&example, &with_catalog);
    let mut want = before.clone();
    want.push("clustertrainingruntime_jax-cpu-extra.yaml".into());
    want.sort();
    assert_eq!(eval(&with_catalog), want);
    // The catalog is gone from the package: only the config's entry is seen, the rest is pruned.
    let without_catalog = dir.path().join("without-catalog");
    copy_dir(&example, &without_catalog);
    std::fs::remove_dir_all(without_catalog.join("catalog")).unwrap();
    assert_eq!(eval(&without_catalog), vec!["clustertrainingruntime_jax-cpu-extra.yaml".to_string()]);
}

/// Argo CD (docs: Config Management Plugins) names a sidecar plugin `<metadata.name>` or, when
/// plugin.yaml sets `spec.version`, `<metadata.name>-<spec.version>`; an Application must ask for
/// exactly that name, or Argo CD finds no plugin and the sync fails.
#[test]
fn argocd_application_names_the_plugin_argo_cd_derives() {
    let argocd = root().join("functions/argocd");
    let cm = yaml::parse_one(&std::fs::read_to_string(argocd.join("cmp-plugin.yaml")).unwrap()).unwrap();
    let plugin = yaml::parse_one(cm["data"]["plugin.yaml"].as_str().unwrap()).unwrap();
    let name = plugin["metadata"]["name"].as_str().unwrap();
    let derived = match plugin["spec"]["version"].as_str() {
        Some(v) if !v.is_empty() => format!("{name}-{v}"),
        _ => name.to_string(),
    };
    let app = yaml::parse_one(&std::fs::read_to_string(argocd.join("application.yaml")).unwrap()).unwrap();
    assert_eq!(app["kind"], "Application");
    assert_eq!(app["spec"]["source"]["plugin"]["name"], derived.as_str(), "the Application asks for a plugin Argo CD does not have");
    let readme = std::fs::read_to_string(argocd.join("README.md")).unwrap();
    assert!(readme.contains(&format!("spec.source.plugin.name: {derived}`")), "functions/argocd/README.md names another plugin");
}

/// `kpt fn eval PKG --exec jax-runtimes ARGS...` with the binary under test on PATH.
fn kpt_eval(pkg: &Path, args: &[&str]) -> Output {
    Command::new(tool("kpt"))
        .args(["fn", "eval"])
        .arg(pkg)
        .args(["--exec", "jax-runtimes"])
        .args(args)
        .env("PATH", path_with_bin())
        .output()
        .unwrap()
}

/// The results kpt wrote to `--results-dir` (`results.yaml`), as text.
fn kpt_results(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("results.yaml")).unwrap_or_default()
}

/// #24: a package whose catalog folder is gone (or filtered out by a selector) must not prune
/// every runtime in silence: kpt fails, no file changes, and the message says how to opt in.
#[test]
fn a_package_without_its_catalog_prunes_nothing_and_fails_through_kpt() {
    let kpt = tool("kpt");
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("example");
    copy_dir(&root().join("functions/kpt/example"), &pkg);
    std::fs::remove_dir_all(pkg.join("catalog")).unwrap();
    let before = tree(&pkg);
    let results = dir.path().join("results");
    let out = kpt_render(&kpt, &pkg, &results);
    assert!(!out.status.success(), "kpt fn render passed without a catalog:\n{}", show(&out));
    assert_eq!(tree(&pkg), before, "files changed although the render failed");
    let said = format!("{}{}", show(&out), kpt_results(&results));
    assert!(said.contains("krm/no-catalog") && said.contains("allow-prune-all"), "{said}");

    // A selector that leaves the catalog out: the same refusal.
    let pkg = dir.path().join("selected");
    copy_dir(&root().join("functions/kpt/example"), &pkg);
    let before = tree(&pkg);
    let out = kpt_eval(&pkg, &["--match-kind", "ClusterTrainingRuntime"]);
    assert!(!out.status.success(), "a selector without the catalog pruned:\n{}", show(&out));
    assert!(show(&out).contains("krm/no-catalog"), "{}", show(&out));
    assert_eq!(tree(&pkg), before);
}

/// The documented opt-in for retiring a catalog: every generated runtime is pruned, and each
/// prune is an info result naming the runtime and its catalog object.
#[test]
fn allow_prune_all_retires_a_catalog_and_lists_every_prune() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("example");
    copy_dir(&root().join("functions/kpt/example"), &pkg);
    std::fs::remove_dir_all(pkg.join("catalog")).unwrap();
    let results = dir.path().join("results");
    let out = kpt_eval(&pkg, &["--results-dir", results.to_str().unwrap(), "--", "allow-prune-all=true"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(!pkg.join("runtimes").exists() || std::fs::read_dir(pkg.join("runtimes")).unwrap().next().is_none(), "runtimes left");
    let results = kpt_results(&results);
    for (runtime, from) in [("jax-cpu-small", "JaxRuntime/jax-cpu-small"), ("jax-tpu-v5e-2x2", "JaxRuntimeMatrix/jax-tpu-v5e")] {
        let line = results.lines().position(|l| l.contains(&format!("name: {runtime}"))).unwrap_or(usize::MAX);
        assert!(line != usize::MAX, "no result for {runtime}:\n{results}");
        assert!(results.contains(&format!("generated from {from}")), "{results}");
    }
    assert_eq!(results.matches("rule: krm/pruned").count(), 3, "{results}");
    // A misspelt option is an error, not a silent no.
    let pkg = dir.path().join("typo");
    copy_dir(&root().join("functions/kpt/example"), &pkg);
    std::fs::remove_dir_all(pkg.join("catalog")).unwrap();
    let out = kpt_eval(&pkg, &["--", "allow-prune-al=true"]);
    assert!(!out.status.success());
    assert!(show(&out).contains("did you mean `allow-prune-all`"), "{}", show(&out));
}

/// #24: `kubectl kustomize` with a `JaxRuntimeDefaults` the kustomization does not hand to the
/// generators (not listed, or under `resources:`) fails naming the file; a matrix generator
/// gets the listed defaults too.
#[test]
fn kubectl_legacy_plugin_never_drops_defaults() {
    let kubectl = tool("kubectl");
    let legacy = root().join("functions/kustomize-legacy");
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("example");
    copy_dir(&legacy.join("example"), &pkg);
    let build = |kustomization: &str| {
        std::fs::write(pkg.join("kustomization.yaml"), kustomization).unwrap();
        Command::new(&kubectl)
            .args(["kustomize", "--enable-alpha-plugins"])
            .arg(&pkg)
            .env("KUSTOMIZE_PLUGIN_HOME", legacy.join("plugin"))
            .env("JAX_RUNTIMES", support::bin())
            .output()
            .unwrap()
    };
    for kustomization in ["generators:\n- matrix.yaml\n", "resources:\n- defaults.yaml\ngenerators:\n- matrix.yaml\n"] {
        let out = build(kustomization);
        assert!(!out.status.success(), "defaults dropped in silence with {kustomization:?}:\n{}", show(&out));
        let said = show(&out);
        assert!(said.contains("krm/defaults-not-listed") && said.contains("defaults.yaml"), "{said}");
    }
    let out = build("generators:\n- defaults.yaml\n- matrix.yaml\n");
    assert!(out.status.success(), "{}", show(&out));
    let built = runtimes_of(docs(&String::from_utf8(out.stdout).unwrap()));
    assert_eq!(built.len(), 2);
    for (name, runtime) in &built {
        assert_eq!(runtime["metadata"]["labels"]["team"], "ml", "{name}: the matrix missed the defaults");
    }
    // A finding in a generator names the user's file, not kustomize's temporary copy.
    let matrix = std::fs::read_to_string(pkg.join("matrix.yaml")).unwrap().replace("platform:", "platfrom:");
    std::fs::write(pkg.join("matrix.yaml"), matrix).unwrap();
    let out = build("generators:\n- defaults.yaml\n- matrix.yaml\n");
    assert!(!out.status.success());
    assert!(show(&out).contains("matrix.yaml:") && show(&out).contains("did you mean `platform`"), "{}", show(&out));
}

/// #24 point 4: one notion of "generated". The files `kpt fn render` wrote (no header, the
/// function's marks) are recognised by `render -o DIR --check`: a package kpt rendered checks
/// clean, and a stale one gets the diff, not "was not generated by jax-runtimes".
#[test]
fn render_check_recognises_the_files_kpt_rendered() {
    let kpt = tool("kpt");
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("example");
    copy_dir(&root().join("functions/kpt/example"), &pkg);
    std::fs::remove_dir_all(pkg.join("runtimes")).unwrap();
    render_twice(&kpt, &pkg);
    let check = || support::cli(&["render", "catalog", "-o", "runtimes", "--check"]).current_dir(&pkg).output().unwrap();
    let out = check();
    assert!(out.status.success(), "a package kpt rendered is not current for render --check:\n{}", show(&out));
    assert!(!pkg.join("runtimes/kustomization.yaml").exists());
    // A catalog edit not rendered yet: stale, with a diff of the runtime.
    let catalog = pkg.join("catalog/runtimes.yaml");
    let text = std::fs::read_to_string(&catalog).unwrap();
    std::fs::write(&catalog, text.replacen("cpu: \"2\"", "cpu: \"3\"", 1)).unwrap();
    let out = check();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("+++ b/runtimes/clustertrainingruntime_"), "{}", show(&out));
    // `render -o` brings it up to date, and kpt then changes nothing: both routes agree.
    let out = support::cli(&["render", "catalog", "-o", "runtimes"]).current_dir(&pkg).output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let written = tree(&pkg);
    let results = tempfile::tempdir().unwrap();
    let out = kpt_render(&kpt, &pkg, results.path());
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(tree(&pkg), written, "kpt changed what render -o wrote: the two routes disagree");
    assert!(check().status.success());
}
