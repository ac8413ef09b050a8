//! Tasks in a SQLite database file: the embedded store for one node,
//! durable across crashes, shared by the processes that open the file.
//!
//! Every change is one transaction begun `IMMEDIATE`, which takes the
//! database's write lock before it reads: the task is read, changed by the
//! engine's rule and written back with `UPDATE … WHERE id = ? AND
//! generation = ?` while no other connection of any process can write.
//! Claims, renewals, fenced commits, accepted input and cancellations are
//! therefore atomic in the database, not behind a lock of one process;
//! reaping is one `DELETE … RETURNING`. The file runs in WAL mode with
//! `synchronous = FULL`: a change that returned is on disk, and readers
//! never wait for a writer. A writer waits up to [`BUSY_TIMEOUT`] for
//! another's lock, then fails with [`StoreErrorKind::Unavailable`].
//!
//! Calls block (file I/O, fsync, another process's lock), so the store
//! says [`Store::is_blocking`] and the engine runs it on its own I/O
//! threads, never on a connection's loop or an executor; it works the
//! same under tokio, smol and the blocking adapter.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{ffi, params, Connection, ErrorCode, OpenFlags, OptionalExtension};
use snodo_tasks::{Store, StoreError, StoreErrorKind, TaskId, TaskRecord};

use crate::migrate::{self, Migration};
use crate::row::{self, int, Row};

/// How long a write waits for another connection's lock.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Idle connections kept for the next call; more are opened while more
/// threads call at once, and closed when returned beyond this.
const MAX_IDLE: usize = 8;

/// The schema, in version order (see [`crate::migrate`]).
const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    description: "tasks with claim and expiry columns",
    sql: "CREATE TABLE tasks (
            id TEXT PRIMARY KEY NOT NULL,
            principal TEXT NOT NULL,
            status TEXT NOT NULL,
            generation INTEGER NOT NULL,
            lease_until_ms INTEGER,
            expires_at_ms INTEGER,
            runnable INTEGER NOT NULL,
            record TEXT NOT NULL
          );
          CREATE INDEX tasks_runnable ON tasks (lease_until_ms) WHERE runnable = 1;
          CREATE INDEX tasks_expiry ON tasks (expires_at_ms) WHERE expires_at_ms IS NOT NULL;",
}];

/// A [`Store`] in a SQLite database file.
pub struct SqliteStore {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish()
    }
}

fn error(path: &Path, what: &str, e: rusqlite::Error) -> StoreError {
    let kind = match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreErrorKind::Unavailable,
        Some(ErrorCode::NotADatabase) => StoreErrorKind::UnknownFile,
        Some(ErrorCode::DatabaseCorrupt) => StoreErrorKind::Corrupt,
        _ => StoreErrorKind::Io,
    };
    StoreError::new(kind, Some(path.to_path_buf()), format!("{what}: {e}"))
}

fn now_ms() -> i64 {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    i64::try_from(ms).unwrap_or(i64::MAX)
}

impl SqliteStore {
    /// Open (creating it if missing) the database at `path` and bring its
    /// schema to this build's version. Refuses a file that is not a SQLite
    /// database and one whose schema a newer build wrote.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let store = SqliteStore {
            path: path.as_ref().to_path_buf(),
            idle: Mutex::new(Vec::new()),
        };
        let mut conn = store.connect()?;
        store.migrate(&mut conn)?;
        store.lock().push(conn);
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Connection>> {
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn connect(&self) -> Result<Connection, StoreError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let err = |what, e| error(&self.path, what, e);
        let conn = Connection::open_with_flags(&self.path, flags)
            .map_err(|e| err("cannot open the database", e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| err("cannot set the busy timeout", e))?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(|e| err("cannot switch to WAL", e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::new(
                StoreErrorKind::Io,
                Some(self.path.clone()),
                format!("the database stays in journal mode {mode:?}, not WAL"),
            ));
        }
        conn.execute_batch("PRAGMA synchronous = FULL")
            .map_err(|e| err("cannot set synchronous = FULL", e))?;
        Ok(conn)
    }

    fn migrate(&self, conn: &mut Connection) -> Result<(), StoreError> {
        let err = |what, e| error(&self.path, what, e);
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| err("cannot lock the database to migrate", e))?;
        tx.execute_batch(
            "CREATE TABLE IF NOT EXISTS snodo_migrations (
                version INTEGER PRIMARY KEY NOT NULL,
                description TEXT NOT NULL,
                applied_at_ms INTEGER NOT NULL
            )",
        )
        .map_err(|e| err("cannot create the migrations table", e))?;
        let current: i64 = tx
            .query_row(
                "SELECT COALESCE(MAX(version), 0) FROM snodo_migrations",
                [],
                |r| r.get(0),
            )
            .map_err(|e| err("cannot read the schema version", e))?;
        let place = self.path.display().to_string();
        for m in migrate::pending(MIGRATIONS, current, &place)? {
            tx.execute_batch(m.sql)
                .map_err(|e| err("cannot apply a migration", e))?;
            tx.execute(
                "INSERT INTO snodo_migrations (version, description, applied_at_ms) VALUES (?1, ?2, ?3)",
                params![m.version, m.description, now_ms()],
            )
            .map_err(|e| err("cannot record a migration", e))?;
            tracing::info!(path = %place, version = m.version, "task store schema migrated");
        }
        tx.commit()
            .map_err(|e| err("cannot commit the migrations", e))
    }

    /// Run `f` on a connection of this store's (an idle one, or a new one).
    fn with<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let taken = self.lock().pop();
        let mut conn = match taken {
            Some(c) => c,
            None => self.connect()?,
        };
        let out = f(&mut conn);
        let mut idle = self.lock();
        if idle.len() < MAX_IDLE {
            idle.push(conn);
        }
        out
    }

    fn err(&self, what: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        let what = what.to_owned();
        move |e| error(&self.path, &what, e)
    }
}

const TABLE: &str = "tasks";

impl Store for SqliteStore {
    fn create(&self, record: &TaskRecord) -> Result<(), StoreError> {
        let row = Row::of(record)?;
        self.with(|c| {
            let done = c.execute(
                "INSERT INTO tasks (id, principal, status, generation, lease_until_ms, expires_at_ms, runnable, record)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    row.id,
                    row.principal,
                    row.status,
                    row.generation,
                    row.lease_until_ms,
                    row.expires_at_ms,
                    row.runnable,
                    row.record
                ],
            );
            match done {
                Err(rusqlite::Error::SqliteFailure(f, _))
                    if f.extended_code == ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
                {
                    Err(row::exists(&record.id))
                }
                other => other.map(drop).map_err(self.err("cannot insert a task")),
            }
        })
    }

    fn get(&self, id: &TaskId) -> Result<Option<TaskRecord>, StoreError> {
        let json: Option<String> = self.with(|c| {
            c.query_row(
                "SELECT record FROM tasks WHERE id = ?1",
                [id.as_str()],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.err("cannot read a task"))
        })?;
        json.map(|j| row::decode(id.as_str(), &j, TABLE))
            .transpose()
    }

    fn update(
        &self,
        id: &TaskId,
        change: &mut dyn FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, StoreError> {
        self.with(|c| {
            // IMMEDIATE: the write lock before the read, so nothing changes
            // the task between the two.
            let tx = c
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(self.err("cannot begin a change"))?;
            let json: Option<String> = tx
                .query_row(
                    "SELECT record FROM tasks WHERE id = ?1",
                    [id.as_str()],
                    |r| r.get(0),
                )
                .optional()
                .map_err(self.err("cannot read a task"))?;
            let Some(json) = json else {
                return Ok(None);
            };
            let stored = row::decode(id.as_str(), &json, TABLE)?;
            let mut next = stored.clone();
            if !change(&mut next) {
                return Ok(Some(stored));
            }
            let row = Row::of(&next)?;
            if row.id != id.as_str() {
                return Err(StoreError::new(
                    StoreErrorKind::Corrupt,
                    Some(self.path.clone()),
                    format!("a change to task {id} renamed it"),
                ));
            }
            let n = tx
                .execute(
                    "UPDATE tasks SET principal = ?2, status = ?3, generation = ?4,
                        lease_until_ms = ?5, expires_at_ms = ?6, runnable = ?7, record = ?8
                     WHERE id = ?1 AND generation = ?9",
                    params![
                        row.id,
                        row.principal,
                        row.status,
                        row.generation,
                        row.lease_until_ms,
                        row.expires_at_ms,
                        row.runnable,
                        row.record,
                        int(stored.generation)
                    ],
                )
                .map_err(self.err("cannot write a task"))?;
            if n != 1 {
                return Err(StoreError::new(
                    StoreErrorKind::Corrupt,
                    Some(self.path.clone()),
                    format!("task {id} changed under the write lock"),
                ));
            }
            tx.commit().map_err(self.err("cannot commit a change"))?;
            Ok(Some(next))
        })
    }

    fn remove(&self, id: &TaskId) -> Result<bool, StoreError> {
        self.with(|c| {
            c.execute("DELETE FROM tasks WHERE id = ?1", [id.as_str()])
                .map(|n| n > 0)
                .map_err(self.err("cannot delete a task"))
        })
    }

    fn ids(&self) -> Result<Vec<TaskId>, StoreError> {
        self.query_ids("SELECT id FROM tasks ORDER BY id", None)
    }

    fn len(&self) -> Result<usize, StoreError> {
        let n: i64 = self.with(|c| {
            c.query_row("SELECT COUNT(*) FROM tasks", [], |r| r.get(0))
                .map_err(self.err("cannot count tasks"))
        })?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    fn claim_candidates(&self, now_ms: u64) -> Result<Vec<TaskId>, StoreError> {
        self.query_ids(
            "SELECT id FROM tasks WHERE runnable = 1
               AND (lease_until_ms IS NULL OR lease_until_ms <= ?1)
               AND (expires_at_ms IS NULL OR expires_at_ms > ?1)
             LIMIT 256",
            Some(int(now_ms)),
        )
    }

    fn remove_expired(&self, now_ms: u64) -> Result<Vec<TaskId>, StoreError> {
        self.query_ids(
            "DELETE FROM tasks WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= ?1 RETURNING id",
            Some(int(now_ms)),
        )
    }
}

impl SqliteStore {
    fn query_ids(&self, sql: &str, at: Option<i64>) -> Result<Vec<TaskId>, StoreError> {
        let ids: Vec<String> = self.with(|c| {
            let mut stmt = c
                .prepare_cached(sql)
                .map_err(self.err("cannot prepare a query"))?;
            let rows = stmt
                .query_map(rusqlite::params_from_iter(at), |r| r.get(0))
                .map_err(self.err("cannot list tasks"))?;
            rows.collect::<Result<_, _>>()
                .map_err(self.err("cannot list tasks"))
        })?;
        ids.iter().map(|id| row::task_id(id, TABLE)).collect()
    }
}
