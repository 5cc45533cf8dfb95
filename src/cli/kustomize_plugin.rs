//! `jax-runtimes render --kustomize-plugin CONFIG`: the kustomize legacy exec plugin route
//! (`kubectl kustomize --enable-alpha-plugins`, functions/kustomize-legacy). kustomize hands each
//! generator config to the plugin alone, as a temporary file, in the kustomization's folder; this
//! reads the kustomization there so that the catalog means what it means everywhere else:
//! - every `JaxRuntimeDefaults` in a file the kustomization lists under `generators:` applies
//!   (with its selector) to the config's runtimes, as `render` of those files together would;
//! - the config is read from the user's file it came from (by kind and name), so findings name
//!   that file and line, not kustomize's temporary copy;
//! - a `JaxRuntimeDefaults` that kustomize would never pass on (a YAML file in the folder that
//!   the kustomization does not list, or lists under `resources:`) is an error naming the file:
//!   never defaults dropped in silence.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::catalog::{Kind, API_VERSION};
use crate::diag::{Diagnostic, ObjectRef};
use crate::read::{self, Input};
use crate::rules::krm::KRM_DEFAULTS_NOT_LISTED;

/// The kustomization file names kustomize looks for, in its order.
const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The catalog documents of one plugin run: the defaults the kustomization lists, then the
/// config itself; errors for defaults kustomize would drop.
pub fn input(config: &Path) -> Input {
    let root = std::env::var_os("KUSTOMIZE_PLUGIN_CONFIG_ROOT").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    let mut given = read::paths(&[config.to_path_buf()]);
    if !given.errors.is_empty() {
        return given;
    }
    let Some(kustomization_name) = KUSTOMIZATION_FILES.iter().find(|n| root.join(n).is_file()) else {
        // Not run by kustomize in a kustomization's folder: the config alone, as `render` reads it.
        return given;
    };
    let listed = |key: &str| -> Vec<String> {
        let Ok(text) = std::fs::read_to_string(root.join(kustomization_name)) else { return Vec::new() };
        let Ok(k) = crate::yaml::parse_one(&text) else { return Vec::new() };
        k.get(key).and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect()).unwrap_or_default()
    };
    let generators = listed("generators");
    let resources = listed("resources");
    // Files are named relative to the kustomization's folder, as the user wrote them (the plugin
    // runs there), so that `sameFolder` selectors and findings see the user's paths.
    let here = |p: &Path| p.canonicalize().ok();
    let base = if here(&root) == here(Path::new(".")) { PathBuf::new() } else { root.clone() };
    let files: Vec<PathBuf> = generators.iter().map(|g| base.join(g)).filter(|p| p.is_file()).collect();
    let named = read::paths(&files);
    let mut out = Input { sources: named.sources, errors: named.errors, ..Input::default() };
    out.sources.extend(&given.sources);
    let wanted = given.documents.first().map(|d| identity(&d.value));
    let mut config_doc = None;
    for doc in named.documents {
        let id = identity(&doc.value);
        if Some(&id) == wanted.as_ref() && config_doc.is_none() {
            config_doc = Some(doc);
        } else if id.0 == Kind::Defaults.name() {
            out.documents.push(doc);
        }
    }
    match config_doc {
        Some(doc) => out.documents.push(doc),
        None => out.documents.append(&mut given.documents),
    }
    // Defaults kustomize never hands to a generator: in the folder, not under `generators:`.
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(&root).map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect()).unwrap_or_default();
    entries.sort();
    for path in entries {
        let Some(name) = path.file_name().map(|n| n.to_string_lossy().to_string()) else { continue };
        let yaml = name.ends_with(".yaml") || name.ends_with(".yml");
        if !yaml || KUSTOMIZATION_FILES.contains(&name.as_str()) || !path.is_file() || generators.iter().any(|g| same(g, &name)) {
            continue;
        }
        let Ok(docs) = read::read_file(&base.join(&name)) else { continue };
        for doc in docs.iter().filter(|d| identity(&d.value).0 == Kind::Defaults.name()) {
            let how = if resources.iter().any(|r| same(r, &name)) {
                "is listed under `resources:`, where kustomize treats it as an object to apply and never hands it to jax-runtimes"
            } else {
                "is not listed in the kustomization, so kustomize never hands it to jax-runtimes"
            };
            out.errors.push(
                doc.locate(
                    Diagnostic::new(&KRM_DEFAULTS_NOT_LISTED, format!("{name} {how}: its defaults would be dropped from every runtime"))
                        .with_object(ObjectRef::of(&doc.value))
                        .with_help(format!("list `{name}` under `generators:` in {}", base.join(kustomization_name).display())),
                ),
            );
        }
    }
    out
}

/// (kind, name) of a catalog document; an empty kind for anything not in our apiVersion.
fn identity(v: &Value) -> (String, String) {
    let ours = v.get("apiVersion").and_then(Value::as_str) == Some(API_VERSION);
    let kind = if ours { v.get("kind").and_then(Value::as_str).unwrap_or_default() } else { "" };
    (kind.to_string(), v.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string())
}

/// A kustomization entry (`./defaults.yaml`, `defaults.yaml`) names the file `name` in its folder.
fn same(entry: &str, name: &str) -> bool {
    entry.trim_start_matches("./") == name
}
