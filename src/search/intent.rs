//! Whether a query asks about training or about serving. "Fine-tune a 65B
//! model on PCIe-only GPUs" wants the works that train, and the offloading
//! works that serve share most of its words; "serve a 100B transformer with
//! tensor-parallel workers" wants the reverse. A few words tell which, and
//! the works' tags tell which side a work is on: a serving work has
//! `inference-serving`, or a tag narrower than it, curated as what it is
//! about (`tags`, not `uses`) or predicted. Each result of the pool that
//! feedback reorders (see `rank.rs`) is scaled by the weight of
//! `Boosts::training_asked` or `Boosts::serving_asked`.

use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocSet, Term};

use super::compile::Context;
use super::query::Node;
use crate::error::Error;

/// The tag whose works serve; tags narrower than it serve too.
const SERVING_TAG: &str = "inference-serving";

/// Words that ask about training, hyphens dropped ("fine-tune"). Not
/// "trained" or "pretrained": "serve pretrained models" asks about serving.
const TRAINING: &[&str] = &[
    "train",
    "training",
    "trains",
    "finetune",
    "finetuning",
    "pretrain",
    "pretraining",
];

/// Words that ask about serving.
const SERVING: &[&str] = &[
    "inference",
    "serve",
    "serves",
    "serving",
    "decode",
    "decoding",
    "generate",
    "generation",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    Training,
    Serving,
}

impl Intent {
    /// What an explanation says of a scaled result.
    pub fn reason(self) -> &'static str {
        match self {
            Intent::Training => "a serving work, and the query asks about training",
            Intent::Serving => "a serving work, and the query asks about serving",
        }
    }
}

/// The side `root` asks about: training or serving words among the words
/// it wants (not those it negates), and not both.
pub fn of(root: &Node) -> Option<Intent> {
    let mut asks = (false, false);
    wanted_words(root, &mut |word| {
        let word = word.to_lowercase().replace('-', "");
        asks.0 |= TRAINING.contains(&word.as_str());
        asks.1 |= SERVING.contains(&word.as_str());
    });
    match asks {
        (true, false) => Some(Intent::Training),
        (false, true) => Some(Intent::Serving),
        _ => None,
    }
}

/// Each word `node` wants (not those it negates).
pub(super) fn wanted_words(node: &Node, each: &mut impl FnMut(&str)) {
    match node {
        Node::Word { text, .. } => each(text),
        Node::Phrase { text, .. } => text.split_whitespace().for_each(each),
        Node::Group(children) | Node::And(children) | Node::Or(children) => {
            children.iter().for_each(|c| wanted_words(c, each));
        }
        Node::Required(inner) => wanted_words(inner, each),
        _ => {}
    }
}

/// What `intent` multiplies a serving work's score by (1 when nothing).
pub fn factor(cx: &Context<'_>, intent: Intent) -> f32 {
    1.0 + match intent {
        Intent::Training => cx.boosts.training_asked,
        Intent::Serving => cx.boosts.serving_asked,
    }
}

/// Scales the serving works of `top` by `intent`'s factor and sorts it
/// again (stably: works scaled alike keep their order); returns the works
/// scaled.
pub fn rescale(
    cx: &Context<'_>,
    intent: Intent,
    top: &mut [(f32, DocAddress)],
) -> Result<Vec<DocAddress>, Error> {
    let factor = factor(cx, intent);
    if factor == 1.0 {
        return Ok(Vec::new());
    }
    let serving = serving_tags(cx);
    let mut scaled = Vec::new();
    for field in [cx.fields.tags, cx.fields.predicted] {
        for address in holding(cx, top, field, &serving)? {
            if !scaled.contains(&address) {
                scaled.push(address);
            }
        }
    }
    for (score, address) in top.iter_mut() {
        if scaled.contains(address) {
            *score *= factor;
        }
    }
    top.sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(scaled)
}

/// `inference-serving` and the tags narrower than it.
fn serving_tags(cx: &Context<'_>) -> Vec<String> {
    let vocabulary = cx.synonyms.vocabulary();
    std::iter::once(SERVING_TAG.to_string())
        .chain(vocabulary.narrower(SERVING_TAG).map(|t| t.id.clone()))
        .collect()
}

/// The documents of `top` that hold any of `tags` in `field`, found in its
/// postings, each segment's in document order.
fn holding(
    cx: &Context<'_>,
    top: &[(f32, DocAddress)],
    field: Field,
    tags: &[String],
) -> Result<Vec<DocAddress>, Error> {
    let mut addresses: Vec<DocAddress> = top.iter().map(|(_, a)| *a).collect();
    addresses.sort_unstable();
    let mut found = Vec::new();
    for segment in addresses.chunk_by(|a, b| a.segment_ord == b.segment_ord) {
        let inverted =
            (cx.searcher.segment_reader(segment[0].segment_ord)).inverted_index(field)?;
        for tag in tags {
            let term = Term::from_field_text(field, tag);
            let postings = (inverted.read_postings(&term, IndexRecordOption::Basic))
                .map_err(tantivy::TantivyError::from)?;
            let Some(mut postings) = postings else {
                continue;
            };
            for address in segment {
                if postings.doc() <= address.doc_id
                    && postings.seek(address.doc_id) == address.doc_id
                {
                    found.push(*address);
                }
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::query;

    fn intent(text: &str) -> Option<Intent> {
        of(&query::parse(text).unwrap().root)
    }

    #[test]
    fn training_or_serving_words_tell_the_side_and_both_tell_none() {
        assert_eq!(
            intent("fine-tune a 65B model on PCIe GPUs"),
            Some(Intent::Training)
        );
        assert_eq!(intent("Pre-training MoE"), Some(Intent::Training));
        assert_eq!(intent("serve a 100B transformer"), Some(Intent::Serving));
        assert_eq!(intent("LLM inference on TPU v4"), Some(Intent::Serving));
        assert_eq!(intent("training and inference of MoE"), None);
        assert_eq!(intent("serve pretrained models"), Some(Intent::Serving));
        assert_eq!(intent("pipeline parallelism"), None);
        assert_eq!(
            intent("offloading -inference"),
            None,
            "a negated word asks nothing"
        );
    }
}
