//! A fixed set of worker threads taking calls from one FIFO queue.
//!
//! Each worker runs one call at a time to completion ([`exec::run`]) and
//! reports its outcome to the driver of the connection the call came from.
//! Queue order is the order the invocations were emitted. One pool serves
//! one stdio stream, or every connection of an HTTP server, so the number
//! of threads running handlers does not grow with the number of clients.

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;

use snodo_proto::{CallId, CallSink, Invocation};

use crate::exec::{self, JobState};
use crate::sink::ChannelSink;

pub(crate) struct Job {
    pub(crate) call: CallId,
    pub(crate) invocation: Invocation,
    pub(crate) state: Arc<JobState>,
    /// The call's connection: its reports and outcome go there.
    pub(crate) sink: Arc<ChannelSink>,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    closed: bool,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next job, or `None` once the pool is closed.
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

/// The handle on the workers, shared by the drivers submitting to them.
/// Dropping it closes the pool.
pub(crate) struct Pool {
    shared: Arc<Shared>,
}

impl Pool {
    pub(crate) fn start(workers: usize) -> io::Result<Self> {
        let pool = Pool {
            shared: Arc::new(Shared::default()),
        };
        for i in 0..workers.max(1) {
            let shared = Arc::clone(&pool.shared);
            // On failure `pool` is dropped, which closes it and lets the
            // workers already started exit.
            thread::Builder::new()
                .name(format!("snodo-worker-{i}"))
                .spawn(move || work(&shared))?;
        }
        Ok(pool)
    }

    /// Queue `job`; dropped unrun if the pool is closed (its connection is
    /// past its grace period by then).
    pub(crate) fn submit(&self, job: Job) {
        let mut q = self.shared.lock();
        if q.closed {
            return;
        }
        q.jobs.push_back(job);
        drop(q);
        self.shared.ready.notify_one();
    }

    /// Stop taking jobs; queued ones are dropped. Workers exit when their
    /// current call ends (the driver cancels those first). Workers are not
    /// joined: one stuck in blocking handler code must not hold up shutdown.
    pub(crate) fn close(&self) {
        let dropped = {
            let mut q = self.shared.lock();
            q.closed = true;
            core::mem::take(&mut q.jobs)
        };
        self.shared.ready.notify_all();
        drop(dropped);
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.close();
    }
}

fn work(shared: &Shared) {
    while let Some(job) = shared.take() {
        let Job {
            call,
            invocation,
            state,
            sink,
        } = job;
        let reports: Arc<dyn CallSink> = Arc::clone(&sink) as Arc<dyn CallSink>;
        let Some(outcome) = exec::run(invocation, reports, &state) else {
            continue;
        };
        if state.is_cancelled() {
            // The connection already forgot the call; completing it would
            // only be refused (`Output::Cancel`: later completions are ignored).
            continue;
        }
        // A connection that ended meanwhile no longer listens; the worker
        // carries on with other connections' calls.
        sink.complete(call, outcome);
    }
}
