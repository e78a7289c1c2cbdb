//! Whether a query asks about training or about serving. "Fine-tune a 65B
//! model on PCIe-only GPUs" wants the works that train, and the offloading
//! works that serve share most of its words; "serve a 100B transformer with
//! tensor-parallel workers" wants the reverse. A few words tell which, and
//! the works' tags tell which side a work is on: a serving work has
//! `inference-serving`, or a tag narrower than it, curated as what it is
//! about (`tags`, not `uses`) or predicted. Each result of the pool that
//! feedback reorders (see `rank/`) is scaled by the weight of
//! `Boosts::training_asked` or `Boosts::serving_asked`.
//!
//! A query may also ask for code ("library", "open-source framework"):
//! then the catalog's projects are scaled by `Boosts::code_asked`, since
//! the papers that describe a system share its words and are many more.
//! Or for an overview ("overview of how deep learning is parallelized"):
//! then the works tagged as surveys are scaled by `Boosts::survey_asked`,
//! since the systems a survey covers share its words and are many more.

use crate::catalog::Vocabulary;
use crate::search::signals;
use crate::search::understand::query::Node;

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
pub(crate) const SURVEY_TAG: &str = "survey";

/// The kind of work a query asking for code wants.
pub(crate) const CODE_KIND: &str = "project";

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
            Intent::Training => signals::TRAINING_ASKED.shown,
            Intent::Serving => signals::SERVING_ASKED.shown,
            Intent::Code => signals::CODE_ASKED.shown,
            Intent::Survey => signals::SURVEY_ASKED.shown,
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
pub(in crate::search) fn wanted_words(node: &Node, each: &mut impl FnMut(&str)) {
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

/// The tag whose works serve; tags narrower than it serve too.
const SERVING_TAG: &str = "inference-serving";

/// The tags of `vocabulary` whose works serve: `inference-serving` and
/// the tags narrower than it.
pub fn serving_tags_of(vocabulary: &Vocabulary) -> Vec<String> {
    std::iter::once(SERVING_TAG.to_string())
        .chain(vocabulary.narrower(SERVING_TAG).map(|t| t.id.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::understand::query;

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
