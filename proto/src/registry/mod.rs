//! What the service serves right now: the tools, prompts, resources and
//! templates, as one immutable snapshot that readers load and
//! writers replace whole.
//!
//! Every request loads the current snapshot once and answers from it
//! alone, so it never sees half of a change. A [`Registry`] handle (with
//! `std`) applies a batch of changes by building the next snapshot beside
//! the current one and swapping it in: readers never wait for a writer
//! (the swap is one atomic pointer store, `arc-swap`), and writers take
//! turns among themselves. The lists are paged and serialized when a
//! snapshot is built, only those the change touched (a cursor names its
//! list by a digest of it, so a cursor from before a change is refused
//! `-32602`, `server/utilities/pagination.mdx` § Error Handling), and a
//! commit publishes `notifications/*/list_changed` through the service's
//! [`Hub`](crate::Hub), which every connection already carries to its
//! listen streams and initialize-era sessions. A [`View`]
//! shows each caller its own subset ([`view`]; by OAuth scope, the
//! scopes set on the [`Authorization`](crate::Authorization)); a [`ResourceLister`]
//! enumerates resources on demand after the registered ones ([`lister`]).
//!
//! Without `std` the registry is the snapshot built with the service and
//! never changes: `arc-swap` needs the standard library (its `no_std`
//! mode needs a nightly compiler's `#[thread_local]`), and a hand-rolled
//! atomic swap of an `Arc` is exactly the unsafe code that crate exists so
//! that nobody writes again. A `no_std` embedder that must change what it
//! serves builds a new [`Service`](crate::Service) for new connections.

pub(crate) mod entry;
#[cfg(feature = "std")]
mod handle;
pub mod lister;
pub(crate) mod lists;
pub(crate) mod scopes;
// Without `std` nothing changes a snapshot once built.
#[cfg_attr(not(feature = "std"), allow(dead_code))]
pub(crate) mod table;
pub mod view;

pub(crate) use entry::{PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};
#[cfg(feature = "std")]
pub use handle::{Change, Committed, Registry};
pub use lister::{ResourceLister, ResourcePage};
pub(crate) use lists::{Lists, Pages, Paging};
#[cfg(feature = "std")]
pub(crate) use table::Op;
pub(crate) use table::Table;
pub use view::{Caller, View};

use alloc::sync::Arc;

use entry::Entry;

/// The registry at one instant.
pub(crate) struct Snapshot {
    /// 0 for the snapshot the service was built with, then one more per
    /// committed change.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) generation: u64,
    pub(crate) tools: Arc<Table<ToolEntry>>,
    pub(crate) prompts: Arc<Table<PromptEntry>>,
    pub(crate) resources: Arc<Table<ResourceEntry>>,
    pub(crate) templates: Arc<Table<TemplateEntry>>,
    pub(crate) lists: Lists,
    /// The lists of each view of this snapshot, paged when first asked for.
    #[cfg(feature = "std")]
    pub(crate) views: view::ViewCache,
}

/// The result member of each list.
const TOOLS: &str = "tools";
const PROMPTS: &str = "prompts";
pub(crate) const RESOURCES: &str = "resources";
const TEMPLATES: &str = "resourceTemplates";

fn pages<E: Entry>(key: &'static str, table: &Table<E>, paging: &Paging) -> Arc<Pages> {
    Arc::new(Pages::new(key, table.iter().map(|e| e.listed()), paging))
}

impl Snapshot {
    /// The first snapshot, with every list paged.
    pub(crate) fn first(
        tools: Table<ToolEntry>,
        prompts: Table<PromptEntry>,
        resources: Table<ResourceEntry>,
        templates: Table<TemplateEntry>,
        paging: &Paging,
    ) -> Snapshot {
        let lists = Lists {
            tools: pages(TOOLS, &tools, paging),
            prompts: pages(PROMPTS, &prompts, paging),
            resources: pages(RESOURCES, &resources, paging),
            templates: pages(TEMPLATES, &templates, paging),
        };
        Snapshot {
            generation: 0,
            tools: Arc::new(tools),
            prompts: Arc::new(prompts),
            resources: Arc::new(resources),
            templates: Arc::new(templates),
            lists,
            #[cfg(feature = "std")]
            views: view::ViewCache::default(),
        }
    }

    /// The tool `name`.
    pub(crate) fn tool(&self, name: &str) -> Option<&Arc<ToolEntry>> {
        self.tools.get(name)
    }
}

/// The lists a caller sees: the snapshot's own, or its view's.
pub(crate) enum Seen<'a> {
    All(&'a Lists),
    #[cfg(feature = "std")]
    View(Lists),
}

impl core::ops::Deref for Seen<'_> {
    type Target = Lists;
    fn deref(&self) -> &Lists {
        match self {
            Seen::All(l) => l,
            #[cfg(feature = "std")]
            Seen::View(l) => l,
        }
    }
}

/// Where the current snapshot is kept.
pub(crate) struct Store {
    #[cfg(feature = "std")]
    current: arc_swap::ArcSwap<Snapshot>,
    #[cfg(not(feature = "std"))]
    current: Arc<Snapshot>,
    /// Writers take turns: each builds on the snapshot the last one stored.
    #[cfg(feature = "std")]
    writer: std::sync::Mutex<()>,
    /// How the lists of the next snapshots are paged.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) paging: Paging,
}

/// A loaded snapshot: it stays whole however many changes commit while
/// it is held.
#[cfg(feature = "std")]
pub(crate) struct Loaded<'a>(
    arc_swap::Guard<Arc<Snapshot>>,
    core::marker::PhantomData<&'a Store>,
);
/// A loaded snapshot (without `std` the only one).
#[cfg(not(feature = "std"))]
pub(crate) struct Loaded<'a>(&'a Snapshot);

#[cfg(feature = "std")]
impl core::ops::Deref for Loaded<'_> {
    type Target = Snapshot;
    fn deref(&self) -> &Snapshot {
        &self.0
    }
}

#[cfg(not(feature = "std"))]
impl core::ops::Deref for Loaded<'_> {
    type Target = Snapshot;
    fn deref(&self) -> &Snapshot {
        self.0
    }
}

impl Store {
    pub(crate) fn new(first: Snapshot, paging: Paging) -> Store {
        Store {
            #[cfg(feature = "std")]
            current: arc_swap::ArcSwap::from_pointee(first),
            #[cfg(not(feature = "std"))]
            current: Arc::new(first),
            #[cfg(feature = "std")]
            writer: std::sync::Mutex::new(()),
            paging,
        }
    }

    /// The current snapshot. Never waits for a writer.
    #[cfg(feature = "std")]
    pub(crate) fn load(&self) -> Loaded<'_> {
        Loaded(self.current.load(), core::marker::PhantomData)
    }

    /// The current snapshot.
    #[cfg(not(feature = "std"))]
    pub(crate) fn load(&self) -> Loaded<'_> {
        Loaded(&self.current)
    }
}
