//! `jax-runtimes schema --kubeconform DIR`: the exported schemas, judged by their consumers.
//!
//! kubeconform reads a schema per kind from `-schema-location
//! 'DIR/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json'`. kubeconform itself is no
//! Debian or PyPI package, so the end-to-end test runs another real consumer of the same files,
//! `check-jsonschema` (tests/python/requirements.txt), with each exported schema: over every
//! built-in runtime, every object of the built-in catalog and a TrainJob (all pass), and over
//! mistakes (each refused at the field `validate` names): the structure cases of the validate
//! corpora (tests/validate/*.yaml) and catalog and TrainJob typos. kubeconform itself runs over
//! the same objects when it is on PATH; Kueue objects (the example fleet's and Kueue's guides') and
//! `preview --jobset`'s JobSet are among the good, Kueue and JobSet typos among the mistakes; when it is not, that test says NOT RUN (tests/run's
//! closing notice names it). The plain tests check the layout, that every file is a valid JSON
//! Schema, the same verdicts with the `jsonschema` crate, and the folder's ownership (all or
//! nothing, only its own files replaced or pruned).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use jax_runtimes::rules;
use jax_runtimes::Severity;
use serde_json::{json, Value};

/// The template kubeconform is given (relative to the folder).
const TEMPLATE: &str = "{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json";

/// Every file the export writes, for the default release.
const FILES: [&str; 24] = [
    "jax-runtimes.dev/jaxcluster_v1alpha1.json",
    "jax-runtimes.dev/jaxruntime_v1alpha1.json",
    "jax-runtimes.dev/jaxruntimedefaults_v1alpha1.json",
    "jax-runtimes.dev/jaxruntimematrix_v1alpha1.json",
    "jax-runtimes.dev/jaxruntimequeue_v1alpha1.json",
    "jax-runtimes.dev/jaxruntimevalidation_v1alpha1.json",
    "jobset.x-k8s.io/jobset_v1alpha2.json",
    "kueue.x-k8s.io/admissioncheck_v1beta1.json",
    "kueue.x-k8s.io/admissioncheck_v1beta2.json",
    "kueue.x-k8s.io/clusterqueue_v1beta1.json",
    "kueue.x-k8s.io/clusterqueue_v1beta2.json",
    "kueue.x-k8s.io/cohort_v1beta1.json",
    "kueue.x-k8s.io/cohort_v1beta2.json",
    "kueue.x-k8s.io/localqueue_v1beta1.json",
    "kueue.x-k8s.io/localqueue_v1beta2.json",
    "kueue.x-k8s.io/resourceflavor_v1beta1.json",
    "kueue.x-k8s.io/resourceflavor_v1beta2.json",
    "kueue.x-k8s.io/topology_v1beta1.json",
    "kueue.x-k8s.io/topology_v1beta2.json",
    "kueue.x-k8s.io/workloadpriorityclass_v1beta1.json",
    "kueue.x-k8s.io/workloadpriorityclass_v1beta2.json",
    "trainer.kubeflow.org/clustertrainingruntime_v1alpha1.json",
    "trainer.kubeflow.org/trainingruntime_v1alpha1.json",
    "trainer.kubeflow.org/trainjob_v1alpha1.json",
];

/// One object to check: a name for messages and file names, and for a mistake the field
/// `validate` reports.
struct Instance {
    name: String,
    value: Value,
    field: Option<String>,
}

impl Instance {
    /// Where kubeconform's template finds its schema.
    fn schema(&self) -> String {
        let api = self.value["apiVersion"].as_str().unwrap();
        let (group, version) = api.split_once('/').unwrap();
        format!("{group}/{}_{version}.json", self.value["kind"].as_str().unwrap().to_lowercase())
    }
}

/// `jax-runtimes schema --kubeconform DIR ARGS...`.
fn export(dir: &Path, args: &[&str]) -> support::Run {
    let mut all = vec!["schema", "--kubeconform", dir.to_str().unwrap()];
    all.extend(args);
    support::run(&all, None)
}

/// The exported files of a fresh folder.
fn exported() -> (tempfile::TempDir, BTreeMap<String, Value>) {
    let dir = tempfile::tempdir().unwrap();
    let r = export(dir.path(), &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    let files = support::text_tree(dir.path()).into_iter().map(|(k, v)| (k, serde_json::from_str(&v).unwrap())).collect();
    (dir, files)
}

/// What every consumer must accept: the built-in runtimes, every object of the built-in catalog,
/// the README's TrainJob, the JobSet `preview --jobset` makes of it, the Kueue objects of the
/// example fleet (`jax-runtimes kueue`'s) and of Kueue's own guides (tests/public/kueue).
fn good() -> Vec<Instance> {
    let runtimes = support::render(&[]);
    // The runtimes (the DRA runtimes' ResourceClaimTemplates are a Kubernetes kind and A4X Max's
    // ComputeDomain the NVIDIA driver's, not exported here).
    let mut out: Vec<Instance> = support::documents(&runtimes)
        .into_iter()
        .filter(|v| v["kind"] != "ResourceClaimTemplate" && v["kind"] != "ComputeDomain")
        .map(|v| Instance { name: format!("runtime-{}", support::name_of(&v)), value: v, field: None })
        .collect();
    assert!(out.len() >= 30, "the built-in catalog renders {} runtimes", out.len());
    let mut catalog: Vec<PathBuf> =
        std::fs::read_dir(support::root().join("catalog/runtimes")).unwrap().map(|e| e.unwrap().path()).collect();
    catalog.sort();
    for file in catalog {
        for (i, v) in support::documents(&std::fs::read_to_string(&file).unwrap()).into_iter().enumerate() {
            let stem = file.file_stem().unwrap().to_string_lossy().to_string();
            out.push(Instance { name: format!("catalog-{stem}-{i}"), value: v, field: None });
        }
    }
    out.push(Instance { name: "trainjob".into(), value: trainjob(), field: None });
    out.push(Instance { name: "jobset".into(), value: jobset(&runtimes), field: None });
    let kueue = |file: &str| -> Vec<Value> {
        let text = std::fs::read_to_string(support::root().join(file)).unwrap();
        support::documents(&text)
            .into_iter()
            .filter(|v| v["apiVersion"].as_str().is_some_and(|a| a.starts_with("kueue.x-k8s.io/")))
            .collect()
    };
    let mut queues: Vec<String> = std::fs::read_dir(support::root().join("functions/fleet/deploy/runtimes"))
        .unwrap()
        .map(|e| format!("functions/fleet/deploy/runtimes/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|f| f.contains("/kueue_"))
        .collect();
    queues.sort();
    queues.extend(["tests/public/kueue/single-clusterqueue-setup.yaml".to_string(), "tests/public/kueue/tas-gpu-queues.yaml".to_string()]);
    let mut kinds = std::collections::BTreeSet::new();
    for file in queues {
        for (i, v) in kueue(&file).into_iter().enumerate() {
            kinds.insert(v["kind"].as_str().unwrap().to_string());
            let stem = Path::new(&file).file_stem().unwrap().to_string_lossy().to_string();
            out.push(Instance { name: format!("{stem}-{i}"), value: v, field: None });
        }
    }
    assert!(kinds.len() >= 4, "Kueue kinds among the good objects: {kinds:?}");
    out
}

/// The JobSet Trainer makes of [`trainjob`] on the built-in runtimes (`preview --jobset`).
fn jobset(runtimes: &str) -> Value {
    let work = tempfile::tempdir().unwrap();
    let (rt, tj) = (work.path().join("runtimes.yaml"), work.path().join("trainjob.json"));
    std::fs::write(&rt, runtimes).unwrap();
    std::fs::write(&tj, trainjob().to_string()).unwrap();
    let r = support::run(&["preview", tj.to_str().unwrap(), "--runtimes", rt.to_str().unwrap(), "--jobset"], None);
    assert_eq!(r.code, 0, "{}", r.all());
    let docs = support::documents(&r.stdout);
    assert_eq!(docs.len(), 1, "{}", r.stdout);
    assert_eq!(docs[0]["kind"], "JobSet");
    docs[0].clone()
}

fn trainjob() -> Value {
    json!({
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "hello-jax"},
        "spec": {"runtimeRef": {"name": "jax-cpu"}, "trainer": {"command": ["python", "-c", "print(1)"], "numNodes": 2}}
    })
}

/// What every consumer must refuse: each structure case of the validate corpora that `validate`
/// reports as an error (an unknown field, a wrong type, a value outside an enum, a missing
/// required field, a broken format or constraint), and catalog and TrainJob typos.
fn mistakes() -> Vec<Instance> {
    // Not expressible in JSON Schema: the uniqueness of a keyed list's keys. Not structure: a CRD
    // that does not cover the kind.
    let left_out = ["crd/duplicate-key", "schema/duplicate-key", "crd/not-covered"];
    let mut out = Vec::new();
    for case in support::validate_corpus::corpus().into_iter().chain(support::validate_corpus::kubernetes_corpus()) {
        let Some(expect) = &case.expect else { continue };
        let structure = expect.rule.starts_with("schema/") || expect.rule.starts_with("crd/");
        let error = rules::by_id(&expect.rule).is_some_and(|r| r.severity == Severity::Error);
        if structure && error && !left_out.contains(&expect.rule.as_str()) {
            let name = case.name.replace(|c: char| !c.is_ascii_alphanumeric(), "-");
            out.push(Instance { name, value: case.object(), field: Some(expect.field.clone()) });
        }
    }
    assert!(out.len() >= 12, "the corpora give {} structure mistakes", out.len());
    let mut catalog = |name: &str, value: Value, field: &str| out.push(Instance { name: name.into(), value, field: Some(field.into()) });
    let runtime =
        |spec: Value| json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntime", "metadata": {"name": "x"}, "spec": spec});
    catalog("catalog-unknown-field", runtime(json!({"accelerater": {"cpu": {}}})), "spec.accelerater");
    catalog("catalog-bad-enum", runtime(json!({"platform": "gkee", "accelerator": {"cpu": {}}})), "spec.platform");
    catalog(
        "catalog-wrong-type",
        runtime(json!({"accelerator": {"tpu": {"type": "v5e", "topology": 44}}})),
        "spec.accelerator.tpu.topology",
    );
    let mut job = trainjob();
    job["spec"]["trainer"]["numNode"] = json!(2);
    catalog("trainjob-unknown-field", job, "spec.trainer.numNode");
    let mut job = trainjob();
    job["spec"]["trainer"]["numNodes"] = json!("two");
    catalog("trainjob-wrong-type", job, "spec.trainer.numNodes");
    let queue =
        |spec: Value| json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "q"}, "spec": spec});
    catalog("kueue-unknown-field", queue(json!({"namespaceSelector": {}, "cohrtName": "c"})), "spec.cohrtName");
    catalog("kueue-bad-enum", queue(json!({"namespaceSelector": {}, "queueingStrategy": "Fifo"})), "spec.queueingStrategy");
    catalog(
        "kueue-too-few-flavors",
        queue(json!({"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": []}]})),
        "spec.resourceGroups[0].flavors",
    );
    catalog(
        "kueue-flavor-unknown-field",
        json!({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "f"}, "spec": {"nodeLabel": {"a": "b"}}}),
        "spec.nodeLabel",
    );
    catalog(
        "jobset-unknown-field",
        json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j"}, "spec": {"replicatedJob": []}}),
        "spec.replicatedJob",
    );
    out
}

/// Writes each instance as `DIR/NAME.json`, grouped by the schema that judges it.
fn write<'a>(dir: &Path, instances: &'a [Instance]) -> BTreeMap<String, Vec<(PathBuf, &'a Instance)>> {
    let mut by_schema: BTreeMap<String, Vec<(PathBuf, &Instance)>> = BTreeMap::new();
    for (i, inst) in instances.iter().enumerate() {
        let file = dir.join(format!("{i:03}-{}.json", inst.name));
        std::fs::write(&file, serde_json::to_string_pretty(&inst.value).unwrap()).unwrap();
        by_schema.entry(inst.schema()).or_default().push((file, inst));
    }
    by_schema
}

/// The field a JSON path such as `$.spec.template["a.b"][0]` names, as `validate` writes fields
/// (`spec.template.a.b[0]`).
fn field_of(path: &str) -> String {
    let p = path.trim_start_matches('$').trim_start_matches('.');
    p.replace("[\"", ".").replace("\"]", "").replace("['", ".").replace("']", "")
}

#[test]
fn the_export_is_kubeconforms_layout_of_valid_json_schemas() {
    let (_dir, files) = exported();
    assert_eq!(files.keys().map(String::as_str).collect::<Vec<_>>(), FILES);
    for (path, schema) in &files {
        jsonschema::meta::validate(schema).unwrap_or_else(|e| panic!("{path} is not a valid JSON Schema: {e}"));
        // kubeconform finds it by the object's group, kind and version: the schema names them.
        let (group, rest) = path.split_once('/').unwrap();
        let (kind, version) = rest.trim_end_matches(".json").split_once('_').unwrap();
        let kinds = schema.pointer("/properties/kind").unwrap();
        let named = kinds["const"].as_str().or_else(|| kinds["enum"][0].as_str()).unwrap();
        assert_eq!(named.to_lowercase(), kind, "{path}");
        let api = schema.pointer("/properties/apiVersion").unwrap();
        let api = api["const"].as_str().or_else(|| api["enum"][0].as_str()).unwrap();
        assert_eq!(api, format!("{group}/{version}"), "{path}");
    }
}

/// The same verdicts as check-jsonschema's, with the `jsonschema` crate (no custom keyword: the
/// files are standard JSON Schema).
#[test]
fn the_jsonschema_crate_accepts_the_good_and_refuses_the_mistakes() {
    let (_dir, files) = exported();
    let validators: BTreeMap<&str, jsonschema::Validator> = files
        .iter()
        .map(|(p, s)| (p.as_str(), jsonschema::options().should_validate_formats(true).build(s).unwrap_or_else(|e| panic!("{p}: {e}"))))
        .collect();
    let mut wrong = Vec::new();
    for inst in good() {
        let errors: Vec<String> =
            validators[inst.schema().as_str()].iter_errors(&inst.value).map(|e| format!("{e} at {}", e.instance_path())).collect();
        if !errors.is_empty() {
            wrong.push(format!("{}: refused: {}", inst.name, errors.join("; ")));
        }
    }
    for inst in mistakes() {
        let field = inst.field.as_deref().unwrap();
        let at: Vec<String> = validators[inst.schema().as_str()]
            .iter_errors(&inst.value)
            .map(|e| e.instance_path().to_string().trim_start_matches('/').replace('/', "."))
            .filter(|a| !a.is_empty())
            .collect();
        // The error is at the field, or at the object that lacks or refuses it (never the root:
        // no mistake is there).
        let dotted = |f: &str| f.replace('[', ".").replace(']', "");
        if !at.iter().any(|a| dotted(field).starts_with(a.as_str())) {
            wrong.push(format!("{}: expected an error at `{field}`, got {at:?}", inst.name));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_folder_is_written_all_or_nothing_and_only_its_own_files_change() {
    let dir = tempfile::tempdir().unwrap();
    let r = export(dir.path(), &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(r.stdout, "", "the files, not stdout");
    for f in FILES {
        assert!(r.stderr.contains(&format!("{} (created)", dir.path().join(f).display())), "{f}: {}", r.stderr);
    }
    assert!(r.stderr.contains(&format!("-schema-location '{}/{TEMPLATE}'", dir.path().display())), "{}", r.stderr);
    let first = support::tree(dir.path());

    // Again: nothing changes. Another release: only the Trainer files.
    let again = export(dir.path(), &[]);
    assert_eq!((again.code, support::tree(dir.path()) == first), (0, true), "{}", again.all());
    assert!(again.stderr.contains("(0 created, 0 updated, 0 pruned)"), "{}", again.stderr);
    let older = export(dir.path(), &["--trainer-version", "v2.2"]);
    assert_eq!(older.code, 0, "{}", older.all());
    assert!(older.stderr.contains("(0 created, 3 updated, 0 pruned)"), "{}", older.stderr);
    let trainjob = std::fs::read_to_string(dir.path().join("trainer.kubeflow.org/trainjob_v1alpha1.json")).unwrap();
    assert!(trainjob.contains("Kubeflow Trainer v2.2.1"), "v2.2 is its newest patch");

    // A stale file it wrote is pruned; the user's files are left alone, and one that holds a
    // name it writes stops it before anything is written.
    let stale = dir.path().join("trainer.kubeflow.org/optimizationjob_v1alpha1.json");
    std::fs::write(&stale, format!("{}\"}}\n", jax_runtimes::validate::export::HEADER)).unwrap();
    std::fs::write(dir.path().join("trainer.kubeflow.org/mine.json"), "{}\n").unwrap();
    let r = export(dir.path(), &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(!stale.exists() && dir.path().join("trainer.kubeflow.org/mine.json").exists());
    assert!(r.stderr.contains("(0 created, 3 updated, 1 pruned)"), "{}", r.stderr);
    std::fs::write(dir.path().join(FILES[0]), "{\"title\": \"mine\"}\n").unwrap();
    let before = support::tree(dir.path());
    let r = export(dir.path(), &["--trainer-version", "v2.0"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("was not generated by jax-runtimes"), "{}", r.stderr);
    assert_eq!(support::tree(dir.path()), before, "nothing written");

    // A release it does not hold is a usage error; without --kubeconform the command prints the
    // catalog schema, as it always has.
    let r = export(dir.path(), &["--trainer-version", "v1.9"]);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stderr.contains("unknown Trainer release `v1.9`"), "{}", r.stderr);
    let plain = support::run(&["schema"], None);
    assert_eq!(plain.code, 0);
    assert_eq!(plain.stdout, std::fs::read_to_string(support::root().join("docs/schema/jax-runtimes.schema.json")).unwrap());
}

/// check-jsonschema with every exported schema: the good pass, each mistake is refused at its field.
#[test]
fn check_jsonschema_accepts_the_good_and_refuses_the_mistakes() {
    let python = support::python();
    let (schemas, files) = exported();
    let work = tempfile::tempdir().unwrap();
    let (good_dir, bad_dir) = (work.path().join("good"), work.path().join("bad"));
    std::fs::create_dir_all(&good_dir).unwrap();
    std::fs::create_dir_all(&bad_dir).unwrap();
    let good = good();
    let mistakes = mistakes();
    let check = |schema: &str, instances: &[(PathBuf, &Instance)]| -> Value {
        let out = Command::new(&python)
            .args(["-m", "check_jsonschema", "--output-format", "json", "--schemafile"])
            .arg(schemas.path().join(schema))
            .args(instances.iter().map(|(f, _)| f))
            .output()
            .expect("run check-jsonschema");
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("check-jsonschema --schemafile {schema}: {e}\n{}", support::show(&out)))
    };
    let mut wrong = Vec::new();
    let mut checked = (0, 0);
    for (schema, instances) in write(&good_dir, &good) {
        assert!(files.contains_key(&schema), "no exported schema {schema}");
        let report = check(&schema, &instances);
        if report["status"] != "ok" {
            wrong.push(format!("{schema}: refused what the API server accepts: {report:#}"));
        }
        checked.0 += instances.len();
    }
    for (schema, instances) in write(&bad_dir, &mistakes) {
        let report = check(&schema, &instances);
        assert!(report["parse_errors"].as_array().is_some_and(Vec::is_empty), "{schema}: {report:#}");
        for (file, inst) in &instances {
            let field = inst.field.as_deref().unwrap();
            let at: Vec<String> = report["errors"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["filename"].as_str() == file.to_str())
                .map(|e| field_of(e["path"].as_str().unwrap()))
                .filter(|a| !a.is_empty())
                .collect();
            if !at.iter().any(|a| field.starts_with(a.as_str())) {
                wrong.push(format!("{schema}: {}: expected an error at `{field}`, got {at:?}", inst.name));
            }
            checked.1 += 1;
        }
    }
    assert!(wrong.is_empty(), "check-jsonschema disagrees with validate:\n{}", wrong.join("\n"));
    println!("check-jsonschema: {} objects accepted, {} mistakes refused", checked.0, checked.1);
}

/// kubeconform itself, when it is on PATH (it is no Debian or PyPI package; elsewhere the test says
/// NOT RUN): the good pass, each mistake is invalid (not a missing schema).
#[test]
fn kubeconform_accepts_the_good_and_refuses_the_mistakes() {
    let Some(kubeconform) = which("kubeconform") else {
        support::reference::not_run(
            "kubeconform",
            &support::reference::test_name(),
            "kubeconform is not on PATH (no Debian or PyPI package; `go install github.com/yannh/kubeconform/cmd/kubeconform@v0.7.0`); \
             check_jsonschema_accepts_the_good_and_refuses_the_mistakes checks the same files",
        );
        return;
    };
    let (schemas, _) = exported();
    let work = tempfile::tempdir().unwrap();
    let good = good();
    write(work.path(), &good);
    let location = format!("{}/{TEMPLATE}", schemas.path().display());
    let run =
        |dir: &Path| Command::new(&kubeconform).args(["-strict", "-summary", "-schema-location", &location]).arg(dir).output().unwrap();
    let ok = run(work.path());
    assert!(ok.status.success(), "kubeconform refused what the API server accepts:\n{}", support::show(&ok));
    for (i, inst) in mistakes().iter().enumerate() {
        let one = tempfile::tempdir().unwrap();
        std::fs::write(one.path().join("x.json"), serde_json::to_string(&inst.value).unwrap()).unwrap();
        let o = run(one.path());
        let invalid = o.status.code() == Some(1) && String::from_utf8_lossy(&o.stdout).contains("is invalid");
        assert!(invalid, "kubeconform did not find mistake {i} ({}) invalid:\n{}", inst.name, support::show(&o));
    }
}

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}
