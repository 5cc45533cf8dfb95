//! In-process benchmarks (divan): render and validate throughput, the cost per entry from 10 to
//! 100,000 entries (items/s must stay flat: linear total), the YAML floor render is compared
//! with, render of a catalog with a `JaxRuntimeQueue` (1,000 and 10,000 runtimes with their
//! Kueue objects), and the KRM function on an empty and on a large ResourceList.
//!
//!   cargo bench --bench render                      # everything (100,000 entries: minutes)
//!   cargo bench --bench render -- render floor      # only those groups
//!   JAX_BENCH_MAX=10000 cargo bench --bench render  # skip the sizes above 10,000
//!
//! Catalogs come from benches/gen_catalog.py (plain JaxRuntime entries), generated on first use
//! into target/bench-catalogs/. Process-level numbers (start-up, peak memory, the comparisons
//! with kubectl kustomize, Python jsonschema and kpt) are in benches/compare.sh.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use divan::counter::{BytesCount, ItemsCount};
use divan::{black_box, Bencher};
use jax_runtimes::krm;
use jax_runtimes::read::{self, Document, Source};
use jax_runtimes::{pipeline, validate, write, yaml};
use serde_json::Value;

// The allocator the binary ships with (src/main.rs), so in-process numbers are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // `JAX_BENCH_FLOOR=N cargo bench --bench render`: render vs floor on N entries, alternating
    // runs in one process, and the ratio of the medians (what benches/compare.sh reports).
    if let Some(n) = std::env::var("JAX_BENCH_FLOOR").ok().and_then(|v| v.parse::<usize>().ok()) {
        floor_ratio(n);
        return;
    }
    // `JAX_BENCH_READ_FLOOR=CRD,RUNTIMES cargo bench --bench render`: what reading the inputs of
    // `validate --crd` costs before any check (the floor of validate's time).
    if let Ok(files) = std::env::var("JAX_BENCH_READ_FLOOR") {
        read_floor(&files.split(',').map(PathBuf::from).collect::<Vec<_>>());
        return;
    }
    divan::main();
}

fn floor_ratio(n: usize) {
    let text = catalog(n);
    let expected = render(&text);
    let output = yaml::parse_stream(&expected).unwrap();
    assert_eq!(floor(&text, &output), expected, "the floor must write the same bytes as render");
    let (mut r, mut f) = (Vec::new(), Vec::new());
    for _ in 0..15 {
        let t = std::time::Instant::now();
        black_box(render(black_box(&text)));
        r.push(t.elapsed().as_secs_f64());
        let t = std::time::Instant::now();
        black_box(floor(black_box(&text), black_box(&output)));
        f.push(t.elapsed().as_secs_f64());
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (r, f) = (median(&mut r), median(&mut f));
    let ratio = r / f;
    println!(
        "render {n} entries in process: {:.1} ms; floor (parse + write the same {} bytes with serde-saphyr): {:.1} ms; render/floor = {ratio:.2}x (target <= 1.5x, issue 28; <= 2x before): {}",
        r * 1e3,
        expected.len(),
        f * 1e3,
        if ratio <= 1.5 {
            "PASS"
        } else if ratio <= 2.0 {
            "FAIL (under the earlier 2x)"
        } else {
            "FAIL"
        }
    );
}

/// Median times to read `files` three ways: with the project's YAML reader (serde-saphyr into
/// JSON trees, as `validate` does), with serde-saphyr's parser alone (events, no values built),
/// and the same data converted to JSON, with serde_json. Prints one line, in milliseconds.
fn read_floor(files: &[PathBuf]) {
    let texts: Vec<String> = files.iter().map(|f| std::fs::read_to_string(f).expect("benchmark input reads")).collect();
    let jsons: Vec<String> = texts.iter().map(|t| serde_json::to_string(&yaml::parse_stream(t).unwrap()).unwrap()).collect();
    let median = |f: &dyn Fn()| {
        let mut v: Vec<f64> = (0..15)
            .map(|_| {
                let t = std::time::Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let values = median(&|| {
        for t in &texts {
            black_box(yaml::parse_stream(black_box(t)).unwrap());
        }
    });
    let events = median(&|| {
        for t in &texts {
            for e in serde_saphyr::granit_parser::Parser::new_from_str(black_box(t)) {
                black_box(e.unwrap());
            }
        }
    });
    let json = median(&|| {
        for j in &jsons {
            black_box(serde_json::from_str::<Value>(black_box(j)).unwrap());
        }
    });
    let bytes: usize = texts.iter().map(String::len).sum();
    // `validate --crd CRD RUNTIMES` in process, as src/cli/validate.rs runs it: the CRDs compile
    // on one thread while the inputs are read, then every document is checked.
    let validate = |files: &[PathBuf]| {
        let (crds, inputs) = files.split_at(1);
        let (opts, input) = std::thread::scope(|s| {
            let opts = s.spawn(|| validate::Options::with_crd_files(crds));
            let input = read::paths(inputs);
            (opts.join().unwrap(), input)
        });
        let docs = input.into_result().unwrap();
        jax_runtimes::cli::validate::check_documents(&docs, &opts.unwrap())
    };
    let findings = validate(files);
    assert!(findings.iter().all(|d| !d.is_error()), "the inputs validate: {:?}", findings.iter().find(|d| d.is_error()));
    let checked = median(&|| {
        black_box(validate(black_box(files)));
    });
    let ratio = checked / values;
    println!(
        "reading {bytes} bytes of YAML: {values:.1} ms into values (serde-saphyr, as validate reads), {events:.1} ms parser events alone; the same data as JSON with serde_json: {json:.1} ms; validate --crd in process {checked:.1} ms = {ratio:.2}x the read (target <= 2x): {}",
        if ratio <= 2.0 { "PASS" } else { "FAIL" }
    );
}

const SIZES: &[usize] = &[10, 1_000, 10_000, 100_000];

fn skip(n: usize) -> bool {
    std::env::var("JAX_BENCH_MAX").ok().and_then(|v| v.parse::<usize>().ok()).is_some_and(|max| n > max)
}

/// The catalog of `n` entries, generated once by benches/gen_catalog.py.
fn catalog(n: usize) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target/bench-catalogs");
    let path = dir.join(format!("catalog-{n}.yaml"));
    if !path.exists() {
        std::fs::create_dir_all(&dir).unwrap();
        let status = Command::new("python3")
            .arg(root.join("benches/gen_catalog.py"))
            .arg(n.to_string())
            .arg(&path)
            .status()
            .expect("python3 runs benches/gen_catalog.py");
        assert!(status.success(), "gen_catalog.py failed");
    }
    std::fs::read_to_string(path).unwrap()
}

fn parse(text: &str) -> Vec<Document> {
    read::parse_source(Arc::new(Source::new("catalog.yaml", Some(text.to_string())))).expect("catalog parses")
}

/// What `jax-runtimes render FILE` does after reading the file: parse, resolve, render,
/// validate, write the YAML stream.
fn render(text: &str) -> String {
    let docs = parse(text);
    let g = pipeline::generate_with(&docs, |r| write::Text::new(r.source().clone(), r.file_name.clone(), &r.object));
    assert!(!g.has_errors(), "the benchmark catalog must render: {:?}", g.diagnostics.first());
    let queues = g.queues.iter().map(|q| write::Text::new(q.source.clone(), q.file_name.clone(), &q.object));
    write::stream(&g.runtimes.into_iter().chain(queues).collect::<Result<Vec<_>, _>>().unwrap())
}

/// The catalog of `n` entries and a `JaxRuntimeQueue` serving every one of them (11 flavors,
/// three LocalQueues, two priority classes): what render's queue generation and its checks
/// (each served runtime admitted by a model of Kueue) add.
fn catalog_with_queue(n: usize) -> String {
    format!(
        "{}---\napiVersion: jax-runtimes.dev/v1alpha1\nkind: JaxRuntimeQueue\nmetadata: {{name: bench}}\nspec:\n  namespaces: [team-a, team-b, team-c]\n  cohort: bench\n  priorityClasses: [{{name: high, value: 1000}}, {{name: low, value: 10}}]\n",
        catalog(n)
    )
}

#[divan::bench(args = [1_000, 10_000], sample_count = 10, sample_size = 1)]
fn render_catalog_with_queue(bencher: Bencher, n: usize) {
    if skip(n) {
        return;
    }
    let text = catalog_with_queue(n);
    assert!(render(&text).contains("kind: ClusterQueue"), "the queue is generated");
    bencher.counter(ItemsCount::new(n)).bench(|| render(black_box(&text)));
}

/// The floor: parse the same catalog and write the same output bytes with the same YAML
/// library, and nothing else (the output values are computed beforehand).
fn floor(text: &str, output: &[Value]) -> String {
    let docs = yaml::parse_stream(text).unwrap();
    black_box(&docs);
    yaml::to_stream(output).unwrap()
}

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn render_catalog(bencher: Bencher, n: usize) {
    if skip(n) {
        return;
    }
    let text = catalog(n);
    bencher.counter(ItemsCount::new(n)).bench(|| render(black_box(&text)));
}

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn floor_catalog(bencher: Bencher, n: usize) {
    if skip(n) {
        return;
    }
    let text = catalog(n);
    let expected = render(&text);
    let output = yaml::parse_stream(&expected).unwrap();
    assert_eq!(floor(&text, &output), expected, "the floor must write the same bytes as render");
    bencher.counter(ItemsCount::new(n)).bench(|| floor(black_box(&text), black_box(&output)));
}

/// The stages of render separately, to see where the time goes.
mod stages {
    use super::*;

    #[divan::bench(args = [1_000, 10_000], sample_count = 10, sample_size = 1)]
    fn parse_catalog(bencher: Bencher, n: usize) {
        let text = catalog(n);
        bencher.counter(BytesCount::new(text.len())).bench(|| parse(black_box(&text)));
    }

    #[divan::bench(args = [1_000, 10_000], sample_count = 10, sample_size = 1)]
    fn generate(bencher: Bencher, n: usize) {
        let docs = parse(&catalog(n));
        bencher.counter(ItemsCount::new(n)).bench(|| pipeline::generate(black_box(&docs)));
    }

    #[divan::bench(args = [1_000, 10_000], sample_count = 10, sample_size = 1)]
    fn write_stream(bencher: Bencher, n: usize) {
        let g = pipeline::generate(&parse(&catalog(n)));
        bencher.counter(ItemsCount::new(n)).bench(|| {
            let texts: Vec<write::Text> = black_box(&g.runtimes)
                .iter()
                .map(|r| write::Text::new(r.source().clone(), r.file_name.clone(), &r.object).unwrap())
                .collect();
            write::stream(&texts)
        });
    }
}

/// The checks render runs on every generated runtime (typed model, CEL, admission, SDK, accelerators).
#[divan::bench(args = [1_000, 10_000], sample_count = 10, sample_size = 1)]
fn validate_generated(bencher: Bencher, n: usize) {
    let g = pipeline::generate(&parse(&catalog(n)));
    let objects: Vec<(Value, jax_runtimes::trainer::TrainingRuntime)> =
        g.runtimes.into_iter().map(|r| (r.object.clone(), serde_json::from_value(r.object).unwrap())).collect();
    bencher.counter(ItemsCount::new(n)).bench(|| {
        for (o, t) in &objects {
            black_box(validate::generated(black_box(o), t));
        }
    });
}

/// `validate` of what render writes for a catalog with a queue: the runtimes, the Kueue objects,
/// and the checks across them (each runtime's TrainJob through its ClusterQueue).
#[divan::bench(args = [1_000, 10_000], sample_count = 10, sample_size = 1)]
fn validate_with_queue(bencher: Bencher, n: usize) {
    if skip(n) {
        return;
    }
    let docs = parse(&render(&catalog_with_queue(n)));
    let opts = validate::Options::default();
    let errors = validate::objects(&docs, &opts).into_iter().filter(|d| d.is_error()).count();
    assert_eq!(errors, 0, "what render writes validates");
    bencher.counter(ItemsCount::new(n)).bench(|| validate::objects(black_box(&docs), &opts));
}

fn krm_run(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let code = krm::run(input, &mut out, &mut std::io::sink()).code();
    assert_eq!(code, 0);
    out
}

/// The function on an empty ResourceList: its fixed cost in process (process start-up is in
/// compare.sh).
#[divan::bench]
fn krm_empty(bencher: Bencher) {
    let input = b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n";
    bencher.bench(|| krm_run(black_box(input)));
}

/// The function passing through `n` ConfigMaps (10 of them catalog entries).
#[divan::bench(args = [1_000, 10_000], sample_count = 10, sample_size = 1)]
fn krm_passthrough(bencher: Bencher, n: usize) {
    let mut items = Vec::new();
    for i in 0..n - 10 {
        items.push(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": format!("cm-{i}"), "annotations": {"internal.config.kubernetes.io/path": format!("cm/{i}.yaml")}},
            "data": {"key": format!("value-{i}"), "flag": "on"}}));
    }
    items.extend(yaml::parse_stream(&catalog(10)).unwrap());
    let list = serde_json::json!({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items});
    let input = yaml::to_string(&list).unwrap();
    bencher.counter(ItemsCount::new(n)).bench(|| krm_run(black_box(input.as_bytes())));
}
