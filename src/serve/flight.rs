//! Costly answers computed once for every request that asks for the same
//! thing at the same time, and at most `most` different ones at a time:
//! twenty clients asking for the inbox cost one computation, not twenty.
//! When every client of a computation has left, its `stop` flag is set
//! (the work checks it as it goes) and the next request starts afresh.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Bytes;
use axum::http::StatusCode;
use tokio::sync::watch;

/// A status and its JSON text, cheap to clone.
pub type Answer = (StatusCode, Bytes);

type Flight = Arc<watch::Sender<Option<Answer>>>;

pub struct Flights<K> {
    most: usize,
    /// Each running computation's sender: its receivers are its clients.
    running: Mutex<HashMap<K, Flight>>,
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

    /// The answer for `key`: the running computation's, or `work`'s
    /// (given its stop flag), started now on a task of its own.
    pub async fn join<F>(
        self: &Arc<Self>,
        key: K,
        work: impl FnOnce(Arc<AtomicBool>) -> F,
    ) -> Joined
    where
        F: Future<Output = Answer> + Send + 'static,
    {
        let mut answer = {
            let mut running = self.lock();
            match running.get(&key) {
                Some(flight) => flight.subscribe(),
                None if running.len() >= self.most => return Joined::Busy,
                None => {
                    let flight: Flight = Arc::new(watch::channel(None).0);
                    let answer = flight.subscribe();
                    running.insert(key.clone(), Arc::clone(&flight));
                    let stop = Arc::new(AtomicBool::new(false));
                    let work = work(Arc::clone(&stop));
                    tokio::spawn(Arc::clone(self).fly(key, flight, stop, work));
                    answer
                }
            }
        };
        match answer.wait_for(Option::is_some).await {
            Ok(value) => Joined::Answer(value.clone().unwrap_or_else(lost)),
            Err(_) => Joined::Answer(lost()),
        }
    }

    /// Runs `work` and sends its answer; stops it when its clients have
    /// all left, and takes it off the map so that the next asks afresh.
    async fn fly(
        self: Arc<Self>,
        key: K,
        flight: Flight,
        stop: Arc<AtomicBool>,
        work: impl Future<Output = Answer>,
    ) {
        let mut work = pin!(work);
        let value = tokio::select! {
            value = &mut work => value,
            () = flight.closed() => {
                stop.store(true, Ordering::Relaxed);
                self.land(&key, &flight);
                work.await
            }
        };
        self.land(&key, &flight);
        flight.send_replace(Some(value));
    }

    /// Takes `flight` off the map, unless a newer one has its place.
    fn land(&self, key: &K, flight: &Flight) {
        let mut running = self.lock();
        if running.get(key).is_some_and(|f| Arc::ptr_eq(f, flight)) {
            running.remove(key);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, Flight>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
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
                    .join(key, |_| async move {
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

    #[tokio::test]
    async fn a_computation_whose_clients_all_left_is_told_to_stop() {
        let flights = Arc::new(Flights::new(1));
        let (told, mut seen) = watch::channel(false);
        let asker = {
            let flights = Arc::clone(&flights);
            tokio::spawn(async move {
                flights
                    .join(1u8, |stop| async move {
                        while !stop.load(Ordering::Relaxed) {
                            tokio::time::sleep(Duration::from_millis(10)).await;
                        }
                        let _ = told.send(true);
                        (StatusCode::OK, Bytes::new())
                    })
                    .await;
            })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        asker.abort();
        let stopped = tokio::time::timeout(Duration::from_secs(2), seen.wait_for(|t| *t)).await;
        assert!(stopped.is_ok(), "the computation was not told to stop");
        // Its place is free at once.
        let joined = flights
            .join(2u8, |_| async { (StatusCode::OK, Bytes::new()) })
            .await;
        assert!(matches!(joined, Joined::Answer(_)));
    }
}
