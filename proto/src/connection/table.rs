//! A connection's small ordered tables: its calls by id, and its request
//! ids in use.
//!
//! They hold a handful of entries (on HTTP the one exchange's call; on
//! stdio at most `max_concurrent_calls` running, `max_queued_calls`
//! waiting and the listen streams), and every request enters and leaves
//! them once. A vector kept sorted by key finds an entry by binary
//! search, takes the usual new call at its end (call ids only grow) and
//! keeps its buffer between requests, where a `BTreeMap` walks and
//! rebalances nodes on each insert and remove. Inserting or removing in
//! the middle moves the entries after it: bounded by those limits.
//! Iteration is in key order, as the map's was.

use alloc::vec::Vec;
use core::borrow::Borrow;

#[derive(Debug)]
pub(crate) struct Table<K, V>(Vec<(K, V)>);

impl<K, V> Default for Table<K, V> {
    fn default() -> Self {
        Table(Vec::new())
    }
}

impl<K: Ord, V> Table<K, V> {
    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.0.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// Insert or replace; the value replaced, if any.
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        if self.0.last().is_none_or(|(last, _)| *last < key) {
            self.0.push((key, value));
            return None;
        }
        match self.find(&key) {
            Ok(i) => Some(core::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                self.0.insert(i, (key, value));
                None
            }
        }
    }

    pub(crate) fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let i = self.find(key).ok()?;
        Some(self.0.remove(i).1)
    }

    pub(crate) fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        let i = self.find(key).ok()?;
        Some(&self.0[i].1)
    }

    pub(crate) fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        let i = self.find(key).ok()?;
        Some(&mut self.0[i].1)
    }

    pub(crate) fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }
}

impl<K, V> Table<K, V> {
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    /// Entries in key order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// Values in key order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }
}

impl<K, V> IntoIterator for Table<K, V> {
    type Item = (K, V);
    type IntoIter = alloc::vec::IntoIter<(K, V)>;

    /// Entries in key order.
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn keeps_key_order_whatever_the_order_of_inserts_and_removes() {
        let mut t = Table::default();
        for k in [5, 1, 9, 3, 7] {
            assert_eq!(t.insert(k, k * 10), None);
        }
        assert_eq!(t.insert(3, 33), Some(30), "a key present is replaced");
        assert_eq!(
            t.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            [1, 3, 5, 7, 9]
        );
        assert_eq!(t.remove(&5), Some(50));
        assert_eq!(t.remove(&5), None);
        assert_eq!(t.insert(11, 110), None);
        assert_eq!(t.get(&3), Some(&33));
        *t.get_mut(&1).unwrap() += 1;
        assert!(t.contains_key(&11) && !t.contains_key(&4));
        assert_eq!(t.len(), 5);
        assert_eq!(
            t.values().copied().collect::<Vec<_>>(),
            [11, 33, 70, 90, 110]
        );
        assert_eq!(
            t.into_iter().collect::<Vec<_>>(),
            vec![(1, 11), (3, 33), (7, 70), (9, 90), (11, 110)]
        );
    }
}
