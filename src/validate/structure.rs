//! Structure without a CRD: the JSON Schema of the project's typed model ([`crate::trainer`], with
//! k8s-openapi's Job and Pod types inside), generated with schemars and closed by the same
//! adapter as CRD schemas ([`super::crd::adapt`]), so an unknown field such as `nodeSelectr` is
//! an error at its path instead of being dropped by serde.
//!
//! The typed model keeps the JobSet and ML-policy members the generator never writes as raw
//! JSON; their shapes are described here (field names, enums and bounds of Trainer v2.3.0 and
//! JobSet v0.12.0) so hand-written runtimes are checked there too.

use std::sync::OnceLock;

use k8s_openapi::api::core::v1::PersistentVolumeClaim;
use serde_json::{json, Value};

use super::crd;
use crate::diag::Diagnostic;
use crate::trainer::TrainingRuntime;

/// The adapted schema of the typed model (built once).
pub fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(build_schema)
}

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| crd::build(schema(), jsonschema::Draft::Draft202012).expect("the typed model's schema compiles"))
}

/// Structure findings (`schema/*`) for one runtime, field paths relative to the object.
/// `serialized` says the caller made `value` by serializing a typed runtime, so it reads back
/// into the typed model by construction and is not read again.
pub fn check(value: &Value, serialized: bool) -> Vec<Diagnostic> {
    let mut out = crd::findings(validator(), value, "schema");
    if !serialized && out.iter().all(|d| !d.is_error()) {
        // The schema and serde agree by construction; if they ever do not, say so rather than
        // skip the later layers silently.
        if let Err(e) = serde_path_to_error::deserialize::<_, TrainingRuntime>(value) {
            out.push(super::finding("schema/type", e.path().to_string().trim_start_matches('.'), e.inner().to_string()));
        }
    }
    out
}

/// The runtime as the typed model, if it reads into it (the semantic layers work on this).
pub fn typed(value: &Value) -> Option<TrainingRuntime> {
    // Reads from the borrowed tree: no copy of the object.
    <TrainingRuntime as serde::Deserialize>::deserialize(value).ok()
}

fn build_schema() -> Value {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let root = generator.root_schema_for::<TrainingRuntime>();
    let pvc = generator.subschema_for::<PersistentVolumeClaim>();
    let mut s = serde_json::to_value(&root).expect("schema serializes");
    // Definitions added while making the PVC subschema.
    if let Value::Object(defs) = s.get_mut("$defs").expect("the typed model has definitions") {
        for (k, v) in generator.take_definitions(true) {
            defs.entry(k).or_insert(v);
        }
    }
    let pvc = serde_json::to_value(&pvc).expect("schema serializes");
    overlay(&mut s, pvc);
    strip_null(&mut s);
    crd::adapt(&s)
}

/// Replaces the untyped (`serde_json::Value`) members of the typed model with their API shapes.
fn overlay(s: &mut Value, pvc: Value) {
    let obj = |props: Value| json!({"type": "object", "properties": props});
    let obj_req = |props: Value, req: Value| json!({"type": "object", "properties": props, "required": req});
    let strings = json!({"type": "array", "items": {"type": "string"}});
    let int = json!({"type": "integer", "format": "int32"});
    let set = |s: &mut Value, def: &str, prop: &str, schema: Value| {
        let slot = s
            .pointer_mut(&format!("/$defs/{def}/properties/{prop}"))
            .unwrap_or_else(|| panic!("typed model has no {def}.{prop}; update validate/structure.rs"));
        *slot = schema;
    };

    set(
        s,
        "TrainingRuntimeSpec",
        "podGroupPolicy",
        obj(json!({
            "coscheduling": obj(json!({"scheduleTimeoutSeconds": int})),
            "volcano": obj(json!({"networkTopology": obj(json!({
                "mode": {"type": "string", "enum": ["hard", "soft"]},
                "highestTierAllowed": {"type": "integer"},
            }))})),
        })),
    );
    set(s, "MlPolicy", "jax", obj(json!({})));
    set(s, "MlPolicy", "xgboost", obj(json!({})));
    set(s, "MlPolicy", "flux", obj(json!({"numProcPerNode": int})));
    set(
        s,
        "MlPolicy",
        "mpi",
        obj(json!({
            "numProcPerNode": int,
            "mpiImplementation": {"type": "string", "enum": ["OpenMPI", ""]},
            "sshAuthMountPath": {"type": "string", "maxLength": 4096},
            "runLauncherAsNode": {"type": "boolean"},
        })),
    );
    set(
        s,
        "MlPolicy",
        "torch",
        obj(json!({"envInjection": obj(json!({"targets": {
            "type": "array", "maxItems": 16,
            "items": obj_req(json!({
                "jobName": {"type": "string", "minLength": 1, "maxLength": 253},
                "containerNames": {"type": "array", "minItems": 1, "maxItems": 8, "items": {"type": "string", "maxLength": 63}},
            }), json!(["jobName", "containerNames"])),
        }}))})),
    );
    set(
        s,
        "JobSetTemplateSpec",
        "metadata",
        obj(json!({
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
            "name": {"type": "string"},
            "namespace": {"type": "string"},
            "finalizers": strings,
        })),
    );
    set(
        s,
        "JobSetSpec",
        "network",
        obj(json!({
            "enableDNSHostnames": {"type": "boolean"},
            "publishNotReadyAddresses": {"type": "boolean"},
            "subdomain": {"type": "string"},
        })),
    );
    set(
        s,
        "JobSetSpec",
        "successPolicy",
        obj_req(
            json!({
                "operator": {"type": "string", "enum": ["All", "Any"]},
                "targetReplicatedJobs": strings,
            }),
            json!(["operator"]),
        ),
    );
    set(
        s,
        "JobSetSpec",
        "failurePolicy",
        obj(json!({
            "maxRestarts": int,
            "restartStrategy": {"type": "string", "enum": ["Recreate", "BlockingRecreate", "InPlaceRestart"]},
            "rules": {"type": "array", "items": obj_req(json!({
                "name": {"type": "string"},
                "action": {"type": "string", "enum": ["FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts", "RestartJob", "RestartJobAndIgnoreMaxRestarts"]},
                "onJobFailureReasons": strings,
                "onJobFailureMessagePatterns": strings,
                "targetReplicatedJobs": strings,
            }), json!(["name", "action"]))},
        })),
    );
    set(
        s,
        "JobSetSpec",
        "startupPolicy",
        obj_req(
            json!({
                "startupPolicyOrder": {"type": "string", "enum": ["AnyOrder", "InOrder"]},
            }),
            json!(["startupPolicyOrder"]),
        ),
    );
    set(
        s,
        "JobSetSpec",
        "coordinator",
        obj_req(
            json!({
                "replicatedJob": {"type": "string"},
                "jobIndex": {"type": "integer"},
                "podIndex": {"type": "integer"},
            }),
            json!(["replicatedJob"]),
        ),
    );
    set(
        s,
        "JobSetSpec",
        "volumeClaimPolicies",
        json!({"type": "array", "items": obj(json!({
            "templates": {"type": "array", "items": pvc},
            "retentionPolicy": obj(json!({"whenDeleted": {"type": "string", "enum": ["Delete", "Retain"]}})),
        }))}),
    );
    set(
        s,
        "ReplicatedJob",
        "dependsOn",
        json!({"type": "array", "maxItems": 5, "items": obj_req(json!({
        "name": {"type": "string"},
        "status": {"type": "string", "enum": ["Ready", "Complete"]},
    }), json!(["name", "status"]))}),
    );
    // Server-managed free-form JSON inside ObjectMeta (`kubectl get -o yaml` output has it).
    if let Some(Value::Object(defs)) = s.get_mut("$defs") {
        for (name, def) in defs.iter_mut() {
            if name.ends_with("FieldsV1") || name.ends_with("RawExtension") {
                def["x-kubernetes-preserve-unknown-fields"] = json!(true);
            }
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
                if any.len() == 2 && any.iter().filter(|s| is_null(s)).count() == 1 {
                    let other = any.iter().find(|s| !is_null(s)).cloned().expect("one is not null");
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
    }
}
