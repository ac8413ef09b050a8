//! One task as stored, and its wire shapes (`tasks.md` § Tasks, § Task
//! Creation, § Task Polling; tasks `schema.ts`).
//!
//! The record holds everything needed to continue the task in another
//! process after a crash: the work descriptor (which tool, its arguments,
//! the request's `_meta`, the verified answers it was created with, a
//! stable idempotency key), the input requests the handler issued and the
//! answers accepted so far, and the lease of whoever runs it now.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use snodo_proto::ErrorObject;

use crate::id::TaskId;
use crate::time::iso8601;

/// `tasks.md` § Task Status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Being processed (or waiting for a worker).
    Working,
    /// Waiting for `tasks/update` to answer its `inputRequests`.
    InputRequired,
    /// Finished with a result (tool results with `isError: true` included).
    Completed,
    /// Finished with a JSON-RPC error.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl Status {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    /// `completed`, `failed` and `cancelled` have no exits (§ Task Status
    /// state diagram).
    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// Input responses and handler state a run starts from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answers {
    /// Answers by input request key.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub responses: Map<String, Value>,
    /// The state the handler attached to its last input request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Value>,
}

/// What to run: enough to run it again after a crash.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkDescriptor {
    /// The tool.
    pub tool: String,
    /// Its arguments, as validated at creation.
    pub arguments: Map<String, Value>,
    /// The creating request's `_meta` (client capabilities, trace context).
    pub meta: Map<String, Value>,
    /// The MRTR answers the creating request carried (verified then): the
    /// first run sees them as its round.
    #[serde(default)]
    pub answers: Answers,
    /// Stable across every (re)run of this task: recovery is at-least-once,
    /// so side effects outside the server should be keyed by it.
    pub idempotency_key: String,
}

/// One input request the task's handler issued, and its accepted answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputEntry {
    /// The serialized request (`{method, params}`).
    pub request: Value,
    /// The accepted answer, once `tasks/update` delivered one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Value>,
}

/// Who holds the task's work, until when.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Lease {
    /// The claim's generation (the record's at claim time).
    pub generation: u64,
    /// Expiry, milliseconds since the UNIX epoch.
    pub until_ms: u64,
}

/// A task as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskRecord {
    /// The task id.
    pub id: TaskId,
    /// Who may see it (`tasks.md` § Security Considerations: auth binding).
    pub principal: String,
    /// Current status.
    pub status: Status,
    /// Human-readable detail for the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// Creation time, ms since the epoch.
    pub created_at_ms: u64,
    /// Last change, ms since the epoch.
    pub last_updated_at_ms: u64,
    /// Time to live from creation; `None` is unlimited.
    pub ttl_ms: Option<u64>,
    /// Suggested polling interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// The final result (`completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Map<String, Value>>,
    /// The JSON-RPC error (`failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// What to run.
    pub work: WorkDescriptor,
    /// Every input request ever issued, by key (keys are unique over the
    /// task's lifetime: § Task Update Requests).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub inputs: BTreeMap<String, InputEntry>,
    /// Keys of the handler's latest input request round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
    /// The state the handler attached to that round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_state: Option<Value>,
    /// The answers the next run starts from, once a round was answered
    /// (otherwise the descriptor's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<Answers>,
    /// Bumped by every claim and by every transition that must fence out
    /// a running worker.
    pub generation: u64,
    /// The current claim, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<Lease>,
    /// How many times a worker claimed it.
    #[serde(default)]
    pub attempts: u32,
    /// How many input rounds the handler asked for.
    #[serde(default)]
    pub rounds: u32,
}

impl TaskRecord {
    /// Whether its TTL has elapsed at `now_ms`.
    pub fn expired(&self, now_ms: u64) -> bool {
        self.ttl_ms
            .is_some_and(|ttl| self.created_at_ms.saturating_add(ttl) <= now_ms)
    }

    /// Whether a worker may claim it at `now_ms`: working, and not held by
    /// a live lease.
    pub fn claimable(&self, now_ms: u64) -> bool {
        self.status == Status::Working && self.lease.is_none_or(|l| l.until_ms <= now_ms)
    }

    /// The input requests still waiting for an answer, by key.
    pub fn outstanding(&self) -> Map<String, Value> {
        self.pending
            .iter()
            .filter_map(|k| {
                let e = self.inputs.get(k)?;
                e.response.is_none().then(|| (k.clone(), e.request.clone()))
            })
            .collect()
    }

    /// The answers the next run starts from.
    pub fn next_answers(&self) -> &Answers {
        self.resume.as_ref().unwrap_or(&self.work.answers)
    }

    /// Move to `status` at `now_ms`.
    pub(crate) fn set_status(&mut self, status: Status, message: Option<String>, now_ms: u64) {
        self.status = status;
        self.status_message = message;
        self.last_updated_at_ms = now_ms.max(self.last_updated_at_ms);
    }

    /// The members every task shape carries (`Task`).
    fn task(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("taskId".into(), Value::from(self.id.as_str()));
        m.insert("status".into(), Value::from(self.status.as_str()));
        if let Some(msg) = &self.status_message {
            m.insert("statusMessage".into(), Value::from(msg.as_str()));
        }
        m.insert("createdAt".into(), Value::from(iso8601(self.created_at_ms)));
        m.insert(
            "lastUpdatedAt".into(),
            Value::from(iso8601(self.last_updated_at_ms)),
        );
        m.insert("ttlMs".into(), self.ttl_ms.map_or(Value::Null, Value::from));
        if let Some(p) = self.poll_interval_ms {
            m.insert("pollIntervalMs".into(), Value::from(p));
        }
        m
    }

    /// `DetailedTask`: the task with its status's payload inlined, as
    /// `tasks/get` answers it and `notifications/tasks` carries it.
    pub fn detailed(&self) -> Map<String, Value> {
        let mut m = self.task();
        match self.status {
            Status::InputRequired => {
                m.insert("inputRequests".into(), Value::Object(self.outstanding()));
            }
            Status::Completed => {
                let result = self.result.clone().unwrap_or_default();
                m.insert("result".into(), Value::Object(result));
            }
            Status::Failed => {
                let error = self
                    .error
                    .as_ref()
                    .and_then(|e| serde_json::to_value(e).ok())
                    .unwrap_or(Value::Null);
                m.insert("error".into(), error);
            }
            Status::Working | Status::Cancelled => {}
        }
        m
    }

    /// `GetTaskResult`: `resultType: "complete"` (§ Task Polling).
    pub fn get_result(&self) -> Map<String, Value> {
        let mut m = self.detailed();
        m.insert("resultType".into(), Value::from("complete"));
        m
    }

    /// `CreateTaskResult`: the flat task, `resultType: "task"` (§ Task
    /// Creation), with no payload members.
    pub fn create_result(&self) -> Map<String, Value> {
        let mut m = self.task();
        m.insert("resultType".into(), Value::from("task"));
        m
    }
}
