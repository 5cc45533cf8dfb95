//! Kubernetes quantities (`500m`, `16Gi`, `1e3`) -> whole numbers as kube-scheduler counts them:
//! `cpu` in millicores, everything else in units, both rounded up. The grammar and the rounding
//! are apimachinery's (`pkg/api/resource/quantity.go`: the grammar comment, `Value` and
//! `MilliValue` round up); the scheduler uses `MilliValue` for cpu and `Value` for the rest
//! (kubernetes `pkg/scheduler/framework/types.go`, `(*Resource).Add`).

/// A string that is not a Kubernetes quantity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a Kubernetes quantity (a number with an optional suffix: m, k, M, G, Ki, Mi, Gi, ... or e<n>)")]
pub struct QuantityError {
    pub text: String,
}

/// The amount of `resource` the scheduler counts for `text`: millicores for `cpu`, units
/// otherwise; rounded up; capped at `i64::MAX` (as apimachinery caps at 2^63-1).
pub fn amount(resource: &str, text: &str) -> Result<i64, QuantityError> {
    scaled(text, if resource == "cpu" { 3 } else { 0 })
}

/// `text` times 10^`exp10`, rounded up.
fn scaled(text: &str, exp10: i32) -> Result<i64, QuantityError> {
    let err = || QuantityError { text: text.to_string() };
    let (negative, rest) = match (text.strip_prefix('-'), text.strip_prefix('+')) {
        (Some(rest), _) => (true, rest),
        (_, Some(rest)) => (false, rest),
        _ => (false, text),
    };
    // The number: digits, optionally with one `.`; at least one digit.
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
    let (number, suffix) = rest.split_at_checked(end).ok_or_else(err)?;
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.len() + fraction.len() == 0 || fraction.contains('.') {
        return Err(err());
    }
    let (binary, decimal) = suffix_exponents(suffix).ok_or_else(err)?;
    // The digits as one integer (saturating: a mantissa over 38 digits is capped anyway).
    let mut mantissa: u128 = 0;
    let mut saturated = false;
    for b in whole.bytes().chain(fraction.bytes()) {
        match mantissa.checked_mul(10).and_then(|m| m.checked_add(u128::from(b - b'0'))) {
            Some(m) => mantissa = m,
            None => saturated = true,
        }
    }
    let shift = decimal + exp10 - i32::try_from(fraction.len()).map_err(|_| err())?;
    let value = if saturated { u128::MAX } else { times_power(mantissa, binary, shift) };
    let capped = i64::try_from(value).unwrap_or(i64::MAX);
    Ok(if negative { -capped } else { capped })
}

/// The binary (2^10 steps) and decimal exponents of a suffix; `None` if it is not one.
fn suffix_exponents(suffix: &str) -> Option<(u32, i32)> {
    Some(match suffix {
        "" => (0, 0),
        "Ki" => (1, 0),
        "Mi" => (2, 0),
        "Gi" => (3, 0),
        "Ti" => (4, 0),
        "Pi" => (5, 0),
        "Ei" => (6, 0),
        "m" => (0, -3),
        "k" => (0, 3),
        "M" => (0, 6),
        "G" => (0, 9),
        "T" => (0, 12),
        "P" => (0, 15),
        "E" => (0, 18),
        _ => {
            let exp = suffix.strip_prefix(['e', 'E'])?;
            let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            // Beyond this every non-zero value is capped or rounds to one unit.
            let e: i32 = exp.parse().unwrap_or(if exp.starts_with('-') { -1000 } else { 1000 });
            (0, e.clamp(-1000, 1000))
        }
    })
}

/// `m * 1024^binary * 10^shift`, rounded up, saturating.
fn times_power(m: u128, binary: u32, shift: i32) -> u128 {
    if m == 0 {
        return 0;
    }
    let mut v = m;
    for _ in 0..binary {
        v = v.saturating_mul(1024);
    }
    if shift >= 0 {
        for _ in 0..shift {
            if v > u128::MAX / 10 {
                return u128::MAX;
            }
            v *= 10;
        }
        v
    } else {
        let down = shift.unsigned_abs();
        if down > 38 {
            return 1;
        }
        let d = 10u128.pow(down);
        v.div_ceil(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_counts_millicores_and_the_rest_units_both_rounded_up() {
        for (resource, text, want) in [
            ("cpu", "4", 4000),
            ("cpu", "191450m", 191_450),
            ("cpu", "0.5", 500),
            ("cpu", "0.1m", 1),
            ("cpu", "1e3", 1_000_000),
            ("memory", "16Gi", 16 * 1024 * 1024 * 1024),
            ("memory", "13594692Ki", 13_594_692 * 1024),
            ("memory", "1938410Mi", 1_938_410 * 1024 * 1024),
            ("memory", "1.5Gi", 1_610_612_736),
            ("memory", "100M", 100_000_000),
            ("memory", "1E", 1_000_000_000_000_000_000),
            ("memory", "128974848e-3", 128_975),
            ("memory", "0.5", 1),
            ("memory", "1m", 1),
            ("ephemeral-storage", "47060071478", 47_060_071_478),
            ("pods", "110", 110),
            ("google.com/tpu", "+4", 4),
            ("nvidia.com/gpu", "0", 0),
            ("memory", "9Ei", i64::MAX),
            ("memory", "1e400", i64::MAX),
            ("memory", "99999999999999999999999999999999999999999999", i64::MAX),
            ("cpu", "1e-400", 1),
            ("memory", ".5", 1),
            ("memory", "5.", 5),
            ("cpu", "-1", -1000),
        ] {
            assert_eq!(amount(resource, text), Ok(want), "{resource} {text}");
        }
    }

    #[test]
    fn what_is_not_a_quantity_is_refused() {
        for text in ["", "eight", "32GB", "1 Gi", " 1", "1.2.3", ".", "+", "1e", "1e+", "1Kib", "--1", "1ki", "0x10", "1e3.5"] {
            assert!(amount("memory", text).is_err(), "`{text}` was accepted");
        }
    }
}
