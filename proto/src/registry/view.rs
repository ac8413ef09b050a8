//! Views: what each caller may see of the registry (`server/tools.mdx`
//! § Listing Tools: the set MAY vary by the authorization presented on the
//! request, since credentials are per-request input).
//!
//! A [`View`] names the view a [`Caller`] gets, and says which entries
//! that view holds. The lists of a view are paged once per snapshot and
//! kept with it (a bounded number of views per snapshot), so callers of
//! one view share their pages as callers without views share the
//! snapshot's. Anything outside the caller's view is answered exactly as
//! what the registry does not hold: a tool call as an unknown tool, a
//! prompt as an unknown prompt, a read as a resource not found.
//! The `Mcp-Param-*` mirrors of a `tools/call` (`streamable-http.mdx`
//! § Server Behavior for Custom Headers) are compared only once the tool
//! is found in the caller's view, so a wrong mirror cannot reveal a
//! hidden tool either.

use crate::meta::RequestMeta;
use crate::model::{Prompt, Resource, ResourceTemplate, Tool};
use alloc::string::String;
#[cfg(feature = "std")]
use {
    super::entry::Entry,
    super::{Lists, Pages, Paging, Seen, Snapshot, Table, PROMPTS, RESOURCES, TEMPLATES, TOOLS},
    alloc::collections::BTreeMap,
    alloc::sync::Arc,
};

/// Who is asking: the principal the transport authenticated, when the
/// service has [`Authorization`](crate::Authorization) (a view drawn from
/// it is a security boundary), and what the request's `_meta` says
/// (self-asserted: a view drawn from that is a convenience, not a
/// boundary).
#[derive(Clone, Copy, Debug)]
pub struct Caller<'a> {
    meta: &'a RequestMeta,
}

impl<'a> Caller<'a> {
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) fn new(meta: &'a RequestMeta) -> Self {
        Caller { meta }
    }

    /// The request's admitted `_meta`.
    pub fn meta(&self) -> &'a RequestMeta {
        self.meta
    }

    /// Who the transport authenticated the request as; `None` without
    /// authorization (see [`RequestMeta::principal`]).
    pub fn principal(&self) -> Option<&'a crate::auth::Principal> {
        self.meta.principal()
    }
}

/// What a caller sees of the registry. Callers the view names alike see
/// the same lists (the lists are paged once per name and snapshot).
pub trait View: Send + Sync + 'static {
    /// The view `caller` gets; `None` for the whole registry.
    fn name(&self, caller: &Caller<'_>) -> Option<String>;
    /// Whether the view `view` holds `tool`.
    fn tool(&self, view: &str, tool: &Tool) -> bool {
        let _ = (view, tool);
        true
    }
    /// Whether the view `view` holds `prompt`.
    fn prompt(&self, view: &str, prompt: &Prompt) -> bool {
        let _ = (view, prompt);
        true
    }
    /// Whether the view `view` holds `resource`.
    fn resource(&self, view: &str, resource: &Resource) -> bool {
        let _ = (view, resource);
        true
    }
    /// Whether the view `view` holds `template`.
    fn template(&self, view: &str, template: &ResourceTemplate) -> bool {
        let _ = (view, template);
        true
    }
}

/// Most views whose lists one snapshot keeps; the lists of further views
/// are paged for each request, so memory stays bounded however many names
/// callers bring: at most this many times the size of the snapshot's own
/// lists.
#[cfg(feature = "std")]
pub const MAX_CACHED_VIEWS: usize = 64;

/// The cache of one snapshot's view lists.
#[cfg(feature = "std")]
#[derive(Default)]
pub(crate) struct ViewCache(std::sync::Mutex<BTreeMap<String, Lists>>);

#[cfg(feature = "std")]
fn visible<'a, E: Entry + 'a>(
    key: &'static str,
    table: &'a Table<E>,
    keep: impl Fn(&E) -> bool,
    paging: &Paging,
) -> Arc<Pages> {
    Arc::new(Pages::new(
        key,
        table.iter().filter(|e| keep(e)).map(|e| e.listed()),
        paging,
    ))
}

#[cfg(feature = "std")]
impl Snapshot {
    /// The lists `caller` sees of this snapshot through `view`: paged once
    /// per view name (the first request of a view pays for it, outside any
    /// lock; callers never wait for one another beyond a map lookup).
    pub(crate) fn lists_for(
        &self,
        view: Option<&dyn View>,
        caller: &Caller<'_>,
        paging: &Paging,
    ) -> Seen<'_> {
        let Some(view) = view else {
            return Seen::All(&self.lists);
        };
        let Some(name) = view.name(caller) else {
            return Seen::All(&self.lists);
        };
        let cache = |f: &mut dyn FnMut(&mut BTreeMap<String, Lists>) -> Option<Lists>| {
            let mut map = self.views.0.lock().unwrap_or_else(|p| p.into_inner());
            f(&mut map)
        };
        if let Some(lists) = cache(&mut |m| m.get(&name).cloned()) {
            return Seen::View(lists);
        }
        // A view's lists depend on who asks: never shared by caches.
        let paging = Paging {
            hint: crate::model::CacheHint::private(paging.hint.ttl_ms),
            ..paging.clone()
        };
        let lists = Lists {
            tools: visible(TOOLS, &self.tools, |e| view.tool(&name, &e.tool), &paging),
            prompts: visible(
                PROMPTS,
                &self.prompts,
                |e| view.prompt(&name, &e.prompt),
                &paging,
            ),
            resources: visible(
                RESOURCES,
                &self.resources,
                |e| view.resource(&name, &e.resource),
                &paging,
            ),
            templates: visible(
                TEMPLATES,
                &self.templates,
                |e| view.template(&name, &e.template),
                &paging,
            ),
        };
        cache(&mut |m| {
            if m.len() < MAX_CACHED_VIEWS {
                m.entry(name.clone()).or_insert_with(|| lists.clone());
            }
            None
        });
        Seen::View(lists)
    }
}

/// Whether `caller` is denied an entry: it has a view, and `holds` says
/// the view does not hold the entry.
#[cfg(feature = "std")]
pub(crate) fn hidden(
    view: Option<&dyn View>,
    caller: &Caller<'_>,
    holds: impl FnOnce(&dyn View, &str) -> bool,
) -> bool {
    let Some(view) = view else { return false };
    match view.name(caller) {
        Some(name) => !holds(view, &name),
        None => false,
    }
}
