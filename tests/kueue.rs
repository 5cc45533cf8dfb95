//! Kueue: the CRDs of Kueue v0.19.2 as `validate --crd` inputs, and the queues, flavors and quotas
//! jax-runtimes generates and checks.

mod support;

use support::*;

/// Every Kueue v0.19.2 CRD compiles as a `--crd` file: their patterns are Go regular expressions
/// (the admissionchecks CRD has `^(?i)[a-z]...`, which ECMA 262 has no syntax for).
#[test]
fn validate_takes_every_kueue_crd() {
    let Some(files) = kueue_crd_files("validate_takes_every_kueue_crd") else { return };
    let runtimes = root().join("tests/validate/base");
    let mut args = vec!["validate".to_string(), "--format".into(), "json".into()];
    for f in &files {
        args.push("--crd".into());
        args.push(f.display().to_string());
    }
    args.push(runtimes.display().to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(&args, None);
    assert!(!r.stdout.contains("crd/unusable") && !r.stderr.contains("crd/unusable"), "{}", r.all());
    assert_ne!(r.code, 2, "{}", r.all());
}
