//! Merging a fragment of a pod template into a whole one, as a user of `kubectl apply` expects,
//! with one difference: a value the whole template already holds is never overwritten. The lists
//! Kubernetes keys (containers, volumes, env, volume mounts, ...) merge item by item by their key,
//! a few atomic lists (tolerations, envFrom) take the fragment's items that are not there yet,
//! maps and objects merge key by key, and a scalar or any other list is set where the template has
//! none. A fragment value that differs from the template's is a [`Conflict`] naming both places.
//! The table of keys is data: `catalog/pod-template.yaml` (with its sources).
//!
//! The merge works on the JSON form of the typed objects (k8s-openapi's `PodTemplateSpec` and the
//! catalog's fragment), because it is one rule over every field of a PodSpec: the shapes are
//! checked by the types on both sides, before and after.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

const TABLE_YAML: &str = include_str!("../../catalog/pod-template.yaml");

/// `catalog/pod-template.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MergeTable {
    /// List field -> the fields that identify an item.
    pub keyed: BTreeMap<String, Vec<String>>,
    /// Lists whose items a fragment adds when not there yet.
    pub sets: Vec<String>,
    /// Maps whose values are quantities (`4` = `"4"`, `1Gi` = `1024Mi`).
    pub quantities: Vec<String>,
}

/// The table, parsed once.
pub fn table() -> &'static MergeTable {
    static TABLE: OnceLock<MergeTable> = OnceLock::new();
    #[allow(clippy::expect_used, reason = "embedded data; the unit tests parse it")]
    TABLE.get_or_init(|| serde_saphyr::from_str(TABLE_YAML).expect("catalog/pod-template.yaml parses"))
}

/// One step of a path into a pod template: a field or map key, or the item of a keyed list that
/// has these key values (`containers` item with `name: node`).
#[derive(Debug, Clone, PartialEq)]
pub enum Seg {
    Field(String),
    Item(Vec<(String, Value)>),
}

/// A path by keys, valid in any template that has the same items (whatever their order).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeyedPath(pub Vec<Seg>);

impl KeyedPath {
    fn push(&self, s: Seg) -> KeyedPath {
        let mut p = self.clone();
        p.0.push(s);
        p
    }

    /// The keyed path of an indexed field path (`spec.containers[1].resources.limits.memory`) in
    /// `value`: an item of a keyed list by its key fields, an item of another list by its scalar
    /// fields (a toleration by its key, operator, value and effect). A list of scalars ends the
    /// path at the list. `None` where `value` does not hold the path.
    pub fn from_indexed(path: &str, value: &Value) -> Option<KeyedPath> {
        let mut out = KeyedPath::default();
        let mut at = value;
        let mut rest = path;
        let mut list = "";
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('[') {
                let end = r.find(']')?;
                let item = at.as_array()?.get(r[..end].parse::<usize>().ok()?)?;
                let keys: Vec<(String, Value)> = match (table().keyed.get(list), item.as_object()) {
                    (Some(keys), _) => keys.iter().filter_map(|k| Some((k.clone(), item.get(k)?.clone()))).collect(),
                    (None, Some(fields)) => {
                        fields.iter().filter(|(_, v)| !v.is_object() && !v.is_array()).map(|(k, v)| (k.clone(), v.clone())).collect()
                    }
                    (None, None) => Vec::new(),
                };
                if keys.is_empty() {
                    return Some(out);
                }
                out.0.push(Seg::Item(keys));
                at = item;
                rest = &r[end + 1..];
            } else {
                // A key may hold dots (`cloud.google.com/gke-tpu-topology`): the shortest run of
                // the path's segments that is a key of the object.
                let fields = at.as_object()?;
                let end = rest
                    .char_indices()
                    .filter(|(_, c)| *c == '.' || *c == '[')
                    .map(|(i, _)| i)
                    .chain(std::iter::once(rest.len()))
                    .find(|&i| fields.contains_key(&rest[..i]))?;
                list = &rest[..end];
                at = fields.get(list)?;
                out.0.push(Seg::Field(list.to_string()));
                rest = &rest[end..];
            }
            rest = rest.strip_prefix('.').unwrap_or(rest);
        }
        Some(out)
    }

    /// The path with list indices as they are in `value` (`spec.containers[1].env[0].value`),
    /// `None` when `value` does not have it.
    pub fn indexed_in(&self, value: &Value) -> Option<String> {
        let mut out = String::new();
        let mut at = value;
        for s in &self.0 {
            match s {
                Seg::Field(f) => {
                    at = at.get(f)?;
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(f);
                }
                Seg::Item(keys) => {
                    let items = at.as_array()?;
                    let i = items.iter().position(|item| keys.iter().all(|(k, v)| item.get(k) == Some(v)))?;
                    at = &items[i];
                    out.push_str(&format!("[{i}]"));
                }
            }
        }
        Some(out)
    }

    /// The path in words: `spec.containers[name=node].env[name=X].value`.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for s in &self.0 {
            match s {
                Seg::Field(f) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(f);
                }
                Seg::Item(keys) => {
                    let k: Vec<String> = keys.iter().map(|(k, v)| format!("{k}={}", scalar(v))).collect();
                    out.push_str(&format!("[{}]", k.join(",")));
                }
            }
        }
        out
    }

    /// The field names along the path (keys of items left out).
    pub fn fields(&self) -> Vec<&str> {
        self.0
            .iter()
            .filter_map(|s| match s {
                Seg::Field(f) => Some(f.as_str()),
                Seg::Item(_) => None,
            })
            .collect()
    }

    /// The key values of the items along the path (`node` of `containers[name=node]`).
    pub fn item_names(&self) -> Vec<String> {
        self.0
            .iter()
            .filter_map(|s| match s {
                Seg::Item(keys) => Some(keys.iter().map(|(_, v)| scalar(v)).collect::<Vec<_>>().join(",")),
                Seg::Field(_) => None,
            })
            .collect()
    }
}

/// A value as a user writes it (strings without quotes).
pub fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A fragment value that differs from the one the template holds at the same path.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    pub path: KeyedPath,
    /// The template's value.
    pub generated: Value,
    /// The fragment's value.
    pub fragment: Value,
}

/// Merges `fragment` into `base` (both JSON objects of the same type), never replacing a value
/// `base` holds: every such difference is returned, and `base` keeps its value there.
pub fn merge(base: &mut Value, fragment: &Value) -> Vec<Conflict> {
    let mut conflicts = Vec::new();
    merge_at(base, fragment, &KeyedPath::default(), None, &mut conflicts, Mode::Keep);
    conflicts
}

/// `over` merged onto `base` where `over` wins every difference (a runtime's fragment over its
/// defaults' fragment).
pub fn over(base: &Value, over: &Value) -> Value {
    let mut out = base.clone();
    let mut ignored = Vec::new();
    merge_at(&mut out, over, &KeyedPath::default(), None, &mut ignored, Mode::Replace);
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// A different value is a conflict; the base keeps its own.
    Keep,
    /// The fragment's value replaces the base's.
    Replace,
}

fn merge_at(base: &mut Value, fragment: &Value, path: &KeyedPath, field: Option<&str>, out: &mut Vec<Conflict>, mode: Mode) {
    if fragment.is_null() {
        return;
    }
    if base.is_null() {
        *base = fragment.clone();
        return;
    }
    let t = table();
    match (base, fragment) {
        (Value::Object(b), Value::Object(f)) => {
            let quantities = field.is_some_and(|n| t.quantities.iter().any(|q| q == n));
            for (k, fv) in f {
                let p = path.push(Seg::Field(k.clone()));
                match b.get_mut(k) {
                    None => {
                        b.insert(k.clone(), fv.clone());
                    }
                    Some(bv) if quantities => {
                        if !same_quantity(bv, fv) {
                            differ(bv, fv, p, out, mode);
                        }
                    }
                    Some(bv) => merge_at(bv, fv, &p, Some(k), out, mode),
                }
            }
        }
        (Value::Array(b), Value::Array(f)) => {
            let name = field.unwrap_or_default();
            if let Some(keys) = t.keyed.get(name) {
                for item in f {
                    let key: Vec<(String, Value)> = keys.iter().map(|k| (k.clone(), item.get(k).cloned().unwrap_or(Value::Null))).collect();
                    let p = path.push(Seg::Item(key.clone()));
                    match b.iter_mut().find(|x| key.iter().all(|(k, v)| x.get(k).unwrap_or(&Value::Null) == v)) {
                        Some(existing) => merge_at(existing, item, &p, None, out, mode),
                        None => b.push(item.clone()),
                    }
                }
            } else if t.sets.iter().any(|s| s == name) {
                for item in f {
                    if !b.contains(item) {
                        b.push(item.clone());
                    }
                }
            } else if b != f {
                match mode {
                    Mode::Keep => out.push(Conflict { path: path.clone(), generated: Value::Array(b.clone()), fragment: fragment.clone() }),
                    Mode::Replace => b.clone_from(f),
                }
            }
        }
        (b, f) => {
            if b != f {
                differ(b, f, path.clone(), out, mode);
            }
        }
    }
}

fn differ(base: &mut Value, fragment: &Value, path: KeyedPath, out: &mut Vec<Conflict>, mode: Mode) {
    match mode {
        Mode::Keep => out.push(Conflict { path, generated: base.clone(), fragment: fragment.clone() }),
        Mode::Replace => *base = fragment.clone(),
    }
}

/// Two quantities that mean the same amount (`4` and `"4"`, `1Gi` and `1024Mi`).
fn same_quantity(a: &Value, b: &Value) -> bool {
    let text = |v: &Value| scalar(v);
    match (super::quantity::parse(&text(a)), super::quantity::parse(&text(b))) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_table_parses() {
        assert_eq!(table().keyed["containers"], ["name"]);
        assert!(table().sets.iter().any(|s| s == "tolerations"));
    }

    #[test]
    fn keyed_lists_merge_by_key_and_new_items_are_added() {
        let mut base = json!({"containers": [{"name": "node", "image": "a", "env": [{"name": "A", "value": "1"}],
            "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]}]});
        let frag = json!({"containers": [
            {"name": "sidecar", "image": "s"},
            {"name": "node", "env": [{"name": "B", "value": "2"}, {"name": "A", "value": "1"}],
             "volumeMounts": [{"name": "ckpt", "mountPath": "/ckpt"}]}]});
        assert!(merge(&mut base, &frag).is_empty());
        assert_eq!(base["containers"][0]["env"], json!([{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]));
        assert_eq!(base["containers"][0]["volumeMounts"][1]["mountPath"], "/ckpt");
        assert_eq!(base["containers"][1]["name"], "sidecar");
        assert_eq!(base["containers"][0]["image"], "a");
    }

    #[test]
    fn sets_take_new_items_only_and_maps_merge_by_key() {
        let t = json!({"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"});
        let mut base = json!({"tolerations": [t], "nodeSelector": {"a": "1"}});
        let frag = json!({"tolerations": [t, {"key": "spot", "operator": "Exists"}], "nodeSelector": {"b": "2", "a": "1"}, "priorityClassName": "high"});
        assert!(merge(&mut base, &frag).is_empty());
        assert_eq!(base["tolerations"].as_array().unwrap().len(), 2);
        assert_eq!(base["nodeSelector"], json!({"a": "1", "b": "2"}));
        assert_eq!(base["priorityClassName"], "high");
    }

    #[test]
    fn a_different_value_is_a_conflict_and_the_base_keeps_its_own() {
        let mut base = json!({"nodeSelector": {"topo": "4x4"}, "containers": [{"name": "node", "resources": {"limits": {"google.com/tpu": "4"}}, "command": ["a"]}]});
        let frag = json!({"nodeSelector": {"topo": "2x2"}, "containers": [{"name": "node", "resources": {"limits": {"google.com/tpu": 8}}, "command": ["b"]}]});
        let c = merge(&mut base, &frag);
        let paths: Vec<String> = c.iter().map(|c| c.path.describe()).collect();
        assert_eq!(paths, ["nodeSelector.topo", "containers[name=node].resources.limits.google.com/tpu", "containers[name=node].command"]);
        assert_eq!(base["nodeSelector"]["topo"], "4x4");
        assert_eq!(c[1].path.indexed_in(&frag).as_deref(), Some("containers[0].resources.limits.google.com/tpu"));
    }

    #[test]
    fn equal_quantities_in_other_spellings_agree() {
        let mut base = json!({"limits": {"google.com/tpu": "4", "memory": "1Gi"}});
        assert!(merge(&mut base, &json!({"limits": {"google.com/tpu": 4, "memory": "1024Mi"}})).is_empty());
        assert_eq!(merge(&mut base, &json!({"limits": {"memory": "2Gi"}})).len(), 1);
    }

    #[test]
    fn over_lets_the_upper_fragment_win() {
        let base = json!({"priorityClassName": "low", "containers": [{"name": "node", "env": [{"name": "A", "value": "1"}]}], "imagePullSecrets": [{"name": "a"}]});
        let up = json!({"priorityClassName": "high", "containers": [{"name": "node", "env": [{"name": "A", "value": "2"}]}], "imagePullSecrets": [{"name": "b"}]});
        let o = over(&base, &up);
        assert_eq!(o["priorityClassName"], "high");
        assert_eq!(o["containers"][0]["env"][0]["value"], "2");
        assert_eq!(o["imagePullSecrets"], json!([{"name": "a"}, {"name": "b"}]));
    }
}
