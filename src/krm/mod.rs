//! The KRM function front door: a ResourceList on stdin ([`crate::resource_list`]) -> the
//! generator ([`generate`]: runtimes from the package's catalog, upserted and pruned) or, with a
//! `JaxRuntimeValidation` functionConfig, the validator ([`validate`]: findings, items unchanged)
//! -> a ResourceList with `results` on stdout, human text on stderr, and the exit code.
//!
//! The rules the generator keeps (functions/README.md has the user-facing version):
//! - items that are not ours pass through, in order, with every annotation kept (kpt maps
//!   comments and field order back through `internal.config.kubernetes.io/id`);
//! - catalog objects come from `items` (kpt: the whole package) and `functionConfig` (kustomize
//!   generators: only their own config), are marked `local-config` so kpt keeps their files, and
//!   reach the pipeline without orchestrator annotations ([`annotations`]);
//! - a generated runtime carries the `app.kubernetes.io/managed-by: jax-runtimes` label and the
//!   `jax-runtimes.dev/source` annotation; only objects with both are ever replaced or pruned,
//!   and a same-named object without them is an error, never overwritten;
//! - output is a function of input alone: running on its own output gives the same bytes.

use std::io::{Read, Write};

use crate::catalog::{self, Identity, Kind};
use crate::diag::Diagnostic;
use crate::exit::Exit;
use crate::resource_list::{self, ResourceList};
use crate::rules::krm::{KRM_INPUT_TOO_LARGE, KRM_NOT_UTF8, KRM_UNREADABLE_INPUT, KRM_WRITE};
use crate::yaml;

pub mod annotations;
pub mod generate;
mod output;
pub mod validate;

pub use output::Output;

/// The KRM entry point: reads a ResourceList from `input`, runs the function, writes the
/// ResourceList to `output` and the findings to `stderr`. Returns the exit code.
pub fn run(mut input: impl Read, mut output: impl Write, stderr: &mut dyn Write) -> Exit {
    let mut bytes = Vec::new();
    let read = read_chunked(input.by_ref().take(yaml::MAX_INPUT_BYTES as u64 + 1), &mut bytes);
    let parsed = match read {
        Err(e) => Err(Diagnostic::new(&KRM_UNREADABLE_INPUT, format!("cannot read standard input: {e}"))),
        Ok(_) if bytes.len() > yaml::MAX_INPUT_BYTES => {
            Err(Diagnostic::new(&KRM_INPUT_TOO_LARGE, format!("the ResourceList is over the limit of {} bytes", yaml::MAX_INPUT_BYTES)))
        }
        Ok(_) => match String::from_utf8(bytes) {
            Ok(text) => resource_list::parse(&text),
            Err(e) => Err(Diagnostic::new(
                &KRM_NOT_UTF8,
                format!("the ResourceList is not UTF-8 (invalid byte at offset {})", e.utf8_error().valid_up_to()),
            )),
        },
    };
    let out = match parsed {
        Ok(list) => process(list),
        // Nothing can be passed through. The non-zero exit makes kpt and kustomize discard the
        // (empty) items; the result says why.
        Err(d) => Output { list: ResourceList::default(), diagnostics: vec![d], exit: Exit::Usage },
    };
    for d in crate::diag::sorted(&crate::validate::kubernetes::summarize_name_lengths(&out.diagnostics)) {
        let _ = writeln!(stderr, "{d}");
    }
    let text = match resource_list::write(&out.list, &out.diagnostics) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(stderr, "{}", Diagnostic::new(&KRM_WRITE, format!("cannot serialize the ResourceList: {e}")));
            return Exit::Usage;
        }
    };
    if let Err(e) = output.write_all(text.as_bytes()).and_then(|()| output.flush()) {
        let _ = writeln!(stderr, "{}", Diagnostic::new(&KRM_WRITE, format!("cannot write standard output: {e}")));
        return Exit::Usage;
    }
    out.exit
}

/// Reads all of `input` into `out` without growing one buffer by doubling (which holds the old
/// and the new buffer at once: up to 3x a large input): chunks, then one buffer of the exact size,
/// each chunk freed once copied.
fn read_chunked(mut input: impl Read, out: &mut Vec<u8>) -> std::io::Result<usize> {
    const CHUNK: usize = 8 * 1024 * 1024;
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut chunk = Vec::with_capacity(CHUNK);
        let n = input.by_ref().take(CHUNK as u64).read_to_end(&mut chunk)?;
        if n == 0 {
            break;
        }
        chunks.push(chunk);
    }
    let total: usize = chunks.iter().map(Vec::len).sum();
    out.reserve_exact(total);
    for chunk in chunks.drain(..) {
        out.extend_from_slice(&chunk);
    }
    Ok(total)
}

/// The function itself: validates with a `JaxRuntimeValidation` functionConfig, else generates.
pub fn process(list: ResourceList) -> Output {
    let validation = list.function_config.as_ref().is_some_and(|fc| catalog::identify(fc.meta.gvk()) == Identity::Ours(Kind::Validation));
    if validation {
        validate::process(list)
    } else {
        generate::process(list)
    }
}

#[cfg(test)]
mod tests;
