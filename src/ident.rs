//! Paper identifiers carried by URLs: arXiv ids and DOIs, normalized; and
//! the account a code host's URL names.
//!
//! Pure string work, shared by catalog validation and the ingester. An
//! identifier is only ever taken from a URL or a lookup, never made up.

/// The arXiv id in an arxiv.org URL (abs, pdf or html; any version), without
/// its version suffix.
pub fn arxiv_from_url(url: &str) -> Option<String> {
    let (host, path) = host_and_path(url)?;
    if !(host == "arxiv.org" || host.ends_with(".arxiv.org")) {
        return None;
    }
    let rest = ["abs/", "pdf/", "html/", "format/"]
        .iter()
        .find_map(|prefix| path.strip_prefix(prefix))?;
    let rest = rest
        .strip_suffix(".pdf")
        .unwrap_or(rest)
        .trim_end_matches('/');
    let id = strip_version(rest);
    is_arxiv_id(id).then(|| id.to_string())
}

/// The DOI in a doi.org or dl.acm.org URL, lower-cased (DOIs are case-insensitive).
pub fn doi_from_url(url: &str) -> Option<String> {
    let (host, path) = host_and_path(url)?;
    let doi = if host == "doi.org" || host == "dx.doi.org" {
        path
    } else if host == "dl.acm.org" {
        let rest = path.strip_prefix("doi/")?;
        ["abs/", "pdf/", "fullHtml/", "full/", "epdf/", "book/"]
            .iter()
            .find_map(|p| rest.strip_prefix(p))
            .unwrap_or(rest)
    } else {
        return None;
    };
    let doi = percent_decode(doi.trim_end_matches('/'));
    is_doi(&doi).then(|| doi.to_lowercase())
}

/// `2006.09503`, `1802.09941`, `hep-th/9901001`, `math.GT/0309136`; no version.
pub fn is_arxiv_id(id: &str) -> bool {
    if let Some((yymm, number)) = id.split_once('.')
        && yymm.len() == 4
        && all_digits(yymm)
        && (number.len() == 4 || number.len() == 5)
        && all_digits(number)
    {
        let month: u32 = yymm[2..].parse().unwrap_or(0);
        return (1..=12).contains(&month);
    }
    if let Some((archive, number)) = id.split_once('/') {
        let (name, subject) = archive.split_once('.').unwrap_or((archive, ""));
        return !name.is_empty()
            && name.chars().all(|c| c.is_ascii_lowercase() || c == '-')
            && subject.chars().all(|c| c.is_ascii_uppercase())
            && number.len() == 7
            && all_digits(number);
    }
    false
}

/// `10.<registrant>/<suffix>`: a registrant code of 4 to 9 digits (dots allowed
/// after the first group) and a non-empty suffix without spaces.
pub fn is_doi(doi: &str) -> bool {
    let Some(rest) = doi.strip_prefix("10.") else {
        return false;
    };
    let Some((registrant, suffix)) = rest.split_once('/') else {
        return false;
    };
    let first = registrant.split('.').next().unwrap_or_default();
    (4..=9).contains(&first.len())
        && registrant
            .split('.')
            .all(|p| !p.is_empty() && all_digits(p))
        && !suffix.is_empty()
        && !suffix.chars().any(char::is_whitespace)
}

/// The arXiv id without a trailing `vN`.
pub fn strip_version(id: &str) -> &str {
    match id.rfind('v') {
        Some(i) if i > 0 && i + 1 < id.len() && all_digits(&id[i + 1..]) => &id[..i],
        _ => id,
    }
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `host` (lower-case, without `www.`) hosts code repositories.
pub fn is_code_host(host: &str) -> bool {
    matches!(host, "github.com" | "gitlab.com" | "bitbucket.org")
}

/// The account that hosts the code at `url` on a code host ("alibaba" of
/// github.com/alibaba/TePDist): a project is also known by its maker's
/// name, which neither its title nor its note may say.
pub fn code_owner(url: &str) -> Option<&str> {
    let (host, path) = host_and_path(url)?;
    if !is_code_host(&host) {
        return None;
    }
    path.split('/').next().filter(|owner| !owner.is_empty())
}

/// The lower-case host (without `www.`) and the path without its leading `/`,
/// query or fragment.
fn host_and_path(url: &str) -> Option<(String, &str)> {
    let parsed = url::Url::parse(url.trim()).ok()?;
    let host = parsed.host_str()?.to_lowercase();
    let host = host
        .strip_prefix("www.")
        .map(str::to_string)
        .unwrap_or(host);
    let start = url.find(parsed.path())?;
    let path = &url[start..start + parsed.path().len()];
    Some((host, path.trim_start_matches('/')))
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_hosts_first_path_segment_is_the_owner() {
        let owner = |url| code_owner(url).unwrap_or_default();
        assert_eq!(owner("https://github.com/alibaba/TePDist"), "alibaba");
        assert_eq!(owner("https://www.GitHub.com/NVIDIA"), "NVIDIA");
        assert_eq!(owner("https://gitlab.com/group/project#x"), "group");
        assert_eq!(owner("https://github.com/owner?tab=repositories"), "owner");
        // No owner: none in the path, another host, or no URL at all.
        for url in [
            "https://github.com/",
            "https://github.com",
            "https://example.org/alibaba/x",
            "https://www.deepspeed.ai/",
            "www.oneflow.org",
        ] {
            assert_eq!(code_owner(url), None, "{url}");
        }
    }

    #[test]
    fn arxiv_ids_from_every_url_form() {
        let cases = [
            ("https://arxiv.org/abs/1802.09941", "1802.09941"),
            ("https://arxiv.org/abs/2006.09503v3", "2006.09503"),
            ("https://arxiv.org/abs/2405.07719v5", "2405.07719"),
            ("https://arxiv.org/pdf/2401.10241", "2401.10241"),
            ("https://arxiv.org/pdf/2401.10241v2.pdf", "2401.10241"),
            ("http://arxiv.org/html/2409.19256v1", "2409.19256"),
            ("https://export.arxiv.org/abs/1604.06174", "1604.06174"),
            ("https://arxiv.org/abs/hep-th/9901001", "hep-th/9901001"),
            ("https://arxiv.org/abs/math.GT/0309136v2", "math.GT/0309136"),
            ("https://www.arxiv.org/abs/0704.0001", "0704.0001"),
        ];
        for (url, id) in cases {
            assert_eq!(arxiv_from_url(url).as_deref(), Some(id), "{url}");
        }
    }

    #[test]
    fn non_arxiv_urls_carry_no_arxiv_id() {
        for url in [
            "https://github.com/NVIDIA/Megatron-LM",
            "https://arxiv.org/list/cs.DC/recent",
            "https://notarxiv.org/abs/1802.09941",
            "https://arxiv.org/abs/1813.09941",
        ] {
            assert_eq!(arxiv_from_url(url), None, "{url}");
        }
    }

    #[test]
    fn dois_from_acm_and_doi_org() {
        let cases = [
            (
                "https://dl.acm.org/doi/10.1145/3341301.3359646",
                "10.1145/3341301.3359646",
            ),
            (
                "https://dl.acm.org/doi/abs/10.1145/3458817.3476145",
                "10.1145/3458817.3476145",
            ),
            (
                "https://dl.acm.org/doi/pdf/10.1145/3575693.3575703",
                "10.1145/3575693.3575703",
            ),
            (
                "https://dl.acm.org/doi/fullHtml/10.1145/3503221.3508418",
                "10.1145/3503221.3508418",
            ),
            (
                "https://dl.acm.org/doi/10.5555/3433701.3433727",
                "10.5555/3433701.3433727",
            ),
            (
                "https://doi.org/10.1109/TPDS.2022.3219819",
                "10.1109/tpds.2022.3219819",
            ),
            (
                "https://dx.doi.org/10.48550/arXiv.2006.09503",
                "10.48550/arxiv.2006.09503",
            ),
            ("https://doi.org/10.1000/a%2Fb", "10.1000/a/b"),
        ];
        for (url, doi) in cases {
            assert_eq!(doi_from_url(url).as_deref(), Some(doi), "{url}");
        }
        assert_eq!(
            doi_from_url("https://ieeexplore.ieee.org/document/9355254"),
            None
        );
        assert_eq!(doi_from_url("https://dl.acm.org/doi/proceedings"), None);
    }

    #[test]
    fn identifier_syntax() {
        assert!(is_arxiv_id("2006.09503"));
        assert!(!is_arxiv_id("2006.09503v3"));
        assert!(!is_arxiv_id("20060.9503"));
        assert!(is_doi("10.1145/3341301.3359646"));
        assert!(!is_doi("10.12/x"));
        assert!(!is_doi("doi:10.1145/3341301"));
        assert!(!is_doi("10.1145/"));
    }
}
