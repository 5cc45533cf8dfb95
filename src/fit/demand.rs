//! A runtime, or a TrainJob on its runtime -> what the TrainJob's pods will ask the scheduler for:
//! how many pods in the gang, what each requests, where it may go (node selector, required node
//! affinity, tolerations, host ports) and whether JobSet places each Job alone in one topology
//! domain.
//!
//! The pod is the one `preview` prints: Trainer's merge ([`crate::trainjob::build`], with the
//! TrainJob's `numNodes`, `resourcesPerNode`, image and runtime patches) and the pod JobSet and the
//! Job controller make of it ([`crate::trainjob::predict`]), so `fit` and `preview` agree by
//! construction. A runtime alone is fitted as the TrainJob that names it and sets `spec.trainer: {}`
//! (the Kubeflow SDK always sets it, so the JAX plugin's coordinator port is there). The API
//! server's tolerations are added by placement ([`crate::k8s::selection::admitted_tolerations`]),
//! since one of them depends on the cluster.
//!
//! Facts: JobSet copies `alpha.jobset.sigs.k8s.io/exclusive-topology` from the JobSet or a
//! replicatedJob template onto its pods (kubernetes-sigs/jobset v0.12.0
//! `pkg/controllers/jobset_controller.go` `labelAndAnnotateObject`); without a PriorityClass a pod's
//! priority is 0 (Priority admission, `plugin/pkg/admission/priority` `getDefaultPriority`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{NodeSelector, PodSpec, Toleration};

use crate::k8s::requests::{self, Amounts, RequestError};
use crate::k8s::resources::is_extended;
use crate::k8s::selection::required_affinity;
use crate::keys;
use crate::trainer::{facts, TrainJob, TrainingRuntime};
use crate::trainjob::{self, pod::PodError, Effective, Steps, TrainerVersion};

/// Why a runtime's pods cannot be worked out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DemandError {
    #[error("the runtime has no trainer replicated job (label `{}: {}`), so Trainer makes no trainer pods", facts().ancestor_label, facts().trainer_step)]
    NoTrainerJob,
    #[error("replicated job `{job}` has no pod template (`template.spec.template.spec`)")]
    NoPodTemplate { job: String },
    #[error("the TrainJob runs no pod: numNodes is {0}")]
    NoPods(i32),
    #[error("replicated job `{job}`, its pod's {source}")]
    Requests { job: String, source: RequestError },
}

/// What one runtime's TrainJob asks of the cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct Demand {
    /// The trainer replicated job.
    pub job: String,
    /// Pods per Job (`numNodes`) and Jobs (`replicas`) in one gang.
    pub pods: u32,
    pub jobs: u32,
    /// Per pod, only non-zero amounts of resources the scheduler counts.
    pub requests: Amounts,
    pub node_name: Option<String>,
    pub node_selector: BTreeMap<String, String>,
    pub affinity: Option<NodeSelector>,
    /// The pod's own tolerations (admission adds more: [`crate::k8s::selection::admitted_tolerations`]).
    pub tolerations: Vec<Toleration>,
    pub host_ports: Vec<(String, i32)>,
    /// The node label of JobSet exclusive placement.
    pub exclusive: Option<String>,
    /// The pods' priority where it is known (no `priorityClassName`: 0, or the template's).
    pub priority: Option<i32>,
    /// The TPU slice the pods form (`TPU v5e 2x4`) when they need a host each: a multi-host slice
    /// runs one pod, one JAX process, on each of its hosts.
    pub slice: Option<String>,
    /// What the pod template asks that `fit` does not model, in words.
    pub unmodelled: Vec<String>,
}

impl Demand {
    /// The demand of a runtime: of the TrainJob that names it and sets `spec.trainer: {}`, for the
    /// Trainer release the runtime targets.
    pub fn of(rt: &TrainingRuntime) -> Result<Demand, DemandError> {
        Demand::of_trainjob(rt, &trainjob::plain(rt), TrainerVersion::for_runtime(rt, None))
    }

    /// The demand of a TrainJob on its runtime, as Trainer `version` merges the two.
    pub fn of_trainjob(rt: &TrainingRuntime, tj: &TrainJob, version: TrainerVersion) -> Result<Demand, DemandError> {
        Demand::of_effective(&trainjob::build(rt, tj, version, Steps::All))
    }

    /// The demand of the JobSet Trainer builds: the pod of its first process.
    pub fn of_effective(eff: &Effective) -> Result<Demand, DemandError> {
        // No trainer job: JobSet still runs the runtime's pods as written (validate's warning
        // `trainer/node-container`); they are placed as such, with a note.
        let written;
        let (eff, as_written) = match eff.as_written() {
            Some(w) => {
                written = w;
                (&written, true)
            }
            None => (eff, false),
        };
        let job = eff.trainer().ok_or(DemandError::NoTrainerJob)?;
        let predicted = trainjob::predict(eff, 0).map_err(|e| match e {
            PodError::NoTrainerJob => DemandError::NoTrainerJob,
            PodError::NoPodTemplate(job) => DemandError::NoPodTemplate { job },
            PodError::NoProcesses(n) | PodError::NoSuchProcess { num_nodes: n, .. } => DemandError::NoPods(n),
        })?;
        let spec = predicted.pod.spec.as_ref().ok_or_else(|| DemandError::NoPodTemplate { job: job.name.clone() })?;
        let requests = requests::pod_requests(spec, None).map_err(|source| DemandError::Requests { job: job.name.clone(), source })?;
        let pod_annotations = predicted.pod.metadata.annotations.as_ref();
        let job_annotation = |key: &str| job.template.metadata.as_ref().and_then(|m| m.annotations.as_ref()).and_then(|a| a.get(key));
        let slice = slice(spec, &requests, eff.num_nodes());
        let mut unmodelled = unmodelled(spec);
        if as_written {
            unmodelled.push(format!(
                "no replicated job is labelled `{}: {}`: placed as JobSet runs replicated job `{}` as written (a TrainJob's numNodes, resources, image and env are not applied)",
                facts().ancestor_label,
                facts().trainer_step,
                job.name
            ));
        }
        if eff
            .annotations
            .get(keys::JOBSET_NODE_SELECTOR_STRATEGY)
            .or_else(|| job_annotation(keys::JOBSET_NODE_SELECTOR_STRATEGY))
            .is_some()
        {
            unmodelled.push("JobSet's node-selector strategy (nodes labelled per Job beforehand)".into());
        }
        Ok(Demand {
            job: job.name.clone(),
            pods: u32::try_from(eff.num_nodes().max(1)).unwrap_or(1),
            jobs: u32::try_from(job.replicas.unwrap_or(1).max(1)).unwrap_or(1),
            requests,
            node_name: spec.node_name.clone().filter(|n| !n.is_empty()),
            node_selector: spec.node_selector.clone().unwrap_or_default(),
            affinity: required_affinity(spec).cloned(),
            tolerations: spec.tolerations.clone().unwrap_or_default(),
            host_ports: requests::host_ports(spec),
            exclusive: dynamic_domain(pod_annotations, eff.num_nodes())
                .or_else(|| pod_annotations.and_then(|a| a.get(keys::JOBSET_EXCLUSIVE_TOPOLOGY)).filter(|k| !k.is_empty()).cloned()),
            priority: trainjob::pod::admitted_priority(spec),
            slice,
            unmodelled,
        })
    }

    /// Pods in one gang: every pod of every Job of the trainer replicated job.
    pub fn gang(&self) -> u64 {
        u64::from(self.pods) * u64::from(self.jobs)
    }

    /// The requested extended resources (what a node must have for the pod to go there).
    pub fn extended(&self) -> impl Iterator<Item = &str> {
        self.requests.keys().map(String::as_str).filter(|r| is_extended(r))
    }
}

/// A dynamic TPU slice (the pod's `cloud.google.com/gke-tpu-slice-topology`, `dynamicSlicing` in
/// `tpu.yaml`) is formed at admission from partitions, not from a node pool or a formed slice: the
/// gang needs one domain of the level Kueue places it in, where its pods all fit. That level is the
/// slice level when one slice holds every pod (a subslice: its partition label), else the
/// required level (a superslice: its block; v6e: its slice level). The partition state it selects
/// is a node label like any other. Derived from the podset annotations `render` writes
/// (`resolve::tpu::pod_annotations`, after xpk slice/internal/webhooks/defaults.go).
fn dynamic_domain(annotations: Option<&BTreeMap<String, String>>, pods: i32) -> Option<String> {
    let a = annotations?;
    a.get(&crate::accelerators::data().tpu.dynamic_slicing.slice_topology_annotation)?;
    let k = &crate::kueue::facts().annotations;
    let slice_holds_all = a.get(&k.podset_slice_size).and_then(|s| s.parse::<i32>().ok()).is_some_and(|s| s >= pods);
    match a.get(&k.podset_slice_required_topology) {
        Some(level) if slice_holds_all => Some(level.clone()),
        _ => a.get(&k.podset_required_topology).cloned(),
    }
}

/// The TPU slice a gang of `pods` pods forms, when they request TPU chips and select a TPU
/// accelerator the data knows, and there is more than one of them.
fn slice(spec: &PodSpec, requests: &Amounts, pods: i32) -> Option<String> {
    let tpu = &crate::accelerators::data().tpu;
    let selector = spec.node_selector.as_ref()?;
    if pods <= 1 || !requests.contains_key(&tpu.resource) || !selector.contains_key(&tpu.accelerator_label) {
        return None;
    }
    crate::accelerators::nodes::accelerator_of(selector)
}

/// What a pod template asks that the node and pod lists cannot answer.
fn unmodelled(spec: &PodSpec) -> Vec<String> {
    let mut out = Vec::new();
    let affinity = spec.affinity.as_ref();
    if affinity
        .and_then(|a| a.pod_affinity.as_ref())
        .is_some_and(|p| p.required_during_scheduling_ignored_during_execution.as_ref().is_some_and(|r| !r.is_empty()))
    {
        out.push("required pod affinity".to_string());
    }
    if affinity
        .and_then(|a| a.pod_anti_affinity.as_ref())
        .is_some_and(|p| p.required_during_scheduling_ignored_during_execution.as_ref().is_some_and(|r| !r.is_empty()))
    {
        out.push("required pod anti-affinity".to_string());
    }
    if spec.topology_spread_constraints.iter().flatten().any(|c| c.when_unsatisfiable == "DoNotSchedule") {
        out.push("topology spread constraints".to_string());
    }
    if spec.volumes.iter().flatten().any(|v| v.persistent_volume_claim.is_some() || v.ephemeral.is_some()) {
        out.push("persistent volumes".to_string());
    }
    if spec.resource_claims.as_ref().is_some_and(|c| !c.is_empty()) {
        out.push("dynamic resource claims".to_string());
    }
    if spec.scheduler_name.as_deref().is_some_and(|s| !s.is_empty() && s != "default-scheduler") {
        out.push(format!("scheduler `{}`", spec.scheduler_name.as_deref().unwrap_or_default()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime(yaml: &str) -> TrainingRuntime {
        crate::yaml::from_str(yaml).unwrap()
    }

    const TPU: &str = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: t}\nspec:\n  mlPolicy: {numNodes: 4, jax: {}}\n  template:\n    metadata: {annotations: {alpha.jobset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool}}\n    spec:\n      replicatedJobs:\n      - name: node\n        template:\n          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}\n          spec:\n            template:\n              spec:\n                containers:\n                - {name: node, image: x, resources: {limits: {google.com/tpu: 4}}}\n                nodeSelector: {cloud.google.com/gke-tpu-topology: 4x4}\n                tolerations: [{key: google.com/tpu, operator: Exists, effect: NoSchedule}]\n";

    #[test]
    fn a_tpu_runtime_asks_for_its_hosts_chips_and_one_node_pool() {
        let d = Demand::of(&runtime(TPU)).unwrap();
        assert_eq!((d.pods, d.jobs, d.gang()), (4, 1, 4));
        assert_eq!(d.requests.get("google.com/tpu"), Some(&4), "requests default from limits");
        assert_eq!(d.exclusive.as_deref(), Some("cloud.google.com/gke-nodepool"));
        assert_eq!(d.priority, Some(0));
        assert!(d.host_ports.is_empty(), "the coordinator port is a host port only with hostNetwork");
        assert_eq!(d.extended().collect::<Vec<_>>(), ["google.com/tpu"]);
        assert!(d.unmodelled.is_empty());
    }

    #[test]
    fn host_network_makes_the_jax_coordinator_port_a_host_port() {
        let rt = runtime(&TPU.replace("                nodeSelector:", "                hostNetwork: true\n                nodeSelector:"));
        assert_eq!(Demand::of(&rt).unwrap().host_ports, vec![("TCP".to_string(), 29500)]);
    }

    #[test]
    fn what_cannot_be_worked_out_says_why() {
        // No trainer job: JobSet runs the first replicated job as written; placed as that, said.
        let no_trainer =
            runtime(&TPU.replace("- name: node", "- name: other").replace("trainjob-ancestor-step: trainer", "trainjob-ancestor-step: x"));
        let d = Demand::of(&no_trainer).unwrap();
        assert_eq!(d.job, "other");
        assert!(d.unmodelled.iter().any(|n| n.contains("as written")), "{:?}", d.unmodelled);
        // A job named `node` without the label is not the trainer job (Trainer finds it by the
        // label alone), but JobSet still runs it.
        let unlabelled = runtime(&TPU.replace("trainjob-ancestor-step: trainer", "trainjob-ancestor-step: x"));
        assert_eq!(Demand::of(&unlabelled).unwrap().job, "node");
        let bad = runtime(&TPU.replace("google.com/tpu: 4}", "google.com/tpu: 4, memory: 32GB}"));
        let err = Demand::of(&bad).unwrap_err().to_string();
        assert!(err.contains("spec.containers[0].resources.limits.memory") && err.contains("32GB"), "{err}");
        let class = runtime(
            &TPU.replace("                nodeSelector:", "                priorityClassName: high\n                nodeSelector:"),
        );
        assert_eq!(Demand::of(&class).unwrap().priority, None);
    }
}
