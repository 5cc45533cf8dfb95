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

/// The releases with the JAX policy whose CRD schemas the binary holds, as a catalog may name
/// them too (`v2.2.0`, `v2.2.1`, `v2.3.0`, `next`): the runtime is then judged by that
/// release's schemas, and its TrainJobs merged as its minor merges them.
pub fn trainer_patch_releases() -> Vec<&'static str> {
    let minors = trainer_releases();
    crate::trainer::releases::releases()
        .filter(|r| *r == "next" || r.rsplit_once('.').is_some_and(|(minor, _)| minors.contains(&minor)))
        .collect()
}
