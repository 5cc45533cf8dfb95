//! `JaxRuntimeDefaults`, several per input: at most one without a `spec.selector` applies to every
//! runtime, and each one with a selector applies to the runtimes it selects (by their own labels,
//! their names, or the folder of their file), over the unselected one. A runtime two selected
//! defaults select is an error (which one wins would depend on file order); a selector that
//! selects nothing is a warning. Each defaults' platform, image keys and Kubernetes values are
//! checked once, where it is written. What the defaults set is applied by [`super::entry`].

use std::cell::Cell;
use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

use crate::accelerators::data;
use crate::catalog::{DefaultsSelector, DefaultsSpec, Images, JaxRuntime, JaxRuntimeDefaults, Kind};
use crate::diag::{Diagnostic, ObjectRef};
use crate::k8s::facts::facts;
use crate::k8s::finding::Scope;
use crate::k8s::{meta, names};
use crate::keys;
use crate::read::{Document, Place};
use crate::rules::catalog::{
    CATALOG_DEFAULTS_OVERLAP, CATALOG_DEFAULTS_UNUSED, CATALOG_DUPLICATE_DEFAULTS, CATALOG_GENERATOR_METADATA, CATALOG_INVALID_VALUE,
};
use crate::spelling;

/// Every `JaxRuntimeDefaults` of an input, checked, and which runtimes each applies to.
#[derive(Default)]
pub(super) struct DefaultsSet {
    /// The one without a selector (empty when there is none).
    global: DefaultsSpec,
    /// Where the one without a selector is written, and its name.
    global_at: Option<(Place, String)>,
    selected: Vec<Selected>,
}

struct Selected {
    name: String,
    /// Where it is written (owned: the set outlives the documents, see [`super::Pending`]).
    doc: Place,
    selector: DefaultsSelector,
    /// Its own values over the unselected defaults'.
    spec: DefaultsSpec,
    used: Cell<bool>,
}

impl DefaultsSet {
    /// Checks every defaults object (findings located in its document) and sorts them.
    pub(super) fn new(defaults: &[(JaxRuntimeDefaults, &Document)], diags: &mut Vec<Diagnostic>) -> DefaultsSet {
        let mut set = DefaultsSet::default();
        let mut global: Option<&str> = None;
        let mut selected = Vec::new();
        for (d, doc) in defaults {
            let object = ObjectRef::new(Kind::Defaults.name(), &d.metadata.name);
            let mut report = |x: Diagnostic| diags.push(doc.locate(x.with_object(object.clone())));
            let spec = checked(&d.spec, &mut report);
            match &d.spec.selector {
                None => match global {
                    Some(first) => report(
                        Diagnostic::new(
                            &CATALOG_DUPLICATE_DEFAULTS,
                            format!("a second JaxRuntimeDefaults without a `spec.selector`; `{first}` already applies to every runtime"),
                        )
                        .with_help(
                            "merge them into one JaxRuntimeDefaults, or give this one a `spec.selector` (labels, names or `sameFolder`)",
                        ),
                    ),
                    None => {
                        global = Some(&d.metadata.name);
                        set.global = spec;
                        set.global_at = Some((doc.place(), d.metadata.name.clone()));
                    }
                },
                Some(selector) => {
                    check_selector(selector, &mut report);
                    selected.push((d.metadata.name.clone(), doc.place(), selector.clone(), spec));
                }
            }
        }
        set.selected = selected
            .into_iter()
            .map(|(name, doc, selector, spec)| Selected { name, doc, selector, spec: over(&set.global, &spec), used: Cell::new(false) })
            .collect();
        set
    }

    /// The defaults of one runtime (`file`: the name of the source it was read from), or the
    /// error when two selected defaults select it.
    pub(super) fn of(&self, runtime: &JaxRuntime, file: &str) -> Result<&DefaultsSpec, Diagnostic> {
        let mut chosen = self.chosen(runtime, file);
        let Some(first) = chosen.next() else { return Ok(&self.global) };
        first.used.set(true);
        let others: Vec<&Selected> = chosen.collect();
        if others.is_empty() {
            return Ok(&first.spec);
        }
        for o in &others {
            o.used.set(true);
        }
        let names: Vec<String> = std::iter::once(first).chain(others).map(|s| format!("`{}` ({})", s.name, s.doc.source.name)).collect();
        Err(Diagnostic::new(
            &CATALOG_DEFAULTS_OVERLAP,
            format!(
                "the runtime is selected by {} JaxRuntimeDefaults: {}; which one applies would depend on the order of the files",
                names.len(),
                names.join(", ")
            ),
        )
        .with_field("metadata.name")
        .with_help(CATALOG_DEFAULTS_OVERLAP.fix))
    }

    /// The selected defaults of a runtime, in file order.
    fn chosen<'a>(&'a self, runtime: &JaxRuntime, file: &str) -> impl Iterator<Item = &'a Selected> {
        self.selected.iter().filter(|s| selects(&s.selector, runtime, file, &s.doc.source.name)).collect::<Vec<_>>().into_iter()
    }

    /// Where the defaults of a runtime are written, the one whose values win first: the selected
    /// one, then the one without a selector (what a finding on a value they set points at).
    pub(super) fn written(&self, runtime: &JaxRuntime, file: &str) -> Vec<(Place, ObjectRef)> {
        let object = |name: &str| ObjectRef::new(Kind::Defaults.name(), name);
        let selected = self.chosen(runtime, file).take(1).map(|s| (s.doc.clone(), object(&s.name)));
        selected.chain(self.global_at.iter().map(|(place, name)| (place.clone(), object(name)))).collect()
    }

    /// A warning for each selector that selected no runtime.
    pub(super) fn unused(&self) -> Vec<Diagnostic> {
        self.selected
            .iter()
            .filter(|s| !s.used.get())
            .map(|s| {
                s.doc.locate(
                    Diagnostic::new(
                        &CATALOG_DEFAULTS_UNUSED,
                        "the selector selects no runtime of the input; these defaults apply to nothing",
                    )
                    .with_field("spec.selector")
                    .with_object(ObjectRef::new(Kind::Defaults.name(), &s.name))
                    .with_help(CATALOG_DEFAULTS_UNUSED.fix),
                )
            })
            .collect()
    }
}

/// The defaults' values, checked; a release or platform the data does not know is reported (once,
/// here) and dropped.
fn checked(spec: &DefaultsSpec, report: &mut impl FnMut(Diagnostic)) -> DefaultsSpec {
    let mut spec = spec.clone();
    if let Some(d) = spec.trainer.as_deref().and_then(super::release::trainer_error) {
        report(d);
        spec.trainer = None;
    }
    if let Some(p) = &spec.platform {
        if let Err(d) = check_platform(p.as_str(), "spec.platform") {
            report(d);
            spec.platform = None;
        }
    }
    super::kubernetes::check_defaults(&spec).into_iter().for_each(&mut *report);
    // What the generator writes on every runtime, whatever its accelerator.
    let always = |k: &str| [keys::SOURCE, keys::ACCELERATOR, keys::TRAINER_VERSION].contains(&k);
    generator_metadata(&spec.labels, &spec.annotations, "spec", &always).into_iter().for_each(&mut *report);
    spec
}

/// Warnings for the labels the generator sets, set here to another value, and the annotations it
/// sets that `replaced` says it replaces (at `prefix.labels.<key>` / `prefix.annotations.<key>`).
pub(super) fn generator_metadata(
    labels: &BTreeMap<String, String>,
    annotations: &BTreeMap<String, String>,
    prefix: &str,
    replaced: &dyn Fn(&str) -> bool,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (key, ours) in generator_labels() {
        if let Some(v) = labels.get(key).filter(|v| *v != ours) {
            out.push(
                Diagnostic::new(
                    &CATALOG_GENERATOR_METADATA,
                    format!("the label `{key}: {v}` is replaced by `{key}: {ours}` on the generated runtimes: the generator sets it"),
                )
                .with_field(format!("{prefix}.labels.{key}"))
                .with_help(CATALOG_GENERATOR_METADATA.fix),
            );
        }
    }
    for key in keys::GENERATOR_ANNOTATIONS.into_iter().filter(|k| replaced(k)) {
        if annotations.contains_key(key) {
            out.push(
                Diagnostic::new(
                    &CATALOG_GENERATOR_METADATA,
                    format!("the annotation `{key}` is replaced on the generated runtimes: the generator sets it"),
                )
                .with_field(format!("{prefix}.annotations.{key}"))
                .with_help(if key == keys::DESCRIPTION {
                    "remove the annotation; the generator writes `spec.description` there"
                } else {
                    CATALOG_GENERATOR_METADATA.fix
                }),
            );
        }
    }
    out
}

/// Label selector operators and keys, as Kubernetes checks them, and name patterns.
fn check_selector(s: &DefaultsSelector, report: &mut impl FnMut(Diagnostic)) {
    let mut out = Vec::new();
    meta::labels(&s.match_labels, &"spec.selector.matchLabels".into(), Scope::Object, &mut out);
    out.into_iter().for_each(&mut *report);
    let ops = &facts().label_selector_operators;
    for (i, r) in s.match_expressions.iter().enumerate() {
        let at = format!("spec.selector.matchExpressions[{i}]");
        let n = r.values.as_ref().map_or(0, Vec::len);
        match ops.get(&r.operator) {
            None => {
                let known: Vec<&str> = ops.keys().map(String::as_str).collect();
                let near =
                    spelling::nearest(&r.operator, known.iter().copied(), 2).map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
                report(
                    Diagnostic::new(
                        &CATALOG_INVALID_VALUE,
                        format!(
                            "`{}` is not a label selector operator (expected one of {}){near}",
                            r.operator,
                            known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                        ),
                    )
                    .with_field(format!("{at}.operator"))
                    .with_help("use one of the accepted values"),
                );
            }
            Some(a) if !a.accepts(n) => report(
                Diagnostic::new(&CATALOG_INVALID_VALUE, format!("`{}` takes {}, not {n}", r.operator, a.describe()))
                    .with_field(format!("{at}.values"))
                    .with_help("give `values` for `In` and `NotIn`, none for `Exists` and `DoesNotExist`"),
            ),
            Some(_) => {}
        }
        if let Err(e) = names::qualified_name(&r.key) {
            report(
                Diagnostic::new(&CATALOG_INVALID_VALUE, format!("`{}` is not a valid label key: it {e}", r.key))
                    .with_field(format!("{at}.key"))
                    .with_help("use a label key, e.g. `team` or `example.com/team`"),
            );
        }
    }
    for (i, n) in s.names.iter().enumerate() {
        if n.is_empty() || !n.chars().all(|c| c == '*' || c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.') {
            report(
                Diagnostic::new(
                    &CATALOG_INVALID_VALUE,
                    format!(
                        "`{n}` cannot match a runtime name: names are lowercase letters, digits, `-` and `.`, with `*` for any characters"
                    ),
                )
                .with_field(format!("spec.selector.names[{i}]"))
                .with_help("write a runtime name, or a pattern such as `team-ml-*`"),
            );
        }
    }
}

/// Whether the selector selects a runtime read from `file`, for defaults read from `own_file`.
fn selects(s: &DefaultsSelector, runtime: &JaxRuntime, file: &str, own_file: &str) -> bool {
    let labels = &runtime.metadata.labels;
    s.match_labels.iter().all(|(k, v)| labels.get(k) == Some(v))
        && s.match_expressions.iter().all(|r| requirement(r, labels))
        && (s.names.is_empty() || s.names.iter().any(|p| glob(p, &runtime.metadata.name)))
        && (!s.same_folder || within_folder(file, own_file))
}

fn requirement(r: &LabelSelectorRequirement, labels: &BTreeMap<String, String>) -> bool {
    let values = r.values.as_deref().unwrap_or_default();
    let value = labels.get(&r.key);
    match r.operator.as_str() {
        "In" => value.is_some_and(|v| values.contains(v)),
        "NotIn" => value.is_none_or(|v| !values.contains(v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        _ => false,
    }
}

/// `*` matches any run of characters; everything else itself.
fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else { return pattern == name };
    if parts.len() == 1 {
        return pattern == name;
    }
    let Some(mut rest) = name.strip_prefix(first) else { return false };
    for m in middle {
        match rest.find(m) {
            Some(i) => rest = &rest[i + m.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Whether `file` is in the folder of `own_file` or below it, comparing the paths as written
/// (`./` and `.` parts left out). A source without a path (`<stdin>`, `<items[0]>`) holds only
/// itself.
fn within_folder(file: &str, own_file: &str) -> bool {
    if own_file.starts_with('<') {
        return file == own_file;
    }
    let parts = |p: &str| -> Vec<String> {
        let p = p.strip_prefix("builtin:").unwrap_or(p);
        p.split(['/', '\\']).filter(|x| !x.is_empty() && *x != ".").map(str::to_string).collect()
    };
    let (mut folder, file) = (parts(own_file), parts(file));
    folder.pop();
    file.len() > folder.len() && file[..folder.len()] == folder[..]
}

/// `over`'s values over `base`'s, merged as a runtime's own values merge over its defaults: scalars
/// replaced, maps by key, env by name, tolerations added, fabric settings field by field.
fn over(base: &DefaultsSpec, over: &DefaultsSpec) -> DefaultsSpec {
    let map = |a: &BTreeMap<String, String>, b: &BTreeMap<String, String>| {
        let mut m = a.clone();
        m.extend(b.iter().map(|(k, v)| (k.clone(), v.clone())));
        m
    };
    let mut env = base.env.clone();
    for e in &over.env {
        match env.iter_mut().find(|x| x.name == e.name) {
            Some(x) => *x = e.clone(),
            None => env.push(e.clone()),
        }
    }
    let mut tolerations = base.tolerations.clone();
    for t in &over.tolerations {
        if !tolerations.contains(t) {
            tolerations.push(t.clone());
        }
    }
    let fabric = match (&over.fabric, &base.fabric) {
        (None, b) => b.clone(),
        (Some(o), None) => Some(o.clone()),
        (Some(_), Some(_)) => Some(super::fabric::merged(over.fabric.as_ref(), base.fabric.as_ref())),
    };
    DefaultsSpec {
        selector: over.selector.clone(),
        trainer: over.trainer.clone().or_else(|| base.trainer.clone()),
        platform: over.platform.clone().or_else(|| base.platform.clone()),
        images: Images(map(&base.images.0, &over.images.0)),
        labels: map(&base.labels, &over.labels),
        annotations: map(&base.annotations, &over.annotations),
        env,
        tolerations,
        node_selector: map(&base.node_selector, &over.node_selector),
        pod_group_policy: over.pod_group_policy.clone().or_else(|| base.pod_group_policy.clone()),
        fabric,
        capacity: match (&base.capacity, &over.capacity) {
            (Some(b), Some(o)) => Some(crate::catalog::Capacity(b.0.iter().chain(&o.0).map(|(k, v)| (k.clone(), v.clone())).collect())),
            (b, o) => o.clone().or_else(|| b.clone()),
        },
        pod_template: super::pod_template::over(base.pod_template.as_ref(), over.pod_template.as_ref()),
    }
}

/// A platform name the accelerator data knows, else an error at `field`.
pub(super) fn check_platform(name: &str, field: &str) -> Result<(), Diagnostic> {
    let d = data();
    match d.platform(name) {
        Ok(_) => Ok(()),
        Err(e) => {
            let names: Vec<&str> = d.platforms.platforms.iter().map(|p| p.name.as_str()).collect();
            let near = spelling::nearest(name, names.iter().copied(), 2).map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default();
            Err(Diagnostic::new(&CATALOG_INVALID_VALUE, format!("{e}{near}")).with_field(field).with_help("use one of the accepted values"))
        }
    }
}

/// The labels the generator sets on every runtime, with their values: a catalog's own value for
/// one of these keys is replaced (a `catalog/generator-metadata` warning).
pub fn generator_labels() -> [(&'static str, &'static str); 2] {
    [(keys::MANAGED_BY, keys::MANAGED_BY_VALUE), (crate::trainer::facts().labels.framework.as_str(), "jax")]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_folders() {
        assert!(glob("team-ml-*", "team-ml-tpu"));
        assert!(glob("*-tpu-*", "jax-tpu-v5e"));
        assert!(glob("exact", "exact") && !glob("exact", "exactly"));
        assert!(!glob("team-ml-*", "team-ai-tpu"));
        assert!(glob("a*b*c", "abc") && !glob("a*bc*c", "abc"));
        assert!(within_folder("catalog/team-a/tpu.yaml", "catalog/team-a/defaults.yaml"));
        assert!(within_folder("./catalog/team-a/x/tpu.yaml", "catalog/team-a/defaults.yaml"));
        assert!(!within_folder("catalog/team-b/tpu.yaml", "catalog/team-a/defaults.yaml"));
        assert!(!within_folder("catalog/team-ab/tpu.yaml", "catalog/team-a/defaults.yaml"));
        assert!(within_folder("tpu.yaml", "defaults.yaml"));
        assert!(!within_folder("x.yaml", "<stdin>") && within_folder("<stdin>", "<stdin>"));
    }
}
