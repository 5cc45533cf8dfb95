//! Kubernetes' own rules, as facts taken from its sources (never its code): the syntax of names,
//! label keys and values ([`names`]). Each function cites the upstream function it follows.

pub mod names;
