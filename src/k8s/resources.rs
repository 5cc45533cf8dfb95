//! Container resources as the Job and Pod admission checks them (kubernetes/kubernetes v1.34.1
//! `pkg/apis/core/validation/validation.go` `validateResourceRequirements`,
//! `validateContainerResourceName`, `ValidateResourceQuantityValue`,
//! `validateResourceQuantityHugePageValue`; `pkg/apis/core/helper/helpers.go` `IsNativeResource`,
//! `IsExtendedResourceName`, `IsOvercommitAllowed`, `IsHugePageResourceValueDivisible`), plus the
//! quantity grammar of [`super::quantity`], which the CRD applies at apply.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ResourceRequirements;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use super::facts::facts;
use super::finding::{finding, finding_at, shown, Scope};
use super::names;
use super::quantity::{self, Quantity, QuantityError};
use crate::diag::{Diagnostic, FieldPath};
use crate::rules::kubernetes::{
    K8S_HUGEPAGES, K8S_QUANTITY, K8S_QUANTITY_NEGATIVE, K8S_REQUEST_ABOVE_LIMIT, K8S_RESOURCE_INTEGER, K8S_RESOURCE_NAME,
    RESOURCES_REQUESTS_LIMITS,
};
use crate::rules::Moment;

/// `IsNativeResource`: no `/`, or inside the `kubernetes.io/` domain.
pub fn is_native(name: &str) -> bool {
    !name.contains('/') || name.contains(facts().resources.native_domain.as_str())
}

/// `IsHugePageResourceName`.
pub fn is_hugepages(name: &str) -> bool {
    name.starts_with(facts().resources.huge_pages_prefix.as_str())
}

/// `IsExtendedResourceName`: not native, not `requests.`-prefixed, and a qualified name with it.
pub fn is_extended(name: &str) -> bool {
    let quota = facts().resources.quota_prefix.as_str();
    !is_native(name) && !name.starts_with(quota) && names::qualified_name(&format!("{quota}{name}")).is_ok()
}

/// `IsOvercommitAllowed`: native and not hugepages. Requests of other resources equal their limits.
pub fn overcommit_allowed(name: &str) -> bool {
    is_native(name) && !is_hugepages(name)
}

/// Parses one quantity at `field`: a finding when it is not a quantity or is negative.
pub fn quantity_at(value: &str, field: &FieldPath, out: &mut Vec<Diagnostic>) -> Option<Quantity> {
    match quantity::parse(value) {
        Err(e) => {
            let message = format!("{} is not a Kubernetes quantity (e.g. 8, 500m, 1.5): it {e}", shown(value));
            out.push(match e {
                // The CRD's quantity pattern takes a fractional exponent, so the runtime (and a
                // TrainJob) is stored; ParseQuantity refuses it in the Job JobSet creates (checked
                // with a real kube-apiserver, tests/controlplane.rs).
                QuantityError::FractionalExponent(_) => finding_at(&K8S_QUANTITY, Some(Moment::Start), field, message),
                _ => finding(&K8S_QUANTITY, Scope::Template, field, message),
            });
            None
        }
        Ok(q) if q.is_negative() => {
            out.push(finding(&K8S_QUANTITY_NEGATIVE, Scope::Template, field, format!("`{value}` is negative; amounts are zero or more")));
            None
        }
        Ok(q) => Some(q),
    }
}

/// The requests and limits of one container at `path` (`...containers[0].resources`).
pub fn requirements(r: &ResourceRequirements, path: &FieldPath, out: &mut Vec<Diagnostic>) {
    let empty = BTreeMap::new();
    let limits = checked(r.limits.as_ref().unwrap_or(&empty), &path.field("limits"), out);
    let requests = checked(r.requests.as_ref().unwrap_or(&empty), &path.field("requests"), out);
    for (name, req) in &requests {
        let field = path.field("requests").key(name);
        let raw =
            |m: &Option<BTreeMap<String, K8sQuantity>>| m.as_ref().and_then(|m| m.get(*name)).map(|q| q.0.clone()).unwrap_or_default();
        match limits.get(name) {
            Some(lim) if !overcommit_allowed(name) && lim != req => out.push(finding(
                &RESOURCES_REQUESTS_LIMITS,
                Scope::Template,
                field,
                format!(
                    "`{name}` request {} differs from its limit {}; it cannot be overcommitted, so both must be equal",
                    raw(&r.requests),
                    raw(&r.limits)
                ),
            )),
            Some(lim) if req > lim => out.push(finding(
                &K8S_REQUEST_ABOVE_LIMIT,
                Scope::Template,
                field,
                format!("`{name}` request {} is above its limit {}", raw(&r.requests), raw(&r.limits)),
            )),
            None if !overcommit_allowed(name) && !r.limits.as_ref().is_some_and(|l| l.contains_key(*name)) => out.push(finding(
                &RESOURCES_REQUESTS_LIMITS,
                Scope::Template,
                field,
                format!("`{name}` has a request ({}) but no limit; it cannot be overcommitted, so it needs a limit", raw(&r.requests)),
            )),
            _ => {}
        }
    }
    let all = || r.limits.iter().chain(r.requests.iter()).flat_map(|m| m.keys());
    let qos = &facts().resources.qos;
    if all().any(|n| is_hugepages(n)) && !all().any(|n| qos.iter().any(|q| q == n)) {
        out.push(finding(
            &K8S_HUGEPAGES,
            Scope::Template,
            path,
            "the container requests hugepages but neither cpu nor memory; hugepages require cpu or memory",
        ));
    }
}

/// Names and amounts of one section; the amounts that parse, by name.
fn checked<'a>(map: &'a BTreeMap<String, K8sQuantity>, path: &FieldPath, out: &mut Vec<Diagnostic>) -> BTreeMap<&'a str, Quantity> {
    let mut parsed = BTreeMap::new();
    for (name, value) in map {
        let field = path.key(name);
        if let Some(problem) = name_problem(name) {
            out.push(finding(&K8S_RESOURCE_NAME, Scope::Template, field.clone(), format!("`{name}` {problem}")));
            // The amount is a second mistake, refused sooner: the CRD's quantity pattern holds
            // for every key, at apply.
            let _ = quantity_at(&value.0, &field, out);
            continue;
        }
        let Some(q) = quantity_at(&value.0, &field, out) else { continue };
        if is_extended(name) && !q.is_whole() {
            out.push(finding(
                &K8S_RESOURCE_INTEGER,
                Scope::Template,
                field.clone(),
                format!("`{name}: {}` is not a whole number; extended resources are counted in whole devices", value.0),
            ));
            continue;
        }
        if is_hugepages(name) {
            let page = name.strip_prefix(facts().resources.huge_pages_prefix.as_str()).and_then(|s| quantity::parse(s).ok());
            match page.filter(|p| p.is_whole() && p.units() > 0) {
                None => {
                    out.push(finding(
                        &K8S_HUGEPAGES,
                        Scope::Template,
                        field,
                        format!("`{name}` does not name a page size (`hugepages-2Mi`, `hugepages-1Gi`)"),
                    ));
                    continue;
                }
                Some(p) if q.units() % p.units() != 0 => {
                    out.push(finding(
                        &K8S_HUGEPAGES,
                        Scope::Template,
                        field,
                        format!("`{}` is not a whole number of `{name}` pages", value.0),
                    ));
                    continue;
                }
                Some(_) => {}
            }
        }
        parsed.insert(name.as_str(), q);
    }
    parsed
}

/// Why `name` is not a container resource name (`validateContainerResourceName`).
fn name_problem(name: &str) -> Option<String> {
    if let Err(e) = names::qualified_name(name) {
        return Some(format!("is not a valid resource name: it {e}"));
    }
    let r = &facts().resources;
    if !name.contains('/') {
        if r.container.iter().any(|c| c == name) || is_hugepages(name) {
            return None;
        }
        return Some(format!(
            "is not a resource containers can request: unprefixed names are {}, and `hugepages-<size>`; devices use their full name (`nvidia.com/gpu`)",
            super::facts::listed(&r.container)
        ));
    }
    if !is_native(name) && !is_extended(name) {
        return Some(format!("is not a valid extended resource name (it may not start with `{}`)", r.quota_prefix));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(limits: &[(&str, &str)], requests: &[(&str, &str)]) -> ResourceRequirements {
        let m = |p: &[(&str, &str)]| Some(p.iter().map(|(k, v)| (k.to_string(), K8sQuantity(v.to_string()))).collect());
        ResourceRequirements { limits: m(limits), requests: m(requests), ..Default::default() }
    }

    fn check(limits: &[(&str, &str)], requests: &[(&str, &str)]) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        requirements(&res(limits, requests), &"r".into(), &mut out);
        out.into_iter().map(|d| (d.rule.id, d.field.unwrap_or_default())).collect()
    }

    #[test]
    fn legal_resources_pass() {
        for (l, r) in [
            (vec![("cpu", "2"), ("memory", "10Gi")], vec![("cpu", "1500m"), ("memory", "129M")]),
            (vec![("google.com/tpu", "4")], vec![("google.com/tpu", "4")]),
            (vec![("nvidia.com/gpu", "8")], vec![]),
            (vec![("nvidia.com/gpu", "1000m")], vec![("nvidia.com/gpu", "1")]),
            (vec![("hugepages-2Mi", "1Gi"), ("memory", "2Gi")], vec![("hugepages-2Mi", "1Gi")]),
            (vec![], vec![("cpu", "1e3"), ("ephemeral-storage", "10Gi")]),
            (vec![("example.kubernetes.io/foo", "1.5")], vec![("example.kubernetes.io/foo", "1")]),
        ] {
            assert!(check(&l, &r).is_empty(), "{l:?} {r:?}: {:?}", check(&l, &r));
        }
    }

    #[test]
    fn each_mistake_has_its_rule() {
        assert_eq!(
            check(&[], &[("cpu", "eight"), ("memory", "32GB")]),
            [("k8s/quantity", "r.requests.cpu".into()), ("k8s/quantity", "r.requests.memory".into())]
        );
        assert_eq!(check(&[("cpu", "-1")], &[]), [("k8s/quantity-negative", "r.limits.cpu".into())]);
        assert_eq!(check(&[("google.com/tpu", "500m")], &[]), [("k8s/resource-integer", "r.limits.google.com/tpu".into())]);
        assert_eq!(check(&[("gpu", "1")], &[]), [("k8s/resource-name", "r.limits.gpu".into())]);
        assert_eq!(check(&[("requests.nvidia.com/gpu", "1")], &[]), [("k8s/resource-name", "r.limits.requests.nvidia.com/gpu".into())]);
        assert_eq!(check(&[("cpu", "1500m")], &[("cpu", "2")]), [("k8s/request-above-limit", "r.requests.cpu".into())]);
        assert_eq!(check(&[], &[("google.com/tpu", "4")]), [("resources/requests-limits", "r.requests.google.com/tpu".into())]);
        assert_eq!(
            check(&[("nvidia.com/gpu", "8")], &[("nvidia.com/gpu", "4")]),
            [("resources/requests-limits", "r.requests.nvidia.com/gpu".into())]
        );
        assert_eq!(check(&[("hugepages-2Mi", "1Gi")], &[]), [("k8s/hugepages", "r".into())]);
        assert_eq!(check(&[("hugepages-2Mi", "3Mi"), ("cpu", "1")], &[]), [("k8s/hugepages", "r.limits.hugepages-2Mi".into())]);
        assert_eq!(
            check(&[("hugepages-2Mi", "2Mi"), ("memory", "1Gi")], &[("hugepages-2Mi", "4Mi")]),
            [("resources/requests-limits", "r.requests.hugepages-2Mi".into())]
        );
    }

    #[test]
    fn resource_name_classes() {
        assert!(is_native("cpu") && is_native("kubernetes.io/foo") && is_native("x.kubernetes.io/foo"));
        assert!(is_extended("nvidia.com/gpu") && is_extended("nvidia.com/mig-1g.10gb") && !is_extended("NVIDIA.com/gpu"));
        assert!(!overcommit_allowed("hugepages-1Gi") && !overcommit_allowed("google.com/tpu") && overcommit_allowed("memory"));
    }
}
