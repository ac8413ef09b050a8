//! tower's layers around calls (feature `tower`): [`Tower`] applies any
//! `tower::Layer` whose service maps a [`Call`] to an [`Outcome`].

use alloc::boxed::Box;
use core::convert::Infallible;
use core::future::poll_fn;
use core::task::{Context as TaskContext, Poll};

use super::{Call, Layer};
use crate::error::ErrorObject;
use crate::handler::{BoxFuture, Outcome};

/// The innermost tower service: runs the call ([`Call::run`]). The
/// `tower::Layer` given to [`Tower::new`] wraps this.
#[derive(Clone, Copy, Debug, Default)]
pub struct Run;

impl tower_service::Service<Call> for Run {
    type Response = Outcome;
    type Error = Infallible;
    type Future = BoxFuture<Result<Outcome, Infallible>>;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let run = call.run();
        Box::pin(async move { Ok(run.await) })
    }
}

/// A `tower::Layer` (over [`Run`]) as a snodo [`Layer`]: each call is
/// served by a clone of the service it makes, once that clone is ready
/// (tower's contract: `poll_ready`, then `call`). An error of the service
/// answers the call `-32603`, and is logged (its text is not sent).
///
/// ```
/// # use snodo_proto::layer::{Run, Tower};
/// // Any `tower::Layer<Run>` whose service answers a `Call` with an
/// // `Outcome`: here, tower's identity layer.
/// let layer = Tower::new(tower_layer::Identity::new());
/// # let _ = snodo_proto::Service::builder().layer(layer);
/// ```
#[derive(Clone, Debug)]
pub struct Tower<S> {
    service: S,
}

impl<S> Tower<S> {
    /// Apply `layer` around the calls this is installed on.
    pub fn new<L>(layer: L) -> Tower<S>
    where
        L: tower_layer::Layer<Run, Service = S>,
    {
        Tower {
            service: layer.layer(Run),
        }
    }
}

impl<S> Layer for Tower<S>
where
    S: tower_service::Service<Call, Response = Outcome> + Clone + Send + Sync + 'static,
    S::Future: Send + 'static,
    S::Error: core::fmt::Display + Send + 'static,
{
    fn around(&self, call: Call) -> BoxFuture<Outcome> {
        let mut service = self.service.clone();
        Box::pin(async move {
            let answered = match poll_fn(|cx| service.poll_ready(cx)).await {
                Ok(()) => service.call(call).await,
                Err(e) => Err(e),
            };
            answered.unwrap_or_else(|e| {
                tracing::error!(error = %e, "a tower layer failed the call");
                Outcome::Error(ErrorObject::internal("Internal error"))
            })
        })
    }
}
