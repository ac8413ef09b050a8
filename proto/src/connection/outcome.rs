//! A handler's outcome, checked and shaped into the answer its request
//! expects: a tool's result against its `outputSchema`, a resource that
//! does not exist, at most 100 completion values, an `input_required`
//! only where MRTR allows it, and an initialize-era session's answer
//! without what 2026-07-28 added.

use serde_json::{json, Value};

use super::outbox::KEEP_BUFFER;
use super::{Call, Connection, Expect, Final};
use crate::dispatch;
use crate::error::ErrorObject;
use crate::handler::Outcome;
use crate::time::Instant;

/// Bytes a result buffer starts with: most answers fit.
const FIRST_RESULT: usize = 512;

impl Connection {
    pub(super) fn write_outcome(&mut self, call: &Call, outcome: Outcome, now: Instant) {
        // The result is shaped into a buffer the connection keeps.
        let mut buf = core::mem::take(&mut self.result);
        buf.clear();
        // A host request's connection is new: room for a usual answer at
        // once rather than by doubling from empty.
        buf.reserve(FIRST_RESULT);
        let inner = &self.service.inner;
        let shaped: Result<(), ErrorObject> = match (&call.expect, outcome) {
            (_, Outcome::Error(e)) => Err(e),
            (Expect::Tool(tool), Outcome::CallTool(r)) => crate::shape::write_checked_tool_result(
                &mut buf,
                tool.as_deref(),
                &r,
                &self.service.inner.server_meta,
            ),
            (Expect::Extension, Outcome::Extension(result)) => {
                match crate::extension::shape(result, &inner.server_meta) {
                    Ok(r) => {
                        buf = r;
                        Ok(())
                    }
                    Err(why) => {
                        tracing::error!(id = %call.id, %why, "extension fault: malformed result");
                        Err(ErrorObject::internal("Internal error"))
                    }
                }
            }
            (Expect::Resource(uri), Outcome::ReadResource(r)) => {
                if r.contents.is_empty() {
                    // `resources.mdx`: never an empty `contents` for a
                    // resource that does not exist.
                    Err(dispatch::resource_not_found(uri))
                } else {
                    let hint = r.cache.unwrap_or(inner.cache.reads);
                    crate::shape::write_read_result(&mut buf, &r, hint, &inner.server_meta);
                    Ok(())
                }
            }
            (Expect::Prompt, Outcome::GetPrompt(r)) => {
                crate::shape::write_complete(&mut buf, to_value(&r), None, &inner.server_meta);
                Ok(())
            }
            (Expect::Complete, Outcome::Complete(mut c)) => {
                // `completion.mdx` § Completion Results: at most 100 values.
                if c.values.len() > 100 {
                    let total = c.values.len() as u64;
                    c.values.truncate(100);
                    c.has_more = Some(true);
                    c.total = Some(c.total.map_or(total, |t| t.max(total)));
                }
                crate::shape::write_complete(
                    &mut buf,
                    json!({ "completion": c }),
                    None,
                    &inner.server_meta,
                );
                Ok(())
            }
            // `mrtr.mdx` § Supported Requests: only tools/call,
            // resources/read and prompts/get may answer input_required.
            (
                Expect::Tool(_) | Expect::Resource(_) | Expect::Prompt,
                Outcome::InputRequired(ir),
            ) => match &call.origin {
                Some(origin) => crate::mrtr::shape(
                    &self.service,
                    origin,
                    &call.shared.meta.client_capabilities,
                    ir,
                    now,
                )
                .map(|r| buf = r),
                None => Err(ErrorObject::internal("Internal error")),
            },
            (expect, _) => {
                tracing::error!(id = %call.id, ?expect, "handler returned an outcome of the wrong kind");
                Err(ErrorObject::internal("Internal error"))
            }
        };
        // A session's answer carries nothing 2026-07-28 added (`legacy`).
        let shaped = match (&call.legacy, shaped) {
            (None, s) => s,
            (Some(_), Ok(())) => {
                buf = crate::legacy::reshape_result(&buf);
                Ok(())
            }
            (Some(_), Err(e)) => Err(crate::legacy::reshape_error(e)),
        };
        match shaped {
            Ok(()) => self.emit_final(Some(&call.id), Final::Result(&buf), now),
            Err(e) => self.emit_final(Some(&call.id), Final::Error(&e, false), now),
        }
        if buf.capacity() <= KEEP_BUFFER {
            self.result = buf;
        }
    }
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}
