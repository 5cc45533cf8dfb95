//! Which nodes a pod may go to, as kube-scheduler's label and taint filters decide it: a pod's
//! node selector, required node affinity and tolerations (with those the API server adds) against
//! a node's name, labels and taints. `fit` places pods with these functions, the validator's
//! accelerator checks read a runtime's pins and tolerations with them, and other stages (Kueue
//! flavors) may match their own node labels and taints the same way. Every input is a
//! k8s-openapi type or a label map.
//!
//! Facts (Kubernetes v1.34; the code is not copied):
//! - nodeSelector and required node affinity must both match (NodeAffinity filter); affinity terms
//!   are ORed, an empty term matches nothing, expressions and fields of one term are ANDed; `NotIn`
//!   and `DoesNotExist` hold when the label is absent; `Gt`/`Lt` need the label, one value and
//!   both parsing as integers; an unknown operator never matches (kubernetes/component-helpers
//!   `scheduling/corev1/nodeaffinity/nodeaffinity.go`; apimachinery `pkg/labels/selector.go`
//!   `(*Requirement).Matches`). `matchFields` knows only `metadata.name` with `In`/`NotIn`.
//! - only NoSchedule and NoExecute taints filter (`plugins/helper/taint.go`
//!   `DoNotScheduleTaintsFilterFunc`); a toleration tolerates a taint when its effect is empty or
//!   equal, its key empty or equal, and its operator `Exists` or (`Equal` or empty) with an equal
//!   value (kubernetes/api `core/v1/toleration.go` `ToleratesTaint`).
//! - a cordoned node takes a pod that tolerates `node.kubernetes.io/unschedulable:NoSchedule`
//!   (`plugins/nodeunschedulable`).
//! - admission adds tolerations: DefaultTolerationSeconds the not-ready and unreachable NoExecute
//!   ones to every pod; ExtendedResourceToleration, where a cluster runs it, one per requested
//!   extended resource (`plugin/pkg/admission/defaulttolerationseconds`,
//!   `plugin/pkg/admission/extendedresourcetoleration`). The tables are in [`super::facts`].

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodSpec, Taint, Toleration};

use super::facts::facts;

/// True when every key of the node selector is a label of the node with that value.
pub fn selector_matches(selector: &BTreeMap<String, String>, labels: &BTreeMap<String, String>) -> bool {
    selector.iter().all(|(k, v)| labels.get(k) == Some(v))
}

/// True when the required node affinity admits a node with these labels and this name.
pub fn affinity_matches(required: &NodeSelector, labels: &BTreeMap<String, String>, name: &str) -> bool {
    required.node_selector_terms.iter().any(|t| term_matches(t, labels, name))
}

/// The NodeAffinity filter: the pod's node selector and its required node affinity both admit
/// the node.
pub fn node_matches(spec: &PodSpec, labels: &BTreeMap<String, String>, name: &str) -> bool {
    spec.node_selector.as_ref().is_none_or(|s| selector_matches(s, labels))
        && required_affinity(spec).is_none_or(|a| affinity_matches(a, labels, name))
}

/// The pod's required node affinity, if it has one.
pub fn required_affinity(spec: &PodSpec) -> Option<&NodeSelector> {
    spec.affinity.as_ref()?.node_affinity.as_ref()?.required_during_scheduling_ignored_during_execution.as_ref()
}

fn term_matches(term: &NodeSelectorTerm, labels: &BTreeMap<String, String>, name: &str) -> bool {
    let expressions = term.match_expressions.as_deref().unwrap_or_default();
    let fields = term.match_fields.as_deref().unwrap_or_default();
    if expressions.is_empty() && fields.is_empty() {
        return false;
    }
    expressions.iter().all(|r| label_requirement(r, labels)) && fields.iter().all(|r| field_requirement(r, name))
}

fn label_requirement(r: &NodeSelectorRequirement, labels: &BTreeMap<String, String>) -> bool {
    let values = r.values.as_deref().unwrap_or_default();
    let value = labels.get(&r.key);
    match r.operator.as_str() {
        "In" => !values.is_empty() && value.is_some_and(|v| values.contains(v)),
        "NotIn" => !values.is_empty() && value.is_none_or(|v| !values.contains(v)),
        "Exists" => values.is_empty() && value.is_some(),
        "DoesNotExist" => values.is_empty() && value.is_none(),
        "Gt" | "Lt" => {
            let [bound] = values else { return false };
            let (Some(have), Ok(bound)) = (value.and_then(|v| v.parse::<i64>().ok()), bound.parse::<i64>()) else { return false };
            if r.operator == "Gt" {
                have > bound
            } else {
                have < bound
            }
        }
        _ => false,
    }
}

fn field_requirement(r: &NodeSelectorRequirement, name: &str) -> bool {
    let values = r.values.as_deref().unwrap_or_default();
    if r.key != "metadata.name" || values.len() != 1 {
        return false;
    }
    match r.operator.as_str() {
        "In" => values.iter().any(|v| v == name),
        "NotIn" => values.iter().all(|v| v != name),
        _ => false,
    }
}

/// The label keys a required node affinity reads, and whether it reads the node's name.
pub fn affinity_keys(required: &NodeSelector) -> (Vec<&str>, bool) {
    let mut keys = Vec::new();
    let mut by_name = false;
    for t in &required.node_selector_terms {
        keys.extend(t.match_expressions.iter().flatten().map(|r| r.key.as_str()));
        by_name |= t.match_fields.as_ref().is_some_and(|f| !f.is_empty());
    }
    (keys, by_name)
}

/// The labels a pod pins a node to, with the values it accepts for each: its `nodeSelector` (one
/// value each) and the `In` expressions of a single required node-affinity term (the way a
/// runtime pins a node pool or a choice of machine types). With several terms (ORed) nothing of
/// the affinity is a pin. A key both set is the selector's.
pub fn pinned_labels(spec: &PodSpec) -> BTreeMap<String, Vec<String>> {
    let mut labels: BTreeMap<String, Vec<String>> =
        spec.node_selector.iter().flatten().map(|(k, v)| (k.clone(), vec![v.clone()])).collect();
    let terms = required_affinity(spec).map(|r| r.node_selector_terms.as_slice()).unwrap_or_default();
    if let [term] = terms {
        for e in term.match_expressions.iter().flatten() {
            if e.operator == "In" {
                if let Some(values) = e.values.as_ref().filter(|v| !v.is_empty()) {
                    labels.entry(e.key.clone()).or_insert_with(|| values.clone());
                }
            }
        }
    }
    labels
}

/// The labels [`pinned_labels`] pins to exactly one value.
pub fn pinned_values(spec: &PodSpec) -> BTreeMap<String, String> {
    pinned_labels(spec)
        .into_iter()
        .filter_map(|(k, v)| match <[String; 1]>::try_from(v) {
            Ok([one]) => Some((k, one)),
            Err(_) => None,
        })
        .collect()
}

/// True for a taint that keeps pods off a node (NoSchedule, NoExecute).
pub fn filters(taint: &Taint) -> bool {
    facts().scheduling.filtering_effects.contains(&taint.effect)
}

/// `ToleratesTaint`: the toleration tolerates the taint.
pub fn tolerates(t: &Toleration, taint: &Taint) -> bool {
    let effect = t.effect.as_deref().unwrap_or_default();
    if !effect.is_empty() && effect != taint.effect {
        return false;
    }
    let key = t.key.as_deref().unwrap_or_default();
    if !key.is_empty() && key != taint.key {
        return false;
    }
    match t.operator.as_deref().unwrap_or_default() {
        "Exists" => true,
        "" | "Equal" => t.value.as_deref().unwrap_or_default() == taint.value.as_deref().unwrap_or_default(),
        _ => false,
    }
}

/// True when `t` tolerates some taint of the kind `pattern` describes: the pattern's key and
/// effect, and its value where the pattern is `Equal` (an `Exists` pattern stands for a taint
/// whose value is not known, which a toleration of any value may name). How the validator asks
/// whether a pod tolerates the taint the accelerator data says a pool carries.
pub fn tolerates_pattern(t: &Toleration, pattern: &Toleration) -> bool {
    let value = match pattern.operator.as_deref() {
        Some("Exists") => t.value.clone(),
        _ => pattern.value.clone(),
    };
    let taint =
        Taint { key: pattern.key.clone().unwrap_or_default(), value, effect: pattern.effect.clone().unwrap_or_default(), time_added: None };
    tolerates(t, &taint)
}

/// The first filtering taint (in the node's order) that no toleration tolerates.
pub fn untolerated<'a>(taints: &'a [Taint], tolerations: &[Toleration]) -> Option<&'a Taint> {
    taints.iter().filter(|t| filters(t)).find(|taint| !tolerations.iter().any(|t| tolerates(t, taint)))
}

/// The taint the NodeUnschedulable filter checks: a pod goes to a cordoned node only when one of
/// its tolerations tolerates it.
pub fn unschedulable_taint() -> &'static Taint {
    &facts().scheduling.unschedulable_taint
}

/// True when these tolerations let a pod onto a cordoned node.
pub fn tolerates_cordon(tolerations: &[Toleration]) -> bool {
    tolerations.iter().any(|t| tolerates(t, unschedulable_taint()))
}

/// A pod's tolerations after admission: its own, the DefaultTolerationSeconds ones, and, where
/// the cluster runs ExtendedResourceToleration, one for each requested extended resource
/// (`extended`).
pub fn admitted_tolerations<'a>(
    own: &[Toleration],
    extended: impl IntoIterator<Item = &'a str>,
    extended_resource_toleration: bool,
) -> Vec<Toleration> {
    let s = &facts().scheduling;
    let mut out = own.to_vec();
    out.extend(s.admission_tolerations.iter().cloned());
    if extended_resource_toleration {
        out.extend(extended.into_iter().map(|r| Toleration { key: Some(r.to_string()), ..s.extended_resource_toleration.clone() }));
    }
    out
}

/// A taint as kubectl writes it: `key=value:Effect` (`key:Effect` without a value).
pub fn taint_text(t: &Taint) -> String {
    match t.value.as_deref().filter(|v| !v.is_empty()) {
        Some(v) => format!("{}={v}:{}", t.key, t.effect),
        None => format!("{}:{}", t.key, t.effect),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn affinity(yaml: &str) -> NodeSelector {
        crate::yaml::from_str(yaml).unwrap()
    }

    fn taint(key: &str, value: Option<&str>, effect: &str) -> Taint {
        Taint { key: key.into(), value: value.map(Into::into), effect: effect.into(), time_added: None }
    }

    fn toleration(yaml: &str) -> Toleration {
        crate::yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn selectors_need_every_label_with_its_value() {
        let node = labels(&[("a", "1"), ("b", "2")]);
        assert!(selector_matches(&labels(&[("a", "1")]), &node));
        assert!(selector_matches(&BTreeMap::new(), &node));
        assert!(!selector_matches(&labels(&[("a", "1"), ("c", "3")]), &node));
        assert!(!selector_matches(&labels(&[("a", "2")]), &node));
    }

    #[test]
    fn affinity_operators_follow_the_label_selector_rules() {
        let node = labels(&[("zone", "a"), ("gpus", "8")]);
        let m = |yaml: &str| affinity_matches(&affinity(yaml), &node, "n1");
        assert!(m("nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a, b]}]}]"));
        assert!(!m("nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: NotIn, values: [a]}]}]"));
        assert!(
            m("nodeSelectorTerms: [{matchExpressions: [{key: absent, operator: NotIn, values: [a]}]}]"),
            "NotIn holds without the label"
        );
        assert!(m("nodeSelectorTerms: [{matchExpressions: [{key: absent, operator: DoesNotExist}]}]"));
        assert!(m("nodeSelectorTerms: [{matchExpressions: [{key: gpus, operator: Gt, values: ['7']}]}]"));
        assert!(!m("nodeSelectorTerms: [{matchExpressions: [{key: gpus, operator: Lt, values: ['8']}]}]"));
        assert!(!m("nodeSelectorTerms: [{matchExpressions: [{key: gpus, operator: Gt, values: ['1', '2']}]}]"));
        assert!(!m("nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: Bogus, values: [a]}]}]"));
        assert!(!m("nodeSelectorTerms: [{}]"), "an empty term matches nothing");
        assert!(m("nodeSelectorTerms: [{}, {matchExpressions: [{key: zone, operator: Exists}]}]"), "terms are ORed");
        assert!(!m("nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: Exists}], matchFields: [{key: metadata.name, operator: In, values: [n2]}]}]"));
        assert!(m("nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: NotIn, values: [n2]}]}]"));
    }

    #[test]
    fn a_pod_needs_its_selector_and_its_affinity_both() {
        let pod: PodSpec = crate::yaml::from_str(
            "containers: []\nnodeSelector: {pool: a}\naffinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: node.kubernetes.io/instance-type, operator: In, values: [x, y]}]}]}}}\n",
        )
        .unwrap();
        assert!(node_matches(&pod, &labels(&[("pool", "a"), ("node.kubernetes.io/instance-type", "y")]), "n"));
        assert!(!node_matches(&pod, &labels(&[("pool", "a"), ("node.kubernetes.io/instance-type", "z")]), "n"));
        assert!(!node_matches(&pod, &labels(&[("node.kubernetes.io/instance-type", "x")]), "n"));
        let pins = pinned_labels(&pod);
        assert_eq!(pins["node.kubernetes.io/instance-type"], ["x", "y"]);
        assert_eq!(pinned_values(&pod), labels(&[("pool", "a")]), "a choice of two is not one value");
    }

    #[test]
    fn tolerations_follow_tolerates_taint() {
        let tpu = taint("google.com/tpu", Some("present"), "NoSchedule");
        assert!(tolerates(&toleration("{key: google.com/tpu, operator: Exists, effect: NoSchedule}"), &tpu));
        assert!(tolerates(&toleration("{key: google.com/tpu, operator: Exists}"), &tpu), "no effect: every effect");
        assert!(tolerates(&toleration("{operator: Exists}"), &tpu), "no key: every taint");
        assert!(tolerates(&toleration("{key: google.com/tpu, value: present}"), &tpu), "empty operator is Equal");
        assert!(!tolerates(&toleration("{key: google.com/tpu, operator: Equal, value: other}"), &tpu));
        assert!(!tolerates(&toleration("{key: google.com/tpu, operator: Exists, effect: NoExecute}"), &tpu));
        assert!(!tolerates(&toleration("{key: google.com/tpu, operator: Lt, value: '1'}"), &tpu));
        let sku = taint("sku", Some("gpu"), "NoSchedule");
        assert!(!tolerates(&toleration("{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}"), &sku));
        // A pattern without a value: any value the toleration names will do.
        let pattern = toleration("{key: google.com/tpu, operator: Exists, effect: NoSchedule}");
        assert!(tolerates_pattern(&toleration("{key: google.com/tpu, operator: Equal, value: present}"), &pattern));
        assert!(!tolerates_pattern(&toleration("{key: google.com/tpu, operator: Exists, effect: NoExecute}"), &pattern));
        let valued = toleration("{key: sku, operator: Equal, value: gpu, effect: NoSchedule}");
        assert!(!tolerates_pattern(&toleration("{key: sku, operator: Equal, value: cpu}"), &valued));
    }

    #[test]
    fn prefer_no_schedule_never_blocks_and_the_first_untolerated_taint_is_named() {
        let taints = vec![taint("soft", None, "PreferNoSchedule"), taint("a", Some("1"), "NoSchedule"), taint("b", None, "NoExecute")];
        assert_eq!(untolerated(&taints, &[]).map(|t| t.key.as_str()), Some("a"));
        assert_eq!(untolerated(&taints, &[toleration("{key: a, operator: Exists}")]).map(|t| t.key.as_str()), Some("b"));
        assert_eq!(untolerated(&taints, &[toleration("{operator: Exists}")]), None);
        assert_eq!(taint_text(&taints[1]), "a=1:NoSchedule");
        assert_eq!(taint_text(&taints[2]), "b:NoExecute");
    }

    #[test]
    fn admission_adds_the_not_ready_tolerations_and_where_it_runs_one_per_extended_resource() {
        let plain = admitted_tolerations(&[], ["google.com/tpu"], false);
        let keys: Vec<&str> = plain.iter().filter_map(|t| t.key.as_deref()).collect();
        assert_eq!(keys, ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]);
        let gke = admitted_tolerations(&[], ["google.com/tpu"], true);
        assert!(gke.iter().any(|t| tolerates(t, &taint("google.com/tpu", Some("present"), "NoSchedule"))));
        assert!(!tolerates_cordon(&gke));
        assert!(tolerates_cordon(&[toleration("{operator: Exists}")]));
    }
}
