//! Nearest spellings, for messages that say "did you mean": edit distance over small word lists.

/// Levenshtein distance between two words, by characters.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb { prev } else { 1 + prev.min(row[j]).min(cur) };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The candidate closest to `word` (case-insensitively), if within `max` edits; ties go to the
/// first candidate.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>, max: usize) -> Option<&'a str> {
    let w = word.to_lowercase();
    candidates.into_iter().map(|c| (distance(&w, &c.to_lowercase()), c)).filter(|(d, _)| *d <= max).min_by_key(|(d, _)| *d).map(|(_, c)| c)
}

/// Up to `n` candidates in order of distance to `word` (then their order given).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>, n: usize) -> Vec<&'a str> {
    let w = word.to_lowercase();
    let mut scored: Vec<(usize, usize, &str)> =
        candidates.into_iter().enumerate().map(|(i, c)| (distance(&w, &c.to_lowercase()), i, c)).collect();
    scored.sort_unstable();
    scored.into_iter().take(n).map(|(_, _, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_nearest_words() {
        assert_eq!(distance("JaxRuntme", "JaxRuntime"), 1);
        assert_eq!(distance("v1alpha", "v1alpha1"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("日本", "日本語"), 1);
        assert_eq!(nearest("jaxruntime", ["JaxRuntime", "JaxRuntimeMatrix"], 2), Some("JaxRuntime"));
        assert_eq!(nearest("Deployment", ["JaxRuntime", "JaxRuntimeMatrix"], 2), None);
        assert_eq!(closest("gek", ["eks", "gke", "aks"], 2), vec!["eks", "gke"]);
    }
}
