//! A TrainJob's `spec.initializer` against the runtime it uses: what the Trainer webhook requires
//! of the runtime (after the TrainJob's runtime patches) when a TrainJob asks for a dataset or a
//! model (kubeflow/trainer v2.3.0 `pkg/runtime/framework/plugins/jobset/jobset.go`
//! `(*JobSet).Validate`): the initializer's replicated job, a container (or init container) of
//! that name in it, and, from Trainer v2.3, a regular container of that name that mounts the
//! `initializer` volume. The names are `catalog/trainer.yaml`'s (`initializers`, `steps`).

use serde_json::Value;

use crate::diag::{Diagnostic, FieldPath};
use crate::rules::trainjob::TRAINJOB_INITIALIZER;
use crate::trainer::{facts, TrainJob};
use crate::trainjob::Effective;

/// The `trainjob/initializer` findings of `tj` on the runtime as its patches change it (`over`).
pub fn check(tj: &TrainJob, over: &Effective) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let Some(asked) = tj.spec.initializer.as_ref().and_then(|i| serde_json::to_value(i).ok()) else { return out };
    let f = facts();
    let init = &f.initializers;
    let mount_required =
        f.releases.iter().position(|r| *r == init.mount_required_since).is_some_and(|since| over.version as usize >= since);
    let runtime = over.template.spec.replicated_jobs.iter().map(|j| format!("`{}`", j.name)).collect::<Vec<_>>();
    for (field, step) in &init.required {
        if asked.get(field).is_none_or(Value::is_null) {
            continue;
        }
        let Some(container) = f.container_of(step) else { continue };
        let at = FieldPath::from("spec.initializer").field(field);
        let rejects = format!("the Trainer {} webhook rejects the TrainJob", over.version);
        let Some(job) = over.template.spec.replicated_jobs.iter().find(|j| j.name == *step) else {
            out.push(Diagnostic::finding(
                &TRAINJOB_INITIALIZER,
                at,
                format!(
                    "`spec.initializer.{field}` is set, but the runtime has no replicated job `{step}` (it has {}): {rejects} (\"must have {step} job when trainJob is configured with input {field}Config\")",
                    if runtime.is_empty() { "none".to_string() } else { runtime.join(", ") }
                ),
            ));
            continue;
        };
        let pod = job.template.spec.as_ref().and_then(|s| s.template.spec.as_ref());
        let containers = pod.map(|p| p.containers.as_slice()).unwrap_or_default();
        let init_containers = pod.and_then(|p| p.init_containers.as_deref()).unwrap_or_default();
        if !containers.iter().chain(init_containers).any(|c| c.name == container) {
            out.push(Diagnostic::finding(
                &TRAINJOB_INITIALIZER,
                at,
                format!(
                    "`spec.initializer.{field}` is set, but replicated job `{step}` has no container `{container}`: {rejects} (\"must have container with name - {container} in the {step} job\")"
                ),
            ));
            continue;
        }
        let mounts =
            containers.iter().filter(|c| c.name == container).any(|c| c.volume_mounts.iter().flatten().any(|m| m.name == init.volume));
        if mount_required && !mounts {
            out.push(Diagnostic::finding(
                &TRAINJOB_INITIALIZER,
                at,
                format!(
                    "`spec.initializer.{field}` is set, but container `{container}` of replicated job `{step}` has no volumeMount named `{vol}`: {rejects} (\"must have volumeMount with name - {vol} in container {container} of the {step} job\"); mount the `{vol}` volume in it (the trainer reads what the initializer writes there)",
                    vol = init.volume
                ),
            ));
        }
    }
    out
}
