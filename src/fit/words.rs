//! What placement found -> `fit`'s words: the reason a runtime does not fit and how to fix it
//! ([`reason`]), its notes ([`note`]), kube-scheduler's per-node reasons as `kubectl describe pod`
//! shows them ([`scheduler_reason`]), and the pieces they are made of: `16Gi`, `1850m cpu`,
//! `a=1, b=2`, `n1, n2 and 3 more`, with one and many agreeing with their verbs. Placement
//! ([`super::place`]) decides; this module only says.

use std::collections::BTreeMap;

use super::place::{
    Blocker, Closest, DomainUse, DomainView, Fix, Gang, Gate, Gated, NodePlace, Note, Provision, Short, ShortNodes, Wanted, Why,
};
use crate::accelerators::nodes::nodes;
use crate::capacity::compute_class::Refusal;

/// An amount as a person writes it: cpu in cores or millicores, bytes with a binary suffix
/// where exact, other resources as counts.
pub fn amount(resource: &str, value: i64) -> String {
    if resource == "cpu" {
        return if value % 1000 == 0 { format!("{}", value / 1000) } else { format!("{value}m") };
    }
    if matches!(resource, "memory" | "ephemeral-storage") || resource.starts_with("hugepages-") {
        // The largest binary unit it reaches: whole where exact, else one decimal.
        for (suffix, shift) in [("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)] {
            let unit = 1i64 << shift;
            if value >= unit {
                return if value % unit == 0 {
                    format!("{}{suffix}", value / unit)
                } else {
                    format!("{:.1}{suffix}", value as f64 / unit as f64)
                };
            }
        }
    }
    value.to_string()
}

/// `4 google.com/tpu`, `cpu 4`, `memory 16Gi`: what one pod requests, accelerators first.
pub fn request(resource: &str, value: i64) -> String {
    if matches!(resource, "cpu" | "memory" | "ephemeral-storage") {
        format!("{resource} {}", amount(resource, value))
    } else {
        format!("{} {resource}", amount(resource, value))
    }
}

/// Every request of a pod: `4 google.com/tpu`, `8 nvidia.com/gpu, cpu 4, memory 16Gi`.
pub fn requests(amounts: &BTreeMap<String, i64>) -> String {
    let (native, other): (Vec<_>, Vec<_>) = amounts.iter().partition(|(r, _)| matches!(r.as_str(), "cpu" | "memory" | "ephemeral-storage"));
    let all: Vec<String> = other.into_iter().chain(native).map(|(r, v)| request(r, *v)).collect();
    if all.is_empty() {
        "no resources".to_string()
    } else {
        all.join(", ")
    }
}

/// `k=v` pairs joined with `, `.
pub fn labels(selector: &BTreeMap<String, String>) -> String {
    selector.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
}

/// How many names a list shows before it counts the rest.
const SHOWN: usize = 3;

/// Up to three names, then how many more: `a, b, c and 2 more` (a list, after a colon).
pub fn names<S: AsRef<str>>(all: &[S]) -> String {
    let shown: Vec<&str> = all.iter().take(SHOWN).map(AsRef::as_ref).collect();
    match all.len().saturating_sub(SHOWN) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// Names as the subject of a sentence: `a`, `a and b`, `a, b and c`, `a, b, c and 2 more`.
pub fn subject<S: AsRef<str>>(all: &[S]) -> String {
    match all {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        _ if all.len() <= SHOWN => {
            let (last, head) = all.split_last().map(|(l, h)| (l.as_ref(), h)).unwrap_or_default();
            format!("{} and {last}", head.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(", "))
        }
        _ => names(all),
    }
}

/// `1 node`, `3 nodes`.
pub fn count(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The verb that agrees with `n`: `is`/`are`, `has`/`have`.
fn verb(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// `1 copy`, `3 copies`.
fn copies(n: u64) -> String {
    if n == 1 {
        "1 copy".to_string()
    } else {
        format!("{n} copies")
    }
}

/// `1 pod (4 google.com/tpu)`, `4 pods (4 google.com/tpu each)`.
fn gang(g: &Gang) -> String {
    let per_pod = requests(&g.per_pod);
    if g.pods == 1 {
        format!("1 pod ({per_pod})")
    } else {
        format!("{} pods ({per_pod} each)", g.pods)
    }
}

/// ` with a=b, c=d` for a selector, nothing without one.
fn with_labels(g: &Gang) -> String {
    if g.selector.is_empty() {
        String::new()
    } else {
        format!(" with {}", labels(&g.selector))
    }
}

/// `node pool` for a pool label, else `` `K` domain ``.
fn domain_word(key: &str) -> String {
    if nodes().platforms.iter().any(|p| p.pool_labels.iter().any(|l| l == key)) {
        "node pool".to_string()
    } else {
        format!("`{key}` domain")
    }
}

/// What kind of node the runtime asks for: `node for TPU v5e 4x4`, `node with a=b`, `node with
/// nvidia.com/gpu`, or `node`.
fn noun(w: &Wanted) -> String {
    match w {
        Wanted::Accelerator(acc) => format!("node for {acc}"),
        Wanted::Labels(l) => format!("node with {}", labels(l)),
        Wanted::Affinity => "node matching the pod's node affinity".to_string(),
        Wanted::Resources(r) => format!("node with {}", r.join(" and ")),
        Wanted::Any => "node".to_string(),
    }
}

/// What a gate says of its nodes, after their names: `is cordoned (spec.unschedulable)`, `have
/// the taint a=b:NoSchedule, which the pod does not tolerate`.
fn predicate(g: &Gate, n: usize) -> String {
    let is = verb(n, "is", "are");
    match g {
        Gate::Cordoned => format!("{is} cordoned (spec.unschedulable)"),
        Gate::Condition { means, taint } => format!("{is} {means} (taint {taint})"),
        Gate::NotReady { status, reason } if reason.is_empty() => format!("{is} not Ready (Ready={status})"),
        Gate::NotReady { status, reason } => format!("{is} not Ready (Ready={status}: {reason})"),
        Gate::Unreported => format!("{is} not Ready (it reports no Ready condition)"),
        Gate::Taint(t) => format!("{} the taint {t}, which the pod does not tolerate", verb(n, "has", "have")),
    }
}

/// The gates in the order they are told: cordoned, conditions, taints, each by its words.
fn sorted(gates: &[Gated]) -> Vec<&Gated> {
    let mut all: Vec<&Gated> = gates.iter().collect();
    all.sort_by_cached_key(|g| (g.gate.rank(), predicate(&g.gate, 1)));
    all
}

/// Gated nodes as clauses: `; a is cordoned (spec.unschedulable)`, `; a and b have the taint ...`.
fn gate_clauses(gates: &[Gated]) -> String {
    sorted(gates).into_iter().map(|g| format!("; {} {}", subject(&g.nodes), predicate(&g.gate, g.nodes.len()))).collect()
}

/// Nodes that take nothing on an empty cluster, as a clause: `; a, b: Insufficient cpu (3 allocatable, 4 needed)`.
fn short_clause(s: Option<&ShortNodes>) -> String {
    let Some(s) = s else { return String::new() };
    let why = match &s.short {
        Short::Resources(lacks) => lacks
            .iter()
            .map(|l| {
                format!("Insufficient {} ({} allocatable, {} needed)", l.name, amount(&l.name, l.allocatable), amount(&l.name, l.need))
            })
            .collect::<Vec<_>>()
            .join(", "),
        Short::Ports => "its host ports are taken".to_string(),
        Short::Pods => "Too many pods (allocatable `pods` reached)".to_string(),
    };
    format!("; {}: {why}", names(&s.nodes))
}

/// kube-scheduler's words for a node that cannot take the pod, as `kubectl describe pod` shows them.
pub fn scheduler_reason(why: &Why) -> String {
    match why {
        Why::Unschedulable => "node(s) were unschedulable".to_string(),
        Why::NodeName => "node(s) didn't match the requested node name".to_string(),
        Why::Affinity => "node(s) didn't match Pod's node affinity/selector".to_string(),
        Why::NotReady => "node(s) were not Ready".to_string(),
        Why::PodAffinity => "node(s) didn't match pod affinity rules".to_string(),
        Why::ExistingAntiAffinity => "node(s) didn't satisfy existing pods anti-affinity rules".to_string(),
        Why::Ports => "node(s) didn't have free ports for the requested pod ports".to_string(),
        Why::TooManyPods => "Too many pods".to_string(),
        Why::Taint(k, v) => format!("node(s) had untolerated taint {{{k}: {v}}}"),
        Why::Insufficient(r) => format!("Insufficient {r}"),
    }
}

/// A note in words.
pub fn note(n: &Note) -> String {
    match n {
        Note::SharesNodes { up_to, node } => {
            format!("pods of one TrainJob may share a node (up to {up_to} on {node}): nothing in the runtime keeps them on separate nodes")
        }
        Note::FirstPodMayLand { key, domains, pods } => {
            let word = domain_word(key);
            let (word, which) = if domains.len() == 1 { (word, "cannot") } else { (format!("{word}s"), "cannot each") };
            format!(
                "JobSet places a Job's first pod before the others: it may land in {word} {}, which {which} take all {pods} pods now, and the rest would stay Pending",
                subject(domains)
            )
        }
        Note::NotChecked(what) => format!("not checked: {what}"),
        Note::NotProvisioned(r) => refusal(r),
    }
}

/// What would provision the nodes, as the `provisioned` field says it.
pub fn provisioner(p: &Provision) -> String {
    match p {
        Provision::ComputeClass(name) => format!("ComputeClass {name}"),
        Provision::AutoProvisioning => "node auto-provisioning".to_string(),
    }
}

/// The reason of a gang autoscaling would make room for.
pub fn provisioned(p: &Provision) -> String {
    format!("would be provisioned ({})", provisioner(p))
}

/// The standing nodes' blocker of a gang that would be provisioned, as a note.
pub fn standing(reason: &str) -> String {
    format!("no standing node takes it now: {reason}")
}

/// Why the ComputeClass the pods select would not provision them.
fn refusal(r: &Refusal) -> String {
    match r {
        Refusal::Unknown(c) => format!(
            "the pods select ComputeClass {c}, which the node list does not hold (list it with `kubectl get nodes,computeclasses -o yaml`)"
        ),
        Refusal::NoAutoCreation(c) => {
            format!(
                "ComputeClass {c} creates no node pools (`nodePoolAutoCreation.enabled` is not true): only its existing node pools scale"
            )
        }
        Refusal::NoPriority { class, wants } => {
            format!("no priority of ComputeClass {class} has {wants}: the class would not provision the pods")
        }
        Refusal::Taint { class, taint } => {
            format!(
                "ComputeClass {class}'s nodes carry the taint {taint}, which the pods do not tolerate: the class would not provision them"
            )
        }
        Refusal::ProvisionedTaint { on, taint } => {
            format!(
                "the nodes node auto-provisioning would create for the pods ({on}) carry the taint {taint}, which the pods do not tolerate: it would not provision them"
            )
        }
    }
}

/// How to fix it, in words.
fn fix(f: &Fix) -> String {
    match f {
        Fix::Tolerate { on, taint, toleration } => format!(
            "{on} carry the taint {taint}: add the toleration {toleration} to the runtime (`spec.tolerations` of the catalog entry, or the pod template's `tolerations`)"
        ),
        Fix::Uncordon => "uncordon a node with `kubectl uncordon NODE`".to_string(),
        Fix::LabelDomains { key } => format!("label the nodes of each {} with {key}", domain_word(key)),
        Fix::PinMachineType { key, machine_type, chips } => format!(
            "select the machine type with {chips} chips per host, `{key}: {machine_type}`, in the runtime's node selector (`jax-runtimes render` pins it), or use a node pool of it"
        ),
    }
}

/// The blocker as `fit`'s reason, and its fix where `fit` knows one.
pub fn reason(b: &Blocker) -> (String, Option<String>) {
    let help = |f: &Option<Fix>| f.as_ref().map(fix);
    match b {
        Blocker::Demand(why) => (why.clone(), None),
        Blocker::NoNodeNamed(name) => (format!("no node is named `{name}` (the pod template's `nodeName`)"), None),
        Blocker::NoAffinityMatch => ("no node matches the pod's required node affinity".to_string(), None),
        Blocker::NoNodeWithLabels { selector, accelerator, closest } => {
            let want = labels(selector).replace(", ", " and ");
            // The capacity the selector asks for that the closest node lacks (all of it, without one).
            let missing: Vec<String> = crate::capacity::words_of(selector)
                .into_iter()
                .filter(|(_, l)| closest.as_ref().is_none_or(|c| c.differs.iter().any(|(k, _)| l.contains_key(k))))
                .map(|(w, _)| w)
                .collect();
            let on = if missing.is_empty() { String::new() } else { format!(" on {}", missing.join(" and ")) };
            let mut reason = match accelerator {
                Some(acc) => format!("no node pool for {acc}{on}: no node has {want}"),
                None if on.is_empty() => format!("no node has {want}"),
                None => format!("no node{on}: no node has {want}"),
            };
            if let Some(Closest { place, differs }) = closest {
                let place = match place {
                    NodePlace::Pool(p) => format!("node pool {p}"),
                    NodePlace::Node(n) => format!("node {n}"),
                };
                let differs: Vec<String> = differs
                    .iter()
                    .map(|(k, have)| match have {
                        Some(v) => format!("{k}={v}"),
                        None => format!("no {k}"),
                    })
                    .collect();
                reason.push_str(&format!("; the closest, {place}, has {}", differs.join(" and ")));
            }
            (reason, None)
        }
        Blocker::NoDevice { wanted, resources, selects, matched } => {
            let what = resources.join(" or ");
            let reason = if *selects {
                format!(
                    "no {} has {what}: {} {} the selector but {} none (is the device plugin running?)",
                    noun(wanted),
                    count(*matched, "node"),
                    verb(*matched, "matches", "match"),
                    verb(*matched, "reports", "report")
                )
            } else {
                format!("no node has {what} (in capacity or allocatable)")
            };
            (reason, None)
        }
        Blocker::Gated { wanted, gates, help: f } => {
            let noun = noun(wanted);
            let reason = match sorted(gates).as_slice() {
                [one] => format!("every {noun} {}: {}", predicate(&one.gate, 1), names(&one.nodes)),
                many => {
                    let parts: Vec<String> = many
                        .iter()
                        .map(|g| format!("{} {} ({})", count(g.nodes.len(), "node"), predicate(&g.gate, g.nodes.len()), names(&g.nodes)))
                        .collect();
                    format!("no {noun} can take a pod: {}", parts.join("; "))
                }
            };
            (reason, help(f))
        }
        Blocker::NoTopologyLabel { wanted, key } => (
            format!(
                "no usable {} has the label {key}: JobSet exclusive placement keeps each Job's pods inside one value of it",
                noun(wanted)
            ),
            Some(fix(&Fix::LabelDomains { key: key.clone() })),
        ),
        Blocker::TooFewDomains { key, jobs, gang: g, fitting } => (
            format!(
                "needs {jobs} {}s ({key}){} that each take {}; {} can: {}",
                domain_word(key),
                with_labels(g),
                gang(g),
                fitting.len(),
                names(fitting)
            ),
            None,
        ),
        Blocker::NoDomainTakesAJob { wanted, key, gang: g, closest } => {
            let Some(DomainView { value, takes, usable, size, gates, short }) = closest else {
                return (format!("no {} can take a pod", noun(wanted)), None);
            };
            let word = domain_word(key);
            let detail = format!(
                "the closest, {word} {value}, takes {takes}: {usable} of its {} {} usable{}{}",
                count(*size, "node"),
                verb(*usable, "is", "are"),
                gate_clauses(gates),
                short_clause(short.as_ref())
            );
            (format!("needs {} in one {word} ({key}){}; {detail}", gang(g), with_labels(g)), None)
        }
        Blocker::SharedHost { slice, gang: g, hosts, help: f } => {
            let room: Vec<String> = hosts.iter().map(|(n, k)| format!("{n} ({k})")).collect();
            (
                format!(
                    "needs {}, each on a host of its own ({slice} runs one pod per host), but the hosts that would take them take several each: {} (pods per host); they are of a machine type with more chips per host than a pod requests",
                    gang(g),
                    names(&room)
                ),
                help(f),
            )
        }
        Blocker::TooFewSlots { wanted, gang: g, usable, takes, short, gates } => {
            let noun = noun(wanted);
            let detail = match usable {
                1 => format!("the one usable node takes {takes}"),
                n => format!("the {n} usable nodes take {takes}"),
            };
            let on = if g.pods == 1 { format!("a {noun}") } else { noun.replacen("node", "nodes", 1) };
            (format!("needs {} on {on}; {detail}{}{}", gang(g), short_clause(short.as_ref()), gate_clauses(gates)), None)
        }
        Blocker::DomainsInUse { key, copies_empty, pods, domains } => {
            let word = domain_word(key);
            let parts: Vec<String> = domains
                .iter()
                .map(|(v, used)| match used {
                    DomainUse::OtherJobSet { pods: held } => {
                        format!("{word} {v} holds {} of another JobSet (one Job per {word})", subject(held))
                    }
                    DomainUse::Partial { takes, holders } => {
                        format!("{word} {v} takes {takes} of {pods} now (in use by {})", names(holders))
                    }
                })
                .collect();
            (format!("fits an empty cluster ({}), not now: {}", copies(*copies_empty), parts.join("; ")), None)
        }
        Blocker::PodsInUse { copies_empty, now, pods, holders } => {
            let held: Vec<String> = holders.iter().map(|h| format!("{} on {}", h.pod, h.node)).collect();
            (
                format!(
                    "fits an empty cluster ({}), not now: pods in use leave room for {now} of its {} ({})",
                    copies(*copies_empty),
                    count(usize::try_from(*pods).unwrap_or(usize::MAX), "pod"),
                    names(&held)
                ),
                None,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_as_people_write_them() {
        assert_eq!(amount("cpu", 4000), "4");
        assert_eq!(amount("cpu", 1850), "1850m");
        assert_eq!(amount("memory", 16 << 30), "16Gi");
        assert_eq!(amount("memory", 122_329_333 * 1024), "116.7Gi");
        assert_eq!(amount("memory", 1000), "1000");
        assert_eq!(amount("memory", 1536 << 20), "1.5Gi");
        assert_eq!(amount("google.com/tpu", 4), "4");
        assert_eq!(requests(&[("cpu".to_string(), 4000), ("nvidia.com/gpu".to_string(), 8)].into()), "8 nvidia.com/gpu, cpu 4");
        assert_eq!(requests(&BTreeMap::new()), "no resources");
    }

    #[test]
    fn long_lists_are_cut_short_and_subjects_end_with_and() {
        assert_eq!(names(&["a", "b"]), "a, b");
        assert_eq!(names(&["a", "b", "c", "d", "e"]), "a, b, c and 2 more");
        assert_eq!(subject(&["a"]), "a");
        assert_eq!(subject(&["a", "b"]), "a and b");
        assert_eq!(subject(&["a", "b", "c"]), "a, b and c");
        assert_eq!(subject(&["a", "b", "c", "d"]), "a, b, c and 1 more");
        assert_eq!(count(1, "node"), "1 node");
        assert_eq!(count(0, "node"), "0 nodes");
    }

    #[test]
    fn one_and_many_agree_with_their_verbs() {
        let taint = Gate::Taint("sku=gpu:NoSchedule".into());
        let one = Gated { gate: taint.clone(), nodes: vec!["n0".into()] };
        let two = Gated { gate: taint, nodes: vec!["n0".into(), "n1".into()] };
        assert_eq!(gate_clauses(&[one]), "; n0 has the taint sku=gpu:NoSchedule, which the pod does not tolerate");
        assert_eq!(
            gate_clauses(std::slice::from_ref(&two)),
            "; n0 and n1 have the taint sku=gpu:NoSchedule, which the pod does not tolerate"
        );
        let cordoned = Gated { gate: Gate::Cordoned, nodes: vec!["c0".into(), "c1".into()] };
        assert_eq!(gate_clauses(std::slice::from_ref(&cordoned)), "; c0 and c1 are cordoned (spec.unschedulable)");
        let (reason, _) = reason(&Blocker::Gated { wanted: Wanted::Any, gates: vec![two, cordoned], help: None });
        assert_eq!(
            reason,
            "no node can take a pod: 2 nodes are cordoned (spec.unschedulable) (c0, c1); 2 nodes have the taint sku=gpu:NoSchedule, which the pod does not tolerate (n0, n1)"
        );
        let (device, _) =
            super::reason(&Blocker::NoDevice { wanted: Wanted::Any, resources: vec!["nvidia.com/gpu".into()], selects: true, matched: 1 });
        assert!(device.contains("1 node matches the selector but reports none"), "{device}");
    }
}
