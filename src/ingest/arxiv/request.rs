//! Request URLs for arXiv's API: a batch of ids, or a search on a title's first words.

/// The most ids one `id_list` request carries.
pub(crate) const MAX_IDS_PER_REQUEST: usize = 100;

/// Title words kept in a title search: enough to single a paper out, while a
/// long subtitle (often worded differently on arXiv) cannot sink the match.
const MAX_TITLE_WORDS: usize = 12;

/// `{base}?id_list=ID,ID,...&max_results=N` for at most
/// [`MAX_IDS_PER_REQUEST`] ids.
pub(crate) fn id_list_url(base: &url::Url, ids: &[String]) -> url::Url {
    let mut url = base.clone();
    url.query_pairs_mut()
        .append_pair("id_list", &ids.join(","))
        // Without it arXiv answers with its default of 10 entries and drops
        // the rest of the batch without a word.
        .append_pair("max_results", &ids.len().to_string());
    url
}

/// `{base}?search_query=ti:"<words>"&max_results=N`: a phrase search on the
/// title's first words. Punctuation is dropped because `:`, `-`, `"` and
/// brackets are query syntax to arXiv; a title without any letter or digit
/// gives `ti:""`, which matches nothing.
pub(crate) fn title_search_url(base: &url::Url, title: &str, max_results: usize) -> url::Url {
    let words: Vec<&str> = title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .take(MAX_TITLE_WORDS)
        .collect();
    let mut url = base.clone();
    url.query_pairs_mut()
        .append_pair("search_query", &format!("ti:\"{}\"", words.join(" ")))
        .append_pair("max_results", &max_results.to_string());
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> url::Url {
        url::Url::parse("https://export.arxiv.org/api/query").expect("a valid URL")
    }

    fn query_value(url: &url::Url, key: &str) -> Option<String> {
        url.query_pairs()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
    }

    #[test]
    fn id_list_url_always_states_max_results() {
        let ids = vec!["2006.09503".to_string(), "hep-th/9901001".to_string()];
        let url = id_list_url(&base(), &ids);
        assert_eq!(
            query_value(&url, "id_list").as_deref(),
            Some("2006.09503,hep-th/9901001")
        );
        assert_eq!(query_value(&url, "max_results").as_deref(), Some("2"));
        assert!(
            url.as_str()
                .starts_with("https://export.arxiv.org/api/query?")
        );
        assert!(
            url.as_str().contains("2006.09503%2Chep-th%2F9901001"),
            "{url}"
        );

        let full: Vec<String> = (0..MAX_IDS_PER_REQUEST)
            .map(|i| format!("2006.{i:05}"))
            .collect();
        let url = id_list_url(&base(), &full);
        assert_eq!(query_value(&url, "max_results").as_deref(), Some("100"));
        assert_eq!(
            query_value(&url, "id_list").map(|list| list.split(',').count()),
            Some(100)
        );
    }

    #[test]
    fn title_search_url_quotes_the_words_without_punctuation() {
        let url = title_search_url(
            &base(),
            "Memory-Efficient Pipeline-Parallel DNN Training: a \"study\" (v2)",
            5,
        );
        assert_eq!(
            query_value(&url, "search_query").as_deref(),
            Some("ti:\"Memory Efficient Pipeline Parallel DNN Training a study v2\"")
        );
        assert_eq!(query_value(&url, "max_results").as_deref(), Some("5"));
        assert!(
            url.as_str()
                .contains("search_query=ti%3A%22Memory+Efficient+Pipeline+Parallel"),
            "{url}"
        );
    }

    #[test]
    fn title_search_url_keeps_at_most_twelve_words() {
        let title = "one two three four five six seven eight nine ten eleven twelve thirteen";
        let url = title_search_url(&base(), title, 3);
        assert_eq!(
            query_value(&url, "search_query").as_deref(),
            Some("ti:\"one two three four five six seven eight nine ten eleven twelve\"")
        );
        let url = title_search_url(&base(), " -- : ", 3);
        assert_eq!(
            query_value(&url, "search_query").as_deref(),
            Some("ti:\"\"")
        );
    }
}
