//! What a release archive carries, checked on the binary the suite builds (issue 46): `--version`
//! names the commit it was built from, the bash completion completes a subcommand in a real bash,
//! and the man pages `jax-runtimes man-pages` writes render with `man -l`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::path::Path;
use std::process::Command;

use clap::CommandFactory;

use support::{cli, root, show};

/// `git ARGS` in the repository: its trimmed stdout, or `None` without git or a repository.
fn git(args: &[&str]) -> Option<String> {
    let o = Command::new("git").args(args).current_dir(root()).env("GIT_OPTIONAL_LOCKS", "0").output().ok()?;
    o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim_end().to_string())
}

/// `jax-runtimes VERSION (COMMIT[, dirty])`: the 12-digit hash of the commit built, `, dirty` when
/// the binary's inputs differed from it (build.rs); `unknown` only where there is no git.
#[test]
fn version_names_the_commit_it_was_built_from() {
    let long = cli(&["--version"]).output().unwrap();
    let short = cli(&["-V"]).output().unwrap();
    assert!(long.status.success(), "{}", show(&long));
    assert_eq!(long.stdout, short.stdout, "-V and --version print the same");
    let line = String::from_utf8_lossy(&long.stdout).to_string();
    let line = line.strip_suffix('\n').unwrap_or_else(|| panic!("one line: {line:?}"));
    let inner = line
        .strip_prefix(&format!("jax-runtimes {} (", env!("CARGO_PKG_VERSION")))
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("`{line}` is not `jax-runtimes {} (COMMIT[, dirty])`", env!("CARGO_PKG_VERSION")));
    let (hash, dirty) = match inner.strip_suffix(", dirty") {
        Some(h) => (h, true),
        None => (inner, false),
    };
    let Some(head) = git(&["rev-parse", "--short=12", "HEAD"]) else {
        assert_eq!(inner, "unknown", "no git here: the commit is unknown");
        return;
    };
    assert!(hash.len() == 12 && hash.bytes().all(|b| b.is_ascii_hexdigit()), "`{hash}` is not a 12-digit commit hash");
    if hash != head {
        // Someone committed between the build and this run (a shared worktree): the commit built
        // must still be in HEAD's history.
        assert!(
            git(&["merge-base", "--is-ancestor", hash, "HEAD"]).is_some(),
            "--version names {hash}, which is neither HEAD ({head}) nor an ancestor of it"
        );
        eprintln!("note: HEAD moved to {head} after the binary was built from {hash}; the dirty flag is not compared");
        return;
    }
    let changes = git(&["status", "--porcelain", "--", "src", "catalog", "build.rs", "Cargo.toml", "Cargo.lock"]).unwrap();
    assert_eq!(dirty, !changes.is_empty(), "`{line}`, but git status of the binary's inputs says:\n{changes}");
}

/// The words bash's completion offers for `line` (`jax-runtimes ren`, or ending in a space for the
/// next word), with the completion script `script` sourced: the function `complete -p` names,
/// called as bash calls it (command, word, previous word), in `PATH` `path`.
fn complete(script: &Path, line: &str, path: &std::ffi::OsStr) -> Vec<String> {
    let program = r#"source "$1" || exit 1
f=$(complete -p jax-runtimes | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
[ -n "$f" ] || { echo "no completion function for jax-runtimes: $(complete -p jax-runtimes)" >&2; exit 1; }
COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}
read -ra COMP_WORDS <<<"$COMP_LINE"
[[ $COMP_LINE == *' ' ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
"$f" jax-runtimes "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}""#;
    let out =
        Command::new("/bin/bash").args(["-c", program, "bash"]).arg(script).arg(line).env("PATH", path).output().expect("bash is needed");
    assert!(out.status.success(), "completing `{line}`: {}", show(&out));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect()
}

/// The program that renders man pages here and its arguments before the page: `man -l`, or groff
/// where man is missing (`None`, after saying NOT RUN, where neither is).
fn man_renderer() -> Option<(std::path::PathBuf, &'static [&'static str])> {
    let which =
        |tool: &str| std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).map(|d| d.join(tool)).find(|p| p.is_file());
    match (which("man"), which("groff")) {
        (Some(man), _) => Some((man, &["-l"])),
        (None, Some(groff)) => Some((groff, &["-man", "-Tutf8", "-ww"])),
        (None, None) => {
            support::reference::not_run(
                "man",
                &support::reference::test_name(),
                "neither `man` nor `groff` is on PATH (Debian: apt-get install man-db); the pages were written but not rendered",
            );
            None
        }
    }
}

/// `page` as `man -l` shows it: asserts it renders without a warning and names its command.
fn render_man(renderer: &(std::path::PathBuf, &[&str]), page: &Path) -> String {
    let o = Command::new(&renderer.0)
        .args(renderer.1)
        .arg(page)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "100")
        .env("LC_ALL", "C.UTF-8")
        .output()
        .unwrap();
    assert!(o.status.success() && o.stderr.is_empty(), "{} {}: {}", renderer.0.display(), page.display(), show(&o));
    let text = String::from_utf8_lossy(&o.stdout).replace(['\u{2010}', '\u{2212}'], "-");
    let command = page.file_stem().unwrap().to_string_lossy();
    assert!(text.contains("NAME") && text.contains(command.as_ref()), "{} renders without its name:\n{text}", page.display());
    text
}

/// The completion script `completions bash` prints, sourced in bash, completes a subcommand: what
/// a user gets from `jax-runtimes ren<TAB>`.
#[test]
fn the_bash_completion_completes_a_subcommand() {
    let o = cli(&["completions", "bash"]).output().unwrap();
    assert!(o.status.success(), "{}", show(&o));
    let work = tempfile::tempdir().unwrap();
    let script = work.path().join("jax-runtimes.bash");
    std::fs::write(&script, &o.stdout).unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    assert_eq!(complete(&script, "jax-runtimes ren", &path), ["render"]);
    assert_eq!(complete(&script, "jax-runtimes render --ch", &path), ["--check"], "a subcommand's flags complete too");
    assert!(complete(&script, "jax-runtimes ", &path).iter().any(|w| w == "validate"), "the next word offers the subcommands");
}

/// `man-pages DIR` writes one page per visible command, byte-identical from run to run, and each
/// renders with `man -l` (or groff where man is missing) without a warning.
#[test]
fn man_pages_one_per_command_render_with_man() {
    let cmd = jax_runtimes::cli::Cli::command();
    let mut expected: Vec<String> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| format!("jax-runtimes-{}.1", s.get_name()))
        .chain(["jax-runtimes.1".to_string()])
        .collect();
    expected.sort();
    let work = tempfile::tempdir().unwrap();
    let pages = |dir: &Path| -> Vec<(String, Vec<u8>)> {
        let o = cli(&["man-pages"]).arg(dir).output().unwrap();
        assert!(o.status.success(), "{}", show(&o));
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().to_string(), std::fs::read(&p).unwrap()))
            .collect();
        files.sort();
        files
    };
    let first = pages(&work.path().join("a/man1"));
    assert_eq!(first.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(), expected);
    assert!(first == pages(&work.path().join("b")), "two runs write different pages");

    let help = cli(&["--help"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&help.stdout).contains("man-pages"), "the hidden command shows in --help");

    let Some(renderer) = man_renderer() else { return };
    for (name, _) in &first {
        let text = render_man(&renderer, &work.path().join("a/man1").join(name));
        if name == "jax-runtimes-render.1" {
            assert!(text.contains("--check") && text.contains("jax-runtimes render my-catalog/"), "{name}: no flags or examples:\n{text}");
        }
    }
}

/// `.ci/dist --bin` on the suite's binary, stripped as the static build is: two runs give the same
/// bytes and a SHA256SUMS that checks; unpacked into an empty folder, with no Rust on PATH, the
/// archive's binary runs README's quick start, its bash completion completes a subcommand and its
/// man pages render.
#[test]
fn the_release_archive_is_reproducible_and_works_unpacked() {
    let work = tempfile::tempdir().unwrap();
    let binary = work.path().join("jax-runtimes");
    let o = Command::new("strip").arg("-o").arg(&binary).arg(support::bin()).output().expect("strip (binutils) is needed");
    assert!(o.status.success(), "strip: {}", show(&o));
    let dist = |out: &str| -> std::path::PathBuf {
        let o = Command::new(root().join(".ci/dist")).arg("--bin").arg(&binary).arg("--out").arg(work.path().join(out)).output().unwrap();
        assert!(o.status.success(), ".ci/dist: {}", show(&o));
        std::path::PathBuf::from(String::from_utf8_lossy(&o.stdout).lines().last().unwrap())
    };
    let (a, b) = (dist("a"), dist("b"));
    let name = a.file_name().unwrap().to_string_lossy().to_string();
    let version = env!("CARGO_PKG_VERSION");
    assert!(name.starts_with(&format!("jax-runtimes-{version}-")) && name.ends_with("-linux-gnu.tar.gz"), "{name}");
    assert_eq!(b.file_name(), a.file_name());
    assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(), "two runs of .ci/dist give different archives");
    let sums = Command::new("sha256sum").args(["-c", "SHA256SUMS"]).current_dir(a.parent().unwrap()).output().unwrap();
    assert!(sums.status.success() && String::from_utf8_lossy(&sums.stdout).contains(&format!("{name}: OK")), "{}", show(&sums));

    let unpacked = work.path().join("unpacked");
    std::fs::create_dir(&unpacked).unwrap();
    let o = Command::new("tar").arg("-xzf").arg(&a).arg("-C").arg(&unpacked).output().unwrap();
    assert!(o.status.success(), "tar: {}", show(&o));
    let top = unpacked.join(name.strip_suffix(".tar.gz").unwrap());
    let mut files: Vec<String> = Vec::new();
    let mut stack = vec![top.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p.strip_prefix(&top).unwrap().display().to_string());
            }
        }
    }
    files.sort();
    for f in [
        "jax-runtimes",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        "completions/jax-runtimes.bash",
        "completions/_jax-runtimes",
        "completions/jax-runtimes.fish",
        "man/man1/jax-runtimes.1",
        "man/man1/jax-runtimes-render.1",
    ] {
        assert!(files.iter().any(|x| x == f), "the archive lacks {f}: {files:?}");
    }
    assert_eq!(std::fs::read(top.join("LICENSE")).unwrap(), std::fs::read(root().join("LICENSE")).unwrap());

    // No Rust here: the archive's folder and the system's.
    let path = std::env::join_paths([top.clone(), "/usr/bin".into(), "/bin".into()]).unwrap();
    let sh = |cwd: &Path, script: &str| -> String {
        let o = Command::new("/bin/bash").args(["-o", "pipefail", "-c", script]).current_dir(cwd).env("PATH", &path).output().unwrap();
        assert!(o.status.success(), "`{script}`: {}", show(&o));
        String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
    };
    assert_eq!(sh(&unpacked, "command -v cargo rustc || echo none").trim(), "none", "Rust is on the test's PATH");
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let step = "$ jax-runtimes render -o runtimes\n";
    let shown = readme.split(step).nth(1).and_then(|rest| rest.lines().next()).expect("README's quick start renders into runtimes");
    let printed = sh(&unpacked, "mkdir -p quick-start && cd quick-start && jax-runtimes render -o runtimes");
    assert_eq!(printed.trim_end(), shown, "README's quick start, with the archive's binary");
    assert_eq!(sh(&unpacked, "jax-runtimes --version"), String::from_utf8_lossy(&cli(&["--version"]).output().unwrap().stdout));

    assert_eq!(complete(&top.join("completions/jax-runtimes.bash"), "jax-runtimes ren", &path), ["render"]);
    if let Some(renderer) = man_renderer() {
        render_man(&renderer, &top.join("man/man1/jax-runtimes-render.1"));
    }
}
