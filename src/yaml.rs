//! YAML in and out: one place that fixes how the project reads (serde-saphyr with explicit
//! budgets, YAML 1.1 scalars as kubectl reads them) and writes (YAML 1.1 look-alikes quoted,
//! long strings kept on one line), plus a locator that maps a field path back to its line.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use serde_saphyr::budget::Budget;
use serde_saphyr::granit_parser::{Event, Parser};
use serde_saphyr::{DuplicateKeyPolicy, Options, SerializerOptions};

/// Inputs larger than this are refused before parsing.
pub const MAX_INPUT_BYTES: usize = 256 * 1024 * 1024;

/// Parse options. Budgets bound what hostile input can cost (alias bombs, deep nesting) while
/// letting real packages through: a ResourceList of 100,000 objects is about 5 million nodes.
pub fn read_options() -> Options {
    let mut budget = Budget::default();
    budget.max_documents = 1_000_000;
    budget.max_nodes = 50_000_000;
    budget.max_events = 100_000_000;
    budget.max_total_scalar_bytes = MAX_INPUT_BYTES;
    budget.max_reader_input_bytes = Some(MAX_INPUT_BYTES);
    budget.max_depth = 128;
    budget.max_aliases = 10_000;
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

/// Parses every document of a YAML (or JSON, a subset) stream into untyped values.
/// Empty documents (a bare `---`) are dropped.
///
/// A large multi-document stream is cut at its document markers and the pieces are parsed on
/// every core; if any piece does not parse, the whole stream is parsed again in one go, so
/// errors (and their line numbers) are exactly those of a single parse.
pub fn parse_stream(text: &str) -> Result<Vec<Value>, String> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(format!("input is {} bytes; the limit is {MAX_INPUT_BYTES}", text.len()));
    }
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(text.len() / PARALLEL_MIN_BYTES);
    let pieces = split_documents(text, threads);
    if pieces.len() > 1 {
        let parsed: Vec<Result<Vec<Value>, String>> = std::thread::scope(|s| {
            let handles: Vec<_> = pieces.iter().map(|piece| s.spawn(move || parse_whole(piece))).collect();
            handles.into_iter().map(|h| h.join().expect("a YAML parsing thread panicked")).collect()
        });
        if parsed.iter().all(Result::is_ok) {
            return Ok(parsed.into_iter().flat_map(Result::unwrap).collect());
        }
    }
    parse_whole(text)
}

/// Below this many bytes per thread, one thread parses faster than starting more.
const PARALLEL_MIN_BYTES: usize = 128 * 1024;

fn parse_whole(text: &str) -> Result<Vec<Value>, String> {
    let docs: Vec<Value> = serde_saphyr::from_multiple_with_options(text, read_options()).map_err(|e| clean_error(&e.to_string()))?;
    Ok(docs.into_iter().filter(|d| !d.is_null()).collect())
}

/// Cuts a stream into at most `n` pieces of about equal size, each starting at a document
/// start marker (`---` alone or followed by a space at the start of a line). YAML forbids such
/// a line inside a document (it ends any scalar, even a block scalar), and anchors do not
/// reach across documents, so the pieces hold the same documents as the whole. A stream with
/// directives (`%YAML`, `%TAG`: they belong to the next document) is not cut.
fn split_documents(text: &str, n: usize) -> Vec<&str> {
    if n <= 1 || text.starts_with('%') || text.contains("\n%") {
        return vec![text];
    }
    let is_marker = |at: usize| {
        let rest = &text.as_bytes()[at..];
        rest.starts_with(b"---") && matches!(rest.get(3), None | Some(b'\n' | b'\r' | b' ' | b'\t'))
    };
    let mut pieces = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        let target = text.len() * k / n;
        if target <= start {
            continue;
        }
        // The first marker line at or after the target.
        let mut at = match text[target..].find('\n') {
            Some(i) => target + i + 1,
            None => break,
        };
        loop {
            if at >= text.len() {
                break;
            }
            if is_marker(at) {
                pieces.push(&text[start..at]);
                start = at;
                break;
            }
            at = match text[at..].find('\n') {
                Some(i) => at + i + 1,
                None => text.len(),
            };
        }
    }
    pieces.push(&text[start..]);
    pieces
}

/// Parses one document.
pub fn parse_one(text: &str) -> Result<Value, String> {
    let mut docs = parse_stream(text)?;
    match docs.len() {
        1 => Ok(docs.remove(0)),
        0 => Err("the input holds no YAML document".into()),
        n => Err(format!("expected one YAML document, found {n}")),
    }
}

fn clean_error(message: &str) -> String {
    message.trim().to_string()
}

/// Serializes one value as a YAML document (no leading `---`), ending in a newline.
pub fn to_string<T: Serialize>(value: &T) -> Result<String, String> {
    let mut s = serde_saphyr::to_string_with_options(value, write_options()).map_err(|e| e.to_string())?;
    if !s.ends_with('\n') {
        s.push('\n');
    }
    Ok(s)
}

/// Serializes values as a multi-document stream separated by `---` lines.
pub fn to_stream<T: Serialize>(values: &[T]) -> Result<String, String> {
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

/// Where each node of each document starts: field path -> 1-based line.
/// Paths are dotted with `[i]` for list items (`spec.env[0].name`); the document root is `""`.
#[derive(Debug, Default, Clone)]
pub struct LineIndex {
    docs: Vec<HashMap<String, usize>>,
}

impl LineIndex {
    /// Builds the index from the same text that was parsed. Never fails: on a syntax error it
    /// keeps what it saw so far.
    pub fn new(text: &str) -> Self {
        enum Frame {
            Map { path: String, key: Option<String> },
            Seq { path: String, next: usize },
        }
        fn child(frames: &mut [Frame]) -> String {
            match frames.last_mut() {
                None => String::new(),
                Some(Frame::Map { path, key }) => {
                    let k = key.take().unwrap_or_default();
                    if path.is_empty() {
                        k
                    } else {
                        format!("{path}.{k}")
                    }
                }
                Some(Frame::Seq { path, next }) => {
                    let p = format!("{path}[{next}]");
                    *next += 1;
                    p
                }
            }
        }
        let mut docs: Vec<HashMap<String, usize>> = Vec::new();
        let mut current: HashMap<String, usize> = HashMap::new();
        let mut frames: Vec<Frame> = Vec::new();
        let mut in_doc = false;
        for item in Parser::new_from_str(text) {
            let Ok((event, span)) = item else { break };
            let line = span.start.line();
            match event {
                Event::DocumentStart(..) => {
                    in_doc = true;
                    current = HashMap::new();
                    frames.clear();
                }
                Event::DocumentEnd => {
                    if in_doc {
                        docs.push(std::mem::take(&mut current));
                    }
                    in_doc = false;
                }
                Event::Scalar(value, ..) => {
                    let awaiting_key = matches!(frames.last(), Some(Frame::Map { key: None, .. }));
                    if awaiting_key {
                        if let Some(Frame::Map { key, path }) = frames.last_mut() {
                            let k = value.to_string();
                            let full = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                            current.entry(full).or_insert(line);
                            *key = Some(k);
                        }
                    } else {
                        let p = child(&mut frames);
                        current.entry(p).or_insert(line);
                    }
                }
                Event::Alias(..) => {
                    let p = child(&mut frames);
                    current.entry(p).or_insert(line);
                }
                Event::MappingStart(..) => {
                    let p = child(&mut frames);
                    current.entry(p.clone()).or_insert(line);
                    frames.push(Frame::Map { path: p, key: None });
                }
                Event::SequenceStart(..) => {
                    let p = child(&mut frames);
                    current.entry(p.clone()).or_insert(line);
                    frames.push(Frame::Seq { path: p, next: 0 });
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    frames.pop();
                }
                _ => {}
            }
        }
        if in_doc {
            docs.push(current);
        }
        // Empty documents are dropped by `parse_stream`; drop them here too so indexes agree.
        docs.retain(|d| !d.is_empty());
        LineIndex { docs }
    }

    /// The line of `path` in document `doc`, or of its nearest ancestor that exists
    /// (a missing field is reported where its parent is).
    pub fn line(&self, doc: usize, path: &str) -> Option<usize> {
        let map = self.docs.get(doc)?;
        let mut p = path.to_string();
        loop {
            if let Some(l) = map.get(&p) {
                return Some(*l);
            }
            if p.is_empty() {
                return None;
            }
            p = parent_path(&p).to_string();
        }
    }
}

/// `a.b[2].c` -> `a.b[2]` -> `a.b` -> `a` -> ``.
pub fn parent_path(path: &str) -> &str {
    let cut = path.rfind(['.', '[']).unwrap_or(0);
    &path[..cut]
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

    /// Documents whose text looks like a marker where YAML says it is not one, or that end at
    /// a marker in ways a naive cut would get wrong.
    const TRICKY: &[&str] = &[
        "a: |\n  --- inside a block scalar, indented\n  ---\nb: 1\n",
        "a: >-\n  folded\n\n  more\n",
        "a: \"quoted ---\"\nb: '--- too'\n",
        "a: plain\n  continued\n",
        "---foo: not a marker\n",
        "a: [1,\n  2]\n",
        "anchor: &x {k: v}\nalias: *x\n",
        "a: \"x\\\n  y\"\n",
        "crlf: 1\r\n",
        "...\n",
        "# only a comment\n",
        "{\"json\": [1, 2.5, null, true]}\n",
    ];

    #[test]
    fn a_stream_cut_at_its_markers_parses_to_the_same_documents() {
        let mut text = String::new();
        for i in 0..400 {
            text.push_str(if i % 3 == 0 {
                "---\n"
            } else if i % 3 == 1 {
                "--- \n"
            } else {
                "---\r\n"
            });
            text.push_str(TRICKY[i % TRICKY.len()]);
        }
        let whole = parse_whole(&text).unwrap();
        for n in 2..8 {
            let pieces = split_documents(&text, n);
            assert!(pieces.len() > 1, "{n} pieces asked, none cut");
            assert_eq!(pieces.concat(), text, "the pieces must add up to the stream");
            let parsed: Vec<Value> = pieces.iter().flat_map(|p| parse_whole(p).unwrap()).collect();
            assert_eq!(parsed, whole, "cut in {n}");
        }
    }

    #[test]
    fn streams_with_directives_or_no_markers_are_not_cut() {
        let directives = "%YAML 1.2\n---\na: 1\n".repeat(100);
        assert_eq!(split_documents(&directives, 4).len(), 1);
        let one = format!("a:\n{}", "  - x\n".repeat(10_000));
        assert_eq!(split_documents(&one, 4).len(), 1);
    }

    #[test]
    fn a_piece_that_does_not_parse_falls_back_to_the_error_of_the_whole_stream() {
        // A flow mapping left open across a marker: every cut piece fails differently from
        // the whole; the error must be the whole stream's (same message, same line).
        let mut text = "---\na: 1\n".repeat(PARALLEL_MIN_BYTES / 4);
        text.push_str("---\nb: {open\n");
        text.push_str(&"---\nc: 2\n".repeat(PARALLEL_MIN_BYTES / 4));
        assert!(split_documents(&text, 2).len() > 1);
        assert_eq!(parse_stream(&text).unwrap_err(), parse_whole(&text).unwrap_err());
    }

    #[test]
    fn duplicate_keys_are_refused() {
        let err = parse_stream("a: 1\na: 2\n").unwrap_err();
        assert!(err.contains("duplicate"), "{err}");
    }

    #[test]
    fn line_index_finds_nested_paths() {
        let text = "a: 1\nspec:\n  env:\n  - name: X\n    value: y\n---\nkind: B\nlist: [1, 2]\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line(0, "spec.env[0].value"), Some(5));
        assert_eq!(idx.line(0, "spec.env[0].missing"), Some(4));
        assert_eq!(idx.line(1, "kind"), Some(7));
        assert_eq!(idx.line(1, "list[1]"), Some(8));
    }
}
