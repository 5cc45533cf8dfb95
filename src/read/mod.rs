//! Read stage: files, folders, stdin or the built-in catalog -> YAML documents, each with the
//! source it came from (for error locations). Nothing here knows what the documents mean.

use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::diag::Diagnostic;
use crate::rules::input::{INPUT_MALFORMED_YAML, INPUT_NOT_UTF8, INPUT_SCALAR_TOO_LONG, INPUT_TOO_LARGE, INPUT_UNREADABLE};
use crate::yaml::{self, LazyIndex, Mark, Position};

mod builtin;
pub mod template;

pub use builtin::BUILTIN;

/// Where documents came from: a file as the user named it, `<stdin>`, or a built-in file.
#[derive(Debug)]
pub struct Source {
    pub name: String,
    text: Option<String>,
    lines: LazyIndex,
}

impl Source {
    pub fn new(name: impl Into<String>, text: Option<String>) -> Self {
        Source { name: name.into(), text, lines: LazyIndex::default() }
    }

    /// A source with no text to point into (for example a ResourceList item).
    pub fn named(name: impl Into<String>) -> Arc<Self> {
        Arc::new(Self::new(name, None))
    }

    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// 1-based line of a field path in document `doc`, where the text is known.
    pub fn line(&self, doc: usize, path: &str) -> Option<usize> {
        self.position(doc, path).map(|p| p.line)
    }

    /// Where a finding at a field path of document `doc` points (line, and the characters to
    /// underline), where the text is known.
    pub fn position(&self, doc: usize, path: &str) -> Option<Position> {
        self.position_marking(doc, path, Mark::Value)
    }

    /// [`Source::position`], underlining the key (`Mark::Key`) or the value.
    pub fn position_marking(&self, doc: usize, path: &str, mark: Mark) -> Option<Position> {
        let text = self.text.as_deref()?;
        self.lines.position(text, doc, path, mark)
    }
}

/// The sources a command read, by name: what the report shows source lines from.
#[derive(Debug, Default, Clone)]
pub struct Sources(Vec<Arc<Source>>);

impl Sources {
    pub fn add(&mut self, source: &Arc<Source>) {
        if !self.0.iter().any(|s| Arc::ptr_eq(s, source)) {
            self.0.push(source.clone());
        }
    }

    /// Adds every source of `other`.
    pub fn extend(&mut self, other: &Sources) {
        for s in &other.0 {
            self.add(s);
        }
    }

    /// The sources of these documents.
    pub fn of(docs: &[Document]) -> Sources {
        let mut s = Sources::default();
        for d in docs {
            s.add(&d.source);
        }
        s
    }

    /// The source named `name`, if it was read.
    pub fn source(&self, name: &str) -> Option<&Arc<Source>> {
        self.0.iter().find(|s| s.name == name)
    }

    /// The text of the source named `name`, if it was read.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|s| s.name == name).and_then(|s| s.text())
    }
}

/// One object read from a source: a YAML document, or an item of a `List` document (what
/// `kubectl get ... -o yaml` prints), and where it came from.
#[derive(Debug, Clone)]
pub struct Document {
    pub source: Arc<Source>,
    /// Index of the document in its source (0-based, empty documents not counted).
    pub index: usize,
    /// For an item of a `List`, its path in the document (`items[3]`); empty otherwise.
    pub within: String,
    pub value: Value,
}

impl Document {
    pub fn new(source: Arc<Source>, index: usize, value: Value) -> Document {
        Document { source, index, within: String::new(), value }
    }

    /// Places a diagnostic in this document: file, document index and the line of its field.
    /// A finding on a value that holds a Helm or envsubst marker (`{{ .Values.x }}`, `${X}`)
    /// says to render the template first.
    pub fn locate(&self, d: Diagnostic) -> Diagnostic {
        let d = self.template_hint(d);
        self.place().locate(d)
    }

    fn template_hint(&self, mut d: Diagnostic) -> Diagnostic {
        if about_the_key(&d) {
            return d;
        }
        let Some(Value::String(s)) = template::value_at(&self.value, d.field.as_deref().unwrap_or("")) else { return d };
        let Some((engine, marker)) = template::in_str(s) else { return d };
        // A matrix template's `{{ }}` is its own template language (minijinja), not Helm's.
        let matrix = self.value.get("kind").and_then(Value::as_str) == Some(crate::catalog::Kind::Matrix.name());
        if matrix && engine == template::Engine::Helm {
            return d;
        }
        let hint = template::value_hint(engine, &marker, &self.source.name);
        d.help = Some(match d.help.take() {
            Some(h) => {
                let mut chars = h.chars();
                let first = chars.next().map(|c| c.to_lowercase().collect::<String>()).unwrap_or_default();
                format!("{hint}; if it is not one: {first}{}", chars.as_str())
            }
            None => hint,
        });
        d
    }

    /// Where this document is, without its value (cheap to keep for every generated runtime).
    pub fn place(&self) -> Place {
        Place { source: self.source.clone(), index: self.index, within: self.within.clone() }
    }
}

/// A document's place: its source, its index there, and its path inside a `List`.
#[derive(Debug, Clone)]
pub struct Place {
    pub source: Arc<Source>,
    pub index: usize,
    pub within: String,
}

impl Place {
    pub fn new(source: Arc<Source>, index: usize) -> Place {
        Place { source, index, within: String::new() }
    }

    /// The line of a field path of the object, where the text is known.
    pub fn line(&self, field: &str) -> Option<usize> {
        self.position(field).map(|p| p.line)
    }

    /// Where a finding at a field path of the object points, where the text is known.
    pub fn position(&self, field: &str) -> Option<Position> {
        self.position_marking(field, Mark::Value)
    }

    /// Where the field path is written in the object, `None` when it is not written there (not
    /// the nearest ancestor, as [`Place::position`] gives).
    pub fn exact(&self, field: &str) -> Option<Position> {
        self.position_marking(field, Mark::Exact)
    }

    fn position_marking(&self, field: &str, mark: Mark) -> Option<Position> {
        let path = match (self.within.is_empty(), field.is_empty()) {
            (true, _) => field.to_string(),
            (false, true) => self.within.clone(),
            (false, false) => format!("{}.{field}", self.within),
        };
        self.source.position_marking(self.index, &path, mark)
    }

    /// Places a diagnostic here: file, document index, and the line and columns of its field. A
    /// finding about the field's name (an unknown field) points at the key, others at the value.
    pub fn locate(&self, mut d: Diagnostic) -> Diagnostic {
        let mark = if about_the_key(&d) { Mark::Key } else { Mark::Value };
        let position = self.position_marking(d.field.as_deref().unwrap_or(""), mark);
        d.file = Some(self.source.name.clone());
        d.index = Some(self.index);
        d.line = position.map(|p| p.line);
        d.column = position.and_then(|p| p.column).map(|c| c.0);
        d.width = position.and_then(|p| p.column).map(|c| c.1);
        d
    }
}

/// Findings about a field's name rather than its value: an unknown field (`catalog/`, `schema/`
/// and `crd/unknown-field`).
fn about_the_key(d: &Diagnostic) -> bool {
    d.rule.id.ends_with("/unknown-field")
}

/// What was read: the documents, and every problem (all files are tried, not just up to the
/// first bad one). The sources of unparsable files are kept too, for the report.
#[derive(Debug, Default)]
pub struct Input {
    pub documents: Vec<Document>,
    pub errors: Vec<Diagnostic>,
    pub sources: Sources,
}

impl Input {
    fn add(&mut self, result: Result<Vec<Document>, Diagnostic>, source: Option<&Arc<Source>>) {
        if let Some(s) = source {
            self.sources.add(s);
        }
        match result {
            Ok(mut d) => self.documents.append(&mut d),
            Err(e) => self.errors.push(e),
        }
    }

    /// The documents, or every read error.
    pub fn into_result(self) -> Result<Vec<Document>, Vec<Diagnostic>> {
        if self.errors.is_empty() {
            Ok(self.documents)
        } else {
            Err(self.errors)
        }
    }
}

/// Documents of the built-in catalog.
pub fn builtin() -> Input {
    builtin_texts().parse()
}

/// Reads files, folders (recursively: `*.yaml`, `*.yml`, `*.json`, sorted) and `-` (stdin).
pub fn paths(paths: &[PathBuf]) -> Input {
    texts(paths).parse()
}

/// The texts [`paths`] reads, not yet parsed: [`Texts::stream`] parses them a batch of
/// documents at a time, for a reader that frees each document once used.
pub fn texts(paths: &[PathBuf]) -> Texts {
    let mut texts = Texts::default();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            match std::io::stdin().take(yaml::MAX_INPUT_BYTES as u64 + 1).read_to_end(&mut bytes) {
                Ok(_) => match decode("<stdin>", bytes) {
                    Ok(text) => texts.add(Ok(Arc::new(Source::new("<stdin>", Some(text))))),
                    Err(e) => texts.add(Err(e)),
                },
                Err(e) => texts.add(Err(io_error("<stdin>", &e))),
            }
            continue;
        }
        match expand(path) {
            Ok(files) => {
                for file in files {
                    texts.add(read_text(&file));
                }
            }
            Err(e) => texts.add(Err(e)),
        }
    }
    texts
}

/// The built-in catalog's texts (see [`texts`]).
pub fn builtin_texts() -> Texts {
    let mut texts = Texts::default();
    for (name, text) in BUILTIN {
        texts.add(Ok(Arc::new(Source::new(format!("builtin:{name}"), Some(text.to_string())))));
    }
    texts
}

/// Texts read, in input order, or why one could not be read.
#[derive(Debug, Default)]
pub struct Texts {
    items: Vec<Result<Arc<Source>, Diagnostic>>,
    pub sources: Sources,
}

impl Texts {
    fn add(&mut self, item: Result<Arc<Source>, Diagnostic>) {
        if let Ok(s) = &item {
            self.sources.add(s);
        }
        self.items.push(item);
    }

    /// Every text parsed: the documents, or the errors.
    pub fn parse(self) -> Input {
        let mut input = Input { sources: self.sources, ..Input::default() };
        for item in self.items {
            match item {
                Ok(source) => input.add(parse_source(source), None),
                Err(e) => input.add(Err(e), None),
            }
        }
        input
    }

    /// The documents of every text, in order, parsed a batch at a time as they are taken; the
    /// read and parse errors, in input order, from [`Stream::errors`] once it is used up.
    pub fn stream(self) -> Stream {
        Stream { items: self.items.into_iter(), current: None, buffer: Vec::new().into_iter(), errors: Vec::new() }
    }
}

/// See [`Texts::stream`].
pub struct Stream {
    items: std::vec::IntoIter<Result<Arc<Source>, Diagnostic>>,
    current: Option<SourceDocs>,
    buffer: std::vec::IntoIter<Document>,
    errors: Vec<Diagnostic>,
}

impl Iterator for Stream {
    type Item = Document;

    fn next(&mut self) -> Option<Document> {
        loop {
            if let Some(d) = self.buffer.next() {
                return Some(d);
            }
            match self.current.as_mut().map(SourceDocs::next_batch) {
                Some(Some(Ok(docs))) => self.buffer = docs.into_iter(),
                Some(Some(Err(e))) => {
                    self.errors.push(e);
                    self.current = None;
                }
                Some(None) => self.current = None,
                None => match self.items.next()? {
                    Ok(source) => match SourceDocs::new(source) {
                        Ok(s) => self.current = Some(s),
                        Err(e) => self.errors.push(e),
                    },
                    Err(e) => self.errors.push(e),
                },
            }
        }
    }
}

impl Stream {
    /// The read and parse errors, in input order (every document taken first).
    pub fn errors(mut self) -> Vec<Diagnostic> {
        for _ in self.by_ref() {}
        self.errors
    }
}

/// The text of one file, or of stdin for `-`, read as [`paths`] reads it (the same limits and
/// errors); `None` for a folder. [`parsed`] then gives what [`paths`] would have.
pub fn text_of(path: &Path) -> Option<Result<Arc<Source>, Diagnostic>> {
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        return Some(match std::io::stdin().take(yaml::MAX_INPUT_BYTES as u64 + 1).read_to_end(&mut bytes) {
            Ok(_) => decode("<stdin>", bytes).map(|text| Arc::new(Source::new("<stdin>", Some(text)))),
            Err(e) => Err(io_error("<stdin>", &e)),
        });
    }
    if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    Some(read_text(path))
}

/// What [`paths`] makes of one source [`text_of`] read.
pub fn parsed(source: Arc<Source>) -> Input {
    let mut input = Input::default();
    input.add(parse_source(source.clone()), Some(&source));
    input
}

/// Reads and parses one file.
pub fn read_file(file: &Path) -> Result<Vec<Document>, Diagnostic> {
    parse_source(read_text(file)?)
}

/// Reads one file's text (refused when too large or not UTF-8).
fn read_text(file: &Path) -> Result<Arc<Source>, Diagnostic> {
    let name = file.display().to_string();
    let meta = fs::metadata(file).map_err(|e| io_error(&name, &e))?;
    if meta.len() > yaml::MAX_INPUT_BYTES as u64 {
        return Err(too_large(&name, meta.len()));
    }
    let bytes = fs::read(file).map_err(|e| io_error(&name, &e))?;
    let text = decode(&name, bytes)?;
    Ok(Arc::new(Source::new(name, Some(text))))
}

fn too_large(name: &str, len: u64) -> Diagnostic {
    Diagnostic::new(&INPUT_TOO_LARGE, format!("{len} bytes; the limit is {} bytes", yaml::MAX_INPUT_BYTES))
        .with_file(name.to_string(), None, None)
        .with_help("split the input into smaller files")
}

/// Bytes to text: the size limit and UTF-8.
fn decode(name: &str, bytes: Vec<u8>) -> Result<String, Diagnostic> {
    if bytes.len() > yaml::MAX_INPUT_BYTES {
        return Err(too_large(name, bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        Diagnostic::new(&INPUT_NOT_UTF8, format!("not valid UTF-8 (invalid byte at offset {})", e.utf8_error().valid_up_to()))
            .with_file(name.to_string(), None, None)
            .with_help("save the file as UTF-8")
    })
}

/// Parses the text of a source into documents (empty documents left out; the index of each is
/// its place among the others, as the line index counts them). A `List` document is unpacked
/// into its items.
pub fn parse_source(source: Arc<Source>) -> Result<Vec<Document>, Diagnostic> {
    let mut pieces = SourceDocs::new(source)?;
    let mut docs = Vec::new();
    while let Some(batch) = pieces.next_batch() {
        docs.extend(batch?);
    }
    Ok(docs)
}

/// The documents of one source a batch at a time ([`yaml::Pieces`]), as [`parse_source`] gives
/// them.
struct SourceDocs {
    source: Arc<Source>,
    pieces: yaml::Pieces,
    /// Documents of the source so far (the next one's index).
    index: usize,
}

impl SourceDocs {
    fn new(source: Arc<Source>) -> Result<SourceDocs, Diagnostic> {
        let pieces = yaml::Pieces::new(source.text().unwrap_or_default()).map_err(|e| malformed(&source, e))?;
        Ok(SourceDocs { source, pieces, index: 0 })
    }

    fn next_batch(&mut self) -> Option<Result<Vec<Document>, Diagnostic>> {
        let values = match self.pieces.next_batch(self.source.text().unwrap_or_default())? {
            Ok(v) => v,
            Err(e) => return Some(Err(malformed(&self.source, e))),
        };
        let mut docs = Vec::with_capacity(values.len());
        for value in values {
            let index = self.index;
            self.index += 1;
            match list_items(value) {
                Ok(items) => docs.extend(items.into_iter().enumerate().map(|(i, v)| Document {
                    source: self.source.clone(),
                    index,
                    within: format!("items[{i}]"),
                    value: v,
                })),
                Err(value) => docs.push(Document::new(self.source.clone(), index, value)),
            }
        }
        Some(Ok(docs))
    }
}

/// A source whose text does not parse, or holds a string over [`yaml::MAX_SCALAR_BYTES`].
fn malformed(source: &Source, e: yaml::YamlError) -> Diagnostic {
    let d = if e.too_long {
        Diagnostic::new(&INPUT_SCALAR_TOO_LONG, e.message)
            .with_file(source.name.clone(), None, e.line)
            .with_help("shorten the value at that line; a long text belongs in a file the job reads, not in a field")
    } else {
        match template::in_text(source.text().unwrap_or_default(), e.line) {
            Some(m) => Diagnostic::new(
                &INPUT_MALFORMED_YAML,
                format!("{}; line {} holds `{}`: {}", e.message, m.line, m.text, template::render_first(m.engine, &source.name)),
            )
            .with_file(source.name.clone(), None, e.line)
            .with_help(match m.engine {
                template::Engine::Helm => {
                    "a chart's templates are not manifests: check the output of `helm template`, not the chart's files"
                }
                template::Engine::Envsubst => {
                    "a file for envsubst is not a manifest until its variables are substituted: check the output of `envsubst`"
                }
            }),
            None => {
                let tab = e.message.contains("tab");
                Diagnostic::new(&INPUT_MALFORMED_YAML, e.message).with_file(source.name.clone(), None, e.line).with_help(if tab {
                    "replace the tab with spaces: YAML indents with spaces only"
                } else {
                    "fix the YAML syntax at that line"
                })
            }
        }
    };
    // The parser's column is where it gave up: one character is underlined there.
    Diagnostic { column: e.column.filter(|c| *c >= 1), width: e.column.filter(|c| *c >= 1).map(|_| 1), ..d }
}

/// The documents, each item of a `kind: List` document as a document of its own (`within`:
/// `items[i]`); other documents as they are.
pub fn unpacked<'a>(docs: impl IntoIterator<Item = &'a Document>) -> Vec<Document> {
    docs.into_iter()
        .flat_map(|d| match list_items(d.value.clone()) {
            Ok(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, value)| Document { within: format!("items[{i}]"), value, ..d.clone() })
                .collect::<Vec<_>>(),
            Err(_) => vec![d.clone()],
        })
        .collect()
}

/// The items of a list document: `kind: List` (what `kubectl get ... -o yaml` and `-o json`
/// print), or a typed list (`NodeList`, `PodList`, `ClusterTrainingRuntimeList`: a kind ending in
/// `List` with an `apiVersion`), whose `items` is a list. Anything else comes back as it was.
pub fn list_items(value: Value) -> Result<Vec<Value>, Value> {
    let is_list = value.get("kind").and_then(Value::as_str).is_some_and(|k| {
        k == "List" || (k.len() > 4 && k.ends_with("List") && k != "ResourceList" && value.get("apiVersion").is_some_and(Value::is_string))
    }) && value.get("items").is_some_and(Value::is_array);
    if !is_list {
        return Err(value);
    }
    match value {
        Value::Object(mut m) => match m.remove("items") {
            Some(Value::Array(items)) => Ok(items),
            _ => Err(Value::Object(m)),
        },
        other => Err(other),
    }
}

fn io_error(name: &str, e: &std::io::Error) -> Diagnostic {
    Diagnostic::new(&INPUT_UNREADABLE, format!("cannot read: {e}")).with_file(name.to_string(), None, None)
}

/// A file stays a file; a folder becomes its YAML and JSON files, recursively, sorted.
fn expand(path: &Path) -> Result<Vec<PathBuf>, Diagnostic> {
    let name = path.display().to_string();
    let meta = fs::metadata(path).map_err(|e| io_error(&name, &e))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = fs::read_dir(&dir).map_err(|e| io_error(&dir.display().to_string(), &e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io_error(&dir.display().to_string(), &e))?;
            let p = entry.path();
            let file_name = entry.file_name();
            if file_name.to_string_lossy().starts_with('.') {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json")) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_of_texts_gives_what_parsing_them_first_gives() {
        let dir = tempfile::tempdir().unwrap();
        let good = "a: 1\n---\nkind: List\nitems: [{b: 2}, {c: 3}]\n---\nd: 4\n".repeat(3);
        std::fs::write(dir.path().join("1-good.yaml"), &good).unwrap();
        std::fs::write(dir.path().join("2-bad.yaml"), "a: 1\n---\nb: [1, 2\n").unwrap();
        std::fs::write(dir.path().join("3-not-utf8.yaml"), b"a: \xff\n").unwrap();
        std::fs::write(dir.path().join("4-good.yaml"), "e: 5\n").unwrap();
        let paths = [dir.path().to_path_buf(), dir.path().join("missing.yaml")];
        let eager = texts(&paths).parse();
        let mut stream = texts(&paths).stream();
        let docs: Vec<(String, usize, String, Value)> =
            stream.by_ref().map(|d| (d.source.name.clone(), d.index, d.within.clone(), d.value)).collect();
        let errors = stream.errors();
        let want: Vec<(String, usize, String, Value)> =
            eager.documents.into_iter().map(|d| (d.source.name.clone(), d.index, d.within.clone(), d.value)).collect();
        // The documents of the bad file before its error are given too (the caller throws the
        // whole away on a read error); the good files' are the same, in the same order.
        let without_bad: Vec<_> = docs.iter().filter(|d| !d.0.ends_with("2-bad.yaml")).cloned().collect();
        assert_eq!(without_bad, want);
        assert_eq!(errors, eager.errors, "the same errors, in input order");
        assert_eq!(errors.iter().map(|e| e.rule.id).collect::<Vec<_>>(), ["input/malformed-yaml", "input/not-utf8", "input/unreadable"]);
    }

    #[test]
    fn malformed_yaml_names_file_and_line() {
        let src = Arc::new(Source::new("bad.yaml", Some("a: 1\nb: [1, 2\nc: 3\n".into())));
        let err = parse_source(src).unwrap_err();
        assert_eq!(err.file.as_deref(), Some("bad.yaml"));
        assert_eq!(err.rule, &INPUT_MALFORMED_YAML);
        assert!(err.line.is_some());
    }

    #[test]
    fn documents_keep_their_index() {
        let src = Arc::new(Source::new("x.yaml", Some("a: 1\n---\nb: 2\n".into())));
        let docs = parse_source(src).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].index, 1);
        assert_eq!(docs[1].source.line(1, "b"), Some(3));
    }

    #[test]
    fn lists_are_unpacked_and_their_items_keep_their_lines() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\nmetadata:\n  resourceVersion: \"\"\n---\nkind: NodeList\napiVersion: v1\nitems: []\n---\nkind: ResourceList\nitems: []\n";
        let docs = parse_source(Arc::new(Source::new("l.yaml", Some(text.into())))).unwrap();
        let names: Vec<&str> = docs.iter().map(|d| d.value.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("-")).collect();
        assert_eq!(names, ["a", "b", "-"], "two items, an empty NodeList, and a ResourceList that is not a List");
        assert_eq!(docs[1].place().line("metadata.name"), Some(10));
        assert_eq!(docs[0].place().line(""), Some(4));
        assert_eq!(docs[2].index, 2);
    }

    #[test]
    fn an_empty_document_does_not_shift_the_lines_of_later_ones() {
        let src = Arc::new(Source::new("x.yaml", Some("---\n---\na: 1\n---\n---\nb: 2\n".into())));
        let docs = parse_source(src).unwrap();
        assert_eq!(docs.len(), 2);
        for (doc, key, line) in [(&docs[0], "a", 3), (&docs[1], "b", 6)] {
            assert_eq!(doc.source.line(doc.index, key), Some(line), "{key}");
        }
    }
}
