//! Costly answers computed once for every request that asks for the same
//! thing at the same time, and at most `most` different ones at a time:
//! twenty clients asking for the inbox cost one computation, not twenty.
//! A computation runs to its end even when its clients leave (it cannot be
//! stopped half-way), but it is one, and the next request shares it.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Bytes;
use axum::http::StatusCode;
use tokio::sync::watch;

/// A status and its JSON text, cheap to clone.
pub type Answer = (StatusCode, Bytes);

pub struct Flights<K> {
    most: usize,
    running: Mutex<HashMap<K, watch::Receiver<Option<Answer>>>>,
}

/// What `Flights::join` got.
pub enum Joined {
    Answer(Answer),
    /// `most` other computations are running: answer 503.
    Busy,
}

impl<K: Eq + Hash + Clone + Send + Sync + 'static> Flights<K> {
    pub fn new(most: usize) -> Flights<K> {
        Flights {
            most,
            running: Mutex::new(HashMap::new()),
        }
    }

    /// The answer for `key`: the running computation's, or `work`'s,
    /// started now on a task of its own.
    pub async fn join<F>(self: &Arc<Self>, key: K, work: impl FnOnce() -> F) -> Joined
    where
        F: Future<Output = Answer> + Send + 'static,
    {
        let mut answer = {
            let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
            match running.get(&key) {
                Some(answer) => answer.clone(),
                None if running.len() >= self.most => return Joined::Busy,
                None => {
                    let (done, answer) = watch::channel(None);
                    running.insert(key.clone(), answer.clone());
                    let flights = Arc::clone(self);
                    let work = work();
                    tokio::spawn(async move {
                        let value = work.await;
                        let mut running = flights
                            .running
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner);
                        running.remove(&key);
                        let _ = done.send(Some(value));
                    });
                    answer
                }
            }
        };
        match answer.wait_for(Option::is_some).await {
            Ok(value) => Joined::Answer(value.clone().unwrap_or_else(lost)),
            Err(_) => Joined::Answer(lost()),
        }
    }
}

/// The computation's task ended without an answer (it cannot: `answer`
/// catches panics), said rather than waited for.
fn lost() -> Answer {
    let status = StatusCode::INTERNAL_SERVER_ERROR;
    let body = serde_json::json!({"error": "internal error: the answer was lost", "status": 500});
    (status, Bytes::from(body.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[tokio::test]
    async fn concurrent_askers_share_one_computation_and_a_third_key_is_refused() {
        let flights = Arc::new(Flights::new(2));
        let runs = Arc::new(AtomicUsize::new(0));
        let ask = |key: u8| {
            let flights = Arc::clone(&flights);
            let runs = Arc::clone(&runs);
            tokio::spawn(async move {
                let joined = flights
                    .join(key, || async move {
                        runs.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        (StatusCode::OK, Bytes::from(vec![key]))
                    })
                    .await;
                match joined {
                    Joined::Answer((_, body)) => Some(body[0]),
                    Joined::Busy => None,
                }
            })
        };
        let askers: Vec<_> = [1, 1, 1, 2, 1, 2].into_iter().map(ask).collect();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(ask(3).await.unwrap(), None);
        for (asker, key) in askers.into_iter().zip([1, 1, 1, 2, 1, 2]) {
            assert_eq!(asker.await.unwrap(), Some(key));
        }
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        // Done: the next request computes afresh.
        assert_eq!(ask(3).await.unwrap(), Some(3));
    }
}
