//! What a rule is: its id, severity, layer, summary and fix ([`Rule`]), for rules that restate
//! Kubernetes' own checks also when Kubernetes would otherwise refuse the object ([`Moment`]) and
//! the upstream source; and [`define_rules!`], which declares a family of rules and its table.

use serde::Serialize;

/// How bad a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// Where a rule belongs: the docs page has one section per layer, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    Input,
    Catalog,
    Output,
    Krm,
    Schema,
    Crd,
    Cel,
    Admission,
    Ecosystem,
    Accelerators,
    Kubernetes,
    TrainJob,
    Kueue,
    Fit,
    Cluster,
}

impl Layer {
    pub const ALL: [Layer; 15] = [
        Layer::Input,
        Layer::Catalog,
        Layer::Output,
        Layer::Krm,
        Layer::Schema,
        Layer::Crd,
        Layer::Cel,
        Layer::Admission,
        Layer::Ecosystem,
        Layer::Accelerators,
        Layer::Kubernetes,
        Layer::TrainJob,
        Layer::Kueue,
        Layer::Fit,
        Layer::Cluster,
    ];

    /// The section title on the docs page.
    pub fn title(self) -> &'static str {
        match self {
            Layer::Input => "Inputs: files, folders, stdin",
            Layer::Catalog => "Catalog objects (`render`, `docs` and the KRM function)",
            Layer::Output => "Output directories (`render -o`, `docs -o`, `--check`)",
            Layer::Krm => "The KRM function (kpt, kustomize)",
            Layer::Schema => "Structure against the schemas of the Trainer release's own CRDs (v2.0.0 to v2.3.0 and `next`), embedded in the binary (no `--crd`)",
            Layer::Crd => "Structure against the `openAPIV3Schema` of the CRD files given with `--crd`",
            Layer::Cel => "CEL rules (`x-kubernetes-validations`) of the CRD",
            Layer::Admission => "Kubeflow Trainer admission webhook (v2.3)",
            Layer::Ecosystem => "Kubeflow SDK, JAX plugin and JobSet controller",
            Layer::Accelerators => "Accelerators: TPU slices, GPU shapes, scheduling",
            Layer::Kubernetes => "Kubernetes: the API server, JobSet, the Job controller and the kubelet",
            Layer::TrainJob => "TrainJobs against the runtimes they use (Kubeflow Trainer v2.2 and v2.3)",
            Layer::Kueue => "Kueue: queues, flavors, quotas and Topology Aware Scheduling (Kueue v0.19.2)",
            Layer::Fit => "Scheduling on a cluster (`fit`, and the KRM validator with `spec.nodes`)",
            Layer::Cluster => "The cluster itself (live mode: `fit` without `--nodes`, `snapshot`, `validate --server`)",
        }
    }
}

/// When Kubernetes would refuse what a rule finds, had jax-runtimes not found it first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Moment {
    /// `kubectl apply` of the runtime: the API server (or the Trainer webhook) rejects it.
    Apply,
    /// Every TrainJob that uses the runtime: its JobSet, Jobs or Pods are rejected when Trainer,
    /// JobSet and the Job controller create them.
    Start,
    /// Every TrainJob that uses the runtime: its JobSet and Jobs are created, then the Job
    /// controller's Pods are rejected (a check Kubernetes makes of Pods, not of pod templates).
    PodStart,
    /// At apply in the runtime's own `metadata`; at TrainJob start inside its templates.
    ApplyOrStart,
    /// Never rejected: the pods stay Pending, or the job fails or runs wrong once it runs.
    Run,
    /// `kubectl apply` of a Kueue object: the API server (CRD schema and CEL) or Kueue's webhook
    /// rejects it.
    KueueApply,
    /// Creating a TrainJob that uses the runtime: Kueue's TrainJob webhook rejects it.
    TrainJobCreate,
    /// Never rejected: the TrainJob stays suspended, Kueue never admits its workload.
    Suspended,
}

/// Whose failure a finding's clause tells: the runtime's (`validate`), or the TrainJob's that uses
/// it (the TrainJob checks, which run the runtime's checks on the runtime as the TrainJob changes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Teller {
    Runtime,
    TrainJob,
    /// Any other object the API server judges (a Kueue object).
    Object,
}

impl Moment {
    /// The docs page's words.
    pub fn describe(self) -> &'static str {
        match self {
            Moment::Apply => "at apply: the API server rejects the runtime",
            Moment::Start => "at TrainJob start: Kubernetes rejects the JobSet, Job or Pod that Trainer creates, so every TrainJob using the runtime fails",
            Moment::PodStart => "at pod start: the JobSet and its Jobs are created, then the Job controller's Pods are rejected, so every TrainJob using the runtime waits for pods that never come",
            Moment::ApplyOrStart => "at apply for the runtime's own `metadata`; at TrainJob start inside its templates",
            Moment::Run => "never rejected: pods stay Pending, or the job fails or runs wrong once it runs",
            Moment::KueueApply => "at apply: the API server (CRD schema and CEL) or Kueue's webhook rejects the Kueue object",
            Moment::TrainJobCreate => "at TrainJob create: Kueue's webhook rejects every TrainJob that uses the runtime",
            Moment::Suspended => "never rejected: the TrainJob stays suspended, Kueue never admits it",
        }
    }

    /// The clause a finding of the runtime's own check ends with.
    pub fn clause(self) -> &'static str {
        self.clause_for(Teller::Runtime)
    }

    /// The clause a finding ends with, said of the runtime or of the TrainJob that uses it.
    pub fn clause_for(self, teller: Teller) -> &'static str {
        match (self, teller) {
            (Moment::Apply | Moment::ApplyOrStart, Teller::Runtime) => "the API server rejects the runtime at apply",
            // Said of a TrainJob, a value refused at apply came from the TrainJob, whose CRD has
            // the same schema for it (the quantity pattern, the list keys).
            (Moment::Apply | Moment::ApplyOrStart, Teller::TrainJob) => "the API server rejects the TrainJob at apply",
            (Moment::Apply | Moment::ApplyOrStart, Teller::Object) => "the API server rejects the object at apply",
            (Moment::Start | Moment::PodStart, Teller::Runtime | Teller::Object) => "Kubernetes rejects it when a TrainJob starts",
            (Moment::Start | Moment::PodStart, Teller::TrainJob) => "Kubernetes rejects it when this TrainJob starts",
            (Moment::Run, _) => "Kubernetes accepts it, but the pods do not run as meant",
            (Moment::KueueApply, _) => "Kueue rejects the object at apply",
            (Moment::TrainJobCreate, _) => "Kueue's webhook rejects every TrainJob that uses it",
            (Moment::Suspended, _) => "the TrainJob stays suspended: Kueue never admits it",
        }
    }
}

/// One rule. Ids are stable: tools and people filter on them.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub layer: Layer,
    /// What it finds, and why it matters.
    pub summary: &'static str,
    /// How to fix a finding.
    pub fix: &'static str,
    /// For a rule that restates a check of Kubernetes (or JobSet, Trainer): when it would fail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fails: Option<Moment>,
    /// The upstream file and function (and tag) the rule follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<&'static str>,
}

impl Rule {
    pub const fn new(id: &'static str, severity: Severity, layer: Layer, summary: &'static str, fix: &'static str) -> Rule {
        Rule { id, severity, layer, summary, fix, fails: None, source: None }
    }

    /// A rule that restates an upstream check: `fails` says when, `source` where it is defined.
    pub const fn sourced(
        id: &'static str,
        severity: Severity,
        layer: Layer,
        summary: &'static str,
        fix: &'static str,
        fails: Moment,
        source: &'static str,
    ) -> Rule {
        Rule { id, severity, layer, summary, fix, fails: Some(fails), source: Some(source) }
    }
}

impl PartialEq for Rule {
    fn eq(&self, other: &Rule) -> bool {
        self.id == other.id
    }
}

impl Eq for Rule {}

impl std::hash::Hash for Rule {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl PartialOrd for Rule {
    fn partial_cmp(&self, other: &Rule) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rule {
    fn cmp(&self, other: &Rule) -> std::cmp::Ordering {
        self.id.cmp(other.id)
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id)
    }
}

/// Declares rules as `pub static` items and collects them in the family's `RULES` table.
///
/// ```ignore
/// define_rules! {
///     UNKNOWN_FIELD = "catalog/unknown-field", Error, Catalog, "what it finds", "how to fix";
/// }
/// ```
///
/// The extended form, for rules that restate an upstream check, starts with `sourced;` and gives
/// each rule the [`Moment`] it would otherwise fail and its upstream source:
///
/// ```ignore
/// define_rules! {
///     sourced;
///     LABEL_VALUE = "k8s/label-value", Error, Kubernetes, "what it finds", "how to fix",
///         fails ApplyOrStart, source "kubernetes/apimachinery v0.34.1 pkg/util/validation/validation.go IsValidLabelValue";
/// }
/// ```
macro_rules! define_rules {
    // One rule of a family whose rules mostly restate no upstream check: with `fails` and
    // `source`, one that does.
    (@rule $id:literal, $severity:ident, $layer:ident, $summary:expr, $fix:expr) => {
        $crate::rules::rule::Rule::new($id, $crate::rules::rule::Severity::$severity, $crate::rules::rule::Layer::$layer, $summary, $fix)
    };
    (@rule $id:literal, $severity:ident, $layer:ident, $summary:expr, $fix:expr, $moment:ident, $source:expr) => {
        $crate::rules::rule::Rule::sourced(
            $id,
            $crate::rules::rule::Severity::$severity,
            $crate::rules::rule::Layer::$layer,
            $summary,
            $fix,
            $crate::rules::rule::Moment::$moment,
            $source,
        )
    };
    (sourced; $( $(#[$meta:meta])* $name:ident = $id:literal, $severity:ident, $layer:ident, $summary:expr, $fix:expr, fails $moment:ident, source $source:expr; )*) => {
        $(
            $(#[$meta])*
            pub static $name: $crate::rules::rule::Rule = $crate::rules::rule::Rule::sourced(
                $id,
                $crate::rules::rule::Severity::$severity,
                $crate::rules::rule::Layer::$layer,
                $summary,
                $fix,
                $crate::rules::rule::Moment::$moment,
                $source,
            );
        )*
        /// Every rule of this family, in docs order.
        pub static RULES: &[&$crate::rules::rule::Rule] = &[$(&$name),*];
    };
    ($( $(#[$meta:meta])* $name:ident = $id:literal, $severity:ident, $layer:ident, $summary:expr, $fix:expr $(, fails $moment:ident, source $source:expr)?; )*) => {
        $(
            $(#[$meta])*
            pub static $name: $crate::rules::rule::Rule = $crate::rules::rule::define_rules!(@rule $id, $severity, $layer, $summary, $fix $(, $moment, $source)?);
        )*
        /// Every rule of this family, in docs order.
        pub static RULES: &[&$crate::rules::rule::Rule] = &[$(&$name),*];
    };
}
pub(crate) use define_rules;
