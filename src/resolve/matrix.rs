//! Matrix expansion: a `JaxRuntimeMatrix` -> one untyped `JaxRuntime` per
//! combination of its variables. Every string in the template is a minijinja template; a string
//! that is exactly one `{{ expression }}` takes the expression's value and type.

use minijinja::{Environment, UndefinedBehavior, Value as JValue};
use serde_json::{Map, Value};

use crate::catalog::{JaxRuntimeMatrix, Kind, API_VERSION};
use crate::diag::Diagnostic;
use crate::rules::catalog::{CATALOG_INVALID_MATRIX, CATALOG_TEMPLATE};

/// One expanded row: its variables and the `JaxRuntime` it produced.
#[derive(Debug, Clone)]
pub struct Row {
    pub vars: Map<String, Value>,
    pub runtime: Value,
}

impl Row {
    /// `topology=2x4, chips=8`, for messages.
    pub fn describe(&self) -> String {
        self.vars
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}={s}"),
                other => format!("{k}={other}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Every combination of the matrix variables (in the order written, the last variable varying
/// fastest), minus `exclude`, plus `include`.
pub fn combinations(m: &JaxRuntimeMatrix) -> Result<Vec<Map<String, Value>>, Diagnostic> {
    let mut rows: Vec<Map<String, Value>> = vec![Map::new()];
    for (key, values) in &m.spec.matrix {
        let Value::Array(values) = values else {
            return Err(Diagnostic::new(&CATALOG_INVALID_MATRIX, format!("matrix variable `{key}` must be a list of values"))
                .with_field(format!("spec.matrix.{key}")));
        };
        if values.is_empty() {
            return Err(Diagnostic::new(&CATALOG_INVALID_MATRIX, format!("matrix variable `{key}` has no values"))
                .with_field(format!("spec.matrix.{key}"))
                .with_help("give at least one value, or remove the variable"));
        }
        let mut next = Vec::with_capacity(rows.len() * values.len());
        for row in &rows {
            for v in values {
                let mut r = row.clone();
                r.insert(key.clone(), v.clone());
                next.push(r);
            }
        }
        rows = next;
    }
    if m.spec.matrix.is_empty() {
        rows.clear();
    }
    rows.retain(|row| !m.spec.exclude.iter().any(|ex| ex.iter().all(|(k, v)| row.get(k) == Some(v))));
    for inc in &m.spec.include {
        if !rows.contains(inc) {
            rows.push(inc.clone());
        }
    }
    if rows.is_empty() {
        return Err(Diagnostic::new(&CATALOG_INVALID_MATRIX, "the matrix produces no runtime")
            .with_field("spec.matrix")
            .with_help("add values under `spec.matrix` or `spec.include`"));
    }
    Ok(rows)
}

/// Expands a matrix into rows. Template errors name the field path inside `spec.template`.
pub fn expand(m: &JaxRuntimeMatrix) -> Result<Vec<Row>, Vec<Diagnostic>> {
    let rows = combinations(m).map_err(|d| vec![d])?;
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    let template = serde_json::json!({
        "apiVersion": API_VERSION,
        "kind": Kind::Runtime.name(),
        "metadata": m.spec.template.metadata,
        "spec": m.spec.template.spec,
    });
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for vars in rows {
        let ctx = JValue::from(minijinja::value::Serde(&vars));
        let mut row_errors = Vec::new();
        let runtime = render_value(&env, &template, &ctx, String::new(), &mut row_errors);
        if row_errors.is_empty() {
            out.push(Row { vars, runtime });
        } else {
            let row = Row { vars, runtime: Value::Null }.describe();
            errors.extend(row_errors.into_iter().map(|d: Diagnostic| {
                let msg = format!("{} (matrix row {row})", d.message);
                Diagnostic { message: msg, ..d }
            }));
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn render_value(env: &Environment, v: &Value, ctx: &JValue, path: String, errors: &mut Vec<Diagnostic>) -> Value {
    let field_for = |p: &str| {
        // `apiVersion`/`kind` are ours; `metadata.x`/`spec.x` live under `spec.template`.
        if p.is_empty() {
            "spec.template".to_string()
        } else {
            format!("spec.template.{p}")
        }
    };
    match v {
        Value::String(s) if s.contains("{{") || s.contains("{%") => {
            let trimmed = s.trim();
            let single = trimmed.starts_with("{{")
                && trimmed.ends_with("}}")
                && trimmed[2..].find("}}") == Some(trimmed.len() - 4)
                && !trimmed[2..trimmed.len() - 2].contains("{{");
            if single {
                let expr = &trimmed[2..trimmed.len() - 2];
                match env.compile_expression(expr).and_then(|e| e.eval(ctx)) {
                    Ok(val) => {
                        if val.is_undefined() || val.is_none() {
                            return Value::Null;
                        }
                        match serde_json::to_value(&val) {
                            Ok(j) => return j,
                            Err(e) => {
                                errors.push(
                                    Diagnostic::new(&CATALOG_TEMPLATE, format!("cannot use the value of `{s}`: {e}"))
                                        .with_field(field_for(&path)),
                                );
                                return Value::Null;
                            }
                        }
                    }
                    Err(e) => {
                        errors.push(template_error(s, &e).with_field(field_for(&path)));
                        return Value::Null;
                    }
                }
            }
            match env.render_str(s, ctx) {
                Ok(r) => Value::String(r),
                Err(e) => {
                    errors.push(template_error(s, &e).with_field(field_for(&path)));
                    Value::Null
                }
            }
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, x)| render_value(env, x, ctx, format!("{path}[{i}]"), errors))
                .filter(|x| !x.is_null())
                .collect(),
        ),
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, x) in map {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                let r = render_value(env, x, ctx, p, errors);
                if !r.is_null() {
                    out.insert(k.clone(), r);
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
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
        let rows = expand(&matrix(M)).unwrap();
        let names: Vec<&str> = rows.iter().map(|r| r.runtime["metadata"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["jax-v5e-2x2-1", "jax-v5e-2x2-2", "jax-v5e-4x4-1", "jax-v5e-2x4-1"]);
    }

    #[test]
    fn whole_expression_strings_keep_their_type_and_none_unsets() {
        let rows = expand(&matrix(M)).unwrap();
        assert_eq!(rows[1].runtime["spec"]["numNodes"], serde_json::json!(2));
        assert!(rows[0].runtime["spec"]["accelerator"]["tpu"].get("chipsPerHost").is_none());
        assert_eq!(rows[3].runtime["spec"]["accelerator"]["tpu"]["chipsPerHost"], serde_json::json!(8));
    }

    #[test]
    fn undefined_variable_is_an_error_with_its_field() {
        let bad = M.replace("{{ topology }}-{{ nodes }}", "{{ topo }}");
        let errs = expand(&matrix(&bad)).unwrap_err();
        assert_eq!(errs[0].field.as_deref(), Some("spec.template.metadata.name"));
        assert!(errs[0].message.contains("undefined"), "{}", errs[0].message);
    }
}
