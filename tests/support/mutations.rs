//! Generated mutations of valid objects (issue 42 item 3, issue 52 item 2): the objects the
//! validator is compared on beside the hand-written fixtures, with `validate --crd` of every
//! release (tests/mutations.rs) and with the real API server of every release
//! (tests/controlplane.rs).
//!
//! A seed is a valid YAML stream: each base runtime of tests/validate/base/, each `clean` case of
//! tests/trainjob/corpus.yaml (a runtime and a TrainJob on it), each runtime the built-in catalog
//! renders, each Kueue object a `JaxRuntimeQueue` writes for the built-in GKE GPU and TPU runtimes,
//! and Trainer v2.3.0's own runtimes from the reference data when it is there. A mutant is
//! a seed with one object changed at one place by one operator:
//!
//! - names: `metadata.name` too long, upper case, with dots or underscores, empty, a leading digit;
//! - labels and annotations: keys and values that break Kubernetes' rules, values of other types,
//!   an annotation of 300 KiB;
//! - quantities: a resource request or limit that is not a quantity, negative, fractional, a
//!   number instead of a string;
//! - any field: a value of another type (string, integer, float, boolean, list, map, null), a
//!   string that breaks a pattern or an enum, an integer at or past a range's ends, a list emptied,
//!   its first item duplicated (list-map keys) or a junk item appended, a field removed (required
//!   fields), an unknown field added, an existing field spelled in another case.
//!
//! Which mutant is made is drawn by proptest's deterministic RNG (ChaCha, a fixed seed): the same
//! list on every run and every machine, so a disagreement names a mutant that can be looked at
//! again (its name says the seed, the operator and the field).

use proptest::sample::Index;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Map, Value};

use super::{reference, root, trainjob_corpus};

/// A valid YAML stream the mutants are made from.
#[derive(Clone)]
pub struct Seed {
    pub name: String,
    pub objects: Vec<Value>,
    /// The Trainer release the seed is written for (`--trainer-version`), if not the newest.
    pub version: Option<String>,
}

/// One generated mutant: its seed's objects with one of them changed.
pub struct Mutant {
    /// `SEED: OPERATOR at FIELD` (and `#N` when the seed has more than one object).
    pub name: String,
    pub objects: Vec<Value>,
    pub version: Option<String>,
}

/// Every seed, in a fixed order. Trainer's own runtimes only where the reference data is (the
/// caller decides whether a missing reference is a skip).
pub fn seeds(with_reference: bool) -> Vec<Seed> {
    let mut out = Vec::new();
    let base = root().join("tests/validate/base");
    let mut files: Vec<_> = std::fs::read_dir(&base).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let objects = jax_runtimes::yaml::parse_stream(&text).unwrap();
        out.push(Seed { name: format!("base/{}", f.file_name().unwrap().to_string_lossy()), objects, version: None });
    }
    for case in trainjob_corpus::cases() {
        if case.expect.rule().is_some() || case.runtime == "none" {
            continue;
        }
        let objects = jax_runtimes::yaml::parse_stream(&case.text()).unwrap();
        out.push(Seed { name: format!("trainjob case `{}`", case.name), objects, version: case.version.clone() });
    }
    let rendered = super::run(&["render"], None);
    assert_eq!(rendered.code, 0, "render of the built-in catalog:\n{}", rendered.all());
    for o in jax_runtimes::yaml::parse_stream(&rendered.stdout).unwrap() {
        if o["kind"].as_str().is_some_and(|k| k.ends_with("TrainingRuntime")) {
            let name = format!("built-in {}", o["metadata"]["name"].as_str().unwrap_or("?"));
            out.push(Seed { name, objects: vec![o], version: None });
        }
    }
    // The Kueue objects a JaxRuntimeQueue writes for the built-in GKE GPU and TPU v5e runtimes:
    // ResourceFlavors, a ClusterQueue with a cohort and preemption, LocalQueues, a Topology and
    // WorkloadPriorityClasses, each a seed of its own.
    let dir = tempfile::tempdir().unwrap();
    let queue = dir.path().join("queue.yaml");
    std::fs::write(&queue, KUEUE_SEED).unwrap();
    let catalog = ["gpu-gke.yaml", "tpu-v5e.yaml", "defaults.yaml"].map(|f| root().join("catalog/runtimes").join(f));
    let mut args: Vec<&str> = vec!["render"];
    args.extend(catalog.iter().map(|p| p.to_str().unwrap()));
    args.push(queue.to_str().unwrap());
    let rendered = super::run(&args, None);
    assert_eq!(rendered.code, 0, "render of the Kueue seed catalog:\n{}", rendered.all());
    let kueue: Vec<Value> = jax_runtimes::yaml::parse_stream(&rendered.stdout)
        .unwrap()
        .into_iter()
        .filter(|o| o["apiVersion"].as_str().is_some_and(|a| a.starts_with("kueue.x-k8s.io/")))
        .collect();
    let kinds: std::collections::BTreeSet<&str> = kueue.iter().filter_map(|o| o["kind"].as_str()).collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["ClusterQueue", "LocalQueue", "ResourceFlavor", "Topology", "WorkloadPriorityClass"],
        "the Kueue seeds cover every kind the tool writes"
    );
    for o in kueue {
        let name = format!("Kueue {}/{}", o["kind"].as_str().unwrap_or("?"), o["metadata"]["name"].as_str().unwrap_or("?"));
        out.push(Seed { name, objects: vec![o], version: None });
    }
    if with_reference {
        if let Some(reference) = reference() {
            let dir = reference.join(super::reference::TRAINER).join("runtimes");
            let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
            files.sort();
            for f in files {
                let text = std::fs::read_to_string(&f).unwrap();
                for o in jax_runtimes::yaml::parse_stream(&text).unwrap() {
                    let name = format!("Trainer v2.3.0 {}", o["metadata"]["name"].as_str().unwrap_or("?"));
                    out.push(Seed { name, objects: vec![o], version: None });
                }
            }
        }
    }
    out
}

/// A queue for the Kueue seeds: every part of a JaxRuntimeQueue that reaches a Kueue object.
const KUEUE_SEED: &str = "apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntimeQueue
metadata: {name: seeds}
spec:
  namespaces: [research, team-b]
  cohort: ml
  queueingStrategy: StrictFIFO
  preemption: {reclaimWithinCohort: Any, withinClusterQueue: LowerPriority, borrowWithinCohort: LowerPriority}
  priorityClasses:
  - {name: urgent, value: 1000, description: on call}
  - {name: batch, value: 10}
  topologyAwareScheduling: {}
";

/// How many mutants a comparison judges: `JAX_RUNTIMES_MUTANTS`, default 2000.
pub fn count() -> usize {
    std::env::var("JAX_RUNTIMES_MUTANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(2000)
}

/// `count` mutants of `seeds`, the same on every run.
pub fn mutants(seeds: &[Seed], count: usize) -> Vec<Mutant> {
    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[42; 32]));
    let draw = (proptest::arbitrary::any::<[Index; 5]>(), 0usize..OPERATORS);
    let mut out = Vec::with_capacity(count);
    let mut tries = 0;
    while out.len() < count && tries < count * 20 {
        tries += 1;
        let ([seed, object, at, pick, extra], op) = draw.new_tree(&mut runner).unwrap().current();
        let seed = seed.get(seeds);
        let i = object.index(seed.objects.len());
        let mut objects = seed.objects.clone();
        let Some(what) = mutate(&mut objects[i], op, at, pick, extra) else { continue };
        let which = if seed.objects.len() > 1 { format!(" #{}", i + 1) } else { String::new() };
        out.push(Mutant { name: format!("{}{which}: {what}", seed.name), objects, version: seed.version.clone() });
    }
    assert_eq!(out.len(), count, "the operators apply to the seeds");
    out
}

/// How many operators [`mutate`] knows.
const OPERATORS: usize = 12;

/// A place in an object: its path (keys and indexes) and its value.
type Place = (Vec<Step>, Value);

#[derive(Clone)]
enum Step {
    Key(String),
    Item(usize),
}

fn show(path: &[Step]) -> String {
    let mut s = String::new();
    for p in path {
        match p {
            Step::Key(k) if k.contains('.') || k.contains('/') => s.push_str(&format!("[{k}]")),
            Step::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Step::Item(i) => s.push_str(&format!("[{i}]")),
        }
    }
    if s.is_empty() {
        "the object".into()
    } else {
        s
    }
}

/// Every place of `v` below the root, but `apiVersion`, `kind` and `metadata.namespace`, which
/// make it another object rather than a wrong one.
fn places(v: &Value) -> Vec<Place> {
    fn walk(v: &Value, path: &mut Vec<Step>, out: &mut Vec<Place>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if path.is_empty() && (k == "apiVersion" || k == "kind") {
                        continue;
                    }
                    if path.len() == 1 && k == "namespace" {
                        continue;
                    }
                    path.push(Step::Key(k.clone()));
                    out.push((path.clone(), x.clone()));
                    walk(x, path, out);
                    path.pop();
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    path.push(Step::Item(i));
                    out.push((path.clone(), x.clone()));
                    walk(x, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), &mut out);
    out
}

fn at_mut<'a>(v: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(v, |v, s| match s {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Item(i) => &mut v[*i],
    })
}

fn key_of(path: &[Step]) -> Option<&str> {
    match path.last() {
        Some(Step::Key(k)) => Some(k),
        _ => None,
    }
}

/// Whether a place is a resource quantity (`resources.limits.X`, `requests.X`, overhead, a
/// volume's `sizeLimit`, a claim template's `storage`).
fn is_quantity(path: &[Step]) -> bool {
    let keys: Vec<&str> = path.iter().filter_map(|s| if let Step::Key(k) = s { Some(k.as_str()) } else { None }).collect();
    let n = keys.len();
    (n >= 2 && matches!(keys[n - 2], "limits" | "requests")) || keys.last().is_some_and(|k| *k == "sizeLimit")
}

const NAMES: &[&str] = &[
    "Upper-Case",
    "with_underscore",
    "with.dots.in-it",
    "9starts-with-a-digit",
    "ends-with-a-dash-",
    "",
    "a-name-of-exactly-sixty-four-characters-which-is-one-too-many-xy",
    "a-name-of-sixty-three-characters-which-is-the-most-a-label-take",
    "x",
];
const LABEL_KEYS: &[&str] = &[
    "example.com/ok",
    "Example.COM/upper",
    "two/slashes/key",
    "-leading-dash",
    "a-key-name-part-of-sixty-four-characters-which-is-one-too-many-xy",
    "kubernetes.io/reserved-but-legal",
    "under_score.example/k",
];
const LABEL_VALUES: &[&str] =
    &["", "ok", "with space", "-leading-dash", "v1.2_3", "a-value-of-sixty-four-characters-which-is-one-too-many-for-labels"];
const QUANTITIES: &[&str] = &["1.5.3", "abc", "-1", "1e3", "0.5", "100Mi", "1000m", "2Gi", "1.5", "0", "+1", "1E", "12345678901234567890"];
const STRINGS: &[&str] = &["", "Always", "Never", "NotAnEnumValue", "with space", "UPPER", "-1", "true", "1", "a/b", "https://x"];
const INTEGERS: &[i64] = &[0, -1, 1, 2147483647, 2147483648, 1_000_000];

fn candidate<T: Clone>(list: &[T], pick: Index) -> T {
    list[pick.index(list.len())].clone()
}

/// Changes `object` with operator `op` at a place drawn by `at` (values drawn by `pick` and
/// `extra`); the description of what it did, or `None` when the operator does not apply there.
fn mutate(object: &mut Value, op: usize, at: Index, pick: Index, extra: Index) -> Option<String> {
    let all = places(object);
    match op {
        // Names.
        0 => {
            let name = candidate(NAMES, pick);
            object.get("metadata")?.get("name")?;
            let name = if extra.index(4) == 0 { "n".repeat(254) } else { name.to_string() };
            object["metadata"]["name"] = json!(name);
            Some(format!("metadata.name {}", quoted(&name)))
        }
        // A label (on the object, or on a pod or job template).
        1 | 2 => {
            let maps: Vec<&Place> =
                all.iter().filter(|(p, v)| key_of(p) == Some(if op == 1 { "labels" } else { "annotations" }) && v.is_object()).collect();
            let (path, _) = if maps.is_empty() {
                object.get("metadata")?;
                let k = if op == 1 { "labels" } else { "annotations" };
                object["metadata"][k] = json!({});
                (vec![Step::Key("metadata".into()), Step::Key(k.into())], Value::Null)
            } else {
                maps[at.index(maps.len())].clone()
            };
            let map = at_mut(object, &path);
            let (k, v, what) = match extra.index(5) {
                0 => (candidate(LABEL_KEYS, pick).to_string(), json!("v"), "key"),
                1 if op == 1 => ("example.com/k".into(), json!(candidate(LABEL_VALUES, pick)), "value"),
                1 => ("example.com/big".into(), json!("x".repeat(300 * 1024)), "value of 300 KiB"),
                2 => (
                    "example.com/k".into(),
                    [json!(true), json!(7), json!(1.5), json!(null), json!({"a": 1})][pick.index(5)].clone(),
                    "value",
                ),
                3 => (candidate(LABEL_KEYS, pick).to_string(), json!(candidate(LABEL_VALUES, extra)), "key and value"),
                _ => ("example.com/k".into(), json!(candidate(LABEL_VALUES, pick)), "value"),
            };
            let shown = format!("{} {what} {} = {}", if op == 1 { "label" } else { "annotation" }, quoted(&k), short(&v));
            map.as_object_mut()?.insert(k, v);
            Some(format!("{shown} in {}", show(&path)))
        }
        // A quantity.
        3 => {
            let qs: Vec<&Place> = all.iter().filter(|(p, v)| is_quantity(p) && !v.is_object()).collect();
            let (path, _) = qs.get(at.index(qs.len().max(1)))?;
            let v = if extra.index(5) == 0 {
                [json!(1), json!(2.5), json!(-3)][pick.index(3)].clone()
            } else {
                json!(candidate(QUANTITIES, pick))
            };
            let shown = format!("quantity {} at {}", short(&v), show(path));
            *at_mut(object, path) = v;
            Some(shown)
        }
        // A value of another type.
        4 => {
            let (path, old) = all.get(at.index(all.len().max(1)))?;
            let others: Vec<Value> = [json!("7"), json!(7), json!(1.5), json!(true), json!(["x"]), json!({"x": "y"}), Value::Null]
                .into_iter()
                .filter(|v| std::mem::discriminant(v) != std::mem::discriminant(old) || (old.is_number() && v.is_f64() != old.is_f64()))
                .collect();
            let v = candidate(&others, pick);
            let shown = format!("{} at {} (was {})", short(&v), show(path), type_name(old));
            *at_mut(object, path) = v;
            Some(shown)
        }
        // A string that may break a pattern, enum or format.
        5 => {
            let strings: Vec<&Place> = all.iter().filter(|(p, v)| v.is_string() && !is_quantity(p)).collect();
            let (path, _) = strings.get(at.index(strings.len().max(1)))?;
            let s = candidate(STRINGS, pick);
            *at_mut(object, path) = json!(s);
            Some(format!("string {} at {}", quoted(s), show(path)))
        }
        // An integer at or past a range's ends.
        6 => {
            let ints: Vec<&Place> = all.iter().filter(|(_, v)| v.is_i64() || v.is_u64()).collect();
            let (path, _) = ints.get(at.index(ints.len().max(1)))?;
            let n = candidate(INTEGERS, pick);
            *at_mut(object, path) = json!(n);
            Some(format!("integer {n} at {}", show(path)))
        }
        // A list changed.
        7 => {
            let lists: Vec<&Place> = all.iter().filter(|(_, v)| v.as_array().is_some_and(|a| !a.is_empty())).collect();
            let (path, _) = lists.get(at.index(lists.len().max(1)))?;
            let list = at_mut(object, path).as_array_mut()?;
            let what = match pick.index(3) {
                0 => {
                    list.clear();
                    "emptied"
                }
                1 => {
                    list.push(list[0].clone());
                    "first item repeated"
                }
                _ => {
                    list.push(json!({}));
                    "an empty item appended"
                }
            };
            Some(format!("list {} {what}", show(path)))
        }
        // A field removed.
        8 => {
            let fields: Vec<&Place> = all.iter().filter(|(p, _)| key_of(p).is_some() && p.len() > 1).collect();
            let (path, _) = fields.get(at.index(fields.len().max(1)))?;
            let (parent, key) = path.split_at(path.len() - 1);
            let Step::Key(key) = &key[0] else { return None };
            at_mut(object, parent).as_object_mut()?.remove(key)?;
            Some(format!("{} removed", show(path)))
        }
        // An unknown field.
        9 => {
            let maps: Vec<&Place> = all.iter().filter(|(_, v)| v.is_object()).collect();
            let (path, _) = maps.get(at.index(maps.len().max(1)))?;
            let key = ["unknownField", "x-extra", "metadata2"][pick.index(3)];
            at_mut(object, path).as_object_mut()?.insert(key.into(), json!("x"));
            Some(format!("unknown field {}.{key}", show(path)))
        }
        // A field spelled in another case (`nodeselector`, `NodeSelector`).
        10 => {
            let fields: Vec<&Place> =
                all.iter().filter(|(p, _)| key_of(p).is_some_and(|k| k.chars().any(char::is_uppercase) || k.len() > 3)).collect();
            let (path, _) = fields.get(at.index(fields.len().max(1)))?;
            let (parent, key) = path.split_at(path.len() - 1);
            let Step::Key(key) = &key[0] else { return None };
            let other = if pick.index(2) == 0 { key.to_lowercase() } else { upper_first(key) };
            if &other == key {
                return None;
            }
            let map = at_mut(object, parent).as_object_mut()?;
            let v = map.remove(key)?;
            map.insert(other.clone(), v);
            Some(format!("{} spelled `{other}`", show(path)))
        }
        // A map or list emptied in place (a required list or a minProperties map).
        _ => {
            let containers: Vec<&Place> = all.iter().filter(|(_, v)| v.as_object().is_some_and(|m| !m.is_empty())).collect();
            let (path, _) = containers.get(at.index(containers.len().max(1)))?;
            *at_mut(object, path) = Value::Object(Map::new());
            Some(format!("{} emptied to {{}}", show(path)))
        }
    }
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

fn quoted(s: &str) -> String {
    if s.len() > 40 {
        format!("`{}…` ({} characters)", &s[..20], s.len())
    } else {
        format!("`{s}`")
    }
}

fn short(v: &Value) -> String {
    match v {
        Value::String(s) => quoted(s),
        other => other.to_string(),
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a float",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}
