//! Where pods may run, as the Job's pod template is checked (kubernetes/kubernetes v1.34.1
//! `pkg/apis/core/validation/validation.go` `ValidateTolerations`, `validateTaintEffect`,
//! `ValidatePodSpec` (`ValidateLabels` on `nodeSelector`), `ValidateNodeSelector`,
//! `ValidateNodeSelectorTerm`, `ValidateNodeSelectorRequirement`,
//! `ValidateNodeFieldSelectorRequirement`, `ValidatePreferredSchedulingTerms`,
//! `validatePodAffinityTerm`, `validateWeightedPodAffinityTerms`; apimachinery v0.34.1
//! `ValidateLabelSelectorRequirement`). Operators and effects come from [`super::facts`].

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Affinity, NodeSelectorRequirement, NodeSelectorTerm, PodAffinityTerm, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::facts::{facts, listed};
use super::finding::{finding, shown, Scope};
use super::meta;
use super::names;
use crate::diag::{Diagnostic, FieldPath};
use crate::rules::kubernetes::{K8S_NAMESPACE, K8S_NODE_AFFINITY, K8S_POD_AFFINITY, K8S_TOLERATION};

/// Tolerations at `path` (the list).
pub fn tolerations(list: &[Toleration], path: &FieldPath, out: &mut Vec<Diagnostic>) {
    let e = &facts().enums;
    for (i, t) in list.iter().enumerate() {
        let at = |f: &str| path.index(i).key(f);
        let mut bad = |field: FieldPath, msg: String| out.push(finding(&K8S_TOLERATION, Scope::Template, field, msg));
        let key = t.key.as_deref().unwrap_or_default();
        let operator = t.operator.as_deref().unwrap_or_default();
        let value = t.value.as_deref().unwrap_or_default();
        let effect = t.effect.as_deref().unwrap_or_default();
        if !key.is_empty() {
            if let Err(err) = names::qualified_name(key) {
                bad(at("key"), format!("`{key}` is not a valid toleration key: it {err}"));
            }
        }
        let known_operator = operator.is_empty() || e.toleration_operators.iter().any(|o| o == operator);
        if !known_operator {
            bad(at("operator"), format!("operator `{operator}` is not one of {} (case-sensitive)", listed(&e.toleration_operators)));
        } else if key.is_empty() && operator != "Exists" {
            bad(at("operator"), "a toleration without a key must have `operator: Exists` (it then tolerates every taint)".to_string());
        } else if operator == "Exists" && !value.is_empty() {
            bad(at("value"), format!("`operator: Exists` matches any value, so `value` must be empty, not {}", shown(value)));
        } else if operator != "Exists" {
            if let Err(err) = names::label_value(value) {
                bad(at("value"), format!("{} is not a valid toleration value: it {err}", shown(value)));
            }
        }
        if !effect.is_empty() && !e.taint_effects.iter().any(|x| x == effect) {
            bad(at("effect"), format!("effect `{effect}` is not one of {} (or empty for every effect)", listed(&e.taint_effects)));
        } else if t.toleration_seconds.is_some() && effect != "NoExecute" {
            bad(at("effect"), "`tolerationSeconds` only applies to `effect: NoExecute`".to_string());
        }
    }
}

/// `nodeSelector`: label keys and values.
pub fn node_selector(map: &BTreeMap<String, String>, path: &FieldPath, out: &mut Vec<Diagnostic>) {
    meta::labels(map, path, Scope::Template, out);
}

/// Node affinity, pod affinity and pod anti-affinity at `path` (`...spec.affinity`).
pub fn affinity(a: &Affinity, path: &FieldPath, out: &mut Vec<Diagnostic>) {
    if let Some(n) = &a.node_affinity {
        let base = path.field("nodeAffinity");
        if let Some(required) = &n.required_during_scheduling_ignored_during_execution {
            let terms = base.field("requiredDuringSchedulingIgnoredDuringExecution").field("nodeSelectorTerms");
            if required.node_selector_terms.is_empty() {
                out.push(finding(
                    &K8S_NODE_AFFINITY,
                    Scope::Template,
                    terms.clone(),
                    "a required node affinity needs at least one node selector term",
                ));
            }
            for (i, t) in required.node_selector_terms.iter().enumerate() {
                node_term(t, &terms.index(i), true, out);
            }
        }
        for (i, p) in n.preferred_during_scheduling_ignored_during_execution.iter().flatten().enumerate() {
            let at = base.field("preferredDuringSchedulingIgnoredDuringExecution").index(i);
            weight(p.weight, &at.field("weight"), &K8S_NODE_AFFINITY, out);
            // Preferred terms may name label values that are not valid (upstream allows them).
            node_term(&p.preference, &at.field("preference"), false, out);
        }
    }
    for (name, pa) in [
        (
            "podAffinity",
            a.pod_affinity
                .as_ref()
                .map(|p| (&p.required_during_scheduling_ignored_during_execution, &p.preferred_during_scheduling_ignored_during_execution)),
        ),
        (
            "podAntiAffinity",
            a.pod_anti_affinity
                .as_ref()
                .map(|p| (&p.required_during_scheduling_ignored_during_execution, &p.preferred_during_scheduling_ignored_during_execution)),
        ),
    ] {
        let Some((required, preferred)) = pa else { continue };
        let base = path.key(name);
        for (i, t) in required.iter().flatten().enumerate() {
            pod_term(t, &base.field("requiredDuringSchedulingIgnoredDuringExecution").index(i), out);
        }
        for (i, w) in preferred.iter().flatten().enumerate() {
            let at = base.field("preferredDuringSchedulingIgnoredDuringExecution").index(i);
            weight(w.weight, &at.field("weight"), &K8S_POD_AFFINITY, out);
            pod_term(&w.pod_affinity_term, &at.field("podAffinityTerm"), out);
        }
    }
}

fn weight(w: i32, field: &FieldPath, rule: &'static crate::rules::Rule, out: &mut Vec<Diagnostic>) {
    let l = &facts().limits;
    if i64::from(w) < l.weight_min || i64::from(w) > l.weight_max {
        out.push(finding(rule, Scope::Template, field, format!("weight {w} is outside {}..{}", l.weight_min, l.weight_max)));
    }
}

fn node_term(t: &NodeSelectorTerm, path: &FieldPath, check_values: bool, out: &mut Vec<Diagnostic>) {
    for (j, r) in t.match_expressions.iter().flatten().enumerate() {
        requirement(r, &path.field("matchExpressions").index(j), check_values, out);
    }
    for (j, r) in t.match_fields.iter().flatten().enumerate() {
        let at = path.field("matchFields").index(j);
        let values = r.values.as_deref().unwrap_or_default();
        if r.key != "metadata.name" {
            out.push(finding(
                &K8S_NODE_AFFINITY,
                Scope::Template,
                at.field("key"),
                format!("`{}` is not a node field selector key; only `metadata.name` is", r.key),
            ));
        }
        if !matches!(r.operator.as_str(), "In" | "NotIn") || values.len() != 1 {
            out.push(finding(
                &K8S_NODE_AFFINITY,
                Scope::Template,
                at.clone(),
                "a node field selector takes `In` or `NotIn` with exactly one node name",
            ));
        }
        for (k, v) in values.iter().enumerate() {
            if let Err(e) = names::dns1123_subdomain(v) {
                out.push(finding(
                    &K8S_NODE_AFFINITY,
                    Scope::Template,
                    at.field("values").index(k),
                    format!("`{v}` is not a node name: it {e}"),
                ));
            }
        }
    }
}

fn requirement(r: &NodeSelectorRequirement, path: &FieldPath, check_values: bool, out: &mut Vec<Diagnostic>) {
    let values = r.values.as_deref().unwrap_or_default();
    let ops = &facts().node_selector_operators;
    match ops.get(&r.operator) {
        None => out.push(finding(
            &K8S_NODE_AFFINITY,
            Scope::Template,
            path.field("operator"),
            format!(
                "`{}` is not a node selector operator; expected one of {}",
                r.operator,
                listed(&ops.keys().cloned().collect::<Vec<_>>())
            ),
        )),
        Some(arity) if !arity.accepts(values.len()) => out.push(finding(
            &K8S_NODE_AFFINITY,
            Scope::Template,
            path.field("values"),
            format!("`{}` takes {}, not {}", r.operator, arity.describe(), values.len()),
        )),
        Some(_) => {}
    }
    if let Err(e) = names::qualified_name(&r.key) {
        out.push(finding(&K8S_NODE_AFFINITY, Scope::Template, path.field("key"), format!("`{}` is not a valid label key: it {e}", r.key)));
    }
    if check_values {
        for (k, v) in values.iter().enumerate() {
            if let Err(e) = names::label_value(v) {
                out.push(finding(
                    &K8S_NODE_AFFINITY,
                    Scope::Template,
                    path.field("values").index(k),
                    format!("{} is not a valid label value: it {e}", shown(v)),
                ));
            }
        }
    }
}

fn pod_term(t: &PodAffinityTerm, path: &FieldPath, out: &mut Vec<Diagnostic>) {
    let key = t.topology_key.as_str();
    if key.is_empty() {
        out.push(finding(&K8S_POD_AFFINITY, Scope::Template, path.field("topologyKey"), "a pod affinity term needs a `topologyKey`"));
    } else if let Err(e) = names::qualified_name(key) {
        out.push(finding(
            &K8S_POD_AFFINITY,
            Scope::Template,
            path.field("topologyKey"),
            format!("`{key}` is not a valid topology key: it {e}"),
        ));
    }
    for (i, ns) in t.namespaces.iter().flatten().enumerate() {
        if names::dns1123_label(ns).is_err() {
            out.push(finding(
                &K8S_NAMESPACE,
                Scope::Template,
                path.field("namespaces").index(i),
                format!("`{ns}` is not a valid namespace name"),
            ));
        }
    }
    for (name, selector) in [("labelSelector", &t.label_selector), ("namespaceSelector", &t.namespace_selector)] {
        if let Some(s) = selector {
            label_selector(s, &path.key(name), out);
        }
    }
}

/// `ValidateLabelSelector`: matchLabels as labels, matchExpressions with the label selector operators.
pub fn label_selector(s: &LabelSelector, path: &FieldPath, out: &mut Vec<Diagnostic>) {
    if let Some(m) = &s.match_labels {
        meta::labels(m, &path.field("matchLabels"), Scope::Template, out);
    }
    let ops = &facts().label_selector_operators;
    for (i, r) in s.match_expressions.iter().flatten().enumerate() {
        let at = path.field("matchExpressions").index(i);
        let n = r.values.as_ref().map_or(0, Vec::len);
        match ops.get(&r.operator) {
            None => out.push(finding(
                &K8S_POD_AFFINITY,
                Scope::Template,
                at.field("operator"),
                format!(
                    "`{}` is not a label selector operator; expected one of {}",
                    r.operator,
                    listed(&ops.keys().cloned().collect::<Vec<_>>())
                ),
            )),
            Some(a) if !a.accepts(n) => out.push(finding(
                &K8S_POD_AFFINITY,
                Scope::Template,
                at.field("values"),
                format!("`{}` takes {}, not {n}", r.operator, a.describe()),
            )),
            Some(_) => {}
        }
        if let Err(e) = names::qualified_name(&r.key) {
            out.push(finding(&K8S_POD_AFFINITY, Scope::Template, at.field("key"), format!("`{}` is not a valid label key: it {e}", r.key)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol(key: Option<&str>, op: Option<&str>, value: Option<&str>, effect: Option<&str>) -> Toleration {
        Toleration {
            key: key.map(Into::into),
            operator: op.map(Into::into),
            value: value.map(Into::into),
            effect: effect.map(Into::into),
            ..Default::default()
        }
    }

    fn fields(list: &[Toleration]) -> Vec<String> {
        let mut out = Vec::new();
        tolerations(list, &"t".into(), &mut out);
        out.into_iter().map(|d| d.field.unwrap_or_default()).collect()
    }

    #[test]
    fn legal_tolerations_pass() {
        let ok = [
            tol(None, Some("Exists"), None, None),
            tol(Some("google.com/tpu"), Some("Exists"), None, Some("NoSchedule")),
            tol(Some("nvidia.com/gpu"), None, Some("present"), None),
            tol(Some("k"), Some("Equal"), Some(""), Some("PreferNoSchedule")),
            Toleration { key: Some("k".into()), effect: Some("NoExecute".into()), toleration_seconds: Some(30), ..Default::default() },
        ];
        assert!(fields(&ok).is_empty(), "{:?}", fields(&ok));
    }

    #[test]
    fn wrong_tolerations_are_found() {
        assert_eq!(fields(&[tol(Some("x"), Some("Bogus"), None, Some("Sometimes"))]), ["t[0].operator", "t[0].effect"]);
        assert_eq!(fields(&[tol(None, Some("Equal"), None, None)]), ["t[0].operator"]);
        assert_eq!(fields(&[tol(Some("k"), Some("Exists"), Some("true"), None)]), ["t[0].value"]);
        assert_eq!(fields(&[tol(Some("k"), Some("exists"), None, None)]), ["t[0].operator"]);
        assert_eq!(fields(&[tol(Some("bad key"), None, Some("v w"), None)]), ["t[0].key", "t[0].value"]);
        let secs = Toleration { key: Some("k".into()), toleration_seconds: Some(30), ..Default::default() };
        assert_eq!(fields(&[secs]), ["t[0].effect"]);
    }

    #[test]
    fn node_affinity_arity_and_values() {
        let a: Affinity = serde_json::from_value(serde_json::json!({"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "a", "operator": "In", "values": []},
                {"key": "b", "operator": "Exists", "values": ["x"]},
                {"key": "c", "operator": "Gt", "values": ["1", "2"]},
                {"key": "d", "operator": "Near"},
                {"key": "e", "operator": "In", "values": ["a b"]},
                {"key": "f", "operator": "Lt", "values": ["3"]}
            ]}]},
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0, "preference": {"matchExpressions": [{"key": "g", "operator": "In", "values": ["any value ok"]}]}}]
        }, "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "", "labelSelector": {"matchExpressions": [{"key": "k", "operator": "Exists", "values": ["v"]}]}}]}}))
        .unwrap();
        let mut out = Vec::new();
        affinity(&a, &"a".into(), &mut out);
        let got: Vec<String> = out.iter().map(|d| format!("{} {}", d.rule.id, d.field.as_deref().unwrap_or(""))).collect();
        let t = "a.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions";
        assert_eq!(
            got,
            [
                format!("k8s/node-affinity {t}[0].values"),
                format!("k8s/node-affinity {t}[1].values"),
                format!("k8s/node-affinity {t}[2].values"),
                format!("k8s/node-affinity {t}[3].operator"),
                format!("k8s/node-affinity {t}[4].values[0]"),
                "k8s/node-affinity a.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight".to_string(),
                "k8s/pod-affinity a.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey".to_string(),
                "k8s/pod-affinity a.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values".to_string(),
            ]
        );
    }
}
