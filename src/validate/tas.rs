//! Topology Aware Scheduling annotations on the pod templates of a runtime (or of the JobSet a
//! TrainJob makes of it) -> findings, as Kueue's TrainJob webhook checks every TrainJob at create
//! (kueue v0.19.2 `pkg/controller/jobs/trainjob/trainjob_webhook.go` `validateTopologyRequest`,
//! running `pkg/controller/jobframework/tas_validation.go` `ValidateTASPodSetRequest` and
//! `ValidateSliceSizeAnnotationUpperBound` on each PodSet). The multi-layer constraints annotation
//! is checked as with its feature gate (TASMultiLayerTopology) on, as it is by default in v0.19.

use std::collections::BTreeMap;

use serde_json::Value;

use super::kueue::finding;
use crate::diag::{join_path, Diagnostic};
use crate::k8s::names;
use crate::kueue::facts;
use crate::queues::PodSet;
use crate::rules::kueue::{KUEUE_TAS_CONSTRAINTS, KUEUE_TAS_GROUP, KUEUE_TAS_SLICE, KUEUE_TAS_SLICE_SIZE, KUEUE_TAS_TOPOLOGY};
use crate::trainer::TrainingRuntime;

/// Every finding of the PodSets; `annotations_of(job)` is the field path of a replicated job's
/// pod template annotations.
pub fn check(podsets: &[PodSet], annotations_of: &dyn Fn(usize) -> String) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for ps in podsets {
        podset(ps, &annotations_of(ps.job), &mut out);
    }
    out
}

/// `ValidateTASPodSetRequest` and `ValidateSliceSizeAnnotationUpperBound` for one PodSet.
fn podset(ps: &PodSet, path: &str, out: &mut Vec<Diagnostic>) {
    let a = &facts().annotations;
    let get = |k: &str| ps.annotations.get(k);
    let at = |k: &str| join_path(path, k);
    let (required, preferred, unconstrained) =
        (get(&a.podset_required_topology), get(&a.podset_preferred_topology), get(&a.podset_unconstrained_topology));
    let slice_required = get(&a.podset_slice_required_topology);
    let slice_size = get(&a.podset_slice_size);
    let group = get(&a.podset_group_name);
    let constraints = get(&a.podset_slice_required_topology_constraints);
    if [required, preferred, unconstrained].iter().filter(|v| v.is_some()).count() > 1 {
        out.push(finding(
            &KUEUE_TAS_TOPOLOGY,
            path,
            format!(
                "replicated job `{}`: must not contain more than one topology annotation: [{:?}, {:?}, {:?}]",
                ps.name, a.podset_required_topology, a.podset_preferred_topology, a.podset_unconstrained_topology
            ),
        ));
    }
    for (key, value) in [
        (&a.podset_required_topology, required),
        (&a.podset_preferred_topology, preferred),
        (&a.podset_slice_required_topology, slice_required),
    ] {
        if let Some(v) = value {
            if let Err(e) = names::qualified_name(v) {
                let rule = if key == &a.podset_slice_required_topology { &KUEUE_TAS_SLICE } else { &KUEUE_TAS_TOPOLOGY };
                out.push(finding(rule, at(key), format!("`{v}` is not a topology level (a node label key): it {e}")));
            }
        }
    }
    if let Some(g) = group {
        if g.parse::<u64>().is_ok() && !g.starts_with('+') {
            out.push(finding(&KUEUE_TAS_GROUP, at(&a.podset_group_name), format!("`{g}` must not be a number")));
        }
        if slice_size.is_some() {
            out.push(finding(
                &KUEUE_TAS_GROUP,
                at(&a.podset_group_name),
                format!("may not be set when '{}' is specified", a.podset_slice_size),
            ));
        }
        if slice_required.is_some() {
            out.push(finding(
                &KUEUE_TAS_GROUP,
                at(&a.podset_group_name),
                format!("may not be set when '{}' is specified", a.podset_slice_required_topology),
            ));
        }
        if preferred.is_none() && required.is_none() {
            out.push(finding(
                &KUEUE_TAS_GROUP,
                at(&a.podset_group_name),
                format!("may not be set when neither '{}' nor '{}' is specified", a.podset_preferred_topology, a.podset_required_topology),
            ));
        }
    }
    if let Some(v) = unconstrained {
        if parse_bool(v).is_none() {
            out.push(finding(&KUEUE_TAS_TOPOLOGY, at(&a.podset_unconstrained_topology), format!("{v:?} must be a boolean value")));
        }
    }
    let size = slice_size.map(|v| (v, parse_int32(v)));
    match size {
        Some((v, None)) => out.push(finding(&KUEUE_TAS_SLICE, at(&a.podset_slice_size), format!("{v:?} must be a numeric value"))),
        Some((v, Some(n))) if n < 1 => {
            out.push(finding(&KUEUE_TAS_SLICE, at(&a.podset_slice_size), format!("{v:?} must be greater than or equal to 1")));
        }
        _ => {}
    }
    if slice_required.is_some() && slice_size.is_none() {
        out.push(finding(
            &KUEUE_TAS_SLICE,
            at(&a.podset_slice_size),
            format!("must be set when '{}' is specified", a.podset_slice_required_topology),
        ));
    }
    if slice_required.is_none() && slice_size.is_some() {
        out.push(finding(
            &KUEUE_TAS_SLICE,
            at(&a.podset_slice_size),
            format!("may not be set when '{}' is not specified", a.podset_slice_required_topology),
        ));
    }
    let layers = constraints.map(|c| constraint_layers(c, slice_required.is_some(), slice_size.is_some(), group.is_some(), path, out));
    // The upper bound on the slice size: the PodSet's pod count.
    if let Some((v, Some(n))) = size {
        if i64::from(n) > ps.count {
            out.push(finding(
                &KUEUE_TAS_SLICE_SIZE,
                at(&a.podset_slice_size),
                format!("{v:?} must not be greater than pod set count {} (replicated job `{}`)", ps.count, ps.name),
            ));
        }
    }
    if let Some(Some(first)) = layers.as_ref().map(|l| l.first().map(|(_, size)| *size)) {
        if i64::from(first) > ps.count {
            out.push(finding(
                &KUEUE_TAS_SLICE_SIZE,
                at(&a.podset_slice_required_topology_constraints),
                format!("size {first} must not be greater than pod set count {} (replicated job `{}`)", ps.count, ps.name),
            ));
        }
    }
}

/// `validateSliceRequiredTopologyConstraintsAnnotation`: the layers `(topology, size)` when the
/// annotation reads as JSON (for the upper bound), and its findings.
fn constraint_layers(
    text: &str,
    slice_required: bool,
    slice_size: bool,
    group: bool,
    path: &str,
    out: &mut Vec<Diagnostic>,
) -> Vec<(String, i32)> {
    let a = &facts().annotations;
    let at = join_path(path, &a.podset_slice_required_topology_constraints);
    let mut bad = |rule, field: String, msg: String| out.push(finding(rule, field, msg));
    if slice_required {
        bad(&KUEUE_TAS_CONSTRAINTS, at.clone(), format!("may not be set when '{}' is specified", a.podset_slice_required_topology));
    }
    if slice_size {
        bad(&KUEUE_TAS_CONSTRAINTS, at.clone(), format!("may not be set when '{}' is specified", a.podset_slice_size));
    }
    if group {
        bad(
            &KUEUE_TAS_CONSTRAINTS,
            join_path(path, &a.podset_group_name),
            format!("may not be set when '{}' is specified", a.podset_slice_required_topology_constraints),
        );
    }
    // Go's encoding/json: a list of objects whose keys match case-insensitively; a missing field
    // is zero; `null` is an empty list.
    let layers: Result<Vec<(String, i32)>, String> = match serde_json::from_str::<Value>(text) {
        Err(e) => Err(e.to_string()),
        Ok(Value::Null) => Ok(Vec::new()),
        Ok(Value::Array(items)) => items
            .iter()
            .map(|item| {
                let Value::Object(o) = item else { return Err(format!("cannot unmarshal {item} into a constraint object")) };
                let field = |name: &str| o.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v);
                let topology = match field("topology") {
                    None | Some(Value::Null) => String::new(),
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => return Err(format!("cannot unmarshal {other} into the string field topology")),
                };
                let size = match field("size") {
                    None | Some(Value::Null) => 0,
                    Some(v) => v
                        .as_i64()
                        .and_then(|n| i32::try_from(n).ok())
                        .ok_or_else(|| format!("cannot unmarshal {v} into the int32 field size"))?,
                };
                Ok((topology, size))
            })
            .collect(),
        Ok(other) => Err(format!("cannot unmarshal {other} into a list")),
    };
    let layers = match layers {
        Ok(l) => l,
        Err(e) => {
            bad(&KUEUE_TAS_CONSTRAINTS, at, format!("{text:?} must be a valid JSON array: {e}"));
            return Vec::new();
        }
    };
    let most = facts().limits.topology_constraint_layers;
    if layers.is_empty() || layers.len() > most {
        bad(&KUEUE_TAS_CONSTRAINTS, at, format!("must have 1 to {most} layers, has {}", layers.len()));
        return layers;
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, (topology, size)) in layers.iter().enumerate() {
        if let Err(e) = names::qualified_name(topology) {
            bad(&KUEUE_TAS_CONSTRAINTS, format!("{at}[{i}].topology"), format!("`{topology}` is not a node label key: it {e}"));
        }
        if *size < 1 {
            bad(&KUEUE_TAS_CONSTRAINTS, format!("{at}[{i}].size"), format!("{size} must be greater than or equal to 1"));
        }
        if let Some(prev) = seen.insert(topology, i) {
            bad(&KUEUE_TAS_CONSTRAINTS, format!("{at}[{i}].topology"), format!("duplicate value `{topology}` (also at index {prev})"));
        }
    }
    for i in 0..layers.len() - 1 {
        let (parent, child) = (layers[i].1, layers[i + 1].1);
        if child > 0 && parent % child != 0 {
            bad(
                &KUEUE_TAS_CONSTRAINTS,
                format!("{at}[{}].size", i + 1),
                format!("{child} must evenly divide the parent layer size {parent}"),
            );
        }
    }
    layers
}

/// Go's `strconv.ParseBool`.
fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Go's `strconv.ParseInt(s, 10, 32)`.
fn parse_int32(s: &str) -> Option<i32> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.strip_prefix('+').unwrap_or(s).parse::<i32>().ok()
}

/// Kueue's TAS rules on the runtime's pod templates, for a runtime that has TAS annotations.
pub fn runtime(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let keys = crate::kueue::facts().topology_annotations();
    let has = rt.spec.template.spec.replicated_jobs.iter().any(|j| {
        j.template
            .spec
            .as_ref()
            .and_then(|s| s.template.metadata.as_ref())
            .and_then(|m| m.annotations.as_ref())
            .is_some_and(|a| a.keys().any(|k| keys.contains(&k.as_str())))
    });
    if !has {
        return Vec::new();
    }
    match crate::queues::podsets::of_runtime(rt) {
        Ok((_, sets)) => {
            check(&sets, &|job| format!("spec.template.spec.replicatedJobs[{job}].template.spec.template.metadata.annotations"))
        }
        // Requests that do not read are the Kubernetes rules' findings.
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn podset(count: i64, annotations: &[(&str, &str)]) -> PodSet {
        PodSet {
            name: "node".into(),
            job: 0,
            count,
            requests: Default::default(),
            node_selector: Default::default(),
            affinity: None,
            tolerations: Vec::new(),
            annotations: annotations.iter().map(|(k, v)| (format!("kueue.x-k8s.io/{k}"), v.to_string())).collect(),
        }
    }

    fn found(count: i64, annotations: &[(&str, &str)]) -> Vec<(&'static str, String)> {
        check(&[podset(count, annotations)], &|_| "a".into()).into_iter().map(|d| (d.rule.id, d.field.unwrap_or_default())).collect()
    }

    #[test]
    fn valid_requests_pass() {
        for a in [
            vec![("podset-preferred-topology", "cloud.google.com/gce-topology-block")],
            vec![("podset-required-topology", "kubernetes.io/hostname"), ("podset-group-name", "g")],
            vec![("podset-unconstrained-topology", "true")],
            vec![("podset-slice-required-topology", "cloud.google.com/gce-topology-host"), ("podset-slice-size", "2")],
            vec![("podset-slice-required-topology-constraints", r#"[{"topology":"b","size":4},{"topology":"h","size":2}]"#)],
        ] {
            assert!(found(4, &a).is_empty(), "{a:?}: {:?}", found(4, &a));
        }
    }

    #[test]
    fn each_rule_of_tas_validation_go() {
        let topo = found(4, &[("podset-required-topology", "a"), ("podset-preferred-topology", "b")]);
        assert_eq!(topo, [("kueue/tas-topology", "a".to_string())]);
        assert_eq!(found(4, &[("podset-preferred-topology", "not a label!")])[0].0, "kueue/tas-topology");
        assert_eq!(
            found(4, &[("podset-unconstrained-topology", "yes")]),
            [("kueue/tas-topology", "a.kueue.x-k8s.io/podset-unconstrained-topology".into())]
        );
        assert_eq!(
            found(4, &[("podset-slice-required-topology", "h")]),
            [("kueue/tas-slice", "a.kueue.x-k8s.io/podset-slice-size".into())]
        );
        assert_eq!(found(4, &[("podset-slice-size", "2")])[0].0, "kueue/tas-slice");
        let zero = found(4, &[("podset-slice-required-topology", "h"), ("podset-slice-size", "0")]);
        assert_eq!(zero, [("kueue/tas-slice", "a.kueue.x-k8s.io/podset-slice-size".into())]);
        assert_eq!(found(4, &[("podset-slice-required-topology", "h"), ("podset-slice-size", "two")])[0].0, "kueue/tas-slice");
        // The upper bound: more than the PodSet's pods.
        let big = found(4, &[("podset-slice-required-topology", "h"), ("podset-slice-size", "8")]);
        assert_eq!(big, [("kueue/tas-slice-size", "a.kueue.x-k8s.io/podset-slice-size".into())]);
        assert!(found(8, &[("podset-slice-required-topology", "h"), ("podset-slice-size", "8")]).is_empty());
        let group: Vec<_> = found(4, &[("podset-group-name", "123")]).into_iter().map(|(r, _)| r).collect();
        assert_eq!(group, ["kueue/tas-group", "kueue/tas-group"], "numeric, and no required or preferred topology");
        let constraints = |c: &str| found(4, &[("podset-slice-required-topology-constraints", c)]);
        assert_eq!(constraints("not json")[0].0, "kueue/tas-constraints");
        assert_eq!(constraints("[]")[0].0, "kueue/tas-constraints");
        let four = r#"[{"topology":"a","size":8},{"topology":"b","size":4},{"topology":"c","size":2},{"topology":"d","size":1}]"#;
        assert_eq!(constraints(four)[0].0, "kueue/tas-constraints");
        let indivisible = constraints(r#"[{"topology":"a","size":4},{"topology":"b","size":3}]"#);
        assert_eq!(indivisible, [("kueue/tas-constraints", "a.kueue.x-k8s.io/podset-slice-required-topology-constraints[1].size".into())]);
        let repeated = constraints(r#"[{"topology":"a","size":4},{"Topology":"a","SIZE":2}]"#);
        assert_eq!(repeated, [("kueue/tas-constraints", "a.kueue.x-k8s.io/podset-slice-required-topology-constraints[1].topology".into())]);
        let too_big = constraints(r#"[{"topology":"a","size":8}]"#);
        assert_eq!(too_big, [("kueue/tas-slice-size", "a.kueue.x-k8s.io/podset-slice-required-topology-constraints".into())]);
        let with_slice =
            found(4, &[("podset-slice-required-topology-constraints", r#"[{"topology":"a","size":2}]"#), ("podset-slice-size", "2")]);
        assert!(with_slice.iter().any(|(r, _)| *r == "kueue/tas-constraints"), "{with_slice:?}");
    }
}
