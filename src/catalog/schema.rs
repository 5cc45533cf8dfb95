//! The catalog's JSON Schema, and the structure check `render` makes with it.
//!
//! One schema serves three readers: editors complete and check catalog files with it
//! (`jax-runtimes schema`, `docs/schema/`), `render` finds every unknown field of a catalog object
//! with it ([`unknown_fields`]), and a test proves that it refuses what `render` refuses. It is
//! built from the catalog types with schemars, then:
//! - **closed**: every object schema that lists properties gets `additionalProperties: false`,
//!   the k8s-openapi types inside the catalog (`EnvVar`, `Toleration`, `ResourceRequirements`, and
//!   whatever a new field embeds) included, since schemars leaves them open and serde drops what
//!   they do not know;
//! - **refined** with the data: platform names, image keys, GPU models, vendors and machine
//!   types, TPU generations (case-insensitive, as `render` reads them) and each one's topologies,
//!   Trainer releases, and Kubernetes' name, label, quantity and env-name patterns and enums
//!   (`catalog/kubernetes.yaml`), with the minimums `render` applies;
//! - **templated** for matrices: `JaxRuntimeMatrix.spec.template` has a twin of the `JaxRuntime`
//!   schema in which any value may instead be a `{{ ... }}` template string, so an editor completes
//!   and checks a template's field names as it does a runtime's.
//!
//! A new catalog field needs nothing here: deriving `JsonSchema` on its type (k8s-openapi types
//! have it) puts it in the schema, closed, and [`unknown_fields`] checks it at every depth.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::OnceLock;

use serde_json::{json, Map, Value};

use super::{JaxCluster, JaxRuntime, JaxRuntimeDefaults, JaxRuntimeMatrix, JaxRuntimeQueue, JaxRuntimeValidation, Kind};
use crate::accelerators::data;
use crate::k8s::facts::facts;
use crate::spelling;

/// Any catalog object, for the JSON Schema.
#[derive(schemars::JsonSchema)]
#[serde(untagged)]
// Only the schema generator reads it: never built, so its size does not matter, and its variants
// are named after the kinds they describe.
#[allow(dead_code, clippy::large_enum_variant, clippy::enum_variant_names)]
enum CatalogObject {
    JaxRuntime(JaxRuntime),
    JaxRuntimeDefaults(JaxRuntimeDefaults),
    JaxRuntimeMatrix(JaxRuntimeMatrix),
    JaxRuntimeQueue(JaxRuntimeQueue),
    JaxRuntimeValidation(JaxRuntimeValidation),
    JaxCluster(JaxCluster),
}

/// The definition a template string matches (`{{ ... }}` or `{% ... %}` somewhere in it).
const TEMPLATE: &str = "Template";
/// Prefix of the templated twins of the definitions a matrix template uses.
const TEMPLATED: &str = "Template.";
/// The metadata of a runtime (`JaxRuntime`, a matrix template): names and labels Kubernetes
/// checks. Other catalog objects' metadata only needs a name.
const RUNTIME_METADATA: &str = "RuntimeMetadata";

/// The schema (built once from the types and the data).
pub fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(build)
}

/// The schema as pretty JSON (what `docs/schema/jax-runtimes.schema.json` holds).
pub fn text() -> String {
    serde_json::to_string_pretty(schema()).unwrap_or_default()
}

fn build() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(CatalogObject)).unwrap_or(Value::Null);
    if let Some(Value::Object(defs)) = schema.get_mut("$defs") {
        for def in defs.values_mut() {
            close(def);
        }
        refine(defs);
        templated(defs);
    }
    if let Some(obj) = schema.as_object_mut() {
        // By kind, not "any of": an editor (and a validator) then reports the fields of the kind
        // the object says it is, and a kind that is none of them.
        obj.remove("anyOf");
        let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        obj.insert("type".into(), json!("object"));
        obj.insert("required".into(), json!(["apiVersion", "kind"]));
        obj.insert("properties".into(), json!({"apiVersion": {"const": super::API_VERSION}, "kind": {"enum": kinds}}));
        let by_kind: Vec<Value> = kinds
            .iter()
            .map(|k| json!({"if": {"properties": {"kind": {"const": k}}, "required": ["kind"]}, "then": {"$ref": format!("#/$defs/{k}")}}))
            .collect();
        obj.insert("allOf".into(), Value::Array(by_kind));
        obj.insert("title".into(), Value::String("jax-runtimes catalog object".into()));
        obj.insert(
            "description".into(),
            json!(format!(
                "A jax-runtimes catalog object (apiVersion `{}`): a {}, or the KRM function's `{}` config.",
                super::API_VERSION,
                Kind::names(Kind::generates),
                Kind::Validation
            )),
        );
        obj.insert("$id".into(), Value::String("https://jax-runtimes.dev/schema/v1alpha1/catalog.json".into()));
    }
    schema
}

/// Closes every object schema that lists its properties, at any depth: a field it does not list
/// is an error, as serde's `deny_unknown_fields` makes it for the catalog's own types.
fn close(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, child) in m.iter_mut() {
                match k.as_str() {
                    "properties" | "$defs" => {
                        if let Value::Object(props) = child {
                            props.values_mut().for_each(close);
                        }
                    }
                    "items" | "additionalProperties" | "anyOf" | "oneOf" | "allOf" | "then" | "else" => close(child),
                    _ => {}
                }
            }
            if m.contains_key("properties") && !m.contains_key("additionalProperties") {
                m.insert("additionalProperties".into(), Value::Bool(false));
            }
        }
        Value::Array(a) => a.iter_mut().for_each(close),
        _ => {}
    }
}

/// `properties.<name>` of a definition, for refining.
fn prop<'a>(defs: &'a mut Map<String, Value>, def: &str, name: &str) -> Option<&'a mut Map<String, Value>> {
    defs.get_mut(def)?.get_mut("properties")?.get_mut(name)?.as_object_mut()
}

/// Sets keywords on a property, keeping its description.
fn set(defs: &mut Map<String, Value>, def: &str, name: &str, keywords: Value) {
    if let (Some(p), Value::Object(k)) = (prop(defs, def, name), keywords) {
        p.extend(k);
    }
}

/// Replaces a property's schema by `schema`, keeping its description.
fn replace(defs: &mut Map<String, Value>, def: &str, name: &str, schema: Value) {
    if let Some(p) = prop(defs, def, name) {
        let description = p.remove("description");
        *p = match schema {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        if let Some(d) = description {
            p.insert("description".into(), d);
        }
    }
}

/// An optional value (`null` is "unset", as serde reads it) of `schema`.
fn optional(schema: Value) -> Value {
    json!({"anyOf": [schema, {"type": "null"}]})
}

/// A regular expression that matches `word` in any letter case (JSON Schema has no flag for it).
fn any_case(word: &str) -> String {
    word.chars()
        .map(|c| {
            if c.is_ascii_alphabetic() {
                format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase())
            } else if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

/// Kubernetes' patterns, from `catalog/kubernetes.yaml`.
struct Patterns {
    dns_label: Value,
    dns_subdomain: Value,
    label_key: String,
    annotation_key: String,
    label_value: Value,
    quantity: Value,
    env_name: Value,
}

fn patterns() -> Patterns {
    let f = facts();
    let label = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    let subdomain = format!("{label}(\\.{label})*");
    let name_max = f.limits.qualified_name.saturating_sub(2);
    let qualified = format!("([A-Za-z0-9][-A-Za-z0-9_.]{{0,{name_max}}})?[A-Za-z0-9]");
    let upper = "[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?";
    let value_max = f.limits.label_value.saturating_sub(2);
    Patterns {
        dns_label: json!({"type": "string", "pattern": f.patterns.dns1123_label, "maxLength": f.limits.dns_label}),
        dns_subdomain: json!({"type": "string", "pattern": format!("^{subdomain}$"), "maxLength": f.limits.dns_subdomain}),
        label_key: format!("^({subdomain}/)?{qualified}$"),
        annotation_key: format!("^({upper}(\\.{upper})*/)?{qualified}$"),
        label_value: json!({"type": "string", "pattern": format!("^(([A-Za-z0-9][-A-Za-z0-9_.]{{0,{value_max}}})?[A-Za-z0-9])?$")}),
        quantity: json!({"anyOf": [{"type": "string", "pattern": f.quantity_pattern}, {"type": "number"}]}),
        // `IsRelaxedEnvVarName` (Kubernetes 1.32 and later): printable ASCII, no `=`.
        env_name: json!({"type": "string", "pattern": "^[ -<>-~]+$"}),
    }
}

/// What the types cannot say: the data's names, Kubernetes' patterns and enums, minimums.
fn refine(defs: &mut Map<String, Value>) {
    let d = data();
    let k = facts();
    let p = patterns();

    // Names that are data.
    let platforms: Vec<Value> =
        d.platforms.platforms.iter().map(|p| json!({"description": p.description, "type": "string", "const": p.name})).collect();
    defs.insert("Platform".into(), json!({"description": "The platform the runtime schedules on.", "oneOf": platforms}));
    let mut images = Map::new();
    images.insert("cpu".into(), json!({"description": "CPU runtimes.", "type": "string"}));
    for v in &d.gpu.vendors {
        images.insert(v.image_key.clone(), json!({"description": v.description, "type": "string"}));
    }
    images.insert("tpu".into(), json!({"description": "TPU runtimes.", "type": "string"}));
    defs.insert(
        "Images".into(),
        json!({"description": "Images per accelerator kind.", "type": "object", "properties": images, "additionalProperties": false}),
    );
    // Capacity kinds: `catalog/capacity.yaml`.
    let mut kinds = Map::new();
    for kind in &crate::capacity::data().kinds {
        let value = match kind.takes {
            crate::capacity::Takes::Flag => json!({"type": "boolean"}),
            crate::capacity::Takes::Name => json!({"type": "string", "minLength": 1}),
        };
        let on = kind.offered_on().join(", ");
        let mut v = value;
        v["description"] = json!(format!("{} Platforms: {on}.", kind.description));
        kinds.insert(kind.name.clone(), v);
    }
    defs.insert(
        "Capacity".into(),
        json!({"description": "How the nodes are bought (`catalog/capacity.yaml`).", "type": "object", "properties": kinds, "additionalProperties": false}),
    );
    let releases: Vec<Value> =
        super::trainer_releases().into_iter().chain(super::releases::trainer_patch_releases()).map(Value::from).collect();
    for def in ["JaxRuntimeSpec", "DefaultsSpec"] {
        replace(defs, def, "trainer", optional(json!({"type": "string", "enum": releases})));
    }

    // `spec.podTemplate.spec` is a fragment: the generator makes the containers, so none is
    // required (a container in it still needs its `name`).
    if let Some(Value::Object(spec)) = defs.get_mut("io.k8s.api.core.v1.PodSpec") {
        spec.remove("required");
    }

    // Runtimes' metadata: what the API server checks of a runtime's name, namespace and labels,
    // and what each field does (only this metadata reaches a runtime; `Metadata`'s descriptions
    // say so of every other kind's).
    if let Some(Value::Object(meta)) = defs.get("Metadata").cloned() {
        let mut rm = meta;
        rm.insert(
            "description".into(),
            json!("Object metadata of a runtime: the generated runtime's name and namespace, and labels and annotations copied onto it."),
        );
        defs.insert(RUNTIME_METADATA.into(), Value::Object(rm));
        replace(defs, RUNTIME_METADATA, "name", p.dns_subdomain.clone());
        replace(defs, RUNTIME_METADATA, "namespace", optional(p.dns_label.clone()));
        let labels = json!({"type": "object", "propertyNames": {"pattern": p.label_key}, "additionalProperties": p.label_value});
        let annotations =
            json!({"type": "object", "propertyNames": {"pattern": p.annotation_key}, "additionalProperties": {"type": "string"}});
        replace(defs, RUNTIME_METADATA, "labels", labels.clone());
        replace(defs, RUNTIME_METADATA, "annotations", annotations.clone());
        for (field, description) in [
            ("name", "The generated runtime's name."),
            ("namespace", "Present: the runtime is a namespaced `TrainingRuntime` in this namespace. Absent: a `ClusterTrainingRuntime`."),
            ("labels", "Copied onto the generated runtime, over the defaults' `spec.labels`; what the defaults' `spec.selector.matchLabels` selects on."),
            ("annotations", "Copied onto the generated runtime, over the defaults' `spec.annotations` (kpt's and kustomize's own, such as `config.kubernetes.io/*`, are not)."),
        ] {
            set(defs, RUNTIME_METADATA, field, json!({"description": description}));
        }
        replace(defs, "DefaultsSpec", "labels", labels.clone());
        replace(defs, "DefaultsSpec", "annotations", annotations);
        if let Some(m) = prop(defs, "JaxRuntime", "metadata") {
            m.insert("$ref".into(), json!(format!("#/$defs/{RUNTIME_METADATA}")));
        }
        let selector = json!({"type": "object", "propertyNames": {"pattern": p.label_key}, "additionalProperties": p.label_value});
        for def in ["JaxRuntimeSpec", "DefaultsSpec"] {
            replace(defs, def, "nodeSelector", selector.clone());
        }
    }
    replace(defs, "JaxRuntimeSpec", "serviceAccountName", optional(p.dns_subdomain.clone()));
    let image = json!({"type": "string", "pattern": "^\\S(.*\\S)?$"});
    replace(defs, "JaxRuntimeSpec", "image", optional(image.clone()));
    set(defs, "JaxRuntimeSpec", "numNodes", json!({"minimum": 1}));

    // Kubernetes types inside the catalog.
    if let Some(Value::Object(q)) = defs.get_mut("io.k8s.apimachinery.pkg.api.resource.Quantity") {
        let description = q.remove("description");
        q.clear();
        if let Value::Object(m) = p.quantity.clone() {
            q.extend(m);
        }
        if let Some(dsc) = description {
            q.insert("description".into(), dsc);
        }
    }
    replace(defs, "SharedMemory", "sizeLimit", optional(p.quantity.clone()));
    let operators: Vec<Value> = k.enums.toleration_operators.iter().map(|s| Value::from(s.as_str())).collect();
    let mut effects: Vec<Value> = k.enums.taint_effects.iter().map(|s| Value::from(s.as_str())).collect();
    effects.push(json!(""));
    set(defs, "io.k8s.api.core.v1.Toleration", "operator", json!({"enum": operators}));
    set(defs, "io.k8s.api.core.v1.Toleration", "effect", json!({"enum": effects}));
    set(defs, "io.k8s.api.core.v1.Toleration", "key", json!({"pattern": format!("({})|^$", p.label_key)}));
    if let Value::Object(m) = p.env_name.clone() {
        if let Some(e) = prop(defs, "io.k8s.api.core.v1.EnvVar", "name") {
            e.extend(m);
        }
    }

    let selector_ops: Vec<Value> = k.label_selector_operators.keys().map(|s| Value::from(s.as_str())).collect();
    set(defs, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement", "operator", json!({"enum": selector_ops}));
    set(defs, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement", "key", json!({"pattern": p.label_key}));
    replace(
        defs,
        "DefaultsSelector",
        "matchLabels",
        json!({"type": "object", "propertyNames": {"pattern": p.label_key}, "additionalProperties": p.label_value}),
    );
    replace(defs, "DefaultsSelector", "names", json!({"type": "array", "items": {"type": "string", "pattern": "^[-a-z0-9.*]+$"}}));

    // GPUs.
    let models: Vec<Value> =
        d.gpu.models.iter().map(|m| json!({"description": m.description, "type": "string", "const": m.name})).collect();
    // Read as `render` reads them: any case, `_` for `-`, spaces around.
    let any_model =
        format!("^\\s*({})\\s*$", d.gpu.models.iter().map(|m| any_case(&m.name).replace('-', "[-_]")).collect::<Vec<_>>().join("|"));
    replace(defs, "GpuSpec", "model", json!({"anyOf": [{"oneOf": models}, {"type": "string", "pattern": any_model}]}));
    let vendors: Vec<Value> = d.gpu.vendors.iter().map(|v| Value::from(v.name.as_str())).collect();
    replace(defs, "GpuSpec", "vendor", optional(json!({"type": "string", "enum": vendors})));
    let machine_types: BTreeSet<&str> =
        d.gpu.models.iter().flat_map(|m| m.platforms.values()).flat_map(|p| &p.machine_types).map(|m| m.name.as_str()).collect();
    let machine_types: Vec<Value> = machine_types.into_iter().map(Value::from).collect();
    replace(defs, "GpuSpec", "machineType", optional(json!({"type": "string", "enum": machine_types})));
    replace(defs, "GpuSpec", "machineTypes", json!({"type": "array", "items": {"type": "string", "enum": machine_types}}));
    set(defs, "GpuSpec", "count", json!({"minimum": 1}));

    // TPUs: a generation by any of its names, in any case; each generation's topologies.
    let t = &d.tpu;
    let names = |g: &crate::accelerators::TpuGeneration| -> Vec<String> {
        let mut n = vec![g.name.clone()];
        n.extend(g.aliases.iter().cloned());
        n.push(g.accelerator_label.clone());
        n
    };
    let generation_pattern = |g: &crate::accelerators::TpuGeneration| {
        format!("^\\s*({})\\s*$", names(g).iter().map(|n| any_case(n)).collect::<Vec<_>>().join("|"))
    };
    let all_generations =
        format!("^\\s*({})\\s*$", t.generations.iter().flat_map(names).map(|n| any_case(&n)).collect::<Vec<_>>().join("|"));
    let canonical: Vec<Value> = t.generations.iter().map(|g| Value::from(g.name.as_str())).collect();
    replace(defs, "TpuSpec", "type", optional(json!({"type": "string", "anyOf": [{"enum": canonical}, {"pattern": all_generations}]})));
    replace(defs, "TpuSpec", "topology", optional(json!({"type": "string", "pattern": "^[1-9][0-9]*x[1-9][0-9]*(x[1-9][0-9]*)?$"})));
    let generations = or_list(t.generations.iter().map(|g| format!("`{}`", g.name)).collect());
    let description = format!("Generation: {generations} (aliases accepted, see `jax-runtimes accelerators --kind tpu`).");
    set(defs, "TpuSpec", "type", json!({"description": description}));
    let mut by_dimensions: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for g in &t.generations {
        by_dimensions.entry(g.dimensions).or_default().push(&g.name);
    }
    let form = |d: usize| ["A", "B", "C", "D"][..d.min(4)].join("x");
    let forms: Vec<String> = by_dimensions.iter().map(|(d, names)| format!("`{}` ({})", form(*d), names.join(", "))).collect();
    set(defs, "TpuSpec", "topology", json!({"description": format!("Slice topology, {}.", or_list(forms))}));
    let prefixes: BTreeSet<String> =
        t.generations.iter().flat_map(|g| [g.accelerator_type_prefix.clone(), g.name.clone()]).map(|p| any_case(&p)).collect();
    let prefixes: Vec<String> = prefixes.into_iter().collect();
    replace(
        defs,
        "TpuSpec",
        "acceleratorType",
        optional(json!({"type": "string", "pattern": format!("^({})-[1-9][0-9]*$", prefixes.join("|"))})),
    );
    let chips: BTreeSet<u32> = t.generations.iter().flat_map(|g| &g.machine_types).map(|m| m.chips_per_host).collect();
    set(defs, "TpuSpec", "chipsPerHost", json!({"enum": chips.into_iter().map(Value::from).chain([Value::Null]).collect::<Vec<_>>()}));
    set(defs, "TpuSpec", "slices", json!({"minimum": 1, "maximum": 1}));
    let per_generation: Vec<Value> = t
        .generations
        .iter()
        .map(|g| {
            let listed: Vec<Value> = g.topologies.iter().map(|x| Value::from(x.topology.as_str())).collect();
            let dims = vec!["[1-9][0-9]*"; g.dimensions].join("x");
            let topology = match &g.large_topologies {
                // Large slices follow a rule (multiples of a cube): the form, not a list.
                Some(_) => json!({"anyOf": [{"enum": listed}, {"pattern": format!("^{dims}$")}]}),
                None => json!({"enum": listed}),
            };
            json!({
                "if": {"properties": {"type": {"type": "string", "pattern": generation_pattern(g)}}, "required": ["type"]},
                "then": {"properties": {"topology": optional(topology)}},
            })
        })
        .collect();
    if let Some(Value::Object(tpu)) = defs.get_mut("TpuSpec") {
        tpu.insert("allOf".into(), Value::Array(per_generation));
    }

    // Matrices: every variable has at least one value.
    replace(defs, "MatrixSpec", "matrix", json!({"type": "object", "additionalProperties": {"type": "array", "minItems": 1}}));
}

/// Adds the templated twins of what a matrix template holds, and points the template at them.
fn templated(defs: &mut Map<String, Value>) {
    defs.insert(
        TEMPLATE.into(),
        json!({
            "description": "A minijinja template over the matrix variables, e.g. `jax-{{ shape.name }}`. A string that is exactly one `{{ expression }}` takes the expression's value and type.",
            "type": "string",
            "pattern": "\\{\\{|\\{%",
        }),
    );
    let mut queue: VecDeque<String> = VecDeque::from(["JaxRuntimeSpec".to_string(), RUNTIME_METADATA.to_string()]);
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut twins: BTreeMap<String, Value> = BTreeMap::new();
    while let Some(name) = queue.pop_front() {
        if !done.insert(name.clone()) {
            continue;
        }
        let Some(def) = defs.get(&name) else { continue };
        let mut refs = Vec::new();
        let twin = twin(def, &mut refs);
        queue.extend(refs);
        twins.insert(format!("{TEMPLATED}{name}"), twin);
    }
    defs.extend(twins);
    if let Some(Value::Object(t)) = defs.get_mut("MatrixTemplate") {
        if let Some(Value::Object(props)) = t.get_mut("properties") {
            props.insert(
                "metadata".into(),
                or_template(
                    json!({"$ref": format!("#/$defs/{TEMPLATED}{RUNTIME_METADATA}")}),
                    Some("The generated runtimes' metadata; its strings are templates."),
                ),
            );
            props.insert(
                "spec".into(),
                or_template(
                    json!({"$ref": format!("#/$defs/{TEMPLATED}JaxRuntimeSpec")}),
                    Some("A `JaxRuntime` spec whose values may be templates over the matrix variables. A string that is one `{{ expression }}` may stand for a number, a list or an object; each generated runtime is checked against the `JaxRuntime` schema."),
                ),
            );
        }
    }
}

/// `a, b or c`.
fn or_list(mut items: Vec<String>) -> String {
    match items.pop() {
        Some(last) if !items.is_empty() => format!("{} or {last}", items.join(", ")),
        Some(last) => last,
        None => String::new(),
    }
}

/// `schema`, or a template string.
fn or_template(schema: Value, description: Option<&str>) -> Value {
    let mut s = schema;
    let description = description.map(Value::from).or_else(|| s.as_object_mut().and_then(|m| m.remove("description")));
    let mut out = json!({"anyOf": [s, {"$ref": format!("#/$defs/{TEMPLATE}")}]});
    if let Some(d) = description {
        out["description"] = d;
    }
    out
}

/// The twin of a schema in which any value may be a template: references point at twins (whose
/// names are collected in `refs`), and every property, list item and map value may also be a
/// template string. `if` conditions stay as they are: a template never selects their branch.
fn twin(s: &Value, refs: &mut Vec<String>) -> Value {
    let Value::Object(m) = s else { return s.clone() };
    let mut out = Map::new();
    for (k, v) in m {
        let t = match k.as_str() {
            "$ref" => match v.as_str().and_then(|r| r.strip_prefix("#/$defs/")) {
                Some(name) => {
                    refs.push(name.to_string());
                    Value::String(format!("#/$defs/{TEMPLATED}{name}"))
                }
                None => v.clone(),
            },
            "properties" => match v {
                Value::Object(props) => {
                    Value::Object(props.iter().map(|(name, p)| (name.clone(), or_template(twin(p, refs), None))).collect())
                }
                other => other.clone(),
            },
            "items" | "additionalProperties" if v.is_object() => or_template(twin(v, refs), None),
            "anyOf" | "oneOf" | "allOf" => match v {
                Value::Array(a) => Value::Array(a.iter().map(|x| twin(x, refs)).collect()),
                other => other.clone(),
            },
            "then" | "else" => twin(v, refs),
            _ => v.clone(),
        };
        out.insert(k.clone(), t);
    }
    Value::Object(out)
}

// ---------------------------------------------------------------------------------------------
// Unknown fields.

/// A field the schema does not have at its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown {
    /// Dotted path of the field itself (`spec.env[0].valu`).
    pub field: String,
    /// Its name (`valu`).
    pub name: String,
    /// The fields that object has, in schema order.
    pub known: Vec<String>,
    /// JSON Pointer of the object that holds it (`/spec/env/0`).
    pub parent: String,
}

impl Unknown {
    /// The known field nearest to this one's name, if close enough to be a typo of it.
    pub fn nearest(&self) -> Option<&str> {
        let max = (self.name.chars().count() / 3).clamp(1, 4);
        spelling::nearest(&self.name, self.known.iter().map(String::as_str), max)
            .or_else(|| self.known.iter().find(|k| k.eq_ignore_ascii_case(&self.name)).map(String::as_str))
    }

    /// `unknown field `valu`; did you mean `value`?` (or the list of fields).
    pub fn message(&self) -> String {
        match self.nearest() {
            Some(n) => format!("unknown field `{}`; did you mean `{n}`?", self.name),
            None if self.known.is_empty() => format!("unknown field `{}`; this object takes no fields", self.name),
            None => format!(
                "unknown field `{}`; expected one of {}",
                self.name,
                self.known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

/// Every field of a catalog object of `kind` that its schema does not have, at any depth, in
/// document order. A value that is a template string (in a matrix template) is not looked into.
pub fn unknown_fields(kind: Kind, value: &Value) -> Vec<Unknown> {
    unknown_fields_of(schema(), kind.name(), value)
}

/// [`unknown_fields`] against definition `def` of `root` (a schema with `$defs`).
pub fn unknown_fields_of(root: &Value, def: &str, value: &Value) -> Vec<Unknown> {
    let mut out = Vec::new();
    let node = json!({"$ref": format!("#/$defs/{def}")});
    Walk { root }.walk(&node, value, &mut Path::default(), &mut out, 0);
    out
}

/// `value` without the fields in `unknown` (so that the rest can be read and checked).
pub fn without(value: &Value, unknown: &[Unknown]) -> Value {
    let mut v = value.clone();
    for u in unknown {
        if let Some(Value::Object(m)) = v.pointer_mut(&u.parent) {
            m.remove(&u.name);
        }
    }
    v
}

/// Where the walk is: the dotted path findings name and the JSON Pointer of the same node.
#[derive(Default)]
struct Path {
    dotted: String,
    pointer: String,
}

impl Path {
    fn push_key(&mut self, k: &str) -> (usize, usize) {
        let at = (self.dotted.len(), self.pointer.len());
        if !self.dotted.is_empty() {
            self.dotted.push('.');
        }
        self.dotted.push_str(k);
        self.pointer.push('/');
        self.pointer.push_str(&k.replace('~', "~0").replace('/', "~1"));
        at
    }

    fn push_index(&mut self, i: usize) -> (usize, usize) {
        let at = (self.dotted.len(), self.pointer.len());
        self.dotted.push_str(&format!("[{i}]"));
        self.pointer.push_str(&format!("/{i}"));
        at
    }

    fn truncate(&mut self, (d, p): (usize, usize)) {
        self.dotted.truncate(d);
        self.pointer.truncate(p);
    }
}

struct Walk<'a> {
    root: &'a Value,
}

/// Nesting deeper than this is not looked into (YAML input stops at 128 levels anyway).
const MAX_DEPTH: usize = 256;

impl Walk<'_> {
    /// The schema a `$ref` chain ends at.
    fn resolve<'s>(&'s self, mut node: &'s Value) -> &'s Value {
        for _ in 0..32 {
            match node.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
                Some(name) => match self.root.get("$defs").and_then(|d| d.get(name)) {
                    Some(target) => node = target,
                    None => return node,
                },
                None => return node,
            }
        }
        node
    }

    /// Whether `node` (resolved) can describe `value`: its type allows the value's type.
    fn fits(&self, node: &Value, value: &Value) -> bool {
        let node = self.resolve(node);
        if is_template_schema(node) {
            return value.as_str().is_some_and(is_template);
        }
        let wanted = crate::words::json_type(value);
        let type_ok = |t: &Value| match t {
            Value::String(s) => s == wanted || (s == "number" && wanted == "integer"),
            Value::Array(a) => a.iter().any(|x| x.as_str() == Some(wanted) || (x == "number" && wanted == "integer")),
            _ => true,
        };
        match node.get("type") {
            Some(t) => type_ok(t),
            None => match node.get("anyOf").or_else(|| node.get("oneOf")).and_then(Value::as_array) {
                Some(branches) => branches.iter().any(|b| self.fits(b, value)),
                None => match value {
                    Value::Object(_) => node.get("properties").is_some() || node.get("additionalProperties").is_some(),
                    _ => true,
                },
            },
        }
    }

    fn walk(&self, node: &Value, value: &Value, path: &mut Path, out: &mut Vec<Unknown>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let node = self.resolve(node);
        if is_template_schema(node) {
            return;
        }
        // Alternatives: the first that fits the value's type is the one it is checked against.
        if let Some(branches) = node.get("anyOf").or_else(|| node.get("oneOf")).and_then(Value::as_array) {
            if value.as_str().is_some_and(is_template) && branches.iter().any(|b| is_template_schema(self.resolve(b))) {
                return;
            }
            if let Some(b) = branches.iter().find(|b| self.fits(b, value)) {
                self.walk(b, value, path, out, depth + 1);
            }
        }
        for b in node.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            // Only the branches that describe fields (`if`/`then` refinements add none).
            if b.get("if").is_none() {
                self.walk(b, value, path, out, depth + 1);
            }
        }
        match value {
            Value::Object(map) => {
                let props = node.get("properties").and_then(Value::as_object);
                let additional = node.get("additionalProperties");
                if props.is_none() && additional.is_none() {
                    return;
                }
                for (k, v) in map {
                    let len = path.push_key(k);
                    match (props.and_then(|p| p.get(k)), additional) {
                        (Some(p), _) => self.walk(p, v, path, out, depth + 1),
                        (None, Some(Value::Bool(false))) => out.push(Unknown {
                            field: path.dotted.clone(),
                            name: k.clone(),
                            known: props.map(|p| p.keys().cloned().collect()).unwrap_or_default(),
                            parent: path.pointer[..len.1].to_string(),
                        }),
                        (None, Some(a)) if a.is_object() => self.walk(a, v, path, out, depth + 1),
                        _ => {}
                    }
                    path.truncate(len);
                }
            }
            Value::Array(items) => {
                if let Some(item) = node.get("items").filter(|i| i.is_object()) {
                    for (i, v) in items.iter().enumerate() {
                        let len = path.push_index(i);
                        self.walk(item, v, path, out, depth + 1);
                        path.truncate(len);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The `Template` definition (a template string).
fn is_template_schema(node: &Value) -> bool {
    node.get("pattern").and_then(Value::as_str) == Some("\\{\\{|\\{%") && node.get("type").and_then(Value::as_str) == Some("string")
}

/// A string minijinja would treat as a template.
pub fn is_template(s: &str) -> bool {
    s.contains("{{") || s.contains("{%")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown(kind: Kind, v: Value) -> Vec<(String, Option<String>)> {
        unknown_fields(kind, &v).into_iter().map(|u| (u.field.clone(), u.nearest().map(str::to_string))).collect()
    }

    #[test]
    fn the_schema_compiles_and_is_closed_inside_kubernetes_types() {
        let s = schema();
        jsonschema::validator_for(s).expect("the catalog schema compiles");
        for def in
            ["io.k8s.api.core.v1.EnvVar", "io.k8s.api.core.v1.Toleration", "io.k8s.api.core.v1.ResourceRequirements", "JaxRuntimeSpec"]
        {
            assert_eq!(s["$defs"][def]["additionalProperties"], json!(false), "{def}");
            assert_eq!(s["$defs"][format!("{TEMPLATED}{def}")]["additionalProperties"], json!(false), "{def} in templates");
        }
    }

    #[test]
    fn every_unknown_field_is_found_at_every_depth_with_the_nearest_name() {
        let v = json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntime", "metadata": {"name": "a", "lables": {}},
            "spec": {"platfrom": "gke", "numNode": 2, "accelerator": {"tpu": {"type": "v5e", "topolgy": "2x2"}},
                "env": [{"name": "A", "valu": "b"}, {"name": "B", "valueFrom": {"secretKeyRef": {"name": "s", "kee": "k"}}}],
                "tolerations": [{"key": "x", "operater": "Exists"}], "resources": {"request": {"cpu": "1"}},
                "nodeSelector": {"any.key/at-all": "v"}}});
        assert_eq!(
            unknown(Kind::Runtime, v),
            [
                ("metadata.lables".to_string(), Some("labels".to_string())),
                ("spec.platfrom".into(), Some("platform".into())),
                ("spec.numNode".into(), Some("numNodes".into())),
                ("spec.accelerator.tpu.topolgy".into(), Some("topology".into())),
                ("spec.env[0].valu".into(), Some("value".into())),
                ("spec.env[1].valueFrom.secretKeyRef.kee".into(), Some("key".into())),
                ("spec.tolerations[0].operater".into(), Some("operator".into())),
                ("spec.resources.request".into(), Some("requests".into())),
            ]
        );
    }

    #[test]
    fn matrix_templates_are_checked_but_template_strings_are_not_looked_into() {
        let v = json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntimeMatrix", "metadata": {"name": "m"},
            "spec": {"matrix": {"n": [1]}, "exclud": [], "template": {"metadata": {"name": "x-{{ n }}"},
                "spec": {"numNodes": "{{ n }}", "accelerator": "{{ acc }}", "env": [{"name": "A", "valu": "{{ n }}"}], "hostNetwerk": true}}}});
        assert_eq!(
            unknown(Kind::Matrix, v),
            [
                ("spec.exclud".to_string(), Some("exclude".to_string())),
                ("spec.template.spec.env[0].valu".into(), Some("value".into())),
                ("spec.template.spec.hostNetwerk".into(), Some("hostNetwork".into())),
            ]
        );
    }

    /// The mechanism does not depend on the catalog's types: any k8s-openapi type a new catalog
    /// field embeds (a pod template, say) is checked at every depth.
    #[test]
    fn any_embedded_kubernetes_type_is_checked() {
        let mut s = serde_json::to_value(schemars::schema_for!(k8s_openapi::api::core::v1::PodTemplateSpec)).unwrap();
        let root_def = s.as_object().cloned().unwrap();
        let defs = s.get_mut("$defs").and_then(Value::as_object_mut).unwrap();
        let mut top = root_def;
        top.remove("$defs");
        top.remove("$schema");
        defs.insert("Root".into(), Value::Object(top));
        for d in defs.values_mut() {
            close(d);
        }
        let v = json!({"spec": {"containers": [{"name": "c", "securityContext": {"capabilitis": {}}, "resources": {"limit": {}}}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpresions": []}]}}}}});
        let found: Vec<String> = unknown_fields_of(&s, "Root", &v).into_iter().map(|u| format!("{} {:?}", u.field, u.nearest())).collect();
        assert_eq!(
            found,
            [
                "spec.containers[0].securityContext.capabilitis Some(\"capabilities\")",
                "spec.containers[0].resources.limit Some(\"limits\")",
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpresions Some(\"matchExpressions\")",
            ]
        );
    }

    #[test]
    fn names_match_in_any_case() {
        assert_eq!(any_case("v5e"), "[vV]5[eE]");
        assert_eq!(any_case("tpu-v6e-slice"), "[tT][pP][uU]-[vV]6[eE]-[sS][lL][iI][cC][eE]");
    }
}
