//! One kind of entry in one snapshot: its items in list order, and an
//! index by key. Applying a batch of changes makes a new table in one pass
//! over the old one (O(n log n) pointer copies and comparisons; no entry is
//! derived again), and leaves the old table whole for its readers.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::entry::Entry;

/// One change to a table.
pub(crate) enum Op<E> {
    /// Add the entry, or replace the one with its key (keeping its place).
    Put(E),
    /// Remove the entry with this key, if there is one.
    Remove(alloc::string::String),
}

pub(crate) struct Table<E> {
    items: Vec<Arc<E>>,
    index: BTreeMap<Arc<str>, Arc<E>>,
}

impl<E> Default for Table<E> {
    fn default() -> Self {
        Table {
            items: Vec::new(),
            index: BTreeMap::new(),
        }
    }
}

impl<E: Entry> Table<E> {
    /// A table of `entries` in order; the first key that repeats is
    /// returned as the error.
    pub(crate) fn of(entries: Vec<E>) -> Result<Self, alloc::string::String> {
        let mut t = Table::default();
        for e in entries {
            let e = Arc::new(e);
            let key: Arc<str> = Arc::from(e.key());
            if t.index.insert(key, e.clone()).is_some() {
                return Err(alloc::string::String::from(e.key()));
            }
            t.items.push(e);
        }
        Ok(t)
    }

    /// A table of `entries` in order, where several may share a key (a
    /// template registered twice at build: the first one matches).
    pub(crate) fn of_shared_keys(entries: Vec<E>) -> Self {
        let mut t = Table::default();
        for e in entries {
            let e = Arc::new(e);
            t.index
                .entry(Arc::from(e.key()))
                .or_insert_with(|| e.clone());
            t.items.push(e);
        }
        t
    }

    /// The entry with `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Arc<E>> {
        self.index.get(key)
    }

    /// The entries in list order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Arc<E>> {
        self.items.iter()
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The table after `ops`, or `None` when they change nothing
    /// (removals of absent keys only). The result is that of applying the
    /// ops one by one: a put of a key present replaces its entry in place;
    /// a put of an absent key appends; a removal closes the gap (so a key
    /// removed and put again in one batch goes to the end, as it would in
    /// two commits).
    pub(crate) fn apply(&self, ops: Vec<Op<E>>) -> Option<Self> {
        let mut index = self.index.clone();
        // Keys appended by this batch, in order.
        let mut added: Vec<Arc<str>> = Vec::new();
        // Keys of this table the batch removed at least once.
        let mut gone: BTreeSet<Arc<str>> = BTreeSet::new();
        let mut changed = false;
        for op in ops {
            match op {
                Op::Put(e) => {
                    let key: Arc<str> = Arc::from(e.key());
                    if index.insert(key.clone(), Arc::new(e)).is_none() {
                        added.push(key);
                    }
                    changed = true;
                }
                Op::Remove(key) => {
                    if let Some((key, _)) = index.remove_entry(key.as_str()) {
                        changed = true;
                        added.retain(|k| *k != key);
                        if self.index.contains_key(&key) {
                            gone.insert(key);
                        }
                    }
                }
            }
        }
        if !changed {
            return None;
        }
        let mut items = Vec::with_capacity(index.len());
        let kept = self
            .items
            .iter()
            .map(|e| e.key())
            .filter(|k| !gone.contains(*k));
        for key in kept.chain(added.iter().map(|k| &**k)) {
            if let Some(e) = index.get(key) {
                items.push(e.clone());
            }
        }
        Some(Table { items, index })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;

    struct E(&'static str, u8);
    impl Entry for E {
        fn key(&self) -> &str {
            self.0
        }
        fn listed(&self) -> &[u8] {
            b"null"
        }
    }
    fn e(k: &'static str, v: u8) -> E {
        E(k, v)
    }
    fn order(t: &Table<E>) -> Vec<(&'static str, u8)> {
        t.iter().map(|e| (e.0, e.1)).collect()
    }

    #[test]
    fn puts_replace_in_place_and_removals_close_gaps() {
        let t = Table::of(alloc::vec![e("a", 0), e("b", 0), e("c", 0)]).unwrap();
        let n = t
            .apply(alloc::vec![
                Op::Put(e("d", 1)),
                Op::Put(e("b", 1)),
                Op::Remove(String::from("a")),
                Op::Put(e("e", 1)),
                Op::Remove(String::from("d")),
                Op::Put(e("d", 2)),
            ])
            .unwrap();
        assert_eq!(order(&n), [("b", 1), ("c", 0), ("e", 1), ("d", 2)]);
        assert_eq!(n.get("d").map(|e| e.1), Some(2));
        assert!(n.get("a").is_none());
        assert_eq!(
            order(&t),
            [("a", 0), ("b", 0), ("c", 0)],
            "the old table is whole"
        );
    }

    #[test]
    fn a_key_removed_and_put_again_in_one_batch_goes_to_the_end() {
        let t = Table::of(alloc::vec![e("a", 0), e("b", 0), e("c", 0)]).unwrap();
        let n = t
            .apply(alloc::vec![
                Op::Remove(String::from("a")),
                Op::Put(e("a", 1)),
                Op::Put(e("a", 2)),
            ])
            .unwrap();
        assert_eq!(order(&n), [("b", 0), ("c", 0), ("a", 2)]);
    }

    #[test]
    fn removing_what_is_absent_changes_nothing_and_duplicates_are_refused() {
        let t = Table::of(alloc::vec![e("a", 0)]).unwrap();
        assert!(t
            .apply(alloc::vec![Op::Remove(String::from("z"))])
            .is_none());
        assert_eq!(
            Table::of(alloc::vec![e("a", 0), e("a", 1)]).err(),
            Some(String::from("a"))
        );
    }
}
