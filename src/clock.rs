//! The current calendar year and UTC timestamps, through the `time` crate.

use time::format_description::well_known::{Iso8601, Rfc3339};
use time::{Date, OffsetDateTime};

/// Now as RFC 3339 in UTC, to the second: `2026-11-30T13:00:00Z`.
pub fn now_rfc3339() -> String {
    let now = OffsetDateTime::now_utc();
    // Whole seconds: RFC 3339 then has no fraction, as the cache always had.
    let now = now.replace_nanosecond(0).unwrap_or(now);
    now.format(&Rfc3339).unwrap_or_default()
}

/// Whole days since an RFC 3339 timestamp written by [`now_rfc3339`], by
/// its UTC date (`None` when it cannot be read).
pub fn days_since(timestamp: &str) -> Option<i64> {
    let date = Date::parse(timestamp.get(..10)?, &Iso8601::DATE).ok()?;
    Some((OffsetDateTime::now_utc().date() - date).whole_days())
}

/// Whole seconds since an RFC 3339 timestamp (`None` when it cannot be read).
pub fn seconds_since(timestamp: &str) -> Option<i64> {
    let then = OffsetDateTime::parse(timestamp, &Rfc3339).ok()?;
    Some((OffsetDateTime::now_utc() - then).whole_seconds())
}

/// Today in UTC, `YYYY-MM-DD`.
pub fn today() -> String {
    now_rfc3339().get(..10).unwrap_or_default().to_string()
}

pub fn current_year() -> i64 {
    i64::from(OffsetDateTime::now_utc().year())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_back() {
        let today = now_rfc3339();
        assert_eq!(today.len(), "2026-11-30T13:00:00Z".len(), "{today}");
        assert!(today.ends_with('Z'), "{today}");
        assert_eq!(days_since(&today), Some(0));
        assert!(seconds_since(&today).is_some_and(|s| (0..5).contains(&s)));
        assert_eq!(seconds_since("yesterday"), None);
        assert_eq!(
            days_since("1970-01-01T00:00:00Z"),
            Some(
                OffsetDateTime::now_utc()
                    .unix_timestamp()
                    .div_euclid(86_400)
            )
        );
        assert_eq!(days_since("2024-02-30T00:00:00Z"), None);
        assert_eq!(days_since("yesterday"), None);
        assert_eq!(
            current_year(),
            i64::from(Date::parse(&today[..10], &Iso8601::DATE).unwrap().year())
        );
    }
}
