//! Where tasks live: a [`Store`] trait and two implementations,
//! [`MemoryStore`] (a process's lifetime) and [`DiskStore`] (durable on
//! local disk, survives a crash, shared by the processes that open it).
//!
//! The trait is deliberately small: create, read, change atomically,
//! remove, list. The lifecycle rules (which transitions exist, leases,
//! fencing) live once in [`crate::engine`], on top of any store.

use std::fmt;
use std::path::PathBuf;

use crate::id::TaskId;
use crate::record::TaskRecord;

mod disk;
mod lock;
mod memory;

pub use disk::DiskStore;
pub use memory::MemoryStore;

/// Task storage. Every method is atomic with respect to the others; a
/// method that changes anything returns only once the change is as durable
/// as the store promises (for [`DiskStore`]: on disk, fsynced).
pub trait Store: Send + Sync + 'static {
    /// Add a new task. Once this returns `Ok`, [`get`](Store::get) finds it
    /// (`tasks.md` § Task Creation: no `CreateTaskResult` before that).
    fn create(&self, record: &TaskRecord) -> Result<(), StoreError>;

    /// The task `id`, if stored.
    fn get(&self, id: &TaskId) -> Result<Option<TaskRecord>, StoreError>;

    /// Apply `change` to task `id` atomically. If `change` returns true the
    /// new record is stored (durably) before this returns; if storing
    /// fails, the stored task is unchanged. Returns the record as stored
    /// afterwards, or `None` if there is no such task.
    fn update(
        &self,
        id: &TaskId,
        change: &mut dyn FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, StoreError>;

    /// Delete task `id`; whether it existed.
    fn remove(&self, id: &TaskId) -> Result<bool, StoreError>;

    /// Every stored task id.
    fn ids(&self) -> Result<Vec<TaskId>, StoreError>;

    /// How many tasks are stored.
    fn len(&self) -> Result<usize, StoreError>;

    /// Whether no task is stored.
    fn is_empty(&self) -> Result<bool, StoreError> {
        Ok(self.len()? == 0)
    }

    /// Ids of the tasks a worker may claim at `now_ms`: every one that is
    /// claimable, perhaps more (the engine checks each again inside
    /// [`update`](Store::update), where the claim is decided). A store may
    /// cap the list at a few hundred when more are claimable: the runner
    /// claims again on its next scan, so a cap delays work, never loses
    /// it. The default is every id; a database answers from an index on
    /// status, lease and expiry.
    fn claim_candidates(&self, now_ms: u64) -> Result<Vec<TaskId>, StoreError> {
        let _ = now_ms;
        self.ids()
    }

    /// Delete every task whose TTL elapsed at `now_ms`; the ids deleted.
    /// Each deletion is atomic, and a task is deleted once however many
    /// reapers race (`tasks.md` § Task Polling: servers MAY delete a task
    /// after its TTL). A task's creation time and TTL never change, so a
    /// task seen expired stays expired; the default reads each task and
    /// removes the expired ones, a database deletes them in one statement.
    fn remove_expired(&self, now_ms: u64) -> Result<Vec<TaskId>, StoreError> {
        let mut gone = Vec::new();
        for id in self.ids()? {
            if self.get(&id)?.is_some_and(|r| r.expired(now_ms)) && self.remove(&id)? {
                gone.push(id);
            }
        }
        Ok(gone)
    }

    /// Whether a call may block its thread: file or network I/O, fsyncs,
    /// a wait for a lock another process holds. The extension runs a
    /// blocking store's calls on threads of its own, never on a
    /// connection's loop or an executor (`snodo_proto::extension`,
    /// Blocking); a store that only touches memory says `false` and is
    /// called inline, without a thread hop. The default is the safe one.
    fn is_blocking(&self) -> bool {
        true
    }
}

/// What went wrong in a store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreErrorKind {
    /// Reading or writing failed.
    Io,
    /// A file does not hold what this store wrote (bad checksum, bad JSON,
    /// wrong id).
    Corrupt,
    /// A file is in a format or version this build does not read.
    UnknownFormat,
    /// A file this store did not write sits where only its files belong.
    UnknownFile,
    /// A task with that id already exists.
    Exists,
    /// The store cannot be reached now (a database down or restarting, no
    /// free connection in time). Nothing was changed; the call may be
    /// tried again.
    Unavailable,
}

/// A store failure, naming the file involved (a database store names
/// none: its detail says which database and table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError {
    /// The kind.
    pub kind: StoreErrorKind,
    /// The file or directory involved.
    pub path: Option<PathBuf>,
    /// What happened, in words.
    pub detail: String,
}

impl StoreError {
    /// An error of `kind` about `path` (or none), saying `detail`.
    pub fn new(kind: StoreErrorKind, path: Option<PathBuf>, detail: impl Into<String>) -> Self {
        StoreError {
            kind,
            path,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "task store {}: {}", p.display(), self.detail),
            None => write!(f, "task store: {}", self.detail),
        }
    }
}

impl std::error::Error for StoreError {}
