//! # snodo-conformance
//!
//! The fixture server the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) runs against: every tool, resource,
//! template and prompt its server scenarios call, under exactly the names,
//! shapes and texts `conformance/SCENARIOS-2026-07-28.md` § 2 gives, built on
//! [`snodo_proto::Service`]. The `snodo-fixture` binary serves it.
//!
//! The Tasks-extension tools (`tasks.rs`) are served through
//! [`snodo_tasks`]; their tasks live in memory unless the binary is given
//! a store directory (`SNODO_TASKS_DIR`).

#![warn(missing_docs)]

pub mod auth_spec;
mod changes;
pub mod cli;
mod completion;
mod drill;
mod interop;
mod legacy;
mod listen;
pub mod media;
mod mrtr;
mod prompts;
mod resources;
pub mod state_key;
pub mod store_spec;
pub mod tasks;
pub mod timer;
mod tools;

use std::sync::Arc;

use snodo_proto::{BuildError, Implementation, Service, ServiceBuilder, StateKeys};
use snodo_tasks::{MemoryStore, Store};

/// The `serverInfo` name the fixture publishes in every result's `_meta`.
pub const SERVER_NAME: &str = "snodo-fixture";

/// The fixture's builder, fully registered: tools, resources and template,
/// prompts, completer, the Tasks extension (tasks in memory), and logging
/// enabled (so `test_logging_tool`'s messages reach requests that set a
/// `logLevel`).
pub fn builder() -> ServiceBuilder {
    builder_with_tasks(Arc::new(MemoryStore::new()))
}

/// [`builder`] keeping tasks in `tasks` (for example a
/// [`DiskStore`](snodo_tasks::DiskStore), so tasks survive a restart).
pub fn builder_with_tasks(tasks: Arc<dyn Store>) -> ServiceBuilder {
    let b = Service::builder()
        .server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
        .logging();
    let b = tools::register(b);
    let b = changes::register(b, snodo_proto::Hub::default());
    let b = resources::register(b);
    let b = prompts::register(b);
    let b = mrtr::register(b);
    let b = interop::register(b);
    let b = tasks::register(b, tasks);
    let b = legacy::register(b);
    completion::register(b)
}

/// Build the fixture.
pub fn try_service() -> Result<Service, BuildError> {
    builder().build()
}

/// Build the fixture sealing MRTR `requestState` with `keys` (every
/// process that should continue another's rounds needs the same ones).
pub fn try_service_with_keys(keys: Option<StateKeys>) -> Result<Service, BuildError> {
    try_service_with(keys, Arc::new(MemoryStore::new()))
}

/// Build the fixture with request-state `keys` and tasks kept in `tasks`.
pub fn try_service_with(
    keys: Option<StateKeys>,
    tasks: Arc<dyn Store>,
) -> Result<Service, BuildError> {
    match keys {
        Some(k) => builder_with_tasks(tasks).state_keys(k).build(),
        None => builder_with_tasks(tasks).build(),
    }
}

/// Build the fixture. The registry is fixed at compile time, so a failure
/// is a bug in this crate (the unit tests build it), not a runtime condition.
pub fn service() -> Service {
    match try_service() {
        Ok(s) => s,
        Err(e) => panic!("the conformance fixture does not build: {e}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_fixture_builds() {
        let service = super::try_service();
        assert!(service.is_ok(), "{:?}", service.err());
    }
}
