//! Files that are templates rather than manifests: a Helm chart's template (Go template markers,
//! `{{ .Values.image }}`) or a file for `envsubst` (`${IMAGE}`). Neither is YAML until it is
//! rendered: the markers break the syntax (`name: {{ .Values.name }}` is a flow mapping in a key),
//! or parse as strings where a name or a number belongs. A finding on such a file says so and
//! how to render it, rather than only what the parser or the check saw.

/// The tool that renders a template marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// A Go template action, `{{ ... }}`: Helm (`helm template`).
    Helm,
    /// `${NAME}`: envsubst.
    Envsubst,
}

/// A template marker found in a text: which tool, the marker as written (shortened), its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    pub engine: Engine,
    pub text: String,
    /// 1-based.
    pub line: usize,
}

/// The longest marker text a message quotes.
const QUOTED: usize = 40;

/// The first template marker in `s`: a `{{ ... }}` closed on the same line, or `${NAME}`.
pub fn in_str(s: &str) -> Option<(Engine, String)> {
    let helm = s.find("{{").and_then(|at| {
        let rest = &s[at..];
        let end = rest.find("}}")?;
        (!rest[..end].contains('\n')).then(|| (at, &rest[..end + 2]))
    });
    let envsubst = s.match_indices("${").find_map(|(at, _)| {
        let rest = &s[at + 2..];
        let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
        let name = &rest[..len];
        (len > 0 && !name.starts_with(|c: char| c.is_ascii_digit()) && rest[len..].starts_with('}')).then(|| (at, &s[at..at + len + 3]))
    });
    let (engine, marker) = match (helm, envsubst) {
        (Some(h), Some(e)) if e.0 < h.0 => (Engine::Envsubst, e.1),
        (Some(h), _) => (Engine::Helm, h.1),
        (None, Some(e)) => (Engine::Envsubst, e.1),
        (None, None) => return None,
    };
    Some((engine, shorten(marker)))
}

fn shorten(s: &str) -> String {
    if s.chars().count() <= QUOTED {
        return s.to_string();
    }
    let head: String = s.chars().take(QUOTED - 5).collect();
    let close = if s.ends_with("}}") { "}}" } else { "}" };
    format!("{head} ...{close}")
}

/// The marker of `text` a parse error at `line` most likely comes from: one on that line, else
/// the first of the text.
pub fn in_text(text: &str, line: Option<usize>) -> Option<Marker> {
    let found = |(i, l): (usize, &str)| in_str(l).map(|(engine, text)| Marker { engine, text, line: i + 1 });
    line.and_then(|n| text.lines().nth(n.checked_sub(1)?).and_then(|l| found((n - 1, l))))
        .or_else(|| text.lines().enumerate().find_map(found))
}

/// What to do with a template: render it first, with the command that does.
pub fn render_first(engine: Engine, file: &str) -> String {
    match engine {
        Engine::Helm => {
            "this looks like a Helm template: render it first (`helm template RELEASE CHART > out.yaml`) and check what it renders"
                .to_string()
        }
        Engine::Envsubst => {
            format!("this looks like an envsubst template: render it first (`envsubst < {file} > out.yaml`) and check what it renders")
        }
    }
}

/// The sentence a finding's help gets when the value it is about holds a template marker.
pub fn value_hint(engine: Engine, marker: &str, file: &str) -> String {
    format!("the value holds `{marker}`: {}", render_first(engine, file))
}

/// The value at a field path of an object (`spec.template.spec.replicatedJobs[0].name`; a map
/// key may hold dots, `metadata.labels.kueue.x-k8s.io/queue-name`).
pub fn value_at<'a>(v: &'a serde_json::Value, path: &str) -> Option<&'a serde_json::Value> {
    use serde_json::Value;
    if path.is_empty() {
        return Some(v);
    }
    match v {
        Value::Array(items) => {
            let rest = path.strip_prefix('[')?;
            let close = rest.find(']')?;
            let item = items.get(rest[..close].parse::<usize>().ok()?)?;
            let after = &rest[close + 1..];
            value_at(item, after.strip_prefix('.').unwrap_or(after))
        }
        Value::Object(map) => {
            // The longest key the path starts with, then the rest of the path.
            let mut keys: Vec<&String> = map.keys().filter(|k| path.starts_with(k.as_str())).collect();
            keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
            keys.into_iter().find_map(|k| {
                let after = &path[k.len()..];
                if after.is_empty() {
                    Some(&map[k])
                } else if let Some(rest) = after.strip_prefix('.') {
                    value_at(&map[k], rest)
                } else if after.starts_with('[') {
                    value_at(&map[k], after)
                } else {
                    None
                }
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_of_helm_and_envsubst_are_found_and_others_are_not() {
        assert_eq!(in_str("name: {{ .Values.name }}"), Some((Engine::Helm, "{{ .Values.name }}".to_string())));
        assert_eq!(in_str("image: ${REGISTRY}/jax:${TAG}"), Some((Engine::Envsubst, "${REGISTRY}".to_string())));
        assert_eq!(in_str("{{- include \"chart.labels\" . | nindent 4 }}").map(|m| m.0), Some(Engine::Helm));
        for plain in ["echo $HOME", "$(JAX_PROCESS_ID)", "a {b: c}", "${1}", "{{ unclosed", "${}"] {
            assert_eq!(in_str(plain), None, "{plain}");
        }
        let long = format!("{{{{ {} }}}}", "x".repeat(80));
        assert_eq!(in_str(&long).unwrap().1.chars().count(), QUOTED - 5 + 6);
    }

    #[test]
    fn the_marker_on_the_error_line_is_preferred() {
        let text = "a: ${A}\nb: 1\nname: {{ .Values.name }}\n";
        assert_eq!(in_text(text, Some(3)).map(|m| (m.engine, m.line)), Some((Engine::Helm, 3)));
        assert_eq!(in_text(text, Some(2)).map(|m| (m.engine, m.line)), Some((Engine::Envsubst, 1)));
        assert_eq!(in_text("a: 1\n", Some(1)), None);
    }

    #[test]
    fn a_field_path_finds_its_value_with_dotted_keys() {
        let v = serde_json::json!({"metadata": {"labels": {"kueue.x-k8s.io/queue-name": "q", "kueue": {"x": 1}}},
            "spec": {"jobs": [{"name": "a"}, {"args": ["x", "y"]}]}});
        assert_eq!(value_at(&v, "metadata.labels.kueue.x-k8s.io/queue-name"), Some(&serde_json::json!("q")));
        assert_eq!(value_at(&v, "metadata.labels.kueue.x"), Some(&serde_json::json!(1)));
        assert_eq!(value_at(&v, "spec.jobs[1].args[1]"), Some(&serde_json::json!("y")));
        assert_eq!(value_at(&v, "spec.jobs[2]"), None);
        assert_eq!(value_at(&v, ""), Some(&v));
    }
}
