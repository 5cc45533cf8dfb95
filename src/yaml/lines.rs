//! Where each node of each document starts: a field path (`spec.env[0].name`) -> its 1-based
//! line, so that findings made on values can point at the user's text.

use std::collections::HashMap;

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle};

/// Field path -> 1-based line, per document. Paths are dotted with `[i]` for list items
/// (`spec.env[0].name`); the document root is `""`. Documents are indexed as
/// [`crate::yaml::parse_stream`] returns them: in stream order, empty ones (`---` alone, `~`,
/// `null`) left out.
#[derive(Debug, Default, Clone)]
pub struct LineIndex {
    docs: Vec<HashMap<String, usize>>,
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

impl LineIndex {
    /// Builds the index from the same text that was parsed. Never fails: on a syntax error it
    /// keeps what it saw so far.
    pub fn new(text: &str) -> Self {
        let mut docs: Vec<HashMap<String, usize>> = Vec::new();
        let mut current: HashMap<String, usize> = HashMap::new();
        let mut frames: Vec<Frame> = Vec::new();
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
                }
                Event::DocumentEnd => {
                    if in_doc && !null_root {
                        docs.push(std::mem::take(&mut current));
                    }
                    in_doc = false;
                }
                Event::Scalar(ref value, style, ..) if frames.is_empty() => {
                    null_root = style == ScalarStyle::Plain && matches!(value.as_ref(), "" | "~" | "null" | "Null" | "NULL");
                    current.entry(String::new()).or_insert(line);
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
        if in_doc && !null_root {
            docs.push(current);
        }
        LineIndex { docs }
    }

    /// The line of `path` in document `doc`, or of its nearest ancestor that exists
    /// (a missing field is reported where its parent is).
    pub fn line(&self, doc: usize, path: &str) -> Option<usize> {
        let map = self.docs.get(doc)?;
        let mut p = path;
        loop {
            if let Some(l) = map.get(p) {
                return Some(*l);
            }
            if p.is_empty() {
                return None;
            }
            p = parent_path(p);
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
}
