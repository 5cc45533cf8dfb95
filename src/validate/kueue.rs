//! One Kueue object (ResourceFlavor, ClusterQueue, LocalQueue, Topology, WorkloadPriorityClass)
//! -> findings: its structure and CEL rules against the Kueue CRD given with `--crd`; the rules of
//! Kueue's webhooks, always (kueue v0.19.2 `pkg/webhooks/resourceflavor_webhook.go`
//! `ValidateResourceFlavor`, `pkg/webhooks/clusterqueue_webhook.go` `ValidateClusterQueue`); and
//! without `--crd`, the CRDs' limits, enums and CEL rules built in. Limits and enums come from
//! `catalog/kueue.yaml` ([`crate::kueue::facts`]). Field paths are relative to the object.

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::crd;
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

/// Checks one Kueue object against the CRD version that defines it (`crd`), if any; `crds_given`
/// says whether `--crd` files were given at all. `object` is set on every finding, file and line
/// are not.
pub fn check(value: &Value, crd: Option<&crd::Version>, crds_given: bool) -> Vec<Diagnostic> {
    let gvk = Gvk::of(value);
    let api_version = value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let mut out = Vec::new();
    match crd {
        Some(version) => {
            out.extend(version.check_structure(value));
            out.extend(version.check_cel(value));
        }
        None if crds_given => out.push(Diagnostic::finding(
            &CRD_NOT_COVERED,
            "",
            format!("no --crd file defines {api_version} {}; checked against Kueue's built-in rules instead", gvk.kind),
        )),
        None => {}
    }
    let builtin = crd.is_none();
    match gvk.kind {
        kueue::KIND_RESOURCE_FLAVOR => {
            if let Some(rf) = typed::<ResourceFlavor>(value, &mut out) {
                resource_flavor(&rf, builtin, &mut out);
            }
        }
        kueue::KIND_CLUSTER_QUEUE => {
            if let Some(cq) = typed::<ClusterQueue>(value, &mut out) {
                cluster_queue(&cq, builtin, &mut out);
            }
        }
        kueue::KIND_LOCAL_QUEUE => {
            if let Some(lq) = typed::<LocalQueue>(value, &mut out) {
                local_queue(&lq, builtin, &mut out);
            }
        }
        kueue::KIND_TOPOLOGY => {
            if let Some(t) = typed::<Topology>(value, &mut out) {
                if builtin {
                    topology(&t, &mut out);
                }
            }
        }
        kueue::KIND_PRIORITY_CLASS => {
            if let Some(p) = typed::<WorkloadPriorityClass>(value, &mut out) {
                if builtin && p.value.is_none() {
                    out.push(finding(&KUEUE_PRIORITY_CLASS, "value", "required field `value` is missing"));
                }
            }
        }
        _ => {}
    }
    let object = ObjectRef::of(value);
    out.into_iter().map(|d| d.with_object(object.clone())).collect()
}

/// The object as its type; a field of the wrong type is a finding (unless the CRD already
/// reported a structure error).
fn typed<T: DeserializeOwned>(value: &Value, out: &mut Vec<Diagnostic>) -> Option<T> {
    match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(t) => Some(t),
        Err(e) => {
            if !out.iter().any(|d| d.is_error() && d.rule.id.starts_with("crd/")) {
                let path = e.path().to_string();
                let field = if path == "." { String::new() } else { path };
                out.push(finding(&KUEUE_UNREADABLE, field, crate::words::serde_message(&e.inner().to_string())));
            }
            None
        }
    }
}

fn resource_flavor(rf: &ResourceFlavor, builtin: bool, out: &mut Vec<Diagnostic>) {
    let spec = &rf.spec;
    let limits = &facts().limits;
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
        if builtin && !facts().enums.flavor_taint_effects.contains(&t.effect) {
            out.push(finding(
                &KUEUE_FLAVOR_TAINTS,
                at("effect"),
                format!("effect `{}` is not one of {}", t.effect, listed(&facts().enums.flavor_taint_effects)),
            ));
        }
    }
    if builtin {
        // The CRD's CEL rules on tolerations are Kubernetes' own toleration rules.
        let mut k8s = Vec::new();
        scheduling::tolerations(&spec.tolerations, &"spec.tolerations".into(), &mut k8s);
        restated(&KUEUE_FLAVOR_TOLERATIONS, k8s, out);
    } else {
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
    if builtin {
        for (what, n, most, rule) in [
            ("node labels", spec.node_labels.len(), limits.flavor_node_labels, &KUEUE_FLAVOR_NODE_LABELS),
            ("node taints", spec.node_taints.len(), limits.flavor_node_taints, &KUEUE_FLAVOR_TAINTS),
            ("tolerations", spec.tolerations.len(), limits.flavor_tolerations, &KUEUE_FLAVOR_TOLERATIONS),
        ] {
            if n > most {
                let field = match what {
                    "node labels" => "spec.nodeLabels",
                    "node taints" => "spec.nodeTaints",
                    _ => "spec.tolerations",
                };
                out.push(finding(rule, field, format!("{n} {what}; a ResourceFlavor has at most {most}")));
            }
        }
        if spec.topology_name.is_some() && spec.node_labels.is_empty() {
            out.push(finding(&KUEUE_FLAVOR_TOPOLOGY, "spec.topologyName", "at least one nodeLabel is required when topology is set"));
        }
    }
}

fn cluster_queue(cq: &ClusterQueue, builtin: bool, out: &mut Vec<Diagnostic>) {
    let spec = &cq.spec;
    let f = facts();
    let (limits, enums) = (&f.limits, &f.enums);
    let has_cohort = spec.cohort().is_some();
    let mut resources = BTreeSet::new();
    let mut flavors = BTreeSet::new();
    let (mut total_flavors, mut total_covered) = (0, 0);
    if builtin && spec.resource_groups.len() > limits.resource_groups {
        out.push(finding(
            &KUEUE_QUEUE_SIZE,
            "spec.resourceGroups",
            format!("{} resource groups; a ClusterQueue has at most {}", spec.resource_groups.len(), limits.resource_groups),
        ));
    }
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
        if builtin {
            for (what, n, most, least) in [
                ("covered resources", group.covered_resources.len(), limits.covered_resources_per_group, 1),
                ("flavors", group.flavors.len(), limits.flavors_per_group, 1),
            ] {
                if n > most || n < least {
                    let field = if what == "flavors" { format!("{gpath}.flavors") } else { format!("{gpath}.coveredResources") };
                    out.push(finding(&KUEUE_QUEUE_SIZE, field, format!("{n} {what}; a resource group has 1 to {most}")));
                }
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
            if builtin && fq.resources.len() != group.covered_resources.len() {
                out.push(finding(
                    &KUEUE_FLAVOR_RESOURCES,
                    format!("{fpath}.resources"),
                    format!(
                        "flavor `{}` lists {} resources and the group covers {} ({}): flavors must have the same number of resources as the coveredResources",
                        fq.name,
                        fq.resources.len(),
                        group.covered_resources.len(),
                        group.covered_resources.join(", ")
                    ),
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
                        Err(e) => {
                            if builtin {
                                out.push(finding(&KUEUE_QUOTA, format!("{rpath}.{field}"), e.to_string()));
                            }
                            None
                        }
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
        if builtin {
            enum_of(
                &KUEUE_QUEUE_POLICY,
                "spec.preemption.reclaimWithinCohort",
                p.reclaim_within_cohort.as_deref(),
                &enums.reclaim_within_cohort,
                out,
            );
            enum_of(
                &KUEUE_QUEUE_POLICY,
                "spec.preemption.withinClusterQueue",
                p.within_cluster_queue.as_deref(),
                &enums.within_cluster_queue,
                out,
            );
            let policy = p.borrow_within_cohort.as_ref().and_then(|b| b.policy.as_deref());
            enum_of(&KUEUE_QUEUE_POLICY, "spec.preemption.borrowWithinCohort.policy", policy, &enums.borrow_within_cohort, out);
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
        if builtin {
            enum_of(&KUEUE_QUEUE_POLICY, "spec.flavorFungibility.whenCanBorrow", fung.when_can_borrow.as_deref(), &enums.fungibility, out);
            enum_of(
                &KUEUE_QUEUE_POLICY,
                "spec.flavorFungibility.whenCanPreempt",
                fung.when_can_preempt.as_deref(),
                &enums.fungibility,
                out,
            );
            enum_of(
                &KUEUE_QUEUE_POLICY,
                "spec.flavorFungibility.preference",
                fung.preference.as_deref(),
                &enums.fungibility_preference,
                out,
            );
        }
    }
    if builtin {
        enum_of(&KUEUE_QUEUE_POLICY, "spec.queueingStrategy", spec.queueing_strategy.as_deref(), &enums.queueing_strategies, out);
        enum_of(&KUEUE_QUEUE_POLICY, "spec.stopPolicy", spec.stop_policy.as_deref(), &enums.stop_policies, out);
        for (field, name) in [("spec.cohortName", spec.cohort_name.as_deref()), ("spec.cohort", spec.cohort.as_deref())] {
            if let Some(n) = name.filter(|n| !n.is_empty()) {
                if let Err(e) = names::dns1123_subdomain(n) {
                    out.push(finding(&KUEUE_QUEUE_POLICY, field, format!("`{n}` is not a valid cohort name: it {e}")));
                }
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

fn local_queue(lq: &LocalQueue, builtin: bool, out: &mut Vec<Diagnostic>) {
    let cq = &lq.spec.cluster_queue;
    if builtin && !cq.is_empty() {
        if let Err(e) = names::dns1123_subdomain(cq) {
            out.push(finding(&KUEUE_LOCAL_QUEUE, "spec.clusterQueue", format!("`{cq}` is not a valid ClusterQueue name: it {e}")));
        }
    }
    if builtin {
        enum_of(&KUEUE_LOCAL_QUEUE, "spec.stopPolicy", lq.spec.stop_policy.as_deref(), &facts().enums.stop_policies, out);
    }
}

fn topology(t: &Topology, out: &mut Vec<Diagnostic>) {
    let f = facts();
    let levels = &t.spec.levels;
    if levels.is_empty() || levels.len() > f.limits.topology_levels {
        out.push(finding(
            &KUEUE_TOPOLOGY_LEVELS,
            "spec.levels",
            format!("{} levels; a Topology has 1 to {}", levels.len(), f.limits.topology_levels),
        ));
    }
    let mut seen = BTreeSet::new();
    for (i, l) in levels.iter().enumerate() {
        let at = format!("spec.levels[{i}].nodeLabel");
        if let Err(e) = names::qualified_name(&l.node_label) {
            out.push(finding(&KUEUE_TOPOLOGY_LEVELS, at.clone(), format!("`{}` is not a node label key: it {e}", l.node_label)));
        }
        if !seen.insert(l.node_label.as_str()) {
            out.push(finding(&KUEUE_TOPOLOGY_LEVELS, at.clone(), format!("`{}` must be unique", l.node_label)));
        }
        if l.node_label == f.hostname_label && i + 1 != levels.len() {
            out.push(finding(
                &KUEUE_TOPOLOGY_LEVELS,
                at,
                format!("the {} label can only be used at the lowest level of topology", f.hostname_label),
            ));
        }
    }
}

fn enum_of(rule: &'static Rule, field: &str, value: Option<&str>, allowed: &[String], out: &mut Vec<Diagnostic>) {
    if let Some(v) = value {
        if !allowed.iter().any(|a| a == v) {
            out.push(finding(rule, field, format!("`{v}` is not one of {}", listed(allowed))));
        }
    }
}

fn listed(values: &[String]) -> String {
    crate::k8s::facts::listed(values)
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
        assert!(has(&found, "kueue/flavor-taints", "spec.nodeTaints[2].effect"), "{found:?}");
        assert!(has(&found, "kueue/flavor-tolerations", "spec.tolerations[0].operator"), "{found:?}");
        let nine: Vec<String> = (0..9).map(|i| format!("l{i}: v")).collect();
        assert!(has(&ids(&format!("{RF}spec: {{nodeLabels: {{{}}}}}", nine.join(", "))), "kueue/flavor-node-labels", "spec.nodeLabels"));
        assert!(has(&ids(&format!("{RF}spec: {{topologyName: t}}")), "kueue/flavor-topology", "spec.topologyName"));
        let d = check(&crate::yaml::parse_one(&format!("{RF}spec: {{topologyName: t}}")).unwrap(), None, false);
        assert!(d[0].message.ends_with("Kueue rejects the object at apply"), "{}", d[0].message);
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
            ("kueue/flavor-resources", "spec.resourceGroups[0].flavors[0].resources"),
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
        let unreadable = ids(&format!("{CQ}spec: {{resourceGroups: [{{coveredResources: [cpu], flavors: [{{name: a, resources: [{{name: cpu, nominalQuota: [1]}}]}}]}}]}}"));
        assert_eq!(unreadable.first().map(|(r, _)| *r), Some("kueue/unreadable"), "{unreadable:?}");
    }

    #[test]
    fn local_queues_topologies_and_priority_classes() {
        let lq = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: l, namespace: team}\n";
        assert!(ids(&format!("{lq}spec: {{clusterQueue: q}}")).is_empty());
        assert!(has(&ids(&format!("{lq}spec: {{clusterQueue: Bad_Name}}")), "kueue/local-queue", "spec.clusterQueue"));
        let t = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: t}\n";
        assert!(ids(&format!("{t}spec: {{levels: [{{nodeLabel: a/b}}, {{nodeLabel: kubernetes.io/hostname}}]}}")).is_empty());
        let found = ids(&format!("{t}spec: {{levels: [{{nodeLabel: kubernetes.io/hostname}}, {{nodeLabel: a/b}}, {{nodeLabel: a/b}}]}}"));
        assert!(
            has(&found, "kueue/topology-levels", "spec.levels[0].nodeLabel")
                && has(&found, "kueue/topology-levels", "spec.levels[2].nodeLabel"),
            "{found:?}"
        );
        assert!(has(&ids(&format!("{t}spec: {{levels: []}}")), "kueue/topology-levels", "spec.levels"));
        let wpc = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: p}\n";
        assert!(ids(&format!("{wpc}value: 100\n")).is_empty());
        assert!(has(&ids(&format!("{wpc}description: x\n")), "kueue/priority-class", "value"));
    }
}
