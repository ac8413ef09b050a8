//! Every deadline of a connection, in one table.
//!
//! A connection has a few deadlines of its own (the shutdown grace, and on
//! HTTP the request, idle and keep-alive timers) and one per running call
//! (`Limits::call_timeout`). They all live here, so that
//! [`poll_timeout`](super::Connection::poll_timeout) is one lookup and
//! [`handle_timeout`](super::Connection::handle_timeout) finds what expired
//! without walking the calls.

use alloc::collections::BTreeSet;

use crate::handler::CallId;
use crate::time::Instant;

/// A deadline of the connection itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Timer {
    /// Winding down (stdio EOF, or shutdown): calls still running then
    /// are cancelled and the connection closes (`Limits::shutdown_grace`).
    Grace,
    /// HTTP: the request being received must be in by then, its head
    /// (`HttpConfig::head_timeout`) and then its body
    /// (`HttpConfig::request_timeout`); 408 otherwise.
    Request,
    /// HTTP: an idle keep-alive connection closes (`HttpConfig::idle_timeout`).
    Idle,
    /// HTTP: the next SSE heartbeat comment of an open stream
    /// (`Limits::heartbeat`).
    Heartbeat,
}

const TIMERS: usize = 4;

/// The table. A call's deadline is set when the call starts and cleared
/// when it ends, through [`Timers::set_call`] and [`Timers::clear_call`].
#[derive(Debug, Default)]
pub(crate) struct Timers {
    own: [Option<Instant>; TIMERS],
    calls: BTreeSet<(Instant, CallId)>,
}

impl Timers {
    pub(crate) fn get(&self, t: Timer) -> Option<Instant> {
        self.own[t as usize]
    }

    pub(crate) fn set(&mut self, t: Timer, at: Instant) {
        self.own[t as usize] = Some(at);
    }

    /// Set `t` unless it is already running.
    pub(crate) fn start(&mut self, t: Timer, at: Instant) {
        self.own[t as usize].get_or_insert(at);
    }

    pub(crate) fn stop(&mut self, t: Timer) {
        self.own[t as usize] = None;
    }

    /// Whether `t` is set and due at `now`.
    pub(crate) fn due(&self, t: Timer, now: Instant) -> bool {
        self.get(t).is_some_and(|d| d <= now)
    }

    pub(crate) fn set_call(&mut self, call: CallId, at: Option<Instant>) {
        if let Some(at) = at {
            self.calls.insert((at, call));
        }
    }

    pub(crate) fn clear_call(&mut self, call: CallId, at: Option<Instant>) {
        if let Some(at) = at {
            self.calls.remove(&(at, call));
        }
    }

    /// The calls whose deadline is at or before `now`, earliest first.
    pub(crate) fn expired_calls(&self, now: Instant) -> impl Iterator<Item = CallId> + '_ {
        self.calls
            .iter()
            .take_while(move |(at, _)| *at <= now)
            .map(|(_, c)| *c)
    }

    /// The earliest deadline, leaving out the connection's own timers that
    /// `skip` names (those that do not apply in its present state).
    pub(crate) fn next(&self, skip: impl Fn(Timer) -> bool) -> Option<Instant> {
        const ALL: [Timer; TIMERS] = [Timer::Grace, Timer::Request, Timer::Idle, Timer::Heartbeat];
        let own = ALL
            .into_iter()
            .filter(|t| !skip(*t))
            .filter_map(|t| self.get(t));
        let call = self.calls.first().map(|(at, _)| *at);
        own.chain(call).min()
    }

    pub(crate) fn clear_calls(&mut self) {
        self.calls.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn at(s: u64) -> Instant {
        Instant::from_nanos(s * 1_000_000_000)
    }

    #[test]
    fn the_earliest_applicable_deadline_wins_and_ended_calls_leave_none_behind() {
        let mut t = Timers::default();
        assert_eq!(t.next(|_| false), None);
        t.set(Timer::Idle, at(120));
        t.set(Timer::Heartbeat, at(15));
        t.set_call(CallId(1), Some(at(60)));
        t.set_call(CallId(2), Some(at(30)));
        t.set_call(CallId(3), None);
        assert_eq!(t.next(|_| false), Some(at(15)));
        assert_eq!(t.next(|t| t == Timer::Heartbeat), Some(at(30)));
        assert_eq!(t.expired_calls(at(59)).collect::<Vec<_>>(), [CallId(2)]);
        assert_eq!(
            t.expired_calls(at(60)).collect::<Vec<_>>(),
            [CallId(2), CallId(1)]
        );
        // `start` keeps a running timer; `set` moves it.
        t.start(Timer::Heartbeat, at(99));
        assert_eq!(t.get(Timer::Heartbeat), Some(at(15)));
        t.stop(Timer::Heartbeat);
        t.clear_call(CallId(2), Some(at(30)));
        t.clear_call(CallId(1), Some(at(60)));
        assert_eq!(t.next(|_| false), Some(at(120)));
        assert!(t.calls.is_empty());
        assert!(t.due(Timer::Idle, at(120)) && !t.due(Timer::Idle, at(119)));
    }
}
