//! The CEL rules of one schema node, evaluated on its value converted once.
//!
//! kube-cel's walk converts the subtree of every node it visits into CEL values, then walks into
//! each child and converts that child's subtree again: a cost of depth × size. On the Trainer
//! CRD, whose JobSet spec (`spec.template.spec`) holds a rule, that is 90% of `validate --crd`'s
//! CEL time, spent converting pod templates no rule below can report on. [`node`] does what
//! kube-cel does at one node, and only there: the schema's defaults applied to the value
//! (`apply_defaults_compiled`), the value converted as `json_to_cel_with_compiled` converts it
//! (field names escaped as the API server escapes them, map keys kept, embedded resources given
//! `apiVersion`, `kind` and `metadata`), `self` bound, transition rules skipped without an old
//! object and `oldSelf` null for `optionalOldSelf`, the rule's program run and its message,
//! field path and kind taken as kube-cel takes them (kube-cel 0.8, `src/validation/mod.rs`
//! `walk_compiled`, `evaluate_rule`; `values.rs`; `defaults.rs`; `escaping.rs`). The planned
//! walk in [`super::crd`] calls it at the nodes whose rules can report and walks on into the
//! children that hold such rules; a unit test there checks every finding against kube-cel's full
//! walk.
//!
//! A string under a `date-time`, `duration` or `byte` format is converted by kube-cel into a
//! typed CEL value; [`node`] does not mirror those and says so (`None`), and the caller lets
//! kube-cel evaluate that node as before.

use std::collections::HashMap;
use std::sync::Arc;

use kube_cel::cel::objects::{Key, Map};
use kube_cel::cel::{self, Value as Cel};
use kube_cel::{CompiledSchema, KubeCelExt, SchemaFormat};
use serde_json::Value;

/// One CEL finding: a rule that failed (`failed`), or one that could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CelFinding {
    pub rule: String,
    pub message: String,
    /// kube-cel's path of the field (`spec.template.spec`, `a[0].b`).
    pub field_path: String,
    pub failed: bool,
}

impl From<kube_cel::ValidationError> for CelFinding {
    fn from(e: kube_cel::ValidationError) -> CelFinding {
        // A key the rule reads is missing: the API server's cel-go fails the rule (see `node`).
        let missing = e.message.split_once("No such key: ").map(|(_, k)| format!("no such key: {k}"));
        CelFinding {
            failed: matches!(e.kind, kube_cel::ErrorKind::ValidationFailure) || missing.is_some(),
            rule: e.rule,
            message: missing.unwrap_or(e.message),
            field_path: e.field_path,
        }
    }
}

thread_local! {
    /// The context with every Kubernetes CEL function registered, built once per thread (as
    /// kube-cel's own `THREAD_VALIDATOR`).
    static BASE: cel::Context<'static> = {
        let mut c = cel::Context::default();
        c.register_all();
        c
    };
}

/// Whether [`node`] can evaluate this node's rules: each compiled (kube-cel reports a rule that
/// did not compile in its own words, so such a node is left to it).
pub fn evaluable(c: &CompiledSchema) -> bool {
    c.validations.iter().all(Result::is_ok)
}

/// Evaluates the rules of the node `c` (not those of its children) on `value`, found at kube-cel
/// path `path`, into `out`. `None`: `value` holds a string this conversion does not mirror (see
/// the module); nothing was added.
pub fn node(c: &CompiledSchema, value: &Value, path: &str, out: &mut Vec<CelFinding>) -> Option<()> {
    let this = convert(value, Some(c), true)?;
    BASE.with(|base| {
        let mut scope = base.new_inner_scope();
        scope.add_variable_from_value("self", this);
        for cr in c.validations.iter().filter_map(|r| r.as_ref().ok()) {
            let optional = cr.rule.optional_old_self == Some(true);
            if cr.is_transition_rule && !optional {
                continue;
            }
            let null_scope;
            let ctx = if optional {
                null_scope = {
                    let mut s = scope.new_inner_scope();
                    s.add_variable_from_value("oldSelf", Cel::Null);
                    s
                };
                &null_scope
            } else {
                &scope
            };
            let (failed, message) = match cr.program.execute(ctx) {
                Ok(Cel::Bool(true)) => continue,
                Ok(Cel::Bool(false)) => {
                    let message = match cr.message_program.as_ref().map(|p| p.execute(ctx)) {
                        Some(Ok(Cel::String(s))) => (*s).clone(),
                        _ => cr.rule.message.clone().unwrap_or_else(|| format!("failed rule: {}", cr.rule.rule)),
                    };
                    (true, message)
                }
                Ok(_) => (false, format!("rule \"{}\" did not evaluate to bool", cr.rule.rule)),
                Err(cel::ExecutionError::UndeclaredReference(name)) => (
                    false,
                    format!(
                        "rule references '{name}', which this kube-cel build does not support (an unsupported CEL macro, or a feature disabled at compile time); it cannot be evaluated client-side"
                    ),
                ),
                // A key the rule reads is missing: the API server's evaluation fails the same
                // way and refuses the object ("no such key: metadata", checked with a real
                // kube-apiserver, tests/controlplane.rs).
                Err(cel::ExecutionError::NoSuchKey(key)) => (true, cr.rule.message.clone().unwrap_or_else(|| format!("no such key: {key}"))),
                Err(e) => (false, format!("rule evaluation error: {e}")),
            };
            out.push(CelFinding { rule: cr.rule.rule.clone(), message, field_path: effective_path(path, cr.rule.field_path.as_deref()), failed });
        }
    });
    Some(())
}

/// kube-cel's `effective_path`: a rule's `fieldPath` below the node's path.
fn effective_path(base: &str, field_path: Option<&str>) -> String {
    match field_path {
        Some(f) if f.starts_with('.') => format!("{base}{f}"),
        Some(f) if !base.is_empty() => format!("{base}.{f}"),
        Some(f) => f.to_string(),
        None => base.to_string(),
    }
}

/// `value` as kube-cel binds it: with the defaults of schema `c` applied when `defaults` (an
/// object's missing declared properties filled, and not looked into; kube-cel's
/// `apply_defaults_compiled`), converted with `c` (`None`: no schema, every field name escaped).
fn convert(value: &Value, c: Option<&CompiledSchema>, defaults: bool) -> Option<Cel> {
    let Some(c) = c else {
        return Some(generic(value));
    };
    Some(match value {
        Value::Null => Cel::Null,
        Value::Bool(b) => Cel::Bool(*b),
        Value::Number(n) => number(n),
        Value::String(s) => match c.format {
            SchemaFormat::None | SchemaFormat::IntOrString => Cel::String(Arc::new(s.clone())),
            _ => return None,
        },
        Value::Array(items) => {
            let d = defaults && c.items.is_some();
            Cel::List(Arc::new(items.iter().map(|i| convert(i, c.items.as_deref(), d)).collect::<Option<Vec<_>>>()?))
        }
        Value::Object(o) => {
            // Defaults go into declared properties and, unless unknown fields are kept, into the
            // values of a map; a node with neither is left as it is, all the way down.
            let additional_defaults = !c.preserve_unknown_fields && c.additional_properties.is_some();
            let defaults = defaults && (!c.properties.is_empty() || additional_defaults);
            let mut map = HashMap::with_capacity(o.len());
            for (k, v) in o {
                let child = match (c.properties.get(k), c.additional_properties.as_deref()) {
                    (Some(p), _) => convert(v, Some(p), defaults)?,
                    (None, Some(a)) => convert(v, Some(a), defaults && additional_defaults)?,
                    (None, None) => generic(v),
                };
                insert(&mut map, k, c.is_map, child);
            }
            if defaults {
                for (k, p) in &c.properties {
                    if let (false, Some(d)) = (o.contains_key(k), &p.default) {
                        map.insert(key(k, c.is_map), convert(d, Some(p), false)?);
                    }
                }
            }
            if c.embedded_resource {
                for k in ["apiVersion", "kind"] {
                    map.entry(Key::String(Arc::new(k.into()))).or_insert_with(|| Cel::String(Arc::new(String::new())));
                }
                map.entry(Key::String(Arc::new("metadata".into()))).or_insert_with(|| Cel::Map(Map { map: Arc::new(HashMap::new()) }));
            }
            Cel::Map(Map { map: Arc::new(map) })
        }
    })
}

/// kube-cel's `json_to_cel`: no schema, every field name escaped.
fn generic(value: &Value) -> Cel {
    match value {
        Value::Null => Cel::Null,
        Value::Bool(b) => Cel::Bool(*b),
        Value::Number(n) => number(n),
        Value::String(s) => Cel::String(Arc::new(s.clone())),
        Value::Array(a) => Cel::List(Arc::new(a.iter().map(generic).collect())),
        Value::Object(o) => {
            let mut map = HashMap::with_capacity(o.len());
            for (k, v) in o {
                insert(&mut map, k, false, generic(v));
            }
            Cel::Map(Map { map: Arc::new(map) })
        }
    }
}

fn number(n: &serde_json::Number) -> Cel {
    if let Some(i) = n.as_i64() {
        Cel::Int(i)
    } else if let Some(u) = n.as_u64() {
        Cel::UInt(u)
    } else {
        Cel::Float(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// CEL's reserved words (kube-cel `escape_field_name`, `apiserver/pkg/cel/escaping.go`).
const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Puts a field into a converted object under its escaped name; a field named by a CEL reserved
/// word (`namespace`) also under its own name. The API server (v1.32) lets rules read it either
/// way: the Trainer v2.3.0 CRD's rule on `volumeClaimPolicies` templates reads
/// `t.metadata.namespace`, and a rule reading `self.__namespace__` works too (both checked with
/// a real kube-apiserver, tests/controlplane.rs).
fn insert(map: &mut HashMap<Key, Cel>, name: &str, is_map: bool, value: Cel) {
    if !is_map && RESERVED.contains(&name) {
        map.insert(Key::String(Arc::new(name.to_string())), value.clone());
    }
    map.insert(key(name, is_map), value);
}

fn key(name: &str, is_map: bool) -> Key {
    Key::String(Arc::new(if is_map { name.to_string() } else { escape(name) }))
}

/// A field name as the API server's CEL sees it (kube-cel `escape_field_name`, after
/// `apiserver/pkg/cel/escaping.go`): a CEL reserved word as `__word__`; else `_`, `.`, `-` and
/// `/` spelt `__`, `__dot__`, `__dash__`, `__slash__`.
fn escape(name: &str) -> String {
    if RESERVED.contains(&name) {
        return format!("__{name}__");
    }
    if !name.contains(['_', '.', '-', '/']) {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len() * 2);
    for ch in name.chars() {
        match ch {
            '_' => out.push_str("__"),
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            _ => out.push(ch),
        }
    }
    out
}

/// A place where kube-cel and the API server's cel-go part ways on a rule of the Trainer CRDs:
/// `has(t.metadata.namespace)` with `t.metadata` missing is false in kube-cel and an error in
/// cel-go ("no such key: metadata"), which fails the rule, so the API server refuses the object
/// (checked with a real kube-apiserver, tests/controlplane.rs). A gap applies to a schema that
/// holds its rule's text; `check` finds the objects where the two part ways.
pub(crate) struct Gap {
    pub rule: &'static str,
    pub check: fn(&Value) -> Vec<(String, String)>,
}

pub(crate) const GAPS: &[Gap] =
    &[Gap { rule: "self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)", check: claim_templates }];

/// `volumeClaimPolicies[i]` whose templates include one without `metadata`.
fn claim_templates(v: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let policies = v.pointer("/spec/template/spec/volumeClaimPolicies").and_then(Value::as_array);
    for (i, p) in policies.into_iter().flatten().enumerate() {
        let templates = p.get("templates").and_then(Value::as_array);
        if templates.into_iter().flatten().any(|t| t.is_object() && t.get("metadata").is_none()) {
            out.push((format!("spec.template.spec.volumeClaimPolicies[{i}]"), "no such key: metadata".to_string()));
        }
    }
    out
}
