//! Shaping a handler's [`InputRequired`] into an `InputRequiredResult`
//! (`basic/patterns/mrtr.mdx` § Server Requirements; `schema.ts`
//! InputRequiredResult).
//!
//! - At least one of `inputRequests` and `requestState` (rule 6): a handler
//!   that asks for nothing is a bug, answered as an internal error.
//! - No input request the client's capabilities do not declare (rule 7;
//!   `client/elicitation.mdx`, `client/sampling.mdx` § Capabilities): the
//!   call fails with `-32021` naming what is missing.
//! - `requestState` is sealed (see `seal`) whenever there is anything to
//!   protect: the handler's state, or the input requests whose answers are
//!   checked on the retry.
//! - `resultType: "input_required"`, the server's identity in `_meta`, and
//!   no caching hints: an `InputRequiredResult` is not cacheable.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use super::admit::{unix_millis, Origin};
use super::b64;
use super::checks::bug;
use super::request::InputRequired;
use super::seal::Payload;
use crate::error::ErrorObject;
use crate::meta::ClientCapabilities;
use crate::service::Service;
use crate::time::Instant;

/// Serialize `ir` as the result of the request `origin`, or the error that
/// replaces it.
pub(crate) fn shape(
    service: &Service,
    origin: &Origin,
    capabilities: &ClientCapabilities,
    ir: InputRequired,
    now: Instant,
) -> Result<Vec<u8>, ErrorObject> {
    let inner = &service.inner;
    let super::inline::Inline {
        requests,
        issued,
        state,
    } = super::inline::inline(ir, capabilities).inspect_err(|e| {
        if e.code == crate::error::code::MISSING_REQUIRED_CLIENT_CAPABILITY {
            tracing::debug!(
                method = origin.method,
                "input requests refused: the client did not declare the capabilities they need"
            );
        }
    })?;

    let sealer = &inner.sealer;
    let token = if sealer.can_seal() {
        let iat = unix_millis(now);
        let ttl = u64::try_from(sealer.ttl.as_millis()).unwrap_or(u64::MAX);
        let Some(digest) = origin.digest() else {
            return Err(bug("the request's params digest is not available"));
        };
        let payload = Payload {
            m: String::from(origin.method),
            t: String::from(&*origin.target),
            d: b64::encode(&digest),
            iat,
            exp: iat.saturating_add(ttl),
            n: sealer.nonce(),
            p: origin.principal.clone(),
            s: state,
            q: issued,
        };
        match sealer.seal(&payload) {
            Some(t) => Some(t),
            None => return Err(bug("its state could not be sealed")),
        }
    } else if state.is_some() {
        return Err(bug(
            "it carries state but the service has no request-state key",
        ));
    } else {
        None
    };

    let mut result = Map::new();
    result.insert(
        String::from("resultType"),
        Value::String(String::from("input_required")),
    );
    if !requests.is_empty() {
        let mut map = Map::new();
        for (key, request) in &requests {
            let v = serde_json::to_value(request).map_err(|e| bug(&format!("{e}")))?;
            map.insert(key.clone(), v);
        }
        result.insert(String::from("inputRequests"), Value::Object(map));
    }
    if let Some(t) = token {
        result.insert(String::from("requestState"), Value::String(t));
    }
    if !inner.server_meta.is_empty() {
        result.insert(
            String::from("_meta"),
            Value::Object(Map::clone(&inner.server_meta)),
        );
    }
    let mut out = Vec::with_capacity(256);
    crate::json::write(&mut out, &result);
    Ok(out)
}
