//! The built-in catalog: every file under `catalog/runtimes/`, embedded in the binary.

/// (path, text) of each built-in catalog file. A test checks that this list matches the folder.
pub const BUILTIN: &[(&str, &str)] = &[
    ("catalog/runtimes/defaults.yaml", include_str!("../../catalog/runtimes/defaults.yaml")),
    ("catalog/runtimes/cpu.yaml", include_str!("../../catalog/runtimes/cpu.yaml")),
    ("catalog/runtimes/gpu-gke.yaml", include_str!("../../catalog/runtimes/gpu-gke.yaml")),
    ("catalog/runtimes/gpu-generic.yaml", include_str!("../../catalog/runtimes/gpu-generic.yaml")),
    ("catalog/runtimes/gpu-fabrics.yaml", include_str!("../../catalog/runtimes/gpu-fabrics.yaml")),
    ("catalog/runtimes/gpu-dra.yaml", include_str!("../../catalog/runtimes/gpu-dra.yaml")),
    ("catalog/runtimes/tpu-v5e.yaml", include_str!("../../catalog/runtimes/tpu-v5e.yaml")),
    ("catalog/runtimes/tpu-v5p.yaml", include_str!("../../catalog/runtimes/tpu-v5p.yaml")),
    ("catalog/runtimes/tpu-v6e.yaml", include_str!("../../catalog/runtimes/tpu-v6e.yaml")),
    ("catalog/runtimes/tpu-dynamic.yaml", include_str!("../../catalog/runtimes/tpu-dynamic.yaml")),
    ("catalog/runtimes/tpu7.yaml", include_str!("../../catalog/runtimes/tpu7.yaml")),
    ("catalog/runtimes/capacity.yaml", include_str!("../../catalog/runtimes/capacity.yaml")),
    ("catalog/runtimes/production.yaml", include_str!("../../catalog/runtimes/production.yaml")),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn builtin_list_matches_the_catalog_folder() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/runtimes");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| format!("catalog/runtimes/{}", e.unwrap().file_name().to_string_lossy()))
            .filter(|n| n.ends_with(".yaml"))
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = BUILTIN.iter().map(|(n, _)| n.to_string()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded, "add new catalog files to read::BUILTIN");
    }
}
