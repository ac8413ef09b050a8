//! smol (async-io and an [`Executor`]) as a [`snodo_driver::Runtime`].

use smol::Executor;
use snodo_driver::reactor::Timer;
use std::future::Future;
use std::sync::Arc;
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
}
