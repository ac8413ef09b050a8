//! What only the PostgreSQL store does: its schema is versioned and
//! migrated at start-up under an advisory lock (replicas starting at once
//! apply each migration once), a schema a newer build migrated is
//! refused, a bad schema name is refused before any SQL, a database that
//! cannot be reached fails calls as `Unavailable` within the call timeout,
//! and it answers from inside a tokio runtime or a smol executor as from a
//! plain thread (its client runs on a runtime of its own). The tests that
//! need a database run when `SNODO_TEST_POSTGRES` names one.
#![cfg(feature = "postgres")]

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use snodo_tasks::{Store, StoreErrorKind};
use snodo_tasks_sql::PgStore;

fn database() -> Option<String> {
    let url = std::env::var("SNODO_TEST_POSTGRES").ok();
    if url.is_none() {
        println!("skipped: SNODO_TEST_POSTGRES not set");
    }
    url
}

fn unique(tag: &str) -> String {
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("snodo_test_{tag}_{}_{n}", std::process::id())
}

/// Run `sql` on a connection of the test's own; the rows' first column.
fn sql(url: &str, sql: &str) -> Vec<String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .expect("connects");
        let conn = tokio::spawn(conn);
        let rows = client.simple_query(sql).await.expect("runs");
        drop(client);
        let _ = conn.await;
        rows.into_iter()
            .filter_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0).map(String::from),
                _ => None,
            })
            .collect()
    })
}

struct Schema<'a>(&'a str, String);

impl Drop for Schema<'_> {
    fn drop(&mut self) {
        sql(
            self.0,
            &format!("DROP SCHEMA IF EXISTS \"{}\" CASCADE", self.1),
        );
    }
}

#[test]
fn replicas_starting_together_migrate_once_and_the_version_is_recorded() {
    let Some(url) = database() else { return };
    let schema = Schema(&url, unique("migrate"));
    let n = 4;
    let go = Arc::new(Barrier::new(n));
    let starts: Vec<_> = (0..n)
        .map(|_| {
            let (url, name, go) = (url.clone(), schema.1.clone(), go.clone());
            std::thread::spawn(move || {
                go.wait();
                PgStore::connect_with(&url, &name, 2).map(drop)
            })
        })
        .collect();
    for s in starts {
        s.join().unwrap().expect("every replica starts");
    }
    let q = format!(
        "SELECT version || ' ' || description FROM \"{}\".snodo_migrations ORDER BY version",
        schema.1
    );
    assert_eq!(sql(&url, &q), vec!["1 tasks with claim and expiry columns"]);
    let store = PgStore::connect_with(&url, &schema.1, 2).expect("starts again");
    assert_eq!(store.len().unwrap(), 0);
    assert_eq!(sql(&url, &q).len(), 1, "nothing applied twice");
}

#[test]
fn a_schema_migrated_by_a_newer_build_is_refused() {
    let Some(url) = database() else { return };
    let schema = Schema(&url, unique("newer"));
    drop(PgStore::connect_with(&url, &schema.1, 1).unwrap());
    sql(
        &url,
        &format!(
            "INSERT INTO \"{}\".snodo_migrations (version, description) VALUES (2, 'from the future')",
            schema.1
        ),
    );
    let e = PgStore::connect_with(&url, &schema.1, 1).expect_err("refused");
    assert_eq!(e.kind, StoreErrorKind::UnknownFormat);
    assert!(e.to_string().contains("schema version 2"), "{e}");
}

#[test]
fn the_schema_comes_from_the_url() {
    let Some(url) = database() else { return };
    let schema = Schema(&url, unique("url"));
    let sep = if url.contains('?') { '&' } else { '?' };
    let store = PgStore::connect(&format!("{url}{sep}schema={}", schema.1)).unwrap();
    assert_eq!(store.schema(), schema.1);
    let q = format!(
        "SELECT count(*)::text FROM information_schema.tables WHERE table_schema = '{}' AND table_name = 'tasks'",
        schema.1
    );
    assert_eq!(sql(&url, &q), vec!["1"]);
}

#[test]
fn it_answers_inside_a_tokio_runtime_and_a_smol_executor() {
    let Some(url) = database() else { return };
    let schema = Schema(&url, unique("runtimes"));
    let store = Arc::new(PgStore::connect_with(&url, &schema.1, 2).unwrap());
    assert!(store.is_blocking(), "the engine keeps it off executors");
    for flavour in ["current_thread", "multi_thread"] {
        let rt = match flavour {
            "current_thread" => tokio::runtime::Builder::new_current_thread().build(),
            _ => tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .build(),
        }
        .unwrap();
        let s = store.clone();
        assert_eq!(rt.block_on(async move { s.len() }).unwrap(), 0, "{flavour}");
    }
    let s = store.clone();
    assert_eq!(smol::block_on(async move { s.len() }).unwrap(), 0);
    // And the store is dropped inside a runtime without a panic.
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async move { drop(store) });
}

#[test]
fn service_resumes_after_the_server_ends_every_session_without_a_restart() {
    let Some(url) = database() else { return };
    let schema = Schema(&url, unique("resume"));
    let store = PgStore::connect_with(&url, &schema.1, 4).unwrap();
    let e = snodo_tasks::Engine::new(Arc::new(store), Default::default());
    let now = snodo_proto::Instant::from_millis(1_785_196_800_000);
    let work = snodo_tasks::WorkDescriptor {
        tool: String::from("echo"),
        arguments: Default::default(),
        meta: Default::default(),
        answers: Default::default(),
        idempotency_key: String::from("k"),
    };
    let kept = e
        .create(String::from("alice"), work.clone(), now, None)
        .unwrap();
    // What a database restart does to the store's sessions.
    let killed = sql(
        &url,
        &format!(
            "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE application_name = 'snodo-tasks:{}'",
            schema.1
        ),
    );
    assert!(!killed.is_empty(), "the store had sessions");
    // Calls fail cleanly (retryable) at most while the pool notices, then
    // succeed on new sessions, with nothing lost.
    let start = Instant::now();
    let mut failures = Vec::new();
    let read = loop {
        match e.store().get(&kept.id) {
            Ok(r) => break r,
            Err(err) => {
                assert_eq!(err.kind, StoreErrorKind::Unavailable, "{err}");
                failures.push(err);
            }
        }
        assert!(start.elapsed() < Duration::from_secs(5), "{failures:?}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(read, Some(kept));
    assert!(
        failures.len() <= 4,
        "one per pooled session at most: {failures:?}"
    );
    e.create(String::from("alice"), work, now, None)
        .expect("creates again");
    assert_eq!(e.store().len().unwrap(), 2);
}

#[test]
fn bad_schema_names_are_refused_before_any_sql() {
    for bad in ["", "Tasks", "a;drop", "a\"b", "1st"] {
        let e = PgStore::connect_with("postgres://nobody@127.0.0.1:1/none", bad, 1)
            .expect_err("refused");
        assert_eq!(e.kind, StoreErrorKind::Io, "{bad:?}");
        assert!(e.to_string().contains("schema"), "{e}");
    }
}

#[test]
fn a_database_that_cannot_be_reached_is_unavailable_at_once() {
    // Port 1 on loopback: connection refused.
    let start = Instant::now();
    let e = PgStore::connect_with("postgres://nobody@127.0.0.1:1/none", "snodo_tasks", 1)
        .expect_err("no database there");
    assert_eq!(e.kind, StoreErrorKind::Unavailable, "{e}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}
