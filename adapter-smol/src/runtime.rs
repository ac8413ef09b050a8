//! smol (async-io and an [`Executor`]) as a [`snodo_driver::Runtime`].

use smol::Executor;
use snodo_driver::reactor::Timer;
use std::future::Future;
use std::sync::{Arc, LazyLock};
use std::time::Instant;

/// smol on an [`Executor`] the application runs: every task the driver
/// spawns (connections, handler calls) goes there, never on a global
/// executor, so the application decides how many threads run it.
#[derive(Clone, Debug)]
pub struct Smol(pub Arc<Executor<'static>>);

impl snodo_driver::Runtime for Smol {
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
        self.0.spawn(future).detach();
    }

    fn executor(&self) -> Arc<dyn snodo_proto::blocking::Executor> {
        blocking_pool()
    }
}

/// The `blocking` crate's pool as handlers' executor
/// ([`Context::spawn_blocking`](snodo_proto::Context::spawn_blocking)):
/// what every connection served here uses, and what to give a Tasks
/// runner (`snodo_tasks::TaskRunner::executor`).
pub fn blocking_pool() -> Arc<dyn snodo_proto::blocking::Executor> {
    static POOL: LazyLock<Arc<dyn snodo_proto::blocking::Executor>> =
        LazyLock::new(|| Arc::new(BlockingPool));
    POOL.clone()
}

/// The `blocking` crate's thread pool (`smol::unblock`), which grows with
/// the work waiting and shrinks when idle.
struct BlockingPool;

impl snodo_proto::blocking::Executor for BlockingPool {
    fn spawn(&self, job: snodo_proto::blocking::Job) {
        smol::unblock(move || job.run()).detach();
    }
}
