//! Structure without a CRD: the JSON Schema of the project's typed model ([`crate::trainer`], with
//! k8s-openapi's Job and Pod types inside), derived with schemars and closed by the same adapter
//! as CRD schemas ([`super::crd::adapt`]), so an unknown field such as `nodeSelectr` is an error
//! at its path instead of being dropped by serde. Every member of the model is typed, with the
//! enums and bounds of Trainer v2.3.0 and JobSet v0.12.0, so the schema needs no hand-written part.

use std::sync::OnceLock;

use serde_json::{json, Value};

use super::crd;
use crate::diag::Diagnostic;
use crate::rules::validate::SCHEMA_TYPE;
use crate::trainer::{TrainJob, TrainingRuntime};

/// The adapted schema of the typed model (built once).
pub fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(build_schema::<TrainingRuntime>)
}

/// The adapted schema of the typed TrainJob model (built once).
pub fn trainjob_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(build_schema::<TrainJob>)
}

#[allow(clippy::expect_used, reason = "built from the project's own types, not input; a unit test proves it compiles")]
fn trainjob_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    // Built from the project's own types (no input): a unit test proves it compiles.
    VALIDATOR.get_or_init(|| {
        crd::build(trainjob_schema(), jsonschema::Draft::Draft202012).expect("the TrainJob model's schema compiles (unit-tested)")
    })
}

/// Structure findings (`schema/*`) for one TrainJob, field paths relative to the object.
pub fn check_trainjob(value: &Value) -> Vec<Diagnostic> {
    let mut out = crd::findings(trainjob_validator(), trainjob_schema(), value, crd::Structure::Typed);
    if out.iter().all(|d| !d.is_error()) {
        if let Err(e) = serde_path_to_error::deserialize::<_, TrainJob>(value) {
            out.push(Diagnostic::finding(&SCHEMA_TYPE, e.path().to_string().trim_start_matches('.'), e.inner().to_string()));
        }
    }
    out
}

/// The TrainJob as the typed model, if it reads into it.
pub fn typed_trainjob(value: &Value) -> Option<TrainJob> {
    <TrainJob as serde::Deserialize>::deserialize(value).ok()
}

#[allow(clippy::expect_used, reason = "built from the project's own types, not input; a unit test proves it compiles")]
fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    // Built from the project's own types (no input): a unit test proves it compiles.
    VALIDATOR.get_or_init(|| crd::build(schema(), jsonschema::Draft::Draft202012).expect("the typed model's schema compiles (unit-tested)"))
}

/// Structure findings (`schema/*`) for one runtime, field paths relative to the object.
/// `serialized` says the caller made `value` by serializing a typed runtime, so it reads back
/// into the typed model by construction and is not read again.
pub fn check(value: &Value, serialized: bool) -> Vec<Diagnostic> {
    let mut out = crd::findings(validator(), schema(), value, crd::Structure::Typed);
    if !serialized && out.iter().all(|d| !d.is_error()) {
        // The schema and serde agree by construction; if they ever do not, say so rather than
        // skip the later layers silently.
        if let Err(e) = serde_path_to_error::deserialize::<_, TrainingRuntime>(value) {
            out.push(Diagnostic::finding(&SCHEMA_TYPE, e.path().to_string().trim_start_matches('.'), e.inner().to_string()));
        }
    }
    out
}

/// The runtime as the typed model, if it reads into it (the semantic layers work on this).
pub fn typed(value: &Value) -> Option<TrainingRuntime> {
    // Reads from the borrowed tree: no copy of the object.
    <TrainingRuntime as serde::Deserialize>::deserialize(value).ok()
}

fn build_schema<T: schemars::JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut s = serde_json::to_value(generator.into_root_schema_for::<T>()).unwrap_or(Value::Null);
    // Server-managed free-form JSON inside ObjectMeta (`kubectl get -o yaml` output has it).
    if let Some(Value::Object(defs)) = s.get_mut("$defs") {
        for (name, def) in defs.iter_mut() {
            if name.ends_with("FieldsV1") || name.ends_with("RawExtension") {
                def["x-kubernetes-preserve-unknown-fields"] = json!(true);
            }
        }
    }
    strip_null(&mut s);
    relax_required(&mut s);
    crd::adapt(&s)
}

/// Members k8s-openapi's schema requires (Go fields without `omitempty`) that the Trainer v2.3.0
/// CRDs do not: the `name` of the local object references (`+optional`, `default: ""` in the
/// CRD), the `status` of a pod-failure condition pattern (`+optional`, default `True`), and the
/// `metadata` of a PVC template. A `required` the CRD lacks would be an error on an object the
/// API server accepts; tests/validate.rs `the_builtin_model_requires_and_types_what_the_reference_crds_do`
/// compares every node with the reference CRDs.
const NOT_REQUIRED: [(&str, &str); 10] = [
    ("io.k8s.api.core.v1.LocalObjectReference", "name"),
    ("io.k8s.api.core.v1.ConfigMapEnvSource", "name"),
    ("io.k8s.api.core.v1.ConfigMapKeySelector", "name"),
    ("io.k8s.api.core.v1.ConfigMapProjection", "name"),
    ("io.k8s.api.core.v1.ConfigMapVolumeSource", "name"),
    ("io.k8s.api.core.v1.SecretEnvSource", "name"),
    ("io.k8s.api.core.v1.SecretKeySelector", "name"),
    ("io.k8s.api.core.v1.SecretProjection", "name"),
    ("io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern", "status"),
    ("io.k8s.api.core.v1.PersistentVolumeClaim", "metadata"),
];

fn relax_required(s: &mut Value) {
    for (def, field) in NOT_REQUIRED {
        if let Some(Value::Array(required)) = s.pointer_mut(&format!("/$defs/{def}/required")) {
            required.retain(|r| r != field);
        }
    }
}

/// schemars writes `Option<T>` as "T or null". The API server drops null values of fields that
/// are not nullable instead; so the schema says T, and a null is reported as dropped. This also
/// keeps errors inside an optional object at their own path instead of an `anyOf` at its parent.
fn strip_null(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(any)) = m.get("anyOf") {
                let is_null = |s: &Value| s.get("type").and_then(Value::as_str) == Some("null");
                let other = any.iter().find(|s| !is_null(s)).cloned();
                if let (2, 1, Some(other)) = (any.len(), any.iter().filter(|s| is_null(s)).count(), other) {
                    m.remove("anyOf");
                    if let Value::Object(o) = other {
                        for (k, x) in o {
                            m.entry(k).or_insert(x);
                        }
                    }
                }
            }
            if let Some(Value::Array(types)) = m.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let t = types[0].clone();
                    m.insert("type".into(), t);
                }
            }
            m.values_mut().for_each(strip_null);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_null),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_schema_compiles_and_closes_objects() {
        let s = schema();
        assert_eq!(s.pointer("/$defs/JobSetSpec/additionalProperties"), Some(&json!(false)));
        let _ = validator();
        assert_eq!(trainjob_schema().pointer("/$defs/Trainer/additionalProperties"), Some(&json!(false)));
        let _ = trainjob_validator();
    }

    #[test]
    fn typed_members_carry_the_crd_enums_and_bounds() {
        let s = schema();
        assert_eq!(s.pointer("/$defs/SuccessPolicy/properties/operator/enum"), Some(&json!(["All", "Any"])));
        assert_eq!(s.pointer("/$defs/ReplicatedJob/properties/dependsOn/maxItems"), Some(&json!(5)));
        assert_eq!(s.pointer("/$defs/NetworkTopology/properties/mode/enum"), Some(&json!(["hard", "soft"])));
        assert_eq!(s.pointer("/$defs/JaxPolicy/additionalProperties"), Some(&json!(false)), "jax: {{}} takes no field");
        assert!(s.pointer("/$defs/Network/properties/enableDNSHostnames").is_some());
    }
}
