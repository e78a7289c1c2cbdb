//! What a broken or hostile OAI-PMH server cannot make a harvest do: go
//! round its list forever, or date a record so late that the next harvest
//! would start after every paper still to come. Pure.

use std::collections::HashSet;

use time::format_description::well_known::Iso8601;
use time::{Date, Duration, OffsetDateTime};

use super::oai::Page;

/// Pages in a row that bring no record not already received in the pass:
/// a list that makes progress never repeats itself that long.
pub const STALE_PAGES: u32 = 3;

/// One pass over a list (an expired token starts another): the tokens and
/// records it has received.
#[derive(Default)]
pub struct LoopGuard {
    /// Hashes, not the tokens: a server chooses their length.
    tokens: HashSet<u64>,
    ids: HashSet<String>,
    stale: u32,
}

impl LoopGuard {
    /// Why the list goes round after `page`, if it does.
    pub fn check(&mut self, page: &Page) -> Option<String> {
        let mut added = false;
        for id in page.records.iter().filter_map(|r| r.arxiv_id()) {
            added |= self.ids.insert(id);
        }
        self.stale = if added { 0 } else { self.stale + 1 };
        let token = page.next_token()?;
        if !self
            .tokens
            .insert(xxhash_rust::xxh3::xxh3_64(token.as_bytes()))
        {
            return Some(format!(
                "it sent the resumption token {:?} a second time",
                shortened(token)
            ));
        }
        (self.stale >= STALE_PAGES)
            .then(|| format!("{STALE_PAGES} pages in a row held no record it had not already sent"))
    }
}

/// A token as an error quotes it: its first 40 characters.
fn shortened(token: &str) -> String {
    match token.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &token[..at]),
        None => token.to_string(),
    }
}

/// The latest day a record of a response may be dated: the response's own
/// day (`responseDate`), or, when it has none that can be read, tomorrow by
/// this machine's clock.
pub fn latest_day(response_date: Option<&str>) -> Date {
    response_date
        .and_then(day)
        .unwrap_or_else(|| OffsetDateTime::now_utc().date() + Duration::days(1))
}

/// Whether `datestamp` is a day (or a moment, at a finer granularity) no
/// later than `latest`. Another would become the set's latest datestamp,
/// where the next harvest starts.
pub fn dated_by(datestamp: &str, latest: Date) -> bool {
    day(datestamp).is_some_and(|d| d <= latest)
}

/// `YYYY-MM-DD`, or `YYYY-MM-DDThh:mm:ssZ` as OAI-PMH writes a moment.
fn day(text: &str) -> Option<Date> {
    let text = text.trim();
    let date = Date::parse(text.get(..10)?, &Iso8601::DATE).ok()?;
    let rest = &text[10..];
    let moment = || {
        time::format_description::parse_borrowed::<2>("T[hour]:[minute]:[second]Z")
            .is_ok_and(|format| time::Time::parse(rest, &format).is_ok())
    };
    (rest.is_empty() || moment()).then_some(date)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harvest::oai::{ArxivMetadata, OaiRecord, ResumptionToken};

    fn page(ids: &[&str], token: &str) -> Page {
        Page {
            records: ids
                .iter()
                .map(|id| OaiRecord {
                    identifier: format!("oai:arXiv.org:{id}"),
                    metadata: Some(ArxivMetadata {
                        id: id.to_string(),
                        ..ArxivMetadata::default()
                    }),
                    ..OaiRecord::default()
                })
                .collect(),
            token: Some(ResumptionToken {
                value: token.to_string(),
                ..ResumptionToken::default()
            }),
            response_date: None,
        }
    }

    #[test]
    fn a_token_that_comes_again_ends_the_pass() {
        let mut guard = LoopGuard::default();
        assert_eq!(guard.check(&page(&["2612.60001"], "again")), None);
        let why = guard.check(&page(&["2612.60002"], "again")).unwrap();
        assert!(why.contains("\"again\" a second time"), "{why}");
    }

    #[test]
    fn pages_that_bring_nothing_new_end_the_pass_at_the_third() {
        let mut guard = LoopGuard::default();
        assert_eq!(guard.check(&page(&["2612.60001"], "t0")), None);
        assert_eq!(guard.check(&page(&["2612.60001"], "t1")), None);
        assert_eq!(guard.check(&page(&["2612.60001"], "t2")), None);
        assert!(guard.check(&page(&["2612.60001"], "t3")).is_some());
        // Invalid ids are no progress; new valid ones are.
        let mut guard = LoopGuard::default();
        for n in 0..10 {
            let ids = [format!("2612.6{n:04}")];
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            assert_eq!(guard.check(&page(&ids, &format!("t{n}"))), None);
        }
        for n in 10..12 {
            assert_eq!(guard.check(&page(&["a b"], &format!("t{n}"))), None);
        }
        assert!(guard.check(&page(&["a b"], "t12")).is_some());
    }

    #[test]
    fn the_last_page_never_loops() {
        let mut guard = LoopGuard::default();
        for _ in 0..5 {
            assert_eq!(guard.check(&page(&["2612.60001"], "")), None);
        }
    }

    #[test]
    fn a_long_token_is_quoted_in_part() {
        let token = "x".repeat(10_000);
        let mut guard = LoopGuard::default();
        guard.check(&page(&["2612.60001"], &token));
        let why = guard.check(&page(&["2612.60002"], &token)).unwrap();
        assert!(why.len() < 120, "{why}");
    }

    #[test]
    fn datestamps_after_the_response_or_unreadable_are_refused() {
        let latest = latest_day(Some("2999-01-06T00:00:00Z"));
        assert!(dated_by("2999-01-06", latest));
        assert!(dated_by("2999-01-05T23:59:59Z", latest));
        for bad in [
            "2999-01-07",
            "9999-12-31",
            "zzzz",
            "",
            "2999-02-30",
            "2999-01-05junk",
            "2999-01-05T25:00:00Z",
        ] {
            assert!(!dated_by(bad, latest), "{bad}");
        }
        // No readable response date: tomorrow is the bound.
        let tomorrow = OffsetDateTime::now_utc().date() + Duration::days(1);
        assert_eq!(latest_day(Some("soon")), tomorrow);
        assert_eq!(latest_day(None), tomorrow);
    }
}
