//! Tasks on local disk, durable across crashes, shared by the processes
//! that open the same directory.
//!
//! Layout of a store directory:
//!
//! ```text
//! DIR/store.json          {"format":"snodo-tasks","version":1}
//! DIR/store.lock          the lock processes share the store by (empty)
//! DIR/tasks/<id>.json     one task: a header line, then the task's JSON
//! ```
//!
//! A task file is two lines: `{"format":"snodo-tasks/task","version":1,
//! "sha256":"<hex>"}` and the task record as JSON, whose exact bytes the
//! checksum covers. Every write goes to `<id>.json.tmp`, is fsynced,
//! renamed over `<id>.json`, and the directory is fsynced: a task file is
//! either the old or the new version, never a mix, and a write that
//! returned is on disk. A `.tmp` left by a crash was never acknowledged
//! (its write had not returned) and is removed at open.
//!
//! Opening refuses, with an error naming the file, a store or task file of
//! an unknown format or version, a task file whose checksum or JSON is
//! wrong, and any file this store would not have written. Nothing is
//! repaired silently.
//!
//! Processes may share a directory (a runner recovering a stalled or dead
//! process's tasks while it still runs, `crate::runner` § Recovery). The
//! files are the only state: every read reads the file under the
//! directory's lock held shared, every change reads the file, changes it
//! and writes it back under the lock held exclusively ([`lock`](super::lock)).
//! A change made by one process is therefore what the next operation of
//! any process sees, and the engine's rules, fencing by claim generation
//! above all, hold across processes as they do across threads: a stalled
//! worker's late commit is refused once another process reclaimed the
//! task. A read waits for a write under way to be fsynced, so nothing is
//! seen before it is durable. Changes are serialized (one fsync pair per
//! change). A file read again with the header line of a version this
//! store already verified (the header carries the body's checksum) is not
//! verified and parsed again.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::lock::DirLock;
use super::{Store, StoreError, StoreErrorKind};
use crate::fault::{self, FaultHook, FaultPoint};
use crate::id::TaskId;
use crate::record::TaskRecord;

const STORE_FORMAT: &str = "snodo-tasks";
const TASK_FORMAT: &str = "snodo-tasks/task";
/// The on-disk version this build writes and reads.
pub const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreHeader {
    format: String,
    version: u32,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskHeader {
    format: String,
    version: u32,
    sha256: String,
}

/// A [`Store`] in a directory on local disk.
pub struct DiskStore {
    dir: PathBuf,
    tasks_dir: PathBuf,
    lock: DirLock,
    /// The versions this store read or wrote, by the header line of their
    /// file (which carries the body's checksum): a file read again with
    /// the same header is not verified and parsed again.
    known: Mutex<BTreeMap<TaskId, (Vec<u8>, TaskRecord)>>,
    faults: Option<FaultHook>,
}

impl std::fmt::Debug for DiskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiskStore").field("dir", &self.dir).finish()
    }
}

fn io(path: &Path, what: &str, e: std::io::Error) -> StoreError {
    StoreError::new(
        StoreErrorKind::Io,
        Some(path.to_path_buf()),
        format!("{what}: {e}"),
    )
}

fn corrupt(path: &Path, why: impl Into<String>) -> StoreError {
    StoreError::new(StoreErrorKind::Corrupt, Some(path.to_path_buf()), why)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Write `bytes` to `path` atomically and durably: a fsynced temporary
/// file renamed into place, then the directory fsynced. With a fault hook,
/// the first half is written and fsynced alone, and the hook told
/// ([`FaultPoint::PartialWrite`] of `record`) before the rest follows.
fn write_atomic(
    dir: &Path,
    path: &Path,
    bytes: &[u8],
    torn: Option<(&FaultHook, &TaskRecord)>,
) -> Result<(), StoreError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .map_err(|e| io(&tmp, "cannot create", e))?;
    let mut rest = bytes;
    if let Some((hook, record)) = torn {
        let (first, second) = bytes.split_at(bytes.len() / 2);
        f.write_all(first)
            .map_err(|e| io(&tmp, "cannot write", e))?;
        f.sync_data().map_err(|e| io(&tmp, "cannot fsync", e))?;
        fault::reach(
            Some(hook),
            FaultPoint::PartialWrite {
                record,
                written: first.len(),
                total: bytes.len(),
            },
        );
        rest = second;
    }
    f.write_all(rest).map_err(|e| io(&tmp, "cannot write", e))?;
    f.sync_all().map_err(|e| io(&tmp, "cannot fsync", e))?;
    drop(f);
    fs::rename(&tmp, path).map_err(|e| io(path, "cannot rename into place", e))?;
    sync_dir(dir)
}

fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io(dir, "cannot fsync the directory", e))
}

/// A task file's bytes.
fn encode(record: &TaskRecord) -> Result<Vec<u8>, StoreError> {
    let body = serde_json::to_vec(record).map_err(|e| {
        StoreError::new(
            StoreErrorKind::Io,
            None,
            format!("cannot serialize task {}: {e}", record.id),
        )
    })?;
    let header = TaskHeader {
        format: String::from(TASK_FORMAT),
        version: VERSION,
        sha256: hex(&Sha256::digest(&body)),
    };
    let mut out = serde_json::to_vec(&header).unwrap_or_default();
    out.push(b'\n');
    out.extend_from_slice(&body);
    out.push(b'\n');
    Ok(out)
}

/// Read and verify one task file.
fn decode(path: &Path, bytes: &[u8]) -> Result<TaskRecord, StoreError> {
    let Some(split) = bytes.iter().position(|&b| b == b'\n') else {
        return Err(corrupt(
            path,
            "no header line (truncated or not a task file)",
        ));
    };
    let header: TaskHeader = serde_json::from_slice(&bytes[..split]).map_err(|e| {
        StoreError::new(
            StoreErrorKind::UnknownFormat,
            Some(path.to_path_buf()),
            format!("the header is not a snodo-tasks task header: {e}"),
        )
    })?;
    if header.format != TASK_FORMAT || header.version != VERSION {
        return Err(StoreError::new(
            StoreErrorKind::UnknownFormat,
            Some(path.to_path_buf()),
            format!(
                "format {:?} version {}; this build reads {TASK_FORMAT:?} version {VERSION}",
                header.format, header.version
            ),
        ));
    }
    let body = &bytes[split + 1..];
    let body = body.strip_suffix(b"\n").unwrap_or(body);
    if hex(&Sha256::digest(body)) != header.sha256 {
        return Err(corrupt(
            path,
            "checksum mismatch: the task record was altered or partly written",
        ));
    }
    serde_json::from_slice(body)
        .map_err(|e| corrupt(path, format!("the task record does not parse: {e}")))
}

const MARKER: &str = "store.json";
const MARKER_TMP: &str = "store.json.tmp";
const LOCK: &str = "store.lock";
const TASKS: &str = "tasks";

fn unknown_file(path: PathBuf) -> StoreError {
    StoreError::new(
        StoreErrorKind::UnknownFile,
        Some(path),
        "a file this store did not write",
    )
}

/// The names in `dir`.
fn names(dir: &Path) -> Result<Vec<(std::ffi::OsString, PathBuf)>, StoreError> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| io(dir, "cannot list", e))? {
        let entry = entry.map_err(|e| io(dir, "cannot list", e))?;
        out.push((entry.file_name(), entry.path()));
    }
    Ok(out)
}

/// What a name in the tasks directory is.
enum Entry {
    Task(TaskId),
    /// A write that never returned (its process died before the rename).
    Interrupted,
}

fn entry(name: &std::ffi::OsStr, path: &Path) -> Result<Entry, StoreError> {
    let name = name.to_string_lossy();
    if let Some(id) = name.strip_suffix(".json").and_then(TaskId::parse) {
        return Ok(Entry::Task(id));
    }
    if name
        .strip_suffix(".json.tmp")
        .and_then(TaskId::parse)
        .is_some()
    {
        return Ok(Entry::Interrupted);
    }
    Err(unknown_file(path.to_path_buf()))
}

/// A task file's first line, the header (all of it if there is no newline).
fn header_line(bytes: &[u8]) -> &[u8] {
    bytes.split(|&b| b == b'\n').next().unwrap_or_default()
}

/// Verify task file `bytes` of task `id`, read from `path`.
fn decode_task(path: &Path, id: &TaskId, bytes: &[u8]) -> Result<TaskRecord, StoreError> {
    let record = decode(path, bytes)?;
    if &record.id != id {
        return Err(corrupt(path, format!("holds task {}, not {id}", record.id)));
    }
    Ok(record)
}

impl DiskStore {
    /// Open the store in `dir`, creating it if `dir` is missing or empty.
    /// Verifies every task; refuses the whole store on the first
    /// unreadable, unknown or corrupt file (see the module docs). Other
    /// processes may have it open too.
    pub fn open(dir: impl AsRef<Path>) -> Result<DiskStore, StoreError> {
        let dir = dir.as_ref().to_path_buf();
        let tasks_dir = dir.join(TASKS);
        let marker = dir.join(MARKER);
        fs::create_dir_all(&dir).map_err(|e| io(&dir, "cannot create the store directory", e))?;
        // Before writing anything into it: a directory that is neither a
        // store nor empty (but for a store being created by another
        // process) is not ours.
        if !marker.exists() {
            for (name, _) in names(&dir)? {
                if name != LOCK && name != MARKER_TMP && name != MARKER {
                    return Err(StoreError::new(
                        StoreErrorKind::UnknownFile,
                        Some(dir),
                        "the directory is not empty and holds no store.json: not a snodo-tasks store",
                    ));
                }
            }
        }
        let lock = DirLock::new(dir.join(LOCK));
        let held = lock.exclusive()?;
        let marker_tmp = dir.join(MARKER_TMP);
        if marker_tmp.exists() {
            // Creating the store was interrupted before it returned.
            fs::remove_file(&marker_tmp).map_err(|e| io(&marker_tmp, "cannot remove", e))?;
        }
        match fs::read(&marker) {
            Ok(bytes) => {
                let header: StoreHeader = serde_json::from_slice(&bytes).map_err(|e| {
                    StoreError::new(
                        StoreErrorKind::UnknownFormat,
                        Some(marker.clone()),
                        format!("not a snodo-tasks store marker: {e}"),
                    )
                })?;
                if header.format != STORE_FORMAT || header.version != VERSION {
                    return Err(StoreError::new(
                        StoreErrorKind::UnknownFormat,
                        Some(marker),
                        format!(
                            "format {:?} version {}; this build reads {STORE_FORMAT:?} version {VERSION}",
                            header.format, header.version
                        ),
                    ));
                }
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {
                let header = StoreHeader {
                    format: String::from(STORE_FORMAT),
                    version: VERSION,
                };
                let bytes = serde_json::to_vec(&header).unwrap_or_default();
                write_atomic(&dir, &marker, &bytes, None)?;
            }
            Err(e) => return Err(io(&marker, "cannot read", e)),
        }
        fs::create_dir_all(&tasks_dir)
            .map_err(|e| io(&tasks_dir, "cannot create the tasks directory", e))?;
        for (name, path) in names(&dir)? {
            if name != MARKER && name != TASKS && name != LOCK {
                return Err(unknown_file(path));
            }
        }
        // Alone with the store: any `.tmp` is a dead writer's.
        for (name, path) in names(&tasks_dir)? {
            match entry(&name, &path)? {
                Entry::Task(id) => {
                    let bytes = fs::read(&path).map_err(|e| io(&path, "cannot read", e))?;
                    decode_task(&path, &id, &bytes)?;
                }
                Entry::Interrupted => {
                    tracing::warn!(path = %path.display(), "removing an interrupted write");
                    fs::remove_file(&path).map_err(|e| io(&path, "cannot remove", e))?;
                }
            }
        }
        sync_dir(&tasks_dir)?;
        drop(held);
        Ok(DiskStore {
            dir,
            tasks_dir,
            lock,
            known: Mutex::default(),
            faults: None,
        })
    }

    /// Call `hook` at this store's [fault point](crate::fault),
    /// [`FaultPoint::PartialWrite`], in the middle of every task write.
    pub fn with_fault_hook(mut self, hook: FaultHook) -> DiskStore {
        self.faults = Some(hook);
        self
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, id: &TaskId) -> PathBuf {
        self.tasks_dir.join(format!("{id}.json"))
    }

    fn known(&self) -> MutexGuard<'_, BTreeMap<TaskId, (Vec<u8>, TaskRecord)>> {
        // Entries are replaced whole; a panic cannot leave one half made.
        self.known.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Task `id` as its file holds it now; the caller holds the lock.
    fn read(&self, id: &TaskId) -> Result<Option<TaskRecord>, StoreError> {
        let path = self.path(id);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                self.known().remove(id);
                return Ok(None);
            }
            Err(e) => return Err(io(&path, "cannot read", e)),
        };
        let header = header_line(&bytes);
        if let Some((known, record)) = self.known().get(id) {
            if known.as_slice() == header {
                return Ok(Some(record.clone()));
            }
        }
        let record = decode_task(&path, id, &bytes)?;
        self.known()
            .insert(id.clone(), (header.to_vec(), record.clone()));
        Ok(Some(record))
    }

    fn persist(&self, record: &TaskRecord) -> Result<(), StoreError> {
        let bytes = encode(record)?;
        let torn = self.faults.as_ref().map(|h| (h, record));
        write_atomic(&self.tasks_dir, &self.path(&record.id), &bytes, torn)?;
        self.known().insert(
            record.id.clone(),
            (header_line(&bytes).to_vec(), record.clone()),
        );
        Ok(())
    }

    /// The tasks stored now; the caller holds the lock.
    fn list(&self) -> Result<Vec<TaskId>, StoreError> {
        let mut ids = Vec::new();
        for (name, path) in names(&self.tasks_dir)? {
            if let Entry::Task(id) = entry(&name, &path)? {
                ids.push(id);
            }
        }
        ids.sort();
        Ok(ids)
    }
}

impl Store for DiskStore {
    fn create(&self, record: &TaskRecord) -> Result<(), StoreError> {
        let _held = self.lock.exclusive()?;
        let path = self.path(&record.id);
        if path.exists() {
            return Err(StoreError::new(
                StoreErrorKind::Exists,
                Some(path),
                "a task with this id already exists",
            ));
        }
        self.persist(record)
    }

    fn get(&self, id: &TaskId) -> Result<Option<TaskRecord>, StoreError> {
        let _held = self.lock.shared()?;
        self.read(id)
    }

    fn update(
        &self,
        id: &TaskId,
        change: &mut dyn FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, StoreError> {
        let _held = self.lock.exclusive()?;
        let Some(stored) = self.read(id)? else {
            return Ok(None);
        };
        let mut next = stored.clone();
        if !change(&mut next) {
            return Ok(Some(stored));
        }
        self.persist(&next)?;
        Ok(Some(next))
    }

    fn remove(&self, id: &TaskId) -> Result<bool, StoreError> {
        let _held = self.lock.exclusive()?;
        let path = self.path(id);
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(io(&path, "cannot remove", e)),
        }
        self.known().remove(id);
        sync_dir(&self.tasks_dir)?;
        Ok(true)
    }

    fn ids(&self) -> Result<Vec<TaskId>, StoreError> {
        let _held = self.lock.shared()?;
        self.list()
    }

    fn len(&self) -> Result<usize, StoreError> {
        let _held = self.lock.shared()?;
        Ok(self.list()?.len())
    }
}
