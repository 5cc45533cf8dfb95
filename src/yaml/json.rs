//! A JSON text (what `kubectl get ... -o json` prints) -> its value, read by serde_json, which
//! is many times faster than the YAML parser on large inputs (a 13 MB pod list: 0.1 s instead of
//! 4.5 s). Only a text that is plainly one JSON object is taken, and only when serde_json reads
//! it the way the YAML reader would: duplicate keys, nesting deeper than [`FAST_DEPTH`] and any
//! syntax error send the text to the YAML parser, so that what is refused and the words and
//! lines of the errors are the YAML reader's.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::long::{Long, MAX_SCALAR_BYTES};

/// Deeper texts go to the YAML parser, which applies the project's own limit.
const FAST_DEPTH: usize = 100;

/// What the fast path made of a text.
#[derive(Debug, PartialEq)]
pub enum Fast {
    /// The value, read as the YAML reader would read it.
    Value(Value),
    /// One JSON object with a string (or key) over [`MAX_SCALAR_BYTES`]: refused, with
    /// nothing built ([`long_string`] says where).
    TooLong,
    /// Not plainly JSON: the caller parses it as YAML.
    No,
}

/// The value of `text` when it is one JSON object that serde_json reads as the YAML reader would.
pub fn parse(text: &str) -> Fast {
    if !text.trim_start_matches([' ', '\t', '\n', '\r']).starts_with('{') {
        return Fast::No;
    }
    let long = Cell::new(false);
    let mut de = serde_json::Deserializer::from_str(text);
    match de.deserialize_any(Strict { depth: 0, long: &long }) {
        Ok(value) if de.end().is_ok() => Fast::Value(value),
        // The string is refused before it is copied: the error path holds the text alone.
        Err(_) if long.get() => Fast::TooLong,
        _ => Fast::No,
    }
}

/// The first string (or key) of a JSON text over [`MAX_SCALAR_BYTES`]: its field path
/// (`a.b[0].c`; a key's path ends in the key) and, when it has no escapes, its byte offset.
pub fn long_string(text: &str) -> Option<Long> {
    let found = std::cell::RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = de.deserialize_any(Find { path: String::new(), text, found: &found });
    found.into_inner()
}

fn too_long(s: &str) -> bool {
    s.len() > MAX_SCALAR_BYTES
}

/// True when `text` is one JSON object that [`parse`] would take: what a reader straight into
/// typed values may read instead of the value tree, with the same result. Nothing is built.
pub fn plain(text: &str) -> bool {
    if !text.trim_start_matches([' ', '\t', '\n', '\r']).starts_with('{') {
        return false;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_any(Check { depth: 0 }).is_ok() && de.end().is_ok()
}

/// Builds a [`Value`], refusing duplicate keys, deep nesting and (noting it in `long`) strings
/// over [`MAX_SCALAR_BYTES`].
struct Strict<'a> {
    depth: usize,
    long: &'a Cell<bool>,
}

impl<'de> de::DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'a> Strict<'a> {
    fn deeper<E: de::Error>(&self) -> Result<Strict<'a>, E> {
        if self.depth >= FAST_DEPTH {
            return Err(E::custom("nested too deep for the fast path"));
        }
        Ok(Strict { depth: self.depth + 1, long: self.long })
    }

    fn string<E: de::Error>(&self, v: &str) -> Result<(), E> {
        if too_long(v) {
            self.long.set(true);
            return Err(E::custom("a string over the limit"));
        }
        Ok(())
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("not a finite number"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.string(v)?;
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.string(&v)?;
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.deeper()?;
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Strict { depth: inner.depth, long: self.long })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.deeper()?;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            self.string(&key.0)?;
            let key = key.0.into_owned();
            if out.contains_key(&key) {
                return Err(de::Error::custom("a duplicate key"));
            }
            let v = map.next_value_seed(Strict { depth: inner.depth, long: self.long })?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// What [`Strict`] refuses, refused without building anything.
struct Check {
    depth: usize,
}

impl<'de> de::DeserializeSeed<'de> for Check {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// A key, borrowed from the text where it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }

            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }

            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string().into()))
            }

            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Visitor<'de> for Check {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        if v.is_finite() {
            Ok(())
        } else {
            Err(E::custom("not a finite number"))
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        if too_long(v) {
            return Err(E::custom("a string over the limit"));
        }
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.depth >= FAST_DEPTH {
            return Err(de::Error::custom("nested too deep for the fast path"));
        }
        while seq.next_element_seed(Check { depth: self.depth + 1 })?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if self.depth >= FAST_DEPTH {
            return Err(de::Error::custom("nested too deep for the fast path"));
        }
        let mut keys: Vec<Key<'de>> = Vec::new();
        let mut set: std::collections::HashSet<std::borrow::Cow<'de, str>> = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if too_long(&key.0) {
                return Err(de::Error::custom("a key over the limit"));
            }
            // Few keys: a linear search; many: a set.
            let seen = if keys.len() < 16 {
                let seen = keys.iter().any(|k| k.0 == key.0);
                keys.push(key);
                if keys.len() == 16 {
                    set.extend(keys.iter().map(|k| k.0.clone()));
                }
                seen
            } else {
                !set.insert(key.0)
            };
            if seen {
                return Err(de::Error::custom("a duplicate key"));
            }
            map.next_value_seed(Check { depth: self.depth + 1 })?;
        }
        Ok(())
    }
}

/// Walks a JSON text with the field path, to the first string over the limit.
struct Find<'a> {
    path: String,
    text: &'a str,
    found: &'a std::cell::RefCell<Option<Long>>,
}

impl Find<'_> {
    fn note<E: de::Error>(&self, path: String, key: bool, v: &str) -> Result<(), E> {
        if !too_long(v) {
            return Ok(());
        }
        // A borrowed string lies in the text; one with escapes was copied out of it.
        let start = (v.as_ptr() as usize).wrapping_sub(self.text.as_ptr() as usize);
        let offset = (start <= self.text.len()).then_some(start);
        *self.found.borrow_mut() = Some(Long { doc: 0, path, key, len: v.len(), offset });
        Err(E::custom("found"))
    }

    fn child(&self, path: String) -> Find<'_> {
        Find { path, text: self.text, found: self.found }
    }
}

impl<'de> de::DeserializeSeed<'de> for Find<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Find<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.note(self.path.clone(), false, v)
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        while seq.next_element_seed(self.child(format!("{}[{i}]", self.path)))?.is_some() {
            i += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if too_long(&key.0) {
                return self.note(self.path.clone(), true, &key.0);
            }
            let path = if self.path.is_empty() { key.0.to_string() } else { format!("{}.{}", self.path, key.0) };
            map.next_value_seed(self.child(path))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_object_reads_as_the_yaml_reader_reads_it() {
        let text =
            " \n{\"kind\": \"List\", \"items\": [{\"a\": 1, \"b\": -2, \"c\": 1.5, \"d\": null, \"e\": true, \"f\": \"x\\u00e9\"}]}\n";
        let Fast::Value(fast) = parse(text) else { panic!("{text}") };
        assert_eq!(Some(&fast), super::super::parse_whole(text).unwrap().first());
    }

    #[test]
    fn what_the_yaml_reader_must_judge_is_left_to_it() {
        for text in [
            "kind: List",
            "{\"a\": 1, \"a\": 2}",
            "{\"a\": 1} {\"b\": 2}",
            "{\"a\": 1}\n---\n{\"b\": 2}",
            "{a: 1}",
            "[1, 2]",
            "{\"a\": 0777}",
            "\u{feff}{\"a\": 1}",
        ] {
            assert_eq!(parse(text), Fast::No, "{text}");
        }
        let nested = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        assert!(matches!(parse(&nested(FAST_DEPTH)), Fast::Value(_)));
        assert_eq!(parse(&nested(FAST_DEPTH + 1)), Fast::No);
    }

    #[test]
    fn plain_takes_exactly_what_parse_takes() {
        let many = |dup: bool| {
            let mut keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
            if dup {
                keys.push("\"k3\": 0".into());
            }
            format!("{{{}}}", keys.join(", "))
        };
        let nested = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        let list = |n: usize| format!("{{\"a\": {}1{}}}", "[".repeat(n), "]".repeat(n));
        for text in [
            "{}".to_string(),
            " {\"a\": [1, -2, 1.5, null, true, \"x\\u00e9\", {\"b\": {}}]}\n".into(),
            "{\"a\": {\"b\": 1}, \"c\": {\"b\": 2}}".into(),
            "{\"a\\u0062\": 1, \"ab\": 2}".into(),
            "{\"a\": 1, \"a\": 2}".into(),
            "{\"a\": {\"x\": 1, \"x\": 2}}".into(),
            many(false),
            many(true),
            "{\"a\": 1e999}".into(),
            "{\"a\": 1} {\"b\": 2}".into(),
            "kind: List".into(),
            "[1, 2]".into(),
            nested(FAST_DEPTH),
            nested(FAST_DEPTH + 1),
            list(FAST_DEPTH - 1),
            list(FAST_DEPTH),
        ] {
            assert_eq!(plain(&text), matches!(parse(&text), Fast::Value(_)), "{text}");
        }
    }
}
