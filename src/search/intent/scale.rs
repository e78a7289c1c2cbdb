//! What an intent a query shows does to the ranking: the works it
//! concerns (serving works, projects, surveys) scaled by its weight.

use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocSet, Term};

use super::{CODE_KIND, Intent, SURVEY_TAG};
use crate::error::Error;
use crate::search::compile::Context;

/// The tag whose works serve; tags narrower than it serve too.
const SERVING_TAG: &str = "inference-serving";

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
    use crate::search::intent::of;
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
