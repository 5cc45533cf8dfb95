//! The Trainer releases whose CRD schemas the binary embeds (`catalog/schemas/trainer/`, read by
//! [`crate::validate::structure`]), and how a user names one: what `--trainer-version`,
//! `JaxRuntimeValidation`'s `spec.trainerVersion` and the catalog's `spec.trainer` take.

/// The embedded releases, oldest first: the files of `catalog/schemas/trainer/` (a unit test of
/// `validate::structure` checks that they are the same).
pub const NAMES: [&str; 7] = ["v2.0.0", "v2.0.1", "v2.1.0", "v2.2.0", "v2.2.1", "v2.3.0", "next"];

/// The release that judges an object no release is named for: the one `catalog/trainer.yaml`
/// serves.
pub const DEFAULT_RELEASE: &str = "v2.3.0";

/// The embedded releases, oldest first (`next`: Trainer's master at the commit its file names).
pub fn releases() -> impl Iterator<Item = &'static str> {
    NAMES.into_iter()
}

/// The embedded release a name means: exact (`v2.2.0`, `2.2.0`, `next`), or a minor (`v2.2`) for
/// its newest patch. The error lists the releases there are.
pub fn release(name: &str) -> Result<&'static str, String> {
    let t = name.trim();
    let bare = t.strip_prefix('v').unwrap_or(t);
    // A minor (`2.2`) names its patches (`v2.2.0`, `v2.2.1`); a major alone names none.
    let minor = bare.matches('.').count() == 1;
    let patch_of = |r: &str| minor && r.strip_prefix('v').and_then(|p| p.strip_prefix(bare)).is_some_and(|rest| rest.starts_with('.'));
    let found = match bare {
        "" => None,
        "next" => Some("next"),
        _ => releases().find(|r| r.strip_prefix('v') == Some(bare)).or_else(|| releases().filter(|r| patch_of(r)).last()),
    };
    found.ok_or_else(|| {
        format!(
            "unknown Trainer release `{name}`: jax-runtimes holds the CRD schemas of {} (a minor such as `v2.2` means its newest patch)",
            releases().collect::<Vec<_>>().join(", ")
        )
    })
}
