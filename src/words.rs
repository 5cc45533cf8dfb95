//! Words for messages: a count and its noun, with the noun in the plural when the count is
//! not one (`1 runtime`, `2 runtimes`, `1 GPU`, `8 GPUs`), so that no message reads
//! `1 runtimes` or `runtime(s)`; and serde's messages with the user's words for its Rust types
//! (`expected i32` -> `expected a whole number from -2147483648 to 2147483647`).

/// `n` and the noun, singular for one and plural otherwise. The plural adds `s`, or `es` after
/// `s`, `x`, `ch` and `sh` (`1 host`, `2 hosts`; `1 box`, `2 boxes`), `ies` for a consonant's `y`
/// (`2 Topologies`, `2 keys`); acronyms stay as they are
/// before the `s` (`GPUs`).
pub fn count<N: std::fmt::Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    let word = if n == N::from(1) { noun.to_string() } else { plural(noun) };
    format!("{n} {word}")
}

/// `n` and one of two given forms (for nouns whose plural is not regular: `1 is`, `2 are`).
pub fn count_of<N: std::fmt::Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    let word = if n == N::from(1) { one } else { many };
    format!("{n} {word}")
}

/// The regular English plural of a noun.
pub fn plural(noun: &str) -> String {
    let lower = noun.to_ascii_lowercase();
    if ["s", "x", "ch", "sh"].iter().any(|end| lower.ends_with(end)) && !noun.chars().all(|c| c.is_ascii_uppercase()) {
        format!("{noun}es")
    } else if lower.ends_with('y') && !lower.ends_with("ay") && !lower.ends_with("ey") && !lower.ends_with("oy") && !lower.ends_with("uy") {
        format!("{}ies", &noun[..noun.len() - 1])
    } else {
        format!("{noun}s")
    }
}

/// The JSON Schema type of a value: `null`, `boolean`, `integer`, `number`, `string`, `array`
/// or `object`.
pub fn json_type(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A serde error message in the user's terms (catalog fields, function configs): `invalid type: string "two", expected i32` ->
/// `expected a whole number from -2147483648 to 2147483647, found the string "two"`. Messages
/// that already read well (unknown and missing fields, unknown variants) are kept.
pub fn serde_message(message: &str) -> String {
    let parts =
        ["invalid type: ", "invalid value: "].iter().find_map(|p| message.strip_prefix(p)).and_then(|rest| rest.rsplit_once(", expected "));
    if let Some((found, expected)) = parts {
        return format!("expected {}, found {}", expected_words(expected), found_words(found));
    }
    if let Some((len, expected)) = message.strip_prefix("invalid length ").and_then(|rest| rest.split_once(", expected ")) {
        let found = len.parse::<usize>().map(|n| format!("a list of {}", count(n, "item"))).unwrap_or_else(|_| len.to_string());
        return format!("expected {}, found {found}", expected_words(expected));
    }
    message.to_string()
}

/// What serde expected (a Rust type or a visitor's words) in the user's terms.
fn expected_words(expected: &str) -> String {
    let range = |min: i128, max: i128| format!("a whole number from {min} to {max}");
    match expected.trim() {
        "u8" => range(0, u8::MAX.into()),
        "u16" => range(0, u16::MAX.into()),
        "u32" => range(0, u32::MAX.into()),
        "u64" | "usize" => range(0, u64::MAX.into()),
        "i8" => range(i8::MIN.into(), i8::MAX.into()),
        "i16" => range(i16::MIN.into(), i16::MAX.into()),
        "i32" => range(i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => range(i64::MIN.into(), i64::MAX.into()),
        "f32" | "f64" => "a number".into(),
        "a string" | "a borrowed string" | "string" | "a string or bytes" | "char" | "a character" => "a string".into(),
        "a boolean" | "bool" => "`true` or `false`".into(),
        "a sequence" | "a list" | "sequence" => "a list".into(),
        "a map" | "map" => "a mapping (`key: value` pairs)".into(),
        "unit" => "an empty value".into(),
        "Quantity" | "a quantity" => "a quantity (`4`, `500m`, `16Gi`)".into(),
        "IntOrString" | "an IntOrString" => "a number or a string".into(),
        other if other.starts_with("struct ") || other.starts_with("a map") => "a mapping (`key: value` pairs)".into(),
        other if ["a tuple of size ", "an array of length ", "a sequence of length "].iter().any(|p| other.starts_with(p)) => {
            let n = other.rsplit(' ').next().and_then(|n| n.parse::<usize>().ok());
            n.map(|n| format!("a list of {}", count(n, "item"))).unwrap_or_else(|| "a list".into())
        }
        other if other.starts_with("tuple") || other.starts_with("a sequence") || other.starts_with("an array") => "a list".into(),
        other if other.starts_with("enum ") => "one of the field's values (see `jax-runtimes schema`)".into(),
        other => other.to_string(),
    }
}

/// What serde found (its `Unexpected`) in the user's terms.
fn found_words(found: &str) -> String {
    let quoted = |prefix: &str| found.strip_prefix(prefix).map(|v| v.trim_matches('`').to_string());
    if let Some(s) = found.strip_prefix("string ") {
        return format!("the string {s}");
    }
    for (prefix, what) in [("integer ", "the number"), ("floating point ", "the number"), ("boolean ", "the boolean")] {
        if let Some(v) = quoted(prefix) {
            return format!("{what} {v}");
        }
    }
    match found {
        "sequence" => "a list".into(),
        "map" => "a mapping".into(),
        "unit value" | "unit" | "null" => "an empty value (null)".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1u32, "runtime"), "1 runtime");
        assert_eq!(count(0u32, "runtime"), "0 runtimes");
        assert_eq!(count(2usize, "error"), "2 errors");
        assert_eq!(count(1i32, "GPU"), "1 GPU");
        assert_eq!(count(8u32, "GPU"), "8 GPUs");
        assert_eq!(count(2u32, "host"), "2 hosts");
        assert_eq!(count(3u32, "match"), "3 matches");
        assert_eq!(count(-1i32, "node"), "-1 nodes");
        assert_eq!(count(0u32, "Topology"), "0 Topologies");
        assert_eq!(count(2u32, "key"), "2 keys");
        assert_eq!(count_of(1u32, "warning is", "warnings are"), "1 warning is");
    }

    #[test]
    fn serde_messages_lose_their_rust_types() {
        assert_eq!(
            serde_message("invalid type: string \"yes\", expected a boolean"),
            "expected `true` or `false`, found the string \"yes\""
        );
        assert_eq!(
            serde_message("invalid value: integer `-1`, expected u32"),
            "expected a whole number from 0 to 4294967295, found the number -1"
        );
        assert_eq!(serde_message("invalid type: map, expected a sequence"), "expected a list, found a mapping");
        assert_eq!(
            serde_message("invalid type: null, expected struct EnvVar"),
            "expected a mapping (`key: value` pairs), found an empty value (null)"
        );
        assert_eq!(serde_message("invalid length 3, expected a tuple of size 2"), "expected a list of 2 items, found a list of 3 items");
        assert_eq!(serde_message("missing field `model`"), "missing field `model`");
    }
}
