//! [`Audit`]: one `tracing` event per call, for audit logs and metrics.

use alloc::boxed::Box;
use alloc::string::String;

use super::{Call, Layer};
use crate::handler::{BoxFuture, Outcome};

/// One `tracing` event per call, at `INFO` on the target `snodo::audit`,
/// when the call ends: `method` (`tools/call`, ...), `name` (the tool or
/// prompt, the resource URI), `subject` (the principal's subject, when
/// the call has one; never its token), `outcome` (`ok`, `tool_error` for
/// a result with `isError: true`, `error` for a JSON-RPC error, whose
/// `code` is recorded too, or `input_required`), and `duration_ns` when
/// the application gave it a clock.
///
/// A call cancelled or timed out ends without an outcome: its event is
/// `outcome = "cancelled"`, sent when its future is dropped.
///
/// snodo-proto reads no clock, so the duration is measured with the one
/// passed to [`clock`](Audit::clock): monotonic nanoseconds from any
/// origin (`|| START.elapsed().as_nanos() as u64` over a
/// `std::time::Instant` the application keeps, say).
#[derive(Clone, Copy, Debug, Default)]
pub struct Audit {
    clock: Option<fn() -> u64>,
}

impl Audit {
    /// An audit record without durations.
    pub fn new() -> Audit {
        Audit::default()
    }

    /// Record each call's duration, read from `now` (monotonic
    /// nanoseconds) when it starts and when it ends.
    pub fn clock(mut self, now: fn() -> u64) -> Audit {
        self.clock = Some(now);
        self
    }
}

/// What the event says of a call, kept until it ends.
struct Record {
    method: &'static str,
    name: String,
    subject: Option<String>,
    clock: Option<fn() -> u64>,
    started: u64,
    ended: bool,
}

impl Record {
    fn emit(&mut self, outcome: &'static str, code: Option<i64>) {
        self.ended = true;
        let duration_ns = self.clock.map(|now| now().saturating_sub(self.started));
        tracing::info!(
            target: "snodo::audit",
            method = self.method,
            name = %self.name,
            subject = self.subject.as_deref(),
            outcome,
            code,
            duration_ns,
            "call ended"
        );
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        if !self.ended {
            self.emit("cancelled", None);
        }
    }
}

/// The `outcome` and `code` fields of `outcome`.
fn kind(outcome: &Outcome) -> (&'static str, Option<i64>) {
    match outcome {
        Outcome::CallTool(r) if r.is_error == Some(true) => ("tool_error", None),
        Outcome::Error(e) => ("error", Some(e.code)),
        Outcome::InputRequired(_) => ("input_required", None),
        _ => ("ok", None),
    }
}

impl Layer for Audit {
    fn around(&self, call: Call) -> BoxFuture<Outcome> {
        let mut record = Record {
            method: call.method(),
            name: String::from(call.name()),
            subject: call.principal().map(|p| p.subject.clone()),
            clock: self.clock,
            started: self.clock.map_or(0, |now| now()),
            ended: false,
        };
        Box::pin(async move {
            let outcome = call.run().await;
            let (kind, code) = kind(&outcome);
            record.emit(kind, code);
            outcome
        })
    }
}
