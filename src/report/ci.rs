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
/// fix, docs link, default level), each result its rule, level, message, one location (see
/// [`physical`]: GitHub code scanning refuses a result without an artifact location) with the
/// logical location (object and field path) where known, and the other files it names as
/// related locations.
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
    // Where a finding without a file of its own points: the first input file the findings name,
    // else the first built-in catalog file.
    let first = diags.iter().find_map(|d| real_file(d).filter(|f| !is_folder(d, f))).map(|f| json!({"uri": uri(f)})).or_else(|| {
        diags.iter().find_map(|d| d.file.as_deref()?.strip_prefix("builtin:")).map(|p| json!({"uri": uri(p), "uriBaseId": BUILTIN_BASE}))
    });
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
            location.insert("physicalLocation".into(), physical(d, first.as_ref()));
            if d.object.is_some() || d.field.is_some() {
                let name = match (&d.object, &d.field) {
                    (Some(o), Some(f)) => format!("{o}:{f}"),
                    (Some(o), None) => o.to_string(),
                    (None, Some(f)) => f.clone(),
                    (None, None) => String::new(),
                };
                location.insert("logicalLocations".into(), json!([{"fullyQualifiedName": name, "kind": "object"}]));
            }
            result["locations"] = json!([Value::Object(location)]);
            let related = related(d);
            if !related.is_empty() {
                result["relatedLocations"] = Value::Array(related);
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
    let builtin = results.iter().any(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == BUILTIN_BASE);
    let mut run = json!({
        "tool": {"driver": {
            "name": "jax-runtimes",
            "version": env!("CARGO_PKG_VERSION"),
            "informationUri": env!("CARGO_PKG_REPOSITORY"),
            "rules": driver_rules,
        }},
        "results": results,
    });
    if builtin {
        run["originalUriBaseIds"] = json!({BUILTIN_BASE: {
            "uri": concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/"),
            "description": {"text": "The built-in catalog, embedded in jax-runtimes: its files in the project's repository"},
        }});
    }
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    });
    serde_json::to_string_pretty(&log).map(|s| s + "\n").unwrap_or_default()
}

/// The `uriBaseId` of the built-in catalog's files (`builtin:catalog/runtimes/cpu.yaml` is
/// `catalog/runtimes/cpu.yaml` under it); the run's `originalUriBaseIds` says where they are.
const BUILTIN_BASE: &str = "JAXRUNTIMES_BUILTIN";

/// True when the finding's `file` is a folder: the output directory of `render -o`, `docs -o`,
/// `kueue -o` (the `output/` rules), or an input folder.
fn is_folder(d: &Diagnostic, file: &str) -> bool {
    d.rule.layer == crate::rules::Layer::Output || std::path::Path::new(file).is_dir()
}

/// A SARIF physical location for every finding, as precise as it is known:
/// - a real file: its URI, and its region (line, column, width) where the finding has a line;
/// - a folder (`output/stale`): its URI with a trailing `/`, never a region;
/// - no file, but the files it is about (`files`): the first of them;
/// - a built-in catalog file: its path under [`BUILTIN_BASE`], with its region;
/// - no file at all (`input/no-runtime`, the `jobset/trainjob-name-length` summary over several
///   files): `first`, the first input file the findings name (else built-in catalog file),
///   without a region;
/// - else (`<stdin>`, or no file named anywhere): the artifact's description (the stand-in
///   name), as there is no file to point at.
fn physical(d: &Diagnostic, first: Option<&Value>) -> Value {
    let region = |d: &Diagnostic| {
        let line = d.line?;
        let mut region = json!({"startLine": line});
        if let Some(col) = d.column {
            region["startColumn"] = json!(col);
            if let Some(w) = d.width {
                region["endColumn"] = json!(col + w);
            }
        }
        Some(region)
    };
    let with_region = |mut physical: Value, d: &Diagnostic| {
        if let Some(r) = region(d) {
            physical["region"] = r;
        }
        physical
    };
    if let Some(file) = real_file(d) {
        if is_folder(d, file) {
            return json!({"artifactLocation": {"uri": folder_uri(file)}});
        }
        return with_region(json!({"artifactLocation": {"uri": uri(file)}}), d);
    }
    if let Some(path) = d.file.as_deref().and_then(|f| f.strip_prefix("builtin:")) {
        return with_region(json!({"artifactLocation": {"uri": uri(path), "uriBaseId": BUILTIN_BASE}}), d);
    }
    if d.file.is_none() {
        if let Some(file) = d.files.iter().find(|f| !f.starts_with('<') && !f.starts_with("builtin:")) {
            return json!({"artifactLocation": {"uri": uri(file)}});
        }
        if let Some(artifact) = first {
            return json!({"artifactLocation": artifact});
        }
    }
    let name = d.file.as_deref().unwrap_or("the command's input");
    json!({"artifactLocation": {"description": {"text": name}}})
}

/// The files a finding names besides its location (`files`: the stale files of `--check`, in
/// its folder), as related locations.
fn related(d: &Diagnostic) -> Vec<Value> {
    let folder = real_file(d).filter(|f| is_folder(d, f));
    let skip = usize::from(folder.is_none() && d.file.is_none());
    d.files
        .iter()
        .filter(|f| !f.starts_with('<') && !f.starts_with("builtin:"))
        .skip(skip)
        .enumerate()
        .map(|(i, f)| {
            let path = match folder {
                Some(dir) => format!("{}/{f}", dir.trim_end_matches('/')),
                None => f.clone(),
            };
            json!({"id": i, "physicalLocation": {"artifactLocation": {"uri": uri(&path)}}})
        })
        .collect()
}

/// A folder's URI reference: its name with a trailing `/` (RFC 3986: a directory).
fn folder_uri(dir: &str) -> String {
    let u = uri(dir);
    if u.ends_with('/') {
        u
    } else {
        u + "/"
    }
}

/// A relative file name as a URI reference: characters a URI may not hold percent-encoded.
fn uri(file: &str) -> String {
    let mut out = String::with_capacity(file.len());
    for b in file.bytes() {
        // `:` too is encoded: in a relative reference's first segment it would read as a scheme.
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=@".contains(&b) {
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
///
/// Valid against both schemas consumers check reports with (tests/formats.rs): the Apache Ant
/// JUnit schema, the strictest (every suite has `package`, `id`, `hostname`, `timestamp`, `time`,
/// `errors`, its `properties`, `system-out` and `system-err`; `<testsuites>` has no attributes;
/// a case holds at most its `<failure>`), and the Jenkins xunit plugin's `junit-10.xsd`. So the
/// text of a case that passes (a finding below `fail_at`) is in its suite's `system-out`, and the
/// command and `--fail-on` are the suite's properties.
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
    let timestamp = timestamp();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    let suite = |out: &mut String, id: usize, name: &str, tests: usize, failures: usize| {
        // hostname: `localhost`, which the Ant schema asks for when it is not known; the findings
        // are about files, and naming the machine would make the report differ between runners.
        out.push_str(&format!(
            "  <testsuite name=\"{}\" package=\"jax-runtimes\" id=\"{id}\" hostname=\"localhost\" timestamp=\"{timestamp}\" \
             time=\"0\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">\n",
            xml(name)
        ));
        out.push_str(&format!(
            "    <properties>\n      <property name=\"command\" value=\"jax-runtimes {}\"/>\n      \
             <property name=\"fail-on\" value=\"{fail_at}\"/>\n    </properties>\n",
            xml(command)
        ));
    };
    if suites.is_empty() {
        suite(&mut out, 0, &format!("jax-runtimes {command}"), 1, 0);
        out.push_str("    <testcase name=\"no findings\" classname=\"jax-runtimes\" time=\"0\"/>\n");
        out.push_str("    <system-out/>\n    <system-err/>\n  </testsuite>\n");
    }
    for (id, (file, ds)) in suites.iter().enumerate() {
        suite(&mut out, id, file, ds.len(), ds.iter().filter(|d| failed(d)).count());
        let mut passed = String::new();
        for d in ds {
            let place = d.line.map(|l| format!(":{l}")).unwrap_or_default();
            let name = format!("{} {}{}{}", d.rule.id, file, place, d.object.as_ref().map(|o| format!(" {o}")).unwrap_or_default());
            out.push_str(&format!("    <testcase name=\"{}\" classname=\"{}\" time=\"0\"", xml(&name), xml(d.rule.id)));
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
                out.push_str("/>\n");
                passed.push_str(&format!("{name}\n{}: {body}\n\n", d.severity));
            }
        }
        if passed.is_empty() {
            out.push_str("    <system-out/>\n");
        } else {
            out.push_str(&format!("    <system-out>{}</system-out>\n", xml(passed.trim_end())));
        }
        out.push_str("    <system-err/>\n  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// When the report was made, as the Ant schema's `timestamp` wants it (UTC, no zone:
/// `2026-01-31T12:00:00`); `SOURCE_DATE_EPOCH`, where set, for a reproducible report.
fn timestamp() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default());
    iso8601(secs)
}

/// Seconds since 1970 as `YYYY-MM-DDThh:mm:ss` (UTC).
fn iso8601(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days since 1970-01-01 to the civil date (H. Hinnant's `civil_from_days`).
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}", rest / 3600, rest % 3600 / 60, rest % 60)
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
        let stdin = &run["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"];
        assert_eq!(stdin, &json!({"description": {"text": "<stdin>"}}), "stdin is no artifact");
    }

    #[test]
    fn every_sarif_result_has_a_location_a_folder_has_no_region() {
        use crate::rules::kubernetes::JOBSET_TRAINJOB_NAME_LENGTH;
        use crate::rules::output::OUTPUT_STALE;
        let stale = Diagnostic { files: vec!["a.yaml".into()], ..Diagnostic::new(&OUTPUT_STALE, "stale").with_file("out", None, None) };
        let summary = Diagnostic::new(&JOBSET_TRAINJOB_NAME_LENGTH, "names of at most 40 characters");
        let builtin = finding().with_file("builtin:catalog/runtimes/cpu.yaml", Some(0), Some(4));
        let log: Value = serde_json::from_str(&sarif(&[finding(), stale, summary.clone(), builtin.clone()])).unwrap();
        let run = &log["runs"][0];
        let at = |i: usize| run["results"][i]["locations"][0]["physicalLocation"].clone();
        assert_eq!(at(1), json!({"artifactLocation": {"uri": "out/"}}));
        assert_eq!(run["results"][1]["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"], "out/a.yaml");
        assert_eq!(at(2), json!({"artifactLocation": {"uri": "dir/a%20b.yaml"}}), "the first input file");
        assert_eq!(at(3)["artifactLocation"], json!({"uri": "catalog/runtimes/cpu.yaml", "uriBaseId": BUILTIN_BASE}));
        assert_eq!(at(3)["region"]["startLine"], 4);
        assert_eq!(run["originalUriBaseIds"][BUILTIN_BASE]["uri"], "https://github.com/jax-runtimes/jax-runtimes/blob/main/");
        // Only the built-in catalog: a finding without a file points at its first file.
        let log: Value = serde_json::from_str(&sarif(&[builtin, summary])).unwrap();
        let artifact = &log["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"];
        assert_eq!(artifact, &json!({"uri": "catalog/runtimes/cpu.yaml", "uriBaseId": BUILTIN_BASE}));
    }

    #[test]
    fn junit_fails_the_cases_at_the_threshold_and_is_never_empty() {
        let warn = finding().with_severity(Severity::Warning);
        let out = junit(&[finding(), warn.clone()], "validate", Severity::Error);
        assert!(out.contains("\n<testsuites>\n  <testsuite name=\"dir/a b.yaml\" package=\"jax-runtimes\" id=\"0\" "), "{out}");
        assert!(out.contains(" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\">\n"), "{out}");
        assert!(out.contains("<property name=\"command\" value=\"jax-runtimes validate\"/>"), "{out}");
        assert!(out.contains("message=\"bad, 100%&#10;really\""), "{out}");
        assert!(out.contains("<system-out>k8s/image-reference dir/a b.yaml:7 ClusterTrainingRuntime/rt&#10;warning: "), "{out}");
        assert!(junit(&[warn], "render", Severity::Warning).contains("failures=\"1\""));
        assert!(junit(&[], "render", Severity::Error).contains("<testcase name=\"no findings\""));
    }

    #[test]
    fn junit_timestamps_are_utc_without_a_zone() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00");
        assert_eq!(iso8601(951_827_696), "2000-02-29T12:34:56");
        assert_eq!(iso8601(4_102_444_799), "2099-12-31T23:59:59");
        assert_eq!(timestamp().len(), 19);
    }
}
