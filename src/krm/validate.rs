//! The validator mode of the KRM function (a `JaxRuntimeValidation` functionConfig): every
//! runtime and Kueue object among the items is checked, and every TrainJob against the runtime
//! items (CRDs among the items are used as `--crd`); the items come
//! back as the exact text they came as, with the findings, and exit 1 on errors (or on warnings
//! with `spec.failOnWarnings: true`). With `spec.nodes` the runtimes are also fitted to the
//! Nodes (and `spec.pods` Pods) of those files of the package.

use serde_json::Value;

use super::annotations;
use super::output::Output;
use crate::catalog::{JaxRuntimeValidation, ValidationSpec};
use crate::diag::{has_errors, Diagnostic, Severity};
use crate::exit::Exit;
use crate::gvk::Gvk;
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
    let opts = match crd::from_documents(&docs) {
        Ok(crds) => Options { crds: crds.into_iter().map(std::sync::Arc::new).collect(), ..Options::default() },
        Err(mut e) => {
            diags.append(&mut e);
            Options::default()
        }
    };
    diags.extend(validate::objects(&docs, &opts));
    if let Some(nodes) = &spec.nodes {
        diags.extend(crate::fit::package(&docs, nodes, spec.pods.as_deref()));
    }
    let failed = has_errors(&diags) || (spec.fail_on_warnings && diags.iter().any(|d| d.severity == Severity::Warning));
    Output { list, diagnostics: diags, exit: if failed { Exit::Findings } else { Exit::Ok } }
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
                .with_help("the fields are `spec.failOnWarnings` (a boolean), `spec.nodes` and `spec.pods` (file paths in the package); `jax-runtimes schema` describes the kind"),
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
            .with_help("the fields are `spec.failOnWarnings` (a boolean), `spec.nodes` and `spec.pods` (file paths in the package); `jax-runtimes schema` describes the kind");
            diags.push(if path == "." { d } else { d.with_field(path) });
            ValidationSpec::default()
        }
    }
}
