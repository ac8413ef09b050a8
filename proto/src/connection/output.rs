//! What a connection tells its driver: the transport it speaks, the
//! outputs to carry out, and why an outcome was not taken. Kept apart from
//! the state machine so the pieces that queue outputs (the outbox, the
//! wires) need not know the machine.

use bytes::Bytes;
use core::fmt;

use crate::handler::{CallId, Invocation};

/// The transport a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Newline-delimited JSON-RPC over a byte stream (stdin/stdout, or any
    /// reliable bidirectional stream: `basic/transports/stdio.mdx`).
    Stdio,
    /// Streamable HTTP over one HTTP/1.1 connection
    /// (`basic/transports/streamable-http.mdx`).
    Http,
}

/// Something the driver must do.
#[derive(Debug)]
pub enum Output {
    /// Write these bytes, in order. On a connection made with
    /// [`Connection::http_request`](super::Connection::http_request) they are response body bytes.
    Transmit(Bytes),
    /// Only on a connection made with [`Connection::http_request`](super::Connection::http_request), once
    /// and before any body bytes: send the response head.
    Respond(crate::http::Response),
    /// Run this call: [`Invocation::run`] it, or answer its request by hand.
    /// Report the outcome with [`Connection::complete`](super::Connection::complete). A
    /// [`Request::Authenticate`](crate::handler::Request::Authenticate) is a
    /// deferred bearer token check, run the same way.
    Invoke(Invocation),
    /// Stop this call: drop its future and set its [`CancelFlag`](crate::CancelFlag). Any
    /// later completion of it is ignored.
    Cancel(CallId),
    /// Nothing more will be written: close the output.
    Close,
}

/// Why [`Connection::complete`](super::Connection::complete) did not accept an outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompleteError {
    /// The call already ended (cancelled, timed out, or completed).
    UnknownCall,
}

impl fmt::Display for CompleteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the call is no longer in flight")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for CompleteError {}
