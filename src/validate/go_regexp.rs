//! Go's regular expression syntax for CRD `pattern`s, on the `regex` crate.
//!
//! The API server checks a structural schema's `pattern` with Go's `regexp` package
//! (k8s.io/kube-openapi `pkg/validation/validate/rexp.go` `compileRegexp`: `regexp.Compile`,
//! RE2 syntax with Perl flags), not with the ECMA 262 regex JSON Schema prescribes. The `regex`
//! crate's syntax is close to RE2; [`translate`] parses a pattern with Go's rules (as Go's
//! `regexp/syntax` `parse` does: which patterns are errors, and what each piece means) and writes
//! the equivalent `regex` pattern. The differences it handles:
//!
//! - `\d`, `\s`, `\w`, `\b` and `\B` are ASCII in Go (`\s` is `[\t\n\f\r ]`), Unicode in `regex`;
//! - `\Q...\E` quotes literal text in Go, `regex` has no such syntax;
//! - octal escapes (`\012`, `\0`) exist in Go only; `\1` alone (a backreference) is an error in both;
//! - any escaped ASCII punctuation is itself in Go: `\<` and `\>` are `<` and `>`, not the word
//!   boundaries they are in `regex`;
//! - a `{` that does not start a valid repetition (`a{`, `a{,2}`, `a{01}`) is a literal in Go, an
//!   error in `regex`; `\b{start}` is `\b` then literal text in Go;
//! - inside a class Go knows no nested classes or set operations: `[[a]`, `[a&&b]`, `[a--b]`,
//!   `[a~~b]` are plain members; `[:name:]` must be a POSIX class Go knows;
//! - only the flags `i`, `m`, `s`, `U` exist in Go (`(?x)`, `(?u)`, `(?R)` are errors), a capture
//!   name is `[A-Za-z0-9_]+` and may not repeat;
//! - stacked repetitions (`a**`, `a{2}{3}`), counts above 1000, nested counts whose product
//!   passes 1000 (`(a{100}){100}`), and more than 1000 nested groups are errors in Go;
//! - a repetition after a flag group (`a(?i)*`) repeats what came before the flags.
//!
//! Matching is then the same: leftmost-first semantics, `^`/`$` at the text's ends unless `(?m)`,
//! `.` without `\n` unless `(?s)`, simple case folding, UTF-8 text. Not followed: Go's limits on
//! a compiled program's size (`regex` has its own, larger one) and the exact set of `\p{...}`
//! names (any name the `regex` crate knows is taken).

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, OnceLock};

/// A pattern Go's `regexp.Compile` refuses (or, rarely, one the `regex` crate cannot build).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{pattern}` is not a valid Go regular expression: {reason}")]
pub struct GoRegexError {
    pub pattern: String,
    pub reason: String,
}

/// Go's limit on repetition counts (`regexp/syntax` `maxRepeat`).
const MAX_REPEAT: u32 = 1000;
/// How deep groups and repetitions may nest. Go takes a parse tree up to 1000 high
/// (`maxHeight`); the `regex` crate's compiler recurses and stops at 250 levels, and each of
/// these may take two of them: deeper patterns are refused (no CRD comes close).
const MAX_DEPTH: usize = 100;

/// The pattern compiled as Go reads it. Compiled patterns are shared: a CRD repeats the same
/// quantity and name patterns dozens of times.
pub fn compile(pattern: &str) -> Result<regex::Regex, GoRegexError> {
    static CACHE: OnceLock<Mutex<HashMap<String, Result<regex::Regex, GoRegexError>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(pattern) {
        return hit.clone();
    }
    let compiled = translate(pattern)
        .and_then(|rust| regex::Regex::new(&rust).map_err(|e| GoRegexError { pattern: pattern.to_string(), reason: e.to_string() }));
    cache.lock().unwrap_or_else(|p| p.into_inner()).insert(pattern.to_string(), compiled.clone());
    compiled
}

/// The `regex` crate pattern that matches exactly what the Go pattern matches.
pub fn translate(pattern: &str) -> Result<String, GoRegexError> {
    let mut p = Parser { chars: pattern.chars().collect(), pos: 0, names: HashSet::new() };
    let node = p.parse().map_err(|reason| GoRegexError { pattern: pattern.to_string(), reason })?;
    let mut out = String::new();
    emit(&node, &mut out);
    Ok(out)
}

/// The parse tree: only what the translation needs.
#[derive(Debug)]
enum Node {
    Literal(char),
    /// A class, already written in `regex` syntax (with its brackets).
    Class(String),
    /// `.`, `^`, `$`, `\A`, `\z`, `\b`, `\B`: written as given.
    Raw(&'static str),
    /// `(?flags)` on its own: changes the flags of what follows in the enclosing group.
    Flags(String),
    /// `depth`: how deep groups and repetitions nest in it, itself included.
    Group {
        capture: bool,
        flags: String,
        body: Box<Node>,
        depth: usize,
    },
    Repeat {
        min: u32,
        max: Option<u32>,
        lazy: bool,
        /// `*`, `+`, `?`: no count (the count check does not apply).
        counted: bool,
        sub: Box<Node>,
        depth: usize,
    },
    Concat(Vec<Node>),
    Alternate(Vec<Node>),
}

/// A counted repetition as written: its text, `min` (`None`: too big to read) and bound.
struct Count {
    text: String,
    min: Option<u32>,
    max: Bound,
}

enum Bound {
    /// `{n,}`
    Unbounded,
    Max(u32),
    TooBig,
}

/// An open group while parsing: its kind and flags (`None`: the whole pattern), the branches
/// before the last `|`, and the items since.
#[derive(Default)]
struct Frame {
    group: Option<(bool, String)>,
    branches: Vec<Node>,
    items: Vec<Node>,
}

impl Frame {
    fn finish(mut self) -> Node {
        if self.branches.is_empty() {
            return Node::Concat(self.items);
        }
        self.branches.push(Node::Concat(self.items));
        Node::Alternate(self.branches)
    }
}

/// What a `(` opens.
enum Open {
    /// `(?flags)`
    Flags(String),
    /// A group: capturing, and its flags.
    Group(bool, String),
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    names: HashSet<String>,
}

type Parsed<T> = Result<T, String>;

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn rest_starts_with(&self, s: &str) -> bool {
        s.chars().enumerate().all(|(i, c)| self.at(i) == Some(c))
    }

    /// The whole pattern, with an explicit stack of open groups (no recursion: a pattern may
    /// nest a thousand groups).
    fn parse(&mut self) -> Parsed<Node> {
        let mut stack = vec![Frame::default()];
        // Whether the previous token was a repetition (Go: `lastRepeat`).
        let mut last_repeat = false;
        while let Some(c) = self.peek() {
            let mut repeat = false;
            let depth = stack.len();
            let Some(top) = stack.last_mut() else { break };
            match c {
                '|' => {
                    self.pos += 1;
                    let items = std::mem::take(&mut top.items);
                    top.branches.push(Node::Concat(items));
                }
                ')' => {
                    self.pos += 1;
                    let (Some(frame), true) = (stack.pop(), depth > 1) else { return Err("unexpected )".into()) };
                    let (capture, flags) = frame.group.clone().unwrap_or_default();
                    let body = frame.finish();
                    let node = Node::Group { capture, flags, depth: body.depth() + 1, body: Box::new(body) };
                    if node.depth() > MAX_DEPTH {
                        return Err(format!("groups and repetitions nest more than {MAX_DEPTH} deep, the most jax-runtimes compiles"));
                    }
                    match stack.last_mut() {
                        Some(parent) => parent.items.push(node),
                        None => return Err("unexpected )".into()),
                    }
                }
                '(' => match self.open()? {
                    Open::Flags(f) => top.items.push(Node::Flags(f)),
                    Open::Group(capture, flags) => {
                        if depth > MAX_DEPTH {
                            return Err(format!("groups and repetitions nest more than {MAX_DEPTH} deep, the most jax-runtimes compiles"));
                        }
                        stack.push(Frame { group: Some((capture, flags)), ..Frame::default() });
                    }
                },
                '[' => top.items.push(self.class()?),
                '^' | '$' | '.' => {
                    self.pos += 1;
                    top.items.push(Node::Raw(match c {
                        '^' => "^",
                        '$' => "$",
                        _ => ".",
                    }));
                }
                '*' | '+' | '?' => {
                    self.pos += 1;
                    let (min, max) = match c {
                        '*' => (0, None),
                        '+' => (1, None),
                        _ => (0, Some(1)),
                    };
                    self.repeat(&mut top.items, min, max, false, last_repeat, &c.to_string())?;
                    repeat = true;
                }
                '{' => match self.counted_repeat() {
                    None => {
                        self.pos += 1;
                        top.items.push(Node::Literal('{'));
                    }
                    Some(Count { text, min, max }) => {
                        let max = match max {
                            Bound::Unbounded => None,
                            Bound::Max(m) => Some(m),
                            Bound::TooBig => return Err(format!("invalid repeat count `{text}`")),
                        };
                        let Some(min) = min.filter(|m| *m <= MAX_REPEAT) else { return Err(format!("invalid repeat count `{text}`")) };
                        if max.is_some_and(|m| m > MAX_REPEAT || min > m) {
                            return Err(format!("invalid repeat count `{text}`"));
                        }
                        self.repeat(&mut top.items, min, max, true, last_repeat, &text)?;
                        repeat = true;
                    }
                },
                '\\' => self.escape(&mut top.items)?,
                _ => {
                    self.pos += 1;
                    top.items.push(Node::Literal(c));
                }
            }
            last_repeat = repeat;
        }
        match (stack.pop(), stack.is_empty()) {
            (Some(top), true) => Ok(top.finish()),
            _ => Err("missing closing )".into()),
        }
    }

    /// Applies a repetition to the last item. `op` is the operator's text, for messages.
    fn repeat(&mut self, items: &mut Vec<Node>, min: u32, max: Option<u32>, counted: bool, last_repeat: bool, op: &str) -> Parsed<()> {
        let lazy = self.peek() == Some('?');
        if lazy {
            self.pos += 1;
        }
        let op = if lazy { format!("{op}?") } else { op.to_string() };
        if last_repeat {
            return Err(format!("invalid nested repetition operator `{op}`"));
        }
        // A flag group pushes nothing in Go: the repetition applies to what came before it.
        let Some(target) = items.iter().rposition(|n| !matches!(n, Node::Flags(_))) else {
            return Err(format!("missing argument to repetition operator `{op}`"));
        };
        let sub = items.remove(target);
        let node = Node::Repeat { min, max, lazy, counted, depth: sub.depth() + 1, sub: Box::new(sub) };
        if node.depth() > MAX_DEPTH {
            return Err(format!("groups and repetitions nest more than {MAX_DEPTH} deep, the most jax-runtimes compiles"));
        }
        if counted && (min >= 2 || max.is_some_and(|m| m >= 2)) && !repeat_is_valid(&node, MAX_REPEAT) {
            return Err(format!("invalid repeat count `{op}`"));
        }
        items.insert(target, node);
        Ok(())
    }

    /// `{n}`, `{n,}` or `{n,m}` at the position, as Go's `parseRepeat` reads it (digits without a
    /// leading zero), consumed when it is one. `None`: not a repetition, the `{` is a literal.
    fn counted_repeat(&mut self) -> Option<Count> {
        let start = self.pos;
        let mut i = start + 1;
        // Go's `parseInt`: `None` when there is no number, `Some(None)` when it is 1e8 or more.
        let int = |i: &mut usize, chars: &[char]| -> Option<Option<u32>> {
            let from = *i;
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            if *i == from || (*i - from >= 2 && chars[from] == '0') {
                return None;
            }
            let digits: String = chars[from..*i].iter().collect();
            Some(digits.parse::<u32>().ok().filter(|n| *n < 100_000_000))
        };
        let min = int(&mut i, &self.chars)?;
        let max = if self.chars.get(i) == Some(&',') {
            i += 1;
            if self.chars.get(i) == Some(&'}') {
                Bound::Unbounded
            } else {
                match int(&mut i, &self.chars)? {
                    Some(m) => Bound::Max(m),
                    None => Bound::TooBig,
                }
            }
        } else {
            match min {
                Some(m) => Bound::Max(m),
                None => Bound::TooBig,
            }
        };
        if self.chars.get(i) != Some(&'}') {
            return None;
        }
        self.pos = i + 1;
        let text: String = self.chars[start..self.pos].iter().collect();
        Some(Count { text, min, max })
    }

    /// What follows a `(`: a flag group `(?flags)` (consumed whole), or the start of a group:
    /// capturing or not, with its flags (consumed up to the body).
    fn open(&mut self) -> Parsed<Open> {
        self.pos += 1; // (
        if self.peek() != Some('?') {
            return Ok(Open::Group(true, String::new()));
        }
        let named = (self.rest_starts_with("?P<") && self.chars.len() > self.pos + 3) || self.rest_starts_with("?<");
        if named {
            let from = self.pos + if self.at(1) == Some('P') { 3 } else { 2 };
            let Some(end) = self.chars[self.pos..].iter().position(|&c| c == '>').map(|e| e + self.pos) else {
                return Err("invalid named capture".into());
            };
            let name: String = self.chars[from..end].iter().collect();
            if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) {
                return Err(format!("invalid named capture `{name}`"));
            }
            if !self.names.insert(name.clone()) {
                return Err(format!("duplicate capture group name `{name}`"));
            }
            self.pos = end + 1;
            return Ok(Open::Group(true, String::new()));
        }
        self.pos += 1; // ?
        let mut flags = String::new();
        let mut negated = false;
        let mut saw_flag = false;
        loop {
            let Some(c) = self.peek() else { return Err("missing closing )".into()) };
            self.pos += 1;
            match c {
                'i' | 'm' | 's' | 'U' => {
                    flags.push(c);
                    saw_flag = true;
                }
                '-' if !negated => {
                    negated = true;
                    saw_flag = false;
                    flags.push('-');
                }
                ')' if !negated || saw_flag => return Ok(Open::Flags(flags)),
                ':' if !negated || saw_flag => return Ok(Open::Group(false, flags)),
                _ => return Err(format!("invalid or unsupported Perl syntax `(?{flags}{c}`")),
            }
        }
    }

    /// A `\` outside a class.
    fn escape(&mut self, items: &mut Vec<Node>) -> Parsed<()> {
        let raw = match self.at(1) {
            Some('A') => Some(r"\A"),
            Some('z') => Some(r"\z"),
            // ASCII word boundaries, as in Go.
            Some('b') => Some(r"(?-u:\b)"),
            Some('B') => Some(r"(?-u:\B)"),
            Some('C') => return Err(r"invalid escape sequence `\C`".into()),
            Some('Q') => {
                self.pos += 2;
                while self.pos < self.chars.len() && !self.rest_starts_with(r"\E") {
                    items.push(Node::Literal(self.chars[self.pos]));
                    self.pos += 1;
                }
                if self.rest_starts_with(r"\E") {
                    self.pos += 2;
                }
                return Ok(());
            }
            _ => None,
        };
        if let Some(r) = raw {
            self.pos += 2;
            items.push(Node::Raw(r));
            return Ok(());
        }
        let mut class = String::new();
        if self.class_escape(&mut class)? {
            items.push(Node::Class(format!("[{class}]")));
            return Ok(());
        }
        let c = self.char_escape()?;
        items.push(match char::from_u32(c) {
            Some(c) => Node::Literal(c),
            // A surrogate: Go takes it, and it never matches UTF-8 text.
            None => Node::Class(NEVER.into()),
        });
        Ok(())
    }

    /// `\pX`, `\p{Name}`, `\PX`, `\p{^Name}` or a Perl class (`\d`, `\s`, `\w` and negations) at
    /// the position, written into `out` as members of a `regex` class. False if it is neither.
    fn class_escape(&mut self, out: &mut String) -> Parsed<bool> {
        if self.peek() != Some('\\') {
            return Ok(false);
        }
        match self.at(1) {
            Some(p @ ('p' | 'P')) => {
                let mut negated = p == 'P';
                let name: String = match self.at(2) {
                    None => return Err(r"invalid escape sequence `\p`".into()),
                    Some('{') => {
                        let Some(end) = self.chars[self.pos..].iter().position(|&c| c == '}').map(|e| e + self.pos) else {
                            return Err("invalid character class range: missing }".into());
                        };
                        let mut name: String = self.chars[self.pos + 3..end].iter().collect();
                        self.pos = end + 1;
                        if let Some(n) = name.strip_prefix('^') {
                            negated = !negated;
                            name = n.to_string();
                        }
                        name
                    }
                    Some(c) => {
                        self.pos += 3;
                        c.to_string()
                    }
                };
                if name == "Any" {
                    out.push_str(if negated { r"[^\x{0}-\x{10FFFF}]" } else { r"\x{0}-\x{10FFFF}" });
                } else if name.is_empty() || name.chars().any(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | ' ' | '-'))) {
                    return Err(format!("invalid character class range `\\p{{{name}}}`"));
                } else {
                    // Names the `regex` crate does not know fail when the result is compiled.
                    out.push_str(&format!("\\{}{{{name}}}", if negated { 'P' } else { 'p' }));
                }
                Ok(true)
            }
            Some(c @ ('d' | 'D' | 's' | 'S' | 'w' | 'W')) => {
                self.pos += 2;
                let members = match c.to_ascii_lowercase() {
                    'd' => "0-9",
                    's' => r"\t\n\x0C\r ",
                    _ => "0-9A-Za-z_",
                };
                if c.is_ascii_uppercase() {
                    out.push_str(&format!("[^{members}]"));
                } else {
                    out.push_str(members);
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// One escaped character (a code point), as Go's `parseEscape` reads it.
    fn char_escape(&mut self) -> Parsed<u32> {
        self.pos += 1; // backslash
        let Some(c) = self.peek() else { return Err("trailing backslash at end of expression".into()) };
        self.pos += 1;
        let octal = |c: Option<char>| c.filter(|c| ('0'..='7').contains(c));
        match c {
            '1'..='7' if octal(self.peek()).is_none() => Err(format!(r"invalid escape sequence `\{c}` (backreferences are not supported)")),
            '0'..='7' => {
                let mut v = c.to_digit(8).unwrap_or(0);
                for _ in 1..3 {
                    match octal(self.peek()) {
                        Some(d) => {
                            v = v * 8 + d.to_digit(8).unwrap_or(0);
                            self.pos += 1;
                        }
                        None => break,
                    }
                }
                Ok(v)
            }
            'x' => {
                let hex = |c: Option<char>| c.and_then(|c| c.to_digit(16));
                if self.peek() == Some('{') {
                    self.pos += 1;
                    let mut v: u32 = 0;
                    let mut n = 0;
                    loop {
                        match self.peek() {
                            Some('}') if n > 0 => {
                                self.pos += 1;
                                break;
                            }
                            c => match hex(c) {
                                Some(d) if v * 16 + d <= 0x10FFFF => {
                                    v = v * 16 + d;
                                    n += 1;
                                    self.pos += 1;
                                }
                                _ => return Err(r"invalid escape sequence `\x{...}`".into()),
                            },
                        }
                    }
                    Ok(v)
                } else {
                    match (hex(self.peek()), hex(self.at(1))) {
                        (Some(a), Some(b)) => {
                            self.pos += 2;
                            Ok(a * 16 + b)
                        }
                        _ => Err(r"invalid escape sequence `\x`".into()),
                    }
                }
            }
            'a' => Ok(0x7),
            'f' => Ok(0xC),
            'n' => Ok(0xA),
            'r' => Ok(0xD),
            't' => Ok(0x9),
            'v' => Ok(0xB),
            c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok(c as u32),
            c => Err(format!(r"invalid escape sequence `\{c}`")),
        }
    }

    /// A class `[...]`, as Go's `parseClass` reads it.
    fn class(&mut self) -> Parsed<Node> {
        self.pos += 1; // [
        let mut out = String::from("[");
        if self.peek() == Some('^') {
            self.pos += 1;
            out.push('^');
        }
        let mut first = true;
        loop {
            match self.peek() {
                None => return Err("missing closing ]".into()),
                Some(']') if !first => {
                    self.pos += 1;
                    break;
                }
                _ => {}
            }
            first = false;
            // POSIX `[:alpha:]`: Go looks for the closing `:]` anywhere after it.
            if self.rest_starts_with("[:") && self.chars.len() > self.pos + 2 {
                let rest: String = self.chars[self.pos + 2..].iter().collect();
                if let Some(i) = rest.find(":]") {
                    let name = &rest[..i];
                    let known = [
                        "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word",
                        "xdigit",
                    ];
                    if !known.contains(&name.strip_prefix('^').unwrap_or(name)) {
                        return Err(format!("invalid character class range `[:{name}:]`"));
                    }
                    out.push_str(&format!("[:{name}:]"));
                    self.pos += 2 + name.chars().count() + 2;
                    continue;
                }
            }
            if self.class_escape(&mut out)? {
                continue;
            }
            let lo = self.class_char()?;
            let mut hi = lo;
            if self.peek() == Some('-') && self.at(1).is_some_and(|c| c != ']') {
                self.pos += 1;
                hi = self.class_char()?;
                if hi < lo {
                    return Err(format!("invalid character class range `\\x{{{lo:X}}}-\\x{{{hi:X}}}`"));
                }
            }
            class_range(lo, hi, &mut out);
        }
        if out == "[" || out == "[^" {
            // Every member was a surrogate.
            out.push_str(NEVER);
        }
        out.push(']');
        Ok(Node::Class(out))
    }

    fn class_char(&mut self) -> Parsed<u32> {
        match self.peek() {
            None => Err("missing closing ]".into()),
            Some('\\') => self.char_escape(),
            Some(c) => {
                self.pos += 1;
                Ok(c as u32)
            }
        }
    }
}

/// A class that matches nothing.
const NEVER: &str = r"[^\x{0}-\x{10FFFF}]";

/// `lo-hi` as members of a `regex` class; surrogates (which Rust has no `char` for and UTF-8
/// text never holds) are left out.
fn class_range(lo: u32, hi: u32, out: &mut String) {
    const SURROGATES: std::ops::RangeInclusive<u32> = 0xD800..=0xDFFF;
    let lo = if SURROGATES.contains(&lo) { 0xE000 } else { lo };
    let hi = if SURROGATES.contains(&hi) { 0xD7FF } else { hi };
    let (Some(l), Some(h)) = (char::from_u32(lo), char::from_u32(hi)) else { return };
    if l > h {
        return;
    }
    out.push_str(&regex::escape(&l.to_string()));
    if h != l {
        out.push('-');
        out.push_str(&regex::escape(&h.to_string()));
    }
}

/// Go's `repeatIsValid`: nested explicit counts may multiply to at most `n`.
fn repeat_is_valid(node: &Node, mut n: u32) -> bool {
    if let Node::Repeat { min, max, counted: true, .. } = node {
        let m = max.unwrap_or(*min);
        if m == 0 {
            return true;
        }
        if m > n {
            return false;
        }
        n /= m;
    }
    match node {
        Node::Group { body, .. } => repeat_is_valid(body, n),
        Node::Repeat { sub, .. } => repeat_is_valid(sub, n),
        Node::Concat(items) | Node::Alternate(items) => items.iter().all(|i| repeat_is_valid(i, n)),
        _ => true,
    }
}

impl Node {
    /// How deep groups and repetitions nest in it (0 for an atom); O(1) below a group.
    fn depth(&self) -> usize {
        match self {
            Node::Group { depth, .. } | Node::Repeat { depth, .. } => *depth,
            Node::Concat(items) | Node::Alternate(items) => items.iter().map(Node::depth).max().unwrap_or(0),
            _ => 0,
        }
    }
}

fn emit(node: &Node, out: &mut String) {
    match node {
        Node::Literal(c) => out.push_str(&regex::escape(&c.to_string())),
        Node::Class(c) => out.push_str(c),
        Node::Raw(r) => out.push_str(r),
        Node::Flags(f) => {
            if !f.is_empty() {
                out.push_str(&format!("(?{f})"));
            }
        }
        Node::Group { capture, flags, body, .. } => {
            out.push_str(match (capture, flags.is_empty()) {
                (true, _) => "(",
                (false, true) => "(?:",
                (false, false) => "(?",
            });
            if !capture && !flags.is_empty() {
                out.push_str(flags);
                out.push(':');
            }
            emit(body, out);
            out.push(')');
        }
        Node::Repeat { min, max, lazy, sub, .. } => {
            if matches!(**sub, Node::Literal(_) | Node::Class(_) | Node::Group { .. }) {
                emit(sub, out);
            } else {
                out.push_str("(?:");
                emit(sub, out);
                out.push(')');
            }
            match (min, max) {
                (0, None) => out.push('*'),
                (1, None) => out.push('+'),
                (0, Some(1)) => out.push('?'),
                (n, None) => out.push_str(&format!("{{{n},}}")),
                (n, Some(m)) if n == m => out.push_str(&format!("{{{n}}}")),
                (n, Some(m)) => out.push_str(&format!("{{{n},{m}}}")),
            }
            if *lazy {
                out.push('?');
            }
        }
        Node::Concat(items) => items.iter().for_each(|i| emit(i, out)),
        Node::Alternate(branches) => {
            for (i, b) in branches.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                emit(b, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(pattern: &str) -> regex::Regex {
        compile(pattern).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The patterns of the Kueue v0.19.2 CRDs (and Kubernetes' quantity pattern) read as Go
    /// reads them, `(?i)` included, which ECMA 262 has no syntax for.
    #[test]
    fn crd_patterns_match_as_the_api_server_matches() {
        let name = go("^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$");
        assert!(name.is_match("Prov-Check1") && name.is_match("a") && !name.is_match("-a") && !name.is_match("a_b"));
        let quantity =
            go(r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$");
        for ok in ["1", "500m", "16Gi", "1e3", "+.5", "2.5E-3"] {
            assert!(quantity.is_match(ok), "{ok}");
        }
        for bad in ["1Gb", "", "e3", "1.2.3", "\u{0661}"] {
            assert!(!quantity.is_match(bad), "{bad}");
        }
        let label = go(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$");
        assert!(label.is_match("cloud.google.com/gke-tpu-topology") && !label.is_match("a/b/c"));
    }

    /// Where Go's syntax and the `regex` crate's differ: what Go's `regexp.MatchString` says.
    #[test]
    fn the_differences_follow_go() {
        let cases: &[(&str, &str, bool)] = &[
            // ASCII Perl classes and word boundaries.
            (r"^\d$", "\u{0663}", false),
            (r"^\d$", "7", true),
            (r"^\w+$", "\u{e9}t\u{e9}", false),
            (r"^\s$", "\u{A0}", false),
            (r"^\s$", "\u{B}", false),
            (r"^\s$", "\u{C}", true),
            (r"^\S$", "\u{A0}", true),
            (r"^\W$", "\u{e9}", true),
            (r"^[\d\w]$", "\u{e9}", false),
            (r"\bx", "\u{e9}x", true),
            (r"\Bx", "\u{e9}x", false),
            (r"(?i)^\w$", "\u{212A}", true),
            // \Q...\E literal text.
            (r"^\Qa.b*\E$", "a.b*", true),
            (r"^\Qa.b*\E$", "axbbb", false),
            (r"^\Qab\E+$", "abbb", true),
            (r"^\Qa.b", "a.b and more", true),
            // Octal escapes.
            (r"^\101\0$", "A\u{0}", true),
            (r"^[\060-\071]$", "5", true),
            // Escaped punctuation is itself.
            (r"^\<a\>$", "<a>", true),
            (r"^\_\-\#\&\~$", "_-#&~", true),
            // `{` that is no repetition is a literal.
            (r"^a{$", "a{", true),
            (r"^a{,2}$", "a{,2}", true),
            (r"^a{01}$", "a{01}", true),
            (r"^a{1,2$", "a{1,2", true),
            (r"^a{2}$", "aa", true),
            (r"^a{2,}$", "aaaa", true),
            (r"^x{1001$", "x{1001", true),
            (r"\b{start}", "a{start}", true),
            (r"\b{start}", "{start}", false),
            (r"^}$", "}", true),
            // Classes: no nesting, no set operations; `]` first is a member.
            (r"^[[a]$", "[", true),
            (r"^[a&&b]$", "&", true),
            (r"^[+--]$", ",", true),
            (r"^[a-]$", "-", true),
            (r"^[a~~b]$", "~", true),
            (r"^[a-c-e]$", "-", true),
            (r"^[]a]$", "]", true),
            (r"^[^]a]$", "b", true),
            (r"^[[:alpha:][:digit:]]+$", "a1", true),
            (r"^[[:^alpha:]]$", "1", true),
            (r"^[\p{Greek}]$", "\u{3b1}", true),
            (r"^\pL$", "\u{e9}", true),
            (r"^\p{^L}$", "1", true),
            (r"^\PL$", "1", true),
            (r"^\p{Any}$", "\n", true),
            // A repetition after a flag group repeats what came before it.
            (r"^a(?i)*b$", "aaaB", true),
            (r"^a(?i)*b$", "A", false),
            // Flags.
            (r"(?i)^abc$", "ABC", true),
            (r"^(?i:a)b$", "AB", false),
            (r"(?s)^.$", "\n", true),
            (r"^.$", "\n", false),
            (r"(?m)^b$", "a\nb", true),
            (r"^a$", "a\n", false),
            (r"(?U)^a+$", "aaa", true),
            (r"^(?)a$", "a", true),
            (r"^(?P<n_1>a)(?<m>b)$", "ab", true),
            (r"^\x{1F600}\x41$", "\u{1F600}A", true),
            (r"^\x{D800}$", "\u{FFFD}", false),
            (r"^[\x{D800}-\x{DFFF}]$", "\u{FFFD}", false),
        ];
        for (pattern, text, want) in cases {
            assert_eq!(go(pattern).is_match(text), *want, "Go's {pattern:?} on {text:?} (as {:?})", translate(pattern));
        }
    }

    /// Go's own lists (`regexp/syntax/parse_test.go`: `parseTests`, `invalidRegexps`,
    /// `onlyPOSIX`): patterns Go parses with Perl flags and patterns it refuses; then patterns the
    /// `regex` crate would take but Go refuses.
    #[test]
    fn valid_and_invalid_as_in_go() {
        let valid = [
            "a",
            "a.",
            "ab",
            "a|^",
            "(a)|b",
            "a*",
            "a+",
            "a?",
            "a{2}",
            "a{2,3}",
            "a{2,}",
            "a*?",
            "a+?",
            "a??",
            "a{2}?",
            "a{2,3}?",
            "a{2,}?",
            "x{1001",
            "x{9876543210",
            "x{9876543210,",
            "x{2,1",
            "x{1,9876543210",
            "",
            "|",
            "|x|",
            ".",
            "^",
            "$",
            r"\|",
            r"\(",
            "{",
            "}",
            r"\.",
            r"\\",
            "[ace]",
            "[a-z]",
            r"\-",
            "-",
            r"\_",
            "[[:lower:]]",
            "[^[:lower:]]",
            "[[:^lower:]]",
            r"\d",
            r"\D",
            r"\s",
            r"\S",
            r"\w",
            r"\W",
            r"[^\\]",
            r"\p{Braille}",
            r"\P{Braille}",
            r"\p{^Braille}",
            r"\pZ",
            r"[\p{Braille}]",
            r"\p{Lu}",
            r"\p{Any}",
            r"[\012-\234]\141",
            r"[\x{41}-\x7a]\x61",
            "a{,2}",
            r"\.\^\$\\",
            "[α-ε☺]",
            "a*{",
            "(?:ab)*",
            "(ab)*",
            "a(b|c)d",
            "(?:a)",
            r"\Q+|*?{[\E",
            r"\Q+\E+",
            r"\Qab\E+",
            r"\Q\\E",
            "(?m)^",
            "(?-m)$",
            r"(?m)\A",
            r"(?-m)\z",
            "(?P<name>a)",
            "(?<name>a)",
            "(?s).",
            "(?-s).",
            "[a-b-c]",
            "((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}))",
            "(?:[a-z]{4}){0,250}",
            "^*",
            "(?i)(?-i:a)",
            "(?i-s:a)",
        ];
        for p in valid {
            assert!(compile(p).is_ok(), "Go accepts {p:?}: {:?}", compile(p));
        }
        let deep = format!("{}{}", "(".repeat(100), ")".repeat(100));
        assert!(compile(&deep).is_ok());
        // Go takes up to 999 nested groups; the `regex` crate does not: refused, and said why.
        let deeper = compile(&format!("{}{}", "(".repeat(999), ")".repeat(999))).unwrap_err();
        assert!(deeper.reason.contains("the most jax-runtimes compiles"), "{deeper}");
        assert!(compile(&format!("a*{}", "(?i)*".repeat(200))).is_err(), "a chain of repetitions is bounded too");
        let invalid = [
            "(",
            ")",
            "(a",
            "a)",
            "(a))",
            "(a|b|",
            "a|b|)",
            "(a|b|))",
            "(a|b",
            "a|b)",
            "(a|b))",
            "[a-z",
            "([a-z)",
            "[a-z)",
            "([a-z]))",
            "x{1001}",
            "x{9876543210}",
            "x{2,1}",
            "x{1,9876543210}",
            "(?P<name>a",
            "(?P<name>",
            "(?P<name",
            "(?P<x y>a)",
            "(?P<>a)",
            "(?<name>a",
            "(?<name>",
            "(?<name",
            "(?<x y>a)",
            "(?<>a)",
            "[a-Z]",
            "(?i)[a-Z]",
            r"\Q\E*",
            "a{100000}",
            "a{100000,}",
            "((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}){2})",
            "(?:[a-z]{4}){0,251}",
            "a++",
            "a**",
            "a?*",
            "a+*",
            "a{1}*",
            ".{1}{2}.{3}",
            // Where the `regex` crate would take what Go refuses.
            "(?x)a",
            "(?u)a",
            "(?R)a",
            "(?-)a",
            "(?i-)a",
            "(?=a)",
            "(?<=a)b",
            "(?P=n)",
            r"\1",
            r"\8",
            r"\e",
            r"\C",
            r"\Z",
            r"\G",
            "(?P<a>x)(?P<a>y)",
            "(?P<a.b>x)",
            "[a--b]",
            "[[:foo:]]",
            r"[\b]",
            r"\x{110000}",
            r"\xZ",
            r"\",
            "[]",
            "*",
            "a|*",
            "(*)",
        ];
        for p in invalid {
            assert!(compile(p).is_err(), "Go refuses {p:?}, translated to {:?}", translate(p));
        }
    }
}
