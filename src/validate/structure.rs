//! Structure without `--crd`: the schemas of each Trainer release's own CRDs, embedded from
//! `catalog/schemas/trainer/` (descriptions dropped; `UPDATE_SCHEMAS=1 cargo test --test schemas`
//! writes them from the upstream CRDs) and closed by the adapter that `--crd` uses
//! ([`super::crd::adapt`]), so the default judge is the schema the API server of that release
//! judges by: an unknown field such as `nodeSelectr` is an error at its path, and every pod field
//! of the release (`hostnameOverride`, `schedulingGroup`; `workloadRef` in v2.2.0 only) is known.
//! The typed model ([`crate::trainer`]) is what later layers read, not the judge.

use std::sync::OnceLock;

use serde_json::Value;

use super::crd;
use crate::diag::Diagnostic;
use crate::rules::validate::ADMISSION_DECODE;
use crate::trainer::{TrainJob, TrainingRuntime};

/// The Trainer releases whose CRD schemas are embedded, oldest first, with their data.
const RELEASES: [(&str, &str); 7] = [
    ("v2.0.0", include_str!("../../catalog/schemas/trainer/v2.0.0.json")),
    ("v2.0.1", include_str!("../../catalog/schemas/trainer/v2.0.1.json")),
    ("v2.1.0", include_str!("../../catalog/schemas/trainer/v2.1.0.json")),
    ("v2.2.0", include_str!("../../catalog/schemas/trainer/v2.2.0.json")),
    ("v2.2.1", include_str!("../../catalog/schemas/trainer/v2.2.1.json")),
    ("v2.3.0", include_str!("../../catalog/schemas/trainer/v2.3.0.json")),
    ("next", include_str!("../../catalog/schemas/trainer/next.json")),
];

pub use crate::trainer::releases::{release, releases, DEFAULT_RELEASE};

/// The embedded file of the release `name` (as [`release`] names it; `None` for one that is not
/// embedded): its kinds, their versions and the CRD schemas, as `catalog/schemas/trainer/` holds them.
pub fn release_file(name: &str) -> Option<&'static str> {
    RELEASES.iter().find(|(r, _)| *r == name).map(|(_, data)| *data)
}

/// Whether the embedded file of release `name` holds `text` (a rule's text or message: how a
/// check finds out that the release has the rule). Looked up once per release and text.
pub fn release_has(name: &str, text: &'static str) -> bool {
    type Seen = std::collections::HashMap<(&'static str, &'static str), bool>;
    static SEEN: std::sync::Mutex<Option<Seen>> = std::sync::Mutex::new(None);
    let Some(&(release, data)) = RELEASES.iter().find(|(r, _)| *r == name) else { return false };
    let mut seen = SEEN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    *seen.get_or_insert_with(Default::default).entry((release, text)).or_insert_with(|| data.contains(text))
}

/// A release's schemas, adapted and compiled.
struct Compiled {
    /// The CEL rules of the runtime kinds' schema (the engine `--crd` uses).
    runtime_cel: crd::CelOnly,
    runtime: Value,
    runtime_validator: jsonschema::Validator,
    trainjob: Value,
    trainjob_validator: jsonschema::Validator,
}

/// The compiled schemas of the embedded release `name` (built once, on first use); the default
/// release's for a name that is not embedded.
#[allow(clippy::expect_used, reason = "embedded data, not input; a unit test proves every release compiles")]
fn compiled(name: &str) -> &'static Compiled {
    static CACHE: [OnceLock<Compiled>; 7] = [const { OnceLock::new() }; 7];
    let at = |n: &str| RELEASES.iter().position(|(r, _)| *r == n);
    let i = at(name).or_else(|| at(DEFAULT_RELEASE)).unwrap_or_default();
    CACHE[i].get_or_init(|| {
        let data: Value = serde_json::from_str(RELEASES[i].1).unwrap_or(Value::Null);
        let adapted = |key: &str| crd::adapt(data.pointer(&format!("/schemas/{key}")).unwrap_or(&Value::Null));
        let (runtime, trainjob) = (adapted("runtime"), adapted("trainjob"));
        let runtime_cel = crd::Version::cel_only(data.pointer("/schemas/runtime").unwrap_or(&Value::Null));
        let build = |s: &Value| crd::build(s, jsonschema::Draft::Draft4).expect("an embedded release's schema compiles (unit-tested)");
        Compiled { runtime_validator: build(&runtime), trainjob_validator: build(&trainjob), runtime, trainjob, runtime_cel }
    })
}

/// The adapted schema of the runtime kinds of the default release.
pub fn schema() -> &'static Value {
    &compiled(DEFAULT_RELEASE).runtime
}

/// The adapted schema of TrainJob of the default release.
pub fn trainjob_schema() -> &'static Value {
    &compiled(DEFAULT_RELEASE).trainjob
}

/// Structure findings (`schema/*`) for one TrainJob against the schema of `release` (an embedded
/// one, see [`release`]), field paths relative to the object.
pub fn check_trainjob(value: &Value, release: &str) -> Vec<Diagnostic> {
    let c = compiled(release);
    name_releases(crd::findings(&c.trainjob_validator, &c.trainjob, value, crd::Structure::Typed), "trainjob", release)
}

/// The embedded releases other than `release` whose schema `key` (`runtime`, `trainjob`) has the
/// field at `path` (`spec.mlPolicy.jax`, `...containers[0].name`).
fn releases_with(path: &str, key: &str, release: &str) -> Vec<&'static str> {
    let has = |schema: &Value| {
        let mut at = schema;
        for segment in path.split('.') {
            let (name, items) = match segment.find('[') {
                Some(i) => (&segment[..i], segment[i..].matches('[').count()),
                None => (segment, 0),
            };
            let Some(next) = at.get("properties").and_then(|p| p.get(name)) else { return false };
            at = next;
            for _ in 0..items {
                let Some(item) = at.get("items") else { return false };
                at = item;
            }
        }
        true
    };
    releases()
        .filter(|r| *r != release)
        .filter(|r| has(if key == "runtime" { &compiled(r).runtime } else { &compiled(r).trainjob }))
        .collect()
}

/// The embedded releases whose trainer pods have the pod spec field `path`
/// (`schedulingGroup.podGroupName`).
pub fn pod_field_releases(path: &str) -> Vec<&'static str> {
    releases_with(&format!("spec.template.spec.replicatedJobs[0].template.spec.template.spec.{path}"), "runtime", "")
}

/// An unknown field another embedded release has: say which (it is the release that is wrong, not
/// the spelling).
fn name_releases(mut found: Vec<Diagnostic>, key: &str, release: &str) -> Vec<Diagnostic> {
    for d in found.iter_mut().filter(|d| d.rule.id == "schema/unknown-field") {
        let Some(path) = d.field.as_deref() else { continue };
        let with = releases_with(path, key, release);
        if !with.is_empty() {
            let verb = if with.len() == 1 { "does" } else { "do" };
            d.message = format!("{}; Trainer {release}'s schema has no such field, {} {verb}", d.message, with.join(", "));
            d.help = Some(format!(
                "if your cluster runs one of those releases, say so with `--trainer-version` (or the runtime's `{}` annotation); else remove the field",
                crate::keys::TRAINER_VERSION
            ));
        }
    }
    found
}

/// The TrainJob as the typed model, if it reads into it.
pub fn typed_trainjob(value: &Value) -> Option<TrainJob> {
    decoded(value).ok()
}

/// Structure findings (`schema/*`) for one runtime against the schema of `release` (an embedded
/// one, see [`release`]), field paths relative to the object.
pub fn check(value: &Value, release: &str) -> Vec<Diagnostic> {
    let c = compiled(release);
    name_releases(crd::findings(&c.runtime_validator, &c.runtime, value, crd::Structure::Typed), "runtime", release)
}

/// The CEL findings (`cel/rule`, `cel/unevaluated`) of one runtime under the rules of `release`'s
/// own schema, evaluated as `--crd` evaluates a CRD's.
pub fn check_cel(value: &Value, release: &str) -> Vec<Diagnostic> {
    compiled(release).runtime_cel.check(value)
}

/// The runtime as the typed model, if it reads into it (the semantic layers work on this).
pub fn typed(value: &Value) -> Option<TrainingRuntime> {
    decoded(value).ok()
}

/// The object as Trainer's Go types read what the API server stored (after the schema, whichever
/// schema judged it: the embedded one or a `--crd` file): the typed model the later layers work
/// on, or `admission/decode` at the field that does not read. The schema bounds no `int32`
/// (`format` is not checked on integers), so an object the server stores can still fail here.
pub fn decoded<T: serde::de::DeserializeOwned>(value: &Value) -> Result<T, Diagnostic> {
    let stored = crd::stored(value);
    // Reads from the borrowed tree: no copy of the object (but one without its nulls).
    match T::deserialize(stored.as_ref()) {
        Ok(t) => Ok(t),
        Err(_) => {
            let e = match serde_path_to_error::deserialize::<_, T>(stored.as_ref()) {
                Err(e) => e,
                Ok(t) => return Ok(t),
            };
            let field = e.path().to_string().trim_start_matches('.').to_string();
            Err(Diagnostic::finding(
                &ADMISSION_DECODE,
                field,
                format!(
                    "{}: the CRD's schema allows it, so the API server stores it, but Trainer's Go types cannot read it; Trainer's admission webhook refuses the object (\"unable to decode\")",
                    e.inner()
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_release_names_are_the_embedded_files() {
        let embedded: Vec<&str> = RELEASES.iter().map(|(name, _)| *name).collect();
        assert_eq!(embedded, crate::trainer::releases::NAMES);
    }

    #[test]
    fn every_embedded_release_compiles_and_closes_objects() {
        for r in releases() {
            let c = compiled(r);
            let closed = Some(&serde_json::json!(false));
            assert_eq!(c.runtime.pointer("/properties/spec/properties/template/properties/spec/additionalProperties"), closed, "{r}");
            assert_eq!(c.trainjob.pointer("/properties/spec/properties/trainer/additionalProperties"), closed, "{r}");
        }
        assert_eq!(releases().count(), RELEASES.len());
    }

    #[test]
    fn a_release_is_named_exactly_or_by_its_minor() {
        for (name, want) in [
            ("v2.2.0", "v2.2.0"),
            ("2.2.0", "v2.2.0"),
            ("v2.2", "v2.2.1"),
            ("2.3", "v2.3.0"),
            ("v2.0", "v2.0.1"),
            ("next", "next"),
            (" v2.1 ", "v2.1.0"),
        ] {
            assert_eq!(release(name).as_deref(), Ok(want), "{name}");
        }
        for bad in ["v2.2.7", "v2", "v3.0", "v2.22", "latest", ""] {
            let e = release(bad).unwrap_err();
            assert!(e.contains("v2.0.0, v2.0.1, v2.1.0, v2.2.0, v2.2.1, v2.3.0, next"), "{bad}: {e}");
        }
    }

    #[test]
    fn each_release_knows_its_own_pod_fields() {
        let rt = |pod: &str| {
            serde_json::from_str::<Value>(&format!(
                r#"{{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime","metadata":{{"name":"a"}},"spec":{{"mlPolicy":{{"numNodes":1}},"template":{{"spec":{{"replicatedJobs":[{{"name":"node","template":{{"spec":{{"template":{{"spec":{{"containers":[{{"name":"node","image":"x"}}],{pod}}}}}}}}}}}]}}}}}}}}"#
            ))
            .unwrap()
        };
        let errors = |pod: &str, release: &str| -> Vec<String> {
            check(&rt(pod), release).into_iter().filter(|d| d.is_error()).map(|d| format!("{} {}", d.rule.id, d.message)).collect()
        };
        let unknown = |pod: &str, release: &str| errors(pod, release).iter().any(|e| e.starts_with("schema/unknown-field"));
        for field in [r#""hostnameOverride":"h""#, r#""schedulingGroup":{"podGroupName":"g1"}"#] {
            assert_eq!(errors(field, DEFAULT_RELEASE), Vec::<String>::new(), "{field}");
        }
        assert!(unknown(r#""nodeSelectr":{}"#, DEFAULT_RELEASE));
        // `workloadRef` is v2.2.0's, `schedulingGroup` v2.2.1's and later, `hostnameOverride`
        // v2.1.0's and later.
        let workload_ref = r#""workloadRef":{"name":"w","podGroup":"g"}"#;
        assert_eq!(errors(workload_ref, "v2.2.0"), Vec::<String>::new());
        assert!(unknown(workload_ref, "v2.2.1"));
        assert!(unknown(r#""schedulingGroup":{"podGroupName":"g1"}"#, "v2.2.0"));
        assert!(unknown(r#""hostnameOverride":"h""#, "v2.0.1"));
        let said = errors(r#""hostnameOverride":"h""#, "v2.0.1").join("\n");
        assert!(said.contains("Trainer v2.0.1's schema has no such field, v2.1.0, v2.2.0, v2.2.1, v2.3.0, next do"), "{said}");
        assert!(!errors(r#""nodeSelectr":{}"#, DEFAULT_RELEASE).join("\n").contains("schema has no such field"), "a typo is a typo");
        assert_eq!(errors(r#""hostnameOverride":"h""#, "v2.1.0"), Vec::<String>::new());
    }
}
