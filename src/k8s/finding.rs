//! How a Kubernetes check turns into a finding: the rule's finding at a field, its message ending
//! with when Kubernetes would refuse it ([`crate::rules::Moment`]), for the runtime's own object or
//! for what Trainer creates from its templates ([`Scope`]).

use crate::diag::Diagnostic;
use crate::rules::{Moment, Rule};

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
    let clause = match (rule.fails, scope) {
        (Some(Moment::ApplyOrStart), Scope::Template) => Some(Moment::Start.clause()),
        (Some(m), _) => Some(m.clause()),
        (None, _) => None,
    };
    let message = match clause {
        Some(c) => format!("{message}; {c}"),
        None => message.to_string(),
    };
    Diagnostic::finding(rule, field, message)
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
        assert_eq!(shown(&"x".repeat(100)).len(), 82 + " (100 bytes)".len() + 3);
    }
}
