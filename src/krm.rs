//! KRM function adapter: a `config.kubernetes.io/v1` ResourceList (YAML or JSON) on stdin ->
//! catalog documents for the pipeline; the runtimes it generates are upserted into the items,
//! stale ones pruned, everything else passed through -> a ResourceList with `results` on stdout.
//!
//! The rules this file keeps (see functions/README.md for the user-facing version):
//! - items that are not ours pass through as values, in order, with every annotation kept
//!   (kpt maps comments and field order back through `internal.config.kubernetes.io/id`);
//! - catalog objects come from `items` (kpt: the whole package) and `functionConfig`
//!   (kustomize generators: only their own config), are marked `local-config` so kpt keeps
//!   their files, and reach the pipeline without orchestrator annotations, so none of those
//!   (`local-config`, `config.kubernetes.io/function`, paths, ids) can leak onto a runtime;
//! - a generated runtime carries the `app.kubernetes.io/managed-by: jax-runtimes` label and
//!   the `jax-runtimes.dev/source` annotation; only objects with both are ever replaced or
//!   pruned, and a same-named object without them is an error, never overwritten;
//! - output is a function of input alone: running on its own output gives the same bytes.

use std::collections::{BTreeSet, HashMap};
use std::io::{Read, Write};

use serde_json::{Map, Value};

use crate::diag::{Diagnostic, ObjectRef};
use crate::read::{Document, Source};
use crate::yaml;

/// The apiVersion written on output ResourceLists.
pub const RESOURCE_LIST_API_VERSION: &str = "config.kubernetes.io/v1";
/// Label key and value every generated runtime carries.
pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";
pub const MANAGED_BY_VALUE: &str = "jax-runtimes";
/// Annotation naming the catalog object a runtime was generated from (`JaxRuntime/<name>`).
pub const SOURCE_ANNOTATION: &str = "jax-runtimes.dev/source";
/// Folder, relative to the package, that new runtimes are written to.
pub const OUTPUT_DIR: &str = "runtimes";

/// Catalog kinds, in apiVersion [`CATALOG_API_VERSION`].
pub const CATALOG_API_VERSION: &str = "jax-runtimes.dev/v1alpha1";
pub const CATALOG_KINDS: [&str; 3] = ["JaxRuntime", "JaxRuntimeDefaults", "JaxRuntimeMatrix"];

pub const LOCAL_CONFIG: &str = "config.kubernetes.io/local-config";
const PATH: &str = "internal.config.kubernetes.io/path";
const INDEX: &str = "internal.config.kubernetes.io/index";
const LEGACY_PATH: &str = "config.kubernetes.io/path";
const LEGACY_INDEX: &str = "config.kubernetes.io/index";
/// Annotation prefixes owned by orchestrators (kpt, kustomize): kept on items as they are,
/// never handed to the pipeline, never copied from a catalog object onto a runtime.
const ORCHESTRATOR_PREFIXES: [&str; 4] =
    ["internal.config.kubernetes.io/", "config.kubernetes.io/", "config.k8s.io/", "kustomize.config.k8s.io/"];

/// Exit codes: 0 ok (warnings allowed), 1 error findings, 2 input that is not a ResourceList.
pub const EXIT_OK: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_BAD_INPUT: i32 = 2;

/// One runtime made by the pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedObject {
    /// The catalog object it came from.
    pub catalog: ObjectRef,
    /// File name for a new object, unique per runtime: `clustertrainingruntime_<name>.yaml`,
    /// `trainingruntime_<namespace>_<name>.yaml`.
    pub file_name: String,
    /// The object, already labelled and annotated as generated.
    pub object: Value,
}

/// What the pipeline hands back: runtimes and every finding.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Generation {
    pub objects: Vec<GeneratedObject>,
    pub diagnostics: Vec<Diagnostic>,
}

/// How the ResourceList came in; it goes out the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
}

/// The parts of a ResourceList this function reads. `results` of the input are dropped: they
/// belong to whichever function ran before.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceList {
    pub items: Vec<Value>,
    pub function_config: Option<Value>,
}

/// The function's answer: the list to write, the findings, and the exit code.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub list: ResourceList,
    pub diagnostics: Vec<Diagnostic>,
    pub exit_code: i32,
}

/// The KRM entry point: reads a ResourceList from `input`, runs the pipeline, writes the
/// ResourceList to `output` and diagnostics to stderr. Returns the process exit code.
pub fn run(input: impl Read, output: impl Write) -> i32 {
    run_with(input, output, &mut std::io::stderr(), generate)
}

/// The real pipeline, as the generate step of [`run_with`].
pub fn generate(docs: &[Document]) -> Generation {
    let generated = crate::pipeline::generate(docs);
    Generation {
        objects: generated
            .runtimes
            .into_iter()
            .map(|r| GeneratedObject { catalog: r.source, file_name: r.file_name, object: r.object })
            .collect(),
        diagnostics: generated.diagnostics,
    }
}

/// [`run`] on the process's stdin and stdout.
pub fn run_stdio() -> i32 {
    run(std::io::stdin().lock(), std::io::stdout().lock())
}

/// [`run`] with the pipeline and stderr given, for tests.
pub fn run_with(
    mut input: impl Read,
    mut output: impl Write,
    stderr: &mut dyn Write,
    generate: impl FnOnce(&[Document]) -> Generation,
) -> i32 {
    let mut bytes = Vec::new();
    let read = input.by_ref().take(yaml::MAX_INPUT_BYTES as u64 + 1).read_to_end(&mut bytes);
    let parsed = match read {
        Err(e) => Err(Diagnostic::error("krm/unreadable-input", format!("cannot read standard input: {e}"))),
        Ok(_) if bytes.len() > yaml::MAX_INPUT_BYTES => {
            Err(Diagnostic::error("krm/input-too-large", format!("the ResourceList is over the limit of {} bytes", yaml::MAX_INPUT_BYTES)))
        }
        Ok(_) => match String::from_utf8(bytes) {
            Ok(text) => parse(&text),
            Err(e) => Err(Diagnostic::error(
                "krm/not-utf8",
                format!("the ResourceList is not UTF-8 (invalid byte at offset {})", e.utf8_error().valid_up_to()),
            )),
        },
    };
    let (out, format) = match parsed {
        Ok((list, format)) => (process(list, generate), format),
        Err(d) => {
            // Nothing can be passed through. The non-zero exit makes kpt and kustomize discard
            // the (empty) items; the result says why.
            let out = Output { list: ResourceList::default(), diagnostics: vec![d], exit_code: EXIT_BAD_INPUT };
            (out, Format::Yaml)
        }
    };
    for d in &out.diagnostics {
        let _ = writeln!(stderr, "{d}");
    }
    let text = match write(&out.list, &out.diagnostics, format) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(stderr, "error[krm/write]: cannot serialize the ResourceList: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    if let Err(e) = output.write_all(text.as_bytes()).and_then(|_| output.flush()) {
        let _ = writeln!(stderr, "error[krm/write]: cannot write standard output: {e}");
        return EXIT_BAD_INPUT;
    }
    out.exit_code
}

/// Parses a ResourceList. JSON when the first character is `{`, YAML otherwise. Any apiVersion
/// is accepted (kyaml does not check it either); the kind must be `ResourceList` or `List`.
pub fn parse(text: &str) -> Result<(ResourceList, Format), Diagnostic> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let (value, format) = if trimmed.starts_with('{') {
        let v: Value = serde_json::from_str(trimmed).map_err(|e| {
            Diagnostic::error("krm/malformed-input", format!("the input is not valid JSON: {e}"))
                .with_help("send a ResourceList as YAML or JSON on standard input")
        })?;
        (v, Format::Json)
    } else {
        let v = yaml::parse_one(trimmed).map_err(|e| {
            Diagnostic::error("krm/malformed-input", format!("the input is not one valid YAML document: {e}"))
                .with_help("send one ResourceList (`kind: ResourceList`) on standard input")
        })?;
        (v, Format::Yaml)
    };
    let Value::Object(mut map) = value else {
        return Err(not_a_list("the input is not a mapping"));
    };
    match map.get("kind").and_then(Value::as_str) {
        Some("ResourceList" | "List") => {}
        Some(other) => return Err(not_a_list(&format!("the input has `kind: {other}`"))),
        None => return Err(not_a_list("the input has no `kind`")),
    }
    let items = match map.remove("items") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(Diagnostic::error("krm/malformed-input", "`items` is not a list")
                .with_help("`items` holds the package's objects as a list"))
        }
    };
    let function_config = match map.remove("functionConfig") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v),
    };
    Ok((ResourceList { items, function_config }, format))
}

fn not_a_list(what: &str) -> Diagnostic {
    Diagnostic::error("krm/not-a-resource-list", format!("{what}; expected `kind: ResourceList`"))
        .with_help("run jax-runtimes without arguments only as a KRM function (kpt, kustomize); use `jax-runtimes --help` for the CLI")
}

/// The function itself: gathers catalog objects, calls `generate`, upserts and prunes.
pub fn process(list: ResourceList, generate: impl FnOnce(&[Document]) -> Generation) -> Output {
    // functionConfig `JaxRuntimeValidation`: validate the items instead of generating (validate/command.rs).
    if list.function_config.as_ref().is_some_and(crate::validate::command::is_validation_config) {
        return crate::validate::command::krm_validate(list);
    }
    let ResourceList { mut items, function_config } = list;
    let mut diagnostics = Vec::new();

    // 1. Catalog documents: items first (they know their file), then functionConfig unless
    //    an item is the same object (kustomize passes a generator's config both ways).
    let mut docs = Vec::new();
    let mut catalog_ids = BTreeSet::new();
    for (i, item) in items.iter_mut().enumerate() {
        if !is_catalog(item) {
            continue;
        }
        catalog_ids.insert(key(item));
        let (path, index) = file_of(item);
        let name = path.clone().unwrap_or_else(|| format!("<items[{i}]>"));
        docs.push(Document { source: Source::named(name), index: index.unwrap_or(0), value: pipeline_copy(item) });
        mark_local_config(item, &mut diagnostics);
    }
    if let Some(fc) = &function_config {
        if is_catalog(fc) {
            if !catalog_ids.contains(&key(fc)) {
                let (path, index) = file_of(fc);
                let name = path.unwrap_or_else(|| "<functionConfig>".to_string());
                docs.push(Document { source: Source::named(name), index: index.unwrap_or(0), value: pipeline_copy(fc) });
            }
        } else if !is_empty_placeholder(fc) {
            diagnostics.push(
                Diagnostic::error(
                    "krm/function-config",
                    format!(
                        "the functionConfig is not a catalog object; expected apiVersion `{CATALOG_API_VERSION}` with kind {}",
                        CATALOG_KINDS.join(", ")
                    ),
                )
                .with_object(ObjectRef::of(fc))
                .with_help("point the function's config at a JaxRuntime, JaxRuntimeDefaults or JaxRuntimeMatrix, or give none and keep the catalog in the package"),
            );
        }
    }

    // 2. Generate.
    let generation = generate(&docs);
    diagnostics.extend(generation.diagnostics);
    let failed = diagnostics.iter().any(Diagnostic::is_error);

    // 3. Upsert.
    let mut index_of: HashMap<Key, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        index_of.entry(key(item)).or_insert(i);
    }
    let mut used_files: BTreeSet<(String, String)> = items
        .iter()
        .filter_map(|item| {
            let (path, index) = file_of(item);
            Some((path?, index.unwrap_or(0).to_string()))
        })
        .collect();
    let mut generated_keys = BTreeSet::new();
    let mut added = Vec::new();
    let mut conflicts = false;
    for g in generation.objects {
        let mut object = g.object;
        strip_orchestrator_annotations(&mut object);
        let k = key(&object);
        if !generated_keys.insert(k.clone()) {
            diagnostics.push(
                Diagnostic::error(
                    "krm/duplicate-runtime",
                    format!("{} is generated twice; every runtime needs its own name", ObjectRef::of(&object)),
                )
                .with_object(g.catalog.clone())
                .with_field("metadata.name"),
            );
            conflicts = true;
            continue;
        }
        match index_of.get(&k) {
            Some(&i) if is_owned(&items[i]) => {
                carry_orchestrator_annotations(&items[i], &mut object);
                items[i] = object;
            }
            Some(&i) => {
                let existing = &items[i];
                let place = match file_of(existing).0 {
                    Some(p) => format!(" (in `{p}`)"),
                    None => String::new(),
                };
                diagnostics.push(
                    Diagnostic::error(
                        "krm/not-owned",
                        format!(
                            "{} already exists{place} and was not generated by jax-runtimes (it lacks the `{MANAGED_BY_LABEL}: {MANAGED_BY_VALUE}` label and the `{SOURCE_ANNOTATION}` annotation); it is left untouched",
                            ObjectRef::of(existing)
                        ),
                    )
                    .with_object(g.catalog.clone())
                    .with_field("metadata.name")
                    .with_help("rename the catalog entry, or delete or rename the existing object"),
                );
                conflicts = true;
            }
            None => {
                let path = format!("{OUTPUT_DIR}/{}", g.file_name);
                if !used_files.insert((path.clone(), "0".to_string())) {
                    diagnostics.push(
                        Diagnostic::error(
                            "krm/file-taken",
                            format!("cannot write {} to `{path}`: another object already lives there", ObjectRef::of(&object)),
                        )
                        .with_object(g.catalog.clone())
                        .with_help(format!("move the object that is in `{path}` elsewhere")),
                    );
                    conflicts = true;
                    continue;
                }
                set_file(&mut object, &path);
                added.push(object);
            }
        }
    }

    // 4. Prune runtimes we generated before whose catalog entry is gone. Skipped when anything
    //    failed: a broken entry must not delete what it generated last time.
    if !failed && !conflicts {
        items.retain(|item| !is_owned(item) || generated_keys.contains(&key(item)));
    }
    items.extend(added);

    let exit_code = if diagnostics.iter().any(Diagnostic::is_error) { EXIT_FINDINGS } else { EXIT_OK };
    Output { list: ResourceList { items, function_config }, diagnostics, exit_code }
}

/// Serializes the output ResourceList in `format`, ending in a newline.
pub fn write(list: &ResourceList, diagnostics: &[Diagnostic], format: Format) -> Result<String, String> {
    let mut map = Map::new();
    map.insert("apiVersion".into(), Value::String(RESOURCE_LIST_API_VERSION.into()));
    map.insert("kind".into(), Value::String("ResourceList".into()));
    map.insert("items".into(), Value::Array(list.items.clone()));
    if let Some(fc) = &list.function_config {
        // Echoed so that the output, fed back in, is a complete input (idempotence).
        map.insert("functionConfig".into(), fc.clone());
    }
    if !diagnostics.is_empty() {
        map.insert("results".into(), Value::Array(diagnostics.iter().map(result).collect()));
    }
    let value = Value::Object(map);
    match format {
        Format::Yaml => yaml::to_string(&value),
        Format::Json => serde_json::to_string_pretty(&value).map(|s| s + "\n").map_err(|e| e.to_string()),
    }
}

/// A KRM `Result` from a diagnostic: severity, message (with the help), resourceRef,
/// field.path (only with a resourceRef, as the spec requires), file.path and index, and the
/// rule as a tag.
pub fn result(d: &Diagnostic) -> Value {
    let mut r = Map::new();
    let mut message = d.message.clone();
    if d.object.is_none() {
        if let Some(field) = &d.field {
            message = format!("`{field}`: {message}");
        }
    }
    if let Some(help) = &d.help {
        message = format!("{message} (help: {help})");
    }
    r.insert("message".into(), Value::String(message));
    r.insert("severity".into(), Value::String(d.severity.to_string()));
    if let Some(object) = &d.object {
        let mut o = Map::new();
        if !object.api_version.is_empty() {
            o.insert("apiVersion".into(), Value::String(object.api_version.clone()));
        }
        o.insert("kind".into(), Value::String(object.kind.clone()));
        o.insert("name".into(), Value::String(object.name.clone()));
        if let Some(ns) = &object.namespace {
            o.insert("namespace".into(), Value::String(ns.clone()));
        }
        r.insert("resourceRef".into(), Value::Object(o));
        if let Some(field) = &d.field {
            r.insert("field".into(), serde_json::json!({ "path": field }));
        }
    }
    if let Some(file) = d.file.as_deref().filter(|f| !f.starts_with('<')) {
        r.insert("file".into(), serde_json::json!({ "path": file, "index": d.index.unwrap_or(0) }));
    }
    r.insert("tags".into(), serde_json::json!({ "rule": d.rule }));
    Value::Object(r)
}

/// (group, kind, namespace, name): what makes two objects the same object.
type Key = (String, String, String, String);

fn key(v: &Value) -> Key {
    let s = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or_default().to_string();
    let api_version = s("/apiVersion");
    let group = match api_version.split_once('/') {
        Some((group, _)) => group.to_string(),
        None => String::new(),
    };
    (group, s("/kind"), s("/metadata/namespace"), s("/metadata/name"))
}

fn is_catalog(v: &Value) -> bool {
    v.get("apiVersion").and_then(Value::as_str) == Some(CATALOG_API_VERSION)
        && v.get("kind").and_then(Value::as_str).is_some_and(|k| CATALOG_KINDS.contains(&k))
}

/// kpt's stand-in when `kpt fn eval` gets no config: a ConfigMap `function-input` without data.
fn is_empty_placeholder(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str) == Some("ConfigMap")
        && v.pointer("/metadata/name").and_then(Value::as_str) == Some("function-input")
        && v.get("data").is_none_or(|d| d.as_object().is_none_or(Map::is_empty) && !d.is_string())
}

fn annotations(v: &Value) -> Option<&Map<String, Value>> {
    v.pointer("/metadata/annotations").and_then(Value::as_object)
}

fn annotation<'a>(v: &'a Value, name: &str) -> Option<&'a str> {
    annotations(v).and_then(|a| a.get(name)).and_then(Value::as_str)
}

fn annotations_mut(v: &mut Value) -> Option<&mut Map<String, Value>> {
    let metadata = v.as_object_mut()?.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    let metadata = metadata.as_object_mut()?;
    metadata.entry("annotations").or_insert_with(|| Value::Object(Map::new())).as_object_mut()
}

/// True for a runtime this function generated: both marks present.
fn is_owned(v: &Value) -> bool {
    v.pointer("/metadata/labels").and_then(|l| l.get(MANAGED_BY_LABEL)).and_then(Value::as_str) == Some(MANAGED_BY_VALUE)
        && annotation(v, SOURCE_ANNOTATION).is_some()
}

/// The item's file and index as the orchestrator gave them (new key first, then legacy).
fn file_of(v: &Value) -> (Option<String>, Option<usize>) {
    let path = annotation(v, PATH).or_else(|| annotation(v, LEGACY_PATH)).map(str::to_string);
    let index = annotation(v, INDEX).or_else(|| annotation(v, LEGACY_INDEX)).and_then(|i| i.parse().ok());
    (path, index)
}

/// True for annotation keys that belong to kpt or kustomize (paths, ids, `local-config`,
/// `config.kubernetes.io/function`): never copied from a catalog object onto a runtime.
pub fn is_orchestrator_annotation(k: &str) -> bool {
    ORCHESTRATOR_PREFIXES.iter().any(|p| k.starts_with(p))
}

/// The catalog object as the CLI would read it from its file: orchestrator annotations gone.
fn pipeline_copy(v: &Value) -> Value {
    let mut copy = v.clone();
    strip_orchestrator_annotations(&mut copy);
    copy
}

fn strip_orchestrator_annotations(v: &mut Value) {
    let Some(metadata) = v.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    let Some(annotations) = metadata.get_mut("annotations").and_then(Value::as_object_mut) else { return };
    annotations.retain(|k, _| !is_orchestrator_annotation(k));
    if annotations.is_empty() {
        metadata.remove("annotations");
    }
}

/// A replaced runtime keeps the file, index and ids kpt gave it, so it stays in its file and
/// kpt can restore its comments.
fn carry_orchestrator_annotations(from: &Value, to: &mut Value) {
    let Some(old) = annotations(from) else { return };
    let carried: Vec<(String, Value)> =
        old.iter().filter(|(k, _)| is_orchestrator_annotation(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
    if carried.is_empty() {
        return;
    }
    if let Some(new) = annotations_mut(to) {
        for (k, v) in carried {
            new.insert(k, v);
        }
    }
}

fn set_file(v: &mut Value, path: &str) {
    if let Some(a) = annotations_mut(v) {
        a.insert(LEGACY_PATH.into(), Value::String(path.into()));
        a.insert(LEGACY_INDEX.into(), Value::String("0".into()));
        a.insert(PATH.into(), Value::String(path.into()));
        a.insert(INDEX.into(), Value::String("0".into()));
    }
}

/// Catalog objects must stay client-side: kpt keeps their files, kustomize drops them from its
/// output, `kpt live apply` skips them. A value other than "true" is the user's choice: warn.
fn mark_local_config(item: &mut Value, diagnostics: &mut Vec<Diagnostic>) {
    match annotation(item, LOCAL_CONFIG) {
        Some("true") => {}
        Some(other) => {
            let (path, index) = file_of(item);
            let mut d = Diagnostic::warning(
                "krm/local-config",
                format!("`{LOCAL_CONFIG}` is \"{other}\"; catalog objects are not Kubernetes objects and should not be applied"),
            )
            .with_object(ObjectRef::of(item))
            .with_field(format!("metadata.annotations.{LOCAL_CONFIG}"))
            .with_help("set it to \"true\"");
            if let Some(p) = path {
                d = d.with_file(p, index, None);
            }
            diagnostics.push(d);
        }
        None => {
            if let Some(a) = annotations_mut(item) {
                a.insert(LOCAL_CONFIG.into(), Value::String("true".into()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Stand-in pipeline: one ClusterTrainingRuntime per JaxRuntime, named like it; a runtime
    /// with `spec.broken` gives an error, one with `spec.warn` a warning. It copies the
    /// catalog object's annotations on purpose, as a careless pipeline might.
    fn fake(docs: &[Document]) -> Generation {
        let mut g = Generation::default();
        for d in docs {
            if d.value["kind"] != "JaxRuntime" {
                continue;
            }
            let name = d.value["metadata"]["name"].as_str().unwrap().to_string();
            let catalog = ObjectRef::of(&d.value);
            if d.value["spec"].get("broken").is_some() {
                g.diagnostics.push(d.locate(
                    Diagnostic::error("catalog/broken", "broken on purpose").with_object(catalog.clone()).with_field("spec.broken"),
                ));
                continue;
            }
            if d.value["spec"].get("warn").is_some() {
                g.diagnostics.push(d.locate(Diagnostic::warning("catalog/warn", "careful").with_object(catalog.clone())));
            }
            let mut annotations = d.value["metadata"].get("annotations").cloned().unwrap_or(json!({}));
            annotations[SOURCE_ANNOTATION] = json!(format!("JaxRuntime/{name}"));
            g.objects.push(GeneratedObject {
                catalog,
                file_name: format!("clustertrainingruntime_{name}.yaml"),
                object: json!({
                    "apiVersion": "trainer.kubeflow.org/v1alpha1",
                    "kind": "ClusterTrainingRuntime",
                    "metadata": {
                        "name": name,
                        "labels": { MANAGED_BY_LABEL: MANAGED_BY_VALUE },
                        "annotations": annotations,
                    },
                    "spec": { "mlPolicy": { "numNodes": d.value["spec"]["nodes"].clone(), "jax": {} } },
                }),
            });
        }
        g
    }

    fn run_text(input: &str) -> (String, i32, String) {
        let mut out = Vec::new();
        let mut err = Vec::new();
        let code = run_with(input.as_bytes(), &mut out, &mut err, fake);
        (String::from_utf8(out).unwrap(), code, String::from_utf8(err).unwrap())
    }

    fn items(output: &str) -> Vec<Value> {
        parse(output).unwrap().0.items
    }

    fn results(output: &str) -> Vec<Value> {
        let v = if output.trim_start().starts_with('{') {
            serde_json::from_str::<Value>(output).unwrap()
        } else {
            yaml::parse_one(output).unwrap()
        };
        v.get("results").and_then(Value::as_array).cloned().unwrap_or_default()
    }

    const KPT_PACKAGE: &str = r#"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: yaml11
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/seqindent: 'compact'
      internal.config.kubernetes.io/annotations-migration-resource-id: '0'
      internal.config.kubernetes.io/id: '1'
      config.k8s.io/id: '1'
  data:
    a: "on"
    b: 'yes'
    c: "n"
    d: "0777"
    e: "1:20"
    f: "2001-12-14"
    g: "1_000"
    h: ".inf"
    i: "~"
    j: ""
    k: "null"
    l: "true"
    m: "0x1F"
    n: "1e3"
    o: "Off"
    multi: |
      line1
        line2
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'deploy.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'deploy.yaml'
      internal.config.kubernetes.io/id: '2'
      config.k8s.io/id: '2'
  spec:
    replicas: 3
    paused: false
    template:
      spec:
        containers:
        - name: web
          image: nginx
          ports: [{containerPort: 80}]
          resources: {limits: {cpu: 0.5}}
- resources:
  - deploy.yaml
  metadata:
    annotations:
      config.kubernetes.io/path: 'kustomization.yaml'
      internal.config.kubernetes.io/path: 'kustomization.yaml'
      internal.config.kubernetes.io/id: '3'
- apiVersion: jax-runtimes.dev/v1alpha1
  kind: JaxRuntime
  metadata:
    name: tpu
    annotations:
      config.kubernetes.io/path: 'catalog.yaml'
      internal.config.kubernetes.io/path: 'catalog.yaml'
      config.kubernetes.io/index: '1'
      internal.config.kubernetes.io/index: '1'
      internal.config.kubernetes.io/id: '4'
      team: ml
  spec:
    nodes: 2
"#;

    #[test]
    fn passthrough_items_keep_values_types_order_and_annotations() {
        let input = parse(KPT_PACKAGE).unwrap().0;
        let (out, code, _) = run_text(KPT_PACKAGE);
        assert_eq!(code, EXIT_OK, "{out}");
        let got = items(&out);
        // Unrelated items come back equal, in order, at the front.
        assert_eq!(got[0], input.items[0]);
        assert_eq!(got[1], input.items[1]);
        assert_eq!(got[2], input.items[2]);
        // The ConfigMap's YAML 1.1 look-alikes are still strings, and quoted in the text so
        // that YAML 1.1 readers (kubectl, PyYAML) read strings too.
        for s in
            ["\"on\"", "\"yes\"", "\"n\"", "\"0777\"", "\"1:20\"", "\"2001-12-14\"", "\"1_000\"", "\".inf\"", "\"~\"", "\"\"", "\"Off\""]
        {
            assert!(out.contains(&format!(": {s}\n")), "{s} not quoted in:\n{out}");
        }
        assert_eq!(got[1]["spec"]["replicas"], json!(3));
        assert_eq!(got[1]["spec"]["paused"], json!(false));
        assert_eq!(got[0]["data"]["multi"], json!("line1\n  line2\n"));
    }

    #[test]
    fn catalog_items_become_local_config_and_runtimes_get_a_file() {
        let (out, _, _) = run_text(KPT_PACKAGE);
        let got = items(&out);
        assert_eq!(got.len(), 5);
        let catalog = &got[3];
        assert_eq!(annotation(catalog, LOCAL_CONFIG), Some("true"));
        // Everything else about the catalog object is kept.
        assert_eq!(annotation(catalog, "internal.config.kubernetes.io/id"), Some("4"));
        assert_eq!(annotation(catalog, "team"), Some("ml"));
        let runtime = &got[4];
        assert_eq!(runtime["kind"], "ClusterTrainingRuntime");
        assert_eq!(annotation(runtime, PATH), Some("runtimes/clustertrainingruntime_tpu.yaml"));
        assert_eq!(annotation(runtime, LEGACY_PATH), Some("runtimes/clustertrainingruntime_tpu.yaml"));
        assert_eq!(annotation(runtime, INDEX), Some("0"));
        assert_eq!(annotation(runtime, SOURCE_ANNOTATION), Some("JaxRuntime/tpu"));
        // Nothing of the catalog object's orchestrator annotations leaked through the pipeline.
        assert_eq!(annotation(runtime, LOCAL_CONFIG), None);
        assert_eq!(annotation(runtime, "internal.config.kubernetes.io/id"), None);
        assert_eq!(annotation(runtime, "team"), Some("ml"));
    }

    #[test]
    fn output_fed_back_is_byte_identical() {
        let (first, code, _) = run_text(KPT_PACKAGE);
        assert_eq!(code, EXIT_OK);
        let (second, code, _) = run_text(&first);
        assert_eq!(code, EXIT_OK);
        assert_eq!(first, second);
        let (third, _, _) = run_text(&second);
        assert_eq!(second, third);
    }

    #[test]
    fn json_in_json_out_and_idempotent() {
        let v = yaml::parse_one(KPT_PACKAGE).unwrap();
        let input = serde_json::to_string(&v).unwrap();
        let (first, code, _) = run_text(&input);
        assert_eq!(code, EXIT_OK);
        assert!(first.starts_with('{'), "{first}");
        let (second, _, _) = run_text(&first);
        assert_eq!(first, second);
        assert_eq!(items(&first)[0], v["items"][0]);
    }

    fn with_items(extra: &str) -> String {
        format!("{KPT_PACKAGE}{extra}")
    }

    const STALE_OWNED: &str = r#"- apiVersion: trainer.kubeflow.org/v1alpha1
  kind: ClusterTrainingRuntime
  metadata:
    name: tpu
    labels: {app.kubernetes.io/managed-by: jax-runtimes}
    annotations:
      jax-runtimes.dev/source: JaxRuntime/tpu
      config.kubernetes.io/path: 'custom/place.yaml'
      internal.config.kubernetes.io/path: 'custom/place.yaml'
      internal.config.kubernetes.io/id: '9'
  spec: {mlPolicy: {numNodes: 1}}
"#;

    #[test]
    fn upsert_replaces_in_place_and_keeps_the_file() {
        let (out, code, _) = run_text(&with_items(STALE_OWNED));
        assert_eq!(code, EXIT_OK, "{out}");
        let got = items(&out);
        assert_eq!(got.len(), 5, "no duplicate: {out}");
        let runtimes: Vec<&Value> = got.iter().filter(|i| i["kind"] == "ClusterTrainingRuntime").collect();
        assert_eq!(runtimes.len(), 1);
        assert_eq!(runtimes[0]["spec"]["mlPolicy"]["numNodes"], json!(2), "content regenerated");
        assert_eq!(annotation(runtimes[0], PATH), Some("custom/place.yaml"), "file kept");
        assert_eq!(annotation(runtimes[0], "internal.config.kubernetes.io/id"), Some("9"), "id kept for kpt");
    }

    #[test]
    fn runtime_of_a_removed_entry_is_pruned() {
        let orphan = STALE_OWNED.replace("name: tpu", "name: gone").replace("JaxRuntime/tpu", "JaxRuntime/gone");
        let (out, code, _) = run_text(&with_items(&orphan));
        assert_eq!(code, EXIT_OK);
        let got = items(&out);
        assert!(got.iter().all(|i| i["metadata"]["name"] != "gone"), "{out}");
        assert_eq!(got.len(), 5);
    }

    #[test]
    fn foreign_object_with_the_same_name_is_an_error_and_untouched() {
        let foreign = r#"- apiVersion: trainer.kubeflow.org/v1alpha1
  kind: ClusterTrainingRuntime
  metadata:
    name: tpu
    annotations: {config.kubernetes.io/path: 'mine.yaml', internal.config.kubernetes.io/path: 'mine.yaml'}
  spec: {handWritten: true}
"#;
        let input = parse(&with_items(foreign)).unwrap().0;
        let (out, code, err) = run_text(&with_items(foreign));
        assert_eq!(code, EXIT_FINDINGS);
        let got = items(&out);
        assert_eq!(got.len(), input.items.len(), "nothing added, nothing removed");
        assert_eq!(got[4], input.items[4], "the hand-written object is untouched");
        let r = results(&out);
        assert_eq!(r.len(), 1, "{out}");
        assert_eq!(r[0]["severity"], "error");
        assert_eq!(r[0]["resourceRef"]["kind"], "JaxRuntime");
        assert_eq!(r[0]["field"]["path"], "metadata.name");
        assert!(r[0]["message"].as_str().unwrap().contains("mine.yaml"));
        assert!(err.contains("krm/not-owned"), "{err}");
    }

    #[test]
    fn label_alone_does_not_make_an_object_ours() {
        let half = STALE_OWNED.replace("jax-runtimes.dev/source: JaxRuntime/tpu", "other: x").replace("name: tpu", "name: other");
        let (out, code, _) = run_text(&with_items(&half));
        assert_eq!(code, EXIT_OK);
        assert!(items(&out).iter().any(|i| i["metadata"]["name"] == "other"), "not pruned");
    }

    #[test]
    fn kustomize_generator_config_is_read_once() {
        // kustomize passes a generator's config as functionConfig and, marked local-config,
        // as the only item.
        let input = r#"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: jax-runtimes.dev/v1alpha1
  kind: JaxRuntime
  metadata:
    name: cpu
    annotations:
      config.kubernetes.io/function: |
        exec:
          path: jax-runtimes
      config.kubernetes.io/local-config: "true"
  spec: {nodes: 1}
functionConfig:
  apiVersion: jax-runtimes.dev/v1alpha1
  kind: JaxRuntime
  metadata:
    name: cpu
    annotations:
      config.kubernetes.io/function: |
        exec:
          path: jax-runtimes
  spec: {nodes: 1}
"#;
        let (out, code, _) = run_text(input);
        assert_eq!(code, EXIT_OK, "{out}");
        let got = items(&out);
        assert_eq!(got.len(), 2, "{out}");
        let runtime = &got[1];
        assert_eq!(runtime["metadata"]["name"], "cpu");
        assert!(
            annotations(runtime).unwrap().keys().all(|k| k == SOURCE_ANNOTATION
                || k.starts_with("config.kubernetes.io/path")
                || k.starts_with("config.kubernetes.io/index")
                || k.starts_with("internal.")),
            "{out}"
        );
        assert_eq!(annotation(runtime, "config.kubernetes.io/function"), None);
        let (again, _, _) = run_text(&out);
        assert_eq!(out, again);
    }

    #[test]
    fn function_config_alone_is_a_catalog() {
        let input = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: jax-runtimes.dev/v1alpha1\n  kind: JaxRuntime\n  metadata: {name: solo}\n  spec: {nodes: 4}\n";
        let (out, code, _) = run_text(input);
        assert_eq!(code, EXIT_OK);
        let got = items(&out);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0]["metadata"]["name"], "solo");
    }

    #[test]
    fn kpt_placeholder_config_is_ignored_and_other_configs_are_errors() {
        let placeholder = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  metadata: {name: function-input}\n  data: {}\n  kind: ConfigMap\n  apiVersion: v1\n";
        let (out, code, _) = run_text(placeholder);
        assert_eq!(code, EXIT_OK);
        assert!(results(&out).is_empty());
        let other = placeholder.replace("data: {}", "data: {x: y}");
        let (out, code, _) = run_text(&other);
        assert_eq!(code, EXIT_FINDINGS);
        assert_eq!(results(&out)[0]["tags"]["rule"], "krm/function-config");
    }

    #[test]
    fn bad_entry_gives_a_located_result_and_prunes_nothing() {
        let input = with_items(STALE_OWNED).replace("    nodes: 2\n", "    nodes: 2\n    broken: yes\n");
        let (out, code, _) = run_text(&input);
        assert_eq!(code, EXIT_FINDINGS);
        let r = results(&out);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0]["severity"], "error");
        assert_eq!(r[0]["resourceRef"], json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntime", "name": "tpu"}));
        assert_eq!(r[0]["field"]["path"], "spec.broken");
        assert_eq!(r[0]["file"], json!({"path": "catalog.yaml", "index": 1}));
        // The runtime generated last time survives a failed run.
        assert!(items(&out).iter().any(|i| i["kind"] == "ClusterTrainingRuntime"), "{out}");
    }

    #[test]
    fn warnings_alone_do_not_fail() {
        let input = KPT_PACKAGE.replace("    nodes: 2\n", "    nodes: 2\n    warn: true\n");
        let (out, code, _) = run_text(&input);
        assert_eq!(code, EXIT_OK);
        assert_eq!(results(&out)[0]["severity"], "warning");
    }

    #[test]
    fn input_that_is_not_a_resource_list_fails_with_a_result() {
        for bad in ["apiVersion: v1\nkind: ConfigMap\n", "[1, 2]", "items: [\n", "{\"kind\": \"ResourceList\", \"items\": 3}"] {
            let (out, code, err) = run_text(bad);
            assert_eq!(code, EXIT_BAD_INPUT, "{bad}");
            assert!(!err.is_empty());
            assert_eq!(results(&out)[0]["severity"], "error", "{bad}: {out}");
            assert!(items(&out).is_empty());
        }
    }

    #[test]
    fn missing_items_and_list_kind_are_accepted() {
        let (out, code, _) = run_text("apiVersion: v1\nkind: List\n");
        assert_eq!(code, EXIT_OK);
        assert!(items(&out).is_empty());
    }

    #[test]
    fn new_runtimes_get_their_own_file_and_clashes_are_errors() {
        let gen = |_: &[Document]| Generation {
            objects: ["a", "b"]
                .iter()
                .map(|ns| GeneratedObject {
                    catalog: ObjectRef::new("JaxRuntime", "x"),
                    file_name: format!("trainingruntime_{ns}_x.yaml"),
                    object: json!({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
                        "metadata": {"name": "x", "namespace": ns, "labels": {MANAGED_BY_LABEL: MANAGED_BY_VALUE},
                        "annotations": {SOURCE_ANNOTATION: "JaxRuntime/x"}}}),
                })
                .collect(),
            diagnostics: vec![],
        };
        let out = process(ResourceList::default(), gen);
        assert_eq!(out.exit_code, EXIT_OK);
        let paths: Vec<_> = out.list.items.iter().map(|i| annotation(i, PATH).unwrap().to_string()).collect();
        assert_eq!(paths, ["runtimes/trainingruntime_a_x.yaml", "runtimes/trainingruntime_b_x.yaml"]);

        let taken = ResourceList {
            items: vec![json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c",
                "annotations": {PATH: "runtimes/trainingruntime_a_x.yaml", INDEX: "0"}}})],
            function_config: None,
        };
        let out = process(taken, gen);
        assert_eq!(out.exit_code, EXIT_FINDINGS);
        assert_eq!(out.diagnostics[0].rule, "krm/file-taken");
    }

    #[test]
    fn a_runtime_generated_twice_is_an_error() {
        let gen = |_: &[Document]| {
            let o = GeneratedObject {
                catalog: ObjectRef::new("JaxRuntimeMatrix", "m"),
                file_name: "f.yaml".into(),
                object: json!({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
                    "metadata": {"name": "x", "labels": {MANAGED_BY_LABEL: MANAGED_BY_VALUE}, "annotations": {SOURCE_ANNOTATION: "JaxRuntimeMatrix/m"}}}),
            };
            Generation { objects: vec![o.clone(), o], diagnostics: vec![] }
        };
        let out = process(ResourceList::default(), gen);
        assert_eq!(out.exit_code, EXIT_FINDINGS);
        assert_eq!(out.list.items.len(), 1);
        assert_eq!(out.diagnostics[0].rule, "krm/duplicate-runtime");
    }

    #[test]
    fn results_follow_the_krm_schema() {
        let d = Diagnostic::error("r", "m").with_field("spec.x").with_help("h");
        // A field without a resourceRef is folded into the message (the spec requires both).
        assert_eq!(result(&d), json!({"message": "`spec.x`: m (help: h)", "severity": "error", "tags": {"rule": "r"}}));
        let d = Diagnostic::warning("r", "m")
            .with_object(ObjectRef { api_version: "a/v1".into(), kind: "K".into(), name: "n".into(), namespace: Some("ns".into()) })
            .with_field("spec.x")
            .with_file("dir/f.yaml", Some(2), Some(7));
        assert_eq!(
            result(&d),
            json!({"message": "m", "severity": "warning",
                "resourceRef": {"apiVersion": "a/v1", "kind": "K", "name": "n", "namespace": "ns"},
                "field": {"path": "spec.x"}, "file": {"path": "dir/f.yaml", "index": 2}, "tags": {"rule": "r"}})
        );
        // Synthetic source names are not files.
        let d = Diagnostic::error("r", "m").with_file("<functionConfig>", None, None);
        assert!(result(&d).get("file").is_none());
    }

    #[test]
    fn local_config_false_is_kept_with_a_warning() {
        let input = KPT_PACKAGE.replace("      team: ml\n", "      team: ml\n      config.kubernetes.io/local-config: \"false\"\n");
        let (out, code, _) = run_text(&input);
        assert_eq!(code, EXIT_OK);
        assert_eq!(annotation(&items(&out)[3], LOCAL_CONFIG), Some("false"));
        assert_eq!(results(&out)[0]["tags"]["rule"], "krm/local-config");
    }
}
