//! The JobSet Trainer builds from a runtime and a TrainJob, predicted: a runtime, a TrainJob and
//! a Trainer release -> [`Effective`], the runtime's JobSet template as Trainer changes it.
//! This is the one place that knows Trainer's merge rules; `validate` checks its result and
//! `preview` prints a pod of it.
//!
//! The steps, in Trainer's order (kubeflow/trainer at the tag of the release; `v2.2` and `v2.3`
//! are the same where not said):
//! 1. `pkg/runtime/core/trainingruntime.go` `newRuntimeInfo`: the runtime patches
//!    ([`super::patch`]); then one PodSet per replicated job, counting `parallelism` (default 1),
//!    or `mlPolicy.numNodes` (default 1) for the job labelled ancestor `trainer` when the runtime
//!    has an `mlPolicy`; v2.3 also merges `trainer.resourcesPerNode` into that job's first `node`
//!    container here (`pkg/util/trainingruntime` `MergeResourceRequirements`: a strategic merge,
//!    per resource key, the TrainJob's value wins; only limits and requests are written back, so
//!    resource claims are dropped); `pkg/runtime/runtime.go` `WithPodSet` stores `max(count, 1)`.
//! 2. The ML policy plugin. JAX (`pkg/runtime/framework/plugins/jax/jax.go` `EnforceMLPolicy`,
//!    only with `mlPolicy.jax`): `trainer.numNodes`, when set, becomes the count of the first
//!    PodSet with ancestor `trainer` (as given: no `max`); then, only when the TrainJob has
//!    `spec.trainer`, its `node` container gets `JAX_NUM_PROCESSES` (the count),
//!    `JAX_PROCESS_ID` (fieldRef to the completion-index annotation) and
//!    `JAX_COORDINATOR_ADDRESS` (`<trainjob>-node-0-0.<trainjob>:29500`), each upserted by name,
//!    and container port 29500 upserted (`pkg/apply/apply.go` `UpsertPort`: it replaces the
//!    first port with the same number or the same name, and an unnamed port matches any other
//!    unnamed one). Without an ML framework policy the PlainML plugin
//!    (`plugins/plainml/plainml.go`) takes `numNodes` and upserts the TrainJob's env instead.
//! 3. `plugins/jobset/jobset.go`: `parallelism` and `completions` of each replicated job become
//!    its PodSet's count (`SyncParallelCount` in v2.3, inside `Build` in v2.2); `Build` upserts
//!    each PodSet container's env and ports into the template (so the plugin's changes land).
//! 4. `plugins/jobset/builder.go`, in this order: `Initializer` (initializer jobs get
//!    `replicas: 1`; the container named after the step gets the TrainJob's
//!    `initializer.<dataset|model>.storageUri` as `STORAGE_URI` and its env upserted, its
//!    `secretRef` as an `envFrom`), `Trainer` (jobs labelled ancestor `trainer` get `replicas: 1`; their `node`
//!    container gets `trainer.image`, `trainer.command` and `trainer.args` when set, each
//!    replacing the runtime's; v2.2 replaces the container's resources with `resourcesPerNode`
//!    when it has limits or requests; then the TrainJob's env is upserted by name, so a TrainJob
//!    variable replaces a runtime or plugin variable of the same name in place),
//!    `PodLabels`/`PodAnnotations` (the scheduler plugins' keys on every pod template).
//!
//! The TrainJob's env goes through `apply.EnvVar`, which keeps `value` and the `fieldRef`
//! (path only), `resourceFieldRef`, `configMapKeyRef` and `secretKeyRef` sources.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    ConfigMapKeySelector, Container, ContainerPort, EnvVar, EnvVarSource, ObjectFieldSelector, ResourceFieldSelector, ResourceRequirements,
    SecretKeySelector,
};

use super::patch;
use super::version::TrainerVersion;
use crate::keys::{JOB_COMPLETION_INDEX, POD_GROUP_LABEL, VOLCANO_GROUP_ANNOTATION};
use crate::trainer::{facts, trainer_job, JobSetTemplateSpec, ReplicatedJob, TrainJob, TrainingRuntime};

/// The fieldRef path the JAX plugin gives `JAX_PROCESS_ID` (`constants.JobCompletionIndexFieldPath`).
pub fn completion_index_field_path() -> String {
    format!("metadata.annotations['{JOB_COMPLETION_INDEX}']")
}

/// The coordinator address the JAX plugin writes for a TrainJob.
pub fn coordinator_address(trainjob: &str) -> String {
    let f = facts();
    format!("{trainjob}-{}-0-0.{trainjob}:{}", f.node, f.jax.port)
}

/// The ML policy the runtime runs under, as far as the prediction goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// `mlPolicy.jax`: the JAX plugin (fully predicted).
    Jax,
    /// No framework policy: the PlainML plugin (fully predicted).
    Plain,
    /// Another framework (`torch`, `mpi`, `xgboost`, `flux`: the ML policies of
    /// [`crate::trainer::facts`]): its plugin's env and ports are not predicted.
    Other(&'static str),
}

/// What the JAX plugin injected into the `node` container.
#[derive(Debug, Clone, PartialEq)]
pub struct Injected {
    /// The plugin's three variables, as it writes them.
    pub env: Vec<EnvVar>,
    /// Plugin variables the TrainJob's own env then replaced (it is upserted after the plugin).
    pub overridden: Vec<String>,
    /// The runtime port the plugin's 29500 replaced (an unnamed port, or one numbered 29500).
    pub replaced_port: Option<ContainerPort>,
}

/// The runtime's JobSet template as Trainer changes it for one TrainJob.
#[derive(Debug, Clone, PartialEq)]
pub struct Effective {
    pub version: TrainerVersion,
    /// The TrainJob's name: also the JobSet's, and the pods' subdomain.
    pub name: String,
    pub namespace: Option<String>,
    /// The template after every step the prediction ran (see [`build`]).
    pub template: JobSetTemplateSpec,
    /// The JobSet's own labels and annotations.
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    /// The PodSet count of each replicated job (its pods), in template order.
    pub counts: Vec<i32>,
    /// The first replicated job labelled ancestor `trainer`.
    pub trainer_job: Option<usize>,
    pub policy: Policy,
    /// `Some` when the JAX plugin injected its env (the runtime has `mlPolicy.jax`, the TrainJob
    /// has `spec.trainer`, and the trainer job has a `node` container).
    pub jax: Option<Injected>,
    /// Replicated jobs a runtime patch names that the runtime lacks (patch index, name).
    pub unknown_jobs: Vec<(usize, String)>,
}

impl Effective {
    /// The node count in effect: the trainer job's pod count (1 without a trainer job).
    pub fn num_nodes(&self) -> i32 {
        self.trainer_job.and_then(|i| self.counts.get(i).copied()).unwrap_or(1)
    }

    /// The trainer replicated job.
    pub fn trainer(&self) -> Option<&ReplicatedJob> {
        self.trainer_job.and_then(|i| self.template.spec.replicated_jobs.get(i))
    }

    /// A runtime without a trainer replicated job still runs: JobSet creates every replicated
    /// job's pods as written, and Trainer applies none of a TrainJob's settings to them
    /// (`trainer/node-container`). Its gang for placement is then the job named `node`, else the
    /// first with a pod template, counted by its parallelism: this, with that job as its
    /// `trainer_job`. `None` when there is a trainer job, or no job with a pod template.
    pub fn as_written(&self) -> Option<Effective> {
        if self.trainer_job.is_some() {
            return None;
        }
        let jobs = &self.template.spec.replicated_jobs;
        let templated = |j: &&ReplicatedJob| j.template.spec.as_ref().is_some_and(|s| s.template.spec.is_some());
        let i = jobs.iter().position(|j| j.name == facts().node && templated(&j)).or_else(|| jobs.iter().position(|j| templated(&j)))?;
        Some(Effective { trainer_job: Some(i), ..self.clone() })
    }
}

/// Which steps [`build`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Steps {
    /// Every step: the JobSet spec Trainer applies.
    All,
    /// Only the TrainJob's own overrides (patches, resources, image, command, args, env, node
    /// count), without what the plugins and the JobSet builder add (the plugin's env and port,
    /// `parallelism`, `completions`, scheduler labels): the runtime as the TrainJob changes it,
    /// for the runtime checks to run on.
    Overrides,
}

fn containers_mut(job: &mut ReplicatedJob) -> Option<&mut Vec<Container>> {
    Some(&mut job.template.spec.as_mut()?.template.spec.as_mut()?.containers)
}

/// The runtime's JobSet template as Trainer changes it for `tj` (see the module docs).
pub fn build(rt: &TrainingRuntime, tj: &TrainJob, version: TrainerVersion, steps: Steps) -> Effective {
    let name = crate::k8s::names::api_name(tj.metadata.name.as_deref(), tj.metadata.generate_name.as_deref());
    let trainer = tj.spec.trainer.as_ref();
    let ml = rt.spec.ml_policy.as_ref();
    let f = facts();
    let policy = match ml {
        Some(m) if m.jax.is_some() => Policy::Jax,
        Some(m) => m.framework().map_or(Policy::Plain, Policy::Other),
        None => Policy::Plain,
    };

    // 1. Runtime patches, then the PodSets (and v2.3's resourcesPerNode merge).
    let mut template = rt.spec.template.clone();
    let patched = patch::apply(&mut template, tj.spec.runtime_patches.as_deref().unwrap_or_default(), version);
    let resources = trainer.and_then(|t| t.resources_per_node.as_ref());
    let launcher_as_node = ml.and_then(|m| m.mpi.as_ref()).and_then(|m| m.run_launcher_as_node).unwrap_or(false);
    let mut counts = Vec::new();
    let mut ancestors = Vec::new();
    for job in &mut template.spec.replicated_jobs {
        let step = job.ancestor_step().map(str::to_string);
        let mut count = job.template.spec.as_ref().and_then(|s| s.parallelism).unwrap_or(1);
        let is_trainer = job.is_trainer() && ml.is_some();
        if is_trainer {
            count = ml.and_then(|m| m.num_nodes).unwrap_or(1);
        }
        if version == TrainerVersion::V2_3 && (is_trainer || (launcher_as_node && job.name == f.node)) {
            if let (Some(r), Some(node)) = (resources, containers_mut(job).and_then(|cs| cs.iter_mut().find(|c| c.name == f.node))) {
                node.resources = Some(merge_resources(node.resources.as_ref(), r));
            }
        }
        counts.push(count.max(1));
        ancestors.push(step);
    }
    let trainer_job = trainer_job(&template.spec.replicated_jobs).map(|(i, _)| i);

    // 2. The ML policy plugin.
    let mut jax = None;
    if let (Some(ps), Some(n)) = (trainer_job, trainer.and_then(|t| t.num_nodes)) {
        if let Some(c) = counts.get_mut(ps) {
            *c = n;
        }
    }
    if let (Some(ps), Some(t)) = (trainer_job, trainer) {
        let count = counts.get(ps).copied().unwrap_or(1);
        let node =
            template.spec.replicated_jobs.get_mut(ps).and_then(containers_mut).and_then(|cs| cs.iter_mut().find(|c| c.name == f.node));
        match (policy, node, steps) {
            (Policy::Jax, Some(node), Steps::All) => {
                let env = vec![
                    EnvVar { name: f.jax.num_processes.clone(), value: Some(count.to_string()), value_from: None },
                    EnvVar {
                        name: f.jax.process_id.clone(),
                        value: None,
                        value_from: Some(EnvVarSource {
                            field_ref: Some(ObjectFieldSelector { api_version: None, field_path: completion_index_field_path() }),
                            ..Default::default()
                        }),
                    },
                    EnvVar { name: f.jax.coordinator_address.clone(), value: Some(coordinator_address(&name)), value_from: None },
                ];
                for e in &env {
                    upsert_env(node.env.get_or_insert_with(Vec::new), e.clone());
                }
                let port = ContainerPort { container_port: i32::from(f.jax.port), ..Default::default() };
                let replaced_port = upsert_port(node.ports.get_or_insert_with(Vec::new), port);
                let overridden = t.env.iter().flatten().filter(|e| env.iter().any(|p| p.name == e.name)).map(|e| e.name.clone()).collect();
                jax = Some(Injected { env, overridden, replaced_port });
            }
            (Policy::Plain, Some(node), _) => {
                for e in t.env.iter().flatten() {
                    upsert_env(node.env.get_or_insert_with(Vec::new), apply_env(e));
                }
            }
            _ => {}
        }
    }

    // 3. parallelism = completions = the PodSet count.
    if steps == Steps::All {
        for (job, count) in template.spec.replicated_jobs.iter_mut().zip(&counts) {
            let spec = job.template.spec.get_or_insert_with(Default::default);
            spec.parallelism = Some(*count);
            spec.completions = Some(*count);
        }
    }

    // 4. The builder: initializers, the trainer, the scheduler's pod keys.
    for (job, step) in template.spec.replicated_jobs.iter_mut().zip(&ancestors) {
        let step = step.as_deref();
        if step.is_some_and(|s| f.is_initializer(s)) {
            job.replicas = Some(1);
            let source = tj.spec.initializer.as_ref().and_then(|i| match step {
                Some("dataset-initializer") => i.dataset.as_ref(),
                Some("model-initializer") => i.model.as_ref(),
                _ => None,
            });
            if let (Some(src), Some(step)) = (source, step) {
                for c in containers_mut(job).into_iter().flatten().filter(|c| c.name == step) {
                    let env = c.env.get_or_insert_with(Vec::new);
                    if let Some(uri) = &src.storage_uri {
                        upsert_env(
                            env,
                            EnvVar { name: f.initializers.storage_uri_env.clone(), value: Some(uri.clone()), value_from: None },
                        );
                    }
                    for e in src.env.iter().flatten() {
                        upsert_env(env, apply_env(e));
                    }
                    if let Some(secret) = &src.secret_ref {
                        c.env_from.get_or_insert_with(Vec::new).push(k8s_openapi::api::core::v1::EnvFromSource {
                            secret_ref: Some(k8s_openapi::api::core::v1::SecretEnvSource { name: secret.name.clone(), optional: None }),
                            ..Default::default()
                        });
                    }
                }
            }
        }
        if step == Some(f.trainer_step.as_str()) {
            job.replicas = Some(1);
            if let Some(t) = trainer {
                for node in containers_mut(job).into_iter().flatten().filter(|c| c.name == f.node) {
                    if t.image.is_some() {
                        node.image.clone_from(&t.image);
                    }
                    if t.command.is_some() {
                        node.command.clone_from(&t.command);
                    }
                    if t.args.is_some() {
                        node.args.clone_from(&t.args);
                    }
                    if version == TrainerVersion::V2_2 {
                        if let Some(r) = resources.filter(|r| r.limits.is_some() || r.requests.is_some()) {
                            node.resources =
                                Some(ResourceRequirements { limits: r.limits.clone(), requests: r.requests.clone(), claims: None });
                        }
                    }
                    for e in t.env.iter().flatten() {
                        upsert_env(node.env.get_or_insert_with(Vec::new), apply_env(e));
                    }
                }
            }
        }
    }
    if steps == Steps::All {
        let group = rt.spec.pod_group_policy.as_ref();
        for job in &mut template.spec.replicated_jobs {
            let Some(spec) = job.template.spec.as_mut() else { continue };
            let meta = spec.template.metadata.get_or_insert_with(Default::default);
            if group.is_some_and(|g| g.coscheduling.is_some()) {
                meta.labels.get_or_insert_with(Default::default).insert(POD_GROUP_LABEL.into(), name.clone());
            }
            if group.is_some_and(|g| g.volcano.is_some()) {
                meta.annotations.get_or_insert_with(Default::default).insert(VOLCANO_GROUP_ANNOTATION.into(), name.clone());
            }
        }
    }
    Effective {
        version,
        name,
        namespace: tj.metadata.namespace.clone(),
        template,
        labels: patched.labels,
        annotations: patched.annotations,
        counts,
        trainer_job,
        policy,
        jax,
        unknown_jobs: patched.unknown_jobs,
    }
}

/// A `spec.trainer` field Trainer drops silently for a runtime: it applies it to nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// The field under `spec.trainer` (`image`, `numNodes`, ...).
    pub field: &'static str,
    /// Why, with the Trainer source that decides it.
    pub why: String,
}

/// The `spec.trainer` fields `tj` sets that Trainer applies to nothing for `rt` (the same rules
/// as [`build`], read where they decide; kubeflow/trainer at the release's tag):
/// - `image`, `command`, `args`: only the `node` container of a job labelled ancestor `trainer`
///   (`plugins/jobset/builder.go` `Trainer`);
/// - `env`: that container, or with MPI's `runLauncherAsNode` the `node` container of the job
///   named `node` (`Trainer`; the ML policy plugins' `FindContainerByPodSetAncestorContainerName`);
/// - `resourcesPerNode`: the same containers; v2.3 merges it only when the runtime has an
///   `mlPolicy` (`pkg/runtime/core/trainingruntime.go` `newRuntimeInfo`), v2.2 in `Trainer`;
/// - `numNodes`: the count of the job labelled ancestor `trainer` (the ML policy plugins'
///   `FindPodSetByAncestor`), for MPI the job named `node` (`plugins/mpi/mpi.go`
///   `EnforceMLPolicy`); Flux reads it itself and is not judged here.
pub fn dropped(rt: &TrainingRuntime, tj: &TrainJob, version: TrainerVersion) -> Vec<Dropped> {
    let Some(t) = tj.spec.trainer.as_ref() else { return Vec::new() };
    let f = facts();
    let jobs = &rt.spec.template.spec.replicated_jobs;
    let ml = rt.spec.ml_policy.as_ref();
    let has_node = |j: &ReplicatedJob| j.pod_spec().is_some_and(|p| p.containers.iter().any(|c| c.name == f.node));
    let trainer_jobs = || jobs.iter().filter(|j| j.is_trainer());
    let trainer_node = trainer_jobs().any(has_node);
    let mpi = ml.and_then(|m| m.mpi.as_ref());
    let launcher_node = mpi.and_then(|m| m.run_launcher_as_node).unwrap_or(false) && jobs.iter().any(|j| j.name == f.node && has_node(j));
    let label = format!("`{}: {}`", f.ancestor_label, f.trainer_step);
    let no_node = if trainer_jobs().next().is_none() {
        format!("no replicated job is labelled {label}")
    } else {
        format!("the replicated job labelled {label} has no container `{}`", f.node)
    };
    let builder = "kubeflow/trainer plugins/jobset/builder.go `Trainer` applies it only to the container `node` of the job labelled with the trainer ancestor";
    let mut out = Vec::new();
    let mut drop = |field: &'static str, why: String| out.push(Dropped { field, why });
    if !trainer_node {
        for (field, set) in [("image", t.image.is_some()), ("command", t.command.is_some()), ("args", t.args.is_some())] {
            if set {
                drop(field, format!("{no_node} ({builder})"));
            }
        }
    }
    if t.env.as_ref().is_some_and(|e| !e.is_empty()) && !trainer_node && !launcher_node {
        drop("env", format!("{no_node} ({builder}, or with MPI `runLauncherAsNode` to the job named `{}`)", f.node));
    }
    if t.resources_per_node.is_some() && !launcher_node {
        if !trainer_node {
            drop(
                "resourcesPerNode",
                format!(
                    "{no_node} (kubeflow/trainer pkg/runtime/core/trainingruntime.go `newRuntimeInfo` merges it only into that container)"
                ),
            );
        } else if version == TrainerVersion::V2_3 && ml.is_none() {
            drop(
                "resourcesPerNode",
                "the runtime has no `mlPolicy`, and Trainer v2.3 merges `resourcesPerNode` only into a runtime that has one (kubeflow/trainer v2.3.0 pkg/runtime/core/trainingruntime.go `newRuntimeInfo`)".to_string(),
            );
        }
    }
    if t.num_nodes.is_some() {
        let framework = ml.and_then(|m| m.framework());
        if mpi.is_some() {
            if !jobs.iter().any(|j| j.name == f.node) {
                drop("numNodes", format!("the MPI runtime has no replicated job named `{}` (kubeflow/trainer plugins/mpi/mpi.go `EnforceMLPolicy` sizes that job)", f.node));
            }
        } else if framework != Some("flux") && trainer_jobs().next().is_none() {
            drop("numNodes", format!("no replicated job is labelled {label} (the ML policy plugins' `EnforceMLPolicy` size that job: kubeflow/trainer pkg/runtime/runtime.go `FindPodSetByAncestor`)"));
        }
    }
    out
}

/// v2.3 `MergeResourceRequirements`: limits and requests merged per key (the TrainJob wins);
/// only those two are written back.
fn merge_resources(base: Option<&ResourceRequirements>, over: &ResourceRequirements) -> ResourceRequirements {
    let merge = |b: Option<&BTreeMap<_, _>>, o: Option<&BTreeMap<_, _>>| match (b, o) {
        (None, None) => None,
        (b, o) => {
            let mut m = b.cloned().unwrap_or_default();
            m.extend(o.cloned().unwrap_or_default());
            Some(m)
        }
    };
    ResourceRequirements {
        limits: merge(base.and_then(|b| b.limits.as_ref()), over.limits.as_ref()),
        requests: merge(base.and_then(|b| b.requests.as_ref()), over.requests.as_ref()),
        claims: None,
    }
}

/// `apply.upsert` by name: replaces the first variable of that name in place, else appends.
fn upsert_env(env: &mut Vec<EnvVar>, new: EnvVar) {
    match env.iter_mut().find(|e| e.name == new.name) {
        Some(e) => *e = new,
        None => env.push(new),
    }
}

/// `apply.UpsertPort` with `byContainerPortOrName`; returns the port it replaced.
fn upsert_port(ports: &mut Vec<ContainerPort>, new: ContainerPort) -> Option<ContainerPort> {
    match ports.iter_mut().find(|p| p.container_port == new.container_port || p.name == new.name) {
        Some(p) => Some(std::mem::replace(p, new)),
        None => {
            ports.push(new);
            None
        }
    }
}

/// A TrainJob variable as `apply.EnvVar` converts it.
pub fn apply_env(e: &EnvVar) -> EnvVar {
    match &e.value_from {
        Some(from) => EnvVar {
            name: e.name.clone(),
            value: None,
            value_from: Some(EnvVarSource {
                field_ref: from.field_ref.as_ref().map(|r| ObjectFieldSelector { api_version: None, field_path: r.field_path.clone() }),
                resource_field_ref: from.resource_field_ref.as_ref().map(|r| ResourceFieldSelector {
                    container_name: r.container_name.clone(),
                    divisor: r.divisor.clone(),
                    resource: r.resource.clone(),
                }),
                config_map_key_ref: from.config_map_key_ref.as_ref().map(|r| ConfigMapKeySelector {
                    key: r.key.clone(),
                    name: r.name.clone(),
                    optional: r.optional,
                }),
                secret_key_ref: from.secret_key_ref.as_ref().map(|r| SecretKeySelector {
                    key: r.key.clone(),
                    name: r.name.clone(),
                    optional: r.optional,
                }),
            }),
        },
        None => EnvVar { name: e.name.clone(), value: Some(e.value.clone().unwrap_or_default()), value_from: None },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

    fn runtime(yaml: &str) -> TrainingRuntime {
        serde_saphyr::from_str(yaml).unwrap()
    }

    fn trainjob(yaml: &str) -> TrainJob {
        serde_saphyr::from_str(yaml).unwrap()
    }

    const RUNTIME: &str = r#"
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: jax-gpu}
spec:
  mlPolicy: {numNodes: 2, jax: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              spec:
                containers:
                - name: node
                  image: jax:1
                  command: [python, train.py]
                  env: [{name: A, value: runtime}, {name: JAX_PLATFORMS, value: cuda}]
                  ports: [{containerPort: 8080}]
                  resources:
                    requests: {cpu: "4", memory: 16Gi}
                    limits: {nvidia.com/gpu: "8", memory: 16Gi}
"#;

    fn node(e: &Effective) -> &Container {
        let pod = e.trainer().unwrap().template.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
        pod.containers.iter().find(|c| c.name == facts().node).unwrap()
    }

    fn env<'a>(c: &'a Container, name: &str) -> Option<&'a EnvVar> {
        c.env.iter().flatten().find(|e| e.name == name)
    }

    #[test]
    fn the_plugin_env_goes_in_first_and_the_trainjob_env_replaces_it_in_place() {
        let tj = trainjob(
            "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job}\nspec:\n  runtimeRef: {name: jax-gpu}\n  trainer:\n    numNodes: 3\n    image: jax:2\n    env: [{name: A, value: job}, {name: JAX_PROCESS_ID, value: \"0\"}, {name: B, value: new}]\n",
        );
        let e = build(&runtime(RUNTIME), &tj, TrainerVersion::V2_3, Steps::All);
        let c = node(&e);
        let names: Vec<&str> = c.env.iter().flatten().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["A", "JAX_PLATFORMS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS", "B"]);
        assert_eq!(env(c, "A").unwrap().value.as_deref(), Some("job"));
        assert_eq!(env(c, "JAX_PROCESS_ID").unwrap().value.as_deref(), Some("0"), "the TrainJob's value wins");
        assert_eq!(env(c, "JAX_NUM_PROCESSES").unwrap().value.as_deref(), Some("3"));
        assert_eq!(env(c, "JAX_COORDINATOR_ADDRESS").unwrap().value.as_deref(), Some("job-node-0-0.job:29500"));
        assert_eq!(e.jax.as_ref().unwrap().overridden, ["JAX_PROCESS_ID"]);
        assert_eq!(c.image.as_deref(), Some("jax:2"));
        assert_eq!(c.command.as_ref().unwrap(), &["python", "train.py"], "no TrainJob command: the runtime's stays");
        // The unnamed 8080 port is replaced by the plugin's unnamed 29500 (byContainerPortOrName).
        assert_eq!(c.ports.as_ref().unwrap().iter().map(|p| p.container_port).collect::<Vec<_>>(), [29500]);
        assert_eq!(e.jax.as_ref().unwrap().replaced_port.as_ref().map(|p| p.container_port), Some(8080));
        let spec = e.trainer().unwrap().template.spec.as_ref().unwrap();
        assert_eq!((spec.parallelism, spec.completions, e.trainer().unwrap().replicas), (Some(3), Some(3), Some(1)));
    }

    #[test]
    fn no_trainer_block_means_no_plugin_env() {
        let tj = trainjob(
            "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job}\nspec: {runtimeRef: {name: jax-gpu}}\n",
        );
        let e = build(&runtime(RUNTIME), &tj, TrainerVersion::V2_3, Steps::All);
        assert!(e.jax.is_none());
        assert!(env(node(&e), "JAX_NUM_PROCESSES").is_none());
        assert_eq!(e.num_nodes(), 2);
    }

    #[test]
    fn resources_merge_per_key_in_v2_3_and_replace_in_v2_2() {
        let tj = trainjob(
            "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job}\nspec:\n  runtimeRef: {name: jax-gpu}\n  trainer:\n    resourcesPerNode: {limits: {cpu: \"2\"}}\n",
        );
        let q = |s: &str| Quantity(s.into());
        let v23 = build(&runtime(RUNTIME), &tj, TrainerVersion::V2_3, Steps::All);
        let r = node(&v23).resources.clone().unwrap();
        assert_eq!(
            r.limits.unwrap(),
            BTreeMap::from([("cpu".into(), q("2")), ("memory".into(), q("16Gi")), ("nvidia.com/gpu".into(), q("8"))])
        );
        assert_eq!(r.requests.unwrap().get("cpu"), Some(&q("4")), "requests stay: now above the limit");
        let v22 = build(&runtime(RUNTIME), &tj, TrainerVersion::V2_2, Steps::All);
        let r = node(&v22).resources.clone().unwrap();
        assert_eq!(r.limits.unwrap(), BTreeMap::from([("cpu".into(), q("2"))]), "v2.2 drops the GPU limit");
        assert!(r.requests.is_none());
    }

    #[test]
    fn overrides_only_leave_out_what_trainer_adds() {
        let tj = trainjob(
            "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job}\nspec:\n  runtimeRef: {name: jax-gpu}\n  trainer: {numNodes: 4, env: [{name: X, value: \"1\"}]}\n",
        );
        let e = build(&runtime(RUNTIME), &tj, TrainerVersion::V2_3, Steps::Overrides);
        let c = node(&e);
        assert!(env(c, "JAX_NUM_PROCESSES").is_none() && env(c, "X").is_some());
        assert_eq!(e.trainer().unwrap().template.spec.as_ref().unwrap().parallelism, None);
        assert_eq!(e.num_nodes(), 4);
    }
}
