//! `subscriptions/listen` (`basic/patterns/subscriptions.mdx`): change
//! events, the filter a client asks for, and (with `std`) the [`Hub`] that
//! carries application events to every connection's listen streams.
//!
//! The application owns the change source: it publishes protocol-neutral
//! [`ChangeEvent`]s (to a [`Hub`], or straight into a connection with
//! [`Connection::publish`](crate::Connection::publish)). Each connection
//! turns them into notifications on the streams whose filter asked for
//! them, tagged with the stream's `io.modelcontextprotocol/subscriptionId`.

use alloc::string::String;

pub mod filter;
#[cfg(feature = "std")]
pub mod hub;

pub use filter::Filter;
#[cfg(feature = "std")]
pub use hub::{Hub, HubStats, Overflow, Tap};

/// Something changed that listen streams may want to hear about.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChangeEvent {
    /// The tool list changed (`notifications/tools/list_changed`).
    ToolsListChanged,
    /// The prompt list changed (`notifications/prompts/list_changed`).
    PromptsListChanged,
    /// The resource list changed (`notifications/resources/list_changed`).
    ResourcesListChanged,
    /// A resource's contents changed (`notifications/resources/updated`).
    ResourceUpdated {
        /// The resource (or sub-resource) URI.
        uri: String,
    },
    /// An extension's own notification, for the streams that subscribed to
    /// its topic (see [`crate::extension`]).
    Extension(crate::extension::ExtensionEvent),
    /// The out-of-band interaction of a URL-mode elicitation is done
    /// (`notifications/elicitation/complete`, 2025-11-25
    /// `client/elicitation.mdx` § Completion Notifications for URL Mode
    /// Elicitation): sent to the initialize-era session that was sent the
    /// elicitation `elicitation_id`, once, on its GET stream (or its stdio
    /// connection). Publish it when the page at the elicitation's URL has
    /// finished. 2026-07-28 removed the notification: its clients retry
    /// instead, and no listen stream hears it.
    ElicitationComplete {
        /// The [`ElicitRequest`](crate::ElicitRequest)'s elicitation id.
        elicitation_id: String,
    },
}

/// Which change notifications the server declares it can send: the
/// `listChanged` and `subscribe` capabilities. Declare only what the
/// application will actually publish (`server/discover.mdx`: never
/// advertise what the server cannot do).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Notifications {
    /// `tools.listChanged`.
    pub tools_list_changed: bool,
    /// `prompts.listChanged`.
    pub prompts_list_changed: bool,
    /// `resources.listChanged`.
    pub resources_list_changed: bool,
    /// `resources.subscribe`: `resourceSubscriptions` are honoured.
    pub resource_updates: bool,
}

impl Notifications {
    /// Whether anything is declared (the `subscriptions/listen` gate).
    pub fn any(&self) -> bool {
        self.tools_list_changed
            || self.prompts_list_changed
            || self.resources_list_changed
            || self.resource_updates
    }
}

crate::options::flags!(Notifications {
    /// `notifications/tools/list_changed` too.
    tools_list_changed,
    /// `notifications/prompts/list_changed` too.
    prompts_list_changed,
    /// `notifications/resources/list_changed` too.
    resources_list_changed,
    /// `notifications/resources/updated` too (and, in the initialize-era
    /// revisions, `resources/subscribe`).
    resource_updates,
});
