//! # snodo-tasks
//!
//! The MCP Tasks extension, `io.modelcontextprotocol/tasks`
//! (`tasks.md`, 2026-07-28), for a [`snodo_proto::Service`]. It plugs into
//! the core through proto's general extension mechanism
//! ([`snodo_proto::extension`]); the core never names it.
//!
//! - A [`TasksExtension`] (built by [`Tasks`]) owns `tasks/get`,
//!   `tasks/update` and `tasks/cancel` (with `Mcp-Name` mirroring
//!   `params.taskId` on HTTP), turns `tools/call` of the tools it is told
//!   about into tasks for clients that declare the extension on the request
//!   (answering the flat `CreateTaskResult` only once the task is stored),
//!   refuses task-only tools to clients that do not (`-32021`), and serves
//!   `notifications/tasks` on `subscriptions/listen` streams that ask for
//!   `taskIds`.
//! - The lifecycle ([`Engine`]) runs over a [`Store`]: [`MemoryStore`], or
//!   [`DiskStore`] (atomic, fsynced, versioned and checksummed files). A
//!   disk store's I/O never runs on a connection's loop or an executor:
//!   the extension answers from a few threads of its own
//!   ([`Tasks::io_threads`]), the runner from its driver's thread.
//!   Stores on SQLite and PostgreSQL, which replicas can share, are in
//!   the `snodo-tasks-sql` crate; every store passes one contract suite.
//! - A [`TaskRunner`] runs tasks' work apart from any connection, with
//!   leases that survive a crash: after one, the task is recovered and run
//!   again (at least once; [`run_info`] gives handlers a stable
//!   idempotency key). [`drive`] runs a runner on any runtime. A run's
//!   progress reports (`ctx.progress(…)`, as in any handler) show as its
//!   task's `statusMessage`, written with its lease renewals (the first at
//!   once, then at most one per [`RunnerConfig::renew_every`]) and
//!   published to listen streams when it changed.
//!
//! ```
//! use snodo_proto::{CallToolResult, NoArgs, Service, Tool};
//! use snodo_tasks::{MemoryStore, TaskSupport, Tasks};
//!
//! let service = Service::builder()
//!     .tool(Tool::new("report", "Builds a long report"), |_: NoArgs| async {
//!         CallToolResult::text("the report")
//!     })
//!     .extension(Tasks::new(MemoryStore::new()).tool("report", TaskSupport::Optional).build())
//!     .build()
//!     .unwrap();
//! let runner = snodo_tasks::TaskRunner::new(&service, Default::default()).unwrap();
//! # drop(runner);
//! ```

#![warn(missing_docs)]

pub mod drive;
pub mod engine;
mod extension;
pub mod fault;
mod id;
mod offload;
mod progress;
mod record;
mod runner;
pub mod store;
mod time;

use std::sync::Arc;

use snodo_proto::extension::CoreCall;
use snodo_proto::RequestMeta;

pub use engine::{Claim, Commit, Committed, Engine, Lifecycle, Renewed, DEFAULT_IO_THREADS};
pub use extension::{anonymous, Principal, TaskSupport, TasksExtension, When};
pub use fault::{FaultHook, FaultPoint};
pub use id::TaskId;
pub use record::{Answers, InputEntry, Lease, Status, TaskRecord, WorkDescriptor};
pub use runner::{
    run_info, RunInfo, RunnerConfig, RunnerError, RunnerOutput, TaskRunner, Work, WorkId,
};
pub use store::{DiskStore, MemoryStore, Store, StoreError, StoreErrorKind};

/// The extension's identifier (`tasks.md` § Extension Identifier).
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// The `_meta` key under which a task run's handler finds its
/// [`RunInfo`].
pub const RUN_META_KEY: &str = "dev.snodo/task";

/// Builds a [`TasksExtension`].
pub struct Tasks {
    store: Arc<dyn Store>,
    lifecycle: Lifecycle,
    tools: Vec<(String, TaskSupport, Option<When>)>,
    principal: Principal,
    faults: Option<fault::FaultHook>,
    io_threads: usize,
}

impl Tasks {
    /// Tasks kept in `store`.
    pub fn new(store: impl Store) -> Self {
        Self::with_store(Arc::new(store))
    }

    /// Tasks kept in a shared `store`.
    pub fn with_store(store: Arc<dyn Store>) -> Self {
        Tasks {
            store,
            lifecycle: Lifecycle::default(),
            tools: Vec::new(),
            principal: Arc::new(anonymous),
            faults: None,
            io_threads: DEFAULT_IO_THREADS,
        }
    }

    /// Let the tool `name` become a task.
    pub fn tool(mut self, name: impl Into<String>, support: TaskSupport) -> Self {
        self.tools.push((name.into(), support, None));
        self
    }

    /// Let the tool `name` become a task when `when` says so; otherwise it
    /// runs synchronously (for example MRTR rounds resolved before the task
    /// is created, `tasks.md` § Task Creation).
    pub fn tool_when(
        mut self,
        name: impl Into<String>,
        support: TaskSupport,
        when: impl Fn(&CoreCall<'_>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.tools
            .push((name.into(), support, Some(Arc::new(when))));
        self
    }

    /// Who a request the transport did not authenticate acts for
    /// (default: [`anonymous`]).
    ///
    /// A request the transport authenticated (a bearer token the service's
    /// [`Authorization`](snodo_proto::Authorization) accepted, see
    /// [`RequestMeta::principal`]) always acts for its principal's
    /// subject: this function is not asked, so nothing the client writes
    /// in `_meta` can make its tasks another's. The names this function
    /// returns share one space with subjects; when one store serves both
    /// authenticated and unauthenticated requests, return names no
    /// subject takes (for example with a prefix).
    pub fn principal(
        mut self,
        principal: impl Fn(&RequestMeta) -> String + Send + Sync + 'static,
    ) -> Self {
        self.principal = Arc::new(principal);
        self
    }

    /// TTL, polling interval and bounds of new tasks.
    pub fn lifecycle(mut self, lifecycle: Lifecycle) -> Self {
        self.lifecycle = lifecycle;
        self
    }

    /// Call `hook` at the engine's and runners' [fault points](fault)
    /// (crash drills).
    pub fn fault_hook(mut self, hook: fault::FaultHook) -> Self {
        self.faults = Some(hook);
        self
    }

    /// Run a blocking store's work for connections (a [`DiskStore`]'s
    /// reads, writes and fsyncs) on at most `threads` threads of the
    /// extension's own (default [`DEFAULT_IO_THREADS`]), never on a
    /// connection's loop or an executor. A [`MemoryStore`] needs none.
    pub fn io_threads(mut self, threads: usize) -> Self {
        self.io_threads = threads;
        self
    }

    /// The extension.
    pub fn build(self) -> TasksExtension {
        let mut engine = Engine::new(self.store, self.lifecycle).with_io_threads(self.io_threads);
        if let Some(hook) = self.faults {
            engine = engine.with_fault_hook(hook);
        }
        TasksExtension::new(Arc::new(engine), self.tools, self.principal)
    }
}
