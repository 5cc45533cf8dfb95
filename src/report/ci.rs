//! Findings in the formats CI systems read natively: GitHub Actions workflow commands
//! (`::error file=..,line=..,col=..,title=..::message`), SARIF 2.1.0 (code scanning), and JUnit XML
//! (test reports). Each finding carries the same fields as in text and JSON: the rule id, the
//! field path, the object, the file, line and column, and its rule's docs link.

use serde_json::{json, Value};

use crate::diag::{Diagnostic, Severity};

/// A file the findings may point at in CI: the name as the user gave it, not a stand-in
/// (`<stdin>`, `<items[3]>`) nor the built-in catalog (`builtin:...`).
fn real_file(d: &Diagnostic) -> Option<&str> {
    d.file.as_deref().filter(|f| !f.starts_with('<') && !f.starts_with("builtin:"))
}

/// What a finding is about, before its message: `Kind/name: `field`: `.
fn subject(d: &Diagnostic) -> String {
    let mut s = String::new();
    if let Some(o) = &d.object {
        s.push_str(&format!("{o}: "));
    }
    if let Some(f) = &d.field {
        s.push_str(&format!("`{f}`: "));
    }
    s
}

/// One workflow command per finding (`error`, `warning`, `notice`), with the help and the docs
/// link in the message; GitHub shows them as annotations on the file and line.
pub fn github(diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut props = Vec::new();
        if let Some(file) = real_file(d) {
            props.push(format!("file={}", property(file)));
            if let Some(line) = d.line {
                props.push(format!("line={line}"));
                if let Some(col) = d.column {
                    props.push(format!("col={col}"));
                }
            }
        }
        props.push(format!("title={}", property(d.rule.id)));
        let mut message = format!("{}{}", subject(d), d.message);
        if real_file(d).is_none() {
            if let Some(file) = &d.file {
                message = format!("{file}{}: {message}", d.line.map(|l| format!(":{l}")).unwrap_or_default());
            }
        }
        if let Some(help) = &d.help {
            message.push_str(&format!("\nhelp: {help}"));
        }
        message.push_str(&format!("\ndocs: {}", crate::rules::docs_url(d.rule.id)));
        out.push_str(&format!("::{command} {}::{}\n", props.join(","), data(&message)));
    }
    out
}

/// A workflow command's message: `%`, CR and LF escaped, as the Actions runner unescapes them.
fn data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A workflow command's property value: also `:` and `,` escaped.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// A SARIF 2.1.0 log with one run: the driver lists the rules the findings use (id, summary,
/// fix, docs link, default level), each result its rule, level, message, physical location
/// (file, line, column) where the finding has a real file, and logical location (object and
/// field path).
pub fn sarif(diags: &[Diagnostic]) -> String {
    let mut rules: Vec<&'static crate::rules::Rule> = Vec::new();
    for d in diags {
        if !rules.iter().any(|r| std::ptr::eq(*r, d.rule)) {
            rules.push(d.rule);
        }
    }
    rules.sort_by_key(|r| r.id);
    let level = |s: Severity| match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    };
    let driver_rules: Vec<Value> = rules
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": {"text": r.summary},
                "help": {"text": r.fix},
                "helpUri": crate::rules::docs_url(r.id),
                "defaultConfiguration": {"level": level(r.severity)},
            })
        })
        .collect();
    let results: Vec<Value> = diags
        .iter()
        .map(|d| {
            let mut text = format!("{}{}", subject(d), d.message);
            if let Some(help) = &d.help {
                text.push_str(&format!(" (help: {help})"));
            }
            let mut result = json!({
                "ruleId": d.rule.id,
                "ruleIndex": rules.iter().position(|r| std::ptr::eq(*r, d.rule)).unwrap_or(0),
                "level": level(d.severity),
                "message": {"text": text},
            });
            let mut location = serde_json::Map::new();
            if let Some(file) = real_file(d) {
                let mut physical = json!({"artifactLocation": {"uri": uri(file)}});
                if let Some(line) = d.line {
                    let mut region = json!({"startLine": line});
                    if let Some(col) = d.column {
                        region["startColumn"] = json!(col);
                        if let Some(w) = d.width {
                            region["endColumn"] = json!(col + w);
                        }
                    }
                    physical["region"] = region;
                }
                location.insert("physicalLocation".into(), physical);
            }
            if d.object.is_some() || d.field.is_some() {
                let name = match (&d.object, &d.field) {
                    (Some(o), Some(f)) => format!("{o}:{f}"),
                    (Some(o), None) => o.to_string(),
                    (None, Some(f)) => f.clone(),
                    (None, None) => String::new(),
                };
                location.insert("logicalLocations".into(), json!([{"fullyQualifiedName": name, "kind": "object"}]));
            }
            if !location.is_empty() {
                result["locations"] = json!([Value::Object(location)]);
            }
            let mut properties = serde_json::Map::new();
            for (key, value) in [
                ("field", d.field.as_deref()),
                ("file", d.file.as_deref()),
                ("row", d.row.as_deref()),
                ("generated", d.generated.as_deref()),
            ] {
                if let Some(v) = value {
                    properties.insert(key.into(), json!(v));
                }
            }
            if !d.files.is_empty() {
                properties.insert("files".into(), json!(d.files));
            }
            properties.insert("docs".into(), json!(crate::rules::docs_url(d.rule.id)));
            result["properties"] = Value::Object(properties);
            result
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "jax-runtimes",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": driver_rules,
            }},
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).map(|s| s + "\n").unwrap_or_default()
}

/// A relative file name as a URI reference: characters a URI may not hold percent-encoded.
fn uri(file: &str) -> String {
    let mut out = String::with_capacity(file.len());
    for b in file.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A JUnit XML report: one test suite per file (findings without a file under `jax-runtimes`), one
/// test case per finding, failed when the finding's severity is at or above `fail_at`; a run
/// without findings is one passing case, so the report is never empty.
pub fn junit(diags: &[Diagnostic], command: &str, fail_at: Severity) -> String {
    let mut suites: Vec<(String, Vec<&Diagnostic>)> = Vec::new();
    for d in diags {
        let name = d.file.clone().unwrap_or_else(|| "jax-runtimes".to_string());
        match suites.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(d),
            None => suites.push((name, vec![d])),
        }
    }
    let failed = |d: &Diagnostic| d.severity >= fail_at;
    let total_failures = diags.iter().filter(|d| failed(d)).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"jax-runtimes {}\" tests=\"{}\" failures=\"{total_failures}\">\n",
        xml(command),
        diags.len().max(1)
    ));
    if suites.is_empty() {
        out.push_str(&format!("  <testsuite name=\"jax-runtimes {}\" tests=\"1\" failures=\"0\">\n", xml(command)));
        out.push_str("    <testcase name=\"no findings\" classname=\"jax-runtimes\"/>\n  </testsuite>\n");
    }
    for (file, ds) in &suites {
        let failures = ds.iter().filter(|d| failed(d)).count();
        out.push_str(&format!("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\">\n", xml(file), ds.len()));
        for d in ds {
            let place = d.line.map(|l| format!(":{l}")).unwrap_or_default();
            let name = format!("{} {}{}{}", d.rule.id, file, place, d.object.as_ref().map(|o| format!(" {o}")).unwrap_or_default());
            out.push_str(&format!("    <testcase name=\"{}\" classname=\"{}\"", xml(&name), xml(d.rule.id)));
            let mut body = format!("{}{}", subject(d), d.message);
            if let Some(help) = &d.help {
                body.push_str(&format!("\nhelp: {help}"));
            }
            body.push_str(&format!("\ndocs: {}", crate::rules::docs_url(d.rule.id)));
            if failed(d) {
                out.push_str(&format!(
                    ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                    d.severity,
                    xml(&d.message),
                    xml(&body)
                ));
            } else {
                out.push_str(&format!(">\n      <system-out>{}: {}</system-out>\n    </testcase>\n", d.severity, xml(&body)));
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Text for XML attributes and content; characters XML 1.0 cannot hold become `?`.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::ObjectRef;
    use crate::rules::kubernetes::K8S_IMAGE_REFERENCE;

    fn finding() -> Diagnostic {
        let mut d = Diagnostic::finding(&K8S_IMAGE_REFERENCE, "spec.x", "bad, 100%\nreally")
            .with_object(ObjectRef::new("ClusterTrainingRuntime", "rt"))
            .with_file("dir/a b.yaml", Some(0), Some(7));
        d.column = Some(3);
        d
    }

    #[test]
    fn github_commands_escape_their_properties_and_message() {
        let out = github(&[finding()]);
        assert!(out.starts_with("::error file=dir/a b.yaml,line=7,col=3,title=k8s/image-reference::ClusterTrainingRuntime/rt: `spec.x`: bad, 100%25%0Areally"), "{out}");
        assert!(
            out.contains("%0Adocs: https://github.com/jax-runtimes/jax-runtimes/blob/main/docs/rules.md#k8s-image-reference\n"),
            "{out}"
        );
        assert_eq!(out.lines().count(), 1);
        let stdin = github(&[finding().with_severity(Severity::Info).with_file("<stdin>", None, Some(2))]);
        assert!(stdin.starts_with("::notice title=k8s/image-reference::<stdin>:2: "), "{stdin}");
    }

    #[test]
    fn sarif_has_the_fields_the_2_1_0_schema_requires() {
        let log: Value = serde_json::from_str(&sarif(&[finding(), finding().with_file("<stdin>", None, None)])).unwrap();
        assert_eq!(log["version"], "2.1.0");
        let run = &log["runs"][0];
        assert_eq!(run["tool"]["driver"]["name"], "jax-runtimes");
        let rule = &run["tool"]["driver"]["rules"][0];
        assert_eq!(rule["id"], "k8s/image-reference");
        assert!(rule["helpUri"].as_str().unwrap().ends_with("#k8s-image-reference"));
        let r = &run["results"][0];
        assert_eq!(r["ruleId"], "k8s/image-reference");
        assert_eq!(r["ruleIndex"], 0);
        assert_eq!(r["level"], "error");
        assert!(r["message"]["text"].as_str().unwrap().contains("bad, 100%"));
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], "dir/a%20b.yaml");
        assert_eq!(loc["region"]["startLine"], 7);
        assert_eq!(loc["region"]["startColumn"], 3);
        assert_eq!(r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"], "ClusterTrainingRuntime/rt:spec.x");
        assert!(run["results"][1]["locations"][0].get("physicalLocation").is_none(), "stdin is no artifact");
    }

    #[test]
    fn junit_fails_the_cases_at_the_threshold_and_is_never_empty() {
        let warn = finding().with_severity(Severity::Warning);
        let out = junit(&[finding(), warn.clone()], "validate", Severity::Error);
        assert!(out.contains("<testsuites name=\"jax-runtimes validate\" tests=\"2\" failures=\"1\">"), "{out}");
        assert!(out.contains("<testsuite name=\"dir/a b.yaml\" tests=\"2\" failures=\"1\">"), "{out}");
        assert!(out.contains("message=\"bad, 100%&#10;really\""), "{out}");
        assert!(junit(&[warn], "render", Severity::Warning).contains("failures=\"1\""));
        assert!(junit(&[], "render", Severity::Error).contains("<testcase name=\"no findings\""));
    }
}
