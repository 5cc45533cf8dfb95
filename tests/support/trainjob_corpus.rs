//! The format of tests/trainjob/corpus.yaml, shared by tests/trainjob.rs (which checks each case)
//! and tests/validate.rs (which puts a case of each rule on docs/rules.md).

use serde::Deserialize;
use serde_json::Value;

use super::root;

/// One case: a TrainJob on a test runtime (tests/validate/base/), changed by `runtime_set`, and
/// the finding it must get (or `clean`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    /// A runtime of tests/validate/base/, by file stem.
    pub runtime: String,
    /// JSON pointers into the runtime and the values they are set to.
    #[serde(default)]
    pub runtime_set: serde_json::Map<String, Value>,
    /// `--trainer-version`; default: the newest.
    #[serde(default)]
    pub version: Option<String>,
    /// The TrainJob without its `apiVersion` and `kind`.
    pub trainjob: Value,
    pub expect: Expect,
    /// Text the finding's message must contain.
    #[serde(default)]
    pub message: Option<String>,
    /// Other rules the case may also report.
    #[serde(default)]
    pub also: Vec<String>,
}

/// What a case expects: a finding of a rule at a field, or the word `clean`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Expect {
    Finding { rule: String, field: String, severity: Option<String> },
    Clean(String),
}

impl Expect {
    /// The rule of a finding; `None` for `clean`.
    pub fn rule(&self) -> Option<&str> {
        match self {
            Expect::Finding { rule, .. } => Some(rule),
            Expect::Clean(_) => None,
        }
    }
}

impl Case {
    /// The case as one YAML stream: its runtime (the base, changed by `runtime_set`), then its
    /// TrainJob.
    pub fn text(&self) -> String {
        let mut tj = serde_json::json!({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob"});
        for (k, x) in self.trainjob.as_object().expect("a TrainJob mapping") {
            tj[k] = x.clone();
        }
        // `runtime: none`: the TrainJob alone, as `validate` sees it without `--runtimes`.
        if self.runtime == "none" {
            return jax_runtimes::yaml::to_string(&tj).unwrap();
        }
        let mut rt = super::validate_corpus::base(&self.runtime);
        for (pointer, value) in &self.runtime_set {
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            let key = key.replace("~1", "/");
            rt.pointer_mut(parent).unwrap_or_else(|| panic!("{}: no {parent}", self.name))[key] = value.clone();
        }
        format!("{}---\n{}", jax_runtimes::yaml::to_string(&rt).unwrap(), jax_runtimes::yaml::to_string(&tj).unwrap())
    }
}

/// Every case of tests/trainjob/corpus.yaml, in order.
pub fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(root().join("tests/trainjob/corpus.yaml")).unwrap();
    serde_saphyr::from_str(&text).expect("tests/trainjob/corpus.yaml parses")
}
