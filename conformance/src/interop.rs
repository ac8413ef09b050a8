//! Tools the evidence lanes need and no official scenario calls: the
//! released-client interop lane (`evidence/client-interop/`) drives a
//! URL-mode elicitation and cancels a long call, then checks the server
//! really dropped it.
//!
//! Both are listed after the MRTR tools, so every tool the official suite
//! looks up keeps its place.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    CallToolResult, Context, ElicitAction, ElicitRequest, InputRequired, NoArgs, Reply,
    ServiceBuilder, Tool,
};

use crate::timer::Delay;

/// Where `test_url_elicitation` sends the user. The interaction happens
/// out of band (`client/elicitation.mdx` § URL Mode Elicitation Requests);
/// the fixture only needs a valid URL.
pub const AUTHORIZE_URL: &str = "https://example.com/snodo/authorize";

/// The longest wait `test_cancellable_wait` accepts, so a forgotten call
/// cannot hold a fixture for long.
const MAX_WAIT_MS: u64 = 60_000;

/// Arguments of `test_cancellable_wait`.
#[derive(Debug, Deserialize, JsonSchema)]
struct Wait {
    ms: u64,
}

/// Counts a wait whose future was dropped before it finished: every
/// adapter drops a cancelled call's future (`Output::Cancel`), so this is
/// the server-side trace of a cancellation.
struct CountIfDropped {
    cancelled: Arc<AtomicU64>,
    finished: bool,
}

impl Drop for CountIfDropped {
    fn drop(&mut self) {
        if !self.finished {
            self.cancelled.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn url_elicitation(ctx: Context) -> Reply<CallToolResult> {
    match ctx.elicitation("authorize") {
        Some(r) => {
            let action = match r.action {
                ElicitAction::Accept => "accept",
                ElicitAction::Decline => "decline",
                ElicitAction::Cancel => "cancel",
            };
            Reply::Complete(CallToolResult::text(format!("URL elicitation: {action}")))
        }
        None => InputRequired::new()
            .elicit(
                "authorize",
                ElicitRequest::url("Authorize access in your browser", AUTHORIZE_URL),
            )
            .into(),
    }
}

/// Register the interop tools.
pub fn register(builder: ServiceBuilder) -> ServiceBuilder {
    let cancelled = Arc::new(AtomicU64::new(0));
    builder
        .tool(
            Tool::new(
                "test_url_elicitation",
                "Sends the user to a URL, then reports what they chose",
            ),
            |_: NoArgs, ctx: Context| async move { url_elicitation(ctx) },
        )
        .tool(
            Tool::new(
                "test_cancellable_wait",
                "Waits ms milliseconds, then reports how many earlier waits were cancelled",
            )
            .input_schema(json!({
                "type": "object",
                "properties": {
                    "ms": { "type": "integer", "minimum": 0, "maximum": MAX_WAIT_MS }
                },
                "required": ["ms"],
                "additionalProperties": false
            })),
            move |args: Wait| {
                let mut guard = CountIfDropped {
                    cancelled: Arc::clone(&cancelled),
                    finished: false,
                };
                async move {
                    Delay::new(Duration::from_millis(args.ms.min(MAX_WAIT_MS))).await;
                    guard.finished = true;
                    let before = guard.cancelled.load(Ordering::SeqCst);
                    CallToolResult::text(format!(
                        "Waited {} ms; {before} earlier wait(s) cancelled",
                        args.ms
                    ))
                }
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_wait_is_counted_and_a_finished_one_is_not() {
        let cancelled = Arc::new(AtomicU64::new(0));
        drop(CountIfDropped {
            cancelled: Arc::clone(&cancelled),
            finished: false,
        });
        drop(CountIfDropped {
            cancelled: Arc::clone(&cancelled),
            finished: true,
        });
        assert_eq!(cancelled.load(Ordering::SeqCst), 1);
    }
}
