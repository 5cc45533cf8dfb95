//! `catalog/schemas/trainer/<release>.json`: the Kubeflow Trainer CRDs of each release (v2.0.0 to
//! v2.3.0, and `next`, master at a fixed commit), as data: for TrainJob, TrainingRuntime and
//! ClusterTrainingRuntime their plural, scope and versions, and each version's `openAPIV3Schema`
//! verbatim minus its `description` keywords (properties named `description` stay). The two runtime
//! kinds share one schema, `runtime`; the TrainJob's is `trainjob`.
//!
//! `catalog/schemas/kueue/v0.19.2.json` and `catalog/schemas/jobset/v0.12.0.json` are Kueue's and
//! JobSet's CRDs the same way ([`UPSTREAMS`]), a schema per kind and version.
//!
//! The files are generated from the upstream CRDs in `../shared/reference` (support::reference):
//! `UPDATE_SCHEMAS=1 cargo test --test schemas` writes them; without the variable the same test
//! fails on any difference between a file and the CRDs it was made from. The generator refuses a
//! release whose two runtime schemas differ (its file would need two keys).
//!
//! Layout, chosen for size and diffs: JSON, keys in the CRD's order, one node per line when the
//! whole line fits in 100 bytes, else its opening bracket, its members one per line (the same
//! rule, recursively) and its closing bracket, nothing indented. About 0.8 MB for the seven files;
//! pretty-printed with indent 1 they would be 2.6 MB.
//!
//! Nothing here is embedded in the binary yet: the other tests check that every file compiles
//! with the project's CRD machinery (`crd::compile`, as `validate --crd` does) and that Trainer
//! v2.3.0's built-in runtimes pass v2.3.0 and `next`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use jax_runtimes::validate::crd;
use jax_runtimes::Severity;
use serde_json::{json, Map, Value};

/// What writes the files.
const COMMAND: &str = "UPDATE_SCHEMAS=1 cargo test --test schemas";
/// Where the files are, from the project root.
const FOLDER: &str = "catalog/schemas/trainer";
/// The widest line the layout writes whole.
const WIDTH: usize = 100;
const GROUP: &str = "trainer.kubeflow.org";

/// One Trainer release: its name (the file's), where it comes from upstream, and where its CRDs
/// are in the reference data.
struct Release {
    name: &'static str,
    /// The release tag; `None` for `next` (an unreleased commit of `master`).
    tag: Option<&'static str>,
    commit: &'static str,
    /// The folder of its three CRD files, under the reference data.
    folder: &'static str,
}

const RELEASES: [Release; 7] = [
    Release { name: "v2.0.0", tag: Some("v2.0.0"), commit: "117ad23a", folder: "kubeflow-trainer-crds/v2.0.0" },
    Release { name: "v2.0.1", tag: Some("v2.0.1"), commit: "332ad393", folder: "kubeflow-trainer-crds/v2.0.1" },
    Release { name: "v2.1.0", tag: Some("v2.1.0"), commit: "73c9bece", folder: "kubeflow-trainer-crds/v2.1.0" },
    Release { name: "v2.2.0", tag: Some("v2.2.0"), commit: "dc7656ad", folder: "kubeflow-trainer-crds/v2.2.0" },
    Release { name: "v2.2.1", tag: Some("v2.2.1"), commit: "c505fc7c", folder: "kubeflow-trainer-crds/v2.2.1" },
    Release { name: "v2.3.0", tag: Some("v2.3.0"), commit: "658725bd", folder: "kubeflow-trainer-v2.3.0/crds" },
    Release { name: "next", tag: None, commit: "8c0f5059", folder: "kubeflow-trainer-crds/master-8c0f5059" },
];

/// The kinds a file holds: kind, plural (the CRD file is `trainer.kubeflow.org_<plural>.yaml`
/// upstream, under `manifests/base/crds/`), and the key of its schema in the file.
const KINDS: [(&str, &str, &str); 3] = [
    ("TrainJob", "trainjobs", "trainjob"),
    ("TrainingRuntime", "trainingruntimes", "runtime"),
    ("ClusterTrainingRuntime", "clustertrainingruntimes", "runtime"),
];

fn file_of(release: &Release) -> PathBuf {
    support::root().join(FOLDER).join(format!("{}.json", release.name))
}

/// `schema` without its `description` keywords. Only schema positions are walked: the names under
/// `properties` (a field may be called `description`), `default`, `enum`, `example` and the CEL
/// rules are kept as they are.
fn strip(schema: &Value) -> Value {
    let Value::Object(m) = schema else { return schema.clone() };
    let mut out = Map::new();
    for (k, v) in m {
        let v = match k.as_str() {
            "description" => continue,
            "properties" | "patternProperties" | "definitions" | "dependencies" => match v {
                Value::Object(named) => Value::Object(named.iter().map(|(name, s)| (name.clone(), sub(s))).collect()),
                other => other.clone(),
            },
            "items" | "additionalProperties" | "additionalItems" | "not" | "allOf" | "anyOf" | "oneOf" => sub(v),
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    Value::Object(out)
}

/// A subschema, or a list of them.
fn sub(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
        other => strip(other),
    }
}

/// The one CRD in `file`.
fn read_crd(file: &Path) -> Value {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut docs = jax_runtimes::yaml::parse_stream(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    assert_eq!(docs.len(), 1, "{}: expected one CRD", file.display());
    docs.remove(0)
}

/// The data file of `release`, from its CRDs in `dir`, laid out as written.
fn generate(release: &Release, dir: &Path) -> String {
    let mut kinds = Map::new();
    let mut schemas = Map::new();
    let mut paths = Map::new();
    // Which kind gave each schema key, to refuse two different schemas under one key.
    let mut given_by: Vec<(&str, &str)> = Vec::new();
    for (kind, plural, key) in KINDS {
        let name = format!("{GROUP}_{plural}.yaml");
        let file = dir.join(&name);
        let crd = read_crd(&file);
        let at = |p: &str| crd.pointer(p).unwrap_or_else(|| panic!("{}: no {p}", file.display()));
        assert_eq!(at("/kind"), "CustomResourceDefinition", "{}", file.display());
        assert_eq!(at("/spec/group"), GROUP, "{}", file.display());
        assert_eq!(at("/spec/names/kind"), kind, "{}", file.display());
        assert_eq!(at("/spec/names/plural"), plural, "{}", file.display());
        let versions = at("/spec/versions").as_array().unwrap();
        assert_eq!(
            versions.len(),
            1,
            "{}: {} versions; the file keeps one schema per kind (`{key}`), so a second version needs a key of its own",
            file.display(),
            versions.len()
        );
        let mut listed = Vec::new();
        for v in versions {
            let schema =
                strip(v.pointer("/schema/openAPIV3Schema").unwrap_or_else(|| panic!("{}: a version without a schema", file.display())));
            match schemas.get(key) {
                None => {
                    schemas.insert(key.to_string(), schema);
                    given_by.push((key, kind));
                }
                Some(have) => {
                    let first = given_by.iter().find(|(k, _)| *k == key).map(|(_, kind)| *kind).unwrap_or_default();
                    assert!(
                        *have == schema,
                        "{}: the {kind} schema differs from the {first} schema (descriptions aside); the data file keeps one `{key}` \
                         schema for both, so this release needs a file layout with a key per kind",
                        release.name
                    );
                }
            }
            let mut entry = Map::new();
            for field in ["name", "served", "storage"] {
                entry.insert(field.into(), v.get(field).unwrap_or_else(|| panic!("{}: a version without {field}", file.display())).clone());
            }
            entry.insert("schema".into(), json!(key));
            if let Some(s) = v.get("subresources") {
                entry.insert("subresources".into(), s.clone());
            }
            listed.push(Value::Object(entry));
        }
        kinds.insert(kind.into(), json!({"plural": plural, "scope": at("/spec/scope"), "versions": listed}));
        paths.insert(kind.into(), json!(format!("manifests/base/crds/{name}")));
    }
    let mut source = Map::new();
    source.insert("repository".into(), json!("github.com/kubeflow/trainer"));
    source.insert("tag".into(), json!(release.tag));
    if release.tag.is_none() {
        source.insert("branch".into(), json!("master"));
    }
    source.insert("commit".into(), json!(release.commit));
    source.insert("crds".into(), Value::Object(paths));
    source.insert("note".into(), json!("descriptions dropped (every description keyword; properties named description kept)"));
    source.insert("command".into(), json!(COMMAND));
    let file = json!({
        "source": source,
        "release": release.name,
        "released": release.tag.is_some(),
        "group": GROUP,
        "kinds": kinds,
        "schemas": schemas,
    });
    layout(&file)
}

/// The file's text: one node per line when it fits [`WIDTH`], unindented.
fn layout(v: &Value) -> String {
    let mut out = String::new();
    node(&mut out, "", v, "");
    out
}

fn node(out: &mut String, prefix: &str, v: &Value, comma: &str) {
    let whole = serde_json::to_string(v).unwrap();
    let (open, close, members): (&str, &str, Vec<(String, &Value)>) = match v {
        Value::Object(m) if !m.is_empty() => {
            ("{", "}", m.iter().map(|(k, x)| (format!("{}:", serde_json::to_string(k).unwrap()), x)).collect())
        }
        Value::Array(a) if !a.is_empty() => ("[", "]", a.iter().map(|x| (String::new(), x)).collect()),
        _ => ("", "", Vec::new()),
    };
    if members.is_empty() || prefix.len() + whole.len() + comma.len() <= WIDTH {
        out.push_str(&format!("{prefix}{whole}{comma}\n"));
        return;
    }
    out.push_str(&format!("{prefix}{open}\n"));
    let last = members.len() - 1;
    for (i, (p, x)) in members.into_iter().enumerate() {
        node(out, &p, x, if i == last { "" } else { "," });
    }
    out.push_str(&format!("{close}{comma}\n"));
}

/// The first lines where `have` and `want` differ, as a unified diff of at most 40 lines.
fn diff(have: &str, want: &str) -> String {
    let d = similar::TextDiff::from_lines(have, want).unified_diff().context_radius(2).header("file", "generated").to_string();
    let lines: Vec<&str> = d.lines().collect();
    let mut s = lines.iter().take(40).copied().collect::<Vec<_>>().join("\n");
    if lines.len() > 40 {
        s.push_str(&format!("\n... ({} more diff lines)", lines.len() - 40));
    }
    s
}

#[test]
fn every_file_is_its_release_crds_without_descriptions() {
    let Some(reference) = support::reference() else { return };
    let update = std::env::var("UPDATE_SCHEMAS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    let mut missing = Vec::new();
    for release in &RELEASES {
        let dir = reference.join(release.folder);
        if !dir.is_dir() {
            missing.push(format!("{} ({})", release.folder, release.name));
            continue;
        }
        let want = generate(release, &dir);
        let path = file_of(release);
        if update {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            if fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
                fs::write(&path, &want).unwrap();
                eprintln!("wrote {}", path.display());
            }
            continue;
        }
        let Ok(have) = fs::read_to_string(&path) else {
            failures.push(format!("{FOLDER}/{}.json is missing", release.name));
            continue;
        };
        if have != want {
            let content = match serde_json::from_str::<Value>(&have) {
                Ok(v) if serde_json::from_str::<Value>(&want).unwrap() == v => "same JSON, laid out differently",
                Ok(_) => "different content",
                Err(_) => "not valid JSON",
            };
            failures.push(format!(
                "{FOLDER}/{}.json is not what {}/{} gives ({content}):\n{}",
                release.name,
                reference.display(),
                release.folder,
                diff(&have, &want)
            ));
        }
    }
    if !missing.is_empty() {
        let why = format!(
            "{} missing from {} (each is kubeflow/trainer's manifests/base/crds/trainer.kubeflow.org_*.yaml at the commit RELEASES \
             in tests/schemas.rs names; tests/reference/fetch does not download them)",
            missing.join(", "),
            reference.display()
        );
        assert!(!update, "cannot write every schema file: {why}");
        assert!(!support::reference::required(), "{}: {why}; {}", support::reference::test_name(), support::reference::HOW_TO_GET_IT);
        support::reference::not_run(
            "reference",
            &support::reference::test_name(),
            &format!("compared only the releases whose CRDs are there: {why}"),
        );
    }
    assert!(
        failures.is_empty(),
        "{}\n\nIf upstream's CRDs changed on purpose, run `{COMMAND}` and review `git diff {FOLDER}`.",
        failures.join("\n\n")
    );
}

/// The CRD a data file describes for `kind`, as `crd::compile` reads CRDs.
fn crd_of(data: &Value, kind: &str) -> Value {
    let k = &data["kinds"][kind];
    let plural = k["plural"].as_str().unwrap();
    let versions: Vec<Value> = k["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let key = v["schema"].as_str().unwrap();
            let schema = data["schemas"].get(key).unwrap_or_else(|| panic!("{kind}: no schema `{key}`"));
            json!({"name": v["name"], "served": v["served"], "storage": v["storage"], "schema": {"openAPIV3Schema": schema}})
        })
        .collect();
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{}", data["group"].as_str().unwrap())},
        "spec": {"group": data["group"], "names": {"kind": kind, "plural": plural}, "scope": k["scope"], "versions": versions},
    })
}

fn read_data(release: &Release) -> Value {
    let path = file_of(release);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (run `{COMMAND}`)", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `kind`'s CRD of `release`, compiled as `validate --crd` compiles one.
fn compiled(release: &Release, kind: &str) -> crd::Crd {
    let data = read_data(release);
    crd::compile(&crd_of(&data, kind), &format!("{FOLDER}/{}.json", release.name))
        .unwrap_or_else(|d| panic!("{}: {kind} does not compile: {}", release.name, d.message))
}

#[test]
fn every_file_is_well_formed_and_compiles() {
    let dir = support::root().join(FOLDER);
    let on_disk: BTreeSet<String> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    let listed: BTreeSet<String> = RELEASES.iter().map(|r| format!("{}.json", r.name)).collect();
    assert_eq!(on_disk, listed, "{FOLDER} holds a file per release of tests/schemas.rs RELEASES, no other");
    for release in &RELEASES {
        let data = read_data(release);
        let name = release.name;
        assert_eq!(data["release"], name, "{name}");
        assert_eq!(data["released"], release.tag.is_some(), "{name}");
        assert_eq!(data["source"]["commit"], release.commit, "{name}");
        assert_eq!(data["group"], GROUP, "{name}");
        let kinds: Vec<&String> = data["kinds"].as_object().unwrap().keys().collect();
        assert_eq!(kinds, KINDS.map(|(k, _, _)| k).to_vec(), "{name}");
        let used: BTreeSet<&str> = data["kinds"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|k| k["versions"].as_array().unwrap())
            .map(|v| v["schema"].as_str().unwrap())
            .collect();
        let keys: BTreeSet<&str> = data["schemas"].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(used, keys, "{name}: every schema is used by a kind, and every kind's schema is there");
        assert!(!data.to_string().contains("\"description\":\""), "{name}: a description keyword is left");
        for (kind, _, _) in KINDS {
            let c = compiled(release, kind);
            assert_eq!(
                c.versions.iter().map(|v| v.api_version.as_str()).collect::<Vec<_>>(),
                [format!("{GROUP}/v1alpha1")],
                "{name} {kind}"
            );
        }
    }
}

/// Trainer v2.3.0's built-in runtimes, each as (file name, object).
fn builtin_runtimes(reference: &Path) -> Vec<(String, Value)> {
    let dir = reference.join(support::reference::TRAINER).join("runtimes");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = fs::read_to_string(&f).unwrap();
        for doc in jax_runtimes::yaml::parse_stream(&text).unwrap() {
            out.push((f.file_name().unwrap().to_string_lossy().into_owned(), doc));
        }
    }
    assert!(out.len() >= 9, "expected Trainer v2.3.0's built-in runtimes in {}, found {}", dir.display(), out.len());
    out
}

/// Every finding of `version` on `object` (structure and CEL), as `rule field: message` lines.
fn findings(c: &crd::Crd, object: &Value) -> Vec<String> {
    let api_version = object["apiVersion"].as_str().unwrap();
    let version =
        c.version(api_version, object["kind"].as_str().unwrap()).unwrap_or_else(|| panic!("{} does not serve {api_version}", c.name));
    let mut all = version.check_structure(object);
    all.extend(version.check_cel(object));
    all.iter()
        .map(|d| {
            format!(
                "{}{} {}: {}",
                if d.severity == Severity::Error { "" } else { "(not an error) " },
                d.rule.id,
                d.field.as_deref().unwrap_or(""),
                d.message
            )
        })
        .collect()
}

#[test]
fn trainer_builtin_runtimes_pass_v2_3_0_and_next() {
    let Some(reference) = support::reference() else { return };
    let runtimes = builtin_runtimes(&reference);
    for release in RELEASES.iter().filter(|r| ["v2.3.0", "next"].contains(&r.name)) {
        let c = compiled(release, "ClusterTrainingRuntime");
        for (file, runtime) in &runtimes {
            assert_eq!(runtime["kind"], "ClusterTrainingRuntime", "{file}");
            let found = findings(&c, runtime);
            assert!(found.is_empty(), "{file} against {}:\n{}", release.name, found.join("\n"));
        }
        // The check is not blind: a misspelt field is found.
        let (file, runtime) = &runtimes[0];
        let mut broken = runtime.clone();
        broken["spec"]["mlPolicy"]["numNodez"] = json!(1);
        let found = findings(&c, &broken);
        assert!(found.iter().any(|f| f.contains("numNodez")), "{file} with spec.mlPolicy.numNodez against {}: {found:?}", release.name);
    }
    // Each release is its own schema: `mlPolicy.jax` is new in v2.2.0.
    let (file, jax) = runtimes.iter().find(|(_, r)| r.pointer("/spec/mlPolicy/jax").is_some()).expect("a JAX runtime");
    for release in &RELEASES {
        let found = findings(&compiled(release, "ClusterTrainingRuntime"), jax);
        let refused = found.iter().any(|f| f.contains("jax"));
        let before = ["v2.0.0", "v2.0.1", "v2.1.0"].contains(&release.name);
        assert_eq!(refused, before, "{file} against {}: {found:?}", release.name);
    }
}

/// A project beside Trainer whose CRDs are embedded the same way: Kueue (the queue kinds the tool
/// writes and judges) and JobSet (the object Trainer makes of a TrainJob). Its file is
/// `catalog/schemas/<name>/<release>.json`: the same layout as a Trainer release's, a schema per
/// kind and version (`clusterqueue/v1beta1`; a version whose schema equals an earlier version's
/// names that one's key).
struct Upstream {
    /// The folder's name under `catalog/schemas/`.
    name: &'static str,
    release: &'static str,
    repository: &'static str,
    /// The commit the tag points at, where the reference data names it.
    commit: Option<&'static str>,
    /// The folder of its CRD files, under the reference data.
    folder: &'static str,
    /// The CRD files' folder upstream.
    upstream: &'static str,
    group: &'static str,
    /// Kind and plural (the file is `<group>_<plural>.yaml`) of each CRD in the file.
    kinds: &'static [(&'static str, &'static str)],
}

/// Kueue's Workload CRD (about 340 KB per version, most of it a PodSpec) is left out: the tool
/// reads Workloads as cluster state (`fit --pods`), never judges or writes one.
const UPSTREAMS: [Upstream; 2] = [
    Upstream {
        name: "kueue",
        release: "v0.19.2",
        repository: "github.com/kubernetes-sigs/kueue",
        commit: Some("8eab6877"),
        folder: "kueue-v0.19.2/crds",
        upstream: "config/components/crd/bases",
        group: "kueue.x-k8s.io",
        kinds: &[
            ("ResourceFlavor", "resourceflavors"),
            ("ClusterQueue", "clusterqueues"),
            ("LocalQueue", "localqueues"),
            ("Topology", "topologies"),
            ("WorkloadPriorityClass", "workloadpriorityclasses"),
            ("AdmissionCheck", "admissionchecks"),
            ("Cohort", "cohorts"),
        ],
    },
    Upstream {
        name: "jobset",
        release: "v0.12.0",
        repository: "github.com/kubernetes-sigs/jobset",
        commit: None,
        folder: "jobset-v0.12.0",
        upstream: "config/components/crd/bases",
        group: "jobset.x-k8s.io",
        kinds: &[("JobSet", "jobsets")],
    },
];

fn upstream_file(u: &Upstream) -> PathBuf {
    support::root().join("catalog/schemas").join(u.name).join(format!("{}.json", u.release))
}

/// The data file of `u`, from its CRDs in `dir`, laid out as a Trainer release's.
fn generate_upstream(u: &Upstream, dir: &Path) -> String {
    let mut kinds = Map::new();
    let mut schemas = Map::new();
    let mut paths = Map::new();
    for (kind, plural) in u.kinds {
        let name = format!("{}_{plural}.yaml", u.group);
        let file = dir.join(&name);
        let crd = read_crd(&file);
        let at = |p: &str| crd.pointer(p).unwrap_or_else(|| panic!("{}: no {p}", file.display()));
        assert_eq!(at("/kind"), "CustomResourceDefinition", "{}", file.display());
        assert_eq!(at("/spec/group"), u.group, "{}", file.display());
        assert_eq!(at("/spec/names/kind"), *kind, "{}", file.display());
        assert_eq!(at("/spec/names/plural"), *plural, "{}", file.display());
        let mut listed = Vec::new();
        let mut keys: Vec<(String, Value)> = Vec::new();
        for v in at("/spec/versions").as_array().unwrap() {
            let vname = v["name"].as_str().unwrap_or_else(|| panic!("{}: a version without a name", file.display()));
            let schema =
                strip(v.pointer("/schema/openAPIV3Schema").unwrap_or_else(|| panic!("{}: a version without a schema", file.display())));
            let key = match keys.iter().find(|(_, s)| *s == schema) {
                Some((k, _)) => k.clone(),
                None => {
                    let k = format!("{}/{vname}", kind.to_lowercase());
                    schemas.insert(k.clone(), schema.clone());
                    keys.push((k.clone(), schema));
                    k
                }
            };
            let mut entry = Map::new();
            for field in ["name", "served", "storage"] {
                entry.insert(field.into(), v.get(field).unwrap_or_else(|| panic!("{}: a version without {field}", file.display())).clone());
            }
            entry.insert("schema".into(), json!(key));
            if let Some(s) = v.get("subresources") {
                entry.insert("subresources".into(), s.clone());
            }
            listed.push(Value::Object(entry));
        }
        kinds.insert((*kind).into(), json!({"plural": plural, "scope": at("/spec/scope"), "versions": listed}));
        paths.insert((*kind).into(), json!(format!("{}/{name}", u.upstream)));
    }
    let file = json!({
        "source": {
            "repository": u.repository,
            "tag": u.release,
            "commit": u.commit,
            "crds": paths,
            "note": "descriptions dropped (every description keyword; properties named description kept)",
            "command": COMMAND,
        },
        "release": u.release,
        "released": true,
        "group": u.group,
        "kinds": kinds,
        "schemas": schemas,
    });
    layout(&file)
}

#[test]
fn kueue_and_jobset_files_are_their_crds_without_descriptions() {
    let Some(reference) = support::reference() else { return };
    let update = std::env::var("UPDATE_SCHEMAS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    let mut missing = Vec::new();
    for u in &UPSTREAMS {
        let dir = reference.join(u.folder);
        if !dir.is_dir() {
            missing.push(format!("{} ({} {})", u.folder, u.name, u.release));
            continue;
        }
        let want = generate_upstream(u, &dir);
        let path = upstream_file(u);
        if update {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            if fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
                fs::write(&path, &want).unwrap();
                eprintln!("wrote {}", path.display());
            }
            continue;
        }
        match fs::read_to_string(&path) {
            Ok(have) if have == want => {}
            Ok(have) => failures.push(format!(
                "catalog/schemas/{}/{}.json is not what {}/{} gives:\n{}",
                u.name,
                u.release,
                reference.display(),
                u.folder,
                diff(&have, &want)
            )),
            Err(_) => failures.push(format!("catalog/schemas/{}/{}.json is missing", u.name, u.release)),
        }
    }
    if !missing.is_empty() {
        let why = format!("{} missing from {}", missing.join(", "), reference.display());
        assert!(!update, "cannot write every schema file: {why}");
        assert!(!support::reference::required(), "{}: {why}; {}", support::reference::test_name(), support::reference::HOW_TO_GET_IT);
        support::reference::not_run("reference", &support::reference::test_name(), &format!("compared only what is there: {why}"));
    }
    assert!(
        failures.is_empty(),
        "{}\n\nIf upstream's CRDs changed on purpose, run `{COMMAND}` and review `git diff catalog/schemas`.",
        failures.join("\n\n")
    );
}

#[test]
fn kueue_and_jobset_files_are_well_formed_and_compile() {
    for u in &UPSTREAMS {
        let path = upstream_file(u);
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (run `{COMMAND}`)", path.display()));
        let data: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = format!("{} {}", u.name, u.release);
        assert_eq!(data["release"], u.release, "{name}");
        assert_eq!(data["group"], u.group, "{name}");
        assert_eq!(data["source"]["commit"], json!(u.commit), "{name}");
        let kinds: Vec<&String> = data["kinds"].as_object().unwrap().keys().collect();
        assert_eq!(kinds, u.kinds.iter().map(|(k, _)| *k).collect::<Vec<_>>(), "{name}");
        assert!(!text.contains("\"description\":\""), "{name}: a description keyword is left");
        let used: BTreeSet<&str> = data["kinds"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|k| k["versions"].as_array().unwrap())
            .map(|v| v["schema"].as_str().unwrap())
            .collect();
        let keys: BTreeSet<&str> = data["schemas"].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(used, keys, "{name}: every schema is used by a kind, and every kind's schema is there");
        for (kind, _) in u.kinds {
            let c = crd::compile(&crd_of(&data, kind), &path.display().to_string())
                .unwrap_or_else(|d| panic!("{name}: {kind} does not compile: {}", d.message));
            assert!(!c.versions.is_empty(), "{name} {kind}");
        }
    }
}

/// The Kueue objects of the agreement test: the example fleet's (what `jax-runtimes kueue`
/// writes), those of Kueue's guides (tests/public/kueue), and mutations of a few that break one
/// rule each (structure, enum, limit, pattern, quantity, CEL, webhook).
fn kueue_objects() -> Vec<(String, Value)> {
    let mut files: Vec<PathBuf> = fs::read_dir(support::root().join("functions/fleet/deploy/runtimes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("kueue_"))
        .collect();
    files.sort();
    files.extend(
        ["tests/public/kueue/single-clusterqueue-setup.yaml", "tests/public/kueue/tas-gpu-queues.yaml"].map(|f| support::root().join(f)),
    );
    let mut out = Vec::new();
    for f in files {
        for (i, v) in support::documents(&fs::read_to_string(&f).unwrap()).into_iter().enumerate() {
            if v["apiVersion"].as_str().is_some_and(|a| a.starts_with("kueue.x-k8s.io/")) {
                out.push((format!("{}#{i}", f.file_name().unwrap().to_string_lossy()), v));
            }
        }
    }
    let base: Vec<(String, Value)> = out.clone();
    let mutate = |name: &str, kind: &str, f: &dyn Fn(&mut Value)| -> Option<(String, Value)> {
        let (from, v) = base.iter().find(|(_, v)| v["kind"] == kind)?;
        let mut v = v.clone();
        f(&mut v);
        Some((format!("{from} {name}"), v))
    };
    /// A mutation, typed for `mutate`.
    fn cq(f: &dyn Fn(&mut Value)) -> &dyn Fn(&mut Value) {
        f
    }
    let mutations: Vec<Option<(String, Value)>> = vec![
        mutate("unknown field", "ClusterQueue", cq(&|v| v["spec"]["cohrtName"] = json!("c"))),
        mutate("bad enum", "ClusterQueue", cq(&|v| v["spec"]["queueingStrategy"] = json!("Fifo"))),
        mutate("no flavors", "ClusterQueue", cq(&|v| v["spec"]["resourceGroups"][0]["flavors"] = json!([]))),
        mutate(
            "not a quantity",
            "ClusterQueue",
            cq(&|v| v["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = json!("4 cores")),
        ),
        mutate(
            "negative quota",
            "ClusterQueue",
            cq(&|v| v["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = json!(-1)),
        ),
        mutate(
            "borrowing without cohort",
            "ClusterQueue",
            cq(&|v| {
                v["spec"].as_object_mut().unwrap().remove("cohortName");
                v["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["borrowingLimit"] = json!(1);
            }),
        ),
        mutate(
            "preemption",
            "ClusterQueue",
            cq(&|v| v["spec"]["preemption"] = json!({"reclaimWithinCohort": "Never", "borrowWithinCohort": {"policy": "LowerPriority"}})),
        ),
        mutate("fungibility", "ClusterQueue", cq(&|v| v["spec"]["flavorFungibility"] = json!({"preference": "BorrowingOverPreemption"}))),
        mutate("bad cohort name", "ClusterQueue", cq(&|v| v["spec"]["cohortName"] = json!("Bad_Name"))),
        mutate(
            "too many flavors",
            "ClusterQueue",
            cq(&|v| {
                let f = v["spec"]["resourceGroups"][0]["flavors"][0].clone();
                v["spec"]["resourceGroups"][0]["flavors"] = Value::Array(
                    (0..65)
                        .map(|i| {
                            let mut f = f.clone();
                            f["name"] = json!(format!("f{i}"));
                            f
                        })
                        .collect(),
                );
            }),
        ),
        mutate("wrong type", "ClusterQueue", cq(&|v| v["spec"]["namespaceSelector"] = json!([]))),
        mutate("topology without labels", "ResourceFlavor", cq(&|v| v["spec"] = json!({"topologyName": "t"}))),
        mutate("bad taint effect", "ResourceFlavor", cq(&|v| v["spec"]["nodeTaints"] = json!([{"key": "k", "effect": "Sometimes"}]))),
        mutate(
            "nine labels",
            "ResourceFlavor",
            cq(&|v| v["spec"]["nodeLabels"] = Value::Object((0..9).map(|i| (format!("l{i}"), json!("v"))).collect())),
        ),
        mutate(
            "toleration value with Exists",
            "ResourceFlavor",
            cq(&|v| v["spec"]["tolerations"] = json!([{"key": "k", "operator": "Exists", "value": "x"}])),
        ),
        mutate("bad queue name", "LocalQueue", cq(&|v| v["spec"]["clusterQueue"] = json!("Bad_Name"))),
        mutate("bad stop policy", "LocalQueue", cq(&|v| v["spec"]["stopPolicy"] = json!("Pause"))),
        mutate("no levels", "Topology", cq(&|v| v["spec"]["levels"] = json!([]))),
        mutate(
            "hostname above",
            "Topology",
            cq(&|v| v["spec"]["levels"] = json!([{"nodeLabel": "kubernetes.io/hostname"}, {"nodeLabel": "a/b"}])),
        ),
        mutate("same level twice", "Topology", cq(&|v| v["spec"]["levels"] = json!([{"nodeLabel": "a/b"}, {"nodeLabel": "a/b"}]))),
    ];
    let n = mutations.len();
    out.extend(mutations.into_iter().flatten());
    assert!(out.len() >= base.len() + n - 4, "most mutations found a base object of their kind");
    out
}

/// `validate` and `validate --crd <Kueue v0.19.2's CRDs>` give one verdict on every Kueue object:
/// the same errors at the same fields, but for a CEL rule a webhook rule restates at a narrower
/// field, which the built-in judge says once (there).
#[test]
fn kueue_builtin_and_crd_give_one_verdict() {
    let Some(reference) = support::reference() else { return };
    let dir = reference.join("kueue-v0.19.2/crds");
    let mut crds = Vec::new();
    for e in fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        crds.push(crd::compile(&read_crd(&p), &p.display().to_string()).unwrap_or_else(|d| panic!("{}: {}", p.display(), d.message)));
    }
    let errors = |found: &[jax_runtimes::Diagnostic]| -> BTreeSet<String> {
        found.iter().filter(|d| d.severity == Severity::Error).map(|d| d.field.clone().unwrap_or_default()).collect()
    };
    let mut wrong = Vec::new();
    let (mut checked, mut refused) = (0, 0);
    for (name, v) in kueue_objects() {
        let (api, kind) = (v["apiVersion"].as_str().unwrap(), v["kind"].as_str().unwrap());
        let version = crds.iter().find_map(|c| c.version(api, kind)).unwrap_or_else(|| panic!("{name}: no CRD serves {api} {kind}"));
        let builtin = jax_runtimes::validate::kueue::check(&v, None, false);
        let given = jax_runtimes::validate::kueue::check(&v, Some(version), true);
        let (b, g) = (errors(&builtin), errors(&given));
        let only_given: Vec<&String> = g.difference(&b).filter(|f| !b.iter().any(|x| x.starts_with(f.as_str()))).collect();
        if b.is_empty() != g.is_empty() || !b.is_subset(&g) || !only_given.is_empty() {
            wrong.push(format!("{name}: built-in errors at {b:?}, --crd errors at {g:?}"));
        }
        checked += 1;
        refused += usize::from(!b.is_empty());
    }
    assert!(wrong.is_empty(), "the two judges of Kueue objects disagree:\n{}", wrong.join("\n"));
    assert!(refused >= 15, "{refused} of {checked} objects refused: the mutations break rules");
    println!("kueue: {checked} objects ({refused} refused), one verdict with and without --crd");
}
