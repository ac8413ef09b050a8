//! The store contract: what every [`Store`] must do, whatever keeps the
//! tasks (memory, files, SQLite, PostgreSQL). One suite, instantiated per
//! store with `store_contract!`: `tasks/tests/store_contract.rs` for the
//! memory and disk stores, `tasks-sql/tests/store_contract.rs` for the
//! databases.
//!
//! Every store: create/read/remove/list, `update` applying a change or
//! leaving the task as it was, claims with leases and fencing by
//! generation, renewal (carrying a run's progress as `statusMessage`,
//! published only when it changed), recovery of a lapsed claim, cancellation fencing
//! a running claim, accepted input replayed to the next run, TTL reaping
//! (once, however many reapers), and several threads claiming at once,
//! each through its own handle on the store, with every task completed
//! exactly once. A durable store also: everything survives a restart (the
//! store dropped and opened again on the same place), and several
//! processes claiming at once complete every task exactly once.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use serde_json::{json, Map, Value};
use snodo_proto::Instant;
use snodo_tasks::{
    Answers, Commit, Committed, Engine, Lifecycle, Status, Store, StoreErrorKind, TaskId,
    TaskRecord, WorkDescriptor,
};

/// 2026-07-28T00:00:00Z.
pub const T0: u64 = 1_785_196_800_000;

/// Where one test's store lives; cleaned up when dropped.
pub struct Place {
    /// What [`Kit::open`] is given.
    pub at: String,
    cleanup: Option<Box<dyn FnOnce()>>,
}

impl Place {
    /// A place at `at`, cleaned up by `cleanup`.
    pub fn new(at: String, cleanup: impl FnOnce() + 'static) -> Place {
        Place {
            at,
            cleanup: Some(Box::new(cleanup)),
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some(c) = self.cleanup.take() {
            c();
        }
    }
}

/// How to make and open one kind of store.
pub struct Kit {
    /// A fresh, empty place, or why this store is not tested here.
    pub fresh: fn() -> Result<Place, String>,
    /// A handle on the store at a place: called again, a restart (or
    /// another process's or thread's handle on the same store).
    pub open: fn(&str) -> Arc<dyn Store>,
}

impl Kit {
    fn place(&self) -> Option<Place> {
        match (self.fresh)() {
            Ok(p) => Some(p),
            Err(why) => {
                println!("{why}");
                None
            }
        }
    }
}

/// A unique name for this process's `n`th place of `tag`.
pub fn unique(tag: &str) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{tag}_{}_{}_{}",
        std::process::id(),
        nanos,
        N.fetch_add(1, Ordering::SeqCst)
    )
}

fn at(ms: u64) -> Instant {
    Instant::from_millis(T0 + ms)
}

fn lifecycle() -> Lifecycle {
    Lifecycle {
        ttl: Some(Duration::from_secs(60)),
        poll_interval: Some(Duration::from_millis(250)),
        max_tasks: 1000,
        max_rounds: 8,
    }
}

fn engine(store: Arc<dyn Store>) -> Engine {
    Engine::new(store, lifecycle())
}

fn work(tag: &str) -> WorkDescriptor {
    WorkDescriptor {
        tool: String::from("echo"),
        arguments: json!({"text": tag})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        meta: Map::new(),
        answers: Answers::default(),
        idempotency_key: format!("{:0>32}", tag.len()),
    }
}

fn result(by: &str) -> Map<String, Value> {
    json!({"content": [{"type": "text", "text": by}]})
        .as_object()
        .cloned()
        .unwrap_or_default()
}

const LEASE: Duration = Duration::from_secs(10);

fn none() -> BTreeSet<TaskId> {
    BTreeSet::new()
}

fn create(e: &Engine, tag: &str, ms: u64) -> TaskRecord {
    e.create(String::from("alice"), work(tag), at(ms), None)
        .expect("created")
}

pub fn create_read_remove_and_list(kit: &Kit) {
    let Some(place) = kit.place() else { return };
    let store = (kit.open)(&place.at);
    assert_eq!(store.len().unwrap(), 0);
    assert!(store.is_empty().unwrap());
    let e = engine(store.clone());
    let a = create(&e, "a", 0);
    let b = create(&e, "b", 1);
    assert_eq!(store.get(&a.id).unwrap().as_ref(), Some(&a));
    assert_eq!(store.get(&b.id).unwrap().as_ref(), Some(&b));
    let err = store.create(&a).expect_err("the same id twice");
    assert_eq!(err.kind, StoreErrorKind::Exists);
    assert_eq!(store.get(&a.id).unwrap().as_ref(), Some(&a), "unchanged");
    let mut ids = store.ids().unwrap();
    ids.sort();
    let mut want = vec![a.id.clone(), b.id.clone()];
    want.sort();
    assert_eq!(ids, want);
    assert_eq!(store.len().unwrap(), 2);
    assert!(store.remove(&a.id).unwrap());
    assert!(!store.remove(&a.id).unwrap(), "removed once");
    assert_eq!(store.get(&a.id).unwrap(), None);
    assert_eq!(store.ids().unwrap(), vec![b.id.clone()]);
    let unknown = TaskId::parse("0123456789abcdef0123456789abcdef").unwrap();
    assert_eq!(store.get(&unknown).unwrap(), None);
}

pub fn update_applies_a_change_or_leaves_the_task_as_it_was(kit: &Kit) {
    let Some(place) = kit.place() else { return };
    let store = (kit.open)(&place.at);
    let e = engine(store.clone());
    let t = create(&e, "u", 0);
    // Refused: nothing stored, the stored task returned.
    let after = store
        .update(&t.id, &mut |r| {
            r.status_message = Some(String::from("not kept"));
            false
        })
        .unwrap();
    assert_eq!(after.as_ref(), Some(&t));
    assert_eq!(store.get(&t.id).unwrap().as_ref(), Some(&t));
    // Applied: stored, and returned as stored.
    let after = store
        .update(&t.id, &mut |r| {
            r.status_message = Some(String::from("kept"));
            true
        })
        .unwrap()
        .expect("exists");
    assert_eq!(after.status_message.as_deref(), Some("kept"));
    assert_eq!(store.get(&t.id).unwrap(), Some(after));
    // No such task: the change is never called.
    let unknown = TaskId::parse("0123456789abcdef0123456789abcdef").unwrap();
    let mut called = false;
    let none = store
        .update(&unknown, &mut |_| {
            called = true;
            true
        })
        .unwrap();
    assert_eq!((none, called), (None, false));
}

pub fn claims_are_leased_renewed_recovered_and_fenced_by_generation(kit: &Kit) {
    let Some(place) = kit.place() else { return };
    let store = (kit.open)(&place.at);
    let e = engine(store.clone());
    let t = create(&e, "claim", 0);
    let first = e.claim(at(0), LEASE, &none()).unwrap().expect("claimable");
    assert_eq!(
        (first.record.id.clone(), first.generation),
        (t.id.clone(), 1)
    );
    assert!(
        e.claim(at(5_000), LEASE, &none()).unwrap().is_none(),
        "a live lease holds"
    );
    // Renewed at 8s: holds until 18s.
    assert!(e.renew(&t.id, 1, at(8_000), LEASE).unwrap());
    assert!(e.claim(at(15_000), LEASE, &none()).unwrap().is_none());
    // Lapsed at 18s: recovered by another worker, a new generation.
    let second = e
        .claim(at(18_000), LEASE, &none())
        .unwrap()
        .expect("recovered");
    assert_eq!(second.generation, 2);
    assert_eq!(second.record.attempts, 2);
    // The first worker is fenced out: no renewal, no commit.
    assert!(!e.renew(&t.id, 1, at(18_100), LEASE).unwrap());
    assert_eq!(
        e.commit(
            &t.id,
            1,
            Commit::Complete(result("first")),
            at(18_200),
            None
        )
        .unwrap(),
        Committed::Fenced
    );
    assert_eq!(
        e.commit(
            &t.id,
            2,
            Commit::Complete(result("second")),
            at(18_300),
            None
        )
        .unwrap(),
        Committed::Applied(Status::Completed)
    );
    let done = store.get(&t.id).unwrap().expect("kept");
    assert_eq!(done.status, Status::Completed);
    assert_eq!(done.result, Some(result("second")));
    assert_eq!(done.lease, None);
    // Terminal: never claimed, committed or cancelled again.
    assert!(e.claim(at(40_000), LEASE, &none()).unwrap().is_none());
    assert_eq!(
        e.commit(
            &t.id,
            2,
            Commit::Complete(result("again")),
            at(18_400),
            None
        )
        .unwrap(),
        Committed::Fenced
    );
    e.cancel("alice", t.id.as_str(), at(18_500), None).unwrap();
    assert_eq!(store.get(&t.id).unwrap(), Some(done));
}

pub fn a_release_frees_the_task_and_a_skip_list_is_honoured(kit: &Kit) {
    let Some(place) = kit.place() else { return };
    let e = engine((kit.open)(&place.at));
    let t = create(&e, "release", 0);
    let skip: BTreeSet<TaskId> = [t.id.clone()].into();
    assert!(e.claim(at(0), LEASE, &skip).unwrap().is_none(), "skipped");
    let c = e.claim(at(0), LEASE, &none()).unwrap().expect("claimed");
    e.release(&t.id, c.generation).unwrap();
    let again = e
        .claim(at(1), LEASE, &none())
        .unwrap()
        .expect("free at once");
    assert_eq!(again.generation, c.generation + 1);
}

/// A store that counts the writes made through it: `update`s whose change
/// was stored.
pub struct Counting {
    inner: Arc<dyn Store>,
    writes: std::sync::atomic::AtomicUsize,
}

impl Counting {
    /// `inner`, counted.
    pub fn new(inner: Arc<dyn Store>) -> Counting {
        Counting {
            inner,
            writes: Default::default(),
        }
    }

    /// Writes so far.
    pub fn writes(&self) -> usize {
        self.writes.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Store for Counting {
    fn create(&self, record: &TaskRecord) -> Result<(), snodo_tasks::StoreError> {
        self.inner.create(record)
    }
    fn get(&self, id: &TaskId) -> Result<Option<TaskRecord>, snodo_tasks::StoreError> {
        self.inner.get(id)
    }
    fn update(
        &self,
        id: &TaskId,
        change: &mut dyn FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, snodo_tasks::StoreError> {
        let mut wrote = false;
        let after = self.inner.update(id, &mut |r| {
            wrote = change(r);
            wrote
        })?;
        if wrote {
            self.writes
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        Ok(after)
    }
    fn remove(&self, id: &TaskId) -> Result<bool, snodo_tasks::StoreError> {
        self.inner.remove(id)
    }
    fn ids(&self) -> Result<Vec<TaskId>, snodo_tasks::StoreError> {
        self.inner.ids()
    }
    fn len(&self) -> Result<usize, snodo_tasks::StoreError> {
        self.inner.len()
    }
    fn claim_candidates(&self, now_ms: u64) -> Result<Vec<TaskId>, snodo_tasks::StoreError> {
        self.inner.claim_candidates(now_ms)
    }
    fn is_blocking(&self) -> bool {
        self.inner.is_blocking()
    }
}

/// `tasks.md` § Tasks: `statusMessage` carries "progress descriptions for
/// `working`". A renewal carries the run's latest progress into the task
/// in its own fenced write: a new message moves `lastUpdatedAt` and is
/// published (§ Task Status Notifications) once; the same message again,
/// or none, is the renewal's write alone, with nothing published; a stale
/// claim writes and publishes nothing.
pub fn a_renewal_shows_the_latest_progress_and_publishes_only_a_change(kit: &Kit) {
    use snodo_proto::{ChangeEvent, Hub};
    use snodo_tasks::Renewed;
    let Some(place) = kit.place() else { return };
    let store = Arc::new(Counting::new((kit.open)(&place.at)));
    let hub = Hub::default();
    let published: Arc<std::sync::Mutex<Vec<Value>>> = Arc::default();
    let seen = published.clone();
    hub.set_tap(Some(Arc::new(move |event: &ChangeEvent| {
        if let ChangeEvent::Extension(e) = event {
            seen.lock().unwrap().push(Value::Object(e.params()));
        }
    })));
    let e = engine(store.clone());
    let t = create(&e, "progress", 0);
    let c = e.claim(at(0), LEASE, &none()).unwrap().expect("claimed");
    let writes = store.writes();

    let renewed = e
        .renew_reporting(
            &t.id,
            c.generation,
            at(1_000),
            LEASE,
            Some("1 of 3 read"),
            Some(&hub),
        )
        .unwrap();
    assert_eq!(renewed, Renewed::Reported);
    assert_eq!(
        store.writes(),
        writes + 1,
        "one write: the lease and the message together"
    );
    let r = store.get(&t.id).unwrap().expect("kept");
    assert_eq!(r.status, Status::Working);
    assert_eq!(r.status_message.as_deref(), Some("1 of 3 read"));
    assert_eq!(r.last_updated_at_ms, T0 + 1_000);
    assert_eq!(r.lease.map(|l| l.until_ms), Some(T0 + 11_000));
    let detailed = Value::Object(r.detailed());
    assert_eq!(detailed["statusMessage"], "1 of 3 read");
    assert_eq!(
        *published.lock().unwrap(),
        vec![detailed.clone()],
        "published once, the whole task"
    );

    // The same message: the lease only, nothing published.
    let renewed = e
        .renew_reporting(
            &t.id,
            c.generation,
            at(4_000),
            LEASE,
            Some("1 of 3 read"),
            Some(&hub),
        )
        .unwrap();
    assert_eq!(renewed, Renewed::Held);
    // No message: the same.
    assert!(e.renew(&t.id, c.generation, at(7_000), LEASE).unwrap());
    assert_eq!(store.writes(), writes + 3, "a write per renewal, none more");
    let r = store.get(&t.id).unwrap().expect("kept");
    assert_eq!(r.status_message.as_deref(), Some("1 of 3 read"), "kept");
    assert_eq!(
        r.last_updated_at_ms,
        T0 + 1_000,
        "not moved by a bare renewal"
    );
    assert_eq!(published.lock().unwrap().len(), 1);

    // A stale claim: nothing written, nothing published.
    let renewed = e
        .renew_reporting(
            &t.id,
            c.generation + 1,
            at(8_000),
            LEASE,
            Some("2 of 3 read"),
            Some(&hub),
        )
        .unwrap();
    assert_eq!(renewed, Renewed::Lost);
    assert_eq!(store.writes(), writes + 3);
    assert_eq!(published.lock().unwrap().len(), 1);

    // The outcome replaces the progress.
    let done = e
        .commit(
            &t.id,
            c.generation,
            Commit::Complete(result("done")),
            at(9_000),
            Some(&hub),
        )
        .unwrap();
    assert_eq!(done, Committed::Applied(Status::Completed));
    let r = store.get(&t.id).unwrap().expect("kept");
    assert_eq!(r.status_message, None);
    assert_eq!(published.lock().unwrap().len(), 2);
}

pub fn a_cancel_fences_the_running_claim(kit: &Kit) {
    let Some(place) = kit.place() else { return };
    let store = (kit.open)(&place.at);
    let e = engine(store.clone());
    let t = create(&e, "cancel", 0);
    let c = e.claim(at(0), LEASE, &none()).unwrap().expect("claimed");
    e.cancel("alice", t.id.as_str(), at(100), None).unwrap();
    assert_eq!(
        e.commit(
            &t.id,
            c.generation,
            Commit::Complete(result("late")),
            at(200),
            None
        )
        .unwrap(),
        Committed::Fenced
    );
    let r = store.get(&t.id).unwrap().expect("kept");
    assert_eq!(r.status, Status::Cancelled);
    assert_eq!((r.result, r.lease), (None, None));
    assert!(r.generation > c.generation, "the cancel moved the fence");
    assert!(e.claim(at(30_000), LEASE, &none()).unwrap().is_none());
}

fn confirm() -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Really?",
        "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}}})
}

fn ask() -> Commit {
    Commit::Input {
        requests: [(String::from("confirm"), confirm())].into_iter().collect(),
        state: Some(json!({"step": 1})),
    }
}

pub fn accepted_input_is_stored_and_replayed_to_the_next_run(kit: &Kit) {
    let Some(place) = kit.place() else { return };
    let store = (kit.open)(&place.at);
    let e = engine(store.clone());
    let t = create(&e, "input", 0);
    let c = e.claim(at(0), LEASE, &none()).unwrap().expect("claimed");
    assert_eq!(
        e.commit(&t.id, c.generation, ask(), at(10), None).unwrap(),
        Committed::Applied(Status::InputRequired)
    );
    assert!(
        e.claim(at(20), LEASE, &none()).unwrap().is_none(),
        "waits for input"
    );
    let answer: Map<String, Value> =
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}})
            .as_object()
            .cloned()
            .unwrap_or_default();
    e.update("alice", t.id.as_str(), &answer, at(30), None)
        .unwrap();
    let waiting = store.get(&t.id).unwrap().expect("kept");
    assert_eq!(waiting.status, Status::Working);
    assert_eq!(
        waiting.inputs["confirm"].response,
        Some(answer["confirm"].clone())
    );
    // The next run starts from the answer and the handler's state.
    let run = e
        .claim(at(40), LEASE, &none())
        .unwrap()
        .expect("runs again");
    assert_eq!(run.record.next_answers().responses, answer);
    assert_eq!(run.record.next_answers().state, Some(json!({"step": 1})));
    // That run asks the same again (a replay after recovery): the stored
    // answer is replayed, the task stays working, no second round trip.
    assert_eq!(
        e.commit(&t.id, run.generation, ask(), at(50), None)
            .unwrap(),
        Committed::Applied(Status::Working)
    );
    let replay = e.claim(at(60), LEASE, &none()).unwrap().expect("again");
    assert_eq!(replay.record.next_answers().responses, answer);
    assert_eq!(
        e.commit(
            &t.id,
            replay.generation,
            Commit::Complete(result("yes")),
            at(70),
            None
        )
        .unwrap(),
        Committed::Applied(Status::Completed)
    );
}

pub fn expired_tasks_are_reaped_once_and_never_claimed(kit: &Kit) {
    let Some(place) = kit.place() else { return };
    let store = (kit.open)(&place.at);
    let e = engine(store.clone());
    // TTL 60s from creation at 0 and at 30s.
    let old = create(&e, "old", 0);
    let young = create(&e, "young", 30_000);
    assert!(store.remove_expired(T0 + 59_999).unwrap().is_empty());
    // Expired but not yet reaped: not claimable.
    assert_eq!(
        e.claim(at(60_000), LEASE, &none())
            .unwrap()
            .map(|c| c.record.id),
        Some(young.id.clone())
    );
    // Two reapers: each task deleted once.
    let other = (kit.open)(&place.at);
    assert_eq!(
        store.remove_expired(T0 + 60_000).unwrap(),
        vec![old.id.clone()]
    );
    assert!(other.remove_expired(T0 + 60_000).unwrap().is_empty());
    assert_eq!(e.reap(at(90_000)).unwrap(), 1);
    assert_eq!(store.len().unwrap(), 0);
    assert_eq!(e.reap(at(90_000)).unwrap(), 0);
}

/// Claim and complete until nothing is left; the ids this worker
/// completed (its commit applied).
fn work_through(store: Arc<dyn Store>, by: &str) -> Vec<TaskId> {
    let e = engine(store);
    let mut done = Vec::new();
    while let Some(c) = e.claim(at(1_000), LEASE, &none()).expect("claims") {
        match e
            .commit(
                &c.record.id,
                c.generation,
                Commit::Complete(result(by)),
                at(1_001),
                None,
            )
            .expect("commits")
        {
            Committed::Applied(Status::Completed) => done.push(c.record.id),
            other => panic!("{by}: a fresh claim's commit was {other:?}"),
        }
    }
    done
}

/// Every task completed once, by the worker its result names.
fn completed_exactly_once(store: &dyn Store, tasks: &[TaskId], by: &BTreeMap<String, Vec<TaskId>>) {
    let mut seen = BTreeMap::new();
    for (worker, ids) in by {
        for id in ids {
            assert!(
                seen.insert(id.clone(), worker.clone()).is_none(),
                "{id} completed twice"
            );
        }
    }
    assert_eq!(seen.len(), tasks.len(), "every task completed: {by:?}");
    for id in tasks {
        let r = store.get(id).unwrap().expect("kept");
        assert_eq!(r.status, Status::Completed);
        assert_eq!(
            r.result,
            Some(result(&seen[id])),
            "{id}'s result is its committer's"
        );
        assert_eq!((r.attempts, r.generation), (1, 1), "{id} claimed once");
    }
}

fn seed(store: &Arc<dyn Store>, n: usize) -> Vec<TaskId> {
    let e = engine(store.clone());
    (0..n).map(|i| create(&e, &format!("t{i}"), 0).id).collect()
}

pub fn concurrent_claimers_complete_every_task_exactly_once(kit: &Kit) {
    let Some(place) = kit.place() else { return };
    let store = (kit.open)(&place.at);
    let tasks = seed(&store, 60);
    let workers = 6;
    let start = Arc::new(Barrier::new(workers));
    let threads: Vec<_> = (0..workers)
        .map(|w| {
            let handle = (kit.open)(&place.at);
            let start = start.clone();
            std::thread::spawn(move || {
                let by = format!("thread-{w}");
                start.wait();
                let done = work_through(handle, &by);
                (by, done)
            })
        })
        .collect();
    let by: BTreeMap<_, _> = threads
        .into_iter()
        .map(|t| t.join().expect("a claimer panicked"))
        .collect();
    completed_exactly_once(&*store, &tasks, &by);
}

pub fn a_restart_keeps_every_task_claim_and_answer(kit: &Kit) {
    let Some(place) = kit.place() else { return };
    let (asked, claimed, done) = {
        let store = (kit.open)(&place.at);
        let e = engine(store.clone());
        let asked = create(&e, "asked", 0);
        let c = e.claim(at(0), LEASE, &none()).unwrap().expect("claimed");
        e.commit(&asked.id, c.generation, ask(), at(10), None)
            .unwrap();
        let answer = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
        e.update(
            "alice",
            asked.id.as_str(),
            answer.as_object().unwrap(),
            at(20),
            None,
        )
        .unwrap();
        let claimed = create(&e, "claimed", 30);
        let both: BTreeSet<TaskId> = (0..2)
            .map(|_| {
                e.claim(at(30), LEASE, &none())
                    .unwrap()
                    .expect("claimed")
                    .record
                    .id
            })
            .collect();
        assert_eq!(both, [asked.id.clone(), claimed.id.clone()].into());
        let done = create(&e, "done", 40);
        let c3 = e.claim(at(40), LEASE, &none()).unwrap().expect("claimed");
        e.commit(
            &done.id,
            c3.generation,
            Commit::Complete(result("done")),
            at(50),
            None,
        )
        .unwrap();
        let read = |id: &TaskId| store.get(id).unwrap().expect("kept");
        (read(&asked.id), read(&claimed.id), read(&done.id))
        // The store is dropped here: the process "restarts".
    };
    let store = (kit.open)(&place.at);
    for before in [&asked, &claimed, &done] {
        assert_eq!(store.get(&before.id).unwrap().as_ref(), Some(before));
    }
    assert_eq!(store.len().unwrap(), 3);
    let e = engine(store.clone());
    assert!(
        e.claim(at(5_000), LEASE, &none()).unwrap().is_none(),
        "leases survive"
    );
    // After the leases lapse both working tasks are recovered, with the
    // answer replayed, and the stale claims stay fenced.
    let mut recovered = BTreeMap::new();
    while let Some(c) = e.claim(at(40_000), LEASE, &none()).unwrap() {
        recovered.insert(c.record.id.clone(), c);
    }
    assert_eq!(
        recovered.keys().collect::<BTreeSet<_>>(),
        [&asked.id, &claimed.id].into_iter().collect()
    );
    assert!(recovered[&asked.id]
        .record
        .next_answers()
        .responses
        .contains_key("confirm"));
    assert_eq!(
        e.commit(
            &claimed.id,
            claimed.generation,
            Commit::Complete(result("stale")),
            at(40_001),
            None
        )
        .unwrap(),
        Committed::Fenced
    );
}

/// The variable that makes a re-run of this test binary a claimer.
pub const CHILD: &str = "SNODO_CONTRACT_CLAIMER";

/// Several processes (this test binary run again as claimers) and this
/// one claim from one store at once; every task is completed once.
pub fn claimers_in_several_processes_complete_every_task_once(kit: &Kit, test: &str) {
    use std::io::{BufRead, BufReader, Read};
    if let Ok(at) = std::env::var(CHILD) {
        let by = format!("process-{}", std::process::id());
        let store = (kit.open)(&at);
        // The parent starts claiming once every claimer has its store
        // open: on a loaded machine a process can otherwise start after
        // the parent has taken every task.
        println!("ready");
        for id in work_through(store, &by) {
            println!("completed {by} {id}");
        }
        return;
    }
    let Some(place) = kit.place() else { return };
    let store = (kit.open)(&place.at);
    let tasks = seed(&store, 60);
    let exe = std::env::current_exe().expect("the test binary");
    let mut children: Vec<_> = (0..3)
        .map(|_| {
            std::process::Command::new(&exe)
                .args([test, "--exact", "--nocapture", "--test-threads=1"])
                .env(CHILD, &place.at)
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("a claimer process starts")
        })
        .collect();
    let mut outputs: Vec<_> = children
        .iter_mut()
        .map(|child| {
            let mut out = BufReader::new(child.stdout.take().expect("piped"));
            let mut line = String::new();
            // The harness's "running 1 test" comes first, and its
            // "test … … " precedes "ready" on its line.
            while !line.trim_end().ends_with("ready") {
                line.clear();
                let read = out.read_line(&mut line).expect("a claimer's output");
                assert!(read > 0, "a claimer process ended before it was ready");
            }
            out
        })
        .collect();
    let mine = work_through((kit.open)(&place.at), "parent");
    let mut by: BTreeMap<String, Vec<TaskId>> = BTreeMap::new();
    by.insert(String::from("parent"), mine);
    for (child, out) in children.iter_mut().zip(&mut outputs) {
        let mut text = String::new();
        out.read_to_string(&mut text).expect("a claimer's output");
        let status = child.wait().expect("a claimer process ends");
        assert!(status.success(), "a claimer process failed: {text}");
        // The harness's "test … … " may precede the first line.
        for line in text.lines() {
            let Some((_, said)) = line.split_once("completed ") else {
                continue;
            };
            let mut words = said.split(' ');
            if let (Some(who), Some(id)) = (words.next(), words.next()) {
                by.entry(who.to_owned())
                    .or_default()
                    .push(TaskId::parse(id).expect("a task id"));
            }
        }
    }
    assert!(by.len() >= 2, "more than one process took part: {by:?}");
    completed_exactly_once(&*store, &tasks, &by);
}

/// The contract's tests for one store: `store_contract!(name, kit)` for
/// any store, `store_contract!(name, kit, durable)` for one that keeps its
/// tasks across a restart and between processes.
macro_rules! store_contract {
    ($name:ident, $kit:expr $(, $durable:ident)?) => {
        mod $name {
            use super::*;
            #[test]
            fn create_read_remove_and_list() {
                contract::create_read_remove_and_list(&$kit)
            }
            #[test]
            fn update_applies_a_change_or_leaves_the_task_as_it_was() {
                contract::update_applies_a_change_or_leaves_the_task_as_it_was(&$kit)
            }
            #[test]
            fn claims_are_leased_renewed_recovered_and_fenced_by_generation() {
                contract::claims_are_leased_renewed_recovered_and_fenced_by_generation(&$kit)
            }
            #[test]
            fn a_release_frees_the_task_and_a_skip_list_is_honoured() {
                contract::a_release_frees_the_task_and_a_skip_list_is_honoured(&$kit)
            }
            #[test]
            fn a_renewal_shows_the_latest_progress_and_publishes_only_a_change() {
                contract::a_renewal_shows_the_latest_progress_and_publishes_only_a_change(&$kit)
            }
            #[test]
            fn a_cancel_fences_the_running_claim() {
                contract::a_cancel_fences_the_running_claim(&$kit)
            }
            #[test]
            fn accepted_input_is_stored_and_replayed_to_the_next_run() {
                contract::accepted_input_is_stored_and_replayed_to_the_next_run(&$kit)
            }
            #[test]
            fn expired_tasks_are_reaped_once_and_never_claimed() {
                contract::expired_tasks_are_reaped_once_and_never_claimed(&$kit)
            }
            #[test]
            fn concurrent_claimers_complete_every_task_exactly_once() {
                contract::concurrent_claimers_complete_every_task_exactly_once(&$kit)
            }
            $(store_contract!(@$durable, $kit);)?
        }
    };
    (@durable, $kit:expr) => {
        #[test]
        fn a_restart_keeps_every_task_claim_and_answer() {
            contract::a_restart_keeps_every_task_claim_and_answer(&$kit)
        }
        #[test]
        fn claimers_in_several_processes_complete_every_task_once() {
            // This test's name as the harness knows it (the crate's name
            // dropped from the module path), to run it again as a claimer.
            let path = module_path!();
            let module = path.split_once("::").map_or(path, |(_, m)| m);
            let test = format!("{module}::claimers_in_several_processes_complete_every_task_once");
            contract::claimers_in_several_processes_complete_every_task_once(&$kit, &test)
        }
    };
}
