//! GPU fabrics (`catalog/accelerators/fabrics.yaml`): per platform and machine type, what a pod
//! needs to use the machine's fast inter-node network (GPUDirect-TCPX/TCPXO, GPUDirect RDMA, EFA,
//! InfiniBand): annotations, native sidecars, volumes, and the `node` container's env, mounts,
//! capabilities and extended resources. Gives the fabric of a machine type, and the typed pod patch
//! ([`FabricPatch`]) for one machine with a runtime's overrides ([`Overrides`]).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, EnvVar, Volume, VolumeMount};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// GKE's annotation listing a pod's network interfaces (multi-networking).
pub const GKE_INTERFACES: &str = "networking.gke.io/interfaces";
/// Prefix of GKE's per-container device list, read by the NRI device injector.
pub const GKE_DEVICES_PREFIX: &str = "devices.gke.io/container.";

/// `fabrics.yaml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FabricData {
    pub fabrics: Vec<Fabric>,
}

/// One fabric of one platform.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Fabric {
    /// Stable name, written in the runtime's `jax-runtimes.dev/interconnect` annotation.
    pub name: String,
    /// For people, e.g. `GPUDirect-TCPXO`.
    pub title: String,
    /// A platform of `platforms.yaml`.
    pub platform: String,
    pub description: String,
    /// The machine types that have it, with what differs per machine.
    pub machine_types: Vec<FabricMachine>,
    /// The fabric's NICs are reached through pod networking: `hostNetwork` must stay off.
    pub pod_network: bool,
    /// GKE multi-networking: the pod's interfaces, written as the `networking.gke.io/interfaces` annotation.
    #[serde(default)]
    pub networks: Vec<NetworkInterface>,
    /// Pod annotations, as they are.
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    /// GKE NRI device injector: container name -> device paths (`devices.gke.io/container.<name>`).
    #[serde(default)]
    pub devices: BTreeMap<String, Vec<String>>,
    /// Native sidecars (init containers with `restartPolicy: Always`).
    #[serde(default)]
    pub sidecars: Vec<Container>,
    #[serde(default)]
    pub volumes: Vec<Volume>,
    /// What the `node` container gets.
    #[serde(default)]
    pub node: NodePatch,
    /// DRA: the devices each pod claims through a ResourceClaimTemplate written beside the runtime
    /// (DRANET). A fabric with claims is a DRA fabric: `interconnect: dra` picks it where a machine
    /// type also has a device-plugin fabric, `auto` picks it where it is the machine's only one.
    #[serde(default)]
    pub claims: Vec<DraClaim>,
    /// Node labels the pod selects (`nodeSelector`): what the node pool must carry for the fabric.
    #[serde(default)]
    pub node_selector: BTreeMap<String, String>,
    /// An NVIDIA ComputeDomain the pods need beside the claims (multi-node NVLink, IMEX): written
    /// beside the runtime, its channel claimed by the pod.
    #[serde(default)]
    pub compute_domain: Option<ComputeDomainClaim>,
    /// What a runtime may override under `spec.accelerator.gpu.fabric`.
    pub settings: Vec<Setting>,
    /// How `validate` recognises a pod that uses the fabric.
    pub detect: Detect,
    /// What the node pool (and cluster) must provide, for the docs page.
    pub requires: Vec<String>,
    pub sources: Vec<String>,
}

/// A machine type of a fabric, and its own values.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FabricMachine {
    pub name: String,
    /// Extended resources (requests = limits), e.g. `vpc.amazonaws.com/efa: 32`. A fabric whose
    /// devices are counted (`detect.resource*`) but whose count is not known for this machine lists
    /// none: the runtime must set `fabric.resources`.
    #[serde(default)]
    pub resources: BTreeMap<String, Quantity>,
    /// A `memory` request added when the container requests neither cpu nor memory (Kubernetes
    /// refuses hugepages without one).
    #[serde(default)]
    pub memory_request: Option<Quantity>,
    /// Env after the fabric's own (same names replace).
    #[serde(default)]
    pub env: Vec<EnvVar>,
    /// Interfaces instead of the fabric's.
    #[serde(default)]
    pub networks: Option<Vec<NetworkInterface>>,
}

/// One device request of a DRA fabric: a pod claim (`spec.resourceClaims[]`), claimed by the `node`
/// container (`resources.claims[]`), made from a ResourceClaimTemplate named
/// [`claim_template_name`] with one request of `deviceClassName`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DraClaim {
    /// The claim's name in the pod and the request's name in the template (a DNS label).
    pub name: String,
    /// The DeviceClass the driver installs (e.g. `mrdma.google.com`).
    pub device_class_name: String,
    /// `ExactCount` (with `count`) or `All` (every matching device of the node).
    pub allocation_mode: AllocationMode,
    #[serde(default)]
    pub count: Option<i64>,
    /// CEL expressions every device must satisfy (`selectors[].cel.expression`).
    #[serde(default)]
    pub selectors: Vec<String>,
}

/// A fabric's ComputeDomain (NVIDIA DRA driver for GPUs, `resource.nvidia.com`): the pod claim of
/// its IMEX channel, made from the ResourceClaimTemplate the driver creates for the ComputeDomain
/// (named [`claim_template_name`] of the claim, as the ComputeDomain's `spec.channel` says).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ComputeDomainClaim {
    /// The claim's name in the pod (a DNS label), e.g. `compute-domain-channel`.
    pub claim: String,
}

/// The name of the ComputeDomain written beside runtime `runtime`.
pub fn compute_domain_name(runtime: &str) -> String {
    format!("{runtime}-compute-domain")
}

/// `exactly.allocationMode` of a device request (resource.k8s.io/v1 `DeviceRequest`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AllocationMode {
    ExactCount,
    All,
}

/// The name of the ResourceClaimTemplate of `claim` for the runtime `runtime`: one per runtime and
/// claim, so that a cluster gets it with the runtime. Cut, with a hash of the whole, to the 253
/// characters of an object name.
pub fn claim_template_name(runtime: &str, claim: &str) -> String {
    let full = format!("{runtime}-{claim}");
    if full.len() <= 253 {
        return full;
    }
    let hash = full.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    let mut cut = 253 - 17;
    while !full.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}-{hash:016x}", full[..cut].trim_end_matches(['-', '.']))
}

/// One entry of GKE's `networking.gke.io/interfaces` annotation: a pod interface and the cluster's
/// `Network` object it attaches to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NetworkInterface {
    /// The interface in the pod, e.g. `eth1`.
    pub interface_name: String,
    /// The name of the cluster's `Network` object (networking.gke.io/v1), e.g. `vpc1`.
    pub network: String,
}

/// The `node` container's part.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodePatch {
    #[serde(default)]
    pub env: Vec<EnvVar>,
    #[serde(default)]
    pub volume_mounts: Vec<VolumeMount>,
    /// Added to `securityContext.capabilities.add`.
    #[serde(default)]
    pub capabilities: Vec<String>,
}

/// A value a runtime may override.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Setting {
    /// `fabric.networks`: the GKE interfaces and the cluster's network names.
    Networks,
    /// `fabric.daemonImage`: the image of the fabric's daemon sidecar.
    DaemonImage,
    /// `fabric.resources`: the extended resources, instead of the data's.
    Resources,
    /// `fabric.env`: added after the fabric's env.
    Env,
}

impl Setting {
    /// The field under `spec.accelerator.gpu.fabric`.
    pub fn field(self) -> &'static str {
        match self {
            Setting::Networks => "networks",
            Setting::DaemonImage => "daemonImage",
            Setting::Resources => "resources",
            Setting::Env => "env",
        }
    }
}

/// What marks a pod that uses the fabric.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Detect {
    /// A pod annotation.
    #[serde(default)]
    pub annotation: Option<String>,
    /// An extended resource of a container.
    #[serde(default)]
    pub resource: Option<String>,
    /// Any extended resource with this prefix (the name is the cluster's choice).
    #[serde(default)]
    pub resource_prefix: Option<String>,
    /// A pod resource claim (DRA): the devices are in the claim's template, not in the pod.
    #[serde(default)]
    pub resource_claim: bool,
}

impl Detect {
    /// True when the pod (its annotations and the resource names of its containers) uses the fabric.
    pub fn matches<'a>(&self, annotations: &BTreeMap<String, String>, mut resources: impl Iterator<Item = &'a str>) -> bool {
        if let Some(a) = &self.annotation {
            return annotations.contains_key(a);
        }
        if self.resource_claim {
            return false;
        }
        resources.any(|r| self.resource.as_deref() == Some(r) || self.resource_prefix.as_deref().is_some_and(|p| r.starts_with(p)))
    }

    /// What the pod lacks, in words.
    pub fn describe(&self) -> String {
        match (&self.annotation, &self.resource, &self.resource_prefix) {
            _ if self.resource_claim => "a pod resource claim (`spec.resourceClaims`) of the fabric's devices".into(),
            (Some(a), _, _) => format!("the pod annotation `{a}`"),
            (_, Some(r), _) => format!("a `{r}` request"),
            (_, _, Some(p)) => format!("a `{p}*` request"),
            _ => "the fabric".into(),
        }
    }

    /// Does the fabric count devices as an extended resource (so a machine needs a count)?
    pub fn counts_devices(&self) -> bool {
        self.annotation.is_none() && (self.resource.is_some() || self.resource_prefix.is_some())
    }
}

/// A runtime's overrides of the fabric's cluster-specific values.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub networks: Option<Vec<NetworkInterface>>,
    pub daemon_image: Option<String>,
    pub resources: Option<BTreeMap<String, Quantity>>,
    pub env: Vec<EnvVar>,
}

/// What a fabric adds to the pod of a runtime on one machine type.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FabricPatch {
    pub name: String,
    pub title: String,
    pub pod_annotations: BTreeMap<String, String>,
    pub sidecars: Vec<Container>,
    pub volumes: Vec<Volume>,
    pub node_mounts: Vec<VolumeMount>,
    pub capabilities: Vec<String>,
    pub env: Vec<EnvVar>,
    /// Requests = limits.
    pub resources: BTreeMap<String, Quantity>,
    pub memory_request: Option<Quantity>,
    pub pod_network: bool,
    /// DRA claims (empty for a device-plugin fabric).
    pub claims: Vec<DraClaim>,
    pub node_selector: BTreeMap<String, String>,
    pub compute_domain: Option<ComputeDomainClaim>,
    pub description: String,
    /// The fields of `spec.accelerator.gpu.fabric` the fabric takes.
    pub settings: Vec<String>,
    pub requires: Vec<String>,
    pub sources: Vec<String>,
}

/// Why a fabric patch cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FabricError {
    #[error("the number of {what} devices of `{machine}` is not known; set `fabric.resources` (e.g. `{{{example}: N}}`) to the count the node advertises")]
    UnknownCount { machine: String, what: String, example: String },
    #[error("the `{0}` annotation cannot be written: {1}")]
    Annotation(String, String),
}

impl FabricData {
    /// The fabric `interconnect: auto` wires on a machine type of a platform, with the machine's
    /// entry: its device-plugin (or multi-networking) fabric, else its DRA fabric.
    pub fn of_machine(&self, platform: &str, machine: &str) -> Option<(&Fabric, &FabricMachine)> {
        self.find(platform, machine, false).or_else(|| self.find(platform, machine, true))
    }

    /// The DRA fabric of a machine type on a platform (`interconnect: dra`).
    pub fn dra_of_machine(&self, platform: &str, machine: &str) -> Option<(&Fabric, &FabricMachine)> {
        self.find(platform, machine, true)
    }

    fn find(&self, platform: &str, machine: &str, dra: bool) -> Option<(&Fabric, &FabricMachine)> {
        self.fabrics
            .iter()
            .filter(|f| f.platform == platform && f.is_dra() == dra)
            .find_map(|f| f.machine_types.iter().find(|m| m.name == machine).map(|m| (f, m)))
    }

    pub fn by_name(&self, name: &str) -> Option<&Fabric> {
        self.fabrics.iter().find(|f| f.name == name)
    }
}

impl Fabric {
    /// Does the pod reach the fabric through DRA claims?
    pub fn is_dra(&self) -> bool {
        !self.claims.is_empty()
    }

    /// The pod patch for `machine` with the runtime's overrides. Overrides of values the fabric
    /// does not have (see [`Fabric::settings`]) are the caller's to refuse; here they are ignored.
    pub fn patch(&self, machine: &FabricMachine, o: &Overrides) -> Result<FabricPatch, FabricError> {
        let allows = |s: Setting| self.settings.contains(&s);
        let mut annotations = self.annotations.clone();
        let networks = o
            .networks
            .as_ref()
            .filter(|_| allows(Setting::Networks))
            .or(machine.networks.as_ref())
            .cloned()
            .unwrap_or_else(|| self.networks.clone());
        if !networks.is_empty() {
            let json = serde_json::to_string(&networks).map_err(|e| FabricError::Annotation(GKE_INTERFACES.into(), e.to_string()))?;
            annotations.insert(GKE_INTERFACES.into(), json);
        }
        for (container, paths) in &self.devices {
            #[derive(Serialize)]
            struct Device<'a> {
                path: &'a str,
            }
            let list: Vec<Device> = paths.iter().map(|p| Device { path: p }).collect();
            let key = format!("{GKE_DEVICES_PREFIX}{container}");
            let yaml = crate::yaml::to_string(&list).map_err(|e| FabricError::Annotation(key.clone(), e.to_string()))?;
            annotations.insert(key, yaml);
        }
        let mut sidecars = self.sidecars.clone();
        if let Some(image) = o.daemon_image.as_ref().filter(|_| allows(Setting::DaemonImage)) {
            for s in &mut sidecars {
                s.image = Some(image.clone());
            }
        }
        let resources = match o.resources.as_ref().filter(|_| allows(Setting::Resources)) {
            Some(r) => r.clone(),
            None => machine.resources.clone(),
        };
        if self.detect.counts_devices() && !resources.keys().any(|k| self.detect.matches(&BTreeMap::new(), std::iter::once(k.as_str()))) {
            let example =
                self.detect.resource.clone().or_else(|| self.detect.resource_prefix.as_ref().map(|p| format!("{p}ib"))).unwrap_or_default();
            return Err(FabricError::UnknownCount { machine: machine.name.clone(), what: self.title.clone(), example });
        }
        let mut env = self.node.env.clone();
        for e in machine.env.iter().chain(o.env.iter().filter(|_| allows(Setting::Env))) {
            match env.iter_mut().find(|x| x.name == e.name) {
                Some(x) => *x = e.clone(),
                None => env.push(e.clone()),
            }
        }
        let hugepages = resources.keys().any(|k| k.starts_with("hugepages-"));
        Ok(FabricPatch {
            name: self.name.clone(),
            title: self.title.clone(),
            pod_annotations: annotations,
            sidecars,
            volumes: self.volumes.clone(),
            node_mounts: self.node.volume_mounts.clone(),
            capabilities: self.node.capabilities.clone(),
            env,
            resources,
            memory_request: machine.memory_request.clone().filter(|_| hugepages),
            pod_network: self.pod_network,
            claims: self.claims.clone(),
            node_selector: self.node_selector.clone(),
            compute_domain: self.compute_domain.clone(),
            description: self.description.clone(),
            settings: self.settings.iter().map(|s| s.field().to_string()).collect(),
            requires: self.requires.clone(),
            sources: self.sources.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accelerators::data;
    use std::collections::BTreeSet;

    #[test]
    fn every_fabric_machine_is_a_gpu_machine_of_its_platform_and_listed_once() {
        let d = data();
        let mut seen = BTreeSet::new();
        for f in &d.fabrics.fabrics {
            assert!(d.gpu.platform(&f.platform).is_some(), "{}: platform {}", f.name, f.platform);
            assert!(!f.machine_types.is_empty() && !f.requires.is_empty() && !f.sources.is_empty(), "{}", f.name);
            for m in &f.machine_types {
                assert!(
                    seen.insert((f.platform.clone(), m.name.clone(), f.is_dra())),
                    "{} on {} has two fabrics of one kind",
                    m.name,
                    f.platform
                );
                let gpu =
                    d.gpu.models.iter().filter_map(|g| g.on(&f.platform)).flat_map(|on| &on.machine_types).any(|mt| mt.name == m.name);
                // A TPU host's fabric is a DRA one (`interconnect: dra` on a TPU platform).
                let tpu = d.tpu.platforms.contains(&f.platform)
                    && d.tpu.generations.iter().flat_map(|g| &g.machine_types).any(|mt| mt.name == m.name);
                assert!(
                    gpu || (tpu && f.is_dra()),
                    "{}: machine type {} is not in gpu.yaml (or a TPU one of a DRA fabric) for {}",
                    f.name,
                    m.name,
                    f.platform
                );
            }
        }
    }

    #[test]
    fn every_mount_names_a_volume_of_the_fabric_and_names_do_not_clash() {
        for f in &data().fabrics.fabrics {
            let volumes: BTreeSet<&str> = f.volumes.iter().map(|v| v.name.as_str()).collect();
            assert_eq!(volumes.len(), f.volumes.len(), "{}: a volume name twice", f.name);
            assert!(
                !volumes.contains(crate::accelerators::SHM_VOLUME),
                "{}: `{}` is the shared-memory volume",
                f.name,
                crate::accelerators::SHM_VOLUME
            );
            let mounts = f.node.volume_mounts.iter().chain(f.sidecars.iter().flat_map(|s| s.volume_mounts.iter().flatten()));
            for m in mounts {
                assert!(volumes.contains(m.name.as_str()), "{}: mount of unknown volume {}", f.name, m.name);
                assert_ne!(m.mount_path, "/dev/shm", "{}: /dev/shm is the runtime's shared memory", f.name);
            }
            for s in &f.sidecars {
                assert_eq!(s.restart_policy.as_deref(), Some("Always"), "{}: {} must be a native sidecar", f.name, s.name);
                assert!(s.image.is_some(), "{}: {} has no image", f.name, s.name);
                assert_ne!(s.name, crate::trainer::facts().node, "{}", f.name);
            }
            for c in f.devices.keys() {
                assert!(f.sidecars.iter().any(|s| &s.name == c), "{}: devices for unknown container {c}", f.name);
            }
            if f.sidecars.is_empty() {
                assert!(!f.settings.contains(&Setting::DaemonImage), "{}: daemonImage without a daemon", f.name);
            }
            if f.networks.is_empty() {
                assert!(!f.settings.contains(&Setting::Networks), "{}: networks setting without networks", f.name);
            }
            assert!(f.pod_network || f.networks.is_empty(), "{}: GKE interfaces need pod networking", f.name);
        }
    }

    #[test]
    fn counted_fabrics_give_every_known_machine_a_count() {
        for f in &data().fabrics.fabrics {
            for m in &f.machine_types {
                match f.patch(m, &Overrides::default()) {
                    Ok(p) => {
                        if f.detect.counts_devices() {
                            assert!(f.detect.matches(&BTreeMap::new(), p.resources.keys().map(String::as_str)), "{} {}", f.name, m.name);
                        }
                        if p.resources.keys().any(|k| k.starts_with("hugepages-")) {
                            assert!(p.memory_request.is_some(), "{} {}: hugepages need a memory request beside them", f.name, m.name);
                        }
                    }
                    Err(FabricError::UnknownCount { .. }) => assert!(m.resources.is_empty(), "{} {}", f.name, m.name),
                    Err(e) => panic!("{} {}: {e}", f.name, m.name),
                }
            }
        }
    }

    #[test]
    fn gke_annotations_are_written_as_gke_reads_them() {
        let d = &data().fabrics;
        let (f, m) = d.of_machine("gke", "a3-megagpu-8g").unwrap();
        let p = f.patch(m, &Overrides::default()).unwrap();
        let interfaces: Vec<NetworkInterface> = serde_json::from_str(&p.pod_annotations[GKE_INTERFACES]).unwrap();
        assert_eq!(interfaces.len(), 9);
        assert_eq!(interfaces[8], NetworkInterface { interface_name: "eth8".into(), network: "vpc8".into() });
        let devices = &p.pod_annotations["devices.gke.io/container.tcpxo-daemon"];
        assert!(devices.starts_with("- path: /dev/nvidia0\n- path: /dev/nvidia1\n"), "{devices}");
        assert!(devices.ends_with("- path: /dev/dmabuf_import_helper\n"), "{devices}");
        let own = Overrides {
            networks: Some(vec![NetworkInterface { interface_name: "eth0".into(), network: "default".into() }]),
            ..Default::default()
        };
        let p = f.patch(m, &own).unwrap();
        assert_eq!(p.pod_annotations[GKE_INTERFACES], r#"[{"interfaceName":"eth0","network":"default"}]"#);
    }

    #[test]
    fn overrides_replace_resources_only_where_the_fabric_allows() {
        let d = &data().fabrics;
        let (f, m) = d.of_machine("eks", "p5.48xlarge").unwrap();
        let p = f.patch(m, &Overrides::default()).unwrap();
        assert_eq!(p.resources["vpc.amazonaws.com/efa"].0, "32");
        assert_eq!(p.memory_request.as_ref().map(|q| q.0.as_str()), Some("32000Mi"));
        let fewer =
            Overrides { resources: Some(BTreeMap::from([("vpc.amazonaws.com/efa".into(), Quantity("16".into()))])), ..Default::default() };
        let p = f.patch(m, &fewer).unwrap();
        assert_eq!(p.resources.len(), 1);
        assert!(p.memory_request.is_none(), "no hugepages, no memory request");
        let (f, m) = d.of_machine("eks", "p6e-gb200.36xlarge").unwrap();
        assert!(matches!(f.patch(m, &Overrides::default()), Err(FabricError::UnknownCount { .. })));
        let (f, m) = d.of_machine("gke", "a3-ultragpu-8g").unwrap();
        let p = f.patch(m, &fewer).unwrap();
        assert!(p.resources.is_empty(), "GPUDirect RDMA on GKE counts no devices");
    }
}
