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
use crate::rules::input::INPUT_EMPTY_CATALOG;
use crate::words;
use crate::write::{self, Text};

#[derive(Debug, clap::Args)]
pub struct KueueArgs {
    /// Catalog files or folders, or `-` for stdin. None: the built-in catalog.
    pub paths: Vec<PathBuf>,
    /// The cluster's nodes: what `kubectl get nodes -o yaml` (or `-o json`) prints, or `-` for stdin.
    #[arg(long, value_name = "NODES")]
    pub nodes: PathBuf,
    /// A namespace that gets a LocalQueue (repeatable), instead of the queues' `spec.namespaces`.
    #[arg(long = "namespace", value_name = "NS")]
    pub namespaces: Vec<String>,
    /// Write one file per object (and a kustomization.yaml) into DIR instead of stdout.
    #[arg(short = 'o', long = "output-dir", value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
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
    if a.paths.iter().any(|p| p.as_os_str() == "-") && a.nodes.as_os_str() == "-" {
        out::error("only one of --nodes and the catalog paths can be `-` (stdin)");
        return Exit::Usage;
    }
    if let Some(dir) = &a.output_dir {
        if let Err(e) = check_output_dir(dir) {
            out::error(&e);
            return Exit::Usage;
        }
    }
    let mut sources = Sources::default();
    let Some(node_docs) = super::fit::read_one(&a.nodes, &mut sources) else { return Exit::Usage };
    let input = read_catalog(&a.paths);
    sources.extend(&input.sources);
    let mut report = Reporter::gated(a.format, a.gate.clone(), "kueue", sources);
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
    let mut docs = match input.into_result() {
        Ok(d) => d,
        Err(diags) => {
            report.findings(&diags);
            return report.finish(Exit::after_read_errors(&diags));
        }
    };
    let has_queue = docs.iter().any(|d| d.value.get("kind").and_then(|k| k.as_str()) == Some(crate::catalog::Kind::Queue.name()));
    if !has_queue {
        let spec = if a.namespaces.is_empty() { json!({}) } else { json!({"namespaces": a.namespaces}) };
        let queue = json!({"apiVersion": API_VERSION, "kind": "JaxRuntimeQueue", "metadata": {"name": DEFAULT_QUEUE}, "spec": spec});
        docs.push(Document::new(Source::named("<kueue>"), 0, queue));
    }
    let (generated, mut plan) = pipeline::plan_with(&docs, |_| ());
    if generated.catalog_objects <= usize::from(!has_queue) {
        let d =
            Diagnostic::new(&INPUT_EMPTY_CATALOG, "the input holds no catalog object (JaxRuntime, JaxRuntimeDefaults or JaxRuntimeMatrix)")
                .with_help("check the paths; `jax-runtimes kueue --nodes NODES` with no path uses the built-in catalog");
        report.findings(&[d]);
        return report.finish(Exit::Findings);
    }
    let mut diags = generated.diagnostics.clone();
    if !a.namespaces.is_empty() {
        for q in &mut plan.queues {
            q.namespaces = a.namespaces.clone();
        }
    }
    if !generated.has_errors() {
        if !has_queue {
            if let Some(d) = leave_out_absent(&mut plan, &cluster) {
                diags.push(d);
            }
        }
        let (objects, found) = pipeline::queue_objects(&plan, Some(&cluster));
        diags.extend(found.into_iter().map(capacity_said));
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
                    .and_then(|f| write::owned::plan(dir, &f, &identity))
                {
                    Ok(p) => {
                        let command = format!("kueue --nodes {}", a.nodes.display());
                        sync_dir(dir, &p, a.check, &command, &a.paths, texts.len(), &mut report)
                    }
                    Err(e) => report.unwritable(dir, &e),
                }
            }
        };
        return report.finish(code);
    }
    report.findings(&diags);
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
