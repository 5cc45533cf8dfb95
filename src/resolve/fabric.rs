//! A GPU entry's interconnect: its placement (the machine types it can land on), `interconnect`,
//! `fabric` settings (the entry's over the defaults') and node count -> the fabric wired into the
//! pod ([`FabricPatch`], from [`crate::accelerators::fabric`]) or none, with findings that say why
//! a multi-node runtime got none (`interconnect/*`).
//!
//! `auto` wires a fabric when the runtime has more than one node, every machine type it can land
//! on has the same fabric, and each pod takes the whole machine (the vendors' rule: the pod uses
//! every GPU and every GPU NIC of the node). Where no fabric is known, `fabric.resources`, `env`
//! and `capabilities` make one (an RDMA device plugin's resource on any cluster).

use std::collections::BTreeMap;

use crate::accelerators::fabric::{Fabric, FabricMachine, Overrides};
use crate::accelerators::{data, FabricError, FabricPatch, GpuShape};
use crate::catalog::{FabricSpec, GpuSpec, Interconnect};
use crate::diag::Diagnostic;
use crate::k8s::quantity;
use crate::k8s::resources::{is_extended, is_hugepages};
use crate::rules::catalog::CATALOG_INVALID_VALUE;
use crate::rules::interconnect::{INTERCONNECT_HOST_NETWORK, INTERCONNECT_NOT_WIRED, INTERCONNECT_UNUSED_SETTINGS};

/// The name of a fabric made from the runtime's own `fabric` settings.
pub const CUSTOM: &str = "custom";

const FIELD: &str = "spec.accelerator.gpu.fabric";

/// What was decided: the fabric (if any) and the findings.
#[derive(Debug, Default)]
pub struct Wiring {
    pub fabric: Option<FabricPatch>,
    pub findings: Vec<Diagnostic>,
}

/// The entry's settings over the defaults'.
pub(super) fn merged(entry: Option<&FabricSpec>, defaults: Option<&FabricSpec>) -> FabricSpec {
    let (e, d) = (entry.cloned().unwrap_or_default(), defaults.cloned().unwrap_or_default());
    let mut capabilities = d.capabilities;
    for c in e.capabilities {
        if !capabilities.contains(&c) {
            capabilities.push(c);
        }
    }
    FabricSpec {
        networks: if e.networks.is_empty() { d.networks } else { e.networks },
        daemon_image: e.daemon_image.or(d.daemon_image),
        resources: e.resources.or(d.resources),
        env: d.env.into_iter().chain(e.env).collect(),
        capabilities,
    }
}

/// The settings the entry itself gives, by their field name.
fn given(spec: Option<&FabricSpec>) -> Vec<&'static str> {
    let Some(s) = spec else { return Vec::new() };
    [
        ("networks", !s.networks.is_empty()),
        ("daemonImage", s.daemon_image.is_some()),
        ("resources", s.resources.is_some()),
        ("env", !s.env.is_empty()),
        ("capabilities", !s.capabilities.is_empty()),
    ]
    .into_iter()
    .filter(|(_, set)| *set)
    .map(|(n, _)| n)
    .collect()
}

fn unused(field: &str, why: &str) -> Diagnostic {
    Diagnostic::new(&INTERCONNECT_UNUSED_SETTINGS, format!("`fabric.{field}` is not used: {why}"))
        .with_field(format!("{FIELD}.{field}"))
        .with_help(INTERCONNECT_UNUSED_SETTINGS.fix)
}

fn not_wired(message: String, help: &str) -> Diagnostic {
    Diagnostic::new(&INTERCONNECT_NOT_WIRED, message).with_field("spec.accelerator.gpu").with_help(help)
}

/// Decides the interconnect of a GPU entry placed as `shape` on `platform`.
pub fn wire(shape: &GpuShape, gpu: &GpuSpec, defaults: Option<&FabricSpec>, platform: &str, num_nodes: i32, host_network: bool) -> Wiring {
    let mut w = Wiring::default();
    if let Some(r) = gpu.fabric.as_ref().and_then(|f| f.resources.as_ref()) {
        w.findings.extend(check_resources(r));
        if !w.findings.is_empty() {
            return w;
        }
    }
    let own = given(gpu.fabric.as_ref());
    let why_off = if num_nodes <= 1 {
        Some("the runtime has one node, and a fabric is wired only between nodes")
    } else if gpu.interconnect == Some(Interconnect::None) {
        Some("`interconnect` is `none`")
    } else {
        None
    };
    if let Some(why) = why_off {
        w.findings.extend(own.iter().map(|f| unused(f, why)));
        return w;
    }
    let settings = merged(gpu.fabric.as_ref(), defaults);
    let fabrics = &data().fabrics;
    let dra = gpu.interconnect == Some(Interconnect::Dra);
    let known: Vec<(&str, Option<(&Fabric, &FabricMachine)>)> = shape
        .machine_types
        .iter()
        .map(|m| (m.as_str(), if dra { fabrics.dra_of_machine(platform, m) } else { fabrics.of_machine(platform, m) }))
        .collect();
    let with_any = known.iter().any(|(_, f)| f.is_some());
    if dra && !with_any {
        let machines = shape.machine_types.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ");
        w.findings.push(not_wired(
            format!("`interconnect` is `dra`, but no DRA fabric (DRANET) is known for {} on `{platform}`; no fabric is wired", if machines.is_empty() { format!("`{}`", shape.model) } else { machines }),
            "set `interconnect: auto` for the machine type's own fabric, or pin a machine type that has a DRA fabric (`jax-runtimes accelerators --kind gpu`)",
        ));
        w.findings.extend(own.iter().map(|f| unused(f, "no fabric is wired")));
        return w;
    }
    let with: Vec<&str> = known.iter().filter(|(_, f)| f.is_some()).map(|(m, _)| *m).collect();
    if with.is_empty() {
        match custom(&settings, own.contains(&"env")) {
            Some(patch) => {
                w.findings.extend(["networks", "daemonImage"].iter().filter(|f| own.contains(f)).map(|f| {
                    unused(f, "no fabric with GKE interfaces or a daemon is known for this machine type; the fabric is made from `resources`, `env` and `capabilities`")
                }));
                w.fabric = Some(patch);
            }
            None => {
                let what = match known.as_slice() {
                    [] => format!("jax-runtimes knows no machine types of `{}` on `{platform}`, so no fabric", shape.model),
                    [(m, _)] => format!("machine type `{m}` has no fast interconnect jax-runtimes knows"),
                    many => format!(
                        "none of the machine types {} has a fast interconnect jax-runtimes knows",
                        many.iter().map(|(m, _)| format!("`{m}`")).collect::<Vec<_>>().join(", ")
                    ),
                };
                w.findings.push(not_wired(
                    format!("{what}; the {num_nodes} pods talk over the pod network"),
                    "set `spec.accelerator.gpu.fabric.resources` (and `env`, `capabilities: [IPC_LOCK]`) to the RDMA resource your cluster's device plugin advertises, or `interconnect: none` to say the pod network is intended",
                ));
                w.findings.extend(own.iter().map(|f| unused(f, "no fabric is wired")));
            }
        }
        return w;
    }
    let pin_help =
        "pin one machine type with `spec.accelerator.gpu.machineType` (or `machineTypes` of one fabric), or set `interconnect: none`";
    if with.len() < known.len() {
        let without: Vec<String> = known.iter().filter(|(_, f)| f.is_none()).map(|(m, _)| format!("`{m}`")).collect();
        w.findings.push(not_wired(
            format!(
                "the pods can land on machine types with a fabric ({}) and without one ({}); no fabric is wired",
                with.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", "),
                without.join(", ")
            ),
            pin_help,
        ));
        return w;
    }
    // Every machine type has a fabric: each pod must take the whole machine.
    let on = data().gpu.model(&shape.model).ok().and_then(|m| m.on(platform));
    let partial: Vec<String> = shape
        .machine_types
        .iter()
        .filter_map(|m| {
            on.and_then(|o| o.machine(m)).filter(|mt| mt.gpus != shape.count).map(|mt| format!("`{}` ({} GPUs)", mt.name, mt.gpus))
        })
        .collect();
    if !partial.is_empty() {
        let title = known.first().and_then(|(_, f)| f.map(|(f, _)| f.title.clone())).unwrap_or_default();
        w.findings.push(not_wired(
            format!(
                "{title} needs each pod to take the whole machine, but the pods take {} GPUs of {}; no fabric is wired",
                shape.count,
                partial.join(", ")
            ),
            "set `count` to the machine's GPU count (one pod per node), or `interconnect: none`",
        ));
        return w;
    }
    let overrides = Overrides {
        networks: (!settings.networks.is_empty()).then(|| settings.networks.clone()),
        daemon_image: settings.daemon_image.clone(),
        resources: settings.resources.clone(),
        env: settings.env.clone(),
    };
    let mut patches: Vec<(&str, FabricPatch)> = Vec::new();
    for (m, found) in &known {
        let Some((fabric, machine)) = found else { continue };
        match fabric.patch(machine, &overrides) {
            Ok(p) => patches.push((m, p)),
            Err(e @ FabricError::UnknownCount { .. }) => {
                w.findings.push(not_wired(format!("{} on `{m}` is not wired: {e}", fabric.title), "set the value the message names"));
                return w;
            }
            Err(e) => {
                w.findings.push(not_wired(format!("{} on `{m}` is not wired: {e}", fabric.title), "report this: the fabric data is wrong"));
                return w;
            }
        }
    }
    let Some((_, first)) = patches.first().cloned() else { return w };
    if patches.iter().any(|(_, p)| p != &first) {
        w.findings.push(not_wired(
            format!(
                "the machine types {} need different fabric settings (their device counts or NCCL settings differ); no fabric is wired",
                patches.iter().map(|(m, _)| format!("`{m}`")).collect::<Vec<_>>().join(", ")
            ),
            pin_help,
        ));
        return w;
    }
    if let Some((fabric, _)) = known.first().and_then(|(_, f)| *f) {
        let allowed: Vec<&str> = fabric.settings.iter().map(|s| s.field()).collect();
        for f in &own {
            if !allowed.contains(f) {
                w.findings.push(unused(
                    f,
                    &format!("{} takes {}", fabric.title, allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")),
                ));
            }
        }
        if host_network && fabric.pod_network {
            w.findings.push(
                Diagnostic::new(
                    &INTERCONNECT_HOST_NETWORK,
                    format!("{} reaches its NICs through pod networking, but the runtime sets `hostNetwork: true`", fabric.title),
                )
                .with_field("spec.hostNetwork")
                .with_help(INTERCONNECT_HOST_NETWORK.fix),
            );
        }
    }
    w.fabric = Some(first);
    w
}

/// `fabric.resources` holds extended resources (a whole number each, as Kubernetes requires) and
/// huge pages (a quantity); cpu, memory and storage belong in `spec.resources`.
fn check_resources(r: &BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (name, q) in r {
        let field = format!("{FIELD}.resources.{name}");
        let v = q.0.as_str();
        let amount = quantity::parse(v).ok().filter(|a| !a.is_negative());
        let problem = if !is_hugepages(name) && !is_extended(name) {
            Some(format!("`{name}` is not a fabric resource; cpu, memory and storage go under `spec.resources`"))
        } else if is_hugepages(name) {
            amount.is_none().then(|| format!("`{name}: {v}` is not a Kubernetes quantity (e.g. `5120Mi`)"))
        } else {
            (!amount.is_some_and(|a| a.is_whole()))
                .then(|| format!("`{name}: {v}` is not a whole number; Kubernetes counts extended resources in whole devices"))
        };
        if let Some(message) = problem {
            out.push(
                Diagnostic::new(&CATALOG_INVALID_VALUE, message)
                    .with_field(field)
                    .with_help("use the device count the node advertises, e.g. `\"8\"`"),
            );
        }
    }
    out
}

/// A fabric made from the runtime's own settings, where the data knows none.
/// Env alone makes one only when the entry sets it (the defaults' env applies to every runtime).
fn custom(s: &FabricSpec, own_env: bool) -> Option<FabricPatch> {
    if s.resources.is_none() && s.capabilities.is_empty() && !own_env {
        return None;
    }
    let resources: BTreeMap<_, _> = s.resources.clone().unwrap_or_default();
    let mut requires = Vec::new();
    if !resources.is_empty() {
        requires.push(format!(
            "A device plugin that advertises {} on every node the pods can land on.",
            resources.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    if !s.capabilities.is_empty() {
        requires.push(format!(
            "A namespace whose Pod Security level allows the capabilities {} (`privileged` for IPC_LOCK).",
            s.capabilities.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    Some(FabricPatch {
        name: CUSTOM.into(),
        title: "the fabric of `spec.accelerator.gpu.fabric`".into(),
        pod_annotations: BTreeMap::new(),
        sidecars: Vec::new(),
        volumes: Vec::new(),
        node_mounts: Vec::new(),
        capabilities: s.capabilities.clone(),
        env: s.env.clone(),
        resources,
        memory_request: None,
        pod_network: false,
        claims: Vec::new(),
        node_selector: BTreeMap::new(),
        compute_domain: None,
        description: "The extended resources, env and capabilities the runtime's `fabric` settings name.".into(),
        settings: ["resources", "env", "capabilities"].map(String::from).to_vec(),
        requires,
        sources: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{DefaultsSpec, JaxRuntime};
    use crate::diag::ObjectRef;
    use crate::read::{Place, Source};
    use crate::resolve::{Accel, Origin, Resolved};

    fn resolve_with(spec: serde_json::Value, defaults: &DefaultsSpec) -> Result<(Resolved, Vec<Diagnostic>), Vec<Diagnostic>> {
        let entry: JaxRuntime = serde_json::from_value(
            serde_json::json!({"apiVersion": "jax-runtimes.dev/v1alpha1", "kind": "JaxRuntime", "metadata": {"name": "x"}, "spec": spec}),
        )
        .unwrap();
        let origin = Origin {
            doc: Place::new(Source::named("t"), 0),
            object: ObjectRef::new("JaxRuntime", "x"),
            row: None,
            generated: None,
            field_prefix: "",
        };
        crate::resolve::entry::resolve_entry(&entry, defaults, origin)
    }

    fn resolve(spec: serde_json::Value) -> Result<(Resolved, Vec<Diagnostic>), Vec<Diagnostic>> {
        resolve_with(spec, &DefaultsSpec::default())
    }

    fn fabric(r: &Resolved) -> Option<&FabricPatch> {
        match &r.accelerator {
            Accel::Gpu(g) => g.fabric.as_ref(),
            _ => None,
        }
    }

    fn ids(d: &[Diagnostic]) -> Vec<&'static str> {
        d.iter().map(|d| d.rule.id).collect()
    }

    #[test]
    fn auto_wires_the_fabric_of_whole_machines_between_nodes_only() {
        let (r, w) =
            resolve(serde_json::json!({"platform": "gke", "numNodes": 2, "accelerator": {"gpu": {"model": "h100-mega-80gb"}}})).unwrap();
        assert_eq!(fabric(&r).map(|f| f.name.as_str()), Some("gpudirect-tcpxo"));
        assert!(w.is_empty(), "{w:?}");
        assert!(r.env.iter().any(|e| e.name == "NCCL_FASTRAK_IFNAME"), "the fabric's env reaches the container");
        let (r, w) = resolve(serde_json::json!({"platform": "gke", "accelerator": {"gpu": {"model": "h100-mega-80gb"}}})).unwrap();
        assert!(fabric(&r).is_none() && w.is_empty(), "one node: no fabric, no finding");
        let (r, w) =
            resolve(serde_json::json!({"platform": "gke", "numNodes": 2, "accelerator": {"gpu": {"model": "h100-mega-80gb", "interconnect": "none"}}}))
                .unwrap();
        assert!(fabric(&r).is_none() && w.is_empty(), "opted out: no fabric, no finding");
    }

    #[test]
    fn a_multi_node_runtime_without_a_fabric_says_why() {
        let why = |spec: serde_json::Value| {
            let (r, w) = resolve(spec).unwrap();
            assert!(fabric(&r).is_none());
            assert_eq!(ids(&w), ["interconnect/not-wired"], "{w:?}");
            w[0].message.clone()
        };
        let m = why(serde_json::json!({"platform": "gke", "numNodes": 2, "accelerator": {"gpu": {"model": "a100-40gb"}}}));
        assert!(m.contains("a2-highgpu-8g") && m.contains("pod network"), "{m}");
        let m = why(
            serde_json::json!({"platform": "gke", "numNodes": 2, "accelerator": {"gpu": {"model": "h100-80gb", "count": 4, "machineType": "a3-highgpu-8g"}}}),
        );
        assert!(m.contains("whole machine") && m.contains("4 GPUs"), "{m}");
        let m = why(serde_json::json!({"platform": "gke", "numNodes": 2, "accelerator": {"gpu": {"model": "h100-80gb", "count": 4}}}));
        assert!(m.contains("with a fabric (`a3-highgpu-8g`)") && m.contains("`a3-highgpu-4g`"), "{m}");
        let m = why(serde_json::json!({"platform": "eks", "numNodes": 2, "accelerator": {"gpu": {"model": "h200-141gb"}}}));
        assert!(m.contains("`p5e.48xlarge`, `p5en.48xlarge`") && m.contains("different"), "{m}");
        let m = why(serde_json::json!({"platform": "eks", "numNodes": 2, "accelerator": {"gpu": {"model": "gb200"}}}));
        assert!(m.contains("fabric.resources") && m.contains("p6e-gb200.36xlarge"), "{m}");
        let m = why(serde_json::json!({"platform": "generic", "numNodes": 2, "accelerator": {"gpu": {"model": "h100-80gb"}}}));
        assert!(m.contains("no machine types"), "{m}");
        // Pinning one of them wires it.
        let (r, w) = resolve(serde_json::json!({"platform": "eks", "numNodes": 2, "accelerator": {"gpu": {"model": "h200-141gb", "machineType": "p5en.48xlarge"}}})).unwrap();
        assert_eq!(fabric(&r).map(|f| f.resources["vpc.amazonaws.com/efa"].0.as_str()), Some("16"));
        assert!(w.is_empty());
    }

    #[test]
    fn pod_network_fabrics_refuse_host_network() {
        let errs = resolve(
            serde_json::json!({"platform": "gke", "numNodes": 2, "hostNetwork": true, "accelerator": {"gpu": {"model": "h100-mega-80gb"}}}),
        )
        .unwrap_err();
        assert_eq!(ids(&errs), ["interconnect/host-network"]);
        assert_eq!(errs[0].field.as_deref(), Some("spec.hostNetwork"));
        let (r, _) = resolve(
            serde_json::json!({"platform": "eks", "numNodes": 2, "hostNetwork": true, "accelerator": {"gpu": {"model": "h100-80gb"}}}),
        )
        .unwrap();
        assert_eq!(fabric(&r).map(|f| f.name.as_str()), Some("efa"), "EFA devices work with the host network too");
    }

    #[test]
    fn settings_that_are_not_used_are_warned_about() {
        let (_, w) = resolve(serde_json::json!({"platform": "eks", "numNodes": 2, "accelerator": {"gpu": {"model": "h100-80gb",
            "fabric": {"networks": [{"interfaceName": "eth1", "network": "x"}]}}}}))
        .unwrap();
        assert_eq!(ids(&w), ["interconnect/unused-settings"]);
        assert_eq!(w[0].field.as_deref(), Some("spec.accelerator.gpu.fabric.networks"));
        let (_, w) =
            resolve(serde_json::json!({"platform": "eks", "accelerator": {"gpu": {"model": "h100-80gb", "fabric": {"resources": {"vpc.amazonaws.com/efa": "8"}}}}}))
                .unwrap();
        assert_eq!(ids(&w), ["interconnect/unused-settings"]);
        assert!(w[0].message.contains("one node"), "{}", w[0].message);
    }

    #[test]
    fn the_defaults_name_the_clusters_networks_and_the_entry_wins() {
        let nets = |names: &[&str]| -> serde_json::Value {
            names.iter().enumerate().map(|(i, n)| serde_json::json!({"interfaceName": format!("eth{i}"), "network": n})).collect()
        };
        let defaults: DefaultsSpec =
            serde_json::from_value(serde_json::json!({"fabric": {"networks": nets(&["default", "a", "b"])}})).unwrap();
        let spec = serde_json::json!({"platform": "gke", "numNodes": 2, "accelerator": {"gpu": {"model": "h100-80gb"}}});
        let (r, _) = resolve_with(spec, &defaults).unwrap();
        let ann = &fabric(&r).unwrap().pod_annotations[crate::accelerators::fabric::GKE_INTERFACES];
        assert!(ann.contains("\"network\":\"b\""), "{ann}");
        let spec = serde_json::json!({"platform": "gke", "numNodes": 2, "accelerator": {"gpu": {"model": "h100-80gb", "fabric": {"networks": nets(&["default", "c"])}}}});
        let (r, _) = resolve_with(spec, &defaults).unwrap();
        let ann = &fabric(&r).unwrap().pod_annotations[crate::accelerators::fabric::GKE_INTERFACES];
        assert!(ann.contains("\"network\":\"c\"") && !ann.contains("\"network\":\"b\""), "{ann}");
    }

    #[test]
    fn fabric_resources_are_whole_devices_and_quantities() {
        let errs = resolve(serde_json::json!({"platform": "eks", "numNodes": 2, "accelerator": {"gpu": {"model": "b200",
            "fabric": {"resources": {"vpc.amazonaws.com/efa": "lots", "hugepages-2Mi": "5G B", "memory": "1Gi"}}}}}))
        .unwrap_err();
        assert_eq!(ids(&errs), ["catalog/invalid-value"; 3]);
        let ok = resolve(serde_json::json!({"platform": "eks", "numNodes": 2, "accelerator": {"gpu": {"model": "b200",
            "fabric": {"resources": {"vpc.amazonaws.com/efa": "8000m", "hugepages-2Mi": "5120Mi"}}}}}));
        assert!(ok.is_ok(), "the quantities Kubernetes reads: {:?}", ok.err());
        let errs = resolve(serde_json::json!({"platform": "eks", "numNodes": 2, "accelerator": {"gpu": {"model": "b200",
            "fabric": {"resources": {"vpc.amazonaws.com/efa": "1500m", "hugepages-2Mi": "-1Mi"}}}}}))
        .unwrap_err();
        assert_eq!(ids(&errs), ["catalog/invalid-value"; 2]);
    }

    #[test]
    fn hugepages_bring_a_memory_request_only_where_the_runtime_requests_none() {
        let spec = |res: serde_json::Value| serde_json::json!({"platform": "eks", "numNodes": 2, "resources": res, "accelerator": {"gpu": {"model": "h100-80gb"}}});
        let (r, _) = resolve(spec(serde_json::json!({}))).unwrap();
        let req = r.resources.requests.unwrap();
        assert_eq!((req["memory"].0.as_str(), req["hugepages-2Mi"].0.as_str()), ("32000Mi", "5120Mi"));
        assert!(!r.resources.limits.unwrap().contains_key("memory"), "a request, never a limit");
        let (r, _) = resolve(spec(serde_json::json!({"requests": {"cpu": "96"}}))).unwrap();
        assert!(!r.resources.requests.unwrap().contains_key("memory"), "a cpu request already satisfies Kubernetes");
    }
}
