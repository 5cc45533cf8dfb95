//! `jax-runtimes render`: catalog files (or the built-in catalog) -> runtimes (and the Kueue
//! objects of its `JaxRuntimeQueue`s, after them) as one YAML stream on stdout, or one file per
//! object in a directory this tool owns (`--check` for CI).

use std::path::PathBuf;

use super::out;
use super::shared::{catalog_texts, check_output_dir, sync_dir, FindingsFormat, Gate, Reporter};
use crate::diag::{Diagnostic, ObjectRef};
use crate::exit::Exit;
use crate::pipeline;
use crate::rules::input::INPUT_NOT_A_CATALOG_OBJECT;
use crate::words;
use crate::write::fleet::{From, Shared};
use crate::write::{self, Text};

#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// Catalog files or folders (`*.yaml`, `*.yml`, `*.json`), or `-` for stdin. None: the built-in catalog.
    pub paths: Vec<PathBuf>,
    /// Write one file per runtime (and a kustomization.yaml) into DIR instead of stdout.
    #[arg(short = 'o', long = "output-dir", value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// With -o: write nothing; exit 1 and print a diff if DIR is not up to date.
    #[arg(long, requires = "output_dir")]
    pub check: bool,
    /// Print only what the catalog's `JaxCluster` NAME gets: its runtimes and its queues' Kueue
    /// objects (what `-o DIR` writes for it under `DIR/clusters/NAME/`).
    #[arg(long, value_name = "NAME", conflicts_with = "output_dir")]
    pub cluster: Option<String>,
    /// Run as the kustomize legacy exec plugin on this generator config (functions/kustomize-legacy):
    /// the `JaxRuntimeDefaults` the kustomization in the current folder lists under `generators:` apply.
    #[arg(long, value_name = "CONFIG", conflicts_with_all = ["paths", "output_dir"])]
    pub kustomize_plugin: Option<PathBuf>,
    /// How to print findings on stderr: text, or one document (and nothing else) for CI: `json`,
    /// `github` (workflow commands), `sarif`, `junit`.
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    pub format: FindingsFormat,
    #[command(flatten)]
    pub gate: Gate,
}

pub fn run(a: &RenderArgs) -> Exit {
    if let Some(dir) = &a.output_dir {
        if let Err(e) = check_output_dir(dir) {
            out::error(&e);
            return Exit::Usage;
        }
    }
    // Only the YAML text of each runtime is kept while the rest of the catalog is checked: for
    // stdout in the spool (memory, then a temporary file for a large output), in render order;
    // for a folder with each runtime's file name and what a fleet's folders need.
    let mut spool = write::spool::Spool::default();
    // The (namespace, name) of each runtime in the spool, for `--cluster`.
    let mut spooled: Vec<(Option<String>, String)> = Vec::new();
    let to_stdout = a.output_dir.is_none();
    let keep = |r: pipeline::Runtime| -> (Result<Option<Text>, String>, Option<Shared>) {
        let text = Text::new(r.source().clone(), r.file_name.clone(), &r.object).map_err(|e| e.to_string());
        if to_stdout {
            spooled.push((r.resolved.namespace.clone(), r.resolved.name.clone()));
            return (text.and_then(|t| spool.push(t.yaml).map(|()| None).map_err(|e| e.to_string())), None);
        }
        let shared = Shared {
            object: ObjectRef::of(&r.object),
            file_name: r.file_name.clone(),
            from: From::Runtime(r.resolved.namespace.clone(), r.resolved.name.clone()),
        };
        (text.map(Some), Some(shared))
    };
    // Files are parsed as they are resolved (a large catalog is never held whole as trees); the
    // kustomize plugin's input comes parsed.
    let (mut report, generated) = match &a.kustomize_plugin {
        Some(config) => {
            let input = super::kustomize_plugin::input(config);
            let report = Reporter::gated(a.format, a.gate.clone(), "render", input.sources.clone());
            (report, input.into_result().map(|docs| pipeline::generate_owned(docs, keep)))
        }
        None => {
            let texts = catalog_texts(&a.paths);
            let report = Reporter::gated(a.format, a.gate.clone(), "render", texts.sources.clone());
            (report, pipeline::generate_stream(texts.stream(), keep))
        }
    };
    let generated = match generated {
        Ok(g) => g,
        Err(diags) => {
            report.findings(&diags);
            return report.finish(Exit::after_read_errors(&diags));
        }
    };
    let mut diags = generated.diagnostics.clone();
    report.left_out(generated.left_out);
    // One info per file and kind (a fleet folder's node lists hold many Nodes), at the first.
    let mut groups: Vec<(&str, String, Vec<&crate::read::Document>)> = Vec::new();
    for doc in &generated.ignored {
        let kind = ObjectRef::of(&doc.value).kind;
        match groups.iter_mut().find(|(file, k, _)| *file == doc.source.name.as_str() && *k == kind) {
            Some((_, _, docs)) => docs.push(doc),
            None => groups.push((doc.source.name.as_str(), kind, vec![doc])),
        }
    }
    for (_, kind, docs) in &groups {
        let message = match docs.len() {
            1 => "not a jax-runtimes catalog object; ignored".to_string(),
            n => format!("{n} `{kind}` objects in this file are not jax-runtimes catalog objects; ignored"),
        };
        diags.push(docs[0].locate(Diagnostic::new(&INPUT_NOT_A_CATALOG_OBJECT, message).with_object(ObjectRef::of(&docs[0].value))));
    }
    if generated.catalog_objects == 0 {
        diags.push(pipeline::empty_catalog("render", "renders the built-in catalog"));
    }
    report.findings(&diags);
    if report.refused(&diags) {
        return report.finish(Exit::Findings);
    }
    let runtime_count = generated.runtimes.len();
    let clusters = generated.clusters;
    // `--cluster`: what that cluster gets, no more.
    let scope = match a.cluster.as_deref().map(|name| crate::fleet::scoped(&clusters, Some(name), None)) {
        Some(Ok(Some(c))) => Some(c.clone()),
        Some(Err(e)) => {
            out::error(&e);
            return report.finish(Exit::Usage);
        }
        Some(Ok(None)) | None => None,
    };
    let mut shared: Vec<Shared> = Vec::new();
    for q in &generated.queues {
        let queues = std::iter::once(&q.source).chain(&q.also).map(|s| s.name.clone()).collect();
        shared.push(Shared { object: ObjectRef::of(&q.object), file_name: q.file_name.clone(), from: From::Queues(queues) });
    }
    let queues = generated
        .queues
        .iter()
        .filter(|q| scope.as_ref().is_none_or(|c| c.gets_queue(std::iter::once(&q.source).chain(&q.also).map(|s| s.name.as_str()))))
        .map(|q| Text::new(q.source.clone(), q.file_name.clone(), &q.object).map_err(|e| e.to_string()));
    // Objects beside runtimes (ResourceClaimTemplates): a cluster gets them with their runtime.
    let mut companions = Vec::with_capacity(generated.companions.len());
    for c in &generated.companions {
        let (ns, name) = c.runtime.clone();
        shared.push(Shared { object: ObjectRef::of(&c.object), file_name: c.file_name.clone(), from: From::Runtime(ns, name) });
        if scope.as_ref().is_none_or(|s| s.serves(c.runtime.0.as_deref(), &c.runtime.1)) {
            companions.push(Text::new(c.source.clone(), c.file_name.clone(), &c.object).map_err(|e| e.to_string()));
        }
    }
    let mut texts = Vec::with_capacity(generated.runtimes.len() + generated.queues.len() + companions.len());
    for (t, s) in generated.runtimes {
        shared.extend(s);
        match t {
            Ok(Some(t)) => texts.push(t),
            Ok(None) => {}
            Err(e) => {
                out::error(&e);
                return report.finish(Exit::Usage);
            }
        }
    }
    let companion_count = companions.len();
    for t in companions.into_iter().chain(queues) {
        match t {
            Ok(t) => texts.push(t),
            Err(e) => {
                out::error(&e);
                return report.finish(Exit::Usage);
            }
        }
    }
    let code = match &a.output_dir {
        // The runtimes from the spool (the cluster's, with `--cluster`), then the queues' objects.
        None => {
            if let Some(c) = &scope {
                let queues = texts.len() - companion_count;
                let served = spooled.iter().filter(|(ns, name)| c.serves(ns.as_deref(), name)).count();
                report.note(&format!(
                    "JaxCluster {}: {} of the catalog's {}, {}",
                    c.name,
                    served,
                    words::count(runtime_count, "runtime"),
                    words::count(queues, "Kueue object")
                ));
            }
            let mut serves = spooled.into_iter().map(|(ns, name)| scope.as_ref().is_none_or(|c| c.serves(ns.as_deref(), &name)));
            let runtimes = spool.into_documents().filter(|_| serves.next().unwrap_or(true));
            out::stdout_stream(runtimes.chain(texts.into_iter().map(|t| Ok(t.yaml))))
        }
        Some(dir) => {
            match write::files(&texts)
                .map_err(|e| write::DirError::new(e.to_string()))
                .and_then(|files| write::fleet::plan(dir, &files, &shared, &clusters, &a.paths))
            {
                Ok(plan) => sync_dir(dir, &plan, a.check, "render", &a.paths, runtime_count, &mut report),
                Err(e) => report.unwritable(dir, &e),
            }
        }
    };
    report.finish(code)
}
