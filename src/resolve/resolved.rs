//! What resolve produces: fully specified runtimes ([`Resolved`]) with where each came from
//! ([`Origin`]), and the parts an accelerator contributes ([`AcceleratorPlan`]).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{EnvVar, ResourceRequirements, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::accelerators::{GpuShape, TpuShape};
use crate::catalog::Platform;
use crate::diag::{Diagnostic, ObjectRef};
use crate::read::Place;
use crate::trainer::PodGroupPolicy;

/// Where a resolved runtime came from: the document and catalog object, and for a matrix row,
/// its variables. Field paths of the runtime map to `field_prefix` + path in the document.
#[derive(Debug, Clone)]
pub struct Origin {
    pub doc: Place,
    pub object: ObjectRef,
    pub row: Option<String>,
    /// The name of the runtime a matrix row generated (a `JaxRuntime` is named in `object`).
    pub generated: Option<String>,
    pub field_prefix: &'static str,
}

impl Origin {
    /// Places a diagnostic about the runtime's own field path in the source document.
    pub fn locate(&self, d: Diagnostic) -> Diagnostic {
        let d = if self.field_prefix.is_empty() { d } else { d.under(self.field_prefix) };
        let d = match &self.row {
            Some(row) if !d.message.contains("matrix row") => {
                let message = format!("{} (matrix row {row})", d.message);
                Diagnostic { message, row: Some(row.clone()), ..d }
            }
            Some(row) => Diagnostic { row: Some(row.clone()), ..d },
            None => d,
        };
        let generated = self.generated.clone().or_else(|| (self.object.kind == "JaxRuntime").then(|| self.object.name.clone()));
        let d = Diagnostic { generated: d.generated.or(generated), ..d };
        let d = if d.object.is_none() { d.with_object(self.object.clone()) } else { d };
        self.doc.locate(d)
    }

    /// Places a diagnostic about the whole runtime: [`Origin::locate`], at the entry's
    /// `metadata.name`.
    pub fn locate_at_name(&self, d: Diagnostic) -> Diagnostic {
        let d = self.locate(d);
        match self.name_position() {
            Some(p) => Diagnostic { line: Some(p.line), column: p.column.map(|c| c.0), width: p.column.map(|c| c.1), ..d },
            None => d,
        }
    }

    /// The line of the entry's `metadata.name`: where findings about the whole runtime point.
    pub fn name_line(&self) -> Option<usize> {
        self.name_position().map(|p| p.line)
    }

    /// Where the entry's `metadata.name` is (its line and the name's columns).
    pub fn name_position(&self) -> Option<crate::yaml::Position> {
        let path = if self.field_prefix.is_empty() { "metadata.name".to_string() } else { format!("{}.metadata.name", self.field_prefix) };
        self.doc.position(&path)
    }
}

/// The accelerator a runtime ended up with.
// One per resolved runtime, moved rather than copied: the GPU variant's size costs nothing.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Accel {
    Cpu,
    Gpu(GpuShape),
    Tpu(TpuShape),
}

impl Accel {
    pub fn kind(&self) -> &'static str {
        match self {
            Accel::Cpu => "cpu",
            Accel::Gpu(_) => "gpu",
            Accel::Tpu(_) => "tpu",
        }
    }
}

/// A runtime with every default applied and every derived value computed.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub origin: Origin,
    pub name: String,
    pub namespace: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub description: Option<String>,
    pub trainer: String,
    pub platform: Platform,
    pub image: String,
    pub num_nodes: i32,
    pub accelerator: Accel,
    pub command: Vec<String>,
    pub args: Vec<String>,
    pub env: Vec<EnvVar>,
    pub resources: ResourceRequirements,
    /// The `cpu` limit was copied from the `cpu` request (CPU runtimes by default, GPUs the SDK
    /// cannot read), so that the Kubeflow SDK can name the device.
    pub cpu_limit_from_request: bool,
    pub node_selector: BTreeMap<String, String>,
    pub tolerations: Vec<Toleration>,
    pub pod_group_policy: Option<PodGroupPolicy>,
    /// `Some(size limit)` when a memory-backed `/dev/shm` is mounted.
    pub shared_memory: Option<Option<String>>,
    pub host_network: bool,
    pub service_account_name: Option<String>,
    /// Annotations for the JobSet template (`spec.template.metadata.annotations`).
    pub jobset_annotations: BTreeMap<String, String>,
    /// Annotations of the trainer pod template besides the fabric's: Kueue's TAS podset
    /// annotations (`spec.topology`, or a TAS queue's defaults).
    pub pod_annotations: BTreeMap<String, String>,
    /// How the nodes are bought (`spec.capacity`, checked; its selectors and tolerations are in
    /// `node_selector` and `tolerations` already). Empty: the platform's standing node pools.
    pub capacity: Vec<crate::capacity::Choice>,
    /// `spec.podTemplate` over the defaults' one, for `render` to merge into the generated pod.
    pub pod_template: Option<super::pod_template::PodTemplate>,
    /// Trainer's dataset and model initializers (`spec.initializers`).
    pub initializers: Option<super::initializers::ResolvedInitializers>,
    /// The volumes, mounts and pod annotations of `spec.storage`.
    pub storage: super::storage::ResolvedStorage,
    /// Where the runtime's defaults are written, the one whose values win first (set when the
    /// runtime is taken from [`super::Pending`]; a finding on a value they set points there).
    pub defaults: Vec<(Place, ObjectRef)>,
}

/// What the accelerator contributes to the runtime.
pub struct AcceleratorPlan {
    pub accel: Accel,
    pub num_nodes: i32,
    pub node_selector: BTreeMap<String, String>,
    pub tolerations: Vec<Toleration>,
    pub env: Vec<EnvVar>,
    pub jobset_annotations: BTreeMap<String, String>,
    /// Extended resources (requests equal limits).
    pub limits: BTreeMap<String, Quantity>,
    /// Requests added only when the container requests and limits neither cpu nor memory
    /// (hugepages need one of them beside them).
    pub fallback_requests: BTreeMap<String, Quantity>,
    /// The key of `JaxRuntimeDefaults.spec.images` and the data's image for this accelerator.
    pub image_key: String,
    pub default_image: String,
}

impl Resolved {
    /// A one-line description of the accelerator, for the annotation and for humans.
    pub fn accelerator_summary(&self) -> String {
        let r = self;
        match &r.accelerator {
            Accel::Cpu => "cpu".to_string(),
            Accel::Gpu(g) if g.machine_types.is_empty() => format!("gpu {} x{} per node ({})", g.model, g.count, r.platform),
            Accel::Gpu(g) => format!("gpu {} x{} per node ({}, {})", g.model, g.count, r.platform, g.machine_types.join(" | ")),
            Accel::Tpu(t) => format!(
                "tpu {} {} ({} x {}, {})",
                t.generation,
                t.topology,
                crate::words::count(t.hosts, "host"),
                crate::words::count(t.chips_per_host, "chip"),
                t.machine_type
            ),
        }
    }
}
