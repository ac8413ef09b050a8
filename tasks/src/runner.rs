//! Running tasks' work, independent of any connection.
//!
//! A task outlives the request that created it and the connection that
//! carried it, so its work is not a connection's call: a [`TaskRunner`]
//! claims claimable tasks from the store with a lease, hands each to its
//! driver as a [`Work`] to run (the tool's registered handler, built with
//! [`Service::detached_tool_call`]), renews the leases of what runs, and
//! commits each outcome, fenced by the claim's generation. A run's progress
//! reports become its task's `statusMessage` at the lease renewals
//! (`progress.rs`). Like
//! [`Connection`](snodo_proto::Connection) it names no runtime and reads no
//! clock: the driver feeds it time and outcomes and drains its outputs
//! ([`crate::drive`] is such a driver, for any runtime that can spawn a
//! future).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use snodo_proto::{
    BoxFuture, CallId, CancelFlag, ClientCapabilities, DetachedOutcome, Hub, Instant, Invocation,
    Outcome, Round, Service,
};

use crate::engine::{Claim, Commit, Committed, Engine, Renewed};
use crate::extension::TasksExtension;
use crate::fault::FaultPoint;
use crate::id::TaskId;
use crate::progress::Reports;
use crate::RUN_META_KEY;

/// A runner's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct RunnerConfig {
    /// Tasks run at once by this runner.
    pub max_concurrent: usize,
    /// How long a claim holds without renewal: after a crash, how long
    /// before another runner recovers the task.
    pub lease: Duration,
    /// How often a running task's lease is renewed (well under `lease`).
    /// Each renewal also shows the run's latest progress report as the
    /// task's `statusMessage`, so this is how stale a task's progress may
    /// be; a run's first report is written at once.
    pub renew_every: Duration,
    /// How often to look for claimable work without being told (work of
    /// other processes, expired leases).
    pub scan_every: Duration,
    /// How often expired tasks are deleted.
    pub reap_every: Duration,
}

impl Default for RunnerConfig {
    fn default() -> Self {
        RunnerConfig {
            max_concurrent: 16,
            lease: Duration::from_secs(10),
            renew_every: Duration::from_secs(3),
            scan_every: Duration::from_secs(1),
            reap_every: Duration::from_secs(60),
        }
    }
}

/// Why a runner could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunnerError {
    /// The service has no [`TasksExtension`] installed.
    NotInstalled,
    /// A setting is unusable.
    InvalidConfig(&'static str),
}

impl fmt::Display for RunnerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunnerError::NotInstalled => {
                f.write_str("the service has no Tasks extension installed")
            }
            RunnerError::InvalidConfig(why) => write!(f, "task runner: {why}"),
        }
    }
}

impl std::error::Error for RunnerError {}

/// Identifies one run handed out by a runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkId(u64);

impl fmt::Display for WorkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "work#{}", self.0)
    }
}

/// One run of a task's handler.
pub struct Work {
    /// Report its outcome under this id.
    pub id: WorkId,
    /// The task.
    pub task: TaskId,
    invocation: Invocation,
    reports: Arc<Reports>,
}

impl fmt::Debug for Work {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Work")
            .field("id", &self.id)
            .field("task", &self.task)
            .finish()
    }
}

impl Work {
    /// Set when the run is aborted; a handler doing blocking work in steps
    /// may poll it.
    pub fn cancel_flag(&self) -> CancelFlag {
        self.invocation.cancel_flag()
    }

    /// The handler's future. Its progress reports are kept for the task's
    /// `statusMessage` (`tasks.md` § Tasks), written at the run's lease
    /// renewals; log messages go nowhere (§ Task Status Notifications:
    /// neither progress nor log notifications for tasks).
    pub fn run(self) -> BoxFuture<Outcome> {
        self.invocation.run(self.reports)
    }
}

/// Something the driver must do.
#[derive(Debug)]
pub enum RunnerOutput {
    /// Run this, then report with [`TaskRunner::complete`].
    Run(Work),
    /// Stop this run: drop its future (its cancel flag is already set). Its
    /// outcome, if it still arrives, is ignored.
    Abort(WorkId),
}

struct Running {
    work: WorkId,
    generation: u64,
    tool: String,
    capabilities: ClientCapabilities,
    renew_at: Instant,
    cancel: CancelFlag,
    /// The run's latest progress report.
    reports: Arc<Reports>,
}

/// Claims, runs and commits tasks, apart from any connection: it claims
/// claimable tasks from the store with a lease, hands each to its driver as
/// a [`Work`] to run, renews the leases of what runs, and commits each
/// outcome, fenced by the claim's generation.
///
/// # Driving contract
///
/// Call [`handle_timeout`](TaskRunner::handle_timeout) at
/// [`poll_timeout`](TaskRunner::poll_timeout) and whenever the engine rings
/// (work available, a task cancelled); call
/// [`complete`](TaskRunner::complete) when a `Work` finishes. After each,
/// drain [`poll_output`](TaskRunner::poll_output): run every
/// [`RunnerOutput::Run`], drop (and flag) every [`RunnerOutput::Abort`].
///
/// Those calls claim, renew and commit in the store on the calling thread:
/// over a [`DiskStore`](crate::DiskStore) they read, write and fsync, so
/// drive the runner from a thread that may block, never from an executor's
/// ([`crate::drive`] gives it a thread of its own; only the runs go to the
/// runtime).
///
/// # Recovery
///
/// Execution is at least once. A worker (or the whole process) that dies
/// stops renewing; once its lease expires the task is claimable again and
/// runs from its last durable point: the descriptor's arguments and the
/// answers accepted so far. A late commit of the dead claim is fenced out,
/// also when the stalled worker is another process sharing the
/// [`DiskStore`](crate::DiskStore). The moments where a crash is most
/// dangerous are named in [`crate::fault`].
/// The descriptor's idempotency key, the same on every attempt, is what
/// handlers key side effects by ([`crate::run_info`]).
pub struct TaskRunner {
    service: Service,
    engine: Arc<Engine>,
    hub: Option<Hub>,
    config: RunnerConfig,
    running: BTreeMap<TaskId, Running>,
    by_work: BTreeMap<WorkId, TaskId>,
    out: VecDeque<RunnerOutput>,
    next_work: u64,
    next_scan: Option<Instant>,
    next_reap: Option<Instant>,
    /// Where runs' blocking work goes ([`TaskRunner::executor`]).
    executor: Option<Arc<dyn snodo_proto::blocking::Executor>>,
}

impl fmt::Debug for TaskRunner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskRunner")
            .field("running", &self.running.len())
            .finish()
    }
}

impl TaskRunner {
    /// Run the tasks' blocking work
    /// ([`Context::spawn_blocking`](snodo_proto::Context::spawn_blocking))
    /// on `executor`: the runtime's blocking pool, as its adapter gives it
    /// to connections (`snodo_driver::Runtime::executor`). A tool that does
    /// blocking work runs as a task only with one; without, its
    /// `spawn_blocking` is refused with
    /// [`BlockingError::Unavailable`](snodo_proto::blocking::BlockingError::Unavailable).
    pub fn executor(mut self, executor: Arc<dyn snodo_proto::blocking::Executor>) -> Self {
        self.executor = Some(executor);
        self
    }

    /// A runner for the Tasks extension installed on `service`.
    pub fn new(service: &Service, config: RunnerConfig) -> Result<TaskRunner, RunnerError> {
        let ext = service
            .extension::<TasksExtension>()
            .ok_or(RunnerError::NotInstalled)?;
        if config.max_concurrent == 0 {
            return Err(RunnerError::InvalidConfig(
                "max_concurrent must be at least 1",
            ));
        }
        if config.lease.is_zero() || config.renew_every >= config.lease {
            return Err(RunnerError::InvalidConfig(
                "the lease must be longer than the renewal interval",
            ));
        }
        if config.scan_every.is_zero() || config.reap_every.is_zero() {
            return Err(RunnerError::InvalidConfig(
                "scan and reap intervals must be positive",
            ));
        }
        Ok(TaskRunner {
            service: service.clone(),
            engine: ext.engine().clone(),
            hub: service.hub().cloned(),
            config,
            running: BTreeMap::new(),
            by_work: BTreeMap::new(),
            out: VecDeque::new(),
            next_work: 1,
            next_scan: None,
            next_reap: None,
            executor: None,
        })
    }

    /// The engine the runner claims from.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// Tasks running now.
    pub fn running(&self) -> usize {
        self.running.len()
    }

    /// Time passed or the engine rang: act on notices, renew leases, claim
    /// work, reap.
    pub fn handle_timeout(&mut self, now: Instant) {
        let notices = self.engine.take_notices();
        for id in &notices.cancelled {
            self.abort(id, "cancelled");
        }
        if notices.rescan {
            let held: Vec<(TaskId, u64)> = self
                .running
                .iter()
                .map(|(id, r)| (id.clone(), r.generation))
                .collect();
            for (id, generation) in held {
                if !self.engine.holds(&id, generation).unwrap_or(true) {
                    self.abort(&id, "no longer held");
                }
            }
        }
        if notices.work {
            self.next_scan = None;
        }
        self.renew(now);
        if self.next_scan.is_none_or(|t| t <= now) {
            self.claim(now);
            self.next_scan = Some(now + self.config.scan_every);
        }
        if self.next_reap.is_none_or(|t| t <= now) {
            if let Err(e) = self.engine.reap(now) {
                tracing::error!(error = %e, "reaping expired tasks failed");
            }
            self.next_reap = Some(now + self.config.reap_every);
        }
    }

    /// Renew the leases due, each with its run's latest progress report
    /// as the task's `statusMessage` in the same store update: progress
    /// costs no write of its own. A run's first report makes its renewal
    /// due at once, so that a short task's progress shows too.
    fn renew(&mut self, now: Instant) {
        for r in self.running.values_mut() {
            if r.reports.take_first() {
                r.renew_at = r.renew_at.min(now);
            }
        }
        let due: Vec<(TaskId, u64, Option<String>)> = self
            .running
            .iter()
            .filter(|(_, r)| r.renew_at <= now)
            .map(|(id, r)| (id.clone(), r.generation, r.reports.message()))
            .collect();
        for (id, generation, message) in due {
            match self.engine.renew_reporting(
                &id,
                generation,
                now,
                self.config.lease,
                message.as_deref(),
                self.hub.as_ref(),
            ) {
                Ok(Renewed::Held | Renewed::Reported) => {
                    if let Some(r) = self.running.get_mut(&id) {
                        r.renew_at = now + self.config.renew_every;
                    }
                }
                Ok(Renewed::Lost) => self.abort(&id, "the claim was lost"),
                Err(e) => {
                    // Try again soon; if the lease runs out meanwhile, the
                    // commit is fenced and another run recovers the task.
                    tracing::error!(task = %id, error = %e, "renewing a lease failed");
                    if let Some(r) = self.running.get_mut(&id) {
                        r.renew_at = now + self.config.renew_every / 4;
                    }
                }
            }
        }
    }

    fn claim(&mut self, now: Instant) {
        while self.running.len() < self.config.max_concurrent {
            let skip: BTreeSet<TaskId> = self.running.keys().cloned().collect();
            match self.engine.claim(now, self.config.lease, &skip) {
                Ok(Some(claim)) => self.start(claim, now),
                Ok(None) => break,
                Err(e) => {
                    tracing::error!(error = %e, "claiming work failed");
                    break;
                }
            }
        }
    }

    fn start(&mut self, claim: Claim, now: Instant) {
        let Claim { record, generation } = claim;
        let work = WorkId(self.next_work);
        self.next_work += 1;
        let answers = record.next_answers().clone();
        let mut raw = record.work.meta.clone();
        raw.insert(
            String::from(RUN_META_KEY),
            json!({
                "idempotencyKey": record.work.idempotency_key,
                "attempt": record.attempts,
            }),
        );
        let invocation = snodo_proto::meta::optional(&raw).and_then(|meta| {
            self.service.detached_tool_call(
                CallId::detached(work.0),
                &record.work.tool,
                record.work.arguments.clone(),
                meta,
                Round::detached(answers.responses, answers.state),
            )
        });
        let invocation = match invocation {
            Ok(i) => i,
            Err(e) => {
                // The stored work cannot run (the tool is gone, or its
                // schema changed): the task fails with that error.
                tracing::warn!(task = %record.id, error = %e, "task cannot run");
                self.commit(&record.id, generation, Commit::Fail(e), now);
                return;
            }
        };
        let capabilities = invocation.meta().client_capabilities.clone();
        let cancel = invocation.cancel_flag();
        let reports = Arc::new(Reports::new(self.engine.clone(), self.executor.clone()));
        tracing::debug!(task = %record.id, %work, attempt = record.attempts, "running task");
        self.running.insert(
            record.id.clone(),
            Running {
                work,
                generation,
                tool: record.work.tool.clone(),
                capabilities,
                renew_at: now + self.config.renew_every,
                cancel,
                reports: reports.clone(),
            },
        );
        self.by_work.insert(work, record.id.clone());
        self.out.push_back(RunnerOutput::Run(Work {
            id: work,
            task: record.id,
            invocation,
            reports,
        }));
    }

    fn abort(&mut self, id: &TaskId, why: &str) {
        if let Some(r) = self.running.remove(id) {
            tracing::debug!(task = %id, work = %r.work, why, "aborting run");
            r.cancel.cancel();
            self.by_work.remove(&r.work);
            self.out.push_back(RunnerOutput::Abort(r.work));
        }
    }

    fn commit(&mut self, id: &TaskId, generation: u64, commit: Commit, now: Instant) {
        match self
            .engine
            .commit(id, generation, commit, now, self.hub.as_ref())
        {
            Ok(Committed::Applied(_)) => {}
            Ok(Committed::Fenced) => {
                // Cancelled meanwhile, or this runner stalled past its lease
                // and another claim took the task over: the outcome is
                // dropped, the task's current state stands.
                tracing::info!(task = %id, generation, "a run's outcome was fenced out");
            }
            Err(e) => {
                // Not recorded: the lease expires and the task runs again.
                tracing::error!(task = %id, error = %e, "committing a run failed");
            }
        }
    }

    /// A run finished with `outcome`. Ignored for an aborted run.
    pub fn complete(&mut self, work: WorkId, outcome: Outcome, now: Instant) {
        let Some(id) = self.by_work.remove(&work) else {
            return;
        };
        let Some(r) = self.running.remove(&id) else {
            return;
        };
        let commit = match self
            .service
            .detached_tool_outcome(&r.tool, outcome, &r.capabilities)
        {
            DetachedOutcome::Complete(result) => Commit::Complete(result),
            DetachedOutcome::Error(e) => Commit::Fail(e),
            DetachedOutcome::InputRequired { requests, state } => Commit::Input { requests, state },
        };
        self.engine.reach(FaultPoint::AfterWork {
            task: &id,
            generation: r.generation,
        });
        self.commit(&id, r.generation, commit, now);
        // A slot is free.
        self.next_scan = None;
    }

    /// The next thing to do, or `None` when drained.
    pub fn poll_output(&mut self) -> Option<RunnerOutput> {
        self.out.pop_front()
    }

    /// When [`handle_timeout`](TaskRunner::handle_timeout) is next due.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let renew = self.running.values().map(|r| r.renew_at).min();
        [self.next_scan, self.next_reap, renew]
            .into_iter()
            .flatten()
            .min()
            .or(Some(Instant::ZERO))
    }

    /// Stop: give every claim back (so another runner, or this process
    /// restarted, takes the tasks at once) and abort every run.
    pub fn shutdown(&mut self) {
        let running = std::mem::take(&mut self.running);
        self.by_work.clear();
        for (id, r) in running {
            if let Err(e) = self.engine.release(&id, r.generation) {
                tracing::warn!(task = %id, error = %e, "releasing a claim failed");
            }
            r.cancel.cancel();
            self.out.push_back(RunnerOutput::Abort(r.work));
        }
    }
}

/// What a task run's handler can learn about the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunInfo {
    /// Stable over every attempt of this task.
    pub idempotency_key: String,
    /// 1 for the first run, more after recovery.
    pub attempt: u32,
}

/// The run information the runner puts into a task run's `_meta`; `None`
/// outside a task run. The extension drops a client's own value of this
/// key when it stores a task, but a synchronous call can carry anything:
/// trust it only in tools that always run as tasks.
pub fn run_info(meta: &snodo_proto::RequestMeta) -> Option<RunInfo> {
    let raw = meta.raw();
    let v = raw.get(RUN_META_KEY)?;
    Some(RunInfo {
        idempotency_key: String::from(v.get("idempotencyKey")?.as_str()?),
        attempt: u32::try_from(v.get("attempt").and_then(Value::as_u64)?).ok()?,
    })
}
