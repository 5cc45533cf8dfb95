//! The command line: arguments (clap) and one function per subcommand. Each subcommand reads,
//! runs the pipeline and writes; exit codes: 0 success, 1 findings (errors in the input or a
//! stale `--check`), 2 usage or I/O problems.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::catalog::Platform;
use crate::diag::{Diagnostic, Severity};
use crate::{accelerators, catalog, pipeline, read, report, write};

pub const EXIT_OK: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_USAGE: i32 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "jax-runtimes",
    version,
    about = "Generate and validate Kubeflow Trainer JAX runtimes for TPU, GPU and CPU clusters",
    long_about = "Generate and validate Kubeflow Trainer JAX runtimes (ClusterTrainingRuntime, TrainingRuntime) \
                  for TPU slices, GPU pools and CPU nodes from a declarative catalog.\n\n\
                  Run with no arguments and a ResourceList on stdin, it acts as a KRM function (kpt, kustomize).",
    after_help = "Examples:\n  jax-runtimes render                     # the built-in catalog, as YAML on stdout\n  jax-runtimes render catalog/ -o runtimes/\n  jax-runtimes accelerators --kind tpu"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render runtimes from catalog files (default: the built-in catalog).
    #[command(
        after_help = "Examples:\n  jax-runtimes render                       # built-in catalog to stdout\n  jax-runtimes render my-catalog/ -o gitops/runtimes\n  jax-runtimes render my-catalog/ -o gitops/runtimes --check   # CI: fail if stale\n  cat entry.yaml | jax-runtimes render -"
    )]
    Render(RenderArgs),
    /// Print the JSON Schema of the catalog kinds (JaxRuntime, JaxRuntimeDefaults, JaxRuntimeMatrix).
    #[command(after_help = "Example:\n  jax-runtimes schema > jax-runtimes.schema.json")]
    Schema,
    /// List the accelerator shapes jax-runtimes knows.
    #[command(
        after_help = "Examples:\n  jax-runtimes accelerators\n  jax-runtimes accelerators --kind tpu --generation v5e\n  jax-runtimes accelerators --kind gpu --platform eks -o json"
    )]
    Accelerators(AcceleratorsArgs),
    /// Write a Markdown reference of every runtime in a catalog: one page per runtime and an index.
    #[command(
        after_help = "Examples:\n  jax-runtimes docs -o docs/runtimes                  # the built-in catalog\n  jax-runtimes docs my-catalog/ -o gitops/docs\n  jax-runtimes docs my-catalog/ -o gitops/docs --check  # CI: fail if stale"
    )]
    Docs(crate::docs::DocsArgs),
    /// Check ClusterTrainingRuntime / TrainingRuntime files: schema (or --crd), CEL, admission, SDK and accelerator rules.
    #[command(
        after_help = "Examples:\n  jax-runtimes validate runtimes/\n  jax-runtimes validate --crd trainer.kubeflow.org_clustertrainingruntimes.yaml runtimes/\n  kubectl get clustertrainingruntimes -o yaml | jax-runtimes validate - --format json\n\nExit codes: 0 no error (warnings allowed), 1 errors found, 2 usage or I/O problem.\nEvery rule: docs/rules.md"
    )]
    Validate(crate::validate::command::ValidateArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Examples:\n  jax-runtimes completions bash > ~/.local/share/bash-completion/completions/jax-runtimes\n  jax-runtimes completions zsh > \"${fpath[1]}/_jax-runtimes\"\n  jax-runtimes completions fish > ~/.config/fish/completions/jax-runtimes.fish"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

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
    /// How to print findings on stderr.
    #[arg(long, value_enum, default_value_t = report::Format::Text)]
    pub format: report::Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    Cpu,
    Gpu,
    Tpu,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    Table,
    Yaml,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct AcceleratorsArgs {
    /// Only this kind.
    #[arg(long, value_enum)]
    pub kind: Option<Kind>,
    /// Only this TPU generation (e.g. v5e) or GPU model (e.g. h100-80gb).
    #[arg(long)]
    pub generation: Option<String>,
    /// Only GPU shapes on this platform.
    #[arg(long, value_enum)]
    pub platform: Option<PlatformArg>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = TableFormat::Table)]
    pub output: TableFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlatformArg {
    Gke,
    Eks,
    Aks,
    Generic,
}

impl From<PlatformArg> for Platform {
    fn from(p: PlatformArg) -> Self {
        match p {
            PlatformArg::Gke => Platform::Gke,
            PlatformArg::Eks => Platform::Eks,
            PlatformArg::Aks => Platform::Aks,
            PlatformArg::Generic => Platform::Generic,
        }
    }
}

/// Parses arguments and runs; returns the exit code.
pub fn main() -> i32 {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() == 1 && !std::io::stdin().is_terminal() {
        return crate::krm::run(std::io::stdin().lock(), std::io::stdout().lock());
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
        }
    };
    match cli.command {
        None => {
            eprintln!("jax-runtimes: no command given; try `jax-runtimes --help`, or pipe a ResourceList to run as a KRM function");
            EXIT_USAGE
        }
        Some(Command::Render(a)) => render(&a),
        Some(Command::Schema) => schema(),
        Some(Command::Accelerators(a)) => accelerators_cmd(&a),
        Some(Command::Docs(a)) => crate::docs::run(&a),
        Some(Command::Validate(a)) => crate::validate::command::run(&a),
        Some(Command::Completions { shell }) => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "jax-runtimes", &mut std::io::stdout());
            EXIT_OK
        }
    }
}

/// Reads catalog documents from paths, or the built-in catalog when none are given.
pub fn read_catalog(paths: &[PathBuf]) -> Result<Vec<read::Document>, Vec<Diagnostic>> {
    if paths.is_empty() {
        read::builtin()
    } else {
        read::paths(paths)
    }
}

fn render(a: &RenderArgs) -> i32 {
    let docs = match read_catalog(&a.paths) {
        Ok(d) => d,
        Err(diags) => {
            report::print(&diags, a.format);
            // Unreadable paths are usage errors; readable but malformed input is a finding.
            return if diags.iter().all(|d| d.rule.starts_with("input/malformed") || d.rule == "input/not-utf8") {
                EXIT_FINDINGS
            } else {
                EXIT_USAGE
            };
        }
    };
    // Only the YAML text of each runtime is kept while the rest of the catalog is checked.
    let generated = pipeline::generate_with(&docs, |r| write::Text::of(&r));
    let mut diags = generated.diagnostics.clone();
    for doc in &generated.ignored {
        diags.push(
            doc.locate(
                Diagnostic::info("input/not-a-catalog-object", "not a jax-runtimes catalog object; ignored")
                    .with_object(crate::diag::ObjectRef::of(&doc.value)),
            ),
        );
    }
    let catalog_count = docs.len() - generated.ignored.len();
    if catalog_count == 0 {
        diags.push(
            Diagnostic::error(
                "input/empty-catalog",
                "the input holds no catalog object (JaxRuntime, JaxRuntimeDefaults or JaxRuntimeMatrix)",
            )
            .with_help("check the paths; `jax-runtimes render` with no path renders the built-in catalog"),
        );
    }
    let failed = diags.iter().any(|d| d.severity == Severity::Error);
    report::print(&diags, a.format);
    if failed {
        eprintln!("jax-runtimes: nothing written: {} error(s)", diags.iter().filter(|d| d.is_error()).count());
        return EXIT_FINDINGS;
    }
    let texts = match generated.runtimes.into_iter().collect::<Result<Vec<_>, _>>() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("jax-runtimes: {e}");
            return EXIT_USAGE;
        }
    };
    match &a.output_dir {
        None => {
            let mut out = std::io::stdout().lock();
            if out.write_all(write::stream(&texts).as_bytes()).and_then(|_| out.flush()).is_err() {
                return EXIT_USAGE;
            }
            EXIT_OK
        }
        Some(dir) => {
            let plan = match write::files(&texts).and_then(|files| write::plan(dir, &files)) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("jax-runtimes: {e}");
                    return EXIT_USAGE;
                }
            };
            sync_dir(dir, &plan, a.check, "render", &a.paths, texts.len())
        }
    }
}

/// Brings `dir` to `plan`'s state, or with `check` only reports (exit 1 and a diff on stdout
/// when stale). Shared by `render -o` and `docs -o`.
pub fn sync_dir(dir: &std::path::Path, plan: &write::Plan, check: bool, command: &str, paths: &[PathBuf], runtimes: usize) -> i32 {
    if check {
        if plan.is_empty() {
            eprintln!("jax-runtimes: {} is up to date ({runtimes} runtimes)", dir.display());
            return EXIT_OK;
        }
        print!("{}", plan.diff(dir));
        eprintln!(
            "jax-runtimes: {} is stale: {} missing, {} changed, {} extra; run `{}`",
            dir.display(),
            plan.create.len(),
            plan.update.len(),
            plan.delete.len(),
            rerun_hint(command, paths, dir)
        );
        return EXIT_FINDINGS;
    }
    if let Err(e) = write::apply(dir, plan) {
        eprintln!("jax-runtimes: {e}");
        return EXIT_USAGE;
    }
    let done = if command == "docs" { "documented {n} runtimes in" } else { "wrote {n} runtimes to" };
    eprintln!(
        "jax-runtimes: {} {} ({} created, {} updated, {} pruned)",
        done.replace("{n}", &runtimes.to_string()),
        dir.display(),
        plan.create.len(),
        plan.update.len(),
        plan.delete.len()
    );
    EXIT_OK
}

/// The command that brings `dir` up to date, for "stale" messages.
pub fn rerun_hint(command: &str, paths: &[PathBuf], dir: &std::path::Path) -> String {
    let mut words = vec!["jax-runtimes".to_string(), command.to_string()];
    words.extend(paths.iter().map(|p| p.display().to_string()));
    words.extend(["-o".to_string(), dir.display().to_string()]);
    words.join(" ")
}

fn schema() -> i32 {
    let s = serde_json::to_string_pretty(&catalog::json_schema()).expect("schema serializes");
    println!("{s}");
    EXIT_OK
}

fn accelerators_cmd(a: &AcceleratorsArgs) -> i32 {
    let rows = match accelerators::table(
        a.kind.map(|k| match k {
            Kind::Cpu => "cpu",
            Kind::Gpu => "gpu",
            Kind::Tpu => "tpu",
        }),
        a.generation.as_deref(),
        a.platform.map(Platform::from),
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("jax-runtimes: {e}");
            return EXIT_USAGE;
        }
    };
    let out = match a.output {
        TableFormat::Json => serde_json::to_string_pretty(&rows).expect("rows serialize") + "\n",
        TableFormat::Yaml => crate::yaml::to_string(&rows).expect("rows serialize"),
        TableFormat::Table => accelerators::format_table(&rows),
    };
    print!("{out}");
    EXIT_OK
}
