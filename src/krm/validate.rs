//! The validator mode of the KRM function (a `JaxRuntimeValidation` functionConfig): every
//! runtime and Kueue object among the items is checked, and every TrainJob against the runtime
//! items (CRDs among the items are used as `--crd`); the items come
//! back as the exact text they came as, with the findings, and exit 1 on errors (or on warnings
//! with `spec.failOnWarnings: true`). With `spec.nodes` the runtimes are also fitted to the
//! Nodes (and `spec.pods` Pods) of those files of the package.

use serde_json::Value;

use super::annotations;
use super::output::Output;
use crate::catalog::{JaxCluster, JaxRuntimeValidation, Kind, ValidationSpec};
use crate::diag::ObjectRef;
use crate::diag::{has_errors, Diagnostic, Severity};
use crate::exit::Exit;
use crate::gvk::Gvk;
use crate::keys::CLUSTER;
use crate::read::{Document, Source};
use crate::resource_list::{Item, ResourceList};
use crate::rules::krm::{KRM_FUNCTION_CONFIG, KRM_MALFORMED_INPUT};
use crate::trainer;
use crate::validate::{self, crd, Options};

/// The validator: see the module docs.
pub fn process(list: ResourceList) -> Output {
    let mut diags = Vec::new();
    let spec = config(list.function_config.as_ref(), &mut diags);
    let inventory: Vec<&str> = [spec.nodes.as_deref(), spec.pods.as_deref()].into_iter().flatten().collect();
    let docs: Vec<Document> = list
        .items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let (path, index) = annotations::file_of(&item.meta);
            // A near miss of a kind the validator checks would pass unchecked.
            if let Some(d) = crate::kinds::near_miss(item.meta.gvk()) {
                let file = path.clone().unwrap_or_else(|| format!("<items[{i}]>"));
                diags.push(d.with_object(item.meta.object_ref()).with_file(file, index, None));
                return None;
            }
            if !needed(item.meta.gvk()) && !path.as_deref().is_some_and(|p| inventory.contains(&p)) {
                return None;
            }
            let source = Source::named(path.unwrap_or_else(|| format!("<items[{i}]>")));
            match item.value() {
                Ok(v) => Some(Document::new(source, index.unwrap_or(0), v.clone())),
                Err(e) => {
                    diags.push(
                        Diagnostic::new(&KRM_MALFORMED_INPUT, format!("the object cannot be read: {}", e.message))
                            .with_object(item.meta.object_ref())
                            .with_file(source.name.clone(), index, None),
                    );
                    None
                }
            }
        })
        .collect();
    let release = match spec.trainer_version.as_deref().map(validate::Release::named).transpose() {
        Ok(r) => r,
        Err(e) => {
            diags.push(
                Diagnostic::new(&KRM_FUNCTION_CONFIG, format!("the JaxRuntimeValidation config does not read: `spec.trainerVersion`: {e}"))
                    .with_object(
                        list.function_config
                            .as_ref()
                            .map(|fc| fc.meta.object_ref())
                            .unwrap_or_else(|| ObjectRef::new(Kind::Validation.name(), "")),
                    )
                    .with_field("spec.trainerVersion")
                    .with_help("name a release the message lists, or a minor such as `v2.2`"),
            );
            None
        }
    };
    let opts = match crd::from_documents(&docs) {
        Ok(crds) => Options { crds: crds.into_iter().map(std::sync::Arc::new).collect(), ..Options::default() },
        Err(mut e) => {
            diags.append(&mut e);
            Options::default()
        }
    }
    .for_release(release);
    diags.extend(validate::objects(&docs, &opts));
    validate::ecosystem::require(&mut diags, &spec.require);
    if let Some(nodes) = &spec.nodes {
        diags.extend(crate::fit::package(&docs, nodes, spec.pods.as_deref(), opts.trainer_version));
    }
    diags.extend(clusters(&list.items, &docs, opts.trainer_version));
    let failed = has_errors(&diags) || (spec.fail_on_warnings && diags.iter().any(|d| d.severity == Severity::Warning));
    Output { list, diagnostics: diags, exit: if failed { Exit::Findings } else { Exit::Ok } }
}

/// A fleet in the package: each cluster's runtimes (what its generated
/// `clusters/<name>/kustomization.yaml` keeps of the package's runtimes) fitted on the cluster's
/// own inventory (its `JaxCluster`'s `spec.inventory.nodes`), as `fit/does-not-fit` findings
/// that name the cluster; warnings for a cluster that autoscales.
fn clusters(items: &[Item], docs: &[Document], merge: Option<crate::trainjob::TrainerVersion>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let item_doc = |i: usize, item: &Item| -> Option<Document> {
        let (path, index) = annotations::file_of(&item.meta);
        let source = Source::named(path.unwrap_or_else(|| format!("<items[{i}]>")));
        Some(Document::new(source, index.unwrap_or(0), annotations::pipeline_copy(item.value().ok()?)))
    };
    let nodes: Vec<Document> = items
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i.meta.gvk().kind, "Node" | "NodeList" | "List"))
        .filter_map(|(n, i)| item_doc(n, i))
        .collect();
    let catalog: Vec<(Document, JaxCluster)> = items
        .iter()
        .enumerate()
        .filter(|(_, i)| i.meta.gvk().kind == Kind::Cluster.name())
        .filter_map(|(n, i)| {
            let doc = item_doc(n, i)?;
            let c = serde_json::from_value::<JaxCluster>(doc.value.clone()).ok()?;
            Some((doc, c))
        })
        .collect();
    for item in items.iter().filter(|i| i.meta.gvk().kind == "Kustomization" && annotations::is_owned(&i.meta)) {
        let Some(name) = item.meta.annotation(CLUSTER) else { continue };
        let Some((cluster_doc, cluster)) = catalog.iter().find(|(_, c)| c.metadata.name == name) else { continue };
        let Some(inventory) = &cluster.spec.inventory else { continue };
        let Ok(value) = item.value() else { continue };
        let dropped: Vec<ObjectRef> = value
            .get("patches")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| p.get("patch").and_then(Value::as_str))
            .filter_map(|p| crate::yaml::parse_stream(p).ok())
            .flatten()
            .map(|p| ObjectRef::of(&p))
            .collect();
        let path = crate::fleet::beside(&cluster_doc.source.name, &inventory.nodes);
        let mut subset: Vec<Document> = docs.iter().filter(|d| !dropped.contains(&ObjectRef::of(&d.value))).cloned().collect();
        subset.retain(|d| d.source.name != path);
        subset.extend(nodes.iter().filter(|d| d.source.name == path).cloned());
        for mut d in crate::fit::package(&subset, &path, None, merge) {
            d.message = format!("on cluster `{name}`: {}", d.message);
            if inventory.autoscaling && d.severity == Severity::Error {
                d.severity = Severity::Warning;
                d.message.push_str(" (the cluster autoscales: it runs once the cluster adds such nodes)");
            }
            out.push(d);
        }
    }
    out
}

/// The items the validator reads whole: runtimes, TrainJobs and CRDs, and the items of the node
/// and pod files the config names (filtered by file above). Every other item passes unread.
fn needed(gvk: Gvk<'_>) -> bool {
    (gvk.group == trainer::GROUP && matches!(gvk.kind, trainer::KIND_CLUSTER | trainer::KIND_NAMESPACED | trainer::KIND_TRAINJOB))
        || gvk.kind == "CustomResourceDefinition"
        || (gvk.group == crate::kueue::facts().group && crate::kueue::KINDS.contains(&gvk.kind))
}

/// The config's spec; a config that does not read is an error, and the defaults apply.
fn config(fc: Option<&Item>, diags: &mut Vec<Diagnostic>) -> ValidationSpec {
    let Some(fc) = fc else { return ValidationSpec::default() };
    let value: Value = match fc.value() {
        Ok(v) => v.clone(),
        Err(e) => {
            diags.push(Diagnostic::new(&KRM_MALFORMED_INPUT, format!("the functionConfig cannot be read: {}", e.message)));
            return ValidationSpec::default();
        }
    };
    // Every unknown field, with the field it may mean.
    let unknown = crate::catalog::schema::unknown_fields(crate::catalog::Kind::Validation, &value);
    for u in &unknown {
        diags.push(
            Diagnostic::new(&KRM_FUNCTION_CONFIG, format!("the JaxRuntimeValidation config does not read: {}", u.message()))
                .with_object(fc.meta.object_ref())
                .with_field(u.field.clone())
                .with_help("the fields are `spec.failOnWarnings` (a boolean), `spec.nodes` and `spec.pods` (file paths in the package), `spec.require` (`[sdk]`), `spec.trainerVersion` (`v2.2.1`, `v2.3`); `jax-runtimes schema` describes the kind"),
        );
    }
    if !unknown.is_empty() {
        return ValidationSpec::default();
    }
    match serde_path_to_error::deserialize::<_, JaxRuntimeValidation>(&value) {
        Ok(c) => c.spec,
        Err(e) => {
            let path = e.path().to_string();
            let d = Diagnostic::new(
                &KRM_FUNCTION_CONFIG,
                format!("the JaxRuntimeValidation config does not read: {}", crate::words::serde_message(&e.inner().to_string())),
            )
            .with_object(fc.meta.object_ref())
            .with_help("the fields are `spec.failOnWarnings` (a boolean), `spec.nodes` and `spec.pods` (file paths in the package), `spec.require` (`[sdk]`), `spec.trainerVersion` (`v2.2.1`, `v2.3`); `jax-runtimes schema` describes the kind");
            diags.push(if path == "." { d } else { d.with_field(path) });
            ValidationSpec::default()
        }
    }
}
