//! The longest string the reader takes, and where a longer one is: shared by the YAML reader
//! and its JSON fast path ([`super::json`]).

/// The longest string (a scalar or a mapping key) the reader takes: 3 MiB, the largest request
/// body the Kubernetes API server accepts (`MaxRequestBodyBytes: int64(3 * 1024 * 1024)` in
/// `NewConfig`, kubernetes/kubernetes `staging/src/k8s.io/apiserver/pkg/server/config.go`: twice
/// etcd's 1.5 MiB request limit). No object a cluster stores, and so no field rendered from a
/// catalog, can hold a longer one. A longer string is refused before its value is built, so
/// that reading such an input holds the text and at most one copy of it.
pub const MAX_SCALAR_BYTES: usize = 3 * 1024 * 1024;

/// Where a string over [`MAX_SCALAR_BYTES`] is: its document (among the non-empty ones), its
/// field path (for a key, the path of the mapping that holds it), its length and, where known,
/// its byte offset in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Long {
    pub doc: usize,
    pub path: String,
    pub key: bool,
    pub len: usize,
    pub offset: Option<usize>,
}
