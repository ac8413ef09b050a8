//! The four list results of one snapshot, split into pages and serialized
//! once, when the snapshot is committed: answering a list request copies a
//! shared buffer and computes nothing (`server/utilities/pagination.mdx`).
//!
//! A page's `nextCursor` names the list it belongs to by a digest of the
//! list's contents ([`Fingerprint`]). A change to the list changes the
//! digest, so a cursor handed out before the change no longer verifies: it
//! is answered as the spec prescribes for an invalid cursor (§ Error
//! Handling: `-32602`), and the client starts again from the first page.
//! A page never mixes the items of two snapshots. A cursor of a list the
//! change left as it was stays valid: its pages are the same bytes.

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use crate::model::CacheHint;
use crate::pagination::Fingerprint;
use crate::shape;

/// How lists are paged and shaped: fixed when the service is built.
#[derive(Clone, Debug)]
pub(crate) struct Paging {
    /// `Limits::page_size`.
    pub(crate) page_size: usize,
    /// `CachePolicy::lists`.
    pub(crate) hint: CacheHint,
    /// The `_meta` every result carries.
    pub(crate) server_meta: Map<String, Value>,
}

/// A list pre-split into pre-serialized result pages (shared: answering
/// one copies nothing).
#[derive(Debug)]
pub(crate) struct Pages {
    pub(crate) pages: Vec<bytes::Bytes>,
    pub(crate) fingerprint: Fingerprint,
}

impl Pages {
    /// Page the list `items` under the result member `key`.
    pub(crate) fn new<'a>(
        key: &'static str,
        items: impl Iterator<Item = &'a Value>,
        paging: &Paging,
    ) -> Pages {
        let all: Vec<&Value> = items.collect();
        let serialized = serde_json::to_vec(&all).unwrap_or_default();
        let fingerprint = Fingerprint::of(key, &serialized);
        let chunks: Vec<&[&Value]> = if all.is_empty() {
            alloc::vec![&all[..]]
        } else {
            all.chunks(paging.page_size).collect()
        };
        let count = chunks.len();
        let pages = chunks
            .into_iter()
            .enumerate()
            .map(|(i, chunk)| {
                let mut m = Map::new();
                m.insert(
                    String::from(key),
                    Value::Array(chunk.iter().map(|v| (*v).clone()).collect()),
                );
                if i + 1 < count {
                    m.insert(
                        String::from("nextCursor"),
                        Value::String(fingerprint.cursor(i + 1)),
                    );
                }
                bytes::Bytes::from(shape::complete(
                    Value::Object(m),
                    Some(paging.hint),
                    &paging.server_meta,
                ))
            })
            .collect();
        Pages { pages, fingerprint }
    }

    /// The page `cursor` names (`None`: the first), or `None` when the
    /// cursor is not one of this list's.
    pub(crate) fn page(&self, cursor: Option<&str>) -> Option<&bytes::Bytes> {
        let i = match cursor {
            None => 0,
            Some(c) => self.fingerprint.page(c, self.pages.len())?,
        };
        self.pages.get(i)
    }
}

/// The four lists of one snapshot (or of one view of it). Each is shared
/// with the next snapshot when a change leaves it as it was.
#[derive(Clone, Debug)]
pub(crate) struct Lists {
    pub(crate) tools: Arc<Pages>,
    pub(crate) prompts: Arc<Pages>,
    pub(crate) resources: Arc<Pages>,
    pub(crate) templates: Arc<Pages>,
}
