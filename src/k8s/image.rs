//! Image references as the kubelet reads them: `ParseNormalizedNamed` of distribution/reference
//! (normalize.go, reference.go, regexp.go), which the kubelet's image manager applies to every
//! container's `image` when the pod starts (kubernetes/kubernetes pkg/util/parsers/parsers.go
//! `ParseImageName`). The grammar and limits are data: `imageReference` in
//! catalog/kubernetes.yaml, with their sources.

use std::sync::OnceLock;

use regex::Regex;

use super::facts::facts;

/// Why the kubelet refuses an image reference, in words a user can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("it holds whitespace, which no image reference may hold")]
    Whitespace,
    #[error("a 64-character hexadecimal image ID is not a repository name; write `repository@sha256:<id>`")]
    Identifier,
    #[error("the repository `{0}` must be lowercase")]
    Uppercase(String),
    #[error("the tag `{0}` must be at most 128 letters, digits, `_`, `.` and `-`, not starting with `.` or `-`")]
    Tag(String),
    #[error("the digest `{0}` is not `algorithm:hex` of a known algorithm (sha256 with 64 lowercase hex digits, sha384 with 96, sha512 with 128)")]
    Digest(String),
    #[error("the repository path is {0} characters long; at most {1} are allowed")]
    TooLong(usize, usize),
    #[error("it is not `[registry/]repository[:tag][@digest]` (repository parts are lowercase letters and digits joined by `.`, `_`, `__` or `-`, separated by `/`)")]
    Format,
}

struct Compiled {
    reference: Regex,
    tag: Regex,
    identifier: Regex,
}

#[allow(clippy::expect_used, reason = "embedded data, not input; the unit tests prove the patterns compile")]
fn compiled() -> &'static Compiled {
    static RE: OnceLock<Compiled> = OnceLock::new();
    RE.get_or_init(|| {
        let f = &facts().image_reference;
        let re = |p: &str| Regex::new(p).expect("catalog/kubernetes.yaml imageReference patterns compile (unit-tested)");
        Compiled { reference: re(&f.reference), tag: re(&f.tag), identifier: re(&f.identifier) }
    })
}

/// `splitDockerDomain` (normalize.go): the registry part of `name` (before the first `/`, when it
/// has a `.` or `:`, is `localhost`, or is not lowercase: then it is taken for a host) and the rest.
fn split_domain(name: &str) -> (Option<&str>, &str) {
    match name.split_once('/') {
        Some((d, rest)) if d.contains(['.', ':']) || d == "localhost" || d.to_lowercase() != d => (Some(d), rest),
        _ => (None, name),
    }
}

/// `ParseNormalizedNamed`: `Ok` when the kubelet can pull `image` (by name), else why not.
pub fn check(image: &str) -> Result<(), ImageError> {
    let f = &facts().image_reference;
    let re = compiled();
    if image.chars().any(char::is_whitespace) {
        return Err(ImageError::Whitespace);
    }
    if re.identifier.is_match(image) {
        return Err(ImageError::Identifier);
    }
    let (domain, remainder) = split_domain(image);
    let remote = remainder.split_once(':').map_or(remainder, |(r, _)| r);
    let remote = remote.split_once('@').map_or(remote, |(r, _)| r);
    if remote.to_lowercase() != remote {
        return Err(ImageError::Uppercase(remote.to_string()));
    }
    let full = format!("{}/{remainder}", domain.unwrap_or("docker.io"));
    let Some(m) = re.reference.captures(&full) else {
        return Err(refused_part(remainder));
    };
    let path = m.get(1).map_or("", |n| split_domain(n.as_str()).1);
    if path.len() > f.repository_length {
        return Err(ImageError::TooLong(path.len(), f.repository_length));
    }
    if let Some(digest) = m.get(3).map(|d| d.as_str()) {
        let known = digest.split_once(':').is_some_and(|(alg, hex)| {
            f.digests.get(alg).is_some_and(|&n| hex.len() == n && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
        });
        if !known {
            return Err(ImageError::Digest(digest.to_string()));
        }
    }
    Ok(())
}

/// For a reference the grammar refuses, the part to blame: the digest, the tag, or the whole.
fn refused_part(remainder: &str) -> ImageError {
    let (named, digest) = match remainder.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (remainder, None),
    };
    if let Some(d) = digest {
        let grammar =
            d.split_once(':').is_some_and(|(alg, hex)| !alg.is_empty() && hex.len() >= 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()));
        if !grammar {
            return ImageError::Digest(d.to_string());
        }
    }
    if let Some((_, tag)) = named.rsplit_once(':').filter(|(_, t)| !t.contains('/')) {
        if !compiled().tag.is_match(tag) {
            return ImageError::Tag(tag.to_string());
        }
    }
    ImageError::Format
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_the_kubelet_pulls_pass() {
        for ok in [
            "nginx",
            "nginx:1.27",
            "library/nginx:latest",
            "docker.io/library/nginx",
            "us-docker.pkg.dev/my-project/train/llama:1",
            "localhost:5000/a/b_c__d-e:v1.0-rc_1",
            "localhost/app",
            "[::1]:5000/app:tag",
            "ghcr.io/org/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "ghcr.io/org/app:1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "MyRegistry.example.com/app",
            // splitDockerDomain: a first part that is not lowercase is a registry host.
            "MyOrg/app:1",
            "nvcr.io/nvidia/jax:25.04-py3",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn references_the_kubelet_refuses_say_why() {
        let hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        assert_eq!(check("my image:1"), Err(ImageError::Whitespace));
        assert_eq!(check(hex), Err(ImageError::Identifier));
        assert_eq!(check("MyApp:1"), Err(ImageError::Uppercase("MyApp".into())));
        assert_eq!(check("ghcr.io/MyOrg/app"), Err(ImageError::Uppercase("MyOrg/app".into())));
        assert_eq!(check("app:-1"), Err(ImageError::Tag("-1".into())));
        assert_eq!(check("app:v1+build"), Err(ImageError::Tag("v1+build".into())));
        assert_eq!(check(&format!("app:{}", "a".repeat(129))), Err(ImageError::Tag("a".repeat(129))));
        assert_eq!(check("app@sha256:abc"), Err(ImageError::Digest("sha256:abc".into())));
        assert_eq!(check(&format!("app@md5:{hex}")), Err(ImageError::Digest(format!("md5:{hex}"))));
        assert_eq!(check(&format!("app@sha256:{}", hex.to_uppercase())), Err(ImageError::Digest(format!("sha256:{}", hex.to_uppercase()))));
        assert_eq!(check("app//x"), Err(ImageError::Format));
        assert_eq!(check("-app"), Err(ImageError::Format));
        assert_eq!(check(":1"), Err(ImageError::Format));
        assert!(matches!(check(&format!("r.io/{}", "a".repeat(256))), Err(ImageError::TooLong(256, 255))));
    }
}
