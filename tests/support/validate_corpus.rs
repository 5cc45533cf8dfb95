//! The validate corpora (tests/validate/corpus.yaml: one mistake per case; tests/validate/kubernetes.yaml:
//! mistakes and legal look-alikes), each case a base runtime (tests/validate/base/) and the
//! edits that make it: read here for tests/validate.rs and tests/agreement.rs.

use serde::Deserialize;
use serde_json::{json, Value};

use super::{parse, root};

/// A base runtime of tests/validate/base/, by name (`tpu`, `gpu`, `cpu`, `initializers`).
pub fn base(name: &str) -> Value {
    let text = std::fs::read_to_string(root().join(format!("tests/validate/base/{name}.yaml"))).unwrap();
    parse(name, &text).remove(0).value
}

impl Case {
    /// The runtime of the case: its base with its edits applied.
    pub fn object(&self) -> Value {
        let mut v = base(&self.base);
        for op in &self.ops {
            apply(&mut v, op);
        }
        v
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    pub base: String,
    #[serde(default)]
    pub crd: Option<String>,
    pub ops: Vec<Op>,
    /// Absent only for a legal look-alike (`legal: true`).
    #[serde(default)]
    pub expect: Option<Expect>,
    #[serde(default)]
    pub also: Vec<String>,
    /// Kubernetes corpus: the case is legal and must stay clean.
    #[serde(default)]
    pub legal: bool,
    /// Kubernetes corpus: the upstream file and function the case's rule follows.
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub enum Op {
    Set {
        path: String,
        value: Value,
    },
    Remove(String),
    Rename {
        path: String,
        to: String,
    },
    /// A string of `bytes` `x` characters (long values without writing them out).
    Fill {
        path: String,
        bytes: usize,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub rule: String,
    pub field: String,
    /// `error`, `warning` or `info`; default: the rule's own severity.
    #[serde(default)]
    pub severity: Option<String>,
}

pub fn corpus() -> Vec<Case> {
    let text = std::fs::read_to_string(root().join("tests/validate/corpus.yaml")).unwrap();
    let cases: Vec<Case> = serde_saphyr::from_str(&text).expect("corpus.yaml parses");
    assert!(cases.iter().all(|c| c.expect.is_some() && !c.legal), "every corpus.yaml case expects a finding");
    cases
}

pub fn kubernetes_corpus() -> Vec<Case> {
    let text = std::fs::read_to_string(root().join("tests/validate/kubernetes.yaml")).unwrap();
    serde_saphyr::from_str(&text).expect("kubernetes.yaml parses")
}

fn split_pointer(path: &str) -> (Vec<String>, String) {
    let mut parts: Vec<String> = path.trim_start_matches('/').split('/').map(|p| p.replace("~1", "/").replace("~0", "~")).collect();
    let last = parts.pop().expect("non-empty pointer");
    (parts, last)
}

fn parent<'a>(v: &'a mut Value, parts: &[String], create: bool) -> &'a mut Value {
    let mut cur = v;
    for p in parts {
        cur = match cur {
            Value::Array(a) => &mut a[p.parse::<usize>().expect("array index")],
            Value::Object(m) => {
                if create {
                    m.entry(p.clone()).or_insert_with(|| json!({}))
                } else {
                    m.get_mut(p).unwrap_or_else(|| panic!("no `{p}` on the way"))
                }
            }
            other => panic!("cannot descend into {other}"),
        };
    }
    cur
}

pub fn apply(v: &mut Value, op: &Op) {
    match op {
        Op::Set { path, value } => {
            let (parts, last) = split_pointer(path);
            match parent(v, &parts, true) {
                Value::Array(a) => {
                    let i: usize = last.parse().unwrap();
                    if i == a.len() {
                        a.push(value.clone());
                    } else {
                        a[i] = value.clone();
                    }
                }
                Value::Object(m) => {
                    m.insert(last, value.clone());
                }
                other => panic!("cannot set in {other}"),
            }
        }
        Op::Remove(path) => {
            let (parts, last) = split_pointer(path);
            match parent(v, &parts, false) {
                Value::Object(m) => assert!(m.shift_remove(&last).is_some(), "nothing to remove at {path}"),
                Value::Array(a) => {
                    a.remove(last.parse().unwrap());
                }
                other => panic!("cannot remove from {other}"),
            }
        }
        Op::Fill { path, bytes } => apply(v, &Op::Set { path: path.clone(), value: Value::String("x".repeat(*bytes)) }),
        Op::Rename { path, to } => {
            let (parts, last) = split_pointer(path);
            let Value::Object(m) = parent(v, &parts, false) else { panic!("rename needs an object") };
            let value = m.shift_remove(&last).unwrap_or_else(|| panic!("nothing at {path}"));
            m.insert(to.clone(), value);
        }
    }
}
