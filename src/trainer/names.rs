//! The names JobSet derives from a TrainJob, and how long a TrainJob name may be so that they
//! stay valid. The JobSet takes the TrainJob's name; its Jobs are `<jobset>-<replicatedJob>-<job
//! index>` (kubernetes-sigs/jobset v0.12.0 `pkg/util/placement/placement.go` `GenJobName`) and
//! their pods `<job>-<pod index>-<5 random characters>` (Indexed Jobs). The JobSet webhook
//! (`pkg/webhooks/jobset_webhook.go` `ValidateCreate`) requires the last Job's name, and the last
//! pod's name with a `-abcde` stand-in for the random suffix, to be DNS-1035 labels of at most 63
//! characters, so a TrainJob whose name is too long fails when Trainer creates its JobSet.

use crate::k8s::facts::facts as k8s_facts;
use crate::k8s::names::{dns1035_label, NameError};

/// Longest DNS-1035 label (`k8s.io/apimachinery` `DNS1035LabelMaxLength`).
pub fn label_max() -> usize {
    k8s_facts().limits.dns_label
}

/// The random pod-name suffix the JobSet webhook counts (`-` and 5 characters).
fn pod_suffix() -> usize {
    super::facts().pod_name_suffix.len()
}

fn digits(n: u64) -> usize {
    n.to_string().len()
}

/// True when a replicated job's name can stand inside the DNS-1035 Job names JobSet builds
/// (`<jobset>-<name>-<index>`): lowercase letters, digits and `-` (its length is
/// [`max_jobset_name`]'s question).
pub fn fits_job_names(name: &str) -> bool {
    !matches!(dns1035_label(&format!("a-{name}-0")), Err(e) if !matches!(e, NameError::TooLong { .. }))
}

/// The longest JobSet (TrainJob) name for one replicated job named `job` with `replicas` Jobs
/// of `pods` pods each; 0 when no name fits.
pub fn max_jobset_name(job: &str, replicas: u64, pods: u64) -> usize {
    let last_job = replicas.max(1) - 1;
    let last_pod = pods.max(1) - 1;
    // `<name>-<job>-<j>` and `<name>-<job>-<j>-<p>-abcde`, each at most 63.
    let job_name = 1 + job.len() + 1 + digits(last_job);
    let pod_name = job_name + 1 + digits(last_pod) + pod_suffix();
    label_max().saturating_sub(job_name.max(pod_name))
}

/// The longest TrainJob name for a runtime whose replicated jobs are `(name, replicas, pods)`,
/// and the replicated job that sets it (the one with the longest derived names).
pub fn max_trainjob_name<'a>(jobs: impl IntoIterator<Item = (&'a str, u64, u64)>) -> Option<(usize, &'a str)> {
    jobs.into_iter().map(|(job, replicas, pods)| (max_jobset_name(job, replicas, pods), job)).min_by_key(|(n, _)| *n)
}

/// The hostname of pod `pod` of Job `job` of a TrainJob's replicated job: `<name>-<job>-<j>-<p>`
/// (the JobSet puts it under the subdomain `<name>`).
pub fn hostname(trainjob: &str, replicated_job: &str, job: u64, pod: u64) -> String {
    format!("{trainjob}-{replicated_job}-{job}-{pod}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_node_job_allows_49_minus_the_digits_of_the_last_index() {
        // numNodes 1..=10 -> 48, 11..=100 -> 47, 101..=1000 -> 46 (pod rule, suffix counted).
        for (nodes, max) in [(1, 48), (10, 48), (11, 47), (100, 47), (101, 46), (1000, 46), (1001, 45)] {
            assert_eq!(max_jobset_name("node", 1, nodes), max, "{nodes} nodes");
        }
        let name = "a".repeat(48);
        assert_eq!(format!("{}-abcde", hostname(&name, "node", 0, 9)).len(), 63);
    }

    #[test]
    fn a_job_name_part_is_lowercase_letters_digits_and_dashes() {
        for ok in ["node", "dataset-initializer", "a1", "-x", "", &"n".repeat(70)] {
            assert!(fits_job_names(ok), "{ok}");
        }
        for bad in ["Node", "my_job", "a.b", "a b"] {
            assert!(!fits_job_names(bad), "{bad}");
        }
    }

    #[test]
    fn the_longest_replicated_job_sets_the_limit() {
        let jobs = [("dataset-initializer", 1, 1), ("node", 1, 4)];
        assert_eq!(max_trainjob_name(jobs), Some((33, "dataset-initializer")));
        assert_eq!(max_trainjob_name([("node", 1, 2)]), Some((48, "node")));
        assert_eq!(max_jobset_name(&"x".repeat(70), 1, 1), 0);
    }
}
