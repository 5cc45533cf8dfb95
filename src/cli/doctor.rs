//! `jax-runtimes doctor NAMESPACE/NAME`: a cluster's objects (a `snapshot` file, `kubectl get ...
//! -o yaml` Lists, or live mode's read of the cluster) and one TrainJob -> why it is not running
//! and what to change, as findings (text on stderr, or one findings document on stdout), and its
//! state in one line. Exit 0 when no cause is found, 1 when one is, 2 when the input cannot be read.

use std::path::PathBuf;
use std::sync::Arc;

use clap::ValueEnum;

use super::shared::{FindingsFormat, LiveArgs, Said};
use crate::diag::Diagnostic;
use crate::doctor;
use crate::exit::Exit;
use crate::read::{self, Sources};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The findings on stderr, the TrainJob's state as a note.
    Text,
    /// One JSON array of findings on stdout.
    Json,
    /// GitHub Actions workflow commands on stdout.
    Github,
    /// One SARIF 2.1.0 log on stdout.
    Sarif,
    /// One JUnit XML report on stdout.
    Junit,
}

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// The TrainJob: NAMESPACE/NAME, or NAME in the namespace of `--namespace` (else, live, the
    /// kubeconfig context's, else `default`, as kubectl takes it).
    #[arg(value_name = "TRAINJOB")]
    pub trainjob: String,
    /// The TrainJob's namespace, as kubectl's `--namespace`.
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// Read the cluster from this file (what `jax-runtimes snapshot -o FILE` writes, or
    /// `kubectl get ... -o yaml` Lists) instead of the cluster of the kubeconfig.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["kubeconfig", "context", "chunk_size"])]
    pub snapshot: Option<PathBuf>,
    #[command(flatten)]
    pub live: LiveArgs,
    /// How to print the findings.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(a: &DoctorArgs) -> Exit {
    let document = match a.format {
        Format::Text => None,
        Format::Json => Some(FindingsFormat::Json),
        Format::Github => Some(FindingsFormat::Github),
        Format::Sarif => Some(FindingsFormat::Sarif),
        Format::Junit => Some(FindingsFormat::Junit),
    };
    let mut said = Said::new(document, "doctor");
    let code = examine(a, &mut said);
    said.finish(code)
}

fn examine(a: &DoctorArgs, said: &mut Said) -> Exit {
    let (namespace, name) = match a.trainjob.split_once('/') {
        Some((ns, n)) => (ns.to_string(), n.to_string()),
        None => {
            let from_context = || a.snapshot.is_none().then(|| crate::live::context_namespace(&a.live.target())).flatten();
            (a.namespace.clone().or_else(from_context).unwrap_or_else(|| "default".to_string()), a.trainjob.clone())
        }
    };
    if namespace.is_empty() || name.is_empty() || name.contains('/') {
        super::out::error(&format!("`{}`: name the TrainJob as NAMESPACE/NAME", a.trainjob));
        return Exit::Usage;
    }
    if a.trainjob.contains('/') && a.namespace.as_deref().is_some_and(|n| n != namespace) {
        super::out::error(&format!(
            "`{}` is in namespace `{namespace}`, but --namespace says `{}`",
            a.trainjob,
            a.namespace.as_deref().unwrap_or_default()
        ));
        return Exit::Usage;
    }
    let docs = match &a.snapshot {
        Some(path) => match read::read_file(path) {
            Ok(d) => d,
            Err(e) => return said.bad(&[e], Some(&Sources::default())),
        },
        None => {
            let read = match crate::live::read(&a.live.target(), "doctor") {
                Ok(r) => r,
                Err(d) => return said.bad(&[*d], None),
            };
            if read.findings.iter().any(Diagnostic::is_error) {
                return said.bad(&read.findings, None);
            }
            said.say(&read.findings, None);
            said.note(&format!("read from {}: {} ({} list calls)", read.origin, crate::live::counted(&read.counts), read.calls));
            // Pretty: a finding's snippet shows its lines, not one line of the whole cluster.
            let text = serde_json::to_string_pretty(&read.list()).unwrap_or_default();
            let source = Arc::new(read::Source::new(read.origin.clone(), Some(text)));
            match read::parsed(source).into_result() {
                Ok(d) => d,
                Err(e) => return said.bad(&e, None),
            }
        }
    };
    said.sources.extend(&Sources::of(&docs));
    let objects = doctor::objects(&docs);
    let diagnosis = doctor::diagnose(&objects, &namespace, &name);
    said.say(&diagnosis.findings, None);
    said.note(&format!("TrainJob {namespace}/{name}: {}", diagnosis.state));
    if diagnosis.findings.iter().any(Diagnostic::is_error) {
        Exit::Findings
    } else {
        Exit::Ok
    }
}
