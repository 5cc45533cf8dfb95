//! The Kubeflow Trainer releases a catalog may target (`spec.trainer`): the one place that
//! `render`, the JSON Schema and the docs read them from. Today they are the releases the TrainJob
//! model knows ([`crate::trainjob::TrainerVersion`]); when Trainer's facts move into a data file,
//! only these two functions change.

use crate::trainjob::TrainerVersion;

/// The releases a catalog may name, exactly as it must write them (`v2.2`, `v2.3`), oldest first.
pub fn trainer_releases() -> Vec<&'static str> {
    TrainerVersion::ALL.iter().map(|v| v.name()).collect()
}

/// The release a runtime targets when neither it nor its defaults name one.
pub fn trainer_default() -> &'static str {
    TrainerVersion::default().name()
}
