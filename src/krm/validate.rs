//! The validator mode of the KRM function (a `JaxRuntimeValidation` functionConfig): every
//! runtime among the items is checked (CRDs among the items are used as `--crd`); the items come
//! back unchanged, with the findings, and exit 1 on errors (or on warnings with
//! `spec.failOnWarnings: true`).

use serde_json::Value;

use super::annotations;
use super::output::Output;
use crate::catalog::{JaxRuntimeValidation, ValidationSpec};
use crate::diag::{has_errors, Diagnostic, ObjectRef, Severity};
use crate::exit::Exit;
use crate::read::{Document, Source};
use crate::resource_list::ResourceList;
use crate::rules::krm::KRM_FUNCTION_CONFIG;
use crate::validate::{self, crd, Options};

/// The validator: see the module docs.
pub fn process(list: ResourceList) -> Output {
    let mut diags = Vec::new();
    let spec = config(list.function_config.as_ref(), &mut diags);
    let docs: Vec<Document> = list
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let (path, index) = annotations::file_of(item);
            Document::new(Source::named(path.unwrap_or_else(|| format!("<items[{i}]>"))), index.unwrap_or(0), item.clone())
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
    let failed = has_errors(&diags) || (spec.fail_on_warnings && diags.iter().any(|d| d.severity == Severity::Warning));
    Output { list, diagnostics: diags, exit: if failed { Exit::Findings } else { Exit::Ok } }
}

/// The config's spec; a config that does not read is an error, and the defaults apply.
fn config(fc: Option<&Value>, diags: &mut Vec<Diagnostic>) -> ValidationSpec {
    let Some(fc) = fc else { return ValidationSpec::default() };
    match serde_path_to_error::deserialize::<_, JaxRuntimeValidation>(fc) {
        Ok(c) => c.spec,
        Err(e) => {
            let path = e.path().to_string();
            let d = Diagnostic::new(&KRM_FUNCTION_CONFIG, format!("the JaxRuntimeValidation config does not read: {}", e.inner()))
                .with_object(ObjectRef::of(fc))
                .with_help("the only field is `spec.failOnWarnings` (a boolean); `jax-runtimes schema` describes the kind");
            diags.push(if path == "." { d } else { d.with_field(path) });
            ValidationSpec::default()
        }
    }
}
