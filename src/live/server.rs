//! The cluster as a judge (`validate --server`): each object sent as a server-side dry run with
//! strict field validation, what `kubectl create --dry-run=server --validate=strict` asks
//! (POST to the object's collection with `dryRun=All&fieldValidation=Strict`; the collection from
//! discovery, the namespace the object's or the context's). The cluster's own admission runs on
//! it: its CRDs' schemas and CEL rules, and the webhooks of Trainer, JobSet and Kueue where they
//! are installed. Nothing is stored.

use std::collections::HashMap;

use serde_json::Value;

use super::{client, get, no_cluster, Failure, Target};
use crate::diag::Diagnostic;

/// An apiVersion's base path and its resources by kind: (plural name, namespaced).
type Collections = (String, HashMap<String, (String, bool)>);

/// The server's answer on one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// It would be created.
    Accepted,
    /// It would not: the API server's message.
    Refused(String),
    /// The cluster does not serve its kind at its apiVersion (no CRD, another version).
    NotServed(String),
}

/// The answers on `objects`, in order, and where they come from (`context NAME (URL)`).
/// `Err`: no cluster to ask (`live/no-cluster`).
pub fn dry_run(target: &Target, objects: &[&Value]) -> Result<(String, Vec<Answer>), Box<Diagnostic>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| no_cluster(format!("cannot start the client's runtime: {e}")))?;
    runtime.block_on(async {
        let (client, origin) = client(target).await?;
        let unreachable = |e: String| no_cluster(format!("{origin}: the API server does not answer: {e}"));
        // apiVersion -> its base path and its resources by kind (name, namespaced), or why not.
        let mut discovered: HashMap<String, Result<Collections, String>> = HashMap::new();
        let mut answers = Vec::with_capacity(objects.len());
        for o in objects {
            let api = o.get("apiVersion").and_then(Value::as_str).unwrap_or_default().to_string();
            let kind = o.get("kind").and_then(Value::as_str).unwrap_or_default().to_string();
            if !discovered.contains_key(&api) {
                let base = if api.contains('/') { format!("/apis/{api}") } else { format!("/api/{api}") };
                let found = match get(&client, &base).await {
                    Ok(list) => {
                        let kinds = list
                            .get("resources")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter_map(|r| {
                                let name = r.get("name")?.as_str()?;
                                (!name.contains('/')).then(|| {
                                    let namespaced = r.get("namespaced").and_then(Value::as_bool).unwrap_or(false);
                                    (r.get("kind").and_then(Value::as_str).unwrap_or_default().to_string(), (name.to_string(), namespaced))
                                })
                            })
                            .collect();
                        Ok((base, kinds))
                    }
                    Err(Failure::Status { code: 404, .. }) => Err(format!("the cluster serves no `{api}`")),
                    Err(Failure::Status { code: 403, message }) => Err(format!("the cluster refused discovery of `{api}`: {message}")),
                    Err(Failure::Status { code, message }) => return Err(unreachable(format!("HTTP {code}: {message}"))),
                    Err(Failure::Transport(e)) => return Err(unreachable(e)),
                };
                discovered.insert(api.clone(), found);
            }
            let (base, kinds) = match discovered.get(&api) {
                Some(Ok(found)) => found,
                Some(Err(why)) => {
                    answers.push(Answer::NotServed(why.clone()));
                    continue;
                }
                None => continue,
            };
            let Some((resource, namespaced)) = kinds.get(&kind) else {
                answers.push(Answer::NotServed(format!("the cluster serves no kind `{kind}` in `{api}`")));
                continue;
            };
            let mut path = base.clone();
            if *namespaced {
                let ns = o
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .filter(|n| !n.is_empty())
                    .unwrap_or(client.default_namespace());
                path.push_str("/namespaces/");
                path.push_str(&super::encode(ns));
            }
            path.push('/');
            path.push_str(resource);
            path.push_str("?dryRun=All&fieldValidation=Strict");
            let body = serde_json::to_vec(o).unwrap_or_default();
            let request = http::Request::post(&path).header("Content-Type", "application/json").body(body);
            let request = match request {
                Ok(r) => r,
                Err(e) => {
                    answers.push(Answer::Refused(e.to_string()));
                    continue;
                }
            };
            answers.push(match client.request_text(request).await {
                Ok(_) => Answer::Accepted,
                Err(kube::Error::Api(status)) => Answer::Refused(status.message.clone()),
                Err(e) => return Err(unreachable(super::chain(&e))),
            });
        }
        Ok((origin, answers))
    })
}
