//! The fixture's change source: `server-stateless` opens
//! `subscriptions/listen` streams and calls a trigger tool, expecting the
//! list-changed notification on every stream that asked for it
//! (`conformance/SCENARIOS-2026-07-28.md` § 2.2, `test_trigger_tool_change`
//! and `test_trigger_prompt_change`).
//!
//! The registry itself is fixed when the service is built; the triggers
//! announce a change through the [`Hub`], which is what a real server does
//! after changing what it serves.

use snodo_proto::{CallToolResult, ChangeEvent, Hub, NoArgs, Notifications, ServiceBuilder, Tool};

/// Declare list-changed notifications for tools and prompts, attach `hub`,
/// and register the two trigger tools.
pub fn register(builder: ServiceBuilder, hub: Hub) -> ServiceBuilder {
    let tools_hub = hub.clone();
    let prompts_hub = hub.clone();
    builder
        // `resources-subscribe` (2025-11-25) subscribes to
        // `test://watched-resource`; updates go through the hub.
        .notifications(
            Notifications::default()
                .tools_list_changed()
                .prompts_list_changed()
                .resource_updates(),
        )
        .hub(hub)
        .tool(
            Tool::new(
                "test_trigger_tool_change",
                "Announces a tool list change to subscribed listen streams",
            ),
            move |_: NoArgs| {
                tools_hub.publish(ChangeEvent::ToolsListChanged);
                async { CallToolResult::text("Mutation triggered") }
            },
        )
        .tool(
            Tool::new(
                "test_trigger_prompt_change",
                "Announces a prompt list change to subscribed listen streams",
            ),
            move |_: NoArgs| {
                prompts_hub.publish(ChangeEvent::PromptsListChanged);
                async { CallToolResult::text("Mutation triggered") }
            },
        )
}
