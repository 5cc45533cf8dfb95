//! `spec.podTemplate`: the defaults' fragment under the runtime's (the runtime's values win), and
//! what a fragment may not say however the rest of the pod looks: the env Trainer's JAX plugin
//! injects into the `node` container, and the env GKE's TPU webhook injects. The fragment is
//! merged into the generated pod by `render` ([`crate::k8s::merge`]), which reports every value
//! it contradicts.

use serde_json::Value;

use crate::catalog::PodTemplateFragment;
use crate::diag::Diagnostic;
use crate::rules::catalog::{CATALOG_JAX_PLUGIN_ENV, CATALOG_POD_TEMPLATE_CONFLICT};
use crate::trainer::facts;

/// A runtime's fragment, ready for `render`: the merged JSON of the defaults' and the runtime's
/// fragments, and the runtime's own (to tell which of the two a conflicting value came from).
#[derive(Debug, Clone, PartialEq)]
pub struct PodTemplate {
    pub merged: Value,
    pub entry: Value,
}

/// The fragment of stacked defaults: `over`'s values win.
pub fn over(base: Option<&PodTemplateFragment>, over: Option<&PodTemplateFragment>) -> Option<PodTemplateFragment> {
    match (base, over) {
        (None, None) => None,
        (Some(b), None) => Some(b.clone()),
        (None, Some(o)) => Some(o.clone()),
        (Some(b), Some(o)) => {
            let merged = crate::k8s::merge::over(&to_json(b), &to_json(o));
            serde_json::from_value(merged).ok().or_else(|| Some(o.clone()))
        }
    }
}

/// The fragment as the JSON of a pod template (`metadata`, `spec`), without the empty lists a
/// typed PodSpec always writes.
pub fn to_json(f: &PodTemplateFragment) -> Value {
    let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
    if let Some(spec) = v.get_mut("spec").and_then(Value::as_object_mut) {
        if spec.get("containers").and_then(Value::as_array).is_some_and(Vec::is_empty) {
            spec.remove("containers");
        }
    }
    v
}

/// The runtime's fragment over the defaults'; `None` when neither sets anything.
pub fn resolve(defaults: Option<&PodTemplateFragment>, entry: Option<&PodTemplateFragment>) -> Option<PodTemplate> {
    let entry_json = entry.filter(|e| !e.is_empty()).map(to_json).unwrap_or(Value::Null);
    let merged = over(defaults.filter(|d| !d.is_empty()), entry.filter(|e| !e.is_empty()))?;
    Some(PodTemplate { merged: to_json(&merged), entry: entry_json })
}

/// Env of the `node` container a fragment must not set: what the JAX plugin injects (Trainer
/// replaces it at TrainJob creation) and what GKE's TPU webhook injects.
pub fn check(fragment: &PodTemplateFragment, field: &str, from_defaults: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let node = &facts().node;
    let Some(spec) = &fragment.spec else { return out };
    for (c, container) in spec.containers.iter().enumerate() {
        if &container.name != node {
            continue;
        }
        for (i, e) in container.env.iter().flatten().enumerate() {
            // A JAX plugin variable: the rule and the sentence of `spec.env` and of `validate`
            // (`jax/plugin-env`); a warning, as there: the plugin replaces it with `spec.trainer`.
            let (rule, owner, help) = if facts().is_jax_variable(&e.name) {
                (&CATALOG_JAX_PLUGIN_ENV, facts().jax.set_by_runtime(&e.name), "remove it from the pod template")
            } else if crate::accelerators::data().tpu.webhook.env().contains(&e.name.as_str()) {
                (
                    &CATALOG_POD_TEMPLATE_CONFLICT,
                    format!(
                        "`{}` is injected by GKE's TPU webhook into multi-host TPU pods (`jax-runtimes preview` shows its value)",
                        e.name
                    ),
                    "remove it from the pod template: the value each pod needs is computed for it",
                )
            } else {
                continue;
            };
            let at = format!("{field}.spec.containers[{c}].env[{i}].name");
            let d = Diagnostic::new(
                rule,
                if from_defaults {
                    format!("set by the JaxRuntimeDefaults' `{at}`: {owner}")
                } else {
                    format!("set in the pod template: {owner}")
                },
            )
            .with_help(help);
            out.push(if from_defaults { d } else { d.with_field(at) });
        }
    }
    out
}
