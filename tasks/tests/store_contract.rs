//! The store contract (`contract/mod.rs`) for the stores of this crate:
//! [`MemoryStore`] and [`DiskStore`]. The database stores run the same
//! suite in `tasks-sql/tests/store_contract.rs`.

#[macro_use]
mod contract;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use contract::{unique, Kit, Place};
use snodo_tasks::{DiskStore, MemoryStore, Store};

/// Memory stores by place, so every "handle" on a place is the one store.
static MEMORY: Mutex<BTreeMap<String, Arc<MemoryStore>>> = Mutex::new(BTreeMap::new());

const MEMORY_KIT: Kit = Kit {
    fresh: || {
        let at = unique("memory");
        MEMORY
            .lock()
            .unwrap()
            .insert(at.clone(), Arc::new(MemoryStore::new()));
        let key = at.clone();
        Ok(Place::new(at, move || {
            MEMORY.lock().unwrap().remove(&key);
        }))
    },
    open: |at| MEMORY.lock().unwrap()[at].clone(),
};

const DISK_KIT: Kit = Kit {
    fresh: || {
        let dir = std::env::temp_dir().join(unique("snodo-contract-disk"));
        let at = dir.to_string_lossy().into_owned();
        Ok(Place::new(at, move || {
            let _ = std::fs::remove_dir_all(&dir);
        }))
    },
    open: |at| -> Arc<dyn Store> { Arc::new(DiskStore::open(at).expect("the disk store opens")) },
};

store_contract!(memory, MEMORY_KIT);
store_contract!(disk, DISK_KIT, durable);
