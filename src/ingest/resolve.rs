//! Deciding whether a search result is the entry's paper. A close title is not
//! enough on its own: the arXiv "PipeDream: Fast and Efficient Pipeline
//! Parallel DNN Training" is not the SOSP'19 PipeDream paper. A result is
//! accepted only when its title matches almost exactly and the first author
//! or the year agrees; a near miss becomes a candidate for a curator.

use crate::catalog::{Entry, normalize_title};
use crate::model::paper::PaperRecord;

/// Title similarity at or above which a result can be accepted.
pub(crate) const ACCEPT: f64 = 0.95;
/// Title similarity at or above which a result is worth showing a curator.
pub(crate) const CANDIDATE: f64 = 0.80;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    Accept { similarity: f64 },
    Candidate { similarity: f64, reason: String },
    Reject,
}

/// 1 minus the edit distance between the normalized titles, over the longer.
pub(crate) fn title_similarity(a: &str, b: &str) -> f64 {
    let a: Vec<char> = normalize_title(a).chars().collect();
    let b: Vec<char> = normalize_title(b).chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 0.0;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j + 1] + 1)
                .min(cur[j] + 1)
                .min(prev[j] + usize::from(ca != cb));
        }
        prev = cur;
    }
    1.0 - prev[b.len()] as f64 / longest as f64
}

/// Whether the entry's first author is among the record's first authors. Any
/// word of the name counts, since lists write "Jo Sanghoon" and "Sanghoon Jo".
fn first_author_agrees(entry: &Entry, record: &PaperRecord) -> Option<bool> {
    let first = entry.authors.first()?;
    if record.authors.is_empty() {
        return None;
    }
    let words = |name: &str| -> Vec<String> {
        normalize_title(name)
            .split(' ')
            .filter(|w| w.len() > 1)
            .map(str::to_string)
            .collect()
    };
    let wanted = words(first);
    let agrees = record.authors.iter().take(3).any(|author| {
        let have = words(author);
        wanted.iter().any(|w| have.contains(w))
    });
    Some(agrees)
}

/// A preprint may precede its venue by two years, rarely follow it by one.
fn year_agrees(entry: &Entry, record: &PaperRecord) -> Option<bool> {
    let (want, have) = (entry.year?, record.year?);
    Some((want - 2..=want + 1).contains(&have))
}

pub(crate) fn judge(entry: &Entry, record: &PaperRecord) -> Verdict {
    let similarity = title_similarity(&entry.title, &record.title);
    if similarity < CANDIDATE {
        return Verdict::Reject;
    }
    let author = first_author_agrees(entry, record);
    let year = year_agrees(entry, record);
    let corroborated = author == Some(true) || (author.is_none() && year == Some(true));
    let contradicted = author == Some(false) || year == Some(false);
    if similarity >= ACCEPT && corroborated && !contradicted {
        return Verdict::Accept { similarity };
    }
    let mut reasons = Vec::new();
    if similarity < ACCEPT {
        reasons.push(format!("title only {:.0}% similar", similarity * 100.0));
    }
    match author {
        Some(false) => reasons.push("first author differs".to_string()),
        None => reasons.push("no author to compare".to_string()),
        Some(true) => {}
    }
    if year == Some(false) {
        reasons.push(format!("year {} differs", record.year.unwrap_or_default()));
    }
    Verdict::Candidate {
        similarity,
        reason: reasons.join("; "),
    }
}

/// The best verdict among search results: an accepted one if any, else the
/// most similar candidate.
pub(crate) fn best<'r>(
    entry: &Entry,
    results: &'r [PaperRecord],
) -> Option<(&'r PaperRecord, Verdict)> {
    let mut judged: Vec<(&PaperRecord, Verdict)> = results
        .iter()
        .map(|r| (r, judge(entry, r)))
        .filter(|(_, v)| *v != Verdict::Reject)
        .collect();
    let rank = |v: &Verdict| match v {
        Verdict::Accept { similarity } => 2.0 + similarity,
        Verdict::Candidate { similarity, .. } => *similarity,
        Verdict::Reject => 0.0,
    };
    judged.sort_by(|a, b| rank(&b.1).total_cmp(&rank(&a.1)));
    judged.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Kind;

    fn entry(title: &str, author: &str, year: i64) -> Entry {
        Entry {
            id: "x".into(),
            kind: Kind::Paper,
            title: title.into(),
            url: "https://example.org".into(),
            authors: vec![author.into()],
            et_al: true,
            venue: Some("SOSP".into()),
            year: Some(year),
            arxiv: None,
            doi: None,
            tags: vec![],
            uses: vec![],
            project: None,
            note: String::new(),
            section: String::new(),
            origin: Default::default(),
        }
    }

    fn record(title: &str, author: &str, year: i64) -> PaperRecord {
        PaperRecord {
            title: title.into(),
            authors: vec![author.into()],
            year: Some(year),
            ..Default::default()
        }
    }

    #[test]
    fn same_title_and_author_is_accepted() {
        let e = entry(
            "ZeRO: memory optimizations toward training trillion parameter models",
            "Samyam Rajbhandari",
            2020,
        );
        let r = record(
            "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
            "Samyam Rajbhandari",
            2019,
        );
        assert!(matches!(judge(&e, &r), Verdict::Accept { .. }));
    }

    #[test]
    fn a_different_paper_with_the_same_system_name_is_rejected() {
        let e = entry(
            "PipeDream: generalized pipeline parallelism for DNN training",
            "Deepak Narayanan",
            2019,
        );
        let r = record(
            "PipeDream: Fast and Efficient Pipeline Parallel DNN Training",
            "Aaron Harlap",
            2018,
        );
        assert_eq!(judge(&e, &r), Verdict::Reject);
    }

    #[test]
    fn a_close_title_by_someone_else_is_only_a_candidate() {
        let e = entry(
            "Varuna: scalable, low-cost training of massive deep learning models",
            "Sanjith Athlur",
            2022,
        );
        let r = record(
            "Varuna: Scalable, Low-cost Training of Massive Deep Learning Models",
            "Someone Else",
            2021,
        );
        assert!(
            matches!(judge(&e, &r), Verdict::Candidate { ref reason, .. } if reason.contains("first author differs"))
        );
    }

    #[test]
    fn reversed_name_order_still_agrees() {
        let e = entry(
            "Logical/Physical Topology-Aware Collective Communication in Deep Learning Training",
            "Jo Sanghoon",
            2023,
        );
        let r = record(
            "Logical/Physical Topology-Aware Collective Communication in Deep Learning Training",
            "Sanghoon Jo",
            2023,
        );
        assert!(matches!(judge(&e, &r), Verdict::Accept { .. }));
    }
}
