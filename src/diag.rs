//! Diagnostics: the one shape every stage reports problems in (catalog errors, validation
//! findings, KRM results), so that the CLI, the KRM adapter and the docs all agree. A diagnostic
//! is built from a registered [`Rule`]; its place (file, line, object, field) is attached by the
//! stage that knows it, by wrapping.

use std::fmt;

use serde::{Serialize, Serializer};

pub use crate::rules::{Moment, Rule, Severity, Teller};

/// The Kubernetes object a finding is about.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

impl ObjectRef {
    pub fn new(kind: impl Into<String>, name: impl Into<String>) -> Self {
        ObjectRef { kind: kind.into(), name: name.into(), ..Default::default() }
    }

    /// Reads apiVersion, kind, metadata.name and metadata.namespace from an untyped object.
    pub fn of(value: &serde_json::Value) -> Self {
        let s = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).unwrap_or_default().to_string();
        ObjectRef {
            api_version: s(value.get("apiVersion")),
            kind: s(value.get("kind")),
            name: s(value.pointer("/metadata/name")),
            namespace: value.pointer("/metadata/namespace").and_then(|v| v.as_str()).map(str::to_string),
        }
    }
}

impl fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.kind.is_empty() { "object" } else { &self.kind };
        let name = if self.name.is_empty() { "<unnamed>" } else { &self.name };
        match &self.namespace {
            Some(ns) => write!(f, "{kind}/{ns}/{name}"),
            None => write!(f, "{kind}/{name}"),
        }
    }
}

/// One finding: what is wrong, where, and how to fix it. In JSON (see its `Serialize`) also the
/// link to its rule's docs entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The rule, serialized as its stable id, e.g. `catalog/unknown-field`.
    pub rule: &'static Rule,
    pub message: String,
    pub object: Option<ObjectRef>,
    /// Field path in the object, dotted with `[i]` for list items: `spec.accelerator.tpu.topology`.
    pub field: Option<String>,
    /// The file the object came from, as the user named it (`<stdin>`, `builtin:catalog/x.yaml`).
    pub file: Option<String>,
    /// 1-based line in `file`, where known.
    pub line: Option<usize>,
    /// 1-based column (in characters) on `line` of the value the finding is about, where known.
    pub column: Option<usize>,
    /// How many characters from `column` the value takes: what the text report underlines.
    pub width: Option<usize>,
    /// Index of the YAML document in `file` (0-based), where known.
    pub index: Option<usize>,
    /// How to fix it.
    pub help: Option<String>,
    /// When Kubernetes refuses what it found, where the message says so (the Kubernetes rules'
    /// findings): the moment, and where in the message the clause that tells it begins.
    pub fails: Option<Fails>,
    /// The matrix row a finding about a generated runtime comes from (`model=h100, nodes=2`).
    pub row: Option<String>,
    /// The name of the runtime the finding is about, where a catalog object generated it.
    pub generated: Option<String>,
    /// The files a finding is about, where it names several (the stale files of `--check`).
    pub files: Vec<String>,
}

/// The moment a finding says Kubernetes refuses it, as data beside the words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fails {
    pub moment: Moment,
    pub teller: Teller,
    /// Byte offset of the `; <clause>` the message carries.
    pub at: usize,
}

/// The JSON shape of a finding: `severity`, `rule`, `message`, then where (`object`, `field`,
/// `file`, `line`, `column`, `index`), `help`, the generating `row` and `generated` name, the
/// `files` it names, and `docs`, the rule's entry on docs/rules.md.
impl Serialize for Diagnostic {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire<'a> {
            severity: Severity,
            rule: &'a str,
            message: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            object: Option<&'a ObjectRef>,
            #[serde(skip_serializing_if = "Option::is_none")]
            field: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            file: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            line: Option<usize>,
            #[serde(skip_serializing_if = "Option::is_none")]
            column: Option<usize>,
            #[serde(skip_serializing_if = "Option::is_none")]
            index: Option<usize>,
            #[serde(skip_serializing_if = "Option::is_none")]
            help: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            row: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            generated: Option<&'a str>,
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            files: &'a [String],
            docs: String,
        }
        Wire {
            severity: self.severity,
            rule: self.rule.id,
            message: &self.message,
            object: self.object.as_ref(),
            field: self.field.as_deref(),
            file: self.file.as_deref(),
            line: self.line,
            column: self.column,
            index: self.index,
            help: self.help.as_deref(),
            row: self.row.as_deref(),
            generated: self.generated.as_deref(),
            files: &self.files,
            docs: crate::rules::docs_url(self.rule.id),
        }
        .serialize(s)
    }
}

impl Diagnostic {
    /// A finding of `rule`, with the rule's severity.
    pub fn new(rule: &'static Rule, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: rule.severity,
            rule,
            message: message.into(),
            object: None,
            field: None,
            file: None,
            line: None,
            column: None,
            width: None,
            index: None,
            help: None,
            fails: None,
            row: None,
            generated: None,
            files: Vec::new(),
        }
    }
    /// A finding of `rule` at `field` (relative to its object; empty for the object itself),
    /// with the rule's fix as its help.
    pub fn finding(rule: &'static Rule, field: impl Into<String>, message: impl Into<String>) -> Self {
        let field: String = field.into();
        let d = Diagnostic::new(rule, message).with_help(rule.fix);
        if field.is_empty() {
            d
        } else {
            d.with_field(field)
        }
    }
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }
    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
    pub fn with_object(mut self, object: ObjectRef) -> Self {
        self.object = Some(object);
        self
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn with_file(mut self, file: impl Into<String>, index: Option<usize>, line: Option<usize>) -> Self {
        self.file = Some(file.into());
        self.index = index;
        self.line = line;
        self.column = None;
        self.width = None;
        self
    }
    /// Prefixes the field path, for findings made on a sub-object.
    pub fn under(mut self, prefix: &str) -> Self {
        self.field = Some(match self.field.take() {
            Some(f) if f.starts_with('[') => format!("{prefix}{f}"),
            Some(f) if !f.is_empty() => format!("{prefix}.{f}"),
            _ => prefix.to_string(),
        });
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Whether it says the API server refuses the object at apply: an error of the structure and
    /// CEL layers (the CRD's schema and rules, which the server enforces), or of a rule that says
    /// it fails at apply (for a rule that fails at apply or start, only at the object's own
    /// `metadata`). `validate --server` and the tests against the real API server judge by it.
    pub fn refused_at_apply(&self) -> bool {
        use crate::rules::{Layer, Moment};
        if self.severity != Severity::Error {
            return false;
        }
        if matches!(self.rule.layer, Layer::Schema | Layer::Crd | Layer::Cel) {
            return true;
        }
        // A Kueue rule's finding that restates the CRD's schema or CEL (its own moment, where the
        // rule also restates Kueue's webhook).
        if self.fails.is_some_and(|f| f.moment == Moment::KueueApply) {
            return true;
        }
        match self.fails.map(|f| f.moment).or(self.rule.fails) {
            Some(Moment::Apply) => true,
            Some(Moment::ApplyOrStart) => self.field.as_deref().is_some_and(|f| f == "metadata" || f.starts_with("metadata.")),
            _ => false,
        }
    }

    /// Ends the message with the clause that says when Kubernetes refuses it (`; <clause>`), and
    /// records the moment.
    pub fn failing(mut self, moment: Moment, teller: Teller) -> Self {
        let at = self.message.len();
        self.message = format!("{}; {}", self.message, moment.clause_for(teller));
        self.fails = Some(Fails { moment, teller, at });
        self
    }

    /// The same finding, its clause told by `teller` (the TrainJob checks restate a runtime
    /// check's finding as the TrainJob's). A finding without a moment is returned as it is.
    pub fn told_by(self, teller: Teller) -> Self {
        let Some(f) = self.fails else { return self };
        let old = format!("; {}", f.moment.clause_for(f.teller));
        let new = format!("; {}", f.moment.clause_for(teller));
        let (head, rest) = self.message.split_at_checked(f.at).unwrap_or((&self.message, ""));
        let message = match rest.strip_prefix(old.as_str()) {
            Some(tail) => format!("{head}{new}{tail}"),
            None => self.message.clone(),
        };
        Diagnostic { message, fails: Some(Fails { teller, ..f }), ..self }
    }
}

/// `error[rule]: file:line: Kind/name: field: message` and an indented help line.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]: ", self.severity, self.rule)?;
        if let Some(file) = &self.file {
            match self.line {
                Some(line) => write!(f, "{file}:{line}: ")?,
                None => match self.index {
                    Some(i) if i > 0 => write!(f, "{file} (document {}): ", i + 1)?,
                    _ => write!(f, "{file}: ")?,
                },
            }
        }
        if let Some(object) = &self.object {
            write!(f, "{object}: ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "`{field}`: ")?;
        }
        f.write_str(&self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        // Errors and warnings link their rule's docs entry (infos stay one or two lines).
        if self.severity > Severity::Info {
            write!(f, "\n  docs: {}", crate::rules::docs_url(self.rule.id))?;
        }
        Ok(())
    }
}

/// A field path in an object, built part by part rather than by hand: `spec.template`, then
/// `.field("spec")`, `.index(0)`, `.key("google.com/tpu")`. It prints (and becomes a finding's
/// `field`) as the dotted path with `[i]` for list items.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FieldPath(String);

impl FieldPath {
    /// The object itself.
    pub fn root() -> FieldPath {
        FieldPath(String::new())
    }

    /// A field of this one: `a.b` + `c` = `a.b.c`.
    pub fn field(&self, name: &str) -> FieldPath {
        FieldPath(join_path(&self.0, name))
    }

    /// A key of this map, written as it is (`google.com/tpu`, `cloud.google.com/gke-nodepool`).
    pub fn key(&self, key: &str) -> FieldPath {
        FieldPath(join_path(&self.0, key))
    }

    /// Item `i` of this list: `a.b[2]`.
    pub fn index(&self, i: usize) -> FieldPath {
        FieldPath(format!("{}[{i}]", self.0))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True for this path or one inside it.
    pub fn contains(&self, other: &str) -> bool {
        within(other, &self.0)
    }
}

impl From<&str> for FieldPath {
    /// A path as written (`spec.resources`).
    fn from(s: &str) -> FieldPath {
        FieldPath(s.to_string())
    }
}

impl From<String> for FieldPath {
    fn from(s: String) -> FieldPath {
        FieldPath(s)
    }
}

impl From<FieldPath> for String {
    fn from(p: FieldPath) -> String {
        p.0
    }
}

impl From<&FieldPath> for String {
    fn from(p: &FieldPath) -> String {
        p.0.clone()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Joins a field path and a key: `a.b` + `c` = `a.b.c`; keys that are not plain identifiers are
/// kept as they are (label keys such as `google.com/tpu`).
pub fn join_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// `field` is `parent` or inside it (`a.b[0].c` is within `a.b`, not within `a.bc`).
pub fn within(field: &str, parent: &str) -> bool {
    field.strip_prefix(parent).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// True when any finding is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// Findings in the order every command and the KRM function report them: by file, then line,
/// then column; findings without a file first; each group in the order found (a stable sort).
pub fn sorted(diags: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut v = diags.to_vec();
    v.sort_by(|a, b| (a.file.as_deref(), a.line, a.column).cmp(&(b.file.as_deref(), b.line, b.column)));
    v
}
