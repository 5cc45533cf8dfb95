//! `spec.runtimeRef` resolved the way Trainer resolves it: a TrainJob and the runtimes it may use
//! -> the one it names, or why none matches (with the nearest names).
//!
//! Facts (kubeflow/trainer v2.3.0, the same in v2.2):
//! - the runtime registry key is `<kind>.<apiGroup>` with `apiGroup` defaulting to
//!   `trainer.kubeflow.org` and `kind` to `ClusterTrainingRuntime` (the CRD's defaults);
//!   any other key is `unsupported runtime: <key>` (`pkg/runtime/runtime.go`
//!   `RuntimeRefToRuntimeRegistryKey`, `pkg/webhooks/trainjob_webhook.go` `ValidateCreate`);
//! - a ClusterTrainingRuntime is looked up by name alone, a TrainingRuntime by name in the
//!   TrainJob's own namespace, with no fallback from one kind to the other
//!   (`pkg/runtime/core/clustertrainingruntime.go` and `trainingruntime.go`, `ValidateObjects`).

use crate::spelling;
use crate::trainer::{TrainJob, TrainingRuntime, GROUP, KIND_CLUSTER, KIND_NAMESPACED};
use crate::words;

/// How many near names an error lists.
const NEAREST: usize = 3;

/// Why a TrainJob's runtimeRef names no runtime.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    /// The kind or group is not one of Trainer's runtime kinds.
    #[error("unsupported runtime: `{kind}.{group}`; Trainer resolves only `ClusterTrainingRuntime.{GROUP}` and `TrainingRuntime.{GROUP}`")]
    Unsupported { kind: String, group: String },
    /// No runtime of that kind and name (in that namespace) among those given.
    #[error("{0}")]
    NotFound(Box<Missing>),
}

/// What a runtimeRef names that is not among the runtimes given, and what is near it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", not_found(kind, name, namespace.as_deref(), nearest, elsewhere, *given))]
pub struct Missing {
    pub kind: String,
    pub name: String,
    /// The TrainJob's namespace, for a TrainingRuntime.
    pub namespace: Option<String>,
    /// The nearest names of that kind.
    pub nearest: Vec<String>,
    /// Where a runtime of that name does exist: `TrainingRuntime in namespace x`, or the other
    /// kind.
    pub elsewhere: Vec<String>,
    /// How many runtimes were given at all.
    pub given: usize,
}

fn not_found(kind: &str, name: &str, namespace: Option<&str>, nearest: &[String], elsewhere: &[String], given: usize) -> String {
    let place = match (kind, namespace) {
        (KIND_NAMESPACED, Some(ns)) => format!(" in namespace `{ns}`"),
        _ => String::new(),
    };
    let mut s = format!("no {kind} named `{name}`{place} among the {} given", words::count(given, "runtime"));
    if given == 0 {
        s = format!("no {kind} named `{name}`: no runtime was given to check it against");
    }
    if !elsewhere.is_empty() {
        s.push_str(&format!("; `{name}` exists as {}", elsewhere.join(", ")));
    }
    if !nearest.is_empty() {
        s.push_str(&format!("; nearest: {}", nearest.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")));
    }
    s
}

/// The registry key of a runtimeRef with the CRD defaults applied: (kind, apiGroup).
pub fn key(tj: &TrainJob) -> (&str, &str) {
    let r = &tj.spec.runtime_ref;
    (r.kind.as_deref().unwrap_or(KIND_CLUSTER), r.api_group.as_deref().unwrap_or(GROUP))
}

/// The runtime `tj` uses among `runtimes`. Namespaces that are not written count as matching
/// (`kubectl apply` puts the object in the context's namespace, which is not known here).
pub fn find<'a>(tj: &TrainJob, runtimes: &'a [TrainingRuntime]) -> Result<&'a TrainingRuntime, RefError> {
    let (kind, group) = key(tj);
    if group != GROUP || !matches!(kind, KIND_CLUSTER | KIND_NAMESPACED) {
        return Err(RefError::Unsupported { kind: kind.to_string(), group: group.to_string() });
    }
    let name = tj.spec.runtime_ref.name.as_str();
    let tj_ns = tj.metadata.namespace.as_deref();
    let same_ns = |rt: &TrainingRuntime| match (tj_ns, rt.metadata.namespace.as_deref()) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    fn name_of(rt: &TrainingRuntime) -> &str {
        rt.metadata.name.as_deref().unwrap_or_default()
    }
    let candidates: Vec<&TrainingRuntime> = runtimes.iter().filter(|rt| rt.kind == kind && (kind == KIND_CLUSTER || same_ns(rt))).collect();
    if let Some(rt) = candidates.iter().find(|rt| name_of(rt) == name) {
        return Ok(rt);
    }
    let mut names: Vec<&str> = candidates.iter().map(|rt| name_of(rt)).collect();
    names.sort_unstable();
    names.dedup();
    let nearest = spelling::closest(name, names.iter().copied(), NEAREST).into_iter().map(str::to_string).collect();
    let mut elsewhere: Vec<String> = runtimes
        .iter()
        .filter(|rt| name_of(rt) == name)
        .map(|rt| match (rt.kind.as_str(), rt.metadata.namespace.as_deref()) {
            (KIND_NAMESPACED, Some(ns)) => format!("a TrainingRuntime in namespace `{ns}`"),
            (k, _) => format!("a {k}"),
        })
        .collect();
    elsewhere.sort();
    elsewhere.dedup();
    Err(RefError::NotFound(Box::new(Missing {
        kind: kind.to_string(),
        name: name.to_string(),
        namespace: tj_ns.filter(|_| kind == KIND_NAMESPACED).map(str::to_string),
        nearest,
        elsewhere,
        given: runtimes.len(),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trainer::{RuntimeRef, TrainJobSpec, TrainingRuntimeSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn rt(kind: &str, name: &str, ns: Option<&str>) -> TrainingRuntime {
        TrainingRuntime {
            api_version: crate::trainer::API_VERSION.into(),
            kind: kind.into(),
            metadata: ObjectMeta { name: Some(name.into()), namespace: ns.map(Into::into), ..Default::default() },
            spec: TrainingRuntimeSpec::default(),
        }
    }

    fn tj(kind: Option<&str>, group: Option<&str>, name: &str, ns: Option<&str>) -> TrainJob {
        TrainJob {
            api_version: crate::trainer::API_VERSION.into(),
            kind: "TrainJob".into(),
            metadata: ObjectMeta { name: Some("job".into()), namespace: ns.map(Into::into), ..Default::default() },
            spec: TrainJobSpec {
                runtime_ref: RuntimeRef { api_group: group.map(Into::into), kind: kind.map(Into::into), name: name.into() },
                ..Default::default()
            },
            status: None,
        }
    }

    #[test]
    fn defaults_pick_a_cluster_runtime_and_kinds_never_fall_back() {
        let all = [rt(KIND_CLUSTER, "jax-cpu", None), rt(KIND_NAMESPACED, "jax-gpu", Some("team-a"))];
        assert_eq!(find(&tj(None, None, "jax-cpu", Some("x")), &all).map(|r| r.kind.as_str()), Ok(KIND_CLUSTER));
        // A TrainingRuntime is not found as a ClusterTrainingRuntime, and the error says where it is.
        let e = find(&tj(None, None, "jax-gpu", Some("team-a")), &all).unwrap_err();
        assert!(e.to_string().contains("exists as a TrainingRuntime in namespace `team-a`"), "{e}");
        assert!(find(&tj(Some(KIND_NAMESPACED), None, "jax-gpu", Some("team-a")), &all).is_ok());
        let e = find(&tj(Some(KIND_NAMESPACED), None, "jax-gpu", Some("team-b")), &all).unwrap_err();
        assert!(e.to_string().contains("in namespace `team-b`"), "{e}");
    }

    #[test]
    fn unknown_names_list_the_nearest_and_unknown_kinds_are_unsupported() {
        let all = [
            rt(KIND_CLUSTER, "jax-tpu-v5e-4x4", None),
            rt(KIND_CLUSTER, "jax-tpu-v5e-2x4-2hosts", None),
            rt(KIND_CLUSTER, "jax-cpu", None),
        ];
        let e = find(&tj(None, None, "jax-tpu-v5e-4x8", None), &all).unwrap_err();
        assert!(e.to_string().contains("nearest: `jax-tpu-v5e-4x4`"), "{e}");
        for (kind, group) in [(Some("Runtime"), None), (None, Some("")), (None, Some("kubeflow.org"))] {
            assert!(matches!(find(&tj(kind, group, "jax-cpu", None), &all), Err(RefError::Unsupported { .. })), "{kind:?} {group:?}");
        }
        let e = find(&tj(None, None, "jax-cpu", None), &[]).unwrap_err();
        assert!(e.to_string().contains("no runtime was given"), "{e}");
    }
}
