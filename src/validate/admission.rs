//! The Kubeflow Trainer v2.3 validating webhook for ClusterTrainingRuntime and TrainingRuntime
//! (`pkg/webhooks`, `validateReplicatedJobs`): for every replicated job whose template carries
//! the ancestor label with a known step, `replicas` must be 1 and the step's container must be
//! there. Runtimes labelled `trainer.kubeflow.org/webhook-validation: disabled` are skipped by
//! the webhook's objectSelector; their findings are reported as info, as a heads-up.

use crate::diag::{Diagnostic, Severity};
use crate::rules::validate::{ADMISSION_ANCESTOR_CONTAINER, ADMISSION_REPLICAS};
use crate::trainer::{facts, paths, TrainingRuntime};

/// True when the webhook skips this runtime.
pub fn webhook_disabled(rt: &TrainingRuntime) -> bool {
    let l = &facts().labels;
    rt.metadata.labels.as_ref().and_then(|m| m.get(&l.webhook_validation)).is_some_and(|v| *v == l.webhook_disabled)
}

pub fn check(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let f = facts();
    let label_ancestor = &f.ancestor_label;
    for (i, job) in rt.spec.template.spec.replicated_jobs.iter().enumerate() {
        let base = paths::replicated_job(i);
        let Some(step) = job.ancestor_step() else { continue };
        let Some(container) = f.container_of(step) else { continue };
        if let Some(r) = job.replicas {
            if r != 1 {
                out.push(Diagnostic::finding(
                    &ADMISSION_REPLICAS,
                    base.field("replicas"),
                    format!("replicated job `{}` ({label_ancestor}: {step}) has replicas {r}; the Trainer webhook requires 1", job.name),
                ));
            }
        }
        let containers =
            job.template.spec.as_ref().and_then(|s| s.template.spec.as_ref()).map(|p| p.containers.as_slice()).unwrap_or_default();
        if !containers.iter().any(|c| c.name == container) {
            out.push(Diagnostic::finding(
                &ADMISSION_ANCESTOR_CONTAINER,
                paths::pod_spec(i).field("containers"),
                format!(
                    "replicated job `{}` is the `{step}` step but has no container named `{container}` (it has {})",
                    job.name,
                    if containers.is_empty() {
                        "none".to_string()
                    } else {
                        containers.iter().map(|c| format!("`{}`", c.name)).collect::<Vec<_>>().join(", ")
                    }
                ),
            ));
        }
    }
    if webhook_disabled(rt) {
        for d in &mut out {
            d.severity = Severity::Info;
            d.message = format!(
                "{} (not enforced: the runtime is labelled {}: {})",
                d.message, f.labels.webhook_validation, f.labels.webhook_disabled
            );
        }
    }
    out
}
