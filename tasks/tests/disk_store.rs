//! The durable store: what is written survives reopening; a corrupt,
//! truncated, foreign or unknown-version file refuses the store with an
//! error naming the file; an interrupted write is discarded; and a task
//! claimed by a process that died is recovered from disk once its lease
//! lapses, with its accepted input intact. Two stores open on one
//! directory (as two processes) see each other's every change, so a stale
//! commit through one is fenced after a reclaim through the other; and a
//! write torn by a crash (a fault hook that dies half-way) is discarded.

mod support;

use std::collections::BTreeSet;
use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Map};
use snodo_proto::Instant;
use snodo_tasks::{
    Answers, Commit, Committed, DiskStore, Engine, FaultHook, FaultPoint, Lifecycle, Status, Store,
    StoreErrorKind, TaskId, WorkDescriptor,
};
use support::{req, task_id, World, DECLARED, T0};

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        TempDir(std::env::temp_dir().join(format!("snodo-disk-{tag}-{}-{n}", std::process::id())))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn work() -> WorkDescriptor {
    WorkDescriptor {
        tool: String::from("echo"),
        arguments: json!({"text": "kept"}).as_object().unwrap().clone(),
        meta: Map::new(),
        answers: Answers::default(),
        idempotency_key: String::from("00000000000000000000000000000001"),
    }
}

/// A store in `dir` holding one task; returns its id and file.
fn one_task(dir: &Path) -> (TaskId, PathBuf) {
    let store = Arc::new(DiskStore::open(dir).expect("opens"));
    let engine = Engine::new(store, Lifecycle::default());
    let r = engine
        .create(
            String::from("anonymous"),
            work(),
            Instant::from_millis(T0),
            None,
        )
        .expect("created");
    let file = dir.join("tasks").join(format!("{}.json", r.id));
    (r.id, file)
}

#[test]
fn what_is_written_is_read_back_after_reopening() {
    let dir = TempDir::new("reopen");
    let (id, file) = one_task(&dir.0);
    assert!(file.exists());
    let text = fs::read_to_string(&file).unwrap();
    let mut lines = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["format"], "snodo-tasks/task");
    assert_eq!(header["version"], 1);
    assert_eq!(header["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(
        fs::read_to_string(dir.0.join("store.json")).unwrap(),
        r#"{"format":"snodo-tasks","version":1}"#
    );
    let store = DiskStore::open(&dir.0).expect("reopens");
    let r = store.get(&id).unwrap().expect("the task survived");
    assert_eq!(r.work, work());
    assert_eq!(r.created_at_ms, T0);
    // A change is durable too.
    store
        .update(&id, &mut |r| {
            r.status_message = Some(String::from("changed"));
            true
        })
        .unwrap();
    drop(store);
    let store = DiskStore::open(&dir.0).unwrap();
    assert_eq!(
        store.get(&id).unwrap().unwrap().status_message.as_deref(),
        Some("changed")
    );
    assert!(store.remove(&id).unwrap());
    drop(store);
    assert!(!file.exists());
    assert_eq!(DiskStore::open(&dir.0).unwrap().len().unwrap(), 0);
}

fn refused(dir: &Path) -> (StoreErrorKind, String) {
    let e = DiskStore::open(dir).expect_err("the store must be refused");
    (e.kind, e.to_string())
}

#[test]
fn a_flipped_byte_is_a_checksum_mismatch() {
    let dir = TempDir::new("flip");
    let (_, file) = one_task(&dir.0);
    let mut bytes = fs::read(&file).unwrap();
    let i = bytes.windows(4).position(|w| w == b"kept").unwrap();
    bytes[i] = b'K';
    fs::write(&file, bytes).unwrap();
    let (kind, msg) = refused(&dir.0);
    assert_eq!(kind, StoreErrorKind::Corrupt);
    assert!(msg.contains(&file.display().to_string()), "{msg}");
    assert!(msg.contains("checksum mismatch"), "{msg}");
}

#[test]
fn a_truncated_file_is_corrupt() {
    let dir = TempDir::new("trunc");
    let (_, file) = one_task(&dir.0);
    let bytes = fs::read(&file).unwrap();
    fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    assert_eq!(refused(&dir.0).0, StoreErrorKind::Corrupt);
    fs::write(&file, b"").unwrap();
    assert_eq!(refused(&dir.0).0, StoreErrorKind::Corrupt);
}

#[test]
fn unknown_versions_and_formats_are_refused() {
    let dir = TempDir::new("version");
    let (_, file) = one_task(&dir.0);
    let text = fs::read_to_string(&file).unwrap();
    fs::write(&file, text.replacen("\"version\":1", "\"version\":2", 1)).unwrap();
    let (kind, msg) = refused(&dir.0);
    assert_eq!(kind, StoreErrorKind::UnknownFormat);
    assert!(
        msg.contains("version 2; this build reads \"snodo-tasks/task\" version 1"),
        "{msg}"
    );
    fs::write(&file, text).unwrap();
    assert!(DiskStore::open(&dir.0).is_ok());
    fs::write(
        dir.0.join("store.json"),
        r#"{"format":"snodo-tasks","version":7}"#,
    )
    .unwrap();
    let (kind, msg) = refused(&dir.0);
    assert_eq!(kind, StoreErrorKind::UnknownFormat);
    assert!(msg.contains("store.json"), "{msg}");
    fs::write(
        dir.0.join("store.json"),
        r#"{"format":"someone-else","version":1}"#,
    )
    .unwrap();
    assert_eq!(refused(&dir.0).0, StoreErrorKind::UnknownFormat);
}

#[test]
fn a_valid_checksum_over_an_unknown_record_is_still_refused() {
    use sha2::{Digest, Sha256};
    let dir = TempDir::new("fields");
    let (id, file) = one_task(&dir.0);
    let text = fs::read_to_string(&file).unwrap();
    let body = text.lines().nth(1).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(body).unwrap();
    v["surprise"] = json!(true);
    let body = serde_json::to_string(&v).unwrap();
    let sum: String = Sha256::digest(body.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    fs::write(
        &file,
        format!("{{\"format\":\"snodo-tasks/task\",\"version\":1,\"sha256\":\"{sum}\"}}\n{body}\n"),
    )
    .unwrap();
    let (kind, msg) = refused(&dir.0);
    assert_eq!(kind, StoreErrorKind::Corrupt);
    assert!(msg.contains("does not parse"), "{msg}");
    // A record filed under another task's name.
    let other = "0123456789abcdef0123456789abcdef";
    assert_ne!(id.as_str(), other);
    fs::remove_file(&file).unwrap();
    let (_, file2) = one_task(&dir.0);
    fs::rename(&file2, dir.0.join("tasks").join(format!("{other}.json"))).unwrap();
    let (kind, msg) = refused(&dir.0);
    assert_eq!(kind, StoreErrorKind::Corrupt);
    assert!(msg.contains(&format!("not {other}")), "{msg}");
}

#[test]
fn foreign_files_are_refused_and_interrupted_writes_discarded() {
    let dir = TempDir::new("foreign");
    let (id, file) = one_task(&dir.0);
    fs::write(dir.0.join("tasks").join("notes.txt"), b"hi").unwrap();
    assert_eq!(refused(&dir.0).0, StoreErrorKind::UnknownFile);
    fs::remove_file(dir.0.join("tasks").join("notes.txt")).unwrap();
    fs::write(dir.0.join("stray"), b"").unwrap();
    assert_eq!(refused(&dir.0).0, StoreErrorKind::UnknownFile);
    fs::remove_file(dir.0.join("stray")).unwrap();
    // A half-written replacement left by a crash: never acknowledged, dropped.
    let tmp = PathBuf::from(format!("{}.tmp", file.display()));
    fs::write(&tmp, b"{\"format\":\"snodo-tasks/task\"").unwrap();
    let store = DiskStore::open(&dir.0).expect("opens");
    assert!(!tmp.exists());
    assert!(store.get(&id).unwrap().is_some());
    // A non-empty directory that is not a store.
    let other = TempDir::new("notastore");
    fs::create_dir_all(&other.0).unwrap();
    fs::write(other.0.join("data.bin"), b"x").unwrap();
    assert_eq!(refused(&other.0).0, StoreErrorKind::UnknownFile);
}

#[test]
fn a_claimed_task_is_recovered_from_disk_after_its_process_died() {
    let dir = TempDir::new("recover");
    let first = Arc::new(DiskStore::open(&dir.0).unwrap());
    let mut w = World::new(first);
    let id = task_id(&w.call(&req(1, "tools/call", r#""name":"ask""#, DECLARED)));
    w.settle();
    w.call(&req(2, "tasks/update", &format!(r#""taskId":"{id}","inputResponses":{{"confirm":{{"action":"accept","content":{{"confirm":true}}}}}}"#), DECLARED));
    // The re-run is claimed, then the process "dies": nothing is released.
    w.tick();
    assert_eq!(w.held.len(), 1);
    let died_at = w.now;
    drop(w);
    // A new process on the same directory.
    let mut w = World::new(Arc::new(DiskStore::open(&dir.0).unwrap()));
    w.now = died_at;
    w.advance(1_000);
    w.tick();
    assert!(w.held.is_empty(), "the dead process's lease still holds");
    w.advance(10_000);
    w.settle();
    let t = w.call(&req(
        3,
        "tasks/get",
        &format!(r#""taskId":"{id}""#),
        DECLARED,
    ));
    assert_eq!(t["result"]["status"], "completed");
    assert_eq!(
        t["result"]["result"]["content"],
        json!([{"type":"text","text":"confirmed"}])
    );
    let record = w
        .runner
        .engine()
        .store()
        .get(&TaskId::parse(&id).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(
        record.attempts, 3,
        "first run, the run that died, the recovery"
    );
}

fn result(by: &str) -> Map<String, serde_json::Value> {
    json!({"content": [{"type": "text", "text": by}]})
        .as_object()
        .unwrap()
        .clone()
}

#[test]
fn two_stores_on_one_directory_share_every_change_and_fence_a_stale_commit() {
    let dir = TempDir::new("shared");
    let a = Engine::new(
        Arc::new(DiskStore::open(&dir.0).unwrap()),
        Lifecycle::default(),
    );
    let b = Engine::new(
        Arc::new(DiskStore::open(&dir.0).unwrap()),
        Lifecycle::default(),
    );
    let at = |ms: u64| Instant::from_millis(T0 + ms);
    let lease = Duration::from_secs(3);
    let none = BTreeSet::new();
    let task = a
        .create(String::from("anonymous"), work(), at(0), None)
        .unwrap();
    assert_eq!(b.store().ids().unwrap(), vec![task.id.clone()]);

    let by_a = a.claim(at(0), lease, &none).unwrap().expect("A claims");
    assert!(
        b.claim(at(1_000), lease, &none).unwrap().is_none(),
        "A's lease holds for B"
    );
    // A stalls past its lease; B reclaims and completes.
    let by_b = b
        .claim(at(4_000), lease, &none)
        .unwrap()
        .expect("B reclaims");
    assert_eq!(by_b.generation, by_a.generation + 1);
    assert_eq!(
        b.commit(
            &task.id,
            by_b.generation,
            Commit::Complete(result("B")),
            at(4_100),
            None
        )
        .unwrap(),
        Committed::Applied(Status::Completed)
    );
    // A resumes and commits under its old claim: refused, B's result stands.
    assert!(!a
        .renew(&task.id, by_a.generation, at(4_200), lease)
        .unwrap());
    assert_eq!(
        a.commit(
            &task.id,
            by_a.generation,
            Commit::Complete(result("A")),
            at(4_200),
            None
        )
        .unwrap(),
        Committed::Fenced
    );
    for engine in [&a, &b] {
        let r = engine.store().get(&task.id).unwrap().unwrap();
        assert_eq!(r.status, Status::Completed);
        assert_eq!(r.result, Some(result("B")));
        assert_eq!((r.attempts, r.generation), (2, 2));
    }
    // Removal through one is seen through the other.
    assert!(a.store().remove(&task.id).unwrap());
    assert!(b.store().get(&task.id).unwrap().is_none());
    assert!(!b.store().remove(&task.id).unwrap());
    assert_eq!(b.store().len().unwrap(), 0);
}

#[test]
fn a_write_torn_by_a_crash_is_discarded_at_the_next_open() {
    let dir = TempDir::new("torn");
    let (id, file) = one_task(&dir.0);
    let before = fs::read(&file).unwrap();
    let reached = Arc::new(Mutex::new(None));
    let seen = reached.clone();
    let hook: FaultHook = Arc::new(move |point: &FaultPoint<'_>| {
        if let FaultPoint::PartialWrite { written, total, .. } = point {
            *seen.lock().unwrap() = Some((point.name(), *written, *total));
        }
        panic!("the process dies here");
    });
    let store = DiskStore::open(&dir.0).unwrap().with_fault_hook(hook);
    let died = catch_unwind(AssertUnwindSafe(|| {
        store.update(&id, &mut |r| {
            r.status = Status::Completed;
            r.result = Some(result("never"));
            true
        })
    }));
    assert!(died.is_err(), "the hook was reached");
    let (name, written, total) = reached.lock().unwrap().expect("a partial write");
    assert_eq!(name, "mid-commit");
    let tmp = PathBuf::from(format!("{}.tmp", file.display()));
    let torn = fs::read(&tmp).expect("the torn version is on disk");
    assert_eq!(torn.len(), written);
    assert!(0 < written && written < total);
    assert_eq!(
        fs::read(&file).unwrap(),
        before,
        "the old version is intact"
    );
    drop(store);
    let store = DiskStore::open(&dir.0).expect("reopens");
    assert!(!tmp.exists(), "the torn write is discarded");
    let r = store.get(&id).unwrap().unwrap();
    assert_eq!(r.status, Status::Working);
    assert_eq!(r.result, None);
}
