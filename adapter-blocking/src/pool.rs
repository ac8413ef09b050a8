//! A fixed set of worker threads taking calls from one FIFO queue.
//!
//! Each worker runs one call at a time to completion ([`exec::run`]) and
//! reports its outcome to the driver. Queue order is the order the
//! connection emitted the invocations.

use std::collections::VecDeque;
use std::io;
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;

use snodo_proto::{CallId, CallSink, Invocation};

use crate::event::Event;
use crate::exec::{self, JobState};

pub(crate) struct Job {
    pub(crate) call: CallId,
    pub(crate) invocation: Invocation,
    pub(crate) state: Arc<JobState>,
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

/// The driver's handle on the workers. Dropping it closes the pool.
pub(crate) struct Pool {
    shared: Arc<Shared>,
}

impl Pool {
    pub(crate) fn start(
        workers: usize,
        sink: Arc<dyn CallSink>,
        events: SyncSender<Event>,
    ) -> io::Result<Self> {
        let pool = Pool {
            shared: Arc::new(Shared::default()),
        };
        for i in 0..workers.max(1) {
            let shared = Arc::clone(&pool.shared);
            let sink = Arc::clone(&sink);
            let events = events.clone();
            // On failure `pool` is dropped, which closes it and lets the
            // workers already started exit.
            thread::Builder::new()
                .name(format!("snodo-worker-{i}"))
                .spawn(move || work(&shared, &sink, &events))?;
        }
        Ok(pool)
    }

    pub(crate) fn submit(&self, job: Job) {
        self.shared.lock().jobs.push_back(job);
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

fn work(shared: &Shared, sink: &Arc<dyn CallSink>, events: &SyncSender<Event>) {
    while let Some(job) = shared.take() {
        let Job {
            call,
            invocation,
            state,
        } = job;
        let Some(outcome) = exec::run(invocation, Arc::clone(sink), &state) else {
            continue;
        };
        if state.is_cancelled() {
            // The connection already forgot the call; completing it would
            // only be refused (`Output::Cancel`: later completions are ignored).
            continue;
        }
        if events.send(Event::Completed(call, outcome)).is_err() {
            return;
        }
    }
}
