//! Output held until every runtime is checked. `render` to stdout writes nothing before the last
//! runtime has passed its checks (a pipeline must never apply half a catalog), so the YAML of
//! every runtime is kept until then: in memory up to [`IN_MEMORY_BYTES`], and beyond that in an
//! unnamed temporary file, as `sort` spills a large input. The documents come back in the order
//! they were pushed, byte for byte.

use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// Up to this many bytes of YAML are held in memory; a larger output goes to a temporary file.
pub const IN_MEMORY_BYTES: usize = 16 * 1024 * 1024;

/// YAML documents in order: the first ones in memory, the rest (once [`IN_MEMORY_BYTES`] is
/// passed) in a temporary file, with the length of each.
#[derive(Debug, Default)]
pub struct Spool {
    held: Vec<String>,
    held_bytes: usize,
    file: Option<SpoolFile>,
    limit: Option<usize>,
}

#[derive(Debug)]
struct SpoolFile {
    out: BufWriter<File>,
    lengths: Vec<usize>,
    _unlink: Unlink,
}

/// The file's path where it could not be unlinked while open: removed on drop then.
#[derive(Debug)]
struct Unlink(Option<PathBuf>);

impl Drop for Unlink {
    fn drop(&mut self) {
        if let Some(p) = &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

impl Spool {
    /// A spool that keeps at most `limit` bytes in memory (tests; [`IN_MEMORY_BYTES`] by default).
    pub fn with_limit(limit: usize) -> Spool {
        Spool { limit: Some(limit), ..Spool::default() }
    }

    /// Keeps one document. An error when the temporary file cannot be made or written (said to
    /// the user: no output is written then).
    pub fn push(&mut self, yaml: String) -> io::Result<()> {
        let limit = self.limit.unwrap_or(IN_MEMORY_BYTES);
        if self.file.is_none() && self.held_bytes + yaml.len() <= limit {
            self.held_bytes += yaml.len();
            self.held.push(yaml);
            return Ok(());
        }
        let file = match &mut self.file {
            Some(f) => f,
            None => self.file.insert(SpoolFile::new()?),
        };
        file.out.write_all(yaml.as_bytes())?;
        file.lengths.push(yaml.len());
        Ok(())
    }

    /// The documents, in order, each read back when taken (an error if the file cannot be read).
    pub fn into_documents(self) -> impl Iterator<Item = io::Result<String>> {
        let Spool { held, file, .. } = self;
        let spilled: Box<dyn Iterator<Item = io::Result<String>>> = match file {
            None => Box::new(std::iter::empty()),
            Some(f) => Box::new(f.into_documents()),
        };
        held.into_iter().map(Ok).chain(spilled)
    }
}

impl SpoolFile {
    fn new() -> io::Result<SpoolFile> {
        let dir = std::env::temp_dir();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        static SPOOLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = SPOOLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("jax-runtimes-{}-{n}-{nanos}.spool", std::process::id()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot make a temporary file in {} for the output: {e}", dir.display())))?;
        // Unlinked while open where the system allows it: nothing is left behind, even on a kill.
        let unlink = Unlink(std::fs::remove_file(&path).err().map(|_| path));
        Ok(SpoolFile { out: BufWriter::with_capacity(1 << 16, file), lengths: Vec::new(), _unlink: unlink })
    }

    fn into_documents(self) -> impl Iterator<Item = io::Result<String>> {
        let SpoolFile { out, lengths, _unlink: unlink } = self;
        let mut reader = out.into_inner().map_err(io::IntoInnerError::into_error).and_then(|mut f| {
            f.seek(SeekFrom::Start(0))?;
            Ok(BufReader::with_capacity(1 << 16, f))
        });
        let mut failed = false;
        lengths.into_iter().map(move |len| {
            // The removal guard lives as long as the reading.
            let _ = &unlink;
            if failed {
                return Err(io::Error::other("the temporary output file could not be read"));
            }
            let r = match reader.as_mut() {
                Ok(r) => r,
                Err(e) => {
                    failed = true;
                    return Err(io::Error::new(e.kind(), e.to_string()));
                }
            };
            let mut buf = vec![0; len];
            if let Err(e) = r.read_exact(&mut buf) {
                failed = true;
                return Err(e);
            }
            String::from_utf8(buf).map_err(io::Error::other)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("kind: X\nname: n-{i}\ndata: {}\n", "ü".repeat(i % 7))).collect()
    }

    #[test]
    fn documents_come_back_in_order_from_memory_and_from_the_file() {
        for limit in [0, 50, 1_000, usize::MAX] {
            let mut s = Spool::with_limit(limit);
            for d in docs(200) {
                s.push(d).unwrap();
            }
            let back: Vec<String> = s.into_documents().collect::<io::Result<_>>().unwrap();
            assert_eq!(back, docs(200), "limit {limit}");
        }
    }

    #[test]
    fn a_spilled_spool_leaves_no_file_behind() {
        let before = spool_files();
        let mut s = Spool::with_limit(0);
        s.push("a: 1\n".into()).unwrap();
        let back: Vec<String> = s.into_documents().collect::<io::Result<_>>().unwrap();
        assert_eq!(back, ["a: 1\n"]);
        assert_eq!(spool_files(), before);
    }

    fn spool_files() -> usize {
        let me = format!("jax-runtimes-{}-", std::process::id());
        std::fs::read_dir(std::env::temp_dir())
            .map_or(0, |d| d.flatten().filter(|e| e.file_name().to_string_lossy().starts_with(&me)).count())
    }
}
