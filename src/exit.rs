//! Exit codes, one table for every command and the KRM function: 0 success (warnings allowed),
//! 1 findings (errors in the input, a stale `--check`), 2 usage or I/O problems.

use crate::diag::Diagnostic;
use crate::rules::input::INPUT_UNREADABLE;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done; warnings and infos allowed.
    Ok = 0,
    /// The input has errors, or `--check` found a stale directory.
    Findings = 1,
    /// Bad arguments, unreadable paths, I/O errors, input that is not what the command reads.
    Usage = 2,
}

impl Exit {
    pub fn code(self) -> i32 {
        self as i32
    }

    /// 1 when any finding is an error, else 0.
    pub fn from_findings(diags: &[Diagnostic]) -> Exit {
        if crate::diag::has_errors(diags) {
            Exit::Findings
        } else {
            Exit::Ok
        }
    }

    /// The one read-error policy: a path that cannot be read is a usage error (2); a file that
    /// was read but is not valid input (not UTF-8, too large, malformed YAML) is a finding (1).
    pub fn after_read_errors(diags: &[Diagnostic]) -> Exit {
        if diags.iter().any(|d| std::ptr::eq(d.rule, &INPUT_UNREADABLE)) {
            Exit::Usage
        } else {
            Exit::Findings
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::input::{INPUT_MALFORMED_YAML, INPUT_NOT_UTF8, INPUT_TOO_LARGE};

    #[test]
    fn unreadable_paths_are_usage_errors_and_bad_content_is_a_finding() {
        let d = |r| Diagnostic::new(r, "x");
        assert_eq!(Exit::after_read_errors(&[d(&INPUT_NOT_UTF8)]), Exit::Findings);
        assert_eq!(Exit::after_read_errors(&[d(&INPUT_MALFORMED_YAML), d(&INPUT_TOO_LARGE)]), Exit::Findings);
        assert_eq!(Exit::after_read_errors(&[d(&INPUT_NOT_UTF8), d(&INPUT_UNREADABLE)]), Exit::Usage);
        assert_eq!(Exit::Usage.code(), 2);
    }
}
