//! Queues for the catalog's runtimes (the render stage of Kueue objects): what a runtime's
//! workload is to Kueue ([`podsets`]) and whether a ClusterQueue admits it ([`admit`]).

pub mod admit;
pub mod podsets;

pub use admit::{Blocker, Queues, Verdict};
pub use podsets::PodSet;
