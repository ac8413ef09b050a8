//! A small service whose tools exercise what the adapter adds: concurrency,
//! cancellation, panics, progress. Built with `snodo_proto`'s builder.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use snodo_proto::{CallToolResult, Context, NoArgs, Service, Tool};
use tokio::sync::{mpsc, Notify};

/// Every test step waits at most this long.
pub const STEP: Duration = Duration::from_secs(5);

/// What the `hang` tool tells the test.
#[derive(Clone, Default)]
pub struct Probe {
    /// Notified once a `hang` call is running.
    pub started: Arc<Notify>,
    /// Receives `ctx.is_cancelled()` when a `hang` call's future is dropped.
    pub dropped: Option<mpsc::UnboundedSender<bool>>,
    /// A `step` call reports progress, then waits for this before answering.
    pub release: Arc<Notify>,
    /// The service's shutdown grace, if not the default.
    pub grace: Option<Duration>,
}

impl Probe {
    /// The same probe on a service with `grace` as its shutdown grace.
    pub fn grace(self, grace: Duration) -> Probe {
        Probe {
            grace: Some(grace),
            ..self
        }
    }
}

#[derive(Deserialize)]
struct Text {
    text: String,
}

#[derive(Deserialize)]
struct Sleep {
    ms: u64,
    label: String,
}

/// Reports whether its call was cancelled when the handler's future is dropped.
struct DropReport {
    ctx: Context,
    tx: Option<mpsc::UnboundedSender<bool>>,
}

impl Drop for DropReport {
    fn drop(&mut self) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(self.ctx.is_cancelled());
        }
    }
}

pub fn service(probe: Probe) -> Service {
    let text_schema = serde_json::json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": false
    });
    let sleep_schema = serde_json::json!({
        "type": "object",
        "properties": {"ms": {"type": "integer", "minimum": 0}, "label": {"type": "string"}},
        "required": ["ms", "label"],
        "additionalProperties": false
    });
    let hang_probe = probe.clone();
    let release = probe.release.clone();
    let limits = snodo_proto::Limits {
        shutdown_grace: probe
            .grace
            .unwrap_or(snodo_proto::Limits::default().shutdown_grace),
        ..snodo_proto::Limits::default()
    };
    Service::builder()
        .limits(limits)
        .tool(
            Tool::new("echo", "Echo the text").input_schema(text_schema),
            |args: Text, _ctx| async move { CallToolResult::text(args.text) },
        )
        .tool(
            Tool::new("sleep", "Sleep, then answer the label").input_schema(sleep_schema),
            |args: Sleep, _ctx| async move {
                tokio::time::sleep(Duration::from_millis(args.ms)).await;
                CallToolResult::text(args.label)
            },
        )
        .tool(
            Tool::new("hang", "Never finish"),
            move |_: NoArgs, ctx: Context| {
                let probe = hang_probe.clone();
                async move {
                    let _report = DropReport {
                        ctx,
                        tx: probe.dropped.clone(),
                    };
                    probe.started.notify_one();
                    std::future::pending::<()>().await;
                    CallToolResult::text("unreachable")
                }
            },
        )
        .tool(Tool::new("boom", "Panic"), |_: NoArgs, _ctx| async move {
            tokio::task::yield_now().await;
            if true {
                panic!("the boom tool panics on purpose");
            }
            CallToolResult::text("unreachable")
        })
        .tool(
            Tool::new("count", "Report progress 1..=3 of 3, then answer"),
            |_: NoArgs, ctx: Context| async move {
                for i in 1..=3 {
                    ctx.progress(f64::from(i), Some(3.0), None);
                    tokio::task::yield_now().await;
                }
                CallToolResult::text("counted")
            },
        )
        .tool(
            Tool::new("step", "Report progress, then answer once released"),
            move |_: NoArgs, ctx: Context| {
                let release = release.clone();
                async move {
                    ctx.progress(1.0, None, Some(String::from("waiting")));
                    release.notified().await;
                    CallToolResult::text("released")
                }
            },
        )
        .build()
        .expect("the test service is valid")
}
