//! Which task store the fixture keeps its tasks in, from `--tasks-store`:
//! `memory`, `disk:PATH` (a [`DiskStore`] directory), `sqlite:PATH` (a
//! [`SqliteStore`] file) or a `postgres://…` / `postgresql://…` URL (a
//! [`PgStore`], shared by replicas). Without the flag,
//! [`crate::tasks::store_from_env`] decides (`SNODO_TASKS_DIR`, else
//! memory).

use std::path::PathBuf;
use std::sync::Arc;

use snodo_tasks::{DiskStore, MemoryStore, Store, StoreError};
use snodo_tasks_sql::{PgStore, SqliteStore};

/// A task store named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreSpec {
    /// In memory, gone with the process.
    Memory,
    /// A [`DiskStore`] in this directory.
    Disk(PathBuf),
    /// A [`SqliteStore`] in this file.
    Sqlite(PathBuf),
    /// A [`PgStore`] at this URL.
    Postgres(String),
}

impl StoreSpec {
    /// Parse a `--tasks-store` value; `Err` says what is accepted.
    pub fn parse(value: &str) -> Result<StoreSpec, String> {
        let non_empty = |rest: &str| {
            (!rest.is_empty())
                .then(|| PathBuf::from(rest))
                .ok_or_else(|| format!("{value:?} names no path"))
        };
        if value == "memory" {
            Ok(StoreSpec::Memory)
        } else if let Some(rest) = value.strip_prefix("disk:") {
            non_empty(rest).map(StoreSpec::Disk)
        } else if let Some(rest) = value.strip_prefix("sqlite:") {
            non_empty(rest).map(StoreSpec::Sqlite)
        } else if value.starts_with("postgres://") || value.starts_with("postgresql://") {
            Ok(StoreSpec::Postgres(value.to_owned()))
        } else {
            Err(format!(
                "--tasks-store must be memory, disk:PATH, sqlite:PATH or postgres://…, got {value:?}"
            ))
        }
    }

    /// Open the store (for a disk store, with the crash drill's hook if
    /// one is armed).
    pub fn open(&self) -> Result<Arc<dyn Store>, StoreError> {
        Ok(match self {
            StoreSpec::Memory => Arc::new(MemoryStore::new()),
            StoreSpec::Disk(dir) => {
                let mut store = DiskStore::open(dir)?;
                if let Some(hook) = crate::drill::from_env() {
                    store = store.with_fault_hook(hook);
                }
                tracing::info!(dir = %dir.display(), "tasks kept on disk");
                Arc::new(store)
            }
            StoreSpec::Sqlite(file) => {
                let store = SqliteStore::open(file)?;
                tracing::info!(file = %file.display(), "tasks kept in SQLite");
                Arc::new(store)
            }
            StoreSpec::Postgres(url) => {
                let store = PgStore::connect(url)?;
                tracing::info!(schema = store.schema(), "tasks kept in PostgreSQL");
                Arc::new(store)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_and_anything_else_is_refused() {
        assert_eq!(StoreSpec::parse("memory"), Ok(StoreSpec::Memory));
        assert_eq!(
            StoreSpec::parse("disk:/var/tasks"),
            Ok(StoreSpec::Disk(PathBuf::from("/var/tasks")))
        );
        assert_eq!(
            StoreSpec::parse("sqlite:tasks.db"),
            Ok(StoreSpec::Sqlite(PathBuf::from("tasks.db")))
        );
        for url in [
            "postgres://postgres@127.0.0.1:5432/test",
            "postgresql://db/x",
        ] {
            assert_eq!(StoreSpec::parse(url), Ok(StoreSpec::Postgres(url.into())));
        }
        for bad in ["", "disk:", "sqlite:", "Memory", "mysql://db", "/var/tasks"] {
            assert!(StoreSpec::parse(bad).is_err(), "{bad:?} refused");
        }
    }
}
