//! The task lifecycle, once, over any [`Store`]: creation, polling, input,
//! cancellation, claims with leases, fenced commits, TTL reaping
//! (`tasks.md` § Task Status, § Task Creation, § Task Polling, § Task
//! Update Requests, § Task Cancellation).
//!
//! Every change is one atomic [`Store::update`], so the rules hold however
//! the calls race: a terminal task never changes again; a worker's commit
//! applies only while its lease's generation is the task's current one and
//! the task is still `working` (a cancel, a reclaim after its lease
//! expired, or a newer claim fences it out); answers are stored before
//! `tasks/update` is acknowledged.
//!
//! The engine also keeps the notices a [`TaskRunner`](crate::TaskRunner)
//! acts on (work became available, a running task was cancelled) and
//! publishes `notifications/tasks` through the service's hub.
//!
//! Its methods call the store on the calling thread. Over a blocking store
//! ([`Store::is_blocking`], a [`DiskStore`](crate::DiskStore)) call them
//! only from a thread that may block: the runner's driver thread
//! ([`crate::drive`]), or the engine's own I/O threads, where the
//! extension's answers to connections run ([`Tasks::io_threads`](crate::Tasks::io_threads)).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Map, Value};
use snodo_proto::{
    BoxFuture, ChangeEvent, ErrorObject, ExtensionError, ExtensionEvent, Hub, Instant, Round,
};

use crate::fault::{self, FaultHook, FaultPoint};
use crate::id::TaskId;
use crate::offload::Pool;
use crate::record::{Answers, InputEntry, Lease, Status, TaskRecord, WorkDescriptor};
use crate::store::{Store, StoreError, StoreErrorKind};
use crate::time::millis;
use crate::TASKS;

/// Lifecycle settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Lifecycle {
    /// `ttlMs` of new tasks; `None` keeps them until deleted by hand.
    pub ttl: Option<Duration>,
    /// `pollIntervalMs` of new tasks.
    pub poll_interval: Option<Duration>,
    /// Most tasks stored at once (expired ones are reaped first when full).
    pub max_tasks: usize,
    /// Most input rounds one task may ask for; beyond, it fails.
    pub max_rounds: u32,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Lifecycle {
            ttl: Some(Duration::from_secs(3600)),
            poll_interval: Some(Duration::from_millis(500)),
            max_tasks: 10_000,
            max_rounds: 64,
        }
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// What the runner should act on.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Notices {
    /// A task became claimable.
    pub(crate) work: bool,
    /// Tasks cancelled (or otherwise fenced) while perhaps running.
    pub(crate) cancelled: Vec<TaskId>,
    /// Too many notices to keep: check every running task.
    pub(crate) rescan: bool,
}

/// Most cancellation notices kept for a runner that has not looked yet.
const MAX_NOTICES: usize = 1024;

/// A claim on a task's work.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    /// The task.
    pub record: TaskRecord,
    /// The claim's generation: present it to renew, release and commit.
    pub generation: u64,
}

/// What a run of the handler ended with.
#[derive(Clone, Debug, PartialEq)]
pub enum Commit {
    /// A result (`completed`; tool results with `isError` included).
    Complete(Map<String, Value>),
    /// A JSON-RPC error (`failed`).
    Fail(ErrorObject),
    /// Input requests (serialized, by key) and the handler's state.
    Input {
        /// The requests.
        requests: Map<String, Value>,
        /// The state.
        state: Option<Value>,
    },
}

/// What a renewal did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renewed {
    /// The lease was extended; the status message stayed as it was.
    Held,
    /// The lease was extended and the task shows a new status message (it
    /// was published).
    Reported,
    /// The claim is no longer current (cancelled, reclaimed, finished,
    /// deleted): nothing changed.
    Lost,
}

/// Whether a commit took effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Committed {
    /// Applied; the task's status afterwards.
    Applied(Status),
    /// Refused: the claim is no longer current (cancelled, reclaimed,
    /// expired, deleted). Its result is dropped.
    Fenced,
}

type Wake = Arc<dyn Fn() + Send + Sync>;

/// Threads a blocking store's calls from connections run on, at most (see
/// [`Engine::with_io_threads`]).
pub const DEFAULT_IO_THREADS: usize = 4;

/// The lifecycle over a store. Shared by the extension (whose answers to
/// connections run on the engine's I/O threads over a blocking store) and
/// the runner (on its driver's thread).
pub struct Engine {
    store: Arc<dyn Store>,
    pub(crate) lifecycle: Lifecycle,
    notices: Mutex<Notices>,
    wake: Mutex<Option<Wake>>,
    faults: Option<FaultHook>,
    /// Where a blocking store's calls from connections run; `None` for a
    /// store that does not block, called inline.
    io: Option<Pool>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("lifecycle", &self.lifecycle)
            .finish()
    }
}

/// A store failure, as the client sees it: a store that cannot be reached
/// now (a database down or restarting) changed nothing, so the request
/// may be sent again, and the answer says so ([`ErrorObject::unavailable`]:
/// `-32000` with `data.retryable`, on HTTP 503 with `Retry-After`); any
/// other failure is a fault (`-32603`, details only in the log).
fn fault(e: StoreError) -> ExtensionError {
    if e.kind == StoreErrorKind::Unavailable {
        tracing::warn!(error = %e, "task store unavailable; answered as retryable");
        return ExtensionError::Protocol(ErrorObject::unavailable(
            "Service unavailable: the task store cannot be reached; try again",
        ));
    }
    ExtensionError::Fault(e.to_string())
}

fn not_found(action: &str) -> ExtensionError {
    ExtensionError::Protocol(ErrorObject::invalid_params(format!(
        "Failed to {action} task: Task not found"
    )))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Engine {
    /// An engine over `store`.
    pub fn new(store: Arc<dyn Store>, lifecycle: Lifecycle) -> Engine {
        let io = store.is_blocking().then(|| Pool::new(DEFAULT_IO_THREADS));
        Engine {
            store,
            lifecycle,
            notices: Mutex::new(Notices::default()),
            wake: Mutex::new(None),
            faults: None,
            io,
        }
    }

    /// Run a blocking store's calls from connections on at most `threads`
    /// threads (default [`DEFAULT_IO_THREADS`]; at least one). Threads
    /// start when work waits and end when idle. No effect over a store
    /// that does not block.
    pub fn with_io_threads(mut self, threads: usize) -> Engine {
        if self.io.is_some() {
            self.io = Some(Pool::new(threads));
        }
        self
    }

    /// `call` as the future a deferred answer to a connection awaits.
    /// Over a blocking store it runs on the engine's I/O threads, and the
    /// future only waits for it: whatever polls the future (a connection's
    /// loop, an executor's thread) never blocks. Over a store that does
    /// not block it runs inline on the first poll, as any handler does.
    pub(crate) fn deferred<T, F>(self: &Arc<Self>, call: F) -> BoxFuture<Result<T, ExtensionError>>
    where
        T: Send + 'static,
        F: FnOnce(&Engine) -> Result<T, ExtensionError> + Send + 'static,
    {
        let engine = self.clone();
        match &self.io {
            None => Box::pin(async move { call(&engine) }),
            Some(pool) => {
                let run = pool.run(move || call(&engine));
                Box::pin(async move {
                    run.await
                        .unwrap_or_else(|lost| Err(ExtensionError::Fault(lost.to_string())))
                })
            }
        }
    }

    /// Call `hook` at this engine's and its runners' [fault
    /// points](crate::fault): [`FaultPoint::BeforeClaim`] and
    /// [`FaultPoint::AfterWork`].
    pub fn with_fault_hook(mut self, hook: FaultHook) -> Engine {
        self.faults = Some(hook);
        self
    }

    pub(crate) fn reach(&self, point: FaultPoint<'_>) {
        fault::reach(self.faults.as_ref(), point);
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Called after every notice (the runner's driver wakes on it).
    pub(crate) fn set_wake(&self, wake: Option<Wake>) {
        *lock(&self.wake) = wake;
    }

    /// Wake the runner's driver (a run's first progress report).
    pub(crate) fn ring(&self) {
        let wake = lock(&self.wake).clone();
        if let Some(w) = wake {
            w();
        }
    }

    fn notice_work(&self) {
        lock(&self.notices).work = true;
        self.ring();
    }

    fn notice_cancelled(&self, id: &TaskId) {
        {
            let mut n = lock(&self.notices);
            if n.cancelled.len() < MAX_NOTICES {
                n.cancelled.push(id.clone());
            } else {
                n.rescan = true;
            }
        }
        self.ring();
    }

    pub(crate) fn take_notices(&self) -> Notices {
        std::mem::take(&mut *lock(&self.notices))
    }

    /// Publish `record`'s current state to listen streams subscribed to it
    /// (`tasks.md` § Task Status Notifications: the full `DetailedTask`),
    /// scoped to its principal.
    fn publish(hub: Option<&Hub>, record: &TaskRecord) {
        if let Some(hub) = hub {
            hub.publish(ChangeEvent::Extension(ExtensionEvent::new(
                TASKS,
                record.id.as_str(),
                Some(record.principal.clone()),
                "notifications/tasks",
                &record.detailed(),
            )));
        }
    }

    /// Create a task for `principal` running `work`, durably, before
    /// returning it (§ Task Creation: no `CreateTaskResult` before a
    /// `tasks/get` would resolve it).
    pub fn create(
        &self,
        principal: String,
        work: WorkDescriptor,
        now: Instant,
        hub: Option<&Hub>,
    ) -> Result<TaskRecord, ExtensionError> {
        let now_ms = millis(now);
        if self.store.len().map_err(fault)? >= self.lifecycle.max_tasks {
            self.reap(now).map_err(fault)?;
            if self.store.len().map_err(fault)? >= self.lifecycle.max_tasks {
                tracing::warn!(max = self.lifecycle.max_tasks, "task store full");
                return Err(ExtensionError::Protocol(ErrorObject::internal(
                    "Too many tasks are stored; try again later",
                )));
            }
        }
        let id = TaskId::random()
            .ok_or_else(|| ExtensionError::Fault(String::from("no random source for a task id")))?;
        let record = TaskRecord {
            id,
            principal,
            status: Status::Working,
            status_message: None,
            created_at_ms: now_ms,
            last_updated_at_ms: now_ms,
            ttl_ms: self.lifecycle.ttl.map(ms).map(|t| t.max(1)),
            poll_interval_ms: self.lifecycle.poll_interval.map(ms).map(|p| p.max(1)),
            result: None,
            error: None,
            work,
            inputs: Default::default(),
            pending: Vec::new(),
            pending_state: None,
            resume: None,
            generation: 0,
            lease: None,
            attempts: 0,
            rounds: 0,
        };
        self.store.create(&record).map_err(fault)?;
        tracing::debug!(task = %record.id, tool = %record.work.tool, "task created");
        Self::publish(hub, &record);
        self.notice_work();
        Ok(record)
    }

    /// Read a task as `principal` sees it: another principal's task, a
    /// malformed id and an unknown id are all "not found" (§ Security
    /// Considerations: nothing reveals another caller's tasks).
    fn visible(
        &self,
        principal: &str,
        id: &str,
        action: &str,
        now_ms: u64,
    ) -> Result<(TaskId, TaskRecord), ExtensionError> {
        let id = TaskId::parse(id).ok_or_else(|| not_found(action))?;
        let record = self.store.get(&id).map_err(fault)?;
        match record {
            Some(r) if r.principal == principal => {
                if r.expired(now_ms) {
                    return Err(ExtensionError::Protocol(ErrorObject::invalid_params(
                        format!("Failed to {action} task: Task has expired"),
                    )));
                }
                Ok((id, r))
            }
            _ => Err(not_found(action)),
        }
    }

    /// `tasks/get`.
    pub fn get(
        &self,
        principal: &str,
        id: &str,
        now: Instant,
    ) -> Result<TaskRecord, ExtensionError> {
        self.visible(principal, id, "retrieve", millis(now))
            .map(|(_, r)| r)
    }

    /// `tasks/update`: accept answers to outstanding input requests, and
    /// store them before returning (the acknowledgement follows; the very
    /// next `tasks/get` reflects them). Answers to keys not outstanding are
    /// ignored (§ Task Update Requests), as are answers to a task not
    /// waiting for input. A malformed answer to an outstanding key refuses
    /// the whole update (`-32602`), as MRTR refuses it on a retry.
    pub fn update(
        &self,
        principal: &str,
        id: &str,
        answers: &Map<String, Value>,
        now: Instant,
        hub: Option<&Hub>,
    ) -> Result<(), ExtensionError> {
        let now_ms = millis(now);
        let (id, _) = self.visible(principal, id, "update", now_ms)?;
        let mut refused: Option<ErrorObject> = None;
        let mut changed = false;
        let after = self
            .store
            .update(&id, &mut |r| {
                changed = false;
                if r.status != Status::InputRequired || r.principal != principal {
                    return false;
                }
                let outstanding = r.outstanding();
                let round = match Round::answering(&outstanding, answers, None) {
                    Ok(round) => round,
                    Err(e) => {
                        refused = Some(e);
                        return false;
                    }
                };
                if round.responses().is_empty() {
                    return false;
                }
                for (k, v) in round.responses() {
                    if let Some(entry) = r.inputs.get_mut(k) {
                        entry.response = Some(v.clone());
                    }
                }
                if r.outstanding().is_empty() {
                    let responses = r
                        .pending
                        .iter()
                        .filter_map(|k| Some((k.clone(), r.inputs.get(k)?.response.clone()?)))
                        .collect();
                    r.resume = Some(Answers {
                        responses,
                        state: r.pending_state.clone(),
                    });
                    r.set_status(Status::Working, None, now_ms);
                } else {
                    r.last_updated_at_ms = now_ms.max(r.last_updated_at_ms);
                }
                changed = true;
                true
            })
            .map_err(fault)?;
        if let Some(e) = refused {
            return Err(ExtensionError::Protocol(e));
        }
        if let (true, Some(r)) = (changed, after) {
            tracing::debug!(task = %r.id, status = r.status.as_str(), "input accepted");
            Self::publish(hub, &r);
            if r.status == Status::Working {
                self.notice_work();
            }
        }
        Ok(())
    }

    /// `tasks/cancel`: a task not yet terminal becomes `cancelled` at once,
    /// fencing out its worker; a terminal one is left as it is. Both are
    /// acknowledged alike (§ Task Cancellation).
    pub fn cancel(
        &self,
        principal: &str,
        id: &str,
        now: Instant,
        hub: Option<&Hub>,
    ) -> Result<(), ExtensionError> {
        let now_ms = millis(now);
        let (id, _) = self.visible(principal, id, "cancel", now_ms)?;
        let mut changed = false;
        let after = self
            .store
            .update(&id, &mut |r| {
                changed = !r.status.is_terminal();
                if changed {
                    r.set_status(
                        Status::Cancelled,
                        Some(String::from("The task was cancelled by the client")),
                        now_ms,
                    );
                    r.lease = None;
                    r.generation += 1;
                }
                changed
            })
            .map_err(fault)?;
        if let (true, Some(r)) = (changed, after) {
            tracing::debug!(task = %r.id, "task cancelled");
            Self::publish(hub, &r);
            self.notice_cancelled(&r.id);
        }
        Ok(())
    }

    /// Claim one claimable task not in `skip`, leasing it until `now +
    /// lease`. An expired lease is claimable: that is how a crashed worker's
    /// (or process's) tasks are recovered.
    pub fn claim(
        &self,
        now: Instant,
        lease: Duration,
        skip: &BTreeSet<TaskId>,
    ) -> Result<Option<Claim>, StoreError> {
        let now_ms = millis(now);
        let until_ms = now_ms.saturating_add(ms(lease));
        let mut candidates = self.store.claim_candidates(now_ms)?;
        // Start at a random place: claimers that read the same candidates
        // at once (threads, processes, replicas) then rarely race for the
        // same task, and wait for each other's row or file lock less.
        let start = random_index(candidates.len());
        candidates.rotate_left(start);
        for id in candidates {
            if skip.contains(&id) {
                continue;
            }
            // A read first: most tasks are not claimable, and a read does
            // not take the store's write lock.
            let claimable = |r: &TaskRecord| r.claimable(now_ms) && !r.expired(now_ms);
            if !self.store.get(&id)?.is_some_and(|r| claimable(&r)) {
                continue;
            }
            self.reach(FaultPoint::BeforeClaim { task: &id });
            let mut claimed = false;
            let after = self.store.update(&id, &mut |r| {
                claimed = claimable(r);
                if claimed {
                    r.generation += 1;
                    r.lease = Some(Lease {
                        generation: r.generation,
                        until_ms,
                    });
                    r.attempts = r.attempts.saturating_add(1);
                    // A new run has reported nothing: the progress a dead
                    // run left would describe work about to be redone.
                    if r.status_message.is_some() {
                        r.set_status(Status::Working, None, now_ms);
                    }
                }
                claimed
            })?;
            if let (true, Some(record)) = (claimed, after) {
                if record.attempts > 1 {
                    tracing::info!(task = %record.id, attempt = record.attempts, "task reclaimed");
                }
                let generation = record.generation;
                return Ok(Some(Claim { record, generation }));
            }
        }
        Ok(None)
    }

    /// Extend a claim's lease; false if the claim is no longer current.
    pub fn renew(
        &self,
        id: &TaskId,
        generation: u64,
        now: Instant,
        lease: Duration,
    ) -> Result<bool, StoreError> {
        let renewed = self.renew_reporting(id, generation, now, lease, None, None)?;
        Ok(renewed != Renewed::Lost)
    }

    /// Extend a claim's lease and, in the same fenced update, show
    /// `status_message` (the run's latest progress report) as the task's
    /// `statusMessage` (`tasks.md` § Tasks: "progress descriptions for
    /// `working`"). When the message changed, `lastUpdatedAt` moves and
    /// the task is published to its listen streams (§ Task Status
    /// Notifications); `None`, or the message the task already shows,
    /// changes nothing beyond the lease, and publishes nothing.
    pub fn renew_reporting(
        &self,
        id: &TaskId,
        generation: u64,
        now: Instant,
        lease: Duration,
        status_message: Option<&str>,
        hub: Option<&Hub>,
    ) -> Result<Renewed, StoreError> {
        let now_ms = millis(now);
        let until_ms = now_ms.saturating_add(ms(lease));
        let mut renewed = Renewed::Lost;
        let after = self.store.update(id, &mut |r| {
            let current =
                r.status == Status::Working && r.lease.is_some_and(|l| l.generation == generation);
            if !current {
                renewed = Renewed::Lost;
                return false;
            }
            r.lease = Some(Lease {
                generation,
                until_ms,
            });
            renewed = Renewed::Held;
            if let Some(message) = status_message {
                if r.status_message.as_deref() != Some(message) {
                    r.status_message = Some(String::from(message));
                    r.last_updated_at_ms = now_ms.max(r.last_updated_at_ms);
                    renewed = Renewed::Reported;
                }
            }
            true
        })?;
        if let (Renewed::Reported, Some(r)) = (renewed, &after) {
            Self::publish(hub, r);
        }
        Ok(renewed)
    }

    /// Give a claim up so another worker may take the task at once.
    pub fn release(&self, id: &TaskId, generation: u64) -> Result<(), StoreError> {
        let mut released = false;
        self.store.update(id, &mut |r| {
            released = r.lease.is_some_and(|l| l.generation == generation);
            if released {
                r.lease = None;
            }
            released
        })?;
        if released {
            self.notice_work();
        }
        Ok(())
    }

    /// Whether `generation` still holds task `id`.
    pub(crate) fn holds(&self, id: &TaskId, generation: u64) -> Result<bool, StoreError> {
        Ok(self.store.get(id)?.is_some_and(|r| {
            r.status == Status::Working && r.lease.is_some_and(|l| l.generation == generation)
        }))
    }

    /// Record what a run ended with, if the claim is still current.
    pub fn commit(
        &self,
        id: &TaskId,
        generation: u64,
        commit: Commit,
        now: Instant,
        hub: Option<&Hub>,
    ) -> Result<Committed, StoreError> {
        let now_ms = millis(now);
        let max_rounds = self.lifecycle.max_rounds;
        let mut applied = false;
        let after = self.store.update(id, &mut |r| {
            applied =
                r.status == Status::Working && r.lease.is_some_and(|l| l.generation == generation);
            if applied {
                apply(r, commit.clone(), now_ms, max_rounds);
            }
            applied
        })?;
        match (applied, after) {
            (true, Some(r)) => {
                tracing::debug!(task = %r.id, status = r.status.as_str(), "run committed");
                Self::publish(hub, &r);
                if r.status == Status::Working {
                    // Every answer was already given: run again at once.
                    self.notice_work();
                }
                Ok(Committed::Applied(r.status))
            }
            _ => {
                tracing::debug!(task = %id, generation, "stale commit fenced out");
                Ok(Committed::Fenced)
            }
        }
    }

    /// Delete tasks whose TTL elapsed (§ Task Polling: servers MAY delete
    /// them after the TTL). Returns how many.
    pub fn reap(&self, now: Instant) -> Result<usize, StoreError> {
        let gone = self.store.remove_expired(millis(now))?;
        for id in &gone {
            self.notice_cancelled(id);
        }
        let n = gone.len();
        if n > 0 {
            tracing::debug!(reaped = n, "expired tasks deleted");
        }
        Ok(n)
    }
}

/// A random index below `len` (0 when empty, or without a random source).
fn random_index(len: usize) -> usize {
    let mut bytes = [0u8; 8];
    if len == 0 || getrandom::fill(&mut bytes).is_err() {
        return 0;
    }
    usize::try_from(u64::from_le_bytes(bytes) % len as u64).unwrap_or(0)
}

/// Apply a run's end to a working task it holds.
fn apply(r: &mut TaskRecord, commit: Commit, now_ms: u64, max_rounds: u32) {
    r.lease = None;
    match commit {
        Commit::Complete(result) => {
            r.result = Some(result);
            r.set_status(Status::Completed, None, now_ms);
        }
        Commit::Fail(error) => {
            // § Task Execution Errors: a diagnostic statusMessage and the error.
            let message = format!("Tool execution failed: {}", error.message);
            r.error = Some(error);
            r.set_status(Status::Failed, Some(message), now_ms);
        }
        Commit::Input { requests, state } => {
            r.rounds = r.rounds.saturating_add(1);
            if r.rounds > max_rounds {
                tracing::error!(task = %r.id, max_rounds, "the tool keeps asking for input");
                return apply(
                    r,
                    Commit::Fail(ErrorObject::internal(
                        "The tool asked for input too many times",
                    )),
                    now_ms,
                    max_rounds,
                );
            }
            // § Task Update Requests: a key names one request over the
            // task's lifetime. The same request again (a run repeated after
            // recovery) gets its stored answer replayed; another request
            // under a used key is refused.
            for (key, request) in &requests {
                match r.inputs.get(key) {
                    Some(e) if &e.request != request => {
                        tracing::error!(task = %r.id, key = %key, "input request key reused for a different request");
                        return apply(
                            r,
                            Commit::Fail(ErrorObject::internal(
                                "The tool reused an input request key for a different request",
                            )),
                            now_ms,
                            max_rounds,
                        );
                    }
                    Some(_) => {}
                    None => {
                        r.inputs.insert(
                            key.clone(),
                            InputEntry {
                                request: request.clone(),
                                response: None,
                            },
                        );
                    }
                }
            }
            r.pending = requests.keys().cloned().collect();
            r.pending_state = state.clone();
            if r.outstanding().is_empty() {
                let responses = r
                    .pending
                    .iter()
                    .filter_map(|k| Some((k.clone(), r.inputs.get(k)?.response.clone()?)))
                    .collect();
                r.resume = Some(Answers { responses, state });
                r.last_updated_at_ms = now_ms.max(r.last_updated_at_ms);
            } else {
                r.set_status(
                    Status::InputRequired,
                    Some(String::from("Waiting for input from the client")),
                    now_ms,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{DiskStore, MemoryStore};
    use std::task::{Context, Poll, Waker};
    use std::thread::{self, ThreadId};

    fn here(engine: &Arc<Engine>) -> BoxFuture<Result<ThreadId, ExtensionError>> {
        engine.deferred(|_| Ok(thread::current().id()))
    }

    #[test]
    fn a_memory_store_is_answered_inline_on_the_first_poll() {
        let engine = Arc::new(Engine::new(
            Arc::new(MemoryStore::new()),
            Lifecycle::default(),
        ));
        let mut cx = Context::from_waker(Waker::noop());
        let polled = here(&engine).as_mut().poll(&mut cx);
        assert_eq!(polled, Poll::Ready(Ok(thread::current().id())));
    }

    #[test]
    fn a_disk_store_is_answered_from_another_thread() {
        let dir =
            std::env::temp_dir().join(format!("snodo-tasks-engine-io-{}", std::process::id()));
        let store = DiskStore::open(&dir).expect("opens");
        let engine = Arc::new(Engine::new(Arc::new(store), Lifecycle::default()));
        let mut f = here(&engine);
        let mut cx = Context::from_waker(Waker::noop());
        let ran_on = loop {
            match f.as_mut().poll(&mut cx) {
                Poll::Ready(v) => break v.expect("ran"),
                Poll::Pending => thread::sleep(std::time::Duration::from_millis(1)),
            }
        };
        assert_ne!(ran_on, thread::current().id());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
