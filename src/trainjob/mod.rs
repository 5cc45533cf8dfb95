//! What Kubeflow Trainer makes of a TrainJob, predicted from the manifests (the render side of a
//! TrainJob): a TrainJob and the runtimes it may use -> the runtime its `runtimeRef` names
//! ([`reference`]), the JobSet template after Trainer merges the two ([`merge`], with the
//! runtime patches in [`patch`]), and the pod of one process ([`pod`]), for a Trainer release
//! ([`version`]). `validate` checks the result; `jax-runtimes preview` prints a pod of it.

pub mod merge;
pub mod patch;
pub mod pod;
pub mod reference;
pub mod version;

pub use merge::{build, Effective, Policy, Steps};
pub use pod::{predict, Predicted};
pub use reference::{find, Missing, RefError};
pub use version::TrainerVersion;
