//! How the Kubeflow Python SDK names a runtime's device (`catalog/accelerators/sdk.yaml`): the one
//! copy of its `get_container_devices` table, used by resolve (which limits the SDK can read), the
//! validator (`sdk/unknown-device`) and the docs pages (what `get_runtime()` shows).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `sdk.yaml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SdkData {
    /// In the SDK's order: the first that matches a limit key names the device.
    pub devices: Vec<SdkDevice>,
}

/// One entry: an exact resource name with its device name, or a prefix whose keys name
/// themselves (`nvidia.com/mig-1g.5gb` -> `mig-1g.5gb`), of which one only may be set.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SdkDevice {
    #[serde(default)]
    pub resource: Option<String>,
    #[serde(default)]
    pub prefix: Option<String>,
    #[serde(default)]
    pub device: Option<String>,
}

/// What the SDK makes of a container's limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Device {
    /// The container has no limits: the SDK reports no device.
    Unknown,
    /// The device name and the limit key whose value is its count per node.
    Named { device: String, key: String },
    /// The SDK raises: no key it reads.
    Unreadable,
    /// The SDK raises: more than one key of a prefix entry (MIG profiles).
    Several { keys: Vec<String> },
}

impl SdkData {
    /// The device the SDK reports for these limit keys, following its order.
    pub fn device<'a>(&self, limit_keys: impl IntoIterator<Item = &'a str> + Clone) -> Device {
        let keys: Vec<&str> = limit_keys.into_iter().collect();
        if keys.is_empty() {
            return Device::Unknown;
        }
        for d in &self.devices {
            if let Some(r) = &d.resource {
                if keys.contains(&r.as_str()) {
                    return Device::Named { device: d.device.clone().unwrap_or_else(|| r.clone()), key: r.clone() };
                }
            }
            if let Some(p) = &d.prefix {
                let matching: Vec<&str> = keys.iter().copied().filter(|k| k.starts_with(p.as_str())).collect();
                match matching.as_slice() {
                    [] => {}
                    [one] => {
                        let device = one.split_once('/').map(|(_, n)| n).unwrap_or(one).to_string();
                        return Device::Named { device, key: one.to_string() };
                    }
                    many => return Device::Several { keys: many.iter().map(|k| k.to_string()).collect() },
                }
            }
        }
        Device::Unreadable
    }

    /// Can the SDK read a container whose only device limit is `resource`?
    pub fn reads(&self, resource: &str) -> bool {
        matches!(self.device([resource]), Device::Named { .. })
    }

    /// The keys the SDK reads, for messages (`nvidia.com/gpu, google.com/tpu, nvidia.com/mig-*, ...`).
    pub fn known_keys(&self) -> Vec<String> {
        self.devices.iter().filter_map(|d| d.resource.clone().or_else(|| d.prefix.as_ref().map(|p| format!("{p}*")))).collect()
    }

    /// The device of limits given as a map.
    pub fn device_of<V>(&self, limits: &BTreeMap<String, V>) -> Device {
        self.device(limits.keys().map(String::as_str))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accelerators::data;

    #[test]
    fn the_sdk_order_decides_the_device() {
        let sdk = &data().sdk;
        let named = |keys: &[&str]| match sdk.device(keys.iter().copied()) {
            Device::Named { device, .. } => device,
            other => format!("{other:?}"),
        };
        assert_eq!(named(&["cpu", "nvidia.com/gpu"]), "gpu");
        assert_eq!(named(&["google.com/tpu", "memory"]), "tpu");
        assert_eq!(named(&["nvidia.com/mig-1g.5gb"]), "mig-1g.5gb");
        assert_eq!(named(&["huawei.com/Ascend910"]), "npu");
        assert_eq!(named(&["cpu", "memory"]), "cpu");
        assert_eq!(sdk.device(["amd.com/gpu"]), Device::Unreadable);
        assert_eq!(sdk.device(["memory"]), Device::Unreadable);
        assert!(matches!(sdk.device(["nvidia.com/mig-1g.5gb", "nvidia.com/mig-2g.10gb"]), Device::Several { .. }));
        assert_eq!(named(&["nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "nvidia.com/mig-2g.10gb"]), "gpu");
        assert_eq!(sdk.device(std::iter::empty()), Device::Unknown);
        assert!(sdk.reads("nvidia.com/gpu") && !sdk.reads("amd.com/gpu"));
    }
}
