//! The KRM functions wire format: a `config.kubernetes.io/v1` ResourceList (YAML or JSON) in ->
//! items, each with the text it came as and what identifies it; out -> the list with every finding
//! as a KRM `Result` ([`results`]). Used by the KRM function and by `validate --format kpt`.
//!
//! Items the function does not make are written back as the exact text they came as (the lines of a
//! YAML item, the bytes of a JSON one), so that kpt and kustomize see them byte for byte as a `cat`
//! function would return them: no scalar is re-typed (`on`, `0755`, `1e3` stay as written), no flow
//! map becomes a block, no comment, anchor or quote is lost. Locating them reads only what
//! identifies them ([`outline`]); an item is parsed whole ([`Item::value`]) only when the function
//! needs to understand it.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::diag::Diagnostic;
use crate::rules::krm::{KRM_MALFORMED_INPUT, KRM_NOT_A_RESOURCE_LIST};
use crate::yaml::{self, YamlError};

mod locate;
mod meta;
mod outline;
pub mod results;

pub use meta::Meta;
pub use results::KrmResult;

/// The apiVersion written on output ResourceLists.
pub const API_VERSION: &str = "config.kubernetes.io/v1";
pub const KIND: &str = "ResourceList";

/// How the ResourceList came in; it goes out the same way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Yaml,
    Json,
}

/// An item's text as it came.
#[derive(Debug, Clone)]
enum Raw {
    /// The lines of a YAML sequence entry, from its `-` to the next entry.
    YamlItem(String),
    /// A whole top-level YAML entry (`functionConfig:` and its value).
    YamlEntry(String),
    /// The bytes of a JSON value.
    Json(Box<RawValue>),
    /// Made by the function, or read where the text could not be kept: written from the value.
    None,
}

/// One object of the list.
#[derive(Debug)]
pub struct Item {
    raw: Raw,
    pub meta: Meta,
    value: OnceLock<Result<Value, YamlError>>,
}

impl Clone for Item {
    fn clone(&self) -> Item {
        let value = OnceLock::new();
        if let Some(v) = self.value.get() {
            let _ = value.set(v.clone());
        }
        Item { raw: self.raw.clone(), meta: self.meta.clone(), value }
    }
}

impl PartialEq for Item {
    fn eq(&self, other: &Item) -> bool {
        self.meta == other.meta && self.text() == other.text() && self.value().ok() == other.value().ok()
    }
}

impl Item {
    /// An item the function makes; it is written from its value.
    pub fn new(value: Value) -> Item {
        let meta = Meta::of(&value);
        Item { raw: Raw::None, meta, value: OnceLock::from(Ok(value)) }
    }

    fn raw(raw: Raw, meta: Meta) -> Item {
        Item { raw, meta, value: OnceLock::new() }
    }

    /// The whole value, parsed from the text the first time it is asked for.
    pub fn value(&self) -> Result<&Value, &YamlError> {
        self.value
            .get_or_init(|| match &self.raw {
                // The text is the item as a one-entry list: a path in it starts `[0].`.
                Raw::YamlItem(text) => {
                    match yaml::parse_one(text).map_err(|e| YamlError { message: e.message.replacen("`[0].", "`", 1), ..e })? {
                        Value::Array(mut one) if one.len() == 1 => Ok(one.remove(0)),
                        _ => Err(YamlError::new("an item is not one YAML node")),
                    }
                }
                Raw::YamlEntry(text) => match yaml::parse_one(text)? {
                    Value::Object(m) => m.into_iter().next().map(|(_, v)| v).ok_or_else(|| YamlError::new("an empty entry")),
                    _ => Err(YamlError::new("an entry is not a mapping")),
                },
                Raw::Json(raw) => serde_json::from_str(raw.get()).map_err(|e| YamlError::new(e.to_string())),
                Raw::None => Err(YamlError::new("an item without text or value")),
            })
            .as_ref()
    }

    /// The text the item came as, when it is written back as it came.
    pub fn text(&self) -> Option<&str> {
        match &self.raw {
            Raw::YamlItem(t) | Raw::YamlEntry(t) => Some(t),
            Raw::Json(r) => Some(r.get()),
            Raw::None => None,
        }
    }
}

/// The parts of a ResourceList a function reads. `results` of the input are dropped: they
/// belong to whichever function ran before.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceList {
    pub items: Vec<Item>,
    pub function_config: Option<Item>,
    pub format: Format,
    /// Comment lines between `items:` and the first item, kept in place.
    lead: String,
}

impl ResourceList {
    /// A list of items made by the function.
    pub fn of(items: Vec<Value>, function_config: Option<Value>, format: Format) -> ResourceList {
        ResourceList {
            items: items.into_iter().map(Item::new).collect(),
            function_config: function_config.map(Item::new),
            format,
            lead: String::new(),
        }
    }
}

/// Parses a ResourceList. JSON when the first character is `{`, YAML otherwise. Any apiVersion
/// is accepted (kyaml does not check it either); the kind must be `ResourceList` or `List`.
pub fn parse(text: &str) -> Result<ResourceList, Diagnostic> {
    let body = text.trim_start_matches('\u{feff}');
    if body.trim_start().starts_with('{') {
        return parse_json(body.trim_start());
    }
    // A huge quoted or block string is refused before the outline pass would build it.
    if let Err(e) = yaml::refuse_long_scalar(body) {
        return Err(too_long(body, &e.message, e.line));
    }
    match outline::outline(body) {
        Ok(o) => {
            let kind = o.entries.iter().find(|(k, _)| k == "kind").and_then(|(_, r)| top_scalar(&body[r.clone()]));
            check_kind(kind.as_deref())?;
            let items = o.items.into_iter().map(|(range, meta)| Item::raw(Raw::YamlItem(body[range].to_string()), meta)).collect();
            let function_config = match (o.function_config, o.entries.iter().find(|(k, _)| k == "functionConfig")) {
                (Some(meta), Some((_, range))) => {
                    let item = Item::raw(Raw::YamlEntry(body[range.clone()].to_string()), meta);
                    // `functionConfig: ~` is no config.
                    match item.value() {
                        Ok(Value::Null) => None,
                        _ => Some(item),
                    }
                }
                _ => None,
            };
            Ok(ResourceList { items, function_config, format: Format::Yaml, lead: body[o.items_lead].to_string() })
        }
        Err(outline::Unsupported::Invalid { message, line }) => Err(malformed(body, &message, line)),
        // Valid YAML in a layout the outline does not cut (flow style): read and write values.
        Err(outline::Unsupported::Layout(_)) => parse_values(body),
    }
}

/// A ResourceList that does not parse: where the error's line falls in an item kpt read from a
/// file (its `config.kubernetes.io/path`), the finding names that file, and the line in it when
/// the file can be read from the working directory; else the line of the ResourceList.
fn malformed(body: &str, message: &str, line: Option<usize>) -> Diagnostic {
    let help = "send one ResourceList (`kind: ResourceList`) on standard input";
    match line.and_then(|l| locate::item_at(body, l).map(|p| (l, p))) {
        Some((l, place)) => {
            let message = place.message.as_deref().unwrap_or(message);
            let at = match place.line {
                Some(n) => format!(" at line {n}"),
                None => {
                    format!(" (line {l} of the ResourceList, item {}; run kpt in the package folder for the line in the file)", place.item)
                }
            };
            Diagnostic::new(&KRM_MALFORMED_INPUT, format!("`{}` is not valid YAML{at}: {message}", place.file))
                .with_file(place.file, None, place.line)
                .with_help("fix the YAML of that file; kpt passed it on as it is")
        }
        None => {
            let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
            Diagnostic::new(&KRM_MALFORMED_INPUT, format!("the input is not one valid YAML document{at}: {message}")).with_help(help)
        }
    }
}

/// A ResourceList with a string over the reader's limit (found before parsing): in the file kpt
/// read the item from where that is known.
fn too_long(body: &str, message: &str, line: Option<usize>) -> Diagnostic {
    let help = "shorten the value at that line; a long text belongs in a file the job reads, not in a field";
    match line.and_then(|l| locate::item_at(body, l).map(|p| (l, p))) {
        Some((l, place)) => {
            let at = match place.line {
                Some(n) => format!(" at line {n}"),
                None => format!(" (line {l} of the ResourceList, item {})", place.item),
            };
            Diagnostic::new(&KRM_MALFORMED_INPUT, format!("`{}`{at}: {message}", place.file))
                .with_file(place.file, None, place.line)
                .with_help(help)
        }
        None => {
            let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
            Diagnostic::new(&KRM_MALFORMED_INPUT, format!("the ResourceList{at}: {message}")).with_help(help)
        }
    }
}

/// The value of a one-line `key: value` entry, as its text.
fn top_scalar(entry: &str) -> Option<String> {
    let v: Value = yaml::parse_one(entry).ok()?;
    v.as_object()?.values().next()?.as_str().map(str::to_string)
}

fn check_kind(kind: Option<&str>) -> Result<(), Diagnostic> {
    match kind {
        Some("ResourceList" | "List") => Ok(()),
        Some(other) => Err(not_a_list(&format!("the input has `kind: {other}`"))),
        None => Err(not_a_list("the input has no `kind`")),
    }
}

/// The values route: the whole list parsed into values, every item written back from its value.
fn parse_values(text: &str) -> Result<ResourceList, Diagnostic> {
    let value = yaml::parse_one(text).map_err(|e| malformed(text, &e.message, e.line))?;
    let Value::Object(mut map) = value else {
        return Err(not_a_list("the input is not a mapping"));
    };
    check_kind(map.get("kind").and_then(Value::as_str))?;
    let items = match map.remove("items") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(items_not_a_list()),
    };
    let function_config = match map.remove("functionConfig") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v),
    };
    Ok(ResourceList::of(items, function_config, Format::Yaml))
}

/// The deepest nesting of a JSON text (brackets and braces outside strings).
fn json_depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The JSON form, each item kept as its bytes.
fn parse_json(text: &str) -> Result<ResourceList, Diagnostic> {
    // The stream-wide limit holds for items that are not interpreted too.
    if json_depth(text) > yaml::MAX_DEPTH {
        return Err(Diagnostic::new(&KRM_MALFORMED_INPUT, format!("the input is not valid JSON: {}", yaml::too_deep_message())));
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Json<'a> {
        #[serde(default)]
        kind: Option<String>,
        #[serde(default, borrow)]
        items: Option<&'a RawValue>,
        #[serde(default, borrow)]
        function_config: Option<&'a RawValue>,
    }
    let bad = |e: serde_json::Error| {
        // serde_json ends its message with the location; the line is said once, before it.
        let text = e.to_string();
        let message = match text.rsplit_once(" at line ") {
            Some((m, _)) if e.line() > 0 => format!("the input is not valid JSON (line {}): {}", e.line(), crate::words::serde_message(m)),
            _ => format!("the input is not valid JSON: {}", crate::words::serde_message(&text)),
        };
        Diagnostic::new(&KRM_MALFORMED_INPUT, message).with_help("send a ResourceList as YAML or JSON on standard input")
    };
    let list: Json = serde_json::from_str(text).map_err(|e| {
        if serde_json::from_str::<Value>(text).is_ok_and(|v| !v.is_object()) {
            not_a_list("the input is not a mapping")
        } else {
            bad(e)
        }
    })?;
    check_kind(list.kind.as_deref())?;
    let raw_items: Vec<&RawValue> = match list.items.map(RawValue::get) {
        None | Some("null") => Vec::new(),
        Some(t) => serde_json::from_str(t).map_err(|_| items_not_a_list())?,
    };
    // Only what identifies an item is read; the rest of its bytes is not interpreted.
    #[derive(Deserialize, Default)]
    #[serde(rename_all = "camelCase")]
    struct Identity {
        #[serde(default)]
        api_version: Option<Value>,
        #[serde(default)]
        kind: Option<Value>,
        #[serde(default)]
        metadata: Option<IdentityMetadata>,
    }
    #[derive(Deserialize, Default)]
    struct IdentityMetadata {
        #[serde(default)]
        name: Option<Value>,
        #[serde(default)]
        namespace: Option<Value>,
        #[serde(default)]
        labels: Option<BTreeMap<String, Value>>,
        #[serde(default)]
        annotations: Option<BTreeMap<String, Value>>,
    }
    let string = |v: Option<Value>| v.and_then(|v| v.as_str().map(str::to_string));
    let strings = |m: Option<BTreeMap<String, Value>>| {
        m.unwrap_or_default().into_iter().filter_map(|(k, v)| Some((k, v.as_str()?.to_string()))).collect()
    };
    let item = |raw: &RawValue| -> Result<Item, Diagnostic> {
        // An item that is not an object identifies nothing.
        let id: Identity = serde_json::from_str(raw.get()).unwrap_or_default();
        let m = id.metadata.unwrap_or_default();
        let meta = Meta {
            api_version: string(id.api_version),
            kind: string(id.kind),
            name: string(m.name),
            namespace: string(m.namespace),
            labels: strings(m.labels),
            annotations: strings(m.annotations),
        };
        Ok(Item::raw(Raw::Json(raw.to_owned()), meta))
    };
    let items = raw_items.into_iter().map(item).collect::<Result<Vec<_>, _>>()?;
    let function_config = match list.function_config {
        Some(raw) if raw.get() != "null" => Some(item(raw)?),
        _ => None,
    };
    Ok(ResourceList { items, function_config, format: Format::Json, lead: String::new() })
}

fn items_not_a_list() -> Diagnostic {
    Diagnostic::new(&KRM_MALFORMED_INPUT, "`items` is not a list").with_help("`items` holds the package's objects as a list")
}

fn not_a_list(what: &str) -> Diagnostic {
    Diagnostic::new(&KRM_NOT_A_RESOURCE_LIST, format!("{what}; expected `kind: ResourceList`"))
        .with_help("run jax-runtimes without arguments only as a KRM function (kpt, kustomize); use `jax-runtimes --help` for the CLI")
}

/// Serializes the output ResourceList in its format, ending in a newline: every item that came
/// with text as that text, the others from their values.
pub fn write(list: &ResourceList, diagnostics: &[Diagnostic]) -> Result<String, YamlError> {
    // The one output rule: sorted by file, line and column, the TrainJob-name infos as one.
    let sorted = crate::diag::sorted(&crate::validate::kubernetes::summarize_name_lengths(diagnostics));
    let results: Vec<KrmResult> = sorted.iter().map(KrmResult::from).collect();
    match list.format {
        Format::Yaml => write_yaml(list, &results),
        Format::Json => write_json(list, &results),
    }
}

fn write_yaml(list: &ResourceList, results: &[KrmResult]) -> Result<String, YamlError> {
    let mut out = format!("apiVersion: {API_VERSION}\nkind: {KIND}\n");
    if list.items.is_empty() && list.lead.is_empty() {
        out.push_str("items: []\n");
    } else {
        out.push_str("items:\n");
        out.push_str(&list.lead);
        for item in &list.items {
            match &item.raw {
                Raw::YamlItem(text) => push_line(&mut out, text),
                _ => out.push_str(&yaml::to_string(&[item.value().map_err(Clone::clone)?])?),
            }
        }
    }
    if let Some(fc) = &list.function_config {
        match &fc.raw {
            Raw::YamlEntry(text) => push_line(&mut out, text),
            _ => {
                #[derive(Serialize)]
                #[serde(rename_all = "camelCase")]
                struct Entry<'a> {
                    function_config: &'a Value,
                }
                out.push_str(&yaml::to_string(&Entry { function_config: fc.value().map_err(Clone::clone)? })?);
            }
        }
    }
    if !results.is_empty() {
        #[derive(Serialize)]
        struct Results<'a> {
            results: &'a [KrmResult],
        }
        out.push_str(&yaml::to_string(&Results { results })?);
    }
    Ok(out)
}

/// Appends `text`, ending it with a line break if it has none.
fn push_line(out: &mut String, text: &str) {
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
}

fn write_json(list: &ResourceList, results: &[KrmResult]) -> Result<String, YamlError> {
    #[derive(Serialize)]
    #[serde(untagged)]
    enum JsonItem<'a> {
        Raw(&'a RawValue),
        Value(&'a Value),
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Out<'a> {
        api_version: &'static str,
        kind: &'static str,
        items: Vec<JsonItem<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        function_config: Option<JsonItem<'a>>,
        #[serde(skip_serializing_if = "<[KrmResult]>::is_empty")]
        results: &'a [KrmResult],
    }
    fn json(item: &Item) -> Result<JsonItem<'_>, YamlError> {
        Ok(match &item.raw {
            Raw::Json(r) => JsonItem::Raw(r),
            _ => JsonItem::Value(item.value().map_err(Clone::clone)?),
        })
    }
    let out = Out {
        api_version: API_VERSION,
        kind: KIND,
        items: list.items.iter().map(json).collect::<Result<_, _>>()?,
        function_config: list.function_config.as_ref().map(json).transpose()?,
        results,
    };
    serde_json::to_string_pretty(&out).map(|s| s + "\n").map_err(|e| YamlError::new(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_input_says_its_line_once_in_words() {
        for (text, line) in [
            ("a: [\n", "(line 1)"),
            ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: [\n", "(line 4)"),
            ("{\"kind\": \"ResourceList\", \"items\": [\n", "(line 2)"),
            ("{\"kind\": 3, \"items\": []}", "(line 1)"),
        ] {
            let m = parse(text).unwrap_err().message;
            assert!(m.contains(line), "{text:?}: {m}");
            for leak in ["at char", "column", "at line", "expected a string at", "i32", "u64"] {
                assert!(!m.contains(leak), "{text:?}: {m}");
            }
        }
    }

    #[test]
    fn input_that_is_not_a_resource_list_is_refused() {
        for bad in [
            "apiVersion: v1\nkind: ConfigMap\n",
            "[1, 2]",
            "items: [\n",
            "{\"kind\": \"ResourceList\", \"items\": 3}",
            "{\"kind\": \"Pod\"}",
            "[1]",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let list = parse("apiVersion: v1\nkind: List\n").unwrap();
        assert!(list.items.is_empty() && list.format == Format::Yaml);
    }

    #[test]
    fn items_come_back_as_the_text_they_came_as() {
        let text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c} # flow\n  data:\n    mode: 0755\n    flag: on\n    n: 1e3\n    when: 2001-12-14\n    a: &x {k: v}\n    b: *x\n    lit: |\n      text\n- # commented\n  kind: Thing\n  metadata:\n    name: t\nfunctionConfig:\n  kind: ConfigMap\n  metadata:\n    name: function-input\n";
        let list = parse(text).unwrap();
        assert_eq!(list.items.len(), 2);
        assert_eq!(list.items[0].meta.name.as_deref(), Some("c"));
        assert_eq!(write(&list, &[]).unwrap(), text, "no finding: the output is the input");
        // The value is there when asked for, with YAML 1.1 octal as kubectl reads it.
        assert_eq!(list.items[0].value().unwrap()["data"]["mode"], serde_json::json!(493));
    }

    #[test]
    fn json_items_keep_their_bytes() {
        let text = r#"{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[{"kind":"X","metadata":{"name":"a"},"n":1e3,"big":100000000000000000000000}]}"#;
        let list = parse(text).unwrap();
        assert_eq!(list.format, Format::Json);
        let out = write(&list, &[]).unwrap();
        assert!(out.contains(r#"{"kind":"X","metadata":{"name":"a"},"n":1e3,"big":100000000000000000000000}"#), "{out}");
    }

    #[test]
    fn json_nesting_is_bounded_even_in_items_that_are_not_read() {
        let deep = format!(r#"{{"kind": "ResourceList", "items": [{{"kind": "X", "a": {}1{}}}]}}"#, "[".repeat(200), "]".repeat(200));
        assert!(parse(&deep).unwrap_err().message.contains("nested deeper"));
        assert_eq!(json_depth(r#"{"a": "[[[[", "b": ["\"{"]}"#), 2);
    }

    #[test]
    fn flow_style_lists_take_the_values_route() {
        let list = parse("apiVersion: v1\nkind: ResourceList\nitems: [{kind: X, metadata: {name: a}}]\n").unwrap();
        assert_eq!(list.items[0].meta.name.as_deref(), Some("a"));
        assert!(list.items[0].text().is_none());
        let out = write(&list, &[]).unwrap();
        assert!(out.contains("- kind: X\n"), "{out}");
    }
}
