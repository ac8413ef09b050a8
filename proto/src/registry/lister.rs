//! Resources enumerated on demand: a [`ResourceLister`] the application
//! implements lists resources it does not register one by one (files,
//! records), page by page, after the registered ones
//! (`server/resources.mdx` § Listing Resources, with
//! `server/utilities/pagination.mdx`).
//!
//! `resources/list` serves the registered resources' pages first; the last
//! of them carries the cursor `d`, which starts the lister's pages. A
//! lister's page carries `d:` and the lister's own cursor, opaque to the
//! client and handed back to the lister as it gave it. A cursor that is
//! neither a registered page's nor a lister's is invalid (`-32602`).
//!
//! The lister is called inline, while the request is admitted, on the
//! thread driving the connection: it answers from what the application
//! keeps in memory (an index, a cache) and never waits on I/O. Reading an
//! enumerated resource goes through a resource template whose reader
//! serves its URIs ([`ServiceBuilder::resource_template`](crate::ServiceBuilder::resource_template)).

use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use super::{Caller, Paging, RESOURCES};
use crate::error::ErrorObject;
use crate::model::Resource;

/// One page of the resources a [`ResourceLister`] enumerates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResourcePage {
    /// The resources of the page.
    pub resources: Vec<Resource>,
    /// The lister's cursor for the next page; `None` on the last.
    pub next_cursor: Option<String>,
}

/// Enumerates resources on demand (see the [module docs](self)).
pub trait ResourceLister: Send + Sync + 'static {
    /// The page of resources `caller` sees at `cursor` (`None`: the first
    /// page; otherwise a `next_cursor` this lister gave). Refuse a cursor
    /// it does not recognise with
    /// `ErrorObject::invalid_params("Invalid cursor")`.
    fn list(&self, caller: &Caller<'_>, cursor: Option<&str>) -> Result<ResourcePage, ErrorObject>;
}

/// The cursor that starts the lister's pages.
pub(crate) const START: &str = "d";
/// The prefix of a lister's own cursor.
const PREFIX: &str = "d:";

/// Where a `resources/list` cursor points, when a lister is installed.
pub(crate) enum Position<'a> {
    /// A page of the registered resources (or the first page).
    Registered(Option<&'a str>),
    /// A page of the lister's, at its own cursor.
    Lister(Option<&'a str>),
}

/// Read a `resources/list` cursor of a service with a lister.
pub(crate) fn position(cursor: Option<&str>) -> Position<'_> {
    match cursor {
        Some(START) => Position::Lister(None),
        Some(c) => match c.strip_prefix(PREFIX) {
            Some(own) => Position::Lister(Some(own)),
            None => Position::Registered(Some(c)),
        },
        None => Position::Registered(None),
    }
}

/// The lister's page at `cursor`, shaped as a `resources/list` result
/// (cached privately: what a lister enumerates may depend on who asks).
pub(crate) fn page(
    lister: &dyn ResourceLister,
    caller: &Caller<'_>,
    cursor: Option<&str>,
    paging: &Paging,
) -> Result<bytes::Bytes, ErrorObject> {
    let page = lister.list(caller, cursor)?;
    let mut m = Map::new();
    m.insert(
        String::from(RESOURCES),
        serde_json::to_value(&page.resources).unwrap_or(Value::Array(Vec::new())),
    );
    if let Some(next) = page.next_cursor {
        m.insert(
            String::from("nextCursor"),
            Value::String(alloc::format!("{PREFIX}{next}")),
        );
    }
    let hint = crate::model::CacheHint::private(paging.hint.ttl_ms);
    Ok(bytes::Bytes::from(crate::shape::complete(
        Value::Object(m),
        Some(hint),
        &paging.server_meta,
    )))
}
