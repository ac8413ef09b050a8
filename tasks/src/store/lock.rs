//! The lock that lets processes (and threads) share one store directory:
//! `flock(2)` on `DIR/store.lock`, shared to read, exclusive to change.
//!
//! Every operation opens the lock file anew: `flock` locks belong to an
//! open file description, so two operations of one process exclude each
//! other exactly as two processes do. The kernel drops a dead process's
//! lock with its files, so a crash never leaves the store locked. A
//! process stopped while it holds the lock (mid-write) stalls the others'
//! operations until it resumes or dies; it is held only for one read or
//! one write.
//!
//! Without Unix `flock`, the lock excludes this process's threads only,
//! and a directory must not be shared between processes.

use std::fs::{File, OpenOptions};
use std::path::PathBuf;

use super::{StoreError, StoreErrorKind};

/// The lock of one store directory.
#[derive(Debug)]
pub(super) struct DirLock {
    path: PathBuf,
    #[cfg(not(unix))]
    local: std::sync::RwLock<()>,
}

/// A held lock; released when dropped.
pub(super) struct Held<'a> {
    #[cfg(unix)]
    _file: File,
    #[cfg(unix)]
    _lock: std::marker::PhantomData<&'a DirLock>,
    #[cfg(not(unix))]
    _guard: Guard<'a>,
}

#[cfg(not(unix))]
#[allow(dead_code)]
enum Guard<'a> {
    Shared(std::sync::RwLockReadGuard<'a, ()>),
    Exclusive(std::sync::RwLockWriteGuard<'a, ()>),
}

impl DirLock {
    pub(super) fn new(path: PathBuf) -> DirLock {
        DirLock {
            path,
            #[cfg(not(unix))]
            local: std::sync::RwLock::new(()),
        }
    }

    fn open(&self) -> Result<File, StoreError> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&self.path)
            .map_err(|e| {
                StoreError::new(
                    StoreErrorKind::Io,
                    Some(self.path.clone()),
                    format!("cannot open the lock file: {e}"),
                )
            })
    }

    /// Wait for the lock, shared with other readers.
    pub(super) fn shared(&self) -> Result<Held<'_>, StoreError> {
        self.take(false)
    }

    /// Wait for the lock, alone.
    pub(super) fn exclusive(&self) -> Result<Held<'_>, StoreError> {
        self.take(true)
    }

    #[cfg(unix)]
    fn take(&self, exclusive: bool) -> Result<Held<'_>, StoreError> {
        use rustix::fs::{flock, FlockOperation};
        let file = self.open()?;
        let op = if exclusive {
            FlockOperation::LockExclusive
        } else {
            FlockOperation::LockShared
        };
        loop {
            match flock(&file, op) {
                Ok(()) => {
                    return Ok(Held {
                        _file: file,
                        _lock: std::marker::PhantomData,
                    })
                }
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => {
                    return Err(StoreError::new(
                        StoreErrorKind::Io,
                        Some(self.path.clone()),
                        format!("cannot lock: {}", std::io::Error::from(e)),
                    ))
                }
            }
        }
    }

    #[cfg(not(unix))]
    fn take(&self, exclusive: bool) -> Result<Held<'_>, StoreError> {
        // The file still marks the directory as a store in use.
        drop(self.open()?);
        let guard = if exclusive {
            Guard::Exclusive(self.local.write().unwrap_or_else(|p| p.into_inner()))
        } else {
            Guard::Shared(self.local.read().unwrap_or_else(|p| p.into_inner()))
        };
        Ok(Held { _guard: guard })
    }
}
