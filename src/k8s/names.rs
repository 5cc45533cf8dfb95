//! Name syntax from k8s.io/apimachinery `pkg/util/validation/validation.go` (Kubernetes v1.33):
//! DNS-1123 labels and subdomains.

/// `IsDNS1123Label`: at most 63 characters, lowercase alphanumerics and `-`, starting and ending
/// with an alphanumeric (`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`).
pub fn is_dns1123_label(s: &str) -> bool {
    s.len() <= 63 && label_chars(s)
}

/// `IsDNS1123Subdomain`: at most 253 characters, dot-separated DNS-1123 label parts (each part
/// without the 63 limit of its own, as upstream's single regex has none).
pub fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(label_chars)
}

fn label_chars(part: &str) -> bool {
    let b = part.as_bytes();
    !b.is_empty() && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-') && b[0] != b'-' && b[b.len() - 1] != b'-'
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
