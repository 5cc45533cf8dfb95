//! DRA claims of runtimes, against their pods and the ResourceClaimTemplates among the documents:
//! a container claim the pod does not declare (`dra/claim-not-in-pod`, refused by the API server
//! when the Job creates the pods), a pod claim whose template is not among the documents
//! (`dra/template-not-given`: it may exist in the cluster), and a template that does not request
//! the DeviceClass of the runtime's DRA fabric (`dra/device-class`; the fabric is the one the
//! runtime's `jax-runtimes.dev/interconnect` annotation names). A ComputeDomain among the documents
//! (NVIDIA DRA driver, `resource.nvidia.com`) serves the claim of its channel, whose template the
//! driver creates; a runtime whose fabric needs one and claims no channel, or a ComputeDomain that
//! expects fewer nodes than the runtime claiming its channel runs, is `dra/compute-domain`.
//!
//! Input: documents; output: findings placed in their files.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::accelerators::data;
use crate::diag::{Diagnostic, FieldPath};
use crate::keys::INTERCONNECT;
use crate::read::Document;
use crate::rules::interconnect::{DRA_CLAIM_NOT_IN_POD, DRA_COMPUTE_DOMAIN, DRA_DEVICE_CLASS, DRA_TEMPLATE_NOT_GIVEN};
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

/// An NVIDIA ComputeDomain (any version of `resource.nvidia.com`).
pub fn is_compute_domain(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str) == Some("ComputeDomain")
        && v.get("apiVersion").and_then(Value::as_str).is_some_and(|a| a.starts_with("resource.nvidia.com/"))
}

/// A ComputeDomain among the documents, by the name of its channel's template.
struct Domain<'a> {
    doc: &'a Document,
    name: &'a str,
    namespace: Option<&'a str>,
    num_nodes: i64,
}

fn domains(docs: &[Document]) -> BTreeMap<&str, Vec<Domain<'_>>> {
    let mut out: BTreeMap<&str, Vec<Domain<'_>>> = BTreeMap::new();
    for doc in docs.iter().filter(|d| is_compute_domain(&d.value)) {
        let v = &doc.value;
        let Some(channel) = v.pointer("/spec/channel/resourceClaimTemplate/name").and_then(Value::as_str) else { continue };
        let name = v.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
        let namespace = v.pointer("/metadata/namespace").and_then(Value::as_str);
        let num_nodes = v.pointer("/spec/numNodes").and_then(Value::as_i64).unwrap_or(0);
        out.entry(channel).or_default().push(Domain { doc, name, namespace, num_nodes });
    }
    out
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
    let domains = domains(docs);
    let mut out = Vec::new();
    for doc in docs.iter().filter(|d| crate::trainer::is_runtime(&d.value)) {
        // A runtime that does not read is reported by the structure checks.
        let Ok(rt) = serde_json::from_value::<TrainingRuntime>(doc.value.clone()) else { continue };
        let object = crate::diag::ObjectRef::of(&doc.value);
        let namespace = rt.metadata.namespace.as_deref();
        let fabric = rt.metadata.annotations.as_ref().and_then(|a| a.get(INTERCONNECT)).and_then(|n| data().fabrics.by_name(n));
        let num_nodes = rt.spec.ml_policy.as_ref().and_then(|m| m.num_nodes).unwrap_or(1);
        for (i, job) in rt.spec.template.spec.replicated_jobs.iter().enumerate() {
            let Some(pod) = job.template.spec.as_ref().and_then(|s| s.template.spec.as_ref()) else { continue };
            let base = paths::pod_template(i).field("spec");
            let claims = pod.resource_claims.as_deref().unwrap_or_default();
            if let Some(d) = fabric.and_then(|f| f.compute_domain.as_ref()).filter(|_| i == 0) {
                if !claims.iter().any(|c| c.name == d.claim) {
                    let f = fabric.map(|f| (f.title.as_str(), f.name.as_str())).unwrap_or_default();
                    let message = format!(
                        "the runtime's fabric {} (`{}`) needs the IMEX channel of an NVIDIA ComputeDomain, claimed as `{}`, and the pod does not claim it: multi-node NVLink between the nodes stays off",
                        f.0, f.1, d.claim
                    );
                    out.push(doc.locate(
                        Diagnostic::finding(&DRA_COMPUTE_DOMAIN, base.field("resourceClaims"), message).with_object(object.clone()),
                    ));
                }
            }
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
                // The channel of a ComputeDomain given with the runtime: the driver makes its template.
                let served: Vec<&Domain> = domains
                    .get(name)
                    .map(|ds| ds.iter().filter(|d| d.namespace.is_none() || namespace.is_none() || d.namespace == namespace).collect())
                    .unwrap_or_default();
                if found.is_empty() && !served.is_empty() {
                    for d in served.iter().filter(|d| d.num_nodes > 0 && d.num_nodes < i64::from(num_nodes)) {
                        let message = format!(
                            "ComputeDomain `{}` expects {} node(s) (`spec.numNodes`), but runtime `{}`, whose pod claim `{}` is its channel, runs {num_nodes}: a driver that gates on `numNodes` holds the pods of the nodes beyond it",
                            d.name,
                            d.num_nodes,
                            object.name,
                            claim.name
                        );
                        out.push(
                            d.doc.locate(
                                Diagnostic::finding(&DRA_COMPUTE_DOMAIN, "spec.numNodes", message)
                                    .with_object(crate::diag::ObjectRef::of(&d.doc.value)),
                            ),
                        );
                    }
                    continue;
                }
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
