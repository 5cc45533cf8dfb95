//! One pod of a TrainJob's trainer job, predicted: an [`Effective`] template and a process index
//! -> the `Pod` JobSet and the Job controller create for it from the JobSet Trainer creates
//! ([`super::jobset::JobSet::of`]), with the fieldRefs that only the
//! pod resolves (the completion index) resolved, and what was resolved listed.
//!
//! Facts:
//! - JobSet v0.12.0 `pkg/controllers/jobset_controller.go` `constructJob`: the Job is
//!   `<jobset>-<replicatedJob>-<job index>` (`pkg/util/placement` `GenJobName`; Trainer runs one
//!   Job per replicated job), its pod template gets the JobSet labels and annotations
//!   (`labelAndAnnotateObject`) and, with DNS hostnames on (the default), the subdomain
//!   (`network.subdomain`, else the JobSet's name, `GetSubdomain`); `pkg/webhooks/jobset_webhook.go`
//!   `Default` sets `restartPolicy: OnFailure` when the pod has none, the JobSet CRD defaults a
//!   container port's `protocol` to `TCP`; the exclusive-placement annotation is copied onto pods,
//!   whose webhook adds (anti-)affinity at creation (not predicted here); that webhook
//!   (`pkg/webhooks/pod_webhook.go` `Default`) labels every JobSet pod
//!   `jobset.sigs.k8s.io/priority` with its priority, unless the node-selector strategy places it.
//! - Kubernetes `pkg/controller/job` (`job_controller.go` `manageJob`, `indexed_job_utils.go`):
//!   pod `i` of an Indexed Job has hostname `<job>-<i>`, generateName `<job>-<i>-`, the
//!   completion-index annotation (and label), and `JOB_COMPLETION_INDEX` appended to every
//!   container without it, from the label (`PodIndexLabel`, on by default since 1.28).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, EnvVar, EnvVarSource, ObjectFieldSelector, Pod};

use super::jobset::JobSet;
use super::merge::{Effective, Policy};
use super::version::TrainerVersion;
use crate::keys::{
    JOBSET_EXCLUSIVE_TOPOLOGY, JOBSET_GLOBAL_REPLICAS, JOBSET_GROUP_NAME, JOBSET_GROUP_REPLICAS, JOBSET_JOB_GLOBAL_INDEX,
    JOBSET_JOB_GROUP_INDEX, JOBSET_JOB_INDEX, JOBSET_NAME, JOBSET_NODE_SELECTOR_STRATEGY, JOBSET_PRIORITY, JOBSET_REPLICATED_JOB_NAME,
    JOBSET_REPLICATED_JOB_REPLICAS, JOBSET_RESTART_ATTEMPT, JOB_COMPLETION_INDEX, JOB_NAME, LEGACY_JOB_NAME,
};
use crate::trainer::{facts, names, TrainJob, TrainingRuntime};
use crate::words;

/// The env variable the Job controller adds.
pub const JOB_COMPLETION_INDEX_ENV: &str = "JOB_COMPLETION_INDEX";
/// The group a replicated job is in when it names none (JobSet's default).
const DEFAULT_GROUP: &str = "default";

/// Why there is no pod to show.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PodError {
    #[error("the runtime has no replicated job labelled `trainer.kubeflow.org/trainjob-ancestor-step: trainer`, so Trainer makes no trainer pods")]
    NoTrainerJob,
    #[error("the trainer replicated job `{0}` has no pod template")]
    NoPodTemplate(String),
    #[error("process {process} does not exist: the TrainJob runs {}, 0 to {last}", words::count_of(*num_nodes, "process", "processes"), last = num_nodes - 1)]
    NoSuchProcess { process: i64, num_nodes: i32 },
    #[error("the TrainJob runs no process (numNodes is {0})")]
    NoProcesses(i32),
}

/// A variable whose value only the pod knows, as the prediction resolved it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedEnv {
    pub container: String,
    pub name: String,
    /// The fieldRef path the variable is set from.
    pub field_path: String,
    pub value: String,
}

/// The predicted pod of one process.
#[derive(Debug, Clone, PartialEq)]
pub struct Predicted {
    pub pod: Pod,
    /// The process (completion index) and the Job it belongs to.
    pub process: i32,
    pub job_name: String,
    pub resolved: Vec<ResolvedEnv>,
    /// What GKE's TPU webhook adds to this pod (container, variable, value): multi-host TPU pods.
    pub gke: Vec<(String, String, String)>,
}

/// The pod of process `process` of the trainer job.
pub fn predict(eff: &Effective, process: i64) -> Result<Predicted, PodError> {
    let n = eff.num_nodes();
    if n < 1 {
        return Err(PodError::NoProcesses(n));
    }
    let process = i32::try_from(process).ok().filter(|p| (0..n).contains(p)).ok_or(PodError::NoSuchProcess { process, num_nodes: n })?;
    let index = eff.trainer_job.ok_or(PodError::NoTrainerJob)?;
    // The pod is made from the JobSet Trainer creates (one model with `preview --jobset`).
    let js = JobSet::of(eff);
    let jobset = js.name();
    let jobs = &js.spec.replicated_jobs;
    let rjob = jobs.get(index).ok_or(PodError::NoTrainerJob)?;
    let template = rjob.template.spec.as_ref().map(|s| &s.template).ok_or_else(|| PodError::NoPodTemplate(rjob.name.clone()))?;
    let mut spec = template.spec.clone().ok_or_else(|| PodError::NoPodTemplate(rjob.name.clone()))?;
    let mut meta = template.metadata.clone().unwrap_or_default();

    // JobSet: labels and annotations, subdomain, defaults.
    let job_name = format!("{jobset}-{}-0", rjob.name);
    let replicas = |j: &crate::trainer::ReplicatedJob| j.replicas.unwrap_or(1);
    let group = |j: &crate::trainer::ReplicatedJob| j.group_name.clone().unwrap_or_else(|| DEFAULT_GROUP.to_string());
    let my_group = group(rjob);
    let before: i32 = jobs.iter().take(index).map(replicas).sum();
    let in_group_before: i32 = jobs.iter().take(index).filter(|j| group(j) == my_group).map(replicas).sum();
    let jobset_keys = BTreeMap::from([
        (JOBSET_NAME, jobset.to_string()),
        (JOBSET_REPLICATED_JOB_NAME, rjob.name.clone()),
        (JOBSET_REPLICATED_JOB_REPLICAS, replicas(rjob).to_string()),
        (JOBSET_JOB_INDEX, "0".to_string()),
        (JOBSET_GLOBAL_REPLICAS, jobs.iter().map(replicas).sum::<i32>().to_string()),
        (JOBSET_JOB_GLOBAL_INDEX, before.to_string()),
        (JOBSET_GROUP_NAME, my_group.clone()),
        (JOBSET_GROUP_REPLICAS, jobs.iter().filter(|j| group(j) == my_group).map(replicas).sum::<i32>().to_string()),
        (JOBSET_JOB_GROUP_INDEX, in_group_before.to_string()),
        (JOBSET_RESTART_ATTEMPT, "0".to_string()),
    ]);
    let labels = meta.labels.get_or_insert_with(Default::default);
    let annotations = meta.annotations.get_or_insert_with(Default::default);
    for (k, v) in &jobset_keys {
        labels.insert((*k).to_string(), v.clone());
        annotations.insert((*k).to_string(), v.clone());
    }
    // Exclusive placement, and its node-selector strategy, from the JobSet and then the
    // replicated job (the later level wins, as in `labelAndAnnotateObject`).
    let rjob_annotations = rjob.template.metadata.as_ref().and_then(|m| m.annotations.as_ref());
    let levels = [js.metadata.annotations.as_ref(), rjob_annotations];
    for level in levels.into_iter().flatten() {
        if let Some(topology) = level.get(JOBSET_EXCLUSIVE_TOPOLOGY) {
            annotations.insert(JOBSET_EXCLUSIVE_TOPOLOGY.to_string(), topology.clone());
            if let Some(strategy) = level.get(JOBSET_NODE_SELECTOR_STRATEGY) {
                annotations.insert(JOBSET_NODE_SELECTOR_STRATEGY.to_string(), strategy.clone());
            }
        }
    }
    // JobSet's pod webhook (`pkg/webhooks/pod_webhook.go` `Default`): a JobSet pod not placed by
    // the node-selector strategy is labelled with the priority admission gave it, which the
    // anti-affinity of exclusive placement matches.
    let priority = admitted_priority(&spec).filter(|_| !annotations.contains_key(JOBSET_NODE_SELECTOR_STRATEGY));
    if let Some(p) = priority {
        labels.insert(JOBSET_PRIORITY.to_string(), p.to_string());
    }
    let network = js.spec.network.as_ref();
    if network.and_then(|n| n.enable_dns_hostnames) != Some(false) {
        let sub = network.and_then(|n| n.subdomain.clone()).filter(|s| !s.is_empty()).unwrap_or_else(|| jobset.to_string());
        spec.subdomain = Some(sub);
    }
    if spec.restart_policy.as_deref().is_none_or(str::is_empty) {
        spec.restart_policy = Some("OnFailure".into());
    }
    for c in spec.containers.iter_mut().chain(spec.init_containers.iter_mut().flatten()) {
        for p in c.ports.iter_mut().flatten() {
            p.protocol.get_or_insert_with(|| "TCP".into());
        }
    }

    // The Job controller: the index, the hostname, the env.
    labels.insert(JOB_COMPLETION_INDEX.to_string(), process.to_string());
    labels.insert(JOB_NAME.to_string(), job_name.clone());
    labels.insert(LEGACY_JOB_NAME.to_string(), job_name.clone());
    annotations.insert(JOB_COMPLETION_INDEX.to_string(), process.to_string());
    spec.hostname = Some(names::hostname(jobset, &rjob.name, 0, process as u64));
    let mut resolved = Vec::new();
    let all = spec.init_containers.iter_mut().flatten().chain(spec.containers.iter_mut());
    for c in all {
        add_completion_index(c);
        resolve(c, process, &mut resolved);
    }
    let job_spec = rjob.template.spec.as_ref();
    let indexed = job_spec.and_then(|j| j.completion_mode.as_deref()).is_none_or(|m| m == "Indexed");
    let parallelism = job_spec.and_then(|j| j.parallelism).unwrap_or(1);
    let gke = if indexed && parallelism > 1 { tpu_webhook(&mut spec, &job_name, process, parallelism) } else { Vec::new() };
    meta.generate_name = Some(format!("{job_name}-{process}-"));
    meta.name = None;
    meta.namespace.clone_from(&js.metadata.namespace);
    let pod = Pod { metadata: meta, spec: Some(spec), status: None };
    Ok(Predicted { pod, process, job_name, resolved, gke })
}

/// The priority the Priority admission plugin gives a pod, where it is known without the
/// cluster's PriorityClasses: the pod's own `priority`, else 0 when it names no
/// `priorityClassName` (kubernetes `plugin/pkg/admission/priority` `getDefaultPriority`, with no
/// `globalDefault` class); unknown when it names a class.
pub fn admitted_priority(spec: &k8s_openapi::api::core::v1::PodSpec) -> Option<i32> {
    match (&spec.priority_class_name, spec.priority) {
        (_, Some(p)) => Some(p),
        (Some(c), None) if !c.is_empty() => None,
        _ => Some(0),
    }
}

/// GKE's TPU webhook (`catalog/accelerators/tpu.yaml`, `webhook`): in a pod of an Indexed Job
/// with a subdomain and more than one pod (JobSet defaults the completion mode to Indexed,
/// `jobset_webhook.go` `Default`), each container that requests `google.com/tpu` gets the pod's
/// index as `TPU_WORKER_ID` and every pod's `<hostname>.<subdomain>`, by index, as
/// `TPU_WORKER_HOSTNAMES`. A container that sets one itself keeps its value (`validate` flags it).
fn tpu_webhook(spec: &mut k8s_openapi::api::core::v1::PodSpec, job_name: &str, process: i32, pods: i32) -> Vec<(String, String, String)> {
    let Some(sub) = spec.subdomain.clone() else { return Vec::new() };
    let tpu = crate::accelerators::data();
    let tpu = &tpu.tpu;
    let hosts: Vec<String> = (0..pods).map(|i| format!("{job_name}-{i}.{sub}")).collect();
    let values = [(tpu.webhook.worker_id.clone(), process.to_string()), (tpu.webhook.worker_hostnames.clone(), hosts.join(","))];
    let mut out = Vec::new();
    for c in &mut spec.containers {
        let asks = c
            .resources
            .as_ref()
            .is_some_and(|r| [&r.limits, &r.requests].iter().any(|m| m.as_ref().is_some_and(|m| m.contains_key(&tpu.resource))));
        if !asks {
            continue;
        }
        let env = c.env.get_or_insert_with(Vec::new);
        for (name, value) in &values {
            if env.iter().any(|e| &e.name == name) {
                continue;
            }
            env.push(EnvVar { name: name.clone(), value: Some(value.clone()), value_from: None });
            out.push((c.name.clone(), name.clone(), value.clone()));
        }
    }
    out
}

fn label_path() -> String {
    format!("metadata.labels['{JOB_COMPLETION_INDEX}']")
}

fn add_completion_index(c: &mut Container) {
    let env = c.env.get_or_insert_with(Vec::new);
    if env.iter().any(|e| e.name == JOB_COMPLETION_INDEX_ENV) {
        return;
    }
    env.push(EnvVar {
        name: JOB_COMPLETION_INDEX_ENV.into(),
        value: None,
        value_from: Some(EnvVarSource {
            field_ref: Some(ObjectFieldSelector { api_version: None, field_path: label_path() }),
            ..Default::default()
        }),
    });
}

/// Variables set from the completion index (annotation or label) get the process's value.
fn resolve(c: &mut Container, process: i32, out: &mut Vec<ResolvedEnv>) {
    let paths = [super::merge::completion_index_field_path(), label_path()];
    for e in c.env.iter_mut().flatten() {
        let Some(path) = e.value_from.as_ref().and_then(|f| f.field_ref.as_ref()).map(|r| r.field_path.clone()) else { continue };
        if paths.contains(&path) {
            e.value = Some(process.to_string());
            e.value_from = None;
            out.push(ResolvedEnv { container: c.name.clone(), name: e.name.clone(), field_path: path, value: process.to_string() });
        }
    }
}

/// What a reader of the predicted pod needs to know that the pod itself does not say: what it
/// is a prediction of, where each part came from, and what the prediction leaves out. One line
/// per entry, without comment markers.
/// The JAX plugin's variables the runtime's own `node` container sets: what `render` and
/// `validate` say of them ([`crate::trainer::facts::JaxPlugin::set_by_runtime`]), and whose value
/// this pod gets.
fn runtime_plugin_env(eff: &Effective, runtime: &TrainingRuntime) -> Vec<String> {
    let f = facts();
    let Some((_, job)) = runtime.trainer_job() else { return Vec::new() };
    let containers = job.template.spec.as_ref().and_then(|s| s.template.spec.as_ref()).map(|s| s.containers.as_slice()).unwrap_or_default();
    let Some(node) = containers.iter().find(|c| c.name == f.node) else { return Vec::new() };
    node.env
        .iter()
        .flatten()
        .filter(|e| f.is_jax_variable(&e.name))
        .map(|e| {
            let gets = match &eff.jax {
                Some(j) if j.overridden.contains(&e.name) => {
                    "this TrainJob sets it in `spec.trainer.env`, so the pod gets the TrainJob's value"
                }
                Some(_) => "this TrainJob has `spec.trainer`, so the pod gets the plugin's value",
                None => "this TrainJob has no `spec.trainer`, so the pod gets the runtime's value",
            };
            format!("The runtime's container `{}` sets {}: {}; {gets}.", f.node, e.name, f.jax.set_by_runtime(&e.name))
        })
        .collect()
}

pub fn header(eff: &Effective, tj: &TrainJob, runtime: &TrainingRuntime, p: &Predicted) -> Vec<String> {
    let mut out = Vec::new();
    let who = match &eff.namespace {
        Some(ns) => format!("{ns}/{}", eff.name),
        None => eff.name.clone(),
    };
    let rt = format!("{}/{}", runtime.kind, runtime.metadata.name.as_deref().unwrap_or_default());
    out.push(format!(
        "The pod of process {} of {} (Job {}) that Kubeflow Trainer {} (with JobSet {}) creates for TrainJob {who} on {rt},",
        p.process,
        eff.num_nodes(),
        p.job_name,
        eff.version,
        eff.version.jobset()
    ));
    out.push(format!(
        "predicted by jax-runtimes {} from the manifests, not read from a cluster. Not shown: what the cluster adds itself (uids, the JobSet job-key hash, the service account token, admission defaults).",
        env!("CARGO_PKG_VERSION")
    ));
    if let (None | Some(""), Some(prefix)) = (tj.metadata.name.as_deref(), tj.metadata.generate_name.as_deref().filter(|g| !g.is_empty())) {
        out.push(format!(
            "TrainJob name: the API server generates it from `generateName: {prefix}` ({}, `x` for each random character); the Job names, hostnames, subdomain and coordinator address follow it.",
            eff.name
        ));
    }
    if let Some(spec) = &p.pod.spec {
        let ns = eff.namespace.as_deref().unwrap_or("<namespace>");
        let host = spec.hostname.clone().unwrap_or_default();
        match &spec.subdomain {
            Some(sub) => out.push(format!(
                "Name: {}<5 random characters>; reachable as {host}.{sub} ({host}.{sub}.{ns}.svc) through the JobSet's headless service.",
                p.pod.metadata.generate_name.as_deref().unwrap_or_default()
            )),
            None => out.push(format!(
                "Name: {}<5 random characters>; hostname {host}, no subdomain (DNS hostnames are off).",
                p.pod.metadata.generate_name.as_deref().unwrap_or_default()
            )),
        }
    }
    let t = tj.spec.trainer.as_ref();
    let mut from = Vec::new();
    if let Some(t) = t {
        if let Some(i) = &t.image {
            from.push(format!("image `{i}`"));
        }
        if t.command.is_some() {
            from.push("command".to_string());
        }
        if t.args.is_some() {
            from.push("args".to_string());
        }
        if let Some(n) = t.num_nodes {
            from.push(format!("numNodes {n}"));
        }
        let env: Vec<&str> = t.env.iter().flatten().map(|e| e.name.as_str()).collect();
        if !env.is_empty() {
            from.push(format!("env {}", env.join(", ")));
        }
        if t.resources_per_node.is_some() {
            from.push(match eff.version {
                TrainerVersion::V2_2 => "resourcesPerNode (replacing the runtime's resources, v2.2)".to_string(),
                TrainerVersion::V2_3 => "resourcesPerNode (merged into the runtime's per resource, v2.3)".to_string(),
            });
        }
    }
    let managers: Vec<&str> = tj.spec.runtime_patches.iter().flatten().map(|p| p.manager.as_str()).collect();
    if !managers.is_empty() {
        from.push(format!("runtime patches of {}", managers.join(", ")));
    }
    out.push(if from.is_empty() {
        "From the TrainJob: nothing; the rest is the runtime's.".to_string()
    } else {
        format!("From the TrainJob: {}; the rest is the runtime's.", from.join("; "))
    });
    if eff.policy == Policy::Jax {
        out.extend(runtime_plugin_env(eff, runtime));
    }
    match (eff.policy, &eff.jax) {
        (Policy::Jax, Some(j)) => {
            let vars: Vec<String> = j
                .env
                .iter()
                .map(|e| match &e.value {
                    Some(v) => format!("{}={v}", e.name),
                    None => e.name.clone(),
                })
                .collect();
            let port = facts().jax.port;
            let port = match &j.replaced_port {
                Some(old) => format!("container port {port} (in place of the runtime's unnamed port {})", old.container_port),
                None => format!("container port {port}"),
            };
            out.push(format!(
                "From the JAX plugin (pkg/runtime/framework/plugins/jax/jax.go EnforceMLPolicy): {}, {port}.",
                vars.join(", ")
            ));
            for name in &j.overridden {
                out.push(format!(
                    "{name}: the TrainJob's value, not the plugin's: Trainer upserts the TrainJob's env after the plugin's (plugins/jobset/builder.go Trainer)."
                ));
            }
        }
        (Policy::Jax, None) if t.is_none() => {
            out.push("No JAX plugin variables: the plugin injects them only when the TrainJob has `spec.trainer`.".to_string());
        }
        (Policy::Jax, None) => out.push("No JAX plugin variables: the trainer job has no container `node`.".to_string()),
        (Policy::Plain, _) => {
            out.push("The runtime has no ML framework policy: the PlainML plugin only sets numNodes and the TrainJob's env.".to_string());
        }
        (Policy::Other(fw), _) => {
            out.push(format!("The runtime's `{fw}` policy plugin adds its own env and ports, which this prediction does not show."));
        }
    }
    for r in &p.resolved {
        let by = if r.name == JOB_COMPLETION_INDEX_ENV { "the Job controller" } else { "Trainer" };
        out.push(format!(
            "{} = \"{}\" in this pod: {by} sets it from valueFrom.fieldRef.fieldPath {} (container {}).",
            r.name, r.value, r.field_path, r.container
        ));
    }
    if !p.gke.is_empty() {
        let vars: Vec<String> = p.gke.iter().map(|(c, n, v)| format!("{n}={v} (container {c})")).collect();
        out.push(format!(
            "From GKE's TPU webhook (a multi-host slice: Indexed Job, subdomain, parallelism > 1, `google.com/tpu`), added when the pod is created: {}.",
            vars.join(", ")
        ));
    }
    for (i, job) in &eff.unknown_jobs {
        out.push(match eff.version {
            TrainerVersion::V2_2 => format!("runtimePatches[{i}] names replicated job `{job}`, which the runtime lacks: v2.2 skips it."),
            TrainerVersion::V2_3 => {
                format!("runtimePatches[{i}] names replicated job `{job}`, which the runtime lacks: v2.3 appends it as a job of its own.")
            }
        });
    }
    if let Some(priority) = p.pod.metadata.labels.as_ref().and_then(|l| l.get(JOBSET_PRIORITY)) {
        let spec = p.pod.spec.as_ref();
        let from = if spec.and_then(|s| s.priority).is_some() {
            "its `priority`"
        } else {
            "no priorityClassName: 0, unless the cluster has a globalDefault PriorityClass"
        };
        out.push(format!("Label `{JOBSET_PRIORITY}: \"{priority}\"`: JobSet's pod webhook adds the pod's priority at creation ({from})."));
    }
    let annotations = p.pod.metadata.annotations.as_ref();
    if let Some(topology) = annotations.and_then(|a| a.get(JOBSET_EXCLUSIVE_TOPOLOGY)) {
        out.push(format!(
            "Exclusive placement per `{topology}`: JobSet's pod webhook adds pod affinity and anti-affinity at creation, not shown here."
        ));
    }
    let waits: Vec<String> =
        eff.trainer().and_then(|t| t.depends_on.as_ref()).into_iter().flatten().map(|d| format!("{} ({})", d.name, d.status)).collect();
    if !waits.is_empty() {
        out.push(format!("The trainer job starts once these jobs are: {} (JobSet `dependsOn`).", waits.join(", ")));
    }
    let storage_uri = &facts().initializers.storage_uri_env;
    for job in eff.template.spec.replicated_jobs.iter().filter(|j| j.ancestor_step().is_some_and(|s| facts().is_initializer(s))) {
        for c in job.pod_spec().map(|p| p.containers.as_slice()).unwrap_or_default() {
            let uri = c.env.iter().flatten().find(|e| &e.name == storage_uri);
            let what = match uri.and_then(|e| e.value.as_deref()) {
                Some(v) => format!("{storage_uri}={v}"),
                None => format!("no {storage_uri}: the initializer fails at start"),
            };
            out.push(format!("Initializer job {}: container {} (image {}), {what}.", job.name, c.name, c.image.as_deref().unwrap_or("?")));
        }
    }
    if eff.template.spec.volume_claim_policies.as_ref().is_some_and(|v| !v.is_empty()) {
        out.push("volumeClaimPolicies: JobSet adds their claims as volumes of the Job, not shown here.".to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trainjob::merge::{build, Steps};
    use crate::trainjob::version::TrainerVersion;

    fn effective() -> Effective {
        let rt = serde_saphyr::from_str(
            r#"
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: jax-cpu}
spec:
  mlPolicy: {numNodes: 3, jax: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              spec:
                containers: [{name: node, image: jax}]
"#,
        )
        .unwrap();
        let tj = serde_saphyr::from_str(
            "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job, namespace: ml}\nspec: {runtimeRef: {name: jax-cpu}, trainer: {}}\n",
        )
        .unwrap();
        build(&rt, &tj, TrainerVersion::V2_3, Steps::All)
    }

    #[test]
    fn process_n_gets_its_index_hostname_and_subdomain() {
        let p = predict(&effective(), 2).unwrap();
        let spec = p.pod.spec.as_ref().unwrap();
        assert_eq!(spec.hostname.as_deref(), Some("job-node-0-2"));
        assert_eq!(spec.subdomain.as_deref(), Some("job"));
        assert_eq!(spec.restart_policy.as_deref(), Some("OnFailure"));
        assert_eq!(p.pod.metadata.generate_name.as_deref(), Some("job-node-0-2-"));
        assert_eq!(p.pod.metadata.namespace.as_deref(), Some("ml"));
        let env: Vec<(&str, Option<&str>)> =
            spec.containers[0].env.iter().flatten().map(|e| (e.name.as_str(), e.value.as_deref())).collect();
        assert_eq!(
            env,
            [
                ("JAX_NUM_PROCESSES", Some("3")),
                ("JAX_PROCESS_ID", Some("2")),
                ("JAX_COORDINATOR_ADDRESS", Some("job-node-0-0.job:29500")),
                ("JOB_COMPLETION_INDEX", Some("2"))
            ]
        );
        assert_eq!(p.resolved.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["JAX_PROCESS_ID", "JOB_COMPLETION_INDEX"]);
        assert_eq!(p.pod.metadata.labels.as_ref().unwrap().get(JOB_COMPLETION_INDEX).map(String::as_str), Some("2"));
        assert_eq!(spec.containers[0].ports.as_ref().unwrap()[0].protocol.as_deref(), Some("TCP"));
    }

    #[test]
    fn processes_outside_the_job_are_refused() {
        assert_eq!(predict(&effective(), 3), Err(PodError::NoSuchProcess { process: 3, num_nodes: 3 }));
        assert!(predict(&effective(), -1).is_err());
    }
}
