//! What the rest of the ecosystem needs from a runtime, beyond what the API server checks:
//! - the Kubeflow SDK (kubeflow/sdk `backends/kubernetes`): the framework label, a trainer job
//!   with a `node` container, and `resources.limits` keys it can turn into a device;
//! - the Trainer JAX plugin, which injects `JAX_*` variables and builds the coordinator address
//!   from the TrainJob name;
//! - the Trainer JobSet plugin, which writes `parallelism`/`completions` of the trainer job.

use crate::accelerators::{data, sdk::Device};
use crate::diag::Diagnostic;
use crate::rules::validate::{
    JAX_PLUGIN_ENV as RULE_JAX_PLUGIN_ENV, JOBSET_DNS_HOSTNAMES, JOBSET_MANAGED_FIELD, JOBSET_SUBDOMAIN, SDK_FRAMEWORK_LABEL,
    SDK_TRAINER_CONTAINER, SDK_UNKNOWN_DEVICE, TRAINER_NODE_CONTAINER, TRAINER_NUM_NODES,
};
use crate::trainer::paths::{self, PodPaths};
use crate::trainer::{facts, ReplicatedJob, TrainingRuntime};

fn containers(job: &ReplicatedJob) -> &[k8s_openapi::api::core::v1::Container] {
    job.pod_spec().map(|p| p.containers.as_slice()).unwrap_or_default()
}

pub fn check(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let f = facts();
    let (label_framework, label_ancestor, node) = (&f.labels.framework, &f.ancestor_label, &f.node);
    let framework = rt.metadata.labels.as_ref().and_then(|l| l.get(label_framework));
    if framework.is_none_or(|f| f.is_empty()) {
        // The framework the runtime's own ML policy names, never one it does not run.
        let help = match rt.spec.ml_policy.as_ref().and_then(|m| m.framework()) {
            Some(policy) => format!(
                "the runtime's mlPolicy is `{policy}`: add `metadata.labels: {{{label_framework}: {policy}}}` (or the name the SDK should list it under, such as `deepspeed` for an MPI DeepSpeed runtime); needed only with the Kubeflow SDK (`validate --require sdk` makes it an error)"
            ),
            None => format!(
                "the runtime has no framework mlPolicy: add `metadata.labels: {{{label_framework}: <the framework its trainer runs>}}`; needed only with the Kubeflow SDK (`validate --require sdk` makes it an error)"
            ),
        };
        out.push(
            Diagnostic::finding(
                &SDK_FRAMEWORK_LABEL,
                "metadata.labels",
                format!("no `{label_framework}` label: the Kubeflow SDK does not list this runtime and get_runtime() fails (kubectl and Trainer do not need it)"),
            )
            .with_help(help),
        );
    }

    let jobs = &rt.spec.template.spec.replicated_jobs;
    // The SDK's trainer container: the first container named `node` in a job carrying the
    // ancestor label (any value), jobs in order (sdk `get_runtime_trainer_container`).
    let labelled: Vec<(usize, &ReplicatedJob)> = jobs.iter().enumerate().filter(|(_, j)| j.ancestor_step().is_some()).collect();
    let trainer =
        labelled.iter().find_map(|(i, j)| containers(j).iter().enumerate().find(|(_, c)| c.name == *node).map(|(c, x)| (*i, c, x)));
    match (labelled.first(), trainer) {
        (None, _) => out.push(Diagnostic::finding(&SDK_TRAINER_CONTAINER,
            paths::replicated_jobs(),
            format!("no replicated job has the `{label_ancestor}` label; the Kubeflow SDK cannot find the trainer"),
        )),
        (Some((i, _)), None) => out.push(Diagnostic::finding(&SDK_TRAINER_CONTAINER,
            paths::pod_spec(*i).field("containers"),
            format!("no replicated job with the `{label_ancestor}` label has a container named `{node}`; the Kubeflow SDK cannot find the trainer"),
        )),
        (Some(_), Some((i, c, container))) => {
            let base = paths::pod_spec(i).field("containers");
            if container.image.as_deref().is_none_or(str::is_empty) {
                out.push(Diagnostic::finding(&SDK_TRAINER_CONTAINER,
                    base.index(c).field("image"),
                    "the trainer container `node` has no image; the Kubeflow SDK reports \"Runtime doesn't have trainer container\"",
                ));
            }
            if let Some(limits) = container.resources.as_ref().and_then(|r| r.limits.as_ref()) {
                let field = base.index(c).field("resources").field("limits");
                let sdk = &data().sdk;
                match sdk.device_of(limits) {
                    Device::Several { keys } => out.push(Diagnostic::finding(
                        &SDK_UNKNOWN_DEVICE,
                        field,
                        format!(
                            "limits name {} MIG profiles ({}); the Kubeflow SDK accepts one",
                            keys.len(),
                            keys.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
                        ),
                    )),
                    Device::Unreadable => out.push(Diagnostic::finding(
                        &SDK_UNKNOWN_DEVICE,
                        field,
                        format!(
                            "limits {} hold no key the Kubeflow SDK reads ({}); it raises \"Unknown device type\" when listing the runtime",
                            limits.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", "),
                            sdk.known_keys().join(", ")
                        ),
                    )),
                    Device::Unknown | Device::Named { .. } => {}
                }
            }
        }
    }

    // The pod count Trainer reads: `ptr.Deref(mlPolicy.NumNodes, 1)`.
    if let Some(n) = rt.spec.ml_policy.as_ref().and_then(|m| m.num_nodes).filter(|n| *n < 1) {
        out.push(Diagnostic::finding(
            &TRAINER_NUM_NODES,
            "spec.mlPolicy.numNodes",
            if n == 0 {
                "numNodes is 0: the trainer job of every TrainJob that does not set its own numNodes gets 0 pods and completes at once without running anything".to_string()
            } else {
                format!("numNodes is {n}: Trainer sets the trainer job's parallelism and completions to it, and Kubernetes rejects a negative count")
            },
        ));
    }

    // Trainer's own trainer container: a job labelled ancestor `trainer` with a container
    // `node` (a labelled job without one is the webhook's error, unless it is disabled).
    let trainer_jobs: Vec<(usize, &ReplicatedJob)> = jobs.iter().enumerate().filter(|(_, j)| j.is_trainer()).collect();
    let applies = "Trainer applies a TrainJob's `image`, `command`, `args`, `env`, `numNodes` and `resourcesPerNode` only there (kubeflow/trainer plugins/jobset/builder.go `Trainer`), so TrainJobs run this runtime as written";
    match trainer_jobs.first() {
        None => out.push(Diagnostic::finding(
            &TRAINER_NODE_CONTAINER,
            paths::replicated_jobs(),
            format!("no replicated job is labelled `{label_ancestor}: {}`: {applies}", f.trainer_step),
        )),
        Some((i, _))
            if super::admission::webhook_disabled(rt)
                && !trainer_jobs.iter().any(|(_, j)| containers(j).iter().any(|c| c.name == *node)) =>
        {
            out.push(Diagnostic::finding(
                &TRAINER_NODE_CONTAINER,
                paths::pod_spec(*i).field("containers"),
                format!("the replicated job labelled `{label_ancestor}: {}` has no container `{node}`: {applies}", f.trainer_step),
            ));
        }
        Some(_) => {}
    }

    let jax = rt.spec.ml_policy.as_ref().is_some_and(|m| m.jax.is_some());
    for (i, job) in jobs.iter().enumerate() {
        if !job.is_trainer() {
            continue;
        }
        let base = paths::job_spec(i);
        if let Some(spec) = job.template.spec.as_ref() {
            for (field, set) in [("parallelism", spec.parallelism), ("completions", spec.completions)] {
                if let Some(n) = set {
                    out.push(Diagnostic::finding(
                        &JOBSET_MANAGED_FIELD,
                        base.field(field),
                        format!("`{field}: {n}` on the trainer job is overwritten by the Trainer controller with numNodes"),
                    ));
                }
            }
        }
        if jax {
            for (c, container) in containers(job).iter().enumerate().filter(|(_, c)| c.name == *node) {
                for (e, env) in container.env.iter().flatten().enumerate() {
                    if f.is_jax_variable(&env.name) {
                        out.push(Diagnostic::finding(
                            &RULE_JAX_PLUGIN_ENV,
                            paths::pod_spec(i).container(c).field("env").index(e),
                            f.jax.set_by_runtime(&env.name),
                        ));
                    }
                }
            }
        }
    }

    if let Some(network) = rt.spec.template.spec.network.as_ref() {
        if network.subdomain.as_deref().is_some_and(|s| !s.is_empty()) {
            out.push(Diagnostic::finding(&JOBSET_SUBDOMAIN,
                "spec.template.spec.network.subdomain",
                "a custom subdomain breaks the coordinator address the Trainer plugins derive from the TrainJob name (`<trainjob>-node-0-0.<trainjob>`)",
            ));
        }
        if network.enable_dns_hostnames == Some(false) {
            out.push(Diagnostic::finding(
                &JOBSET_DNS_HOSTNAMES,
                "spec.template.spec.network.enableDNSHostnames",
                "without DNS hostnames the pods cannot reach the coordinator `<trainjob>-node-0-0.<trainjob>`",
            ));
        }
    }
    out
}

/// The rules only a client needs, made errors where the user requires that client
/// (`validate --require sdk`, `JaxRuntimeValidation` `spec.require: [sdk]`): by default they are
/// warnings, as kubectl and Trainer work without them.
pub fn require(diags: &mut [Diagnostic], clients: &[crate::catalog::Requirement]) {
    if !clients.contains(&crate::catalog::Requirement::Sdk) {
        return;
    }
    for d in diags.iter_mut().filter(|d| [&SDK_FRAMEWORK_LABEL, &SDK_TRAINER_CONTAINER, &SDK_UNKNOWN_DEVICE].contains(&d.rule)) {
        if d.severity == crate::diag::Severity::Warning {
            d.severity = crate::diag::Severity::Error;
            d.message.push_str(" (an error: the Kubeflow SDK is required)");
        }
    }
}
