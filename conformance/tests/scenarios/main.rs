//! The fixture driven through `snodo_proto::Connection` directly, checking
//! what each conformance scenario it serves checks
//! (`SCENARIOS-2026-07-28.md` § 3).
//! Requests are literal JSON lines, as a client would write them.

mod harness;

mod caching;
mod completion;
mod mrtr;
mod prompts;
mod resources;
mod tasks;
mod tools;
