//! Validate stage: checks Kubeflow Trainer runtimes (`ClusterTrainingRuntime`, `TrainingRuntime`),
//! generated or written by hand, in five layers:
//!
//! 1. structure: against the project's typed Trainer/JobSet/Pod model ([`structure`]), or against
//!    the `openAPIV3Schema` of CRD files the user passes ([`crd`]), with unknown fields reported;
//! 2. the CRD's `x-kubernetes-validations` CEL rules ([`cel`]);
//! 3. Trainer admission webhook rules ([`admission`]);
//! 4. what the Kubeflow SDK, the JAX plugin and the JobSet controller need ([`ecosystem`]);
//! 5. accelerator consistency: TPU chips, topology and hosts, GPU counts, selectors ([`accelerators`]).
//!
//! Every finding carries a rule id from [`RULES`], the one table the docs page (`docs/rules.md`)
//! is generated from.

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::diag::{Diagnostic, ObjectRef, Severity};
use crate::read::Document;
use crate::trainer;
use crate::trainer::TrainingRuntime;

pub mod accelerators;
pub mod admission;
pub mod cel;
pub mod command;
pub mod crd;
pub mod ecosystem;
pub mod structure;

/// One rule: its stable id, the severity its findings have, the layer it belongs to, what it
/// checks and how to fix a finding.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub layer: &'static str,
    pub summary: &'static str,
    pub fix: &'static str,
}

const fn rule(id: &'static str, severity: Severity, layer: &'static str, summary: &'static str, fix: &'static str) -> Rule {
    Rule { id, severity, layer, summary, fix }
}

use Severity::{Error as E, Info as I, Warning as W};

/// Layer names, in the order the docs page lists them.
pub const LAYERS: [(&str, &str); 7] = [
    ("schema", "Structure against the project's typed Trainer, JobSet and Pod model (no `--crd`)"),
    ("crd", "Structure against the `openAPIV3Schema` of the CRD files given with `--crd`"),
    ("cel", "CEL rules (`x-kubernetes-validations`) of the CRD"),
    ("admission", "Kubeflow Trainer admission webhook (v2.3)"),
    ("ecosystem", "Kubeflow SDK, JAX plugin and JobSet controller"),
    ("accelerators", "Accelerators: TPU slices, GPU shapes, scheduling"),
    ("input", "Inputs of the validator itself"),
];

/// Every rule the validator can report. Ids are stable: tools and people filter on them.
pub static RULES: &[Rule] = &[
    // --- structure, typed model
    rule("schema/unknown-field", E, "schema", "A field the Trainer, JobSet or Pod API does not have (a typo such as `nodeSelectr`). The API server prunes it silently, so the setting never takes effect.", "Fix the spelling or move the field to where the API defines it; `kubectl explain` shows the valid fields."),
    rule("schema/type", E, "schema", "A value of the wrong JSON type (a list where an object belongs, a string where an integer belongs).", "Write the value with the type the field expects."),
    rule("schema/required", E, "schema", "A required field is missing (for example a container `name`, a replicated job `template`).", "Add the field."),
    rule("schema/enum", E, "schema", "A value outside the field's allowed set.", "Use one of the values the message lists."),
    rule("schema/constraint", E, "schema", "A value breaks a bound of the field: minimum, maximum, length, number of items or properties, uniqueness.", "Bring the value within the bound the message names."),
    rule("schema/format", E, "schema", "A string that does not have the field's format or pattern (date-time, quantity).", "Write the value in the format the message names."),
    rule("schema/null-dropped", W, "schema", "`null` on a field that is not nullable: the API server drops the field, so it is as if it were not there.", "Remove the field, or give it a value."),
    // --- structure, CRD
    rule("crd/unknown-field", E, "crd", "A field the CRD's schema does not have and does not preserve: the API server prunes it silently.", "Fix the spelling or move the field to where the CRD defines it."),
    rule("crd/type", E, "crd", "A value of the wrong type for the CRD's schema (including `x-kubernetes-int-or-string` fields that get neither an integer nor a string).", "Write the value with the type the schema expects."),
    rule("crd/required", E, "crd", "A field the CRD's schema requires is missing.", "Add the field."),
    rule("crd/enum", E, "crd", "A value outside the CRD's `enum`.", "Use one of the values the message lists."),
    rule("crd/constraint", E, "crd", "A value breaks a bound of the CRD's schema: minimum, maximum, length, items, properties, uniqueness.", "Bring the value within the bound the message names."),
    rule("crd/format", E, "crd", "A string that does not match the CRD's `pattern` or `format` (for example a resource quantity).", "Write the value in the format the message names."),
    rule("crd/null-dropped", W, "crd", "`null` on a field the CRD does not mark `nullable`: the API server drops the field.", "Remove the field, or give it a value."),
    rule("crd/duplicate-key", E, "crd", "Two items of an `x-kubernetes-list-type: map` list share their key (for example two replicated jobs with the same name), or a `set` list repeats an item. The API server rejects it.", "Give each item a unique key, or merge the duplicates."),
    rule("crd/not-covered", W, "crd", "CRD files were given but none defines this object's apiVersion and kind; it was checked against the typed model instead.", "Pass the CRD that defines the kind (`trainer.kubeflow.org_clustertrainingruntimes.yaml` or `..._trainingruntimes.yaml`)."),
    rule("crd/unusable", E, "crd", "A `--crd` file (or a CRD in a KRM package) cannot be used: unreadable, not a CustomResourceDefinition, or a schema that does not compile.", "Pass the CRD YAML exactly as the cluster has it (`kubectl get crd NAME -o yaml`)."),
    // --- CEL
    rule("cel/rule", E, "cel", "A CEL rule (`x-kubernetes-validations`) of the CRD evaluates to false; the API server would reject the object with the rule's message.", "Change the object so the rule holds; the message is the CRD's own."),
    rule("cel/unevaluated", W, "cel", "A CEL rule of the CRD could not be evaluated client-side (a function this validator lacks, or an evaluation error). The API server still evaluates it.", "Check the rule by hand or with a server-side dry run (`kubectl apply --dry-run=server`)."),
    rule("cel/one-ml-policy", E, "cel", "More than one ML policy (`torch`, `mpi`, `jax`, `xgboost`, `flux`) is set under `spec.mlPolicy`; the Trainer CRD allows only one.", "Keep the one policy that matches the framework (`jax: {}` for JAX) and remove the others."),
    rule("cel/num-proc-per-node", E, "cel", "`spec.mlPolicy.flux.numProcPerNode` is below 1.", "Set it to 1 or more."),
    rule("cel/env-injection-node", E, "cel", "`spec.mlPolicy.torch.envInjection.targets[].containerNames` names the `node` container, which always gets the `PET_*` variables.", "Remove `node` from the list."),
    rule("cel/startup-depends-on", E, "cel", "`startupPolicy.startupPolicyOrder: InOrder` together with `dependsOn` on a replicated job; the JobSet API makes them mutually exclusive.", "Use either `startupPolicyOrder: InOrder` or `dependsOn`, not both."),
    rule("cel/claim-namespace", E, "cel", "A `volumeClaimPolicies[].templates[]` item sets `metadata.namespace`; the claims always live in the TrainJob's namespace.", "Remove `metadata.namespace` from the template."),
    // --- admission
    rule("admission/replicas", E, "admission", "A replicated job labelled `trainer.kubeflow.org/trainjob-ancestor-step` has `replicas` other than 1; the Trainer webhook rejects it (\"always must be 1\").", "Remove `replicas` or set it to 1; scale with `spec.mlPolicy.numNodes` instead."),
    rule("admission/ancestor-container", E, "admission", "A replicated job labelled `trainer.kubeflow.org/trainjob-ancestor-step` lacks the container its step needs: `node` for `trainer`, `dataset-initializer`, `model-initializer`.", "Rename the main container of that job to the name the step needs."),
    // --- ecosystem
    rule("sdk/framework-label", E, "ecosystem", "The runtime has no `trainer.kubeflow.org/framework` label: the Kubeflow SDK skips it in `list_runtimes()` and `get_runtime()` fails.", "Add `metadata.labels: {trainer.kubeflow.org/framework: jax}` (or the runtime's framework)."),
    rule("sdk/trainer-container", E, "ecosystem", "The Kubeflow SDK cannot find the trainer: no replicated job carries the `trainer.kubeflow.org/trainjob-ancestor-step` label, or the first one has no container `node` with an image.", "Label the trainer replicated job `trainer.kubeflow.org/trainjob-ancestor-step: trainer` and give it a container named `node` with an `image`."),
    rule("sdk/unknown-device", E, "ecosystem", "The trainer container's `resources.limits` has no key the Kubeflow SDK reads (`nvidia.com/gpu`, `google.com/tpu`, `nvidia.com/mig-*`, `cpu`), or more than one MIG key: the SDK raises while listing the runtime.", "Add a `cpu` limit (or the accelerator's limit) next to the other limits."),
    rule("jax/plugin-env", W, "ecosystem", "The runtime sets `JAX_NUM_PROCESSES`, `JAX_PROCESS_ID` or `JAX_COORDINATOR_ADDRESS` itself; the Trainer JAX plugin injects them, and a TrainJob without `spec.trainer` would run with the hand-written, wrong values.", "Remove the variable from the container's env."),
    rule("jobset/subdomain", E, "ecosystem", "`spec.template.spec.network.subdomain` is set: the Trainer plugins build the coordinator address from the TrainJob name (`<trainjob>-node-0-0.<trainjob>`), which then does not resolve.", "Remove `network.subdomain`."),
    rule("jobset/dns-hostnames", E, "ecosystem", "`spec.template.spec.network.enableDNSHostnames: false`: pods get no DNS names, so the coordinator address does not resolve.", "Remove `enableDNSHostnames` or set it to true."),
    rule("jobset/managed-field", W, "ecosystem", "`parallelism` or `completions` is set on the trainer job; the Trainer controller overwrites both with `numNodes`.", "Remove them and set `spec.mlPolicy.numNodes`."),
    // --- accelerators
    rule("tpu/missing-selector", E, "accelerators", "A container requests `google.com/tpu` but the pod does not select the TPU accelerator and topology node labels (`cloud.google.com/gke-tpu-accelerator`, `cloud.google.com/gke-tpu-topology`): GKE cannot place it on a slice.", "Add both labels to the pod's `nodeSelector` (or as required node affinity)."),
    rule("tpu/unknown-accelerator", W, "accelerators", "The TPU accelerator label value is not a generation jax-runtimes knows, so chips, topology and hosts are not checked.", "Use a known value (`jax-runtimes accelerators --kind tpu`), or ignore this if the generation is newer than jax-runtimes."),
    rule("tpu/topology", E, "accelerators", "The TPU topology label names a topology that the selected TPU generation does not have.", "Use one of the topologies the message suggests (`jax-runtimes accelerators --kind tpu --generation GEN` lists all)."),
    rule("tpu/chips-per-host", E, "accelerators", "The `google.com/tpu` count per pod is not the number of chips one host of that slice has; the pod stays Pending or leaves chips idle.", "Set the `google.com/tpu` limit to the chips per host the message gives."),
    rule("tpu/hosts", E, "accelerators", "`spec.mlPolicy.numNodes` is not the number of hosts in the TPU slice (chips in the topology / chips per host); the slice never fills or pods stay Pending.", "Set `numNodes` to the host count the message gives."),
    rule("gpu/count", E, "accelerators", "The GPU count per pod is above what one node of the selected GPU model or machine type has; the pod stays Pending.", "Lower the GPU limit to the machine's GPU count, or select a bigger machine."),
    rule("accelerator/missing-selector", W, "accelerators", "A container requests GPUs but the pod selects no GPU model or machine type: it may land on any GPU node.", "Add a node selector for the GPU model (GKE `cloud.google.com/gke-accelerator`, `node.kubernetes.io/instance-type`, or `nvidia.com/gpu.product`)."),
    rule("accelerator/missing-toleration", W, "accelerators", "A container requests an accelerator but the pod does not tolerate the taint accelerator nodes carry (`google.com/tpu`, `nvidia.com/gpu`, `amd.com/gpu`); unless the cluster adds it, the pod stays Pending.", "Add `tolerations: [{key: <resource>, operator: Exists, effect: NoSchedule}]`."),
    rule("resources/requests-limits", E, "accelerators", "An extended resource (`google.com/tpu`, `nvidia.com/gpu`, ...) has a request different from its limit, or a request without a limit; Kubernetes rejects such pods.", "Set only the limit, or the same value as request and limit."),
    // --- input
    rule("input/not-a-runtime", I, "input", "A document that is not a ClusterTrainingRuntime or TrainingRuntime (`trainer.kubeflow.org`); it is not checked.", "Nothing to do, or check the file list."),
    rule("input/no-runtime", E, "input", "The input holds no ClusterTrainingRuntime or TrainingRuntime at all.", "Check the paths you passed."),
];

/// The rule with this id. Panics on an unknown id: every id used in code is in [`RULES`]
/// (a test walks the corpus to prove it).
pub fn rule_info(id: &str) -> &'static Rule {
    RULES.iter().find(|r| r.id == id).unwrap_or_else(|| panic!("rule `{id}` is not in validate::RULES"))
}

/// A finding of rule `id` at `field`, with the rule's severity and fix.
pub fn finding(id: &str, field: impl Into<String>, message: impl Into<String>) -> Diagnostic {
    let r = rule_info(id);
    let field: String = field.into();
    let d = Diagnostic::new(r.severity, r.id, message).with_help(r.fix);
    if field.is_empty() {
        d
    } else {
        d.with_field(field)
    }
}

/// What the validator checks against.
#[derive(Clone, Default)]
pub struct Options {
    /// CRDs to check structure and CEL rules against (`--crd`). Empty: the typed model and the
    /// built-in equivalents of the Trainer CRD's CEL rules.
    pub crds: Vec<Arc<crd::Crd>>,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options").field("crds", &self.crds.iter().map(|c| c.name.as_str()).collect::<Vec<_>>()).finish()
    }
}

impl Options {
    /// Loads CRD files (each compiled once). Every unusable file is reported.
    pub fn with_crd_files(paths: &[impl AsRef<Path>]) -> Result<Options, Vec<Diagnostic>> {
        let mut crds = Vec::new();
        let mut errors = Vec::new();
        for p in paths {
            match crate::read::read_file(p.as_ref()) {
                Ok(docs) => match crd::from_documents(&docs) {
                    Ok(mut c) if !c.is_empty() => crds.append(&mut c),
                    Ok(_) => errors.push(finding("crd/unusable", "", "the file holds no CustomResourceDefinition").with_file(
                        p.as_ref().display().to_string(),
                        None,
                        None,
                    )),
                    Err(mut e) => errors.append(&mut e),
                },
                Err(d) => errors.push(Diagnostic { rule: "crd/unusable".into(), ..d }),
            }
        }
        if errors.is_empty() {
            Ok(Options { crds: crds.into_iter().map(Arc::new).collect() })
        } else {
            Err(errors)
        }
    }

    /// The CRD (and version) defining `apiVersion`/`kind`, if any was given.
    pub fn crd_for(&self, api_version: &str, kind: &str) -> Option<(&crd::Crd, &crd::Version)> {
        self.crds.iter().find_map(|c| c.version(api_version, kind).map(|v| (c.as_ref(), v)))
    }
}

/// True for a `ClusterTrainingRuntime` or `TrainingRuntime` of `trainer.kubeflow.org`.
pub fn is_runtime(value: &Value) -> bool {
    let group = value.get("apiVersion").and_then(Value::as_str).and_then(|a| a.split_once('/')).map(|(g, _)| g);
    let kind = value.get("kind").and_then(Value::as_str);
    group == Some("trainer.kubeflow.org") && matches!(kind, Some(trainer::KIND_CLUSTER | trainer::KIND_NAMESPACED))
}

/// Checks one runtime object. Field paths are relative to the object; `object` is set; file
/// and line are not (see [`objects`]). Findings come sorted by layer, in document order.
pub fn object(value: &Value, opts: &Options) -> Vec<Diagnostic> {
    object_with(value, None, opts)
}

/// `object`, given the typed form when the caller already has it: `known` must be the runtime
/// `value` was serialized from (the renderer's case), so nothing reads the value back.
fn object_with(value: &Value, known: Option<&TrainingRuntime>, opts: &Options) -> Vec<Diagnostic> {
    let api_version = value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or_default();
    let mut out = Vec::new();
    match opts.crd_for(api_version, kind) {
        Some((_, version)) => {
            out.extend(version.check_structure(value));
            out.extend(version.check_cel(value));
        }
        None => {
            if !opts.crds.is_empty() {
                out.push(finding(
                    "crd/not-covered",
                    "",
                    format!("no --crd file defines {api_version} {kind}; checked against the built-in typed model instead"),
                ));
            }
            out.extend(structure::check(value, known.is_some()));
            out.extend(cel::builtin(value));
        }
    }
    // The later layers read the typed model. k8s-openapi fills missing required fields with
    // defaults and a wrong type does not read at all, so they run only on an object whose
    // structure reads faithfully.
    let misread = out.iter().any(|d| d.is_error() && (d.rule.ends_with("/required") || d.rule.ends_with("/type")));
    let read;
    let typed = match known {
        _ if misread => None,
        Some(rt) => Some(rt),
        None => {
            read = structure::typed(value);
            read.as_ref()
        }
    };
    if let Some(rt) = typed {
        out.extend(admission::check(rt));
        out.extend(ecosystem::check(rt));
        out.extend(accelerators::check(rt));
    }
    let object = ObjectRef::of(value);
    out.into_iter().map(|d| d.with_object(object.clone())).collect()
}

/// Checks every runtime among `docs` and places each finding in its file and line. Documents
/// that are not runtimes are skipped (the CLI reports them).
///
/// Large inputs are checked on every core, in contiguous slices whose findings are joined in
/// document order, so the output does not depend on the number of threads.
pub fn objects(docs: &[Document], opts: &Options) -> Vec<Diagnostic> {
    let runtimes: Vec<&Document> = docs.iter().filter(|d| is_runtime(&d.value)).collect();
    let check = |slice: &[&Document]| -> Vec<Diagnostic> {
        slice.iter().flat_map(|doc| object(&doc.value, opts).into_iter().map(|d| doc.locate(d))).collect()
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(runtimes.len() / PARALLEL_MIN_PER_THREAD);
    if threads <= 1 {
        return check(&runtimes);
    }
    let chunk = runtimes.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = runtimes.chunks(chunk).map(|slice| s.spawn(move || check(slice))).collect();
        handles.into_iter().flat_map(|h| h.join().expect("a validation thread panicked")).collect()
    })
}

/// Below this many runtimes per thread, one thread is faster than starting more.
const PARALLEL_MIN_PER_THREAD: usize = 32;

/// Checks a runtime the generator produced, with the same checks as `jax-runtimes validate`
/// without `--crd`. Every finding here is a generator bug or a catalog value that slipped past
/// resolve.
pub fn generated(object: &Value, typed: &TrainingRuntime) -> Vec<Diagnostic> {
    object_with(object, Some(typed), &Options::default())
}

/// The docs page listing every rule (`docs/rules.md`).
pub fn rules_markdown() -> String {
    let mut s = String::new();
    s.push_str("# Validation rules\n\n");
    s.push_str("<!-- Generated by `jax-runtimes validate --list-rules --format markdown` from the rule table in\n     src/validate/mod.rs. Do not edit by hand; `UPDATE_DOCS=1 cargo test --test validate` rewrites it. -->\n\n");
    s.push_str("`jax-runtimes validate` (and `jax-runtimes render`, on everything it generates) reports findings with these rule ids. ");
    s.push_str("Ids are stable. Severity `error` makes `validate` exit 1; `warning` and `info` do not.\n\n");
    s.push_str(
        "Runtimes labelled `trainer.kubeflow.org/webhook-validation: disabled` skip the Trainer admission webhook, as upstream does: ",
    );
    s.push_str("their `admission/*` findings are reported as `info`.\n\n");
    s.push_str("Without `--crd` the `schema/*` rules and the built-in `cel/*` equivalents of the Trainer v2.3 CRD rules apply; ");
    s.push_str("with `--crd` the `crd/*` rules and `cel/rule` (the CRD's own rules) replace them.\n");
    for (layer, title) in LAYERS {
        s.push_str(&format!("\n## {title}\n\n| Rule | Severity | What it finds | How to fix |\n|---|---|---|---|\n"));
        for r in RULES.iter().filter(|r| r.layer == layer) {
            s.push_str(&format!("| `{}` | {} | {} | {} |\n", r.id, r.severity, r.summary.replace('|', "\\|"), r.fix.replace('|', "\\|")));
        }
    }
    s
}

/// Joins a field path and a key: `a.b` + `c` = `a.b.c`; keys that are not plain identifiers are
/// kept as they are (label keys such as `google.com/tpu`).
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}
