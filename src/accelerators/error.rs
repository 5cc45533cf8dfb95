//! Why a lookup in the accelerator data found nothing, or why the data does not load.

/// A lookup in the accelerator data that found nothing, or data that is not well formed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AcceleratorError {
    #[error("unknown TPU type `{name}`; expected one of {}", quoted(.known))]
    UnknownTpu { name: String, known: Vec<String> },
    #[error("unknown TPU accelerator type `{name}`; expected <prefix>-<cores>, prefixes: {}", quoted(.prefixes))]
    UnknownTpuAcceleratorType { name: String, prefixes: Vec<String> },
    #[error(
        "`{name}`: {generation} accelerator types count TensorCores ({per_chip} per chip), so the number must be a multiple of {per_chip}"
    )]
    TensorCores { name: String, generation: String, per_chip: u32 },
    #[error("unknown GPU model `{name}`; expected one of {}", quoted(.known))]
    UnknownGpu { name: String, known: Vec<String> },
    #[error("unknown GPU vendor `{name}`; expected one of {}", quoted(.known))]
    UnknownGpuVendor { name: String, known: Vec<String> },
    #[error("unknown platform `{name}`; expected one of {}", quoted(.known))]
    UnknownPlatform { name: String, known: Vec<String> },
    #[error("catalog/accelerators/{file}: {message}")]
    Data { file: &'static str, message: String },
}

/// `a`, `b` -> "`a`, `b`".
pub(crate) fn quoted(names: &[String]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}
