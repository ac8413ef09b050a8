//! Plain threads as a [`snodo_driver::Runtime`]: each connection's loop
//! runs on a thread of its own under [`block_on`], and handler calls run on
//! a fixed pool of workers, each polling one call at a time. Sockets and
//! timers are async-io's ([`snodo_driver::reactor`]), whose own thread
//! waits on them and wakes the thread parked in [`block_on`].
//!
//! `block_on` is a park loop rather than `async_io::block_on`: that one
//! makes an idle thread take turns driving the reactor, and with a thread
//! per connection every wake then costs a reactor notification. Parking
//! took `bench/run`'s blocking HTTP row at c=64 from about 38k to 55k req/s
//! and its stdio row from about 180k to 215k calls/s (2026-12-02).

use std::collections::VecDeque;
use std::future::poll_fn;
use std::future::Future;
use std::io;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, LazyLock, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::Instant;

use snodo_driver::reactor::Timer;

/// Worker threads when none are asked for. A worker is held for as long as
/// its call's future is pending, so this bounds the calls that make
/// progress at once; calls beyond it wait, in order, for a free worker (the
/// service's `call_timeout` runs meanwhile).
pub const DEFAULT_WORKERS: usize = 16;

type Job = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A pool of worker threads for handler calls, and a thread per
/// connection. Clones share the pool; the workers end when the last clone
/// is dropped.
#[derive(Clone)]
pub struct Threads {
    handle: Arc<Handle>,
}

/// Closes the pool when the last [`Threads`] goes.
struct Handle {
    pool: Arc<Pool>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        // Jobs left are calls of connections already gone: dropping them
        // drops their futures.
        let jobs = {
            let mut q = self.pool.lock();
            q.closed = true;
            std::mem::take(&mut q.jobs)
        };
        self.pool.ready.notify_all();
        drop(jobs);
    }
}

impl std::fmt::Debug for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Threads").finish_non_exhaustive()
    }
}

impl Threads {
    /// A pool of `workers` threads (at least 1).
    pub fn new(workers: usize) -> io::Result<Threads> {
        let pool = Arc::new(Pool::default());
        for i in 0..workers.max(1) {
            let pool = pool.clone();
            thread::Builder::new()
                .name(format!("snodo-worker-{i}"))
                .spawn(move || {
                    while let Some(job) = pool.take() {
                        block_on(job);
                    }
                })?;
        }
        Ok(Threads {
            handle: Arc::new(Handle { pool }),
        })
    }
}

#[derive(Default)]
struct Pool {
    queue: Mutex<Queue>,
    ready: Condvar,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    closed: bool,
}

impl Pool {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn take(&self) -> Option<Job> {
        let mut q = self.lock();
        loop {
            if q.closed {
                return None;
            }
            if let Some(job) = q.jobs.pop_front() {
                return Some(job);
            }
            q = self.ready.wait(q).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl snodo_driver::Runtime for Threads {
    type Timer = Timer;

    fn now(&self) -> Instant {
        Instant::now()
    }

    fn timer(&self, at: Instant) -> Timer {
        Timer::at(at)
    }

    fn spawn<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let pool = &self.handle.pool;
        let mut q = pool.lock();
        if q.closed {
            return;
        }
        q.jobs.push_back(Box::pin(future));
        drop(q);
        pool.ready.notify_one();
    }

    fn spawn_connection<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let spawned = thread::Builder::new()
            .name(String::from("snodo-connection"))
            .spawn(move || {
                let mut future = pin!(future);
                block_on(poll_fn(|cx| {
                    let polled = future.as_mut().poll(cx);
                    snodo_driver::release_scratch();
                    polled
                }))
            });
        if let Err(e) = spawned {
            // The future (and the connection it owns) is dropped: closed.
            tracing::warn!(error = %e, "could not start a connection thread");
        }
    }

    fn executor(&self) -> Arc<dyn snodo_proto::blocking::Executor> {
        blocking_pool()
    }
}

/// A thread per blocking job, as handlers' executor
/// ([`Context::spawn_blocking`](snodo_proto::Context::spawn_blocking)):
/// what every connection served here uses, and what to give a Tasks
/// runner (`snodo_tasks::TaskRunner::executor`).
pub fn blocking_pool() -> Arc<dyn snodo_proto::blocking::Executor> {
    static THREADS: LazyLock<Arc<dyn snodo_proto::blocking::Executor>> =
        LazyLock::new(|| Arc::new(JobThreads));
    THREADS.clone()
}

/// Blocking work on a thread of its own per job: the workers that poll
/// handlers stay free for other calls while it runs. The calls that can
/// ask at once are bounded by each connection's `max_concurrent_calls`.
struct JobThreads;

impl snodo_proto::blocking::Executor for JobThreads {
    fn spawn(&self, job: snodo_proto::blocking::Job) {
        let spawned = thread::Builder::new()
            .name(String::from("snodo-blocking"))
            .spawn(move || job.run());
        if let Err(e) = spawned {
            // The job is dropped with the closure: its handler learns so.
            tracing::warn!(error = %e, "could not start a thread for blocking work");
        }
    }
}

struct Unpark {
    thread: Thread,
    woken: AtomicBool,
}

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

/// Run `future` to its end on this thread, parking between polls until it
/// is woken: by the reactor's thread for sockets and timers, by another
/// thread for anything else.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let unpark = Arc::new(Unpark {
        thread: thread::current(),
        woken: AtomicBool::new(false),
    });
    let waker = Waker::from(unpark.clone());
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        // `park` may return spuriously: only a wake ends the wait.
        while !unpark.woken.swap(false, Ordering::Acquire) {
            thread::park();
        }
    }
}
