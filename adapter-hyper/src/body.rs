//! The response body: the rest of a [`HostRequest`], frame by frame.

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use snodo_driver::{HostRequest, Part};
use snodo_tokio::Tokio;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The body of an answer: one JSON message, or an SSE stream whose events
/// are sent as they come. Dropping it before its end is the client going
/// away (see [`HostRequest`]).
pub struct McpBody {
    request: Option<HostRequest<Tokio>>,
    length: Option<u64>,
}

impl McpBody {
    pub(crate) fn streaming(request: HostRequest<Tokio>, length: Option<usize>) -> Self {
        McpBody {
            request: Some(request),
            length: length.map(|n| n as u64),
        }
    }

    pub(crate) fn empty() -> Self {
        McpBody {
            request: None,
            length: Some(0),
        }
    }
}

impl std::fmt::Debug for McpBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpBody")
            .field("open", &self.request.is_some())
            .field("length", &self.length)
            .finish()
    }
}

impl Body for McpBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let Some(request) = self.request.as_mut() else {
            return Poll::Ready(None);
        };
        loop {
            return match request.poll_part(cx) {
                Poll::Ready(Some(Part::Data(bytes))) if bytes.is_empty() => continue,
                Poll::Ready(Some(Part::Data(bytes))) => Poll::Ready(Some(Ok(Frame::data(bytes)))),
                // A connection answers one head; nothing else comes.
                Poll::Ready(Some(Part::Head(_))) => continue,
                Poll::Ready(None) => {
                    self.request = None;
                    Poll::Ready(None)
                }
                Poll::Pending => Poll::Pending,
            };
        }
    }

    fn is_end_stream(&self) -> bool {
        self.request.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        match self.length {
            Some(n) => SizeHint::with_exact(n),
            None => SizeHint::default(),
        }
    }
}
