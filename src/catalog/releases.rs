//! The Kubeflow Trainer releases a catalog may target (`spec.trainer`): the one place that
//! `render`, the JSON Schema and the docs read them from. They are the releases
//! `catalog/trainer.yaml` lists ([`crate::trainer::facts`]).

use crate::trainer::facts;

/// The releases a catalog may name, exactly as it must write them (`v2.2`, `v2.3`), oldest first.
pub fn trainer_releases() -> Vec<&'static str> {
    facts().releases.iter().map(String::as_str).collect()
}

/// The release a runtime targets when neither it nor its defaults name one.
pub fn trainer_default() -> &'static str {
    facts().default_release.as_str()
}
