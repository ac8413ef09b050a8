//! Tasks in memory: fast, and gone with the process.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use super::{Store, StoreError, StoreErrorKind};
use crate::id::TaskId;
use crate::record::TaskRecord;

/// A [`Store`] in memory.
#[derive(Debug, Default)]
pub struct MemoryStore {
    tasks: Mutex<BTreeMap<TaskId, TaskRecord>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<TaskId, TaskRecord>> {
        // A poisoned lock means a panic mid-change; every change is applied
        // to a copy first, so the map itself is consistent.
        self.tasks.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Store for MemoryStore {
    fn create(&self, record: &TaskRecord) -> Result<(), StoreError> {
        let mut tasks = self.lock();
        if tasks.contains_key(&record.id) {
            return Err(StoreError::new(
                StoreErrorKind::Exists,
                None,
                format!("task {} already exists", record.id),
            ));
        }
        tasks.insert(record.id.clone(), record.clone());
        Ok(())
    }

    fn get(&self, id: &TaskId) -> Result<Option<TaskRecord>, StoreError> {
        Ok(self.lock().get(id).cloned())
    }

    fn update(
        &self,
        id: &TaskId,
        change: &mut dyn FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, StoreError> {
        let mut tasks = self.lock();
        let Some(stored) = tasks.get(id) else {
            return Ok(None);
        };
        let mut next = stored.clone();
        if change(&mut next) {
            tasks.insert(id.clone(), next.clone());
            Ok(Some(next))
        } else {
            Ok(Some(stored.clone()))
        }
    }

    fn remove(&self, id: &TaskId) -> Result<bool, StoreError> {
        Ok(self.lock().remove(id).is_some())
    }

    fn ids(&self) -> Result<Vec<TaskId>, StoreError> {
        Ok(self.lock().keys().cloned().collect())
    }

    fn len(&self) -> Result<usize, StoreError> {
        Ok(self.lock().len())
    }

    /// A map under a mutex held for one change: never blocks for long.
    fn is_blocking(&self) -> bool {
        false
    }
}
