//! Task ids and idempotency keys: 128 bits from the operating system's
//! random source, as 32 lowercase hex digits.
//!
//! `tasks.md` § Security Considerations: task ids may act as bearer tokens,
//! so they must not be enumerable or guessable. Ids arriving from clients
//! are parsed strictly before anything looks them up, so a crafted id never
//! reaches a file name.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

const LEN: usize = 32;

/// A task id: 32 lowercase hex digits.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId(String);

impl TaskId {
    /// A fresh random id; `None` if the system has no random source.
    pub fn random() -> Option<TaskId> {
        random_hex().map(TaskId)
    }

    /// Parse a client-supplied id; `None` unless it is exactly 32 lowercase
    /// hex digits.
    pub fn parse(s: &str) -> Option<TaskId> {
        let ok = s.len() == LEN && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        ok.then(|| TaskId(String::from(s)))
    }

    /// The id as sent on the wire.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for TaskId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for TaskId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        TaskId::parse(&s)
            .ok_or_else(|| serde::de::Error::custom("a task id is 32 lowercase hex digits"))
    }
}

/// 128 random bits as 32 lowercase hex digits.
pub(crate) fn random_hex() -> Option<String> {
    let mut bytes = [0u8; LEN / 2];
    getrandom::fill(&mut bytes).ok()?;
    let mut s = String::with_capacity(LEN);
    for b in bytes {
        s.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        s.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_ids_parse_and_differ() {
        let a = TaskId::random().unwrap();
        let b = TaskId::random().unwrap();
        assert_ne!(a, b);
        assert_eq!(TaskId::parse(a.as_str()), Some(a.clone()));
        assert_eq!(a.as_str().len(), 32);
    }

    #[test]
    fn parse_is_strict() {
        for bad in [
            "",
            "gate-test",
            "../../etc/passwd",
            "0123456789abcdef0123456789ABCDEF",
            "0123456789abcdef0123456789abcde",
            "0123456789abcdef0123456789abcdef0",
            "0123456789abcdef0123456789abcde/",
        ] {
            assert_eq!(TaskId::parse(bad), None, "{bad:?}");
        }
        assert!(TaskId::parse("0123456789abcdef0123456789abcdef").is_some());
    }
}
