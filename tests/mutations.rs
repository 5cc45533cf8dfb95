//! One answer per object, for every Trainer release (issue 52 item 2, issue 42 item 5): for each
//! embedded release R, `validate --trainer-version R` and `validate --trainer-version R --crd
//! <R's CRDs from ../shared/reference>` give the same verdict on every hand-written fixture of the
//! suite and on generated mutations of valid objects (tests/support/mutations.rs): the same
//! objects refused at the API server's layer, and an error somewhere exactly when the other mode
//! has one. Disagreements print as a table; the test fails on any (the real API server's verdict
//! on the same mutants is tests/controlplane.rs).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use support::judge::{both_modes, corpus_fixtures, verdict, Fixture};
use support::mutations::{count, mutants, seeds};
use support::reference;

/// Prints past the test harness's capture: the counts show on every run.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

#[test]
fn validate_and_validate_crd_give_one_verdict_on_every_fixture_and_mutant_of_every_release() {
    let Some(reference) = reference() else { return };
    let start = std::time::Instant::now();
    let (mut fixtures, _) = corpus_fixtures();
    let hand_written = fixtures.len();
    let seeds = seeds(true);
    fixtures.extend(mutants(&seeds, count()).into_iter().map(Fixture::from));
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    for release in jax_runtimes::validate::structure::releases() {
        let t = std::time::Instant::now();
        let (default, with_crd) = both_modes(&reference, release);
        let (mut refused, mut disagree) = (0, 0);
        for f in &fixtures {
            let a = verdict(f, &default);
            let b = verdict(f, &with_crd);
            refused += usize::from(a.api.iter().any(|x| !x.is_empty()));
            for (j, (x, y)) in a.api.iter().zip(&b.api).enumerate() {
                if x.is_empty() != y.is_empty() {
                    disagree += 1;
                    let kind = f.objects[j]["kind"].as_str().unwrap_or("?");
                    rows.push(format!("{release:<7} | {} | {kind}: default {} | --crd {}", f.name, ids(x), ids(y)));
                }
            }
            if a.errors.is_empty() != b.errors.is_empty() {
                disagree += 1;
                rows.push(format!("{release:<7} | {} | any error: default {} | --crd {}", f.name, ids(&a.errors), ids(&b.errors)));
            }
        }
        lines.push(format!(
            "    {release:<7} {} fixtures ({hand_written} hand-written, {} generated): {refused} refused at the API server's layer, {disagree} disagreement(s); {:.1} s",
            fixtures.len(),
            fixtures.len() - hand_written,
            t.elapsed().as_secs_f64()
        ));
    }
    say!(
        "mutations: validate against validate --crd, per Trainer release, on {} seeds ({:.0} s):",
        seeds.len(),
        start.elapsed().as_secs_f64()
    );
    for l in &lines {
        say!("{l}");
    }
    for r in &rows {
        say!("{r}");
    }
    assert!(rows.is_empty(), "{} disagreement(s) between validate and validate --crd (table above)", rows.len());
}

fn ids(v: &[&str]) -> String {
    if v.is_empty() {
        "no error".into()
    } else {
        let mut v = v.to_vec();
        v.dedup();
        v.join(", ")
    }
}

/// Where `render` checks what it generated (a release with the JAX policy, v2.2.0 on), it uses the
/// built-in equivalents of the release's CEL rules (`cel::builtin`) instead of kube-cel on the
/// release's schema: on every fixture and mutant, for those releases, the two find the same rules
/// at the same fields.
#[test]
fn the_builtin_cel_equivalents_are_the_engine_s_verdict_from_v2_2_0_on() {
    use jax_runtimes::validate::{cel, structure};
    let (fixtures, _) = corpus_fixtures();
    let seeds = seeds(false);
    let mutants: Vec<Fixture> = mutants(&seeds, count()).into_iter().map(Fixture::from).collect();
    let mut compared = 0;
    let mut rows = Vec::new();
    for release in ["v2.2.0", "v2.2.1", "v2.3.0", "next"] {
        for f in fixtures.iter().chain(&mutants) {
            for o in f.objects.iter().filter(|o| o["kind"].as_str().is_some_and(|k| k.ends_with("TrainingRuntime"))) {
                compared += 1;
                let key = |d: &jax_runtimes::Diagnostic| (d.rule.id, d.field.clone());
                let mut builtin: Vec<_> = cel::builtin(o, release).iter().map(key).collect();
                let mut engine: Vec<_> = cel::judged(structure::check_cel(o, release), cel::builtin(o, release)).iter().map(key).collect();
                builtin.sort();
                engine.sort();
                if builtin != engine {
                    rows.push(format!("{release} {}: builtin {builtin:?}, engine {engine:?}", f.name));
                }
            }
        }
    }
    assert!(rows.is_empty(), "{} difference(s):\n{}", rows.len(), rows.join("\n"));
    assert!(compared > 4000, "{compared} runtimes compared");
}
