//! Resource quantities as Kubernetes reads them: the grammar of kubernetes/apimachinery v0.34.1
//! `pkg/api/resource/quantity.go` (`ParseQuantity`, `parseQuantityString`; suffixes from
//! `suffix.go` `newSuffixer`, here from [`super::facts`]), intersected with the pattern the
//! Trainer v2.3.0 CRD puts on quantity strings. A value must pass both: the CRD pattern at apply,
//! and `ParseQuantity` when the Trainer webhook or controller decodes the runtime.
//!
//! `<quantity> ::= <sign><number><suffix>`, `<number> ::= <digits> | <digits>.<digits> | <digits>. | .<digits>`,
//! `<suffix> ::= Ki | Mi | Gi | Ti | Pi | Ei | n | u | m | "" | k | M | G | T | P | E | (e|E)<signed integer>`.
//! Case matters (`k` is kilo, `K` is nothing), `1e` and `1e1.5` are not quantities.
//!
//! Values are kept in nano-units (10^-9) in 128 bits, rounded up to 1n as `ParseQuantity` rounds
//! them; a value beyond about 3.4 * 10^29 units saturates (only comparisons between two such
//! values lose their order). BinarySI values are capped at 2^63 - 1 units, as upstream does.

use std::cmp::Ordering;

use super::facts::facts;

/// Why a string is not a quantity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    #[error("is empty")]
    Empty,
    #[error("is not a number with an optional suffix")]
    Format,
    #[error("has the unknown suffix `{0}` (suffixes: Ki, Mi, Gi, Ti, Pi, Ei, m, k, M, G, T, P, E, or an exponent such as e3)")]
    Suffix(String),
    #[error("has a fractional exponent `{0}`; exponents are whole numbers")]
    FractionalExponent(String),
}

/// A parsed quantity: its sign and magnitude in nano-units. Equal values are equal whatever
/// their spelling (`1000m` and `1`, `-0` and `0`).
#[derive(Debug, Clone, Copy)]
pub struct Quantity {
    negative: bool,
    /// |value| * 10^9, rounded up; `u128::MAX` when it does not fit.
    nano: u128,
}

const NANO: u128 = 1_000_000_000;

impl Quantity {
    pub const ZERO: Quantity = Quantity { negative: false, nano: 0 };

    /// True for a value below zero.
    pub fn is_negative(&self) -> bool {
        self.negative && self.nano > 0
    }

    /// `MilliValue() % 1000 == 0`: what `ValidateResourceQuantityValue` asks of extended
    /// resources (`MilliValue` rounds up to a thousandth).
    pub fn is_whole(&self) -> bool {
        self.nano == u128::MAX || self.nano.div_ceil(1_000_000).is_multiple_of(1000)
    }

    /// `Value()`: whole units, rounded up (away from zero for the magnitude).
    pub fn units(&self) -> u128 {
        if self.nano == u128::MAX {
            u128::MAX
        } else {
            self.nano.div_ceil(NANO)
        }
    }

    /// The value as a count of whole units, if it is a non-negative whole number that fits.
    pub fn count(&self) -> Option<u64> {
        if self.is_negative() || !self.nano.is_multiple_of(NANO) || self.nano == u128::MAX {
            return None;
        }
        u64::try_from(self.nano / NANO).ok()
    }

    /// `Value()` as an `i64`: whole units, the magnitude rounded up, saturating at `i64::MAX`
    /// (apimachinery caps at 2^63 - 1 too).
    pub fn value(&self) -> i64 {
        self.signed(self.units())
    }

    /// `MilliValue()` as an `i64`: thousandths of a unit, the magnitude rounded up, saturating.
    pub fn milli_value(&self) -> i64 {
        let milli = if self.nano == u128::MAX { u128::MAX } else { self.nano.div_ceil(1_000_000) };
        self.signed(milli)
    }

    /// The amount of `resource` kube-scheduler counts for this quantity: millicores for `cpu`
    /// (`MilliValue`), whole units for everything else (`Value`) (kubernetes v1.34
    /// `pkg/scheduler/framework/types.go` `(*Resource).Add`; the names are in [`super::facts`]).
    pub fn scheduler_amount(&self, resource: &str) -> i64 {
        if facts().scheduling.milli_resources.iter().any(|r| r == resource) {
            self.milli_value()
        } else {
            self.value()
        }
    }

    fn signed(&self, magnitude: u128) -> i64 {
        let capped = i64::try_from(magnitude).unwrap_or(i64::MAX);
        if self.is_negative() {
            -capped
        } else {
            capped
        }
    }

    fn signed_cmp(&self, other: &Quantity) -> Ordering {
        match (self.is_negative(), other.is_negative()) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.nano.cmp(&other.nano),
            (true, true) => other.nano.cmp(&self.nano),
        }
    }
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Quantity) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Quantity) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    /// `Quantity.Cmp`.
    fn cmp(&self, other: &Quantity) -> Ordering {
        self.signed_cmp(other)
    }
}

/// The suffix of a quantity, as `quantitySuffixer.interpret` reads it.
enum Suffix {
    Decimal(i32),
    Binary(u32),
    Exponent(i32),
}

/// Parses `s` as Kubernetes does (CRD pattern and `ParseQuantity`).
pub fn parse(s: &str) -> Result<Quantity, QuantityError> {
    if s.is_empty() {
        return Err(QuantityError::Empty);
    }
    let b = s.as_bytes();
    let mut i = 0;
    let negative = match b.first() {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let int_start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let int_digits = s.get(int_start..i).unwrap_or_default();
    let mut frac_digits = "";
    if b.get(i) == Some(&b'.') {
        i += 1;
        let frac_start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        frac_digits = s.get(frac_start..i).unwrap_or_default();
    }
    // The CRD pattern needs a digit before the suffix (`.` and `+` alone are refused).
    if int_digits.is_empty() && frac_digits.is_empty() {
        return Err(QuantityError::Format);
    }
    let suffix_text = s.get(i..).unwrap_or_default();
    let suffix = interpret(suffix_text)?;
    Ok(value(negative, int_digits, frac_digits, suffix))
}

/// The amount of `resource` kube-scheduler counts for the quantity `text` (see
/// [`Quantity::scheduler_amount`]).
pub fn amount(resource: &str, text: &str) -> Result<i64, QuantityError> {
    Ok(parse(text)?.scheduler_amount(resource))
}

/// True when `s` is a quantity.
pub fn is_quantity(s: &str) -> bool {
    parse(s).is_ok()
}

/// A string that is not a quantity, with why: what reading a list of quantities (a node's
/// allocatable, a pod's requests) reports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a Kubernetes quantity: it {reason}")]
pub struct NotAQuantity {
    pub text: String,
    pub reason: QuantityError,
}

/// [`parse`], with the text in the error.
pub fn read(text: &str) -> Result<Quantity, NotAQuantity> {
    parse(text).map_err(|reason| NotAQuantity { text: text.to_string(), reason })
}

fn interpret(text: &str) -> Result<Suffix, QuantityError> {
    let f = facts();
    if let Some(e) = f.decimal_suffixes.get(text) {
        return Ok(Suffix::Decimal(*e));
    }
    if let Some(e) = f.binary_suffixes.get(text) {
        return Ok(Suffix::Binary(*e));
    }
    let mut chars = text.chars();
    match chars.next() {
        Some('e' | 'E') if text.len() > 1 => {
            let rest = chars.as_str();
            let digits = rest.strip_prefix(['+', '-']).unwrap_or(rest);
            if digits.is_empty() {
                return Err(QuantityError::Suffix(text.to_string()));
            }
            if digits.bytes().all(|c| c.is_ascii_digit() || c == b'.') && digits.bytes().any(|c| c.is_ascii_digit()) && digits.contains('.')
            {
                // Matches the CRD pattern, but ParseQuantity's ParseInt refuses it.
                return Err(QuantityError::FractionalExponent(text.to_string()));
            }
            if !digits.bytes().all(|c| c.is_ascii_digit()) {
                return Err(QuantityError::Format);
            }
            // strconv.ParseInt(.., 64) then a cast to int32, as upstream does.
            match rest.parse::<i64>() {
                Ok(n) => Ok(Suffix::Exponent(n as i32)),
                Err(_) => Err(QuantityError::Suffix(text.to_string())),
            }
        }
        _ => {
            // Only characters from the suffix set make a suffix error; anything else is not a
            // quantity at all (`32GB`, `eight`, `1_000`).
            if !text.is_empty() && text.bytes().all(|c| b"eEinumkKMGTP".contains(&c)) {
                Err(QuantityError::Suffix(text.to_string()))
            } else {
                Err(QuantityError::Format)
            }
        }
    }
}

/// The magnitude in nano-units, rounded up; saturating.
fn value(negative: bool, int_digits: &str, frac_digits: &str, suffix: Suffix) -> Quantity {
    // digits * 10^(-frac) * multiplier, as nano-units.
    let digits: String = format!("{int_digits}{frac_digits}");
    let digits = digits.trim_start_matches('0');
    let frac = frac_digits.len() as i64;
    let (pow10, pow2) = match suffix {
        Suffix::Decimal(e) | Suffix::Exponent(e) => (i64::from(e), 0u32),
        Suffix::Binary(e) => (0, e),
    };
    // Exponent of 10 to apply to `digits` to get nano-units.
    let shift = pow10 + 9 - frac;
    let nano = if digits.is_empty() {
        0
    } else {
        let mantissa = big_from_digits(digits);
        let scaled = if pow2 > 0 { mantissa.and_then(|m| m.checked_mul(1u128 << pow2)) } else { mantissa };
        match scaled {
            None => u128::MAX,
            Some(m) if shift >= 0 => pow10_mul(m, shift),
            Some(m) => {
                // Dividing: round up to 1n.
                let down = u32::try_from(-shift).ok().and_then(|s| 10u128.checked_pow(s));
                match down {
                    Some(d) => m.div_ceil(d),
                    None => 1,
                }
            }
        }
    };
    let nano = match suffix {
        Suffix::Binary(_) => nano.min((i64::MAX as u128).saturating_mul(NANO)),
        _ => nano,
    };
    Quantity { negative, nano }
}

fn big_from_digits(digits: &str) -> Option<u128> {
    digits.bytes().try_fold(0u128, |acc, c| acc.checked_mul(10)?.checked_add(u128::from(c - b'0')))
}

fn pow10_mul(m: u128, shift: i64) -> u128 {
    match u32::try_from(shift).ok().and_then(|s| 10u128.checked_pow(s)) {
        Some(p) => m.saturating_mul(p),
        None => u128::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Quantity {
        parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn every_legal_form_parses() {
        for s in [
            "1500m", "2.5", "129M", "129Mi", "1e11", "1E11", "1e+3", "1e-3", "10Gi", "1.5Gi", "+1", ".5", "5.", "1.G", "0", "08", "2u",
            "1E", "1Ei", "-1", "4", "100n", "1k",
        ] {
            assert!(is_quantity(s), "{s}");
        }
    }

    #[test]
    fn what_kubernetes_refuses_does_not_parse() {
        for (s, want) in [
            ("", QuantityError::Empty),
            ("eight", QuantityError::Format),
            ("32GB", QuantityError::Format),
            ("1.5.5", QuantityError::Format),
            ("0x10", QuantityError::Format),
            ("1_000", QuantityError::Format),
            (" 1", QuantityError::Format),
            ("1 ", QuantityError::Format),
            (".", QuantityError::Format),
            ("+", QuantityError::Format),
            ("4 cores", QuantityError::Format),
            ("1ki", QuantityError::Suffix("ki".into())),
            ("1K", QuantityError::Suffix("K".into())),
            ("1e", QuantityError::Suffix("e".into())),
            ("1e1.5", QuantityError::FractionalExponent("e1.5".into())),
        ] {
            assert_eq!(parse(s), Err(want), "{s}");
        }
    }

    #[test]
    fn values_compare_as_kubernetes_compares_them() {
        assert!(q("1500m") < q("2"));
        assert!(q("2") > q("1500m"));
        assert_eq!(q("1000m").cmp(&q("1")), Ordering::Equal);
        assert_eq!(q("1Gi").cmp(&q("1073741824")), Ordering::Equal);
        assert!(q("1G") < q("1Gi"));
        assert_eq!(q("1e3").cmp(&q("1k")), Ordering::Equal);
        assert!(q("-1") < Quantity::ZERO && q("-1").is_negative() && !q("-0").is_negative());
        assert_eq!(q("-0"), q("0"));
        assert!(q("-2") < q("-1"));
        assert_eq!(q("0.5").count(), None);
        assert_eq!(q("4").count(), Some(4));
        assert_eq!(q("4000m").count(), Some(4));
    }

    #[test]
    fn whole_numbers_and_units() {
        for s in ["4", "1000m", "1k", "1Ki", "1e3"] {
            assert!(q(s).is_whole(), "{s}");
        }
        for s in ["0.5", "1500m", "1.0001", "1n"] {
            assert!(!q(s).is_whole(), "{s}");
        }
        assert_eq!(q("1n").units(), 1, "rounded up");
        assert_eq!(q("2Mi").units(), 2 * 1024 * 1024);
        assert_eq!(q("1.5Gi").units(), 1536 * 1024 * 1024);
    }

    #[test]
    fn the_scheduler_counts_cpu_in_millicores_and_the_rest_in_units_both_rounded_up() {
        for (resource, text, want) in [
            ("cpu", "4", 4000),
            ("cpu", "191450m", 191_450),
            ("cpu", "0.5", 500),
            ("cpu", "0.1m", 1),
            ("cpu", "1e3", 1_000_000),
            ("cpu", "100u", 1),
            ("cpu", "250000n", 1),
            ("memory", "16Gi", 16 * 1024 * 1024 * 1024),
            ("memory", "13594692Ki", 13_594_692 * 1024),
            ("memory", "1.5Gi", 1_610_612_736),
            ("memory", "100M", 100_000_000),
            ("memory", "1E", 1_000_000_000_000_000_000),
            ("memory", "128974848e-3", 128_975),
            ("memory", "0.5", 1),
            ("memory", "1m", 1),
            ("ephemeral-storage", "47060071478", 47_060_071_478),
            ("google.com/tpu", "+4", 4),
            ("nvidia.com/gpu", "0", 0),
            ("memory", "9Ei", i64::MAX),
            ("memory", "1e400", i64::MAX),
            ("memory", "99999999999999999999999999999999999999999999", i64::MAX),
            ("cpu", "1e-400", 1),
            ("memory", ".5", 1),
            ("memory", "5.", 5),
            ("cpu", "-1", -1000),
            ("memory", "-1.5", -2),
        ] {
            assert_eq!(q(text).scheduler_amount(resource), want, "{resource} {text}");
        }
        assert_eq!(
            read("lots").unwrap_err().to_string(),
            "`lots` is not a Kubernetes quantity: it is not a number with an optional suffix"
        );
    }

    #[test]
    fn huge_and_tiny_values_do_not_panic() {
        for s in ["1e999999999999", "1e-99999999", "99999999999999999999999999999999999999999999Ei", "1Ei", "0.0000000000001"] {
            let _ = parse(s).map(|v| (v.units(), v.is_whole(), v.count()));
        }
        assert_eq!(q("0.0000000000001").units(), 1, "rounded up to 1n, so one unit");
        assert_eq!(q("99999999999Ei").units(), i64::MAX as u128, "BinarySI is capped at 2^63-1");
    }
}
