//! The folders of a fleet: a catalog with `JaxCluster`s -> `render -o DIR` writes the shared
//! runtime (and Kueue) files once, in `DIR/runtimes/`, and one folder per cluster,
//! `DIR/clusters/<name>/`, whose generated `kustomization.yaml` builds exactly what that cluster
//! gets. `DIR/kustomization.yaml` builds the whole shared folder.
//!
//! Why `runtimes/` and not `DIR` itself: kustomize refuses a resource file outside the
//! kustomization's folder ("security; file ... is not in or below ...") and a resource folder
//! that contains the kustomization ("cycle detected"). So a cluster's kustomization names the
//! sibling folder `../../runtimes` and removes, with one `$patch: delete` patch each, the objects
//! of the fleet the cluster does not get; its header comment lists the files it gets. This
//! builds with a plain `kubectl kustomize`, Argo CD and Flux, with no load-restrictor option.
//!
//! Ownership is [`super::owned`]'s: every generated kustomization records the catalog (as seen
//! from its folder), a cluster's also the cluster; a cluster folder whose `JaxCluster` is gone is
//! pruned only when its kustomization records this catalog.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::dir::{check_plain, scan, DirError, Plan, HEADER};
use super::owned::{self, classify, FileKind, Identity, KUSTOMIZATION};
use crate::diag::ObjectRef;
use crate::fleet::Assignment;
use crate::keys::{CATALOG, CLUSTER};
use crate::yaml;

/// The fleet's shared folder, under the output folder.
pub const SHARED_DIR: &str = "runtimes";
/// The folder of the cluster folders, under the output folder.
pub const CLUSTERS_DIR: &str = "clusters";

/// An object of the shared folder and what decides which clusters get it.
#[derive(Debug, Clone)]
pub struct Shared {
    pub object: ObjectRef,
    pub file_name: String,
    pub from: From,
}

/// Who generated a shared object.
#[derive(Debug, Clone)]
pub enum From {
    /// A runtime: (namespace, name), as [`Assignment::runtimes`] lists it.
    Runtime(Option<String>, String),
    /// A Kueue object: the `JaxRuntimeQueue`s that generate it.
    Queues(Vec<String>),
}

impl Shared {
    /// True when cluster `a` gets this object.
    pub fn for_cluster(&self, a: &Assignment) -> bool {
        match &self.from {
            From::Runtime(ns, name) => a.serves(ns.as_deref(), name),
            From::Queues(qs) => a.gets_queue(qs.iter().map(String::as_str)),
        }
    }
}

/// A cluster's kustomization, as written to `clusters/<name>/kustomization.yaml`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Kustomization {
    api_version: &'static str,
    kind: &'static str,
    metadata: Meta,
    resources: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    patches: Vec<Patch>,
}

/// The kustomization's metadata: a name and labels in a kpt package (where it is an item), and
/// the records.
#[derive(Debug, Default, Serialize)]
pub struct Meta {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
}

#[derive(Debug, Serialize)]
struct Patch {
    patch: String,
}

/// A strategic-merge patch that removes one object from the build.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Delete<'a> {
    #[serde(rename = "$patch")]
    patch: &'static str,
    api_version: &'a str,
    kind: &'a str,
    metadata: DeleteMeta<'a>,
}

#[derive(Debug, Serialize)]
struct DeleteMeta<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<&'a str>,
}

/// The kustomization of cluster `a`: `resources` (the user's manifests in the folder, then the
/// shared folders, relative to the cluster folder), and a delete patch per shared object the
/// cluster does not get. Also the shared objects it gets, sorted by file name.
pub fn cluster_object<'s>(
    a: &Assignment,
    shared: &'s [Shared],
    resources: Vec<String>,
    metadata: Meta,
) -> Result<(Kustomization, Vec<&'s Shared>), yaml::YamlError> {
    let mut sorted: Vec<&Shared> = shared.iter().collect();
    sorted.sort_by(|x, y| x.file_name.cmp(&y.file_name));
    let (kept, dropped): (Vec<&Shared>, Vec<&Shared>) = sorted.into_iter().partition(|s| s.for_cluster(a));
    let patches = dropped
        .iter()
        .map(|s| {
            let d = Delete {
                patch: "delete",
                api_version: &s.object.api_version,
                kind: &s.object.kind,
                metadata: DeleteMeta { name: &s.object.name, namespace: s.object.namespace.as_deref() },
            };
            yaml::to_string(&d).map(|patch| Patch { patch })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let k = Kustomization { api_version: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", metadata, resources, patches };
    Ok((k, kept))
}

/// The generated `kustomization.yaml` of cluster `a` in a `render -o` folder: [`cluster_object`]
/// over the shared folder `shared_dir` with the records, its header listing the files it gets.
pub fn cluster_kustomization(
    identity: &Identity,
    a: &Assignment,
    shared: &[Shared],
    shared_dir: &str,
    manifests: &[&str],
) -> Result<String, yaml::YamlError> {
    let metadata = Meta {
        annotations: BTreeMap::from([(CATALOG.to_string(), identity.0.clone()), (CLUSTER.to_string(), a.name.clone())]),
        ..Meta::default()
    };
    let resources = manifests.iter().map(|m| m.to_string()).chain([shared_dir.to_string()]).collect();
    let (k, kept) = cluster_object(a, shared, resources, metadata)?;
    let mut out = format!(
        "{HEADER}\n# Cluster `{}` ({}): {} of the fleet's shared files; the patches remove the others.\n",
        a.name,
        a.platform,
        kept.len()
    );
    for s in &kept {
        out.push_str(&format!("#   {shared_dir}/{}\n", s.file_name));
    }
    out.push_str(&yaml::to_string(&k)?);
    Ok(out)
}

/// `plan` with every name under `prefix/`.
fn prefixed(prefix: &str, p: Plan) -> Plan {
    let add = |n: String| format!("{prefix}/{n}");
    Plan {
        create: p.create.into_iter().map(|(n, c)| (add(n), c)).collect(),
        update: p.update.into_iter().map(|(n, c)| (add(n), c)).collect(),
        delete: p.delete.into_iter().map(|(n, c)| (add(n), c)).collect(),
        left: p.left.into_iter().map(add).collect(),
    }
}

fn merge(into: &mut Plan, p: Plan) {
    into.create.extend(p.create);
    into.update.extend(p.update);
    into.delete.extend(p.delete);
    into.left.extend(p.left);
}

/// Refuses an output folder inside a fleet this tool rendered: its shared folder, `clusters/` or
/// a cluster's folder. A render there would nest a second fleet in the first, or prune what the
/// fleet's kustomizations build. The fleet's folder is the one whose generated kustomization
/// lists the shared folder.
pub fn refuse_inside_fleet(dir: &Path) -> Result<(), DirError> {
    let abs = owned::absolute(dir);
    for root in abs.ancestors().skip(1) {
        let Ok(rest) = abs.strip_prefix(root) else { continue };
        let first = rest.components().next().map(|c| c.as_os_str().to_string_lossy().to_string());
        if !matches!(first.as_deref(), Some(SHARED_DIR | CLUSTERS_DIR)) {
            continue;
        }
        let Ok(content) = std::fs::read_to_string(root.join(KUSTOMIZATION)) else { continue };
        if !matches!(classify(KUSTOMIZATION, &content), FileKind::Kustomization(Some(_))) {
            continue;
        }
        let lists_shared = yaml::parse_stream(&content)
            .ok()
            .into_iter()
            .flatten()
            .any(|k| k.get("resources").and_then(|r| r.as_array()).is_some_and(|r| r.iter().any(|x| x.as_str() == Some(SHARED_DIR))));
        if lists_shared {
            let root = owned::display_path(root);
            let what = match (first.as_deref(), rest.components().count()) {
                (Some(SHARED_DIR), _) => "the shared folder",
                (_, 1) => "the folder of the cluster folders",
                _ => "a cluster folder",
            };
            return Err(DirError::conflict(format!(
                "{}: is {what} of the fleet rendered into {}; a render into it would nest a second fleet or prune what the fleet's kustomizations build: render the catalog into {} (`-o {}`), which writes every folder of the fleet",
                dir.display(),
                root.display(),
                root.display(),
                root.display()
            )));
        }
    }
    Ok(())
}

/// Why the file `name` (relative to the output folder, from [`Plan::left`]) is left behind.
pub fn why_left(name: &str) -> String {
    let mut parts = name.split('/');
    match (parts.next(), parts.next()) {
        (Some(CLUSTERS_DIR), Some(cluster)) => format!(
            "a file of yours in the folder of the cluster `{cluster}`, which the catalog no longer has (removed or renamed): it is kept, and no cluster's kustomization builds it any more"
        ),
        _ => "a file of yours in the fleet's shared folder, which a catalog without `JaxCluster`s no longer writes: it is kept, and no kustomization builds it any more".to_string(),
    }
}

/// What the tool wrote in `folder` for this catalog and no longer writes: its generated files
/// and its kustomization when that records the catalog `identity` (and, with `cluster`, names a
/// cluster). The user's files there are left, listed in [`Plan::left`]. Names relative to `folder`.
fn retire(folder: &Path, identity: &Identity, cluster: bool) -> Result<Plan, DirError> {
    let mut plan = Plan::default();
    let existing = scan(folder, &[], |_| true)?;
    let Some(k) = existing.get(KUSTOMIZATION) else { return Ok(plan) };
    let ours = matches!(classify(KUSTOMIZATION, k), FileKind::Kustomization(Some(owner)) if owner == identity.0);
    if !ours || cluster != k.contains(CLUSTER) {
        return Ok(plan);
    }
    for (name, content) in &existing {
        if name == KUSTOMIZATION || classify(name, content) == FileKind::Generated {
            plan.delete.insert(name.clone(), content.clone());
        } else {
            plan.left.insert(name.clone());
        }
    }
    if let Ok(entries) = std::fs::read_dir(folder) {
        for e in entries.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().to_string();
            if !existing.contains_key(&name) {
                plan.left.insert(if e.file_type().is_ok_and(|t| t.is_dir()) { format!("{name}/") } else { name });
            }
        }
    }
    Ok(plan)
}

/// Plans a render into `dir`: a catalog without `JaxCluster`s writes the flat layout
/// ([`owned::plan`]) and retires the folders of a fleet rendered there before; a fleet writes
/// `files` (the shared runtime and Kueue files, name -> content) into `dir/runtimes/`, a
/// kustomization per cluster into `dir/clusters/<name>/`, and `dir/kustomization.yaml` over the
/// shared folder (outside a kpt package), and retires the folders of this catalog's clusters that
/// are gone (removed or renamed). `paths` are the catalog paths (for the folders' records). Names
/// in the plan are relative to `dir`.
pub fn plan(
    dir: &Path,
    files: &BTreeMap<String, String>,
    shared: &[Shared],
    clusters: &[Assignment],
    paths: &[PathBuf],
) -> Result<Plan, DirError> {
    refuse_inside_fleet(dir)?;
    if clusters.is_empty() {
        let mut out = owned::plan(dir, files, &Identity::of(paths, dir))?;
        let shared_dir = dir.join(SHARED_DIR);
        merge(&mut out, prefixed(SHARED_DIR, retire(&shared_dir, &Identity::of(paths, &shared_dir), false)?));
        merge(&mut out, retire_clusters(dir, clusters, paths)?);
        return Ok(out);
    }
    if owned::in_kpt_package(dir) {
        return Err(DirError::new(format!(
            "{}: is in a kpt package, where `render -o` writes no kustomization.yaml, and a fleet's cluster folders need them; run the KRM function instead (`kpt fn render`), which writes them as local-config items, or render outside the package",
            dir.display()
        )));
    }
    let shared_dir = dir.join(SHARED_DIR);
    let mut out = owned::plan_with_folders(dir, &BTreeMap::new(), &[SHARED_DIR], &Identity::of(paths, dir))?;
    merge(&mut out, prefixed(SHARED_DIR, owned::plan(&shared_dir, files, &Identity::of(paths, &shared_dir))?));
    let clusters_dir = dir.join(CLUSTERS_DIR);
    let from_cluster = format!("../../{SHARED_DIR}");
    for a in clusters {
        let folder = clusters_dir.join(&a.name);
        let identity = Identity::of(paths, &folder);
        check_plain(&clusters_dir, &a.name)?;
        let existing = scan(&folder, &[KUSTOMIZATION], |n| n.ends_with(".yaml") || n.ends_with(".yml"))?;
        let kinds: BTreeMap<&str, FileKind> = existing.iter().map(|(n, c)| (n.as_str(), classify(n, c))).collect();
        match kinds.get(KUSTOMIZATION) {
            Some(FileKind::Kustomization(Some(owner))) if *owner != identity.0 => {
                return Err(DirError::conflict(format!(
                    "{}: this cluster folder holds the kustomization of the catalog `{owner}`, not of `{}`; refusing to render a second catalog over it: render each catalog into a folder of its own",
                    folder.display(),
                    identity.0
                )));
            }
            Some(FileKind::Kustomization(_)) | None => {}
            Some(_) => {
                return Err(DirError::conflict(format!(
                    "{}: exists and was not generated by jax-runtimes; refusing to overwrite it: move it away, or render into another directory",
                    folder.join(KUSTOMIZATION).display()
                )));
            }
        }
        let manifests: Vec<&str> = kinds.iter().filter(|(_, k)| **k == FileKind::Manifest).map(|(n, _)| *n).collect();
        let new = cluster_kustomization(&identity, a, shared, &from_cluster, &manifests).map_err(|e| DirError::new(e.to_string()))?;
        let name = format!("{CLUSTERS_DIR}/{}/{KUSTOMIZATION}", a.name);
        match existing.get(KUSTOMIZATION) {
            None => {
                out.create.insert(name, new);
            }
            Some(old) if owned::body(old) != owned::body(&new) => {
                out.update.insert(name, (old.clone(), new));
            }
            Some(_) => {}
        }
    }
    merge(&mut out, retire_clusters(dir, clusters, paths)?);
    Ok(out)
}

/// The folders under `dir/clusters/` of this catalog's clusters that are not in `clusters`.
fn retire_clusters(dir: &Path, clusters: &[Assignment], paths: &[PathBuf]) -> Result<Plan, DirError> {
    let clusters_dir = dir.join(CLUSTERS_DIR);
    let mut out = Plan::default();
    let Ok(entries) = std::fs::read_dir(&clusters_dir) else { return Ok(out) };
    let mut gone: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| !clusters.iter().any(|a| &a.name == n))
        .collect();
    gone.sort();
    for n in gone {
        let folder = clusters_dir.join(&n);
        merge(&mut out, prefixed(&format!("{CLUSTERS_DIR}/{n}"), retire(&folder, &Identity::of(paths, &folder), true)?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assignment(name: &str, runtimes: &[&str], queues: &[&str]) -> Assignment {
        Assignment {
            name: name.to_string(),
            platform: "gke".to_string(),
            labels: BTreeMap::new(),
            description: None,
            source: ObjectRef::new("JaxCluster", name),
            runtimes: runtimes.iter().map(|r| (None, r.to_string())).collect(),
            queues: queues.iter().map(|q| q.to_string()).collect(),
            inventory: None,
            inventory_path: None,
            nodes: 0,
            misfits: Vec::new(),
        }
    }

    fn runtime(name: &str) -> Shared {
        Shared {
            object: ObjectRef {
                api_version: "trainer.kubeflow.org/v1alpha1".into(),
                kind: "ClusterTrainingRuntime".into(),
                name: name.into(),
                namespace: None,
            },
            file_name: format!("clustertrainingruntime_{name}.yaml"),
            from: From::Runtime(None, name.to_string()),
        }
    }

    #[test]
    fn a_cluster_deletes_what_it_does_not_get_and_lists_what_it_gets() {
        let shared = [runtime("a"), runtime("b")];
        let k =
            cluster_kustomization(&Identity("../../cat".into()), &assignment("one", &["a"], &[]), &shared, "../../runtimes", &[]).unwrap();
        assert!(k.contains("#   ../../runtimes/clustertrainingruntime_a.yaml\n"), "{k}");
        assert!(!k.contains("#   ../../runtimes/clustertrainingruntime_b.yaml"), "{k}");
        assert!(k.contains("name: b") && !k.contains("name: a\n"), "{k}");
        assert!(k.contains("$patch: delete"), "{k}");
    }
}
