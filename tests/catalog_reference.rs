//! docs/catalog-reference.md is generated here from the catalog's JSON Schema (`jax-runtimes
//! schema`, the schema `render` checks every catalog object against): one table per kind, every
//! field at every depth, with its type, its allowed values and its default (from the schema's
//! descriptions). `UPDATE_DOCS=1 cargo test --test catalog_reference` rewrites the page.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use serde_json::Value;
use support::root;

/// The kinds, in the order the page shows them.
const KINDS: [&str; 6] = ["JaxRuntime", "JaxRuntimeDefaults", "JaxRuntimeMatrix", "JaxRuntimeQueue", "JaxCluster", "JaxRuntimeValidation"];

struct Row {
    path: String,
    ty: String,
    values: String,
    description: String,
}

/// The schema a `$ref` points at, or the node itself.
fn deref<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
        Some(name) => &root["$defs"][name],
        None => node,
    }
}

fn ref_name(node: &Value) -> Option<&str> {
    node.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"))
}

/// The node without its `null` alternative (`anyOf: [X, {type: null}]` is an optional X).
fn non_null(node: &Value) -> &Value {
    if let Some(alts) = node.get("anyOf").and_then(Value::as_array) {
        let rest: Vec<&Value> = alts.iter().filter(|a| a.get("type").and_then(Value::as_str) != Some("null")).collect();
        if rest.len() == 1 {
            return rest[0];
        }
    }
    node
}

/// The allowed values of a node: `const`, `enum`, or `oneOf`/`anyOf` of them.
fn values(root: &Value, node: &Value) -> Vec<String> {
    let node = deref(root, non_null(node));
    let mut out = Vec::new();
    if let Some(c) = node.get("const") {
        out.push(format!("`{}`", plain(c)));
    }
    if let Some(e) = node.get("enum").and_then(Value::as_array) {
        out.extend(e.iter().filter(|v| !v.is_null()).map(|v| format!("`{}`", plain(v))));
    }
    for key in ["oneOf", "anyOf"] {
        for alt in node.get(key).and_then(Value::as_array).into_iter().flatten() {
            out.extend(values(root, alt));
        }
    }
    out.dedup();
    out
}

fn plain(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// The type of a node in a reader's words, and the object definition to descend into, if any.
fn describe<'a>(root: &'a Value, node: &'a Value) -> (String, Option<&'a str>) {
    let node = non_null(node);
    if let Some(name) = ref_name(node) {
        if let Some(k8s) = name.strip_prefix("io.k8s.") {
            let short = k8s.rsplit('.').next().unwrap_or(k8s);
            return (format!("Kubernetes `{short}`"), None);
        }
        let def = &root["$defs"][name];
        if def.get("properties").is_some() {
            return ("object".into(), Some(name));
        }
        return describe(root, def);
    }
    if node.get("const").is_some() || node.get("oneOf").is_some() {
        return ("string".into(), None);
    }
    let ty = match node.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect::<Vec<_>>().join(" or "),
        _ => String::new(),
    };
    match ty.as_str() {
        "array" => {
            let (item, def) = describe(root, &node["items"]);
            (format!("list of {item}"), def)
        }
        "object" => match node.get("additionalProperties") {
            Some(v @ Value::Object(_)) => {
                let (item, def) = describe(root, v);
                (format!("map of {item}"), def)
            }
            _ => ("object".into(), None),
        },
        "" if node.get("anyOf").is_some() => {
            let alts: Vec<String> =
                node["anyOf"].as_array().unwrap().iter().map(|a| describe(root, a).0).filter(|t| !t.is_empty()).collect();
            let mut alts = alts;
            alts.dedup();
            (alts.join(" or "), None)
        }
        _ => (ty, None),
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The rows of one object definition, depth first.
fn rows(root: &Value, def: &str, prefix: &str, seen: &mut Vec<String>, out: &mut Vec<Row>) {
    let node = &root["$defs"][def];
    let required: Vec<&str> = node.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let Some(props) = node.get("properties").and_then(Value::as_object) else { return };
    for (name, prop) in props {
        let path = if prefix.is_empty() { name.clone() } else { format!("{prefix}.{name}") };
        let (mut ty, nested) = describe(root, prop);
        if required.contains(&name.as_str()) {
            ty.push_str(", required");
        }
        let target = deref(root, non_null(prop));
        let mut description =
            prop.get("description").or_else(|| target.get("description")).and_then(Value::as_str).unwrap_or("").to_string();
        if let Some(d) = prop.get("default").or_else(|| target.get("default")) {
            description.push_str(&format!(" Default: `{}`.", plain(d)));
        }
        let mut vals = values(root, prop);
        if vals.is_empty() {
            if let Some(items) = non_null(prop).get("items") {
                vals = values(root, items);
            }
        }
        out.push(Row { path: path.clone(), ty, values: vals.join(", "), description: description.trim().to_string() });
        if let Some(nested) = nested {
            if !seen.iter().any(|s| s == nested) {
                seen.push(nested.to_string());
                let child = if non_null(prop).get("items").is_some() { format!("{path}[]") } else { path.clone() };
                rows(root, nested, &child, seen, out);
                seen.pop();
            }
        }
    }
}

fn page(schema: &Value) -> String {
    let mut s = String::new();
    s.push_str("# Catalog field reference\n\n");
    s.push_str("<!-- Generated from the catalog's JSON Schema (`jax-runtimes schema`) by tests/catalog_reference.rs. Do not edit by hand; `UPDATE_DOCS=1 cargo test --test catalog_reference` rewrites it. -->\n\n");
    s.push_str("Every field of the catalog kinds (`apiVersion: jax-runtimes.dev/v1alpha1`), at every depth, as `render` checks them: an unknown field is an error with the nearest known one. ");
    s.push_str("Kubernetes types (`EnvVar`, `Toleration`, `ResourceRequirements`, ...) take the fields Kubernetes gives them. ");
    s.push_str("How to use them: [the catalog maintainer's guide](catalog-guide.md); for editors: [the JSON Schema](schema/jax-runtimes.schema.json).\n\n");
    s.push_str("A `JaxRuntimeMatrix` template (`spec.template`) takes the fields of a `JaxRuntime`, and any string value may be a template (`\"{{ topology }}\"`).\n");
    for kind in KINDS {
        let def = &schema["$defs"][kind];
        assert!(def.is_object(), "the schema has no {kind}");
        s.push_str(&format!("\n## {kind}\n\n"));
        if let Some(d) = def.get("description").and_then(Value::as_str) {
            s.push_str(&format!("{}\n\n", d.trim()));
        }
        s.push_str("| Field | Type | Values | Description |\n|---|---|---|---|\n");
        let mut out = Vec::new();
        rows(schema, kind, "", &mut vec![kind.to_string()], &mut out);
        for r in out {
            s.push_str(&format!("| `{}` | {} | {} | {} |\n", r.path, cell(&r.ty), cell(&r.values), cell(&r.description)));
        }
    }
    s
}

#[test]
fn docs_catalog_reference_is_generated_from_the_schema() {
    let schema = jax_runtimes::catalog::schema::schema();
    let want = page(schema);
    let path = root().join("docs/catalog-reference.md");
    if support::bless() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "docs/catalog-reference.md is stale; run `UPDATE_DOCS=1 cargo test --test catalog_reference`");
    // What a reader looks for is there: the enum values and the defaults.
    for needle in [
        "| `spec.platform` |",
        "`gke`, `eks`, `aks`, `generic`",
        "| `spec.accelerator.tpu.topology` |",
        "`v4`, `v5e`, `v5p`, `v6e`, `tpu7x`",
        "Default:",
    ] {
        assert!(have.contains(needle), "docs/catalog-reference.md lacks {needle}");
    }
}

#[test]
fn every_field_the_schema_knows_is_on_the_page() {
    let schema = jax_runtimes::catalog::schema::schema();
    let page = page(schema);
    // Every property name of every (non-template, non-Kubernetes) definition appears as a field.
    for (name, def) in schema["$defs"].as_object().unwrap() {
        if name.starts_with("Template.") || name.starts_with("io.k8s.") || name == "Template" {
            continue;
        }
        for prop in def.get("properties").and_then(Value::as_object).into_iter().flatten().map(|(k, _)| k) {
            assert!(page.contains(&format!(".{prop}` |")) || page.contains(&format!("| `{prop}` |")), "{name}.{prop} is not on the page");
        }
    }
}
