//! The Kubeflow Trainer release a catalog object names (`spec.trainer` of a runtime or of its
//! defaults): exactly one of [`catalog::trainer_releases`], or an error that says how to write it.

use crate::catalog;
use crate::diag::Diagnostic;
use crate::rules::catalog::CATALOG_TRAINER_VERSION;

/// The error at `spec.trainer` for a release that is not exactly a known one.
pub(super) fn trainer_error(t: &str) -> Option<Diagnostic> {
    check_trainer(t).err().map(|e| {
        Diagnostic::new(&CATALOG_TRAINER_VERSION, e.to_string())
            .with_field("spec.trainer")
            .with_help(format!("set `spec.trainer` to one of {}", quoted_releases()))
    })
}

/// `` `v2.2`, `v2.3` (or a patch release: `v2.2.0`, `v2.2.1`, `v2.3.0`, `next`) ``.
fn quoted_releases() -> String {
    let patches: Vec<String> = catalog::releases::trainer_patch_releases().iter().map(|r| format!("`{r}`")).collect();
    let minors: Vec<String> = catalog::trainer_releases().iter().map(|r| format!("`{r}`")).collect();
    format!("{} (or a release: {})", minors.join(", "), patches.join(", "))
}

/// A Trainer release jax-runtimes cannot target.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum TrainerVersionError {
    #[error("Trainer `{0}` has no JAX policy (`mlPolicy.jax` arrived in v2.2.0); expected one of {versions}", versions = quoted_releases())]
    NoJaxPolicy(String),
    #[error("`{given}` is not how the catalog names a Trainer release: it takes exactly one of {versions}; did you mean `{near}`?", versions = quoted_releases())]
    Spelling { given: String, near: String },
    #[error("unknown Trainer release `{0}`; the known releases are {versions}", versions = quoted_releases())]
    Unsupported(String),
}

/// `t` when it is exactly a known release: a minor (`v2.3`), or a patch release (`v2.2.1`) or
/// `next` whose CRDs the binary holds. `2.3` or `v2.2.7` name a known minor in another spelling
/// (or a patch release jax-runtimes does not know): an error that says how to write it, never a
/// silent match.
fn check_trainer(t: &str) -> Result<String, TrainerVersionError> {
    let releases = catalog::trainer_releases();
    if releases.contains(&t) {
        return Ok(t.to_string());
    }
    // An exact release whose CRDs the binary holds (`v2.2.1`, `next`): its schemas judge the
    // runtime, and its minor's merge its TrainJobs.
    if crate::trainer::releases::release(t).is_ok_and(|exact| exact == t) {
        return match catalog::releases::trainer_patch_releases().contains(&t) {
            true => Ok(t.to_string()),
            false => Err(TrainerVersionError::NoJaxPolicy(t.to_string())),
        };
    }
    let s = t.trim().trim_start_matches(['v', 'V']);
    let mut parts = s.split('.');
    let major = parts.next().and_then(|p| p.parse::<u32>().ok());
    let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
    match (major, minor) {
        (Some(2), Some(0 | 1)) => Err(TrainerVersionError::NoJaxPolicy(t.to_string())),
        (Some(ma), Some(mi)) => match releases.iter().find(|r| **r == format!("v{ma}.{mi}")) {
            Some(near) => Err(TrainerVersionError::Spelling { given: t.to_string(), near: near.to_string() }),
            None => Err(TrainerVersionError::Unsupported(t.to_string())),
        },
        _ => Err(TrainerVersionError::Unsupported(t.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trainer_takes_exactly_the_known_releases() {
        for exact in ["v2.3", "v2.2", "v2.2.0", "v2.2.1", "v2.3.0", "next"] {
            assert_eq!(check_trainer(exact).unwrap(), exact);
        }
        for (given, near) in [("2.3", "v2.3"), ("2.3.0", "v2.3"), ("v2.2.7", "v2.2"), (" v2.2 ", "v2.2")] {
            let e = check_trainer(given).unwrap_err().to_string();
            assert!(e.contains(&format!("did you mean `{near}`")) && e.contains("`v2.2`, `v2.3` (or a release: `v2.2.0`"), "{given}: {e}");
        }
        for old in ["v2.1", "v2.1.0", "v2.0.1"] {
            assert!(check_trainer(old).unwrap_err().to_string().contains("no JAX policy"), "{old}");
        }
        let e = check_trainer("v3.0").unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown Trainer release `v3.0`; the known releases are `v2.2`, `v2.3` (or a release: `v2.2.0`, `v2.2.1`, `v2.3.0`, `next`)"
        );
        assert!(check_trainer("latest").is_err());
    }
}
