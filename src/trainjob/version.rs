//! Which Kubeflow Trainer release a prediction follows: a name (`v2.3`, `2.2.1`) or a runtime's
//! `jax-runtimes.dev/trainer-version` annotation -> [`TrainerVersion`]. The releases, their names
//! and their JobSet releases are Trainer facts (`catalog/trainer.yaml`); the variants here are the
//! behaviour that differs between them: v2.2 and v2.3 build a TrainJob's JobSet the same way
//! except where [`TrainerVersion`] says.

use std::fmt;

use crate::keys::TRAINER_VERSION;
use crate::trainer::{facts, TrainingRuntime};

/// A Trainer release with the JAX policy (`mlPolicy.jax` arrived in v2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum TrainerVersion {
    /// v2.2.0 and v2.2.1: `resourcesPerNode` replaces the runtime's resources; a runtime patch
    /// naming an unknown replicated job is skipped.
    V2_2,
    /// v2.3.0: `resourcesPerNode` is merged into the runtime's per resource; a runtime patch
    /// naming an unknown replicated job appends one (strategic merge of the JobSet spec).
    #[default]
    V2_3,
}

/// A Trainer release name that is not one of ours.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    #[error("Trainer `{0}` has no JAX policy (`mlPolicy.jax` arrived in {first}); expected one of {all}", first = facts().releases.first().map(String::as_str).unwrap_or_default(), all = facts().releases.join(", "))]
    NoJaxPolicy(String),
    #[error("unsupported Trainer release `{0}`; expected one of {all}", all = facts().releases.join(", "))]
    Unsupported(String),
}

impl TrainerVersion {
    /// Every release, oldest first: the order of `catalog/trainer.yaml`'s `releases`.
    pub const ALL: [TrainerVersion; 2] = [TrainerVersion::V2_2, TrainerVersion::V2_3];

    /// `v2.2` or `v2.3`, from the facts.
    pub fn name(self) -> &'static str {
        facts().releases.get(self as usize).map(String::as_str).unwrap_or_default()
    }

    /// The JobSet release the Trainer release ships with (its `go.mod` and manifests).
    pub fn jobset(self) -> &'static str {
        facts().jobset.get(self.name()).map(String::as_str).unwrap_or_default()
    }

    /// The release's name as written: `v2.3`, `2.3`, `v2.3.0`, `2.2.1` -> `v2.3`, `v2.3`, `v2.3`,
    /// `v2.2` (one of the facts' releases).
    pub fn normalize(s: &str) -> Result<&'static str, VersionError> {
        let t = s.trim();
        let mut parts = t.strip_prefix('v').unwrap_or(t).split('.');
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
        let patch_ok = parts.next().is_none_or(|p| p.parse::<u32>().is_ok()) && parts.next().is_none();
        let (Some(major), Some(minor), true) = (major, minor, patch_ok) else { return Err(VersionError::Unsupported(s.to_string())) };
        let name = format!("v{major}.{minor}");
        let f = facts();
        if let Some(r) = f.releases.iter().find(|r| **r == name) {
            return Ok(r.as_str());
        }
        if f.without_jax.contains(&name) {
            return Err(VersionError::NoJaxPolicy(s.to_string()));
        }
        Err(VersionError::Unsupported(s.to_string()))
    }

    /// Reads `v2.3`, `2.3`, `v2.3.0`, `2.2.1`.
    pub fn parse(s: &str) -> Result<TrainerVersion, VersionError> {
        let name = TrainerVersion::normalize(s)?;
        TrainerVersion::ALL.into_iter().find(|v| v.name() == name).ok_or_else(|| VersionError::Unsupported(s.to_string()))
    }

    /// The release a runtime's TrainJobs are predicted with: `given`, else the one the runtime's
    /// `jax-runtimes.dev/trainer-version` annotation names, else the default.
    pub fn for_runtime(rt: &TrainingRuntime, given: Option<TrainerVersion>) -> TrainerVersion {
        given.or_else(|| TrainerVersion::of_runtime(rt)).unwrap_or_default()
    }

    /// The release a generated runtime says it targets, if it says one we know.
    pub fn of_runtime(rt: &TrainingRuntime) -> Option<TrainerVersion> {
        rt.metadata.annotations.as_ref()?.get(TRAINER_VERSION).and_then(|v| TrainerVersion::parse(v).ok())
    }
}

impl fmt::Display for TrainerVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for TrainerVersion {
    type Err = VersionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TrainerVersion::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_names_read_with_or_without_v_and_patch() {
        for (s, v) in [
            ("v2.3", TrainerVersion::V2_3),
            ("2.3.0", TrainerVersion::V2_3),
            ("v2.2.1", TrainerVersion::V2_2),
            (" 2.2 ", TrainerVersion::V2_2),
        ] {
            assert_eq!(TrainerVersion::parse(s), Ok(v), "{s}");
        }
        for bad in ["v2.1", "2", "v2.3.x", "3.0", "", "v2.3.0.1", "latest"] {
            assert!(TrainerVersion::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(TrainerVersion::default(), TrainerVersion::V2_3);
        assert!(TrainerVersion::parse("v2.1").unwrap_err().to_string().contains("no JAX policy"));
        assert!(TrainerVersion::parse("v3.0").unwrap_err().to_string().contains("unsupported"));
    }

    #[test]
    fn every_release_of_the_facts_has_its_behaviour_here() {
        let f = facts();
        let names: Vec<&str> = TrainerVersion::ALL.iter().map(|v| v.name()).collect();
        assert_eq!(names, f.releases, "a release in catalog/trainer.yaml needs its variant (and its merge rules) in the code");
        assert_eq!(TrainerVersion::default().name(), f.default_release);
        assert_eq!(TrainerVersion::V2_3.jobset(), "v0.12.0");
    }
}
