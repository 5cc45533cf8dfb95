//! TrainJobs against the runtimes they use: a TrainJob object and the runtimes it may reference
//! -> findings (`trainjob/*`, plus structure and CEL findings on the TrainJob itself).
//!
//! The merge is [`crate::trainjob`]'s (the same one `preview` prints); the checks here read it:
//! - structure against the typed TrainJob model or a `--crd` TrainJob CRD, and the CRD's name
//!   rule (RFC 1035, at most 63 characters);
//! - `runtimeRef` resolves; a deprecated runtime is a warning;
//! - `numNodes` of at least 1; pod names within 63 characters for the node count in effect
//!   ([`crate::trainer::names`]);
//! - the JAX plugin's variables are not set by hand; a multi-node JAX job has `spec.trainer`;
//! - runtime patches name what the runtime has, set no env on the reserved containers, and name
//!   a domain-prefixed manager (Trainer's JobSet plugin `Validate`, `plugins/jobset/jobset.go`,
//!   checked against the runtime before the patches: Trainer checks after merging them, where
//!   an unknown name is already appended);
//! - the runtime's own checks ([`super::admission`], [`super::ecosystem`],
//!   [`super::accelerators`], [`super::consistency`] and Kubernetes' own rules,
//!   [`super::kubernetes`]) run again on the runtime as the TrainJob overrides it: what they
//!   find there and not on the runtime alone is the TrainJob's doing (GPUs per node, anything
//!   else by the rule's name); a TPU slice's host count and chips per host are compared with the
//!   runtime's own; plus the accelerator the merge drops and requests above limits.

use std::collections::HashSet;

use k8s_openapi::api::core::v1::{Container, ResourceRequirements};
use serde_json::Value;

use super::checks::RUNTIME_CHECKS;
use super::crd;
use super::structure;
use crate::accelerators::data;
use crate::diag::{within, Diagnostic, Fails, FieldPath, ObjectRef};
use crate::k8s::names::{self as k8s_names, dns1035_label, is_dns1123_subdomain, NameError};
use crate::k8s::quantity::{self, Quantity};
use crate::k8s::resources::{self, is_extended, overcommit_allowed};
use crate::rules::kubernetes::{JOBSET_REPLICATED_JOB_NAME, RESOURCES_REQUESTS_LIMITS};
use crate::rules::trainjob::*;
use crate::rules::validate::{
    CRD_NOT_COVERED, GPU_COUNT, JAX_PLUGIN_ENV, SDK_FRAMEWORK_LABEL, SDK_TRAINER_CONTAINER, SDK_UNKNOWN_DEVICE, TPU_CHIPS_PER_HOST,
    TPU_HOSTS,
};
use crate::rules::{Layer, Teller};
use crate::trainer::{facts, names, trainer_job, TrainJob, TrainingRuntime, GROUP, KIND_CLUSTER};
use crate::trainjob::{self, Effective, Policy, RefError, Steps, TrainerVersion};
use crate::words;

/// What TrainJobs are checked against.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The runtimes a TrainJob may reference.
    pub runtimes: &'a [TrainingRuntime],
    /// The Trainer release; `None`: the one the runtime's `jax-runtimes.dev/trainer-version`
    /// annotation names, else v2.3.
    pub version: Option<TrainerVersion>,
    /// The embedded release whose TrainJob schema judges it.
    pub release: &'static str,
}

/// The TrainJob's name as the API server has it when it validates the object.
enum Naming<'a> {
    /// `metadata.name`.
    Named(&'a str),
    /// No name, a `metadata.generateName`: the API server generates the name first
    /// (apiserver `rest.BeforeCreate`), and the checks see `name`, with a stand-in for the
    /// random characters ([`k8s_names::generated_name`]).
    Generated { prefix: &'a str, name: String },
    /// Neither: "name or generateName is required".
    Unnamed,
}

impl Naming<'_> {
    fn of(value: &Value) -> Naming<'_> {
        let s = |p: &str| value.pointer(p).and_then(Value::as_str).filter(|s| !s.is_empty());
        match (s("/metadata/name"), s("/metadata/generateName")) {
            (Some(n), _) => Naming::Named(n),
            (None, Some(prefix)) => Naming::Generated { prefix, name: k8s_names::api_name(None, Some(prefix)) },
            (None, None) => Naming::Unnamed,
        }
    }

    /// The field a finding about the name points at.
    fn field(&self) -> &'static str {
        match self {
            Naming::Generated { .. } => "metadata.generateName",
            Naming::Named(_) | Naming::Unnamed => "metadata.name",
        }
    }

    /// How a message names it.
    fn shown(&self) -> String {
        match self {
            Naming::Named(n) => format!("`{n}`"),
            Naming::Generated { prefix, name } => {
                format!("`{name}` (the name the API server generates from `generateName: {prefix}`; `x` for each random character)")
            }
            Naming::Unnamed => "the TrainJob".to_string(),
        }
    }
}

/// Checks one TrainJob. `crd` is the TrainJob CRD version to check structure and CEL against,
/// if one was given; `crds_given` says whether any CRD was. Field paths are relative to the
/// object; `object` is set, file and line are not.
pub fn check(value: &Value, crd: Option<&crd::Version>, crds_given: bool, ctx: &Context) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let release = ctx.release;
    let naming = Naming::of(value);
    // The API server names the object before it validates it: the CRD's rules and the checks
    // against the runtime see the generated name.
    let named: std::borrow::Cow<'_, Value> = match &naming {
        Naming::Generated { name, .. } if value.get("metadata").is_some_and(Value::is_object) => {
            let mut v = value.clone();
            v["metadata"]["name"] = Value::String(name.clone());
            std::borrow::Cow::Owned(v)
        }
        _ => std::borrow::Cow::Borrowed(value),
    };
    match crd {
        Some(v) => {
            // The API server's own metadata checks come before the CRD's rules; what they
            // refuse (no name at all, a bad prefix) is not said again by a CEL rule on the name.
            let own = name_format(&naming, false);
            let mut found = v.check_structure(&named);
            found.extend(v.check_cel(&named));
            for d in &mut found {
                if d.field.as_deref() != Some("metadata.name") && !d.message.contains("metadata.name") {
                    continue;
                }
                if let Naming::Generated { .. } = naming {
                    d.field = Some(naming.field().to_string());
                    d.message = format!("{}: {}", naming.shown(), d.message);
                }
            }
            if own.is_some() {
                found.retain(|d| d.field.as_deref() != Some("metadata.name") && !d.message.contains("metadata.name"));
                found.retain(|d| d.field.as_deref() != Some("metadata.generateName"));
            }
            out.extend(own);
            out.extend(found);
        }
        None => {
            if crds_given {
                out.push(Diagnostic::finding(
                    &CRD_NOT_COVERED,
                    "",
                    format!("no --crd file defines TrainJob; checked against the embedded schema of Trainer {release} instead"),
                ));
            }
            out.extend(structure::check_trainjob(value, release));
            out.extend(name_format(&naming, has_name_rules(release)));
        }
    }
    // A TrainJob without `spec.runtimeRef`: say its shape and the runtimes it may name.
    for d in out.iter_mut().filter(|d| d.rule.id.ends_with("/required") && d.field.as_deref() == Some("spec.runtimeRef")) {
        let mut names: Vec<&str> = ctx.runtimes.iter().filter_map(|r| r.metadata.name.as_deref()).collect();
        names.sort_unstable();
        names.dedup();
        let known = match names.len() {
            0 => " (pass the runtimes with `--runtimes` to have them listed)".to_string(),
            n => {
                let shown: Vec<String> = names.iter().take(5).map(|n| format!("`{n}`")).collect();
                let more = if n > 5 { format!(" and {} more", n - 5) } else { String::new() };
                format!("; the runtimes given: {}{more}", shown.join(", "))
            }
        };
        d.help = Some(format!(
            "add `spec.runtimeRef: {{name: <runtime>}}`: a ClusterTrainingRuntime by default, or `kind: TrainingRuntime` for one in the TrainJob's namespace{known}"
        ));
    }
    let misread = out.iter().any(|d| d.is_error() && (d.rule.id.ends_with("/required") || d.rule.id.ends_with("/type")));
    let read = if misread { None } else { Some(structure::decoded::<TrainJob>(value)) };
    // A value the schema already refuses is said once, by the schema.
    let structure = out.iter().any(|d| d.is_error() && (d.rule.id.starts_with("schema/") || d.rule.id.starts_with("crd/")));
    if let Some(Err(d)) = read.as_ref().filter(|_| !structure) {
        out.push(d.clone());
    }
    if let Some(Ok(mut tj)) = read {
        {
            out.extend(own_metadata(&tj));
            if crd.is_none() {
                out.extend(own_quantities(&tj));
            }
            if let Naming::Generated { name, .. } = &naming {
                tj.metadata.name = Some(name.clone());
            }
            let mut theirs = against_runtime(&tj, &naming, ctx);
            // One finding per mistake: a value the TrainJob's own checks (its CRD's schema, its
            // quantities) already refuse is not reported again as the pod it makes.
            let covered: Vec<String> = out.iter().filter(|d| d.is_error()).filter_map(|d| d.field.clone()).collect();
            theirs.retain(|d| d.rule != &TRAINJOB_NODE_POD || !d.field.as_deref().is_some_and(|f| covered.iter().any(|c| within(f, c))));
            out.extend(theirs);
        }
    }
    let object = ObjectRef::of(value);
    out.into_iter().map(|d| d.with_object(object.clone())).collect()
}

/// The TrainJob's own labels, annotations (and their size) and finalizers, which the API server
/// checks at apply as for any object (apimachinery `ValidateObjectMeta`; checked with a real
/// kube-apiserver, tests/controlplane.rs).
fn own_metadata(tj: &TrainJob) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    crate::k8s::meta::own_maps(&tj.metadata, &mut out);
    out.into_iter().map(|d| d.told_by(crate::rules::Teller::TrainJob)).collect()
}

/// The TrainJob's own quantities (`resourcesPerNode`), which its CRD's `pattern` refuses at
/// apply: checked here when no CRD is given (with one, its structure check finds them).
fn own_quantities(tj: &TrainJob) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(r) = tj.spec.trainer.as_ref().and_then(|t| t.resources_per_node.as_ref()) {
        for (section, map) in [("limits", r.limits.as_ref()), ("requests", r.requests.as_ref())] {
            for (k, q) in map.into_iter().flatten() {
                resources::quantity_at(&q.0, &FieldPath::from("spec.trainer.resourcesPerNode").field(section).key(k), &mut out);
            }
        }
    }
    out.into_iter().map(|d| d.told_by(Teller::TrainJob)).collect()
}

/// The TrainJob CRD of `release` has the CEL rules on `metadata.name` (RFC 1035, at most 63
/// characters: from v2.1.0 on), as its embedded schema says.
fn has_name_rules(release: &str) -> bool {
    structure::release_has(release, "self.metadata.name.matches(")
}

/// The API server's name rules for the TrainJob (`name` or `generateName` required, the prefix
/// a valid one, the name a DNS-1123 subdomain: apimachinery `ValidateObjectMetaAccessor`) and,
/// with `crd_rules`, the CRD's (RFC 1035, at most 63 characters: its CEL rules, which see a
/// generated name too).
fn name_format(naming: &Naming<'_>, crd_rules: bool) -> Option<Diagnostic> {
    let format = |n: &str| match dns1035_label(n) {
        // Without the CRD's rules, the API server's own: a DNS-1123 subdomain.
        _ if !crd_rules => k8s_names::dns1123_subdomain(n).err().map(|e| format!("{}: metadata.name {e}", naming.shown())),
        Ok(()) => None,
        Err(NameError::TooLong { max, .. }) => {
            Some(format!("{} is {} characters; metadata.name must be no more than {max} characters", naming.shown(), n.len()))
        }
        Err(_) => Some(format!("{}: metadata.name must match RFC 1035 DNS label format (`^[a-z]([-a-z0-9]*[a-z0-9])?$`)", naming.shown())),
    };
    let problem = match naming {
        Naming::Unnamed => Some(
            "the TrainJob has neither `metadata.name` nor `metadata.generateName`; the API server refuses it (\"name or generateName is required\")"
                .to_string(),
        ),
        Naming::Named(n) => format(n),
        Naming::Generated { prefix, name } => match k8s_names::generate_name_prefix(prefix) {
            Err(e) => Some(format!("`generateName: {prefix}` is not a valid name prefix: it {e}")),
            Ok(()) => format(name),
        },
    }?;
    Some(Diagnostic::finding(&TRAINJOB_NAME, naming.field(), problem))
}

/// The `trainjob/runtime-ref` finding for a runtimeRef that names no runtime given, at the field
/// that is wrong.
pub fn runtime_ref_finding(e: &RefError) -> Diagnostic {
    let field = match e {
        RefError::Unsupported { group, .. } if group != GROUP => "spec.runtimeRef.apiGroup",
        RefError::Unsupported { .. } => "spec.runtimeRef.kind",
        RefError::NotFound(_) => "spec.runtimeRef.name",
    };
    Diagnostic::finding(&TRAINJOB_RUNTIME_REF, field, e.to_string())
}

fn against_runtime(tj: &TrainJob, naming: &Naming<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if ctx.runtimes.is_empty() {
        out.push(Diagnostic::finding(
            &TRAINJOB_RUNTIME_UNCHECKED,
            "spec.runtimeRef.name",
            format!(
                "no runtimes were given (none in the input, no --runtimes): not checked against its runtime `{}`",
                tj.spec.runtime_ref.name
            ),
        ));
        return out;
    }
    let rt = match trainjob::find(tj, ctx.runtimes) {
        Ok(rt) => rt,
        Err(e) => {
            out.push(runtime_ref_finding(&e));
            return out;
        }
    };
    let rt_name = rt.metadata.name.as_deref().unwrap_or_default();
    let labels = &facts().labels;
    if rt.kind == KIND_CLUSTER && rt.metadata.labels.as_ref().and_then(|l| l.get(&labels.support)).is_some_and(|v| *v == labels.deprecated)
    {
        out.push(Diagnostic::finding(
            &TRAINJOB_RUNTIME_DEPRECATED,
            "spec.runtimeRef.name",
            format!(
                "Referenced ClusterTrainingRuntime \"{rt_name}\" is deprecated and will be removed in a future release of Kubeflow Trainer"
            ),
        ));
    }
    let version = TrainerVersion::for_runtime(rt, ctx.version);
    let dropped = trainjob::dropped(rt, tj, version);
    if !dropped.is_empty() {
        let fields = dropped.iter().map(|d| format!("`{}`", d.field)).collect::<Vec<_>>().join(", ");
        let mut whys: Vec<&str> = dropped.iter().map(|d| d.why.as_str()).collect();
        whys.dedup();
        let field = match dropped.as_slice() {
            [one] => format!("spec.trainer.{}", one.field),
            _ => "spec.trainer".to_string(),
        };
        out.push(Diagnostic::finding(
            &TRAINJOB_OVERRIDES_DROPPED,
            field,
            format!(
                "Trainer {version} silently drops {fields} with runtime `{rt_name}`: {}; the pods run the runtime's values instead",
                whys.join("; ")
            ),
        ));
    }
    let all = trainjob::build(rt, tj, version, Steps::All);
    let over = trainjob::build(rt, tj, version, Steps::Overrides);
    let trainer = tj.spec.trainer.as_ref();

    if let Some(n) = trainer.and_then(|t| t.num_nodes).filter(|n| *n < 1) {
        out.push(Diagnostic::finding(
            &TRAINJOB_NUM_NODES,
            "spec.trainer.numNodes",
            if n == 0 {
                "numNodes is 0: the `node` Job gets 0 pods and completes at once without running anything".to_string()
            } else {
                format!("numNodes is {n}: Trainer sets the `node` Job's parallelism and completions to it, and Kubernetes rejects a negative count")
            },
        ));
    }
    // kubernetes `pkg/apis/core/validation/validation.go` `validateContainers`: an image of
    // length 0 is `Required value`, in pod templates too (a blank one is allowed).
    if trainer.and_then(|t| t.image.as_deref()).is_some_and(str::is_empty) {
        out.push(Diagnostic::finding(
            &TRAINJOB_EMPTY_IMAGE,
            "spec.trainer.image",
            "`image` is empty: Trainer sets the `node` container's image to it (plugins/jobset/builder.go `Trainer` replaces the image whenever the field is set), and Kubernetes rejects the `node` Job JobSet creates (`spec.template.spec.containers[0].image: Required value`)",
        ));
    }
    out.extend(name_length(naming, &all));
    if all.policy == Policy::Jax {
        out.extend(jax_env(tj, &all, version));
        if trainer.is_none() && all.num_nodes() > 1 {
            out.push(Diagnostic::finding(
                &TRAINJOB_NO_TRAINER,
                "spec",
                format!(
                    "no `spec.trainer`: the JAX plugin injects JAX_NUM_PROCESSES, JAX_PROCESS_ID and JAX_COORDINATOR_ADDRESS only when it is set, and `{rt_name}` runs {} processes",
                    all.num_nodes()
                ),
            ));
        }
    }
    out.extend(patches(tj, rt, version));
    out.extend(super::initializer::check(tj, &over));
    out.extend(tpu_slice(tj, rt, &over));
    out.extend(resources(tj, rt, &over));
    // The runtime rules find some of the direct findings again (a TPU slice's hosts and chips):
    // those are left out.
    let direct: HashSet<(&str, Option<String>)> = out.iter().map(|d| (d.rule.id, d.field.clone())).collect();
    // One finding per mistake: what a direct finding says at a field is not said again as the
    // pod it makes (an empty image, a limit below the request); a patch that names a container
    // the runtime lacks makes Trainer append one, whose missing image is the same mistake.
    let said: Vec<&str> = out.iter().filter_map(|d| d.field.as_deref()).collect();
    let said_of = |f: &str| said.iter().any(|g| *g == f || (f == "spec.runtimePatches" && within(g, f)));
    let theirs: Vec<Diagnostic> = runtime_rules(tj, rt, &over)
        .into_iter()
        .filter(|d| {
            if d.rule == &TRAINJOB_NODE_POD {
                !d.field.as_deref().is_some_and(said_of)
            } else {
                !direct.contains(&(d.rule.id, d.field.clone()))
            }
        })
        .collect();
    out.extend(theirs);
    out
}

/// On a TPU slice runtime the node count and the chips per pod are the slice's: the runtime's.
fn tpu_slice(tj: &TrainJob, rt: &TrainingRuntime, over: &Effective) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let tpu = data().tpu.resource.as_str();
    let Some(node) = trainer_node(&rt.spec.template.spec.replicated_jobs) else { return out };
    let chips = |c: &Container| limit(c.resources.as_ref(), tpu);
    let Some(rt_chips) = chips(node).filter(|c| c.q > Quantity::ZERO) else { return out };
    let hosts = rt.spec.ml_policy.as_ref().and_then(|m| m.num_nodes).unwrap_or(1);
    let selector = |k: &str| {
        rt.spec
            .template
            .spec
            .replicated_jobs
            .iter()
            .find_map(|j| j.template.spec.as_ref()?.template.spec.as_ref()?.node_selector.as_ref()?.get(k).cloned())
    };
    let slice = match (selector(&data().tpu.accelerator_label), selector(&data().tpu.topology_label)) {
        (Some(a), Some(t)) => format!("the {a} {t} slice"),
        _ => "the slice".to_string(),
    };
    if let Some(n) = tj.spec.trainer.as_ref().and_then(|t| t.num_nodes).filter(|n| *n >= 1 && *n != hosts) {
        out.push(Diagnostic::finding(
            &TRAINJOB_TPU_NUM_NODES,
            "spec.trainer.numNodes",
            format!(
                "numNodes is {n}, but the runtime runs on {slice}, which has {} of {rt_chips} chips: a slice is scheduled whole, so {}",
                words::count(hosts, "host"),
                if n < hosts {
                    "a part of it never starts and `jax.distributed.initialize()` waits for processes that do not exist"
                } else {
                    "the extra pods stay Pending"
                }
            ),
        ));
    }
    let after = trainer_node(&over.template.spec.replicated_jobs).and_then(chips);
    if let Some(c) = after.filter(|c| c.q > Quantity::ZERO && c.q != rt_chips.q) {
        out.push(Diagnostic::finding(
            &TRAINJOB_ACCELERATOR_COUNT,
            resource_field(tj, "limits", tpu),
            format!("`{tpu}: {c}` per pod, but the hosts of {slice} have {rt_chips} chips each: the pods stay Pending (or leave chips idle); set it to {rt_chips} or remove it"),
        ));
    }
    out
}

/// The longest name that keeps every pod name within 63 characters (JobSet's webhook); a
/// generated name counts with its generated length.
fn name_length(naming: &Naming<'_>, eff: &Effective) -> Option<Diagnostic> {
    let name = match naming {
        Naming::Named(n) => *n,
        Naming::Generated { name, .. } => name.as_str(),
        Naming::Unnamed => return None,
    };
    let jobs = eff
        .template
        .spec
        .replicated_jobs
        .iter()
        .zip(&eff.counts)
        .map(|(j, n)| (j.name.as_str(), u64::try_from(j.replicas.unwrap_or(1)).unwrap_or(1), u64::try_from(*n).unwrap_or(1)));
    let (max, job) = names::max_trainjob_name(jobs)?;
    if name.len() <= max {
        return None;
    }
    let pods = eff.template.spec.replicated_jobs.iter().position(|j| j.name == job).and_then(|i| eff.counts.get(i)).copied().unwrap_or(1);
    let last = format!("{}{}", names::hostname(name, job, 0, u64::try_from(pods.max(1) - 1).unwrap_or(0)), facts().pod_name_suffix);
    let fix = match naming {
        Naming::Generated { .. } => {
            format!(
                "the longest name that fits is {max} characters: a `generateName` of at most {} characters",
                max.saturating_sub(k8s_names::generated_name("").len())
            )
        }
        _ => format!("the longest name that fits is {max} characters"),
    };
    Some(Diagnostic::finding(
        &TRAINJOB_NAME_LENGTH,
        naming.field(),
        format!(
            "{} is {} characters: the last pod of replicated job `{job}` ({}) would be named like `{last}` ({} characters, at most 63), and JobSet rejects the JobSet (\"JobSet name is too long\"); {fix}",
            naming.shown(),
            name.len(),
            words::count(pods, "pod"),
            last.len()
        ),
    ))
}

/// `spec.trainer.env` against the JAX plugin's variables.
fn jax_env(tj: &TrainJob, eff: &Effective, version: TrainerVersion) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let Some(injected) = &eff.jax else { return out };
    for (i, e) in tj.spec.trainer.iter().flat_map(|t| t.env.iter().flatten()).enumerate() {
        if !facts().is_jax_variable(&e.name) {
            continue;
        }
        let Some(plugin) = injected.env.iter().find(|p| p.name == e.name) else { continue };
        let ours = trainjob::merge::apply_env(e);
        // At the value that conflicts (a line and a column), not the whole item.
        let field = FieldPath::from("spec.trainer").field("env").index(i).field(if e.value.is_some() { "value" } else { "valueFrom" });
        let plugin_says = match (&plugin.value, plugin.value_from.as_ref().and_then(|f| f.field_ref.as_ref())) {
            (Some(v), _) => format!("`{v}`"),
            (None, Some(r)) => format!("fieldRef `{}` (each pod's completion index)", r.field_path),
            _ => "its own value".to_string(),
        };
        let yours = match (&ours.value, ours.value_from.as_ref().and_then(|f| f.field_ref.as_ref())) {
            (Some(v), _) => format!("`{v}`"),
            (None, Some(r)) => format!("fieldRef `{}`", r.field_path),
            _ => "a reference".to_string(),
        };
        let jax = &facts().jax;
        let same_per_pod = e.name == jax.process_id && eff.num_nodes() == 1 && ours.value.as_deref() == Some("0");
        if (ours.value == plugin.value && ours.value_from == plugin.value_from) || same_per_pod {
            out.push(Diagnostic::finding(
                &TRAINJOB_JAX_ENV_REDUNDANT,
                field,
                format!(
                    "`{}` set to {yours} gives the pods what the JAX plugin gives them anyway ({plugin_says}, with {}); kubeflow/trainer#3670 proposes to reject TrainJobs that set it",
                    e.name,
                    words::count_of(eff.num_nodes(), "process", "processes")
                ),
            ));
            continue;
        }
        let effect = match e.name.as_str() {
            n if n == jax.process_id && ours.value.is_some() && eff.num_nodes() == 1 => {
                "the only process gets an id other than 0".to_string()
            }
            n if n == jax.process_id && ours.value.is_some() => format!("all {} processes claim that same process id", eff.num_nodes()),
            n if n == jax.process_id => "the processes do not get their completion index as process id".to_string(),
            n if n == jax.num_processes => format!("the job runs {}", words::count_of(eff.num_nodes(), "process", "processes")),
            _ => format!("process 0 is reachable as {plugin_says}"),
        };
        out.push(Diagnostic::finding(
            &TRAINJOB_JAX_ENV,
            field,
            format!(
                "`{}` is set to {yours}, but the JAX plugin sets {plugin_says}; Trainer {version} upserts the TrainJob's env after the plugin's (builder.go `Trainer`), so every pod gets {yours}: {effect}, and `jax.distributed.initialize()` hangs or fails",
                e.name
            ),
        ));
    }
    out
}

/// Runtime patches against the runtime they patch (before patching).
fn patches(tj: &TrainJob, rt: &TrainingRuntime, version: TrainerVersion) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let jobs = &rt.spec.template.spec.replicated_jobs;
    let job_names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
    for (p, patch) in tj.spec.runtime_patches.iter().flatten().enumerate() {
        let base = FieldPath::from("spec").field("runtimePatches").index(p);
        if let Some(problem) = domain_prefixed_path(&patch.manager) {
            out.push(Diagnostic::finding(&TRAINJOB_PATCH_MANAGER, base.field("manager"), problem));
        }
        let rjobs = patch.training_runtime_spec.as_ref().and_then(|s| s.template.as_ref()).and_then(|t| t.spec.as_ref());
        for (j, rjob) in rjobs.iter().flat_map(|s| s.replicated_jobs.iter().flatten()).enumerate() {
            let jpath = base.field("trainingRuntimeSpec").field("template").field("spec").field("replicatedJobs").index(j);
            let Some(job) = jobs.iter().find(|x| x.name == rjob.name) else {
                let what = match version {
                    TrainerVersion::V2_2 => "Trainer v2.2 skips the patch silently",
                    TrainerVersion::V2_3 => "Trainer v2.3 appends it as a new replicated job without an image, and the JobSet is rejected",
                };
                out.push(Diagnostic::finding(
                    &TRAINJOB_PATCH_TARGET,
                    jpath.field("name"),
                    format!("the runtime has no replicated job `{}` (it has {}); {what}", rjob.name, list(&job_names)),
                ));
                continue;
            };
            let pod = job.template.spec.as_ref().and_then(|s| s.template.spec.as_ref());
            let Some(spec) =
                rjob.template.as_ref().and_then(|t| t.spec.as_ref()).and_then(|s| s.template.as_ref()).and_then(|t| t.spec.as_ref())
            else {
                continue;
            };
            for (kind, field, have, patched) in [
                ("container", "containers", pod.map(|p| p.containers.as_slice()).unwrap_or_default(), spec.containers.as_deref()),
                (
                    "init container",
                    "initContainers",
                    pod.and_then(|p| p.init_containers.as_deref()).unwrap_or_default(),
                    spec.init_containers.as_deref(),
                ),
            ] {
                let names: Vec<&str> = have.iter().map(|c| c.name.as_str()).collect();
                for (k, c) in patched.unwrap_or_default().iter().enumerate() {
                    let cpath = jpath.field("template").field("spec").field("template").field("spec").field(field).index(k);
                    if !names.contains(&c.name.as_str()) {
                        out.push(Diagnostic::finding(
                            &TRAINJOB_PATCH_TARGET,
                            cpath.field("name"),
                            format!(
                                "replicated job `{}` has no {kind} `{}` (it has {}); the merge would add a {kind} without an image, which the pod rejects",
                                rjob.name,
                                c.name,
                                list(&names)
                            ),
                        ));
                    } else if field == "containers"
                        && c.env.as_ref().is_some_and(|e| !e.is_empty())
                        && facts().patch_env_forbidden.contains(&c.name)
                    {
                        out.push(Diagnostic::finding(
                            &TRAINJOB_PATCH_ENV,
                            cpath.field("env"),
                            format!(
                                "must not have envs for the {} containers (container `{}`): the Trainer webhook rejects the TrainJob",
                                facts().patch_env_forbidden.join(", "),
                                c.name
                            ),
                        ));
                    }
                }
            }
        }
    }
    out
}

fn list(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
    }
}

/// k8s.io/apimachinery `validation.IsDomainPrefixedPath`: `<DNS-1123 subdomain>/<HTTP path>`.
fn domain_prefixed_path(s: &str) -> Option<String> {
    let bad = || Some(format!("`{s}` must be a domain-prefixed path (such as \"acme.io/foo\")"));
    let Some((host, path)) = s.split_once('/') else { return bad() };
    if host.is_empty() || path.is_empty() {
        return bad();
    }
    if !is_dns1123_subdomain(host) {
        return Some(format!("`{host}` (before the first `/` of `{s}`) is not a DNS-1123 subdomain"));
    }
    let path_ok = path.bytes().all(|b| b.is_ascii_alphanumeric() || b"/-._~%!$&'()*+,;=:".contains(&b));
    if !path_ok {
        return Some(format!("`{path}` (after the first `/` of `{s}`) is not a valid HTTP path"));
    }
    None
}

/// The `node` container of the trainer job.
fn trainer_node(jobs: &[crate::trainer::ReplicatedJob]) -> Option<&Container> {
    trainer_job(jobs)?.1.node_container()
}

/// `spec.trainer.resourcesPerNode`.
fn per_node() -> FieldPath {
    FieldPath::from("spec.trainer").field("resourcesPerNode")
}

/// Where in the TrainJob a resource key of the `node` container comes from.
fn resource_field(tj: &TrainJob, section: &str, key: &str) -> String {
    let r = tj.spec.trainer.as_ref().and_then(|t| t.resources_per_node.as_ref());
    let has = |m: Option<&std::collections::BTreeMap<String, _>>| m.is_some_and(|m| m.contains_key(key));
    let limits = |r: &ResourceRequirements| has(r.limits.as_ref()).then(|| String::from(per_node().field("limits").key(key)));
    let requests = |r: &ResourceRequirements| has(r.requests.as_ref()).then(|| String::from(per_node().field("requests").key(key)));
    match r {
        // The section asked about first, then the other one, then the block.
        Some(r) if section == "requests" => requests(r).or_else(|| limits(r)).unwrap_or_else(|| per_node().into()),
        Some(r) => limits(r).or_else(|| requests(r)).unwrap_or_else(|| per_node().into()),
        None => "spec.trainer".to_string(),
    }
}

/// The accelerator the merge drops, and requests above limits (what Kubernetes rejects).
fn resources(tj: &TrainJob, rt: &TrainingRuntime, over: &Effective) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if tj.spec.trainer.as_ref().and_then(|t| t.resources_per_node.as_ref()).is_none() {
        return out;
    }
    let before = trainer_node(&rt.spec.template.spec.replicated_jobs).and_then(|c| c.resources.clone());
    let after = trainer_node(&over.template.spec.replicated_jobs).and_then(|c| c.resources.clone());
    let mut dropped = Vec::new();
    for key in data().accelerator_resources() {
        let Some(had) = limit(before.as_ref(), key).filter(|h| h.q > Quantity::ZERO) else { continue };
        if limit(after.as_ref(), key).is_none_or(|a| a.q <= Quantity::ZERO) {
            dropped.push(key.to_string());
            let why = match over.version {
                TrainerVersion::V2_2 => "Trainer v2.2 replaces the runtime's resources with `resourcesPerNode`",
                TrainerVersion::V2_3 => "`resourcesPerNode` sets it to 0",
            };
            out.push(Diagnostic::finding(
                &TRAINJOB_ACCELERATOR_DROPPED,
                resource_field(tj, "limits", key),
                format!("the runtime's `node` container requests `{key}: {had}`, the TrainJob's does not ({why}): the pod still selects and tolerates the accelerator nodes but gets no accelerator"),
            ));
        }
    }
    if let Some(r) = &after {
        for (key, req) in r.requests.iter().flatten() {
            if dropped.contains(key) {
                continue; // one finding per key: `trainjob/accelerator-dropped` says it
            }
            let merge = match over.version {
                TrainerVersion::V2_2 => "Trainer v2.2's replacement",
                TrainerVersion::V2_3 => "Trainer v2.3's merge (per resource key: a key the TrainJob leaves out keeps the runtime's value)",
            };
            let Some(lim) = r.limits.as_ref().and_then(|l| l.get(key)) else {
                // kubernetes `validation.go` `ValidateResourceRequirements`: "Limit must be set for
                // non overcommitable resources" (the runtime rule `resources/requests-limits`).
                if !overcommit_allowed(key) && quantity::parse(&req.0).is_ok() {
                    out.push(Diagnostic::finding(
                        &TRAINJOB_RESOURCES,
                        resource_field(tj, "requests", key),
                        format!("after {merge} the `node` container requests `{key}: {}` with no limit: `{key}` cannot be overcommitted, and Kubernetes rejects the pods (\"Limit must be set for non overcommitable resources\"); set `limits` of `{key}` in `resourcesPerNode` to the same value", req.0),
                    ));
                }
                continue;
            };
            let (Ok(a), Ok(b)) = (quantity::parse(&req.0), quantity::parse(&lim.0)) else { continue };
            let problem = if is_extended(key) || !overcommit_allowed(key) {
                (a != b).then(|| format!("an extended resource's request must equal its limit (it cannot be overcommitted); set both `requests` and `limits` of `{key}` in `resourcesPerNode`"))
            } else {
                (a > b).then(|| format!("Kubernetes rejects the pods (\"must be less than or equal to {key} limit\")"))
            };
            if let Some(problem) = problem {
                out.push(Diagnostic::finding(
                    &TRAINJOB_RESOURCES,
                    resource_field(tj, "limits", key),
                    format!("after {merge} the `node` container requests `{key}: {}` with a limit of `{}`: {problem}", req.0, lim.0),
                ));
            }
        }
    }
    out
}

/// A limit of a container's resources, with the text it was written as (for messages).
struct Limit {
    q: Quantity,
    text: String,
}

/// Whole numbers as numbers, anything else as written.
impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.q.count() {
            Some(n) => write!(f, "{n}"),
            None => f.write_str(&self.text),
        }
    }
}

/// The limit of `key` in `r`, where it is a quantity.
fn limit(r: Option<&ResourceRequirements>, key: &str) -> Option<Limit> {
    let text = &r?.limits.as_ref()?.get(key)?.0;
    quantity::parse(text).ok().map(|q| Limit { q, text: text.clone() })
}

/// The runtime checks on the runtime as the TrainJob overrides it; what is new is the TrainJob's.
fn runtime_rules(tj: &TrainJob, rt: &TrainingRuntime, over: &Effective) -> Vec<Diagnostic> {
    // The validator's own table of runtime checks, less those it says a TrainJob cannot change.
    let semantic = |r: &TrainingRuntime| -> Vec<Diagnostic> {
        RUNTIME_CHECKS.iter().filter(|c| c.on_trainjob.is_ok()).flat_map(|c| (c.check)(r)).collect()
    };
    let mut effective = rt.clone();
    effective.spec.template = over.template.clone();
    if let Some(ml) = effective.spec.ml_policy.as_mut() {
        ml.num_nodes = Some(over.num_nodes());
    }
    let known: HashSet<(&str, Option<String>)> = semantic(rt).into_iter().map(|d| (d.rule.id, d.field)).collect();
    let mut out = Vec::new();
    for d in semantic(&effective) {
        // The TrainJob's own JAX variables are `trainjob/jax-env*`'s.
        if d.rule == &JAX_PLUGIN_ENV || known.contains(&(d.rule.id, d.field.clone())) {
            continue;
        }
        // The Kubeflow SDK reads the runtime object, which a TrainJob does not change; the
        // merged resources are [`resources`]'s (in the TrainJob's terms).
        if [&SDK_FRAMEWORK_LABEL, &SDK_TRAINER_CONTAINER, &SDK_UNKNOWN_DEVICE, &RESOURCES_REQUESTS_LIMITS].contains(&d.rule) {
            continue;
        }
        // The pod names of this TrainJob are `trainjob/name-length`'s, with its own name.
        if d.rule == &JOBSET_REPLICATED_JOB_NAME {
            continue;
        }
        let inner_field = d.field.clone().unwrap_or_default();
        // A TPU slice's hosts and chips per host are checked against the runtime's own shape
        // ([`tpu_slice`]): another shape of the same topology the overrides happen to match is
        // not what the runtime's node pool has.
        if d.rule == &TPU_HOSTS || d.rule == &TPU_CHIPS_PER_HOST {
            continue;
        }
        // An accelerator finding on a pod field (selector, tolerations) that the TrainJob's
        // resources caused points at the resources.
        let resources = tj.spec.trainer.as_ref().and_then(|t| t.resources_per_node.as_ref());
        let field = match resources
            .and_then(|r| r.limits.as_ref())
            .and_then(|l| l.keys().find(|k| data().accelerator_resources().any(|a| a == *k)))
        {
            Some(key) if d.rule.layer == Layer::Accelerators && !inner_field.contains(".resources") => resource_field(tj, "limits", key),
            _ => tj_field(tj, &inner_field),
        };
        let d = if d.rule == &GPU_COUNT {
            Diagnostic::finding(&TRAINJOB_ACCELERATOR_COUNT, field, d.message.clone())
        } else {
            let told = d.clone().told_by(Teller::TrainJob);
            let head = format!("with this TrainJob the runtime breaks `{}` at `{inner_field}`: ", d.rule.id);
            let fails = told.fails.map(|f| Fails { at: head.len() + f.at, ..f });
            Diagnostic { fails, ..Diagnostic::finding(&TRAINJOB_NODE_POD, field, format!("{head}{}", told.message)) }
                .with_help(d.rule.fix)
                .with_severity(d.severity)
        };
        out.push(d);
    }
    out
}

/// The TrainJob field behind a field of the runtime as the TrainJob overrides it.
fn tj_field(tj: &TrainJob, runtime_field: &str) -> String {
    let trainer = tj.spec.trainer.as_ref();
    let after_resources =
        |section: &str| runtime_field.split_once(&format!(".resources.{section}.")).map(|(_, key)| resource_field(tj, section, key));
    if let Some(f) = after_resources("limits").or_else(|| after_resources("requests")) {
        return f;
    }
    if runtime_field.ends_with(".resources") || runtime_field.contains(".resources.") {
        let block = trainer.and_then(|t| t.resources_per_node.as_ref()).map(|_| "spec.trainer.resourcesPerNode");
        return block.unwrap_or("spec.trainer").to_string();
    }
    let set = |f: bool, path: &str| f.then(|| path.to_string());
    let from_trainer = trainer.and_then(|t| {
        set(runtime_field.ends_with(".image") && t.image.is_some(), "spec.trainer.image")
            .or_else(|| set(runtime_field.contains(".env") && t.env.is_some(), "spec.trainer.env"))
            .or_else(|| set(runtime_field.contains(".command") && t.command.is_some(), "spec.trainer.command"))
            .or_else(|| set(runtime_field.contains(".args") && t.args.is_some(), "spec.trainer.args"))
            .or_else(|| set(runtime_field == "spec.mlPolicy.numNodes" && t.num_nodes.is_some(), "spec.trainer.numNodes"))
    });
    from_trainer.or_else(|| tj.spec.runtime_patches.as_ref().map(|_| "spec.runtimePatches".to_string())).unwrap_or_else(|| {
        if trainer.is_some() {
            "spec.trainer".to_string()
        } else {
            "spec".to_string()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn managers_are_domain_prefixed_paths() {
        for ok in ["kueue.x-k8s.io/multikueue", "example.com/a/b", "acme.io/foo_bar"] {
            assert_eq!(domain_prefixed_path(ok), None, "{ok}");
        }
        for bad in ["kueue", "/x", "example.com/", "Example.com/x", "example.com/a b"] {
            assert!(domain_prefixed_path(bad).is_some(), "{bad}");
        }
    }
}
