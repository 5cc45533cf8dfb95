//! Amounts, label sets and node lists -> the words `fit`'s reasons are made of: `16Gi`, `1850m
//! cpu`, `a=1, b=2`, `n1, n2 and 3 more`.

use std::collections::BTreeMap;

/// An amount as a person writes it: cpu in cores or millicores, bytes with a binary suffix
/// where exact, other resources as counts.
pub fn amount(resource: &str, value: i64) -> String {
    if resource == "cpu" {
        return if value % 1000 == 0 { format!("{}", value / 1000) } else { format!("{value}m") };
    }
    if matches!(resource, "memory" | "ephemeral-storage") || resource.starts_with("hugepages-") {
        // The largest binary unit it reaches: whole where exact, else one decimal.
        for (suffix, shift) in [("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)] {
            let unit = 1i64 << shift;
            if value >= unit {
                return if value % unit == 0 {
                    format!("{}{suffix}", value / unit)
                } else {
                    format!("{:.1}{suffix}", value as f64 / unit as f64)
                };
            }
        }
    }
    value.to_string()
}

/// `4 google.com/tpu`, `cpu 4`, `memory 16Gi`: what one pod requests, accelerators first.
pub fn request(resource: &str, value: i64) -> String {
    if matches!(resource, "cpu" | "memory" | "ephemeral-storage") {
        format!("{resource} {}", amount(resource, value))
    } else {
        format!("{} {resource}", amount(resource, value))
    }
}

/// Every request of a pod: `4 google.com/tpu`, `8 nvidia.com/gpu, cpu 4, memory 16Gi`.
pub fn requests(amounts: &BTreeMap<String, i64>) -> String {
    let (native, other): (Vec<_>, Vec<_>) = amounts.iter().partition(|(r, _)| matches!(r.as_str(), "cpu" | "memory" | "ephemeral-storage"));
    let all: Vec<String> = other.into_iter().chain(native).map(|(r, v)| request(r, *v)).collect();
    if all.is_empty() {
        "no resources".to_string()
    } else {
        all.join(", ")
    }
}

/// `k=v` pairs joined with `, `.
pub fn labels(selector: &BTreeMap<String, String>) -> String {
    selector.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
}

/// Up to three names, then how many more: `a, b, c and 2 more`.
pub fn names<S: AsRef<str>>(all: &[S]) -> String {
    const SHOWN: usize = 3;
    let shown: Vec<&str> = all.iter().take(SHOWN).map(AsRef::as_ref).collect();
    match all.len().saturating_sub(SHOWN) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// `1 node`, `3 nodes`.
pub fn count(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_as_people_write_them() {
        assert_eq!(amount("cpu", 4000), "4");
        assert_eq!(amount("cpu", 1850), "1850m");
        assert_eq!(amount("memory", 16 << 30), "16Gi");
        assert_eq!(amount("memory", 122_329_333 * 1024), "116.7Gi");
        assert_eq!(amount("memory", 1000), "1000");
        assert_eq!(amount("memory", 1536 << 20), "1.5Gi");
        assert_eq!(amount("google.com/tpu", 4), "4");
        assert_eq!(requests(&[("cpu".to_string(), 4000), ("nvidia.com/gpu".to_string(), 8)].into()), "8 nvidia.com/gpu, cpu 4");
        assert_eq!(requests(&BTreeMap::new()), "no resources");
    }

    #[test]
    fn long_lists_are_cut_short() {
        assert_eq!(names(&["a", "b"]), "a, b");
        assert_eq!(names(&["a", "b", "c", "d", "e"]), "a, b, c and 2 more");
        assert_eq!(count(1, "node"), "1 node");
        assert_eq!(count(0, "node"), "0 nodes");
    }
}
