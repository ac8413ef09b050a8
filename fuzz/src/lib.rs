//! Shared pieces of the fuzz targets. The model of clients, application
//! and clock, and the oracles, are the property tests' own
//! (`proto/tests/machine/`), compiled here unchanged so that the property
//! tests and the fuzzer check the same guarantees.

#[path = "../../proto/tests/machine/mod.rs"]
pub mod machine;

use std::sync::OnceLock;

use snodo_proto::{Hub, Service};

/// The machine fixture, built once per process (building compiles JSON
/// Schemas; every state it holds is per connection or normalized away).
pub fn fixture() -> &'static (Service, Hub) {
    static FIXTURE: OnceLock<(Service, Hub)> = OnceLock::new();
    FIXTURE.get_or_init(machine::fixture::service)
}

/// The machine fixture with messages of up to 64 KiB (the `request_state`
/// target's retries carry a sealed state, arguments and answers that may
/// outgrow the machine's 1 KiB lines).
pub fn roomy_fixture() -> &'static (Service, Hub) {
    static FIXTURE: OnceLock<(Service, Hub)> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        machine::fixture::service_with(machine::fixture::limits().max_message_bytes(64 * 1024))
    })
}
