//! `jax-runtimes validate`: the command line front door of the validator, and its KRM
//! validator mode (a ResourceList whose functionConfig is a `JaxRuntimeValidation`).

use std::io::Write;
use std::path::PathBuf;

use clap::ValueEnum;
use serde_json::{json, Value};

use super::{finding, is_runtime, objects, rules_markdown, Options, RULES};
use crate::diag::{has_errors, Diagnostic, ObjectRef, Severity};
use crate::read::{Document, Source};

pub const EXIT_OK: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_USAGE: i32 = 2;

/// The functionConfig kind that makes the KRM function validate instead of generate.
pub const VALIDATION_KIND: &str = "JaxRuntimeValidation";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// `error[rule]: file:line: Kind/name: `field`: message`, the source line, and a help line.
    Text,
    /// A JSON array of findings.
    Json,
    /// A `config.kubernetes.io/v1` ResourceList with the findings as `results` (kpt style).
    Kpt,
    /// Only with --list-rules: the docs page.
    Markdown,
}

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Files or folders (`*.yaml`, `*.yml`, `*.json`) holding ClusterTrainingRuntime or
    /// TrainingRuntime objects, or `-` for stdin. Other documents are skipped.
    pub paths: Vec<PathBuf>,
    /// A CRD file (repeatable) to check structure and CEL rules against, e.g. the cluster's
    /// `trainer.kubeflow.org_clustertrainingruntimes.yaml`. Without it: the built-in typed model.
    #[arg(long = "crd", value_name = "FILE")]
    pub crds: Vec<PathBuf>,
    /// How to print the findings (on stdout).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print every rule (id, severity, what it checks) instead of validating.
    #[arg(long, hide = true)]
    pub list_rules: bool,
}

/// Runs the subcommand; returns the exit code (0 clean or warnings only, 1 errors, 2 usage/I-O).
pub fn run(a: &ValidateArgs) -> i32 {
    if a.list_rules {
        let out = match a.format {
            Format::Markdown => rules_markdown(),
            Format::Json => serde_json::to_string_pretty(RULES).expect("rules serialize") + "\n",
            Format::Text => RULES.iter().map(|r| format!("{:<34} {:<8} {}\n", r.id, r.severity.to_string(), r.summary)).collect(),
            Format::Kpt => {
                eprintln!("jax-runtimes: --list-rules prints text, json or markdown");
                return EXIT_USAGE;
            }
        };
        print!("{out}");
        return EXIT_OK;
    }
    if a.format == Format::Markdown {
        eprintln!("jax-runtimes: --format markdown is only for --list-rules; use text, json or kpt");
        return EXIT_USAGE;
    }
    if a.paths.is_empty() {
        eprintln!("jax-runtimes: validate needs files, folders or `-` (stdin); try `jax-runtimes validate --help`");
        return EXIT_USAGE;
    }
    // Compiling the CRDs and reading the inputs do not depend on each other: both at once.
    let (opts, docs) = std::thread::scope(|s| {
        let crds = s.spawn(|| Options::with_crd_files(&a.crds));
        let docs = crate::read::paths(&a.paths);
        (crds.join().expect("the CRD thread panicked"), docs)
    });
    let opts = match opts {
        Ok(o) => o,
        Err(diags) => {
            print(&diags, a.format);
            return EXIT_USAGE;
        }
    };
    let docs = match docs {
        Ok(d) => d,
        Err(diags) => {
            print(&diags, a.format);
            return if diags.iter().all(|d| d.rule == "input/malformed-yaml") { EXIT_FINDINGS } else { EXIT_USAGE };
        }
    };
    let diags = check_documents(&docs, &opts);
    print(&diags, a.format);
    let count = |s: Severity| diags.iter().filter(|d| d.severity == s).count();
    let runtimes = docs.iter().filter(|d| is_runtime(&d.value)).count();
    eprintln!("jax-runtimes: {runtimes} runtime(s) checked: {} error(s), {} warning(s)", count(Severity::Error), count(Severity::Warning));
    if has_errors(&diags) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

/// Findings for a set of documents: every runtime checked, the others noted as info.
pub fn check_documents(docs: &[Document], opts: &Options) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for doc in docs {
        if !is_runtime(&doc.value) {
            diags.push(
                doc.locate(
                    finding("input/not-a-runtime", "", "not a ClusterTrainingRuntime or TrainingRuntime; skipped")
                        .with_object(ObjectRef::of(&doc.value)),
                ),
            );
        }
    }
    diags.extend(objects(docs, opts));
    if !docs.iter().any(|d| is_runtime(&d.value)) {
        diags.push(finding("input/no-runtime", "", "the input holds no ClusterTrainingRuntime or TrainingRuntime"));
    }
    diags
}

fn print(diags: &[Diagnostic], format: Format) {
    let mut out = std::io::stdout().lock();
    let text = match format {
        Format::Text | Format::Markdown => diags.iter().map(crate::report::text).collect::<String>(),
        Format::Json => serde_json::to_string_pretty(diags).expect("findings serialize") + "\n",
        Format::Kpt => {
            let list = json!({
                "apiVersion": crate::krm::RESOURCE_LIST_API_VERSION,
                "kind": "ResourceList",
                "items": [],
                "results": diags.iter().map(crate::krm::result).collect::<Vec<_>>(),
            });
            crate::yaml::to_string(&list).expect("results serialize")
        }
    };
    let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
}

/// Is this functionConfig a request to validate?
pub fn is_validation_config(fc: &Value) -> bool {
    fc.get("kind").and_then(Value::as_str) == Some(VALIDATION_KIND)
        && fc.get("apiVersion").and_then(Value::as_str) == Some(crate::krm::CATALOG_API_VERSION)
}

/// KRM validator mode: checks every runtime among `items` (CRDs among the items are used as
/// `--crd`), returns the items unchanged, the findings, and exit code 1 on errors (or on
/// warnings with `spec.failOnWarnings: true`).
pub fn krm_validate(list: crate::krm::ResourceList) -> crate::krm::Output {
    let fc = list.function_config.clone().unwrap_or(Value::Null);
    let mut diags = Vec::new();
    let mut fail_on_warnings = false;
    if let Some(spec) = fc.get("spec").and_then(Value::as_object) {
        for (k, v) in spec {
            match (k.as_str(), v) {
                ("failOnWarnings", Value::Bool(b)) => fail_on_warnings = *b,
                _ => diags.push(
                    Diagnostic::error(
                        "krm/function-config",
                        format!("unknown or malformed field `spec.{k}` in {VALIDATION_KIND}; the only field is `failOnWarnings` (boolean)"),
                    )
                    .with_object(ObjectRef::of(&fc))
                    .with_field(format!("spec.{k}")),
                ),
            }
        }
    }
    let docs: Vec<Document> = list
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let ann = |k: &str| {
                item.pointer(&format!("/metadata/annotations/{}", k.replace('/', "~1"))).and_then(Value::as_str).map(str::to_string)
            };
            let path = ann("internal.config.kubernetes.io/path").or_else(|| ann("config.kubernetes.io/path"));
            let index =
                ann("internal.config.kubernetes.io/index").or_else(|| ann("config.kubernetes.io/index")).and_then(|s| s.parse().ok());
            Document {
                source: Source::named(path.unwrap_or_else(|| format!("<items[{i}]>"))),
                index: index.unwrap_or(0),
                value: item.clone(),
            }
        })
        .collect();
    let opts = match super::crd::from_documents(&docs) {
        Ok(crds) => Options { crds: crds.into_iter().map(std::sync::Arc::new).collect() },
        Err(mut e) => {
            diags.append(&mut e);
            Options::default()
        }
    };
    diags.extend(objects(&docs, &opts));
    let failed = has_errors(&diags) || (fail_on_warnings && diags.iter().any(|d| d.severity == Severity::Warning));
    crate::krm::Output { list, diagnostics: diags, exit_code: if failed { EXIT_FINDINGS } else { EXIT_OK } }
}
