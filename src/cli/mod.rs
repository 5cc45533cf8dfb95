//! The command line front door: arguments (clap) and one module per subcommand, each of which
//! reads, runs the stages and writes. Exit codes are [`crate::exit::Exit`]: 0 success, 1 findings
//! (errors in the input or a stale `--check`), 2 usage or I/O problems.

use clap::{Parser, Subcommand};

use crate::exit::Exit;

pub mod accelerators;
pub mod docs;
pub mod doctor;
pub mod fit;
mod fit_queues;
pub mod install;
pub mod kueue;
pub mod kustomize_plugin;
pub mod man;
pub mod out;
pub mod preview;
pub mod render;
pub mod schema;
mod shared;
pub mod snapshot;
pub mod validate;

/// What `--version` prints after the name: the package version, the git commit the binary was
/// built from and `, dirty` when its sources differed from that commit (`unknown` without git;
/// build.rs).
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("JAX_RUNTIMES_COMMIT"), ")");

#[derive(Debug, Parser)]
#[command(
    name = "jax-runtimes",
    version = VERSION,
    about = "Generate and validate Kubeflow Trainer JAX runtimes for TPU, GPU and CPU clusters",
    long_about = "Generate and validate Kubeflow Trainer JAX runtimes (ClusterTrainingRuntime, TrainingRuntime) \
                  for TPU slices, GPU pools and CPU nodes from a declarative catalog.\n\n\
                  Run with no arguments and a ResourceList on stdin, it acts as a KRM function (kpt, kustomize).",
    after_help = "Examples:\n  jax-runtimes render                     # the built-in catalog, as YAML on stdout\n  jax-runtimes render catalog/ -o runtimes/\n  jax-runtimes accelerators --kind tpu"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Color and frames of text findings: `auto` (color on a terminal, unless NO_COLOR is set),
    /// `always`, or `never` (plain ASCII for logs).
    #[arg(long, global = true, value_enum, default_value_t = out::ColorChoice::Auto, value_name = "WHEN")]
    pub color: out::ColorChoice,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render runtimes from catalog files (default: the built-in catalog).
    #[command(
        after_help = "Examples:\n  jax-runtimes render                       # built-in catalog to stdout\n  jax-runtimes render my-catalog/ -o gitops/runtimes\n  jax-runtimes render my-catalog/ -o gitops/runtimes --check   # CI: fail if stale\n  cat entry.yaml | jax-runtimes render -"
    )]
    Render(render::RenderArgs),
    /// Print the JSON Schema of the catalog kinds (JaxRuntime, JaxRuntimeDefaults, JaxRuntimeMatrix,
    /// JaxRuntimeQueue, JaxCluster, JaxRuntimeValidation); with --kubeconform, write every kind's for kubeconform.
    #[command(
        after_help = "Examples:\n  jax-runtimes schema > jax-runtimes.schema.json\n  jax-runtimes schema --kubeconform schemas     # the schema of every kind, for kubeconform:\n  kubeconform -skip Kustomization \\\n    -schema-location 'schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json' runtimes/\n\nGuide: docs/pipelines.md#schemas-for-kubeconform"
    )]
    Schema(schema::SchemaArgs),
    /// List the accelerator shapes jax-runtimes knows.
    #[command(
        after_help = "Examples:\n  jax-runtimes accelerators                       # one row per TPU generation and GPU model\n  jax-runtimes accelerators --type v5e --all      # every v5e slice shape\n  jax-runtimes accelerators --model h100-80gb --platform eks --format json"
    )]
    Accelerators(accelerators::AcceleratorsArgs),
    /// Write a Markdown reference of every runtime in a catalog: one page per runtime and an index.
    #[command(
        after_help = "Examples:\n  jax-runtimes docs -o docs/runtimes                  # the built-in catalog\n  jax-runtimes docs my-catalog/ -o gitops/docs\n  jax-runtimes docs my-catalog/ -o gitops/docs --check  # CI: fail if stale"
    )]
    Docs(docs::DocsArgs),
    /// Check ClusterTrainingRuntime / TrainingRuntime / TrainJob files: schema (or --crd), CEL, admission, SDK, accelerator and Kubernetes rules; TrainJobs against their runtimes.
    #[command(
        after_help = "Examples:\n  jax-runtimes validate runtimes/\n  jax-runtimes validate --crd trainer.kubeflow.org_clustertrainingruntimes.yaml runtimes/\n  kubectl get clustertrainingruntimes -o yaml | jax-runtimes validate - --format json\n  jax-runtimes validate jobs/ --runtimes catalog/     # TrainJobs against the catalog's runtimes\n  jax-runtimes validate --list-rules                  # every rule id, its severity and what it finds\n\nExit codes: 0 no error (warnings allowed), 1 errors found, 2 usage or I/O problem.\nEvery rule, with an example and the fix: docs/rules.md"
    )]
    Validate(validate::ValidateArgs),
    /// Print the pod Kubeflow Trainer will create for a TrainJob's process (a prediction, as YAML).
    #[command(
        after_help = "Examples:\n  jax-runtimes preview job.yaml --runtimes catalog/\n  jax-runtimes preview job.yaml --runtimes runtimes/ --process 3\n  jax-runtimes preview job.yaml --runtimes runtimes/ --trainer-version v2.2\n\nExit codes: 0 printed, 1 the TrainJob has errors (printed when it can be), 2 usage or I/O problem."
    )]
    Preview(preview::PreviewArgs),
    /// Will each runtime's (or TrainJob's) pods be placed on this cluster, or stay Pending? Checks them against its nodes and pods (live, or `kubectl get nodes` and pods files).
    #[command(
        after_help = "Examples:\n  jax-runtimes fit                                                     # the built-in catalog on the current kubeconfig context\n  jax-runtimes fit --context prod my-catalog/\n  kubectl get nodes -o yaml > nodes.yaml\n  kubectl get pods -A -o yaml > pods.yaml\n  jax-runtimes fit --nodes nodes.yaml --pods pods.yaml                 # the same from files\n  jax-runtimes fit --nodes nodes.yaml my-catalog/ --format json\n  jax-runtimes fit --nodes nodes.yaml --runtimes runtimes/ job.yaml    # a TrainJob, as Trainer merges it\n  kubectl get nodes -o json | jax-runtimes fit --nodes - runtimes/\n\nExit codes: 0 every runtime and TrainJob fits now, 1 some does not, 2 bad input.\nGuide: docs/fit.md"
    )]
    Fit(fit::FitArgs),
    /// Kueue objects for the catalog's queues with quotas from a cluster's nodes (live, or `kubectl get nodes -o yaml`).
    #[command(
        after_help = "Examples:\n  jax-runtimes kueue my-catalog/                              # the nodes of the current kubeconfig context\n  kubectl get nodes -o yaml > nodes.yaml\n  jax-runtimes kueue --nodes nodes.yaml my-catalog/           # its JaxRuntimeQueues, or one queue for every runtime\n  jax-runtimes kueue --nodes nodes.yaml --namespace team-a --namespace team-b\n  jax-runtimes kueue --nodes nodes.yaml my-catalog/ -o gitops/kueue --check\n\nEvery node (every whole TPU slice) of a shape the catalog uses is counted once, at its allocatable.\nExit codes: 0 written, 1 catalog errors or a stale --check, 2 bad input.\nGuide: docs/kueue.md"
    )]
    Kueue(kueue::KueueArgs),
    /// Write what live mode reads from a cluster (nodes, pods, ComputeClasses, Kueue objects, runtimes, TrainJobs) to one file that `fit --nodes FILE --pods FILE` reads.
    #[command(
        after_help = "Examples:\n  jax-runtimes snapshot -o cluster.yaml                   # the current kubeconfig context\n  jax-runtimes snapshot --context prod -o prod.yaml\n  jax-runtimes fit --nodes prod.yaml --pods prod.yaml     # what `fit --context prod` answers\n\nExit codes: 0 written, 2 no cluster to read, a refused list it needs, or an unwritable file.\nGuide: docs/fit.md"
    )]
    Snapshot(snapshot::SnapshotArgs),
    /// Why a TrainJob is not running, and what to change: follows it to its runtime and pods, in the cluster or a `snapshot` file.
    #[command(
        after_help = "Examples:\n  jax-runtimes doctor ml/llama                             # the current kubeconfig context\n  jax-runtimes snapshot -o cluster.yaml && jax-runtimes doctor --snapshot cluster.yaml ml/llama\n\nExit codes: 0 no cause found (running, or finished fine), 1 a cause found, 2 the input cannot be read.\nGuide: docs/troubleshooting.md"
    )]
    Doctor(doctor::DoctorArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Examples:\n  jax-runtimes completions bash > ~/.local/share/bash-completion/completions/jax-runtimes\n  jax-runtimes completions zsh > \"${fpath[1]}/_jax-runtimes\"\n  jax-runtimes completions fish > ~/.config/fish/completions/jax-runtimes.fish"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Copy this binary to a path (for an init container that puts jax-runtimes on another container's PATH).
    #[command(
        after_help = "Examples:\n  jax-runtimes install-binary /custom-tools            # writes /custom-tools/jax-runtimes\n  jax-runtimes install-binary ~/.local/bin/jax-runtimes\n\nThe container image has no shell and no `cp`: functions/argocd/repo-server-patch.yaml runs this in an init container."
    )]
    InstallBinary(install::InstallArgs),
    /// Write one man page per command (jax-runtimes.1, jax-runtimes-render.1, ...) to DIR, from the definition `--help` prints.
    #[command(
        hide = true,
        after_help = "Examples:\n  jax-runtimes man-pages man/man1 && man -l man/man1/jax-runtimes-render.1\n\nFor packagers: the pages a release archive or a package ships."
    )]
    ManPages(man::ManArgs),
}

/// Parses arguments and runs the command.
pub fn main(args: Vec<std::ffi::OsString>) -> Exit {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { Exit::Usage } else { Exit::Ok };
        }
    };
    out::set_color(cli.color);
    match cli.command {
        None => {
            out::error("no command given; try `jax-runtimes --help`, or pipe a ResourceList to run as a KRM function");
            Exit::Usage
        }
        Some(Command::Render(a)) => render::run(&a),
        Some(Command::Schema(a)) => schema::run(&a),
        Some(Command::Accelerators(a)) => accelerators::run(&a),
        Some(Command::Docs(a)) => docs::run(&a),
        Some(Command::Validate(a)) => validate::run(&a),
        Some(Command::Fit(a)) => fit::run(&a),
        Some(Command::Kueue(a)) => kueue::run(&a),
        Some(Command::Snapshot(a)) => snapshot::run(&a),
        Some(Command::Doctor(a)) => doctor::run(&a),
        Some(Command::InstallBinary(a)) => install::run(&a),
        Some(Command::Preview(a)) => preview::run(&a),
        Some(Command::ManPages(a)) => man::run(&a, <Cli as clap::CommandFactory>::command()),
        Some(Command::Completions { shell }) => {
            use clap::CommandFactory;
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "jax-runtimes", &mut buf);
            let mut script = String::from_utf8_lossy(&buf).into_owned();
            if shell == clap_complete::Shell::Bash {
                // clap_complete 4.6 spells the state of a subcommand `jax__runtimes__subcmd__render`
                // where it walks the words and `jax__subcmd__runtimes__subcmd__render` in the arms,
                // for a binary name with a hyphen: no subcommand's flags would ever complete
                // (clap-rs/clap#6421, open). One spelling, the walk's (tests/dist.rs completes one).
                script = script.replace("jax__subcmd__runtimes", "jax__runtimes");
            }
            out::stdout(&script)
        }
    }
}
