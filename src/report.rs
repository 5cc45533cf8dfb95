//! Report stage: findings -> text for people (with the offending line of the user's file shown
//! by miette, from the sources the command read: files, stdin, the built-in catalog) and JSON for
//! tools. Writing the text where it belongs is the front door's job.

use std::fmt;

pub mod ci;

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

/// Where each line of a file starts, kept (with the file, shared, not copied) for the next
/// finding in the same file: a large file with many findings is scanned once, not once per
/// finding, and its text is never held twice.
struct Lines {
    source: std::sync::Arc<crate::read::Source>,
    starts: Vec<usize>,
}

thread_local! {
    static LAST_FILE: std::cell::RefCell<Option<Lines>> = const { std::cell::RefCell::new(None) };
}

/// The most bytes of one line a snippet shows; a longer line is cut around the value, the cut
/// marked with `…`, so that an 80 MB one-line file gives a report of a few hundred bytes.
pub const SNIPPET_LINE_MAX: usize = 240;

/// Lines `first..=line + 1` (0-based, clamped) of `file`, each cut to [`SNIPPET_LINE_MAX`] bytes
/// (line `line` around the characters `columns` (column, width) mark, or its text less its indent,
/// the others at their start), with the bytes to underline and the column they start at.
fn window(file: &str, sources: &Sources, first: usize, line: usize, columns: Option<(usize, usize)>) -> Option<Window> {
    LAST_FILE.with(|cell| {
        let mut cached = cell.borrow_mut();
        if cached.as_ref().is_none_or(|c| c.source.name != file) {
            let source = sources.source(file)?.clone();
            let text = source.text()?;
            let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
            *cached = Some(Lines { source, starts });
        }
        let c = cached.as_ref()?;
        let text = c.source.text()?;
        let count = c.starts.len();
        let first = first.min(count - 1);
        let line_text = |i: usize| -> Option<&str> {
            let start = *c.starts.get(i)?;
            let end = c.starts.get(i + 1).map_or(text.len(), |&e| e - 1);
            text.get(start..end.max(start))
        };
        let this = line_text(line)?;
        let indent = this.len() - this.trim_start().len();
        // The value's bytes in the line: the mark, or the whole line less its indent.
        let (m_from, m_len) = columns.and_then(|(c, w)| marked_bytes(this, c, w)).unwrap_or((indent, this.trim().len().max(1)));
        let mut out = String::new();
        let mut span = (0, 0);
        for i in first..=(line + 1).min(count - 1) {
            let l = line_text(i)?;
            if i + 1 == count && l.is_empty() && i != line {
                break;
            }
            let (from, to) = if l.len() <= SNIPPET_LINE_MAX {
                (0, l.len())
            } else if i == line {
                let from = floor(l, m_from.saturating_sub(SNIPPET_LINE_MAX / 3));
                (from, floor(l, (from + SNIPPET_LINE_MAX).min(l.len())))
            } else {
                (0, floor(l, SNIPPET_LINE_MAX))
            };
            let lead = if from > 0 { "…" } else { "" };
            if i == line {
                let start = out.len() + lead.len() + m_from.saturating_sub(from).min(to - from);
                let end = out.len() + lead.len() + (m_from + m_len).clamp(from, to) - from;
                span = (start, (end - start).max(1));
            }
            out.push_str(lead);
            out.push_str(l.get(from..to)?);
            if to < l.len() {
                out.push('…');
            }
            out.push('\n');
        }
        let column = this.get(..m_from).map_or(1, |b| b.chars().count() + 1);
        Some(Window { name: file.to_string(), text: out, first_line: first, span, column })
    })
}

/// The largest char boundary of `s` at or before `at`.
fn floor(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The finding's line of its file, rendered by miette, with the finding's value underlined (the
/// whole line, less its indent, when the columns are not known); a long line cut around it.
fn snippet(d: &Diagnostic, sources: &Sources, style: Style) -> Option<String> {
    let (file, line) = (d.file.as_ref()?, d.line?);
    let line0 = line.checked_sub(1)?;
    // Only the line and one line of context either side reach miette (it scans its source from
    // the start for every report).
    let src = window(file, sources, line0.saturating_sub(1), line0, d.column.zip(d.width))?;
    let label = d.field.clone().unwrap_or_else(|| "here".into());
    let (span, column) = (src.span, src.column);
    let report = Snippet { src, span: span.into(), label };
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
    let mut frame: Vec<String> =
        out.lines().skip_while(|l| !strip_ansi(l).trim_start().starts_with(&frame_start)).map(str::to_string).collect();
    // The frame's `[file:line:column]`: the column in the file, not in the cut line.
    if let Some(head) = frame.first_mut() {
        let wanted = format!("[{file}:{line}:{column}]");
        if let (Some(a), Some(b)) = (head.find('['), head.rfind(']')) {
            if a < b {
                head.replace_range(a..=b, &wanted);
            }
        }
    }
    if frame.is_empty() {
        return None;
    }
    Some(frame.join("\n") + "\n")
}

/// The bytes of `line` that columns `column..column+width` (1-based, in characters) take.
fn marked_bytes(line: &str, column: usize, width: usize) -> Option<(usize, usize)> {
    if column == 0 || width == 0 {
        return None;
    }
    let mut bytes = line.char_indices().map(|(i, _)| i).chain(std::iter::once(line.len()));
    let from = bytes.nth(column - 1)?;
    let to = bytes.nth(width - 1)?;
    (to > from).then_some((from, to - from))
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
    /// The bytes of `text` to underline.
    span: (usize, usize),
    /// The 1-based column in the file (in characters) the underline starts at.
    column: usize,
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
