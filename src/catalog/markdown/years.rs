//! Lists grouped by year: a `<details>` block whose summary is a year
//! ("2024", "Before 2024", "2019-2021") says when its works appeared, not
//! what they are about, so it is no section. The headings inside it are
//! the topics, and a topic met again under another year is the same one.
//! Also the `<details>` and `<summary>` tags of an HTML block, in order.

/// What a year's summary says of the works under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YearLabel {
    /// The one year it names ("2024"); none for a span ("Before 2024").
    pub year: Option<i64>,
}

/// Years a summary can name.
const YEARS: std::ops::RangeInclusive<i64> = 1950..=2100;

/// The year label `summary` is, if it is one: a year, a span of years,
/// or a year with "before", "after", "earlier", "older" or "and later"
/// around it; a count in parentheses after it is allowed ("2024 (35)").
pub fn year_label(summary: &str) -> Option<YearLabel> {
    let mut text = summary.trim().to_lowercase();
    if text.ends_with(')')
        && let Some(open) = text.rfind('(')
    {
        let inside = &text[open + 1..text.len() - 1];
        if inside
            .trim()
            .chars()
            .all(|c| c.is_ascii_digit() || c == ' ')
        {
            text.truncate(open);
        }
    }
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, '-' | '–' | '—' | ',' | ':' | '~'))
        .filter(|w| !w.is_empty())
        .collect();
    let year = |w: &str| {
        let w = w.trim_start_matches(['<', '>', '≤', '≥', '=']);
        (w.len() == 4)
            .then(|| w.parse::<i64>().ok())
            .flatten()
            .filter(|y| YEARS.contains(y))
    };
    const AROUND: &[&str] = &[
        "before", "after", "since", "earlier", "older", "and", "or", "later", "prior", "to",
        "until", "pre", "post", "&", "papers", "in",
    ];
    let years: Vec<i64> = words.iter().filter_map(|w| year(w)).collect();
    let other = words
        .iter()
        .any(|w| year(w).is_none() && !AROUND.contains(w));
    if years.is_empty() || years.len() > 2 || other {
        return None;
    }
    let single = words.len() == 1 && words[0].chars().all(|c| c.is_ascii_digit());
    Some(YearLabel {
        year: single.then(|| years[0]),
    })
}

/// A tag of an HTML block that matters to a list: `<details>`,
/// `</details>`, or a `<summary>` with its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HtmlTag {
    Open,
    Close,
    Summary(String),
}

/// The `<details>`, `</details>` and `<summary>` tags of `html`, in order.
pub fn html_tags(html: &str) -> Vec<HtmlTag> {
    let lower = html.to_lowercase();
    let mut tags = Vec::new();
    let mut at = 0;
    while let Some(start) = lower[at..].find('<').map(|i| at + i) {
        let rest = &lower[start + 1..];
        let Some(end) = rest.find('>').map(|i| start + 1 + i + 1) else {
            break;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '/')
            .collect();
        at = end;
        match name.as_str() {
            "details" => tags.push(HtmlTag::Open),
            "/details" => tags.push(HtmlTag::Close),
            "summary" => {
                let close = lower[end..]
                    .find("</summary")
                    .map_or(html.len(), |i| end + i);
                tags.push(HtmlTag::Summary(html[end..close].to_string()));
                at = close;
            }
            _ => {}
        }
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(text: &str) -> Option<Option<i64>> {
        year_label(text).map(|l| l.year)
    }

    #[test]
    fn years_and_spans_of_years_are_labels() {
        assert_eq!(label("2024"), Some(Some(2024)));
        assert_eq!(label(" 2023 (41) "), Some(Some(2023)));
        assert_eq!(label("Before 2024"), Some(None));
        assert_eq!(label("2020 and earlier"), Some(None));
        assert_eq!(label("2019-2021"), Some(None));
        assert_eq!(label("≤2019"), Some(None));
    }

    #[test]
    fn topics_are_not_labels() {
        for text in [
            "Scheduling",
            "LLM serving",
            "Papers",
            "GPT-4 era",
            "Top 2024 systems",
            "1024 GPUs",
            "",
        ] {
            assert_eq!(label(text), None, "{text}");
        }
    }

    #[test]
    fn details_and_summaries_in_order() {
        let html = "</details>\n<details open><summary><b>Before</b> 2024</summary>\n";
        assert_eq!(
            html_tags(html),
            [
                HtmlTag::Close,
                HtmlTag::Open,
                HtmlTag::Summary("<b>Before</b> 2024".into())
            ]
        );
    }
}
