//! Techniques enumerated before a shared last word: "data, tensor and
//! pipeline parallelism" names data parallelism and tensor parallelism too,
//! and "intra- and inter-operator parallelism" intra-operator parallelism.

use crate::catalog::Tag;
use crate::search::understand::synonyms::Synonyms;

/// A word that completes a technique's name, read from an enumeration.
#[derive(Debug, PartialEq)]
pub(super) struct Completed<'v> {
    /// The word's place in the run.
    pub(super) at: usize,
    /// The name it completes to ("tensor parallelism").
    pub(super) name: String,
    pub(super) tag: &'v Tag,
}

/// Words that join the items of an enumeration.
fn is_connector(word: &str) -> bool {
    ["and", "or", "&", "and/or", "nor", "vs", "versus"]
        .iter()
        .any(|c| word.eq_ignore_ascii_case(c))
}

/// The words of `run` that, joined to the last words of the technique name
/// after them in an enumeration, name a technique. An item must be followed
/// by a comma or a connector, so that "fast pipeline parallelism" reads as
/// it is written.
pub(super) fn completed<'v>(synonyms: &Synonyms<'v>, run: &[&str]) -> Vec<Completed<'v>> {
    let mut found = Vec::new();
    for start in 1..run.len() {
        let Some((len, _)) = synonyms.longest_at(run, start) else {
            continue;
        };
        let first = run[start];
        let rest = run[start + 1..start + len].join(" ");
        // "inter-operator": a hyphenated item ("intra-") takes "operator".
        let after_hyphen = first.split_once('-').map(|(_, tail)| tail);
        let mut next = start;
        while next > 0 {
            let mut at = next - 1;
            let separated = if is_connector(run[at]) {
                if at == 0 {
                    break;
                }
                at -= 1;
                true
            } else {
                run[at].ends_with(',')
            };
            let item = run[at].trim_end_matches(',');
            if !separated || item.is_empty() || is_connector(item) {
                break;
            }
            let name = match (item.strip_suffix('-'), after_hyphen) {
                (Some(prefix), Some(tail)) => format!("{prefix}-{tail} {rest}"),
                (Some(_), None) => break,
                (None, _) if len < 2 => break,
                (None, _) => format!("{item} {rest}"),
            };
            let Some(tag) = synonyms.lookup(name.trim_end()) else {
                break;
            };
            found.push(Completed {
                at,
                name: name.trim_end().to_string(),
                tag,
            });
            next = at;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Vocabulary;

    fn vocabulary() -> Vocabulary {
        let tag = Tag::for_test;
        Vocabulary::new(vec![
            tag("blorp-sharding", "Blorp sharding", &[]),
            tag("zint-sharding", "Zint sharding", &[]),
            tag("intra-op", "Intra-frob sharding", &[]),
            tag("inter-op", "Inter-frob sharding", &[]),
        ])
    }

    fn names(query: &str) -> Vec<(usize, String, String)> {
        let vocabulary = vocabulary();
        let synonyms = Synonyms::new(&vocabulary);
        let run: Vec<&str> = query.split_whitespace().collect();
        completed(&synonyms, &run)
            .into_iter()
            .map(|c| (c.at, c.name, c.tag.id.clone()))
            .collect()
    }

    #[test]
    fn items_before_a_name_complete_to_names_of_their_own() {
        assert_eq!(
            names("blorp, zint and inter-frob sharding"),
            [
                (1, "zint sharding".to_string(), "zint-sharding".to_string()),
                (
                    0,
                    "blorp sharding".to_string(),
                    "blorp-sharding".to_string()
                ),
            ]
        );
        assert_eq!(
            names("intra- or inter-frob sharding"),
            [(0, "intra-frob sharding".into(), "intra-op".into())]
        );
    }

    #[test]
    fn a_word_before_a_name_without_a_connector_is_no_item() {
        assert!(names("zint blorp sharding").is_empty());
        assert!(names("and blorp sharding").is_empty());
        // An item that names no technique ends the enumeration.
        assert_eq!(
            names("blorp, frob and zint sharding"),
            Vec::<(usize, String, String)>::new()
        );
    }
}
