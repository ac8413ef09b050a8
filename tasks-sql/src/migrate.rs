//! Versioned schema migrations, applied at start-up.
//!
//! Each store keeps a table `snodo_migrations (version, description,
//! applied_at_ms)` next to its tasks, and a list of [`Migration`]s in
//! version order. Opening a store applies, each in its own transaction
//! together with its row in that table, every migration newer than the
//! highest version recorded, while holding the database's lock for
//! migrations (SQLite's write lock, a PostgreSQL advisory lock), so
//! replicas starting together apply each exactly once. A database
//! recorded at a version this build does not know was written by a newer
//! build, and is refused rather than used.

use snodo_tasks::{StoreError, StoreErrorKind};

/// One step of the schema.
#[derive(Debug)]
pub struct Migration {
    /// Its number: 1, 2, … with no gaps.
    pub version: i64,
    /// What it does, recorded with it.
    pub description: &'static str,
    /// The statements, `{schema}` standing for the store's schema or
    /// table prefix.
    pub sql: &'static str,
}

/// The migrations newer than `current`, or an error if the database is
/// newer than every migration this build has.
pub(crate) fn pending<'a>(
    all: &'a [Migration],
    current: i64,
    place: &str,
) -> Result<&'a [Migration], StoreError> {
    let newest = all.last().map_or(0, |m| m.version);
    if current > newest {
        return Err(StoreError::new(
            StoreErrorKind::UnknownFormat,
            None,
            format!(
                "{place} is at schema version {current}; this build knows versions up to {newest}"
            ),
        ));
    }
    let from = all.partition_point(|m| m.version <= current);
    Ok(&all[from..])
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[Migration] = &[
        Migration {
            version: 1,
            description: "one",
            sql: "",
        },
        Migration {
            version: 2,
            description: "two",
            sql: "",
        },
    ];

    #[test]
    fn only_newer_migrations_are_pending_and_a_newer_database_is_refused() {
        let versions = |c| {
            pending(ALL, c, "db")
                .map(|p| p.iter().map(|m| m.version).collect::<Vec<_>>())
                .map_err(|e| e.kind)
        };
        assert_eq!(versions(0), Ok(vec![1, 2]));
        assert_eq!(versions(1), Ok(vec![2]));
        assert_eq!(versions(2), Ok(vec![]));
        assert_eq!(versions(3), Err(StoreErrorKind::UnknownFormat));
    }
}
