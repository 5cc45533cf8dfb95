//! `doctor/runtime-changed`: the runtime was edited after the TrainJob started. Trainer builds the
//! JobSet once: it does not update the JobSet of a TrainJob that has started (kubeflow/trainer
//! v2.3.0 pkg/runtime/framework/plugins/jobset/jobset.go `Build`: "Do not update the JobSet if it
//! already exists and is not suspended"), so a fix made to the runtime since does not reach its
//! pods. What Trainer would build now is preview's JobSet ([`crate::trainjob::jobset::for_trainjob`]),
//! compared with the JobSet in the cluster where a runtime edit shows: each replicated job's pod
//! count, the node selector and tolerations (the runtime's must be there; Kueue may add its
//! flavor's), and the `node` container's image and resources.

use serde_json::Value;

use super::objects::{kind_of, str_at, NODE_CONTAINER};
use crate::diag::{Diagnostic, ObjectRef};
use crate::k8s::quantity;
use crate::read::Document;
use crate::rules::doctor::DOCTOR_RUNTIME_CHANGED;
use crate::trainer::{TrainJob, TrainingRuntime};
use crate::trainjob::{self, Steps, TrainerVersion};

/// The finding, at the JobSet, when the started JobSet differs from what the runtime gives now.
pub fn changed(objects: &[Document], tj: &TrainJob, rt: &TrainingRuntime) -> Option<Diagnostic> {
    let name = tj.metadata.name.as_deref().unwrap_or_default();
    let namespace = tj.metadata.namespace.as_deref().unwrap_or_default();
    let js = objects.iter().find(|d| {
        kind_of(d) == "JobSet" && str_at(&d.value, "/metadata/name") == name && str_at(&d.value, "/metadata/namespace") == namespace
    })?;
    // A suspended JobSet is rebuilt from the runtime when it resumes.
    if js.value.pointer("/spec/suspend").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    let eff = trainjob::build(rt, tj, TrainerVersion::for_runtime(rt, None), Steps::All);
    let predicted = serde_json::to_value(trainjob::jobset::for_trainjob(&eff, tj)).ok()?;
    let jobs = |v: &Value| v.pointer("/spec/replicatedJobs").and_then(Value::as_array).cloned().unwrap_or_default();
    let actual = jobs(&js.value);
    let mut diffs: Vec<String> = Vec::new();
    for want in jobs(&predicted) {
        let job = str_at(&want, "/name").to_string();
        let Some(have) = actual.iter().find(|a| str_at(a, "/name") == job) else {
            diffs.push(format!("replicated job `{job}` is not in the JobSet"));
            continue;
        };
        let parallelism = "/template/spec/parallelism";
        if let (Some(w), h) = (want.pointer(parallelism).and_then(Value::as_i64), have.pointer(parallelism).and_then(Value::as_i64)) {
            if h != Some(w) {
                diffs.push(format!("`{job}` runs {} pods, the runtime now {w}", h.map_or("?".to_string(), |h| h.to_string())));
            }
        }
        let pod = "/template/spec/template/spec";
        let (wp, hp) = (want.pointer(pod).cloned().unwrap_or_default(), have.pointer(pod).cloned().unwrap_or_default());
        for (k, v) in wp.get("nodeSelector").and_then(Value::as_object).into_iter().flatten() {
            let h = hp.pointer(&format!("/nodeSelector/{}", k.replace('~', "~0").replace('/', "~1")));
            if h != Some(v) {
                let was = h.and_then(Value::as_str).map_or("not there".to_string(), |h| format!("`{h}`"));
                diffs.push(format!("`{job}` node selector `{k}: {}` (the JobSet's: {was})", v.as_str().unwrap_or_default()));
            }
        }
        let tolerations = hp.get("tolerations").and_then(Value::as_array).cloned().unwrap_or_default();
        for t in wp.get("tolerations").and_then(Value::as_array).into_iter().flatten() {
            if !tolerations.contains(t) {
                diffs.push(format!("`{job}` toleration {t} (not in the JobSet)"));
            }
        }
        let node = |p: &Value| {
            p.get("containers").and_then(Value::as_array).and_then(|cs| cs.iter().find(|c| str_at(c, "/name") == NODE_CONTAINER)).cloned()
        };
        let (Some(wc), Some(hc)) = (node(&wp), node(&hp)) else { continue };
        if str_at(&wc, "/image") != str_at(&hc, "/image") {
            diffs.push(format!("`{job}` image `{}` (the JobSet's: `{}`)", str_at(&wc, "/image"), str_at(&hc, "/image")));
        }
        for side in ["requests", "limits"] {
            let amounts = |c: &Value| c.pointer(&format!("/resources/{side}")).and_then(Value::as_object).cloned().unwrap_or_default();
            let (wr, hr) = (amounts(&wc), amounts(&hc));
            let mut keys: Vec<&String> = wr.keys().chain(hr.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let q =
                    |m: &serde_json::Map<String, Value>| m.get(k).and_then(Value::as_str).map(|s| (s.to_string(), quantity::parse(s).ok()));
                let (w, h) = (q(&wr), q(&hr));
                let same = match (&w, &h) {
                    (Some((_, Some(a))), Some((_, Some(b)))) => a == b,
                    (None, None) => true,
                    (a, b) => a.as_ref().map(|x| &x.0) == b.as_ref().map(|x| &x.0),
                };
                if !same {
                    let show = |x: &Option<(String, Option<quantity::Quantity>)>| x.as_ref().map_or("none".to_string(), |(s, _)| s.clone());
                    diffs.push(format!("`{job}` {side} {k}: {} (the JobSet's: {})", show(&w), show(&h)));
                }
            }
        }
    }
    if diffs.is_empty() {
        return None;
    }
    let shown: Vec<String> = diffs.iter().take(4).cloned().collect();
    let more = if diffs.len() > 4 { format!(" and {} more", diffs.len() - 4) } else { String::new() };
    let rt_name = rt.metadata.name.as_deref().unwrap_or_default();
    let d = Diagnostic::finding(
        &DOCTOR_RUNTIME_CHANGED,
        "spec.replicatedJobs",
        format!(
            "{} `{rt_name}` changed since the TrainJob started, and its JobSet keeps what the runtime said then: the runtime now gives {}{more}",
            rt.kind,
            shown.join("; ")
        ),
    );
    Some(js.locate(d.with_object(ObjectRef::of(&js.value))))
}
