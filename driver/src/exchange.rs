//! One request that a host HTTP stack parsed (hyper, or any other),
//! answered by a [`Connection`] made with
//! [`Connection::http_request`]: the same Streamable HTTP rules as the
//! native listener, with the answer handed out as a head and then body
//! bytes as they come. Like [`serve`](crate::serve), this moves time and
//! handler tasks for the connection and decides nothing.

use bytes::Bytes;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use snodo_proto::http::codec::Head;
use snodo_proto::time::Clock;
use snodo_proto::{Connection, Host, Output, Response, Service};

use crate::drive::clock;
use crate::runtime::{Runtime, Timer};
use crate::signal::Shutdown;

/// A part of an answer.
#[derive(Debug)]
pub enum Part {
    /// The response head: first, once.
    Head(Response),
    /// Body bytes.
    Data(Bytes),
}

/// One request being answered. Poll [`poll_part`](Exchange::poll_part)
/// for the head, then for the body until it returns `None`.
///
/// Dropping it before the end is the client going away (its response body
/// dropped, its HTTP/2 stream reset): the connection hears a hang-up, which
/// cancels a 2026-07-28 call; an initialize-era session's call runs on to
/// its end on a task of its own, its answer dropped, as on the native
/// listener.
pub struct Exchange<R: Runtime> {
    rt: R,
    conn: Option<Connection>,
    /// The server's shutdown, once asked for: the connection winds down
    /// (a listen stream ends with its result) within the shutdown grace.
    stop: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    clock: Clock,
    timer: R::Timer,
    armed: Option<Instant>,
    /// Already the task that runs on after the client left: dropping it
    /// (its runtime shutting down) drops the connection, which cancels
    /// what still runs, instead of spawning it once more.
    detached: bool,
}

impl<R: Runtime> Exchange<R> {
    /// Answer `head` and `body` (`None`: larger than
    /// [`Limits::max_message_bytes`](snodo_proto::Limits)) with `service`;
    /// `host` is what handlers see as [`Context::host`](snodo_proto::Context::host);
    /// once `shutdown` is raised the answer winds down as a native
    /// connection's does.
    pub fn new(
        rt: R,
        service: &Service,
        head: Head,
        body: Option<Bytes>,
        host: Option<Host>,
        shutdown: Option<&Shutdown>,
    ) -> Self {
        let clock = clock(&rt);
        let now = clock.at(rt.now());
        let conn = Connection::http_request(service, head, body, host, now);
        let timer = rt.timer(rt.now());
        Exchange {
            rt,
            conn: Some(conn),
            stop: shutdown.map(|s| Box::pin(s.requested()) as Pin<Box<_>>),
            clock,
            timer,
            armed: None,
            detached: false,
        }
    }

    /// The next part of the answer; `None` once it is complete.
    pub fn poll_part(&mut self, cx: &mut Context<'_>) -> Poll<Option<Part>> {
        let (rt, clock) = (&self.rt, &self.clock);
        let now = || clock.at(rt.now());
        loop {
            let Some(conn) = self.conn.as_mut() else {
                return Poll::Ready(None);
            };
            while let Some(output) = conn.poll_output() {
                match output {
                    Output::Respond(head) => return Poll::Ready(Some(Part::Head(head))),
                    Output::Transmit(bytes) => return Poll::Ready(Some(Part::Data(bytes))),
                    Output::Invoke(invocation) => {
                        let mut task = conn.task(invocation);
                        match task.poll_inline() {
                            Some(outcome) => {
                                let _ = conn.complete(task.call(), outcome, now());
                            }
                            None => rt.spawn(task),
                        }
                    }
                    // proto has set the call's flag, which ends its task.
                    Output::Cancel(_) => {}
                    Output::Close => {
                        self.conn = None;
                        return Poll::Ready(None);
                    }
                }
            }
            // As in the connection loop: the timer only moves earlier.
            let wake = conn.poll_timeout().and_then(|t| clock.monotonic(t));
            if let Some(at) = wake.filter(|&at| self.armed.is_none_or(|armed| at < armed)) {
                self.timer.reset(at);
                self.armed = Some(at);
            }
            if self.armed.is_some() && self.timer.poll_fired(cx).is_ready() {
                self.armed = None;
                conn.handle_timeout(now());
                continue;
            }
            if let Some(stop) = self.stop.as_mut() {
                if stop.as_mut().poll(cx).is_ready() {
                    self.stop = None;
                    conn.begin_shutdown(now());
                    continue;
                }
            }
            if conn.poll_changes(cx).is_ready() {
                conn.handle_changes(now());
                continue;
            }
            return Poll::Pending;
        }
    }
}

impl<R: Runtime> Drop for Exchange<R> {
    fn drop(&mut self) {
        let Some(mut conn) = self.conn.take() else {
            return;
        };
        if self.detached {
            return;
        }
        conn.handle_input_closed(self.clock.at(self.rt.now()));
        if conn.is_closed() {
            return;
        }
        // What is left runs on (a session's call), its output dropped.
        let mut rest = Exchange {
            rt: self.rt.clone(),
            conn: Some(conn),
            stop: self.stop.take(),
            clock: self.clock,
            timer: self.rt.timer(self.rt.now()),
            armed: None,
            detached: true,
        };
        self.rt.spawn(std::future::poll_fn(move |cx| loop {
            match rest.poll_part(cx) {
                Poll::Ready(Some(_)) => continue,
                Poll::Ready(None) => return Poll::Ready(()),
                Poll::Pending => return Poll::Pending,
            }
        }));
    }
}
