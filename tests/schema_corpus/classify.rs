//! Which named definitions a server message must satisfy.
//!
//! The message-level definition is chosen by kind: a result by the method
//! of the request it answers (`tools/call` → `CallToolResultResponse`), an
//! error by its code (`-32020` → `HeaderMismatchError`), a notification by
//! its method (`notifications/progress` → `ProgressNotification`). The
//! result itself is then checked against its concrete branch with
//! `resultType` pinned ([`Target::branch`]), and the parts the result is
//! made of (each tool, content block, resource contents, input request…)
//! against their own definitions. A message no rule covers is an error,
//! so a new kind of emission cannot pass unchecked.

use serde_json::Value;

use super::schema::Target;

/// One value of a message and what it must satisfy. `pointer` is a JSON
/// pointer into the message.
#[derive(Clone, Debug)]
pub struct Check {
    pub target: Target,
    pub pointer: String,
}

fn check(target: Target, pointer: impl Into<String>) -> Check {
    Check {
        target,
        pointer: pointer.into(),
    }
}

/// Escape a member name for a JSON pointer (RFC 6901).
fn esc(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The checks for `msg`, a message the server wrote in answer to a request
/// for `method` (`None` when the request had no readable method).
pub fn checks(msg: &Value, method: Option<&str>) -> Result<Vec<Check>, String> {
    let mut out = Vec::new();
    if let Some(m) = msg.get("method").and_then(Value::as_str) {
        notification(msg, m, &mut out)?;
    } else if msg.get("error").is_some() {
        error(msg, &mut out)?;
    } else if msg.get("result").is_some() {
        result(msg, method, &mut out)?;
    } else {
        return Err(format!("neither a notification nor a response: {msg}"));
    }
    Ok(out)
}

fn notification(msg: &Value, method: &str, out: &mut Vec<Check>) -> Result<(), String> {
    let (def, params) = match method {
        "notifications/progress" => ("ProgressNotification", Some("ProgressNotificationParams")),
        "notifications/message" => (
            "LoggingMessageNotification",
            Some("LoggingMessageNotificationParams"),
        ),
        "notifications/cancelled" => ("CancelledNotification", Some("CancelledNotificationParams")),
        "notifications/subscriptions/acknowledged" => (
            "SubscriptionsAcknowledgedNotification",
            Some("SubscriptionsAcknowledgedNotificationParams"),
        ),
        "notifications/tools/list_changed" => ("ToolListChangedNotification", None),
        "notifications/prompts/list_changed" => ("PromptListChangedNotification", None),
        "notifications/resources/list_changed" => ("ResourceListChangedNotification", None),
        "notifications/resources/updated" => (
            "ResourceUpdatedNotification",
            Some("ResourceUpdatedNotificationParams"),
        ),
        "notifications/tasks" => {
            // The Tasks extension's (`tasks.md` § Task Status
            // Notifications): the full task in `params`.
            out.push(check(Target::tasks("TaskStatusNotification"), ""));
            out.push(check(
                Target::tasks("TaskStatusNotificationParams"),
                "/params",
            ));
            return task(&msg["params"], "/params", out);
        }
        other => return Err(format!("no definition for notification {other}: {msg}")),
    };
    out.push(check(Target::def(def), ""));
    if let Some(p) = params {
        out.push(check(Target::def(p), "/params"));
    }
    if method == "notifications/subscriptions/acknowledged" {
        out.push(check(
            Target::def("SubscriptionFilter"),
            "/params/notifications",
        ));
        if msg.pointer("/params/notifications/taskIds").is_some() {
            out.push(check(
                Target::tasks("TaskSubscriptionAcknowledgedNotifications"),
                "/params/notifications",
            ));
        }
    }
    Ok(())
}

fn error(msg: &Value, out: &mut Vec<Check>) -> Result<(), String> {
    out.push(check(Target::def("JSONRPCErrorResponse"), ""));
    out.push(check(Target::def("Error"), "/error"));
    let code = msg["error"]["code"]
        .as_i64()
        .ok_or_else(|| format!("an error without an integer code: {msg}"))?;
    // The JSON-RPC classes are defined as error objects, the MCP ones as
    // whole responses (schema.ts § Errors).
    match code {
        -32700 => out.push(check(Target::def("ParseError"), "/error")),
        -32600 => out.push(check(Target::def("InvalidRequestError"), "/error")),
        -32601 => out.push(check(Target::def("MethodNotFoundError"), "/error")),
        -32602 => out.push(check(Target::def("InvalidParamsError"), "/error")),
        -32603 => out.push(check(Target::def("InternalError"), "/error")),
        -32020 => out.push(check(Target::def("HeaderMismatchError"), "")),
        -32021 => {
            out.push(check(
                Target::def("MissingRequiredClientCapabilityError"),
                "",
            ));
            out.push(check(
                Target::def("ClientCapabilities"),
                "/error/data/requiredCapabilities",
            ));
        }
        -32022 => out.push(check(Target::def("UnsupportedProtocolVersionError"), "")),
        other => return Err(format!("no definition for error code {other}: {msg}")),
    }
    Ok(())
}

/// Methods whose result may be an `InputRequiredResult`
/// (`basic/patterns/mrtr.mdx`).
const MRTR_METHODS: &[&str] = &["tools/call", "prompts/get", "resources/read"];

/// Methods whose result may be a `CreateTaskResult` (`tasks.md` §
/// Supported Methods).
const TASK_METHODS: &[&str] = &["tools/call"];

fn result(msg: &Value, method: Option<&str>, out: &mut Vec<Check>) -> Result<(), String> {
    let method = method.ok_or_else(|| format!("a result for an unknown request: {msg}"))?;
    if let Some(def) = tasks_result(msg, method)? {
        // The Tasks schema defines results, not responses: the envelope is
        // the core's.
        out.push(check(Target::def("JSONRPCResultResponse"), ""));
        out.push(check(Target::tasks(def), "/result"));
        if def == "GetTaskResult" {
            task(&msg["result"], "/result", out)?;
        }
        server_info(&msg["result"], out);
        return Ok(());
    }
    let (response, final_def) = match method {
        "server/discover" => ("DiscoverResultResponse", "DiscoverResult"),
        "tools/list" => ("ListToolsResultResponse", "ListToolsResult"),
        "tools/call" => ("CallToolResultResponse", "CallToolResult"),
        "resources/list" => ("ListResourcesResultResponse", "ListResourcesResult"),
        "resources/templates/list" => (
            "ListResourceTemplatesResultResponse",
            "ListResourceTemplatesResult",
        ),
        "resources/read" => ("ReadResourceResultResponse", "ReadResourceResult"),
        "prompts/list" => ("ListPromptsResultResponse", "ListPromptsResult"),
        "prompts/get" => ("GetPromptResultResponse", "GetPromptResult"),
        "completion/complete" => ("CompleteResultResponse", "CompleteResult"),
        "subscriptions/listen" => (
            "SubscriptionsListenResultResponse",
            "SubscriptionsListenResult",
        ),
        other => return Err(format!("no result definition for method {other}: {msg}")),
    };
    out.push(check(Target::def(response), ""));
    let r = &msg["result"];
    let input_required = r.get("resultType").and_then(Value::as_str) == Some("input_required")
        && MRTR_METHODS.contains(&method);
    if input_required {
        out.push(check(
            Target::branch("InputRequiredResult", "input_required"),
            "/result",
        ));
        input_requests(r, "/result", out)?;
    } else {
        out.push(check(Target::branch(final_def, "complete"), "/result"));
        parts(final_def, r, out)?;
    }
    server_info(r, out);
    Ok(())
}

/// A result's `serverInfo` in `_meta`, against `Implementation`.
fn server_info(r: &Value, out: &mut Vec<Check>) {
    if r.pointer("/_meta/io.modelcontextprotocol~1serverInfo")
        .is_some()
    {
        out.push(check(
            Target::def("Implementation"),
            "/result/_meta/io.modelcontextprotocol~1serverInfo",
        ));
    }
}

/// The Tasks schema's result definition for `msg`, if it is a Tasks
/// result: a `CreateTaskResult` (`resultType: "task"`, only for the
/// supported methods) or the answer to a `tasks/*` request.
fn tasks_result(msg: &Value, method: &str) -> Result<Option<&'static str>, String> {
    let r = &msg["result"];
    if r.get("resultType").and_then(Value::as_str) == Some("task") {
        if !TASK_METHODS.contains(&method) {
            return Err(format!("a task created for {method}: {msg}"));
        }
        return Ok(Some("CreateTaskResult"));
    }
    Ok(match method {
        "tasks/get" => Some("GetTaskResult"),
        "tasks/update" => Some("UpdateTaskResult"),
        "tasks/cancel" => Some("CancelTaskResult"),
        _ => None,
    })
}

/// A `DetailedTask` at `at` (a `tasks/get` result or a
/// `notifications/tasks`'s params), against its branch by `status`, and
/// what it carries: a completed `tools/call`'s result against the core's
/// `CallToolResult` (and its content blocks), a failed task's error
/// against `Error`.
fn task(t: &Value, at: &str, out: &mut Vec<Check>) -> Result<(), String> {
    let def = match t["status"].as_str() {
        Some("working") => "WorkingTask",
        Some("input_required") => "InputRequiredTask",
        Some("completed") => "CompletedTask",
        Some("failed") => "FailedTask",
        Some("cancelled") => "CancelledTask",
        _ => return Err(format!("a task of unknown status: {t}")),
    };
    out.push(check(Target::tasks(def), at));
    if def == "CompletedTask" {
        out.push(check(
            Target::branch("CallToolResult", "complete"),
            format!("{at}/result"),
        ));
        for (i, c) in t["result"]["content"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            content(c, &format!("{at}/result/content/{i}"), out)?;
        }
    }
    if def == "FailedTask" {
        out.push(check(Target::def("Error"), format!("{at}/error")));
    }
    if def == "InputRequiredTask" {
        input_requests(t, at, out)?;
    }
    Ok(())
}

/// Each element of the array at `/result/<key>`, against `def`.
fn each(r: &Value, key: &str, def: &'static str, out: &mut Vec<Check>) {
    for i in 0..r[key].as_array().map_or(0, Vec::len) {
        out.push(check(Target::def(def), format!("/result/{key}/{i}")));
    }
}

fn parts(def: &str, r: &Value, out: &mut Vec<Check>) -> Result<(), String> {
    match def {
        "DiscoverResult" => out.push(check(
            Target::def("ServerCapabilities"),
            "/result/capabilities",
        )),
        "ListToolsResult" => each(r, "tools", "Tool", out),
        "ListResourcesResult" => each(r, "resources", "Resource", out),
        "ListResourceTemplatesResult" => each(r, "resourceTemplates", "ResourceTemplate", out),
        "ReadResourceResult" => {
            for (i, c) in r["contents"].as_array().into_iter().flatten().enumerate() {
                out.push(check(
                    Target::def(resource_contents(c)?),
                    format!("/result/contents/{i}"),
                ));
            }
        }
        "ListPromptsResult" => {
            each(r, "prompts", "Prompt", out);
            for (i, p) in r["prompts"].as_array().into_iter().flatten().enumerate() {
                for j in 0..p["arguments"].as_array().map_or(0, Vec::len) {
                    out.push(check(
                        Target::def("PromptArgument"),
                        format!("/result/prompts/{i}/arguments/{j}"),
                    ));
                }
            }
        }
        "GetPromptResult" => {
            for (i, m) in r["messages"].as_array().into_iter().flatten().enumerate() {
                let at = format!("/result/messages/{i}");
                out.push(check(Target::def("PromptMessage"), at.clone()));
                content(&m["content"], &format!("{at}/content"), out)?;
            }
        }
        "CallToolResult" => {
            for (i, c) in r["content"].as_array().into_iter().flatten().enumerate() {
                content(c, &format!("/result/content/{i}"), out)?;
            }
        }
        "SubscriptionsListenResult" => out.push(check(
            Target::def("SubscriptionsListenResultMetaObject"),
            "/result/_meta",
        )),
        _ => {}
    }
    Ok(())
}

fn resource_contents(c: &Value) -> Result<&'static str, String> {
    match (c.get("text").is_some(), c.get("blob").is_some()) {
        (true, false) => Ok("TextResourceContents"),
        (false, true) => Ok("BlobResourceContents"),
        _ => Err(format!(
            "resource contents with neither or both of text and blob: {c}"
        )),
    }
}

/// A content block, by its `type` (`ContentBlock`'s branches).
fn content(c: &Value, at: &str, out: &mut Vec<Check>) -> Result<(), String> {
    let def = match c["type"].as_str() {
        Some("text") => "TextContent",
        Some("image") => "ImageContent",
        Some("audio") => "AudioContent",
        Some("resource_link") => "ResourceLink",
        Some("resource") => {
            out.push(check(
                Target::def(resource_contents(&c["resource"])?),
                format!("{at}/resource"),
            ));
            "EmbeddedResource"
        }
        _ => return Err(format!("a content block of unknown type: {c}")),
    };
    out.push(check(Target::def(def), at));
    Ok(())
}

/// Each embedded request of an `InputRequiredResult`, by its method, and an
/// elicitation's params by their mode (`ElicitRequestParams`' branches).
/// `r` is at `base` (an `InputRequiredResult`, or a task in
/// `input_required`).
fn input_requests(r: &Value, base: &str, out: &mut Vec<Check>) -> Result<(), String> {
    let Some(requests) = r["inputRequests"].as_object() else {
        return Ok(());
    };
    for (key, req) in requests {
        let at = format!("{base}/inputRequests/{}", esc(key));
        match req["method"].as_str() {
            Some("elicitation/create") => {
                out.push(check(Target::def("ElicitRequest"), at.clone()));
                let params = match req["params"]["mode"].as_str() {
                    Some("url") => "ElicitRequestURLParams",
                    Some("form") | None => "ElicitRequestFormParams",
                    Some(other) => return Err(format!("an elicitation in mode {other}: {req}")),
                };
                out.push(check(Target::def(params), format!("{at}/params")));
            }
            Some("sampling/createMessage") => {
                out.push(check(Target::def("CreateMessageRequest"), at.clone()));
                out.push(check(
                    Target::def("CreateMessageRequestParams"),
                    format!("{at}/params"),
                ));
                for i in 0..req["params"]["messages"].as_array().map_or(0, Vec::len) {
                    out.push(check(
                        Target::def("SamplingMessage"),
                        format!("{at}/params/messages/{i}"),
                    ));
                }
            }
            Some("roots/list") => out.push(check(Target::def("ListRootsRequest"), at)),
            _ => return Err(format!("an input request of unknown method: {req}")),
        }
    }
    Ok(())
}
