//! Findings on matrix rows, one per mistake: the same finding (rule, field, message) in many rows
//! of one matrix is reported once, with the rows it affects. When the rows share the value of the
//! one variable the template string at that field reads (`model: "{{ model }}"` with `h900` in the
//! list), the finding points at that value in `spec.matrix` (or `spec.include`), not at the
//! template; otherwise at the template field.

use std::collections::{BTreeSet, HashMap};

use super::matrix::{Expansion, Row, Site};
use crate::diag::{Diagnostic, ObjectRef, Severity};
use crate::read::Document;
use crate::yaml::parent_path;

/// A matrix whose rows findings are about.
pub(super) struct Matrix<'a> {
    pub doc: &'a Document,
    pub object: ObjectRef,
    pub expansion: Expansion,
}

/// Findings in the order they were made; those on matrix rows are grouped in place of the first.
#[derive(Default)]
pub(super) struct Findings {
    slots: Vec<Slot>,
    groups: Vec<Group>,
    index: HashMap<Key, usize>,
}

enum Slot {
    Ready(Box<Diagnostic>),
    Group(usize),
}

/// A finding on rows: its matrix, the rows, and the finding (field relative to the runtime).
struct Group {
    matrix: usize,
    rows: Vec<usize>,
    diag: Diagnostic,
}

type Key = (usize, &'static str, Severity, Option<String>, String);

impl Findings {
    /// A finding already placed.
    pub fn push(&mut self, d: Diagnostic) {
        self.slots.push(Slot::Ready(Box::new(d)));
    }

    /// A finding on row `row` of matrix `matrix` (its field relative to the runtime, not placed).
    pub fn row(&mut self, matrix: usize, row: usize, d: Diagnostic) {
        let key = (matrix, d.rule.id, d.severity, d.field.clone(), d.message.clone());
        match self.index.get(&key) {
            Some(&g) => {
                let rows = &mut self.groups[g].rows;
                if rows.last() != Some(&row) {
                    rows.push(row);
                }
            }
            None => {
                self.index.insert(key, self.groups.len());
                self.slots.push(Slot::Group(self.groups.len()));
                self.groups.push(Group { matrix, rows: vec![row], diag: d });
            }
        }
    }

    /// Every finding, placed, in order.
    pub fn finish(self, matrices: &[Matrix<'_>]) -> Vec<Diagnostic> {
        let mut groups: Vec<Option<Group>> = self.groups.into_iter().map(Some).collect();
        self.slots
            .into_iter()
            .filter_map(|s| match s {
                Slot::Ready(d) => Some(*d),
                Slot::Group(g) => groups[g].take().map(|g| {
                    let m = &matrices[g.matrix];
                    place(g, m)
                }),
            })
            .collect()
    }
}

/// The template string that made the value at `field` (the field itself or an ancestor).
fn site_of<'s>(sites: &'s [Site], field: &str) -> Option<&'s Site> {
    let mut p = field;
    loop {
        if let Some(s) = sites.iter().find(|s| s.field == p) {
            return Some(s);
        }
        if p.is_empty() {
            return None;
        }
        p = parent_path(p);
    }
}

/// The variable whose one value all `rows` share, among those the site reads, and that value's
/// field path: where the mistake is.
fn cause<'r>(site: &Site, rows: &[&'r Row], all: &[Row]) -> Option<(&'r str, &'r str)> {
    let constant = |rows: &[&Row], v: &str| -> Option<String> {
        let sources: BTreeSet<&String> = rows.iter().filter_map(|r| r.sources.get(v)).collect();
        (sources.len() == 1 && rows.iter().all(|r| r.sources.contains_key(v)))
            .then(|| sources.into_iter().next().cloned().unwrap_or_default())
    };
    let mut candidates: Vec<&String> = site.vars.iter().filter(|v| constant(rows, v).is_some()).collect();
    if candidates.len() > 1 {
        // A variable with one value in the whole matrix does not tell rows apart.
        let everywhere: Vec<&Row> = all.iter().collect();
        candidates.retain(|v| constant(&everywhere, v).is_none());
    }
    let [v] = candidates.as_slice() else { return None };
    let row = rows.first()?;
    let (name, source) = row.sources.get_key_value(v.as_str())?;
    Some((name.as_str(), source.as_str()))
}

/// `n matrix rows: a; b; c and 4 more`, or `matrix row a` for one.
fn rows_text(rows: &[&Row], all: usize) -> String {
    match rows {
        [one] => format!("matrix row {}", one.describe()),
        _ if rows.len() == all && all > 3 => format!("every row of the matrix, {} rows", rows.len()),
        _ => {
            let shown: Vec<String> = rows.iter().take(3).map(|r| r.describe()).collect();
            let more = if rows.len() > 3 { format!(" and {} more", rows.len() - 3) } else { String::new() };
            format!("{} matrix rows: {}{more}", rows.len(), shown.join("; "))
        }
    }
}

fn place(g: Group, m: &Matrix<'_>) -> Diagnostic {
    let all = &m.expansion.rows;
    let rows: Vec<&Row> = g.rows.iter().filter_map(|&i| all.get(i)).collect();
    let field = g.diag.field.clone().unwrap_or_default();
    let template_field = if field.is_empty() { "spec.template".to_string() } else { format!("spec.template.{field}") };
    let text = rows_text(&rows, all.len());
    let site = site_of(&m.expansion.sites, &field);
    let at_value = site.and_then(|s| cause(s, &rows, all).map(|(var, source)| (s, var, source)));
    let d = match at_value {
        Some((site, var, source)) => {
            // Inside a value a whole `{{ var.a.b }}` produced: the same place inside the value.
            let mut path = source.to_string();
            if let Some((v, attrs)) = &site.whole {
                if v == var {
                    for a in attrs {
                        path = format!("{path}.{a}");
                    }
                    let rest = field.strip_prefix(site.field.as_str()).unwrap_or_default();
                    if !rest.is_empty() {
                        let rest = rest.strip_prefix('.').unwrap_or(rest);
                        path = if rest.starts_with('[') { format!("{path}{rest}") } else { format!("{path}.{rest}") };
                    }
                }
            }
            let message = format!("{} (the value of `{var}` at `{template_field}`, in {text})", g.diag.message);
            Diagnostic { message, field: Some(path), ..g.diag }
        }
        None => {
            let message = format!("{} ({text})", g.diag.message);
            Diagnostic { message, field: Some(template_field), ..g.diag }
        }
    };
    let d = if d.object.is_none() { d.with_object(m.object.clone()) } else { d };
    // One row: its variables and the runtime it generated, as fields (JSON, SARIF).
    let d = match rows.as_slice() {
        [one] => Diagnostic {
            row: Some(one.describe()),
            generated: one.runtime.pointer("/metadata/name").and_then(|n| n.as_str()).map(str::to_string),
            ..d
        },
        _ => d,
    };
    m.doc.locate(d)
}
