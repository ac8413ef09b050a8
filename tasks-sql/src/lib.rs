//! # snodo-tasks-sql
//!
//! [`Store`](snodo_tasks::Store)s for the Tasks extension on real
//! databases, behind the same contract as `snodo-tasks`'s memory and disk
//! stores:
//!
//! - [`SqliteStore`] (feature `sqlite`, on by default): the embedded store
//!   for one node, in one file; SQLite is compiled in.
//! - [`PgStore`] (feature `postgres`): the store replicas share.
//! - [`PgBus`] (feature `postgres`): carries change events (task status,
//!   list changes, resource updates) between the hubs of replicas over
//!   PostgreSQL `LISTEN/NOTIFY`.
//!
//! The lifecycle's rules stay in [`snodo_tasks::Engine`], once; what a
//! database store adds is that every change the engine makes (a claim, a
//! renewal, a fenced commit, accepted input, a cancellation) is one
//! database transaction that locks the task while the rule runs and
//! writes it back only if its claim generation is still the one read, and
//! that reaping and the search for claimable work run as single
//! statements over indexed columns. Nothing relies on a lock inside one
//! process, so processes sharing a database keep the rules between them.
//!
//! Each store migrates its schema at start-up ([`migrate`]). Both block on
//! I/O and say so ([`Store::is_blocking`](snodo_tasks::Store::is_blocking)):
//! the engine calls them from its own I/O threads, whichever runtime
//! serves the connections.
//!
//! ```no_run
//! # #[cfg(feature = "sqlite")] {
//! use snodo_tasks::Tasks;
//! let store = snodo_tasks_sql::SqliteStore::open("/var/lib/app/tasks.db").unwrap();
//! let tasks = Tasks::new(store).build();
//! # drop(tasks); }
//! ```

#![warn(missing_docs)]
// docs.rs (`--cfg docsrs`) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "postgres")]
pub mod bus;
pub mod migrate;
#[cfg(feature = "postgres")]
mod postgres;
mod row;
#[cfg(feature = "sqlite")]
mod sqlite;

#[cfg(feature = "postgres")]
pub use bus::{BusError, BusStats, PgBus};
#[cfg(feature = "postgres")]
pub use postgres::{PgStore, CALL_TIMEOUT, DEFAULT_POOL_SIZE, DEFAULT_SCHEMA};
#[cfg(feature = "sqlite")]
pub use sqlite::{SqliteStore, BUSY_TIMEOUT};
