//! The rule registry: every finding jax-runtimes can report has a [`Rule`] here, with a stable id,
//! a severity, the layer it belongs to, what it finds and how to fix it. A finding can only be
//! built from a `&'static Rule` ([`crate::diag::Diagnostic::new`]), so an id that is not
//! registered cannot be emitted, and `docs/rules.md` ([`markdown`]) lists every one.
//!
//! Rules are declared with [`define_rules!`], one file per family, which also collects each
//! family's table; [`all`] walks every family in docs order.

pub mod autopilot;
pub mod catalog;
pub mod consistency;
pub mod doctor;
pub mod fit;
pub mod input;
pub mod interconnect;
pub mod krm;
pub mod kubernetes;
pub mod kueue;
pub mod live;
pub mod output;
pub mod rule;
pub mod trainjob;
pub mod validate;

pub use rule::{Layer, Moment, Rule, Severity, Teller};

/// Every registered rule, in docs order (layer by layer).
pub fn all() -> impl Iterator<Item = &'static Rule> {
    let families: [&'static [&'static Rule]; 14] = [
        input::RULES,
        live::RULES,
        doctor::RULES,
        catalog::RULES,
        output::RULES,
        krm::RULES,
        validate::RULES,
        interconnect::RULES,
        consistency::RULES,
        kubernetes::RULES,
        autopilot::RULES,
        trainjob::RULES,
        kueue::RULES,
        fit::RULES,
    ];
    let mut rules: Vec<&'static Rule> = families.into_iter().flatten().copied().collect();
    rules.sort_by_key(|r| r.layer);
    rules.into_iter()
}

/// Where the rules' docs page lives: the repository of `Cargo.toml`, `docs/rules.md` on main.
pub const DOCS_PAGE: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/rules.md");

/// The anchor of a rule's entry on docs/rules.md: the id with every character other than
/// `[a-z0-9-]` replaced by `-` (`k8s/dns-label` -> `k8s-dns-label`). docs/rules.md writes
/// `<a id="..."></a>` with this, and [`docs_url`] links to it.
pub fn anchor(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' { c } else { '-' }).collect()
}

/// The link to a rule's entry on docs/rules.md, carried by every finding's help, JSON and SARIF.
pub fn docs_url(id: &str) -> String {
    format!("{DOCS_PAGE}#{}", anchor(id))
}

/// Infos that hold for every clean catalog (a GPU entry on a platform without a fabric it can
/// wire is still a valid runtime): left out of reports unless `--min-severity info` asks.
pub const ROUTINE: &[&str] = &["interconnect/not-wired"];

/// True for a rule in [`ROUTINE`].
pub fn routine(rule: &Rule) -> bool {
    ROUTINE.contains(&rule.id)
}

/// The rule with this id, if it is registered.
pub fn by_id(id: &str) -> Option<&'static Rule> {
    all().find(|r| r.id == id)
}

/// The docs page listing every rule (`docs/rules.md` without its examples; what
/// `validate --list-rules --format markdown` prints).
pub fn markdown() -> String {
    markdown_with(&|_| None)
}

/// The rule's anchor on the docs page: its id with every character outside `[a-z0-9-]` made `-`
/// (`sdk/unknown-device` -> `sdk-unknown-device`). The page writes it as an explicit
/// `<a id="...">`, so links do not depend on how a Markdown renderer makes heading ids.
fn doc_anchor(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' { c } else { '-' }).collect()
}

/// The docs page, with `example(id)` (Markdown: an input and the message it gives) under each
/// rule that has one. tests/validate.rs fills the examples by running the binary on its corpus.
pub fn markdown_with(example: &dyn Fn(&str) -> Option<String>) -> String {
    let mut s = String::new();
    s.push_str("# Rules\n\n");
    s.push_str("<!-- Generated from the rule registry in src/rules/ (`jax-runtimes validate --list-rules --format markdown` prints it without the examples);\n     the examples are the binary's output on the cases of tests/validate/. Do not edit by hand; `UPDATE_DOCS=1 cargo test --test validate` rewrites it. -->\n\n");
    s.push_str("Every finding jax-runtimes reports (`render`, `docs`, `validate` and the KRM function) carries one of these rule ids. ");
    s.push_str("Ids are stable. Severity `error` makes the command exit 1; `warning` and `info` do not. ");
    s.push_str("Each rule has an entry below, at `rules.md#` and its id with `/` made `-` (`sdk/unknown-device`: `#sdk-unknown-device`), ");
    s.push_str("with what it finds and how to fix it; most have an example: an input and what the command prints for it (the tests run each one).\n\n");
    s.push_str(
        "Runtimes labelled `trainer.kubeflow.org/webhook-validation: disabled` skip the Trainer admission webhook, as upstream does: ",
    );
    s.push_str("their `admission/*` findings are reported as `info`.\n\n");
    s.push_str("Without `--crd` the `schema/*` rules and the built-in `cel/*` equivalents of the Trainer v2.3 CRD rules apply; ");
    s.push_str("with `--crd` the `crd/*` rules and `cel/rule` (the CRD's own rules) replace them.\n\n");
    s.push_str("Rules that restate a check of Kubernetes, JobSet or Trainer say when it would otherwise fail ");
    s.push_str("(at apply, or when a TrainJob starts and Trainer creates its JobSet, Jobs and Pods) and the upstream file and function they follow. ");
    s.push_str("They run on hand-written runtimes in `validate` and the KRM validator, with or without `--crd`, and on the catalog's own values in `render`.\n");
    for layer in Layer::ALL {
        let rules: Vec<&Rule> = all().filter(|r| r.layer == layer).collect();
        if rules.is_empty() {
            continue;
        }
        s.push_str(&format!("\n## {}\n\n", layer.title()));
        s.push_str("| Rule | Severity | What it finds |\n|---|---|---|\n");
        for r in &rules {
            s.push_str(&format!("| [`{}`](#{}) | {} | {} |\n", r.id, doc_anchor(r.id), r.severity, cell(r.summary)));
        }
        for r in rules {
            s.push_str(&format!("\n<a id=\"{}\"></a>\n\n### `{}`\n\n", doc_anchor(r.id), r.id));
            s.push_str(&format!("Severity: {}.", r.severity));
            if let Some(m) = r.fails {
                s.push_str(&format!(" When it would fail: {}.", m.describe()));
            }
            s.push_str(&format!("\n\n{}\n\nFix: {}\n", one_line(r.summary), one_line(r.fix)));
            if let Some(source) = r.source {
                s.push_str(&format!("\nSource: {}\n", one_line(source)));
            }
            if let Some(e) = example(r.id) {
                s.push_str(&format!("\n{}\n", e.trim_end()));
            }
        }
    }
    s
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn docs_links_point_at_the_rule_anchor_on_the_repository_page() {
        assert_eq!(anchor("k8s/dns-label"), "k8s-dns-label");
        assert_eq!(anchor("Odd_id.x/y"), "-dd-id-x-y");
        assert_eq!(docs_url("k8s/dns-label"), "https://github.com/jax-runtimes/jax-runtimes/blob/main/docs/rules.md#k8s-dns-label");
        let anchors: BTreeSet<String> = all().map(|r| anchor(r.id)).collect();
        assert_eq!(anchors.len(), all().count(), "two rule ids share an anchor");
    }

    #[test]
    fn ids_are_unique_and_name_their_layer_family() {
        let mut seen = BTreeSet::new();
        for r in all() {
            assert!(seen.insert(r.id), "rule id `{}` is registered twice", r.id);
            let (family, name) = r.id.split_once('/').unwrap_or_else(|| panic!("`{}` is not family/name", r.id));
            assert!(!family.is_empty() && !name.is_empty(), "`{}`", r.id);
            assert!(
                name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "`{}`: ids are lowercase words joined by `-`",
                r.id
            );
            assert!(!r.summary.is_empty() && !r.fix.is_empty(), "`{}` needs a summary and a fix", r.id);
        }
    }

    #[test]
    fn kubernetes_rules_say_when_they_fail_and_where_they_come_from() {
        for r in all().filter(|r| r.layer == Layer::Kubernetes || r.id.starts_with("k8s/")) {
            assert!(r.fails.is_some() && r.source.is_some_and(|s| !s.is_empty()), "`{}` needs a moment and a source", r.id);
        }
        let page = markdown();
        let entry = page.split("<a id=\"k8s-label-value\"></a>").nth(1).expect("k8s/label-value has an anchor on the page");
        let entry = entry.split("<a id=").next().unwrap_or_default();
        assert!(entry.contains("### `k8s/label-value`") && entry.contains("at apply") && entry.contains("IsValidLabelValue"), "{entry}");
        let plain = page.split("<a id=\"catalog-unknown-field\"></a>").nth(1).expect("catalog rules are on the page");
        let plain = plain.split("<a id=").next().unwrap_or_default();
        assert!(!plain.contains("Source:") && !plain.contains("When it would fail"), "rules without a source say none: {plain}");
    }

    #[test]
    fn anchors_are_the_id_with_every_other_character_a_dash() {
        assert_eq!(doc_anchor("sdk/unknown-device"), "sdk-unknown-device");
        assert_eq!(doc_anchor("k8s/env-name"), "k8s-env-name");
        let page = markdown();
        for r in all() {
            assert!(page.contains(&format!("](#{})", doc_anchor(r.id))), "the table of {} does not link its entry", r.id);
        }
    }

    #[test]
    fn every_layer_has_rules_and_lookup_finds_them() {
        for layer in Layer::ALL {
            assert!(all().any(|r| r.layer == layer), "layer {layer:?} has no rule");
        }
        assert_eq!(by_id("catalog/unknown-field").map(|r| r.id), Some("catalog/unknown-field"));
        assert!(by_id("catalog/no-such-rule").is_none());
    }
}
