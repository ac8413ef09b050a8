//! The read permit between the driver and the reader thread.
//!
//! The reader may call `read` only while it holds a permit, and each permit
//! covers one chunk. The driver grants the next permit only after it has fed
//! the previous chunk to the connection and the connection still
//! [`wants_input`](snodo_proto::Connection::wants_input), so at most one
//! chunk is ever read ahead of the connection's backpressure decision.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

#[derive(Debug, Default)]
struct State {
    permit: bool,
    closed: bool,
}

#[derive(Debug, Default)]
pub(crate) struct ReadGate {
    state: Mutex<State>,
    cond: Condvar,
}

impl ReadGate {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reader side: wait for a permit and take it. `false` once closed.
    pub(crate) fn acquire(&self) -> bool {
        let mut s = self.lock();
        loop {
            if s.closed {
                return false;
            }
            if s.permit {
                s.permit = false;
                return true;
            }
            s = self.cond.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Driver side: allow one more read.
    pub(crate) fn grant(&self) {
        self.lock().permit = true;
        self.cond.notify_one();
    }

    /// Driver side: no more reads; a waiting reader returns.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.cond.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn a_permit_is_consumed_by_one_acquire() {
        let gate = Arc::new(ReadGate::default());
        gate.grant();
        assert!(gate.acquire());
        let g = Arc::clone(&gate);
        let waiter = std::thread::spawn(move || g.acquire());
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !waiter.is_finished(),
            "acquire must wait for the next grant"
        );
        gate.close();
        assert!(!waiter.join().unwrap());
    }
}
