//! Strings over [`MAX_SCALAR_BYTES`] found in a YAML text before it is parsed. The parser builds
//! a quoted string with escapes, or a block scalar (`|`, `>`), by appending to it, growing it by
//! doubling: an 80 MB one costs several times its size before anything can refuse it. This scan
//! only reads the text: a quoted string on one line (`"..."` with `\` escapes, `'...'` with
//! `''`), the more-indented lines after a block indicator (`key: |`, `- >-`), and a plain
//! (unquoted) value on one line (`key: value`, `- value`). What it does not recognise (a quoted
//! string over several lines, a tagged block, a plain value whose first 3 MiB hold a `,`, a
//! bracket, a quote or a backslash) is refused after parsing, as before; what it recognises is a
//! string by YAML's own rules, and what it counts is at most the string's length, so nothing
//! valid that a cluster could store is refused.

use super::long::MAX_SCALAR_BYTES;

/// The byte offset where a string over [`MAX_SCALAR_BYTES`] starts (its opening quote or its
/// block indicator) and its length (at least), if the text holds one the scan recognises.
pub fn long_scalar(text: &str) -> Option<(usize, usize)> {
    if text.len() <= MAX_SCALAR_BYTES {
        return None;
    }
    let mut lines = lines(text).peekable();
    while let Some((start, line)) = lines.next() {
        if let Some((at, indent)) = block_indicator(line) {
            let mut len = 0usize;
            // The content's indentation: that of its first line that is not blank.
            let mut content_indent = None;
            // The block's lines are its content, not YAML to look into: taken here.
            while let Some(&(_, l)) = lines.peek() {
                let blank = l.trim().is_empty();
                if !blank && leading_spaces(l) <= indent {
                    break;
                }
                if !blank && content_indent.is_none() {
                    content_indent = Some(leading_spaces(l));
                }
                // Bytes of content only, no line breaks: a lower bound whatever the chomping
                // and folding, so that nothing at or under the limit is refused.
                len += l.len().saturating_sub(content_indent.unwrap_or(l.len()));
                lines.next();
            }
            if len > MAX_SCALAR_BYTES {
                return Some((start + at, len));
            }
            continue;
        }
        if line.len() > MAX_SCALAR_BYTES {
            if let Some((at, len)) = long_quoted(line).or_else(|| long_plain(line)) {
                return Some((start + at, len));
            }
        }
    }
    None
}

/// Each line's byte offset and text, without its line break (`\n`, `\r\n`).
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n').map(move |l| {
        let start = at;
        at += l.len();
        (start, l.strip_suffix('\n').map_or(l, |l| l.strip_suffix('\r').unwrap_or(l)))
    })
}

fn leading_spaces(l: &str) -> usize {
    l.bytes().take_while(|b| *b == b' ').count()
}

/// Where a block indicator ends `line` as its value (`key: |`, `- >-`, `key: |2 # comment`), and
/// the indentation its content must exceed.
fn block_indicator(line: &str) -> Option<(usize, usize)> {
    let mut t = line.trim_end();
    if let Some(p) = t.find(" #") {
        t = t[..p].trim_end();
    }
    let tok = t.rsplit(' ').next()?;
    let mut chars = tok.chars();
    if !matches!(chars.next(), Some('|' | '>')) {
        return None;
    }
    let rest: Vec<char> = chars.collect();
    let (digits, signs) =
        (rest.iter().filter(|c| c.is_ascii_digit() && **c != '0').count(), rest.iter().filter(|c| matches!(c, '+' | '-')).count());
    if rest.len() > 2 || digits + signs != rest.len() || digits > 1 || signs > 1 {
        return None;
    }
    let before = t[..t.len() - tok.len()].trim_end();
    let value_of_key = before.ends_with(':') && before.len() > 1;
    let sequence_entry = before == "-" || before.ends_with(" -");
    if !(value_of_key || sequence_entry) {
        return None;
    }
    // The column the content must be indented past: the key's (after any `- ` of sequence
    // entries the key is in: `- key: |`), or for `- |` the dash's.
    let b = line.as_bytes();
    let mut col = leading_spaces(line);
    let mut last_dash = None;
    while b.get(col) == Some(&b'-') && b.get(col + 1) == Some(&b' ') {
        last_dash = Some(col);
        col += 2;
        while b.get(col) == Some(&b' ') {
            col += 1;
        }
    }
    let indent = if value_of_key { col } else { last_dash.unwrap_or(col) };
    Some((t.len() - tok.len(), indent))
}

/// A quoted string over [`MAX_SCALAR_BYTES`] on this line (to the line's end if it is not
/// closed there): its opening quote's offset and its length.
fn long_quoted(line: &str) -> Option<(usize, usize)> {
    let b = line.as_bytes();
    let mut i = 0;
    let mut prev = None::<u8>;
    while i < b.len() {
        let c = b[i];
        if c == b'#' && (i == 0 || matches!(b[i - 1], b' ' | b'\t')) {
            return None;
        }
        if (c == b'"' || c == b'\'') && prev.is_none_or(|p| matches!(p, b':' | b'-' | b'[' | b'{' | b',' | b'?')) {
            let open = i;
            i += 1;
            while i < b.len() {
                match (c, b[i]) {
                    (b'"', b'\\') => i += 2,
                    (b'"', b'"') => break,
                    (b'\'', b'\'') if b.get(i + 1) == Some(&b'\'') => i += 2,
                    (b'\'', b'\'') => break,
                    _ => i += 1,
                }
            }
            let len = i.min(b.len()) - open - 1;
            if len > MAX_SCALAR_BYTES {
                return Some((open, len));
            }
            prev = Some(c);
            i += 1;
            continue;
        }
        if !matches!(c, b' ' | b'\t') {
            prev = Some(c);
        }
        i += 1;
    }
    None
}

/// A plain (unquoted) value over [`MAX_SCALAR_BYTES`] on this line, after `key: ` or `- `: its
/// first byte's offset and its length (at least). The count stops at the first byte that could
/// end the value in some context or that it could stand for less than itself: `,[]{}` (which end
/// a plain value inside a flow collection, and this scan does not know whether the line is in
/// one), ` #`, `: `, and a quote or a backslash (the line could be inside a quoted string that
/// started on an earlier line, where an escape is shorter than its text). So the count is a lower
/// bound whatever the line is part of.
fn long_plain(line: &str) -> Option<(usize, usize)> {
    let b = line.as_bytes();
    let skip_spaces = |mut i: usize| {
        while matches!(b.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        i
    };
    let mut i = skip_spaces(0);
    let mut entry = false;
    while b.get(i) == Some(&b'-') && matches!(b.get(i + 1), Some(b' ' | b'\t')) {
        entry = true;
        i = skip_spaces(i + 1);
    }
    // `key: value`: the key plain and short (a quoted or flow key is not looked into).
    let value = match b[i..].windows(2).take(1024).position(|w| w[0] == b':' && matches!(w[1], b' ' | b'\t')) {
        Some(p) if !matches!(b.get(i), Some(b'"' | b'\'' | b'[' | b'{' | b'?' | b'#')) => skip_spaces(i + p + 1),
        Some(_) => return None,
        None if entry => i,
        None => return None,
    };
    // A value that is not plain, or that may not be one (a tag, an anchor, an alias, a nested
    // entry or a reserved indicator).
    let first = *b.get(value)?;
    if matches!(first, b'"' | b'\'' | b'[' | b']' | b'{' | b'}' | b'|' | b'>' | b'!' | b'&' | b'*' | b'#' | b'%' | b'@' | b'`' | b',')
        || (matches!(first, b'-' | b'?' | b':') && matches!(b.get(value + 1), None | Some(b' ' | b'\t')))
    {
        return None;
    }
    let mut len = 0;
    for (k, c) in b[value..].iter().enumerate() {
        let next = b.get(value + k + 1);
        let ends = match c {
            b',' | b'[' | b']' | b'{' | b'}' | b'"' | b'\'' | b'\\' => true,
            b' ' | b'\t' => next == Some(&b'#'),
            b':' => matches!(next, None | Some(b' ' | b'\t')),
            _ => false,
        };
        if ends {
            break;
        }
        len = k + 1;
    }
    (len > MAX_SCALAR_BYTES).then_some((value, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn over() -> String {
        "x".repeat(MAX_SCALAR_BYTES + 1)
    }

    #[test]
    fn quoted_and_block_strings_over_the_limit_are_found_where_they_start() {
        let o = over();
        let cases = [
            (format!("a: 1\nb: \"\\t{o}\"\n"), 8),
            (format!("a: 1\nb: 'it''s {o}'\n"), 8),
            (format!("a:\n- \"{o}\n"), 5),
            (format!("a: 1\nb: |\n  {o}\n"), 8),
            (format!("a: 1\nb: >- # note\n{}", format!("  {}\n", "y".repeat(1000)).repeat(MAX_SCALAR_BYTES / 1000 + 1)), 8),
            (format!("list:\n- |2\n   {o}\n"), 8),
            (format!("- a: 1\n  b: |\n    {o}\n"), 12),
            (format!("a: 1\nb: {o}\n"), 8),
            (format!("a: 1\nb:   {o} # note\n"), 10),
            (format!("a:\n- {o}\n"), 5),
            (format!("- - key: {o}: x\n"), 9),
            (format!("a: 1\r\nb: {o}\r\n"), 9),
        ];
        for (text, at) in cases {
            let found = long_scalar(&text);
            assert_eq!(found.map(|(a, _)| a), Some(at), "{:?}", &text[..40]);
            assert!(found.is_some_and(|(_, len)| len > MAX_SCALAR_BYTES));
        }
    }

    #[test]
    fn long_texts_of_short_strings_and_strings_at_the_limit_are_not_refused() {
        let at = "x".repeat(MAX_SCALAR_BYTES);
        let short = format!("- [{}]\n", ["\"a\\tb\"", "'it''s'", "plain"].join(", ")).repeat(MAX_SCALAR_BYTES / 20);
        let one_line = format!("a: [{}]\n", vec!["\"short\""; MAX_SCALAR_BYTES / 8].join(", "));
        let comment = format!("a: 1 # \"{}\n", "x".repeat(MAX_SCALAR_BYTES + 1));
        let inside_plain = format!("a: it\"s {}\n", "x".repeat(MAX_SCALAR_BYTES + 1));
        // Plain values: at the limit; cut by what could end them in a flow collection; what
        // could be an escape inside a quoted string begun on an earlier line; not plain values.
        let plain_at = format!("a: {at}\nb:\n- {at} # note\n");
        let plain_flow = format!("a: {{\n  k: {}, {}\n}}\n", "x".repeat(MAX_SCALAR_BYTES / 2), "y".repeat(MAX_SCALAR_BYTES / 2 + 10));
        let plain_escaped = format!("a: \"\n  k: {}\\\\{}\"\n", "x".repeat(MAX_SCALAR_BYTES / 2), "y".repeat(MAX_SCALAR_BYTES / 2 + 10));
        let tagged_alias = format!("a: !!str {o}\nb: *{o}\nc: &{o} 1\n", o = "x".repeat(MAX_SCALAR_BYTES + 1));
        // A block in a sequence entry's mapping ends at the entry's next key.
        let entries = format!("- a: |\n    short\n  b: {}\n", "x".repeat(100)).repeat(MAX_SCALAR_BYTES / 50);
        assert_eq!(long_scalar(&entries), None);
        // A block that ends at a less indented line, then many short lines.
        let block = format!("a: |\n  short\nb: {}\n", "x".repeat(10)).repeat(MAX_SCALAR_BYTES / 20);
        for text in [
            format!("a: \"{at}\"\n"),
            format!("a: |\n  {at}"),
            short,
            one_line,
            comment,
            inside_plain,
            block,
            plain_at,
            plain_flow,
            plain_escaped,
            tagged_alias,
        ] {
            assert_eq!(long_scalar(&text), None, "{:?}", &text[..40.min(text.len())]);
        }
    }
}
