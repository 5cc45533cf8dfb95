//! Kueue's part of `doctor`: a TrainJob labelled `kueue.x-k8s.io/queue-name` is started by Kueue
//! only once its Workload is admitted (kubernetes-sigs/kueue v0.19.2
//! pkg/controller/jobs/trainjob/trainjob_controller.go: the TrainJob is suspended until then).
//! This follows it as Kueue does: the LocalQueue of its namespace the label names, that queue's
//! ClusterQueue (`spec.clusterQueue`), each queue's `Active` condition, and the Workload Kueue
//! owns by the TrainJob (`metadata.ownerReferences`, or the label `kueue.x-k8s.io/job-uid`) with
//! its `QuotaReserved` and `Admitted` conditions and admission checks
//! (apis/kueue/v1beta2/workload_types.go, localqueue_types.go, clusterqueue_types.go).

use serde_json::Value;

use super::objects::{kind_of, str_at};
use crate::diag::{Diagnostic, ObjectRef};
use crate::read::Document;
use crate::rules::doctor::{
    DOCTOR_CLUSTERQUEUE_MISSING, DOCTOR_LOCALQUEUE_MISSING, DOCTOR_NOT_ADMITTED, DOCTOR_NO_WORKLOAD, DOCTOR_QUEUE_INACTIVE,
};
use crate::spelling;

/// The label that puts a job in a LocalQueue (kueue v0.19.2 pkg/controller/constants/constants.go
/// `QueueLabel`).
pub const QUEUE_LABEL: &str = "kueue.x-k8s.io/queue-name";

/// The label Kueue puts on a job's Workload, its value the job's uid (constants.go `JobUIDLabel`).
const JOB_UID_LABEL: &str = "kueue.x-k8s.io/job-uid";

/// What Kueue's objects say of one TrainJob.
pub struct Held {
    /// Why Kueue does not start it (empty: Kueue does not hold it back).
    pub findings: Vec<Diagnostic>,
    /// The state in one line.
    pub state: String,
}

/// Why Kueue holds back the TrainJob `tj` (its document `doc`) among `objects`; `None` when the
/// TrainJob has no queue label or its Workload is admitted.
pub fn held(objects: &[Document], doc: &Document, suspended: bool) -> Option<Held> {
    let tj = &doc.value;
    let namespace = str_at(tj, "/metadata/namespace");
    let name = str_at(tj, "/metadata/name");
    let queue = tj.pointer(&format!("/metadata/labels/{}", QUEUE_LABEL.replace('/', "~1"))).and_then(Value::as_str)?;
    let uid = str_at(tj, "/metadata/uid");
    let workload = objects.iter().find(|d| {
        kind_of(d) == "Workload"
            && str_at(&d.value, "/metadata/namespace") == namespace
            && (owned_by(&d.value, name, uid)
                || (!uid.is_empty()
                    && d.value.pointer(&format!("/metadata/labels/{}", JOB_UID_LABEL.replace('/', "~1"))).and_then(Value::as_str)
                        == Some(uid)))
    });
    if workload.is_some_and(|w| condition(&w.value, "Admitted").is_some_and(|c| str_at(c, "/status") == "True")) {
        return None;
    }
    let at_trainjob = |d: Diagnostic| doc.locate(d.with_object(ObjectRef::of(tj)));
    let held = |d: Diagnostic, state: &str| Some(Held { findings: vec![d], state: state.to_string() });
    // What Kueue itself says of the Workload, quoted where doctor finds the cause in the queues.
    let kueue_says = workload
        .and_then(|w| condition(&w.value, "QuotaReserved"))
        .filter(|c| str_at(c, "/status") == "False")
        .map(|c| format!("; Kueue says \"{}\"", str_at(c, "/message").trim_end_matches('.')))
        .unwrap_or_default();
    let local_queues: Vec<&Document> =
        objects.iter().filter(|d| kind_of(d) == "LocalQueue" && str_at(&d.value, "/metadata/namespace") == namespace).collect();
    let Some(lq) = local_queues.iter().find(|d| str_at(&d.value, "/metadata/name") == queue) else {
        let names: Vec<&str> = local_queues.iter().map(|d| str_at(&d.value, "/metadata/name")).collect();
        let has = if names.is_empty() {
            format!("`{namespace}` has no LocalQueue")
        } else {
            format!("`{namespace}` has {}", names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
        };
        let mut d = Diagnostic::finding(
            &DOCTOR_LOCALQUEUE_MISSING,
            format!("metadata.labels.{QUEUE_LABEL}"),
            format!("suspended by Kueue: the label `{QUEUE_LABEL}: {queue}` names no LocalQueue of its namespace ({has}){kueue_says}"),
        );
        if let Some(near) = spelling::nearest(queue, names.iter().copied(), 3.max(queue.len() / 3)) {
            d = d.with_help(format!("did you mean `{near}`? Point the label at it, or create the LocalQueue `{queue}`"));
        }
        return held(at_trainjob(d), "suspended by Kueue: no such LocalQueue");
    };
    let cq_name = str_at(&lq.value, "/spec/clusterQueue");
    let Some(cq) = objects.iter().find(|d| kind_of(d) == "ClusterQueue" && str_at(&d.value, "/metadata/name") == cq_name) else {
        let d = Diagnostic::finding(
            &DOCTOR_CLUSTERQUEUE_MISSING,
            "spec.clusterQueue",
            format!("the TrainJob `{namespace}/{name}` waits in LocalQueue `{queue}`, which points at ClusterQueue `{cq_name}`: the cluster has no such ClusterQueue{kueue_says}"),
        );
        return held(lq.locate(d.with_object(ObjectRef::of(&lq.value))), "suspended by Kueue: no such ClusterQueue");
    };
    // The ClusterQueue first: an inactive one makes its LocalQueues inactive too, with less to say.
    for (q, what) in [(cq, format!("ClusterQueue `{cq_name}`")), (*lq, format!("LocalQueue `{queue}`"))] {
        if let Some(c) = condition(&q.value, "Active").filter(|c| str_at(c, "/status") == "False") {
            let d = Diagnostic::finding(
                &DOCTOR_QUEUE_INACTIVE,
                "status.conditions",
                format!(
                    "the TrainJob `{namespace}/{name}` waits in {what}, which is inactive ({}): \"{}\"",
                    str_at(c, "/reason"),
                    str_at(c, "/message").trim_end_matches('.')
                ),
            );
            return held(q.locate(d.with_object(ObjectRef::of(&q.value))), "suspended by Kueue: its queue is inactive");
        }
    }
    let Some(w) = workload else {
        if !suspended {
            return None;
        }
        let d = Diagnostic::finding(
            &DOCTOR_NO_WORKLOAD,
            "spec.suspend",
            format!(
                "suspended, labelled for LocalQueue `{queue}` (ClusterQueue `{cq_name}`), but Kueue made no Workload for it: Kueue does not manage TrainJobs in this cluster"
            ),
        );
        return held(at_trainjob(d), "suspended: no Workload");
    };
    let placed = |d: Diagnostic| w.locate(d.with_object(ObjectRef::of(&w.value)));
    let reserved = condition(&w.value, "QuotaReserved");
    if reserved.is_none_or(|c| str_at(c, "/status") != "True") {
        let said = reserved.map_or_else(
            || "Kueue has not looked at it yet (no `QuotaReserved` condition)".to_string(),
            |c| format!("Kueue says ({}): \"{}\"", str_at(c, "/reason"), str_at(c, "/message").trim_end_matches('.')),
        );
        let d = Diagnostic::finding(
            &DOCTOR_NOT_ADMITTED,
            "status.conditions",
            format!("suspended by Kueue: the Workload of TrainJob `{namespace}/{name}` waits for quota in ClusterQueue `{cq_name}` (LocalQueue `{queue}`): {said}"),
        );
        return held(placed(d), "suspended by Kueue: waiting for quota");
    }
    let checks: Vec<String> = w
        .value
        .pointer("/status/admissionChecks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|c| str_at(c, "/state") != "Ready")
        .map(|c| {
            let message = str_at(c, "/message");
            let said = if message.is_empty() { String::new() } else { format!(": \"{}\"", message.trim_end_matches('.')) };
            format!("`{}` is {}{said}", str_at(c, "/name"), str_at(c, "/state"))
        })
        .collect();
    let waits =
        if checks.is_empty() { "Kueue has not admitted it yet".to_string() } else { format!("admission check {}", checks.join(", ")) };
    let d = Diagnostic::finding(
        &DOCTOR_NOT_ADMITTED,
        "status.admissionChecks",
        format!("suspended by Kueue: the Workload of TrainJob `{namespace}/{name}` has quota in ClusterQueue `{cq_name}` but is not admitted: {waits}"),
    );
    held(placed(d), "suspended by Kueue: waiting for an admission check")
}

/// The condition of `type_` in `status.conditions`.
fn condition<'a>(v: &'a Value, type_: &str) -> Option<&'a Value> {
    v.pointer("/status/conditions")?.as_array()?.iter().find(|c| str_at(c, "/type") == type_)
}

/// Whether `w` is owned by the TrainJob `name` (and `uid`, where both carry one).
fn owned_by(w: &Value, name: &str, uid: &str) -> bool {
    w.pointer("/metadata/ownerReferences").and_then(Value::as_array).into_iter().flatten().any(|o| {
        str_at(o, "/kind") == "TrainJob"
            && str_at(o, "/name") == name
            && (uid.is_empty() || str_at(o, "/uid").is_empty() || str_at(o, "/uid") == uid)
    })
}
