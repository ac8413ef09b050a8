//! The [`Registry`] handle: changes to what a running service serves.

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use super::entry::{PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};
use super::{pages, Lists, Op, Snapshot, Table, PROMPTS, RESOURCES, TEMPLATES, TOOLS};
use crate::extract::{Handler, Needs, PromptInput};
use crate::handler::{
    declared, declared_prompt, prompt_fn, resource_fn, tool_fn, IntoPromptOutcome,
    IntoResourceOutcome, IntoToolOutcome, PromptFn, ResourceArgs, ResourceFn, ToolFn,
};
use crate::model::{Prompt, Resource, ResourceTemplate, Tool};
use crate::profile::ServerCapability;
use crate::service::{BuildError, Service};
use crate::subscriptions::ChangeEvent;

/// A handle on what a [`Service`] serves, to add, replace and remove
/// tools, prompts, resources and templates while connections are open.
/// Cheap to clone; get one with [`Service::registry`].
///
/// A [`Change`] is a batch: it commits as one new snapshot, or (when one
/// of its declarations is invalid) not at all. Requests already admitted
/// finish against the snapshot they were admitted with: a call of a tool
/// that a change removes runs to its end, and the next call of it is
/// answered as a call of an unknown tool. List pages of the snapshot
/// are computed at commit, for the lists the change touched only.
///
/// A commit that changed a list publishes its `list_changed` event on the
/// service's [`Hub`](crate::Hub), when the service declared that kind of
/// notification ([`ServiceBuilder::notifications`](crate::ServiceBuilder::notifications)):
/// every `subscriptions/listen` stream that asked for it and every
/// initialize-era session hears it once (`server/tools.mdx`,
/// `server/prompts.mdx`, `server/resources.mdx` § List Changed
/// Notification). Commits that land before a connection delivered the
/// first one's notice are announced by that one notice: the hub coalesces
/// what is still queued, since one pending "the list changed" says it all. A service with no hub leaves delivery to the
/// application ([`Connection::publish`](crate::Connection::publish)),
/// guided by [`Committed`].
#[derive(Clone)]
pub struct Registry {
    service: Service,
}

impl core::fmt::Debug for Registry {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Registry")
            .field("generation", &self.generation())
            .finish()
    }
}

impl Service {
    /// The handle that changes what this service serves.
    pub fn registry(&self) -> Registry {
        Registry {
            service: self.clone(),
        }
    }
}

impl Registry {
    /// Start a batch of changes.
    pub fn change(&self) -> Change {
        Change {
            registry: self.clone(),
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            needs: Vec::new(),
        }
    }

    /// How many changes have committed since the service was built.
    pub fn generation(&self) -> u64 {
        self.service.inner.registry.load().generation
    }
}

/// What a [`Change`] declares before it is checked.
enum Pending<T> {
    Put(T),
    Remove(String),
}

/// A batch of changes to a [`Registry`], applied by [`commit`](Change::commit).
/// Each method adds one change; later ones win (add then remove leaves
/// nothing, remove then add leaves the new one).
#[must_use = "a change does nothing until it is committed"]
pub struct Change {
    registry: Registry,
    tools: Vec<Pending<(Tool, Option<Arc<ToolFn>>)>>,
    prompts: Vec<Pending<(Prompt, Option<Arc<PromptFn>>)>>,
    resources: Vec<Pending<(Resource, Option<Arc<ResourceFn>>)>>,
    templates: Vec<Pending<(ResourceTemplate, Option<Arc<ResourceFn>>)>>,
    /// What each added handler's extractors need, checked at commit.
    needs: Vec<(String, Needs)>,
}

/// What a committed [`Change`] changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Committed {
    /// The registry's generation after the commit (unchanged when the
    /// change changed nothing).
    pub generation: u64,
    /// The tool list changed.
    pub tools: bool,
    /// The prompt list changed.
    pub prompts: bool,
    /// The resource or the template list changed (one notification,
    /// `notifications/resources/list_changed`, covers both).
    pub resources: bool,
}

impl crate::service::RegisterTool for Change {
    fn tool<H, M>(self, tool: Tool, handler: H) -> Self
    where
        H: Handler<Map<String, Value>, M>,
        H::Output: IntoToolOutcome,
    {
        Change::tool(self, tool, handler)
    }
}

impl Change {
    /// Add a tool, or replace the one of that name: the same registration
    /// as [`ServiceBuilder::tool`](crate::ServiceBuilder::tool), its
    /// handler's parameters extractors in any order (the service's
    /// [`State`](crate::extract::State)s among them), its schemas
    /// generated from the arguments' type and the output unless `tool`
    /// sets them by hand.
    pub fn tool<H, M>(mut self, tool: Tool, handler: H) -> Self
    where
        H: Handler<Map<String, Value>, M>,
        H::Output: IntoToolOutcome,
    {
        let erased = tool_fn(handler);
        let tool = declared::<H::Output>(tool, &erased.needs);
        self.needs
            .push((alloc::format!("tool {:?}", tool.name), erased.needs));
        self.tools.push(Pending::Put((tool, Some(erased.run))));
        self
    }

    /// Add or replace a tool whose calls the driver answers by hand.
    pub fn tool_declared(mut self, tool: Tool) -> Self {
        self.tools.push(Pending::Put((tool, None)));
        self
    }

    /// Remove the tool `name` (nothing, if there is none).
    pub fn remove_tool(mut self, name: impl Into<String>) -> Self {
        self.tools.push(Pending::Remove(name.into()));
        self
    }

    /// Add a prompt, or replace the one of that name.
    pub fn prompt<H, M>(mut self, prompt: Prompt, handler: H) -> Self
    where
        H: Handler<PromptInput, M>,
        H::Output: IntoPromptOutcome,
    {
        let erased = prompt_fn(handler);
        let prompt = declared_prompt(prompt, &erased.needs);
        self.needs
            .push((alloc::format!("prompt {:?}", prompt.name), erased.needs));
        self.prompts.push(Pending::Put((prompt, Some(erased.run))));
        self
    }

    /// Add or replace a prompt answered by hand.
    pub fn prompt_declared(mut self, prompt: Prompt) -> Self {
        self.prompts.push(Pending::Put((prompt, None)));
        self
    }

    /// Remove the prompt `name`.
    pub fn remove_prompt(mut self, name: impl Into<String>) -> Self {
        self.prompts.push(Pending::Remove(name.into()));
        self
    }

    /// Add a static resource, or replace the one with its URI.
    pub fn resource<H, M>(mut self, resource: Resource, handler: H) -> Self
    where
        H: Handler<ResourceArgs, M>,
        H::Output: IntoResourceOutcome,
    {
        let erased = resource_fn(handler);
        self.needs
            .push((alloc::format!("resource {:?}", resource.uri), erased.needs));
        self.resources
            .push(Pending::Put((resource, Some(erased.run))));
        self
    }

    /// Add or replace a static resource answered by hand.
    pub fn resource_declared(mut self, resource: Resource) -> Self {
        self.resources.push(Pending::Put((resource, None)));
        self
    }

    /// Remove the static resource `uri`.
    pub fn remove_resource(mut self, uri: impl Into<String>) -> Self {
        self.resources.push(Pending::Remove(uri.into()));
        self
    }

    /// Add a resource template, or replace the one with the same template
    /// string.
    pub fn resource_template<H, M>(mut self, template: ResourceTemplate, handler: H) -> Self
    where
        H: Handler<ResourceArgs, M>,
        H::Output: IntoResourceOutcome,
    {
        let erased = resource_fn(handler);
        self.needs.push((
            alloc::format!("resource template {:?}", template.uri_template),
            erased.needs,
        ));
        self.templates
            .push(Pending::Put((template, Some(erased.run))));
        self
    }

    /// Add or replace a resource template answered by hand.
    pub fn resource_template_declared(mut self, template: ResourceTemplate) -> Self {
        self.templates.push(Pending::Put((template, None)));
        self
    }

    /// Remove the resource template whose template string is `uri_template`.
    pub fn remove_resource_template(mut self, uri_template: impl Into<String>) -> Self {
        self.templates.push(Pending::Remove(uri_template.into()));
        self
    }

    /// Check every declaration, then apply the batch as one new snapshot
    /// and announce the lists it changed. On an error nothing changes.
    ///
    /// Costs one pass over each list the batch touches (its index and its
    /// pages are rebuilt; entries it does not touch are shared, not
    /// derived again), under a lock that only other commits wait for.
    pub fn commit(self) -> Result<Committed, BuildError> {
        let service = &self.registry.service;
        let inner = &service.inner;
        for (handler, needs) in &self.needs {
            needs.check(handler, &inner.states)?;
        }
        let served = |cap: ServerCapability, any: bool, kind: &'static str| {
            if any && !service.advertises(cap) {
                Err(BuildError::KindNotServed(kind))
            } else {
                Ok(())
            }
        };
        served(ServerCapability::Tools, !self.tools.is_empty(), "tools")?;
        served(
            ServerCapability::Prompts,
            !self.prompts.is_empty(),
            "prompts",
        )?;
        served(
            ServerCapability::Resources,
            !self.resources.is_empty() || !self.templates.is_empty(),
            "resources",
        )?;
        // The service's layers wrap what is added now as what it was
        // built with (`crate::layer`).
        let layers = &inner.layers;
        let tools = ops(self.tools, |(t, h)| {
            ToolEntry::new(t, h).map(|e| e.layered(layers))
        })?;
        let prompts = ops(self.prompts, |(p, h)| {
            Ok(PromptEntry::new(p, h).layered(layers))
        })?;
        let resources = ops(self.resources, |(r, h)| {
            Ok(ResourceEntry::new(r, h).layered(layers))
        })?;
        let templates = ops(self.templates, |(t, h)| {
            TemplateEntry::new(t, h).map(|e| e.layered(layers))
        })?;

        let store = &inner.registry;
        let committed = {
            let _turn = store.writer.lock().unwrap_or_else(|p| p.into_inner());
            let current = store.current.load_full();
            let tools = apply(&current.tools, tools);
            let prompts = apply(&current.prompts, prompts);
            let resources = apply(&current.resources, resources);
            let templates = apply(&current.templates, templates);
            let committed = Committed {
                generation: current.generation + 1,
                tools: tools.is_some(),
                prompts: prompts.is_some(),
                resources: resources.is_some() || templates.is_some(),
            };
            if !(committed.tools || committed.prompts || committed.resources) {
                return Ok(Committed {
                    generation: current.generation,
                    ..Committed::default()
                });
            }
            let paging = &store.paging;
            let lists = Lists {
                tools: relist(&tools, &current.lists.tools, TOOLS, paging),
                prompts: relist(&prompts, &current.lists.prompts, PROMPTS, paging),
                resources: relist(&resources, &current.lists.resources, RESOURCES, paging),
                templates: relist(&templates, &current.lists.templates, TEMPLATES, paging),
            };
            store.current.store(Arc::new(Snapshot {
                generation: committed.generation,
                tools: tools.unwrap_or_else(|| current.tools.clone()),
                prompts: prompts.unwrap_or_else(|| current.prompts.clone()),
                resources: resources.unwrap_or_else(|| current.resources.clone()),
                templates: templates.unwrap_or_else(|| current.templates.clone()),
                lists,
                views: super::view::ViewCache::default(),
            }));
            committed
        };
        // Announced after the store: a client that hears of the change and
        // lists again gets the new lists.
        if let Some(hub) = &inner.hub {
            let declared = inner.notifications;
            if committed.tools && declared.tools_list_changed {
                hub.publish(ChangeEvent::ToolsListChanged);
            }
            if committed.prompts && declared.prompts_list_changed {
                hub.publish(ChangeEvent::PromptsListChanged);
            }
            if committed.resources && declared.resources_list_changed {
                hub.publish(ChangeEvent::ResourcesListChanged);
            }
        }
        tracing::debug!(?committed, "registry change committed");
        Ok(committed)
    }
}

/// The checked operations of one kind.
fn ops<T, E>(
    pending: Vec<Pending<T>>,
    make: impl Fn(T) -> Result<E, BuildError>,
) -> Result<Vec<Op<E>>, BuildError> {
    pending
        .into_iter()
        .map(|p| match p {
            Pending::Put(t) => make(t).map(Op::Put),
            Pending::Remove(key) => Ok(Op::Remove(key)),
        })
        .collect()
}

/// `table` after `ops`, if they change it.
fn apply<E: super::entry::Entry>(table: &Arc<Table<E>>, ops: Vec<Op<E>>) -> Option<Arc<Table<E>>> {
    if ops.is_empty() {
        return None;
    }
    table.apply(ops).map(Arc::new)
}

/// The pages of a list a change may have touched.
fn relist<E: super::entry::Entry>(
    new: &Option<Arc<Table<E>>>,
    old: &Arc<super::Pages>,
    key: &'static str,
    paging: &super::Paging,
) -> Arc<super::Pages> {
    match new {
        Some(t) => pages(key, t, paging),
        None => old.clone(),
    }
}
