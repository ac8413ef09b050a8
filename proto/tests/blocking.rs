//! `Context::spawn_blocking` against an executor the test controls
//! (`snodo_proto::blocking`): the work runs where the executor runs it and
//! its value answers the call; an executor that drops the job, or no
//! executor at all, fails the wait with the error that says so; dropping
//! the awaiting future sets the work's interrupt.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Waker};

use serde_json::Map;
use snodo_proto::blocking::{BlockingError, Executor, Job};
use snodo_proto::{
    BoxFuture, CallEvent, CallId, CallSink, CallToolResult, Context, NoArgs, Outcome, RequestMeta,
    Round, Service, Tool,
};

/// Keeps the jobs it is given, for the test to run or drop.
#[derive(Default)]
struct Held(Mutex<Vec<Job>>);

impl Held {
    fn take(&self) -> Vec<Job> {
        std::mem::take(&mut self.0.lock().unwrap())
    }
}

impl Executor for Held {
    fn spawn(&self, job: Job) {
        self.0.lock().unwrap().push(job);
    }
}

/// A sink whose calls' blocking work goes to `executor`.
struct Sink(Option<Arc<Held>>);

impl CallSink for Sink {
    fn send(&self, _: CallId, _: CallEvent) {}

    fn executor(&self) -> Option<Arc<dyn Executor>> {
        self.0.clone().map(|held| held as Arc<dyn Executor>)
    }
}

/// `sum` adds 1..=100 as blocking work and answers the sum, or the
/// error's `Debug` as its text.
fn service() -> Service {
    Service::builder()
        .tool(
            Tool::new("sum", "Add 1..=100 off the polling thread"),
            |_: NoArgs, ctx: Context| async move {
                let text = match ctx.spawn_blocking(|_| (1..=100u32).sum::<u32>()).await {
                    Ok(sum) => sum.to_string(),
                    Err(e) => format!("{e:?}"),
                };
                CallToolResult::text(text)
            },
        )
        .build()
        .unwrap()
}

fn start(service: &Service, sink: Sink) -> BoxFuture<Outcome> {
    service
        .detached_tool_call(
            CallId::detached(1),
            "sum",
            Map::new(),
            RequestMeta::default(),
            Round::default(),
        )
        .unwrap()
        .run(Arc::new(sink))
}

fn poll(future: &mut BoxFuture<Outcome>) -> Poll<Outcome> {
    future
        .as_mut()
        .poll(&mut TaskContext::from_waker(Waker::noop()))
}

fn text(outcome: Poll<Outcome>) -> String {
    match outcome {
        Poll::Ready(Outcome::CallTool(result)) => serde_json::to_value(&result.content[0]).unwrap()
            ["text"]
            .as_str()
            .unwrap()
            .to_owned(),
        other => panic!("not a tool result: {other:?}"),
    }
}

#[test]
fn the_work_runs_where_the_executor_runs_it_and_answers_the_call() {
    let service = service();
    let held = Arc::new(Held::default());
    let mut call = start(&service, Sink(Some(held.clone())));
    assert!(poll(&mut call).is_pending(), "the work has not run yet");
    let jobs = held.take();
    assert_eq!(jobs.len(), 1);
    std::thread::spawn(move || jobs.into_iter().for_each(Job::run))
        .join()
        .unwrap();
    assert_eq!(text(poll(&mut call)), "5050");
}

#[test]
fn a_job_the_executor_drops_ends_the_wait_with_dropped() {
    let service = service();
    let held = Arc::new(Held::default());
    let mut call = start(&service, Sink(Some(held.clone())));
    assert!(poll(&mut call).is_pending());
    drop(held.take());
    assert_eq!(text(poll(&mut call)), "Dropped");
}

#[test]
fn without_an_executor_the_work_is_refused_as_unavailable() {
    let service = service();
    let mut call = start(&service, Sink(None));
    assert_eq!(text(poll(&mut call)), "Unavailable");
    // A context outside any connection has none either.
    let ctx = Context::detached(RequestMeta::default());
    let mut wait = std::pin::pin!(ctx.spawn_blocking(|_| 1));
    assert_eq!(
        wait.as_mut()
            .poll(&mut TaskContext::from_waker(Waker::noop())),
        Poll::Ready(Err(BlockingError::Unavailable))
    );
}

#[test]
fn dropping_the_awaiting_future_sets_the_interrupt() {
    let held = Arc::new(Held::default());
    let sink: Arc<dyn CallSink> = Arc::new(Sink(Some(held.clone())));
    let seen = Arc::new(AtomicBool::new(false));
    let ctx = context_with(sink);
    let saw = seen.clone();
    let wait = ctx.spawn_blocking(move |interrupt| saw.store(interrupt.is_set(), Ordering::SeqCst));
    drop(wait);
    held.take().into_iter().for_each(Job::run);
    assert!(
        seen.load(Ordering::SeqCst),
        "the work saw its interrupt set"
    );
}

#[test]
fn a_panic_in_the_work_is_its_error_and_not_the_callers() {
    let held = Arc::new(Held::default());
    let ctx = context_with(Arc::new(Sink(Some(held.clone()))));
    let mut wait = std::pin::pin!(ctx.spawn_blocking(|_| -> u32 { panic!("in the work") }));
    held.take().into_iter().for_each(Job::run);
    assert_eq!(
        wait.as_mut()
            .poll(&mut TaskContext::from_waker(Waker::noop())),
        Poll::Ready(Err(BlockingError::Panicked))
    );
}

/// A handler's context whose sink is `sink`: the one a tool sees.
fn context_with(sink: Arc<dyn CallSink>) -> Context {
    let slot: Arc<Mutex<Option<Context>>> = Arc::default();
    let put = slot.clone();
    let service = Service::builder()
        .tool(
            Tool::new("grab", "Hand the test its context"),
            move |_: NoArgs, ctx: Context| {
                *put.lock().unwrap() = Some(ctx);
                async { CallToolResult::text("ok") }
            },
        )
        .build()
        .unwrap();
    let mut call = service
        .detached_tool_call(
            CallId::detached(1),
            "grab",
            Map::new(),
            RequestMeta::default(),
            Round::default(),
        )
        .unwrap()
        .run(sink);
    assert!(poll(&mut call).is_ready());
    let ctx = slot.lock().unwrap().take();
    ctx.unwrap()
}
