//! Objects that look like ours but are not quite: a kind or apiVersion one typo away from a kind
//! jax-runtimes reads. Trainer's (`ClusterTrainingRuntime`, `TrainingRuntime`, `TrainJob`),
//! JobSet's (`JobSet`) and the catalog's ([`crate::catalog::identify`]). Skipping such an object
//! would leave it unchecked (`kubectl apply` would then refuse it, or worse, a catalog entry
//! would prune what it generated), so every front door (`validate`, `render`, both KRM modes)
//! reports it as an error with the nearest spelling. Objects of other groups stay foreign.

use crate::catalog::{self, Identity};
use crate::diag::Diagnostic;
use crate::gvk::Gvk;
use crate::rules::input::INPUT_NEAR_MISS;
use crate::spelling;
use crate::trainer;

/// A group, its version and its kinds, as one project names them.
struct Family {
    /// Whose kinds, for messages (`Trainer`, `JobSet`).
    owner: &'static str,
    group: &'static str,
    version: &'static str,
    kinds: &'static [&'static str],
}

/// The kinds jax-runtimes reads besides its catalog: Trainer v2.3.0 (`pkg/apis/trainer/v1alpha1`)
/// and JobSet v0.12.0 (`api/jobset/v1alpha2`).
const FAMILIES: [Family; 2] = [
    Family {
        owner: "Trainer",
        group: trainer::GROUP,
        version: "v1alpha1",
        kinds: &[trainer::KIND_CLUSTER, trainer::KIND_NAMESPACED, trainer::KIND_TRAINJOB],
    },
    Family { owner: "JobSet", group: "jobset.x-k8s.io", version: "v1alpha2", kinds: &["JobSet"] },
];

/// How many edits a kind or group may be away from ours and still be taken for a typo of it.
const TYPO: usize = 2;

/// The error for an object whose kind or apiVersion is a near miss of a kind jax-runtimes reads;
/// `None` for the exact kinds and for other projects' objects.
pub fn near_miss(gvk: Gvk<'_>) -> Option<Diagnostic> {
    match catalog::identify(gvk) {
        Identity::Misspelt(d) => return Some(*d),
        Identity::Ours(_) => return None,
        Identity::Foreign => {}
    }
    if FAMILIES.iter().any(|f| f.group == gvk.group && f.version == gvk.version && f.kinds.contains(&gvk.kind)) {
        return None;
    }
    let exact_kind = FAMILIES.iter().find_map(|f| f.kinds.iter().find(|k| **k == gvk.kind).map(|k| (f, *k)));
    let near_kind =
        exact_kind.or_else(|| FAMILIES.iter().find_map(|f| spelling::nearest(gvk.kind, f.kinds.iter().copied(), TYPO).map(|k| (f, k))));
    let api_version = if gvk.group.is_empty() { gvk.version.to_string() } else { format!("{}/{}", gvk.group, gvk.version) };
    if let Some((f, kind)) = near_kind {
        let same_group = gvk.group == f.group;
        if !same_group && !near_group(gvk, f) {
            return None;
        }
        let right_api = format!("{}/{}", f.group, f.version);
        let kind_ok = gvk.kind == kind;
        let api_ok = same_group && gvk.version == f.version;
        let (field, message) = match (kind_ok, api_ok) {
            (true, _) => (
                "apiVersion",
                if api_version.is_empty() {
                    format!("a {} `{kind}` without an apiVersion; did you mean `apiVersion: {right_api}`?", f.owner)
                } else {
                    format!("`apiVersion: {api_version}` is not the apiVersion of a {} `{kind}`; did you mean `{right_api}`?", f.owner)
                },
            ),
            (false, true) => ("kind", format!("`kind: {}` is not a {} kind; did you mean `{kind}`?", gvk.kind, f.owner)),
            (false, false) => (
                "kind",
                format!("`apiVersion: {api_version}`, `kind: {}` looks like a {} object; did you mean `apiVersion: {right_api}`, `kind: {kind}`?", gvk.kind, f.owner),
            ),
        };
        return Some(Diagnostic::new(&INPUT_NEAR_MISS, message).with_field(field).with_help(format!(
            "write `apiVersion: {right_api}` and `kind: {kind}`; an object jax-runtimes does not recognise would go unchecked"
        )));
    }
    // The group is one of ours, the kind is nothing like one of its kinds.
    let f = FAMILIES.iter().find(|f| f.group == gvk.group)?;
    let kinds = f.kinds.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let message = if gvk.kind.is_empty() {
        format!("the object has no `kind`; a `{}` object is one of {kinds}", f.group)
    } else {
        format!("`kind: {}` is not a kind of `{}`; expected one of {kinds}", gvk.kind, f.group)
    };
    Some(Diagnostic::new(&INPUT_NEAR_MISS, message).with_field("kind").with_help(format!("the {} kinds are {kinds}", f.owner)))
}

/// A group that is a typo of the family's (`trainer.kubeflow.com`, `trainer.kubeflw.org`,
/// `kubeflow.org`, none at all with a version like ours).
fn near_group(gvk: Gvk<'_>, f: &Family) -> bool {
    let g = gvk.group.to_ascii_lowercase();
    if g.is_empty() {
        return gvk.version.is_empty() || spelling::distance(gvk.version, f.version) <= TYPO;
    }
    let labels = |s: &str| s.split('.').map(str::to_string).collect::<Vec<_>>();
    let (ours, theirs) = (labels(f.group), labels(&g));
    let other_tld = ours.len() == theirs.len() && ours[..ours.len() - 1] == theirs[..theirs.len() - 1];
    spelling::distance(&g, f.group) <= TYPO || other_tld || f.group.ends_with(&format!(".{g}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn miss(api: &str, kind: &str) -> Option<String> {
        near_miss(Gvk::new(api, kind)).map(|d| format!("{} {}: {}", d.rule.id, d.field.unwrap_or_default(), d.message))
    }

    #[test]
    fn near_misses_of_trainer_and_jobset_kinds_name_the_spelling() {
        for (api, kind, says) in [
            ("trainer.kubeflow.org/v1alpha1", "TrainJobb", "did you mean `TrainJob`?"),
            ("trainer.kubeflow.org/v1alpha1", "trainingruntime", "did you mean `TrainingRuntime`?"),
            ("trainer.kubeflow.com/v1alpha1", "TrainJob", "did you mean `trainer.kubeflow.org/v1alpha1`?"),
            ("trainer.kubeflow.org/v1", "ClusterTrainingRuntime", "did you mean `trainer.kubeflow.org/v1alpha1`?"),
            ("kubeflow.org/v1alpha1", "TrainJob", "did you mean `trainer.kubeflow.org/v1alpha1`?"),
            ("trainer.kubeflw.org/v1alpha1", "TrainJobs", "did you mean `apiVersion: trainer.kubeflow.org/v1alpha1`, `kind: TrainJob`?"),
            ("v1alpha1", "TrainJob", "did you mean `trainer.kubeflow.org/v1alpha1`?"),
            ("", "TrainJob", "without an apiVersion"),
            ("jobset.x-k8s.io/v1alpha2", "JobSett", "did you mean `JobSet`?"),
            ("jobset.x-k8s.com/v1alpha2", "JobSet", "did you mean `jobset.x-k8s.io/v1alpha2`?"),
            ("trainer.kubeflow.org/v1alpha1", "Widget", "is not a kind of `trainer.kubeflow.org`"),
            ("jax-runtimes.dev/v1alpha1", "JaxRuntme", "did you mean `JaxRuntime`?"),
        ] {
            let m = miss(api, kind).unwrap_or_else(|| panic!("{api} {kind}: not a near miss"));
            assert!(m.contains(says), "{api} {kind}: {m}");
        }
        assert!(miss("trainer.kubeflow.org/v1alpha1", "TrainJobb").unwrap().starts_with("input/near-miss kind:"));
    }

    #[test]
    fn exact_kinds_and_other_projects_objects_are_not_near_misses() {
        for (api, kind) in [
            ("trainer.kubeflow.org/v1alpha1", "TrainJob"),
            ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"),
            ("jobset.x-k8s.io/v1alpha2", "JobSet"),
            ("jax-runtimes.dev/v1alpha1", "JaxRuntime"),
            ("v1", "ConfigMap"),
            ("apps/v1", "Deployment"),
            ("batch/v1", "Job"),
            ("example.com/v1", "TrainJob"),
            ("kueue.x-k8s.io/v1beta1", "ClusterQueue"),
            ("kustomize.config.k8s.io/v1beta1", "Kustomization"),
            ("kubeflow.org/v1", "PyTorchJob"),
            ("", ""),
        ] {
            assert_eq!(miss(api, kind), None, "{api} {kind}");
        }
    }
}
