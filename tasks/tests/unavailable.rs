//! A store that cannot be reached (a database down or restarting:
//! `StoreErrorKind::Unavailable`) is answered as a retryable failure, on
//! the wire: `-32000` with `data.retryable` and `retryAfterSeconds`
//! (`ErrorObject::unavailable`; on HTTP also 503 with `Retry-After`, see
//! `snodo_proto::http::rules::status_of`). Any other store failure stays a
//! fault, `-32603` with no detail. Once the store answers again, the same
//! requests succeed: nothing was changed by the failed ones.

mod support;

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use serde_json::Value;
use snodo_tasks::{MemoryStore, Store, StoreError, StoreErrorKind, TaskId, TaskRecord};
use support::{lit, req, task_id, World, DECLARED};

const UP: u8 = 0;
const UNAVAILABLE: u8 = 1;
const BROKEN: u8 = 2;

/// A memory store that can be taken down (every call fails `Unavailable`)
/// or broken (every call fails `Io`).
struct Switch {
    inner: MemoryStore,
    state: Arc<AtomicU8>,
}

impl Switch {
    fn check(&self) -> Result<(), StoreError> {
        match self.state.load(Ordering::SeqCst) {
            UNAVAILABLE => Err(StoreError::new(
                StoreErrorKind::Unavailable,
                None,
                "connection refused (test)",
            )),
            BROKEN => Err(StoreError::new(
                StoreErrorKind::Io,
                None,
                "disk on fire (test)",
            )),
            _ => Ok(()),
        }
    }
}

impl Store for Switch {
    fn create(&self, record: &TaskRecord) -> Result<(), StoreError> {
        self.check()?;
        self.inner.create(record)
    }
    fn get(&self, id: &TaskId) -> Result<Option<TaskRecord>, StoreError> {
        self.check()?;
        self.inner.get(id)
    }
    fn update(
        &self,
        id: &TaskId,
        change: &mut dyn FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, StoreError> {
        self.check()?;
        self.inner.update(id, change)
    }
    fn remove(&self, id: &TaskId) -> Result<bool, StoreError> {
        self.check()?;
        self.inner.remove(id)
    }
    fn ids(&self) -> Result<Vec<TaskId>, StoreError> {
        self.check()?;
        self.inner.ids()
    }
    fn len(&self) -> Result<usize, StoreError> {
        self.check()?;
        self.inner.len()
    }
    fn is_blocking(&self) -> bool {
        false
    }
}

const RETRYABLE: &str = r#"{"jsonrpc":"2.0","id":ID,"error":{"code":-32000,"message":"Service unavailable: the task store cannot be reached; try again","data":{"retryable":true,"retryAfterSeconds":1}}}"#;

fn retryable(id: u64) -> Value {
    lit(&RETRYABLE.replace("ID", &id.to_string()), "")
}

#[test]
fn an_unreachable_store_is_a_retryable_error_and_a_broken_one_a_fault() {
    let state = Arc::new(AtomicU8::new(UP));
    let store = Switch {
        inner: MemoryStore::new(),
        state: state.clone(),
    };
    let mut w = World::new(Arc::new(store));
    let create = req(
        1,
        "tools/call",
        r#""name":"echo","arguments":{"text":"hi"}"#,
        DECLARED,
    );
    let id = task_id(&w.call(&create));
    let get = req(2, "tasks/get", &format!(r#""taskId":"{id}""#), DECLARED);
    let cancel = req(3, "tasks/cancel", &format!(r#""taskId":"{id}""#), DECLARED);

    state.store(UNAVAILABLE, Ordering::SeqCst);
    assert_eq!(w.call(&create), retryable(1));
    assert_eq!(w.call(&get), retryable(2));
    assert_eq!(w.call(&cancel), retryable(3));

    state.store(BROKEN, Ordering::SeqCst);
    assert_eq!(
        w.call(&get),
        lit(
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}"#,
            ""
        )
    );

    // Back: the failed cancel changed nothing, so the task is still
    // working, and the same requests now succeed.
    state.store(UP, Ordering::SeqCst);
    assert_eq!(w.call(&get)["result"]["status"], "working");
    assert_eq!(w.call(&cancel)["result"]["resultType"], "complete");
    assert_eq!(w.call(&get)["result"]["status"], "cancelled");
    assert_eq!(w.call(&create)["result"]["resultType"], "task");
}
