//! Matrix expansion: a `JaxRuntimeMatrix` -> one untyped `JaxRuntime` per combination of its
//! variables. Every string in the template is a minijinja template, compiled once; a string that
//! is exactly one `{{ expression }}` takes the expression's value and type, and `none` leaves the
//! field unset. A matrix cannot lie:
//! - an undefined variable or attribute is an error wherever it appears, a whole value or part of
//!   one (`{{ x | default(none) }}` is the way to leave a field unset), naming the nearest one;
//! - `exclude` keys must be matrix variables, `include` keys matrix variables or variables the
//!   template uses; an `exclude` entry that matches nothing is a warning;
//! - the rows of one input and the text they expand to are capped ([`MAX_ROWS`],
//!   [`MAX_EXPANDED_BYTES`]), checked before anything is expanded.
//!
//! Each row knows where its values are written ([`Row::sources`]) and the template knows which
//! variables each of its strings uses ([`Site`]), so that the caller can point a finding that
//! one value causes in many rows at that value, once ([`super::rows`]).

use std::collections::{BTreeMap, BTreeSet};

use minijinja::{Environment, Expression, Template, UndefinedBehavior, Value as JValue};
use serde_json::{Map, Value};

use crate::catalog::schema::is_template;
use crate::catalog::{JaxRuntimeMatrix, Kind, API_VERSION};
use crate::diag::Diagnostic;
use crate::rules::catalog::{
    CATALOG_INVALID_MATRIX, CATALOG_MATRIX_EXCLUDE_UNUSED, CATALOG_MATRIX_LIMIT, CATALOG_MATRIX_VARIABLE, CATALOG_MATRIX_VARIABLE_UNUSED,
    CATALOG_TEMPLATE,
};
use crate::spelling;

/// The most rows the matrices of one input may expand to, together.
pub const MAX_ROWS: usize = 20_000;
/// The most template text (the template's JSON size times its rows) the matrices of one input may
/// expand to, together: 64 MiB.
pub const MAX_EXPANDED_BYTES: usize = 64 << 20;

/// What the matrices of one input may still expand to.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub rows: usize,
    pub bytes: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { rows: MAX_ROWS, bytes: MAX_EXPANDED_BYTES }
    }
}

/// One expanded row: its variables, where each value is written, and the `JaxRuntime` it produced.
#[derive(Debug, Clone)]
pub struct Row {
    pub vars: Map<String, Value>,
    /// Variable -> field path of its value in the matrix object (`spec.matrix.model[1]`,
    /// `spec.include[0].chips`).
    pub sources: BTreeMap<String, String>,
    pub runtime: Value,
}

impl Row {
    /// `topology=2x4, chips=8`, for messages.
    pub fn describe(&self) -> String {
        describe(&self.vars)
    }
}

fn describe(vars: &Map<String, Value>) -> String {
    vars.iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A template string of the matrix: where it is and what it reads.
#[derive(Debug, Clone)]
pub struct Site {
    /// Field path in the runtime (`spec.accelerator.gpu.model`; `spec.template.` + this in the
    /// matrix object).
    pub field: String,
    /// The top-level variables it uses.
    pub vars: Vec<String>,
    /// For a string that is one `{{ var.a.b }}`: the variable and the attributes; a finding inside
    /// the value it produced is inside that variable's value.
    pub whole: Option<(String, Vec<String>)>,
    /// The template string as written.
    pub source: String,
}

/// A matrix expanded: every combination (a row whose template failed has a null runtime), each
/// failed row's template errors (by row index, with field paths of the runtime, not yet under
/// `spec.template`), findings about
/// the matrix itself (field paths of the matrix object), and its template strings.
#[derive(Debug, Default)]
pub struct Expansion {
    pub rows: Vec<Row>,
    pub row_errors: Vec<(usize, Diagnostic)>,
    pub findings: Vec<Diagnostic>,
    pub sites: Vec<Site>,
}

impl Expansion {
    /// The rows that rendered, with their index.
    pub fn rendered(&self) -> impl Iterator<Item = (usize, &Row)> {
        self.rows.iter().enumerate().filter(|(_, r)| !r.runtime.is_null())
    }
}

/// A value and where it is written.
type Cell = (Value, String);

/// Every combination of the matrix variables (in the order written, the last variable varying
/// fastest), minus `exclude`, plus `include`; each with the paths of its values. Errors and
/// warnings about the matrix come in `findings`; `None` when no row can be made.
fn combinations(
    m: &JaxRuntimeMatrix,
    used: &BTreeSet<String>,
    sites: &[Site],
    budget: &mut Budget,
    template_bytes: usize,
    findings: &mut Vec<Diagnostic>,
) -> Option<Vec<Row>> {
    let spec = &m.spec;
    let mut lists: Vec<(&String, &Vec<Value>)> = Vec::new();
    for (key, values) in &spec.matrix {
        let Value::Array(values) = values else {
            findings.push(
                Diagnostic::new(&CATALOG_INVALID_MATRIX, format!("matrix variable `{key}` must be a list of values"))
                    .with_field(format!("spec.matrix.{key}")),
            );
            return None;
        };
        if values.is_empty() {
            findings.push(
                Diagnostic::new(&CATALOG_INVALID_MATRIX, format!("matrix variable `{key}` has no values"))
                    .with_field(format!("spec.matrix.{key}"))
                    .with_help("give at least one value, or remove the variable"),
            );
            return None;
        }
        lists.push((key, values));
    }
    let variables: Vec<&str> = lists.iter().map(|(k, _)| k.as_str()).collect();
    // Every variable holds values the template can use, and the template uses it.
    let mut bad_variables = false;
    for (key, values) in &lists {
        let undefined = || used.iter().map(String::as_str).filter(|u| !variables.contains(u));
        let d = if used.contains(key.as_str()) {
            pasted_into_text(key, values, sites)
        } else if spelling::nearest(key, undefined(), 2).is_some() {
            // A misspelling, on one side or the other: the template's undefined name is reported
            // where it is read, naming this variable.
            None
        } else {
            Some(unused_variable(key, values.len()))
        };
        if let Some(d) = d {
            findings.push(d);
            bad_variables = true;
        }
    }
    if bad_variables {
        return None;
    }
    let mut bad_keys = false;
    for (i, ex) in spec.exclude.iter().enumerate() {
        for key in ex.keys().filter(|k| !variables.contains(&k.as_str())) {
            bad_keys = true;
            findings.push(variable_error(
                key,
                &format!("spec.exclude[{i}].{key}"),
                "an `exclude` key must be a variable of `spec.matrix`",
                &variables,
            ));
        }
    }
    for (i, inc) in spec.include.iter().enumerate() {
        for key in inc.keys().filter(|k| !variables.contains(&k.as_str()) && !used.contains(*k)) {
            bad_keys = true;
            let known: Vec<&str> =
                variables.iter().copied().chain(used.iter().map(String::as_str)).collect::<BTreeSet<_>>().into_iter().collect();
            findings.push(variable_error(
                key,
                &format!("spec.include[{i}].{key}"),
                "an `include` key must be a variable of `spec.matrix` or one the template uses",
                &known,
            ));
        }
    }
    if bad_keys {
        return None;
    }
    // The size, before anything is built.
    let product =
        if lists.is_empty() { 0 } else { lists.iter().try_fold(1usize, |n, (_, v)| n.checked_mul(v.len())).unwrap_or(usize::MAX) };
    let count = product.saturating_add(spec.include.len());
    let bytes = count.saturating_mul(template_bytes);
    if count > budget.rows || bytes > budget.bytes {
        let sizes = lists.iter().map(|(k, v)| format!("{} {k}", v.len())).collect::<Vec<_>>().join(" x ");
        let what = if count > budget.rows {
            format!(
                "the matrix makes {} ({sizes}{}); the matrices of one input may make at most {MAX_ROWS} rows together ({} left)",
                crate::words::count(count, "row"),
                if spec.include.is_empty() { String::new() } else { format!(" + {} included", spec.include.len()) },
                budget.rows
            )
        } else {
            format!(
                "the matrix would expand to {} of template text ({} of {}); the matrices of one input may expand to at most {} MiB together",
                megabytes(bytes),
                crate::words::count(count, "row"),
                megabytes(template_bytes),
                MAX_EXPANDED_BYTES >> 20
            )
        };
        findings.push(
            Diagnostic::new(&CATALOG_MATRIX_LIMIT, what).with_field("spec.matrix").with_help(
                "split the catalog into inputs rendered one at a time, or make the matrix smaller (docs/catalog-guide.md, Limits)",
            ),
        );
        return None;
    }
    budget.rows -= count;
    budget.bytes -= bytes;

    let mut rows: Vec<Vec<Cell>> = if lists.is_empty() { Vec::new() } else { vec![Vec::new()] };
    for (key, values) in &lists {
        let mut next = Vec::with_capacity(rows.len() * values.len());
        for row in &rows {
            for (i, v) in values.iter().enumerate() {
                let mut r = row.clone();
                r.push((v.clone(), format!("spec.matrix.{key}[{i}]")));
                next.push(r);
            }
        }
        rows = next;
    }
    let to_row = |cells: Vec<Cell>, keys: &[&String]| {
        let mut vars = Map::new();
        let mut sources = BTreeMap::new();
        for ((v, at), k) in cells.into_iter().zip(keys) {
            vars.insert((*k).clone(), v);
            sources.insert((*k).clone(), at);
        }
        Row { vars, sources, runtime: Value::Null }
    };
    let keys: Vec<&String> = lists.iter().map(|(k, _)| *k).collect();
    let mut excluded = vec![false; spec.exclude.len()];
    let mut out: Vec<Row> = Vec::with_capacity(rows.len() + spec.include.len());
    for cells in rows {
        let hit = spec
            .exclude
            .iter()
            .enumerate()
            .filter(|(_, ex)| ex.iter().all(|(k, v)| keys.iter().position(|x| *x == k).is_some_and(|i| &cells[i].0 == v)))
            .map(|(i, _)| i)
            .collect::<Vec<_>>();
        if hit.is_empty() {
            out.push(to_row(cells, &keys));
        } else {
            for i in hit {
                excluded[i] = true;
            }
        }
    }
    for (i, ex) in spec.exclude.iter().enumerate().filter(|(i, _)| !excluded[*i]) {
        findings.push(
            Diagnostic::new(
                &CATALOG_MATRIX_EXCLUDE_UNUSED,
                format!("this `exclude` entry ({}) matches no combination of the matrix; it excludes nothing", describe(ex)),
            )
            .with_field(format!("spec.exclude[{i}]"))
            .with_help(CATALOG_MATRIX_EXCLUDE_UNUSED.fix),
        );
    }
    let product_rows = out.len();
    for (j, inc) in spec.include.iter().enumerate() {
        if out[..product_rows].iter().any(|r| &r.vars == inc) {
            continue;
        }
        let sources = inc.keys().map(|k| (k.clone(), format!("spec.include[{j}].{k}"))).collect();
        out.push(Row { vars: inc.clone(), sources, runtime: Value::Null });
    }
    if out.is_empty() {
        findings.push(
            Diagnostic::new(&CATALOG_INVALID_MATRIX, "the matrix produces no runtime")
                .with_field("spec.matrix")
                .with_help("add values under `spec.matrix` or `spec.include`"),
        );
        return None;
    }
    Some(out)
}

/// A matrix variable no template string uses: its values only copy every runtime. `exclude` and
/// `include` here are the keys of `spec`, written one level too deep.
fn unused_variable(key: &str, values: usize) -> Diagnostic {
    let field = format!("spec.matrix.{key}");
    if key == "exclude" || key == "include" {
        let lost = if key == "exclude" { "nothing is excluded" } else { "no row is included" };
        return Diagnostic::new(
            &CATALOG_MATRIX_VARIABLE_UNUSED,
            format!(
                "`{key}` is written inside `spec.matrix`, so it is taken as a matrix variable named `{key}` whose values are its entries, and no template string uses it: {lost}; did you mean `spec.{key}`?"
            ),
        )
        .with_field(field)
        .with_help(format!("move `{key}:` up one level, beside `matrix:` and `template:` (`spec.{key}`)"));
    }
    let copies = if values > 1 {
        format!(": its {values} values make {values} copies of every runtime, with the same names")
    } else {
        String::new()
    };
    Diagnostic::new(&CATALOG_MATRIX_VARIABLE_UNUSED, format!("matrix variable `{key}` is not used by any template string{copies}"))
        .with_field(field)
        .with_help(format!("use it in the template (`{{{{ {key} }}}}`), or remove it"))
}

/// A variable whose values are lists or mappings, written bare inside a longer string
/// (`"jax-{{ shape }}"`): each row gets the value's text (`jax-{'name': 'a'}`), never what was
/// meant. As a whole value (`"{{ shape }}"`) it keeps its type; by attribute (`{{ shape.name }}`)
/// or through a filter (`{{ args | join(' ') }}`) it is read on purpose.
fn pasted_into_text(key: &str, values: &[Value], sites: &[Site]) -> Option<Diagnostic> {
    let (i, value) = values.iter().enumerate().find(|(_, v)| v.is_array() || v.is_object())?;
    let site = sites.iter().find(|s| s.whole.is_none() && bare_use(&s.source, key))?;
    let what = if value.is_array() { "a list" } else { "a mapping" };
    Some(
        Diagnostic::new(
            &CATALOG_INVALID_MATRIX,
            format!(
                "`spec.matrix.{key}[{i}]` is {what}, and `{}` puts `{{{{ {key} }}}}` inside a string: every row gets the value's text, not a name or a number; a value put into text is a scalar",
                template_field(&site.field)
            ),
        )
        .with_field(format!("spec.matrix.{key}[{i}]"))
        .with_help(if value.is_array() {
            format!("list the values themselves (`{key}: [a, b]`, not `{key}: [[a, b]]`), or use the list as a whole value (`\"{{{{ {key} }}}}\"` alone)")
        } else {
            format!("read one attribute of it (`{{{{ {key}.name }}}}`), or use the mapping as a whole value (`\"{{{{ {key} }}}}\"` alone)")
        }),
    )
}

/// Whether `source` holds `{{ key }}` (`{{- key -}}`): the variable alone, rendered as text.
fn bare_use(source: &str, key: &str) -> bool {
    source.match_indices("{{").any(|(at, _)| {
        let rest = source[at + 2..].trim_start_matches('-').trim_start();
        rest.strip_prefix(key).is_some_and(|after| after.trim_start().trim_start_matches('-').starts_with("}}"))
    })
}

fn megabytes(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20))
}

fn variable_error(key: &str, field: &str, what: &str, known: &[&str]) -> Diagnostic {
    let near = spelling::nearest(key, known.iter().copied(), 2).map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
    let listed = if known.is_empty() { "none".to_string() } else { known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ") };
    Diagnostic::new(&CATALOG_MATRIX_VARIABLE, format!("`{key}` is not a matrix variable ({what}: {listed}){near}"))
        .with_field(field)
        .with_help(CATALOG_MATRIX_VARIABLE.fix)
}

/// A compiled template tree: literals are cloned, strings with `{{`/`{%` are evaluated.
enum Node<'a> {
    Literal(&'a Value),
    Null,
    /// A string that is exactly one `{{ expression }}`: the expression's value and type.
    Expr {
        site: usize,
        source: &'a str,
        expr: Expression<'a, 'a>,
    },
    /// A string with templates inside: rendered to a string.
    Text {
        site: usize,
        source: &'a str,
        template: Template<'a, 'a>,
    },
    Array(Vec<Node<'a>>),
    Object(Vec<(&'a str, Node<'a>)>),
}

/// The expression of a string that is exactly one `{{ expression }}`.
fn single_expression(s: &str) -> Option<&str> {
    let t = s.trim();
    let inner = t.strip_prefix("{{")?.strip_suffix("}}")?;
    (!inner.contains("{{") && !inner.contains("}}")).then_some(inner)
}

/// `shape.name` -> (`shape`, [`name`]), for an expression that is a plain lookup.
fn plain_lookup(expr: &str) -> Option<(String, Vec<String>)> {
    let mut parts = expr.trim().split('.');
    let var = parts.next()?.to_string();
    let attrs: Vec<String> = parts.map(str::to_string).collect();
    let ident =
        |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !s.starts_with(|c: char| c.is_ascii_digit());
    (ident(&var) && attrs.iter().all(|a| ident(a))).then_some((var, attrs))
}

struct Compiler<'a> {
    env: &'a Environment<'a>,
    sites: Vec<Site>,
    /// Template errors (syntax): one each, whatever the rows.
    errors: Vec<Diagnostic>,
}

impl<'a> Compiler<'a> {
    fn compile(&mut self, v: &'a Value, path: &str) -> Node<'a> {
        match v {
            Value::String(s) if is_template(s) => {
                let site = self.sites.len();
                if let Some(expr) = single_expression(s) {
                    match self.env.compile_expression(expr) {
                        Ok(e) => {
                            let mut vars: Vec<String> = e.undeclared_variables(false).into_iter().collect();
                            vars.sort();
                            self.sites.push(Site { field: path.to_string(), vars, whole: plain_lookup(expr), source: s.clone() });
                            return Node::Expr { site, source: s, expr: e };
                        }
                        Err(e) => {
                            self.errors.push(template_error(s, &e).with_field(template_field(path)));
                            return Node::Literal(v);
                        }
                    }
                }
                match self.env.template_from_str(s) {
                    Ok(t) => {
                        let mut vars: Vec<String> = t.undeclared_variables(false).into_iter().collect();
                        vars.sort();
                        self.sites.push(Site { field: path.to_string(), vars, whole: None, source: s.clone() });
                        Node::Text { site, source: s, template: t }
                    }
                    Err(e) => {
                        self.errors.push(template_error(s, &e).with_field(template_field(path)));
                        Node::Literal(v)
                    }
                }
            }
            Value::Array(items) if dynamic(v) => {
                Node::Array(items.iter().enumerate().map(|(i, x)| self.compile(x, &format!("{path}[{i}]"))).collect())
            }
            Value::Object(map) if dynamic(v) => Node::Object(
                map.iter()
                    .map(|(k, x)| {
                        let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                        (k.as_str(), self.compile(x, &p))
                    })
                    .collect(),
            ),
            Value::Null => Node::Null,
            other => Node::Literal(other),
        }
    }
}

/// Whether a part of the template changes when rendered: it holds a template string, or a null
/// (which rendering drops, as it drops a template that evaluates to `none`).
fn dynamic(v: &Value) -> bool {
    match v {
        Value::String(s) => is_template(s),
        Value::Null => true,
        Value::Array(a) => a.iter().any(dynamic),
        Value::Object(m) => m.values().any(dynamic),
        _ => false,
    }
}

/// `spec.template` + a field path of the runtime.
fn template_field(path: &str) -> String {
    if path.is_empty() {
        "spec.template".to_string()
    } else {
        format!("spec.template.{path}")
    }
}

/// Expands a matrix into rows, within `budget` (what the input's matrices may still make).
pub fn expand(m: &JaxRuntimeMatrix, budget: &mut Budget) -> Expansion {
    let template = serde_json::json!({
        "apiVersion": API_VERSION,
        "kind": Kind::Runtime.name(),
        "metadata": m.spec.template.metadata,
        "spec": m.spec.template.spec,
    });
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    let mut compiler = Compiler { env: &env, sites: Vec::new(), errors: Vec::new() };
    let tree = compiler.compile(&template, "");
    let Compiler { sites, errors, .. } = compiler;
    let mut out = Expansion { findings: errors, ..Expansion::default() };
    if !out.findings.is_empty() {
        out.sites = sites;
        return out;
    }
    let used: BTreeSet<String> = sites.iter().flat_map(|s| s.vars.iter().cloned()).collect();
    let template_bytes = serde_json::to_string(&template).map_or(0, |s| s.len());
    let Some(combinations) = combinations(m, &used, &sites, budget, template_bytes, &mut out.findings) else {
        out.sites = sites;
        return out;
    };
    out.rows = combinations;
    for (i, row) in out.rows.iter_mut().enumerate() {
        let ctx = JValue::from(minijinja::value::Serde(&row.vars));
        let mut errors = Vec::new();
        let runtime = render(&tree, &ctx, &row.vars, &sites, &mut errors);
        if errors.is_empty() {
            row.runtime = runtime;
        } else {
            out.row_errors.extend(errors.into_iter().map(|d| (i, d)));
        }
    }
    out.sites = sites;
    out
}

fn render(node: &Node<'_>, ctx: &JValue, vars: &Map<String, Value>, sites: &[Site], errors: &mut Vec<Diagnostic>) -> Value {
    match node {
        Node::Literal(v) => (*v).clone(),
        Node::Null => Value::Null,
        Node::Expr { site, source, expr } => {
            let field = || sites[*site].field.clone();
            match expr.eval(ctx.clone()) {
                Ok(val) if val.is_undefined() => {
                    errors.push(undefined(source, vars, None).with_field(field()));
                    Value::Null
                }
                Ok(val) if val.is_none() => Value::Null,
                Ok(val) => match serde_json::to_value(&val) {
                    Ok(j) => j,
                    Err(e) => {
                        errors.push(
                            Diagnostic::new(&CATALOG_TEMPLATE, format!("cannot use the value of `{source}`: {e}")).with_field(field()),
                        );
                        Value::Null
                    }
                },
                Err(e) => {
                    errors.push(failed(source, vars, &e).with_field(field()));
                    Value::Null
                }
            }
        }
        Node::Text { site, source, template } => match template.render(ctx.clone()) {
            Ok(r) => Value::String(r),
            Err(e) => {
                errors.push(failed(source, vars, &e).with_field(sites[*site].field.clone()));
                Value::Null
            }
        },
        Node::Array(items) => Value::Array(items.iter().map(|x| render(x, ctx, vars, sites, errors)).filter(|x| !x.is_null()).collect()),
        Node::Object(entries) => {
            let mut out = Map::new();
            for (k, x) in entries {
                let r = render(x, ctx, vars, sites, errors);
                if !r.is_null() {
                    out.insert((*k).to_string(), r);
                }
            }
            Value::Object(out)
        }
    }
}

/// A template that failed: an undefined name gets its own message, anything else minijinja's.
fn failed(template: &str, vars: &Map<String, Value>, e: &minijinja::Error) -> Diagnostic {
    // An undefined name is the cause whatever minijinja made of it (`x * 2` on an undefined `x` is
    // an invalid operation to it).
    if e.kind() == minijinja::ErrorKind::UndefinedError || missing_name(template, vars).is_some() {
        return undefined(template, vars, Some(e));
    }
    template_error(template, e)
}

/// The first name `template` reads that the row does not have: `node` (no such variable) or
/// `shape.taem` (no such attribute), with the nearest one.
fn missing_name(template: &str, vars: &Map<String, Value>) -> Option<String> {
    let env = Environment::new();
    let names = match single_expression(template) {
        Some(expr) => env.compile_expression(expr).ok()?.undeclared_variables(true),
        None => env.template_from_str(template).ok()?.undeclared_variables(true),
    };
    let mut names: Vec<String> = names.into_iter().collect();
    names.sort();
    for name in names {
        let mut parts = name.split('.');
        let var = parts.next().unwrap_or_default();
        // `range`, `dict`, `namespace`: minijinja's own, not the row's.
        if !vars.contains_key(var) && env.globals().any(|(g, _)| g == var) {
            continue;
        }
        let Some(mut value) = vars.get(var) else {
            let known: Vec<&str> = vars.keys().map(String::as_str).collect();
            let near = spelling::nearest(var, known.iter().copied(), 2).map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
            return Some(format!(
                "`{var}` is not defined; the row's variables are {}{near}",
                known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
            ));
        };
        let mut at = var.to_string();
        for attr in parts {
            match value {
                Value::Object(m) => match m.get(attr) {
                    Some(v) => {
                        value = v;
                        at = format!("{at}.{attr}");
                    }
                    None => {
                        let near = spelling::nearest(attr, m.keys().map(String::as_str), 2)
                            .map(|n| format!("; did you mean `{at}.{n}`?"))
                            .unwrap_or_default();
                        let has = m.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
                        return Some(format!("`{at}` has no attribute `{attr}` (it has {has}){near}"));
                    }
                },
                _ => return Some(format!("`{at}` is {}, which has no attribute `{attr}`", kind_of(value))),
            }
        }
    }
    None
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn undefined(template: &str, vars: &Map<String, Value>, e: Option<&minijinja::Error>) -> Diagnostic {
    let what = missing_name(template, vars).unwrap_or_else(|| match e.and_then(|e| e.detail()) {
        Some(d) => format!("undefined value: {d}"),
        None => "it evaluates to an undefined value".to_string(),
    });
    Diagnostic::new(&CATALOG_TEMPLATE, format!("template `{template}` failed: {what}"))
        .with_help("use only variables defined under `spec.matrix` or `spec.include`, e.g. `{{ topology }}`; `{{ x | default(none) }}` leaves a field unset")
}

fn template_error(template: &str, e: &minijinja::Error) -> Diagnostic {
    let mut detail = e.kind().to_string();
    if let Some(d) = e.detail() {
        detail = format!("{detail}: {d}");
    }
    Diagnostic::new(&CATALOG_TEMPLATE, format!("template `{template}` failed: {detail}"))
        .with_help("use only variables defined under `spec.matrix` or `spec.include`, e.g. `{{ topology }}`; `{{ x | default(none) }}` leaves a field unset")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(yaml: &str) -> JaxRuntimeMatrix {
        serde_json::from_value(crate::yaml::parse_one(yaml).unwrap()).unwrap()
    }

    fn expand_all(m: &JaxRuntimeMatrix) -> Expansion {
        expand(m, &mut Budget::default())
    }

    const M: &str = r#"
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntimeMatrix
metadata: {name: v5e}
spec:
  matrix:
    topology: [2x2, 4x4]
    nodes: [1, 2]
  exclude: [{topology: 4x4, nodes: 2}]
  include: [{topology: 2x4, nodes: 1, chips: 8}]
  template:
    metadata: {name: "jax-v5e-{{ topology }}-{{ nodes }}"}
    spec:
      numNodes: "{{ nodes }}"
      accelerator: {tpu: {type: v5e, topology: "{{ topology }}", chipsPerHost: "{{ chips | default(none) }}"}}
"#;

    #[test]
    fn expands_product_minus_exclude_plus_include() {
        let x = expand_all(&matrix(M));
        assert!(x.findings.is_empty() && x.row_errors.is_empty(), "{:?} {:?}", x.findings, x.row_errors);
        assert_eq!(x.rendered().count(), 4);
        let names: Vec<&str> = x.rows.iter().map(|r| r.runtime["metadata"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["jax-v5e-2x2-1", "jax-v5e-2x2-2", "jax-v5e-4x4-1", "jax-v5e-2x4-1"]);
        assert_eq!(x.rows[2].sources["topology"], "spec.matrix.topology[1]");
        assert_eq!(x.rows[3].sources["chips"], "spec.include[0].chips");
    }

    #[test]
    fn whole_expression_strings_keep_their_type_and_none_unsets() {
        let rows = expand_all(&matrix(M)).rows;
        assert_eq!(rows[1].runtime["spec"]["numNodes"], serde_json::json!(2));
        assert!(rows[0].runtime["spec"]["accelerator"]["tpu"].get("chipsPerHost").is_none());
        assert_eq!(rows[3].runtime["spec"]["accelerator"]["tpu"]["chipsPerHost"], serde_json::json!(8));
    }

    #[test]
    fn an_undefined_name_is_an_error_as_a_whole_value_and_as_part_of_one() {
        for (from, to, field, says) in [
            ("{{ topology }}-{{ nodes }}", "{{ topo }}", "metadata.name", "`topo` is not defined; the row's variables are"),
            (
                "\"{{ nodes }}\"",
                "\"{{ node }}\"",
                "spec.numNodes",
                "`node` is not defined; the row's variables are `topology`, `nodes`; did you mean `nodes`?",
            ),
        ] {
            let bad = M.replace(from, to);
            let x = expand_all(&matrix(&bad));
            assert_eq!(x.rendered().count(), 0, "{to}: no row renders");
            let (_, d) = &x.row_errors[0];
            assert_eq!(d.field.as_deref(), Some(field), "{to}");
            assert!(d.message.contains(says), "{to}: {}", d.message);
        }
        let attr = r#"
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntimeMatrix
metadata: {name: m}
spec:
  matrix:
    shape: [{team: a, name: x}]
  template:
    metadata: {name: "n-{{ shape.name }}", labels: {team: "{{ shape.taem }}"}}
    spec: {accelerator: {cpu: {}}}
"#;
        let x = expand_all(&matrix(attr));
        let (_, d) = &x.row_errors[0];
        assert_eq!(d.field.as_deref(), Some("metadata.labels.team"));
        assert!(d.message.contains("`shape` has no attribute `taem` (it has `team`, `name`); did you mean `shape.team`?"), "{}", d.message);
    }

    #[test]
    fn a_missing_attribute_is_named_whatever_minijinja_makes_of_it() {
        let m = r#"
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntimeMatrix
metadata: {name: m}
spec:
  matrix:
    shape: [{name: a, n: 2}, {name: b}]
  template:
    metadata: {name: "x-{{ shape['name'] }}", labels: {size: "s{{ shape.n * 2 }}"}}
    spec:
      accelerator: {cpu: {}}
      args: ["{% for i in range(shape.n) %}{{ i }}{% endfor %}"]
"#;
        let x = expand_all(&matrix(m));
        assert_eq!(x.rendered().count(), 1, "row a renders");
        let messages: Vec<&str> = x.row_errors.iter().map(|(row, d)| if *row == 1 { d.message.as_str() } else { "row a" }).collect();
        assert_eq!(messages.len(), 2);
        for m in messages {
            assert!(m.ends_with("failed: `shape` has no attribute `n` (it has `name`)"), "{m}");
        }
    }

    #[test]
    fn include_and_exclude_keys_must_be_variables() {
        let bad = M.replace("exclude: [{topology: 4x4, nodes: 2}]", "exclude: [{topology: 4x4, nodez: 2}]");
        let x = expand_all(&matrix(&bad));
        assert!(x.rows.is_empty());
        assert_eq!(x.findings.len(), 1, "{:?}", x.findings);
        assert_eq!(x.findings[0].rule, &CATALOG_MATRIX_VARIABLE);
        assert_eq!(x.findings[0].field.as_deref(), Some("spec.exclude[0].nodez"));
        assert!(x.findings[0].message.ends_with("did you mean `nodes`?"), "{}", x.findings[0].message);
        // `chips` is not a matrix variable but the template uses it: an include may add it.
        let bad = M.replace("chips: 8}", "chipz: 8}");
        let x = expand_all(&matrix(&bad));
        assert_eq!(x.findings[0].field.as_deref(), Some("spec.include[0].chipz"));
        assert!(x.findings[0].message.contains("did you mean `chips`?"), "{}", x.findings[0].message);
    }

    #[test]
    fn exclude_written_inside_the_matrix_is_an_error_that_points_at_spec_exclude() {
        // `exclude` one level too deep: a variable of mappings the template never reads.
        let bad = M
            .replace("  exclude: [{topology: 4x4, nodes: 2}]\n", "")
            .replace("nodes: [1, 2]\n", "nodes: [1, 2]\n    exclude: [{topology: 4x4, nodes: 2}]\n");
        assert!(bad.contains("    exclude: [{topology"), "{bad}");
        let x = expand_all(&matrix(&bad));
        assert!(x.rows.is_empty(), "nothing is expanded");
        assert_eq!(x.findings.len(), 1, "{:?}", x.findings);
        let d = &x.findings[0];
        assert_eq!(d.rule, &CATALOG_MATRIX_VARIABLE_UNUSED);
        assert_eq!(d.field.as_deref(), Some("spec.matrix.exclude"));
        assert!(d.message.ends_with("nothing is excluded; did you mean `spec.exclude`?"), "{}", d.message);
        let bad = M
            .replace("  include: [{topology: 2x4, nodes: 1, chips: 8}]\n", "")
            .replace("nodes: [1, 2]\n", "nodes: [1, 2]\n    include: [{topology: 2x4, nodes: 1, chips: 8}]\n");
        let x = expand_all(&matrix(&bad));
        assert_eq!(x.findings[0].field.as_deref(), Some("spec.matrix.include"));
        assert!(x.findings[0].message.ends_with("no row is included; did you mean `spec.include`?"), "{}", x.findings[0].message);
    }

    #[test]
    fn a_variable_no_template_string_uses_is_an_error() {
        let bad = M.replace("nodes: [1, 2]\n", "nodes: [1, 2]\n    zone: [a, b, c]\n");
        let x = expand_all(&matrix(&bad));
        assert!(x.rows.is_empty());
        assert_eq!(x.findings.len(), 1, "{:?}", x.findings);
        assert_eq!(x.findings[0].rule, &CATALOG_MATRIX_VARIABLE_UNUSED);
        assert_eq!(x.findings[0].field.as_deref(), Some("spec.matrix.zone"));
        assert!(
            x.findings[0].message.contains("its 3 values make 3 copies of every runtime, with the same names"),
            "{}",
            x.findings[0].message
        );
        // A misspelt variable: the template reads `topology`, the matrix defines `topolgy`. One
        // error, where the template reads the name, naming the variable.
        let bad = M
            .replace("    topology: [2x2, 4x4]", "    topolgy: [2x2, 4x4]")
            .replace("{topology: 4x4, nodes: 2}", "{topolgy: 4x4, nodes: 2}");
        let x = expand_all(&matrix(&bad));
        assert!(x.findings.is_empty(), "{:?}", x.findings);
        let (_, d) = &x.row_errors[0];
        assert_eq!(d.rule, &CATALOG_TEMPLATE);
        assert!(d.message.contains("`topology` is not defined") && d.message.contains("did you mean `topolgy`?"), "{}", d.message);
    }

    #[test]
    fn a_list_or_mapping_put_bare_into_text_is_an_error_and_every_other_use_is_not() {
        for (from, to, field, says) in [
            (
                "topology: [2x2, 4x4]",
                "topology: [[2x2, 4x4]]",
                "spec.matrix.topology[0]",
                "is a list, and `spec.template.metadata.name` puts `{{ topology }}` inside a string",
            ),
            ("nodes: [1, 2]", "nodes: [1, {n: 2}]", "spec.matrix.nodes[1]", "is a mapping, and `spec.template.metadata.name` puts"),
        ] {
            let x = expand_all(&matrix(&M.replace(from, to)));
            assert!(x.rows.is_empty(), "{to}");
            assert_eq!(x.findings.len(), 1, "{to}: {:?}", x.findings);
            assert_eq!(x.findings[0].rule, &CATALOG_INVALID_MATRIX, "{to}");
            assert_eq!(x.findings[0].field.as_deref(), Some(field), "{to}");
            assert!(x.findings[0].message.contains(says), "{to}: {}", x.findings[0].message);
        }
        // By attribute, as a whole typed value, or through a filter: read on purpose.
        let used = r#"
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntimeMatrix
metadata: {name: m}
spec:
  matrix:
    shape: [{name: a, topology: 2x2}, {name: b, topology: 4x4}]
    args: [[--a, "1"], [--b]]
  template:
    metadata: {name: "x-{{ shape.name }}-{{ args | length }}", annotations: {args: "{{ args | join(' ') }}"}}
    spec: {accelerator: {tpu: {type: v5e, topology: "{{ shape.topology }}"}}, args: "{{ args }}"}
"#;
        let x = expand_all(&matrix(used));
        assert!(x.findings.is_empty() && x.row_errors.is_empty(), "{:?} {:?}", x.findings, x.row_errors);
        assert_eq!(x.rendered().count(), 4);
        assert_eq!(x.rows[1].runtime["spec"]["args"], serde_json::json!(["--b"]));
        assert!(bare_use("a-{{- shape -}}", "shape") && bare_use("{{shape}}", "shape"));
        assert!(!bare_use("{{ shapes }}", "shape") && !bare_use("{{ shape.name }}", "shape") && !bare_use("{{ shape | tojson }}", "shape"));
    }

    #[test]
    fn an_exclude_that_matches_nothing_is_a_warning() {
        let x = expand_all(&matrix(&M.replace("{topology: 4x4, nodes: 2}", "{topology: 4x4, nodes: 3}")));
        assert_eq!(x.rows.len(), 5);
        assert_eq!(x.findings.iter().map(|d| d.rule.id).collect::<Vec<_>>(), ["catalog/matrix-exclude-unused"]);
    }

    #[test]
    fn the_rows_and_the_text_of_an_input_are_capped_before_anything_is_expanded() {
        let big = r#"
apiVersion: jax-runtimes.dev/v1alpha1
kind: JaxRuntimeMatrix
metadata: {name: big}
spec:
  matrix: {a: [LIST], b: [LIST], c: [LIST]}
  template:
    metadata: {name: "x-{{ a }}-{{ b }}-{{ c }}"}
    spec: {accelerator: {cpu: {}}}
"#
        .replace("LIST", &(0..100).map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
        let started = std::time::Instant::now();
        let x = expand_all(&matrix(&big));
        assert!(x.rows.is_empty());
        assert_eq!(x.findings.len(), 1);
        assert_eq!(x.findings[0].rule, &CATALOG_MATRIX_LIMIT);
        assert!(
            x.findings[0].message.contains("1000000 rows (100 a x 100 b x 100 c)") && x.findings[0].message.contains("20000 rows"),
            "{}",
            x.findings[0].message
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "refused before expanding");
        // Two matrices share the input's budget.
        let mut budget = Budget { rows: 5, bytes: MAX_EXPANDED_BYTES };
        assert_eq!(expand(&matrix(M), &mut budget).rows.len(), 4);
        assert_eq!(expand(&matrix(M), &mut budget).findings[0].rule, &CATALOG_MATRIX_LIMIT);
        let mut budget = Budget { rows: MAX_ROWS, bytes: 100 };
        assert!(expand(&matrix(M), &mut budget).findings[0].message.contains("MiB of template text"));
    }
}
