//! The docs name no flag, format value or catalog kind the binary lacks (issue 43 item 5).
//!
//! The truth is the binary's own clap definition (`Cli::command()`, the same one `--help` prints)
//! and `Kind::ALL`; the docs are README.md, docs/*.md (not docs/rules.md, which `jax-runtimes
//! docs` generates from the rules, nor the generated folders below docs/) and functions/'s
//! READMEs. Every failure names the file, the line and what is wrong.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use jax_runtimes::catalog::Kind;
use jax_runtimes::cli::Cli;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The built command tree: global flags propagated, `--help` added.
fn command() -> clap::Command {
    let mut cmd = Cli::command();
    cmd.build();
    cmd
}

/// The long flags (and visible aliases) of one command, hidden ones included.
fn longs(cmd: &clap::Command) -> BTreeSet<String> {
    cmd.get_arguments().filter_map(|a| a.get_long_and_visible_aliases()).flatten().map(str::to_string).collect()
}

/// Subcommand name -> its long flags, the global ones (`--color`) and `--help` included.
fn flags_by_subcommand() -> BTreeMap<String, BTreeSet<String>> {
    let cmd = command();
    let global: BTreeSet<String> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .filter_map(|a| a.get_long())
        .map(str::to_string)
        .chain(["help".to_string()])
        .collect();
    let subs: BTreeMap<String, BTreeSet<String>> = cmd
        .get_subcommands()
        .map(|s| {
            let mut f = longs(s);
            f.extend(global.iter().cloned());
            (s.get_name().to_string(), f)
        })
        .collect();
    assert!(subs.contains_key("render") && subs.contains_key("validate"), "no subcommands found: {subs:?}");
    assert!(global.contains("color"), "--color is not a global flag: {global:?}");
    subs
}

/// The possible values of `--flag` on subcommand `sub` (empty when it has none or no such flag).
fn possible_values(sub: &str, flag: &str) -> Option<BTreeSet<String>> {
    let cmd = command();
    let s = cmd.find_subcommand(sub)?;
    let arg = s.get_arguments().find(|a| a.get_long() == Some(flag))?;
    Some(arg.get_possible_values().iter().map(|v| v.get_name().to_string()).collect())
}

/// The docs this test reads: (relative path, text).
fn docs(with_functions: bool) -> Vec<(String, String)> {
    let root = root();
    let listing = |dir: &str| -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("{dir}/: {e}"))
            .map(|e| e.unwrap_or_else(|e| panic!("{dir}/: {e}")).path())
            .collect();
        paths.sort();
        paths
    };
    let mut files = vec![root.join("README.md")];
    files.extend(listing("docs").into_iter().filter(|p| p.extension().is_some_and(|e| e == "md") && !p.ends_with("rules.md")));
    if with_functions {
        files.push(root.join("functions/README.md"));
        let readmes: Vec<PathBuf> = listing("functions").into_iter().map(|p| p.join("README.md")).filter(|p| p.is_file()).collect();
        files.extend(readmes);
    }
    files
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (rel(&p), text)
        })
        .collect()
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// The code of one line: the whole line inside a fenced block, else its inline code spans.
/// Yields (1-based line number, code segment).
fn code_segments(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            out.push((i + 1, line.to_string()));
        } else {
            for span in inline_spans(line) {
                out.push((i + 1, span));
            }
        }
    }
    out
}

/// The inline code spans of a Markdown line (single backticks).
fn inline_spans(line: &str) -> Vec<String> {
    line.split('`').enumerate().filter(|(i, _)| i % 2 == 1).map(|(_, s)| s.to_string()).collect()
}

/// The `--name` tokens of a piece of a command line (after `/` too: `[--a\|--b]` in a table).
fn flag_tokens(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < b.len() {
        let starts = b[i] == b'-'
            && b[i + 1] == b'-'
            && b[i + 2].is_ascii_lowercase()
            && (i == 0 || matches!(b[i - 1], b' ' | b'[' | b'(' | b'\'' | b'"' | b'\t' | b',' | b'/'));
        if starts {
            let mut j = i + 2;
            while j < b.len() && (b[j].is_ascii_lowercase() || b[j].is_ascii_digit() || b[j] == b'-') {
                j += 1;
            }
            out.push(s[i + 2..j].trim_end_matches('-').to_string());
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Each `jax-runtimes SUB ARGS` in a code segment: (sub, ARGS up to the end of that command:
/// a `|`, `;`, `&&`, ` #` comment, `)` or the quote the command was opened with).
fn invocations<'a>(code: &str, subs: &'a BTreeMap<String, BTreeSet<String>>) -> Vec<(&'a str, String)> {
    // `\|` is an alternative in a Markdown table cell, not a pipe.
    let code = code.replace("\\|", "/");
    let mut out = Vec::new();
    let name = "jax-runtimes";
    let mut from = 0;
    while let Some(at) = code[from..].find(name).map(|p| p + from) {
        from = at + name.len();
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) {
            continue;
        }
        let rest = &code[from..];
        if !rest.starts_with(' ') {
            continue;
        }
        let rest = rest.trim_start();
        let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
        let Some((sub, _)) = subs.get_key_value(word.as_str()) else { continue };
        let mut args = &rest[word.len()..];
        let mut ends: Vec<&str> = vec!["|", ";", "&&", " #", ")"];
        if let Some(q @ ('"' | '\'')) = before {
            ends.push(if q == '"' { "\"" } else { "'" });
        }
        if let Some(end) = ends.iter().filter_map(|e| args.find(e)).min() {
            args = &args[..end];
        }
        out.push((sub.as_str(), args.to_string()));
    }
    out
}

/// README's command table: each `--flag` in a row's first cell is a flag of that row's subcommand.
#[test]
fn readme_command_table_names_only_real_flags() {
    let subs = flags_by_subcommand();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut rows = 0;
    let mut wrong = Vec::new();
    for (i, line) in readme.lines().enumerate() {
        if !line.starts_with("| `jax-runtimes ") {
            continue;
        }
        rows += 1;
        let cell = line[1..].replace("\\|", "/");
        let cell = cell.split('|').next().unwrap();
        let found = invocations(cell, &subs);
        if found.is_empty() {
            wrong.push(format!("README.md:{}: the row names no subcommand jax-runtimes has: {}", i + 1, cell.trim()));
        }
        for (sub, args) in found {
            for flag in flag_tokens(&args) {
                if !subs[sub].contains(&flag) {
                    wrong.push(format!("README.md:{}: `jax-runtimes {sub}` has no flag --{flag}", i + 1));
                }
            }
        }
    }
    assert!(rows >= 10, "README.md: found only {rows} rows of the command table (`| `jax-runtimes ...`)");
    assert!(wrong.is_empty(), "the README's command table names flags the binary lacks:\n{}", wrong.join("\n"));
}

/// The wrong flags of one doc's command lines, and how many flags it checked.
fn wrong_flags(file: &str, text: &str, subs: &BTreeMap<String, BTreeSet<String>>) -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (line, code) in code_segments(text) {
        for (sub, args) in invocations(&code, subs) {
            for flag in flag_tokens(&args) {
                checked += 1;
                if !subs[sub].contains(&flag) {
                    wrong.push(format!("{file}:{line}: `jax-runtimes {sub}` has no flag --{flag} (in `{}`)", code.trim()));
                }
            }
        }
    }
    (checked, wrong)
}

/// Every `jax-runtimes SUB ... --flag` in code (inline or fenced) in the docs names a flag of SUB.
#[test]
fn docs_command_lines_name_only_real_flags() {
    let subs = flags_by_subcommand();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (file, text) in docs(true) {
        let (n, w) = wrong_flags(&file, &text, &subs);
        checked += n;
        wrong.extend(w);
    }
    assert!(checked >= 100, "only {checked} flags found in the docs' command lines: is the parser broken?");
    assert!(wrong.is_empty(), "the docs name flags the binary lacks:\n{}", wrong.join("\n"));
}

/// The checker itself: it finds a wrong flag inline, in a fenced block and in a table cell, and
/// leaves alone other programs' flags and global ones.
#[test]
fn the_flag_check_catches_drift() {
    let subs = flags_by_subcommand();
    let doc = "Run `jax-runtimes render --nope x | kubectl apply --server-side -f -`.\n\
               ```\n\
               jax-runtimes validate --color never --trainer-version v2.3.0 --bogus # --comment\n\
               kpt fn eval --exec jax-runtimes --truncate\n\
               ```\n\
               | `jax-runtimes fit --nodes N [--kind tpu\\|--wrong]` | x |\n";
    let (checked, wrong) = wrong_flags("doc.md", doc, &subs);
    assert_eq!(
        wrong,
        [
            "doc.md:1: `jax-runtimes render` has no flag --nope (in `jax-runtimes render --nope x | kubectl apply --server-side -f -`)",
            "doc.md:3: `jax-runtimes validate` has no flag --bogus (in `jax-runtimes validate --color never --trainer-version v2.3.0 --bogus # --comment`)",
            "doc.md:6: `jax-runtimes fit` has no flag --kind (in `jax-runtimes fit --nodes N [--kind tpu\\|--wrong]`)",
            "doc.md:6: `jax-runtimes fit` has no flag --wrong (in `jax-runtimes fit --nodes N [--kind tpu\\|--wrong]`)",
        ]
    );
    assert_eq!(checked, 7);
}

/// One of README's output-rule bullets: "- **`--FLAG a|b|c`** ... (`cmd`, `cmd` ...": the listed
/// values and the commands in the first parenthesis (up to its first `;` or `)`).
fn rule_bullet(readme: &str, flag: &str) -> (usize, BTreeSet<String>, Vec<String>) {
    let prefix = format!("- **`--{flag} ");
    let lines: Vec<&str> = readme.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("README.md: no output-rule bullet starting with {prefix}"));
    let rest = &lines[at][prefix.len()..];
    let end = rest.find('`').unwrap_or_else(|| panic!("README.md:{}: no closing backtick after {prefix}", at + 1));
    let values = rest[..end].split('|').map(str::to_string).collect();
    // The bullet may wrap: join it up to the next bullet.
    let mut bullet = rest[end..].to_string();
    for l in &lines[at + 1..] {
        if l.starts_with("- ") || l.trim().is_empty() {
            break;
        }
        bullet.push(' ');
        bullet.push_str(l.trim());
    }
    let open = bullet.find('(').unwrap_or_else(|| panic!("README.md:{}: the --{flag} bullet names its commands in no parenthesis", at + 1));
    let inner = &bullet[open + 1..];
    let inner = &inner[..inner.find([';', ')']).unwrap_or(inner.len())];
    let commands = inline_spans(inner);
    (at + 1, values, commands)
}

/// README's `--format`, `--fail-on` and `--min-severity` bullets list the values the binary takes,
/// and the commands they name take the flag.
#[test]
fn readme_output_rules_list_the_real_values() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut wrong = Vec::new();
    for flag in ["format", "fail-on", "min-severity"] {
        let (line, values, commands) = rule_bullet(&readme, flag);
        if commands.is_empty() {
            wrong.push(format!("README.md:{line}: the --{flag} bullet names no commands in its parenthesis"));
        }
        // --format: exactly render's values, and each named command takes them all (`validate`
        // more). The others: exactly the values of every named command.
        if flag == "format" && possible_values("render", flag).is_some_and(|real| real != values) {
            let real = possible_values("render", flag).unwrap_or_default();
            wrong.push(format!("README.md:{line}: --{flag} lists {values:?}, `jax-runtimes render --{flag}` takes {real:?}"));
        }
        for sub in &commands {
            match possible_values(sub, flag) {
                None => wrong.push(format!("README.md:{line}: the --{flag} bullet names `{sub}`, which takes no --{flag}")),
                Some(real) if flag != "format" && real != values => {
                    wrong.push(format!("README.md:{line}: --{flag} lists {values:?}, `jax-runtimes {sub} --{flag}` takes {real:?}"));
                }
                Some(real) => {
                    let missing: Vec<_> = values.difference(&real).collect();
                    if !missing.is_empty() {
                        wrong.push(format!(
                            "README.md:{line}: --{flag} lists {missing:?}, which `jax-runtimes {sub} --{flag}` does not take (it takes {real:?})"
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "README's output rules disagree with the binary:\n{}", wrong.join("\n"));
}

/// Every backticked `Jax...` kind in README.md and docs/*.md is a kind the binary knows.
#[test]
fn docs_name_only_real_kinds() {
    let known: BTreeSet<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    let word = regex::Regex::new(r"\bJax[A-Z][A-Za-z]*\b").unwrap();
    let mut seen = BTreeSet::new();
    let mut wrong = Vec::new();
    for (file, text) in docs(false) {
        let mut fenced = false;
        for (i, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if t.starts_with("```") || t.starts_with("~~~") {
                fenced = !fenced;
                continue;
            }
            if fenced {
                continue;
            }
            for span in inline_spans(line) {
                for m in word.find_iter(&span) {
                    seen.insert(m.as_str().to_string());
                    if !known.contains(m.as_str()) {
                        wrong.push(format!(
                            "{file}:{}: `{}` is no catalog kind (the kinds: {})",
                            i + 1,
                            m.as_str(),
                            known.iter().copied().collect::<Vec<_>>().join(", ")
                        ));
                    }
                }
            }
        }
    }
    assert!(seen.len() >= 4, "only {seen:?} found in the docs: is the parser broken?");
    assert!(wrong.is_empty(), "the docs name kinds the binary does not know:\n{}", wrong.join("\n"));
}
