//! Blocking work from async handlers: [`Context::spawn_blocking`](crate::Context::spawn_blocking).
//!
//! A handler is polled where its connection runs: inline on the
//! connection's loop first, then as a task on the runtime's executor.
//! Blocking there (file I/O, a synchronous client library, seconds of
//! CPU) stalls every other call polled on that thread, and on a
//! single-threaded runtime every connection. So blocking work goes to a
//! place where blocking is allowed, and the handler awaits its value.
//!
//! snodo-proto spawns no thread and names no runtime: the runtime's
//! adapter gives each connection an [`Executor`]
//! ([`Connection::set_executor`](crate::Connection::set_executor)), and
//! every call of the connection reaches it through its [`Context`](crate::Context).
//! `snodo-tokio` and `snodo-hyper` use tokio's blocking pool
//! (`spawn_blocking`), `snodo-smol` the `blocking` crate's pool, and
//! `snodo-blocking` a thread per job. A call run outside any connection
//! (a task's run) reaches the executor its embedder gave (the Tasks
//! extension's runner takes one); a [`Context::detached`](crate::Context::detached)
//! has none, and the work is refused with [`BlockingError::Unavailable`].
//!
//! # Cancellation
//!
//! A thread cannot be stopped from outside, so the work is told instead:
//! its closure gets an [`Interrupt`], which reads as set once the call is
//! cancelled (by its client, its deadline, or its connection closing) or
//! the future awaiting the work is dropped (a layer's timeout, a
//! `select!` that took another branch). Work that looks at it between
//! steps ends early; whatever it returns then is dropped. Work that never
//! looks runs to its end, and only its value is lost.
//!
//! # Failure
//!
//! A panic in the work is caught where it ran and becomes
//! [`BlockingError::Panicked`] (its message goes to the log, not to the
//! client); an executor that drops a job without running it (a pool shut
//! down, a thread that could not start) ends the wait with
//! [`BlockingError::Dropped`]. Neither takes the connection or its other
//! calls with it.

use alloc::boxed::Box;
use core::fmt;

/// Runs blocking jobs somewhere blocking is allowed. Implemented by each
/// runtime's adapter; an embedder driving a
/// [`Connection`](crate::Connection) by hand implements it on whatever
/// pool it has.
pub trait Executor: Send + Sync {
    /// Run `job` to completion, off the thread that polls handlers.
    /// Must not block the caller. An executor that cannot run it (it is
    /// shutting down, a thread would not start) drops it: its awaiting
    /// handler then gets [`BlockingError::Dropped`].
    fn spawn(&self, job: Job);
}

/// One unit of blocking work, ready to run: hand it to a thread with
/// [`Job::run`].
#[must_use = "a job does nothing unless run; dropping it fails the call's wait"]
pub struct Job(Box<dyn FnOnce() + Send>);

impl Job {
    /// A job that runs `f`.
    pub fn new(f: impl FnOnce() + Send + 'static) -> Job {
        Job(Box::new(f))
    }

    /// Run the work, on the calling thread. Never panics: the work's
    /// panic is caught and reported to the handler waiting for it.
    pub fn run(self) {
        (self.0)()
    }
}

impl fmt::Debug for Job {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Job")
    }
}

/// Why blocking work returned no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BlockingError {
    /// No executor serves this call: a [`Context::detached`](crate::Context::detached),
    /// or a connection driven by hand without
    /// [`Connection::set_executor`](crate::Connection::set_executor).
    Unavailable,
    /// The executor dropped the job without running it.
    Dropped,
    /// The work panicked (the message is in the log).
    Panicked,
}

impl fmt::Display for BlockingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BlockingError::Unavailable => "no executor for blocking work serves this call",
            BlockingError::Dropped => "the executor dropped the blocking work without running it",
            BlockingError::Panicked => "the blocking work panicked",
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for BlockingError {}

/// A handler that returns `ctx.spawn_blocking(..).await?` answers a lost
/// job as an internal error (`-32603`), which names nothing of the
/// server's internals.
impl From<BlockingError> for crate::ToolError {
    fn from(_: BlockingError) -> Self {
        crate::ToolError::Protocol(crate::ErrorObject::internal("Internal error"))
    }
}

impl From<BlockingError> for crate::ResourceError {
    fn from(_: BlockingError) -> Self {
        crate::ResourceError::Protocol(crate::ErrorObject::internal("Internal error"))
    }
}

#[cfg(feature = "std")]
pub(crate) use run::spawn;
#[cfg(feature = "std")]
pub use run::{Interrupt, SpawnBlocking};

#[cfg(feature = "std")]
mod run {
    use alloc::sync::Arc;
    use core::future::Future;
    use core::pin::Pin;
    use core::sync::atomic::{AtomicBool, Ordering};
    use core::task::{Context, Poll, Waker};
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::{Mutex, MutexGuard};

    use super::{BlockingError, Executor, Job};
    use crate::handler::Shared;

    /// What blocking work asks to learn whether anyone still wants its
    /// value: set once its call is cancelled or the future awaiting it
    /// was dropped.
    pub struct Interrupt<'a> {
        call: &'a Shared,
        abandoned: &'a AtomicBool,
    }

    impl Interrupt<'_> {
        /// Whether the work should stop: its value would be dropped.
        pub fn is_set(&self) -> bool {
            self.abandoned.load(Ordering::Acquire) || self.call.is_cancelled()
        }
    }

    impl core::fmt::Debug for Interrupt<'_> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.debug_struct("Interrupt")
                .field("set", &self.is_set())
                .finish()
        }
    }

    /// Where the work's value waits for the handler.
    struct Slot<T> {
        state: Mutex<State<T>>,
        /// The awaiting future was dropped.
        abandoned: AtomicBool,
    }

    struct State<T> {
        value: Option<Result<T, BlockingError>>,
        waker: Option<Waker>,
    }

    impl<T> Slot<T> {
        fn new(value: Option<Result<T, BlockingError>>) -> Arc<Self> {
            Arc::new(Slot {
                state: Mutex::new(State { value, waker: None }),
                abandoned: AtomicBool::new(false),
            })
        }

        fn lock(&self) -> MutexGuard<'_, State<T>> {
            self.state.lock().unwrap_or_else(|p| p.into_inner())
        }

        fn fill(&self, value: Result<T, BlockingError>) {
            let waker = {
                let mut s = self.lock();
                s.value = Some(value);
                s.waker.take()
            };
            if let Some(w) = waker {
                w.wake();
            }
        }
    }

    /// The job's end of the slot: fills it with the value, or, dropped
    /// unfilled with the job, with [`BlockingError::Dropped`].
    struct Sender<T> {
        slot: Arc<Slot<T>>,
        sent: bool,
    }

    impl<T> Drop for Sender<T> {
        fn drop(&mut self) {
            if !self.sent {
                self.slot.fill(Err(BlockingError::Dropped));
            }
        }
    }

    /// The value of blocking work, as a future: made by
    /// [`Context::spawn_blocking`](crate::Context::spawn_blocking).
    /// Dropping it sets the work's [`Interrupt`].
    #[must_use = "the work runs anyway; dropping this asks it to stop and drops its value"]
    pub struct SpawnBlocking<T> {
        slot: Arc<Slot<T>>,
    }

    impl<T> Future for SpawnBlocking<T> {
        type Output = Result<T, BlockingError>;

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
            let mut s = self.slot.lock();
            match s.value.take() {
                Some(value) => Poll::Ready(value),
                None => {
                    if !s.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                        s.waker = Some(cx.waker().clone());
                    }
                    Poll::Pending
                }
            }
        }
    }

    impl<T> Drop for SpawnBlocking<T> {
        fn drop(&mut self) {
            self.slot.abandoned.store(true, Ordering::Release);
        }
    }

    impl<T> core::fmt::Debug for SpawnBlocking<T> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.debug_struct("SpawnBlocking")
                .field("ready", &self.slot.lock().value.is_some())
                .finish()
        }
    }

    /// Hand `work` to `executor` on behalf of the call `call`.
    pub(crate) fn spawn<F, T>(
        executor: Option<&dyn Executor>,
        call: Arc<Shared>,
        work: F,
    ) -> SpawnBlocking<T>
    where
        F: FnOnce(&Interrupt<'_>) -> T + Send + 'static,
        T: Send + 'static,
    {
        let Some(executor) = executor else {
            tracing::debug!("blocking work refused: no executor serves this call");
            return SpawnBlocking {
                slot: Slot::new(Some(Err(BlockingError::Unavailable))),
            };
        };
        let slot = Slot::new(None);
        let mut sender = Sender {
            slot: slot.clone(),
            sent: false,
        };
        executor.spawn(Job::new(move || {
            let interrupt = Interrupt {
                call: &call,
                abandoned: &sender.slot.abandoned,
            };
            let value = catch_unwind(AssertUnwindSafe(|| work(&interrupt))).map_err(|payload| {
                let message = crate::run::panic_message(&*payload);
                tracing::error!(panic = message, "blocking work panicked");
                BlockingError::Panicked
            });
            sender.sent = true;
            sender.slot.fill(value);
        }));
        SpawnBlocking { slot }
    }
}
