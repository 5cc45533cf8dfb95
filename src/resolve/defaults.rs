//! `JaxRuntimeDefaults`: at most one per input, its platform and image keys known to the
//! accelerator data. What it sets is applied by [`super::entry`].

use crate::accelerators::data;
use crate::catalog::{DefaultsSpec, JaxRuntimeDefaults, Kind};
use crate::diag::{Diagnostic, ObjectRef};
use crate::read::Document;
use crate::rules::catalog::{CATALOG_DUPLICATE_DEFAULTS, CATALOG_INVALID_VALUE};
use crate::spelling;

/// The one `JaxRuntimeDefaults` (a second is an error), checked; empty when there is none.
pub(super) fn single(defaults: &[(JaxRuntimeDefaults, &Document)], diags: &mut Vec<Diagnostic>) -> DefaultsSpec {
    for (d, doc) in defaults.iter().skip(1) {
        diags.push(
            doc.locate(
                Diagnostic::new(
                    &CATALOG_DUPLICATE_DEFAULTS,
                    format!("a second JaxRuntimeDefaults; the input already has `{}`", defaults[0].0.metadata.name),
                )
                .with_object(ObjectRef::new(Kind::Defaults.name(), &d.metadata.name))
                .with_help("merge them into one JaxRuntimeDefaults object"),
            ),
        );
    }
    let Some((first, doc)) = defaults.first() else { return DefaultsSpec::default() };
    let mut spec = first.spec.clone();
    let object = ObjectRef::new(Kind::Defaults.name(), &first.metadata.name);
    let mut report = |d: Diagnostic| diags.push(doc.locate(d.with_object(object.clone())));
    if let Some(p) = &spec.platform {
        if let Err(d) = check_platform(p.as_str(), "spec.platform") {
            report(d);
            spec.platform = None;
        }
    }
    super::kubernetes::check_defaults(&spec).into_iter().for_each(&mut report);
    spec
}

/// A platform name the accelerator data knows, else an error at `field`.
pub(super) fn check_platform(name: &str, field: &str) -> Result<(), Diagnostic> {
    let d = data();
    match d.platform(name) {
        Ok(_) => Ok(()),
        Err(e) => {
            let names: Vec<&str> = d.platforms.platforms.iter().map(|p| p.name.as_str()).collect();
            let near = spelling::nearest(name, names.iter().copied(), 2).map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default();
            Err(Diagnostic::new(&CATALOG_INVALID_VALUE, format!("{e}{near}")).with_field(field).with_help("use one of the accepted values"))
        }
    }
}
