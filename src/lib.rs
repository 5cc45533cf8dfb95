//! jax-runtimes: Kubeflow Trainer JAX runtimes from a declarative catalog.
//!
//! Data flows one way: [`read`] (files, stdin, the built-in catalog, a ResourceList) ->
//! [`resolve`] (defaults, [`matrix`] expansion, [`accelerators`] lookup) -> [`render`] (typed
//! [`trainer`] objects) -> [`validate`] -> [`write`] (YAML, files) and [`report`] (findings).
//! [`pipeline`] runs the middle stages; [`cli`] and [`krm`] are the two front doors.

pub mod accelerators;
pub mod catalog;
pub mod cli;
pub mod diag;
pub mod docs;
pub mod krm;
pub mod matrix;
pub mod pipeline;
pub mod read;
pub mod render;
pub mod report;
pub mod resolve;
pub mod trainer;
pub mod validate;
pub mod write;
pub mod yaml;

pub use diag::{Diagnostic, ObjectRef, Severity};
pub use pipeline::{generate, Generated, Runtime};
