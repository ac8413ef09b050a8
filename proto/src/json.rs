//! Serializing into caller-owned buffers.

use alloc::vec::Vec;
use serde::Serialize;

/// Append the JSON encoding of `value` to `out`.
///
/// Serializing this crate's types cannot fail (string keys only, no
/// fallible `Serialize` impls); should a foreign type fail anyway, `null` is
/// written so the surrounding message stays well-formed.
pub fn write<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    #[cfg(feature = "std")]
    {
        let start = out.len();
        let mut ser = serde_json::Serializer::new(&mut *out);
        if value.serialize(&mut ser).is_err() {
            out.truncate(start);
            out.extend_from_slice(b"null");
        }
    }
    #[cfg(not(feature = "std"))]
    match serde_json::to_vec(value) {
        Ok(v) => out.extend_from_slice(&v),
        Err(_) => out.extend_from_slice(b"null"),
    }
}
