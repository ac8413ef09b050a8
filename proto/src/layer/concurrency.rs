//! [`ConcurrencyLimit`]: at most n calls at once through it; the rest wait
//! their turn, first come first served.
//!
//! A small waker-based semaphore, so it runs on any executor (tokio, smol,
//! the blocking pool's own): a waiting call is a pending future whose
//! waker the call releasing its permit wakes. A waiting call that is
//! cancelled (its future dropped: the client's `notifications/cancelled`,
//! its deadline, the connection closing) leaves the queue, and a permit
//! handed to it before it could take it goes on to the next in line.

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context as TaskContext, Poll, Waker};
use std::sync::Mutex;

use super::{Call, Layer};
use crate::handler::{BoxFuture, Outcome};

/// At most `limit` calls at once through this layer, however many
/// connections they come from; calls beyond it wait (they are not
/// refused) until one of those ends. Installed with
/// [`ServiceBuilder::tool_layer`](crate::ServiceBuilder::tool_layer) it
/// limits one tool; with [`ServiceBuilder::layer`](crate::ServiceBuilder::layer),
/// every call of the service; one value installed on several tools (it
/// is cheap to clone: clones share their permits) limits them together.
///
/// A waiting call holds its connection's call slot and its deadline
/// runs: a call that waits past it is answered as timed out, and leaves
/// the queue.
#[derive(Clone, Debug)]
pub struct ConcurrencyLimit {
    semaphore: Arc<Semaphore>,
}

impl ConcurrencyLimit {
    /// At most `limit` calls at once (at least one).
    pub fn new(limit: usize) -> ConcurrencyLimit {
        ConcurrencyLimit {
            semaphore: Arc::new(Semaphore {
                state: Mutex::new(State {
                    permits: limit.max(1),
                    queue: VecDeque::new(),
                    granted: Vec::new(),
                    next: 0,
                }),
            }),
        }
    }

    /// Calls waiting for a permit now.
    pub fn waiting(&self) -> usize {
        self.semaphore.lock().queue.len()
    }
}

impl Layer for ConcurrencyLimit {
    fn around(&self, call: Call) -> BoxFuture<Outcome> {
        let acquire = Acquire {
            semaphore: self.semaphore.clone(),
            ticket: None,
        };
        Box::pin(async move {
            let _permit = acquire.await;
            call.run().await
        })
    }
}

#[derive(Debug)]
struct Semaphore {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// Permits free and not promised to a waiter.
    permits: usize,
    /// The waiters, in order of arrival.
    queue: VecDeque<(u64, Waker)>,
    /// Waiters handed a permit they have not yet taken.
    granted: Vec<u64>,
    next: u64,
}

impl Semaphore {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A permit comes back: to the first waiter, or to the pool.
    fn release(&self) {
        let woken = {
            let mut state = self.lock();
            match state.queue.pop_front() {
                Some((ticket, waker)) => {
                    state.granted.push(ticket);
                    Some(waker)
                }
                None => {
                    state.permits += 1;
                    None
                }
            }
        };
        if let Some(w) = woken {
            w.wake();
        }
    }
}

/// Waiting for a permit.
struct Acquire {
    semaphore: Arc<Semaphore>,
    /// The place in the queue, once queued.
    ticket: Option<u64>,
}

/// A permit taken; given back when dropped.
struct Permit(Arc<Semaphore>);

impl Drop for Permit {
    fn drop(&mut self) {
        self.0.release();
    }
}

impl Future for Acquire {
    type Output = Permit;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Permit> {
        let this = &mut *self;
        let mut state = this.semaphore.lock();
        match this.ticket {
            None if state.permits > 0 && state.queue.is_empty() => {
                state.permits -= 1;
                drop(state);
                Poll::Ready(Permit(this.semaphore.clone()))
            }
            None => {
                let ticket = state.next;
                state.next += 1;
                state.queue.push_back((ticket, cx.waker().clone()));
                this.ticket = Some(ticket);
                Poll::Pending
            }
            Some(ticket) => {
                if let Some(at) = state.granted.iter().position(|&t| t == ticket) {
                    state.granted.swap_remove(at);
                    this.ticket = None;
                    drop(state);
                    return Poll::Ready(Permit(this.semaphore.clone()));
                }
                if let Some((_, waker)) = state.queue.iter_mut().find(|(t, _)| *t == ticket) {
                    if !waker.will_wake(cx.waker()) {
                        *waker = cx.waker().clone();
                    }
                }
                Poll::Pending
            }
        }
    }
}

impl Drop for Acquire {
    /// A waiter cancelled leaves the queue; one already handed a permit
    /// passes it on.
    fn drop(&mut self) {
        let Some(ticket) = self.ticket else { return };
        let handed = {
            let mut state = self.semaphore.lock();
            match state.granted.iter().position(|&t| t == ticket) {
                Some(at) => {
                    state.granted.swap_remove(at);
                    true
                }
                None => {
                    state.queue.retain(|(t, _)| *t != ticket);
                    false
                }
            }
        };
        if handed {
            self.semaphore.release();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::task::Waker;

    fn poll(f: &mut Pin<Box<Acquire>>) -> Poll<Permit> {
        f.as_mut().poll(&mut TaskContext::from_waker(Waker::noop()))
    }

    fn acquire(limit: &ConcurrencyLimit) -> Pin<Box<Acquire>> {
        Box::pin(Acquire {
            semaphore: limit.semaphore.clone(),
            ticket: None,
        })
    }

    #[test]
    fn waiters_are_served_in_order_and_a_dropped_one_leaves_the_queue() {
        let limit = ConcurrencyLimit::new(1);
        let mut a = acquire(&limit);
        let Poll::Ready(first) = poll(&mut a) else {
            panic!("a free permit is taken at once")
        };
        let (mut b, mut c, mut d) = (acquire(&limit), acquire(&limit), acquire(&limit));
        assert!(poll(&mut b).is_pending());
        assert!(poll(&mut c).is_pending());
        assert!(poll(&mut d).is_pending());
        assert_eq!(limit.waiting(), 3);
        // `b` cancelled while waiting: it leaves the queue.
        drop(b);
        assert_eq!(limit.waiting(), 2);
        drop(first);
        // The permit is `c`'s; `c` is cancelled before it takes it, so it
        // goes on to `d`.
        drop(c);
        assert!(
            poll(&mut d).is_ready(),
            "the permit reached the next waiter"
        );
        assert_eq!(limit.waiting(), 0);
    }

    #[test]
    fn a_newcomer_does_not_overtake_the_queue() {
        let limit = ConcurrencyLimit::new(1);
        let mut a = acquire(&limit);
        let Poll::Ready(first) = poll(&mut a) else {
            panic!()
        };
        let mut b = acquire(&limit);
        assert!(poll(&mut b).is_pending());
        drop(first);
        let mut late = acquire(&limit);
        assert!(poll(&mut late).is_pending(), "b is first in line");
        let Poll::Ready(second) = poll(&mut b) else {
            panic!("b was handed the permit")
        };
        drop(second);
        assert!(poll(&mut late).is_ready());
    }
}
