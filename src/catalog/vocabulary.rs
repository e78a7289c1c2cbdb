//! The controlled vocabulary: technique tags with labels and aliases.
//!
//! Aliases are what a practitioner types ("MoE", "gradient checkpointing"); the
//! search expands them at query time, so an alias must belong to one tag only.

use std::collections::HashMap;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::name_phrases::NamePhrases;
use super::source::{Location, Problem};
use super::{normalize_title, squash};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tag {
    pub id: String,
    pub label: String,
    pub category: String,
    pub description: String,
    pub aliases: Vec<String>,
    /// Aliases that are ordinary English words ("ZeRO" is "zero"), kept on
    /// purpose: practitioners type them to mean the technique.
    pub deliberate: Vec<String>,
    /// The tags this one is a kind of ("rlhf" is a kind of
    /// "reinforcement-learning"): a query naming a broader tag also finds,
    /// below its own works, the works of the tags narrower than it.
    pub broader: Vec<String>,
    pub location: Location,
}

impl Tag {
    /// A tag of a unit test's vocabulary.
    #[cfg(test)]
    pub(crate) fn for_test(id: &str, label: &str, aliases: &[&str]) -> Tag {
        Tag {
            id: id.into(),
            label: label.into(),
            category: "c".into(),
            description: String::new(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            deliberate: Vec::new(),
            broader: Vec::new(),
            location: Default::default(),
        }
    }

    /// The label, the id read as words, and every alias.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.label.as_str())
            .chain(std::iter::once(self.id.as_str()))
            .chain(self.aliases.iter().map(String::as_str))
    }
}

/// A name of two or more words ending in "parallelism", with that word
/// replaced by each word practitioners use for it: "inter-layer model
/// splitting" is inter-layer model parallelism.
fn parallelism_variants(name: &str) -> Vec<String> {
    const INSTEAD: [&str; 3] = ["partitioning", "splitting", "sharding"];
    match name.rsplit_once(' ') {
        Some((head, last)) if last.eq_ignore_ascii_case("parallelism") => {
            INSTEAD.iter().map(|w| format!("{head} {w}")).collect()
        }
        _ => Vec::new(),
    }
}

/// Serialized whole but for its name phrases (see `compiled`): its lookups
/// take a search that reads them longer to make than to decode.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Vocabulary {
    pub tags: Vec<Tag>,
    by_id: FxHashMap<String, usize>,
    /// Every name of every tag, squashed; the first tag to use a name owns it.
    by_name: FxHashMap<String, usize>,
    /// Its names of several words, made when first asked for.
    #[serde(skip)]
    phrases: OnceLock<NamePhrases>,
}

impl Vocabulary {
    pub fn new(tags: Vec<Tag>) -> Self {
        let by_id = tags
            .iter()
            .enumerate()
            .map(|(i, t)| (t.id.clone(), i))
            .collect();
        let mut by_name = FxHashMap::default();
        for (i, tag) in tags.iter().enumerate() {
            for name in tag.names() {
                let key = squash(name);
                if !key.is_empty() {
                    by_name.entry(key).or_insert(i);
                }
            }
        }
        // Then the other words people put for "parallelism" in a name, below
        // every name as written.
        for (i, tag) in tags.iter().enumerate() {
            for name in tag.names() {
                for variant in parallelism_variants(name) {
                    by_name.entry(squash(&variant)).or_insert(i);
                }
            }
        }
        Vocabulary {
            tags,
            by_id,
            by_name,
            phrases: OnceLock::new(),
        }
    }

    /// This vocabulary with its names of several words made already (as
    /// [`Vocabulary::name_phrases`] made them for these tags).
    pub(super) fn with_name_phrases(self, phrases: NamePhrases) -> Self {
        let _ = self.phrases.set(phrases);
        self
    }

    /// Its names of several words, as documents' titles are searched for
    /// them (see `name_phrases`).
    pub fn name_phrases(&self) -> &NamePhrases {
        self.phrases.get_or_init(|| {
            let names = (self.tags.iter()).flat_map(|tag| tag.names().map(str::to_string));
            let variants =
                (self.tags.iter()).flat_map(|tag| tag.names().flat_map(parallelism_variants));
            NamePhrases::new(names.chain(variants))
        })
    }

    /// The tag one of whose names squashes to `squashed`.
    pub fn named(&self, squashed: &str) -> Option<&Tag> {
        self.by_name.get(squashed).map(|&i| &self.tags[i])
    }

    pub fn get(&self, id: &str) -> Option<&Tag> {
        self.by_id.get(id).map(|&i| &self.tags[i])
    }

    /// The tags that name `id` as broader than them.
    pub fn narrower<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Tag> {
        self.tags
            .iter()
            .filter(move |t| t.broader.iter().any(|b| b == id))
    }

    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }

    /// Duplicate ids, and names that would expand to two different tags.
    pub fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut ids: HashMap<&str, &Tag> = HashMap::new();
        let mut names: HashMap<String, &Tag> = HashMap::new();
        for tag in &self.tags {
            if let Some(first) = ids.insert(&tag.id, tag) {
                problems.push(Problem::new(
                    tag.location.clone(),
                    format!(
                        "duplicate tag id `{}` (first defined at {})",
                        tag.id, first.location
                    ),
                ));
                continue;
            }
            problems.extend(ordinary_aliases(tag));
            problems.extend(self.broader_problems(tag));
            if tag.label.trim().is_empty() {
                problems.push(Problem::new(
                    tag.location.clone(),
                    format!("tag `{}` has an empty label", tag.id),
                ));
            }
            for name in tag.names() {
                let key = normalize_title(name);
                if key.is_empty() {
                    continue;
                }
                match names.get(&key) {
                    Some(other) if other.id != tag.id => problems.push(Problem::new(
                        tag.location.clone(),
                        format!(
                            "alias \"{name}\" of tag `{}` is also a name of tag `{}`",
                            tag.id, other.id
                        ),
                    )),
                    _ => {
                        names.insert(key, tag);
                    }
                }
            }
        }
        problems
    }
}

impl Vocabulary {
    /// A `broader` tag must exist, and no tag may be broader than itself,
    /// however far up the chain.
    fn broader_problems(&self, tag: &Tag) -> Vec<Problem> {
        let mut problems = Vec::new();
        for id in &tag.broader {
            if !self.contains(id) {
                problems.push(Problem::new(
                    tag.location.clone(),
                    format!("tag `{}` names unknown tag `{id}` as broader", tag.id),
                ));
            }
        }
        let mut seen = vec![tag.id.as_str()];
        let mut frontier: Vec<&str> = tag.broader.iter().map(String::as_str).collect();
        while let Some(id) = frontier.pop() {
            if id == tag.id {
                problems.push(Problem::new(
                    tag.location.clone(),
                    format!("tag `{}` is broader than itself through `broader`", tag.id),
                ));
                break;
            }
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
            if let Some(up) = self.get(id) {
                frontier.extend(up.broader.iter().map(String::as_str));
            }
        }
        problems
    }
}

/// A one-word alias that is an ordinary English word ("zero", "ring")
/// captures queries that mean the word: it must be marked `deliberate`.
fn ordinary_aliases(tag: &Tag) -> Vec<Problem> {
    let deliberate: Vec<String> = tag.deliberate.iter().map(|a| squash(a)).collect();
    let mut problems = Vec::new();
    for alias in &tag.aliases {
        let key = squash(alias);
        let one_word = !alias.trim().contains(char::is_whitespace);
        if one_word && wordnik_list::word_exists(&key) && !deliberate.contains(&key) {
            problems.push(Problem::new(
                tag.location.clone(),
                format!(
                    "alias \"{alias}\" of tag `{}` is the English word \"{key}\": list it in `deliberate` if it must stay",
                    tag.id
                ),
            ));
        }
    }
    for name in &tag.deliberate {
        if !tag.aliases.iter().any(|a| squash(a) == squash(name)) {
            problems.push(Problem::new(
                tag.location.clone(),
                format!(
                    "`deliberate` names \"{name}\", which is not an alias of tag `{}`",
                    tag.id
                ),
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallelism_in_a_name_may_be_called_splitting_but_never_over_a_real_name() {
        let vocabulary = Vocabulary::new(vec![
            Tag::for_test(
                "quux-parallelism",
                "Quux parallelism",
                &["inter-quux parallelism"],
            ),
            Tag::for_test("quux-sharding", "Quux sharding", &[]),
        ]);
        let named = |name: &str| vocabulary.named(&squash(name)).map(|t| t.id.as_str());
        assert_eq!(named("inter-quux splitting"), Some("quux-parallelism"));
        assert_eq!(named("quux partitioning"), Some("quux-parallelism"));
        assert_eq!(named("quux sharding"), Some("quux-sharding"));
        assert_eq!(named("parallelism"), None);
    }
}
