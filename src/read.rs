//! Read stage: files, folders, stdin or the built-in catalog -> YAML documents, each with the
//! source it came from (for error locations). Nothing here knows what the documents mean.

use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::diag::Diagnostic;
use crate::yaml::{self, LineIndex};

/// Where documents came from: a file as the user named it, `<stdin>`, or a built-in file.
#[derive(Debug)]
pub struct Source {
    pub name: String,
    text: Option<String>,
    lines: OnceLock<LineIndex>,
}

impl Source {
    pub fn new(name: impl Into<String>, text: Option<String>) -> Self {
        Source { name: name.into(), text, lines: OnceLock::new() }
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
        let text = self.text.as_deref()?;
        self.lines.get_or_init(|| LineIndex::new(text)).line(doc, path)
    }
}

/// One YAML document and where it came from.
#[derive(Debug, Clone)]
pub struct Document {
    pub source: Arc<Source>,
    /// Index of the document in its source (0-based).
    pub index: usize,
    pub value: Value,
}

impl Document {
    /// Places a diagnostic in this document: file, document index and the line of its field.
    pub fn locate(&self, d: Diagnostic) -> Diagnostic {
        self.place().locate(d)
    }

    /// Where this document is, without its value (cheap to keep for every generated runtime).
    pub fn place(&self) -> Place {
        Place { source: self.source.clone(), index: self.index }
    }
}

/// A document's place: its source and its index there.
#[derive(Debug, Clone)]
pub struct Place {
    pub source: Arc<Source>,
    pub index: usize,
}

impl Place {
    /// Places a diagnostic here: file, document index and the line of its field.
    pub fn locate(&self, mut d: Diagnostic) -> Diagnostic {
        let line = self.source.line(self.index, d.field.as_deref().unwrap_or(""));
        d.file = Some(self.source.name.clone());
        d.index = Some(self.index);
        d.line = line;
        d
    }
}

/// The built-in catalog: every file under `catalog/runtimes/`, embedded in the binary.
/// A test checks that this list matches the folder.
pub const BUILTIN: &[(&str, &str)] = &[
    ("catalog/runtimes/defaults.yaml", include_str!("../catalog/runtimes/defaults.yaml")),
    ("catalog/runtimes/cpu.yaml", include_str!("../catalog/runtimes/cpu.yaml")),
    ("catalog/runtimes/gpu-gke.yaml", include_str!("../catalog/runtimes/gpu-gke.yaml")),
    ("catalog/runtimes/gpu-generic.yaml", include_str!("../catalog/runtimes/gpu-generic.yaml")),
    ("catalog/runtimes/tpu-v5e.yaml", include_str!("../catalog/runtimes/tpu-v5e.yaml")),
    ("catalog/runtimes/tpu-v5p.yaml", include_str!("../catalog/runtimes/tpu-v5p.yaml")),
    ("catalog/runtimes/tpu-v6e.yaml", include_str!("../catalog/runtimes/tpu-v6e.yaml")),
];

/// Documents of the built-in catalog.
pub fn builtin() -> Result<Vec<Document>, Vec<Diagnostic>> {
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for (name, text) in BUILTIN {
        match parse_source(Arc::new(Source::new(format!("builtin:{name}"), Some(text.to_string())))) {
            Ok(mut d) => docs.append(&mut d),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(docs)
    } else {
        Err(errors)
    }
}

/// Reads files, folders (recursively: `*.yaml`, `*.yml`, `*.json`, sorted) and `-` (stdin).
/// Every unreadable or malformed file is reported, not just the first.
pub fn paths(paths: &[PathBuf]) -> Result<Vec<Document>, Vec<Diagnostic>> {
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut text = String::new();
            match std::io::stdin().take(yaml::MAX_INPUT_BYTES as u64 + 1).read_to_string(&mut text) {
                Ok(_) => match parse_source(Arc::new(Source::new("<stdin>", Some(text)))) {
                    Ok(mut d) => docs.append(&mut d),
                    Err(e) => errors.push(e),
                },
                Err(e) => errors.push(io_error("<stdin>", &e)),
            }
            continue;
        }
        let files = match expand(path) {
            Ok(f) => f,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        for file in files {
            match read_file(&file) {
                Ok(mut d) => docs.append(&mut d),
                Err(e) => errors.push(e),
            }
        }
    }
    if errors.is_empty() {
        Ok(docs)
    } else {
        Err(errors)
    }
}

/// Reads and parses one file.
pub fn read_file(file: &Path) -> Result<Vec<Document>, Diagnostic> {
    let name = file.display().to_string();
    let meta = fs::metadata(file).map_err(|e| io_error(&name, &e))?;
    if meta.len() > yaml::MAX_INPUT_BYTES as u64 {
        return Err(Diagnostic::error(
            "input/too-large",
            format!("file is {} bytes; the limit is {} bytes", meta.len(), yaml::MAX_INPUT_BYTES),
        )
        .with_file(name, None, None));
    }
    let bytes = fs::read(file).map_err(|e| io_error(&name, &e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Diagnostic::error("input/not-utf8", format!("file is not valid UTF-8 (invalid byte at offset {})", e.utf8_error().valid_up_to()))
            .with_file(name.clone(), None, None)
            .with_help("save the file as UTF-8")
    })?;
    parse_source(Arc::new(Source::new(name, Some(text))))
}

/// Parses the text of a source into documents.
pub fn parse_source(source: Arc<Source>) -> Result<Vec<Document>, Diagnostic> {
    let text = source.text().unwrap_or_default();
    let values = yaml::parse_stream(text).map_err(|message| {
        let line = line_of_message(&message);
        let message = message.replace("<input>", &source.name);
        Diagnostic::error("input/malformed-yaml", message)
            .with_file(source.name.clone(), None, line)
            .with_help("fix the YAML syntax at that line")
    })?;
    Ok(values.into_iter().enumerate().map(|(index, value)| Document { source: source.clone(), index, value }).collect())
}

/// serde-saphyr messages carry "line N" or "N:M"; pull the line out for the location.
fn line_of_message(message: &str) -> Option<usize> {
    let lower = message.to_ascii_lowercase();
    if let Some(pos) = lower.find("line ") {
        let digits: String = lower[pos + 5..].chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(n) = digits.parse() {
            return Some(n);
        }
    }
    None
}

fn io_error(name: &str, e: &std::io::Error) -> Diagnostic {
    Diagnostic::error("input/unreadable", format!("cannot read: {e}")).with_file(name.to_string(), None, None)
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
    fn builtin_list_matches_the_catalog_folder() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/runtimes");
        let mut on_disk: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| format!("catalog/runtimes/{}", e.unwrap().file_name().to_string_lossy()))
            .filter(|n| n.ends_with(".yaml"))
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = BUILTIN.iter().map(|(n, _)| n.to_string()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded, "add new catalog files to read::BUILTIN");
    }

    #[test]
    fn malformed_yaml_names_file_and_line() {
        let src = Arc::new(Source::new("bad.yaml", Some("a: 1\nb: [1, 2\nc: 3\n".into())));
        let err = parse_source(src).unwrap_err();
        assert_eq!(err.file.as_deref(), Some("bad.yaml"));
        assert_eq!(err.rule, "input/malformed-yaml");
    }

    #[test]
    fn documents_keep_their_index() {
        let src = Arc::new(Source::new("x.yaml", Some("a: 1\n---\nb: 2\n".into())));
        let docs = parse_source(src).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].index, 1);
        assert_eq!(docs[1].source.line(1, "b"), Some(3));
    }
}
