//! What an HTTP status means for a lookup, decided once for every source
//! and for the client's retries: a table that depends on nothing else.

/// What an HTTP status says about the paper a source was asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Meaning {
    /// 2xx: the body is the answer.
    Answer,
    /// 404, 410: the source does not know this paper. A definite miss, not
    /// a failure: it is remembered and asked again only later.
    Miss,
    /// 408, 429, 5xx: the service is struggling. The client retries; once
    /// the retries are spent it is a failure that keeps the cache as it was.
    Transient,
    /// Anything else (400, 401, 403, unfollowed 3xx): a failure that
    /// retrying will not fix.
    Refused,
}

/// The one decision table of statuses; see [`Meaning`].
pub(crate) fn meaning(status: u16) -> Meaning {
    match status {
        200..=299 => Meaning::Answer,
        404 | 410 => Meaning::Miss,
        408 | 429 | 500..=599 => Meaning::Transient,
        _ => Meaning::Refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_table() {
        let table = [
            (200, Meaning::Answer),
            (204, Meaning::Answer),
            (404, Meaning::Miss),
            (410, Meaning::Miss),
            (408, Meaning::Transient),
            (429, Meaning::Transient),
            (500, Meaning::Transient),
            (502, Meaning::Transient),
            (503, Meaning::Transient),
            (504, Meaning::Transient),
            (599, Meaning::Transient),
            (301, Meaning::Refused),
            (400, Meaning::Refused),
            (401, Meaning::Refused),
            (403, Meaning::Refused),
            (405, Meaning::Refused),
            (451, Meaning::Refused),
        ];
        for (status, expected) in table {
            assert_eq!(meaning(status), expected, "HTTP {status}");
        }
    }
}
