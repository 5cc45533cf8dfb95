//! What a catalog object is: the one definition that `render`, `docs` and the KRM function all
//! use. An object whose apiVersion is in the `jax-runtimes.dev` group is ours; so is one whose
//! group is one typo away from it and whose kind is (nearly) a catalog kind. Ours but not exactly
//! right is an error that names the nearest valid spelling, never something to ignore: an ignored
//! entry would let the KRM function prune the runtime it generated.

use crate::diag::Diagnostic;
use crate::gvk::Gvk;
use crate::rules::catalog::{CATALOG_API_VERSION, CATALOG_MISSING_FIELD, CATALOG_UNKNOWN_KIND};
use crate::spelling;

pub const GROUP: &str = "jax-runtimes.dev";
pub const VERSION: &str = "v1alpha1";
pub const API_VERSION: &str = "jax-runtimes.dev/v1alpha1";

/// The kinds of the `jax-runtimes.dev` group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One runtime to generate.
    Runtime,
    /// Defaults for every runtime of the input.
    Defaults,
    /// One template times a matrix of values.
    Matrix,
    /// Kueue queues for the runtimes.
    Queue,
    /// The KRM function's config that makes it validate instead of generate.
    Validation,
    /// One cluster of a fleet and the runtimes it serves.
    Cluster,
}

impl Kind {
    /// Every kind, in the order lists of them are written.
    pub const ALL: [Kind; 6] = [Kind::Runtime, Kind::Defaults, Kind::Matrix, Kind::Queue, Kind::Validation, Kind::Cluster];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Runtime => "JaxRuntime",
            Kind::Defaults => "JaxRuntimeDefaults",
            Kind::Matrix => "JaxRuntimeMatrix",
            Kind::Queue => "JaxRuntimeQueue",
            Kind::Validation => "JaxRuntimeValidation",
            Kind::Cluster => "JaxCluster",
        }
    }

    pub fn by_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// True for the kinds `render` and the KRM generator read: every kind but the KRM
    /// validator's config (`JaxRuntimeValidation`).
    pub fn generates(self) -> bool {
        !matches!(self, Kind::Validation)
    }

    /// The names of the kinds `keep` keeps, in [`Kind::ALL`]'s order, as messages and helps list
    /// them (for [`Kind::generates`]: `` `JaxRuntime`, `JaxRuntimeDefaults`, `JaxRuntimeMatrix`,
    /// `JaxRuntimeQueue` or `JaxCluster` ``), so that none lists kinds by hand. Rule texts list
    /// none: they are statics, in `rules`, below `catalog`.
    pub fn names(keep: impl Fn(Kind) -> bool) -> String {
        let mut names: Vec<String> = Kind::ALL.into_iter().filter(|k| keep(*k)).map(|k| format!("`{k}`")).collect();
        match names.pop() {
            Some(last) if !names.is_empty() => format!("{} or {last}", names.join(", ")),
            Some(last) => last,
            None => String::new(),
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What an object is, by its apiVersion and kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Identity {
    /// Exactly one of our kinds.
    Ours(Kind),
    /// Meant to be ours, but misspelt: an error (the diagnostic has no place yet).
    Misspelt(Box<Diagnostic>),
    /// Someone else's object.
    Foreign,
}

/// How many edits a group or kind may be away from ours and still be taken for a typo of it.
const TYPO: usize = 2;

/// Classifies an object by its apiVersion and kind.
pub fn identify(gvk: Gvk<'_>) -> Identity {
    let kind_names = Kind::ALL.map(Kind::name);
    let exact_kind = Kind::by_name(gvk.kind);
    let near_kind = spelling::nearest(gvk.kind, kind_names, TYPO).and_then(Kind::by_name);
    let api_version = if gvk.group.is_empty() { gvk.version.to_string() } else { format!("{}/{}", gvk.group, gvk.version) };
    let bad_api_version = || {
        Identity::Misspelt(Box::new(
            Diagnostic::new(
                &CATALOG_API_VERSION,
                format!("`apiVersion: {api_version}` is not a catalog apiVersion; did you mean `{API_VERSION}`?"),
            )
            .with_field("apiVersion")
            .with_help(format!("write `apiVersion: {API_VERSION}`")),
        ))
    };
    if gvk.group == GROUP {
        if gvk.version != VERSION {
            return bad_api_version();
        }
        return match exact_kind {
            Some(k) => Identity::Ours(k),
            None if gvk.kind.is_empty() => Identity::Misspelt(Box::new(
                Diagnostic::new(
                    &CATALOG_MISSING_FIELD,
                    format!("the object has no `kind`; a `{API_VERSION}` object is a {}", Kind::names(|_| true)),
                )
                .with_field("kind")
                .with_help(format!("add the object's `kind` (`kind: {}` for one runtime)", Kind::Runtime)),
            )),
            None => {
                let found = format!("`kind: {}`", gvk.kind);
                let hint = match near_kind {
                    Some(k) => format!("did you mean `{k}`?"),
                    None => format!("expected one of {}", Kind::names(|_| true)),
                };
                Identity::Misspelt(Box::new(
                    Diagnostic::new(&CATALOG_UNKNOWN_KIND, format!("{found} is not a kind of the `{GROUP}` group; {hint}"))
                        .with_field("kind")
                        .with_help(format!(
                            "a catalog object is a {}; a `{}` is the KRM validator's config",
                            Kind::names(Kind::generates),
                            Kind::Validation
                        )),
                ))
            }
        };
    }
    // Another group: ours only if both the group and the kind look like typos of ours, or the
    // kind is exactly ours and the apiVersion names no group or a near one.
    let near_group = !gvk.group.is_empty() && spelling::distance(&gvk.group.to_lowercase(), GROUP) <= TYPO;
    let group_less = gvk.group.is_empty() && spelling::distance(gvk.version, VERSION) <= TYPO;
    if (near_group && near_kind.is_some()) || (exact_kind.is_some() && (near_group || group_less)) {
        return bad_api_version();
    }
    Identity::Foreign
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(api: &str, kind: &str) -> Identity {
        identify(Gvk::new(api, kind))
    }

    fn rule(i: &Identity) -> &'static str {
        match i {
            Identity::Misspelt(d) => d.rule.id,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn exact_kinds_are_ours() {
        for k in Kind::ALL {
            assert_eq!(id(API_VERSION, k.name()), Identity::Ours(k));
        }
    }

    #[test]
    fn typos_of_ours_are_errors_that_name_the_spelling() {
        let kind = id(API_VERSION, "JaxRuntme");
        assert_eq!(rule(&kind), "catalog/unknown-kind");
        assert!(matches!(&kind, Identity::Misspelt(d) if d.message.contains("did you mean `JaxRuntime`")));
        for (api, kind) in [
            ("jax-runtimes.dev/v1alpha", "JaxRuntime"),
            ("jax-runtimes.dev/v1", "JaxRuntimeMatrix"),
            ("jax-runtime.dev/v1alpha1", "JaxRuntime"),
            ("jax-runtimes.de/v1alpha1", "JaxRuntme"),
            ("v1alpha1", "JaxRuntime"),
        ] {
            let i = id(api, kind);
            assert_eq!(rule(&i), "catalog/api-version", "{api} {kind}");
            assert!(matches!(&i, Identity::Misspelt(d) if d.message.contains(API_VERSION)), "{api}");
        }
        // No kind at all is a missing field, not a kind named ``.
        let none = id(API_VERSION, "");
        assert_eq!(rule(&none), "catalog/missing-field");
        assert!(
            matches!(&none, Identity::Misspelt(d) if d.message == "the object has no `kind`; a `jax-runtimes.dev/v1alpha1` object is a `JaxRuntime`, `JaxRuntimeDefaults`, `JaxRuntimeMatrix`, `JaxRuntimeQueue`, `JaxRuntimeValidation` or `JaxCluster`" && d.field.as_deref() == Some("kind")),
            "{none:?}"
        );
        assert_eq!(rule(&id(API_VERSION, "Deployment")), "catalog/unknown-kind");
    }

    #[test]
    fn lists_of_kinds_come_from_the_one_list() {
        assert_eq!(
            Kind::names(|_| true),
            "`JaxRuntime`, `JaxRuntimeDefaults`, `JaxRuntimeMatrix`, `JaxRuntimeQueue`, `JaxRuntimeValidation` or `JaxCluster`"
        );
        assert_eq!(
            Kind::names(|k| matches!(k, Kind::Runtime | Kind::Defaults | Kind::Matrix)),
            "`JaxRuntime`, `JaxRuntimeDefaults` or `JaxRuntimeMatrix`"
        );
        assert_eq!(Kind::names(|k| k == Kind::Queue), "`JaxRuntimeQueue`");
        assert_eq!(Kind::names(|_| false), "");
        assert!(!Kind::Validation.generates() && Kind::ALL.iter().filter(|k| k.generates()).count() == Kind::ALL.len() - 1);
    }

    #[test]
    fn other_objects_are_foreign() {
        for (api, kind) in [
            ("v1", "ConfigMap"),
            ("apps/v1", "Deployment"),
            ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"),
            ("example.com/v1", "JaxRuntime"),
            ("jax-runtimes.dev.example.com/v1", "Widget"),
            ("", ""),
        ] {
            assert_eq!(id(api, kind), Identity::Foreign, "{api} {kind}");
        }
    }
}
