//! Where things are in a YAML ResourceList, from the parser's events alone: the top-level entries
//! (`items`, `functionConfig`, ...) as byte ranges, each item of `items` as the lines that hold it,
//! and the few scalars of each item that identify it ([`Meta`]: apiVersion, kind, name, namespace,
//! labels, annotations). Nothing else of an item is interpreted (no scalar is resolved to a type):
//! its text is written back as it came. The stream-wide limits (depth, aliases) hold here too.

use std::ops::Range;

use serde_saphyr::granit_parser::{Event, Parser, Span, StrInput, StructureStyle};

use super::meta::Meta;
use crate::yaml::{MAX_ALIASES, MAX_DEPTH};

/// The layout of a block-style ResourceList.
#[derive(Debug, Default)]
pub(super) struct Outline {
    /// Top-level keys with the byte range of their entry (the key's line up to the next key's).
    pub entries: Vec<(String, Range<usize>)>,
    /// Text between the `items:` line and the first item (comments), kept with the header.
    pub items_lead: Range<usize>,
    /// Each item's byte range (from the line of its `-` to the next item's) and what identifies it.
    pub items: Vec<(Range<usize>, Meta)>,
    /// The functionConfig's identity, when there is one.
    pub function_config: Option<Meta>,
}

/// Why the text is not cut by lines.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Unsupported {
    /// Valid YAML laid out in a way the outline does not cut (flow style at the top, a one-line
    /// `items: [...]`): the caller reads and writes values instead.
    Layout(&'static str),
    /// Not valid YAML, or over a limit: the message says which, at which line.
    Invalid { message: String, line: Option<usize> },
}

/// A node as far as the outline needs it: maps and sequences with the children it kept, and
/// scalars as the text the parser gave (never resolved to a type).
#[derive(Debug)]
enum Node {
    /// Each key with the line it is on, and its value.
    Map {
        pairs: Vec<(String, usize, Spanned)>,
        block: bool,
    },
    Seq {
        items: Vec<Spanned>,
        block: bool,
    },
    Scalar(String),
    /// An alias, or a node the outline skipped.
    Other,
}

#[derive(Debug)]
struct Spanned {
    node: Node,
    /// 1-based line and 0-based column where the node starts.
    line: usize,
    col: usize,
}

/// Which paths below the root the outline keeps (everything else is skipped unread).
fn wanted(path: &[&str]) -> bool {
    let meta = |rest: &[&str]| {
        matches!(
            rest,
            [] | ["apiVersion" | "kind" | "metadata"]
                | ["metadata", "name" | "namespace" | "labels" | "annotations"]
                | ["metadata", "labels" | "annotations", _]
        )
    };
    match path {
        [] => true,
        ["apiVersion" | "kind"] => true,
        ["items"] => true,
        ["items", "[]", rest @ ..] => meta(rest),
        ["functionConfig", rest @ ..] => meta(rest),
        _ => false,
    }
}

struct Walker<'a> {
    events: Parser<'a, StrInput<'a>>,
    aliases: usize,
}

type Step<T> = Result<T, Unsupported>;

impl<'a> Walker<'a> {
    fn next(&mut self) -> Step<Option<(Event<'a>, Span)>> {
        loop {
            match self.events.next() {
                None => return Ok(None),
                Some(Err(e)) => {
                    // The scanner's words without its location (the line is kept apart).
                    let message = e.info().replace('\n', "; ");
                    // The parser's own nesting guard: said as the reader says it.
                    let message = if message.contains("recursion limit") { crate::yaml::too_deep_message() } else { message };
                    return Err(Unsupported::Invalid { message, line: Some(e.marker().line()) });
                }
                Some(Ok((event, span))) => {
                    if matches!(event, Event::Comment(..)) {
                        continue;
                    }
                    if matches!(event, Event::Alias(..)) {
                        self.aliases += 1;
                        if self.aliases > MAX_ALIASES {
                            return Err(Unsupported::Invalid {
                                message: format!("more than {MAX_ALIASES} aliases"),
                                line: Some(span.start.line()),
                            });
                        }
                    }
                    return Ok(Some((event, span)));
                }
            }
        }
    }

    fn expect_next(&mut self) -> Step<(Event<'a>, Span)> {
        self.next()?.ok_or_else(|| Unsupported::Invalid { message: "the YAML ends early".into(), line: None })
    }

    /// The node that starts with `first`, at `path`, `depth` levels deep.
    fn node(&mut self, first: (Event<'a>, Span), path: &mut Vec<String>, depth: usize) -> Step<Spanned> {
        let (event, span) = first;
        let (line, col) = (span.start.line(), span.start.col());
        let keep = wanted(&path.iter().map(String::as_str).collect::<Vec<_>>());
        let node = match event {
            Event::Scalar(v, ..) => Node::Scalar(v.to_string()),
            Event::MappingStart(style, ..) | Event::SequenceStart(style, ..) if !keep => {
                let _ = style;
                self.skip(depth + 1, line)?;
                Node::Other
            }
            Event::MappingStart(style, ..) => {
                check_depth(depth + 1, line)?;
                let mut pairs: Vec<(String, usize, Spanned)> = Vec::new();
                loop {
                    let (key, key_span) = self.expect_next()?;
                    if matches!(key, Event::MappingEnd) {
                        break;
                    }
                    let name = match &key {
                        Event::Scalar(k, ..) => Some(k.to_string()),
                        _ => None,
                    };
                    if name.is_none() {
                        // A complex key (`? [a, b]`): skipped, and so is its value.
                        self.skip_from((key, key_span), depth + 1)?;
                        let value = self.expect_next()?;
                        self.skip_from(value, depth + 1)?;
                        continue;
                    }
                    let name = name.unwrap_or_default();
                    // Two values for one key where identity is read: which one counts is not
                    // clear, so neither is guessed.
                    if pairs.iter().any(|(k, ..)| *k == name) {
                        return Err(Unsupported::Invalid {
                            message: format!("duplicate key `{name}`: a key may appear once in a mapping"),
                            line: Some(key_span.start.line()),
                        });
                    }
                    path.push(name.clone());
                    let value = self.expect_next()?;
                    let child = self.node(value, path, depth + 1)?;
                    path.pop();
                    pairs.push((name, key_span.start.line(), child));
                }
                Node::Map { pairs, block: style == StructureStyle::Block }
            }
            Event::SequenceStart(style, ..) => {
                check_depth(depth + 1, line)?;
                let mut items = Vec::new();
                loop {
                    let item = self.expect_next()?;
                    if matches!(item.0, Event::SequenceEnd) {
                        break;
                    }
                    path.push("[]".into());
                    items.push(self.node(item, path, depth + 1)?);
                    path.pop();
                }
                Node::Seq { items, block: style == StructureStyle::Block }
            }
            _ => Node::Other,
        };
        Ok(Spanned { node, line, col })
    }

    /// Skips the rest of a mapping or sequence whose start was just read, `depth` levels deep.
    fn skip(&mut self, depth: usize, line: usize) -> Step<()> {
        check_depth(depth, line)?;
        let mut open = 1usize;
        while open > 0 {
            let (event, span) = self.expect_next()?;
            match event {
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    open += 1;
                    check_depth(depth + open - 1, span.start.line())?;
                }
                Event::MappingEnd | Event::SequenceEnd => open -= 1,
                _ => {}
            }
        }
        Ok(())
    }

    /// Skips the node that starts with `first`.
    fn skip_from(&mut self, first: (Event<'a>, Span), depth: usize) -> Step<()> {
        match first.0 {
            Event::MappingStart(..) | Event::SequenceStart(..) => self.skip(depth + 1, first.1.start.line()),
            _ => Ok(()),
        }
    }
}

fn check_depth(depth: usize, line: usize) -> Step<()> {
    if depth > MAX_DEPTH {
        return Err(Unsupported::Invalid { message: crate::yaml::too_deep_message(), line: Some(line) });
    }
    Ok(())
}

/// Byte offset where each line starts.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Lines<'a> {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Lines { text, starts }
    }

    /// Start of 1-based line `line` (the end of the text past the last line).
    fn start(&self, line: usize) -> usize {
        self.starts.get(line.saturating_sub(1)).copied().unwrap_or(self.text.len()).min(self.text.len())
    }

    /// The text of 1-based line `line`, without its line break.
    fn line(&self, line: usize) -> &'a str {
        self.text.get(self.start(line)..self.start(line + 1)).unwrap_or_default().trim_end_matches(['\n', '\r'])
    }
}

/// Builds the outline of `text`, one YAML document: the ResourceList.
pub(super) fn outline(text: &str) -> Result<Outline, Unsupported> {
    let mut w = Walker { events: Parser::new_from_str(text), aliases: 0 };
    let mut root = None;
    let mut documents = 0;
    while let Some((event, span)) = w.next()? {
        match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
            Event::DocumentStart(..) => {
                documents += 1;
                if documents > 1 {
                    return Err(Unsupported::Invalid {
                        message: "more than one YAML document; expected one ResourceList".into(),
                        line: Some(span.start.line()),
                    });
                }
            }
            _ => root = Some(w.node((event, span), &mut Vec::new(), 0)?),
        }
    }
    let root = root.ok_or(Unsupported::Invalid { message: "the input holds no YAML document".into(), line: None })?;
    let Node::Map { pairs, block: true } = root.node else {
        return Err(Unsupported::Layout("the ResourceList is not a block mapping"));
    };
    let lines = Lines::new(text);
    let mut out = Outline::default();
    for (i, (name, line, _)) in pairs.iter().enumerate() {
        if pairs[..i].iter().any(|(k, ..)| k == name) {
            return Err(Unsupported::Invalid { message: format!("duplicate key `{name}`"), line: Some(*line) });
        }
        // A top-level entry is the lines from its key's to the next key's: the key must start
        // its line, and share it with no other key.
        if !lines.line(*line).starts_with(|c: char| !c.is_whitespace()) || pairs[..i].iter().any(|(_, l, _)| l == line) {
            return Err(Unsupported::Layout("a top-level key that does not start a line of its own"));
        }
    }
    let key_lines: Vec<usize> = pairs.iter().map(|(_, l, _)| *l).collect();
    let end_of = |i: usize| key_lines.get(i + 1).map(|l| lines.start(*l)).unwrap_or(text.len());
    for (i, (name, ..)) in pairs.iter().enumerate() {
        out.entries.push((name.clone(), lines.start(key_lines[i])..end_of(i)));
    }
    for (i, (name, _, value)) in pairs.iter().enumerate() {
        match (name.as_str(), &value.node) {
            ("items", Node::Seq { items, block: true }) => {
                let mut dash_col = None;
                let mut after = key_lines[i];
                let mut starts = Vec::new();
                for item in items {
                    let l = item_line(&lines, item.line, item.col, after, &mut dash_col)
                        .ok_or(Unsupported::Layout("an item whose `-` does not start a line"))?;
                    starts.push(l);
                    after = l;
                }
                let end = end_of(i);
                let first = starts.first().map(|l| lines.start(*l)).unwrap_or(end);
                out.items_lead = lines.start(key_lines[i] + 1).min(first)..first;
                for (j, item) in items.iter().enumerate() {
                    let start = lines.start(starts[j]);
                    let stop = starts.get(j + 1).map(|l| lines.start(*l)).unwrap_or(end);
                    out.items.push((start..stop, meta_of(&item.node)));
                }
            }
            ("items", Node::Seq { items, block: false }) if items.is_empty() => {}
            ("items", Node::Scalar(_)) => {}
            ("items", _) => return Err(Unsupported::Layout("`items` is not a block sequence")),
            ("functionConfig", node) => out.function_config = Some(meta_of(node)),
            _ => {}
        }
    }
    Ok(out)
}

/// The line of the `-` that starts an item whose node starts at (`line`, `col`): the nearest
/// line at or above it, below the previous item's, whose first character other than spaces is a
/// `-` followed by a space or the end of the line (kyaml writes `- # comment` above a commented
/// item's first key). Every item's dash must be in the same column.
fn item_line(lines: &Lines<'_>, line: usize, col: usize, after: usize, dash_col: &mut Option<usize>) -> Option<usize> {
    let mut l = line;
    while l > after {
        let text = lines.line(l);
        let indent = text.len() - text.trim_start_matches(' ').len();
        let rest = &text[indent..];
        let is_dash = rest.starts_with('-') && matches!(rest.as_bytes().get(1), None | Some(b' ' | b'\t'));
        if is_dash && (l < line || indent < col) {
            if dash_col.is_some_and(|c| c != indent) {
                return None;
            }
            *dash_col = Some(indent);
            return Some(l);
        }
        l -= 1;
    }
    None
}

/// What identifies an object, from the scalars the outline kept.
fn meta_of(node: &Node) -> Meta {
    let mut meta = Meta::default();
    let Node::Map { pairs, .. } = node else { return meta };
    let scalar = |n: &Node| match n {
        Node::Scalar(s) => Some(s.clone()),
        _ => None,
    };
    for (k, _, v) in pairs {
        match (k.as_str(), &v.node) {
            ("apiVersion", n) => meta.api_version = scalar(n),
            ("kind", n) => meta.kind = scalar(n),
            ("metadata", Node::Map { pairs, .. }) => {
                for (mk, _, mv) in pairs {
                    match (mk.as_str(), &mv.node) {
                        ("name", n) => meta.name = scalar(n),
                        ("namespace", n) => meta.namespace = scalar(n),
                        ("labels", Node::Map { pairs, .. }) => {
                            meta.labels = pairs.iter().filter_map(|(lk, _, lv)| Some((lk.clone(), scalar(&lv.node)?))).collect();
                        }
                        ("annotations", Node::Map { pairs, .. }) => {
                            meta.annotations = pairs.iter().filter_map(|(ak, _, av)| Some((ak.clone(), scalar(&av.node)?))).collect();
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    meta
}

#[cfg(test)]
mod tests {
    use super::*;

    const KYAML: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a # trailing\n    labels: {app: web}\n    annotations:\n      config.kubernetes.io/path: 'cm.yaml'\n  data:\n    on: on\n- # a comment before the first key\n  apiVersion: v1\n  kind: Secret\n  metadata: {name: b}\n\n- -\n  - x\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: function-input}\n";

    #[test]
    fn items_are_cut_at_their_dashes_and_keep_every_byte() {
        let o = outline(KYAML).unwrap();
        let keys: Vec<&str> = o.entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["apiVersion", "kind", "items", "functionConfig"]);
        assert_eq!(o.items.len(), 3);
        let texts: Vec<&str> = o.items.iter().map(|(r, _)| &KYAML[r.clone()]).collect();
        assert!(texts[0].starts_with("- apiVersion: v1\n") && texts[0].ends_with("    on: on\n"), "{:?}", texts[0]);
        assert!(texts[1].starts_with("- # a comment") && texts[1].ends_with("{name: b}\n\n"), "{:?}", texts[1]);
        assert_eq!(texts[2], "- -\n  - x\n");
        // The items, the header and the rest tile the text.
        let items = &o.entries[2].1;
        assert_eq!(o.items.first().unwrap().0.start, items.start + "items:\n".len());
        assert_eq!(o.items.last().unwrap().0.end, o.entries[3].1.start);
        assert_eq!(
            &KYAML[o.entries[3].1.clone()],
            "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: function-input}\n"
        );
    }

    #[test]
    fn identity_comes_from_the_raw_scalars() {
        let o = outline(KYAML).unwrap();
        let m = &o.items[0].1;
        assert_eq!((m.api_version.as_deref(), m.kind.as_deref(), m.name.as_deref()), (Some("v1"), Some("ConfigMap"), Some("a")));
        assert_eq!(m.labels.get("app").map(String::as_str), Some("web"));
        assert_eq!(m.annotations.get("config.kubernetes.io/path").map(String::as_str), Some("cm.yaml"));
        assert_eq!(o.items[1].1.name.as_deref(), Some("b"));
        assert_eq!(o.items[2].1, Meta::default());
        assert_eq!(o.function_config.as_ref().and_then(|m| m.name.as_deref()), Some("function-input"));
    }

    #[test]
    fn other_layouts_are_reported_and_limits_hold() {
        assert!(matches!(outline("{kind: ResourceList, items: []}"), Err(Unsupported::Layout(_))));
        assert!(matches!(outline("kind: ResourceList\nitems: [{a: 1}]\n"), Err(Unsupported::Layout(_))));
        assert!(outline("kind: ResourceList\nitems: []\n").unwrap().items.is_empty());
        let deep = format!("kind: ResourceList\nitems:\n- x: {}1{}\n", "[".repeat(200), "]".repeat(200));
        assert!(matches!(outline(&deep), Err(Unsupported::Invalid { .. })));
        assert!(matches!(outline("kind: ResourceList\nkind: List\n"), Err(Unsupported::Invalid { .. })));
        assert!(matches!(outline("a: [\n"), Err(Unsupported::Invalid { .. })));
    }
}
