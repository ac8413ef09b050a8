//! What only the SQLite store does: its schema is versioned and migrated
//! at open (once, recorded), a database a newer build migrated is refused,
//! a file that is not a SQLite database is refused, and it answers from
//! inside any runtime's thread as from a plain one.
#![cfg(feature = "sqlite")]

use std::path::PathBuf;

use snodo_tasks::{Store, StoreErrorKind};
use snodo_tasks_sql::SqliteStore;

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("snodo-sqlite-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn versions(file: &PathBuf) -> Vec<(i64, String)> {
    let conn = rusqlite::Connection::open(file).unwrap();
    let mut stmt = conn
        .prepare("SELECT version, description FROM snodo_migrations ORDER BY version")
        .unwrap();
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

#[test]
fn the_schema_is_migrated_once_and_recorded() {
    let dir = Dir::new("migrate");
    let file = dir.0.join("tasks.db");
    drop(SqliteStore::open(&file).expect("creates and migrates"));
    let recorded = versions(&file);
    assert_eq!(
        recorded,
        vec![(1, String::from("tasks with claim and expiry columns"))]
    );
    // Opening again applies nothing new.
    let store = SqliteStore::open(&file).expect("reopens");
    assert_eq!(versions(&file), recorded);
    assert_eq!(store.len().unwrap(), 0);
}

#[test]
fn a_database_migrated_by_a_newer_build_is_refused() {
    let dir = Dir::new("newer");
    let file = dir.0.join("tasks.db");
    drop(SqliteStore::open(&file).unwrap());
    let conn = rusqlite::Connection::open(&file).unwrap();
    conn.execute(
        "INSERT INTO snodo_migrations (version, description, applied_at_ms) VALUES (2, 'from the future', 0)",
        [],
    )
    .unwrap();
    drop(conn);
    let e = SqliteStore::open(&file).expect_err("refused");
    assert_eq!(e.kind, StoreErrorKind::UnknownFormat);
    assert!(e.to_string().contains("schema version 2"), "{e}");
}

#[test]
fn a_file_that_is_not_a_database_is_refused() {
    let dir = Dir::new("foreign");
    let file = dir.0.join("tasks.db");
    std::fs::write(
        &file,
        b"these are not the tasks you are looking for, nor a database header",
    )
    .unwrap();
    let e = SqliteStore::open(&file).expect_err("refused");
    assert_eq!(e.kind, StoreErrorKind::UnknownFile, "{e}");
    assert_eq!(e.path.as_deref(), Some(file.as_path()));
}

#[test]
fn it_answers_on_a_tokio_worker_and_a_smol_executor_as_on_a_plain_thread() {
    let dir = Dir::new("runtimes");
    let store = std::sync::Arc::new(SqliteStore::open(dir.0.join("tasks.db")).unwrap());
    assert!(store.is_blocking(), "the engine keeps it off executors");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let s = store.clone();
    assert_eq!(rt.block_on(async move { s.len() }).unwrap(), 0);
    let s = store.clone();
    assert_eq!(smol::block_on(async move { s.len() }).unwrap(), 0);
}
