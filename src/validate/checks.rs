//! The table of a runtime's semantic checks (after its structure reads): which module, whether its
//! findings restate Kubernetes' own checks, and whether the TrainJob checks run it again on the
//! runtime as a TrainJob overrides it (and why not). [`super::object`] and [`super::trainjob`] both
//! walk [`RUNTIME_CHECKS`], so `validate` and the TrainJob checks run the same checks.

use super::accelerators;
use super::admission;
use super::autopilot;
use super::consistency;
use super::ecosystem;
use super::interconnect;
use super::kubernetes;
use super::taints;
use super::tas;
use crate::diag::Diagnostic;
use crate::trainer::TrainingRuntime;

/// One check of a runtime's meaning, run once its structure reads into the typed model.
pub struct RuntimeCheck {
    /// The module that holds it.
    pub name: &'static str,
    pub check: fn(&TrainingRuntime) -> Vec<Diagnostic>,
    /// Its findings restate Kubernetes' own checks: one at a field a structure error already
    /// covers is the same mistake, and is dropped.
    pub restates_kubernetes: bool,
    /// `Ok` when the TrainJob checks run it again on the runtime as a TrainJob overrides it
    /// ([`super::trainjob`]), or why they do not.
    pub on_trainjob: Result<(), &'static str>,
}

/// The runtime checks, in the order their findings are reported. `validate` runs every one; the
/// TrainJob checks run those with `on_trainjob: Ok(())` on the merged runtime, so the two agree.
pub static RUNTIME_CHECKS: &[RuntimeCheck] = &[
    RuntimeCheck { name: "admission", check: admission::check, restates_kubernetes: false, on_trainjob: Ok(()) },
    RuntimeCheck { name: "ecosystem", check: ecosystem::check, restates_kubernetes: false, on_trainjob: Ok(()) },
    RuntimeCheck { name: "accelerators", check: accelerators::check, restates_kubernetes: false, on_trainjob: Ok(()) },
    RuntimeCheck {
        name: "interconnect",
        check: interconnect::check,
        restates_kubernetes: false,
        // A warning about the runtime's own wiring (its pod annotations and fabric resources for
        // the machine type it selects), which a TrainJob cannot add: no fix its author can make.
        on_trainjob: Err("the fabric is the runtime's wiring, which a TrainJob cannot add"),
    },
    RuntimeCheck { name: "consistency", check: consistency::check, restates_kubernetes: false, on_trainjob: Ok(()) },
    RuntimeCheck { name: "kubernetes", check: kubernetes::check, restates_kubernetes: true, on_trainjob: Ok(()) },
    RuntimeCheck { name: "autopilot", check: autopilot::check, restates_kubernetes: false, on_trainjob: Ok(()) },
    RuntimeCheck { name: "taints", check: taints::check, restates_kubernetes: false, on_trainjob: Ok(()) },
    RuntimeCheck {
        name: "tas",
        check: tas::runtime,
        restates_kubernetes: false,
        // The TrainJob checks run Kueue's TAS rules on the JobSet the TrainJob makes and report
        // only what its overrides add (`validate::queues`): the runtime's own are reported once.
        on_trainjob: Err("Kueue's TAS rules run on the TrainJob's JobSet, reporting only what the TrainJob adds"),
    },
];
