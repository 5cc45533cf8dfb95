//! `jax-runtimes kueue --nodes NODES [--namespace NS]... [PATH...]`: a catalog (or the built-in
//! one) and a cluster's node list -> the Kueue objects of its `JaxRuntimeQueue`s (one queue
//! serving every runtime when it has none) with quotas that are what the cluster's nodes hold:
//! every node (whole TPU slice) of a shape the catalog uses counted once. YAML on stdout, or the
//! files of an owned directory with `-o DIR` (`--check` for CI).

use std::path::PathBuf;

use serde_json::json;

use super::out;
use super::shared::{check_output_dir, read_catalog, sync_dir, FindingsFormat, Gate, Reporter};
use crate::catalog::API_VERSION;
use crate::diag::Diagnostic;
use crate::exit::Exit;
use crate::fit::inventory;
use crate::pipeline;
use crate::read::{Document, Source, Sources};
use crate::rules::fit::KUEUE_RUNTIMES_LEFT_OUT;
use crate::words;
use crate::write::{self, Text};

#[derive(Debug, clap::Args)]
pub struct KueueArgs {
    /// Catalog files or folders, or `-` for stdin. None: the built-in catalog.
    pub paths: Vec<PathBuf>,
    /// The cluster's nodes: what `kubectl get nodes -o yaml` (or `-o json`) prints, a `snapshot`
    /// file, or `-` for stdin. Without it, live mode: the nodes of the cluster of the current
    /// kubeconfig context (`--context`, `--kubeconfig`).
    #[arg(long, value_name = "NODES")]
    pub nodes: Option<PathBuf>,
    #[command(flatten)]
    pub live: super::shared::LiveArgs,
    /// A namespace that gets a LocalQueue (repeatable), instead of the queues' `spec.namespaces`.
    #[arg(long = "namespace", value_name = "NS")]
    pub namespaces: Vec<String>,
    /// Write one file per object (and a kustomization.yaml) into DIR instead of stdout.
    #[arg(short = 'o', long = "output-dir", value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// The JaxCluster of the catalog's fleet the node list is of: its queues (or, without any, one
    /// serving its runtimes). Default: the JaxCluster whose `spec.inventory.nodes` is the
    /// `--nodes` file.
    #[arg(long, value_name = "NAME")]
    pub cluster: Option<String>,
    /// With -o: write nothing; exit 1 and print a diff if DIR is not up to date.
    #[arg(long, requires = "output_dir")]
    pub check: bool,
    /// How to print findings on stderr: text, or one document (and nothing else) for CI: `json`,
    /// `github` (workflow commands), `sarif`, `junit`.
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    pub format: FindingsFormat,
    #[command(flatten)]
    pub gate: Gate,
}

/// The queue a catalog without a `JaxRuntimeQueue` gets: every runtime, in one ClusterQueue.
pub const DEFAULT_QUEUE: &str = "jax-runtimes";

pub fn run(a: &KueueArgs) -> Exit {
    if a.nodes.is_some() && a.live.given() {
        out::error("--kubeconfig, --context and --chunk-size read the cluster (live mode): leave out --nodes, or leave them out");
        return Exit::Usage;
    }
    if a.paths.iter().any(|p| p.as_os_str() == "-") && a.nodes.as_ref().is_some_and(|n| n.as_os_str() == "-") {
        out::error("only one of --nodes and the catalog paths can be `-` (stdin)");
        return Exit::Usage;
    }
    if let Some(dir) = &a.output_dir {
        if let Err(e) = check_output_dir(dir) {
            out::error(&e);
            return Exit::Usage;
        }
    }
    // The node list: the file, or live mode's read of the cluster (one reader for both).
    let (nodes, inventory, live) = match &a.nodes {
        Some(path) => (crate::read::paths(std::slice::from_ref(path)), path.display().to_string(), None),
        None => match crate::live::read(&a.live.target(), "kueue") {
            Ok(read) => {
                let text = serde_json::to_string(&read.list_of(&["Node", "ComputeClass"])).unwrap_or_default();
                let source = std::sync::Arc::new(Source::new(format!("{} nodes", read.origin), Some(text)));
                let note = format!("read from {}: {} ({} list calls)", read.origin, crate::live::counted(&read.counts), read.calls);
                (crate::read::parsed(source), read.origin.clone(), Some((read.findings, note)))
            }
            Err(d) => {
                let mut report = Reporter::gated(a.format, a.gate.clone(), "kueue", Sources::default());
                report.findings(&[*d]);
                return report.finish(Exit::Usage);
            }
        },
    };
    let input = read_catalog(&a.paths);
    let mut sources = nodes.sources.clone();
    sources.extend(&input.sources);
    let mut report = Reporter::gated(a.format, a.gate.clone(), "kueue", sources);
    if let Some((findings, note)) = live {
        report.findings(&findings);
        if crate::diag::has_errors(&findings) {
            return report.finish(Exit::Usage);
        }
        report.note(&note);
    }
    // A node list that cannot be used is a context file the command cannot use: exit 2.
    let node_docs = match nodes.into_result() {
        Ok(docs) => docs,
        Err(diags) => {
            report.findings(&diags);
            return report.finish(Exit::Usage);
        }
    };
    let cluster = match inventory::from_documents(&node_docs, None) {
        Ok((c, notes)) => {
            report.findings(&notes);
            c
        }
        Err(diags) => {
            report.findings(&diags);
            return report.finish(Exit::Usage);
        }
    };
    let docs = match input.into_result() {
        Ok(d) => d,
        Err(diags) => {
            report.findings(&diags);
            return report.finish(Exit::after_read_errors(&diags));
        }
    };
    let has_queue = docs.iter().any(|d| d.value.get("kind").and_then(|k| k.as_str()) == Some(crate::catalog::Kind::Queue.name()));
    // The catalog, with the queue it gets when it has none: one serving every runtime (or the
    // runtimes `names`).
    let with_implicit = |names: Option<Vec<String>>| -> Vec<Document> {
        let mut spec = serde_json::Map::new();
        if !a.namespaces.is_empty() {
            spec.insert("namespaces".into(), json!(a.namespaces));
        }
        if let Some(n) = names {
            spec.insert("runtimes".into(), json!({"names": n}));
        }
        let queue = json!({"apiVersion": API_VERSION, "kind": "JaxRuntimeQueue", "metadata": {"name": DEFAULT_QUEUE}, "spec": spec});
        let mut all = docs.clone();
        all.push(Document::new(Source::named("<kueue>"), 0, queue));
        all
    };
    let (mut generated, mut plan) =
        if has_queue { pipeline::plan_with(&docs, |_| ()) } else { pipeline::plan_with(&with_implicit(None), |_| ()) };
    let mut implicit = !has_queue;
    // A fleet: the cluster the node list is of (`--cluster`, or the JaxCluster whose inventory it
    // is) gets its own queues, or the implicit one serving its runtimes.
    let scope = match crate::fleet::scoped(&generated.clusters, a.cluster.as_deref(), a.nodes.as_deref()) {
        Ok(s) => s.cloned(),
        Err(e) => {
            out::error(&e);
            return report.finish(Exit::Usage);
        }
    };
    if let Some(c) = &scope {
        if c.queues.is_empty() {
            let names: Vec<String> = c.runtimes.iter().map(|(_, n)| n.clone()).collect();
            let (g, p) = pipeline::plan_with(&with_implicit(Some(names)), |_| ());
            (generated, plan) = (g, p);
            implicit = true;
        } else {
            implicit = false;
        }
        let keep: Vec<bool> =
            plan.queues.iter().map(|q| if implicit { q.name == DEFAULT_QUEUE } else { c.queues.contains(&q.name) }).collect();
        let mut k = keep.iter();
        plan.queues.retain(|_| *k.next().unwrap_or(&false));
        let mut k = keep.iter();
        plan.served.retain(|_| *k.next().unwrap_or(&false));
        report.note(&format!(
            "JaxCluster {}: {}",
            c.name,
            if implicit {
                format!("no JaxRuntimeQueue of its own; queue `{DEFAULT_QUEUE}` serves its {}", words::count(c.runtimes.len(), "runtime"))
            } else {
                format!("its queues {}", c.queues.iter().map(|q| format!("`{q}`")).collect::<Vec<_>>().join(", "))
            }
        ));
    } else if !generated.clusters.is_empty() {
        let names: Vec<&str> = generated.clusters.iter().map(|c| c.name.as_str()).collect();
        report.note(&format!(
            "the catalog's JaxClusters ({}) do not list {} as their inventory: every queue is generated; `--cluster NAME` picks one",
            names.join(", "),
            inventory
        ));
    }
    if generated.catalog_objects <= usize::from(!has_queue) {
        let d = pipeline::empty_catalog("kueue --nodes NODES", "uses the built-in catalog");
        report.findings(&[d]);
        return report.finish(Exit::Findings);
    }
    let mut diags = generated.diagnostics.clone();
    report.left_out(generated.left_out);
    if !a.namespaces.is_empty() {
        for q in &mut plan.queues {
            q.namespaces = a.namespaces.clone();
        }
    }
    if !generated.has_errors() {
        if implicit {
            if let Some(d) = leave_out_absent(&mut plan, &cluster) {
                diags.push(d);
            }
        }
        let (objects, found) = pipeline::queue_objects(&plan, Some(&cluster));
        let autoscales = scope.as_ref().is_some_and(|c| c.inventory.as_ref().is_some_and(|(_, autoscaling)| *autoscaling));
        diags.extend(found.into_iter().map(capacity_said).map(|d| {
            if autoscales {
                // Quota counted from the nodes it has now is never what an autoscaled pool needs:
                // Kueue would hold the TrainJob before the autoscaler ever sees a pod.
                d.with_help("the cluster autoscales (its JaxCluster says so): quotas counted from the nodes it has now would keep Kueue from ever admitting the TrainJob that makes it scale up; use the JaxRuntimeQueue's own quotas (`jax-runtimes render`), or add the pool's nodes to the list")
            } else {
                d
            }
        }));
        report.findings(&diags);
        // All or nothing: a refused run writes nothing, on stdout or in DIR.
        if report.refused(&diags) {
            return report.finish(Exit::Findings);
        }
        summary(&plan, &cluster, &report);
        let texts = match objects.iter().map(|q| Text::new(q.source.clone(), q.file_name.clone(), &q.object)).collect::<Result<Vec<_>, _>>()
        {
            Ok(t) => t,
            Err(e) => {
                out::error(&e.to_string());
                return report.finish(Exit::Usage);
            }
        };
        let code = match &a.output_dir {
            None => out::stdout(&write::stream(&texts)),
            Some(dir) => {
                let identity = write::owned::Identity::of(&a.paths, dir);
                match write::files(&texts)
                    .map_err(|e| write::DirError::new(e.to_string()))
                    .and_then(|f| write::fleet::refuse_inside_fleet(dir).and_then(|()| write::owned::plan(dir, &f, &identity)))
                {
                    Ok(p) => {
                        let command = match &a.nodes {
                            Some(n) => format!("kueue --nodes {}", n.display()),
                            None => "kueue".to_string(),
                        };
                        sync_dir(dir, &p, a.check, &command, &a.paths, texts.len(), &mut report)
                    }
                    Err(e) => report.unwritable(dir, &e),
                }
            }
        };
        return report.finish(code);
    }
    report.findings(&diags);
    report.refused(&diags);
    report.finish(Exit::Findings)
}

/// The queue a catalog without a `JaxRuntimeQueue` gets serves only the runtimes the cluster has
/// nodes for: a catalog for several clouds or accelerators is not an error on each cluster. The
/// runtimes left out are named in one warning.
fn leave_out_absent(plan: &mut pipeline::QueuePlan, cluster: &inventory::Cluster) -> Option<Diagnostic> {
    let served = plan.served.first_mut()?;
    let absent = crate::queues::inventory::Holdings::without_nodes(cluster, served);
    if absent.is_empty() {
        return None;
    }
    let names: Vec<String> = absent.iter().map(|&i| format!("`{}`", served[i].name)).collect();
    let mut i = 0;
    served.retain(|_| {
        i += 1;
        !absent.contains(&(i - 1))
    });
    let left = served.len();
    Some(
        Diagnostic::new(
            &KUEUE_RUNTIMES_LEFT_OUT,
            format!(
                "{} not served: the cluster has no node of {} (its queue `{DEFAULT_QUEUE}` serves the other {})",
                words::count(names.len(), "runtime"),
                if names.len() == 1 { "its shape" } else { "their shapes" },
                left
            ),
        )
        .with_help(format!(
            "left out: {}; to queue them on this cluster, add their nodes to the list, or a JaxRuntimeQueue that names them (`spec.runtimes.names`)",
            names.join(", ")
        )),
    )
}

/// A served runtime the cluster's nodes cannot hold: the same finding `validate` gives the
/// objects (its rule and severity: the TrainJob is never admitted), saying that the quota comes
/// from the nodes. An error: nothing is written, and the command exits 1.
fn capacity_said(d: Diagnostic) -> Diagnostic {
    let message = format!("the cluster's nodes do not hold one TrainJob: {}", d.message);
    Diagnostic { message, ..d }
}

/// What was counted, on stderr: per flavor the nodes its quota comes from, and the nodes left out.
fn summary(plan: &pipeline::QueuePlan, cluster: &inventory::Cluster, report: &Reporter) {
    use crate::queues::inventory::Holdings;
    use crate::queues::shape::{covered, shapes};
    for (q, served) in plan.queues.iter().zip(&plan.served) {
        let shapes = shapes(served);
        let h = Holdings::of(cluster, &shapes, served, &covered(served));
        let per: Vec<String> = shapes.iter().map(|s| format!("{} {}", s.name, words::count(h.nodes(&s.name) as usize, "node"))).collect();
        let mut left = Vec::new();
        if h.unused > 0 {
            left.push(format!("{} of no shape the queue serves", words::count(h.unused, "node")));
        }
        if h.partial > 0 {
            left.push(format!("{} of partial TPU slices", words::count(h.partial, "node")));
        }
        let left = if left.is_empty() { String::new() } else { format!("; left out: {}", left.join(", ")) };
        report.note(&format!(
            "ClusterQueue {}: quotas from {} of {}: {}{left}",
            q.cluster_queue,
            words::count(cluster.nodes.len() - h.unused - h.partial, "node"),
            cluster.nodes.len(),
            per.join(", ")
        ));
    }
}
