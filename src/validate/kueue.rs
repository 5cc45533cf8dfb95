//! One Kueue object (ResourceFlavor, ClusterQueue, LocalQueue, Topology, WorkloadPriorityClass)
//! -> findings: its structure and CEL rules against its CRD, the one given with `--crd` or else the
//! embedded CRD of Kueue v0.19.2 (`catalog/schemas/kueue/v0.19.2.json`, [`upstream::KUEUE`]),
//! through the one engine ([`crd`]); and the rules of Kueue's webhooks, always (kueue v0.19.2
//! `pkg/webhooks/resourceflavor_webhook.go` `ValidateResourceFlavor`,
//! `pkg/webhooks/clusterqueue_webhook.go` `ValidateClusterQueue`; their limits from
//! `catalog/kueue.yaml`, [`crate::kueue::facts`]). Field paths are relative to the object.

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::crd;
use super::upstream;
use crate::diag::{Diagnostic, ObjectRef, Rule};
use crate::gvk::Gvk;
use crate::k8s::{names, scheduling};
use crate::kueue::{self, facts, ClusterQueue, LocalQueue, ResourceFlavor, Topology, WorkloadPriorityClass};
use crate::rules::kueue::*;
use crate::rules::validate::CRD_NOT_COVERED;
use crate::rules::Moment;

/// A finding of `rule` at `field`, its message ending with when Kueue would refuse it.
pub fn finding(rule: &'static Rule, field: impl Into<String>, message: impl std::fmt::Display) -> Diagnostic {
    let message = match rule.fails {
        Some(m) => format!("{message}; {}", m.clause()),
        None => message.to_string(),
    };
    Diagnostic::finding(rule, field, message)
}

/// Findings of Kubernetes' own checks ([`crate::k8s`]) restated under a Kueue rule: the message
/// loses the clause that says when Kubernetes refuses it, and gets the Kueue rule's.
fn restated(rule: &'static Rule, k8s: Vec<Diagnostic>, out: &mut Vec<Diagnostic>) {
    let clauses = [Moment::Apply, Moment::Start, Moment::ApplyOrStart, Moment::Run].map(Moment::clause);
    for d in k8s {
        let message = clauses.iter().find_map(|c| d.message.strip_suffix(&format!("; {c}"))).unwrap_or(&d.message).to_string();
        out.push(finding(rule, d.field.unwrap_or_default(), message));
    }
}

/// Checks one Kueue object against the CRD version that defines it: `crd`, from the `--crd` files,
/// or else the embedded CRD of Kueue v0.19.2 ([`upstream::KUEUE`]), compiled by the same code
/// ([`crd::compile`]), so both give one verdict. `crds_given` says whether `--crd` files were given
/// at all. Then the rules of Kueue's webhooks. `object` is set on every finding, file and line
/// are not.
///
/// The embedded CRD's findings keep the ids of the Kueue rules that restate them
/// (`kueue/queue-size` for a ClusterQueue's `maxItems`, `kueue/flavor-topology` for the
/// ResourceFlavor CEL rule, see [`restating`]); the others are `schema/*` and `cel/*`, as a
/// Trainer object's. A finding a webhook rule states at the same or a narrower field is said once.
///
/// Kueue v0.19.3 and v0.20.0-rc.1 change no rule a created object meets (upstream-2026-12.md): a
/// Topology's `levels` becomes mutable (an update rule), the Workload's `podSetSliceSize` gets a
/// minimum (Workloads are not judged), and v0.20's new `TopologySpreadingPolicy` (v1alpha1) is not
/// a kind the tool writes.
pub fn check(value: &Value, crd: Option<&crd::Version>, crds_given: bool) -> Vec<Diagnostic> {
    let gvk = Gvk::of(value);
    let api_version = value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let mut out = Vec::new();
    let embedded;
    let version = match crd {
        Some(v) => Some(v),
        None => {
            if crds_given {
                out.push(Diagnostic::finding(
                    &CRD_NOT_COVERED,
                    "",
                    format!(
                        "no --crd file defines {api_version} {}; checked against the embedded CRD of {} {} instead",
                        gvk.kind,
                        upstream::KUEUE.name,
                        upstream::KUEUE.release
                    ),
                ));
            }
            embedded = upstream::KUEUE.version(api_version, gvk.kind);
            if embedded.is_none() && kueue::KINDS.contains(&gvk.kind) {
                let served = upstream::KUEUE.served(gvk.kind);
                out.push(finding(
                    &KUEUE_UNREADABLE,
                    "apiVersion",
                    format!(
                        "{} {} serves {} as {}, not {api_version}",
                        upstream::KUEUE.name,
                        upstream::KUEUE.release,
                        gvk.kind,
                        served.iter().map(|v| format!("`{}/{v}`", upstream::KUEUE.group())).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
            embedded.as_deref().and_then(|c| c.version(api_version, gvk.kind))
        }
    };
    let mut schema = Vec::new();
    if let Some(v) = version {
        schema.extend(v.check_structure(value));
        schema.extend(v.check_cel(value));
    }
    let structure_failed = schema.iter().any(|d| d.is_error() && d.rule.id.starts_with("crd/"));
    let mut typed_out = Vec::new();
    match gvk.kind {
        kueue::KIND_RESOURCE_FLAVOR => {
            if let Some(rf) = typed::<ResourceFlavor>(value, structure_failed, &mut typed_out) {
                resource_flavor(&rf, &mut typed_out);
            }
        }
        kueue::KIND_CLUSTER_QUEUE => {
            if let Some(cq) = typed::<ClusterQueue>(value, structure_failed, &mut typed_out) {
                cluster_queue(&cq, &mut typed_out);
            }
        }
        kueue::KIND_LOCAL_QUEUE => {
            typed::<LocalQueue>(value, structure_failed, &mut typed_out);
        }
        kueue::KIND_TOPOLOGY => {
            typed::<Topology>(value, structure_failed, &mut typed_out);
        }
        kueue::KIND_PRIORITY_CLASS => {
            typed::<WorkloadPriorityClass>(value, structure_failed, &mut typed_out);
        }
        _ => {}
    }
    // A rule whose evaluation fails on the object (`self.nodeLabels.size()` with no `nodeLabels`)
    // is a refusal: the API server reports the evaluation error as the field's (apiextensions-
    // apiserver `pkg/apiserver/schema/cel/validation.go`: "no such key ... evaluating rule").
    let schema: Vec<Diagnostic> = schema.into_iter().map(refused_on_error).collect();
    if crd.is_some() {
        out.extend(schema);
    } else {
        for d in schema {
            let d = relabeled(gvk.kind, d);
            let restated = RESTATED_CEL.iter().any(|m| d.message.contains(m));
            let said = restated
                && typed_out.iter().any(|t| {
                    t.rule.id == d.rule.id
                        && crate::diag::within(t.field.as_deref().unwrap_or_default(), d.field.as_deref().unwrap_or_default())
                });
            if said {
                // The webhook's finding says it, and the CRD enforces it too.
                for t in typed_out.iter_mut().filter(|t| {
                    t.rule.id == d.rule.id
                        && crate::diag::within(t.field.as_deref().unwrap_or_default(), d.field.as_deref().unwrap_or_default())
                }) {
                    *t = from_crd(t.clone());
                }
            } else {
                out.push(d);
            }
        }
    }
    out.extend(typed_out);
    out.extend(own_metadata(value, gvk.kind == kueue::KIND_LOCAL_QUEUE));
    let object = ObjectRef::of(value);
    out.into_iter().map(|d| d.with_object(object.clone())).collect()
}

/// `d` as the API server judges it: a CEL rule that fails to evaluate on a key the object lacks
/// refuses the object (`cel/rule`, an error), where kube-cel reports it as unevaluated.
fn refused_on_error(d: Diagnostic) -> Diagnostic {
    use crate::rules::validate::{CEL_RULE, CEL_UNEVALUATED};
    if d.rule.id == CEL_UNEVALUATED.id && d.message.contains("rule evaluation error: No such key") {
        let rule = d.message.split_once("the rule `").and_then(|(_, r)| r.split_once("` could not")).map_or("", |(r, _)| r);
        let error = d.message.rsplit_once("rule evaluation error: ").map_or("", |(_, e)| e);
        let message = match rule_message(upstream::KUEUE.data(), rule) {
            Some(m) => format!("{m} (the rule `{rule}` fails on the object: {error})"),
            None => format!("the rule `{rule}` fails on the object: {error}"),
        };
        return Diagnostic { rule: &CEL_RULE, severity: CEL_RULE.severity, message, ..d }.with_help(CEL_RULE.fix);
    }
    d
}

/// The `message` of the CEL rule `rule` in the schemas of `data` (an embedded CRD file), if any.
fn rule_message(data: &Value, rule: &str) -> Option<String> {
    match data {
        Value::Object(m) => {
            if let Some(Value::Array(rules)) = m.get("x-kubernetes-validations") {
                let found = rules.iter().find(|r| r.get("rule").and_then(Value::as_str) == Some(rule));
                if let Some(message) = found.and_then(|r| r.get("message")).and_then(Value::as_str) {
                    return Some(message.to_string());
                }
            }
            m.values().find_map(|v| rule_message(v, rule))
        }
        Value::Array(a) => a.iter().find_map(|v| rule_message(v, rule)),
        _ => None,
    }
}

/// The CRD's CEL rules a webhook rule below restates at a narrower field (ClusterQueue
/// `validateClusterQueueSpec`): said once, at the webhook's field.
const RESTATED_CEL: [&str; 3] = [
    "borrowingLimit must be nil when cohort is empty",
    "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never",
    "preference can only be set when both whenCanBorrow and whenCanPreempt",
];

/// A finding of the embedded CRD as the built-in judge says it: under the Kueue rule that
/// restates it ([`restating`]), with Kueue's clause, else under the `schema/*` rule of its kind.
fn relabeled(kind: &str, d: Diagnostic) -> Diagnostic {
    use crate::rules::validate::*;
    let family = d.rule.id.split_once('/').map_or("", |(_, f)| f);
    let field = d.field.clone().unwrap_or_default();
    let structural = d.rule.id.starts_with("crd/");
    if let Some(rule) = restating(kind, family, &field, &d.message) {
        let message = match d.message.split_once(" does not match the pattern `^(\\+|-)?(([0-9]+") {
            Some((value, _)) => format!("{value} is not a Kubernetes quantity (such as `8`, `500m`, `64Gi`)"),
            None => d.message.clone(),
        };
        return from_crd(finding(rule, field, message));
    }
    if !structural {
        return d;
    }
    let rule: &'static Rule = match family {
        "unknown-field" => &SCHEMA_UNKNOWN_FIELD,
        "null-dropped" => &SCHEMA_NULL_DROPPED,
        "required" => &SCHEMA_REQUIRED,
        "enum" => &SCHEMA_ENUM,
        "format" => &SCHEMA_FORMAT,
        "constraint" | "duplicate-key" => &SCHEMA_CONSTRAINT,
        _ => &SCHEMA_TYPE,
    };
    Diagnostic { rule, severity: rule.severity, ..d }.with_help(rule.fix)
}

/// `d`, a Kueue rule's finding, marked as the CRD's (its schema or CEL, which the API server
/// enforces), not only Kueue's webhook's: [`Diagnostic::refused_at_apply`] reads the mark.
fn from_crd(mut d: Diagnostic) -> Diagnostic {
    let clause = format!("; {}", Moment::KueueApply.clause());
    let at = d.message.rfind(&clause).unwrap_or(d.message.len());
    d.fails = Some(crate::diag::Fails { moment: Moment::KueueApply, teller: crate::rules::Teller::Object, at });
    d
}

/// The object's own metadata as the API server checks it for any custom resource (apimachinery
/// `ValidateObjectMetaAccessor` with `NameIsDNSSubdomain`, `ValidateLabels`,
/// `ValidateAnnotations`, `ValidateFinalizers`; checked with a real kube-apiserver,
/// tests/controlplane.rs). A `metadata` that does not read is the schema's finding.
fn own_metadata(value: &Value, namespaced: bool) -> Vec<Diagnostic> {
    use crate::diag::FieldPath;
    use crate::k8s::meta;
    let Some(m) = value
        .get("metadata")
        .and_then(|m| serde_json::from_value::<k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta>(m.clone()).ok())
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    meta::object_name(m.name.as_deref(), m.generate_name.as_deref(), &FieldPath::from("metadata.name"), &mut out);
    if namespaced {
        if let Some(ns) = m.namespace.as_deref().filter(|n| !n.is_empty()) {
            meta::namespace(ns, &"metadata.namespace".into(), &mut out);
        }
    }
    meta::own_maps(&m, &mut out);
    out.into_iter()
        .map(|d| {
            let mut d = d.told_by(crate::rules::Teller::Object);
            d.message = d.message.replacen("the runtime has neither", "the object has neither", 1);
            d
        })
        .collect()
}

/// The Kueue rule that restates a finding (`family`: `enum`, `constraint`, `rule` for CEL, ...)
/// of the embedded CRD of `kind` at `field`; `None`: it is the schema's own.
fn restating(kind: &str, family: &str, field: &str, message: &str) -> Option<&'static Rule> {
    if matches!(family, "unknown-field" | "type" | "null-dropped" | "unevaluated") {
        return None;
    }
    let under = |p: &str| field == p || field.strip_prefix(p).is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['));
    let quota = ["nominalQuota", "borrowingLimit", "lendingLimit"].iter().any(|q| field.ends_with(q));
    Some(match kind {
        kueue::KIND_RESOURCE_FLAVOR
            if message.contains("topology is set") || message.contains("`!has(self.topologyName)") || under("spec.topologyName") =>
        {
            &KUEUE_FLAVOR_TOPOLOGY
        }
        kueue::KIND_RESOURCE_FLAVOR if under("spec.nodeLabels") => &KUEUE_FLAVOR_NODE_LABELS,
        kueue::KIND_RESOURCE_FLAVOR if under("spec.nodeTaints") => &KUEUE_FLAVOR_TAINTS,
        kueue::KIND_RESOURCE_FLAVOR if under("spec.tolerations") => &KUEUE_FLAVOR_TOLERATIONS,
        kueue::KIND_CLUSTER_QUEUE if quota || message.contains("cohort is empty") => &KUEUE_QUOTA,
        kueue::KIND_CLUSTER_QUEUE if message.contains("same number of resources") => &KUEUE_FLAVOR_RESOURCES,
        kueue::KIND_CLUSTER_QUEUE if family == "constraint" && under("spec.resourceGroups") => &KUEUE_QUEUE_SIZE,
        kueue::KIND_CLUSTER_QUEUE if under("spec.namespaceSelector") => &KUEUE_NAMESPACE_SELECTOR,
        kueue::KIND_CLUSTER_QUEUE
            if [
                "spec.preemption",
                "spec.flavorFungibility",
                "spec.queueingStrategy",
                "spec.stopPolicy",
                "spec.cohortName",
                "spec.cohort",
            ]
            .iter()
            .any(|p| under(p)) =>
        {
            &KUEUE_QUEUE_POLICY
        }
        kueue::KIND_LOCAL_QUEUE if under("spec.clusterQueue") || under("spec.stopPolicy") => &KUEUE_LOCAL_QUEUE,
        kueue::KIND_TOPOLOGY if under("spec.levels") => &KUEUE_TOPOLOGY_LEVELS,
        kueue::KIND_PRIORITY_CLASS if under("value") => &KUEUE_PRIORITY_CLASS,
        _ => return None,
    })
}

/// The object as its type; a field of the wrong type is a finding (unless the CRD already
/// reported a structure error, `structure_failed`).
fn typed<T: DeserializeOwned>(value: &Value, structure_failed: bool, out: &mut Vec<Diagnostic>) -> Option<T> {
    match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(t) => Some(t),
        Err(e) => {
            if !structure_failed {
                let path = e.path().to_string();
                let field = if path == "." { String::new() } else { path };
                out.push(finding(&KUEUE_UNREADABLE, field, crate::words::serde_message(&e.inner().to_string())));
            }
            None
        }
    }
}

fn resource_flavor(rf: &ResourceFlavor, out: &mut Vec<Diagnostic>) {
    let spec = &rf.spec;
    for (k, v) in &spec.node_labels {
        let field = crate::diag::join_path("spec.nodeLabels", k);
        if let Err(e) = names::qualified_name(k) {
            out.push(finding(&KUEUE_FLAVOR_NODE_LABELS, field.clone(), format!("`{k}` is not a valid label key: it {e}")));
        }
        if let Err(e) = names::label_value(v) {
            out.push(finding(&KUEUE_FLAVOR_NODE_LABELS, field, format!("{v:?} is not a valid label value: it {e}")));
        }
    }
    let mut seen = BTreeSet::new();
    for (i, t) in spec.node_taints.iter().enumerate() {
        let at = |f: &str| format!("spec.nodeTaints[{i}].{f}");
        if let Err(e) = names::qualified_name(&t.key) {
            out.push(finding(&KUEUE_FLAVOR_TAINTS, at("key"), format!("`{}` is not a valid taint key: it {e}", t.key)));
        }
        if let Err(e) = names::label_value(t.value.as_deref().unwrap_or_default()) {
            out.push(finding(
                &KUEUE_FLAVOR_TAINTS,
                at("value"),
                format!("{:?} is not a valid taint value: it {e}", t.value.as_deref().unwrap_or_default()),
            ));
        }
        if !seen.insert((t.effect.clone(), t.key.clone())) {
            out.push(finding(
                &KUEUE_FLAVOR_TAINTS,
                format!("spec.nodeTaints[{i}]"),
                format!("taints must be unique by key and effect pair (`{}`, `{}`)", t.key, t.effect),
            ));
        }
    }
    for (i, t) in spec.tolerations.iter().enumerate() {
        if let Some(key) = t.key.as_deref().filter(|k| !k.is_empty()) {
            if let Err(e) = names::qualified_name(key) {
                out.push(finding(
                    &KUEUE_FLAVOR_TOLERATIONS,
                    format!("spec.tolerations[{i}].key"),
                    format!("`{key}` is not a valid toleration key: it {e}"),
                ));
            }
        }
    }
}

fn cluster_queue(cq: &ClusterQueue, out: &mut Vec<Diagnostic>) {
    let spec = &cq.spec;
    let limits = &facts().limits;
    let has_cohort = spec.cohort().is_some();
    let mut resources = BTreeSet::new();
    let mut flavors = BTreeSet::new();
    let (mut total_flavors, mut total_covered) = (0, 0);
    for (g, group) in spec.resource_groups.iter().enumerate() {
        let gpath = format!("spec.resourceGroups[{g}]");
        total_flavors += group.flavors.len();
        total_covered += group.covered_resources.len();
        for (j, name) in group.covered_resources.iter().enumerate() {
            let at = format!("{gpath}.coveredResources[{j}]");
            if let Err(e) = names::qualified_name(name) {
                out.push(finding(&KUEUE_RESOURCE_NAME, at.clone(), format!("`{name}` is not a valid resource name: it {e}")));
            }
            if !resources.insert(name.as_str()) {
                out.push(finding(
                    &KUEUE_DUPLICATE_RESOURCE,
                    at,
                    format!("duplicate value `{name}`: a resource is covered once, in one resource group"),
                ));
            }
        }
        let mut combinations = 0;
        for (j, fq) in group.flavors.iter().enumerate() {
            let fpath = format!("{gpath}.flavors[{j}]");
            combinations += fq.resources.len();
            if !flavors.insert(fq.name.as_str()) {
                out.push(finding(
                    &KUEUE_DUPLICATE_FLAVOR,
                    format!("{fpath}.name"),
                    format!("duplicate value `{}`: a flavor is listed once, in one resource group", fq.name),
                ));
            }
            for (k, rq) in fq.resources.iter().enumerate() {
                let Some(covered) = group.covered_resources.get(k) else { break };
                let rpath = format!("{fpath}.resources[{k}]");
                if &rq.name != covered {
                    out.push(finding(
                        &KUEUE_FLAVOR_RESOURCES,
                        format!("{rpath}.name"),
                        format!("`{}` must match the name in coveredResources (`{covered}` at position {k}): list the flavor's resources in the order of coveredResources", rq.name),
                    ));
                }
                let amount = |field: &str, q: &kueue::Amount, out: &mut Vec<Diagnostic>| -> Option<i64> {
                    match crate::k8s::quantity::amount(&rq.name, &q.0) {
                        Ok(a) if a < 0 => {
                            out.push(finding(
                                &KUEUE_QUOTA,
                                format!("{rpath}.{field}"),
                                format!("`{}` must be greater than or equal to 0", q.0),
                            ));
                            Some(a)
                        }
                        Ok(a) => Some(a),
                        // Not a quantity: the CRD's pattern says so.
                        Err(_) => None,
                    }
                };
                let nominal = amount("nominalQuota", &rq.nominal_quota, out);
                if let Some(b) = &rq.borrowing_limit {
                    if !has_cohort {
                        out.push(finding(&KUEUE_QUOTA, format!("{rpath}.borrowingLimit"), "must be nil when cohort is empty"));
                    }
                    amount("borrowingLimit", b, out);
                }
                if let Some(l) = &rq.lending_limit {
                    let lending = amount("lendingLimit", l, out);
                    if !has_cohort {
                        out.push(finding(&KUEUE_QUOTA, format!("{rpath}.lendingLimit"), "must be nil when cohort is empty"));
                    }
                    if let (Some(l), Some(n)) = (lending, nominal) {
                        if l > n {
                            out.push(finding(
                                &KUEUE_QUOTA,
                                format!("{rpath}.lendingLimit"),
                                format!(
                                    "`{}` must be less than or equal to the nominalQuota (`{}`)",
                                    rq.lending_limit.as_ref().map(|a| a.0.as_str()).unwrap_or_default(),
                                    rq.nominal_quota.0
                                ),
                            ));
                        }
                    }
                }
            }
        }
        if combinations > limits.flavor_resource_combinations_per_group {
            out.push(finding(
                &KUEUE_QUEUE_SIZE,
                gpath,
                format!(
                    "number of flavor-resource combinations in a resourceGroup must be ≤ {}, got {combinations}",
                    limits.flavor_resource_combinations_per_group
                ),
            ));
        }
    }
    if total_flavors > limits.total_flavors {
        out.push(finding(
            &KUEUE_QUEUE_SIZE,
            "spec.resourceGroups",
            format!("total number of flavors across all resourceGroups must be ≤ {}, got {total_flavors}", limits.total_flavors),
        ));
    }
    if total_covered > limits.total_covered_resources {
        out.push(finding(
            &KUEUE_QUEUE_SIZE,
            "spec.resourceGroups",
            format!(
                "total number of covered resources across all resourceGroups must be ≤ {}, got {total_covered}",
                limits.total_covered_resources
            ),
        ));
    }
    match &spec.namespace_selector {
        Some(sel) => {
            let mut k8s = Vec::new();
            scheduling::label_selector(sel, &"spec.namespaceSelector".into(), &mut k8s);
            restated(&KUEUE_NAMESPACE_SELECTOR, k8s, out);
        }
        None => out.push(finding(&KUEUE_NO_NAMESPACES, "spec.namespaceSelector", "no namespaceSelector: it matches no namespace")),
    }
    if let Some(p) = &spec.preemption {
        let reclaim = p.reclaim_within_cohort.as_deref().unwrap_or("Never");
        let borrow = p.borrow_within_cohort.as_ref().and_then(|b| b.policy.as_deref()).unwrap_or("Never");
        if reclaim == "Never" && p.borrow_within_cohort.is_some() && borrow != "Never" {
            out.push(finding(&KUEUE_QUEUE_POLICY, "spec.preemption", "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"));
        }
    }
    if let Some(fung) = &spec.flavor_fungibility {
        if let Some(pref) = &fung.preference {
            let borrow = fung.when_can_borrow.as_deref().unwrap_or("MayStopSearch");
            let preempt = fung.when_can_preempt.as_deref().unwrap_or("TryNextFlavor");
            if borrow != "TryNextFlavor" || preempt != "TryNextFlavor" {
                out.push(finding(
                    &KUEUE_QUEUE_POLICY,
                    "spec.flavorFungibility.preference",
                    format!("preference {pref:?} requires both whenCanBorrow and whenCanPreempt to be TryNextFlavor"),
                ));
            }
        }
    }
    if let Some(strategy) = &spec.admission_checks_strategy {
        for (i, check) in strategy.admission_checks.iter().enumerate() {
            for (j, flavor) in check.on_flavors.iter().enumerate() {
                if !flavors.contains(flavor.as_str()) {
                    out.push(finding(
                        &KUEUE_ADMISSION_CHECK_FLAVORS,
                        format!("spec.admissionChecksStrategy.admissionChecks[{i}].onFlavors[{j}]"),
                        format!(
                            "`{flavor}` is not a flavor of the queue; supported values: {}",
                            flavors.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
                        ),
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(yaml: &str) -> Vec<(&'static str, String)> {
        let v = crate::yaml::parse_one(yaml).unwrap();
        check(&v, None, false).into_iter().map(|d| (d.rule.id, d.field.unwrap_or_default())).collect()
    }

    fn has(found: &[(&'static str, String)], rule: &str, field: &str) -> bool {
        found.iter().any(|(r, f)| *r == rule && f == field)
    }

    const RF: &str = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n";
    const CQ: &str = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\n";

    #[test]
    fn resource_flavors_follow_the_webhook_and_the_crd_rules() {
        assert!(ids(&format!("{RF}spec: {{nodeLabels: {{a: b}}}}")).is_empty());
        let found = ids(&format!(
            "{RF}spec:\n  nodeLabels: {{'bad key!': x, ok: 'bad value!'}}\n  nodeTaints: [{{key: t, value: v, effect: NoSchedule}}, {{key: t, effect: NoSchedule}}, {{key: u, effect: Sometimes}}]\n  tolerations: [{{operator: Equal, value: x}}]\n"
        ));
        assert!(has(&found, "kueue/flavor-node-labels", "spec.nodeLabels.bad key!"), "{found:?}");
        assert!(has(&found, "kueue/flavor-node-labels", "spec.nodeLabels.ok"), "{found:?}");
        assert!(has(&found, "kueue/flavor-taints", "spec.nodeTaints[1]"), "duplicate key and effect: {found:?}");
        // The CRD's CEL rules on the lists: effect `Sometimes`; a value with no key and `Equal`.
        assert!(has(&found, "kueue/flavor-taints", "spec.nodeTaints"), "{found:?}");
        assert!(has(&found, "kueue/flavor-tolerations", "spec.tolerations"), "{found:?}");
        let nine: Vec<String> = (0..9).map(|i| format!("l{i}: v")).collect();
        assert!(has(&ids(&format!("{RF}spec: {{nodeLabels: {{{}}}}}", nine.join(", "))), "kueue/flavor-node-labels", "spec.nodeLabels"));
        assert!(has(&ids(&format!("{RF}spec: {{topologyName: t}}")), "kueue/flavor-topology", "spec"));
        let d = check(&crate::yaml::parse_one(&format!("{RF}spec: {{topologyName: t}}")).unwrap(), None, false);
        assert!(d[0].message.ends_with("Kueue rejects the object at apply"), "{}", d[0].message);
        assert!(d[0].message.starts_with("at least one nodeLabel is required when topology is set"), "{}", d[0].message);
        assert_eq!(d[0].object.as_ref().map(|o| o.to_string()).as_deref(), Some("ResourceFlavor/f"));
    }

    #[test]
    fn cluster_queues_follow_the_webhook_and_the_crd_rules() {
        let good = format!(
            "{CQ}spec:\n  namespaceSelector: {{}}\n  cohortName: c\n  resourceGroups:\n  - coveredResources: [google.com/tpu, cpu]\n    flavors:\n    - name: a\n      resources: [{{name: google.com/tpu, nominalQuota: 16, borrowingLimit: 8}}, {{name: cpu, nominalQuota: '64', lendingLimit: 32}}]\n"
        );
        assert!(ids(&good).is_empty(), "{:?}", ids(&good));
        let bad = format!(
            "{CQ}spec:\n  queueingStrategy: Fifo\n  preemption: {{reclaimWithinCohort: Never, borrowWithinCohort: {{policy: LowerPriority}}}}\n  flavorFungibility: {{preference: BorrowingOverPreemption}}\n  admissionChecksStrategy: {{admissionChecks: [{{name: prov, onFlavors: [zz]}}]}}\n  resourceGroups:\n  - coveredResources: [google.com/tpu, cpu, 'bad name!']\n    flavors:\n    - name: a\n      resources: [{{name: cpu, nominalQuota: -1}}, {{name: google.com/tpu, nominalQuota: 4, borrowingLimit: 1, lendingLimit: 8}}]\n  - coveredResources: [cpu]\n    flavors:\n    - name: a\n      resources: [{{name: cpu, nominalQuota: 1}}]\n"
        );
        let found = ids(&bad);
        let want = [
            ("kueue/resource-name", "spec.resourceGroups[0].coveredResources[2]"),
            ("kueue/duplicate-resource", "spec.resourceGroups[1].coveredResources[0]"),
            ("kueue/duplicate-flavor", "spec.resourceGroups[1].flavors[0].name"),
            ("kueue/flavor-resources", "spec.resourceGroups[0]"),
            ("kueue/flavor-resources", "spec.resourceGroups[0].flavors[0].resources[0].name"),
            ("kueue/quota", "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"),
            ("kueue/quota", "spec.resourceGroups[0].flavors[0].resources[1].borrowingLimit"),
            ("kueue/quota", "spec.resourceGroups[0].flavors[0].resources[1].lendingLimit"),
            ("kueue/queue-policy", "spec.preemption"),
            ("kueue/queue-policy", "spec.flavorFungibility.preference"),
            ("kueue/queue-policy", "spec.queueingStrategy"),
            ("kueue/admission-check-flavors", "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]"),
            ("kueue/no-namespaces", "spec.namespaceSelector"),
        ];
        for (rule, field) in want {
            assert!(has(&found, rule, field), "{rule} at {field}: {found:?}");
        }
        let lending = check(&crate::yaml::parse_one(&bad).unwrap(), None, false);
        assert!(lending.iter().any(|d| d.message.contains("must be less than or equal to the nominalQuota")), "{lending:?}");
        let selector = format!("{CQ}spec: {{namespaceSelector: {{matchExpressions: [{{key: team, operator: Is, values: [a]}}]}}}}");
        let found = check(&crate::yaml::parse_one(&selector).unwrap(), None, false);
        assert_eq!(found.iter().map(|d| d.rule.id).collect::<Vec<_>>(), ["kueue/namespace-selector"]);
        assert!(
            found[0].message.ends_with("Kueue rejects the object at apply") && !found[0].message.contains("TrainJob starts"),
            "{}",
            found[0].message
        );
        // A quantity that is not one: the CRD's pattern, said in words.
        let quantity = check(&crate::yaml::parse_one(&format!("{CQ}spec: {{namespaceSelector: {{}}, resourceGroups: [{{coveredResources: [cpu], flavors: [{{name: a, resources: [{{name: cpu, nominalQuota: 4 cores}}]}}]}}]}}")).unwrap(), None, false);
        assert_eq!(
            quantity.iter().map(|d| (d.rule.id, d.field.as_deref().unwrap_or_default())).collect::<Vec<_>>(),
            [("kueue/quota", "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota")]
        );
        assert!(quantity[0].message.starts_with("string \"4 cores\" is not a Kubernetes quantity"), "{}", quantity[0].message);
        // What no Kueue rule restates is the schema's, as for a Trainer object.
        let typo = ids(&format!("{CQ}spec: {{namespaceSelector: {{}}, cohrtName: c}}"));
        assert_eq!(typo, [("schema/unknown-field", "spec.cohrtName".to_string())]);
        let version = ids("apiVersion: kueue.x-k8s.io/v1alpha1\nkind: ClusterQueue\nmetadata: {name: q}\nspec: {namespaceSelector: {}}\n");
        assert_eq!(version, [("kueue/unreadable", "apiVersion".to_string())]);
        let unreadable = ids(&format!("{CQ}spec: {{resourceGroups: [{{coveredResources: [cpu], flavors: [{{name: a, resources: [{{name: cpu, nominalQuota: [1]}}]}}]}}]}}"));
        assert_eq!(unreadable.first().map(|(r, _)| *r), Some("schema/type"), "the schema says it first: {unreadable:?}");
    }

    #[test]
    fn local_queues_topologies_and_priority_classes() {
        let lq = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: l, namespace: team}\n";
        assert!(ids(&format!("{lq}spec: {{clusterQueue: q}}")).is_empty());
        assert!(has(&ids(&format!("{lq}spec: {{clusterQueue: Bad_Name}}")), "kueue/local-queue", "spec.clusterQueue"));
        let t = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: t}\n";
        assert!(ids(&format!("{t}spec: {{levels: [{{nodeLabel: a/b}}, {{nodeLabel: kubernetes.io/hostname}}]}}")).is_empty());
        let found = ids(&format!("{t}spec: {{levels: [{{nodeLabel: kubernetes.io/hostname}}, {{nodeLabel: a/b}}, {{nodeLabel: a/b}}]}}"));
        assert_eq!(found, [("kueue/topology-levels", "spec.levels".to_string()), ("kueue/topology-levels", "spec.levels".to_string())]);
        assert!(has(&ids(&format!("{t}spec: {{levels: []}}")), "kueue/topology-levels", "spec.levels"));
        let wpc = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: p}\n";
        assert!(ids(&format!("{wpc}value: 100\n")).is_empty());
        assert!(has(&ids(&format!("{wpc}description: x\n")), "kueue/priority-class", "value"));
    }
}
