//! Whether a query asks about training or about serving. "Fine-tune a 65B
//! model on PCIe-only GPUs" wants the works that train, and the offloading
//! works that serve share most of its words; "serve a 100B transformer with
//! tensor-parallel workers" wants the reverse. A few words tell which, and
//! the works' tags tell which side a work is on: a serving work has
//! `inference-serving`, or a tag narrower than it, curated as what it is
//! about (`tags`, not `uses`) or predicted. Each result of the pool that
//! feedback reorders (see `rank.rs`) is scaled by the weight of
//! `Boosts::training_asked` or `Boosts::serving_asked`.
//!
//! A query may also ask for code ("library", "open-source framework"):
//! then the catalog's projects are scaled by `Boosts::code_asked`, since
//! the papers that describe a system share its words and are many more.
//! Or for an overview ("overview of how deep learning is parallelized"):
//! then the works tagged as surveys are scaled by `Boosts::survey_asked`,
//! since the systems a survey covers share its words and are many more.

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

/// Words that ask for code rather than a paper, hyphens dropped; "open
/// source" as two words too.
const CODE: &[&str] = &[
    "library",
    "libraries",
    "framework",
    "frameworks",
    "toolkit",
    "opensource",
    "codebase",
    "repo",
    "repository",
    "github",
    "package",
];

/// Words that ask for an overview of a field rather than one system.
const SURVEY: &[&str] = &[
    "overview",
    "overviews",
    "survey",
    "surveys",
    "review",
    "primer",
    "tutorial",
    "taxonomy",
    "introduction",
];

/// The tag of the works that give an overview.
const SURVEY_TAG: &str = "survey";

/// The kind of work a query asking for code wants.
const CODE_KIND: &str = "project";

/// Words that ask about serving.
const SERVING: &[&str] = &[
    "inference",
    "serve",
    "serves",
    "serving",
    "decode",
    "decoding",
    "generate",
    "generated",
    "generation",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    Training,
    Serving,
    Code,
    Survey,
}

impl Intent {
    /// What an explanation says of a scaled result.
    pub fn reason(self) -> &'static str {
        match self {
            Intent::Training => "a serving work, and the query asks about training",
            Intent::Serving => "a serving work, and the query asks about serving",
            Intent::Code => "a project, and the query asks for code",
            Intent::Survey => "a survey, and the query asks for an overview",
        }
    }
}

/// What `root` asks about, among the words it wants (not those it
/// negates): the side, from training or serving words but not both, code,
/// and an overview.
pub fn of(root: &Node) -> Vec<Intent> {
    let mut words = Vec::new();
    wanted_words(root, &mut |word| {
        words.push(word.to_lowercase().replace('-', ""));
    });
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let mut asked = Vec::new();
    match (has(TRAINING), has(SERVING)) {
        (true, false) => asked.push(Intent::Training),
        (false, true) => asked.push(Intent::Serving),
        _ => {}
    }
    let open_source = words.windows(2).any(|w| w[0] == "open" && w[1] == "source");
    if has(CODE) || open_source {
        asked.push(Intent::Code);
    }
    if has(SURVEY) {
        asked.push(Intent::Survey);
    }
    asked
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
        Intent::Code => cx.boosts.code_asked,
        Intent::Survey => cx.boosts.survey_asked,
    }
}

/// Scales the works of `top` that `intent` concerns (serving works,
/// projects or surveys) by its factor and sorts it again (stably: works
/// scaled alike keep their order); returns the works scaled.
pub fn rescale(
    cx: &Context<'_>,
    intent: Intent,
    top: &mut [(f32, DocAddress)],
) -> Result<Vec<DocAddress>, Error> {
    let factor = factor(cx, intent);
    if factor == 1.0 {
        return Ok(Vec::new());
    }
    let mut scaled = Vec::new();
    let wanted = match intent {
        Intent::Training | Intent::Serving => {
            let serving = serving_tags(cx);
            vec![
                (cx.fields.tags, serving.clone()),
                (cx.fields.predicted, serving),
            ]
        }
        Intent::Code => vec![(cx.fields.kind, vec![CODE_KIND.to_string()])],
        Intent::Survey => vec![(cx.fields.tags, vec![SURVEY_TAG.to_string()])],
    };
    for (field, values) in wanted {
        for address in holding(cx, top, field, &values)? {
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

/// The documents of `top` that hold any of `values` in `field`, found in its
/// postings, each segment's in document order.
fn holding(
    cx: &Context<'_>,
    top: &[(f32, DocAddress)],
    field: Field,
    values: &[String],
) -> Result<Vec<DocAddress>, Error> {
    let mut addresses: Vec<DocAddress> = top.iter().map(|(_, a)| *a).collect();
    addresses.sort_unstable();
    let mut found = Vec::new();
    for segment in addresses.chunk_by(|a, b| a.segment_ord == b.segment_ord) {
        let inverted =
            (cx.searcher.segment_reader(segment[0].segment_ord)).inverted_index(field)?;
        for value in values {
            let term = Term::from_field_text(field, value);
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

    fn intent(text: &str) -> Vec<Intent> {
        of(&query::parse(text).unwrap().root)
    }

    #[test]
    fn training_or_serving_words_tell_the_side_and_both_tell_none() {
        assert_eq!(
            intent("fine-tune a 65B model on PCIe GPUs"),
            [Intent::Training]
        );
        assert_eq!(intent("Pre-training MoE"), [Intent::Training]);
        assert_eq!(intent("serve a 100B transformer"), [Intent::Serving]);
        assert_eq!(intent("LLM inference on TPU v4"), [Intent::Serving]);
        assert_eq!(
            intent("make each generated token come out faster"),
            [Intent::Serving]
        );
        assert_eq!(intent("training and inference of MoE"), []);
        assert_eq!(intent("serve pretrained models"), [Intent::Serving]);
        assert_eq!(intent("pipeline parallelism"), []);
        assert_eq!(
            intent("offloading -inference"),
            [],
            "a negated word asks nothing"
        );
    }

    #[test]
    fn library_words_or_open_source_ask_for_code() {
        assert_eq!(
            intent("open-source MoE training library"),
            [Intent::Training, Intent::Code]
        );
        assert_eq!(
            intent("an open source inference engine"),
            [Intent::Serving, Intent::Code]
        );
        assert_eq!(intent("Frameworks for expert parallelism"), [Intent::Code]);
        assert_eq!(intent("source code of open models"), []);
        assert_eq!(intent("expert parallelism -library"), []);
    }

    #[test]
    fn overview_words_ask_for_a_survey() {
        assert_eq!(
            intent("overview of how deep learning is parallelized"),
            [Intent::Survey]
        );
        assert_eq!(
            intent("a survey of MoE training"),
            [Intent::Training, Intent::Survey]
        );
        assert_eq!(intent("auto parallelism -survey"), []);
        assert_eq!(intent("pipeline parallelism"), []);
    }
}
