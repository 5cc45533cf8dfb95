//! Property tests (proptest):
//! - render is deterministic (two runs, same bytes) for arbitrary valid catalogs, and the KRM
//!   function is idempotent on them (its output fed back gives the same bytes);
//! - arbitrary objects (YAML 1.1 look-alike strings, big and small numbers, nested maps and
//!   lists, multi-line text) pass through the KRM function unchanged, as YAML and as JSON;
//! - the catalog reader and the ResourceList reader never panic, whatever the bytes: this is
//!   the project's fuzz target, run on every `cargo test` with a modest case count.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::sync::Arc;

use jax_runtimes::krm;
use jax_runtimes::read::{self, Source};
use jax_runtimes::{pipeline, rules, write, yaml};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

// ---------------------------------------------------------------- front doors, in process

/// `jax-runtimes render` on catalog text: the YAML stream it prints, or the error findings.
fn render(text: &str) -> Result<String, Vec<jax_runtimes::Diagnostic>> {
    let docs = read::parse_source(Arc::new(Source::new("catalog.yaml", Some(text.to_string())))).map_err(|d| vec![d])?;
    let g = pipeline::generate_with(&docs, |r| write::Text::new(r.source().clone(), r.file_name.clone(), &r.object));
    if g.has_errors() {
        return Err(g.diagnostics.into_iter().filter(|d| d.is_error()).collect());
    }
    let texts = g.runtimes.into_iter().collect::<Result<Vec<_>, _>>().expect("generated runtimes serialize");
    Ok(write::stream(&texts))
}

/// What a refused input must come with: at least one error, each of a registered rule, placed
/// in the file it came from.
fn assert_refused_well(errors: &[jax_runtimes::Diagnostic]) -> Result<(), TestCaseError> {
    prop_assert!(!errors.is_empty(), "refused without an error");
    for e in errors {
        prop_assert!(rules::by_id(e.rule.id).is_some(), "{} is not registered", e.rule.id);
        prop_assert_eq!(e.file.as_deref(), Some("catalog.yaml"), "{} has no file", e);
    }
    Ok(())
}

/// The KRM function on `input` bytes, with the real pipeline: (exit code, stdout, stderr).
fn krm_run(input: &[u8]) -> (i32, String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = krm::run(input, &mut out, &mut err).code();
    (code, String::from_utf8(out).expect("the function writes UTF-8"), String::from_utf8_lossy(&err).into_owned())
}

fn resource_list(items: Vec<Value>) -> Value {
    json!({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items})
}

// ---------------------------------------------------------------- strategies

/// Strings YAML 1.1 or 1.2 readers would take for something else, and other emitter traps.
const LOOKALIKES: &[&str] = &[
    "on",
    "off",
    "yes",
    "no",
    "y",
    "n",
    "Y",
    "N",
    "ON",
    "Off",
    "true",
    "False",
    "null",
    "Null",
    "~",
    "",
    " ",
    "0777",
    "0o17",
    "0x1F",
    "1e3",
    "1_000",
    ".inf",
    "-.Inf",
    ".nan",
    "1:20",
    "2001-12-14",
    "12:30:45",
    "+1",
    "-0",
    "0.",
    "=",
    "<<",
    "- a",
    "a: b",
    "#x",
    "&a",
    "*a",
    "!tag",
    "%x",
    "@x",
    "`x",
    "|",
    ">",
    "'",
    "\"",
    "{}",
    "[]",
    "---",
    "...",
    "line1\nline2",
    "trailing\n",
    "\n",
    " lead",
    "trail ",
    "tab\there",
    "cr\r\nlf",
    "\u{feff}bom",
    "é",
    "日本",
];

fn text() -> BoxedStrategy<String> {
    prop_oneof![
        3 => prop::sample::select(LOOKALIKES).prop_map(str::to_string),
        3 => "[ -~]{0,24}",
        1 => "\\PC{0,12}",
        1 => "[a-z]{1,8}( [a-z]{1,8}){0,3}\n[a-z ]{0,20}\n?",
    ]
    .boxed()
}

fn key() -> BoxedStrategy<String> {
    prop_oneof![2 => "[a-zA-Z][a-zA-Z0-9_.-]{0,10}", 1 => prop::sample::select(LOOKALIKES).prop_map(str::to_string), 1 => "[ -~]{1,12}"]
        .boxed()
}

fn scalar() -> BoxedStrategy<Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        2 => any::<i64>().prop_map(|i| json!(i)),
        1 => any::<u64>().prop_map(|u| json!(u)),
        1 => prop::num::f64::NORMAL.prop_map(|f| json!(f)),
        1 => prop_oneof![Just(0.5f64), Just(-0.0), Just(1e300), Just(1.0), Just(2.5e-300)].prop_map(|f| json!(f)),
        4 => text().prop_map(Value::String),
    ]
    .boxed()
}

/// JSON-like values up to 4 levels deep.
fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// One catalog entry's shape: (platform, accelerator) pairs that exist in catalog/accelerators.
const SHAPES: &[(Option<&str>, &str, Option<u32>)] = &[
    (None, r#"{"cpu": {}}"#, Some(1)),
    (None, r#"{"cpu": {}}"#, Some(3)),
    (Some("gke"), r#"{"gpu": {"model": "h100-80gb", "count": 8}}"#, Some(2)),
    (Some("gke"), r#"{"gpu": {"model": "l4", "count": 1}}"#, None),
    (Some("eks"), r#"{"gpu": {"model": "h200-141gb", "count": 8}}"#, Some(4)),
    (Some("aks"), r#"{"gpu": {"model": "a100-80gb", "count": 4}}"#, Some(2)),
    (Some("generic"), r#"{"gpu": {"model": "b200", "count": 8}}"#, Some(1)),
    (Some("gke"), r#"{"tpu": {"type": "v5e", "topology": "2x2"}}"#, None),
    (Some("gke"), r#"{"tpu": {"type": "v6e", "topology": "4x4"}}"#, None),
    (Some("gke"), r#"{"tpu": {"type": "v5p", "topology": "2x2x2"}}"#, None),
];

#[derive(Debug, Clone)]
struct Entry {
    shape: usize,
    namespace: bool,
    description: Option<String>,
    labels: Vec<(String, String)>,
    env: Vec<(String, String)>,
    args: Vec<String>,
}

fn entry() -> impl Strategy<Value = Entry> {
    (
        0..SHAPES.len(),
        prop::bool::weighted(0.2),
        prop::option::of(text()),
        prop::collection::vec(("[a-z]{1,8}(\\.[a-z]{1,5})?/[a-z]([a-z0-9-]{0,7}[a-z0-9])?", "[a-z0-9]([a-z0-9.-]{0,10}[a-z0-9])?"), 0..3),
        prop::collection::vec(("[A-Z][A-Z0-9_]{0,10}", text()), 0..4),
        prop::collection::vec(text(), 0..3),
    )
        .prop_map(|(shape, namespace, description, labels, env, args)| Entry { shape, namespace, description, labels, env, args })
}

/// A valid catalog: entries with unique names (`rt-<i>`), optionally a JaxRuntimeDefaults.
fn catalog() -> impl Strategy<Value = Vec<Value>> {
    (prop::collection::vec(entry(), 1..6), prop::option::of(prop::collection::vec(("[a-z]{1,8}", "[a-z0-9]{1,8}"), 1..3))).prop_map(
        |(entries, defaults)| {
            let mut docs = Vec::new();
            if let Some(labels) = defaults {
                let labels: Map<String, Value> = labels.into_iter().map(|(k, v)| (format!("example.com/{k}"), json!(v))).collect();
                docs.push(json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeDefaults",
                    "metadata": {"name": "defaults"}, "spec": {"labels": labels}}));
            }
            for (i, e) in entries.into_iter().enumerate() {
                let (platform, accel, nodes) = SHAPES[e.shape];
                let mut spec = Map::new();
                if let Some(d) = e.description {
                    spec.insert("description".into(), json!(d));
                }
                if let Some(p) = platform {
                    spec.insert("platform".into(), json!(p));
                }
                spec.insert("accelerator".into(), serde_json::from_str(accel).unwrap());
                if let Some(n) = nodes {
                    spec.insert("numNodes".into(), json!(n));
                }
                // Unique env names: the last value of a repeated name would win, which is fine,
                // but keeps the entry simple to read in a failure report.
                let mut env: Vec<(String, String)> = e.env;
                env.sort_by(|a, b| a.0.cmp(&b.0));
                env.dedup_by(|a, b| a.0 == b.0);
                if !env.is_empty() {
                    spec.insert("env".into(), Value::Array(env.into_iter().map(|(n, v)| json!({"name": n, "value": v})).collect()));
                }
                if !e.args.is_empty() {
                    spec.insert("args".into(), json!(e.args));
                }
                let mut metadata = Map::new();
                metadata.insert("name".into(), json!(format!("rt-{i}")));
                if e.namespace {
                    metadata.insert("namespace".into(), json!("team-a"));
                }
                if !e.labels.is_empty() {
                    metadata.insert("labels".into(), Value::Object(e.labels.into_iter().map(|(k, v)| (k, json!(v))).collect()));
                }
                docs.push(json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntime", "metadata": metadata, "spec": spec}));
            }
            docs
        },
    )
}

/// YAML-ish token soup: reaches far more parser states than uniformly random text.
fn yamlish() -> impl Strategy<Value = String> {
    const TOKENS: &[&str] = &[
        "kind: ResourceList\n",
        "apiVersion: jax-runtimes.dev/v1alpha1\n",
        "kind: JaxRuntime\n",
        "items:\n",
        "- ",
        "  ",
        "\n",
        "{",
        "}",
        "[",
        "]",
        ", ",
        ": ",
        "key",
        "spec",
        "metadata: {name: x}\n",
        "&a ",
        "*a",
        "&b [*a, *a]\n",
        "!!str ",
        "!!binary ",
        "!custom ",
        "? ",
        "---\n",
        "...\n",
        "|\n  text\n",
        ">-\n",
        "\"quoted\\u00e9\"",
        "'single''s'",
        "#c\n",
        "%YAML 1.2\n",
        "%TAG ! tag:x:\n",
        "<<: *a\n",
        ".nan",
        "1e999",
        "0777",
        "~",
        "\t",
        "\u{feff}",
        "\r\n",
        "é",
        "\\",
    ];
    prop::collection::vec(prop::sample::select(TOKENS), 0..40).prop_map(|t| t.concat())
}

// ---------------------------------------------------------------- properties

proptest! {
    #![proptest_config(support::proptest_config())]

    /// Same catalog, same bytes; and the KRM function reaches a fixed point in one run.
    #[test]
    fn render_is_deterministic_and_the_function_idempotent(docs in catalog()) {
        let text = yaml::to_stream(&docs).unwrap();
        let first = render(&text);
        let first = match first {
            Ok(s) => s,
            Err(e) => return Err(TestCaseError::fail(format!("a valid catalog was refused: {e:#?}\n{text}"))),
        };
        prop_assert_eq!(&first, &render(&text).unwrap(), "two renders differ");
        prop_assert_eq!(yaml::parse_stream(&first).unwrap().len(), docs.iter().filter(|d| d["kind"] == "JaxRuntime").count());

        let input = yaml::to_string(&resource_list(docs)).unwrap();
        let (code, once, err) = krm_run(input.as_bytes());
        prop_assert_eq!(code, 0, "{}", err);
        let (code, twice, err) = krm_run(once.as_bytes());
        prop_assert_eq!(code, 0, "{}", err);
        prop_assert_eq!(&once, &twice, "output fed back changed");
        let (_, again, _) = krm_run(input.as_bytes());
        prop_assert_eq!(&once, &again, "two runs on the same input differ");
    }

    /// Objects the function does not own come back as they went in, in YAML and in JSON.
    #[test]
    fn passthrough_preserves_arbitrary_objects(specs in prop::collection::vec(value(), 1..5), as_json in any::<bool>()) {
        let items: Vec<Value> = specs
            .into_iter()
            .enumerate()
            .map(|(i, spec)| json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": format!("t{i}")}, "spec": spec, "data": {"v": "on"}}))
            .collect();
        let list = resource_list(items.clone());
        let input = if as_json { serde_json::to_string(&list).unwrap() } else { yaml::to_string(&list).unwrap() };
        let (code, out, err) = krm_run(input.as_bytes());
        prop_assert_eq!(code, 0, "{}\ninput:\n{}", err, input);
        prop_assert_eq!(out.trim_start().starts_with('{'), as_json, "the output format follows the input's");
        let back = if as_json { serde_json::from_str::<Value>(&out).unwrap() } else { yaml::parse_one(&out).unwrap() };
        prop_assert_eq!(&back["items"], &Value::Array(items), "\ninput:\n{}\noutput:\n{}", input, out);
    }

    /// The ResourceList reader (the whole function) never panics on arbitrary bytes.
    #[test]
    fn resource_list_reader_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let (code, out, err) = krm_run(&bytes);
        if code == 0 {
            // Random bytes rarely form a ResourceList; when they do, the output is one.
            prop_assert_eq!(&yaml::parse_one(&out).unwrap()["kind"], "ResourceList");
        } else {
            prop_assert!(!err.is_empty(), "non-zero exit without a message");
        }
    }

    /// ... nor on YAML-ish text, and never exits 0 with an error result or fails silently.
    #[test]
    fn resource_list_reader_never_panics_on_yamlish_text(text in yamlish()) {
        let (code, out, err) = krm_run(text.as_bytes());
        if code != 0 {
            prop_assert!(!err.is_empty(), "non-zero exit without a message");
        }
        if code == 2 {
            let v = yaml::parse_one(&out).unwrap();
            prop_assert_eq!(&v["items"], &json!([]), "items after a refused input");
        }
    }

    /// The catalog reader and the pipeline never panic on arbitrary text: they render (a stream
    /// that parses back, one document per runtime) or refuse with located, registered errors.
    #[test]
    fn catalog_reader_never_panics(text in prop_oneof![yamlish(), "\\PC{0,200}".boxed()]) {
        match render(&text) {
            Ok(out) => {
                let back = yaml::parse_stream(&out);
                prop_assert!(back.is_ok(), "render wrote YAML that does not parse:\n{}", out);
            }
            Err(errors) => assert_refused_well(&errors)?,
        }
        // The line index never points past the text.
        let lines = text.lines().count().max(1);
        let index = jax_runtimes::yaml::LineIndex::new(&text);
        for doc in 0..4 {
            if let Some(l) = index.line(doc, "") {
                prop_assert!(l >= 1 && l <= lines + 1, "line {} of a {}-line text", l, lines);
            }
        }
    }

    /// Catalog-shaped documents with arbitrary values in every field: located errors (or a
    /// runtime), never a panic; the KRM function then fails with an error result, or succeeds.
    #[test]
    fn catalog_reader_never_panics_on_wrong_types(spec in value(), metadata in value(), kind in prop::sample::select(&["JaxRuntime", "JaxRuntimeDefaults", "JaxRuntimeMatrix"][..])) {
        let doc = json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": kind, "metadata": metadata, "spec": spec});
        let text = yaml::to_string(&doc).unwrap();
        let rendered = render(&text);
        if let Err(errors) = &rendered {
            assert_refused_well(errors)?;
        }
        let rl = yaml::to_string(&resource_list(vec![doc])).unwrap();
        let (code, out, err) = krm_run(rl.as_bytes());
        prop_assert!(code == 0 || code == 1, "exit {} on a well-formed ResourceList: {}", code, err);
        let list = yaml::parse_one(&out).unwrap();
        let errors = list["results"].as_array().map(|r| r.iter().filter(|r| r["severity"] == "error").count()).unwrap_or(0);
        prop_assert_eq!(code == 1, errors > 0, "the exit code and the error results agree: {}", out);
        prop_assert_eq!(rendered.is_err(), code == 1, "the CLI and the function agree on the catalog: {}", out);
    }
}
