//! Report stage: findings -> text for people (with the offending line of the user's file shown
//! by miette, from the sources the command read: files, stdin, the built-in catalog) and JSON for
//! tools. Writing the text where it belongs is the front door's job.

use std::fmt;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceSpan};

use crate::diag::Diagnostic;
use crate::read::Sources;

/// Every finding as text, in order.
pub fn text_all(diags: &[Diagnostic], sources: &Sources) -> String {
    diags.iter().map(|d| text(d, sources)).collect()
}

/// The findings as one JSON array, ending in a newline.
pub fn json(diags: &[Diagnostic]) -> String {
    serde_json::to_string_pretty(diags).map(|s| s + "\n").unwrap_or_else(|e| format!("[{{\"message\": \"{e}\"}}]\n"))
}

/// One finding as text: the one-line summary and help, then (for errors and warnings) the
/// source line it points at when its source was read.
pub fn text(d: &Diagnostic, sources: &Sources) -> String {
    let mut out = format!("{d}\n");
    if d.severity == crate::diag::Severity::Info {
        return out;
    }
    if let Some(snippet) = snippet(d, sources) {
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

/// The finding's line of its file, rendered by miette.
fn snippet(d: &Diagnostic, sources: &Sources) -> Option<String> {
    let (file, line) = (d.file.as_ref()?, d.line?);
    // Only the line and one line of context either side reach miette (it scans its source from
    // the start for every report).
    let (text, first_line) = lines_of(file, sources, line.saturating_sub(2), line)?;
    let start: usize = text.split_inclusive('\n').take(line.checked_sub(1 + first_line)?).map(str::len).sum();
    let this = text.get(start..)?.lines().next()?;
    let indent = this.len() - this.trim_start().len();
    let len = this.trim().len().max(1);
    let label = d.field.clone().unwrap_or_else(|| "here".into());
    let src = Window { name: file.clone(), text, first_line };
    let report = Snippet { src, span: (start + indent, len).into(), label };
    let mut out = String::new();
    GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
        .with_width(usize::MAX)
        .with_context_lines(1)
        .without_syntax_highlighting()
        .render_report(&mut out, &report)
        .ok()?;
    // Keep only the source frame: the summary line is printed above in a stable, greppable form.
    let frame: Vec<&str> = out.lines().skip_while(|l| !l.trim_start().starts_with('╭')).collect();
    if frame.is_empty() {
        return None;
    }
    Some(frame.join("\n") + "\n")
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
