//! Fleets: the catalog's `JaxCluster`s and which of its runtimes (and queues) each serves. A
//! cluster serves the runtimes of its platform by default; `spec.runtimes` narrows (names,
//! labels) or widens (platforms, `include`). A served runtime is fitted on the cluster's inventory
//! with `fit`'s own code ([`crate::fit::fit`], on empty nodes): one that can never be placed there
//! is an error for that cluster, with fit's reason (a warning when the cluster autoscales). A
//! runtime no cluster serves is a warning. `render -o` writes a folder per cluster from
//! [`Assignment`]s ([`crate::write::fleet::plan`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use crate::catalog::{ClusterRuntimes, JaxCluster};
use crate::diag::{Diagnostic, ObjectRef};
use crate::fit::{self, Cluster};
use crate::read::{self, Document};
use crate::resolve::{Origin, Resolved};
use crate::rules::catalog::{
    CATALOG_CLUSTER, CATALOG_CLUSTER_DOES_NOT_FIT, CATALOG_CLUSTER_QUEUE_UNUSED, CATALOG_CLUSTER_SCALE_UP, CATALOG_CLUSTER_UNSERVED,
};
use crate::trainer::TrainingRuntime;

/// `spec.runtimes.platforms: ["*"]`: every platform.
pub const ANY_PLATFORM: &str = "*";

/// Where a cluster's inventory file is read from: the file system (`render`, `docs`; relative
/// to the folder of the `JaxCluster`'s file), or the items of a kpt package (the KRM function;
/// relative to the folder of the `JaxCluster`'s item in the package).
#[derive(Debug, Clone, Copy)]
pub enum Inventories<'a> {
    Files,
    Items(&'a [Document]),
}

/// A runtime a cluster serves that does not fit its inventory, with fit's reason.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Misfit {
    pub runtime: String,
    pub reason: String,
}

/// One cluster of the fleet and what it gets.
#[derive(Debug, Clone)]
pub struct Assignment {
    pub name: String,
    pub platform: String,
    pub labels: BTreeMap<String, String>,
    pub description: Option<String>,
    /// `JaxCluster/<name>`.
    pub source: ObjectRef,
    /// The served runtimes: (namespace, name), in the catalog's order (sorted by namespace, name).
    pub runtimes: Vec<(Option<String>, String)>,
    /// The `JaxRuntimeQueue`s (by name) whose Kueue objects the cluster gets.
    pub queues: Vec<String>,
    /// The inventory file as the `JaxCluster` names it, and whether the cluster autoscales.
    pub inventory: Option<(String, bool)>,
    /// The inventory file's path as read (beside the file that holds the `JaxCluster`).
    pub inventory_path: Option<String>,
    /// How many nodes the inventory lists.
    pub nodes: usize,
    /// Served runtimes that do not fit the inventory.
    pub misfits: Vec<Misfit>,
}

impl Assignment {
    /// True when the cluster gets the runtime `name` (in `namespace`: a `TrainingRuntime`).
    pub fn serves(&self, namespace: Option<&str>, name: &str) -> bool {
        self.runtimes.iter().any(|(n, r)| n.as_deref() == namespace && r == name)
    }

    /// True when the cluster gets the Kueue objects of one of the `JaxRuntimeQueue`s `queues`.
    pub fn gets_queue<'q>(&self, mut queues: impl Iterator<Item = &'q str>) -> bool {
        queues.any(|q| self.queues.iter().any(|mine| mine == q))
    }
}

struct Entry {
    out: Assignment,
    origin: Origin,
    selection: ClusterRuntimes,
    cluster: Option<Cluster>,
}

/// The clusters of a catalog while its runtimes are generated: [`Fleet::add`] each runtime,
/// then [`Fleet::finish`].
pub struct Fleet {
    entries: Vec<Entry>,
    /// Every runtime name the catalog generates.
    names: BTreeSet<String>,
}

/// `name` joined to the folder of `file`, `.` and `..` resolved by name, `/`-separated.
pub fn beside(file: &str, name: &str) -> String {
    let joined =
        if Path::new(name).is_absolute() { PathBuf::from(name) } else { Path::new(file).parent().unwrap_or(Path::new("")).join(name) };
    let mut parts: Vec<String> = Vec::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if parts.last().is_some_and(|p| p != "..") => {
                parts.pop();
            }
            Component::RootDir => parts.push(String::new()),
            other => parts.push(other.as_os_str().to_string_lossy().to_string()),
        }
    }
    parts.join("/")
}

impl Fleet {
    /// The catalog's clusters, checked: names, platforms, queues, inventories. `queues` are the
    /// names of the catalog's `JaxRuntimeQueue`s.
    pub fn new(clusters: &[(JaxCluster, Origin)], queues: &[&str], inventories: Inventories<'_>, diags: &mut Vec<Diagnostic>) -> Fleet {
        let platforms: Vec<&str> = crate::accelerators::data().platforms.platforms.iter().map(|p| p.name.as_str()).collect();
        let mut entries: Vec<Entry> = Vec::new();
        for (c, origin) in clusters {
            let bad = |field: &str, message: String, help: &str| {
                origin.locate(Diagnostic::finding(&CATALOG_CLUSTER, field, message).with_help(help.to_string()))
            };
            let name = c.metadata.name.clone();
            let mut ok = true;
            if let Err(e) = crate::k8s::names::dns1123_label(&name) {
                diags.push(bad(
                    "metadata.name",
                    format!("`{name}` is not a valid cluster name: it {e}"),
                    "a cluster's name names its folder `clusters/<name>/`: lowercase letters, digits and `-`, at most 63",
                ));
                ok = false;
            }
            if let Some(first) = entries.iter().find(|e| e.out.name == name) {
                diags.push(bad(
                    "metadata.name",
                    format!("a second cluster named `{name}` (the first: {})", first.out.source),
                    "give each cluster a name of its own",
                ));
                ok = false;
            }
            let platform = c.spec.platform.as_str();
            if !platforms.contains(&platform) {
                let near = crate::spelling::nearest(platform, platforms.iter().copied(), 2)
                    .map(|p| format!("; did you mean `{p}`?"))
                    .unwrap_or_default();
                diags.push(bad(
                    "spec.platform",
                    format!("`{platform}` is not a platform{near}"),
                    &format!("the platforms are {}", platforms.join(", ")),
                ));
                ok = false;
            }
            let mut selection = c.spec.runtimes.clone().unwrap_or_default();
            for (i, p) in selection.platforms.iter().enumerate() {
                if p != ANY_PLATFORM && !platforms.contains(&p.as_str()) {
                    diags.push(bad(
                        &format!("spec.runtimes.platforms[{i}]"),
                        format!("`{p}` is not a platform"),
                        &format!("the platforms are {}, or `*` for any", platforms.join(", ")),
                    ));
                    ok = false;
                }
            }
            if selection.platforms.is_empty() {
                selection.platforms.push(platform.to_string());
            }
            for (i, q) in c.spec.queues.iter().enumerate() {
                if !queues.contains(&q.as_str()) {
                    let near = crate::spelling::nearest(q, queues.iter().copied(), 2)
                        .map(|p| format!("; did you mean `{p}`?"))
                        .unwrap_or_default();
                    diags.push(bad(
                        &format!("spec.queues[{i}]"),
                        format!("the catalog has no JaxRuntimeQueue `{q}`{near}"),
                        "name a `JaxRuntimeQueue` of the catalog by its `metadata.name`",
                    ));
                    ok = false;
                }
            }
            let mut cluster = None;
            let mut nodes = 0;
            if let Some(inv) = &c.spec.inventory {
                match load(origin, &inv.nodes, inventories) {
                    Ok(docs) => match fit::inventory::from_documents(&docs, None) {
                        Ok((found, notes)) => {
                            nodes = found.nodes.len();
                            cluster = Some(found);
                            diags.extend(notes);
                        }
                        Err(errors) => {
                            diags.extend(errors);
                            ok = false;
                        }
                    },
                    Err(d) => {
                        diags.push(d);
                        ok = false;
                    }
                }
            }
            if !ok {
                continue;
            }
            entries.push(Entry {
                out: Assignment {
                    name,
                    platform: platform.to_string(),
                    labels: c.metadata.labels.clone(),
                    description: c.spec.description.clone(),
                    source: origin.object.clone(),
                    runtimes: Vec::new(),
                    queues: c.spec.queues.clone(),
                    inventory: c.spec.inventory.as_ref().map(|i| (i.nodes.clone(), i.autoscaling)),
                    inventory_path: c.spec.inventory.as_ref().map(|i| inventory_path(origin, &i.nodes)),
                    nodes,
                    misfits: Vec::new(),
                },
                origin: origin.clone(),
                selection,
                cluster,
            });
        }
        Fleet { entries, names: BTreeSet::new() }
    }

    /// Assigns one generated runtime to the clusters that serve it, fitting it on their
    /// inventories; a runtime no cluster serves is a warning at its catalog entry.
    pub fn add(&mut self, resolved: &Resolved, runtime: &TrainingRuntime, diags: &mut Vec<Diagnostic>) {
        self.names.insert(resolved.name.clone());
        let mut served = false;
        for e in &mut self.entries {
            if !serves(&e.selection, resolved) {
                continue;
            }
            served = true;
            e.out.runtimes.push((resolved.namespace.clone(), resolved.name.clone()));
            let Some(cluster) = &e.cluster else { continue };
            let Some(verdict) = fit::fit(cluster, &[runtime]).into_iter().next() else { continue };
            // `fit`'s own answer: it fits the nodes, or autoscaling makes them.
            if verdict.outcome.fits_empty || verdict.outcome.provisioned.is_some() {
                continue;
            }
            let reason = verdict.outcome.reason.clone();
            let (file, autoscaling) = e.out.inventory.clone().unwrap_or_default();
            let (rule, message) = if autoscaling {
                (
                    &CATALOG_CLUSTER_SCALE_UP,
                    format!("runtime `{}` does not fit the nodes of `{file}` (the cluster autoscales): {reason}", resolved.name),
                )
            } else {
                (
                    &CATALOG_CLUSTER_DOES_NOT_FIT,
                    format!("runtime `{}` does not fit cluster `{}` (`{file}`): {reason}", resolved.name, e.out.name),
                )
            };
            let mut d = Diagnostic::finding(rule, "spec.inventory.nodes", message);
            d = match verdict.outcome.help {
                Some(h) => d.with_help(h),
                None => d.with_help(rule.fix),
            };
            diags.push(e.origin.locate(d));
            e.out.misfits.push(Misfit { runtime: resolved.name.clone(), reason });
        }
        if !served && !self.entries.is_empty() {
            let d = Diagnostic::new(&CATALOG_CLUSTER_UNSERVED, format!("runtime `{}` is served by no cluster of the fleet", resolved.name))
                .with_help(CATALOG_CLUSTER_UNSERVED.fix);
            let d = resolved.origin.locate(d);
            diags.push(match resolved.origin.name_position() {
                Some(p) => Diagnostic { line: Some(p.line), column: p.column.map(|c| c.0), width: p.column.map(|c| c.1), ..d },
                None => d,
            });
        }
    }

    /// The clusters, in input order, and the findings on names their selections give that the
    /// catalog does not generate, and on queues they name that serve none of their runtimes.
    /// `queues`: each planned `JaxRuntimeQueue`'s name and the runtimes it serves.
    pub fn finish(self, queues: &[(&str, Vec<&str>)], diags: &mut Vec<Diagnostic>) -> Vec<Assignment> {
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let mut out = Vec::new();
        for e in self.entries {
            for (i, q) in e.out.queues.iter().enumerate() {
                let Some((_, served)) = queues.iter().find(|(name, _)| name == q) else { continue };
                if served.iter().any(|r| e.out.runtimes.iter().any(|(_, n)| n == r)) {
                    continue;
                }
                let what = match served.as_slice() {
                    [] => "serves no runtime".to_string(),
                    [one] => format!("serves only `{one}`, which cluster `{}` does not serve", e.out.name),
                    many => format!("serves {}, none of which cluster `{}` serves", words_list(many), e.out.name),
                };
                diags.push(
                    e.origin.locate(
                        Diagnostic::finding(
                            &CATALOG_CLUSTER_QUEUE_UNUSED,
                            format!("spec.queues[{i}]"),
                            format!("queue `{q}` {what}: its Kueue objects would admit none of the cluster's TrainJobs"),
                        )
                        .with_help(CATALOG_CLUSTER_QUEUE_UNUSED.fix),
                    ),
                );
            }
            for (field, list) in [("names", &e.selection.names), ("include", &e.selection.include), ("exclude", &e.selection.exclude)] {
                for (i, n) in list.iter().enumerate() {
                    if self.names.contains(n) {
                        continue;
                    }
                    let near =
                        crate::spelling::nearest(n, names.iter().copied(), 2).map(|p| format!("; did you mean `{p}`?")).unwrap_or_default();
                    diags.push(
                        e.origin.locate(
                            Diagnostic::finding(
                                &CATALOG_CLUSTER,
                                format!("spec.runtimes.{field}[{i}]"),
                                format!("the catalog generates no runtime `{n}`{near}"),
                            )
                            .with_help("name a runtime by the `metadata.name` it is generated with"),
                        ),
                    );
                }
            }
            out.push(e.out);
        }
        out
    }
}

/// `a`, `a` and `b`, `a`, `b` and 3 more: runtime names in a message, in backticks.
fn words_list(names: &[&str]) -> String {
    let Some((last, _)) = names.split_last() else { return String::new() };
    let shown: Vec<String> = names.iter().take(3).map(|n| format!("`{n}`")).collect();
    match (shown.len(), names.len()) {
        (n, total) if total > n => format!("{} and {} more", shown.join(", "), total - n),
        (1, _) => format!("`{last}`"),
        (n, _) => format!("{} and `{last}`", shown[..n - 1].join(", ")),
    }
}

/// True when the cluster's selection takes the runtime.
fn serves(s: &ClusterRuntimes, r: &Resolved) -> bool {
    if s.exclude.contains(&r.name) {
        return false;
    }
    if s.include.contains(&r.name) {
        return true;
    }
    let platform = s.platforms.iter().any(|p| p == ANY_PLATFORM || p == r.platform.as_str());
    platform && (s.names.is_empty() || s.names.contains(&r.name)) && s.match_labels.iter().all(|(k, v)| r.labels.get(k) == Some(v))
}

/// Where a cluster's inventory file is read: `nodes` beside the file that holds the `JaxCluster`.
fn inventory_path(origin: &Origin, nodes: &str) -> String {
    let from = origin.doc.source.name.as_str();
    let within = if from.starts_with('<') || from.starts_with("builtin:") { "" } else { from };
    beside(within, nodes)
}

/// The cluster of a fleet a command is scoped to: the one named (`--cluster NAME`), else the one
/// whose inventory is the node list given (`--nodes FILE`, the same file), else none. An unknown
/// name is an error that lists the clusters.
pub fn scoped<'a>(clusters: &'a [Assignment], name: Option<&str>, nodes: Option<&Path>) -> Result<Option<&'a Assignment>, String> {
    if let Some(n) = name {
        return clusters.iter().find(|c| c.name == n).map(Some).ok_or_else(|| {
            let names: Vec<String> = clusters.iter().map(|c| format!("`{}`", c.name)).collect();
            let mean = crate::spelling::nearest(n, clusters.iter().map(|c| c.name.as_str()), 3)
                .map(|m| format!("; did you mean `{m}`?"))
                .unwrap_or_default();
            format!(
                "--cluster {n}: the catalog has no JaxCluster `{n}` (it has {}){mean}",
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            )
        });
    }
    let Some(nodes) = nodes.and_then(|n| n.canonicalize().ok()) else { return Ok(None) };
    Ok(clusters.iter().find(|c| c.inventory_path.as_ref().and_then(|p| Path::new(p).canonicalize().ok()).is_some_and(|p| p == nodes)))
}

/// The node documents of a cluster's inventory file.
fn load(origin: &Origin, nodes: &str, inventories: Inventories<'_>) -> Result<Vec<Document>, Diagnostic> {
    let path = inventory_path(origin, nodes);
    let missing = |why: String| {
        origin.locate(
            Diagnostic::finding(&CATALOG_CLUSTER, "spec.inventory.nodes", why)
                .with_help("write `kubectl get nodes -o yaml > FILE` for the cluster, and name FILE relative to the folder of this file"),
        )
    };
    match inventories {
        Inventories::Files => {
            read::read_file(Path::new(&path)).map_err(|e| missing(format!("cannot read the inventory `{path}`: {}", e.message)))
        }
        Inventories::Items(items) => {
            let docs = fit::documents_of(items, &path);
            if docs.is_empty() {
                Err(missing(format!("no item of the package comes from the inventory `{path}`")))
            } else {
                Ok(docs)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(yaml: &str) -> crate::pipeline::Generated {
        let source = std::sync::Arc::new(crate::read::Source::new("fleet.yaml", Some(yaml.to_string())));
        crate::pipeline::generate(&crate::read::parse_source(source).unwrap())
    }

    const RUNTIMES: &str = "apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: cpu}
spec: {accelerator: {cpu: {}}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: eks-h100, labels: {tier: big}}
spec: {platform: eks, accelerator: {gpu: {model: h100-80gb, count: 8}}}
---
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntime
metadata: {name: eks-l4}
spec: {platform: eks, accelerator: {gpu: {model: l4, count: 1}}}
";

    fn served(cluster_spec: &str) -> Vec<String> {
        let g = generate(&format!(
            "{RUNTIMES}---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxCluster\nmetadata: {{name: c}}\nspec: {cluster_spec}\n"
        ));
        assert!(!g.has_errors(), "{:?}", g.diagnostics);
        g.clusters[0].runtimes.iter().map(|(_, n)| n.clone()).collect()
    }

    #[test]
    fn a_cluster_serves_its_platform_narrowed_and_widened_by_its_selection() {
        assert_eq!(served("{platform: eks}"), ["eks-h100", "eks-l4"]);
        assert_eq!(served("{platform: eks, runtimes: {matchLabels: {tier: big}}}"), ["eks-h100"]);
        assert_eq!(served("{platform: eks, runtimes: {names: [eks-l4]}}"), ["eks-l4"]);
        assert_eq!(served("{platform: eks, runtimes: {include: [cpu], exclude: [eks-l4]}}"), ["cpu", "eks-h100"]);
        assert_eq!(served("{platform: gke, runtimes: {platforms: ['*']}}"), ["cpu", "eks-h100", "eks-l4"]);
        assert_eq!(served("{platform: gke}"), Vec::<String>::new());
    }

    #[test]
    fn catalogs_without_clusters_have_no_fleet_findings() {
        let g = generate(RUNTIMES);
        assert!(g.clusters.is_empty());
        assert!(g.diagnostics.iter().all(|d| !d.rule.id.starts_with("catalog/cluster")), "{:?}", g.diagnostics);
    }

    #[test]
    fn two_clusters_of_one_name_and_a_bad_name_are_errors() {
        let c = |name: &str| {
            format!("---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxCluster\nmetadata: {{name: {name}}}\nspec: {{platform: eks}}\n")
        };
        let g = generate(&format!("{RUNTIMES}{}{}{}", c("a"), c("a"), c("Not_A_Label")));
        let messages: Vec<&str> = g.diagnostics.iter().filter(|d| d.rule.id == "catalog/cluster").map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].contains("a second cluster named `a`"), "{messages:?}");
        assert!(messages[1].contains("`Not_A_Label` is not a valid cluster name"), "{messages:?}");
        assert!(g.runtimes.is_empty(), "an error renders nothing");
    }

    #[test]
    fn a_queue_that_serves_none_of_a_clusters_runtimes_is_a_warning_at_the_cluster() {
        let queue = "---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeQueue\nmetadata: {name: gpus}\nspec: {runtimes: {names: [eks-h100, eks-l4]}}\n";
        let cluster = |name: &str, spec: &str| {
            format!("---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxCluster\nmetadata: {{name: {name}}}\nspec: {spec}\n")
        };
        let g = generate(&format!(
            "{RUNTIMES}{queue}{}{}",
            cluster("eks-prod", "{platform: eks, queues: [gpus]}"),
            cluster("gke-dev", "{platform: gke, runtimes: {include: [cpu]}, queues: [gpus]}")
        ));
        let found: Vec<(&str, &str)> = g
            .diagnostics
            .iter()
            .filter(|d| d.rule.id == "catalog/cluster-queue-unused")
            .map(|d| (d.field.as_deref().unwrap_or_default(), d.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [(
                "spec.queues[0]",
                "queue `gpus` serves `eks-h100` and `eks-l4`, none of which cluster `gke-dev` serves: its Kueue objects would admit none of the cluster's TrainJobs"
            )]
        );
        let errors: Vec<&str> = g.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.as_str()).collect();
        assert!(errors.is_empty() && !g.runtimes.is_empty(), "a warning: the catalog still renders: {errors:?}");
        assert_eq!(words_list(&["a", "b"]), "`a` and `b`");
        assert_eq!(words_list(&["a", "b", "c", "d", "e"]), "`a`, `b`, `c` and 2 more");
        assert_eq!(words_list(&[]), "");
    }

    #[test]
    fn inventory_paths_are_beside_the_cluster_file() {
        assert_eq!(beside("fleet/clusters.yaml", "nodes/eks.yaml"), "fleet/nodes/eks.yaml");
        assert_eq!(beside("fleet/clusters.yaml", "../nodes/eks.yaml"), "nodes/eks.yaml");
        assert_eq!(beside("clusters.yaml", "./eks.yaml"), "eks.yaml");
        assert_eq!(beside("", "../eks.yaml"), "../eks.yaml");
        assert_eq!(beside("a/b.yaml", "/abs/eks.yaml"), "/abs/eks.yaml");
    }
}
