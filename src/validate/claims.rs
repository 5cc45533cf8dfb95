//! DRA claims of runtimes, against their pods and the ResourceClaimTemplates among the documents:
//! a container claim the pod does not declare (`dra/claim-not-in-pod`, refused by the API server
//! when the Job creates the pods), a pod claim whose template is not among the documents
//! (`dra/template-not-given`: it may exist in the cluster), and a template that does not request
//! the DeviceClass of the runtime's DRA fabric (`dra/device-class`; the fabric is the one the
//! runtime's `jax-runtimes.dev/interconnect` annotation names).
//!
//! Input: documents; output: findings placed in their files.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::accelerators::data;
use crate::diag::{Diagnostic, FieldPath};
use crate::keys::INTERCONNECT;
use crate::read::Document;
use crate::rules::interconnect::{DRA_CLAIM_NOT_IN_POD, DRA_DEVICE_CLASS, DRA_TEMPLATE_NOT_GIVEN};
use crate::trainer::{paths, TrainingRuntime};

/// The kind and API group of the templates.
const KIND: &str = "ResourceClaimTemplate";
const GROUP: &str = "resource.k8s.io/";

/// A template among the documents: its namespace (none: the one it is applied in), and the
/// DeviceClasses its requests name (`exactly` and `firstAvailable` alike).
struct Template<'a> {
    doc: &'a Document,
    namespace: Option<&'a str>,
    classes: Vec<&'a str>,
}

/// A ResourceClaimTemplate (any version of `resource.k8s.io`): what the runtimes' claims are
/// checked against.
pub fn is_template(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str) == Some(KIND) && v.get("apiVersion").and_then(Value::as_str).is_some_and(|a| a.starts_with(GROUP))
}

fn templates(docs: &[Document]) -> BTreeMap<&str, Vec<Template<'_>>> {
    let mut out: BTreeMap<&str, Vec<Template<'_>>> = BTreeMap::new();
    for doc in docs {
        let v = &doc.value;
        let Some(name) = v.pointer("/metadata/name").and_then(Value::as_str).filter(|_| is_template(v)) else { continue };
        let requests = v.pointer("/spec/spec/devices/requests").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let classes = requests
            .iter()
            .flat_map(|r| {
                // v1: `exactly.deviceClassName` or `firstAvailable[].deviceClassName`; v1beta1: `deviceClassName`.
                let exact = r.pointer("/exactly/deviceClassName").or_else(|| r.get("deviceClassName"));
                let alternatives =
                    r.get("firstAvailable").and_then(Value::as_array).into_iter().flatten().filter_map(|a| a.get("deviceClassName"));
                exact.into_iter().chain(alternatives).filter_map(Value::as_str)
            })
            .collect();
        let namespace = v.pointer("/metadata/namespace").and_then(Value::as_str);
        out.entry(name).or_default().push(Template { doc, namespace, classes });
    }
    out
}

pub fn check(docs: &[Document]) -> Vec<Diagnostic> {
    let templates = templates(docs);
    let mut out = Vec::new();
    for doc in docs.iter().filter(|d| crate::trainer::is_runtime(&d.value)) {
        // A runtime that does not read is reported by the structure checks.
        let Ok(rt) = serde_json::from_value::<TrainingRuntime>(doc.value.clone()) else { continue };
        let object = crate::diag::ObjectRef::of(&doc.value);
        let namespace = rt.metadata.namespace.as_deref();
        let fabric = rt.metadata.annotations.as_ref().and_then(|a| a.get(INTERCONNECT)).and_then(|n| data().fabrics.by_name(n));
        for (i, job) in rt.spec.template.spec.replicated_jobs.iter().enumerate() {
            let Some(pod) = job.template.spec.as_ref().and_then(|s| s.template.spec.as_ref()) else { continue };
            let base = paths::pod_template(i).field("spec");
            let claims = pod.resource_claims.as_deref().unwrap_or_default();
            let containers = pod
                .containers
                .iter()
                .enumerate()
                .map(|(j, c)| (base.field("containers").index(j), c))
                .chain(pod.init_containers.iter().flatten().enumerate().map(|(j, c)| (base.field("initContainers").index(j), c)));
            for (at, c) in containers {
                let used = c.resources.as_ref().and_then(|r| r.claims.as_deref()).unwrap_or_default();
                for (k, u) in used.iter().enumerate() {
                    if claims.iter().any(|p| p.name == u.name) {
                        continue;
                    }
                    let declared = claims.iter().map(|p| format!("`{}`", p.name)).collect::<Vec<_>>();
                    let message = format!(
                        "container `{}` uses resource claim `{}`, which the pod does not declare in `spec.resourceClaims` ({}): the API server refuses the pods the Job makes",
                        c.name,
                        u.name,
                        if declared.is_empty() { "it declares none".to_string() } else { format!("it declares {}", declared.join(", ")) }
                    );
                    let field = at.field("resources").field("claims").index(k).field("name");
                    out.push(doc.locate(Diagnostic::finding(&DRA_CLAIM_NOT_IN_POD, field, message).with_object(object.clone())));
                }
            }
            for (k, claim) in claims.iter().enumerate() {
                let Some(name) = claim.resource_claim_template_name.as_deref() else { continue };
                let field: FieldPath = base.field("resourceClaims").index(k).field("resourceClaimTemplateName");
                // A template of the runtime's namespace, or one without a namespace (applied where
                // the TrainJobs run), serves the claim.
                let found: Vec<&Template> = templates
                    .get(name)
                    .map(|ts| ts.iter().filter(|t| t.namespace.is_none() || namespace.is_none() || t.namespace == namespace).collect())
                    .unwrap_or_default();
                if found.is_empty() {
                    out.push(
                        doc.locate(
                            Diagnostic::finding(
                                &DRA_TEMPLATE_NOT_GIVEN,
                                field,
                                format!(
                                    "pod claim `{}` is made from ResourceClaimTemplate `{name}`, which is not among the objects checked; unless it exists in every namespace that runs TrainJobs of the runtime, their pods stay Pending",
                                    claim.name
                                ),
                            )
                            .with_object(object.clone()),
                        ),
                    );
                    continue;
                }
                let Some(want) = fabric.and_then(|f| f.claims.iter().find(|c| c.name == claim.name)) else { continue };
                for t in found.iter().filter(|t| !t.classes.contains(&want.device_class_name.as_str())) {
                    let has = if t.classes.is_empty() {
                        "names no DeviceClass".to_string()
                    } else {
                        format!("requests {}", t.classes.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", "))
                    };
                    let message = format!(
                        "ResourceClaimTemplate `{name}` of pod claim `{}` {has}, but the runtime's fabric {} (`{}`) claims DeviceClass `{}`: the pods get other devices than the fabric's NICs, or none",
                        claim.name,
                        fabric.map(|f| f.title.as_str()).unwrap_or_default(),
                        fabric.map(|f| f.name.as_str()).unwrap_or_default(),
                        want.device_class_name
                    );
                    out.push(
                        t.doc.locate(
                            Diagnostic::finding(&DRA_DEVICE_CLASS, "spec.spec.devices.requests", message)
                                .with_object(crate::diag::ObjectRef::of(&t.doc.value)),
                        ),
                    );
                }
            }
        }
    }
    out
}
