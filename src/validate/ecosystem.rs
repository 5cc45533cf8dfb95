//! What the rest of the ecosystem needs from a runtime, beyond what the API server checks:
//! - the Kubeflow SDK (kubeflow/sdk `backends/kubernetes`): the framework label, a trainer job
//!   with a `node` container, and `resources.limits` keys it can turn into a device;
//! - the Trainer JAX plugin, which injects `JAX_*` variables and builds the coordinator address
//!   from the TrainJob name;
//! - the Trainer JobSet plugin, which writes `parallelism`/`completions` of the trainer job.

use serde_json::Value;

use super::finding;
use crate::diag::Diagnostic;
use crate::trainer::{ReplicatedJob, TrainingRuntime, JAX_PLUGIN_ENV, LABEL_ANCESTOR, LABEL_FRAMEWORK, NODE};

/// Limit keys the SDK's device detection knows (besides `nvidia.com/mig-*`).
pub const SDK_DEVICE_KEYS: [&str; 3] = ["nvidia.com/gpu", "google.com/tpu", "cpu"];
const MIG_PREFIX: &str = "nvidia.com/mig-";

fn ancestor(job: &ReplicatedJob) -> Option<&str> {
    job.template.metadata.as_ref()?.labels.as_ref()?.get(LABEL_ANCESTOR).map(String::as_str)
}

fn containers(job: &ReplicatedJob) -> &[k8s_openapi::api::core::v1::Container] {
    job.template.spec.as_ref().and_then(|s| s.template.spec.as_ref()).map(|p| p.containers.as_slice()).unwrap_or_default()
}

pub fn check(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let framework = rt.metadata.labels.as_ref().and_then(|l| l.get(LABEL_FRAMEWORK));
    if framework.is_none_or(|f| f.is_empty()) {
        out.push(finding(
            "sdk/framework-label",
            "metadata.labels",
            format!("no `{LABEL_FRAMEWORK}` label: the Kubeflow SDK does not list this runtime and get_runtime() fails"),
        ));
    }

    let jobs = &rt.spec.template.spec.replicated_jobs;
    // The SDK's trainer container: the first container named `node` in a job carrying the
    // ancestor label (any value), jobs in order (sdk `get_runtime_trainer_container`).
    let labelled: Vec<(usize, &ReplicatedJob)> = jobs.iter().enumerate().filter(|(_, j)| ancestor(j).is_some()).collect();
    let trainer =
        labelled.iter().find_map(|(i, j)| containers(j).iter().enumerate().find(|(_, c)| c.name == NODE).map(|(c, x)| (*i, c, x)));
    match (labelled.first(), trainer) {
        (None, _) => out.push(finding(
            "sdk/trainer-container",
            "spec.template.spec.replicatedJobs",
            format!("no replicated job has the `{LABEL_ANCESTOR}` label; the Kubeflow SDK cannot find the trainer"),
        )),
        (Some((i, _)), None) => out.push(finding(
            "sdk/trainer-container",
            format!("spec.template.spec.replicatedJobs[{i}].template.spec.template.spec.containers"),
            format!("no replicated job with the `{LABEL_ANCESTOR}` label has a container named `{NODE}`; the Kubeflow SDK cannot find the trainer"),
        )),
        (Some(_), Some((i, c, container))) => {
            let base = format!("spec.template.spec.replicatedJobs[{i}].template.spec.template.spec.containers");
            if container.image.as_deref().is_none_or(str::is_empty) {
                out.push(finding(
                    "sdk/trainer-container",
                    format!("{base}[{c}].image"),
                    "the trainer container `node` has no image; the Kubeflow SDK reports \"Runtime doesn't have trainer container\"",
                ));
            }
            if let Some(limits) = container.resources.as_ref().and_then(|r| r.limits.as_ref()).filter(|l| !l.is_empty()) {
                let migs: Vec<&String> = limits.keys().filter(|k| k.starts_with(MIG_PREFIX)).collect();
                let known = limits.keys().any(|k| SDK_DEVICE_KEYS.contains(&k.as_str())) || !migs.is_empty();
                let field = format!("{base}[{c}].resources.limits");
                let gpu_or_tpu = limits.contains_key("nvidia.com/gpu") || limits.contains_key("google.com/tpu");
                if migs.len() > 1 && !gpu_or_tpu {
                    out.push(finding(
                        "sdk/unknown-device",
                        field,
                        format!("limits name {} MIG profiles ({}); the Kubeflow SDK accepts one", migs.len(), migs.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")),
                    ));
                } else if !known {
                    out.push(finding(
                        "sdk/unknown-device",
                        field,
                        format!(
                            "limits {} hold no key the Kubeflow SDK reads ({}, nvidia.com/mig-*); it raises \"Unknown device type\" when listing the runtime",
                            limits.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", "),
                            SDK_DEVICE_KEYS.join(", ")
                        ),
                    ));
                }
            }
        }
    }

    let jax = rt.spec.ml_policy.as_ref().is_some_and(|m| m.jax.is_some());
    for (i, job) in jobs.iter().enumerate() {
        if ancestor(job) != Some("trainer") {
            continue;
        }
        let base = format!("spec.template.spec.replicatedJobs[{i}].template.spec");
        if let Some(spec) = job.template.spec.as_ref() {
            for (field, set) in [("parallelism", spec.parallelism), ("completions", spec.completions)] {
                if let Some(n) = set {
                    out.push(finding(
                        "jobset/managed-field",
                        format!("{base}.{field}"),
                        format!("`{field}: {n}` on the trainer job is overwritten by the Trainer controller with numNodes"),
                    ));
                }
            }
        }
        if jax {
            for (c, container) in containers(job).iter().enumerate().filter(|(_, c)| c.name == NODE) {
                for (e, env) in container.env.iter().flatten().enumerate() {
                    if JAX_PLUGIN_ENV.contains(&env.name.as_str()) {
                        out.push(finding(
                            "jax/plugin-env",
                            format!("{base}.template.spec.containers[{c}].env[{e}]"),
                            format!("`{}` is injected by the Trainer JAX plugin; a value set here is wrong whenever the TrainJob has no spec.trainer", env.name),
                        ));
                    }
                }
            }
        }
    }

    if let Some(network) = rt.spec.template.spec.network.as_ref() {
        if network.get("subdomain").and_then(Value::as_str).is_some_and(|s| !s.is_empty()) {
            out.push(finding(
                "jobset/subdomain",
                "spec.template.spec.network.subdomain",
                "a custom subdomain breaks the coordinator address the Trainer plugins derive from the TrainJob name (`<trainjob>-node-0-0.<trainjob>`)",
            ));
        }
        if network.get("enableDNSHostnames") == Some(&Value::Bool(false)) {
            out.push(finding(
                "jobset/dns-hostnames",
                "spec.template.spec.network.enableDNSHostnames",
                "without DNS hostnames the pods cannot reach the coordinator `<trainjob>-node-0-0.<trainjob>`",
            ));
        }
    }
    out
}
