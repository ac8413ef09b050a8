//! One `tracing` span per handler call: what ran, how it ended, and the
//! caller's W3C trace context; never the arguments or the result. The list
//! requests, answered by the engine itself, get a span of their own.
//!
//! The span is named `mcp.call` and opens when the call's
//! [`CallTask`](crate::CallTask) is made, is entered on every poll of the
//! handler (so the handler's own events and spans nest under it), and
//! closes when the task is dropped. Its duration is the span's lifetime as
//! the subscriber measures it (`tracing-subscriber`'s `FmtSpan::CLOSE`
//! prints `time.busy` and `time.idle`; an OpenTelemetry layer records start
//! and end): `proto` reads no clock.
//!
//! | field | value |
//! |---|---|
//! | `method` | `tools/call`, `resources/read`, `prompts/get`, `completion/complete`, an extension's method, or `authenticate` (a deferred bearer token check: [`crate::auth`]) |
//! | `tool` / `prompt` | the tool's or prompt's name (a resource's URI is left out: a template's variables are arguments) |
//! | `call` | the call's number on its connection |
//! | `outcome` | `ok`, `tool_error` (a result with `isError: true`), `input_required`, `error` (a JSON-RPC error; a handler's panic is its call's `-32603`) or `cancelled` (ended with no outcome); for `authenticate`, `ok`, `rejected` or `unavailable` |
//! | `error_code` | the JSON-RPC error code, for `error` |
//! | `trace_id`, `parent_span_id` | from the request's `_meta.traceparent` (`basic/index.mdx` § `_meta`: W3C Trace Context), when it is well formed |
//!
//! `tools/list`, `prompts/list`, `resources/list` and
//! `resources/templates/list` are answered while the request is read, with
//! no handler (a [`ResourceLister`](crate::registry::ResourceLister)'s
//! page aside, which runs inside it): each runs in an `mcp.list` span with
//! `method`, `outcome` (`ok` or `error`), `error_code` (`-32602` for a
//! bad cursor) and the same `trace_id` and `parent_span_id`. The cursor is
//! not recorded.
//!
//! A `tracing` span cannot take a remote parent by itself, so the trace and
//! parent ids are always recorded as fields, for a log query to join the
//! call to the client's trace. With the feature `opentelemetry` (off by
//! default), a well-formed `traceparent` also becomes the span's remote
//! parent for a [`tracing-opentelemetry`](https://docs.rs/tracing-opentelemetry)
//! layer: its trace id, parent span id and trace flags, with the request's
//! `tracestate` when it has one that parses (`baggage` is not carried).
//! The exported span then belongs to the client's trace, a child of the
//! client's span; a span whose `traceparent` is missing or malformed keeps
//! the parent it would have had (the current span, or none: a new trace).
//! Without such a layer in the subscriber the feature does nothing.

use crate::error::ErrorObject;
use crate::handler::{Invocation, Outcome, Request};
use crate::meta::RequestMeta;

/// The span of `invocation`'s call.
pub(crate) fn call_span(invocation: &Invocation) -> tracing::Span {
    let (method, tool, prompt): (&str, Option<&str>, Option<&str>) = match &invocation.request {
        Request::CallTool { name, .. } => ("tools/call", Some(name), None),
        Request::ReadResource { .. } => ("resources/read", None, None),
        Request::GetPrompt { name, .. } => ("prompts/get", None, Some(name)),
        Request::Complete(_) => ("completion/complete", None, None),
        Request::Extension { method, .. } => (method.as_str(), None, None),
        Request::Authenticate => ("authenticate", None, None),
    };
    let span = tracing::info_span!(
        "mcp.call",
        method,
        tool,
        prompt,
        call = invocation.call.as_u64(),
        outcome = tracing::field::Empty,
        error_code = tracing::field::Empty,
        trace_id = tracing::field::Empty,
        parent_span_id = tracing::field::Empty,
    );
    set_parent(&span, invocation.meta());
    span
}

/// The span of a list request for `method`.
pub(crate) fn list_span(method: &'static str, meta: &RequestMeta) -> tracing::Span {
    let span = tracing::info_span!(
        "mcp.list",
        method,
        outcome = tracing::field::Empty,
        error_code = tracing::field::Empty,
        trace_id = tracing::field::Empty,
        parent_span_id = tracing::field::Empty,
    );
    set_parent(&span, meta);
    span
}

/// Record `meta`'s well-formed `traceparent` in `span`'s fields and, with
/// the feature `opentelemetry`, make it the span's remote parent.
fn set_parent(span: &tracing::Span, meta: &RequestMeta) {
    let Some(parent) = meta.trace.traceparent.as_deref().and_then(traceparent) else {
        return;
    };
    span.record("trace_id", parent.trace_id);
    span.record("parent_span_id", parent.parent_id);
    #[cfg(feature = "opentelemetry")]
    otel::set_parent(span, &parent, meta.trace.tracestate.as_deref());
}

#[cfg(feature = "opentelemetry")]
mod otel {
    use super::TraceParent;
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    /// Make `parent` (with `tracestate`, when it parses) the remote parent
    /// of `span`, which has not started yet.
    pub(super) fn set_parent(
        span: &tracing::Span,
        parent: &TraceParent<'_>,
        tracestate: Option<&str>,
    ) {
        // The parser admitted only lowercase hex of the right lengths.
        let (Ok(trace_id), Ok(span_id), Ok(flags)) = (
            TraceId::from_hex(parent.trace_id),
            SpanId::from_hex(parent.parent_id),
            u8::from_str_radix(parent.flags, 16),
        ) else {
            return;
        };
        let state = tracestate
            .and_then(|s| s.parse::<TraceState>().ok())
            .unwrap_or_default();
        let remote = SpanContext::new(trace_id, span_id, TraceFlags::new(flags), true, state);
        let cx = opentelemetry::Context::new().with_remote_span_context(remote);
        // Fails when no OpenTelemetry layer sees the span (or it is
        // disabled): nothing then exports it, and the fields remain.
        let _ = span.set_parent(cx);
    }
}

/// Record how a list request ended.
pub(crate) fn record_list<T>(span: &tracing::Span, answer: &Result<T, ErrorObject>) {
    match answer {
        Ok(_) => span.record("outcome", "ok"),
        Err(e) => span.record("error_code", e.code).record("outcome", "error"),
    };
}

/// Record how the call ended.
pub(crate) fn record_outcome(span: &tracing::Span, outcome: &Outcome) {
    let label = match outcome {
        Outcome::CallTool(r) if r.is_error == Some(true) => "tool_error",
        Outcome::InputRequired(_) => "input_required",
        Outcome::Authenticated(crate::auth::Verdict::Accepted(_)) => "ok",
        Outcome::Authenticated(crate::auth::Verdict::Rejected(_)) => "rejected",
        Outcome::Authenticated(crate::auth::Verdict::Unavailable { .. }) => "unavailable",
        Outcome::Error(e) => {
            span.record("error_code", e.code);
            "error"
        }
        _ => "ok",
    };
    span.record("outcome", label);
}

/// The parts of a well-formed W3C `traceparent`, each lowercase hex.
#[derive(Debug, PartialEq)]
pub(crate) struct TraceParent<'a> {
    /// 32 digits, not all zeros.
    pub(crate) trace_id: &'a str,
    /// 16 digits, not all zeros: the caller's span.
    pub(crate) parent_id: &'a str,
    /// 2 digits (`01`: sampled).
    #[cfg_attr(not(feature = "opentelemetry"), allow(dead_code))]
    pub(crate) flags: &'a str,
}

/// The trace id, parent id and flags of a W3C `traceparent`
/// (`version-traceid-parentid-flags`, lowercase hex, neither id all
/// zeros); `None` for anything else, which is then ignored.
pub(crate) fn traceparent(value: &str) -> Option<TraceParent<'_>> {
    let mut parts = value.split('-');
    let (version, trace_id, parent_id, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex = |s: &str, len: usize| {
        s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    };
    let nonzero = |s: &str| s.bytes().any(|b| b != b'0');
    // Version ff is invalid; a future version may append fields, 00 may not.
    let ok = hex(version, 2)
        && version != "ff"
        && (version != "00" || parts.next().is_none())
        && hex(trace_id, 32)
        && nonzero(trace_id)
        && hex(parent_id, 16)
        && nonzero(parent_id)
        && hex(flags, 2);
    ok.then_some(TraceParent {
        trace_id,
        parent_id,
        flags,
    })
}

#[cfg(test)]
mod tests {
    use super::{traceparent, TraceParent};

    #[test]
    fn traceparent_is_read_only_when_well_formed() {
        let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        assert_eq!(
            traceparent(good),
            Some(TraceParent {
                trace_id: "4bf92f3577b34da6a3ce929d0e0e4736",
                parent_id: "00f067aa0ba902b7",
                flags: "01",
            })
        );
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        ] {
            assert_eq!(traceparent(bad), None, "{bad:?}");
        }
        // A later version may carry more fields.
        assert!(traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x").is_some());
    }
}
