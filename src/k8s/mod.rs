//! Kubernetes' own rules, as facts taken from its sources (never its code), for the validator and
//! for the catalog's values in resolve: the tables ([`facts`], from `catalog/kubernetes.yaml`),
//! name syntax ([`names`]), quantities ([`quantity`]), a pod's requests as the scheduler adds
//! them up ([`requests`]), which nodes a pod may go to ([`selection`]), and checks that turn them
//! into findings at relative field paths: object metadata ([`meta`]), container resources
//! ([`resources`]), containers, env, ports and volumes ([`pod`]), tolerations, selectors and
//! affinity ([`scheduling`]), Job fields ([`job`]). Each function cites the upstream function it
//! follows; `validate` and `fit` call the same ones.

pub mod facts;
pub mod finding;
pub mod image;
pub mod job;
pub mod merge;
pub mod meta;
pub mod names;
pub mod pod;
pub mod quantity;
pub mod requests;
pub mod resources;
pub mod scheduling;
pub mod selection;
