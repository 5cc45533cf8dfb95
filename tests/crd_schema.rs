//! Every runtime rendered from the built-in catalog and from the golden catalogs passes the
//! upstream Trainer v2.3.0 CRD schemas (`../shared/reference`), unknown fields counted as errors
//! because the API server would prune them.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use std::process::Command;

/// The upstream Trainer CRDs (`None`: not run, see support::reference).
fn reference() -> Option<PathBuf> {
    Some(support::reference()?.join("kubeflow-trainer-v2.3.0/crds"))
}

fn bin() -> Command {
    support::cli(&[])
}

/// Renders every catalog into one folder of runtime files.
fn render_all(out: &Path) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs: Vec<Option<PathBuf>> = vec![None];
    for e in fs::read_dir(root.join("tests/golden")).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            inputs.push(Some(p.join("catalog.yaml")));
        }
    }
    let mut count = 0;
    for (i, input) in inputs.iter().enumerate() {
        let mut cmd = bin();
        cmd.arg("render");
        if let Some(p) = input {
            cmd.arg(p);
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{input:?}: {}", String::from_utf8_lossy(&o.stderr));
        count += String::from_utf8_lossy(&o.stdout).matches("\nkind: ").count() + 1;
        fs::write(out.join(format!("runtimes-{i}.yaml")), &o.stdout).unwrap();
    }
    count
}

#[test]
fn rendered_runtimes_pass_the_upstream_crd_schemas() {
    let Some(crds) = reference() else { return };
    let dir = tempfile::tempdir().unwrap();
    let n = render_all(dir.path());
    assert!(n > 40, "expected many runtimes, rendered {n}");
    let o = bin()
        .args(["validate", "--crd"])
        .arg(crds.join("trainer.kubeflow.org_clustertrainingruntimes.yaml"))
        .arg("--crd")
        .arg(crds.join("trainer.kubeflow.org_trainingruntimes.yaml"))
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "validate --crd failed:\n{stdout}\n{stderr}");
    assert!(!stdout.contains("error[") && !stderr.contains("error["), "{stdout}\n{stderr}");
}

#[test]
fn the_crd_check_catches_an_unknown_field_in_a_rendered_runtime() {
    let Some(crds) = reference() else { return };
    let o = bin().arg("render").output().unwrap();
    let text = String::from_utf8(o.stdout).unwrap();
    // A field the Pod schema does not have, at a known path.
    let broken = text.replacen("                containers:\n", "                nodeSelectr: {a: b}\n                containers:\n", 1);
    assert_ne!(broken, text);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("broken.yaml");
    fs::write(&f, broken).unwrap();
    let o = bin().args(["validate", "--crd"]).arg(crds.join("trainer.kubeflow.org_clustertrainingruntimes.yaml")).arg(&f).output().unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{all}");
    assert!(all.contains("nodeSelectr"), "{all}");
}
