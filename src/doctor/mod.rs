//! `doctor`'s stage: a cluster's objects (a `snapshot` List, `kubectl get ... -o yaml` Lists, or
//! what live mode reads) and one TrainJob's namespace and name -> why it is not running, as
//! findings of the `doctor/*` rules (each with what to change), and its state in one line.
//!
//! It follows the TrainJob as the controllers do: the runtime its `spec.runtimeRef` names
//! (kubeflow/trainer v2.3.0 pkg/runtime/core/clustertrainingruntime.go `NewObjects`), the JobSet
//! Trainer names after it and the pods JobSet labels `jobset.sigs.k8s.io/jobset-name: NAME`
//! (kubernetes-sigs/jobset v0.12.0 api/jobset/v1alpha2/jobset_types.go `JobSetNameKey`), the
//! TrainJob's own conditions (pkg/apis/trainer/v1alpha1/trainjob_types.go `TrainJobFailed`,
//! `TrainJobComplete`), and the pods' `PodScheduled` condition and the `node` container's state
//! (Trainer's container name, pkg/constants/constants.go `Node`). A Pending gang is re-checked
//! with fit's model ([`crate::fit::fit_all`]) on the nodes and pods of the same input.

use k8s_openapi::api::core::v1::Pod;
use serde_json::Value;

use crate::diag::{Diagnostic, ObjectRef};
use crate::fit::{self, inventory, Subject};
use crate::read::{self, Document};
use crate::rules::doctor::{
    DOCTOR_COORDINATOR, DOCTOR_CRASH_LOOP, DOCTOR_FAILED, DOCTOR_IMAGE_PULL, DOCTOR_NOT_FOUND, DOCTOR_PODS_NOT_CREATED,
    DOCTOR_RUNTIME_MISSING, DOCTOR_SUSPENDED, DOCTOR_UNSCHEDULABLE,
};
use crate::spelling;
use crate::trainer::{TrainJob, TrainingRuntime};
use crate::trainjob::{self, RefError, TrainerVersion};

mod drift;
mod kueue;
mod objects;

/// The label JobSet puts on every pod of a JobSet, its value the JobSet's name, which Trainer makes
/// the TrainJob's (kubernetes-sigs/jobset v0.12.0 api/jobset/v1alpha2/jobset_types.go
/// `JobSetNameKey`).
pub const JOBSET_NAME_LABEL: &str = "jobset.sigs.k8s.io/jobset-name";

pub use objects::NODE_CONTAINER;
use objects::{kind_of, str_at};

/// The kubelet's waiting reasons of a container whose image does not pull (kubernetes v1.33
/// pkg/kubelet/images/types.go `ErrImagePullBackOff`, `ErrImagePull`, `ErrInvalidImageName`).
const IMAGE_PULL_REASONS: [&str; 3] = ["ImagePullBackOff", "ErrImagePull", "InvalidImageName"];

/// The kubelet's waiting reason of a container restarted after a back-off (kubernetes v1.33
/// pkg/kubelet/container/sync_result.go `ErrCrashLoopBackOff`).
const CRASH_LOOP_REASON: &str = "CrashLoopBackOff";

/// What doctor found of one TrainJob.
#[derive(Debug, Default)]
pub struct Diagnosis {
    /// The causes, each placed at the object it is about.
    pub findings: Vec<Diagnostic>,
    /// The TrainJob's state in one line (`running: 2 of 2 pods Running`).
    pub state: String,
}

/// The objects of `docs`, each item of a `List` document as its own document.
pub fn objects(docs: &[Document]) -> Vec<Document> {
    read::unpacked(docs)
}

/// Why the TrainJob `namespace`/`name` among `objects` (see [`objects`]) is not running.
pub fn diagnose(objects: &[Document], namespace: &str, name: &str) -> Diagnosis {
    let trainjobs: Vec<&Document> = objects.iter().filter(|d| kind_of(d) == "TrainJob").collect();
    let Some(doc) =
        trainjobs.iter().find(|d| str_at(&d.value, "/metadata/name") == name && str_at(&d.value, "/metadata/namespace") == namespace)
    else {
        return not_found(&trainjobs, namespace, name);
    };
    let at = |d: Diagnostic| doc.locate(d.with_object(ObjectRef::of(&doc.value)));
    let tj: TrainJob = match serde_json::from_value(doc.value.clone()) {
        Ok(t) => t,
        Err(e) => {
            return Diagnosis {
                state: "unreadable".into(),
                findings: vec![at(Diagnostic::new(&DOCTOR_NOT_FOUND, format!("the TrainJob does not read: {e}")))],
            };
        }
    };
    let runtimes: Vec<TrainingRuntime> = objects
        .iter()
        .filter(|d| matches!(kind_of(d), "ClusterTrainingRuntime" | "TrainingRuntime"))
        .filter_map(|d| serde_json::from_value(d.value.clone()).ok())
        .collect();
    let runtime = match trainjob::find(&tj, &runtimes) {
        Ok(rt) => Some(rt),
        Err(e) => {
            let message = match &e {
                RefError::NotFound(_) => format!("{e}: Trainer creates no JobSet and no pods for it"),
                RefError::Unsupported { .. } => e.to_string(),
            };
            return Diagnosis {
                state: "waiting for its runtime".into(),
                findings: vec![at(Diagnostic::finding(&DOCTOR_RUNTIME_MISSING, "spec.runtimeRef.name", message))],
            };
        }
    };
    let mut findings = Vec::new();
    // Finished: the TrainJob's own condition says how.
    let condition = |kind: &str| {
        tj.status.as_ref().and_then(|s| s.conditions.as_ref()).and_then(|cs| cs.iter().find(|c| c.type_ == kind && c.status == "True"))
    };
    let pods: Vec<&Document> = objects
        .iter()
        .filter(|d| kind_of(d) == "Pod")
        .filter(|d| str_at(&d.value, "/metadata/namespace") == namespace)
        .filter(|d| {
            d.value.pointer(&format!("/metadata/labels/{}", JOBSET_NAME_LABEL.replace('/', "~1"))).and_then(Value::as_str) == Some(name)
        })
        .collect();
    let typed: Vec<(&Document, Pod)> =
        pods.iter().filter_map(|d| serde_json::from_value::<Pod>(d.value.clone()).ok().map(|p| (*d, p))).collect();
    if let Some(c) = condition("Failed") {
        let exits: Vec<String> = typed.iter().filter_map(|(_, p)| last_exit(p).map(|e| format!("pod `{}`: {e}", name_of(p)))).collect();
        let mut message = format!("it failed: {}: {}", c.reason, c.message.trim_end_matches('.'));
        if !exits.is_empty() {
            message.push_str(&format!("; the `{NODE_CONTAINER}` container's last exit: {}", exits.join(", ")));
        }
        findings.push(at(Diagnostic::finding(&DOCTOR_FAILED, "status.conditions", message)));
        return Diagnosis { findings, state: "failed".into() };
    }
    if condition("Complete").is_some() {
        return Diagnosis { findings, state: "complete".into() };
    }
    // What `validate` refuses in the TrainJob and its runtime (a hang in `initialize` from an
    // overwritten JAX variable, a subdomain or a name too long for the pods' DNS names): the same
    // checks, said after what the cluster shows.
    let checked = validated(objects, doc, rt_name(runtime));
    let suspended = tj.spec.suspend == Some(true);
    if let Some(held) = kueue::held(objects, doc, suspended) {
        let mut findings = held.findings;
        findings.extend(checked);
        return Diagnosis { findings, state: held.state };
    }
    if suspended {
        findings.push(at(Diagnostic::finding(
            &DOCTOR_SUSPENDED,
            "spec.suspend",
            "suspended (`spec.suspend: true`) and in no queue: Trainer keeps its JobSet suspended, no pod starts until it is resumed",
        )));
        findings.extend(checked);
        return Diagnosis { findings, state: "suspended".into() };
    }
    // Pods: the scheduler's verdict, then the node container's state.
    let mut unschedulable: Vec<(&Document, String)> = Vec::new();
    for (pod_doc, pod) in &typed {
        let place = |d: Diagnostic| pod_doc.locate(d.with_object(ObjectRef::of(&pod_doc.value)));
        let status = pod.status.as_ref();
        if let Some(c) = status.and_then(|s| s.conditions.as_ref()).and_then(|cs| {
            cs.iter().find(|c| c.type_ == "PodScheduled" && c.status == "False" && c.reason.as_deref() == Some("Unschedulable"))
        }) {
            unschedulable.push((pod_doc, c.message.clone().unwrap_or_default()));
            continue;
        }
        let Some(cs) = status.and_then(|s| s.container_statuses.as_ref()).and_then(|cs| cs.iter().find(|c| c.name == NODE_CONTAINER))
        else {
            continue;
        };
        let Some(waiting) = cs.state.as_ref().and_then(|s| s.waiting.as_ref()) else { continue };
        let reason = waiting.reason.as_deref().unwrap_or_default();
        let said = waiting.message.as_deref().map(|m| format!(": {}", m.trim_end_matches('.'))).unwrap_or_default();
        if IMAGE_PULL_REASONS.contains(&reason) {
            findings.push(place(Diagnostic::finding(
                &DOCTOR_IMAGE_PULL,
                "status.containerStatuses",
                format!("the `{NODE_CONTAINER}` container cannot start: image `{}` does not pull ({reason}{said})", cs.image),
            )));
        } else if reason == CRASH_LOOP_REASON {
            let last = last_exit(pod).map(|e| format!("; last exit: {e}")).unwrap_or_default();
            findings.push(place(Diagnostic::finding(
                &DOCTOR_CRASH_LOOP,
                "status.containerStatuses",
                format!(
                    "the `{NODE_CONTAINER}` container keeps exiting: restarted {} times, now waiting ({reason}){last}",
                    cs.restart_count
                ),
            )));
        }
    }
    if let Some((first, message)) = unschedulable.first() {
        let others = match unschedulable.len() {
            1 => String::new(),
            n => format!(" (and {} more of its pods)", n - 1),
        };
        let mut d = Diagnostic::finding(
            &DOCTOR_UNSCHEDULABLE,
            "status.conditions",
            format!("Pending{others}: the scheduler says \"{}\"", message.trim_end_matches('.')),
        );
        let up = typed.iter().filter(|(_, p)| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")).count();
        if up > 0 {
            d.message.push_str(&format!(
                "; the {} that run wait in `jax.distributed.initialize()` until all {} processes start",
                crate::words::count_of(up, "process", "processes"),
                typed.len()
            ));
        }
        if let Some(rt) = runtime {
            if let Some((why, help)) = refit(objects, &tj, rt) {
                d.message.push_str(&format!("; fit's model on the same nodes: {why}"));
                if let Some(h) = help {
                    d = d.with_help(h);
                }
            }
        }
        findings.insert(0, first.locate(d.with_object(ObjectRef::of(&first.value))));
    }
    if let Some(d) = runtime.and_then(|rt| drift::changed(objects, &tj, rt)) {
        findings.push(d);
    }
    if typed.is_empty() {
        findings.push(at(not_created(objects, namespace, name)));
    } else if let Some(d) = coordinator(&typed) {
        findings.push(d);
    }
    findings.extend(checked);
    let running = typed.iter().filter(|(_, p)| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")).count();
    let state = if findings.is_empty() && !typed.is_empty() && running == typed.len() {
        format!("running: {running} of {} pods Running", typed.len())
    } else if !typed.is_empty() && running == typed.len() {
        format!("{running} of {} pods Running, held back by the causes above", typed.len())
    } else if typed.is_empty() {
        "no pods yet".to_string()
    } else {
        format!("not running: {running} of {} pods Running", typed.len())
    };
    Diagnosis { findings, state }
}

/// fit's verdict on the TrainJob's gang on the nodes and pods of `objects`: its first blocker and
/// fix when it does not fit now; `None` without nodes, or when fit places it.
fn refit(objects: &[Document], tj: &TrainJob, rt: &TrainingRuntime) -> Option<(String, Option<String>)> {
    let nodes: Vec<Document> = objects.iter().filter(|d| matches!(kind_of(d), "Node" | "ComputeClass")).cloned().collect();
    if nodes.iter().all(|d| kind_of(d) != "Node") {
        return None;
    }
    let pods: Vec<Document> = objects.iter().filter(|d| kind_of(d) == "Pod").cloned().collect();
    let (cluster, _) = inventory::from_documents(&nodes, Some(&pods)).ok()?;
    let subject = Subject::TrainJob { trainjob: tj, runtime: rt, version: TrainerVersion::for_runtime(rt, None) };
    let verdict = fit::fit_all(&cluster, &[subject]).into_iter().next()?;
    let outcome = verdict.outcome;
    if outcome.fits || outcome.invalid {
        return None;
    }
    Some((outcome.reason, outcome.help))
}

fn name_of(p: &Pod) -> &str {
    p.metadata.name.as_deref().unwrap_or_default()
}

/// The `node` container's last exit (current or last terminated state): reason and exit code.
fn last_exit(p: &Pod) -> Option<String> {
    let cs = p.status.as_ref()?.container_statuses.as_ref()?.iter().find(|c| c.name == NODE_CONTAINER)?;
    let t = cs.state.as_ref().and_then(|s| s.terminated.as_ref()).or_else(|| cs.last_state.as_ref().and_then(|s| s.terminated.as_ref()))?;
    Some(format!("{} (exit code {})", t.reason.as_deref().unwrap_or("terminated"), t.exit_code))
}

/// `doctor/not-found`: the TrainJobs the input has, the nearest spelling first.
fn not_found(trainjobs: &[&Document], namespace: &str, name: &str) -> Diagnosis {
    let mut have: Vec<String> =
        trainjobs.iter().map(|d| format!("{}/{}", str_at(&d.value, "/metadata/namespace"), str_at(&d.value, "/metadata/name"))).collect();
    have.sort();
    have.dedup();
    let wanted = format!("{namespace}/{name}");
    let mut message = format!("no TrainJob `{wanted}`");
    if have.is_empty() {
        message.push_str(": the input holds no TrainJob");
    } else {
        let shown: Vec<String> = have.iter().take(10).map(|h| format!("`{h}`")).collect();
        let more = if have.len() > 10 { format!(" and {} more", have.len() - 10) } else { String::new() };
        message.push_str(&format!("; it has {}{more}", shown.join(", ")));
    }
    let mut d = Diagnostic::new(&DOCTOR_NOT_FOUND, message);
    if let Some(near) = spelling::nearest(&wanted, have.iter().map(String::as_str), 3.max(wanted.len() / 3)) {
        d = d.with_help(format!("did you mean `{near}`?"));
    }
    Diagnosis { findings: vec![d], state: "not found".into() }
}

/// The runtime's kind, namespace and name, to find its document.
fn rt_name(rt: Option<&TrainingRuntime>) -> Option<(String, Option<String>, String)> {
    let rt = rt?;
    Some((rt.kind.clone(), rt.metadata.namespace.clone(), rt.metadata.name.clone().unwrap_or_default()))
}

/// `validate`'s errors on the TrainJob `doc` and its runtime (the document of `runtime` among
/// `objects`), each placed in its document.
fn validated(objects: &[Document], doc: &Document, runtime: Option<(String, Option<String>, String)>) -> Vec<Diagnostic> {
    let mut docs = Vec::new();
    if let Some((kind, namespace, name)) = runtime {
        let rt = objects.iter().find(|d| {
            kind_of(d) == kind
                && str_at(&d.value, "/metadata/name") == name
                && (kind != "TrainingRuntime" || Some(str_at(&d.value, "/metadata/namespace")) == namespace.as_deref())
        });
        docs.extend(rt.cloned());
    }
    docs.push(doc.clone());
    crate::validate::objects(&docs, &crate::validate::Options::default()).into_iter().filter(Diagnostic::is_error).collect()
}

/// `doctor/pods-not-created`: a TrainJob that is not suspended and has no pods, with the newest
/// warning events of the TrainJob, its JobSet (Trainer names it after the TrainJob) and its Jobs
/// (JobSet names them `<jobset>-<replicatedJob>-<index>`, kubernetes-sigs/jobset v0.12.0
/// pkg/controllers/jobset_controller.go `placeholderJobName`).
fn not_created(objects: &[Document], namespace: &str, name: &str) -> Diagnostic {
    let ours = |e: &Value| {
        let kind = str_at(e, "/involvedObject/kind");
        let object = str_at(e, "/involvedObject/name");
        str_at(e, "/involvedObject/namespace") == namespace
            && match kind {
                "TrainJob" | "JobSet" => object == name,
                "Job" => object.strip_prefix(name).is_some_and(|rest| rest.starts_with('-')),
                _ => false,
            }
    };
    let mut warnings: Vec<&Value> =
        objects.iter().filter(|d| kind_of(d) == "Event").map(|d| &d.value).filter(|e| str_at(e, "/type") == "Warning" && ours(e)).collect();
    let when = |e: &Value| {
        [str_at(e, "/lastTimestamp"), str_at(e, "/eventTime"), str_at(e, "/firstTimestamp")]
            .into_iter()
            .find(|t| !t.is_empty())
            .unwrap_or_default()
            .to_string()
    };
    warnings.sort_by_key(|e| std::cmp::Reverse(when(e)));
    let mut said: Vec<String> = Vec::new();
    for e in &warnings {
        let line = format!(
            "{} `{}`: {}: {}",
            str_at(e, "/involvedObject/kind"),
            str_at(e, "/involvedObject/name"),
            str_at(e, "/reason"),
            str_at(e, "/message").trim_end_matches('.')
        );
        if !said.contains(&line) {
            said.push(line);
        }
    }
    let jobset = objects.iter().any(|d| {
        kind_of(d) == "JobSet" && str_at(&d.value, "/metadata/name") == name && str_at(&d.value, "/metadata/namespace") == namespace
    });
    let jobs_read = objects.iter().any(|d| matches!(kind_of(d), "JobSet" | "Job" | "Event"));
    let message = match (said.is_empty(), jobset) {
        (false, _) => {
            let more = if said.len() > 3 { format!(" (and {} more)", said.len() - 3) } else { String::new() };
            format!("no pods: {}{more}", said.iter().take(3).cloned().collect::<Vec<_>>().join("; "))
        }
        (true, true) => "no pods: its JobSet exists, but no pod and no warning event of it or its Jobs".to_string(),
        (true, false) if jobs_read => "no pods and no JobSet: Trainer made none, and no warning event says why".to_string(),
        (true, false) => "no pods, and the input has no JobSets, Jobs or Events to say why".to_string(),
    };
    Diagnostic::finding(&DOCTOR_PODS_NOT_CREATED, "metadata.name", message)
}

/// `doctor/coordinator`: the pods' `JAX_COORDINATOR_ADDRESS` against process 0's pod (completion
/// index 0 of the first Job): its hostname and subdomain are its DNS name.
fn coordinator(pods: &[(&Document, Pod)]) -> Option<Diagnostic> {
    let jax = &crate::trainer::facts().jax;
    let address_of = |p: &Pod| {
        p.spec
            .as_ref()?
            .containers
            .iter()
            .find(|c| c.name == NODE_CONTAINER)?
            .env
            .as_ref()?
            .iter()
            .find(|e| e.name == jax.coordinator_address)?
            .value
            .clone()
    };
    let index = |p: &Pod, key: &str| {
        p.metadata.annotations.as_ref().and_then(|a| a.get(key)).or_else(|| p.metadata.labels.as_ref().and_then(|l| l.get(key))).cloned()
    };
    // Process 0: completion index 0 of the first Job of the `node` replicated job.
    let (doc, first) = pods.iter().find(|(_, p)| {
        index(p, crate::keys::JOB_COMPLETION_INDEX).as_deref() == Some("0")
            && index(p, "jobset.sigs.k8s.io/job-index").is_none_or(|i| i == "0")
            && index(p, "jobset.sigs.k8s.io/replicatedjob-name").is_none_or(|r| r == NODE_CONTAINER)
    })?;
    let address = address_of(first)?;
    let spec = first.spec.as_ref()?;
    let host = spec.hostname.as_deref().unwrap_or_default();
    let subdomain = spec.subdomain.as_deref().unwrap_or_default();
    let (target, port) = address.rsplit_once(':').unwrap_or((address.as_str(), ""));
    let mut labels = target.split('.');
    let (want_host, want_sub) = (labels.next().unwrap_or_default(), labels.next().unwrap_or_default());
    let other = pods.iter().find_map(|(_, p)| address_of(p).filter(|a| *a != address).map(|a| (name_of(p).to_string(), a)));
    let problem = if let Some((pod, theirs)) = other {
        format!(
            "the pods disagree on `JAX_COORDINATOR_ADDRESS`: process 0's pod `{}` has `{address}`, pod `{pod}` has `{theirs}`",
            name_of(first)
        )
    } else if port.parse::<u16>().map_or(true, |p| p == 0) {
        format!("the pods' `JAX_COORDINATOR_ADDRESS` `{address}` has no port from 1 to 65535 (`HOST:PORT`)")
    } else if subdomain.is_empty() {
        format!(
            "the pods have no subdomain (JobSet's `network.enableDNSHostnames` is off, or the runtime clears it): process 0's pod `{}` has no DNS name, and `JAX_COORDINATOR_ADDRESS` `{address}` does not resolve",
            name_of(first)
        )
    } else if want_host != host || want_sub != subdomain {
        format!(
            "the pods' `JAX_COORDINATOR_ADDRESS` is `{address}`, but process 0's pod `{}` answers at `{host}.{subdomain}`",
            name_of(first)
        )
    } else {
        return None;
    };
    Some(
        doc.locate(
            Diagnostic::finding(
                &DOCTOR_COORDINATOR,
                "spec.containers",
                format!("{problem}: `jax.distributed.initialize()` waits for a coordinator it never reaches"),
            )
            .with_object(ObjectRef::of(&doc.value)),
        ),
    )
}
