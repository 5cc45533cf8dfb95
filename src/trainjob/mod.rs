//! What Kubeflow Trainer makes of a TrainJob, predicted from the manifests (the render side of a
//! TrainJob): a TrainJob and the runtimes it may use -> the runtime its `runtimeRef` names
//! ([`reference`]), the JobSet template after Trainer merges the two ([`merge`], with the
//! runtime patches in [`patch`]), the JobSet Trainer creates of it ([`jobset`]), and the pod of
//! one process ([`pod`], made from that JobSet), for a Trainer release ([`version`]). `validate`
//! checks the result; `jax-runtimes preview` prints a pod of it, `preview --jobset` the JobSet.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::trainer::{RuntimeRef, TrainJob, TrainJobSpec, Trainer, TrainingRuntime, KIND_TRAINJOB};

pub mod jobset;
pub mod merge;
pub mod patch;
pub mod pod;
pub mod reference;
pub mod version;

pub use jobset::JobSet;
pub use merge::{build, dropped, Dropped, Effective, Policy, Steps};
pub use pod::{predict, Predicted};
pub use reference::{find, Missing, RefError};
pub use version::TrainerVersion;

/// The TrainJob that names `rt` and changes nothing (`spec.trainer: {}`): what a runtime alone is
/// judged as, by `fit` and by the Kueue checks, so a runtime and its plainest TrainJob agree.
pub fn plain(rt: &TrainingRuntime) -> TrainJob {
    TrainJob {
        api_version: rt.api_version.clone(),
        kind: KIND_TRAINJOB.to_string(),
        metadata: ObjectMeta { name: Some("trainjob".into()), namespace: rt.metadata.namespace.clone(), ..ObjectMeta::default() },
        spec: TrainJobSpec {
            runtime_ref: RuntimeRef { api_group: None, kind: Some(rt.kind.clone()), name: rt.metadata.name.clone().unwrap_or_default() },
            trainer: Some(Trainer::default()),
            ..TrainJobSpec::default()
        },
        status: None,
    }
}
