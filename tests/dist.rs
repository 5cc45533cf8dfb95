//! What a release archive carries, checked on the binary the suite builds (issue 46): `--version`
//! names the commit it was built from, the bash completion completes a subcommand in a real bash,
//! and the man pages `jax-runtimes man-pages` writes render with `man -l`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::path::{Path, PathBuf};
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

/// The suite's binary, stripped as the static build is, in `work`.
fn stripped_binary(work: &Path) -> PathBuf {
    let binary = work.join("jax-runtimes");
    let o = Command::new("strip").arg("-o").arg(&binary).arg(support::bin()).output().expect("strip (binutils) is needed");
    assert!(o.status.success(), "strip: {}", show(&o));
    binary
}

/// `.ci/dist --bin BINARY --out OUT ARGS`: the archive it prints last.
fn dist(binary: &Path, out: &Path, args: &[&str]) -> PathBuf {
    let o = Command::new(root().join(".ci/dist")).arg("--bin").arg(binary).arg("--out").arg(out).args(args).output().unwrap();
    assert!(o.status.success(), ".ci/dist: {}", show(&o));
    PathBuf::from(String::from_utf8_lossy(&o.stdout).lines().last().unwrap())
}

/// `sha256sum -c SHA256SUMS` in `dir` passes and checks exactly the files there are.
fn sums_verify(dir: &Path) {
    let o = Command::new("sha256sum").args(["-c", "--strict", "SHA256SUMS"]).current_dir(dir).output().unwrap();
    assert!(o.status.success(), "sha256sum -c SHA256SUMS in {}: {}", dir.display(), show(&o));
    let checked: Vec<String> =
        String::from_utf8_lossy(&o.stdout).lines().map(|l| l.strip_suffix(": OK").unwrap_or_else(|| panic!("{l}")).to_string()).collect();
    let files: Vec<String> = support::tree(dir).into_keys().filter(|f| f != "SHA256SUMS").collect();
    assert_eq!(checked, files, "SHA256SUMS covers every file in {} and nothing else", dir.display());
}

fn sha256(path: &Path) -> String {
    let o = Command::new("sha256sum").arg(path).output().unwrap();
    assert!(o.status.success(), "{}", show(&o));
    String::from_utf8_lossy(&o.stdout).split_whitespace().next().unwrap().to_string()
}

/// The URL the release workflow publishes an asset at: Cargo.toml's repository, the tag.
fn release_url(asset: &str) -> String {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let repo = manifest.lines().find_map(|l| l.strip_prefix("repository = \"")).and_then(|r| r.strip_suffix('"')).unwrap();
    format!("{repo}/releases/download/v{}/{asset}", env!("CARGO_PKG_VERSION"))
}

/// `.ci/dist --bin` on the suite's binary: two runs give the same bytes, everything in the folder
/// and a SHA256SUMS that checks all of it; the krew manifest and the Homebrew formula name the
/// archive's release URL and real sha256, and the files they install are in it. Unpacked into an
/// empty folder, with nothing from the test's environment (PATH /usr/bin:/bin and the archive's
/// folder: no Rust), the archive's binary runs README's quick start, its bash completion
/// completes a subcommand and its man pages render.
#[test]
fn the_release_archive_is_reproducible_and_works_unpacked() {
    let work = tempfile::tempdir().unwrap();
    let binary = stripped_binary(work.path());
    let (a, b) = (dist(&binary, &work.path().join("a"), &["--no-sbom"]), dist(&binary, &work.path().join("b"), &["--no-sbom"]));
    let name = a.file_name().unwrap().to_string_lossy().to_string();
    let version = env!("CARGO_PKG_VERSION");
    assert!(name.starts_with(&format!("jax-runtimes-{version}-")) && name.ends_with("-linux-gnu.tar.gz"), "{name}");
    let (a_dir, b_dir) = (a.parent().unwrap(), b.parent().unwrap());
    assert_eq!(b.file_name(), a.file_name());
    let (a_tree, b_tree) = (support::tree(a_dir), support::tree(b_dir));
    assert_eq!(a_tree.keys().collect::<Vec<_>>(), ["Formula/jax-runtimes.rb", "SHA256SUMS", name.as_str(), "plugins/jax-runtimes.yaml"]);
    for (file, bytes) in &a_tree {
        assert!(b_tree[file] == *bytes, "two runs of .ci/dist give different {file}");
    }
    sums_verify(a_dir);

    // The krew manifest: the archive's URL and sha256, and files that are in it.
    let stem = name.strip_suffix(".tar.gz").unwrap();
    let sum = sha256(&a);
    let krew = support::documents(&String::from_utf8_lossy(&a_tree["plugins/jax-runtimes.yaml"]));
    let [krew] = krew.as_slice() else { panic!("one document: {krew:?}") };
    assert_eq!(krew["apiVersion"], "krew.googlecontainertools.github.com/v1alpha2");
    assert_eq!(krew["kind"], "Plugin");
    assert_eq!(krew["metadata"]["name"], "jax-runtimes", "`kubectl jax-runtimes`");
    assert_eq!(krew["spec"]["version"], format!("v{version}"));
    let short = krew["spec"]["shortDescription"].as_str().unwrap();
    assert!(!short.is_empty() && short.len() <= 50, "krew wants a short description: {short:?}");
    let platforms = krew["spec"]["platforms"].as_array().unwrap();
    let [platform] = platforms.as_slice() else { panic!("one platform per archive: {platforms:?}") };
    assert_eq!(platform["selector"]["matchLabels"], serde_json::json!({"os": "linux", "arch": "amd64"}));
    assert_eq!(platform["uri"], release_url(&name));
    assert_eq!(platform["sha256"], sum.as_str(), "the krew manifest's sha256 is the archive's");
    assert_eq!(platform["bin"], "jax-runtimes");
    let froms: Vec<&str> = platform["files"].as_array().unwrap().iter().map(|f| f["from"].as_str().unwrap()).collect();
    assert_eq!(froms, [format!("{stem}/jax-runtimes"), format!("{stem}/LICENSE")]);

    // The Homebrew formula: the same URL and sha256, one after the other.
    let formula = String::from_utf8_lossy(&a_tree["Formula/jax-runtimes.rb"]).to_string();
    assert!(formula.contains("class JaxRuntimes < Formula\n"), "{formula}");
    assert!(
        formula.contains(&format!("url \"{}\"\n      sha256 \"{sum}\"\n", release_url(&name))),
        "the formula's url and sha256 are not the archive's:\n{formula}"
    );
    assert_eq!(formula.matches("url \"").count(), 1, "one archive, one url:\n{formula}");

    let unpacked = work.path().join("unpacked");
    std::fs::create_dir(&unpacked).unwrap();
    let o = Command::new("tar").arg("-xzf").arg(&a).arg("-C").arg(&unpacked).output().unwrap();
    assert!(o.status.success(), "tar: {}", show(&o));
    let top = unpacked.join(stem);
    let files: Vec<String> = support::tree(&top).into_keys().collect();
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
    for installed in formula
        .lines()
        .filter_map(|l| l.trim().strip_prefix("bash_completion.install \"").or(l.trim().strip_prefix("zsh_completion.install \"")))
    {
        let file = installed.split('"').next().unwrap();
        assert!(files.iter().any(|x| x == file), "the formula installs {file}, which the archive lacks");
    }
    assert_eq!(std::fs::read(top.join("LICENSE")).unwrap(), std::fs::read(root().join("LICENSE")).unwrap());

    // No Rust here: nothing of the test's environment, the system's PATH and the archive's folder
    // (as a user who unpacked it would set it).
    let sh = |cwd: &Path, script: &str| -> String {
        let o = Command::new("/bin/bash")
            .args(["-o", "pipefail", "-c", &format!("export PATH=\"$1:$PATH\"\n{script}"), "bash"])
            .arg(&top)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &unpacked)
            .output()
            .unwrap();
        assert!(o.status.success(), "`{script}`: {}", show(&o));
        String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
    };
    assert_eq!(sh(&unpacked, "command -v cargo rustc rustup || echo none").trim(), "none", "Rust is on the test's PATH");
    assert_eq!(sh(&unpacked, "command -v jax-runtimes"), format!("{}\n", top.join("jax-runtimes").display()));
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let step = "$ jax-runtimes render -o runtimes\n";
    let shown = readme.split(step).nth(1).and_then(|rest| rest.lines().next()).expect("README's quick start renders into runtimes");
    let printed = sh(&unpacked, "mkdir -p quick-start && cd quick-start && jax-runtimes render -o runtimes");
    assert_eq!(printed.trim_end(), shown, "README's quick start, with the archive's binary");
    // Its next step: the TrainJob of README's `File: trainjob.yaml` checked against the runtimes.
    let job = readme.split("File: `trainjob.yaml`\n```yaml\n").nth(1).and_then(|r| r.split("```").next()).expect("README's trainjob.yaml");
    std::fs::write(unpacked.join("quick-start/trainjob.yaml"), job).unwrap();
    let step = "$ jax-runtimes validate runtimes trainjob.yaml\n";
    let shown = readme.split(step).nth(1).and_then(|rest| rest.split("\n$ ").next()).expect("README's quick start validates");
    assert_eq!(sh(&unpacked.join("quick-start"), "jax-runtimes validate runtimes trainjob.yaml").trim_end(), shown.trim_end());
    assert_eq!(sh(&unpacked, "jax-runtimes --version"), String::from_utf8_lossy(&cli(&["--version"]).output().unwrap().stdout));

    assert_eq!(complete(&top.join("completions/jax-runtimes.bash"), "jax-runtimes ren", "/usr/bin:/bin".as_ref()), ["render"]);
    if let Some(renderer) = man_renderer() {
        render_man(&renderer, &top.join("man/man1/jax-runtimes-render.1"));
    }
}

/// The SBOM `.ci/dist` writes beside the archive (cargo-cyclonedx): valid CycloneDX 1.5 JSON by
/// the schema cyclonedx-python-lib carries, about jax-runtimes at this version, naming every
/// dependency of Cargo.toml with the version Cargo.lock pins and none of the dev-dependencies;
/// the same bytes from two runs, no trace of where the clone is, and in SHA256SUMS.
#[test]
fn the_sbom_is_valid_cyclonedx_of_the_crate_graph() {
    let python = support::python();
    let work = tempfile::tempdir().unwrap();
    let binary = stripped_binary(work.path());
    let a = dist(&binary, &work.path().join("a"), &[]);
    let b = dist(&binary, &work.path().join("b"), &[]);
    let sbom_name = a.file_name().unwrap().to_string_lossy().replace(".tar.gz", ".cdx.json");
    let (sbom, again) = (a.with_file_name(&sbom_name), b.with_file_name(&sbom_name));
    let text = std::fs::read_to_string(&sbom).unwrap_or_else(|e| panic!("{}: {e}", sbom.display()));
    assert!(text == std::fs::read_to_string(&again).unwrap(), "two runs of .ci/dist give different SBOMs");
    sums_verify(a.parent().unwrap());
    let root_text = root().display().to_string();
    assert!(!text.contains(&root_text), "the SBOM names the clone's folder {root_text}");

    let check = r#"import sys
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
error = JsonStrictValidator(SchemaVersion.V1_5).validate_str(open(sys.argv[1]).read())
if error is not None:
    sys.exit(f"not valid CycloneDX 1.5: {error}")
print("valid")
"#;
    let o = Command::new(&python).args(["-c", check]).arg(&sbom).output().unwrap();
    assert!(o.status.success(), "{}", show(&o));
    // And a broken one is refused: the validation is not a no-op.
    let broken = work.path().join("broken.cdx.json");
    std::fs::write(
        &broken,
        text.replacen("\"specVersion\": \"1.5\"", "\"specVersion\": 1.5", 1).replacen("\"version\": 1", "\"version\": \"one\"", 1),
    )
    .unwrap();
    let o = Command::new(&python).args(["-c", check]).arg(&broken).output().unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("not valid CycloneDX"), "{}", show(&o));

    let bom: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(bom["bomFormat"], "CycloneDX");
    let top = &bom["metadata"]["component"];
    assert_eq!((top["name"].as_str(), top["version"].as_str()), (Some("jax-runtimes"), Some(env!("CARGO_PKG_VERSION"))));
    let components: Vec<(String, String)> = bom["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap().to_string(), c["version"].as_str().unwrap().to_string()))
        .collect();
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    let locked: Vec<(String, String)> = lock
        .split("[[package]]\n")
        .skip(1)
        .filter_map(|p| {
            let field = |k: &str| p.lines().find_map(|l| l.strip_prefix(&format!("{k} = \""))?.strip_suffix('"').map(str::to_string));
            Some((field("name")?, field("version")?))
        })
        .collect();
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let section = |name: &str| -> Vec<String> {
        manifest
            .split(&format!("[{name}]\n"))
            .nth(1)
            .unwrap_or_else(|| panic!("Cargo.toml has no [{name}]"))
            .lines()
            .take_while(|l| !l.starts_with('['))
            .filter_map(|l| l.split_once(" = ").map(|(k, _)| k.trim().to_string()))
            .filter(|k| !k.is_empty() && !k.starts_with('#'))
            .collect()
    };
    for dep in section("dependencies") {
        let in_bom: Vec<&(String, String)> = components.iter().filter(|(n, _)| *n == dep).collect();
        assert!(!in_bom.is_empty(), "the SBOM lacks the dependency {dep}");
        for c in in_bom {
            assert!(locked.contains(c), "the SBOM names {} {}, which Cargo.lock does not pin", c.0, c.1);
        }
    }
    for dev in section("dev-dependencies") {
        if ["tempfile", "proptest", "divan", "assert_cmd"].contains(&dev.as_str()) {
            assert!(!components.iter().any(|(n, _)| *n == dev), "the SBOM names the dev-dependency {dev}");
        }
    }
}

/// The release workflow lints clean with jactionlint (actionlint's checks and its own; shellcheck
/// and pyflakes are left out, so the result does not depend on what else is installed), and the
/// lint is no rubber stamp: a workflow with a misspelt job or a misspelt matrix key fails it.
#[test]
fn the_release_workflow_lints_clean_and_a_broken_one_does_not() {
    let python = support::python();
    let lint = python.with_file_name("jactionlint");
    assert!(lint.is_file(), "{} is missing: tests/python/requirements.txt installs it (jactionlint)", lint.display());
    let run = |file: &Path| {
        Command::new(&lint).args(["--shellcheck=", "--pyflakes=", "--no-color"]).arg(file).current_dir(root()).output().unwrap()
    };
    let workflow = root().join(".github/workflows/release.yml");
    let o = run(&workflow);
    assert!(o.status.success() && o.stdout.is_empty(), "jactionlint {}: {}", workflow.display(), show(&o));

    let text = std::fs::read_to_string(&workflow).unwrap();
    let work = tempfile::tempdir().unwrap();
    for (what, from, to, rule) in [
        ("a misspelt job", "needs: archive", "needs: archvie", "undefined-job-needs"),
        ("a misspelt matrix key", "${{ matrix.runner }}", "${{ matrix.runer }}", "undefined-property"),
        ("an unknown key", "timeout-minutes: 60", "timeout-minute: 60", "workflow-syntax"),
    ] {
        assert!(text.contains(from), "release.yml no longer has `{from}`: update this test");
        let broken = work.path().join("release.yml");
        std::fs::write(&broken, text.replacen(from, to, 1)).unwrap();
        let o = run(&broken);
        assert!(!o.status.success() && String::from_utf8_lossy(&o.stdout).contains(&format!("[{rule}]")), "{what}: {}", show(&o));
    }
}

/// The `run: |` script of every step named `Install jax-runtimes (a pinned release...` in `text`,
/// dedented.
fn install_steps(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut steps = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !line.trim_start().starts_with("- name: Install jax-runtimes (a pinned release") {
            continue;
        }
        let run = lines[i + 1];
        assert_eq!(run.trim(), "run: |", "the install step's script follows its name: {line}");
        let indent = run.len() - run.trim_start().len();
        let body: Vec<&str> = lines[i + 2..].iter().take_while(|l| l.len() - l.trim_start().len() > indent).copied().collect();
        let strip = body[0].len() - body[0].trim_start().len();
        steps.push(body.iter().map(|l| format!("{}\n", &l[strip..])).collect());
    }
    steps
}

/// The install steps the docs give, run on the archive `.ci/dist` makes (a stand-in `curl` hands
/// out the local dist/ for the release URLs, and fails for any other): README's and getting
/// started's download, check, unpack and install, and the one CI step every catalog-repository
/// workflow in docs/ and functions/ shares, which puts the binary on `$GITHUB_PATH`. A damaged
/// archive stops them at `sha256sum -c`.
#[test]
fn the_install_steps_of_the_docs_check_the_archive_and_install_it() {
    let work = tempfile::tempdir().unwrap();
    let binary = stripped_binary(work.path());
    let archive = dist(&binary, &work.path().join("dist"), &["--no-sbom"]);
    let dist_dir = archive.parent().unwrap().to_path_buf();
    let fake = work.path().join("fake-bin");
    std::fs::create_dir(&fake).unwrap();
    let curl = fake.join("curl");
    let base = release_url("");
    std::fs::write(
        &curl,
        format!(
            "#!/bin/sh\n# A stand-in for curl: the release assets from {dist}.\nfor a in \"$@\"; do\n  case $a in\n    -*) ;;\n    {base}*) cp \"{dist}/${{a#{base}}}\" . || exit 22 ;;\n    *) echo \"curl: not a release URL: $a\" >&2; exit 22 ;;\n  esac\ndone\n",
            dist = dist_dir.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&curl, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = std::env::join_paths([fake.as_path(), Path::new("/usr/bin"), Path::new("/bin")]).unwrap();
    let run = |script: &str, home: &Path, runner: &Path| {
        std::fs::create_dir_all(home).unwrap();
        std::fs::create_dir_all(runner).unwrap();
        Command::new("/bin/bash")
            .args(["-e", "-o", "pipefail", "-c", script])
            .current_dir(home)
            .env_clear()
            .env("PATH", &path)
            .env("HOME", home)
            .env("RUNNER_TEMP", runner)
            .env("GITHUB_PATH", runner.join("github-path"))
            .output()
            .unwrap()
    };
    let version_line = String::from_utf8_lossy(&cli(&["--version"]).output().unwrap().stdout).to_string();

    // README and getting started: the first block of the install section.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = &readme[readme.find("## Install\n").expect("README's Install")..];
    let block = section.split("```text\n").nth(1).and_then(|b| b.split("```").next()).unwrap();
    assert!(block.contains("sha256sum -c") && block.contains("curl "), "README's first install block downloads and checks: {block}");
    let home = work.path().join("readme");
    let o = run(block, &home, &work.path().join("readme-runner"));
    assert!(o.status.success(), "README's install block on the local dist/:\n{block}\n{}", show(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains(": OK"), "sha256sum -c checked the archive: {}", show(&o));
    let o = Command::new(home.join(".local/bin/jax-runtimes")).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), version_line, "the binary README's install puts in ~/.local/bin");

    // README's other assets are the ones the release workflow publishes, by their names there.
    let workflow = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    assert!(readme.contains(&format!("--manifest-url={}\n", release_url("jax-runtimes.yaml"))), "README's krew line");
    assert!(readme.contains("\"$base/jax-runtimes-$version-image.oci.tar\""), "README's image download");
    for asset in ["./*.tar.gz", "./*.cdx.json", "./*.oci.tar", "SHA256SUMS", "plugins/jax-runtimes.yaml", "Formula/jax-runtimes.rb"] {
        assert!(workflow.contains(&format!(" {asset}")), "the release workflow does not publish {asset}");
    }

    // The CI step: the same text in every workflow of docs/ and functions/ that installs
    // jax-runtimes, and no other install there.
    let mut steps: Vec<(String, String)> = Vec::new();
    for (file, count) in [("docs/pipelines.md", 3), ("docs/trainjobs.md", 1), ("functions/flux/ci-check.yaml", 1)] {
        let found = install_steps(&std::fs::read_to_string(root().join(file)).unwrap());
        assert_eq!(found.len(), count, "{file}: install steps");
        steps.extend(found.into_iter().map(|s| (file.to_string(), s)));
    }
    let (_, step) = steps[0].clone();
    for (file, other) in &steps {
        assert_eq!(*other, step, "{file} installs jax-runtimes differently from docs/pipelines.md");
    }
    let runner = work.path().join("ci-runner");
    let o = run(&step, &work.path().join("ci-home"), &runner);
    assert!(o.status.success(), "the CI install step on the local dist/:\n{step}\n{}", show(&o));
    let added = std::fs::read_to_string(runner.join("github-path")).unwrap();
    let o = Command::new(Path::new(added.trim_end()).join("jax-runtimes")).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), version_line, "the folder the CI step puts on GITHUB_PATH");

    // A damaged archive: the step stops at the checksum.
    let mut bytes = std::fs::read(&archive).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&archive, bytes).unwrap();
    let o = run(&step, &work.path().join("bad-home"), &work.path().join("bad-runner"));
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stdout).contains("FAILED"), "a damaged archive: {}", show(&o));
    assert!(!work.path().join("bad-runner/github-path").exists(), "a damaged archive reached GITHUB_PATH");
}
