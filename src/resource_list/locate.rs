//! Where a parse error inside a ResourceList is in the user's files: kpt and kustomize send each
//! file's objects as items annotated with the file they came from
//! (`internal.config.kubernetes.io/path`, `config.kubernetes.io/path`, relative to the package),
//! so the item a line of the ResourceList falls in names the file; where that file can be read
//! from the working directory, reading it gives the line in the file.

use std::sync::Arc;

/// The file an item came from and the line of the error in it, where they can be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemPlace {
    /// The item's path annotation, as kpt wrote it.
    pub file: String,
    /// The 0-based index of the item in the ResourceList.
    pub item: usize,
    /// The line of the error in the file, when the file could be read and shows it.
    pub line: Option<usize>,
    /// The parser's message for the file itself, when it was read.
    pub message: Option<String>,
}

const PATH_KEYS: [&str; 2] = ["internal.config.kubernetes.io/path", "config.kubernetes.io/path"];

/// The item of `body` (a block-style ResourceList, as kpt writes one) that holds `line` (1-based),
/// and its file; the file read from the working directory for the error's line in it.
pub fn item_at(body: &str, line: usize) -> Option<ItemPlace> {
    let lines: Vec<&str> = body.lines().collect();
    let items_at = lines.iter().position(|l| l.trim_end() == "items:")?;
    // The items' dash column: that of the first list entry after `items:`.
    let dash = lines.get(items_at + 1..)?.iter().find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))?;
    let indent = dash.len() - dash.trim_start().len();
    if !dash.trim_start().starts_with("- ") && dash.trim() != "-" {
        return None;
    }
    // By `get`: a line with a wide character before the column is not a start (and no panic).
    let is_start = |l: &str| match (l.get(..indent), l.get(indent..)) {
        (Some(lead), Some(rest)) => lead.trim().is_empty() && (rest.starts_with("- ") || rest.trim_end() == "-"),
        _ => false,
    };
    let ends_list = |l: &str| !l.trim().is_empty() && !l.starts_with(' ') && !l.starts_with('-') && !l.starts_with('#');
    let mut starts = Vec::new();
    let mut list_end = lines.len();
    for (i, l) in lines.iter().enumerate().skip(items_at + 1) {
        if ends_list(l) {
            list_end = i;
            break;
        }
        if is_start(l) {
            starts.push(i);
        }
    }
    let target = line.checked_sub(1)?;
    let item = starts.iter().rposition(|&s| s <= target)?;
    let end = starts.get(item + 1).copied().unwrap_or(list_end);
    if target >= end {
        return None;
    }
    let text = &lines[starts[item]..end];
    let file = PATH_KEYS.iter().find_map(|key| {
        text.iter().find_map(|l| {
            let rest = l.trim_start().strip_prefix(key)?.strip_prefix(':')?.trim();
            let v = rest.trim_matches(|c| c == '\'' || c == '"');
            (!v.is_empty()).then(|| v.to_string())
        })
    })?;
    // Only a path inside the working directory is read: the annotation is the input's word.
    let inside = {
        let p = std::path::Path::new(&file);
        p.is_relative() && p.components().all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir))
    };
    let read = if inside { std::fs::read_to_string(&file).ok() } else { None };
    let (line, message) = match read {
        Some(t) => match crate::read::parse_source(Arc::new(crate::read::Source::new(file.clone(), Some(t)))) {
            Err(d) => (d.line, Some(d.message)),
            Ok(_) => (None, None),
        },
        None => (None, None),
    };
    Some(ItemPlace { file, item, line, message })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
    annotations:
      config.kubernetes.io/path: 'a.yaml'
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: b
    annotations:
      internal.config.kubernetes.io/path: 'dir/b.yaml'
      config.kubernetes.io/path: 'dir/b.yaml'
  data: {x: 1}
functionConfig:
  kind: X
";

    #[test]
    fn the_item_of_a_line_names_its_file() {
        assert_eq!(item_at(LIST, 5).map(|p| (p.file, p.item)), Some(("a.yaml".to_string(), 0)));
        assert_eq!(item_at(LIST, 17).map(|p| (p.file, p.item)), Some(("dir/b.yaml".to_string(), 1)));
        assert_eq!(item_at(LIST, 2), None, "before the items");
        assert_eq!(item_at(LIST, 19), None, "the functionConfig");
        assert_eq!(item_at(&LIST.replace("name: a", "name: é"), 5).map(|p| p.item), Some(0), "a wide character");
        assert_eq!(item_at("items:\n  - a: 1\n é: 2\n", 3), None, "a wide character at the column");
    }

    #[test]
    fn a_path_outside_the_working_directory_is_not_read() {
        let list = LIST.replace("'a.yaml'", "'../../etc/hostname'");
        let place = item_at(&list, 5).unwrap();
        assert_eq!((place.file.as_str(), place.line, place.message), ("../../etc/hostname", None, None));
    }
}
