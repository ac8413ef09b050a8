//! The service the client and span tests share.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use serde::Deserialize;
use serde_json::json;
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    CallToolResult, Context, ElicitRequest, GetPromptResult, Hub, InputRequired, NoArgs,
    Notifications, Prompt, PromptMessage, ReadResourceResult, Reply, Resource, ResourceArgs,
    ResourceContents, ResourceError, Service, Tool,
};

#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct Topic {
    /// What to write about.
    topic: String,
}

/// Ready on its second poll, waking itself: a handler that is not ready
/// at once, as one waiting on I/O is.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

pub fn service(hub: Hub) -> Service {
    Service::builder()
        .notifications(Notifications::default().tools_list_changed().resource_updates())
        .hub(hub)
        .tool(Tool::new("greet", "Asks for a name"), |_: NoArgs, ctx: Context| async move {
            match ctx.elicitation("who").and_then(|r| r.content_as::<Name>()) {
                Some(n) => Reply::Complete(CallToolResult::text(format!("Hello, {}!", n.name))),
                None => InputRequired::new()
                    .elicit(
                        "who",
                        ElicitRequest::form(
                            "What is your name?",
                            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
                        ),
                    )
                    .into(),
            }
        })
        .tool(Tool::new("count", "Counts to three"), |_: NoArgs, ctx: Context| async move {
            for i in 1..=3 {
                YieldOnce(false).await;
                ctx.progress(f64::from(i), Some(3.0), None);
            }
            CallToolResult::text("done")
        })
        .tool(Tool::new("forever", "Never answers"), |_: NoArgs, _: Context| async {
            std::future::pending::<CallToolResult>().await
        })
        .resource(Resource::new("mem://note", "note"), |args: ResourceArgs, _: Context| async move {
            Ok::<_, ResourceError>(ReadResourceResult::new(vec![ResourceContents::text(
                args.uri,
                "text/plain",
                "remember",
            )]))
        })
        .resource(Resource::new("mem://gone", "gone"), |_: ResourceArgs, _: Context| async {
            Err::<ReadResourceResult, _>(ResourceError::NotFound)
        })
        .prompt(Prompt::new("essay", "Write an essay"), |t: Topic, _: Context| async move {
            Ok(GetPromptResult::new(vec![PromptMessage::user(snodo_proto::Content::text(
                format!("Write about {}.", t.topic),
            ))]))
        })
        .build()
        .unwrap()
}
