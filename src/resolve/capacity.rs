//! `spec.capacity` (over `JaxRuntimeDefaults.spec.capacity`, key by key) -> the capacity choices of
//! a runtime ([`Choice`]) checked against `catalog/capacity.yaml`: known kinds with values of their
//! type, offered on the runtime's platform, not excluding each other, flex-start only for what it
//! serves; then their node selectors and tolerations put on the runtime, the selectors they decide
//! taken off the accelerator's.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Toleration;

use super::resolved::Accel;
use crate::capacity::{data, Choice, Takes};
use crate::catalog::{Capacity, CapacityValue, Platform};
use crate::diag::Diagnostic;
use crate::rules::catalog::{CATALOG_CAPACITY, CATALOG_CAPACITY_CONFLICT};

/// The runtime's capacity: the defaults' entries, then its own (`false` turns a default off).
/// `Err` holds every problem found.
pub fn choices(
    own: Option<&Capacity>,
    defaults: Option<&Capacity>,
    platform: &Platform,
    accel: &Accel,
) -> Result<Vec<Choice>, Vec<Diagnostic>> {
    let mut merged: BTreeMap<&str, (&CapacityValue, bool)> = BTreeMap::new();
    for (c, from_defaults) in [(defaults, true), (own, false)] {
        for (k, v) in c.iter().flat_map(|c| &c.0) {
            merged.insert(k.as_str(), (v, from_defaults));
        }
    }
    let table = data();
    let mut errors = Vec::new();
    let mut out: Vec<Choice> = Vec::new();
    // Data order, so that output does not depend on how the entry spells its keys.
    let mut keys: Vec<&str> = merged.keys().copied().collect();
    keys.sort_by_key(|k| table.kinds.iter().position(|x| x.name == *k).unwrap_or(usize::MAX));
    for key in keys {
        let (value, from_defaults) = merged[key];
        let field = if from_defaults { "spec.capacity".to_string() } else { format!("spec.capacity.{key}") };
        let Some(kind) = table.kind(key) else {
            let mut d = Diagnostic::new(&CATALOG_CAPACITY, format!("`{key}` is not a capacity kind")).with_field(&field);
            d = match crate::spelling::nearest(key, table.names(), 3) {
                Some(n) => d.with_help(format!("did you mean `{n}`? The kinds: {}", table.names().collect::<Vec<_>>().join(", "))),
                None => d.with_help(format!("the kinds: {}", table.names().collect::<Vec<_>>().join(", "))),
            };
            errors.push(d);
            continue;
        };
        let choice = match (kind.takes, value) {
            (Takes::Flag, CapacityValue::Flag(false)) => continue,
            (Takes::Flag, CapacityValue::Flag(true)) => Choice::flag(key),
            (Takes::Name, CapacityValue::Name(n)) if !n.trim().is_empty() => Choice::named(key, n),
            (Takes::Flag, _) => {
                errors.push(
                    Diagnostic::new(&CATALOG_CAPACITY, format!("`{key}` takes `true` or `false`"))
                        .with_field(&field)
                        .with_help(format!("write `{key}: true`")),
                );
                continue;
            }
            (Takes::Name, _) => {
                let what = if key == "computeClass" { "ComputeClass" } else { "reservation" };
                errors.push(
                    Diagnostic::new(&CATALOG_CAPACITY, format!("`{key}` takes the name of a {what}"))
                        .with_field(&field)
                        .with_help(format!("write `{key}: NAME`")),
                );
                continue;
            }
        };
        if kind.on(platform.as_str()).is_none() {
            let on = kind.offered_on().iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ");
            errors.push(
                Diagnostic::new(
                    &CATALOG_CAPACITY,
                    format!("{} is not a capacity of platform `{platform}`; it is offered on {on}", choice.words()),
                )
                .with_field(&field)
                .with_help(match kind.offered_on().as_slice() {
                    [one] => format!("remove `{key}`, or set `spec.platform: {one}`"),
                    _ => format!("remove `{key}`, or set `spec.platform` to one of {on}"),
                }),
            );
            continue;
        }
        if kind.single_host_tpu_only {
            if let Accel::Tpu(t) = accel {
                if t.multi_host() {
                    errors.push(
                        Diagnostic::new(
                            &CATALOG_CAPACITY,
                            format!(
                                "{} serve single-host TPU slices; a {} {} slice has {}",
                                choice.words(),
                                t.generation,
                                t.topology,
                                crate::words::count(t.hosts, "host")
                            ),
                        )
                        .with_field(&field)
                        .with_help("use a single-host topology, or a reservation or Spot VMs for a multi-host slice"),
                    );
                    continue;
                }
            }
        }
        if kind.mode {
            if let Accel::Gpu(g) = accel {
                let fabrics = &table.autopilot.fabrics;
                if let Some(f) = g.fabric.as_ref().filter(|f| !fabrics.contains(&f.name)) {
                    errors.push(
                        Diagnostic::new(
                            &CATALOG_CAPACITY,
                            format!(
                                "{} offers no GPU fabric jax-runtimes knows; the runtime gets `{}`, whose hostPath volumes and capabilities Autopilot refuses",
                                choice.words(),
                                f.name
                            ),
                        )
                        .with_field(&field)
                        .with_help("set `spec.accelerator.gpu.interconnect: none` (the pods talk over the pod network), or run on GKE Standard"),
                    );
                    continue;
                }
            }
        }
        for earlier in &out {
            if let Some(c) = table.conflict(&earlier.kind, &choice.kind) {
                errors.push(
                    Diagnostic::new(
                        &CATALOG_CAPACITY_CONFLICT,
                        format!("{} and {} cannot be combined: {}", earlier.words(), choice.words(), c.why),
                    )
                    .with_field(&field)
                    .with_help(format!("keep one of `{}` and `{}`", earlier.kind, choice.kind)),
                );
            }
        }
        out.push(choice);
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Puts the choices on a runtime: their node selectors and tolerations (after the accelerator's),
/// and takes the selectors they decide off the accelerator's. A selector they decide that the
/// entry or its defaults set is an error (`user_keys`: the keys the entry and defaults set).
pub fn apply(
    choices: &[Choice],
    platform: &Platform,
    user_keys: &[&str],
    node_selector: &mut BTreeMap<String, String>,
    tolerations: &mut Vec<Toleration>,
) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    for c in choices {
        for key in c.replaces(platform.as_str()) {
            if user_keys.contains(&key.as_str()) {
                errors.push(
                    Diagnostic::new(
                        &CATALOG_CAPACITY,
                        format!(
                            "`{key}` is decided by {} (GKE rejects a pod that selects both); the runtime sets it in `nodeSelector`",
                            c.words()
                        ),
                    )
                    .with_field(format!("spec.nodeSelector.{key}"))
                    .with_help(format!("remove `{key}` from the node selector (of the entry or its defaults)")),
                );
            }
            node_selector.remove(&key);
        }
    }
    for c in choices {
        node_selector.extend(c.node_selector(platform.as_str()));
        for t in c.tolerations(platform.as_str()) {
            if !tolerations.contains(&t) {
                tolerations.push(t);
            }
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(v: serde_json::Value) -> Capacity {
        serde_json::from_value(v).unwrap()
    }

    fn rules(r: Result<Vec<Choice>, Vec<Diagnostic>>) -> Vec<(&'static str, String)> {
        r.unwrap_err().into_iter().map(|d| (d.rule.id, d.message)).collect()
    }

    #[test]
    fn defaults_are_merged_key_by_key_and_false_turns_one_off() {
        let d = cap(serde_json::json!({"spot": true, "autopilot": true}));
        let own = cap(serde_json::json!({"spot": false, "computeClass": "c1"}));
        let got = choices(Some(&own), Some(&d), &Platform::new("gke"), &Accel::Cpu).unwrap();
        assert_eq!(got, [Choice::named("computeClass", "c1"), Choice::flag("autopilot")]);
    }

    #[test]
    fn unknown_kinds_wrong_values_platforms_and_conflicts_are_errors() {
        let gke = Platform::new("gke");
        let e = rules(choices(Some(&cap(serde_json::json!({"spto": true}))), None, &gke, &Accel::Cpu));
        assert_eq!(e[0].0, "catalog/capacity");
        let e = rules(choices(Some(&cap(serde_json::json!({"computeClass": true, "spot": "yes"}))), None, &gke, &Accel::Cpu));
        assert_eq!(e.len(), 2, "{e:?}");
        let e = rules(choices(Some(&cap(serde_json::json!({"computeClass": "c"}))), None, &Platform::new("eks"), &Accel::Cpu));
        assert!(e[0].1.contains("not a capacity of platform `eks`"), "{e:?}");
        let e = rules(choices(Some(&cap(serde_json::json!({"spot": true, "reservation": "r1"}))), None, &gke, &Accel::Cpu));
        assert_eq!(e[0].0, "catalog/capacity-conflict");
        assert!(e[0].1.contains("Spot VMs and reservation r1"), "{e:?}");
    }
}
