//! The Tasks extension (`io.modelcontextprotocol/tasks`) from the
//! client's side. The core machine names no extension; this declares
//! what Tasks adds to the wire, and [`Session::await_task`](crate::Session::await_task)
//! follows a task to its end.

use serde_json::json;
use snodo_proto::client::ClientConfig;

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
