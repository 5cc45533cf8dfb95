//! Live mode, the read stage from a cluster: the objects of the current kubeconfig context (or
//! `--context`, `--kubeconfig`), listed as kubectl lists them (pages of `limit` objects followed by
//! `continue`, the group's preferred version from discovery; `catalog/live.yaml`), through kube-rs
//! (TLS, tokens, exec plugins and kubeconfig merging are its). What comes back is what
//! `kubectl get -o json` would print: each item with its `apiVersion` and `kind`, as one `List`
//! ([`Read::list`]) that `fit --nodes`/`--pods` read as they read a file, so that live mode and a
//! snapshot of the same cluster give the same answer through one reader.
//!
//! A refusal is a finding, not a crash: RBAC's 403 names the verb and the resource
//! (`live/forbidden` where the command cannot answer without it, `live/left-out` where it can);
//! a kubeconfig that does not load and a server that does not answer are `live/no-cluster`.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::diag::Diagnostic;
use crate::rules::live::{LIVE_FORBIDDEN, LIVE_LEFT_OUT, LIVE_NO_CLUSTER};

pub mod server;
mod tls;

const LIVE_YAML: &str = include_str!("../../catalog/live.yaml");

/// What live mode reads (`catalog/live.yaml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Table {
    pub chunk_size: u32,
    pub resources: Vec<Resource>,
}

/// One collection live mode lists.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Resource {
    /// The API group; empty for the core group.
    pub group: String,
    /// The plural, lower-case resource name (`nodes`).
    pub resource: String,
    pub kind: String,
    pub namespaced: bool,
    /// The command cannot answer without it.
    pub needed: bool,
    /// The commands that read it.
    #[serde(rename = "for")]
    pub commands: Vec<String>,
}

impl Resource {
    /// `nodes`, `clusterqueues.kueue.x-k8s.io`: as kubectl and RBAC name it.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }
}

/// The table, parsed once. It is embedded: a unit test proves it parses.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| serde_saphyr::from_str(LIVE_YAML).unwrap_or(Table { chunk_size: 500, resources: Vec::new() }))
}

/// Which cluster, as kubectl's flags name it.
#[derive(Debug, Clone, Default)]
pub struct Target {
    /// `--kubeconfig`; else `$KUBECONFIG`, else `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// `--context`; else the kubeconfig's current context.
    pub context: Option<String>,
    /// Objects per list call (`--chunk-size`); else the table's (kubectl's 500).
    pub chunk_size: Option<u32>,
}

/// What was read from the cluster.
#[derive(Debug, Clone, Default)]
pub struct Read {
    /// `context NAME (https://server)`: where findings and notes say the objects come from.
    pub origin: String,
    /// Every object read, in the table's order, each with its `apiVersion` and `kind`.
    pub items: Vec<Value>,
    /// How many objects of each kind (in the table's order), for the note on stderr.
    pub counts: Vec<(String, usize)>,
    /// Refusals: `live/forbidden` (errors) and `live/left-out` (warnings).
    pub findings: Vec<Diagnostic>,
    /// List calls made.
    pub calls: usize,
}

impl Read {
    /// The objects as one `List`, what `kubectl get KINDS -A -o json` prints.
    pub fn list(&self) -> Value {
        json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": self.items})
    }

    /// The objects of `kinds` as one `List`.
    pub fn list_of(&self, kinds: &[&str]) -> Value {
        let items: Vec<&Value> =
            self.items.iter().filter(|i| i.get("kind").and_then(Value::as_str).is_some_and(|k| kinds.contains(&k))).collect();
        json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items})
    }
}

/// Reads what `command` needs (the table's resources `for` it) from the cluster of `target`.
/// `Err`: no cluster to read (the kubeconfig does not load, or the server does not answer), as
/// one `live/no-cluster` finding.
pub fn read(target: &Target, command: &str) -> Result<Read, Box<Diagnostic>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| no_cluster(format!("cannot start the client's runtime: {e}")))?;
    runtime.block_on(read_async(target, command))
}

fn no_cluster(message: String) -> Box<Diagnostic> {
    Box::new(Diagnostic::finding(&LIVE_NO_CLUSTER, "", message))
}

async fn client(target: &Target) -> Result<(kube::Client, String), Box<Diagnostic>> {
    use kube::config::{KubeConfigOptions, Kubeconfig};
    let options = KubeConfigOptions { context: target.context.clone(), ..KubeConfigOptions::default() };
    // A context the kubeconfig lacks, said with the ones it has (kube-rs says only the name).
    if let (Some(want), Some(file)) = (&target.context, kubeconfig_file(target)) {
        if !file.contexts.iter().any(|c| &c.name == want) {
            let have: Vec<&str> = file.contexts.iter().map(|c| c.name.as_str()).collect();
            let which = target.kubeconfig.as_ref().map_or_else(|| "the kubeconfig".to_string(), |p| format!("kubeconfig {}", p.display()));
            return Err(no_cluster(format!(
                "{which} has no context `{want}`; it has: {}",
                if have.is_empty() { "none".to_string() } else { have.join(", ") }
            )));
        }
    }
    let config = match &target.kubeconfig {
        Some(path) => {
            if let Err(e) = std::fs::metadata(path) {
                return Err(no_cluster(format!("kubeconfig {}: {e}", path.display())));
            }
            let file = Kubeconfig::read_from(path).map_err(|e| no_cluster(format!("kubeconfig {}: {}", path.display(), chain(&e))))?;
            kube::Config::from_custom_kubeconfig(file, &options).await
        }
        None => kube::Config::from_kubeconfig(&options).await,
    };
    let config = config.map_err(|e| {
        let which = target
            .kubeconfig
            .as_ref()
            .map_or_else(|| "the kubeconfig ($KUBECONFIG, else ~/.kube/config)".to_string(), |p| format!("kubeconfig {}", p.display()));
        let context = target.context.as_ref().map(|c| format!(", context `{c}`")).unwrap_or_default();
        no_cluster(format!("{which}{context}: {}", chain(&e)))
    })?;
    let context = match (&target.context, current_context(target)) {
        (Some(c), _) => c.clone(),
        (None, Some(c)) => c,
        (None, None) => "(current)".to_string(),
    };
    let origin = format!("context {context} ({})", config.cluster_url);
    let client = tls::client(config).map_err(|e| no_cluster(format!("{origin}: cannot make a client: {e}")))?;
    Ok((client, origin))
}

/// The current context's name, for the origin (kube-rs does not say which it took).
fn current_context(target: &Target) -> Option<String> {
    kubeconfig_file(target)?.current_context
}

/// The namespace of the context `target` names (or of the current one), as kubectl takes it when
/// no `--namespace` is given; `None` when the kubeconfig does not load or the context sets none.
pub fn context_namespace(target: &Target) -> Option<String> {
    let file = kubeconfig_file(target)?;
    let name = target.context.clone().or_else(|| file.current_context.clone())?;
    let context = file.contexts.iter().find(|c| c.name == name)?.context.as_ref()?;
    context.namespace.clone().filter(|n| !n.is_empty())
}

/// The kubeconfig as kube-rs reads it (merged from `$KUBECONFIG` when no file is named).
fn kubeconfig_file(target: &Target) -> Option<kube::config::Kubeconfig> {
    match &target.kubeconfig {
        Some(p) => kube::config::Kubeconfig::read_from(p).ok(),
        None => kube::config::Kubeconfig::read().ok(),
    }
}

/// GET `path` as JSON; `Err` carries the API server's status (code, message) or the transport's.
async fn get(client: &kube::Client, path: &str) -> Result<Value, Failure> {
    let request = http::Request::get(path).body(Vec::new()).map_err(|e| Failure::Transport(e.to_string()))?;
    client.request::<Value>(request).await.map_err(|e| match e {
        kube::Error::Api(status) => Failure::Status { code: status.code, message: status.message.clone() },
        other => Failure::Transport(chain(&other)),
    })
}

/// An error and its causes, `: `-joined (hyper's "client error (Connect)" says why only in them).
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(cause) = next {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        next = cause.source();
    }
    out
}

#[derive(Debug)]
enum Failure {
    Status { code: u16, message: String },
    Transport(String),
}

/// The group's preferred version (`v1` for the core group); `None` when the cluster does not
/// serve the group or the resource.
async fn served(
    client: &kube::Client,
    r: &Resource,
    groups: &mut Vec<(String, Option<(String, Value)>)>,
) -> Result<Option<String>, Failure> {
    if !groups.iter().any(|(g, _)| *g == r.group) {
        let found = if r.group.is_empty() {
            Some(("v1".to_string(), get(client, "/api/v1").await?))
        } else {
            match get(client, &format!("/apis/{}", r.group)).await {
                Ok(g) => match g.pointer("/preferredVersion/version").and_then(Value::as_str) {
                    Some(v) => Some((v.to_string(), get(client, &format!("/apis/{}/{v}", r.group)).await?)),
                    None => None,
                },
                Err(Failure::Status { code: 404, .. }) => None,
                Err(e) => return Err(e),
            }
        };
        groups.push((r.group.clone(), found));
    }
    let Some((_, Some((version, resources)))) = groups.iter().find(|(g, _)| *g == r.group) else { return Ok(None) };
    let has = resources
        .get("resources")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|x| x.get("name").and_then(Value::as_str) == Some(r.resource.as_str()));
    Ok(has.then(|| version.clone()))
}

async fn read_async(target: &Target, command: &str) -> Result<Read, Box<Diagnostic>> {
    let (client, origin) = client(target).await?;
    let table = table();
    let chunk = target.chunk_size.unwrap_or(table.chunk_size).max(1);
    let mut out = Read { origin: origin.clone(), ..Read::default() };
    let mut groups = Vec::new();
    for r in table.resources.iter().filter(|r| r.commands.iter().any(|c| c == command)) {
        let unreachable = |e: String| no_cluster(format!("{origin}: the API server does not answer: {e}"));
        let version = match served(&client, r, &mut groups).await {
            Ok(Some(v)) => v,
            Ok(None) => continue,
            Err(Failure::Status { code: 403, message }) => {
                out.findings.push(refused(
                    r,
                    "get",
                    &format!("discovery of {}", if r.group.is_empty() { "the core API" } else { &r.group }),
                    &message,
                    command,
                ));
                continue;
            }
            Err(Failure::Status { code, message }) => return Err(unreachable(format!("HTTP {code}: {message}"))),
            Err(Failure::Transport(e)) => return Err(unreachable(e)),
        };
        let api_version = if r.group.is_empty() { version.clone() } else { format!("{}/{version}", r.group) };
        let base = if r.group.is_empty() {
            format!("/api/{version}/{}", r.resource)
        } else {
            format!("/apis/{}/{version}/{}", r.group, r.resource)
        };
        let mut token: Option<String> = None;
        let mut count = 0;
        loop {
            let mut path = format!("{base}?limit={chunk}");
            if let Some(t) = &token {
                path.push_str("&continue=");
                path.push_str(&encode(t));
            }
            out.calls += 1;
            let page = match get(&client, &path).await {
                Ok(p) => p,
                Err(Failure::Status { code: 403, message }) => {
                    out.findings.push(refused(r, "list", &r.qualified(), &message, command));
                    break;
                }
                Err(Failure::Status { code: 404, .. }) if token.is_none() => break,
                Err(Failure::Status { code, message }) => return Err(unreachable(format!("HTTP {code}: {message}"))),
                Err(Failure::Transport(e)) => return Err(unreachable(e)),
            };
            for mut item in page.get("items").and_then(Value::as_array).cloned().unwrap_or_default() {
                if let Some(o) = item.as_object_mut() {
                    // kubectl's `get -o json` prints each item of a typed list with its kind.
                    let mut with = serde_json::Map::new();
                    with.insert("apiVersion".into(), json!(api_version));
                    with.insert("kind".into(), json!(r.kind));
                    for (k, v) in std::mem::take(o) {
                        if k != "apiVersion" && k != "kind" {
                            with.insert(k, v);
                        }
                    }
                    // As `kubectl get -o yaml` prints it (`--show-managed-fields=false`).
                    if let Some(m) = with.get_mut("metadata").and_then(Value::as_object_mut) {
                        m.remove("managedFields");
                    }
                    *o = with;
                }
                out.items.push(item);
                count += 1;
            }
            token = page.pointer("/metadata/continue").and_then(Value::as_str).filter(|t| !t.is_empty()).map(str::to_string);
            if token.is_none() {
                break;
            }
        }
        out.counts.push((r.kind.clone(), count));
    }
    Ok(out)
}

/// `12 Nodes, 340 Pods`: the counts of what was read, for the note on stderr.
pub fn counted(counts: &[(String, usize)]) -> String {
    let parts: Vec<String> = counts.iter().map(|(kind, n)| crate::words::count(*n, kind)).collect();
    if parts.is_empty() {
        "nothing".to_string()
    } else {
        parts.join(", ")
    }
}

/// A `continue` token in a query string (it is base64: `+`, `/` and `=` are escaped).
fn encode(token: &str) -> String {
    token
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// RBAC refused `verb` on `what`: an error where `command` cannot answer without `r`, else a
/// warning that it is left out.
fn refused(r: &Resource, verb: &str, what: &str, message: &str, command: &str) -> Diagnostic {
    let scope = if r.namespaced { " in every namespace" } else { "" };
    if r.needed {
        Diagnostic::finding(
            &LIVE_FORBIDDEN,
            "",
            format!("the cluster refused to `{verb}` {what}{scope}, which `{command}` needs: {message}"),
        )
        .with_help(format!("Ask for `{verb}` on `{}` (a ClusterRole), or pass the lists as files (`--nodes`, `--pods`).", r.qualified()))
    } else {
        Diagnostic::finding(&LIVE_LEFT_OUT, "", format!("the cluster refused to `{verb}` {what}{scope}; left out: {message}"))
            .with_help(format!("Ask for `{verb}` on `{}` (a ClusterRole) to have them read.", r.qualified()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_lists_what_fit_needs() {
        let t: Table = serde_saphyr::from_str(LIVE_YAML).unwrap();
        assert_eq!(t.chunk_size, 500);
        let fit: Vec<&str> = t.resources.iter().filter(|r| r.commands.iter().any(|c| c == "fit")).map(|r| r.kind.as_str()).collect();
        assert_eq!(fit, ["Node", "ComputeClass", "Pod"]);
        assert!(t.resources.iter().all(|r| r.commands.iter().any(|c| c == "snapshot")), "a snapshot holds all live mode reads");
    }

    #[test]
    fn continue_tokens_are_escaped() {
        assert_eq!(encode("eyJ2Ijoi+/="), "eyJ2Ijoi%2B%2F%3D");
    }
}
