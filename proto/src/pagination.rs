//! Opaque list cursors (`server/utilities/pagination.mdx`).
//!
//! A cursor names a page of one list as one registry snapshot (or one view
//! of it) holds it: `<page>.<fingerprint>`, where the fingerprint is a
//! digest of the list kind and the serialized list. A cursor from another
//! list, another view, a list a registry change has changed since, or one
//! edited by hand does not verify and is answered `-32602` ("Invalid
//! cursor", § Error Handling: the client lists again from the start, and
//! no page ever mixes two snapshots). A change that leaves the list as it
//! was leaves its cursors valid: they name the same bytes. The last page
//! carries no `nextCursor`, never `""`.

use alloc::format;
use alloc::string::String;
use sha2::{Digest, Sha256};

/// Fingerprint of one list, mixed into its cursors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint(u64);

impl Fingerprint {
    /// Digest the list's kind and serialized contents.
    pub fn of(kind: &str, serialized: &[u8]) -> Self {
        let mut d = Fingerprint::digest(kind);
        d.update(serialized);
        d.finish()
    }

    /// A digest of a list of kind `kind` fed piece by piece: the same
    /// fingerprint as [`of`](Fingerprint::of) of the pieces joined.
    pub fn digest(kind: &str) -> Digesting {
        let mut h = Sha256::new();
        h.update(kind.as_bytes());
        h.update([0]);
        Digesting(h)
    }

    /// The cursor for `page`.
    pub fn cursor(self, page: usize) -> String {
        format!("{page}.{:016x}", self.0)
    }

    /// The page a cursor names, if it belongs to this list and is in range.
    pub fn page(self, cursor: &str, pages: usize) -> Option<usize> {
        let (page, fp) = cursor.split_once('.')?;
        if fp.len() != 16 || u64::from_str_radix(fp, 16).ok()? != self.0 {
            return None;
        }
        if page.is_empty() || page.len() > 10 || !page.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let page: usize = page.parse().ok()?;
        (page > 0 && page < pages).then_some(page)
    }
}

/// A [`Fingerprint`] being computed.
pub struct Digesting(Sha256);

impl Digesting {
    /// Feed the next piece.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The fingerprint of everything fed.
    pub fn finish(self) -> Fingerprint {
        let d = self.0.finalize();
        let mut b = [0u8; 8];
        b.copy_from_slice(&d[..8]);
        Fingerprint(u64::from_be_bytes(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejects() {
        let fp = Fingerprint::of("tools", b"[1,2,3]");
        let c = fp.cursor(2);
        assert_eq!(fp.page(&c, 3), Some(2));
        assert_eq!(fp.page(&c, 2), None, "out of range");
        assert_eq!(fp.page(&fp.cursor(0), 3), None, "page 0 is never a cursor");
        let mut d = Fingerprint::digest("tools");
        d.update(b"[1,2");
        d.update(b",3]");
        assert_eq!(d.finish(), fp, "fed in pieces, the same digest");
        let other = Fingerprint::of("prompts", b"[1,2,3]");
        assert_eq!(other.page(&c, 3), None, "cursor of another list");
        assert_eq!(fp.page("", 3), None);
        assert_eq!(fp.page("garbage", 3), None);
        assert_eq!(fp.page("+1.0000000000000000", 3), None);
    }
}
