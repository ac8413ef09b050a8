//! `io.modelcontextprotocol/tasks` on proto's extension mechanism: the
//! three owned methods, the `tools/call` middleware that turns a call into
//! a task, and the `taskIds` member of the listen filter.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{Map, Value};
use snodo_proto::extension::{CoreCall, ListenCall, MethodCall};
use snodo_proto::{
    ErrorObject, Extension, ExtensionMethod, Request, RequestMeta, Step, Subscribed, Wrap,
};

use crate::engine::Engine;
use crate::id::{random_hex, TaskId};
use crate::record::{Answers, WorkDescriptor};
use crate::{RUN_META_KEY, TASKS};

/// Whether a tool may become a task (`tasks.md` § Capability Negotiation:
/// the server decides per request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskSupport {
    /// A task when the request declares the extension; otherwise the tool
    /// runs synchronously, as in the core protocol.
    Optional,
    /// A task when the request declares the extension; otherwise the call
    /// is refused with `-32021` naming the extension (the server "is unable
    /// to service a request … without returning `CreateTaskResult`").
    Required,
}

/// Decides, for a call the policy applies to, whether to make a task of it
/// now; `false` lets the call run synchronously (for example an MRTR round
/// that must be resolved before the task is created: `tasks.md` § Task
/// Creation).
pub type When = Arc<dyn Fn(&CoreCall<'_>) -> bool + Send + Sync>;

/// Who a request the transport did not authenticate acts for: tasks are
/// bound to it, and only requests of the same principal see them. (An
/// authenticated request acts for its principal's subject: see
/// [`Tasks::principal`](crate::Tasks::principal).)
pub type Principal = Arc<dyn Fn(&RequestMeta) -> String + Send + Sync>;

#[derive(Clone)]
struct Policy {
    support: TaskSupport,
    when: Option<When>,
}

const METHODS: &[ExtensionMethod] = &[
    // `tasks.md` § Streamable HTTP: Routing Headers: Mcp-Name mirrors params.taskId.
    ExtensionMethod::named_by("tasks/get", "taskId"),
    ExtensionMethod::named_by("tasks/update", "taskId"),
    ExtensionMethod::named_by("tasks/cancel", "taskId"),
];

/// The Tasks extension, to install with
/// [`ServiceBuilder::extension`](snodo_proto::ServiceBuilder::extension).
/// Built by [`Tasks`](crate::Tasks).
pub struct TasksExtension {
    pub(crate) engine: Arc<Engine>,
    policies: BTreeMap<String, Policy>,
    principal: Principal,
}

impl std::fmt::Debug for TasksExtension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TasksExtension")
            .field("tools", &self.policies.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// The default principal: every request acts for `"anonymous"`. Without
/// authentication there is nothing trustworthy to tell callers apart by
/// (`clientInfo` is self-reported), so task ids, unguessable, are the only
/// bearer of access. A request the transport authenticated acts for its
/// principal's subject instead.
pub fn anonymous(_: &RequestMeta) -> String {
    String::from("anonymous")
}

impl TasksExtension {
    pub(crate) fn new(
        engine: Arc<Engine>,
        tools: Vec<(String, TaskSupport, Option<When>)>,
        principal: Principal,
    ) -> Self {
        let policies = tools
            .into_iter()
            .map(|(name, support, when)| (name, Policy { support, when }))
            .collect();
        TasksExtension {
            engine,
            policies,
            principal,
        }
    }

    /// The lifecycle engine (and through it, the store).
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// Who a request acts for: the subject the transport authenticated
    /// (`tasks.md` § Security Considerations, Auth binding: each
    /// task-related request is checked for permission to the task), else
    /// what the principal function says.
    fn owner(&self, meta: &RequestMeta) -> String {
        match meta.principal() {
            Some(p) => p.subject.clone(),
            None => (self.principal)(meta),
        }
    }

    fn task_id(params: &Map<String, Value>) -> Result<String, ErrorObject> {
        match params.get("taskId") {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(ErrorObject::invalid_params(
                "Parameter taskId must be a string",
            )),
            None => Err(ErrorObject::invalid_params(
                "Missing required parameter taskId",
            )),
        }
    }
}

fn ack() -> Map<String, Value> {
    Map::new()
}

impl Extension for TasksExtension {
    fn id(&self) -> &str {
        TASKS
    }

    fn methods(&self) -> &[ExtensionMethod] {
        METHODS
    }

    fn handle(&self, call: &MethodCall<'_>) -> Step {
        let id = match Self::task_id(call.params) {
            Ok(id) => id,
            Err(e) => return Step::Error(e),
        };
        let engine = &self.engine;
        let principal = self.owner(call.meta);
        let hub = call.service.hub().cloned();
        let now = call.now;
        match call.method {
            "tasks/get" => Step::Defer(
                engine.deferred(move |e| e.get(&principal, &id, now).map(|r| r.get_result())),
            ),
            "tasks/update" => {
                let answers = match call.params.get("inputResponses") {
                    Some(Value::Object(m)) => m.clone(),
                    Some(_) => {
                        return Step::Error(ErrorObject::invalid_params(
                            "Parameter inputResponses must be an object",
                        ))
                    }
                    None => {
                        return Step::Error(ErrorObject::invalid_params(
                            "Missing required parameter inputResponses",
                        ))
                    }
                };
                Step::Defer(engine.deferred(move |e| {
                    e.update(&principal, &id, &answers, now, hub.as_ref())
                        .map(|()| ack())
                }))
            }
            "tasks/cancel" => {
                Step::Defer(engine.deferred(move |e| {
                    e.cancel(&principal, &id, now, hub.as_ref()).map(|()| ack())
                }))
            }
            other => Step::Error(ErrorObject::method_not_found(other)),
        }
    }

    fn wraps(&self) -> &[&'static str] {
        // `tasks.md` § Supported Methods: tools/call only.
        &["tools/call"]
    }

    fn wrap(&self, call: &CoreCall<'_>, negotiated: bool) -> Wrap {
        let Request::CallTool { name, arguments } = call.request else {
            return Wrap::Pass;
        };
        let Some(policy) = self.policies.get(&**name) else {
            return Wrap::Pass;
        };
        if policy.when.as_ref().is_some_and(|when| !when(call)) {
            return Wrap::Pass;
        }
        if !negotiated {
            // § Capability Negotiation: never a CreateTaskResult to a client
            // that did not declare the extension on this request.
            return match policy.support {
                TaskSupport::Optional => Wrap::Pass,
                TaskSupport::Required => Wrap::Require,
            };
        }
        let Some(idempotency_key) = random_hex() else {
            return Wrap::Answer(Step::Fault(String::from(
                "no random source for an idempotency key",
            )));
        };
        let mut meta = call.meta.raw().into_owned();
        // Only the runner sets this key; a client's value is not kept.
        meta.remove(RUN_META_KEY);
        let work = WorkDescriptor {
            tool: String::from(&**name),
            arguments: arguments.clone(),
            meta,
            answers: Answers {
                responses: call.round.responses().clone(),
                state: call.round.state::<Value>(),
            },
            idempotency_key,
        };
        let principal = self.owner(call.meta);
        let hub = call.service.hub().cloned();
        let now = call.now;
        // `tasks.md` § Task Creation: answered once the task is stored, so
        // over a DiskStore the future waits for a write and its fsyncs, run
        // on the engine's I/O threads.
        Wrap::Answer(Step::Defer(self.engine.deferred(move |e| {
            e.create(principal, work, now, hub.as_ref())
                .map(|r| r.create_result())
        })))
    }

    fn listen_keys(&self) -> &[&'static str] {
        &["taskIds"]
    }

    /// `tasks.md` § Task Status Notifications: `notifications.taskIds`.
    /// Every well-formed id is acknowledged; only the principal's own
    /// tasks ever produce notifications on the stream, so acknowledging an
    /// id reveals nothing about it.
    fn listen(&self, call: &ListenCall<'_>) -> Result<Subscribed, ErrorObject> {
        let ids = match call.members.get("taskIds") {
            Some(Value::Array(ids)) => ids,
            Some(Value::Null) | None => return Ok(Subscribed::default()),
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "notifications.taskIds must be an array of strings",
                ))
            }
        };
        let mut topics = BTreeSet::new();
        for v in ids {
            let Value::String(s) = v else {
                return Err(ErrorObject::invalid_params(
                    "notifications.taskIds must be an array of strings",
                ));
            };
            if TaskId::parse(s).is_some() {
                topics.insert(s.clone());
            }
        }
        let mut ack = Map::new();
        ack.insert(
            String::from("taskIds"),
            Value::Array(topics.iter().cloned().map(Value::String).collect()),
        );
        Ok(Subscribed {
            topics,
            scope: Some(self.owner(call.meta)),
            ack,
            ..Subscribed::default()
        })
    }
}
