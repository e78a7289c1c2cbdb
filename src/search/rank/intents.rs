//! What an intent a query shows does to the ranking: the works it
//! concerns (serving works, projects, surveys) scaled by its weight.

use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocSet, Term};

use crate::error::Error;
use crate::search::plan::compile::Context;
use crate::search::understand::intent::{CODE_KIND, Intent, SURVEY_TAG, serving_tags_of};

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
    serving_tags_of(cx.synonyms.vocabulary())
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
