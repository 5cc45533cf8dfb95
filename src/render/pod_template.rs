//! `spec.podTemplate` merged into the generated trainer pod ([`crate::k8s::merge`]). A value of
//! the fragment that contradicts a generated one is an error naming the fragment's field (in the
//! runtime, or in its defaults) and the generated one (the catalog field it comes from and its
//! path in the rendered runtime).

use k8s_openapi::api::core::v1::PodTemplateSpec;
use serde_json::Value;

use crate::accelerators::data;
use crate::diag::Diagnostic;
use crate::k8s::merge::{self, Conflict, KeyedPath};
use crate::resolve::pod_template::PodTemplate;
use crate::resolve::Resolved;
use crate::rules::catalog::{CATALOG_POD_TEMPLATE_CONFLICT, CATALOG_WRONG_TYPE};
use crate::trainer::facts;

/// Where the trainer pod template is in a rendered runtime (after the initializer jobs).
fn pod_template_path(r: &Resolved) -> String {
    let index = r.initializers.as_ref().map_or(0, |i| i.jobs.len());
    format!("spec.template.spec.replicatedJobs[{index}].template.spec.template")
}

/// The catalog fields that may have set a field of a rendered runtime, by where they are
/// written: in the runtime's entry, or in its defaults (each list the likeliest first). Both are
/// empty for a field outside the trainer pod.
#[derive(Debug, Default, PartialEq)]
pub struct CatalogFields {
    pub entry: Vec<String>,
    pub defaults: Vec<String>,
}

/// [`CatalogFields`] of `field` of `runtime` (what [`super::render`] made of `r`): the pod
/// template's own path (indexed as the runtime's fragment, or its defaults', holds it), then the
/// field of the entry the generator reads (`spec.resources.limits.memory`, `spec.nodeSelector.x`).
pub fn catalog_fields(r: &Resolved, runtime: &Value, field: &str) -> CatalogFields {
    let mut out = CatalogFields::default();
    let base = pod_template_path(r);
    let Some(rest) = field.strip_prefix(base.as_str()).and_then(|f| f.strip_prefix('.')) else { return out };
    let index = r.initializers.as_ref().map_or(0, |i| i.jobs.len());
    let Some(template) = runtime.pointer(&format!("/spec/template/spec/replicatedJobs/{index}/template/spec/template")) else {
        return out;
    };
    let Some(path) = KeyedPath::from_indexed(rest, template) else { return out };
    if let Some(fragment) = &r.pod_template {
        out.entry.extend(path.indexed_in(&fragment.entry).map(|p| format!("spec.podTemplate.{p}")));
        out.defaults.extend(path.indexed_in(&fragment.merged).map(|p| format!("spec.podTemplate.{p}")));
    }
    let fields = path.fields();
    let node = path.item_names().first().is_some_and(|n| *n == facts().node);
    let under = |field: &str, rest: &[&str]| std::iter::once(field).chain(rest.iter().copied()).collect::<Vec<_>>().join(".");
    match fields.as_slice() {
        ["spec", "containers", "resources", rest @ ..] if node => out.entry.push(under("spec.resources", rest)),
        ["spec", "containers", "image"] if node => {
            out.entry.push("spec.image".into());
            out.defaults.push("spec.images".into());
        }
        ["spec", "containers", field @ ("command" | "args"), ..] if node => out.entry.push(format!("spec.{field}")),
        ["spec", "containers", "env", ..] if node => {
            out.entry.push("spec.env".into());
            out.defaults.push("spec.env".into());
        }
        ["spec", "nodeSelector", key] => {
            out.entry.push(format!("spec.nodeSelector.{key}"));
            out.defaults.push(format!("spec.nodeSelector.{key}"));
        }
        ["spec", "tolerations", ..] => {
            out.entry.push("spec.tolerations".into());
            out.defaults.push("spec.tolerations".into());
        }
        ["spec", field @ ("serviceAccountName" | "hostNetwork")] => out.entry.push(format!("spec.{field}")),
        _ => {}
    }
    out
}

/// The generated template with the fragment merged in.
pub(super) fn merge(r: &Resolved, template: PodTemplateSpec, fragment: &PodTemplate) -> Result<PodTemplateSpec, Vec<Diagnostic>> {
    let wrong =
        |e: serde_json::Error| vec![Diagnostic::new(&CATALOG_WRONG_TYPE, format!("the merged pod template does not read as one: {e}"))];
    let generated = serde_json::to_value(&template).map_err(wrong)?;
    let mut merged = generated.clone();
    let mut errors: Vec<Diagnostic> =
        merge::merge(&mut merged, &fragment.merged).iter().map(|c| conflict(r, c, fragment, &generated)).collect();
    errors.extend(accelerator_resources(fragment, &generated));
    if !errors.is_empty() {
        return Err(errors);
    }
    serde_json::from_value(merged).map_err(wrong)
}

/// Where a value of the fragment is: `(field, words)`: the field of the runtime's fragment, or
/// of the defaults' (as the merged fragment indexes it: the caller finds it in the defaults that
/// write it), `None` when neither holds it.
fn place(path: &KeyedPath, fragment: &PodTemplate) -> (Option<String>, String) {
    match path.indexed_in(&fragment.entry) {
        Some(p) => (Some(format!("spec.podTemplate.{p}")), "the pod template".to_string()),
        None => match path.indexed_in(&fragment.merged) {
            Some(p) => (Some(format!("spec.podTemplate.{p}")), "the JaxRuntimeDefaults' pod template".to_string()),
            None => (None, format!("the JaxRuntimeDefaults' `spec.podTemplate.{}`", path.describe())),
        },
    }
}

fn conflict(r: &Resolved, c: &Conflict, fragment: &PodTemplate, generated: &Value) -> Diagnostic {
    let (field, words) = place(&c.path, fragment);
    let at = c.path.indexed_in(generated).map(|p| format!("{}.{p}", pod_template_path(r))).unwrap_or_else(|| c.path.describe());
    let d = Diagnostic::new(
        &CATALOG_POD_TEMPLATE_CONFLICT,
        format!(
            "{words} sets {} where the generator sets {} from {} (`{at}` of the runtime)",
            show(&c.fragment),
            show(&c.generated),
            owner(r, &c.path)
        ),
    )
    .with_help("remove the value from `spec.podTemplate`, or change the catalog field that generates it");
    match field {
        Some(f) => d.with_field(f),
        None => d,
    }
}

/// A value in a message: a string as written, anything else as JSON.
fn show(v: &Value) -> String {
    format!("`{}`", merge::scalar(v))
}

/// The catalog field a generated value comes from, in the user's terms.
fn owner(r: &Resolved, path: &KeyedPath) -> String {
    let fields = path.fields();
    let items = path.item_names();
    let last = fields.last().copied().unwrap_or_default();
    let d = data();
    let shm = items.iter().any(|i| i == crate::accelerators::SHM_VOLUME || i == "/dev/shm");
    match fields.as_slice() {
        ["spec", "containers", "resources", _, key] if d.accelerator_resources().any(|k| k == *key) => {
            format!("`spec.accelerator` ({})", r.accelerator_summary())
        }
        ["spec", "containers", "resources", ..] => "`spec.resources`".into(),
        ["spec", "containers", "image"] => "`spec.image` (or the defaults' image for the accelerator)".into(),
        ["spec", "containers", "env", ..] => "`spec.env`, the defaults' env or the accelerator's env".into(),
        ["spec", "containers", "command"] => "`spec.command`".into(),
        ["spec", "containers", "args"] => "`spec.args`".into(),
        ["spec", "containers", "volumeMounts", ..] | ["spec", "volumes", ..] if shm => {
            "`spec.sharedMemory` (the memory-backed `/dev/shm`)".into()
        }
        ["spec", "containers" | "volumes" | "initContainers", ..] => "the GPU fabric".into(),
        ["spec", "nodeSelector", key] if *key == d.tpu.topology_label => "the TPU topology of `spec.accelerator.tpu`".into(),
        ["spec", "nodeSelector", _] => "`spec.accelerator` (its node labels) or `spec.nodeSelector`".into(),
        ["spec", "affinity", ..] => "the GPU's machine types (`spec.accelerator.gpu`)".into(),
        ["spec", "tolerations"] => "`spec.accelerator` or `spec.tolerations`".into(),
        ["spec", "hostNetwork" | "dnsPolicy"] => "`spec.hostNetwork`".into(),
        ["spec", "serviceAccountName"] => "`spec.serviceAccountName`".into(),
        ["metadata", "annotations", ..] => "the GPU fabric or `spec.topology`".into(),
        _ => format!("the generator (`{last}`)"),
    }
}

/// Accelerator resources in the fragment's `node` container that the generator did not set:
/// only `spec.accelerator` chooses the accelerator and its count.
fn accelerator_resources(fragment: &PodTemplate, generated: &Value) -> Vec<Diagnostic> {
    let node = &facts().node;
    let mut out = Vec::new();
    let containers = fragment.merged.pointer("/spec/containers").and_then(Value::as_array);
    let Some(c) = containers.and_then(|cs| cs.iter().find(|c| c.get("name").and_then(Value::as_str) == Some(node.as_str()))) else {
        return out;
    };
    let has = |section: &str, key: &str| {
        generated.pointer("/spec/containers/0/resources").and_then(|r| r.get(section)).and_then(|m| m.get(key)).is_some()
    };
    for section in ["limits", "requests"] {
        for key in c.pointer(&format!("/resources/{section}")).and_then(Value::as_object).into_iter().flat_map(|m| m.keys()) {
            if data().accelerator_resources().any(|k| k == key) && !has(section, key) {
                let path = KeyedPath(vec![
                    merge::Seg::Field("spec".into()),
                    merge::Seg::Field("containers".into()),
                    merge::Seg::Item(vec![("name".into(), Value::String(node.clone()))]),
                    merge::Seg::Field("resources".into()),
                    merge::Seg::Field(section.into()),
                    merge::Seg::Field(key.clone()),
                ]);
                let (field, words) = place(&path, fragment);
                let d = Diagnostic::new(
                    &CATALOG_POD_TEMPLATE_CONFLICT,
                    format!(
                        "{words} asks for `{key}`, but the generator sets the `node` container's accelerator from `spec.accelerator` only"
                    ),
                )
                .with_help("remove it from `spec.podTemplate`; choose the accelerator and its count with `spec.accelerator`");
                out.push(match field {
                    Some(f) => d.with_field(f),
                    None => d,
                });
            }
        }
    }
    out
}
