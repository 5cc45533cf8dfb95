//! How a Kubernetes check turns into a finding: the rule's finding at a field, its message ending
//! with when Kubernetes would refuse it ([`crate::rules::Moment`], also kept as data on the
//! finding: [`crate::diag::Fails`]), for the runtime's own object or for what Trainer creates from
//! its templates ([`Scope`]).

use crate::diag::Diagnostic;
use crate::rules::{Moment, Rule, Teller};

/// Where the checked value ends up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The runtime object itself: `kubectl apply` checks it.
    Object,
    /// A template: checked when a TrainJob starts and Trainer creates the JobSet, Jobs and Pods.
    Template,
}

/// A finding of `rule` at `field`, its message ending with the moment Kubernetes refuses it.
pub fn finding(rule: &'static Rule, scope: Scope, field: impl Into<String>, message: impl std::fmt::Display) -> Diagnostic {
    let moment = rule.fails.map(|m| match (m, scope) {
        (Moment::ApplyOrStart, Scope::Template) => Moment::Start,
        (Moment::ApplyOrStart, Scope::Object) => Moment::Apply,
        (m, _) => m,
    });
    finding_at(rule, moment, field, message)
}

/// A finding of `rule` at `field` that Kubernetes refuses at `moment` (for a rule whose cases
/// fail at different moments: an image with spaces is refused in the Pods, not in the Job).
pub fn finding_at(rule: &'static Rule, moment: Option<Moment>, field: impl Into<String>, message: impl std::fmt::Display) -> Diagnostic {
    let d = Diagnostic::finding(rule, field, message.to_string());
    match moment {
        Some(m) => d.failing(m, Teller::Runtime),
        None => d,
    }
}

/// `value` shortened for a message: at most 80 characters, with an ellipsis.
pub fn shown(value: &str) -> String {
    const MAX: usize = 80;
    if value.chars().count() <= MAX {
        format!("{value:?}")
    } else {
        let head: String = value.chars().take(MAX).collect();
        format!("{head:?}... ({} bytes)", value.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::kubernetes::{K8S_LABEL_VALUE, K8S_TOLERATION};

    #[test]
    fn the_message_says_when_kubernetes_refuses_it() {
        let d = finding(&K8S_LABEL_VALUE, Scope::Object, "metadata.labels.team", "bad");
        assert!(d.message.ends_with("the API server rejects the runtime at apply"), "{}", d.message);
        let d = finding(&K8S_LABEL_VALUE, Scope::Template, "spec.x", "bad");
        assert!(d.message.ends_with("when a TrainJob starts"), "{}", d.message);
        let d = finding(&K8S_TOLERATION, Scope::Object, "spec.tolerations[0]", "bad");
        assert!(d.message.contains("TrainJob starts") && d.help.is_some());
        assert_eq!(d.fails.map(|f| f.moment), Some(Moment::Start), "the moment is data too");
        // Said of the TrainJob that uses the runtime: the same finding, its clause the TrainJob's.
        let t = finding(&K8S_LABEL_VALUE, Scope::Object, "metadata.labels.team", "bad").told_by(Teller::TrainJob);
        assert_eq!(t.message, "bad; the API server rejects the TrainJob at apply");
        let t = finding(&K8S_TOLERATION, Scope::Template, "x", "bad").told_by(Teller::TrainJob);
        assert_eq!(t.message, "bad; Kubernetes rejects it when this TrainJob starts");
        assert_eq!(shown(&"x".repeat(100)).len(), 82 + " (100 bytes)".len() + 3);
    }
}
