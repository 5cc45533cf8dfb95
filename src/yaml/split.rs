//! Cutting a multi-document stream into pieces at its document markers, so that the pieces can
//! be parsed on every core and give the same documents as the whole.

/// Below this many bytes per thread, one thread parses faster than starting more.
pub const PARALLEL_MIN_BYTES: usize = 128 * 1024;

/// Whether `rest`, at the start of a line, starts with the document marker `marker` (`---` or
/// `...`) alone or followed by a space.
pub(crate) fn is_marker_of(rest: &[u8], marker: &[u8; 3]) -> bool {
    rest.starts_with(marker) && matches!(rest.get(3), None | Some(b'\n' | b'\r' | b' ' | b'\t'))
}

/// The byte offsets of every document start marker (`---` at the start of a line) of `text`:
/// where [`documents`] may cut.
pub(crate) fn markers(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if is_marker_of(&bytes[at..], b"---") {
            out.push(at);
        }
        match bytes[at..].iter().position(|b| *b == b'\n') {
            Some(i) => at += i + 1,
            None => break,
        }
    }
    out
}

/// Cuts a stream into at most `n` pieces of about equal size, each after the first starting at a
/// document start marker (`---` alone or followed by a space, at the start of a line). YAML
/// forbids such a line inside a document (it ends any scalar, even a block scalar), and anchors
/// do not reach across documents, so the pieces hold the same documents as the whole. A stream
/// with directives (`%YAML`, `%TAG`: they belong to the next document) is not cut. The pieces
/// concatenate to `text`; every cut is at a line start, so never inside a UTF-8 character.
pub fn documents(text: &str, n: usize) -> Vec<&str> {
    if n <= 1 || text.starts_with('%') || text.contains("\n%") {
        return vec![text];
    }
    let bytes = text.as_bytes();
    let is_marker = |at: usize| is_marker_of(&bytes[at..], b"---");
    // The start of the line after byte `from` (searching bytes: `from` may fall inside a
    // multi-byte character; a `\n` byte never does).
    let next_line = |from: usize| bytes[from..].iter().position(|b| *b == b'\n').map(|i| from + i + 1);
    let mut pieces = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        let target = text.len() * k / n;
        if target <= start {
            continue;
        }
        let Some(mut at) = next_line(target) else { break };
        while at < text.len() {
            if is_marker(at) {
                pieces.push(&text[start..at]);
                start = at;
                break;
            }
            at = next_line(at).unwrap_or(text.len());
        }
    }
    pieces.push(&text[start..]);
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{parse_stream, parse_stream_in, parse_whole};
    use proptest::prelude::*;
    use serde_json::Value;

    /// Documents whose text looks like a marker where YAML says it is not one, or that end at
    /// a marker in ways a naive cut would get wrong.
    const TRICKY: &[&str] = &[
        "a: |\n  --- inside a block scalar, indented\n  ---\nb: 1\n",
        "a: >-\n  folded\n\n  more\n",
        "a: \"quoted ---\"\nb: '--- too'\n",
        "a: plain\n  continued\n",
        "---foo: not a marker\n",
        "a: [1,\n  2]\n",
        "anchor: &x {k: v}\nalias: *x\n",
        "a: \"x\\\n  y\"\n",
        "crlf: 1\r\n",
        "...\n",
        "# only a comment\n",
        "{\"json\": [1, 2.5, null, true]}\n",
        "ümlaut: 日本語のテキスト 🎉\n",
    ];

    #[test]
    fn a_stream_cut_at_its_markers_parses_to_the_same_documents() {
        let mut text = String::new();
        for i in 0..400 {
            text.push_str(if i % 3 == 0 {
                "---\n"
            } else if i % 3 == 1 {
                "--- \n"
            } else {
                "---\r\n"
            });
            text.push_str(TRICKY[i % TRICKY.len()]);
        }
        let whole = parse_whole(&text).unwrap();
        for n in 2..8 {
            let pieces = documents(&text, n);
            assert!(pieces.len() > 1, "{n} pieces asked, none cut");
            assert_eq!(pieces.concat(), text, "the pieces must add up to the stream");
            let parsed: Vec<Value> = pieces.iter().flat_map(|p| parse_whole(p).unwrap()).collect();
            assert_eq!(parsed, whole, "cut in {n}");
        }
    }

    #[test]
    fn a_cut_target_inside_a_multi_byte_character_does_not_panic() {
        // Every byte offset of a stream of 3- and 4-byte characters as the cut target.
        let doc = "k: 日本語🎉🎉🎉\n---\n";
        let text = doc.repeat(40);
        for n in 2..=text.len().min(200) {
            let pieces = documents(&text, n);
            assert_eq!(pieces.concat(), text);
        }
    }

    #[test]
    fn streams_with_directives_or_no_markers_are_not_cut() {
        let directives = "%YAML 1.2\n---\na: 1\n".repeat(100);
        assert_eq!(documents(&directives, 4).len(), 1);
        let one = format!("a:\n{}", "  - x\n".repeat(10_000));
        assert_eq!(documents(&one, 4).len(), 1);
    }

    #[test]
    fn a_piece_that_does_not_parse_falls_back_to_the_error_of_the_whole_stream() {
        // A flow mapping left open across a marker: every cut piece fails differently from
        // the whole; the error must be the whole stream's (same message, same line).
        let mut text = "---\na: 1\n".repeat(PARALLEL_MIN_BYTES / 4);
        text.push_str("---\nb: {open\n");
        text.push_str(&"---\nc: 2\n".repeat(PARALLEL_MIN_BYTES / 4));
        assert!(documents(&text, 2).len() > 1);
        assert_eq!(parse_stream(&text).unwrap_err(), parse_whole(&text).unwrap_err());
    }

    /// Pieces of documents that trap a cut: markers inside block scalars and quotes, CRLF,
    /// multi-byte characters right at the cut, directives, comments, flow collections broken
    /// over lines, and mistakes (an unclosed flow map, a duplicate key, a tab).
    fn fragment() -> impl Strategy<Value = String> {
        let fixed = prop::sample::select(vec![
            "---\n",
            "--- \n",
            "---\r\n",
            "...\n",
            "a: 1\n",
            "b: |\n  --- not a marker\n  ---\n",
            "c: '--- quoted'\n",
            "d: \"x ---\"\n",
            "e: >-\n  folded\n\n  more\n",
            "f: [1,\n  2]\n",
            "g: &x {k: v}\nh: *x\n",
            "# comment\n",
            "crlf: 1\r\n",
            "ü: 日本語 🎉\n",
            "k: {open\n",
            "dup: 1\ndup: 2\n",
            "\tbad: tab\n",
            "%YAML 1.2\n",
            "---foo: 1\n",
            "- item\n",
            "x\n",
        ]);
        let unicode = "[\\PC\\n]{0,12}";
        prop::collection::vec(prop_oneof![4 => fixed.prop_map(str::to_string), 1 => unicode.prop_map(|s: String| s)], 0..60)
            .prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

        /// Whatever the text: the pieces add up to it, every cut is at a document marker at the
        /// start of a line, and the stream parses to exactly what one parse gives, errors
        /// (message and line) included.
        #[test]
        fn cuts_are_at_markers_and_parse_like_the_whole(text in fragment(), n in 2usize..9) {
            let pieces = documents(&text, n);
            prop_assert_eq!(pieces.concat(), text.clone());
            let mut at = 0;
            for (i, p) in pieces.iter().enumerate() {
                if i > 0 {
                    prop_assert!(at == 0 || text.as_bytes()[at - 1] == b'\n', "a cut not at a line start");
                    prop_assert!(p.starts_with("---") && matches!(p.as_bytes().get(3), None | Some(b'\n' | b'\r' | b' ' | b'\t')), "a cut not at a marker: {:?}", p);
                }
                at += p.len();
            }
            prop_assert_eq!(parse_stream_in(&text, n), parse_whole(&text));
        }

        /// Read a batch of pieces at a time (as `render` reads a file), the same documents, or
        /// the same error, as one parse.
        #[test]
        fn batches_of_pieces_parse_like_the_whole(text in fragment(), piece in 1usize..64, threads in 1usize..4) {
            let mut pieces = crate::yaml::Pieces::sized(&text, piece, threads).unwrap();
            let mut docs = Vec::new();
            let mut error = None;
            while let Some(batch) = pieces.next_batch(&text) {
                match batch {
                    Ok(mut b) => docs.append(&mut b),
                    Err(e) => { error = Some(e); break; }
                }
            }
            prop_assert!(pieces.next_batch(&text).is_none(), "nothing after the end or an error");
            match (parse_whole(&text), error) {
                (Ok(whole), None) => prop_assert_eq!(docs, whole),
                (Err(whole), Some(e)) => prop_assert_eq!(e, whole),
                (whole, e) => prop_assert!(false, "one parse: {:?}; in batches: {:?}", whole.map(|d| d.len()), e),
            }
        }
    }

    #[test]
    fn a_large_stream_is_given_a_batch_at_a_time() {
        let text = "---
a: 1
"
        .repeat(4 * crate::yaml::PIECE_BYTES / 9);
        let mut pieces = crate::yaml::Pieces::new(&text).unwrap();
        let mut batches = 0;
        let mut docs = 0;
        while let Some(b) = pieces.next_batch(&text) {
            batches += 1;
            docs += b.unwrap().len();
        }
        assert_eq!(docs, 4 * crate::yaml::PIECE_BYTES / 9);
        assert!(batches >= 2, "a 4 MiB stream must not be parsed in one batch ({batches})");
    }
}
