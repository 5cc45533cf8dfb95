//! Which Kubeflow Trainer release a prediction follows: a name (`v2.3`, `2.2.1`) or a runtime's
//! `jax-runtimes.dev/trainer-version` annotation -> [`TrainerVersion`]. v2.2 and v2.3 build a
//! TrainJob's JobSet the same way except where [`TrainerVersion`] says.

use std::fmt;

use crate::keys::TRAINER_VERSION;
use crate::trainer::TrainingRuntime;

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
#[error("unsupported Trainer release `{0}`; expected v2.2 or v2.3 (the releases with the JAX policy)")]
pub struct VersionError(pub String);

impl TrainerVersion {
    pub const ALL: [TrainerVersion; 2] = [TrainerVersion::V2_2, TrainerVersion::V2_3];

    /// `v2.2` or `v2.3`.
    pub fn name(self) -> &'static str {
        match self {
            TrainerVersion::V2_2 => "v2.2",
            TrainerVersion::V2_3 => "v2.3",
        }
    }

    /// The JobSet release the Trainer release ships with (its `go.mod` and manifests).
    pub fn jobset(self) -> &'static str {
        match self {
            TrainerVersion::V2_2 => "v0.11",
            TrainerVersion::V2_3 => "v0.12.0",
        }
    }

    /// Reads `v2.3`, `2.3`, `v2.3.0`, `2.2.1`.
    pub fn parse(s: &str) -> Result<TrainerVersion, VersionError> {
        let t = s.trim();
        let mut parts = t.strip_prefix('v').unwrap_or(t).split('.');
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
        let patch_ok = parts.next().is_none_or(|p| p.parse::<u32>().is_ok()) && parts.next().is_none();
        match (major, minor, patch_ok) {
            (Some(2), Some(2), true) => Ok(TrainerVersion::V2_2),
            (Some(2), Some(3), true) => Ok(TrainerVersion::V2_3),
            _ => Err(VersionError(s.to_string())),
        }
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
    }
}
