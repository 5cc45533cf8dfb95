//! jax-runtimes: Kubeflow Trainer JAX runtimes from a declarative catalog.
//!
//! Data flows one way, and the modules are its stages:
//! [`read`] (files, stdin, the built-in catalog) -> [`resolve`] (defaults, matrix expansion,
//! [`accelerators`] lookup, [`capacity`]: how the nodes are bought) -> [`render`] (typed [`trainer`] objects; [`trainjob`]: what Trainer
//! makes of a TrainJob and its runtime) -> [`validate`] -> [`write`]
//! (YAML, files, pages) and [`report`] (findings). [`pipeline`] runs resolve, render and validate
//! for both front doors, [`cli`] and [`krm`]; [`resource_list`] is the KRM wire format. [`fit`]
//! takes runtimes and a cluster's node and pod lists to the verdict the scheduler would reach;
//! [`live`] reads those lists (and the rest of a cluster's state) from a cluster instead of files.
//!
//! Shared by the stages: the catalog API ([`catalog`]), the rule registry ([`rules`]) and the
//! findings built from it ([`diag`]), label and annotation keys ([`keys`]), exit codes ([`exit`]),
//! YAML in and out ([`yaml`]), Kubernetes' own rules ([`k8s`]), apiVersion parsing ([`gvk`]),
//! nearest spellings ([`spelling`]) and counted nouns for messages ([`words`]). Stages never import a front door.

pub mod accelerators;
pub mod capacity;
pub mod catalog;
pub mod cli;
pub mod diag;
pub mod doctor;
pub mod exit;
pub mod fit;
pub mod fleet;
pub mod gvk;
pub mod k8s;
pub mod keys;
pub mod kinds;
pub mod krm;
pub mod kueue;
pub mod live;
pub mod pipeline;
pub mod queues;
pub mod read;
pub mod render;
pub mod report;
pub mod resolve;
pub mod resource_list;
pub mod rules;
pub mod spelling;
pub mod trainer;
pub mod trainjob;
pub mod validate;
pub mod words;
pub mod write;
pub mod yaml;

pub use diag::{Diagnostic, ObjectRef, Severity};
pub use exit::Exit;
pub use pipeline::{generate, Generated, Runtime};
