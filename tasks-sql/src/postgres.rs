//! Tasks in PostgreSQL: the store replicas share.
//!
//! Every change is one transaction that reads the task's row `FOR UPDATE`
//! (a row lock: any other replica's change to the same task waits for
//! this one to commit), applies the engine's rule and writes the row back
//! with `UPDATE … WHERE id = $1 AND generation = $n`. Claims, renewals,
//! fenced commits, accepted input and cancellations are therefore atomic
//! in the database across every process that shares it, and a worker
//! whose claim another replica took over is fenced out by the generation
//! it holds. Reaping is one `DELETE … RETURNING`. Tasks live in a schema
//! of their own (default [`DEFAULT_SCHEMA`]), migrated at start-up under an
//! advisory lock ([`crate::migrate`]).
//!
//! The client is `tokio-postgres`, pooled by `deadpool-postgres`, on a
//! tokio runtime of one worker thread that the store owns: sockets live
//! there whatever runtime the application uses (tokio, smol, or none). A
//! call waits for its database round trips on the calling thread, so the
//! store says [`Store::is_blocking`] and the engine calls it from its own
//! I/O threads, never from a connection's loop or an executor. A call made
//! from inside some tokio runtime anyway is moved to a scoped thread
//! rather than panicking.
//!
//! A database that is down, restarting or out of connections fails calls
//! with [`StoreErrorKind::Unavailable`] within [`CALL_TIMEOUT`]; the pool
//! drops connections the server closed and opens new ones on the next
//! call, so service resumes once the database is back without restarting
//! the process. Connections are plain TCP or Unix sockets (no TLS).

use std::future::Future;
use std::str::FromStr;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, PoolError, RecyclingMethod, Runtime};
use snodo_tasks::{Store, StoreError, StoreErrorKind, TaskId, TaskRecord};
use tokio_postgres::error::SqlState;
use tokio_postgres::NoTls;

use crate::migrate::{self, Migration};
use crate::row::{self, int, Row};

/// The schema tasks live in unless told otherwise.
pub const DEFAULT_SCHEMA: &str = "snodo_tasks";

/// The longest one store call waits for the database (connection,
/// queries, commit) before failing with [`StoreErrorKind::Unavailable`].
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections the pool keeps at most (see [`PgStore::connect_with`]).
pub const DEFAULT_POOL_SIZE: usize = 8;

/// The schema, in version order; `{schema}` is the quoted schema name.
const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    description: "tasks with claim and expiry columns",
    sql: "CREATE TABLE {schema}.tasks (
            id TEXT PRIMARY KEY,
            principal TEXT NOT NULL,
            status TEXT NOT NULL,
            generation BIGINT NOT NULL,
            lease_until_ms BIGINT,
            expires_at_ms BIGINT,
            runnable BOOLEAN NOT NULL,
            record TEXT NOT NULL
          );
          CREATE INDEX tasks_runnable ON {schema}.tasks (lease_until_ms) WHERE runnable;
          CREATE INDEX tasks_expiry ON {schema}.tasks (expires_at_ms) WHERE expires_at_ms IS NOT NULL;",
}];

/// The statements, with the schema filled in once.
#[derive(Debug)]
struct Sql {
    table: String,
    insert: String,
    get: String,
    lock: String,
    write: String,
    remove: String,
    ids: String,
    count: String,
    candidates: String,
    reap: String,
}

impl Sql {
    fn new(schema: &str) -> Sql {
        let t = format!("\"{schema}\".tasks");
        Sql {
            insert: format!(
                "INSERT INTO {t} (id, principal, status, generation, lease_until_ms, expires_at_ms, runnable, record)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
            ),
            get: format!("SELECT record FROM {t} WHERE id = $1"),
            lock: format!("SELECT record FROM {t} WHERE id = $1 FOR UPDATE"),
            write: format!(
                "UPDATE {t} SET principal = $2, status = $3, generation = $4, lease_until_ms = $5,
                    expires_at_ms = $6, runnable = $7, record = $8
                 WHERE id = $1 AND generation = $9"
            ),
            remove: format!("DELETE FROM {t} WHERE id = $1"),
            ids: format!("SELECT id FROM {t} ORDER BY id"),
            count: format!("SELECT COUNT(*) FROM {t}"),
            candidates: format!(
                "SELECT id FROM {t} WHERE runnable
                   AND (lease_until_ms IS NULL OR lease_until_ms <= $1)
                   AND (expires_at_ms IS NULL OR expires_at_ms > $1)
                 LIMIT 256"
            ),
            reap: format!(
                "DELETE FROM {t} WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= $1 RETURNING id"
            ),
            table: t,
        }
    }
}

/// A [`Store`] in a PostgreSQL database.
pub struct PgStore {
    /// `Some` until dropped.
    runtime: Option<tokio::runtime::Runtime>,
    pool: Pool,
    schema: String,
    sql: Sql,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("schema", &self.schema)
            .finish()
    }
}

fn unavailable(detail: impl Into<String>) -> StoreError {
    StoreError::new(StoreErrorKind::Unavailable, None, detail)
}

fn db(what: &str, e: tokio_postgres::Error) -> StoreError {
    let retry = e.is_closed()
        || e.code().is_none()
        || e.code().is_some_and(|c| {
            c.code().starts_with("08")
                || [
                    SqlState::ADMIN_SHUTDOWN,
                    SqlState::CRASH_SHUTDOWN,
                    SqlState::CANNOT_CONNECT_NOW,
                    SqlState::T_R_SERIALIZATION_FAILURE,
                    SqlState::T_R_DEADLOCK_DETECTED,
                    SqlState::TOO_MANY_CONNECTIONS,
                ]
                .contains(c)
        });
    let kind = if retry {
        StoreErrorKind::Unavailable
    } else {
        StoreErrorKind::Io
    };
    StoreError::new(kind, None, format!("{what}: {e}"))
}

fn pool_error(e: PoolError) -> StoreError {
    match e {
        PoolError::Backend(e) => db("cannot connect to the database", e),
        other => unavailable(format!("no database connection: {other}")),
    }
}

/// `url` without its `schema=` query parameter, and that parameter.
fn split_schema(url: &str) -> (String, Option<String>) {
    take_param(url, "schema")
}

/// `url` without its `name=` query parameter, and that parameter's value
/// (parameters of snodo's own, which PostgreSQL would refuse).
pub(crate) fn take_param(url: &str, name: &str) -> (String, Option<String>) {
    let prefix = format!("{name}=");
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_owned(), None);
    };
    let mut schema = None;
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| match p.strip_prefix(prefix.as_str()) {
            Some(name) => {
                schema = Some(name.to_owned());
                false
            }
            None => true,
        })
        .collect();
    let url = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    (url, schema)
}

/// Whether `name` is a plain schema name (quoted as is in statements).
pub(crate) fn plain(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b == b'_')
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && name.len() <= 63
}

impl PgStore {
    /// Connect to the database at `url` (`postgres://user@host:port/db`),
    /// keeping tasks in the schema its `schema` query parameter names
    /// (`…/db?schema=app_tasks`), else [`DEFAULT_SCHEMA`]. Every other
    /// parameter is PostgreSQL's own.
    pub fn connect(url: &str) -> Result<PgStore, StoreError> {
        let (url, schema) = split_schema(url);
        Self::connect_with(
            &url,
            schema.as_deref().unwrap_or(DEFAULT_SCHEMA),
            DEFAULT_POOL_SIZE,
        )
    }

    /// Connect to `url`, keeping tasks in `schema` (created if missing;
    /// lowercase letters, digits and `_`), with at most `pool_size`
    /// connections. The schema is migrated before this returns.
    pub fn connect_with(url: &str, schema: &str, pool_size: usize) -> Result<PgStore, StoreError> {
        if !plain(schema) {
            return Err(StoreError::new(
                StoreErrorKind::Io,
                None,
                format!("schema {schema:?}: use lowercase letters, digits and _ (at most 63)"),
            ));
        }
        let mut config = tokio_postgres::Config::from_str(url).map_err(|e| {
            StoreError::new(
                StoreErrorKind::Io,
                None,
                format!("not a PostgreSQL URL: {e}"),
            )
        })?;
        if config.get_application_name().is_none() {
            // Its sessions, told apart in pg_stat_activity.
            config.application_name(format!("snodo-tasks:{schema}"));
        }
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                // A connection the server closed is dropped and replaced
                // when next taken from the pool.
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(pool_size.max(1))
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(CALL_TIMEOUT))
            .create_timeout(Some(CALL_TIMEOUT))
            .recycle_timeout(Some(CALL_TIMEOUT))
            .build()
            .map_err(|e| unavailable(format!("cannot build the connection pool: {e}")))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("snodo-tasks-pg")
            .enable_all()
            .build()
            .map_err(|e| {
                StoreError::new(
                    StoreErrorKind::Io,
                    None,
                    format!("cannot start the database thread: {e}"),
                )
            })?;
        let store = PgStore {
            runtime: Some(runtime),
            pool,
            schema: schema.to_owned(),
            sql: Sql::new(schema),
        };
        store.migrate()?;
        Ok(store)
    }

    /// The schema the tasks live in.
    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// Run `call` to its end on the store's runtime, waiting on this
    /// thread, within [`CALL_TIMEOUT`].
    fn run<'a, T: Send>(
        &'a self,
        call: impl Future<Output = Result<T, StoreError>> + Send + 'a,
    ) -> Result<T, StoreError> {
        let Some(runtime) = self.runtime.as_ref() else {
            return Err(unavailable("the store is shut down"));
        };
        let timed = async {
            tokio::time::timeout(CALL_TIMEOUT, call)
                .await
                .unwrap_or_else(|_| Err(unavailable("the database did not answer in time")))
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            // Inside some tokio runtime a block_on would panic: wait on a
            // thread of our own instead (the engine never calls us here).
            return std::thread::scope(|s| {
                s.spawn(|| runtime.block_on(timed))
                    .join()
                    .unwrap_or_else(|_| Err(unavailable("a database call panicked")))
            });
        }
        runtime.block_on(timed)
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let schema = format!("\"{}\"", self.schema);
        let lock_key = format!("snodo_tasks:{}", self.schema);
        let place = format!("schema {}", self.schema);
        self.run(async {
            let mut client = self.pool.get().await.map_err(pool_error)?;
            let tx = client
                .transaction()
                .await
                .map_err(|e| db("cannot begin the migration", e))?;
            // Replicas starting together take turns here.
            tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&lock_key])
                .await
                .map_err(|e| db("cannot take the migration lock", e))?;
            tx.batch_execute(&format!(
                "CREATE SCHEMA IF NOT EXISTS {schema};
                 CREATE TABLE IF NOT EXISTS {schema}.snodo_migrations (
                    version BIGINT PRIMARY KEY,
                    description TEXT NOT NULL,
                    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                 )"
            ))
            .await
            .map_err(|e| db("cannot create the migrations table", e))?;
            let current: i64 = tx
                .query_one(
                    &format!("SELECT COALESCE(MAX(version), 0) FROM {schema}.snodo_migrations"),
                    &[],
                )
                .await
                .map_err(|e| db("cannot read the schema version", e))?
                .get(0);
            for m in migrate::pending(MIGRATIONS, current, &place)? {
                tx.batch_execute(&m.sql.replace("{schema}", &schema))
                    .await
                    .map_err(|e| db("cannot apply a migration", e))?;
                tx.execute(
                    &format!(
                        "INSERT INTO {schema}.snodo_migrations (version, description) VALUES ($1, $2)"
                    ),
                    &[&m.version, &m.description],
                )
                .await
                .map_err(|e| db("cannot record a migration", e))?;
                tracing::info!(schema = %self.schema, version = m.version, "task store schema migrated");
            }
            tx.commit()
                .await
                .map_err(|e| db("cannot commit the migrations", e))
        })
    }

    fn ids_where(&self, sql: &str, at: Option<i64>) -> Result<Vec<TaskId>, StoreError> {
        let rows = self.run(async {
            let client = self.pool.get().await.map_err(pool_error)?;
            let stmt = client
                .prepare_cached(sql)
                .await
                .map_err(|e| db("cannot prepare a query", e))?;
            match at {
                Some(t) => client.query(&stmt, &[&t]).await,
                None => client.query(&stmt, &[]).await,
            }
            .map_err(|e| db("cannot list tasks", e))
        })?;
        rows.iter()
            .map(|r| row::task_id(r.get(0), &self.sql.table))
            .collect()
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        self.pool.close();
        if let Some(rt) = self.runtime.take() {
            // Never blocks, so a store may be dropped anywhere.
            rt.shutdown_background();
        }
    }
}

impl Store for PgStore {
    fn create(&self, record: &TaskRecord) -> Result<(), StoreError> {
        let r = Row::of(record)?;
        self.run(async {
            let client = self.pool.get().await.map_err(pool_error)?;
            let stmt = client
                .prepare_cached(&self.sql.insert)
                .await
                .map_err(|e| db("cannot prepare an insert", e))?;
            let done = client
                .execute(
                    &stmt,
                    &[
                        &r.id,
                        &r.principal,
                        &r.status,
                        &r.generation,
                        &r.lease_until_ms,
                        &r.expires_at_ms,
                        &r.runnable,
                        &r.record,
                    ],
                )
                .await;
            match done {
                Err(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                    Err(row::exists(&record.id))
                }
                other => other.map(drop).map_err(|e| db("cannot insert a task", e)),
            }
        })
    }

    fn get(&self, id: &TaskId) -> Result<Option<TaskRecord>, StoreError> {
        let json: Option<String> = self.run(async {
            let client = self.pool.get().await.map_err(pool_error)?;
            let stmt = client
                .prepare_cached(&self.sql.get)
                .await
                .map_err(|e| db("cannot prepare a read", e))?;
            let row = client
                .query_opt(&stmt, &[&id.as_str()])
                .await
                .map_err(|e| db("cannot read a task", e))?;
            Ok(row.map(|r| r.get(0)))
        })?;
        json.map(|j| row::decode(id.as_str(), &j, &self.sql.table))
            .transpose()
    }

    fn update(
        &self,
        id: &TaskId,
        change: &mut dyn FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, StoreError> {
        // One connection holds the transaction; the rule runs on this
        // thread between the row's locked read and its write. If anything
        // fails midway the connection is closed, not pooled, and the
        // server rolls the transaction back.
        let client = self.run(async { self.pool.get().await.map_err(pool_error) })?;
        let held = Held(Some(client));
        let c = held.client();
        let stored = self.run(async {
            c.batch_execute("BEGIN")
                .await
                .map_err(|e| db("cannot begin a change", e))?;
            let lock = c
                .prepare_cached(&self.sql.lock)
                .await
                .map_err(|e| db("cannot prepare a read", e))?;
            let found = c
                .query_opt(&lock, &[&id.as_str()])
                .await
                .map_err(|e| db("cannot lock a task", e))?;
            Ok(found.map(|r| r.get::<_, String>(0)))
        })?;
        let Some(stored) = stored else {
            self.run(end(c, "ROLLBACK"))?;
            held.pool();
            return Ok(None);
        };
        let stored = row::decode(id.as_str(), &stored, &self.sql.table)?;
        let mut next = stored.clone();
        if !change(&mut next) {
            self.run(end(c, "ROLLBACK"))?;
            held.pool();
            return Ok(Some(stored));
        }
        let r = Row::of(&next)?;
        if r.id != id.as_str() {
            return Err(StoreError::new(
                StoreErrorKind::Corrupt,
                None,
                format!("a change to task {id} renamed it"),
            ));
        }
        let n = self.run(async {
            let write = c
                .prepare_cached(&self.sql.write)
                .await
                .map_err(|e| db("cannot prepare a write", e))?;
            c.execute(
                &write,
                &[
                    &r.id,
                    &r.principal,
                    &r.status,
                    &r.generation,
                    &r.lease_until_ms,
                    &r.expires_at_ms,
                    &r.runnable,
                    &r.record,
                    &int(stored.generation),
                ],
            )
            .await
            .map_err(|e| db("cannot write a task", e))
        })?;
        if n != 1 {
            return Err(StoreError::new(
                StoreErrorKind::Corrupt,
                None,
                format!("task {id} changed under its row lock"),
            ));
        }
        self.run(end(c, "COMMIT"))?;
        held.pool();
        Ok(Some(next))
    }

    fn remove(&self, id: &TaskId) -> Result<bool, StoreError> {
        self.run(async {
            let client = self.pool.get().await.map_err(pool_error)?;
            let stmt = client
                .prepare_cached(&self.sql.remove)
                .await
                .map_err(|e| db("cannot prepare a delete", e))?;
            client
                .execute(&stmt, &[&id.as_str()])
                .await
                .map(|n| n > 0)
                .map_err(|e| db("cannot delete a task", e))
        })
    }

    fn ids(&self) -> Result<Vec<TaskId>, StoreError> {
        self.ids_where(&self.sql.ids, None)
    }

    fn len(&self) -> Result<usize, StoreError> {
        let n: i64 = self.run(async {
            let client = self.pool.get().await.map_err(pool_error)?;
            let stmt = client
                .prepare_cached(&self.sql.count)
                .await
                .map_err(|e| db("cannot prepare a count", e))?;
            client
                .query_one(&stmt, &[])
                .await
                .map(|r| r.get(0))
                .map_err(|e| db("cannot count tasks", e))
        })?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    fn claim_candidates(&self, now_ms: u64) -> Result<Vec<TaskId>, StoreError> {
        self.ids_where(&self.sql.candidates, Some(int(now_ms)))
    }

    fn remove_expired(&self, now_ms: u64) -> Result<Vec<TaskId>, StoreError> {
        self.ids_where(&self.sql.reap, Some(int(now_ms)))
    }
}

/// A connection in a transaction: closed when dropped (the server then
/// rolls the transaction back) unless handed back to the pool after the
/// transaction ended.
struct Held(Option<deadpool_postgres::Client>);

impl Held {
    fn client(&self) -> &deadpool_postgres::Client {
        self.0.as_ref().expect("held until pooled")
    }

    /// The transaction ended: the connection may serve another call.
    fn pool(mut self) {
        drop(self.0.take());
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(c) = self.0.take() {
            drop(deadpool_postgres::Object::take(c));
        }
    }
}

async fn end(c: &deadpool_postgres::Client, how: &str) -> Result<(), StoreError> {
    c.batch_execute(how)
        .await
        .map_err(|e| db("cannot end a change", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_parameter_is_taken_out_of_the_url() {
        let split = |u: &str| split_schema(u);
        assert_eq!(split("postgres://h/db"), ("postgres://h/db".into(), None));
        assert_eq!(
            split("postgres://h/db?schema=s1"),
            ("postgres://h/db".into(), Some("s1".into()))
        );
        assert_eq!(
            split("postgres://h/db?connect_timeout=5&schema=s1&application_name=x"),
            (
                "postgres://h/db?connect_timeout=5&application_name=x".into(),
                Some("s1".into())
            )
        );
    }

    #[test]
    fn only_plain_schema_names_are_accepted() {
        for ok in ["snodo_tasks", "_x", "a1"] {
            assert!(plain(ok), "{ok}");
        }
        for bad in ["", "1a", "A", "a-b", "a\"b", &"a".repeat(64)] {
            assert!(!plain(bad), "{bad}");
        }
    }
}
