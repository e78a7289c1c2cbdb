//! The retry loop: attempts under the host's limits, transient failures retried after a backoff.

use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::time::Instant;
use url::Url;

use super::hosts::{Gone, check_reachable, host_key};
use super::{HttpClient, Outcome};
use crate::error::{FetchError, redact};

impl HttpClient {
    /// Sends `attempt` until it is done, under the host's limits, retrying
    /// transient failures and giving the host up when it is gone.
    /// (`send` takes the redacted URL by value: an `AsyncFn(&str)` would
    /// make the future not `Send`, for want of higher-ranked bounds.)
    pub(super) async fn politely<T, Attempt>(
        &self,
        url: &Url,
        send: impl Fn(String) -> Attempt,
    ) -> Result<T, FetchError>
    where
        Attempt: Future<Output = Outcome<T>>,
    {
        let shown = redact(url.as_str());
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::InvalidUrl {
                url: shown,
                reason: format!("unsupported scheme {:?}", url.scheme()),
            });
        }
        let Some(key) = host_key(url) else {
            return Err(FetchError::InvalidUrl {
                url: shown,
                reason: "no host".to_owned(),
            });
        };
        let config = &self.inner.config;
        let mut attempt: u32 = 0;
        loop {
            let host = self.host(&key);
            check_reachable(&host, &key, &shown)?;
            let outcome = {
                let permit = host.acquire().await;
                // Another request may have found the host dead while we queued.
                check_reachable(&host, &key, &shown)?;
                let outcome = send(shown.clone()).await;
                drop(permit);
                outcome
            };
            match outcome {
                Outcome::Done(response) => {
                    host.failures.store(0, Ordering::SeqCst);
                    return Ok(response);
                }
                Outcome::Fatal(error) => return Err(error),
                Outcome::Unreachable(reason) => {
                    let gone = Gone {
                        reason,
                        connect_failed: true,
                    };
                    return Err(self.give_up(&host, key, shown, gone));
                }
                Outcome::Retry {
                    reason,
                    retry_after,
                } => {
                    if let Some(why) = self.gives_up(&host, retry_after) {
                        let gone = Gone {
                            reason: format!("{reason}; {why}"),
                            connect_failed: false,
                        };
                        return Err(self.give_up(&host, key, shown, gone));
                    }
                    if attempt >= config.max_retries {
                        return Err(FetchError::Exhausted {
                            url: shown,
                            attempts: attempt + 1,
                            reason,
                        });
                    }
                    match retry_after {
                        Some(delay) => host.defer_until(Instant::now() + delay),
                        None => tokio::time::sleep(self.backoff(attempt)).await,
                    }
                    attempt += 1;
                }
            }
        }
    }

    /// Full jitter: uniform in [0, min(base * 2^attempt, max)], so that
    /// clients that failed together do not retry together.
    fn backoff(&self, attempt: u32) -> Duration {
        let config = &self.inner.config;
        let ceiling = config
            .base_backoff
            .saturating_mul(1u32 << attempt.min(20))
            .min(config.max_backoff);
        let ms = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(rand::random_range(0..=ms))
    }
}
