//! The Tasks extension (`io.modelcontextprotocol/tasks`, `tasks.md`) from
//! the client's side. The core machine names no extension; this declares
//! what Tasks adds to the wire ([`with_tasks`]), and [`TaskFollow`] turns
//! each state of a task the client sees (the `CreateTaskResult` seed, a
//! `tasks/get` result, a `notifications/tasks`) into what to do next, so
//! [`Session::await_task`](crate::Session::await_task) and its async twin
//! only send and wait.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{json, Map, Value};
use snodo_proto::client::{ClientConfig, ClientError};

/// The extension's identifier.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// `config` declaring the Tasks extension: a task-capable tool may then
/// answer with a task handle (`resultType: "task"`, a
/// [`Step::Task`](crate::Step::Task)), and `tasks/get`, `tasks/update` and
/// `tasks/cancel` name their task in `Mcp-Name` (`params.taskId`).
pub fn with_tasks(config: ClientConfig) -> ClientConfig {
    let mut config = config.with_extension(TASKS, json!({}));
    config.result_types.push(String::from("task"));
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        config
            .named_methods
            .push((String::from(method), String::from("taskId")));
    }
    config
}

/// The poll interval when the server suggests none.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// The shortest wait between polls, whatever the server suggests: a
/// `pollIntervalMs` of 0 must not turn the client into a busy loop.
pub const MIN_POLL_INTERVAL: Duration = Duration::from_millis(10);

/// What to do next about a task.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskStep {
    /// Wait `after`, then send `tasks/get` with
    /// [`TaskFollow::get_params`] (§ Task Polling: "SHOULD respect the
    /// `pollIntervalMs`").
    Poll {
        /// How long to wait first.
        after: Duration,
    },
    /// The server needs input (§ Task Update Requests): answer each
    /// request (only those not answered before: the extension asks
    /// clients to deduplicate keys across polls) and send `tasks/update`
    /// with [`TaskFollow::update_params`], then poll again.
    Input {
        /// The requests not yet answered, by key.
        requests: Map<String, Value>,
    },
    /// The task completed: the original request's result (a
    /// `CallToolResult`, `isError` included).
    Completed(Value),
    /// The task failed with this JSON-RPC error.
    Failed(ClientError),
    /// The task was cancelled.
    Cancelled,
}

/// One task being followed.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskFollow {
    id: String,
    poll_interval: Duration,
    /// Input request keys already answered (keys are unique over a task's
    /// life, § Task Update Requests).
    answered: BTreeSet<String>,
}

impl TaskFollow {
    /// The task `result` creates, when it is a `CreateTaskResult`; `None`
    /// for any other result. A task is only valid in answer to
    /// `tools/call` (§ Supported Methods; § Capability Negotiation: "MUST
    /// interpret this as an invalid response").
    pub fn from_result(method: &str, result: &Value) -> Result<Option<TaskFollow>, ClientError> {
        if result.get("resultType").and_then(Value::as_str) != Some("task") {
            return Ok(None);
        }
        if method != "tools/call" {
            return Err(ClientError::Malformed(format!(
                "a task in answer to {method}"
            )));
        }
        let id = match result.get("taskId") {
            Some(Value::String(id)) if !id.is_empty() => id.clone(),
            _ => {
                return Err(ClientError::Malformed(
                    "a task without a taskId".to_string(),
                ))
            }
        };
        Ok(Some(TaskFollow {
            id,
            poll_interval: DEFAULT_POLL_INTERVAL,
            answered: BTreeSet::new(),
        }))
    }

    /// The task's id.
    pub fn task_id(&self) -> &str {
        &self.id
    }

    /// `tasks/get` params (§ Task Polling).
    pub fn get_params(&self) -> Value {
        json!({ "taskId": self.id })
    }

    /// `tasks/cancel` params (§ Task Cancellation; never
    /// `notifications/cancelled`).
    pub fn cancel_params(&self) -> Value {
        json!({ "taskId": self.id })
    }

    /// `tasks/update` params carrying `responses`; their keys count as
    /// answered from now on.
    pub fn update_params(&mut self, responses: Map<String, Value>) -> Value {
        self.answered.extend(responses.keys().cloned());
        json!({ "taskId": self.id, "inputResponses": responses })
    }

    /// What `task` (the seed, a `tasks/get` result, or the params of a
    /// `notifications/tasks`) asks for. A state of another task, or one
    /// that breaks the extension's shapes, is an error.
    pub fn step(&mut self, task: &Value) -> Result<TaskStep, ClientError> {
        let malformed = |why: &str| Err(ClientError::Malformed(why.to_string()));
        if task.get("taskId").and_then(Value::as_str) != Some(self.id.as_str()) {
            return malformed("the state of another task");
        }
        // The interval MAY change over the task's life.
        if let Some(ms) = task.get("pollIntervalMs").and_then(Value::as_u64) {
            self.poll_interval = Duration::from_millis(ms).max(MIN_POLL_INTERVAL);
        }
        let poll = TaskStep::Poll {
            after: self.poll_interval,
        };
        match task.get("status").and_then(Value::as_str) {
            Some("working") => Ok(poll),
            Some("input_required") => {
                let Some(Value::Object(requests)) = task.get("inputRequests") else {
                    return malformed("input_required without inputRequests");
                };
                let fresh: Map<String, Value> = requests
                    .iter()
                    .filter(|(key, _)| !self.answered.contains(*key))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                // All answered already: the server has not caught up
                // (the acknowledgement is eventually consistent).
                Ok(if fresh.is_empty() {
                    poll
                } else {
                    TaskStep::Input { requests: fresh }
                })
            }
            Some("completed") => match task.get("result") {
                Some(result @ Value::Object(_)) => Ok(TaskStep::Completed(result.clone())),
                _ => malformed("a completed task without a result"),
            },
            Some("failed") => {
                let error = task.get("error");
                let code = error.and_then(|e| e.get("code")).and_then(Value::as_i64);
                let message = error.and_then(|e| e.get("message")).and_then(Value::as_str);
                match (code, message) {
                    (Some(code), Some(message)) => Ok(TaskStep::Failed(ClientError::Rpc {
                        code,
                        message: message.to_string(),
                        data: error.and_then(|e| e.get("data")).cloned(),
                    })),
                    _ => malformed("a failed task without a JSON-RPC error"),
                }
            }
            Some("cancelled") => Ok(TaskStep::Cancelled),
            _ => malformed("a task status the extension does not define"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn follow() -> TaskFollow {
        let seed: Value = serde_json::from_str(
            r#"{"resultType":"task","taskId":"786512e2","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":60000,"pollIntervalMs":5000}"#,
        )
        .unwrap();
        let mut f = TaskFollow::from_result("tools/call", &seed)
            .unwrap()
            .unwrap();
        assert_eq!(
            f.step(&seed),
            Ok(TaskStep::Poll {
                after: Duration::from_secs(5)
            })
        );
        f
    }

    fn state(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn a_task_is_followed_through_input_to_its_result() {
        let mut f = follow();
        assert_eq!(f.get_params(), json!({"taskId": "786512e2"}));
        let asking = state(
            r#"{"taskId":"786512e2","status":"input_required","pollIntervalMs":250,"inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Sure?","requestedSchema":{"type":"object","properties":{}}}}}}"#,
        );
        let TaskStep::Input { requests } = f.step(&asking).unwrap() else {
            panic!("input")
        };
        assert_eq!(requests["confirm"]["method"], "elicitation/create");
        let mut answer = Map::new();
        answer.insert("confirm".into(), json!({"action": "accept", "content": {}}));
        assert_eq!(
            f.update_params(answer),
            json!({"taskId": "786512e2", "inputResponses": {"confirm": {"action": "accept", "content": {}}}})
        );
        // The server has not applied the answer yet: the same request is
        // not asked of the user twice, and the new interval holds.
        assert_eq!(
            f.step(&asking),
            Ok(TaskStep::Poll {
                after: Duration::from_millis(250)
            })
        );
        let done = state(
            r#"{"taskId":"786512e2","status":"completed","result":{"content":[{"type":"text","text":"done"}],"isError":true}}"#,
        );
        assert_eq!(
            f.step(&done),
            Ok(TaskStep::Completed(
                json!({"content":[{"type":"text","text":"done"}],"isError":true})
            ))
        );
    }

    #[test]
    fn failed_and_cancelled_end_the_task() {
        let mut f = follow();
        assert_eq!(
            f.step(&state(
                r#"{"taskId":"786512e2","status":"failed","error":{"code":-32603,"message":"boom"}}"#
            )),
            Ok(TaskStep::Failed(ClientError::Rpc {
                code: -32603,
                message: "boom".into(),
                data: None
            }))
        );
        assert_eq!(
            f.step(&state(r#"{"taskId":"786512e2","status":"cancelled"}"#)),
            Ok(TaskStep::Cancelled)
        );
    }

    /// The machine hands a declared extension's result out as it is; the
    /// session holds it to the rule before following it.
    #[test]
    fn a_task_for_prompts_get_is_refused_before_it_is_followed() {
        use snodo_proto::client::{Client, Event, Wire};
        let mut client = Client::new(with_tasks(ClientConfig::new("c", "1", Wire::Stdio)));
        let op = client.request("prompts/get", json!({"name": "p"}));
        let _ = client.poll_transmit();
        client
            .handle_message(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t","status":"working"}}"#)
            .unwrap();
        let Some(Event::ExtensionResult { op: o, result, .. }) = client.poll_event() else {
            panic!("an extension result")
        };
        assert_eq!(o, op);
        assert_eq!(
            TaskFollow::from_result("prompts/get", &result),
            Err(ClientError::Malformed(
                "a task in answer to prompts/get".into()
            ))
        );
    }

    #[test]
    fn a_busy_loop_or_a_broken_state_is_refused() {
        let mut f = follow();
        assert_eq!(
            f.step(&state(
                r#"{"taskId":"786512e2","status":"working","pollIntervalMs":0}"#
            )),
            Ok(TaskStep::Poll {
                after: MIN_POLL_INTERVAL
            })
        );
        for broken in [
            r#"{"taskId":"other","status":"working"}"#,
            r#"{"taskId":"786512e2","status":"completed"}"#,
            r#"{"taskId":"786512e2","status":"failed","error":{}}"#,
            r#"{"taskId":"786512e2","status":"input_required"}"#,
            r#"{"taskId":"786512e2","status":"paused"}"#,
        ] {
            assert!(f.step(&state(broken)).is_err(), "{broken}");
        }
        // A task in answer to anything but tools/call is invalid; any
        // other result is not a task.
        let task = state(r#"{"resultType":"task","taskId":"t","status":"working"}"#);
        assert!(TaskFollow::from_result("prompts/get", &task).is_err());
        assert_eq!(
            TaskFollow::from_result("tools/call", &state(r#"{"content":[]}"#)),
            Ok(None)
        );
        assert!(TaskFollow::from_result(
            "tools/call",
            &state(r#"{"resultType":"task","status":"working"}"#)
        )
        .is_err());
    }
}
