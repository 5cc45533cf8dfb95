//! Where each node of each document starts: a field path (`spec.env[0].name`) -> its 1-based
//! line, and the columns of its key and value, so that findings made on values can point at
//! (and underline) the user's text.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, Span};

/// Field path -> where it is, per document. Paths are dotted with `[i]` for list items
/// (`spec.env[0].name`); the document root is `""`. Documents are indexed as
/// [`crate::yaml::parse_stream`] returns them: in stream order, empty ones (`---` alone, `~`,
/// `null`) left out.
#[derive(Debug, Default, Clone)]
pub struct LineIndex {
    docs: Vec<Doc>,
}

/// One document's nodes, and each path's node (the first node at a path wins: a duplicate key
/// is an error of the parse, not of this index).
#[derive(Debug, Default, Clone)]
struct Doc {
    nodes: Vec<Node>,
    by_path: HashMap<String, usize>,
}

impl Doc {
    /// The node at `path`, added (starting on `line`) when there is none yet.
    fn node(&mut self, path: &str, line: usize) -> usize {
        if let Some(&i) = self.by_path.get(path) {
            return i;
        }
        self.nodes.push(Node { line, key: None, value: None });
        self.by_path.insert(path.to_string(), self.nodes.len() - 1);
        self.nodes.len() - 1
    }
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

/// A plain null scalar (`~`, `null`, nothing): as a document's root, an empty document.
fn is_null(value: &str, style: ScalarStyle) -> bool {
    style == ScalarStyle::Plain && matches!(value, "" | "~" | "null" | "Null" | "NULL")
}

/// The columns of a span that starts and ends on one line and is not empty.
fn cols(span: &Span) -> Option<Cols> {
    (span.start.line() == span.end.line() && span.end.col() > span.start.col()).then(|| Cols {
        line: span.start.line(),
        start: span.start.col(),
        end: span.end.col(),
    })
}

/// An open collection: where its own path ends in the path buffer, and for a mapping whether
/// the buffer holds a key whose value comes next (then the buffer is that key's path).
enum Frame {
    Map { base: usize, key_pending: bool },
    Seq { base: usize, next: usize },
}

/// The walk over one stream's events. The path of the node being read is built in one buffer
/// (`path`), cut back to the parent's length for each child, so that a node costs one string
/// (its key in the map) and one hash.
struct Walk {
    path: String,
    frames: Vec<Frame>,
    /// Each open collection's node and where it started, for its extent when it closes on the
    /// same line.
    starts: Vec<(usize, Span)>,
    doc: Doc,
}

impl Walk {
    /// Puts the path of the next child of the innermost open node in the buffer.
    fn child(&mut self) {
        match self.frames.last_mut() {
            None => self.path.clear(),
            // The key is in the buffer already.
            Some(Frame::Map { key_pending, .. }) => *key_pending = false,
            Some(Frame::Seq { base, next }) => {
                self.path.truncate(*base);
                self.path.push('[');
                self.path.push_str(itoa(*next, &mut [0; 20]));
                self.path.push(']');
                *next += 1;
            }
        }
    }

    /// Records a value at the buffer's path: a new node (a list item, the root) or the value of
    /// a key seen before.
    fn value(&mut self, line: usize, value: Option<Cols>) -> usize {
        let i = self.doc.node(&self.path, line);
        let node = &mut self.doc.nodes[i];
        if node.value.is_none() {
            node.value = value;
        }
        i
    }

    /// A key of the innermost mapping: its path goes in the buffer, its node is added.
    fn key(&mut self, key: &str, line: usize, span: &Span) {
        let Some(Frame::Map { base, key_pending }) = self.frames.last_mut() else { return };
        self.path.truncate(*base);
        if *base > 0 {
            self.path.push('.');
        }
        self.path.push_str(key);
        *key_pending = true;
        if !self.doc.by_path.contains_key(self.path.as_str()) {
            self.doc.nodes.push(Node { line, key: cols(span), value: None });
            self.doc.by_path.insert(self.path.clone(), self.doc.nodes.len() - 1);
        }
    }

    fn awaiting_key(&self) -> bool {
        matches!(self.frames.last(), Some(Frame::Map { key_pending: false, .. }))
    }
}

/// `n` in decimal, without allocating.
fn itoa(mut n: usize, buf: &mut [u8; 20]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[i..]).unwrap_or_default()
}

impl LineIndex {
    /// Builds the index from the same text that was parsed. Never fails: on a syntax error it
    /// keeps what it saw so far.
    pub fn new(text: &str) -> Self {
        let mut docs: Vec<Doc> = Vec::new();
        let mut w = Walk { path: String::new(), frames: Vec::new(), starts: Vec::new(), doc: Doc::default() };
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
                    w.doc = Doc::default();
                    w.frames.clear();
                    w.starts.clear();
                    w.path.clear();
                }
                Event::DocumentEnd => {
                    if in_doc && !null_root {
                        docs.push(std::mem::take(&mut w.doc));
                    }
                    in_doc = false;
                }
                Event::Scalar(ref value, style, ..) if w.frames.is_empty() => {
                    null_root = is_null(value, style);
                    w.path.clear();
                    w.value(line, cols(&span));
                }
                Event::Scalar(value, ..) => {
                    if w.awaiting_key() {
                        w.key(&value, line, &span);
                    } else {
                        w.child();
                        w.value(line, cols(&span));
                    }
                }
                Event::Alias(..) => {
                    w.child();
                    w.value(line, cols(&span));
                }
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    w.child();
                    let i = w.value(line, None);
                    w.starts.push((i, span));
                    let base = w.path.len();
                    w.frames.push(if matches!(event, Event::MappingStart(..)) {
                        Frame::Map { base, key_pending: false }
                    } else {
                        Frame::Seq { base, next: 0 }
                    });
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    w.frames.pop();
                    if let Some((i, start)) = w.starts.pop() {
                        // A collection that opens and closes on one line (`{model: x}`, `[1, 2]`).
                        if start.start.line() == span.end.line() && span.end.col() > start.start.col() {
                            let node = &mut w.doc.nodes[i];
                            if node.value.is_none() {
                                node.value = Some(Cols { line: start.start.line(), start: start.start.col(), end: span.end.col() });
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        if in_doc && !null_root {
            docs.push(w.doc);
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
        self.docs.get(doc)?.position(path, Mark::Value)
    }

    /// [`LineIndex::position`], marking the key of `path` rather than its value: where a finding
    /// about the field's name (an unknown field) points.
    pub fn key_position(&self, doc: usize, path: &str) -> Option<Position> {
        self.docs.get(doc)?.position(path, Mark::Key)
    }
}

/// What a position underlines on a path that exists: its value (findings about a value) or its
/// key (findings about the field's name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Value,
    Key,
    /// The value, and no position at all when the path does not exist (is it written there?).
    Exact,
}

impl Doc {
    /// [`LineIndex::position`] in this document.
    fn position(&self, path: &str, mark: Mark) -> Option<Position> {
        let mut p = path;
        let mut exact = true;
        loop {
            if let Some(node) = self.by_path.get(p).map(|&i| &self.nodes[i]) {
                let mark = if exact && mark != Mark::Key { node.value.or(node.key) } else { node.key.or(node.value) };
                let column = mark.filter(|c| c.line == node.line).map(|c| (c.start + 1, c.end - c.start));
                return Some(Position { line: node.line, column });
            }
            if p.is_empty() || mark == Mark::Exact {
                return None;
            }
            p = parent_path(p);
            exact = false;
        }
    }
}

/// A [`LineIndex`] built one document at a time, when a finding there needs a position: cut at
/// its `---` lines ([`super::split::markers`]), a stream holds one document per piece, so a
/// finding in one runtime of a 10,000-runtime file indexes that runtime's text alone. A stream
/// where a piece could hold more than one document (a `...` end marker, `%` directives) or
/// whose lines could break at a lone `\r` is indexed whole, as [`LineIndex::new`] does; so is
/// one a piece of which does not parse.
#[derive(Debug, Default)]
pub struct LazyIndex {
    /// The non-empty documents' pieces, in order; `None`: index the whole text.
    pieces: OnceLock<Option<Vec<Piece>>>,
    whole: OnceLock<LineIndex>,
}

#[derive(Debug)]
struct Piece {
    bytes: Range<usize>,
    /// Lines of the text before the piece.
    lines_before: usize,
    doc: OnceLock<Option<Doc>>,
}

impl LazyIndex {
    /// Where a finding at `path` of document `doc` of `text` points (see
    /// [`LineIndex::position`]). `text` is the same text on every call, and one that parses
    /// (findings are made on documents that were read): of a stream with a syntax error, a
    /// piece after the error may still be indexed.
    pub fn position(&self, text: &str, doc: usize, path: &str, mark: Mark) -> Option<Position> {
        let Some(pieces) = self.pieces.get_or_init(|| cut(text)) else {
            return self.whole.get_or_init(|| LineIndex::new(text)).docs.get(doc)?.position(path, mark);
        };
        let piece = pieces.get(doc)?;
        let d = piece.doc.get_or_init(|| text.get(piece.bytes.clone()).and_then(|t| LineIndex::new(t).docs.into_iter().next()));
        let p = d.as_ref()?.position(path, mark)?;
        Some(Position { line: p.line + piece.lines_before, column: p.column })
    }
}

/// The pieces of the non-empty documents of `text`, or `None` where a piece may not be one
/// document.
fn cut(text: &str) -> Option<Vec<Piece>> {
    let bytes = text.as_bytes();
    let line_start = |at: usize| at == 0 || bytes[at - 1] == b'\n';
    let directive_or_end = bytes.iter().enumerate().any(|(i, b)| match b {
        b'%' => line_start(i),
        b'.' => line_start(i) && super::split::is_marker_of(&bytes[i..], b"..."),
        b'\r' => bytes.get(i + 1) != Some(&b'\n'),
        _ => false,
    });
    if directive_or_end {
        return None;
    }
    let mut starts = super::split::markers(text);
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    let mut pieces = Vec::new();
    let mut lines_before = 0;
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        let piece = &text[start..end];
        if !is_empty_document(piece)? {
            pieces.push(Piece { bytes: start..end, lines_before, doc: OnceLock::new() });
        }
        lines_before += bytecount(piece.as_bytes());
    }
    Some(pieces)
}

fn bytecount(b: &[u8]) -> usize {
    b.iter().filter(|c| **c == b'\n').count()
}

/// Whether a piece holds no document, or an empty one (`---` alone, `~`, `null`): the
/// documents [`crate::yaml::parse_stream`] leaves out. `None` when it does not parse so far.
fn is_empty_document(piece: &str) -> Option<bool> {
    for item in Parser::new_from_str(piece) {
        let (event, _) = item.ok()?;
        match event {
            Event::StreamStart | Event::DocumentStart(..) | Event::Comment(..) => {}
            Event::Scalar(ref value, style, ..) => return Some(is_null(value, style)),
            Event::StreamEnd => return Some(true),
            _ => return Some(false),
        }
    }
    Some(true)
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
    fn paths_after_nested_collections_and_across_empty_documents() {
        let text = "---\n---\n- a: 1\n  b:\n  - [x, y]\n  - - z\n  c: 3\n- q\n--- ~\n---\nk:\n  m: {n: 1}\n  o: 2\nlast: 9\n";
        let idx = LineIndex::new(text);
        // Document 0 is the list (the two empty documents before it do not count).
        assert_eq!(idx.line(0, "[0].a"), Some(3));
        assert_eq!(idx.line(0, "[0].b[0][1]"), Some(5));
        assert_eq!(idx.line(0, "[0].b[1][0]"), Some(6));
        assert_eq!(idx.line(0, "[0].c"), Some(7));
        assert_eq!(idx.line(0, "[1]"), Some(8));
        // `--- ~` is empty too: the next mapping is document 1.
        assert_eq!(idx.line(1, "k.m.n"), Some(12));
        assert_eq!(idx.line(1, "k.o"), Some(13));
        assert_eq!(idx.line(1, "last"), Some(14));
        assert_eq!(idx.line(1, "k.missing.deeper"), Some(11));
        assert_eq!(idx.line(2, "k"), None);
        // The first of two equal keys is the one pointed at.
        assert_eq!(LineIndex::new("a: 1\nb: 2\na: 3\n").line(0, "a"), Some(1));
        assert_eq!(itoa(1234567, &mut [0; 20]), "1234567");
        assert_eq!(itoa(0, &mut [0; 20]), "0");
    }

    /// Every field path of a parsed document, as findings name them.
    fn paths(v: &serde_json::Value, at: &str, out: &mut Vec<String>) {
        out.push(at.to_string());
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    paths(v, &crate::diag::join_path(at, k), out);
                }
            }
            serde_json::Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    paths(v, &format!("{at}[{i}]"), out);
                }
            }
            _ => {}
        }
    }

    /// The lazy index points where the whole-text index does, for every path of every document
    /// (and a missing one), however the stream is written.
    pub(crate) fn assert_lazy_agrees(text: &str) {
        // Positions are asked only of documents that were read: of a stream that parses.
        let Ok(docs) = crate::yaml::parse_stream(text) else { return };
        let (eager, lazy) = (LineIndex::new(text), LazyIndex::default());
        for (d, value) in docs.iter().enumerate() {
            let mut all = Vec::new();
            paths(value, "", &mut all);
            all.push("spec.missing.deeper".to_string());
            for p in &all {
                assert_eq!(lazy.position(text, d, p, Mark::Value), eager.position(d, p), "document {d}, `{p}` of:\n{text}");
                assert_eq!(lazy.position(text, d, p, Mark::Key), eager.key_position(d, p), "document {d}, key `{p}` of:\n{text}");
            }
        }
        assert_eq!(lazy.position(text, docs.len(), "", Mark::Value), eager.position(docs.len(), ""));
    }

    #[test]
    fn the_lazy_index_agrees_with_the_whole_one() {
        for text in [
            "a: 1\nspec:\n  env:\n  - name: X\n    value: y\n---\nkind: B\nlist: [1, 2]\n",
            "---\n---\n- a: 1\n  b:\n  - [x, y]\n--- ~\n---\nk:\n  m: {n: 1}\n",
            "# a comment before anything\n\n---\na: 1\n--- null\n--- ''\n---\nb: |\n  --- inside\n  x\n",
            "   a: 1\n   b: 2\n---\n  c: 3\n",
            "a: 1\n...\nb: 2\n---\nc: 3\n",
            "%YAML 1.2\n---\na: 1\n---\nb: 2\n",
            "a: 1\r\n---\r\nb: 2\r\n",
            "a: 1\r---\rb: 2\r",
            "--- {a: 1}\n--- [x]\n--- scalar\n",
            "\u{feff}---\na: 1\n---\nü: 日本\n  # comment\nb: 2\n",
            "a: [1,\n---\nb: 2\n",
        ] {
            assert_lazy_agrees(text);
        }
    }

    proptest::proptest! {
        /// Streams of documents written every way the lazy index must notice: each document
        /// the same position as in the whole-text index.
        #[test]
        fn the_lazy_index_agrees_on_any_stream(parts in proptest::collection::vec((0usize..8, 0usize..10), 0..12)) {
            const SEPARATORS: &[&str] = &["---\n", "--- \n", "---\r\n", "...\n", "--- ~\n", "# c\n", "---\n\n", ""];
            const DOCUMENTS: &[&str] = &[
                "a: 1\nb:\n  c: [x, y]\n",
                "- {k: v}\n- - z\n",
                "s: |\n  --- in a block\n  text\n",
                "q: \"quoted ---\"\n",
                "  indented: 1\n  more: 2\n",
                "anchor: &x {k: v}\nalias: *x\n",
                "ü: 日本語\n",
                "crlf: 1\r\nnext: 2\r\n",
                "",
                "null\n",
            ];
            let mut text = String::new();
            for (sep, doc) in parts {
                text.push_str(SEPARATORS[sep]);
                text.push_str(DOCUMENTS[doc]);
            }
            assert_lazy_agrees(&text);
        }
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
