//! Blocking store work, kept off connection loops and executors.
//!
//! A [`DiskStore`](crate::DiskStore) call reads and writes files, fsyncs
//! them, and may wait for the store's lock while another process writes.
//! Polled where proto's deferred answers are polled (inline on the
//! connection's loop first, then as a task on the application's
//! executor), such a call would stall every other request of the
//! connection, and on a single-threaded runtime every connection
//! (`snodo_proto::extension`, Blocking).
//!
//! So the engine hands a blocking store's calls to a [`Pool`]: a few std
//! threads of the extension's own, started on demand, fed by a queue. The
//! deferred answer is an [`Offloaded`] future that queues its call on its
//! first poll and is woken by the thread that ran it; whatever runtime
//! polls it never waits. The pool names no runtime, so one implementation
//! serves tokio, smol and plain threads alike, and proto stays sans-I/O.
//!
//! A request cancelled while its call runs drops the future, not the call:
//! a write cannot be taken back halfway, so it completes, and its value is
//! dropped (a task created for a cancelled `tools/call` is never named to
//! the client and expires with its TTL).

use std::collections::VecDeque;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// How long an idle thread waits for work before it ends.
const IDLE: Duration = Duration::from_secs(30);

type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    threads: usize,
    idle: usize,
    closed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
    max_threads: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Why offloaded work did not return a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Lost {
    /// No thread could be started to run it.
    NoThread(String),
    /// It panicked.
    Panicked,
}

impl std::fmt::Display for Lost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lost::NoThread(e) => write!(f, "no thread for blocking store work: {e}"),
            Lost::Panicked => f.write_str("blocking store work panicked"),
        }
    }
}

/// A few threads that run blocking calls. Threads start when work waits
/// and none is idle, up to the limit, and end after [`IDLE`] without work
/// or once the pool is dropped and its queue drained.
pub(crate) struct Pool {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("max_threads", &self.shared.max_threads)
            .finish()
    }
}

impl Pool {
    /// A pool of at most `max_threads` (at least one).
    pub(crate) fn new(max_threads: usize) -> Pool {
        Pool {
            shared: Arc::new(Shared {
                queue: Mutex::default(),
                ready: Condvar::new(),
                max_threads: max_threads.max(1),
            }),
        }
    }

    /// A future of `work`'s value, run on the pool. Nothing runs until it
    /// is first polled; dropped after that, the work still runs to its end
    /// (a write cannot be taken back halfway) and its value is dropped.
    pub(crate) fn run<T, F>(&self, work: F) -> Offloaded<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        Offloaded {
            work: Some(Box::new(work)),
            pool: self.shared.clone(),
            slot: Arc::new(Mutex::new(Slot::default())),
            done: false,
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.ready.notify_all();
    }
}

/// Queue `job` if an idle thread is left for it (or no thread may be
/// added), else start a thread with it. If that thread cannot be started,
/// the job is dropped unrun.
fn submit(shared: &Arc<Shared>, job: Job) -> Result<(), String> {
    let mut q = shared.lock();
    // Idle threads wake one per queued job: a job beyond them gets a new
    // thread rather than a wait behind another job.
    if q.idle > q.jobs.len() || q.threads >= shared.max_threads {
        q.jobs.push_back(job);
        drop(q);
        shared.ready.notify_one();
        return Ok(());
    }
    q.threads += 1;
    drop(q);
    let worker = shared.clone();
    let spawned = std::thread::Builder::new()
        .name(String::from("snodo-tasks-io"))
        .spawn(move || work(worker, job));
    spawned.map(drop).map_err(|e| {
        shared.lock().threads -= 1;
        e.to_string()
    })
}

fn work(shared: Arc<Shared>, first: Job) {
    let mut next = Some(first);
    loop {
        if let Some(job) = next.take() {
            job();
        }
        let mut q = shared.lock();
        loop {
            if let Some(job) = q.jobs.pop_front() {
                next = Some(job);
                break;
            }
            if q.closed {
                q.threads -= 1;
                return;
            }
            q.idle += 1;
            let (guard, waited) = shared
                .ready
                .wait_timeout(q, IDLE)
                .unwrap_or_else(|p| p.into_inner());
            q = guard;
            q.idle -= 1;
            if waited.timed_out() && q.jobs.is_empty() {
                q.threads -= 1;
                return;
            }
        }
    }
}

struct Slot<T> {
    value: Option<Result<T, Lost>>,
    waker: Option<Waker>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot {
            value: None,
            waker: None,
        }
    }
}

fn lock<T>(slot: &Mutex<Slot<T>>) -> MutexGuard<'_, Slot<T>> {
    slot.lock().unwrap_or_else(|p| p.into_inner())
}

/// Work running on a [`Pool`]; ready with its value.
pub(crate) struct Offloaded<T> {
    work: Option<Box<dyn FnOnce() -> T + Send>>,
    pool: Arc<Shared>,
    slot: Arc<Mutex<Slot<T>>>,
    done: bool,
}

impl<T> Unpin for Offloaded<T> {}

impl<T: Send + 'static> Future for Offloaded<T> {
    type Output = Result<T, Lost>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(work) = self.work.take() {
            // Registered before the job can finish, so its wake is not lost.
            lock(&self.slot).waker = Some(cx.waker().clone());
            let slot = self.slot.clone();
            let job: Job = Box::new(move || {
                let value = catch_unwind(AssertUnwindSafe(work)).map_err(|_| {
                    tracing::error!("blocking store work panicked");
                    Lost::Panicked
                });
                let waker = {
                    let mut s = lock(&slot);
                    s.value = Some(value);
                    s.waker.take()
                };
                if let Some(w) = waker {
                    w.wake();
                }
            });
            if let Err(e) = submit(&self.pool, job) {
                tracing::error!(error = %e, "cannot start a thread for blocking store work");
                self.done = true;
                return Poll::Ready(Err(Lost::NoThread(e)));
            }
        }
        // Its value is handed out once: a poll after that would wait for
        // ever, so it is a bug, and said so.
        assert!(
            !self.done,
            "an Offloaded future was polled after it was ready"
        );
        let mut s = lock(&self.slot);
        match s.value.take() {
            Some(v) => {
                drop(s);
                self.done = true;
                Poll::Ready(v)
            }
            None => {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::task::Wake;

    /// Counts wakes and unparks the test thread.
    struct Wakes(AtomicUsize, std::thread::Thread);

    impl Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
            self.1.unpark();
        }
    }

    /// Poll once, so the work starts; its value if it is already there
    /// (a future is not polled again once ready).
    fn start<T: Send + 'static>(f: &mut Offloaded<T>) -> Option<Result<T, Lost>> {
        match Pin::new(f).poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(v) => Some(v),
            Poll::Pending => None,
        }
    }

    fn wait<T: Send + 'static>(mut f: Offloaded<T>) -> (Result<T, Lost>, usize) {
        let wakes = Arc::new(Wakes(AtomicUsize::new(0), std::thread::current()));
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(v) = Pin::new(&mut f).poll(&mut cx) {
                return (v, wakes.0.load(Ordering::SeqCst));
            }
            std::thread::park_timeout(Duration::from_secs(5));
        }
    }

    #[test]
    fn a_poll_never_waits_for_the_work_and_the_worker_wakes_the_future() {
        let pool = Pool::new(2);
        let (go, gate) = mpsc::channel::<()>();
        let mut f = pool.run(move || {
            gate.recv().expect("released");
            std::thread::current().name().map(String::from)
        });
        let wakes = Arc::new(Wakes(AtomicUsize::new(0), std::thread::current()));
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        // The work is held at its gate: the poll returns at once.
        assert!(Pin::new(&mut f).poll(&mut cx).is_pending());
        assert!(Pin::new(&mut f).poll(&mut cx).is_pending());
        assert_eq!(wakes.0.load(Ordering::SeqCst), 0);
        go.send(()).expect("the worker waits");
        let until = std::time::Instant::now() + Duration::from_secs(5);
        while wakes.0.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < until {
            std::thread::park_timeout(Duration::from_millis(10));
        }
        assert_eq!(
            wakes.0.load(Ordering::SeqCst),
            1,
            "the worker woke the future"
        );
        assert_eq!(
            Pin::new(&mut f).poll(&mut cx),
            Poll::Ready(Ok(Some(String::from("snodo-tasks-io"))))
        );
    }

    #[test]
    #[should_panic(expected = "polled after it was ready")]
    fn a_poll_after_the_value_is_a_bug_not_a_hang() {
        let pool = Pool::new(1);
        let mut f = pool.run(|| 1);
        let v = loop {
            if let Some(v) = start(&mut f) {
                break v;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        assert_eq!(v, Ok(1));
        let _ = start(&mut f);
    }

    #[test]
    fn nothing_runs_before_the_first_poll() {
        let pool = Pool::new(1);
        let ran = Arc::new(AtomicUsize::new(0));
        let counted = ran.clone();
        let f = pool.run(move || counted.fetch_add(1, Ordering::SeqCst));
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(ran.load(Ordering::SeqCst), 0);
        drop(f);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(ran.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_panic_is_reported_and_the_pool_goes_on() {
        let pool = Pool::new(1);
        let (v, _) = wait(pool.run(|| -> u32 { panic!("inside the store") }));
        assert_eq!(v, Err(Lost::Panicked));
        assert_eq!(wait(pool.run(|| 7)).0, Ok(7));
    }

    #[test]
    fn calls_queued_together_run_together_up_to_the_limit() {
        let pool = Pool::new(2);
        // One thread, left idle.
        assert_eq!(wait(pool.run(|| 1)).0, Ok(1));
        let arrived = Arc::new(AtomicUsize::new(0));
        let meet = |arrived: Arc<AtomicUsize>| {
            move || {
                arrived.fetch_add(1, Ordering::SeqCst);
                let until = std::time::Instant::now() + Duration::from_secs(2);
                while arrived.load(Ordering::SeqCst) < 2 {
                    if std::time::Instant::now() > until {
                        return false;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                true
            }
        };
        let mut a = pool.run(meet(arrived.clone()));
        let mut b = pool.run(meet(arrived));
        let (a0, b0) = (start(&mut a), start(&mut b));
        assert_eq!(
            (
                a0.unwrap_or_else(|| wait(a).0),
                b0.unwrap_or_else(|| wait(b).0)
            ),
            (Ok(true), Ok(true)),
            "both calls ran at once"
        );
    }

    #[test]
    fn at_most_the_limit_of_threads_run_at_once() {
        let pool = Pool::new(2);
        let now = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let futures: Vec<_> = (0..6)
            .map(|n| {
                let (now, most) = (now.clone(), most.clone());
                pool.run(move || {
                    let at = now.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(at, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(20));
                    now.fetch_sub(1, Ordering::SeqCst);
                    n
                })
            })
            .collect();
        let started: Vec<_> = futures
            .into_iter()
            .map(|mut f| (start(&mut f), f))
            .collect();
        let values: Vec<_> = started
            .into_iter()
            .map(|(ready, f)| ready.unwrap_or_else(|| wait(f).0))
            .collect();
        assert_eq!(values, (0..6).map(Ok).collect::<Vec<_>>());
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }
}
