//! Queues for the catalog's runtimes (the render stage of Kueue objects): what a runtime's
//! workload is to Kueue ([`podsets`]), the flavors and resources a queue's runtimes need
//! ([`shape`]; one flavor per capacity type: [`capacity`]), the objects a `JaxRuntimeQueue` generates ([`generate`]),
//! the quotas a cluster's nodes hold ([`inventory`]), whether a ClusterQueue admits a
//! workload ([`admit`]), and what `fit` makes of that before the scheduler ([`gate`]).

pub mod admit;
pub mod capacity;
pub mod gate;
pub mod generate;
pub mod inventory;
pub mod podsets;
pub mod shape;

pub use admit::{Blocker, Queues, Verdict};
pub use podsets::PodSet;
