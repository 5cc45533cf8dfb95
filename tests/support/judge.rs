//! The tool's verdict on a fixture as the comparisons with `--crd` and with the real API server
//! read it (tests/mutations.rs, tests/controlplane.rs): per object, the errors of the API server's
//! layer; and whether the fixture has any error at all.

use std::path::{Path, PathBuf};

use jax_runtimes::diag::{Diagnostic, Severity};
use jax_runtimes::trainjob::TrainerVersion;
use jax_runtimes::validate::{self, Options};
use serde_json::Value;

use super::parse;

/// One fixture: the objects of one YAML stream, as `validate` reads it and the server gets it.
pub struct Fixture {
    pub name: String,
    pub objects: Vec<Value>,
    pub version: Option<TrainerVersion>,
}

impl From<super::mutations::Mutant> for Fixture {
    fn from(m: super::mutations::Mutant) -> Fixture {
        Fixture { name: m.name, objects: m.objects, version: m.version.as_deref().map(|v| TrainerVersion::parse(v).unwrap()) }
    }
}

/// Every fixture of the hand-written corpora (tests/validate/corpus.yaml, kubernetes.yaml,
/// tests/trainjob/corpus.yaml), and the cases left out with the reason.
pub fn corpus_fixtures() -> (Vec<Fixture>, Vec<String>) {
    let mut out = Vec::new();
    let mut left_out = Vec::new();
    for (file, cases) in [
        ("validate/corpus.yaml", super::validate_corpus::corpus()),
        ("validate/kubernetes.yaml", super::validate_corpus::kubernetes_corpus()),
    ] {
        for case in cases {
            let name = format!("{file}: {}", case.name);
            match case.crd.as_deref() {
                None | Some("reference") => out.push(Fixture { name, objects: vec![case.object()], version: None }),
                Some(crd) => {
                    left_out.push(format!("{name} (checks the tool against its own test CRD {crd}, which the server does not have)"));
                }
            }
        }
    }
    for case in super::trainjob_corpus::cases() {
        out.push(Fixture {
            name: format!("trainjob/corpus.yaml: {}", case.name),
            objects: parse("case.yaml", &case.text()).into_iter().map(|d| d.value).collect(),
            version: case.version.as_deref().map(|v| TrainerVersion::parse(v).unwrap()),
        });
    }
    (out, left_out)
}

/// Whether a finding says the API server refuses the object ([`Diagnostic::refused_at_apply`],
/// the judgement `validate --server` makes too).
pub fn api_server_layer(d: &Diagnostic) -> bool {
    d.refused_at_apply()
}

pub struct Verdict {
    /// Per object: API-server-layer errors (rule ids).
    pub api: Vec<Vec<&'static str>>,
    /// Any error at all.
    pub errors: Vec<&'static str>,
}

/// The tool's verdict on `f` with `opts` (a fixture's own Trainer version unless `opts` names a
/// release: `--trainer-version` judges all).
pub fn verdict(f: &Fixture, opts: &Options) -> Verdict {
    let text: Vec<String> = f.objects.iter().map(|o| jax_runtimes::yaml::to_string(o).unwrap()).collect();
    let docs = parse("case.yaml", &text.join("---\n"));
    let version = if opts.release.is_some() { opts.trainer_version } else { f.version };
    let opts = Options { trainer_version: version, ..opts.clone() };
    let diags = validate::objects(&docs, &opts);
    let mut api = vec![Vec::new(); f.objects.len()];
    for d in diags.iter().filter(|d| api_server_layer(d)) {
        api[d.index.unwrap_or(0).min(f.objects.len() - 1)].push(d.rule.id);
    }
    let errors = diags.iter().filter(|d| d.severity == Severity::Error).map(|d| d.rule.id).collect();
    Verdict { api, errors }
}

/// The CRD files of an embedded Trainer release in the reference data.
pub fn release_crds(reference: &Path, release: &str) -> Vec<PathBuf> {
    let dir = if release == "next" {
        let crds = reference.join("kubeflow-trainer-crds");
        let mut masters: Vec<PathBuf> = std::fs::read_dir(&crds)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("master-"))
            .collect();
        assert_eq!(masters.len(), 1, "one master-* folder in {} (release `next`)", crds.display());
        masters.remove(0)
    } else if release == "v2.3.0" {
        reference.join(super::reference::TRAINER).join("crds")
    } else {
        reference.join("kubeflow-trainer-crds").join(release)
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 3, "{}: the release's CRDs", dir.display());
    files
}

/// `validate --trainer-version RELEASE` and `validate --trainer-version RELEASE --crd <its CRDs>`.
pub fn both_modes(reference: &Path, release: &str) -> (Options, Options) {
    let named = || Some(validate::Release::named(release).unwrap());
    let default = Options::default().for_release(named());
    let with_crd = Options::with_crd_files(&release_crds(reference, release)).expect("the release's CRDs load").for_release(named());
    (default, with_crd)
}
