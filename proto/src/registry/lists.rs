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
    /// A [`ResourceLister`](super::ResourceLister) follows the registered
    /// resources: their last page points to its first.
    pub(crate) lister: bool,
}

/// A list pre-split into pre-serialized result pages (shared: answering
/// one copies nothing).
#[derive(Debug)]
pub(crate) struct Pages {
    pub(crate) pages: Vec<bytes::Bytes>,
    pub(crate) fingerprint: Fingerprint,
    /// The list has no items (its one page is empty).
    pub(crate) empty: bool,
}

impl Pages {
    /// Page the list of serialized `items` under the result member `key`.
    ///
    /// One pass, copying bytes: each item was serialized when it was
    /// registered; the digest is taken over the list as it would be
    /// serialized whole (`[a,b,…]`); each page is the shaped result with an
    /// empty list, the items spliced into it.
    pub(crate) fn new<'a>(
        key: &'static str,
        items: impl Iterator<Item = &'a [u8]>,
        paging: &Paging,
    ) -> Pages {
        let all: Vec<&[u8]> = items.collect();
        let mut digest = Fingerprint::digest(key);
        digest.update(b"[");
        for (i, item) in all.iter().enumerate() {
            if i > 0 {
                digest.update(b",");
            }
            digest.update(item);
        }
        digest.update(b"]");
        let fingerprint = digest.finish();
        let chunks: Vec<&[&[u8]]> = if all.is_empty() {
            alloc::vec![&all[..]]
        } else {
            all.chunks(paging.page_size).collect()
        };
        let count = chunks.len();
        let then = (key == super::RESOURCES && paging.lister).then_some(super::lister::START);
        // `"tools":[]`: the empty list the items go into.
        let empty = alloc::format!("\"{key}\":[]");
        let pages = chunks
            .into_iter()
            .enumerate()
            .map(|(i, chunk)| {
                let mut m = Map::new();
                m.insert(String::from(key), Value::Array(Vec::new()));
                if i + 1 < count {
                    m.insert(
                        String::from("nextCursor"),
                        Value::String(fingerprint.cursor(i + 1)),
                    );
                } else if let Some(then) = then {
                    m.insert(
                        String::from("nextCursor"),
                        Value::String(String::from(then)),
                    );
                }
                let shaped =
                    shape::complete(Value::Object(m), Some(paging.hint), &paging.server_meta);
                bytes::Bytes::from(splice(shaped, empty.as_bytes(), chunk))
            })
            .collect();
        Pages {
            pages,
            fingerprint,
            empty: all.is_empty(),
        }
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

/// `shaped` with `items` put into its empty list `empty` (`"tools":[]`).
/// The last occurrence is the result's own member: members are written in
/// order and the list's key sorts after `_meta` and every other member
/// that could hold such text, and a JSON string cannot contain it
/// unescaped.
fn splice(shaped: Vec<u8>, empty: &[u8], items: &[&[u8]]) -> Vec<u8> {
    let Some(at) = shaped.windows(empty.len()).rposition(|w| w == empty) else {
        return shaped;
    };
    let open = at + empty.len() - 1;
    let size: usize = items.iter().map(|i| i.len() + 1).sum();
    let mut out = Vec::with_capacity(shaped.len() + size);
    out.extend_from_slice(&shaped[..open]);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    out.extend_from_slice(&shaped[open..]);
    out
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
