//! The Kubeflow Trainer v2.3 validating webhook for ClusterTrainingRuntime and TrainingRuntime
//! (`pkg/webhooks`, `validateReplicatedJobs`): for every replicated job whose template carries
//! the ancestor label with a known step, `replicas` must be 1 and the step's container must be
//! there. Runtimes labelled `trainer.kubeflow.org/webhook-validation: disabled` are skipped by
//! the webhook's objectSelector; their findings are reported as info, as a heads-up.

use crate::diag::{Diagnostic, Severity};
use crate::keys::{TRAINER_ANCESTOR as LABEL_ANCESTOR, TRAINER_WEBHOOK_VALIDATION as LABEL_WEBHOOK_VALIDATION};
use crate::rules::validate::{ADMISSION_ANCESTOR_CONTAINER, ADMISSION_REPLICAS};
use crate::trainer::TrainingRuntime;

/// Ancestor step -> the container the webhook requires in that job.
pub const ANCESTOR_CONTAINERS: [(&str, &str); 3] =
    [("trainer", "node"), ("dataset-initializer", "dataset-initializer"), ("model-initializer", "model-initializer")];

/// True when the webhook skips this runtime.
pub fn webhook_disabled(rt: &TrainingRuntime) -> bool {
    rt.metadata.labels.as_ref().and_then(|l| l.get(LABEL_WEBHOOK_VALIDATION)).is_some_and(|v| v == "disabled")
}

pub fn check(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (i, job) in rt.spec.template.spec.replicated_jobs.iter().enumerate() {
        let base = format!("spec.template.spec.replicatedJobs[{i}]");
        let Some(step) = job.template.metadata.as_ref().and_then(|m| m.labels.as_ref()).and_then(|l| l.get(LABEL_ANCESTOR)) else {
            continue;
        };
        let Some((_, container)) = ANCESTOR_CONTAINERS.iter().find(|(s, _)| s == step) else { continue };
        if let Some(r) = job.replicas {
            if r != 1 {
                out.push(Diagnostic::finding(
                    &ADMISSION_REPLICAS,
                    format!("{base}.replicas"),
                    format!("replicated job `{}` ({LABEL_ANCESTOR}: {step}) has replicas {r}; the Trainer webhook requires 1", job.name),
                ));
            }
        }
        let containers =
            job.template.spec.as_ref().and_then(|s| s.template.spec.as_ref()).map(|p| p.containers.as_slice()).unwrap_or_default();
        if !containers.iter().any(|c| c.name == *container) {
            out.push(Diagnostic::finding(
                &ADMISSION_ANCESTOR_CONTAINER,
                format!("{base}.template.spec.template.spec.containers"),
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
            d.message = format!("{} (not enforced: the runtime is labelled {LABEL_WEBHOOK_VALIDATION}: disabled)", d.message);
        }
    }
    out
}
