//! Structure against a CRD's `openAPIV3Schema`, as the API server applies it, with jsonschema.
//!
//! An OpenAPI v3 structural schema is not quite JSON Schema; [`adapt`] closes the gaps:
//! - `nullable: true` adds `null` to the type; elsewhere `null` is reported as dropped (the API
//!   server prunes null values of fields that are not nullable);
//! - objects with `properties` get `additionalProperties: false` unless they carry
//!   `x-kubernetes-preserve-unknown-fields`, so fields the server would prune are reported;
//! - `x-kubernetes-int-or-string` becomes a keyword accepting an integer or a string;
//! - `x-kubernetes-embedded-resource` objects accept and require `apiVersion` and `kind`;
//! - `x-kubernetes-list-type: map|set` lists must not repeat a key (or item);
//! - `pattern` is a Go regular expression, as the API server reads it ([`super::go_regexp`]),
//!   not ECMA 262: `(?i)` is legal, `\d` is ASCII.
//!
//! The same adapter closes the schema generated from the typed model ([`super::structure`]).

use std::collections::HashSet;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{paths::LocationSegment, Keyword, ValidationError};
use serde_json::{json, Map, Value};

use super::crd_cel::{self, CelFinding};
use crate::diag::{Diagnostic, Rule};
use crate::read::Document;
use crate::rules::validate::{CEL_RULE, CEL_UNEVALUATED, CRD_UNUSABLE};

pub(crate) const INT_OR_STRING: &str = "x-kubernetes-int-or-string";
const LIST_TYPE: &str = "x-kubernetes-list-type";
const LIST_MAP_KEYS: &str = "x-kubernetes-list-map-keys";
/// Keyword the adapter writes for list uniqueness (keeps the original extension untouched).
pub(crate) const UNIQUE_KEYS: &str = "x-jax-runtimes-unique-keys";
/// Keyword the adapter writes for `pattern`, matched with Go's syntax.
pub(crate) const GO_PATTERN: &str = "x-jax-runtimes-go-pattern";

/// One CustomResourceDefinition: its group, kind and compiled versions.
pub struct Crd {
    /// `metadata.name` of the CRD, and the file it came from.
    pub name: String,
    pub file: String,
    pub group: String,
    pub kind: String,
    pub versions: Vec<Version>,
}

/// One version's schema, compiled once.
pub struct Version {
    pub name: String,
    pub api_version: String,
    schema: jsonschema::Validator,
    /// The adapted schema it was compiled from: the fields an unknown field may have meant.
    adapted: Value,
    cel: kube_cel::CompiledSchema,
    /// Where in the compiled tree rules can report anything (see [`CelPlan`]); `None`: walk the
    /// whole object with kube-cel (schemas where the pruned walk could differ).
    cel_plan: Option<CelPlan>,
    has_cel: bool,
    /// The rules of this schema where kube-cel and the API server part ways.
    gaps: Vec<&'static crd_cel::Gap>,
}

/// Which parts of a compiled CEL schema tree can produce a finding on create (no old object):
/// rules that are not transition rules (or have `optionalOldSelf`), and rules that did not
/// compile. kube-cel converts every visited node's whole subtree to CEL values, at every depth;
/// walking only down to the nodes that hold such rules, and letting kube-cel walk from there,
/// gives the same findings at a fraction of the cost.
struct CelPlan {
    /// This node holds a rule that can report, or `allOf`/`oneOf`/`anyOf` branches below which
    /// one does: evaluated here.
    here: bool,
    /// The node's own rules are all that report here (no branch does) and they all compiled:
    /// [`crd_cel::node`] evaluates them, and the walk goes on into the children that hold
    /// rules. Otherwise kube-cel evaluates from here, the whole subtree.
    own: bool,
    /// Something at or below this node can report.
    any: bool,
    props: std::collections::HashMap<String, CelPlan>,
    items: Option<Box<CelPlan>>,
    additional: Option<Box<CelPlan>>,
}

impl CelPlan {
    fn of(c: &kube_cel::CompiledSchema) -> CelPlan {
        let reports = c.validations.iter().any(|r| match r {
            Ok(cr) => !cr.is_transition_rule || cr.rule.optional_old_self == Some(true),
            Err(_) => true,
        });
        let props: std::collections::HashMap<String, CelPlan> =
            c.properties.iter().map(|(k, v)| (k.clone(), CelPlan::of(v))).filter(|(_, p)| p.any).collect();
        let sub = |s: &Option<Box<kube_cel::CompiledSchema>>| s.as_deref().map(CelPlan::of).filter(|p| p.any).map(Box::new);
        let items = sub(&c.items);
        let additional = sub(&c.additional_properties);
        let branches = c.all_of.iter().chain(&c.one_of).chain(&c.any_of).any(|b| CelPlan::of(b).any);
        let here = reports || branches;
        let own = here && !branches && crd_cel::evaluable(c);
        let any = here || !props.is_empty() || items.is_some() || additional.is_some();
        CelPlan { here, own, any, props, items, additional }
    }

    /// Whether the pruned walk gives exactly kube-cel's findings and paths for this tree: no
    /// rule `fieldPath` that starts with `[` (joined differently below the root), and a tree
    /// shallow enough that kube-cel's depth guard never fires.
    fn exact_for(c: &kube_cel::CompiledSchema) -> bool {
        fn ok(c: &kube_cel::CompiledSchema, depth: usize) -> bool {
            depth < 48
                && c.validations
                    .iter()
                    .all(|r| r.as_ref().map_or(true, |cr| !cr.rule.field_path.as_deref().is_some_and(|f| f.starts_with('['))))
                && c.properties.values().all(|p| ok(p, depth + 1))
                && c.items.as_deref().is_none_or(|p| ok(p, depth + 1))
                && c.additional_properties.as_deref().is_none_or(|p| ok(p, depth + 1))
                && c.all_of.iter().chain(&c.one_of).chain(&c.any_of).all(|p| ok(p, depth + 1))
        }
        ok(c, 0)
    }

    /// Walks `value` as kube-cel does, but only into subtrees where a rule can report,
    /// evaluating the rules of each node that has some ([`crd_cel::node`]; kube-cel, from there
    /// down, where that cannot). `path` is kube-cel's path of `value`.
    fn walk(&self, c: &kube_cel::CompiledSchema, value: &Value, path: &str, out: &mut Vec<CelFinding>) {
        if !self.any {
            return;
        }
        let obj = value.as_object();
        // kube-cel fills a missing property that has a `default` before walking into it; let it
        // do so here when that property's subtree holds rules.
        let defaulted = obj.is_some_and(|o| {
            self.props.iter().any(|(k, _)| !o.contains_key(k) && c.properties.get(k).is_some_and(|p| p.default.is_some()))
        });
        let whole = |out: &mut Vec<CelFinding>| {
            if let Err(errors) = kube_cel::validate_compiled(c, value, None) {
                for e in errors.into_vec() {
                    let mut e = CelFinding::from(e);
                    e.field_path = under(path, &e.field_path);
                    out.push(e);
                }
            }
        };
        if defaulted || (self.here && !self.own) {
            whole(out);
            return;
        }
        if self.here && crd_cel::node(c, value, path, out).is_none() {
            whole(out);
            return;
        }
        if let Some(o) = obj {
            for (k, child) in &c.properties {
                if let (Some(plan), Some(v)) = (self.props.get(k), o.get(k)) {
                    plan.walk(child, v, &crate::diag::join_path(path, k), out);
                }
            }
        }
        if let (Some(plan), Some(items), Some(a)) = (&self.items, &c.items, value.as_array()) {
            for (i, v) in a.iter().enumerate() {
                plan.walk(items, v, &format!("{path}[{i}]"), out);
            }
        }
        if let (Some(plan), Some(add), Some(o), false) = (&self.additional, &c.additional_properties, obj, c.preserve_unknown_fields) {
            for (k, v) in o {
                if !c.properties.contains_key(k) {
                    plan.walk(add, v, &crate::diag::join_path(path, k), out);
                }
            }
        }
    }
}

/// kube-cel's path of `rel` (a path kube-cel reported for a walk started at `base`) from the root.
fn under(base: &str, rel: &str) -> String {
    if base.is_empty() {
        rel.to_string()
    } else if rel.is_empty() {
        base.to_string()
    } else if rel.starts_with('.') || rel.starts_with('[') {
        format!("{base}{rel}")
    } else {
        format!("{base}.{rel}")
    }
}

impl Crd {
    pub fn version(&self, api_version: &str, kind: &str) -> Option<&Version> {
        if kind != self.kind {
            return None;
        }
        self.versions.iter().find(|v| v.api_version == api_version)
    }
}

/// The CRDs among `docs`; documents of other kinds are ignored.
pub fn from_documents(docs: &[Document]) -> Result<Vec<Crd>, Vec<Diagnostic>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for doc in docs {
        if doc.value.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
            continue;
        }
        match compile(&doc.value, &doc.source.name) {
            Ok(c) => out.push(c),
            Err(d) => errors.push(doc.locate(d)),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Compiles one CRD object (`apiextensions.k8s.io/v1`).
pub fn compile(crd: &Value, file: &str) -> Result<Crd, Diagnostic> {
    let name = crd.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("<unnamed>").to_string();
    let bad = |field: &str, what: String| Diagnostic::finding(&CRD_UNUSABLE, field, format!("CRD {name}: {what}"));
    let group = crd.pointer("/spec/group").and_then(Value::as_str).ok_or_else(|| bad("spec.group", "has no spec.group".into()))?;
    let kind =
        crd.pointer("/spec/names/kind").and_then(Value::as_str).ok_or_else(|| bad("spec.names.kind", "has no spec.names.kind".into()))?;
    let versions =
        crd.pointer("/spec/versions").and_then(Value::as_array).ok_or_else(|| bad("spec.versions", "has no spec.versions".into()))?;
    let mut out = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        let vname = v.get("name").and_then(Value::as_str).unwrap_or_default();
        let Some(schema) = v.pointer("/schema/openAPIV3Schema") else {
            return Err(bad(&format!("spec.versions[{i}].schema"), format!("version {vname} has no openAPIV3Schema")));
        };
        let adapted = adapt(schema);
        let validator = build(&adapted, jsonschema::Draft::Draft4)
            .map_err(|e| bad(&format!("spec.versions[{i}].schema.openAPIV3Schema"), format!("the schema does not compile: {e}")))?;
        let cel = kube_cel::compile_schema(schema);
        let cel_plan = CelPlan::exact_for(&cel).then(|| CelPlan::of(&cel));
        out.push(Version {
            name: vname.to_string(),
            api_version: format!("{group}/{vname}"),
            schema: validator,
            adapted,
            has_cel: schema.to_string().contains("x-kubernetes-validations"),
            gaps: gaps_of(schema),
            cel,
            cel_plan,
        });
    }
    Ok(Crd { name, file: file.to_string(), group: group.to_string(), kind: kind.to_string(), versions: out })
}

impl Version {
    /// The CEL side of a version whose schema is `schema` (an `openAPIV3Schema`), without the
    /// structure side: the embedded release schemas' rules, judged by the engine `--crd` uses.
    pub(crate) fn cel_only(schema: &Value) -> CelOnly {
        let cel = kube_cel::compile_schema(schema);
        let cel_plan = CelPlan::exact_for(&cel).then(|| CelPlan::of(&cel));
        CelOnly { cel, cel_plan, has_cel: schema.to_string().contains("x-kubernetes-validations"), gaps: gaps_of(schema) }
    }
}

/// The CEL rules of one schema, compiled (see [`Version::cel_only`]).
pub(crate) struct CelOnly {
    cel: kube_cel::CompiledSchema,
    cel_plan: Option<CelPlan>,
    has_cel: bool,
    gaps: Vec<&'static crd_cel::Gap>,
}

/// The gaps ([`crd_cel::GAPS`]) whose rule `schema` holds.
fn gaps_of(schema: &Value) -> Vec<&'static crd_cel::Gap> {
    let text = schema.to_string();
    crd_cel::GAPS.iter().filter(|g| text.contains(&serde_json::to_string(g.rule).unwrap_or_default())).collect()
}

impl CelOnly {
    /// CEL findings (`cel/rule`, `cel/unevaluated`), as [`Version::check_cel`] gives them.
    pub(crate) fn check(&self, value: &Value) -> Vec<Diagnostic> {
        cel_findings(&self.cel, self.cel_plan.as_ref(), self.has_cel, &self.gaps, value)
    }
}

/// A schema that does not compile.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(String);

/// Compiles an adapted schema with the Kubernetes keywords registered.
pub(crate) fn build(schema: &Value, draft: jsonschema::Draft) -> Result<jsonschema::Validator, SchemaError> {
    jsonschema::options()
        .with_draft(draft)
        .should_validate_formats(true)
        .should_ignore_unknown_formats(true)
        .with_keyword(INT_OR_STRING, |_, value, _| Ok(Box::new(IntOrString(value.as_bool() == Some(true)))))
        .with_keyword(GO_PATTERN, |_, value, _| {
            let pattern = value.as_str().unwrap_or_default();
            let regex = super::go_regexp::compile(pattern).map_err(|e| ValidationError::custom(e.to_string()))?;
            Ok(Box::new(GoPattern { pattern: pattern.to_string(), regex }))
        })
        .with_keyword(UNIQUE_KEYS, |_, value, _| {
            let keys = match value {
                Value::Array(a) => Some(a.iter().filter_map(|k| k.as_str().map(str::to_string)).collect()),
                _ => None,
            };
            Ok(Box::new(UniqueKeys(keys)))
        })
        .build(schema)
        .map_err(|e| SchemaError(e.to_string()))
}

impl Version {
    /// Structure findings (`crd/*`), field paths relative to the object.
    pub fn check_structure(&self, value: &Value) -> Vec<Diagnostic> {
        findings(&self.schema, &self.adapted, value, Structure::Crd)
    }

    /// CEL findings (`cel/rule`, `cel/unevaluated`). Transition rules (`oldSelf`) are skipped:
    /// there is no old object client-side.
    pub fn check_cel(&self, value: &Value) -> Vec<Diagnostic> {
        cel_findings(&self.cel, self.cel_plan.as_ref(), self.has_cel, &self.gaps, value)
    }
}

/// The CEL findings of one compiled schema on `value`: one engine for `--crd` and the embedded
/// release schemas.
fn cel_findings(
    cel: &kube_cel::CompiledSchema,
    plan: Option<&CelPlan>,
    has_cel: bool,
    gaps: &[&crd_cel::Gap],
    value: &Value,
) -> Vec<Diagnostic> {
    {
        if !has_cel {
            return Vec::new();
        }
        let mut out = Vec::new();
        for e in cel.compilation_errors() {
            out.push(Diagnostic::finding(&CEL_UNEVALUATED, "", format!("a CEL rule of the CRD does not compile client-side: {e}")));
        }
        let errors = match plan {
            Some(plan) => {
                let mut errors = Vec::new();
                plan.walk(cel, value, "", &mut errors);
                errors
            }
            None => kube_cel::validate_compiled(cel, value, None)
                .err()
                .map(|e| e.into_vec().into_iter().map(CelFinding::from).collect())
                .unwrap_or_default(),
        };
        for e in errors {
            let field = e.field_path.trim_start_matches('.').to_string();
            out.push(if e.failed {
                Diagnostic::finding(&CEL_RULE, field, format!("{} (rule: `{}`)", e.message, e.rule))
            } else {
                Diagnostic::finding(
                    &CEL_UNEVALUATED,
                    field,
                    format!("the rule `{}` could not be evaluated client-side: {}", e.rule, e.message),
                )
            });
        }
        for g in gaps {
            for (field, message) in (g.check)(value) {
                // kube-cel's own failure to evaluate the rule there is this gap.
                out.retain(|d| !(d.rule == &CEL_UNEVALUATED && d.field.as_deref() == Some(field.as_str()) && d.message.contains(g.rule)));
                out.push(Diagnostic::finding(&CEL_RULE, field, format!("{message} (rule: `{}`)", g.rule)));
            }
        }
        out
    }
}

/// The pattern of a `resource.Quantity` in every CRD (controller-gen writes it for the type).
const QUANTITY_PATTERN: &str =
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

/// Which family of structure rules a schema's findings belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Structure {
    /// The built-in schema: the embedded CRDs of the Trainer release (`schema/*`). A quantity
    /// that does not match Kubernetes' grammar is left to `k8s/quantity` (a TrainJob's to its own
    /// check), whose message names the units people mean; a duplicate item of a keyed list is
    /// `schema/duplicate-key`, unless `k8s/duplicate-key` names the item (see `validate::object`).
    Typed,
    /// A CRD the user gave (`crd/*`).
    Crd,
}

impl Structure {
    fn rule(self, kind: &str) -> &'static Rule {
        use crate::rules::validate::*;
        match (self, kind) {
            (Structure::Typed, "unknown-field") => &SCHEMA_UNKNOWN_FIELD,
            (Structure::Typed, "null-dropped") => &SCHEMA_NULL_DROPPED,
            (Structure::Typed, "required") => &SCHEMA_REQUIRED,
            (Structure::Typed, "enum") => &SCHEMA_ENUM,
            (Structure::Typed, "format") => &SCHEMA_FORMAT,
            (Structure::Typed, "constraint") => &SCHEMA_CONSTRAINT,
            (Structure::Typed, "duplicate-key") => &SCHEMA_DUPLICATE_KEY,
            (Structure::Typed, _) => &SCHEMA_TYPE,
            (Structure::Crd, "unknown-field") => &CRD_UNKNOWN_FIELD,
            (Structure::Crd, "null-dropped") => &CRD_NULL_DROPPED,
            (Structure::Crd, "required") => &CRD_REQUIRED,
            (Structure::Crd, "enum") => &CRD_ENUM,
            (Structure::Crd, "format") => &CRD_FORMAT,
            (Structure::Crd, "constraint") => &CRD_CONSTRAINT,
            (Structure::Crd, "duplicate-key") => &CRD_DUPLICATE_KEY,
            (Structure::Crd, _) => &CRD_TYPE,
        }
    }
}

/// Runs a compiled schema (compiled from `schema`) and turns its errors into findings of the
/// `family`'s rules.
pub(crate) fn findings(validator: &jsonschema::Validator, schema: &Value, value: &Value, family: Structure) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // Valid objects (the common case) take jsonschema's fast path, which builds no errors.
    if validator.is_valid(value) {
        return out;
    }
    // A null that is pruned (a map key's, where the schema does not allow null) is a warning of
    // its own; the rest is judged on the object as the server stores it, without those nulls (a
    // required field that is null is missing).
    let stored = stored(value);
    let mut seen = HashSet::new();
    if let std::borrow::Cow::Owned(pruned) = &stored {
        for e in validator.iter_errors(value) {
            let is_pruned_null = e.instance().is_null()
                && matches!(e.instance_path().segments().last(), Some(LocationSegment::Property(_)))
                && matches!(e.kind(), ValidationErrorKind::Type { .. } | ValidationErrorKind::AnyOf { .. });
            if is_pruned_null {
                let path = dotted(e.instance_path().segments());
                let message = if own_metadata_map(&path) {
                    "null value; the API server stores it as the empty string"
                } else {
                    "null on a field that is not nullable; the API server drops the field"
                };
                if seen.insert(("null-dropped", path.clone())) {
                    out.push(Diagnostic::finding(family.rule("null-dropped"), path, message.to_string()));
                }
            }
        }
        if validator.is_valid(pruned) {
            return out;
        }
    }
    for e in validator.iter_errors(stored.as_ref()) {
        let path = dotted(e.instance_path().segments());
        let instance = e.instance().clone().into_owned();
        let (rule, field, message) = match e.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let known = known_fields(schema, e.schema_path().as_str());
                for u in unexpected {
                    let field = crate::diag::join_path(&path, u);
                    if seen.insert(("unknown-field", field.clone())) {
                        let near = nearest_field(u, &known).map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default();
                        out.push(Diagnostic::finding(
                            family.rule("unknown-field"),
                            field,
                            format!(
                                "unknown field `{u}`{near}: `kubectl apply` refuses the object (its default `--validate=strict`: unknown field \"{field_name}\"); with `--validate=false` the API server drops the field",
                                field_name = u
                            ),
                        ));
                    }
                }
                continue;
            }
            ValidationErrorKind::FalseSchema => ("unknown-field", path.clone(), "a field the schema does not allow".to_string()),
            ValidationErrorKind::Type { kind } => {
                let want = match kind {
                    jsonschema::error::TypeKind::Single(t) => t.to_string(),
                    jsonschema::error::TypeKind::Multiple(ts) => ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" or "),
                };
                ("type", path.clone(), format!("expected {want}, got {}", describe(&instance)))
            }
            ValidationErrorKind::AnyOf { .. }
            | ValidationErrorKind::OneOfNotValid { .. }
            | ValidationErrorKind::OneOfMultipleValid { .. } => {
                ("type", path.clone(), format!("{} does not match any allowed shape of this field", describe(&instance)))
            }
            ValidationErrorKind::Custom { keyword, message } if keyword == GO_PATTERN => ("format", path.clone(), message.clone()),
            ValidationErrorKind::Custom { keyword, message } if keyword == UNIQUE_KEYS || message.starts_with("duplicate") => {
                ("duplicate-key", path.clone(), message.clone())
            }
            ValidationErrorKind::Custom { message, .. } => ("type", path.clone(), message.clone()),
            ValidationErrorKind::Required { property } => {
                let p = property.as_str().unwrap_or_default();
                ("required", crate::diag::join_path(&path, p), format!("required field `{p}` is missing"))
            }
            ValidationErrorKind::Enum { options } => ("enum", path.clone(), format!("{} is not one of {}", describe(&instance), options)),
            ValidationErrorKind::Constant { expected_value } => {
                ("enum", path.clone(), format!("{} is not {}", describe(&instance), expected_value))
            }
            ValidationErrorKind::Pattern { pattern } => {
                ("format", path.clone(), format!("{} does not match the pattern `{pattern}`", describe(&instance)))
            }
            ValidationErrorKind::Format { format } => ("format", path.clone(), format!("{} is not a valid {format}", describe(&instance))),
            _ => ("constraint", path.clone(), e.to_string()),
        };
        // Left to the Kubernetes layer in the built-in schema: it names the item and the units.
        if family == Structure::Typed && rule == "format" && message.contains(QUANTITY_PATTERN) {
            continue;
        }
        if seen.insert((rule, format!("{field}\u{0}{message}"))) {
            out.push(Diagnostic::finding(family.rule(rule), field, message));
        }
    }
    out
}

/// Whether `path` is a key of the object's own `metadata.labels` or `metadata.annotations`
/// (ObjectMeta's string maps, where the API server reads `null` as "").
fn own_metadata_map(path: &str) -> bool {
    path.strip_prefix("metadata.").is_some_and(|p| p.starts_with("labels.") || p.starts_with("annotations."))
}

/// The object as the API server stores it, as far as the typed reading after the schema cares:
/// a `null` value of a map key is dropped (a field that is not nullable is pruned), or, in the
/// object's own labels and annotations, becomes "". Borrowed when the object has no null.
pub fn stored(value: &Value) -> std::borrow::Cow<'_, Value> {
    fn has_null(v: &Value) -> bool {
        match v {
            Value::Object(m) => m.values().any(|x| x.is_null() || has_null(x)),
            Value::Array(a) => a.iter().any(has_null),
            _ => false,
        }
    }
    fn prune(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.retain(|_, x| !x.is_null());
                m.values_mut().for_each(prune);
            }
            Value::Array(a) => a.iter_mut().for_each(prune),
            _ => {}
        }
    }
    if !has_null(value) {
        return std::borrow::Cow::Borrowed(value);
    }
    let mut v = value.clone();
    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        for key in ["labels", "annotations"] {
            if let Some(m) = meta.get_mut(key).and_then(Value::as_object_mut) {
                m.values_mut().filter(|x| x.is_null()).for_each(|x| *x = Value::String(String::new()));
            }
        }
    }
    prune(&mut v);
    std::borrow::Cow::Owned(v)
}

/// The fields of the object schema whose `additionalProperties` keyword is at `keyword` (a JSON
/// Pointer into `schema`).
fn known_fields<'s>(schema: &'s Value, keyword: &str) -> Vec<&'s str> {
    let object = keyword.strip_suffix("/additionalProperties").and_then(|p| schema.pointer(p));
    object.and_then(|o| o.get("properties")).and_then(Value::as_object).map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default()
}

/// The known field an unknown one is a typo of, if any is close enough.
fn nearest_field<'a>(unknown: &str, known: &[&'a str]) -> Option<&'a str> {
    let max = (unknown.chars().count() / 3).clamp(1, 4);
    crate::spelling::nearest(unknown, known.iter().copied(), max)
}

fn describe(v: &Value) -> String {
    let s = v.to_string();
    let s =
        if s.len() > 60 { format!("{}...", &s[..s.char_indices().take(57).last().map(|(i, c)| i + c.len_utf8()).unwrap_or(0)]) } else { s };
    let t = crate::words::json_type(v);
    match v {
        Value::Array(_) | Value::Object(_) => format!("an {t}"),
        _ => format!("{t} {s}"),
    }
}

/// `/spec/a/0/b` segments -> `spec.a[0].b`.
pub(crate) fn dotted<'a>(segments: impl Iterator<Item = LocationSegment<'a>>) -> String {
    let mut s = String::new();
    for seg in segments {
        match seg {
            LocationSegment::Property(p) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(&p);
            }
            LocationSegment::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Rewrites an OpenAPI v3 structural schema (or a schemars schema) into the JSON Schema the
/// API server effectively applies. See the module docs.
pub fn adapt(schema: &Value) -> Value {
    let mut s = schema.clone();
    adapt_in_place(&mut s);
    // The object's own `metadata` is ObjectMeta, which the API server decodes itself, strictly;
    // CRDs write it as a bare `type: object`.
    if let Some(Value::Object(meta)) = s.pointer_mut("/properties/metadata") {
        let no_properties = meta.get("properties").is_none_or(|p| p.as_object().is_some_and(Map::is_empty));
        if no_properties && meta.get("additionalProperties") == Some(&Value::Bool(false)) {
            meta.insert("properties".into(), object_meta());
        }
    }
    s
}

/// The types of the ObjectMeta fields a user writes, which the API server decodes strictly before
/// any schema applies (apimachinery `pkg/apis/meta/v1/types.go` `ObjectMeta`): a label or
/// annotation value that YAML reads as a boolean or a number (`true`, `1`) is refused (kubectl:
/// "cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string"), as is
/// a `creationTimestamp` that is not an RFC 3339 time, and a field ObjectMeta does not have
/// (strict decoding: "unknown field \"metadata.x\"", checked with a real kube-apiserver,
/// tests/controlplane.rs).
fn object_meta() -> Value {
    let strings = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let time = json!({"type": ["string", "null"], "format": "date-time"});
    json!({
        "name": {"type": "string"},
        "generateName": {"type": "string"},
        "namespace": {"type": "string"},
        "selfLink": {"type": "string"},
        "uid": {"type": "string"},
        "resourceVersion": {"type": "string"},
        "generation": {"type": "integer"},
        "creationTimestamp": time,
        "deletionTimestamp": time,
        "deletionGracePeriodSeconds": {"type": ["integer", "null"]},
        "labels": strings,
        "annotations": strings,
        "ownerReferences": {"type": "array", "items": {"type": "object"}},
        "finalizers": {"type": "array", "items": {"type": "string"}},
        "managedFields": {"type": "array", "items": {"type": "object"}},
    })
}

/// Calls `f` on each subschema directly under `m` (`properties`' values, `items`, `allOf`'s
/// members, ...): the walk [`adapt`] and the kubeconform export make over a whole schema.
pub(crate) fn each_subschema(m: &mut serde_json::Map<String, Value>, f: &mut impl FnMut(&mut Value)) {
    for (k, child) in m.iter_mut() {
        match k.as_str() {
            "properties" | "patternProperties" | "definitions" | "$defs" => {
                if let Value::Object(props) = child {
                    props.values_mut().for_each(&mut *f);
                }
            }
            "items" | "additionalProperties" | "not" | "additionalItems" => f(child),
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => match child {
                Value::Array(members) => members.iter_mut().for_each(&mut *f),
                other => f(other),
            },
            _ => {}
        }
    }
}

fn adapt_in_place(v: &mut Value) {
    let Value::Object(m) = v else {
        if let Value::Array(a) = v {
            a.iter_mut().for_each(adapt_in_place);
        }
        return;
    };
    // Recurse first, into every subschema position.
    each_subschema(m, &mut adapt_in_place);
    let preserve = m.get("x-kubernetes-preserve-unknown-fields").and_then(Value::as_bool) == Some(true);
    if m.get("x-kubernetes-embedded-resource").and_then(Value::as_bool) == Some(true) {
        let props = m.entry("properties").or_insert_with(|| json!({}));
        if let Value::Object(p) = props {
            p.entry("apiVersion").or_insert_with(|| json!({"type": "string"}));
            p.entry("kind").or_insert_with(|| json!({"type": "string"}));
            p.entry("metadata").or_insert_with(|| json!({"type": "object"}));
        }
        let req = m.entry("required").or_insert_with(|| json!([]));
        if let Value::Array(r) = req {
            for k in ["apiVersion", "kind"] {
                if !r.iter().any(|x| x == k) {
                    r.push(json!(k));
                }
            }
        }
    }
    // A structural object keeps only the fields its schema lists: with `properties`, the others
    // are pruned; with neither `properties` nor `additionalProperties` (like `jax: {}`), all are.
    let is_object = m.contains_key("properties") || m.get("type").and_then(Value::as_str) == Some("object");
    let open = preserve || m.contains_key("additionalProperties") || m.get(INT_OR_STRING).and_then(Value::as_bool) == Some(true);
    if is_object && !open {
        // `properties: {}` makes a closed empty object report `additionalProperties` (with the
        // field names) rather than a bare false schema.
        m.entry("properties").or_insert_with(|| json!({}));
        m.insert("additionalProperties".into(), Value::Bool(false));
    }
    if m.get(INT_OR_STRING).and_then(Value::as_bool) == Some(true) {
        // The keyword does the type check; the `anyOf: [integer, string]` controller-gen writes
        // beside it would only repeat the error.
        if let Some(Value::Array(any)) = m.get("anyOf") {
            let types: Vec<Option<&str>> = any.iter().map(|s| s.get("type").and_then(Value::as_str)).collect();
            if any.len() == 2 && types.contains(&Some("integer")) && types.contains(&Some("string")) {
                m.remove("anyOf");
            }
        }
        m.remove("type");
    }
    if m.get("nullable").and_then(Value::as_bool) == Some(true) {
        nullable(m);
    }
    if let Some(Value::String(_)) = m.get("pattern") {
        if let Some(p) = m.remove("pattern") {
            m.insert(GO_PATTERN.into(), p);
        }
    }
    match m.get(LIST_TYPE).and_then(Value::as_str) {
        Some("map") => {
            let keys = m.get(LIST_MAP_KEYS).cloned().unwrap_or(json!([]));
            m.insert(UNIQUE_KEYS.into(), keys);
        }
        Some("set") => {
            m.insert(UNIQUE_KEYS.into(), Value::Bool(true));
        }
        _ => {}
    }
}

fn nullable(m: &mut Map<String, Value>) {
    match m.get_mut("type") {
        Some(Value::String(t)) => {
            let t = t.clone();
            m.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(ts)) if !ts.iter().any(|t| t == "null") => ts.push(json!("null")),
        _ => {}
    }
    if let Some(Value::Array(e)) = m.get_mut("enum") {
        if !e.iter().any(Value::is_null) {
            e.push(Value::Null);
        }
    }
}

/// `x-kubernetes-int-or-string: true`: an integer or a string.
struct IntOrString(bool);

impl<'i> Keyword<'i> for IntOrString {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            Ok(())
        } else {
            let quote = match instance {
                // `cpu: 2.5` unquoted: the API server gets a float, which the field refuses.
                Value::Number(n) => format!(" (quote it: \"{n}\")"),
                _ => String::new(),
            };
            Err(ValidationError::custom(format!("expected an integer or a string, got {}{quote}", describe(instance))))
        }
    }
    fn is_valid(&self, instance: &'i Value) -> bool {
        !self.0 || instance.is_string() || instance.as_i64().is_some() || instance.as_u64().is_some() || arrives_as_integer(instance)
    }
}

/// An unquoted `1e11` or `2.0` reads as a float, but reaches the API server as an integer:
/// kubectl converts YAML to JSON with sigs.k8s.io/yaml `YAMLToJSON`, whose encoding/json writes
/// an integral float64 below 1e21 as plain digits, and apimachinery `pkg/util/json`
/// `convertNumber` decodes those digits as an int64 where they fit. `2.5` stays a float and is
/// refused.
fn arrives_as_integer(v: &Value) -> bool {
    const INT64: f64 = 9_223_372_036_854_775_808.0; // 2^63
    v.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0 && (-INT64..INT64).contains(&f))
}

/// `pattern`: the string matches the Go regular expression (non-strings pass, as with `pattern`).
struct GoPattern {
    pattern: String,
    regex: regex::Regex,
}

impl<'i> Keyword<'i> for GoPattern {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            Ok(())
        } else {
            Err(ValidationError::custom(format!("{} does not match the pattern `{}`", describe(instance), self.pattern)))
        }
    }
    fn is_valid(&self, instance: &'i Value) -> bool {
        instance.as_str().is_none_or(|s| self.regex.is_match(s))
    }
}

/// List uniqueness: `Some(keys)` for `list-type: map` (items unique by those keys), `None` for
/// `list-type: set` (items unique).
struct UniqueKeys(Option<Vec<String>>);

impl UniqueKeys {
    fn duplicate(&self, instance: &Value) -> Option<String> {
        let items = instance.as_array()?;
        let mut seen = HashSet::new();
        for item in items {
            let key = match &self.0 {
                Some(keys) => {
                    let k: Vec<Value> = keys.iter().map(|k| item.get(k).cloned().unwrap_or(Value::Null)).collect();
                    Value::Array(k).to_string()
                }
                None => item.to_string(),
            };
            if !seen.insert(key.clone()) {
                return Some(match &self.0 {
                    Some(keys) => format!(
                        "duplicate item with {}",
                        keys.iter()
                            .zip(serde_json::from_str::<Vec<Value>>(&key).unwrap_or_default())
                            .map(|(k, v)| format!("{k}={v}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    None => format!("duplicate item {key} in a set"),
                });
            }
        }
        None
    }
}

impl<'i> Keyword<'i> for UniqueKeys {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        match self.duplicate(instance) {
            Some(m) => Err(ValidationError::custom(m)),
            None => Ok(()),
        }
    }
    fn is_valid(&self, instance: &'i Value) -> bool {
        self.duplicate(instance).is_none()
    }
}

/// Where the upstream reference data is, and what a test does without it (one rule for the unit
/// and the integration tests).
#[cfg(test)]
#[path = "../../tests/support/reference.rs"]
mod reference_data;

#[cfg(test)]
mod tests {
    use super::*;

    fn crd_with(property: Value) -> Result<Crd, Diagnostic> {
        let crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Widget"}, "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
                "type": "object", "properties": {"spec": {"type": "object", "properties": {"name": property}}}}}}]}
        });
        compile(&crd, "crd.yaml")
    }

    /// The API server matches `pattern` with Go's regexp: `(?i)` (the Kueue admissionchecks CRD
    /// has it) compiles, `\d` is ASCII, and a pattern Go refuses makes the CRD unusable.
    #[test]
    fn patterns_follow_go_syntax() {
        let crd = crd_with(json!({"type": "string", "pattern": "^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$"})).unwrap();
        let v = &crd.versions[0];
        assert!(v.check_structure(&json!({"spec": {"name": "Dws-Prov"}})).is_empty());
        let bad = v.check_structure(&json!({"spec": {"name": "a_b"}}));
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert_eq!(bad[0].rule.id, "crd/format");
        assert_eq!(bad[0].field.as_deref(), Some("spec.name"));
        assert_eq!(bad[0].message, "string \"a_b\" does not match the pattern `^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$`");
        let digits = crd_with(json!({"type": "string", "pattern": "^\\d+$"})).unwrap();
        assert!(digits.versions[0].check_structure(&json!({"spec": {"name": "42"}})).is_empty());
        assert_eq!(digits.versions[0].check_structure(&json!({"spec": {"name": "\u{0664}\u{0662}"}}))[0].rule.id, "crd/format");
        let refused = crd_with(json!({"type": "string", "pattern": "(?x) a"})).err().expect("Go refuses (?x)");
        assert_eq!(refused.rule.id, "crd/unusable");
        assert!(refused.message.contains("not a valid Go regular expression"), "{}", refused.message);
    }

    /// The planned CEL walk must report exactly what kube-cel's full walk reports, on every
    /// runtime we have: the upstream built-ins, the validator's bases, and mutations of them that
    /// break CEL rules at different depths.
    #[test]
    fn planned_cel_walk_agrees_with_the_full_kube_cel_walk() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let Some(reference) = reference_data::reference() else { return };
        let reference = reference.join(reference_data::TRAINER);
        let crd_text = std::fs::read_to_string(reference.join("crds/trainer.kubeflow.org_clustertrainingruntimes.yaml")).unwrap();
        let crd = compile(&crate::yaml::parse_one(&crd_text).unwrap(), "crd").unwrap();
        let version = &crd.versions[0];
        assert!(version.cel_plan.is_some(), "the Trainer CRD should take the planned walk");

        let mut objects = Vec::new();
        for dir in [reference.join("runtimes"), root.join("tests/validate/base")] {
            for e in std::fs::read_dir(dir).unwrap() {
                let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
                objects.extend(crate::yaml::parse_stream(&text).unwrap());
            }
        }
        let originals = objects.clone();
        let originals_len = originals.len();
        for o in originals {
            let mut two_policies = o.clone();
            two_policies["spec"]["mlPolicy"]["torch"] = serde_json::json!({});
            two_policies["spec"]["mlPolicy"]["jax"] = serde_json::json!({});
            objects.push(two_policies);
            let mut in_order = o.clone();
            in_order["spec"]["template"]["spec"]["startupPolicy"] = serde_json::json!({"startupPolicyOrder": "InOrder"});
            if let Some(jobs) = in_order.pointer_mut("/spec/template/spec/replicatedJobs").and_then(Value::as_array_mut) {
                if let Some(last) = jobs.last_mut() {
                    last["dependsOn"] = serde_json::json!([{"name": "node", "status": "Ready"}]);
                }
            }
            objects.push(in_order);
        }
        let mut failing = 0;
        for o in &objects {
            let mut planned = Vec::new();
            version.cel_plan.as_ref().unwrap().walk(&version.cel, o, "", &mut planned);
            let full = kube_cel::validate_compiled(&version.cel, o, None).err().map(|e| e.into_vec()).unwrap_or_default();
            let full: Vec<CelFinding> = full.into_iter().map(CelFinding::from).collect();
            assert_eq!(planned, full, "{}", o.pointer("/metadata/name").unwrap_or(&Value::Null));
            failing += usize::from(!full.is_empty());
        }
        assert!(failing >= originals_len, "the mutations must break CEL rules ({failing} of {} objects failed)", objects.len());
    }

    /// The planned walk, which evaluates the rules of a node itself ([`crd_cel::node`]), agrees
    /// with kube-cel's full walk on what its conversion and evaluation must mirror: escaped field
    /// names, map keys, embedded resources, defaults, `messageExpression`, `fieldPath`,
    /// `optionalOldSelf`, transition rules, evaluation errors, results that are not bool, rules
    /// at nested nodes, in list items and map values; and where it hands a node to kube-cel (a
    /// `date-time` string, a rule that does not compile, an `allOf` branch with a rule).
    #[test]
    fn a_node_evaluated_alone_reports_what_kube_cel_reports() {
        let rule = |r: &str| json!([{"rule": r}]);
        let schema = json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "x-kubernetes-validations": [
                {"rule": "self.labels['example.com/team'] == 'ml'", "message": "team label"},
                {"rule": "self.foo__dash__bar > 0 && self.__namespace__ != 'x'", "messageExpression": "'foo-bar is ' + string(self.foo__dash__bar)"},
                {"rule": "self.mode == 'auto'", "fieldPath": ".mode", "reason": "FieldValueInvalid"},
                {"rule": "!has(self.nested) || self.nested.inner == 'd'"},
                {"rule": "self.missing.x == 1"},
                {"rule": "self.count"},
                {"rule": "self == oldSelf"},
                {"rule": "oldSelf == null || self.count > oldSelf.count", "optionalOldSelf": true, "message": "optional"},
                {"rule": "self.port == 8080 || self.port == 'http'"}
            ],
            "properties": {
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "foo-bar": {"type": "integer"},
                "namespace": {"type": "string"},
                "mode": {"type": "string", "default": "auto"},
                "count": {"type": "integer"},
                "port": {"x-kubernetes-int-or-string": true},
                "nested": {"type": "object", "default": {}, "properties": {"inner": {"type": "string", "default": "d"}}},
                "embedded": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true,
                    "x-kubernetes-validations": rule("self.kind == '' && self.apiVersion == '' && size(self.metadata) == 0")},
                "items": {"type": "array", "items": {"type": "object", "x-kubernetes-validations": rule("self.n < 3"),
                    "properties": {"n": {"type": "integer"}, "deep": {"type": "object", "x-kubernetes-validations": rule("self.ok"),
                        "properties": {"ok": {"type": "boolean"}}}}}},
                "byName": {"type": "object", "additionalProperties": {"type": "object", "x-kubernetes-validations": rule("self.v != 'bad'"),
                    "properties": {"v": {"type": "string"}}}},
                "stamped": {"type": "object", "x-kubernetes-validations": rule("self.at > timestamp('2000-01-01T00:00:00Z')"),
                    "properties": {"at": {"type": "string", "format": "date-time"}}},
                "broken": {"type": "object", "x-kubernetes-validations": rule("self.("), "properties": {"a": {"type": "string"}}},
                "branched": {"type": "object", "allOf": [{"x-kubernetes-validations": rule("self.a != 'no'")}], "properties": {"a": {"type": "string"}}}
            }
        }}});
        let compiled = kube_cel::compile_schema(&schema);
        assert!(CelPlan::exact_for(&compiled));
        let plan = CelPlan::of(&compiled);
        let spec = &plan.props["spec"];
        assert!(spec.own && !spec.props["broken"].own && !spec.props["branched"].own, "the cases must take both routes");
        let good = json!({"spec": {
            "labels": {"example.com/team": "ml"}, "foo-bar": 2, "namespace": "ns", "count": 1, "port": "http",
            "embedded": {"spec": {}}, "items": [{"n": 1, "deep": {"ok": true}}], "byName": {"a.b/c": {"v": "fine"}},
            "branched": {"a": "yes"}
        }});
        let mut objects = vec![good.clone()];
        for (pointer, value) in [
            ("/spec/labels", json!({"example.com/team": "web"})),
            ("/spec/foo-bar", json!(0)),
            ("/spec/namespace", json!("x")),
            ("/spec/mode", json!("manual")),
            ("/spec/nested", json!({"inner": "e"})),
            ("/spec/nested", json!({})),
            ("/spec/missing", json!({"x": 1})),
            ("/spec/count", json!(true)),
            ("/spec/port", json!(9090)),
            ("/spec/embedded", json!({"kind": "Pod"})),
            ("/spec/items", json!([{"n": 1}, {"n": 5, "deep": {"ok": false}}])),
            ("/spec/byName", json!({"k-1": {"v": "bad"}, "k_2": {"v": "ok"}})),
            // A date-time string under the node: kube-cel evaluates the node, its children too.
            ("/spec/stamped", json!({"at": "2020-01-01T00:00:00Z"})),
            ("/spec/stamped", json!({"at": "1990-01-01T00:00:00Z"})),
            ("/spec/branched", json!({"a": "no"})),
        ] {
            let mut o = good.clone();
            o["spec"][pointer.trim_start_matches("/spec/")] = value;
            objects.push(o);
        }
        let mut missing = good.clone();
        missing["spec"]["missing"] = json!({"x": 1});
        missing["spec"].as_object_mut().unwrap().remove("nested");
        objects.push(missing);
        let mut reported = 0;
        for o in &objects {
            let mut planned = Vec::new();
            plan.walk(&compiled, o, "", &mut planned);
            let full: Vec<CelFinding> = kube_cel::validate_compiled(&compiled, o, None)
                .err()
                .map(|e| e.into_vec())
                .unwrap_or_default()
                .into_iter()
                .map(CelFinding::from)
                .collect();
            let sorted = |mut v: Vec<CelFinding>| {
                v.sort_by(|a, b| (&a.field_path, &a.rule, &a.message).cmp(&(&b.field_path, &b.rule, &b.message)));
                v
            };
            assert_eq!(sorted(planned), sorted(full.clone()), "{o}");
            reported += full.len();
        }
        assert!(reported >= objects.len(), "the mutations must make rules report ({reported} findings)");
    }
}
