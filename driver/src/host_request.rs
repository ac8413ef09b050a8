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

use snodo_proto::http::Head;
use snodo_proto::{Connection, Host, Output, Response, Service};

use crate::drive::Core;
use crate::runtime::Runtime;
use crate::signal::Shutdown;

/// A part of an answer.
#[derive(Debug)]
pub enum Part {
    /// The response head: first, once.
    Head(Response),
    /// Body bytes.
    Data(Bytes),
}

/// One request being answered. Poll [`poll_part`](HostRequest::poll_part)
/// for the head, then for the body until it returns `None`.
///
/// Dropping it before the end is the client going away (its response body
/// dropped, its HTTP/2 stream reset): the connection hears a hang-up, which
/// cancels a 2026-07-28 call; an initialize-era session's call runs on to
/// its end on a task of its own, its answer dropped, as on the native
/// listener.
pub struct HostRequest<R: Runtime> {
    core: Core<R>,
    conn: Option<Connection>,
    /// The server's shutdown, once asked for: the connection winds down
    /// (a listen stream ends with its result) within the shutdown grace.
    stop: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    /// Already the task that runs on after the client left: dropping it
    /// (its runtime shutting down) drops the connection, which cancels
    /// what still runs, instead of spawning it once more.
    detached: bool,
}

impl<R: Runtime> HostRequest<R> {
    /// Answer `head` and `body` (or why it could not be read:
    /// [`BodyError`](snodo_proto::BodyError)) with `service`;
    /// `host` is what handlers see as [`Context::host`](snodo_proto::Context::host);
    /// once `shutdown` is raised the answer winds down as a native
    /// connection's does.
    pub fn new(
        rt: R,
        service: &Service,
        head: Head,
        body: Result<Bytes, snodo_proto::BodyError>,
        host: Option<Host>,
        shutdown: Option<&Shutdown>,
    ) -> Self {
        let core = Core::new(rt);
        let mut conn = Connection::http_request(service, head, body, host, core.now());
        conn.set_executor(core.rt.executor());
        HostRequest {
            core,
            conn: Some(conn),
            stop: shutdown.map(|s| Box::pin(s.requested()) as Pin<Box<_>>),
            detached: false,
        }
    }

    /// The next part of the answer; `None` once it is complete.
    pub fn poll_part(&mut self, cx: &mut Context<'_>) -> Poll<Option<Part>> {
        loop {
            let Some(conn) = self.conn.as_mut() else {
                return Poll::Ready(None);
            };
            while let Some(output) = conn.poll_output() {
                match self.core.carry(conn, output) {
                    Some(Output::Respond(head)) => return Poll::Ready(Some(Part::Head(head))),
                    Some(Output::Transmit(bytes)) => return Poll::Ready(Some(Part::Data(bytes))),
                    Some(Output::Close) => {
                        self.conn = None;
                        return Poll::Ready(None);
                    }
                    _ => {}
                }
            }
            if self.core.poll_timer(conn, cx).is_ready() {
                continue;
            }
            if let Some(stop) = self.stop.as_mut() {
                if stop.as_mut().poll(cx).is_ready() {
                    self.stop = None;
                    conn.begin_shutdown(self.core.now());
                    continue;
                }
            }
            if conn.poll_changes(cx).is_ready() {
                conn.handle_changes(self.core.now());
                continue;
            }
            return Poll::Pending;
        }
    }
}

impl<R: Runtime> Drop for HostRequest<R> {
    fn drop(&mut self) {
        let Some(mut conn) = self.conn.take() else {
            return;
        };
        if self.detached {
            return;
        }
        conn.handle_input_closed(self.core.now());
        if conn.is_closed() {
            return;
        }
        // What is left runs on (a session's call), its output dropped.
        let mut rest = HostRequest {
            core: self.core.fork(),
            conn: Some(conn),
            stop: self.stop.take(),
            detached: true,
        };
        self.core.rt.spawn(std::future::poll_fn(move |cx| loop {
            match rest.poll_part(cx) {
                Poll::Ready(Some(_)) => continue,
                Poll::Ready(None) => return Poll::Ready(()),
                Poll::Pending => return Poll::Pending,
            }
        }));
    }
}
