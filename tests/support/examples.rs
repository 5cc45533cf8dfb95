//! The examples of docs/rules.md that a command gives: a case of tests/rules/*.yaml (its files,
//! the command line, what runs first) run in a fresh folder by the binary, and the findings of
//! its rule cut from what it printed. tests/validate.rs makes the page of them; the controlplane
//! tier runs the cases that need a real cluster (`cluster: true`) against it.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde::Deserialize;
use serde_json::Value;

use super::path_with_bin;

/// The findings of `rule` in the text output of `validate`: each from its `severity[rule]:` line
/// to the next finding or the summary.
pub fn finding_blocks(output: &str, rule: &str) -> String {
    let mut out = Vec::new();
    let mut inside = false;
    for line in output.lines() {
        let starts = ["error[", "warning[", "info["].iter().any(|p| line.starts_with(p));
        if starts || line.starts_with("jax-runtimes: ") {
            inside = starts && line.contains(&format!("[{rule}]:"));
        }
        if inside {
            out.push(line.trim_end());
        }
    }
    out.join("\n")
}

/// A case of tests/rules/*.yaml: the files of a minimal input, the command that makes the binary
/// report `rule` on them, and what runs before it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandExample {
    pub rule: String,
    /// `catalog.yaml`; none for a command that reads no catalog.
    #[serde(default)]
    pub catalog: String,
    /// The command's arguments; default: `render catalog.yaml`.
    #[serde(default)]
    pub args: Vec<String>,
    /// Instead of `args`: a command line for `sh -c`, for what arguments cannot say (a file on
    /// standard input, standard output redirected). It runs `jax-runtimes` from the build.
    #[serde(default)]
    pub shell: Option<String>,
    /// Other files the command reads (a node list for `fit`, a ResourceList), by name.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// Command lines for `sh -c` run first, in order, each of which must succeed: a file too
    /// large to write out, an earlier `render`, an edit after it.
    #[serde(default)]
    pub setup: Vec<String>,
    /// The case needs a real cluster: the controlplane tier runs it with `KUBECONFIG` set to the
    /// tier's control plane and checks that it gives the example recorded in
    /// `tests/rules/recorded/` ([`recorded`]), which docs/rules.md shows.
    #[serde(default)]
    pub cluster: bool,
}

/// The file the example of a `cluster: true` case is recorded in.
pub fn recorded(rule: &str) -> std::path::PathBuf {
    super::root().join("tests/rules/recorded").join(format!("{}.txt", rule.replace('/', "-")))
}

/// Every case of tests/rules/*.yaml, with the file it is in.
pub fn cases() -> Vec<(String, CommandExample)> {
    let mut files: Vec<_> = std::fs::read_dir(super::root().join("tests/rules")).unwrap().map(|e| e.unwrap().path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "yaml"));
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let name = format!("tests/rules/{}", file.file_name().unwrap().to_string_lossy());
        let cases: Vec<CommandExample> =
            serde_saphyr::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap_or_else(|e| panic!("{name} parses: {e}"));
        out.extend(cases.into_iter().map(|c| (name.clone(), c)));
    }
    out
}

/// `sh -c LINE` in `dir`, with the binary under test first on PATH, as on a [`terminal`].
pub fn shell_in(dir: &Path, line: &str) -> std::process::Output {
    shell_with(dir, line, &|_| {})
}

fn shell_with(dir: &Path, line: &str, env: &dyn Fn(&mut Command)) -> std::process::Output {
    let mut sh = Command::new("sh");
    sh.args(["-c", line]).current_dir(dir).env("PATH", path_with_bin()).stdin(std::process::Stdio::null());
    env(&mut sh);
    terminal(&mut sh).output().unwrap()
}

/// A command's environment as a terminal user's: box-drawing frames, no color.
pub fn terminal(cmd: &mut Command) -> &mut Command {
    cmd.env("TERM", "xterm-256color").env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE")
}

/// The findings of `rule` in `--format json` output (a JSON array on stderr), pretty-printed:
/// for the findings that text output prints as one `jax-runtimes:` line without the rule.
pub fn json_findings(stderr: &str, rule: &str) -> String {
    let Ok(findings) = serde_json::from_str::<Vec<Value>>(stderr) else { return String::new() };
    let hits: Vec<&Value> = findings.iter().filter(|f| f["rule"] == rule).collect();
    if hits.is_empty() {
        return String::new();
    }
    serde_json::to_string_pretty(&hits).unwrap()
}

/// Runs one case of tests/rules/ in a fresh folder and returns its example: the files, every
/// command line as run, and the findings of the case's rule that the last one printed.
pub fn run_example(case: &CommandExample) -> Result<String, String> {
    run_example_on(case, None)
}

/// [`run_example`] with `KUBECONFIG` set to `kubeconfig` for the setup and the command (a
/// `cluster: true` case); the API server's port in the output is written as 6443, so that the
/// example does not change from run to run.
pub fn run_example_on(case: &CommandExample, kubeconfig: Option<&Path>) -> Result<String, String> {
    let dir = tempfile::tempdir().unwrap();
    let env = |cmd: &mut Command| {
        if let Some(kc) = kubeconfig {
            cmd.env("KUBECONFIG", kc);
        }
    };
    if !case.catalog.is_empty() {
        std::fs::write(dir.path().join("catalog.yaml"), &case.catalog).unwrap();
    }
    for (name, text) in &case.files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut lines: Vec<String> = Vec::new();
    for line in &case.setup {
        let o = shell_with(dir.path(), line, &env);
        if !o.status.success() {
            return Err(format!("`{line}` failed:\n{}", super::show(&o)));
        }
        lines.push(format!("$ {line}"));
    }
    let args: Vec<&str> =
        if case.args.is_empty() { vec!["render", "catalog.yaml"] } else { case.args.iter().map(String::as_str).collect() };
    let output = match &case.shell {
        Some(line) => {
            lines.push(format!("$ {line}"));
            shell_with(dir.path(), line, &env)
        }
        None => {
            lines.push(format!("$ jax-runtimes {}", args.join(" ")));
            let mut cmd = super::cli(&args);
            env(&mut cmd);
            terminal(cmd.current_dir(dir.path())).output().unwrap()
        }
    };
    let mut all = super::text(&output);
    if kubeconfig.is_some() {
        all = regex::Regex::new(r"127\.0\.0\.1:[0-9]+").unwrap().replace_all(&all, "127.0.0.1:6443").into_owned();
    }
    let mut block = finding_blocks(&all, &case.rule);
    if block.is_empty() {
        // validate's report is on stdout, a generator's findings on stderr.
        block = json_findings(&String::from_utf8_lossy(&output.stdout), &case.rule);
    }
    if block.is_empty() {
        block = json_findings(&String::from_utf8_lossy(&output.stderr), &case.rule);
    }
    if block.is_empty() {
        return Err(format!("not reported:\n{all}"));
    }
    let others: String = case.files.iter().map(|(name, text)| format!("\n\n`{name}`:\n\n```{}\n{text}```", fence(text))).collect();
    let example = format!(
        "Example{}{others}\n\n```text\n{}\n{block}\n```",
        if case.catalog.is_empty() {
            ":".to_string()
        } else {
            format!(", `catalog.yaml`:\n\n```{}\n{}```", fence(&case.catalog), case.catalog)
        },
        lines.join("\n")
    );
    // Deterministic: relative paths only, never the folder it ran in.
    let tmp = dir.path().display().to_string();
    if example.contains(&tmp) {
        return Err(format!("the example names the folder it ran in ({tmp}); use relative paths:\n{example}"));
    }
    Ok(example)
}

/// The language of a block showing `text`: `yaml`, or `text` for input that is meant not to parse
/// (docs/ YAML blocks must parse).
pub fn fence(text: &str) -> &'static str {
    if jax_runtimes::yaml::parse_stream(text).is_ok() {
        "yaml"
    } else {
        "text"
    }
}
