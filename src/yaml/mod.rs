//! YAML in and out: one place that fixes how the project reads (serde-saphyr with explicit
//! budgets, YAML 1.1 scalars as kubectl reads them) and writes (YAML 1.1 look-alikes quoted,
//! long strings kept on one line). [`lines`] maps a field path back to its line; [`split`] cuts
//! large streams at document markers so that they parse on every core.

use serde::Serialize;
use serde_json::Value;
use serde_saphyr::budget::Budget;
use serde_saphyr::{DuplicateKeyPolicy, MessageFormatter, Options, SerializerOptions};

mod json;
pub mod lines;
mod long;
mod prescan;
pub mod split;

pub use json::plain as plain_json;
pub use lines::{parent_path, LazyIndex, LineIndex, Mark, Position};
pub use long::{Long, MAX_SCALAR_BYTES};

/// Stack of the threads that parse and check: deep (but allowed) nesting recurses in the reader
/// and in serde, and the default 2 MiB of a spawned thread is less than the main thread has.
pub const THREAD_STACK_BYTES: usize = 64 * 1024 * 1024;

/// Runs `f` on a scoped thread with [`THREAD_STACK_BYTES`] of stack; `None` if it could not be
/// started.
pub fn spawn_scoped<'scope, 'env, T: Send + 'scope>(
    s: &'scope std::thread::Scope<'scope, 'env>,
    f: impl FnOnce() -> T + Send + 'scope,
) -> Option<std::thread::ScopedJoinHandle<'scope, T>> {
    std::thread::Builder::new().stack_size(THREAD_STACK_BYTES).spawn_scoped(s, f).ok()
}

/// Inputs larger than this are refused before parsing.
pub const MAX_INPUT_BYTES: usize = 256 * 1024 * 1024;
/// Deepest nesting accepted (mappings and sequences).
pub const MAX_DEPTH: usize = 128;
/// Most aliases one stream may use.
pub const MAX_ALIASES: usize = 10_000;

/// A YAML (or JSON) text that does not parse, or a value that does not serialize.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct YamlError {
    /// What is wrong, in the user's terms, without the location.
    pub message: String,
    /// 1-based line and column in the text that was parsed, where known.
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// True when the text is refused for a string over [`MAX_SCALAR_BYTES`], not for its syntax.
    pub too_long: bool,
}

impl YamlError {
    pub fn new(message: impl Into<String>) -> YamlError {
        YamlError { message: message.into(), line: None, column: None, too_long: false }
    }

    fn of(e: &serde_saphyr::Error) -> YamlError {
        // The location wrappers carry the error the message is about.
        let mut inner = e;
        while let serde_saphyr::Error::AliasError { error, .. } | serde_saphyr::Error::WithSnippet { error, .. } = inner {
            inner = error;
        }
        // Control characters (from the user's text) would break the report's layout.
        let message: String = Messages
            .format_message(inner)
            .chars()
            .flat_map(|c| if c.is_control() { c.escape_debug().collect::<Vec<_>>() } else { vec![c] })
            .collect();
        let location = e.location().filter(|l| l.line() > 0);
        YamlError { message, line: location.map(|l| l.line() as usize), column: location.map(|l| l.column() as usize), too_long: false }
    }

    /// A string over [`MAX_SCALAR_BYTES`] that [`prescan`] found before parsing, at `offset`
    /// (its opening quote or block indicator).
    fn too_long_at(text: &str, offset: usize, len: usize) -> YamlError {
        let before = &text.as_bytes()[..offset.min(text.len())];
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = text.get(line_start..offset).map(|s| s.chars().count() + 1);
        YamlError {
            message: format!(
                "a string of at least {len} bytes starts here; the reader takes at most {MAX_SCALAR_BYTES} bytes (3 MiB, the largest request the Kubernetes API server accepts), so no object can hold it"
            ),
            line: Some(before.iter().filter(|&&b| b == b'\n').count() + 1),
            column,
            too_long: true,
        }
    }

    /// A string over [`MAX_SCALAR_BYTES`] in `text`, located: by its offset when the text holds
    /// it as it is, else by its path in the line index.
    fn too_long(text: &str, long: &Long) -> YamlError {
        let position = match long.offset {
            Some(offset) => {
                // The opening quote, where a YAML string's position is.
                let offset = if offset > 0 && text.as_bytes().get(offset - 1) == Some(&b'"') { offset - 1 } else { offset };
                let before = &text.as_bytes()[..offset.min(text.len())];
                let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                let column = text.get(line_start..offset).map(|s| s.chars().count() + 1);
                Some(Position { line: before.iter().filter(|&&b| b == b'\n').count() + 1, column: column.map(|c| (c, 1)) })
            }
            None => {
                let index = LineIndex::new(text);
                if long.key {
                    index.key_position(long.doc, &long.path)
                } else {
                    index.position(long.doc, &long.path)
                }
            }
        };
        let what = match (long.key, long.path.as_str()) {
            (true, "") => "a key at the top".to_string(),
            (true, path) => format!("a key under `{path}`"),
            (false, "") => "the document".to_string(),
            (false, path) => format!("`{path}`"),
        };
        YamlError {
            message: format!(
                "{what} is a string of {} bytes; the reader takes at most {MAX_SCALAR_BYTES} bytes (3 MiB, the largest request the Kubernetes API server accepts), so no object can hold it",
                long.len
            ),
            line: position.map(|p| p.line),
            column: position.and_then(|p| p.column).map(|(c, _)| c),
            too_long: true,
        }
    }
}

/// The first string (or key) over [`MAX_SCALAR_BYTES`] in parsed documents.
fn long_string(docs: &[Value]) -> Option<Long> {
    fn walk(v: &Value, path: &mut String, doc: usize) -> Option<Long> {
        let long = |path: &str, key: bool, len: usize| Some(Long { doc, path: path.to_string(), key, len, offset: None });
        match v {
            Value::String(s) if s.len() > MAX_SCALAR_BYTES => long(path, false, s.len()),
            Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| {
                let base = path.len();
                path.push_str(&format!("[{i}]"));
                let found = walk(item, path, doc);
                path.truncate(base);
                found
            }),
            Value::Object(map) => map.iter().find_map(|(k, item)| {
                if k.len() > MAX_SCALAR_BYTES {
                    return long(path, true, k.len());
                }
                let base = path.len();
                if base > 0 {
                    path.push('.');
                }
                path.push_str(k);
                let found = walk(item, path, doc);
                path.truncate(base);
                found
            }),
            _ => None,
        }
    }
    docs.iter().enumerate().find_map(|(i, d)| walk(d, &mut String::new(), i))
}

/// The documents, or the error for the first string in them over [`MAX_SCALAR_BYTES`] (only a
/// text longer than that can hold one).
fn refuse_long(text: &str, docs: Vec<Value>) -> Result<Vec<Value>, YamlError> {
    if text.len() <= MAX_SCALAR_BYTES {
        return Ok(docs);
    }
    match long_string(&docs) {
        None => Ok(docs),
        Some(long) => {
            drop(docs);
            Err(YamlError::too_long(text, &long))
        }
    }
}

/// serde-saphyr's user-facing messages, with its advice to library users replaced.
struct Messages;

impl MessageFormatter for Messages {
    fn format_message<'a>(&self, err: &'a serde_saphyr::Error) -> std::borrow::Cow<'a, str> {
        match err {
            serde_saphyr::Error::DuplicateMappingKey { key: Some(k), .. } => {
                format!("duplicate key `{k}`: a key may appear once in a mapping").into()
            }
            serde_saphyr::Error::DuplicateMappingKey { key: None, .. } => "duplicate key: a key may appear once in a mapping".into(),
            serde_saphyr::Error::Budget { breach, .. } => {
                // The breach's name says which budget (Depth, Aliases, Nodes, ...); its numbers
                // are the parser's counters, not the user's.
                let which = format!("{breach:?}");
                let which = which.split([' ', '{', '(']).next().unwrap_or_default().to_string();
                if which == "Depth" {
                    return too_deep_message().into();
                }
                format!("the YAML is too large or too complex to read: it is over the reader's budget for {}", budget_words(&which)).into()
            }
            serde_saphyr::Error::UnknownAnchor { .. } => {
                "an alias (`*name`) refers to an anchor (`&name`) that is not defined before it".into()
            }
            serde_saphyr::Error::Unexpected { expected: "string scalar", .. } => {
                "a mapping key must be a plain string here (a list or a mapping is not a key)".into()
            }
            other => serde_saphyr::UserMessageFormatter.format_message(other),
        }
    }
}

/// What a text nested deeper than [`MAX_DEPTH`] is told, wherever it is read.
pub fn too_deep_message() -> String {
    format!("the input is nested deeper than {MAX_DEPTH} levels, the most the reader accepts")
}

/// A budget's name in words: `RecordedAnchorEvents` -> `recorded anchor events`.
fn budget_words(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.extend(c.to_lowercase());
    }
    match out.as_str() {
        "aliases" => format!("aliases (at most {MAX_ALIASES})"),
        _ => out,
    }
}

/// Parse options. Budgets bound what hostile input can cost (alias bombs, deep nesting) while
/// letting real packages through: a ResourceList of 100,000 objects is about 5 million nodes.
pub fn read_options() -> Options {
    let mut budget = Budget::default();
    budget.max_documents = 1_000_000;
    budget.max_nodes = 50_000_000;
    budget.max_events = 100_000_000;
    budget.max_total_scalar_bytes = MAX_INPUT_BYTES;
    budget.max_reader_input_bytes = Some(MAX_INPUT_BYTES);
    budget.max_depth = MAX_DEPTH;
    budget.max_aliases = MAX_ALIASES;
    let mut options = Options::default();
    options.budget = Some(budget);
    // kubectl reads YAML 1.1 (go-yaml v2): `0777` is octal there.
    options.legacy_octal_numbers = true;
    options.duplicate_keys = DuplicateKeyPolicy::Error;
    options
}

/// Emitter options: 2-space indent, compact lists, YAML 1.1 look-alikes (`on`, `yes`, `0777`)
/// quoted, single-line strings never folded (a folded string reads back the same, but diffs
/// worse), multi-line strings as `|` blocks.
pub fn write_options() -> SerializerOptions {
    let mut options = SerializerOptions::default();
    options.folded_wrap_chars = usize::MAX;
    options.min_fold_chars = usize::MAX;
    options
}

/// Parses every document of a YAML (or JSON, a subset) stream into untyped values, in stream
/// order. Empty documents (a bare `---`, or `--- null`) are left out, here and in [`LineIndex`],
/// so that document indexes agree between the two.
///
/// A large multi-document stream is cut at its document markers ([`split::documents`]) and the
/// pieces are parsed on every core; if any piece does not parse, the whole stream is parsed again
/// in one go, so errors (and their line numbers) are exactly those of a single parse.
pub fn parse_stream(text: &str) -> Result<Vec<Value>, YamlError> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(text.len() / split::PARALLEL_MIN_BYTES);
    parse_stream_in(text, threads)
}

/// [`parse_stream`] cut in at most `threads` pieces (1: no cut).
pub(crate) fn parse_stream_in(text: &str, threads: usize) -> Result<Vec<Value>, YamlError> {
    if let Some(value) = before_parse(text)? {
        return Ok(vec![value]);
    }
    let pieces = split::documents(text, threads);
    if pieces.len() > 1 {
        let parsed = parse_pieces(&pieces);
        if parsed.iter().all(Result::is_ok) {
            return refuse_long(text, parsed.into_iter().flat_map(|p| p.unwrap_or_default()).collect());
        }
    }
    refuse_long(text, parse_whole(text)?)
}

/// Pieces of about this many bytes are parsed at a time when a stream is read a batch at a time
/// ([`Pieces`]): what is held of the parsed trees while a reader frees them batch by batch.
pub const PIECE_BYTES: usize = 1024 * 1024;

/// A stream parsed a batch of pieces at a time, each batch on every core ([`split::documents`]
/// cuts it): the same documents as [`parse_stream`] in the same order, for readers that free each
/// batch's trees before asking for the next. On any error, the error of parsing the whole text
/// (exactly what [`parse_stream`] reports); the batches given before it are to be thrown away.
pub struct Pieces {
    /// A text that is one JSON value, already parsed.
    json: Option<Value>,
    ranges: Vec<(usize, usize)>,
    next: usize,
    threads: usize,
    /// Documents given so far (to resume after a piece that parses only as part of the whole).
    given: usize,
}

impl Pieces {
    pub fn new(text: &str) -> Result<Pieces, YamlError> {
        let threads = std::thread::available_parallelism().map_or(1, usize::from).min(text.len() / split::PARALLEL_MIN_BYTES);
        Pieces::sized(text, PIECE_BYTES, threads)
    }

    /// Pieces of about `piece_bytes`, `threads` parsed at a time (at least as many pieces).
    pub(crate) fn sized(text: &str, piece_bytes: usize, threads: usize) -> Result<Pieces, YamlError> {
        let threads = threads.max(1);
        if let Some(value) = before_parse(text)? {
            return Ok(Pieces { json: Some(value), ranges: Vec::new(), next: 0, threads, given: 0 });
        }
        let n = (text.len() / piece_bytes.max(1)).max(threads);
        let base = text.as_ptr() as usize;
        let ranges = split::documents(text, n)
            .into_iter()
            .map(|p| {
                let start = p.as_ptr() as usize - base;
                (start, start + p.len())
            })
            .collect();
        Ok(Pieces { json: None, ranges, next: 0, threads, given: 0 })
    }

    /// The documents of the next batch of pieces of `text` (the text `new` was given); `None`
    /// at the end.
    pub fn next_batch(&mut self, text: &str) -> Option<Result<Vec<Value>, YamlError>> {
        if let Some(v) = self.json.take() {
            self.next = self.ranges.len();
            return Some(Ok(vec![v]));
        }
        if self.next >= self.ranges.len() {
            return None;
        }
        let end = (self.next + self.threads).min(self.ranges.len());
        let batch: Vec<&str> = self.ranges[self.next..end].iter().map(|&(a, b)| &text[a..b]).collect();
        self.next = end;
        let parsed = if batch.len() == 1 { vec![parse_whole(batch[0])] } else { parse_pieces(&batch) };
        if parsed.iter().all(Result::is_ok) {
            let values: Vec<Value> = parsed.into_iter().flat_map(|p| p.unwrap_or_default()).collect();
            let long = if text.len() > MAX_SCALAR_BYTES { long_string(&values) } else { None };
            let Some(mut long) = long else {
                self.given += values.len();
                return Some(Ok(values));
            };
            // A string over the limit: refused as `parse_stream` refuses it, unless a later
            // piece does not parse (then the text's error is its syntax, as there).
            drop(values);
            long.doc += self.given;
            let rest = self.ranges[self.next..].iter().all(|&(a, b)| parse_whole(&text[a..b]).is_ok());
            self.next = self.ranges.len();
            return Some(if rest {
                Err(YamlError::too_long(text, &long))
            } else {
                parse_whole(text).and_then(|all| refuse_long(text, all))
            });
        }
        // A piece that does not parse alone: the whole text says what is wrong (or, if it
        // parses whole, gives the documents not given yet).
        self.next = self.ranges.len();
        if self.ranges.len() == 1 && batch.len() == 1 {
            return parsed.into_iter().next();
        }
        Some(parse_whole(text).and_then(|all| refuse_long(text, all)).map(|mut all| all.split_off(self.given.min(all.len()))))
    }
}

/// What every parse of a whole text does first: refuse a text over the input limit; read a text
/// that is one JSON value with the JSON fast path (`Some`: that value; a string over
/// [`MAX_SCALAR_BYTES`] in it refused); refuse a string over the limit that the scan finds
/// ([`refuse_long_scalar`]). `None`: parse the text as YAML.
fn before_parse(text: &str) -> Result<Option<Value>, YamlError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(YamlError::new(format!("the input is {} bytes; the limit is {MAX_INPUT_BYTES}", text.len())));
    }
    match json::parse(text) {
        json::Fast::Value(value) => return Ok(Some(value)),
        json::Fast::TooLong => {
            let long = json::long_string(text).unwrap_or(Long { doc: 0, path: String::new(), key: false, len: 0, offset: None });
            return Err(YamlError::too_long(text, &long));
        }
        json::Fast::No => {}
    }
    refuse_long_scalar(text)?;
    Ok(None)
}

/// Each piece parsed on a thread of its own, the results in the pieces' order. A piece no thread
/// could be started for is an error: the caller then parses the whole text on its own thread.
fn parse_pieces(pieces: &[&str]) -> Vec<Result<Vec<Value>, YamlError>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = pieces.iter().map(|piece| spawn_scoped(s, move || parse_whole(piece))).collect();
        handles
            .into_iter()
            .map(|h| match h {
                Some(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                None => Err(YamlError::new("no thread")),
            })
            .collect()
    })
}

/// The error for a string over [`MAX_SCALAR_BYTES`] that a scan of `text` finds before any
/// parse ([`prescan`]: quoted strings on one line, block scalars): such a string is never built.
pub fn refuse_long_scalar(text: &str) -> Result<(), YamlError> {
    match prescan::long_scalar(text) {
        Some((offset, len)) => Err(YamlError::too_long_at(text, offset, len)),
        None => Ok(()),
    }
}

/// One parse of the whole text, on this thread.
pub(crate) fn parse_whole(text: &str) -> Result<Vec<Value>, YamlError> {
    let docs: Vec<Value> = serde_saphyr::from_multiple_with_options(text, read_options()).map_err(|e| YamlError::of(&e))?;
    Ok(docs.into_iter().filter(|d| !d.is_null()).collect())
}

/// Parses one document (empty documents do not count).
pub fn parse_one(text: &str) -> Result<Value, YamlError> {
    let mut docs = parse_stream(text)?;
    match docs.len() {
        1 => Ok(docs.remove(0)),
        0 => Err(YamlError::new("the input holds no YAML document")),
        n => Err(YamlError::new(format!("expected one YAML document, found {n}"))),
    }
}

/// Deserializes one value of `T` from YAML text with the project's options.
pub fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    serde_saphyr::from_str_with_options(text, read_options()).map_err(|e| YamlError::of(&e))
}

/// Serializes one value as a YAML document (no leading `---`), ending in a newline.
pub fn to_string<T: Serialize>(value: &T) -> Result<String, YamlError> {
    let mut s = serde_saphyr::to_string_with_options(value, write_options()).map_err(|e| YamlError::new(e.to_string()))?;
    if !s.ends_with('\n') {
        s.push('\n');
    }
    Ok(s)
}

/// Serializes values as a multi-document stream separated by `---` lines.
pub fn to_stream<T: Serialize>(values: &[T]) -> Result<String, YamlError> {
    let docs = values.iter().map(to_string).collect::<Result<Vec<_>, _>>()?;
    Ok(join_documents(docs.iter().map(String::as_str)))
}

/// Joins serialized documents (each ending in a newline, as [`to_string`] writes them) into
/// one stream, `---` between them.
pub fn join_documents<'a>(docs: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for (i, d) in docs.into_iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_11_lookalikes_stay_strings_on_the_way_out() {
        let v: Value = serde_json::json!({"a": "on", "b": "yes", "c": "n", "d": "0777", "e": "1:20",
            "f": "2001-12-14", "g": "1_000", "h": ".inf", "i": "~", "j": "", "k": "null", "l": "true"});
        let text = to_string(&v).unwrap();
        let back = parse_one(&text).unwrap();
        assert_eq!(back, v, "round trip changed a value:\n{text}");
    }

    #[test]
    fn long_strings_are_not_folded() {
        let long = "x ".repeat(100);
        let text = to_string(&serde_json::json!({ "s": long.trim() })).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
    }

    #[test]
    fn duplicate_keys_are_refused_in_plain_words_at_their_line() {
        let err = parse_stream("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!(err.message, "duplicate key `a`: a key may appear once in a mapping");
        assert_eq!(err.line, Some(3));
    }

    #[test]
    fn an_alias_bomb_is_over_budget_in_plain_words() {
        let mut s = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..10 {
            s.push_str(&format!("a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 9].join(", ")));
        }
        let err = parse_stream(&s).unwrap_err();
        assert!(
            err.message.starts_with("the YAML is too large or too complex to read: it is over the reader's budget for"),
            "{}",
            err.message
        );
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        // The reader recurses to the limit before it refuses: give it the stack the parsing
        // threads get (a test thread has 2 MiB).
        let err = std::thread::scope(|s| spawn_scoped(s, || parse_stream(&deep)).unwrap().join().unwrap()).unwrap_err();
        assert!(err.message.contains("nested deeper than 128 levels"), "{}", err.message);
    }

    #[test]
    fn parser_messages_read_in_the_users_terms() {
        let err = parse_stream("a: 1\nb: *nowhere\n").unwrap_err();
        assert_eq!(err.message, "an alias (`*name`) refers to an anchor (`&name`) that is not defined before it");
        assert_eq!(err.line, Some(2));
        let err = parse_stream("? [1, 2]\n: 3\n").unwrap_err();
        assert!(err.message.starts_with("a mapping key must be a plain string"), "{}", err.message);
        // No advice meant for programmers (serde-saphyr's `Options`, Rust types) reaches users.
        for text in ["a: 1\na: 2\n", "a: !!float x\n", "a: !!binary aGk=\n", "x: &x 3\nc:\n  <<: *x\n", "a: .nan\n", "a: !!map [1]\n"] {
            if let Err(e) = parse_stream(text) {
                for word in ["Options", "Policy", "Option<", "String", "serde", "budget breached"] {
                    assert!(!e.message.contains(word), "{text:?}: {}", e.message);
                }
            }
        }
    }

    #[test]
    fn syntax_errors_carry_line_and_column_apart_from_the_message() {
        let err = parse_stream("a: 1\nb: [1, 2\nc: 3\n").unwrap_err();
        assert!(err.line.is_some(), "{err:?}");
        assert!(!err.message.contains("line "), "the location is not repeated in the message: {}", err.message);
    }

    #[test]
    fn a_string_over_the_limit_is_refused_at_its_place_in_json_and_yaml_and_one_at_it_is_read() {
        let at = "x".repeat(MAX_SCALAR_BYTES);
        let over = "x".repeat(MAX_SCALAR_BYTES + 1);
        for text in [format!("{{\"a\": [1, \"{at}\"]}}"), format!("a:\n- 1\n- '{at}'\n")] {
            assert_eq!(parse_stream(&text).unwrap()[0]["a"][1].as_str().map(str::len), Some(MAX_SCALAR_BYTES));
        }
        let cases = [
            // The JSON fast path: by offset (the opening quote); with an escape, by path.
            (format!("{{\"a\": 1,\n \"b\": [1, \"{over}\"]}}"), "`b[1]` is a string of", 2, Some(11)),
            (format!("{{\"a\": 1,\n \"b\": [1, \"\\t{over}\"]}}"), "`b[1]` is a string of", 2, Some(11)),
            (format!("{{\"a\": {{\"{over}\": 1}}}}"), "a key under `a` is a string of", 1, Some(8)),
            // YAML: a quoted string on one line and a block scalar, found before parsing, where
            // they start (the quote, the indicator).
            (format!("x: 1\n---\na:\n  b: \"\\t{over}\"\n"), "a string of at least", 4, Some(6)),
            (format!("a: |\n  {over}\n"), "a string of at least", 1, Some(4)),
            // A plain one on one line too; one the scan does not count whole (a comma: it could
            // end the value in a flow collection), by path after parsing, in the right document.
            (format!("x: 1\n---\na:\n  b: {over}\n"), "a string of at least", 4, Some(6)),
            (format!("x: 1\n---\na:\n  b: a, {over}\n"), "`a.b` is a string of", 4, Some(6)),
        ];
        for (text, what, line, column) in cases {
            let err = parse_stream(&text).unwrap_err();
            assert!(err.too_long, "{what}: {err:?}");
            assert!(err.message.starts_with(what), "{}", err.message);
            assert!(err.message.contains("the reader takes at most 3145728 bytes (3 MiB"), "{}", err.message);
            assert_eq!((err.line, err.column), (Some(line), column), "{what}");
        }
        // Long texts of short strings are read as they were.
        let many = format!("{{\"a\": [{}]}}", vec!["\"short\""; MAX_SCALAR_BYTES / 4].join(","));
        assert_eq!(parse_stream(&many).unwrap()[0]["a"].as_array().map(Vec::len), Some(MAX_SCALAR_BYTES / 4));
        assert!(json::plain(&many) && !json::plain(&format!("{{\"a\": \"{over}\"}}")));
    }

    #[test]
    fn read_a_batch_at_a_time_a_string_over_the_limit_is_refused_as_by_one_parse() {
        let over = "x".repeat(MAX_SCALAR_BYTES + 1);
        let small = "---\na: 1\n".repeat(100_000);
        let batches = |text: &str| {
            let mut p = Pieces::sized(text, 64 * 1024, 2)?;
            let mut n = 0;
            while let Some(b) = p.next_batch(text) {
                n += b?.len();
            }
            Ok::<usize, YamlError>(n)
        };
        for text in [
            format!("{small}---\nb: {over}\n{small}"),
            // A syntax error after the long string: the syntax error, as one parse says.
            format!("{small}---\nb: {over}\n{small}---\nc: [open\n"),
            format!("b: {over}\n"),
        ] {
            let one = parse_stream(&text).unwrap_err();
            assert_eq!(batches(&text).unwrap_err(), one);
        }
        assert_eq!(batches(&small).unwrap(), 100_000);
    }

    #[test]
    fn empty_documents_are_left_out_of_values_and_lines_alike() {
        let text = "---\n---\na: 1\n--- null\n--- ~\n---\nb: 2\n--- ''\n";
        let docs = parse_stream(text).unwrap();
        assert_eq!(docs, vec![serde_json::json!({"a": 1}), serde_json::json!({"b": 2}), serde_json::json!("")]);
        let index = LineIndex::new(text);
        assert_eq!(index.line(0, "a"), Some(3));
        assert_eq!(index.line(1, "b"), Some(7));
        assert_eq!(index.line(2, ""), Some(8));
    }
}
