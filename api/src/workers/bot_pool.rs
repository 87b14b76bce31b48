//! The computer players' searches run here, on threads of their own: never on the request
//! threads, never on the blocking pool that database calls use. Two queues: searches for
//! games with people in them come first, and with two threads or more one thread never
//! takes a game of bots alone, so a person's bot reply waits for no bot-only search.
//! A third line, the engine's analyses of games ([`BotPool::run_idle`]), runs only when
//! nothing else waits, on the same threads as the bot-only searches (never the kept one).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queues {
    people: VecDeque<Job>,
    background: VecDeque<Job>,
    /// Analyses: only when neither line above has work waiting.
    idle: VecDeque<Job>,
    /// Background and idle jobs running now.
    running: usize,
    stopped: bool,
}

/// The search threads (see the module documentation).
pub struct BotPool {
    shared: Arc<(Mutex<Queues>, Condvar)>,
    /// Background (bot-only) jobs that may run at once.
    background_max: usize,
}

impl std::fmt::Debug for BotPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotPool")
            .field("background_max", &self.background_max)
            .finish_non_exhaustive()
    }
}

impl BotPool {
    /// Starts `threads` search threads.
    pub fn new(threads: usize) -> Arc<BotPool> {
        let threads = threads.max(1);
        let pool = Arc::new(BotPool {
            shared: Arc::default(),
            background_max: if threads > 1 { threads - 1 } else { 1 },
        });
        for n in 0..threads {
            let shared = pool.shared.clone();
            let max = pool.background_max;
            let spawned = std::thread::Builder::new()
                .name(format!("djambi-bot-{n}"))
                .spawn(move || work(&shared, max));
            if let Err(e) = spawned {
                tracing::error!(error = %e, "cannot start a bot search thread");
            }
        }
        pool
    }

    /// True when a bot-only game's search would wait behind a full line (it should yield
    /// instead): each bot-only thread busy and as many searches waiting (first come, first
    /// served, so no bot-only game starves).
    pub fn background_full(&self) -> bool {
        let q = self.shared.0.lock().unwrap_or_else(|p| p.into_inner());
        q.running + q.background.len() >= 2 * self.background_max
    }

    /// Runs `f` on a search thread (`people`: a game with people, first in line); `None`
    /// if the pool stopped.
    pub async fn run<T, F>(&self, people: bool, f: F) -> Option<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = tx.send(f());
        });
        {
            let mut q = self.shared.0.lock().unwrap_or_else(|p| p.into_inner());
            if people {
                q.people.push_back(job);
            } else {
                q.background.push_back(job);
            }
        }
        self.shared.1.notify_all();
        rx.await.ok()
    }

    /// Runs `f` on a search thread after every search of a game waiting, with the
    /// bot-only searches' share of the threads (the engine's analyses); `None` if the
    /// pool stopped.
    pub async fn run_idle<T, F>(&self, f: F) -> Option<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = tx.send(f());
        });
        self.shared
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .idle
            .push_back(job);
        self.shared.1.notify_all();
        rx.await.ok()
    }
}

impl Drop for BotPool {
    fn drop(&mut self) {
        self.shared
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .stopped = true;
        self.shared.1.notify_all();
    }
}

fn work(shared: &(Mutex<Queues>, Condvar), background_max: usize) {
    let (lock, ready) = shared;
    loop {
        let (job, background) = {
            let mut q = lock.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                if q.stopped {
                    return;
                }
                if let Some(job) = q.people.pop_front() {
                    break (job, false);
                }
                if q.running < background_max {
                    if let Some(job) = q.background.pop_front() {
                        q.running += 1;
                        break (job, true);
                    }
                    if let Some(job) = q.idle.pop_front() {
                        q.running += 1;
                        break (job, true);
                    }
                }
                q = ready.wait(q).unwrap_or_else(|p| p.into_inner());
            }
        };
        job();
        if background {
            lock.lock().unwrap_or_else(|p| p.into_inner()).running -= 1;
            ready.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_with_people_never_waits_for_bot_only_searches() {
        let pool = BotPool::new(2);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let ms = std::time::Duration::from_millis;
            // One long bot-only search holds its thread, one more waits in line...
            let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
            let p = pool.clone();
            let long = tokio::spawn(async move { p.run(false, move || hold_rx.recv().ok()).await });
            tokio::time::sleep(ms(50)).await;
            assert!(!pool.background_full(), "one more may wait in line");
            let (hold2_tx, hold2_rx) = std::sync::mpsc::channel::<()>();
            let p = pool.clone();
            let waiting =
                tokio::spawn(async move { p.run(false, move || hold2_rx.recv().ok()).await });
            tokio::time::sleep(ms(50)).await;
            assert!(
                pool.background_full(),
                "the bot-only thread is busy, one waits"
            );
            // ... and a person's search still runs at once, on the kept thread.
            let started = std::time::Instant::now();
            assert_eq!(pool.run(true, || 7).await, Some(7));
            assert!(started.elapsed() < ms(500));
            hold_tx.send(()).unwrap();
            hold2_tx.send(()).unwrap();
            assert_eq!(long.await.unwrap(), Some(Some(())));
            assert_eq!(waiting.await.unwrap(), Some(Some(())));
            assert!(!pool.background_full());
        });
    }

    #[test]
    fn analyses_wait_for_every_other_search_and_never_take_the_kept_thread() {
        let pool = BotPool::new(2);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let ms = std::time::Duration::from_millis;
            let order = Arc::new(Mutex::new(Vec::new()));
            // A bot-only search holds the shared thread; an analysis and another bot-only
            // search wait: the bot-only one goes first.
            let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
            let p = pool.clone();
            let held = tokio::spawn(async move { p.run(false, move || hold_rx.recv().ok()).await });
            tokio::time::sleep(ms(50)).await;
            let (p, o) = (pool.clone(), order.clone());
            let idle = tokio::spawn(async move {
                p.run_idle(move || o.lock().unwrap().push("analysis")).await
            });
            tokio::time::sleep(ms(20)).await;
            let (p, o) = (pool.clone(), order.clone());
            let bot = tokio::spawn(async move {
                p.run(false, move || o.lock().unwrap().push("bot-only"))
                    .await
            });
            tokio::time::sleep(ms(50)).await;
            assert!(
                order.lock().unwrap().is_empty(),
                "both wait for the shared thread"
            );
            // A person's search runs at once on the kept thread.
            let started = std::time::Instant::now();
            assert_eq!(pool.run(true, || 7).await, Some(7));
            assert!(started.elapsed() < ms(500));
            hold_tx.send(()).unwrap();
            held.await.unwrap();
            bot.await.unwrap();
            idle.await.unwrap();
            assert_eq!(*order.lock().unwrap(), vec!["bot-only", "analysis"]);
        });
    }
}
