//! The vector table: every method and every error class of the 2026-07-28
//! wire, as literal JSON, for the conformance fixture
//! (`snodo_conformance::service()`, `serverInfo` `snodo-fixture` 0.1.0).
//!
//! Messages in `error.message` are frozen exactly as `snodo-proto` words
//! them today; codes, ids and `data` follow the spec sections cited next to
//! each group.

use crate::vector::Vector;

mod admission;
mod completion;
mod discovery;
mod envelope;
mod notifications;
mod prompts;
mod resources;
mod stream;
mod tools;

pub use admission::ADMISSION;
pub use completion::COMPLETION;
pub use discovery::DISCOVERY;
pub use envelope::ENVELOPE;
pub use notifications::NOTIFICATIONS;
pub use prompts::PROMPTS;
pub use resources::RESOURCES;
pub use stream::STREAM;
pub use tools::TOOLS;

/// Every group, in the order they run.
pub const VECTORS: &[&[Vector]] = &[
    DISCOVERY,
    TOOLS,
    RESOURCES,
    PROMPTS,
    COMPLETION,
    ADMISSION,
    ENVELOPE,
    NOTIFICATIONS,
    STREAM,
];

/// All vectors as one list.
pub fn all() -> Vec<Vector> {
    VECTORS.iter().flat_map(|g| g.iter().copied()).collect()
}
