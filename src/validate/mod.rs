//! Validate stage: checks Trainer runtimes, generated or hand-written.
//! (Being built out: structure, CEL, admission, ecosystem and accelerator rules.)

use serde_json::Value;

use crate::diag::Diagnostic;

/// Checks a runtime the generator produced. Every finding here is a generator bug or a
/// catalog value that slipped past resolve.
pub fn generated(_object: &Value) -> Vec<Diagnostic> {
    Vec::new()
}
