//! `jax-runtimes snapshot`: what live mode reads from a cluster (`catalog/live.yaml`: nodes,
//! ComputeClasses, pods, Kueue objects, runtimes, TrainJobs), written as one `List` that
//! `fit --nodes FILE --pods FILE` reads as it reads the cluster: a cluster's state handed to
//! someone without access to it. Exit 0 written, 2 when there is no cluster to read, a list it
//! needs is refused, or the file cannot be written (nothing is written then).

use std::io::Write as _;
use std::path::PathBuf;

use super::out;
use super::shared::{LiveArgs, Said};
use crate::diag::Diagnostic;
use crate::exit::Exit;

#[derive(Debug, clap::Args)]
pub struct SnapshotArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// The file to write (`-`: stdout). Written whole or not at all.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
}

pub fn run(a: &SnapshotArgs) -> Exit {
    let mut said = Said::new(None, "snapshot");
    let code = snapshot(a, &mut said);
    said.finish(code)
}

fn snapshot(a: &SnapshotArgs, said: &mut Said) -> Exit {
    let read = match crate::live::read(&a.live.target(), "snapshot") {
        Ok(r) => r,
        Err(d) => return said.bad(&[*d], None),
    };
    if read.findings.iter().any(Diagnostic::is_error) {
        return said.bad(&read.findings, None);
    }
    said.say(&read.findings, None);
    let text = match crate::yaml::to_string(&read.list()) {
        Ok(t) => t,
        Err(e) => {
            out::error(&format!("the snapshot does not write as YAML: {e}"));
            return Exit::Usage;
        }
    };
    let code = if a.output.as_os_str() == "-" { out::stdout(&text) } else { write_whole(&a.output, &text) };
    if code == Exit::Ok {
        said.note(&format!("read from {}: {} ({} list calls)", read.origin, crate::live::counted(&read.counts), read.calls));
    }
    code
}

/// Writes `text` to `path` through a temporary file beside it, renamed into place: a reader
/// never sees half a snapshot, and a failed write leaves what was there.
fn write_whole(path: &std::path::Path, text: &str) -> Exit {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "snapshot".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()));
    match written.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Exit::Ok,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            out::error(&format!("cannot write {}: {e}", path.display()));
            Exit::Usage
        }
    }
}
