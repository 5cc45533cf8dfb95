//! Objects that look like ours but are not quite: a kind or apiVersion one typo away from a kind
//! jax-runtimes reads. Trainer's (`ClusterTrainingRuntime`, `TrainingRuntime`, `TrainJob`),
//! JobSet's (`JobSet`) and the catalog's ([`crate::catalog::identify`]). Skipping such an object
//! would leave it unchecked (`kubectl apply` would then refuse it, or worse, a catalog entry
//! would prune what it generated), so every front door (`validate`, `render`, both KRM modes)
//! reports it as an error with the nearest spelling. Objects of other groups stay foreign.

use std::sync::OnceLock;

use crate::catalog::{self, Identity};
use crate::diag::Diagnostic;
use crate::gvk::Gvk;
use crate::rules::input::{INPUT_NEAR_MISS, INPUT_UNSERVED_VERSION};
use crate::spelling;
use crate::trainer;

/// A group, the versions its CRDs serve and its kinds, as one project names them.
struct Family {
    /// Whose kinds, for messages (`Trainer`, `JobSet`), and the release whose CRDs serve `versions`.
    owner: String,
    release: String,
    group: String,
    /// Served versions, the preferred (stored) one first.
    versions: Vec<String>,
    kinds: Vec<String>,
    /// Whether a kind or group one typo away is taken for ours (Trainer's and JobSet's kinds);
    /// for Kueue's only the versions are checked.
    typos: bool,
}

impl Family {
    fn api_version(&self) -> String {
        format!("{}/{}", self.group, self.versions.first().map(String::as_str).unwrap_or_default())
    }
}

/// The kinds jax-runtimes reads besides its catalog, with the versions their CRDs serve:
/// Trainer's, JobSet's and Kueue's (`catalog/trainer.yaml` `served`).
fn families() -> &'static [Family] {
    static FAMILIES: OnceLock<Vec<Family>> = OnceLock::new();
    FAMILIES.get_or_init(|| {
        let mut out: Vec<Family> = trainer::facts()
            .served
            .iter()
            .map(|(group, g)| Family {
                owner: g.owner.clone(),
                release: g.release.clone(),
                group: group.clone(),
                versions: g.versions.clone(),
                kinds: g.kinds.clone(),
                typos: group != &crate::kueue::facts().group,
            })
            .collect();
        // Trainer's first: the nearest kind is looked for in this order.
        out.sort_by_key(|f| f.group != trainer::GROUP);
        out
    })
}

/// How many edits a kind or group may be away from ours and still be taken for a typo of it.
const TYPO: usize = 2;

/// The versions a CRD given with `--crd` serves for a group and kind (they replace the built-in
/// table's), and the CRD's name.
#[derive(Debug, Clone, Copy)]
pub struct Served<'a> {
    pub crd: &'a str,
    pub versions: &'a [String],
}

/// The error for an object whose kind or apiVersion is a near miss of a kind jax-runtimes reads;
/// `None` for the exact kinds and for other projects' objects.
pub fn near_miss(gvk: Gvk<'_>) -> Option<Diagnostic> {
    near_miss_served(gvk, None)
}

/// [`near_miss`], with the served versions of the object's group and kind taken from a `--crd`
/// CRD where one defines them.
pub fn near_miss_served(gvk: Gvk<'_>, crd: Option<Served<'_>>) -> Option<Diagnostic> {
    match catalog::identify(gvk) {
        Identity::Misspelt(d) => return Some(*d),
        Identity::Ours(_) => return None,
        Identity::Foreign => {}
    }
    if let Some(d) = unserved(gvk, crd) {
        return Some(d);
    }
    // A version the `--crd` CRD of this group and kind serves is served, whatever the table says.
    if crd.is_some_and(|c| c.versions.iter().any(|v| v == gvk.version)) {
        return None;
    }
    let families = families();
    if families.iter().any(|f| f.group == gvk.group && f.versions.iter().any(|v| v == gvk.version) && f.kinds.iter().any(|k| k == gvk.kind))
    {
        return None;
    }
    let typos = || families.iter().filter(|f| f.typos);
    let exact_kind = typos().find_map(|f| f.kinds.iter().find(|k| *k == gvk.kind).map(|k| (f, k.as_str())));
    let near_kind =
        exact_kind.or_else(|| typos().find_map(|f| spelling::nearest(gvk.kind, f.kinds.iter().map(String::as_str), TYPO).map(|k| (f, k))));
    let api_version = if gvk.group.is_empty() { gvk.version.to_string() } else { format!("{}/{}", gvk.group, gvk.version) };
    if let Some((f, kind)) = near_kind {
        let same_group = gvk.group == f.group;
        if !same_group && !near_group(gvk, f) {
            return None;
        }
        let right_api = f.api_version();
        let kind_ok = gvk.kind == kind;
        let api_ok = same_group && f.versions.iter().any(|v| v == gvk.version);
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
    let f = typos().find(|f| f.group == gvk.group)?;
    let kinds = f.kinds.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let message = if gvk.kind.is_empty() {
        format!("the object has no `kind`; a `{}` object is one of {kinds}", f.group)
    } else {
        format!("`kind: {}` is not a kind of `{}`; expected one of {kinds}", gvk.kind, f.group)
    };
    Some(Diagnostic::new(&INPUT_NEAR_MISS, message).with_field("kind").with_help(format!("the {} kinds are {kinds}", f.owner)))
}

/// A kind of a known group at a version its CRD does not serve: the API server refuses the
/// object before anything else ("no matches for kind"). Matched by group and kind; the served
/// versions are the `--crd` CRD's where one defines the kind, else the built-in table's.
fn unserved(gvk: Gvk<'_>, crd: Option<Served<'_>>) -> Option<Diagnostic> {
    let f = families().iter().find(|f| f.group == gvk.group && f.kinds.iter().any(|k| k == gvk.kind))?;
    let (versions, whose) = match crd {
        Some(c) => (c.versions, format!("the CRD `{}` (--crd)", c.crd)),
        None => (f.versions.as_slice(), format!("the {} {} CRD", f.owner, f.release)),
    };
    if gvk.version.is_empty() || versions.iter().any(|v| v == gvk.version) {
        return None;
    }
    let served = versions.iter().map(|v| format!("`{}/{v}`", f.group)).collect::<Vec<_>>().join(", ");
    let first = versions.first().map(|v| format!("{}/{v}", f.group))?;
    Some(
        Diagnostic::new(
            &INPUT_UNSERVED_VERSION,
            format!(
                "`apiVersion: {}/{}`: {whose} serves `{}` only as {served}; the API server refuses the object (`no matches for kind \"{}\" in version \"{}/{}\"`); did you mean `{first}`?",
                gvk.group, gvk.version, gvk.kind, gvk.kind, gvk.group, gvk.version
            ),
        )
        .with_field("apiVersion")
        .with_help(format!("write `apiVersion: {first}`")),
    )
}

/// A group that is a typo of the family's (`trainer.kubeflow.com`, `trainer.kubeflw.org`,
/// `kubeflow.org`, none at all with a version like ours).
fn near_group(gvk: Gvk<'_>, f: &Family) -> bool {
    let g = gvk.group.to_ascii_lowercase();
    let version = f.versions.first().map(String::as_str).unwrap_or_default();
    if g.is_empty() {
        return gvk.version.is_empty() || spelling::distance(gvk.version, version) <= TYPO;
    }
    let labels = |s: &str| s.split('.').map(str::to_string).collect::<Vec<_>>();
    let (ours, theirs) = (labels(&f.group), labels(&g));
    let other_tld = ours.len() == theirs.len() && ours[..ours.len() - 1] == theirs[..theirs.len() - 1];
    spelling::distance(&g, &f.group) <= TYPO || other_tld || f.group.ends_with(&format!(".{g}"))
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
            ("trainer.kubeflow.org/v2alpha1", "TrainJob", "serves `TrainJob` only as `trainer.kubeflow.org/v1alpha1`"),
            ("jobset.x-k8s.io/v1alpha1", "JobSet", "did you mean `jobset.x-k8s.io/v1alpha2`?"),
            ("kueue.x-k8s.io/v1alpha1", "ClusterQueue", "serves `ClusterQueue` only as `kueue.x-k8s.io/v1beta2`, `kueue.x-k8s.io/v1beta1`"),
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
        assert!(miss("trainer.kubeflow.org/v2alpha1", "TrainJob").unwrap().starts_with("input/unserved-version apiVersion:"));
        let crd = ["v1alpha1".to_string(), "v1alpha2".to_string()];
        let served = Served { crd: "trainjobs.trainer.kubeflow.org", versions: &crd };
        assert!(near_miss_served(Gvk::new("trainer.kubeflow.org/v1alpha2", "TrainJob"), Some(served)).is_none());
        let m = near_miss_served(Gvk::new("trainer.kubeflow.org/v2alpha1", "TrainJob"), Some(served)).unwrap().message;
        assert!(m.contains("the CRD `trainjobs.trainer.kubeflow.org` (--crd) serves"), "{m}");
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
            ("kueue.x-k8s.io/v1beta2", "LocalQueue"),
            ("kueue.x-k8s.io/v1beta2", "MultiKueueCluster"),
            ("kueue.x-k8s.io/v1alpha1", "MultiKueueCluster"),
            ("kustomize.config.k8s.io/v1beta1", "Kustomization"),
            ("kubeflow.org/v1", "PyTorchJob"),
            ("", ""),
        ] {
            assert_eq!(miss(api, kind), None, "{api} {kind}");
        }
    }
}
