//! `jax-runtimes docs`: a catalog -> one Markdown page per runtime (and per `JaxCluster`) and an index, in a directory
//! this tool owns (`--check` for CI).

use std::path::PathBuf;

use super::out;
use super::shared::{check_output_dir, read_catalog, sync_dir, FindingsFormat, Gate, Reporter};
use crate::exit::Exit;
use crate::pipeline;
use crate::write::{self, pages};

/// Arguments of `jax-runtimes docs`.
#[derive(Debug, clap::Args)]
pub struct DocsArgs {
    /// Catalog files or folders (`*.yaml`, `*.yml`, `*.json`), or `-` for stdin. None: the built-in catalog.
    pub paths: Vec<PathBuf>,
    /// Write the pages (one per runtime, and README.md) into DIR.
    #[arg(short = 'o', long = "output-dir", value_name = "DIR", required = true)]
    pub output_dir: PathBuf,
    /// Write nothing; exit 1 and print a diff if DIR is not up to date.
    #[arg(long)]
    pub check: bool,
    /// How to print findings on stderr: text, or one document (and nothing else) for CI: `json`,
    /// `github` (workflow commands), `sarif`, `junit`.
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    pub format: FindingsFormat,
    #[command(flatten)]
    pub gate: Gate,
}

/// `jax-runtimes docs`.
pub fn run(a: &DocsArgs) -> Exit {
    if let Err(e) = check_output_dir(&a.output_dir) {
        out::error(&e);
        return Exit::Usage;
    }
    // The pages name the catalog files: the same however the paths are spelt.
    let paths: Vec<PathBuf> = a.paths.iter().map(|p| write::owned::display_path(p)).collect();
    let input = read_catalog(&paths);
    let mut report = Reporter::gated(a.format, a.gate.clone(), "docs", input.sources.clone());
    let docs = match input.into_result() {
        Ok(d) => d,
        Err(diags) => {
            report.findings(&diags);
            return report.finish(Exit::after_read_errors(&diags));
        }
    };
    // The same gate as `render`: a catalog that does not render is not documented. The pages are
    // made from what the pipeline resolved and rendered.
    let generated = pipeline::generate_with(&docs, |r| (r.resolved, r.runtime));
    let mut diags = generated.diagnostics.clone();
    report.left_out(generated.left_out);
    if generated.catalog_objects == 0 {
        diags.push(pipeline::empty_catalog("docs -o DIR", "documents the built-in catalog"));
    }
    report.findings(&diags);
    if report.refused(&diags) {
        return report.finish(Exit::Findings);
    }
    let dir = &a.output_dir;
    let files = match pages::fleet_pages(generated.runtimes.iter().map(|(r, o)| (r, o)), &generated.clusters) {
        Ok(f) => f,
        Err(e) => {
            out::error(&e.to_string());
            return report.finish(Exit::Usage);
        }
    };
    let code = match write::plan_for(dir, &files, &write::MARKDOWN) {
        Ok(plan) => sync_dir(dir, &plan, a.check, "docs", &a.paths, generated.runtimes.len(), &mut report),
        Err(e) => report.unwritable(dir, &e),
    };
    report.finish(code)
}
