//! Admission of the two MRTR params of a retried request
//! (`basic/patterns/mrtr.mdx` § Error Handling, § Security Considerations).
//!
//! Only `tools/call`, `prompts/get` and `resources/read` carry them
//! (`§ Supported Requests`); on any other method they are unknown params
//! and ignored. Every refusal is `-32602` with one sentence that names the
//! fault without revealing how state is sealed.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use bytes::Bytes;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::b64;
use super::canon;
use super::elicit::ElicitResult;
use super::roots::ListRootsResult;
use super::round::Round;
use super::sampling::CreateMessageResult;
use super::seal::{principal_digest, Issued, Payload};
use crate::error::{quoted, ErrorObject};
use crate::service::Service;
use crate::time::Instant;

/// The request an input-required answer would belong to: what sealed state
/// is bound to. (The capabilities its input requests are checked against
/// are the call's `_meta`.)
#[derive(Clone, Debug)]
pub(crate) struct Origin {
    pub(crate) method: &'static str,
    /// The tool or prompt name (shared with the registry) or the URI.
    pub(crate) target: Arc<str>,
    pub(crate) digest: Digest,
    /// The authenticated principal ([`principal_digest`]), if any: a
    /// state is sealed for it and refused to anyone else (`mrtr.mdx`
    /// § Server Requirements: servers SHOULD bind state to "the
    /// authenticated principal, rejecting state presented by a different
    /// principal").
    pub(crate) principal: Option<String>,
}

/// The digest of the request's params ([`canon::params_digest`]), which
/// most calls never need: it is computed at admission only to verify a
/// `requestState`, and otherwise only when a handler's state is sealed,
/// from the request message the connection attaches.
#[derive(Clone, Debug)]
pub(crate) enum Digest {
    /// Computed at admission.
    Computed([u8; 32]),
    /// Computed when needed from the params of this JSON-RPC message (the
    /// same bytes the request was admitted from).
    Message(Bytes),
    /// Neither: sealing state for this call is refused (nothing attached
    /// the message; a bug, never a wrong binding).
    Pending,
}

impl Origin {
    /// Attach the bytes of the message the request was parsed from, so the
    /// digest can be computed if it is ever needed.
    pub(crate) fn attach_message(&mut self, message: &Bytes) {
        if let Digest::Pending = self.digest {
            self.digest = Digest::Message(message.clone());
        }
    }

    /// The params digest, computing it if it was deferred.
    pub(crate) fn digest(&self) -> Option<[u8; 32]> {
        match &self.digest {
            Digest::Computed(d) => Some(*d),
            Digest::Message(bytes) => match serde_json::from_slice::<Value>(bytes) {
                Ok(Value::Object(mut message)) => match message.remove("params") {
                    Some(Value::Object(params)) => Some(canon::params_digest(&params)),
                    _ => None,
                },
                _ => None,
            },
            Digest::Pending => None,
        }
    }
}

/// Admit `inputResponses` and `requestState` of a `method` request for
/// `target` whose params are `params`, made by `principal` (authenticated
/// by the transport, if it was).
pub(crate) fn admit(
    service: &Service,
    method: &'static str,
    target: Arc<str>,
    params: &Map<String, Value>,
    principal: Option<&crate::auth::Principal>,
    now: Instant,
) -> Result<(Origin, Round), ErrorObject> {
    let mut origin = Origin {
        method,
        target,
        digest: Digest::Pending,
        principal: principal.map(principal_digest),
    };
    let responses = responses(params.get("inputResponses"))?;
    let payload = match params.get("requestState") {
        None => None,
        Some(Value::String(token)) => {
            origin.digest = Digest::Computed(canon::params_digest(params));
            Some(verify(service, &origin, token, now)?)
        }
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "Parameter requestState must be a string",
            ))
        }
    };
    let round = match payload {
        None => Round {
            responses,
            state: None,
            issued: None,
        },
        Some(p) => Round {
            responses: checked(responses, &p.q)?,
            state: p.s,
            issued: Some(p.q),
        },
    };
    Ok((origin, round))
}

/// `inputResponses`: absent, or an object whose values are objects (each a
/// result object: `schema.ts` InputResponses).
pub(super) fn responses(v: Option<&Value>) -> Result<Map<String, Value>, ErrorObject> {
    match v {
        None => Ok(Map::new()),
        Some(Value::Object(m)) => {
            if let Some((key, _)) = m.iter().find(|(_, v)| !v.is_object()) {
                return Err(ErrorObject::invalid_params(format!(
                    "Input response {} must be an object",
                    quoted(key)
                )));
            }
            Ok(m.clone())
        }
        Some(_) => Err(ErrorObject::invalid_params(
            "Parameter inputResponses must be an object mapping input request keys to results",
        )),
    }
}

/// Open `token` and check it belongs to this request and is still live.
fn verify(
    service: &Service,
    origin: &Origin,
    token: &str,
    now: Instant,
) -> Result<Payload, ErrorObject> {
    let Some(p) = service.inner.sealer.open(token) else {
        tracing::debug!("requestState failed verification");
        return Err(ErrorObject::invalid_params(
            "Invalid requestState: it was not issued by this server or was modified",
        ));
    };
    let digest = origin.digest().map(|d| b64::encode(&d));
    if p.m != origin.method || *p.t != *origin.target || digest.as_deref() != Some(p.d.as_str()) {
        tracing::debug!(
            method = origin.method,
            "requestState replayed on another request"
        );
        return Err(ErrorObject::invalid_params(
            "Invalid requestState: it was issued for a different request",
        ));
    }
    // Another principal's state (or an authenticated one's presented
    // without authentication, or the reverse) is refused like another
    // request's: the answer does not say whose it was.
    if p.p != origin.principal {
        tracing::debug!(
            method = origin.method,
            "requestState presented by another principal"
        );
        return Err(ErrorObject::invalid_params(
            "Invalid requestState: it was issued for a different request",
        ));
    }
    if unix_millis(now) > p.exp {
        return Err(ErrorObject::invalid_params(
            "Expired requestState: retry the original request without it",
        ));
    }
    Ok(p)
}

/// Milliseconds since the UNIX epoch (`time.rs`: instants count from it).
pub(crate) fn unix_millis(now: Instant) -> u64 {
    now.as_nanos() / 1_000_000
}

/// Keep the answers to what was issued, each checked against its request;
/// drop the rest (`§ Error Handling`: unexpected entries are ignored).
pub(crate) fn checked(
    responses: Map<String, Value>,
    issued: &BTreeMap<String, Issued>,
) -> Result<Map<String, Value>, ErrorObject> {
    let mut kept = Map::new();
    for (key, value) in responses {
        let Some(kind) = issued.get(&key) else {
            continue;
        };
        check(&key, kind, &value)?;
        kept.insert(key, value);
    }
    Ok(kept)
}

fn check(key: &str, kind: &Issued, value: &Value) -> Result<(), ErrorObject> {
    let malformed = |what: &str| {
        ErrorObject::invalid_params(format!(
            "Input response {} is not a valid {what} result",
            quoted(key)
        ))
    };
    match kind {
        Issued::Elicit(schema) => {
            let r = ElicitResult::deserialize(value).map_err(|_| malformed("elicitation"))?;
            if let (true, Some(schema)) = (r.is_accepted(), schema) {
                let content = Value::Object(r.content.unwrap_or_default());
                conforms(key, schema, &content)?;
            }
        }
        Issued::Sample => {
            CreateMessageResult::deserialize(value).map_err(|_| malformed("sampling"))?;
        }
        Issued::Roots => {
            ListRootsResult::deserialize(value).map_err(|_| malformed("roots"))?;
        }
    }
    Ok(())
}

/// `client/elicitation.mdx` § Form Mode Security: servers SHOULD validate
/// received data against the requested schema.
#[cfg(feature = "std")]
fn conforms(key: &str, schema: &Value, content: &Value) -> Result<(), ErrorObject> {
    let compiled = crate::schema::Compiled::new(schema).map_err(|why| {
        tracing::error!(%why, "a sealed requestedSchema does not compile");
        ErrorObject::internal("Internal error")
    })?;
    compiled.validate(content).map_err(|why| {
        ErrorObject::invalid_params(format!(
            "Input response {} does not match the requested schema: {}",
            quoted(key),
            crate::error::truncate(&why, 256)
        ))
    })
}

/// Without `std` there is no validator; the handler checks the content.
#[cfg(not(feature = "std"))]
fn conforms(_: &str, _: &Value, _: &Value) -> Result<(), ErrorObject> {
    Ok(())
}
