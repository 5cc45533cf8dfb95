//! Report stage: findings -> text for people (with the offending line of the user's file shown
//! by miette, from the sources the command read: files, stdin, the built-in catalog) and JSON for
//! tools. Writing the text where it belongs is the front door's job.

use std::fmt;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceSpan, ThemeCharacters, ThemeStyles};

use crate::diag::{Diagnostic, Severity};
use crate::read::Sources;

/// How findings look as text: with ANSI colors or without, with box-drawing characters around
/// the source line or plain ASCII (for logs that mangle anything else). The default is what a
/// pipe gets: box drawing, no color.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
    pub ascii: bool,
}

impl Style {
    /// No color, ASCII only.
    pub const PLAIN: Style = Style { color: false, ascii: true };

    fn theme(self) -> GraphicalTheme {
        GraphicalTheme {
            characters: if self.ascii { ThemeCharacters::ascii() } else { ThemeCharacters::unicode() },
            styles: if self.color { ThemeStyles::ansi() } else { ThemeStyles::none() },
        }
    }
}

/// Every finding as text, in order (box drawing, no color).
pub fn text_all(diags: &[Diagnostic], sources: &Sources) -> String {
    text_all_styled(diags, sources, Style::default())
}

/// Every finding as text, in order, in a style.
pub fn text_all_styled(diags: &[Diagnostic], sources: &Sources, style: Style) -> String {
    diags.iter().map(|d| text_styled(d, sources, style)).collect()
}

/// The findings as one JSON array, ending in a newline.
pub fn json(diags: &[Diagnostic]) -> String {
    serde_json::to_string_pretty(diags).map(|s| s + "\n").unwrap_or_else(|e| format!("[{{\"message\": \"{e}\"}}]\n"))
}

/// One finding as text: the one-line summary and help, then (for errors and warnings) the
/// source line it points at when its source was read.
pub fn text(d: &Diagnostic, sources: &Sources) -> String {
    text_styled(d, sources, Style::default())
}

/// One finding as text, in a style: with color, the severity is painted (red, yellow, cyan).
pub fn text_styled(d: &Diagnostic, sources: &Sources, style: Style) -> String {
    let summary = d.to_string();
    let mut out = match summary.strip_prefix(&d.severity.to_string()).filter(|_| style.color) {
        Some(rest) => {
            let paint = match d.severity {
                Severity::Error => "\x1b[1;31m",
                Severity::Warning => "\x1b[1;33m",
                Severity::Info => "\x1b[1;36m",
            };
            format!("{paint}{}\x1b[0m{rest}\n", d.severity)
        }
        None => format!("{summary}\n"),
    };
    // An info finding is one line: no source snippet.
    if d.severity == Severity::Info {
        return out;
    }
    if let Some(snippet) = snippet(d, sources, style) {
        out.push_str(&snippet);
    }
    out
}

/// A file's text and where each line starts, kept for the next finding in the same file: a
/// large file with many findings is read and scanned once, not once per finding.
struct Lines {
    file: String,
    text: String,
    starts: Vec<usize>,
}

thread_local! {
    static LAST_FILE: std::cell::RefCell<Option<Lines>> = const { std::cell::RefCell::new(None) };
}

/// Lines `first..=last` (0-based, clamped) of `file`, and the index of the first one kept.
fn lines_of(file: &str, sources: &Sources, first: usize, last: usize) -> Option<(String, usize)> {
    LAST_FILE.with(|cell| {
        let mut cached = cell.borrow_mut();
        if cached.as_ref().is_none_or(|c| c.file != file) {
            let text = sources.text(file)?.to_string();
            let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
            *cached = Some(Lines { file: file.to_string(), text, starts });
        }
        let c = cached.as_ref()?;
        let count = c.starts.len();
        let first = first.min(count - 1);
        let end = c.starts.get(last + 1).copied().unwrap_or(c.text.len());
        Some((c.text.get(c.starts[first]..end)?.to_string(), first))
    })
}

/// The finding's line of its file, rendered by miette, with the finding's value underlined (the
/// whole line, less its indent, when the columns are not known).
fn snippet(d: &Diagnostic, sources: &Sources, style: Style) -> Option<String> {
    let (file, line) = (d.file.as_ref()?, d.line?);
    // Only the line and one line of context either side reach miette (it scans its source from
    // the start for every report).
    let (text, first_line) = lines_of(file, sources, line.saturating_sub(2), line)?;
    let start: usize = text.split_inclusive('\n').take(line.checked_sub(1 + first_line)?).map(str::len).sum();
    let this = text.get(start..)?.lines().next()?;
    let indent = this.len() - this.trim_start().len();
    let whole = (indent, this.trim().len().max(1));
    // The value's characters, as bytes of this line; the whole line when they do not fit it.
    let marked = match (d.column, d.width) {
        (Some(col), Some(width)) if col >= 1 && width >= 1 => {
            let mut bytes = this.char_indices().map(|(i, _)| i).chain(std::iter::once(this.len()));
            let from = bytes.nth(col - 1);
            let to = bytes.nth(width - 1);
            match (from, to) {
                (Some(a), Some(b)) if b > a => (a, b - a),
                _ => whole,
            }
        }
        _ => whole,
    };
    let label = d.field.clone().unwrap_or_else(|| "here".into());
    let src = Window { name: file.clone(), text, first_line };
    let report = Snippet { src, span: (start + marked.0, marked.1).into(), label };
    let theme = style.theme();
    let frame_start = format!("{}{}{}", theme.characters.ltop, theme.characters.hbar, theme.characters.lbox);
    let mut out = String::new();
    GraphicalReportHandler::new_themed(theme)
        .with_width(usize::MAX)
        .with_context_lines(1)
        .without_syntax_highlighting()
        .render_report(&mut out, &report)
        .ok()?;
    // Keep only the source frame: the summary line is printed above in a stable, greppable form.
    let frame: Vec<&str> = out.lines().skip_while(|l| !strip_ansi(l).trim_start().starts_with(&frame_start)).collect();
    if frame.is_empty() {
        return None;
    }
    Some(frame.join("\n") + "\n")
}

/// A line without its ANSI color sequences (`ESC [ ... m`).
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A few lines of a file standing in for all of it; line numbers are those of the file.
#[derive(Debug)]
struct Window {
    name: String,
    text: String,
    /// 0-based line of the file that `text` starts with.
    first_line: usize,
}

impl miette::SourceCode for Window {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let inner = self.text.read_span(span, before, after)?;
        Ok(Box::new(miette::MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            inner.column(),
            inner.line_count(),
        )))
    }
}

#[derive(Debug)]
struct Snippet {
    src: Window,
    span: SourceSpan,
    label: String,
}

impl fmt::Display for Snippet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("at")
    }
}

impl std::error::Error for Snippet {}

impl miette::Diagnostic for Snippet {
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.src)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(Some(self.label.clone()), self.span))))
    }
}
