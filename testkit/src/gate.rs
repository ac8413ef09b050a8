//! [`Gate`]: a layer that holds finished answers until the test lets them
//! go.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use snodo_proto::layer::{Call, Layer};
use snodo_proto::{BoxFuture, Outcome};

/// A layer that lets a test pause calls where it can watch them: a call
/// through a closed gate runs to its outcome, and the outcome is held (not
/// delivered) until the gate opens. Opening releases every answer held.
///
/// What a test wants to see while a call is in progress (a task's
/// `working` status and its `statusMessage`, progress notifications, a
/// second call refused while the first runs) is gone the moment the
/// answer is delivered, and a fast machine delivers it before the test
/// looks. Closed, the gate keeps the call in progress for as long as the
/// test needs, however fast the handler is; [`held`](Gate::held) says
/// when a call has reached it.
///
/// Install it with [`ServiceBuilder::tool_layer`] on the tools to hold
/// (or [`ServiceBuilder::layer`] for every call); clones share one state,
/// so the test keeps a clone to open and close it:
///
/// ```
/// use snodo_proto::{CallToolResult, NoArgs, Service, Tool};
/// use snodo_testkit::{Gate, TestClient};
///
/// let gate = Gate::closed();
/// let service = Service::builder()
///     .tool(Tool::new("slow", "Answers when let go"), |_: NoArgs| async {
///         CallToolResult::text("done")
///     })
///     .tool_layer("slow", gate.clone())
///     .build()
///     .unwrap();
/// let mut client = TestClient::new(&service);
/// client.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
/// assert_eq!(gate.held(), 1);
/// gate.open();
/// let response = snodo_testkit::block_on(client.next_message());
/// assert_eq!(response["result"]["content"][0]["text"], "done");
/// ```
///
/// It reads no clock, does no I/O and never sleeps: a held answer is a
/// pending future whose waker [`open`](Gate::open) wakes, so the gate
/// works under any executor (the test client's, tokio, smol, a task
/// runner's thread). A held call that is cancelled (its future dropped:
/// `notifications/cancelled`, its deadline, the connection closing) is
/// no longer held.
///
/// [`ServiceBuilder::tool_layer`]: snodo_proto::ServiceBuilder::tool_layer
/// [`ServiceBuilder::layer`]: snodo_proto::ServiceBuilder::layer
#[derive(Clone, Default)]
pub struct Gate {
    shared: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    closed: bool,
    /// The answers held, by ticket, with the waker of the future holding
    /// each (`None` until it is first polled pending).
    held: BTreeMap<u64, Option<Waker>>,
    next: u64,
}

impl fmt::Debug for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("Gate")
            .field("open", &!state.closed)
            .field("held", &state.held.len())
            .finish()
    }
}

impl Gate {
    /// An open gate: answers pass until it is [closed](Gate::close).
    pub fn new() -> Gate {
        Gate::default()
    }

    /// A closed gate: answers are held until it is [opened](Gate::open).
    pub fn closed() -> Gate {
        let gate = Gate::new();
        gate.close();
        gate
    }

    /// Hold the answers of calls that finish from now on. Answers already
    /// delivered, or released by an earlier [`open`](Gate::open), are not
    /// held again.
    pub fn close(&self) {
        self.lock().closed = true;
    }

    /// Deliver every answer held, and hold no more until closed again.
    pub fn open(&self) {
        let released = {
            let mut state = self.lock();
            state.closed = false;
            std::mem::take(&mut state.held)
        };
        // Woken outside the lock: a waker may poll its future at once.
        for waker in released.into_values().flatten() {
            waker.wake();
        }
    }

    /// Whether answers pass.
    pub fn is_open(&self) -> bool {
        !self.lock().closed
    }

    /// How many answers are held now: calls that reached the gate, closed,
    /// and are neither released nor cancelled.
    pub fn held(&self) -> usize {
        self.lock().held.len()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere cannot leave the state half-changed.
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Layer for Gate {
    fn around(&self, call: Call) -> BoxFuture<Outcome> {
        let gate = self.clone();
        Box::pin(async move {
            let outcome = call.run().await;
            Pass { gate, ticket: None }.await;
            outcome
        })
    }
}

/// Waiting for the gate to open, with an outcome in hand.
struct Pass {
    gate: Gate,
    /// The place among the held, once held.
    ticket: Option<u64>,
}

impl Future for Pass {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        let mut state = this.gate.lock();
        match this.ticket {
            None if !state.closed => Poll::Ready(()),
            None => {
                let ticket = state.next;
                state.next += 1;
                state.held.insert(ticket, Some(cx.waker().clone()));
                this.ticket = Some(ticket);
                Poll::Pending
            }
            Some(ticket) => match state.held.get_mut(&ticket) {
                // Released by `open` (which took it out).
                None => {
                    this.ticket = None;
                    Poll::Ready(())
                }
                Some(waker) => {
                    if !waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                        *waker = Some(cx.waker().clone());
                    }
                    Poll::Pending
                }
            },
        }
    }
}

impl Drop for Pass {
    /// A held answer whose call was cancelled is held no more.
    fn drop(&mut self) {
        if let Some(ticket) = self.ticket {
            self.gate.lock().held.remove(&ticket);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poll(pass: &mut Pin<Box<Pass>>) -> Poll<()> {
        pass.as_mut().poll(&mut Context::from_waker(Waker::noop()))
    }

    fn pass(gate: &Gate) -> Pin<Box<Pass>> {
        Box::pin(Pass {
            gate: gate.clone(),
            ticket: None,
        })
    }

    #[test]
    fn an_open_gate_lets_answers_through_at_once() {
        let gate = Gate::new();
        assert!(gate.is_open());
        assert!(poll(&mut pass(&gate)).is_ready());
        assert_eq!(gate.held(), 0);
    }

    #[test]
    fn a_released_answer_stays_released_when_the_gate_closes_again() {
        let gate = Gate::closed();
        let mut a = pass(&gate);
        assert!(poll(&mut a).is_pending());
        gate.open();
        gate.close();
        assert!(poll(&mut a).is_ready(), "open let it go");
        let mut b = pass(&gate);
        assert!(poll(&mut b).is_pending(), "closed again holds the next");
        assert_eq!(gate.held(), 1);
    }

    #[test]
    fn a_dropped_answer_is_held_no_more() {
        let gate = Gate::closed();
        let (mut a, mut b) = (pass(&gate), pass(&gate));
        assert!(poll(&mut a).is_pending());
        assert!(poll(&mut b).is_pending());
        assert_eq!(gate.held(), 2);
        drop(a);
        assert_eq!(gate.held(), 1);
        gate.open();
        assert_eq!(gate.held(), 0);
        assert!(poll(&mut b).is_ready());
    }
}
