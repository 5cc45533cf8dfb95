//! `jax-runtimes schema`: the JSON Schema of the catalog kinds ([`crate::catalog::schema`]), with
//! the names of the accelerator data; with `--kubeconform DIR`, the standalone schema of every
//! kind ([`crate::validate::export`]) written into DIR in kubeconform's layout.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::exit::Exit;
use crate::validate::export;
use crate::validate::structure::DEFAULT_RELEASE;
use crate::write::{self, dir::check_plain, DirError, Owner, Plan};

use super::out;

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Write one JSON Schema file per kind into DIR instead, as kubeconform's `-schema-location
    /// 'DIR/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json'` reads them: the Trainer
    /// kinds (ClusterTrainingRuntime, TrainingRuntime, TrainJob, closed as `validate` judges
    /// them) and the catalog kinds. Replaces and prunes only files it wrote.
    #[arg(long, value_name = "DIR")]
    pub kubeconform: Option<PathBuf>,
    /// The Kubeflow Trainer release whose CRD schemas `--kubeconform` writes (embedded: v2.0.0,
    /// v2.0.1, v2.1.0, v2.2.0, v2.2.1, v2.3.0, next; a minor such as v2.2 is its newest patch).
    /// Default: v2.3.0.
    #[arg(long = "trainer-version", value_name = "VERSION", requires = "kubeconform")]
    pub trainer_version: Option<String>,
}

/// The files `--kubeconform` owns in each group folder: JSON that starts with its header.
const OWNER: Owner = Owner { header: export::HEADER, extensions: &[".json"] };

pub fn run(a: &SchemaArgs) -> Exit {
    let Some(dir) = &a.kubeconform else { return out::stdout(&(text() + "\n")) };
    let files = match export::files(a.trainer_version.as_deref().unwrap_or(DEFAULT_RELEASE)) {
        Ok(f) => f,
        Err(e) => {
            out::error(&format!("--trainer-version: {e}"));
            return Exit::Usage;
        }
    };
    let plan = match plan(dir, &files) {
        Ok(p) => p,
        Err(e) => {
            out::error(&e.message);
            return if e.conflict { Exit::Findings } else { Exit::Usage };
        }
    };
    if let Err(e) = write::apply(dir, &plan) {
        out::error(&e.message);
        return Exit::Usage;
    }
    for f in &files {
        let how = if plan.create.contains_key(&f.path) {
            "created"
        } else if plan.update.contains_key(&f.path) {
            "updated"
        } else {
            "unchanged"
        };
        out::note(&format!("{} ({how})", dir.join(&f.path).display()));
    }
    for name in plan.delete.keys() {
        out::note(&format!("{} (pruned)", dir.join(name).display()));
    }
    out::note(&format!(
        "wrote {} schemas to {} ({} created, {} updated, {} pruned); kubeconform: -schema-location '{}/{{{{.Group}}}}/{{{{.ResourceKind}}}}_{{{{.ResourceAPIVersion}}}}.json'",
        files.len(),
        dir.display(),
        plan.create.len(),
        plan.update.len(),
        plan.delete.len(),
        dir.display()
    ));
    Exit::Ok
}

/// One plan for every group folder of `dir` (each planned as a folder of its own, so that only the
/// files this command wrote are replaced or pruned), applied at once: all or nothing.
fn plan(dir: &Path, files: &[export::SchemaFile]) -> Result<Plan, DirError> {
    let mut groups: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::new();
    for f in files {
        let name = f.path.strip_prefix(&format!("{}/", f.group)).unwrap_or(&f.path).to_string();
        groups.entry(f.group.as_str()).or_default().insert(name, f.text());
    }
    let mut all = Plan::default();
    for (group, wanted) in groups {
        check_plain(dir, group)?;
        let p = write::plan_for(&dir.join(group), &wanted, &OWNER)?;
        let under = |n: String| format!("{group}/{n}");
        all.create.extend(p.create.into_iter().map(|(n, c)| (under(n), c)));
        all.update.extend(p.update.into_iter().map(|(n, c)| (under(n), c)));
        all.delete.extend(p.delete.into_iter().map(|(n, c)| (under(n), c)));
    }
    Ok(all)
}

/// The schema as pretty JSON (what `docs/schema/jax-runtimes.schema.json` holds).
pub fn text() -> String {
    crate::catalog::schema::text()
}
