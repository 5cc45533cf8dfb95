//! `jax-runtimes install-binary PATH`: the running binary -> a copy at PATH (or PATH/jax-runtimes
//! when PATH is a folder), executable by everyone. It lets an init container of the jax-runtimes
//! image, which has no shell and no `cp`, put the binary on another container's PATH (Argo CD).

use std::io;
use std::path::{Path, PathBuf};

use super::out;
use crate::exit::Exit;

/// Arguments of `jax-runtimes install-binary`.
#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// Where to put the copy: a file path, or an existing folder (the copy is then FOLDER/jax-runtimes).
    #[arg(value_name = "PATH")]
    pub target: PathBuf,
}

/// What can go wrong while copying the binary.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("cannot find the running jax-runtimes binary: {0}")]
    CurrentExe(#[source] io::Error),
    #[error("cannot write {path}: {source}; the folder must exist and be writable by this user")]
    Write { path: PathBuf, source: io::Error },
    #[error("cannot move the copy into place at {path}: {source}")]
    Rename { path: PathBuf, source: io::Error },
}

/// `jax-runtimes install-binary`.
pub fn run(a: &InstallArgs) -> Exit {
    match install(&a.target) {
        Ok(path) => {
            out::note(&format!("installed {} ({} {})", path.display(), env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")));
            Exit::Ok
        }
        Err(e) => {
            out::error(&e.to_string());
            Exit::Usage
        }
    }
}

/// Copies the running binary to `target` (or `target/jax-runtimes` for a folder) and returns the
/// path written. The copy is written next to its final place and renamed over it, so a reader of
/// the final path never sees half a binary, and a running copy there can be replaced.
pub fn install(target: &Path) -> Result<PathBuf, InstallError> {
    let source = std::env::current_exe().map_err(InstallError::CurrentExe)?;
    let path = if target.is_dir() { target.join(env!("CARGO_PKG_NAME")) } else { target.to_path_buf() };
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| env!("CARGO_PKG_NAME").to_string());
    let partial = path.with_file_name(format!(".{file_name}.partial-{}", std::process::id()));
    let write = |e| InstallError::Write { path: path.clone(), source: e };
    if let Err(e) = std::fs::copy(&source, &partial).map_err(write).and_then(|_| executable(&partial).map_err(write)) {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    if let Err(e) = std::fs::rename(&partial, &path) {
        let _ = std::fs::remove_file(&partial);
        return Err(InstallError::Rename { path, source: e });
    }
    Ok(path)
}

/// Mode 0755: the container that runs the copy may use another user than the one that wrote it.
#[cfg(unix)]
fn executable(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn executable(_path: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_gets_the_binary_under_its_own_name_and_a_file_path_is_taken_as_is() {
        let dir = tempfile::tempdir().unwrap();
        let into_folder = install(dir.path()).unwrap();
        assert_eq!(into_folder, dir.path().join("jax-runtimes"));
        let named = install(&dir.path().join("jr")).unwrap();
        assert_eq!(named, dir.path().join("jr"));
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        for p in [&into_folder, &named] {
            assert_eq!(std::fs::read(p).unwrap(), me, "{} is not a copy of the running binary", p.display());
        }
        // Installing again replaces the copy; no partial file is left behind.
        install(dir.path()).unwrap();
        let mut names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        assert_eq!(names, ["jax-runtimes", "jr"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&named).unwrap().permissions().mode() & 0o777, 0o755);
        }
    }

    #[test]
    fn a_missing_folder_is_an_error_that_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("no-such-folder/jax-runtimes");
        let e = install(&target).unwrap_err();
        assert!(matches!(e, InstallError::Write { .. }), "{e:?}");
        assert!(e.to_string().contains(&target.display().to_string()), "{e}");
        assert!(!dir.path().join("no-such-folder").exists());
    }
}
