//! Fault points: the moments where a crash is most dangerous to a task,
//! and a hook called at each, so that a crash drill can stop or kill the
//! process exactly there.
//!
//! Recovery promises (see [`TaskRunner`](crate::TaskRunner), Recovery) are only as good
//! as the moments they were tried at. A kill at a random time almost always
//! lands while a handler runs; these are the narrow windows it almost never
//! hits:
//!
//! - [`FaultPoint::BeforeClaim`]: a runner chose a claimable task and has
//!   not recorded its claim. A crash here leaves no lease behind: the task
//!   is claimable at once by the next runner, and this attempt is not
//!   counted.
//! - [`FaultPoint::AfterWork`]: a run ended and its outcome is only in
//!   memory. A crash here loses the outcome but keeps the lease: the task
//!   runs again once the lease lapses (at least once), and if this process
//!   merely stalled, its late commit is fenced out by the newer claim.
//! - [`FaultPoint::PartialWrite`]: the [`DiskStore`](crate::DiskStore) has
//!   part of a task's next version on disk, fsynced, not yet renamed into
//!   place. A crash here leaves a torn temporary file that the next open
//!   discards: the write never happened.
//!
//! A hook is installed per engine ([`Tasks::fault_hook`](crate::Tasks::fault_hook))
//! and per disk store ([`DiskStore::with_fault_hook`](crate::DiskStore::with_fault_hook));
//! without one, nothing is called and no write is split. The hook may
//! block, stop or kill the process; it must not call into the store (it
//! may be called while the store is locked).

use std::fmt;
use std::sync::Arc;

use crate::id::TaskId;
use crate::record::{Status, TaskRecord};

/// A dangerous moment in a task's life. See the [module docs](self).
#[derive(Debug)]
#[non_exhaustive]
pub enum FaultPoint<'a> {
    /// A runner is about to record its claim on `task` (claimable as
    /// stored; nothing written yet).
    BeforeClaim {
        /// The task.
        task: &'a TaskId,
    },
    /// A run of `task` under claim `generation` ended; its outcome is not
    /// committed yet.
    AfterWork {
        /// The task.
        task: &'a TaskId,
        /// The run's claim.
        generation: u64,
    },
    /// `written` of the `total` bytes of `record`'s next version are on
    /// disk (fsynced) in the temporary file; the rest are not, and it is
    /// not renamed into place.
    PartialWrite {
        /// The version being written.
        record: &'a TaskRecord,
        /// Bytes on disk.
        written: usize,
        /// Bytes of the whole version.
        total: usize,
    },
}

impl FaultPoint<'_> {
    /// The point's drill name: `before-claim`, `after-work`, `mid-commit`
    /// (a partial write of a version only a commit writes: `completed` or
    /// `failed`), or `partial-write` (any other partial write).
    pub fn name(&self) -> &'static str {
        match self {
            FaultPoint::BeforeClaim { .. } => "before-claim",
            FaultPoint::AfterWork { .. } => "after-work",
            FaultPoint::PartialWrite { record, .. }
                if matches!(record.status, Status::Completed | Status::Failed) =>
            {
                "mid-commit"
            }
            FaultPoint::PartialWrite { .. } => "partial-write",
        }
    }

    /// The task concerned.
    pub fn task(&self) -> &TaskId {
        match self {
            FaultPoint::BeforeClaim { task } | FaultPoint::AfterWork { task, .. } => task,
            FaultPoint::PartialWrite { record, .. } => &record.id,
        }
    }
}

impl fmt::Display for FaultPoint<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (task {})", self.name(), self.task())
    }
}

/// Called at every [`FaultPoint`] reached.
pub type FaultHook = Arc<dyn Fn(&FaultPoint<'_>) + Send + Sync>;

/// Call `hook`, if any, at `point`.
pub(crate) fn reach(hook: Option<&FaultHook>, point: FaultPoint<'_>) {
    if let Some(hook) = hook {
        hook(&point);
    }
}
