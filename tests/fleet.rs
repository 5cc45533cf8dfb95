//! Fleets: one catalog with `JaxCluster`s renders (`render -o DIR`) to the shared folder
//! `DIR/runtimes/` and one folder per cluster, `DIR/clusters/<name>/`, that `kubectl kustomize`
//! builds into exactly the runtimes and Kueue objects meant for that cluster. The example fleet in
//! functions/fleet/ (GKE TPU, GKE GPU, EKS, AKS) is rendered, built per cluster, and is what the
//! Argo CD ApplicationSet and the Flux Kustomizations point at.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::{run_in, tool, Run};

fn fleet() -> PathBuf {
    support::root().join("functions/fleet")
}

/// A copy of the example fleet (catalog and nodes) in a temporary folder.
fn copy_fleet() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for sub in ["catalog", "nodes"] {
        fs::create_dir_all(tmp.path().join(sub)).unwrap();
        for e in fs::read_dir(fleet().join(sub)).unwrap() {
            let p = e.unwrap().path();
            fs::copy(&p, tmp.path().join(sub).join(p.file_name().unwrap())).unwrap();
        }
    }
    tmp
}

fn edit(path: &Path, from: &str, to: &str) {
    let s = fs::read_to_string(path).unwrap();
    assert!(s.contains(from), "{} holds `{from}`", path.display());
    fs::write(path, s.replacen(from, to, 1)).unwrap();
}

/// `kubectl kustomize DIR`: the (kind, namespace/name) of every object it builds.
fn build(dir: &Path) -> BTreeSet<String> {
    let o = Command::new(tool("kubectl")).arg("kustomize").arg(dir).output().unwrap();
    assert!(o.status.success(), "kubectl kustomize {}: {}", dir.display(), String::from_utf8_lossy(&o.stderr));
    objects(&String::from_utf8(o.stdout).unwrap())
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn render(cwd: &Path, args: &[&str]) -> Run {
    let mut all = vec!["render"];
    all.extend(args);
    run_in(cwd, &all, None)
}

fn expected() -> BTreeMap<&'static str, BTreeSet<String>> {
    let cpu = "ClusterTrainingRuntime jax-cpu-small";
    BTreeMap::from([
        (
            "gke-tpu",
            set(&[
                cpu,
                "ClusterTrainingRuntime jax-tpu-v5e-2x2",
                "ClusterTrainingRuntime jax-tpu-v5e-4x4",
                "ClusterQueue tpu",
                "LocalQueue research/tpu",
                "ResourceFlavor tpu-v5-lite-podslice-2x2",
                "ResourceFlavor tpu-v5-lite-podslice-4x4",
            ]),
        ),
        ("gke-gpu", set(&[cpu, "ClusterTrainingRuntime jax-gpu-gke-h100"])),
        ("eks", set(&[cpu, "ClusterTrainingRuntime jax-gpu-eks-h100"])),
        ("aks", set(&[cpu, "ClusterTrainingRuntime jax-gpu-aks-a100"])),
    ])
}

#[test]
fn four_clusters_render_to_folders_that_kubectl_builds_into_exactly_their_runtimes() {
    let tmp = copy_fleet();
    let r = render(tmp.path(), &["catalog", "-o", "deploy"]);
    assert_eq!(r.code, 0, "{}", r.all());
    // The 4x4 slice is not in gke-tpu's nodes, and the cluster autoscales: a warning with fit's reason.
    assert!(r.stderr.contains("warning[catalog/cluster-scale-up]"), "{}", r.all());
    assert!(r.stderr.contains("jax-tpu-v5e-4x4") && r.stderr.contains("cloud.google.com/gke-tpu-topology=4x4"), "{}", r.all());
    let deploy = tmp.path().join("deploy");
    for (cluster, want) in expected() {
        assert_eq!(build(&deploy.join("clusters").join(cluster)), want, "cluster {cluster}");
    }
    // Each runtime file is written once, in the shared folder; the top folder builds all of it.
    let all = build(&deploy);
    assert_eq!(all.iter().filter(|o| o.starts_with("ClusterTrainingRuntime")).count(), 6, "{all:?}");
    assert_eq!(build(&deploy.join("runtimes")), all);
    let mut clusters: Vec<String> =
        fs::read_dir(deploy.join("clusters")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    clusters.sort();
    assert_eq!(clusters, ["aks", "eks", "gke-gpu", "gke-tpu"]);
    // A second render changes nothing; --check agrees.
    let again = render(tmp.path(), &["catalog", "-o", "deploy"]);
    assert!(again.stderr.contains("(0 created, 0 updated, 0 pruned)"), "{}", again.all());
    let check = render(tmp.path(), &["catalog", "-o", "deploy", "--check"]);
    assert_eq!(check.code, 0, "{}", check.all());
}

#[test]
fn the_committed_example_fleet_is_current() {
    let r = render(&fleet(), &["catalog", "-o", "deploy", "--check"]);
    assert_eq!(r.code, 0, "functions/fleet/deploy is stale: run `jax-runtimes render catalog -o deploy` in functions/fleet\n{}", r.all());
    for (cluster, want) in expected() {
        assert_eq!(build(&fleet().join("deploy/clusters").join(cluster)), want, "cluster {cluster}");
    }
}

#[test]
fn a_runtime_that_does_not_fit_a_cluster_that_does_not_autoscale_is_an_error_with_the_reason() {
    let tmp = copy_fleet();
    edit(&tmp.path().join("catalog/clusters.yaml"), "autoscaling: true", "autoscaling: false");
    let r = render(tmp.path(), &["catalog", "-o", "deploy"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("error[catalog/cluster-does-not-fit]"), "{}", r.all());
    assert!(r.stderr.contains("runtime `jax-tpu-v5e-4x4` does not fit cluster `gke-tpu`"), "{}", r.all());
    assert!(
        r.stderr
            .contains("no node has cloud.google.com/gke-tpu-accelerator=tpu-v5-lite-podslice and cloud.google.com/gke-tpu-topology=4x4"),
        "{}",
        r.all()
    );
    assert!(r.stderr.contains("clusters.yaml:15"), "the finding names the cluster's inventory line:\n{}", r.all());
    assert!(!tmp.path().join("deploy").exists(), "nothing written");
    // Only for that cluster, and only that runtime: the others fit their clusters' nodes.
    assert_eq!(r.stderr.matches("error[catalog/cluster-does-not-fit]").count(), 1, "{}", r.all());
}

#[test]
fn a_runtime_no_cluster_serves_is_a_warning_and_stays_in_the_shared_folder_only() {
    let tmp = copy_fleet();
    let clusters = tmp.path().join("catalog/clusters.yaml");
    edit(
        &clusters,
        "    include: [jax-cpu-small]\n  inventory:\n    nodes: ../nodes/eks.yaml",
        "  inventory:\n    nodes: ../nodes/eks.yaml",
    );
    edit(
        &clusters,
        "    include: [jax-cpu-small]\n  inventory:\n    nodes: ../nodes/aks.yaml",
        "  inventory:\n    nodes: ../nodes/aks.yaml",
    );
    edit(
        &clusters,
        "    include: [jax-cpu-small]\n  inventory:\n    nodes: ../nodes/gke-gpu.yaml",
        "  inventory:\n    nodes: ../nodes/gke-gpu.yaml",
    );
    edit(&clusters, "    include: [jax-cpu-small]          # widens: the CPU smoke test runs everywhere\n", "");
    let r = render(tmp.path(), &["catalog", "-o", "deploy"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stderr.contains("warning[catalog/cluster-unserved]") && r.stderr.contains("runtime `jax-cpu-small` is served by no cluster"),
        "{}",
        r.all()
    );
    let deploy = tmp.path().join("deploy");
    assert!(build(&deploy.join("runtimes")).contains("ClusterTrainingRuntime jax-cpu-small"));
    for c in ["gke-tpu", "gke-gpu", "eks", "aks"] {
        assert!(!build(&deploy.join("clusters").join(c)).contains("ClusterTrainingRuntime jax-cpu-small"), "{c}");
    }
}

#[test]
fn a_removed_cluster_folder_is_pruned_and_check_reports_it_first() {
    let tmp = copy_fleet();
    assert_eq!(render(tmp.path(), &["catalog", "-o", "deploy"]).code, 0);
    let deploy = tmp.path().join("deploy");
    // A user's own manifest in a cluster folder is listed, and survives.
    fs::write(deploy.join("clusters/eks/namespace.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: research\n").unwrap();
    let clusters = tmp.path().join("catalog/clusters.yaml");
    let text = fs::read_to_string(&clusters).unwrap();
    let (keep, _aks) =
        text.split_at(text.find("---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxCluster\nmetadata:\n  name: aks").unwrap());
    fs::write(&clusters, keep).unwrap();
    let check = render(tmp.path(), &["catalog", "-o", "deploy", "--check"]);
    assert_eq!(check.code, 1, "{}", check.all());
    assert!(check.stdout.contains("--- a/deploy/clusters/aks/kustomization.yaml\n+++ /dev/null"), "{}", check.all());
    assert!(check.stdout.contains("+- namespace.yaml"), "the user's manifest is listed:\n{}", check.all());
    let r = render(tmp.path(), &["catalog", "-o", "deploy"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stderr.contains("warning[catalog/cluster-unserved]") && r.stderr.contains("`jax-gpu-aks-a100`"), "{}", r.all());
    assert!(!deploy.join("clusters/aks").exists(), "the folder goes with its kustomization");
    assert!(build(&deploy.join("clusters/eks")).contains("Namespace research"));
    // A folder under clusters/ that is not ours is never pruned.
    fs::create_dir_all(deploy.join("clusters/on-prem")).unwrap();
    fs::write(deploy.join("clusters/on-prem/kustomization.yaml"), "resources: []\n").unwrap();
    assert_eq!(render(tmp.path(), &["catalog", "-o", "deploy"]).code, 0);
    assert!(deploy.join("clusters/on-prem/kustomization.yaml").exists());
}

#[test]
fn bad_clusters_are_errors_that_name_the_field() {
    let tmp = copy_fleet();
    let clusters = tmp.path().join("catalog/clusters.yaml");
    edit(&clusters, "queues: [tpu]", "queues: [tpus]");
    edit(
        &clusters,
        "include: [jax-cpu-small]\n  inventory:\n    nodes: ../nodes/eks.yaml",
        "include: [jax-cpu-smal]\n  inventory:\n    nodes: ../nodes/eks.yaml",
    );
    edit(&clusters, "platform: aks", "platform: azure");
    edit(&clusters, "nodes: ../nodes/gke-gpu.yaml", "nodes: ../nodes/missing.yaml");
    let r = render(tmp.path(), &["catalog", "-o", "deploy"]);
    assert_eq!(r.code, 1, "{}", r.all());
    for want in [
        "`spec.queues[0]`: the catalog has no JaxRuntimeQueue `tpus`; did you mean `tpu`?",
        "`spec.runtimes.include[0]`: the catalog generates no runtime `jax-cpu-smal`; did you mean `jax-cpu-small`?",
        "`spec.platform`",
        "cannot read the inventory",
    ] {
        assert!(r.stderr.contains(want), "missing `{want}`:\n{}", r.all());
    }
    assert!(!tmp.path().join("deploy").exists());
}

#[test]
fn argocd_applicationset_and_flux_kustomizations_point_at_a_folder_per_cluster() {
    let root = support::root();
    let appset = fs::read_to_string(root.join("functions/argocd/applicationset-fleet.yaml")).unwrap();
    let appset: serde_json::Value = jax_runtimes::yaml::parse_stream(&appset).unwrap().remove(0);
    assert_eq!(appset["kind"], "ApplicationSet");
    assert!(appset["spec"]["generators"][0]["clusters"].is_object(), "a cluster generator");
    let path = appset["spec"]["template"]["spec"]["source"]["path"].as_str().unwrap();
    assert!(path.contains("{{name}}"), "{path}");
    let flux_dir = root.join("functions/flux/fleet");
    let mut flux: Vec<String> = fs::read_dir(&flux_dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    flux.sort();
    assert_eq!(flux, ["aks.yaml", "eks.yaml", "gke-gpu.yaml", "gke-tpu.yaml"], "one Flux Kustomization per cluster");
    for (cluster, want) in expected() {
        let dir = root.join(path.replace("{{name}}", cluster));
        assert_eq!(build(&dir), want, "Argo CD's path for {cluster}");
        let k = fs::read_to_string(flux_dir.join(format!("{cluster}.yaml"))).unwrap();
        let k: serde_json::Value = jax_runtimes::yaml::parse_stream(&k).unwrap().remove(0);
        assert_eq!(k["kind"], "Kustomization");
        let p = k["spec"]["path"].as_str().unwrap().trim_start_matches("./");
        assert_eq!(root.join(p), dir, "Flux's path for {cluster}");
    }
}

/// The example fleet as a kpt package: the catalog marked local, a Kptfile running the function.
fn kpt_package() -> tempfile::TempDir {
    let tmp = copy_fleet();
    for f in ["catalog/clusters.yaml", "catalog/runtimes.yaml"] {
        let p = tmp.path().join(f);
        let s = fs::read_to_string(&p).unwrap();
        let s = s
            .replace("\nmetadata:\n", "\nmetadata:\n  annotations: {config.kubernetes.io/local-config: \"true\"}\n")
            .replace("metadata: {name: tpu}", "metadata: {name: tpu, annotations: {config.kubernetes.io/local-config: \"true\"}}");
        fs::write(&p, s).unwrap();
    }
    fs::write(
        tmp.path().join("Kptfile"),
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: fleet\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\npipeline:\n  mutators:\n  - exec: jax-runtimes\n",
    )
    .unwrap();
    tmp
}

fn kpt(pkg: &Path, args: &[&str]) -> std::process::Output {
    let bin_dir = support::bin().parent().unwrap().to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap()))).unwrap();
    Command::new(tool("kpt")).args(args).arg(pkg).env("PATH", path).output().unwrap()
}

fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().to_path_buf(), fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    out
}

#[test]
fn kpt_renders_the_fleet_into_cluster_folders_that_kustomize_builds_and_prunes_a_removed_cluster() {
    let pkg = kpt_package();
    let o = kpt(pkg.path(), &["fn", "render", "--allow-exec"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("jax-tpu-v5e-4x4` does not fit the nodes"), "the autoscaling warning");
    for (cluster, want) in expected() {
        let dir = pkg.path().join("clusters").join(cluster);
        let k = fs::read_to_string(dir.join("kustomization.yaml")).unwrap();
        assert!(k.contains("config.kubernetes.io/local-config: \"true\""), "kpt live apply must skip it:\n{k}");
        assert_eq!(build(&dir), want, "cluster {cluster}");
    }
    // Twice: nothing changes.
    let before = snapshot(pkg.path());
    assert!(kpt(pkg.path(), &["fn", "render", "--allow-exec"]).status.success());
    assert_eq!(snapshot(pkg.path()), before, "a second kpt fn render changes nothing");
    // A cluster removed from the catalog: its folder's kustomization is pruned.
    let clusters = pkg.path().join("catalog/clusters.yaml");
    let text = fs::read_to_string(&clusters).unwrap();
    fs::write(&clusters, &text[..text.find("---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxCluster\nmetadata:\n  annotations: {config.kubernetes.io/local-config: \"true\"}\n  name: aks").unwrap()]).unwrap();
    let o = kpt(pkg.path(), &["fn", "render", "--allow-exec"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!pkg.path().join("clusters/aks/kustomization.yaml").exists());
    assert!(pkg.path().join("clusters/eks/kustomization.yaml").exists());
}

#[test]
fn the_krm_validator_fits_each_cluster_on_its_own_inventory() {
    let pkg = kpt_package();
    assert!(kpt(pkg.path(), &["fn", "render", "--allow-exec"]).status.success());
    // eks's node now has 4 GPUs allocatable: the 8-GPU runtime does not fit there (and only there).
    edit(&pkg.path().join("nodes/eks.yaml"), "nvidia.com/gpu: \"8\"", "nvidia.com/gpu: \"4\"");
    let config = pkg.path().join("validate.yaml");
    fs::write(&config, "apiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeValidation\nmetadata:\n  name: validate\n  annotations: {config.kubernetes.io/local-config: \"true\"}\nspec: {}\n").unwrap();
    let fc = config.display().to_string();
    let o = kpt(pkg.path(), &["fn", "eval", "--truncate-output=false", "--exec", "jax-runtimes", "--fn-config", &fc]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("[error] trainer.kubeflow.org/v1alpha1/ClusterTrainingRuntime/jax-gpu-eks-h100: on cluster `eks`"), "{err}");
    assert!(err.contains("Insufficient nvidia.com/gpu (4 allocatable, 8 needed)"), "{err}");
    // gke-tpu autoscales: its 4x4 slice is a warning, not an error.
    assert!(err.contains("[warning] trainer.kubeflow.org/v1alpha1/ClusterTrainingRuntime/jax-tpu-v5e-4x4: on cluster `gke-tpu`"), "{err}");
    assert_eq!(err.matches("[error]").count(), 1, "{err}");
}

#[test]
fn docs_writes_a_page_per_cluster_with_its_runtimes_queues_and_what_does_not_fit() {
    let tmp = copy_fleet();
    let r = run_in(tmp.path(), &["docs", "catalog", "-o", "docs"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let docs = tmp.path().join("docs");
    let tpu = fs::read_to_string(docs.join("cluster_gke-tpu.md")).unwrap();
    assert!(tpu.contains("| [jax-tpu-v5e-4x4](jax-tpu-v5e-4x4.md) | no |"), "{tpu}");
    assert!(tpu.contains("| [jax-tpu-v5e-2x2](jax-tpu-v5e-2x2.md) | yes |"), "{tpu}");
    assert!(tpu.contains("The Kueue objects of `tpu`."), "{tpu}");
    assert!(tpu.contains("## Does not fit") && tpu.contains("cloud.google.com/gke-tpu-topology=4x4"), "{tpu}");
    let eks = fs::read_to_string(docs.join("cluster_eks.md")).unwrap();
    assert!(eks.contains("[jax-gpu-eks-h100](jax-gpu-eks-h100.md)") && !eks.contains("jax-gpu-gke-h100"), "{eks}");
    assert!(eks.contains("No `JaxRuntimeQueue`") && !eks.contains("## Does not fit"), "{eks}");
    let index = fs::read_to_string(docs.join("README.md")).unwrap();
    for c in ["gke-tpu", "gke-gpu", "eks", "aks"] {
        assert!(index.contains(&format!("[{c}](cluster_{c}.md)")), "{index}");
    }
    // Pruned with its cluster, like every generated page.
    let clusters = tmp.path().join("catalog/clusters.yaml");
    let text = fs::read_to_string(&clusters).unwrap();
    fs::write(
        &clusters,
        &text[..text.find("---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxCluster\nmetadata:\n  name: aks").unwrap()],
    )
    .unwrap();
    assert_eq!(run_in(tmp.path(), &["docs", "catalog", "-o", "docs"], None).code, 0);
    assert!(!docs.join("cluster_aks.md").exists());
}

/// The user's Namespace manifest, as a file of theirs in a cluster folder.
const NAMESPACE: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: research\n";

#[test]
fn a_catalog_that_loses_its_last_cluster_leaves_the_folder_as_a_fresh_flat_render_would_and_keeps_the_users_files() {
    let tmp = copy_fleet();
    assert_eq!(render(tmp.path(), &["catalog", "-o", "deploy"]).code, 0);
    let deploy = tmp.path().join("deploy");
    fs::write(deploy.join("clusters/eks/namespace.yaml"), NAMESPACE).unwrap();
    fs::remove_file(tmp.path().join("catalog/clusters.yaml")).unwrap();
    let check = render(tmp.path(), &["catalog", "-o", "deploy", "--check"]);
    assert_eq!(check.code, 1, "the fleet's folders are stale:\n{}", check.all());
    assert!(check.stdout.contains("--- a/deploy/runtimes/kustomization.yaml\n+++ /dev/null"), "{}", check.all());
    assert!(check.stdout.contains("--- a/deploy/clusters/gke-tpu/kustomization.yaml\n+++ /dev/null"), "{}", check.all());
    let r = render(tmp.path(), &["catalog", "-o", "deploy"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stderr.contains("warning[output/left-behind]: deploy/clusters/eks/namespace.yaml"), "{}", r.all());
    assert!(r.stderr.contains("jax-runtimes: pruned deploy/clusters/aks/kustomization.yaml"), "{}", r.all());
    // Exactly what a render into an empty folder writes, plus the user's file, which is never deleted.
    assert_eq!(render(tmp.path(), &["catalog", "-o", "fresh"]).code, 0);
    let mut want = snapshot(&tmp.path().join("fresh"));
    want.insert(PathBuf::from("clusters/eks/namespace.yaml"), NAMESPACE.to_string());
    assert_eq!(snapshot(&deploy), want);
    assert!(!deploy.join("runtimes").exists() && !deploy.join("clusters/aks").exists(), "emptied folders go too");
    assert_eq!(render(tmp.path(), &["catalog", "-o", "deploy", "--check"]).code, 0, "and the folder is up to date");
    // Back to a fleet: the flat files are pruned, and the folder is again a fresh fleet render's.
    fs::copy(fleet().join("catalog/clusters.yaml"), tmp.path().join("catalog/clusters.yaml")).unwrap();
    fs::remove_file(deploy.join("clusters/eks/namespace.yaml")).unwrap();
    assert_eq!(render(tmp.path(), &["catalog", "-o", "deploy"]).code, 0);
    assert_eq!(render(tmp.path(), &["catalog", "-o", "fleet"]).code, 0);
    assert_eq!(snapshot(&deploy), snapshot(&tmp.path().join("fleet")));
}

#[test]
fn a_renamed_cluster_gets_a_new_folder_the_old_one_is_pruned_and_the_users_file_there_is_named() {
    let tmp = copy_fleet();
    assert_eq!(render(tmp.path(), &["catalog", "-o", "deploy"]).code, 0);
    let deploy = tmp.path().join("deploy");
    fs::write(deploy.join("clusters/eks/namespace.yaml"), NAMESPACE).unwrap();
    edit(&tmp.path().join("catalog/clusters.yaml"), "  name: eks\n", "  name: eks-prod\n");
    let r = render(tmp.path(), &["catalog", "-o", "deploy"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stderr.contains(
            "warning[output/left-behind]: deploy/clusters/eks/namespace.yaml: a file of yours in the folder of the cluster `eks`"
        ),
        "{}",
        r.all()
    );
    assert_eq!(render(tmp.path(), &["catalog", "-o", "fresh"]).code, 0);
    let mut want = snapshot(&tmp.path().join("fresh"));
    want.insert(PathBuf::from("clusters/eks/namespace.yaml"), NAMESPACE.to_string());
    assert_eq!(snapshot(&deploy), want);
    assert!(build(&deploy.join("clusters/eks-prod")).contains("ClusterTrainingRuntime jax-gpu-eks-h100"));
    // --fail-on warning: the same render is refused, and nothing is written.
    edit(&tmp.path().join("catalog/clusters.yaml"), "  name: eks-prod\n", "  name: eks-west\n");
    fs::write(deploy.join("clusters/eks-prod/namespace.yaml"), NAMESPACE).unwrap();
    let before = snapshot(&deploy);
    let r = render(tmp.path(), &["catalog", "-o", "deploy", "--fail-on", "warning"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert_eq!(snapshot(&deploy), before, "nothing written");
}

#[test]
fn a_render_into_a_fleets_shared_or_cluster_folder_is_refused_with_the_fleets_folder() {
    let tmp = copy_fleet();
    assert_eq!(render(tmp.path(), &["catalog", "-o", "deploy"]).code, 0);
    let deploy = tmp.path().join("deploy");
    let before = snapshot(&deploy);
    for (out, what) in [
        ("deploy/runtimes", "the shared folder"),
        ("./deploy/clusters", "the folder of the cluster folders"),
        ("deploy/clusters/aks", "a cluster folder"),
        ("deploy/clusters/new", "a cluster folder"),
    ] {
        let r = render(tmp.path(), &["catalog", "-o", out]);
        assert_eq!(r.code, 1, "{out}: {}", r.all());
        assert!(r.stderr.contains(&format!("{out}: is {what} of the fleet rendered into deploy")), "{out}: {}", r.all());
        assert!(r.stderr.contains("(`-o deploy`)"), "{}", r.all());
        assert_eq!(snapshot(&deploy), before, "{out}: nothing written");
    }
    let r = run_in(tmp.path(), &["kueue", "--nodes", "nodes/aks.yaml", "--cluster", "aks", "catalog", "-o", "deploy/runtimes"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("deploy/runtimes: is the shared folder of the fleet rendered into deploy"), "{}", r.all());
    assert_eq!(snapshot(&deploy), before);
}

/// The objects of a YAML stream: `Kind name`, `Kind namespace/name`.
fn objects(text: &str) -> BTreeSet<String> {
    jax_runtimes::yaml::parse_stream(text)
        .unwrap()
        .into_iter()
        .filter(|d| !d.is_null())
        .map(|d| {
            let r = jax_runtimes::diag::ObjectRef::of(&d);
            match r.namespace {
                Some(ns) => format!("{} {ns}/{}", r.kind, r.name),
                None => format!("{} {}", r.kind, r.name),
            }
        })
        .collect()
}

#[test]
fn render_cluster_prints_exactly_what_the_clusters_folder_builds() {
    let tmp = copy_fleet();
    assert_eq!(render(tmp.path(), &["catalog", "-o", "deploy"]).code, 0);
    for (cluster, want) in expected() {
        let r = render(tmp.path(), &["catalog", "--cluster", cluster]);
        assert_eq!(r.code, 0, "{}", r.all());
        assert_eq!(objects(&r.stdout), want, "--cluster {cluster}");
        assert_eq!(objects(&r.stdout), build(&tmp.path().join("deploy/clusters").join(cluster)), "--cluster {cluster}");
        assert!(r.stderr.contains(&format!("jax-runtimes: JaxCluster {cluster}: ")), "{}", r.all());
    }
    let r = render(tmp.path(), &["catalog", "--cluster", "ek"]);
    assert_eq!((r.code, r.stdout.as_str()), (2, ""), "{}", r.all());
    assert!(
        r.stderr.contains("--cluster ek: the catalog has no JaxCluster `ek`") && r.stderr.contains("did you mean `eks`?"),
        "{}",
        r.all()
    );
    // A fleet's folder holds every cluster: `-o` takes no `--cluster`.
    assert_eq!(render(tmp.path(), &["catalog", "--cluster", "eks", "-o", "out"]).code, 2);
    assert!(!tmp.path().join("out").exists());
}

#[test]
fn fit_judges_what_the_cluster_of_its_node_list_gets() {
    let tmp = copy_fleet();
    // The node list is eks's inventory: eks's runtimes, not the TPU and other clouds' ones.
    let r = run_in(tmp.path(), &["fit", "--nodes", "nodes/eks.yaml", "catalog", "--format", "json"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let rows: Vec<serde_json::Value> = serde_json::from_str(&r.stdout).unwrap();
    let names: BTreeSet<&str> = rows.iter().map(|v| v["runtime"].as_str().unwrap()).collect();
    assert_eq!(names, BTreeSet::from(["jax-cpu-small", "jax-gpu-eks-h100"]), "{}", r.all());
    assert!(r.stderr.contains("JaxCluster eks: 2 of the catalog's 6 runtimes (its inventory is nodes/eks.yaml"), "{}", r.all());
    // `--cluster` picks another cluster for the same nodes: aks's GPU runtime has no node there.
    let r = run_in(tmp.path(), &["fit", "--nodes", "nodes/eks.yaml", "catalog", "--cluster", "aks"], None);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stdout.lines().any(|l| l.starts_with("jax-gpu-aks-a100 ") && l.contains(" no ")), "{}", r.all());
    assert!(!r.stdout.contains("jax-gpu-eks-h100"), "{}", r.all());
    let r = run_in(tmp.path(), &["fit", "--nodes", "nodes/eks.yaml", "catalog", "--cluster", "nope"], None);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stderr.contains("the catalog has no JaxCluster `nope`"), "{}", r.all());
}
