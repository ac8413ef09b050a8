//! A task as a row: the record's JSON, exactly as serialized, and the few
//! columns the database queries and fences by, derived from the record on
//! every write so they never disagree with it.

use snodo_tasks::{Status, StoreError, StoreErrorKind, TaskId, TaskRecord};

/// The columns of one task's row.
#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) principal: String,
    pub(crate) status: &'static str,
    /// The claim generation: the fence a worker's commit is checked by.
    pub(crate) generation: i64,
    /// When the current lease ends, ms since the epoch; `None` unleased.
    pub(crate) lease_until_ms: Option<i64>,
    /// When the TTL elapses, ms since the epoch; `None` never.
    pub(crate) expires_at_ms: Option<i64>,
    /// Whether a worker may claim it once its lease (if any) ends:
    /// `working`. Kept as a column so the claim index is small.
    pub(crate) runnable: bool,
    /// The whole record as JSON.
    pub(crate) record: String,
}

/// A millisecond count or generation as SQL's signed 64 bits. Times are
/// about 2^40 and generations count claims, so saturating is only a guard.
pub(crate) fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl Row {
    pub(crate) fn of(record: &TaskRecord) -> Result<Row, StoreError> {
        let json = serde_json::to_string(record).map_err(|e| {
            StoreError::new(
                StoreErrorKind::Io,
                None,
                format!("cannot serialize task {}: {e}", record.id),
            )
        })?;
        Ok(Row {
            id: record.id.as_str().to_owned(),
            principal: record.principal.clone(),
            status: record.status.as_str(),
            generation: int(record.generation),
            lease_until_ms: record.lease.map(|l| int(l.until_ms)),
            expires_at_ms: record
                .ttl_ms
                .map(|ttl| int(record.created_at_ms.saturating_add(ttl))),
            runnable: record.status == Status::Working,
            record: json,
        })
    }
}

/// Read a stored record back, checking that it is the task its row says.
pub(crate) fn decode(id: &str, json: &str, table: &str) -> Result<TaskRecord, StoreError> {
    let record: TaskRecord = serde_json::from_str(json).map_err(|e| {
        StoreError::new(
            StoreErrorKind::Corrupt,
            None,
            format!("{table}: task {id} does not hold a task record: {e}"),
        )
    })?;
    if record.id.as_str() != id {
        return Err(StoreError::new(
            StoreErrorKind::Corrupt,
            None,
            format!("{table}: the row of task {id} holds task {}", record.id),
        ));
    }
    Ok(record)
}

/// A stored id, parsed as strictly as a client's.
pub(crate) fn task_id(id: &str, table: &str) -> Result<TaskId, StoreError> {
    TaskId::parse(id).ok_or_else(|| {
        StoreError::new(
            StoreErrorKind::Corrupt,
            None,
            format!("{table}: {id:?} is not a task id"),
        )
    })
}

/// The error for creating a task that exists.
pub(crate) fn exists(id: &TaskId) -> StoreError {
    StoreError::new(
        StoreErrorKind::Exists,
        None,
        format!("task {id} already exists"),
    )
}
