//! # snodo-crates
//!
//! An MCP server that knows the Rust crates on this machine: it reads the
//! local cargo registry cache (`$CARGO_HOME/registry`), where cargo unpacks
//! every crate version a build ever used, and answers from it with no
//! network. Versions cargo downloaded but did not unpack are read from
//! their `.crate` archives ([`archive`]).
//!
//! - **Tools:** `search_crates` (by name, keyword, description),
//!   `crate_info` (versions, features, dependencies), `find_in_crate` (a
//!   piece of text, or where an item is defined), `compare_versions` (the
//!   public items and features two versions differ by), `index_cache`
//!   (re-read the whole cache, with progress; a Task for clients that ask).
//! - **Resources:** `crates://{name}/{version}/readme` and
//!   `crates://{name}/{version}/file/{+path}`.
//! - **Prompt:** `review_upgrade`, a dependency upgrade review.
//! - **Change notifications:** a watcher re-reads the cache when it changes
//!   and publishes `notifications/resources/updated` for each README
//!   whose crate version appeared, changed or went away.
//!
//! [`serve::serve`] runs the service on stdio or Streamable HTTP with its
//! tasks runner and watcher: the binary is its arguments and that call.
//!
//! It is built on the public API of `snodo-proto` only: typed tools whose
//! schemas come from their Rust types, the application state handed to
//! every handler, no hand-written JSON Schema.

pub mod archive;
pub mod cache;
pub mod serve;
pub mod service;
pub mod source;
pub mod watch;

pub use service::{builder, service, service_with_tasks, with_tasks, App};
