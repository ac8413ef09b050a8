//! A driver for a [`TaskRunner`] on any runtime: one std thread owns the
//! runner, feeds it time and outcomes, and hands every run to a spawn
//! function the application provides (`tokio::spawn`, a smol executor, a
//! thread). The runtime-specific part is that one function:
//!
//! ```ignore
//! // tokio (inside the runtime)
//! let h = tokio::runtime::Handle::current();
//! let driver = snodo_tasks::drive::start(runner, Arc::new(move |f| { h.spawn(f); }))?;
//! // smol
//! let ex = ex.clone();
//! let driver = snodo_tasks::drive::start(runner, Arc::new(move |f| ex.spawn(f).detach()))?;
//! // plain threads
//! let driver = snodo_tasks::drive::start(runner, snodo_tasks::drive::thread_spawner())?;
//! ```
//!
//! A run that panics fails its task with `-32603`, like a handler panic in
//! the adapters; an aborted run's future is dropped at its next wake.
//! Store I/O happens on the driver thread, off the runtime's workers.

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::JoinHandle;
use std::time::Duration;

use snodo_proto::{BoxFuture, CancelFlag, ErrorObject, Instant, Outcome};

use crate::runner::{RunnerOutput, TaskRunner, WorkId};

/// Starts a future on the application's runtime.
pub type Spawn = Arc<dyn Fn(BoxFuture<()>) + Send + Sync>;

/// The longest the driver sleeps without a deadline (a guard, not a need).
const MAX_SLEEP: Duration = Duration::from_secs(60);

#[derive(Default)]
struct InboxState {
    rung: bool,
    stop: bool,
    done: VecDeque<(WorkId, Outcome)>,
}

#[derive(Default)]
struct Inbox {
    state: Mutex<InboxState>,
    cv: Condvar,
}

impl Inbox {
    fn lock(&self) -> MutexGuard<'_, InboxState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn ring(&self) {
        self.lock().rung = true;
        self.cv.notify_one();
    }

    fn push(&self, work: WorkId, outcome: Outcome) {
        self.lock().done.push_back((work, outcome));
        self.cv.notify_one();
    }

    fn stop(&self) {
        self.lock().stop = true;
        self.cv.notify_one();
    }

    /// Wait until rung, an outcome arrives, stop, or `timeout`.
    fn wait(&self, timeout: Duration) {
        let st = self.lock();
        if st.rung || st.stop || !st.done.is_empty() {
            return;
        }
        let _ = self
            .cv
            .wait_timeout_while(st, timeout, |s| !s.rung && !s.stop && s.done.is_empty());
    }

    fn take(&self) -> (VecDeque<(WorkId, Outcome)>, bool) {
        let mut st = self.lock();
        st.rung = false;
        (std::mem::take(&mut st.done), st.stop)
    }
}

/// The wall clock anchored once and advanced by the monotonic clock, as
/// the adapters keep it (`snodo_proto::time`).
#[derive(Clone, Copy)]
struct Clock {
    origin: std::time::Instant,
    epoch_nanos: u64,
}

impl Clock {
    fn start() -> Self {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Clock {
            origin: std::time::Instant::now(),
            epoch_nanos: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
        }
    }

    fn now(&self) -> Instant {
        let elapsed = u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX);
        Instant::from_nanos(self.epoch_nanos.saturating_add(elapsed))
    }
}

/// A running driver. Dropping it stops the runner (claims are released for
/// the next process) and joins its thread.
pub struct Driver {
    inbox: Arc<Inbox>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver").finish()
    }
}

impl Driver {
    /// Stop and wait for the driver thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.inbox.stop();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Run `runner` on a thread of its own, spawning each run with `spawn`.
pub fn start(runner: TaskRunner, spawn: Spawn) -> std::io::Result<Driver> {
    let inbox = Arc::new(Inbox::default());
    let ring = inbox.clone();
    runner
        .engine()
        .set_wake(Some(Arc::new(move || ring.ring())));
    let thread_inbox = inbox.clone();
    let thread = std::thread::Builder::new()
        .name(String::from("snodo-tasks-runner"))
        .spawn(move || drive(runner, spawn, thread_inbox))?;
    Ok(Driver {
        inbox,
        thread: Some(thread),
    })
}

fn drive(mut runner: TaskRunner, spawn: Spawn, inbox: Arc<Inbox>) {
    let clock = Clock::start();
    let mut aborts: BTreeMap<WorkId, Abort> = BTreeMap::new();
    loop {
        let now = clock.now();
        let (done, stop) = inbox.take();
        for (work, outcome) in done {
            aborts.remove(&work);
            runner.complete(work, outcome, now);
        }
        if stop {
            runner.shutdown();
        } else {
            runner.handle_timeout(now);
        }
        while let Some(out) = runner.poll_output() {
            match out {
                RunnerOutput::Run(work) => {
                    let id = work.id;
                    let abort = Abort::new(work.cancel_flag());
                    let run = Abortable {
                        inner: work.run(),
                        abort: abort.clone(),
                    };
                    let inbox = inbox.clone();
                    aborts.insert(id, abort);
                    spawn(Box::pin(async move {
                        if let Some(outcome) = run.await {
                            inbox.push(id, outcome);
                        }
                    }));
                }
                RunnerOutput::Abort(id) => {
                    if let Some(a) = aborts.remove(&id) {
                        a.abort();
                    }
                }
            }
        }
        if stop {
            break;
        }
        let wait = runner
            .poll_timeout()
            .map_or(MAX_SLEEP, |at| at.saturating_duration_since(clock.now()))
            .min(MAX_SLEEP);
        inbox.wait(wait);
    }
    runner.engine().set_wake(None);
}

#[derive(Default)]
struct AbortState {
    aborted: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

/// Stops one run: sets its cancel flag and wakes it so its future is
/// dropped.
#[derive(Clone)]
struct Abort {
    state: Arc<AbortState>,
    cancel: CancelFlag,
}

impl Abort {
    fn new(cancel: CancelFlag) -> Self {
        Abort {
            state: Arc::default(),
            cancel,
        }
    }

    fn abort(&self) {
        self.cancel.cancel();
        self.state.aborted.store(true, Ordering::Release);
        let waker = self
            .state
            .waker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// A run that ends with `None` once aborted (dropping the handler's
/// future), and turns a panic into an internal error.
struct Abortable {
    inner: BoxFuture<Outcome>,
    abort: Abort,
}

impl Future for Abortable {
    type Output = Option<Outcome>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let state = self.abort.state.clone();
        *state.waker.lock().unwrap_or_else(|p| p.into_inner()) = Some(cx.waker().clone());
        if state.aborted.load(Ordering::Acquire) {
            return Poll::Ready(None);
        }
        let inner = &mut self.inner;
        match catch_unwind(AssertUnwindSafe(|| inner.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(outcome)) => Poll::Ready(Some(outcome)),
            Err(_) => {
                tracing::error!("a task's handler panicked");
                Poll::Ready(Some(Outcome::Error(ErrorObject::internal(
                    "Internal error",
                ))))
            }
        }
    }
}

/// A spawn function for runtimes without one: each run on its own thread,
/// driven by a parking `block_on`. At most the runner's `max_concurrent`
/// threads exist at once.
pub fn thread_spawner() -> Spawn {
    Arc::new(|future: BoxFuture<()>| {
        let spawned = std::thread::Builder::new()
            .name(String::from("snodo-task"))
            .spawn(move || block_on(future));
        if let Err(e) = spawned {
            // The run's claim lapses and the task is retried later.
            tracing::error!(error = %e, "cannot start a thread for a task run");
        }
    })
}

struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Drive `future` to completion on this thread, parking between wakes.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}
