//! What the binary says it is (`--version`): the git commit it was built from and whether the
//! sources built into it differ from that commit. Sets `JAX_RUNTIMES_COMMIT` to the commit's
//! 12-digit short hash, followed by `, dirty` when `git status` lists a change in the binary's
//! inputs (`src/`, `catalog/`, this file, `Cargo.toml`, `Cargo.lock`), or to `unknown` where
//! there is no git: a packaged crate (which carries cargo's `.cargo_vcs_info.json` instead, read
//! when present), a container build whose context has no `.git`.
//!
//! It reruns only when HEAD moves (`.git/HEAD`, the branch's ref, `packed-refs`) or one of those
//! inputs changes, so a build with nothing changed stays a no-op.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The binary's inputs: what `git status` is asked about and what reruns this script.
const INPUTS: [&str; 5] = ["src", "catalog", "build.rs", "Cargo.toml", "Cargo.lock"];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    for input in INPUTS {
        println!("cargo:rerun-if-changed={input}");
    }
    let commit = from_git(&manifest).or_else(|| from_vcs_info(&manifest)).unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=JAX_RUNTIMES_COMMIT={commit}");
}

/// `git` in the manifest's folder: its output when it succeeds.
fn git(manifest: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(manifest).env("GIT_OPTIONAL_LOCKS", "0").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim_end().to_string())
}

/// The commit of the checkout this package is the root of (not of a repository it sits inside,
/// as `cargo package` unpacks it in `target/package/`).
fn from_git(manifest: &Path) -> Option<String> {
    let top = PathBuf::from(git(manifest, &["rev-parse", "--show-toplevel"])?);
    if top.canonicalize().ok()? != manifest.canonicalize().ok()? {
        return None;
    }
    // Rerun when HEAD moves: HEAD itself (a checkout), the branch it names (a commit), or the
    // packed refs when the branch is not a loose file.
    let path = |p: &str| git(manifest, &["rev-parse", "--git-path", p]).map(|p| manifest.join(p));
    let mut watch = vec![path("HEAD")];
    if let Some(branch) = git(manifest, &["symbolic-ref", "-q", "HEAD"]) {
        match path(&branch).filter(|p| p.is_file()) {
            Some(loose) => watch.push(Some(loose)),
            None => watch.push(path("packed-refs")),
        }
    }
    // A path that does not exist would rerun this script on every build.
    for p in watch.into_iter().flatten().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    let hash = git(manifest, &["rev-parse", "--short=12", "HEAD"])?;
    let mut status = vec!["status", "--porcelain", "--"];
    status.extend(INPUTS);
    let dirty = !git(manifest, &status)?.is_empty();
    Some(if dirty { format!("{hash}, dirty") } else { hash })
}

/// The commit `cargo package` recorded (`{"git": {"sha1": "...", "dirty": true}, ...}`).
fn from_vcs_info(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest.join(".cargo_vcs_info.json")).ok()?;
    let sha1 = text.split("\"sha1\"").nth(1)?.split('"').nth(1)?;
    let hash = sha1.get(..12)?;
    let dirty = text.split("\"dirty\"").nth(1).is_some_and(|rest| rest.trim_start_matches([' ', ':']).starts_with("true"));
    Some(if dirty { format!("{hash}, dirty") } else { hash.to_string() })
}
