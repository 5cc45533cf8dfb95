//! Name syntax from kubernetes/apimachinery v0.34.1 `pkg/util/validation/validation.go`
//! (Kubernetes 1.34): DNS-1123 labels and subdomains, DNS-1035 labels, qualified names (label
//! and annotation keys, resource names), label values, IANA port names, environment variable
//! names and ConfigMap keys. Limits come from [`super::facts`]; each function names the upstream
//! one it follows. The patterns the messages show are unit-tested against these functions.

use super::facts::facts;

/// Why a name is not valid, in words a user can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("must not be empty")]
    Empty,
    #[error("is {len} characters long; at most {max} are allowed")]
    TooLong { len: usize, max: usize },
    #[error("must be lowercase letters, digits and `-`, starting and ending with a letter or digit")]
    Dns1123Label,
    #[error("must be dot-separated parts of lowercase letters, digits and `-`, each starting and ending with a letter or digit")]
    Dns1123Subdomain,
    #[error("must be lowercase letters, digits and `-`, starting with a letter and ending with a letter or digit")]
    Dns1035Label,
    #[error("has more than one `/`; a key is a name with an optional DNS prefix and one `/` (`example.com/name`)")]
    TooManySlashes,
    #[error("has an empty prefix before `/`")]
    EmptyPrefix,
    #[error("has the prefix `{prefix}`, which {reason}")]
    Prefix { prefix: String, reason: Box<NameError> },
    #[error("has no name after `/`")]
    EmptyName,
    #[error("has the name part `{0}`, which must be letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit")]
    QualifiedName(String),
    #[error("must be letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit (or be empty)")]
    LabelValue,
    #[error("must be lowercase letters, digits and `-`, with at least one letter, no `--`, and no `-` at either end")]
    PortName,
    #[error("must be printable ASCII characters other than `=`")]
    RelaxedEnvVarName,
    #[error("must be letters, digits, `_`, `-` and `.`, not starting with a digit, and not `.`, `..` or start with `..`")]
    LegacyEnvVarName,
    #[error("must be letters, digits, `-`, `_` and `.`, and not `.`, `..` or start with `..`")]
    ConfigMapKey,
}

/// `IsDNS1123Label`: at most 63 characters, lowercase alphanumerics and `-`, starting and ending
/// with an alphanumeric (`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`).
pub fn is_dns1123_label(s: &str) -> bool {
    dns1123_label(s).is_ok()
}

/// `IsDNS1123Subdomain`: at most 253 characters, dot-separated DNS-1123 label parts (each part
/// without the 63 limit of its own, as upstream's single regex has none).
pub fn is_dns1123_subdomain(s: &str) -> bool {
    dns1123_subdomain(s).is_ok()
}

/// `IsDNS1123Label`, with the reason.
pub fn dns1123_label(s: &str) -> Result<(), NameError> {
    non_empty(s)?;
    max_len(s, facts().limits.dns_label)?;
    if label_chars(s) {
        Ok(())
    } else {
        Err(NameError::Dns1123Label)
    }
}

/// `IsDNS1123Subdomain`, with the reason.
pub fn dns1123_subdomain(s: &str) -> Result<(), NameError> {
    non_empty(s)?;
    max_len(s, facts().limits.dns_subdomain)?;
    if s.split('.').all(label_chars) {
        Ok(())
    } else {
        Err(NameError::Dns1123Subdomain)
    }
}

/// A DNS-1123 name close to `s` (a label, or a subdomain when `dots`): lowercase, every other
/// character made `-`, no `-` at the ends of a part; `None` when nothing valid is left or `s`
/// is valid already.
pub fn dns1123_like(s: &str, dots: bool) -> Option<String> {
    let lower: String = s
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9') => c,
            '.' if dots => '.',
            _ => '-',
        })
        .collect();
    let parts: Vec<&str> = lower.split('.').map(|p| p.trim_matches('-')).filter(|p| !p.is_empty()).collect();
    let out = parts.join(".");
    let ok = if dots { is_dns1123_subdomain(&out) } else { is_dns1123_label(&out) };
    (ok && out != s).then_some(out)
}

/// `metadata.generateName` as the API server checks it: apimachinery
/// `pkg/api/validation/generic.go` `NameIsDNSSubdomain(name, prefix=true)` (custom resources),
/// which masks a trailing `-` (`maskTrailingDash`: the last two characters become `a`) before
/// `IsDNS1123Subdomain`.
pub fn generate_name_prefix(prefix: &str) -> Result<(), NameError> {
    let masked = match prefix.strip_suffix('-') {
        Some(_) if prefix.len() > 1 => {
            let mut cut = prefix.len() - 2;
            while !prefix.is_char_boundary(cut) {
                cut -= 1;
            }
            format!("{}a", &prefix[..cut])
        }
        _ => prefix.to_string(),
    };
    dns1123_subdomain(&masked)
}

/// The name the API server gives an object with `metadata.generateName` and no name
/// (apiserver `names.SimpleNameGenerator`: the prefix cut to [`super::facts`]'
/// `generatedNamePrefix` bytes, then `generatedNameRandom` random lowercase consonants and
/// digits), with `x` standing in for each random character: what the name rules see.
pub fn generated_name(prefix: &str) -> String {
    let l = &facts().limits;
    let mut cut = prefix.len().min(l.generated_name_prefix);
    while !prefix.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{}", &prefix[..cut], "x".repeat(l.generated_name_random))
}

/// The one name of an object as the API server will have it once created: `metadata.name`, else
/// the name it generates from `metadata.generateName` ([`generated_name`], `x` for each random
/// character), else empty. validate, fit, preview and kueue name an object by this function, so
/// that a TrainJob with only `generateName` gets one name everywhere (its Jobs, hostnames,
/// subdomain and coordinator address follow it).
pub fn api_name(name: Option<&str>, generate_name: Option<&str>) -> String {
    match (name.filter(|n| !n.is_empty()), generate_name.filter(|g| !g.is_empty())) {
        (Some(n), _) => n.to_string(),
        (None, Some(prefix)) => generated_name(prefix),
        (None, None) => String::new(),
    }
}

/// [`api_name`] of an untyped object.
pub fn api_name_of(value: &serde_json::Value) -> String {
    let s = |p: &str| value.pointer(p).and_then(serde_json::Value::as_str);
    api_name(s("/metadata/name"), s("/metadata/generateName"))
}

/// `IsDNS1035Label`: at most 63 characters, `^[a-z]([-a-z0-9]*[a-z0-9])?$` (Service and Job
/// names JobSet builds).
pub fn dns1035_label(s: &str) -> Result<(), NameError> {
    non_empty(s)?;
    max_len(s, facts().limits.dns_label)?;
    if label_chars(s) && s.as_bytes().first().is_some_and(u8::is_ascii_lowercase) {
        Ok(())
    } else {
        Err(NameError::Dns1035Label)
    }
}

/// `IsQualifiedName`: a name of at most 63 characters (`[A-Za-z0-9]`, with `-`, `_`, `.` inside),
/// with an optional DNS-1123 subdomain prefix and one `/`. Label keys, annotation keys (lower-cased
/// first, see [`annotation_key`]), taint and toleration keys, resource names.
pub fn qualified_name(s: &str) -> Result<(), NameError> {
    let mut parts = s.split('/');
    let (prefix, name) = match (parts.next(), parts.next(), parts.next()) {
        (Some(name), None, _) => (None, name),
        (Some(prefix), Some(name), None) => (Some(prefix), name),
        _ => return Err(NameError::TooManySlashes),
    };
    if let Some(p) = prefix {
        if p.is_empty() {
            return Err(NameError::EmptyPrefix);
        }
        if let Err(e) = dns1123_subdomain(p) {
            return Err(NameError::Prefix { prefix: p.to_string(), reason: Box::new(e) });
        }
    }
    if name.is_empty() {
        return Err(if prefix.is_some() { NameError::EmptyName } else { NameError::Empty });
    }
    max_len(name, facts().limits.qualified_name)?;
    if qualified_chars(name) {
        Ok(())
    } else {
        Err(NameError::QualifiedName(name.to_string()))
    }
}

/// `ValidateAnnotations`: an annotation key is a qualified name once lower-cased, so upper case is
/// allowed in its prefix (kubernetes/apimachinery v0.34.1 `pkg/api/validation/objectmeta.go`).
pub fn annotation_key(s: &str) -> Result<(), NameError> {
    qualified_name(&s.to_lowercase())
}

/// `IsValidLabelValue`: empty, or at most 63 characters of `[A-Za-z0-9]` with `-`, `_`, `.` inside.
pub fn label_value(s: &str) -> Result<(), NameError> {
    max_len(s, facts().limits.label_value)?;
    if s.is_empty() || qualified_chars(s) {
        Ok(())
    } else {
        Err(NameError::LabelValue)
    }
}

/// `IsValidPortName` (IANA_SVC_NAME): at most 15 characters of `[-a-z0-9]`, at least one letter,
/// no `--`, no `-` at either end.
pub fn port_name(s: &str) -> Result<(), NameError> {
    non_empty(s)?;
    max_len(s, facts().limits.port_name)?;
    let b = s.as_bytes();
    let chars = b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-');
    let letter = b.iter().any(u8::is_ascii_lowercase);
    if chars && letter && !s.contains("--") && !s.starts_with('-') && !s.ends_with('-') {
        Ok(())
    } else {
        Err(NameError::PortName)
    }
}

/// `IsRelaxedEnvVarName`, the rule of Kubernetes 1.32 and later (`RelaxedEnvironmentVariableValidation`,
/// on by default since 1.32, GA in 1.34): non-empty, every character printable ASCII (space
/// included) and not `=`.
pub fn env_var_name(s: &str) -> Result<(), NameError> {
    non_empty(s)?;
    if s.chars().all(|c| (' '..='~').contains(&c) && c != '=') {
        Ok(())
    } else {
        Err(NameError::RelaxedEnvVarName)
    }
}

/// `IsEnvVarName`, the rule before 1.32: `^[-._a-zA-Z][-._a-zA-Z0-9]*$`, and not `.`, `..` or
/// starting with `..` (`hasChDirPrefix`).
pub fn legacy_env_var_name(s: &str) -> Result<(), NameError> {
    let b = s.as_bytes();
    let first = b.first().is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, b'-' | b'.' | b'_'));
    let rest = b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_'));
    if first && rest && !is_chdir(s) {
        Ok(())
    } else {
        Err(NameError::LegacyEnvVarName)
    }
}

/// `IsConfigMapKey`: at most 253 characters of `[-._a-zA-Z0-9]`, and not `.`, `..` or starting
/// with `..`.
pub fn config_map_key(s: &str) -> Result<(), NameError> {
    non_empty(s)?;
    max_len(s, facts().limits.dns_subdomain)?;
    if s.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_')) && !is_chdir(s) {
        Ok(())
    } else {
        Err(NameError::ConfigMapKey)
    }
}

fn is_chdir(s: &str) -> bool {
    s == "." || s.starts_with("..")
}

fn non_empty(s: &str) -> Result<(), NameError> {
    if s.is_empty() {
        Err(NameError::Empty)
    } else {
        Ok(())
    }
}

fn max_len(s: &str, max: usize) -> Result<(), NameError> {
    if s.len() > max {
        Err(NameError::TooLong { len: s.chars().count(), max })
    } else {
        Ok(())
    }
}

fn label_chars(part: &str) -> bool {
    let b = part.as_bytes();
    !b.is_empty()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b.first() != Some(&b'-')
        && b.last() != Some(&b'-')
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, non-empty.
fn qualified_chars(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && b.first().is_some_and(u8::is_ascii_alphanumeric)
        && b.last().is_some_and(u8::is_ascii_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns1123_like_gives_the_nearest_valid_name() {
        assert_eq!(dns1123_like("ML_High", true).as_deref(), Some("ml-high"));
        assert_eq!(dns1123_like("-Team.A_b-", true).as_deref(), Some("team.a-b"));
        assert_eq!(dns1123_like("a.b", false).as_deref(), Some("a-b"));
        assert_eq!(dns1123_like("ok-name", true), None);
        assert_eq!(dns1123_like("___", true), None);
    }

    use proptest::prelude::*;

    #[test]
    fn generated_names_cut_the_prefix_and_append_five_characters() {
        assert_eq!(generated_name("job-"), "job-xxxxx");
        let long = "a".repeat(70);
        assert_eq!(generated_name(&long).len(), 63);
        assert!(generate_name_prefix("job-").is_ok());
        assert!(generate_name_prefix("job").is_ok());
        assert!(generate_name_prefix("Job-").is_err());
        assert!(generate_name_prefix("-").is_err());
    }

    #[test]
    fn labels_and_subdomains() {
        for ok in ["a", "jax-cpu", "0a", &"a".repeat(63)] {
            assert!(is_dns1123_label(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "A", "a.b", "a_b", &"a".repeat(64)] {
            assert!(!is_dns1123_label(bad), "{bad}");
        }
        for ok in ["a.b", "jax-runtimes.dev", &format!("{}.b", "a".repeat(100))] {
            assert!(is_dns1123_subdomain(ok), "{ok}");
        }
        for bad in ["", "a..b", ".a", "a.", "a.-b", "A.b", &"a".repeat(254)] {
            assert!(!is_dns1123_subdomain(bad), "{bad}");
        }
    }

    #[test]
    fn qualified_names_label_values_and_annotation_keys() {
        for ok in ["app", "My.Name_1", "trainer.kubeflow.org/framework", "cloud.google.com/gke-tpu-topology", &"a".repeat(63)] {
            assert_eq!(qualified_name(ok), Ok(()), "{ok}");
        }
        assert_eq!(qualified_name("a/b/c"), Err(NameError::TooManySlashes));
        assert_eq!(qualified_name("/foo"), Err(NameError::EmptyPrefix));
        assert_eq!(qualified_name("example.com/"), Err(NameError::EmptyName));
        assert!(matches!(qualified_name("Example.com/foo"), Err(NameError::Prefix { .. })));
        for bad in ["foo-", "_foo", "bad key", "", &"a".repeat(64)] {
            assert!(qualified_name(bad).is_err(), "{bad}");
        }
        // Annotation keys are lower-cased first: upper case passes in the prefix.
        assert_eq!(annotation_key("Example.COM/Foo"), Ok(()));
        assert!(annotation_key("bad key").is_err());
        for ok in ["", "4x4", "tpu-v5-lite-podslice", "a.b_c-d", "1.2.3", "ML-Platform"] {
            assert_eq!(label_value(ok), Ok(()), "{ok}");
        }
        for bad in ["-x", "x.", "a b", "a/b", "v5e:4x4", "ML Platform!", &"a".repeat(64)] {
            assert!(label_value(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn port_env_and_key_names() {
        for ok in ["jax", "p8471", "coord-29500", "a1"] {
            assert_eq!(port_name(ok), Ok(()), "{ok}");
        }
        for bad in ["coordinator-port", "8471", "jax--c", "-jax", "jax-", "JAX", ""] {
            assert!(port_name(bad).is_err(), "{bad}");
        }
        for ok in ["JAX_PLATFORMS", "my.var-1", "1ST", "MY VAR", "a:b"] {
            assert_eq!(env_var_name(ok), Ok(()), "{ok}");
        }
        for bad in ["", "A=B", "ÄPFEL", "TAB\tX"] {
            assert!(env_var_name(bad).is_err(), "{bad:?}");
        }
        assert!(legacy_env_var_name("1ST").is_err() && legacy_env_var_name("MY VAR").is_err() && legacy_env_var_name("..x").is_err());
        assert_eq!(legacy_env_var_name("my.var-1"), Ok(()));
        assert_eq!(config_map_key("key.name"), Ok(()));
        assert!(config_map_key("..key").is_err() && config_map_key("a/b").is_err());
        for ok in ["node", "a1", &format!("a{}", "b".repeat(62))] {
            assert_eq!(dns1035_label(ok), Ok(()), "{ok}");
        }
        for bad in ["1node", "Node", "node_0", "-a", ""] {
            assert!(dns1035_label(bad).is_err(), "{bad}");
        }
    }

    /// The patterns the table shows users, compiled by the jsonschema crate (ECMA regex), agree
    /// with the hand-written checks on random strings over the characters that matter.
    fn matches(pattern: &str) -> impl Fn(&str) -> bool {
        let schema = serde_json::json!({"type": "string", "pattern": pattern});
        let v = jsonschema::validator_for(&schema).unwrap();
        move |s: &str| v.is_valid(&serde_json::Value::String(s.to_string()))
    }

    proptest! {
        #[test]
        fn patterns_agree_with_the_checks(s in "[-a-zA-Z0-9_.=: /]{0,70}") {
            let p = &facts().patterns;
            let fits = |max: usize| s.len() <= max;
            prop_assert_eq!(label_value(&s).is_ok(), matches(&p.label_value)(&s) && fits(63));
            prop_assert_eq!(dns1123_label(&s).is_ok(), matches(&p.dns1123_label)(&s) && fits(63));
            prop_assert_eq!(dns1035_label(&s).is_ok(), matches(&p.dns1035_label)(&s) && fits(63));
            prop_assert_eq!(legacy_env_var_name(&s).is_ok(), matches(&p.legacy_env_var_name)(&s) && !is_chdir(&s));
            prop_assert_eq!(config_map_key(&s).is_ok(), matches(&p.config_map_key)(&s) && !is_chdir(&s) && fits(253));
            if !s.contains('/') {
                prop_assert_eq!(qualified_name(&s).is_ok(), matches(&p.qualified_name)(&s) && fits(63));
            }
        }
    }
}
