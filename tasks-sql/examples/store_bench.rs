//! Tasks created, read and completed per second, with latency
//! percentiles, for each store: memory, disk, SQLite, and PostgreSQL when
//! `SNODO_TEST_POSTGRES` names a database (a fresh schema, dropped after).
//!
//! ```text
//! cargo run --release -p snodo-tasks-sql --features postgres --example store_bench -- [TASKS] [THREADS]
//! ```
//!
//! Each store gets TASKS tasks (default 2000) through the engine, from
//! THREADS threads at once (default 4): every thread creates its share,
//! reads each, then claims and commits until nothing is left to claim
//! (a claim and its commit timed together as one "complete").

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant as Clock};

use snodo_proto::Instant;
use snodo_tasks::{
    Commit, Committed, DiskStore, Engine, Lifecycle, MemoryStore, Status, Store, WorkDescriptor,
};

/// 2026-07-28T00:00:00Z: the engine's clock is a value here.
const T0: u64 = 1_785_196_800_000;

fn work(n: usize) -> WorkDescriptor {
    WorkDescriptor {
        tool: String::from("echo"),
        arguments: serde_json::json!({"text": format!("task {n}")})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        meta: Default::default(),
        answers: Default::default(),
        idempotency_key: format!("{n:032x}"),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

fn report(store: &str, op: &str, wall: Duration, mut lat: Vec<Duration>) {
    lat.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{store:<10} {op:<9} {:>6} ops {:>9.0}/s   p50 {:>7.3} ms   p99 {:>7.3} ms",
        lat.len(),
        lat.len() as f64 / wall.as_secs_f64(),
        ms(percentile(&lat, 0.5)),
        ms(percentile(&lat, 0.99)),
    );
}

/// Run `each` on `threads` threads over `engine`; the wall time and every
/// latency.
fn phase(
    engine: &Arc<Engine>,
    threads: usize,
    each: impl Fn(&Engine, usize) -> Vec<Duration> + Send + Sync + 'static,
) -> (Duration, Vec<Duration>) {
    let each = Arc::new(each);
    let start = Clock::now();
    let runs: Vec<_> = (0..threads)
        .map(|t| {
            let (e, each) = (engine.clone(), each.clone());
            std::thread::spawn(move || each(&e, t))
        })
        .collect();
    let lat = runs
        .into_iter()
        .flat_map(|r| r.join().expect("a bench thread panicked"))
        .collect();
    (start.elapsed(), lat)
}

fn bench(name: &str, store: Arc<dyn Store>, tasks: usize, threads: usize) {
    let engine = Arc::new(Engine::new(
        store,
        Lifecycle {
            max_tasks: tasks * 2,
            ..Lifecycle::default()
        },
    ));
    let per = tasks / threads;
    let now = Instant::from_millis(T0);
    let ids = Arc::new(std::sync::Mutex::new(Vec::new()));
    let into = ids.clone();
    let (wall, lat) = phase(&engine, threads, move |e, t| {
        let mut lat = Vec::new();
        for n in 0..per {
            let at = Clock::now();
            let r = e
                .create(String::from("bench"), work(t * per + n), now, None)
                .expect("create");
            lat.push(at.elapsed());
            into.lock().unwrap().push(r.id);
        }
        lat
    });
    report(name, "create", wall, lat);
    let all: Arc<Vec<_>> = Arc::new(ids.lock().unwrap().clone());
    let (wall, lat) = phase(&engine, threads, move |e, t| {
        all[t * per..(t + 1) * per]
            .iter()
            .map(|id| {
                let at = Clock::now();
                let r = e.get("bench", id.as_str(), now).expect("get");
                assert_eq!(r.status, Status::Working);
                at.elapsed()
            })
            .collect()
    });
    report(name, "read", wall, lat);
    let (wall, lat) = phase(&engine, threads, move |e, _| {
        let mut lat = Vec::new();
        let lease = Duration::from_secs(60);
        loop {
            let at = Clock::now();
            let Some(c) = e.claim(now, lease, &BTreeSet::new()).expect("claim") else {
                break;
            };
            let done = e
                .commit(
                    &c.record.id,
                    c.generation,
                    Commit::Complete(Default::default()),
                    now,
                    None,
                )
                .expect("commit");
            assert_eq!(done, Committed::Applied(Status::Completed));
            lat.push(at.elapsed());
        }
        lat
    });
    assert_eq!(lat.len(), per * threads, "every task completed once");
    report(name, "complete", wall, lat);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let tasks: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2000);
    let threads: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(4).max(1);
    println!("{tasks} tasks, {threads} threads");
    let dir = std::env::temp_dir().join(format!("snodo-store-bench-{}", std::process::id()));
    bench("memory", Arc::new(MemoryStore::new()), tasks, threads);
    bench(
        "disk",
        Arc::new(DiskStore::open(dir.join("disk")).expect("disk store")),
        tasks,
        threads,
    );
    std::fs::create_dir_all(&dir).expect("bench dir");
    bench(
        "sqlite",
        Arc::new(snodo_tasks_sql::SqliteStore::open(dir.join("tasks.db")).expect("SQLite store")),
        tasks,
        threads,
    );
    let _ = std::fs::remove_dir_all(&dir);
    #[cfg(feature = "postgres")]
    match std::env::var("SNODO_TEST_POSTGRES") {
        Ok(url) => {
            let schema = format!("snodo_bench_{}", std::process::id());
            let store =
                snodo_tasks_sql::PgStore::connect_with(&url, &schema, 8).expect("PostgreSQL store");
            bench("postgres", Arc::new(store), tasks, threads);
            drop_schema(&url, &schema);
        }
        Err(_) => println!("postgres   skipped: SNODO_TEST_POSTGRES not set"),
    }
}

#[cfg(feature = "postgres")]
fn drop_schema(url: &str, schema: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .expect("connects");
        let conn = tokio::spawn(conn);
        let _ = client
            .batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"))
            .await;
        drop(client);
        let _ = conn.await;
    });
}
