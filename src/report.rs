//! Writes findings for people (text on stderr) and for tools (JSON).

use clap::ValueEnum;

use crate::diag::Diagnostic;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// `error[rule]: file:line: Kind/name: `field`: message` and a help line.
    Text,
    /// A JSON array of findings.
    Json,
}

/// Prints findings to stderr.
pub fn print(diags: &[Diagnostic], format: Format) {
    if diags.is_empty() {
        return;
    }
    match format {
        Format::Text => {
            for d in diags {
                eprintln!("{d}");
            }
        }
        Format::Json => eprintln!("{}", serde_json::to_string_pretty(diags).expect("findings serialize")),
    }
}
