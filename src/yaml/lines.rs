//! Where each node of each document starts: a field path (`spec.env[0].name`) -> its 1-based
//! line, and the columns of its key and value, so that findings made on values can point at
//! (and underline) the user's text.

use std::collections::HashMap;

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, Span};

/// Field path -> where it is, per document. Paths are dotted with `[i]` for list items
/// (`spec.env[0].name`); the document root is `""`. Documents are indexed as
/// [`crate::yaml::parse_stream`] returns them: in stream order, empty ones (`---` alone, `~`,
/// `null`) left out.
#[derive(Debug, Default, Clone)]
pub struct LineIndex {
    docs: Vec<HashMap<String, Node>>,
}

/// Characters `start..end` (0-based, counted in characters) of one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cols {
    line: usize,
    start: usize,
    end: usize,
}

/// One node: the line it starts on (its key's, for a mapping value), its key, and its value
/// (the value's extent only when it starts and ends on one line: a scalar, a flow collection).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Node {
    line: usize,
    key: Option<Cols>,
    value: Option<Cols>,
}

/// What a finding at a field path points at: the line, and where known the characters to
/// underline (the value when the path exists, else the key of its nearest ancestor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters) and width, where known.
    pub column: Option<(usize, usize)>,
}

/// The columns of a span that starts and ends on one line and is not empty.
fn cols(span: &Span) -> Option<Cols> {
    (span.start.line() == span.end.line() && span.end.col() > span.start.col()).then(|| Cols {
        line: span.start.line(),
        start: span.start.col(),
        end: span.end.col(),
    })
}

enum Frame {
    Map { path: String, key: Option<String> },
    Seq { path: String, next: usize },
}

/// The path of the next child of the innermost open node.
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

/// Records a value at `path`: a new node (a list item, the root) or the value of a key seen before.
fn value_at(current: &mut HashMap<String, Node>, path: String, line: usize, value: Option<Cols>) {
    let node = current.entry(path).or_insert(Node { line, key: None, value: None });
    if node.value.is_none() {
        node.value = value;
    }
}

impl LineIndex {
    /// Builds the index from the same text that was parsed. Never fails: on a syntax error it
    /// keeps what it saw so far.
    pub fn new(text: &str) -> Self {
        let mut docs: Vec<HashMap<String, Node>> = Vec::new();
        let mut current: HashMap<String, Node> = HashMap::new();
        let mut frames: Vec<Frame> = Vec::new();
        // Where each open collection started, for its extent when it closes on the same line.
        let mut starts: Vec<(String, Span)> = Vec::new();
        let mut in_doc = false;
        // Whether the current document's root is a plain null scalar (an empty document).
        let mut null_root = false;
        for item in Parser::new_from_str(text) {
            let Ok((event, span)) = item else { break };
            let line = span.start.line();
            match event {
                Event::DocumentStart(..) => {
                    in_doc = true;
                    null_root = false;
                    current = HashMap::new();
                    frames.clear();
                    starts.clear();
                }
                Event::DocumentEnd => {
                    if in_doc && !null_root {
                        docs.push(std::mem::take(&mut current));
                    }
                    in_doc = false;
                }
                Event::Scalar(ref value, style, ..) if frames.is_empty() => {
                    null_root = style == ScalarStyle::Plain && matches!(value.as_ref(), "" | "~" | "null" | "Null" | "NULL");
                    value_at(&mut current, String::new(), line, cols(&span));
                }
                Event::Scalar(value, ..) => {
                    let awaiting_key = matches!(frames.last(), Some(Frame::Map { key: None, .. }));
                    if awaiting_key {
                        if let Some(Frame::Map { key, path }) = frames.last_mut() {
                            let k = value.to_string();
                            let full = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                            current.entry(full).or_insert(Node { line, key: cols(&span), value: None });
                            *key = Some(k);
                        }
                    } else {
                        let p = child(&mut frames);
                        value_at(&mut current, p, line, cols(&span));
                    }
                }
                Event::Alias(..) => {
                    let p = child(&mut frames);
                    value_at(&mut current, p, line, cols(&span));
                }
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    let p = child(&mut frames);
                    value_at(&mut current, p.clone(), line, None);
                    starts.push((p.clone(), span));
                    frames.push(if matches!(event, Event::MappingStart(..)) {
                        Frame::Map { path: p, key: None }
                    } else {
                        Frame::Seq { path: p, next: 0 }
                    });
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    frames.pop();
                    if let Some((p, start)) = starts.pop() {
                        // A collection that opens and closes on one line (`{model: x}`, `[1, 2]`).
                        if start.start.line() == span.end.line() && span.end.col() > start.start.col() {
                            if let Some(node) = current.get_mut(&p) {
                                if node.value.is_none() {
                                    node.value = Some(Cols { line: start.start.line(), start: start.start.col(), end: span.end.col() });
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        if in_doc && !null_root {
            docs.push(current);
        }
        LineIndex { docs }
    }

    /// The line of `path` in document `doc`, or of its nearest ancestor that exists
    /// (a missing field is reported where its parent is).
    pub fn line(&self, doc: usize, path: &str) -> Option<usize> {
        self.position(doc, path).map(|p| p.line)
    }

    /// Where a finding at `path` points: the line of [`LineIndex::line`] and, on that line,
    /// the value when the path exists (a scalar, or a collection written on one line), else
    /// its key; for a path that does not exist, the key of its nearest ancestor that does (the
    /// field is missing there).
    pub fn position(&self, doc: usize, path: &str) -> Option<Position> {
        let map = self.docs.get(doc)?;
        let mut p = path;
        let mut exact = true;
        loop {
            if let Some(node) = map.get(p) {
                let mark = if exact { node.value.or(node.key) } else { node.key.or(node.value) };
                let column = mark.filter(|c| c.line == node.line).map(|c| (c.start + 1, c.end - c.start));
                return Some(Position { line: node.line, column });
            }
            if p.is_empty() {
                return None;
            }
            p = parent_path(p);
            exact = false;
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
    fn line_index_finds_nested_paths() {
        let text = "a: 1\nspec:\n  env:\n  - name: X\n    value: y\n---\nkind: B\nlist: [1, 2]\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line(0, "spec.env[0].value"), Some(5));
        assert_eq!(idx.line(0, "spec.env[0].missing"), Some(4));
        assert_eq!(idx.line(1, "kind"), Some(7));
        assert_eq!(idx.line(1, "list[1]"), Some(8));
    }

    #[test]
    fn positions_mark_the_value_or_the_key_of_the_missing_fields_parent() {
        let text = "spec:\n  accelerator:\n    gpu: {model: h100-80gb, count: \"three\"}\n  numNodes: two\n  env:\n  - name: X\n";
        let idx = LineIndex::new(text);
        // The line and the text underlined there.
        let marked = |path: &str| {
            let p = idx.position(0, path).unwrap();
            let (col, width) = p.column.unwrap();
            let line = text.lines().nth(p.line - 1).unwrap();
            (p.line, line.chars().skip(col - 1).take(width).collect::<String>())
        };
        // A scalar value: the value itself, with its quotes.
        assert_eq!(marked("spec.accelerator.gpu.count"), (3, "\"three\"".to_string()));
        assert_eq!(marked("spec.numNodes"), (4, "two".to_string()));
        // A collection on one line: all of it; a block mapping: its key.
        assert_eq!(marked("spec.accelerator.gpu"), (3, "{model: h100-80gb, count: \"three\"}".to_string()));
        assert_eq!(marked("spec.accelerator"), (2, "accelerator".to_string()));
        // A missing field: the key of the parent that exists.
        assert_eq!(marked("spec.accelerator.gpu.vendor"), (3, "gpu".to_string()));
        assert_eq!(marked("spec.resources"), (1, "spec".to_string()));
        assert_eq!(marked("spec.env[0].name"), (6, "X".to_string()));
        // A missing field of a list item written as a block: the item's line, nothing to underline.
        assert_eq!(idx.position(0, "spec.env[0].value"), Some(Position { line: 6, column: None }));
    }
}
