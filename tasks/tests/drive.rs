//! The generic driver on real threads and the real clock: a task created
//! on a connection is run by the driver without anyone polling for it, a
//! cancelled run's future is dropped promptly, a panicking handler fails
//! its task with `-32603`, and stopping the driver gives its claims back.

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant as StdInstant};

use serde_json::{json, Value};
use snodo_proto::{
    CallToolResult, Connection, Implementation, Instant, NoArgs, Service, Tool, Transport,
};
use snodo_tasks::{drive, MemoryStore, Store, TaskId, TaskRunner, TaskSupport, Tasks};
use support::{block_on, req, runner_config, DECLARED};

/// Pending forever; counts its drops.
struct Forever(Arc<AtomicUsize>);

impl Future for Forever {
    type Output = CallToolResult;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<CallToolResult> {
        Poll::Pending
    }
}

impl Drop for Forever {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn wall_now() -> Instant {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    Instant::from_nanos(d.as_nanos() as u64)
}

fn call(service: &Service, line: &str) -> Value {
    let mut conn = Connection::new(service, Transport::Stdio, wall_now());
    conn.handle_input(format!("{line}\n").as_bytes(), wall_now());
    let mut out = Vec::new();
    while let Some(o) = conn.poll_output() {
        match o {
            snodo_proto::Output::Transmit(b) => out.extend_from_slice(&b),
            snodo_proto::Output::Invoke(inv) => {
                let c = inv.call;
                let outcome = block_on(inv.run(Arc::new(snodo_proto::NullSink)));
                let _ = conn.complete(c, outcome, wall_now());
            }
            _ => {}
        }
    }
    serde_json::from_slice(&out).expect("one JSON line")
}

fn wait_for(service: &Service, id: &str, status: &str) -> Value {
    let start = StdInstant::now();
    loop {
        let t = call(
            service,
            &req(9, "tasks/get", &format!(r#""taskId":"{id}""#), DECLARED),
        );
        if t["result"]["status"] == status {
            return t["result"].clone();
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "never {status}: {t}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn the_driver_runs_cancels_and_catches_panics() {
    let drops = Arc::new(AtomicUsize::new(0));
    let d = drops.clone();
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .tool(Tool::new("quick", "Done at once"), |_: NoArgs| async {
            CallToolResult::text("quick")
        })
        .tool(Tool::new("forever", "Never ends"), move |_: NoArgs| {
            Forever(d.clone())
        })
        .tool(Tool::new("panics", "Panics"), |_: NoArgs| async {
            if true {
                panic!("handler bug");
            }
            CallToolResult::text("unreachable")
        })
        .extension(
            Tasks::with_store(store.clone())
                .tool("quick", TaskSupport::Optional)
                .tool("forever", TaskSupport::Optional)
                .tool("panics", TaskSupport::Optional)
                .build(),
        )
        .build()
        .unwrap();
    let runner = TaskRunner::new(&service, runner_config()).unwrap();
    let driver = drive::start(runner, drive::thread_spawner()).expect("driver starts");

    let quick = call(
        &service,
        &req(1, "tools/call", r#""name":"quick""#, DECLARED),
    );
    let quick = quick["result"]["taskId"].as_str().unwrap().to_string();
    let done = wait_for(&service, &quick, "completed");
    assert_eq!(
        done["result"]["content"],
        json!([{"type":"text","text":"quick"}])
    );

    let boom = call(
        &service,
        &req(2, "tools/call", r#""name":"panics""#, DECLARED),
    );
    let boom = boom["result"]["taskId"].as_str().unwrap().to_string();
    let failed = wait_for(&service, &boom, "failed");
    assert_eq!(
        failed["error"],
        json!({"code":-32603,"message":"Internal error"})
    );

    let long = call(
        &service,
        &req(3, "tools/call", r#""name":"forever""#, DECLARED),
    );
    let long = long["result"]["taskId"].as_str().unwrap().to_string();
    let id = TaskId::parse(&long).unwrap();
    let start = StdInstant::now();
    while store.get(&id).unwrap().unwrap().lease.is_none() {
        assert!(start.elapsed() < Duration::from_secs(10), "never claimed");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(drops.load(Ordering::SeqCst), 0, "still running");
    call(
        &service,
        &req(
            4,
            "tasks/cancel",
            &format!(r#""taskId":"{long}""#),
            DECLARED,
        ),
    );
    let start = StdInstant::now();
    while drops.load(Ordering::SeqCst) == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the cancelled run was never dropped"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        wait_for(&service, &long, "cancelled")["status"],
        "cancelled"
    );

    // Stopping gives claims back: a run in progress is released at once.
    let again = call(
        &service,
        &req(5, "tools/call", r#""name":"forever""#, DECLARED),
    );
    let again = TaskId::parse(again["result"]["taskId"].as_str().unwrap()).unwrap();
    let start = StdInstant::now();
    while store.get(&again).unwrap().unwrap().lease.is_none() {
        assert!(start.elapsed() < Duration::from_secs(10), "never claimed");
        std::thread::sleep(Duration::from_millis(5));
    }
    driver.stop();
    let record = store.get(&again).unwrap().unwrap();
    assert!(record.lease.is_none(), "released on stop: {record:?}");
    assert_eq!(record.status, snodo_tasks::Status::Working);
}

/// A thread per job, counting the jobs it was given.
struct Counted(AtomicUsize);

impl snodo_proto::blocking::Executor for Counted {
    fn spawn(&self, job: snodo_proto::blocking::Job) {
        self.0.fetch_add(1, Ordering::SeqCst);
        std::thread::spawn(move || job.run());
    }
}

/// A task's run reaches the executor given to its runner
/// (`TaskRunner::executor`): its blocking work's value completes the task.
/// A runner given none refuses the work, and the task fails with
/// `-32603`.
#[test]
fn a_task_runs_its_blocking_work_on_the_runners_executor() {
    let service = || {
        Service::builder()
            .server_info(Implementation::new("t", "1"))
            .tool(
                Tool::new("sum", "Add 1..=10 as blocking work"),
                |_: NoArgs, ctx: snodo_proto::Context| async move {
                    let sum = ctx.spawn_blocking(|_| (1..=10u32).sum::<u32>()).await?;
                    Ok::<_, snodo_proto::ToolError>(CallToolResult::text(sum.to_string()))
                },
            )
            .extension(
                Tasks::with_store(Arc::new(MemoryStore::new()))
                    .tool("sum", TaskSupport::Optional)
                    .build(),
            )
            .build()
            .unwrap()
    };
    let executor = Arc::new(Counted(AtomicUsize::new(0)));
    let with = service();
    let runner = TaskRunner::new(&with, runner_config())
        .unwrap()
        .executor(executor.clone());
    let driver = drive::start(runner, drive::thread_spawner()).expect("driver starts");
    let created = call(&with, &req(1, "tools/call", r#""name":"sum""#, DECLARED));
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    let done = wait_for(&with, &id, "completed");
    assert_eq!(
        done["result"]["content"],
        json!([{"type":"text","text":"55"}])
    );
    assert_eq!(executor.0.load(Ordering::SeqCst), 1);
    driver.stop();

    let without = service();
    let runner = TaskRunner::new(&without, runner_config()).unwrap();
    let driver = drive::start(runner, drive::thread_spawner()).expect("driver starts");
    let created = call(&without, &req(2, "tools/call", r#""name":"sum""#, DECLARED));
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    assert_eq!(
        wait_for(&without, &id, "failed")["error"],
        json!({"code":-32603,"message":"Internal error"})
    );
    driver.stop();
}
