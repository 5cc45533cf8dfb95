//! Taints as data, matched against every pod of a runtime (`taint/*`, [`crate::rules::validate`]):
//! the taints the nodes a pod selects carry ([`crate::capacity::taints`]: Spot VMs, ComputeClasses,
//! accelerator pools, from `catalog/capacity.yaml` and `catalog/accelerators/nodes.yaml`) that the
//! pod does not tolerate after admission (ExtendedResourceToleration where the platform runs it,
//! GKE Autopilot's own for Spot and ComputeClass pods). An error where every selected node carries
//! the taint, a warning naming it where only some do (GKE Spot: the nodes node auto-provisioning
//! and Autopilot create; a hand-made Spot pool may have none). Autoscaling never makes it fit:
//! provisioned nodes carry the same taint. `validate`, `render` (through [`super::generated`]) and
//! the TrainJob checks all run this through [`super::checks::RUNTIME_CHECKS`]; `fit
//! --auto-provisioning` asks the same function.

use k8s_openapi::api::core::v1::PodSpec;

use crate::accelerators::nodes::Presence;
use crate::capacity::{is_autopilot, taints};
use crate::diag::Diagnostic;
use crate::k8s::resources::is_extended;
use crate::k8s::selection::pinned_labels;
use crate::rules::validate::{TAINT_UNTOLERATED, TAINT_UNTOLERATED_SOME_POOLS};
use crate::trainer::paths;
use crate::trainer::TrainingRuntime;

pub fn check(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let trainer_selector = rt.trainer_job().and_then(|(_, j)| j.template.spec.as_ref()?.template.spec.as_ref()?.node_selector.as_ref());
    let autopilot = is_autopilot(rt.metadata.annotations.as_ref(), trainer_selector);
    let mut out = Vec::new();
    for (i, job) in rt.spec.template.spec.replicated_jobs.iter().enumerate() {
        let Some(pod) = job.template.spec.as_ref().and_then(|s| s.template.spec.as_ref()) else { continue };
        let pinned = pinned_labels(pod);
        let extended = extended_requests(pod);
        let tolerations = pod.tolerations.as_deref().unwrap_or_default();
        let view = taints::Pod { pinned: &pinned, tolerations, extended: &extended, autopilot };
        for s in taints::untolerated(&view) {
            let rule = if s.presence == Presence::Always { &TAINT_UNTOLERATED } else { &TAINT_UNTOLERATED_SOME_POOLS };
            out.push(Diagnostic::finding(
                rule,
                paths::pod_spec(i).field("tolerations"),
                format!(
                    "replicated job `{}` selects {} ({}) but does not tolerate the taint `{}` of those nodes: {}; add the toleration {}",
                    job.name,
                    s.on,
                    s.by,
                    s.text(),
                    s.presence.words(),
                    s.toleration()
                ),
            ));
        }
    }
    out
}

/// The extended resources the pod's containers request or limit (what ExtendedResourceToleration
/// reads, once requests are defaulted from limits), each once, in order.
pub(crate) fn extended_requests(pod: &PodSpec) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in pod.init_containers.iter().flatten().chain(&pod.containers) {
        let Some(r) = c.resources.as_ref() else { continue };
        for name in r.limits.iter().flatten().chain(r.requests.iter().flatten()).map(|(k, _)| k.as_str()) {
            if is_extended(name) && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime(pod: &str) -> TrainingRuntime {
        let yaml = format!(
            "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {{name: r}}\nspec:\n  mlPolicy: {{numNodes: 1, jax: {{}}}}\n  template:\n    spec:\n      replicatedJobs:\n      - name: node\n        template:\n          metadata: {{labels: {{trainer.kubeflow.org/trainjob-ancestor-step: trainer}}}}\n          spec:\n            template:\n              spec:\n{pod}"
        );
        crate::yaml::from_str(&yaml).unwrap()
    }

    const CPU: &str = "                containers: [{name: node, image: python:3.12}]\n";

    #[test]
    fn gke_spot_without_its_toleration_is_a_warning_naming_the_taint() {
        let rt = runtime(&format!("{CPU}                nodeSelector: {{cloud.google.com/gke-spot: 'true'}}\n"));
        let found = check(&rt);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule.id, "taint/untolerated-some-pools");
        assert!(found[0].message.contains("`cloud.google.com/gke-spot=true:NoSchedule`"), "{}", found[0].message);
        let tolerated = runtime(&format!(
            "{CPU}                nodeSelector: {{cloud.google.com/gke-spot: 'true'}}\n                tolerations: [{{key: cloud.google.com/gke-spot, operator: Exists}}]\n"
        ));
        assert!(check(&tolerated).is_empty());
    }

    #[test]
    fn a_compute_class_without_its_toleration_is_an_error_except_in_autopilot() {
        let rt = runtime(&format!("{CPU}                nodeSelector: {{cloud.google.com/compute-class: batch}}\n"));
        let found = check(&rt);
        assert_eq!(found.iter().map(|d| d.rule.id).collect::<Vec<_>>(), ["taint/untolerated"], "{found:?}");
        assert!(found[0].message.contains("cloud.google.com/compute-class=batch:NoSchedule"));
        // A class only Autopilot runs: Autopilot configures its nodes and the pods' tolerations.
        let ap = runtime(&format!("{CPU}                nodeSelector: {{cloud.google.com/compute-class: Performance}}\n"));
        assert!(check(&ap).is_empty(), "{:?}", check(&ap));
    }

    #[test]
    fn affinity_selects_like_a_node_selector() {
        let rt = runtime(&format!(
            "{CPU}                affinity: {{nodeAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: {{nodeSelectorTerms: [{{matchExpressions: [{{key: kubernetes.azure.com/scalesetpriority, operator: In, values: [spot]}}]}}]}}}}}}\n"
        ));
        let found = check(&rt);
        assert_eq!(found.iter().map(|d| d.rule.id).collect::<Vec<_>>(), ["taint/untolerated"], "{found:?}");
    }
}
