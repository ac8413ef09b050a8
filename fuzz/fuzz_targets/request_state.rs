//! Opening a sealed MRTR `requestState` (`basic/patterns/mrtr.mdx`
//! § Server Requirements 4-5). A handler asks for input with state from
//! the input; the client retries with the token changed in any way (or
//! with an arbitrary string), on the same or another request, before or
//! after its expiry. Only the unchanged token on the same request before
//! expiry reaches the handler, with the state it sealed; everything else is
//! refused with `-32602` and never reaches a handler.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use snodo_fuzz::machine::fixture::STATE_TTL;
use snodo_fuzz::machine::source::Source;
use snodo_fuzz::machine::wire::{self, Message};
use snodo_proto::{Connection, ElicitRequest, InputRequired, Instant, Outcome, Output, Transport};

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;

/// What a retry came to.
#[derive(Debug, PartialEq)]
enum Fate {
    /// Admitted: the handler sees this state.
    Admitted(Option<Value>),
    /// Refused with this code.
    Refused(i64),
}

struct Client {
    conn: Connection,
    now: Instant,
}

impl Client {
    fn new(now: Instant) -> Client {
        let (service, _) = snodo_fuzz::roomy_fixture();
        Client {
            conn: Connection::new(service, Transport::Stdio, now),
            now,
        }
    }

    /// Send one line; return the invocation (if any) and the lines written.
    fn send(&mut self, line: &str) -> (Option<snodo_proto::Invocation>, Vec<Message>) {
        self.conn.handle_input(line.as_bytes(), self.now);
        self.conn.handle_input(b"\n", self.now);
        self.drain()
    }

    fn drain(&mut self) -> (Option<snodo_proto::Invocation>, Vec<Message>) {
        let mut inv = None;
        let mut out = Vec::new();
        while let Some(o) = self.conn.poll_output() {
            match o {
                Output::Transmit(b) => {
                    for line in b.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
                        out.push(wire::message(line).unwrap_or_else(|e| panic!("{e}")));
                    }
                }
                Output::Invoke(i) => {
                    assert!(inv.is_none(), "two invocations for one request");
                    inv = Some(i);
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        (inv, out)
    }

    /// A `tools/call` of `a` with `arguments` and, for a retry, `state`.
    fn call(&mut self, id: u64, arguments: &Value, state: Option<&str>) -> Fate {
        let mut params = json!({"name": "a", "arguments": arguments, "_meta": serde_json::from_str::<Value>(META).unwrap()});
        if let Some(s) = state {
            params["requestState"] = Value::String(String::from(s));
            params["inputResponses"] =
                json!({"k": {"action": "accept", "content": {"name": "Ann"}}});
        }
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
            .to_string();
        let (inv, out) = self.send(&line);
        match (inv, out.as_slice()) {
            (Some(inv), []) => {
                let state = inv.round().state::<Value>();
                let call = inv.call;
                self.conn
                    .complete(
                        call,
                        Outcome::Error(snodo_proto::ErrorObject::internal("done")),
                        self.now,
                    )
                    .unwrap();
                let _ = self.drain();
                Fate::Admitted(state)
            }
            (
                None,
                [Message::Response {
                    id: Some(got),
                    outcome: Err(code),
                }],
            ) => {
                assert_eq!(got, &json!(id));
                Fate::Refused(*code)
            }
            other => panic!("a retry produced {other:?}"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut src = Source::new(data);
    let t0 = Instant::from_millis(1_700_000_000_000 + u64::from(src.u16()));
    let mut c = Client::new(t0);

    // Round one: the handler asks for input and keeps state.
    let arguments = json!({"k": src.byte(), "s": String::from_utf8_lossy(src.bytes(8))});
    let state = json!({"step": src.byte(), "note": String::from_utf8_lossy(src.bytes(16))});
    let line = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a", "arguments": arguments, "_meta": serde_json::from_str::<Value>(META).unwrap()}}).to_string();
    let (inv, _) = c.send(&line);
    let inv = inv.expect("round one is invoked");
    let ask = InputRequired::new()
        .elicit(
            "k",
            ElicitRequest::form(
                "Name?",
                json!({"type": "object", "properties": {"name": {"type": "string"}}}),
            ),
        )
        .state(&state);
    c.conn
        .complete(inv.call, Outcome::InputRequired(ask), c.now)
        .unwrap();
    let (_, out) = c.drain();
    let token = match out.as_slice() {
        [Message::Response { outcome: Ok(r), .. }] => r["requestState"]
            .as_str()
            .expect("a sealed state")
            .to_string(),
        other => panic!("round one answered {other:?}"),
    };

    // The token as issued: admitted, with the state.
    assert_eq!(
        c.call(2, &arguments, Some(&token)),
        Fate::Admitted(Some(state.clone()))
    );

    // Changed in any way: refused.
    let mut changed = token.clone().into_bytes();
    for _ in 0..1 + src.below(3) {
        let at = src.below(changed.len() + 1);
        match src.below(6) {
            0 if at < changed.len() => changed[at] = src.byte(),
            1 => changed.insert(at, src.byte()),
            2 if at < changed.len() => {
                changed.remove(at);
            }
            3 => changed.truncate(at),
            4 => {
                let parts: Vec<&[u8]> = token.as_bytes().split(|&b| b == b'.').collect();
                let (i, j) = (src.below(parts.len()), src.below(parts.len()));
                let mut p = parts.clone();
                p.swap(i, j);
                changed = p.join(&b'.');
            }
            _ => changed = src.bytes(120).to_vec(),
        }
    }
    let changed = String::from_utf8_lossy(&changed).into_owned();
    let fate = c.call(3, &arguments, Some(&changed));
    if changed == token {
        assert_eq!(fate, Fate::Admitted(Some(state.clone())));
    } else {
        assert!(
            matches!(&fate, Fate::Refused(-32602)),
            "a changed requestState was not refused: {changed:?} -> {fate:?}"
        );
    }

    // The same token on another request: refused.
    let other = json!({"k": 1000 + u64::from(src.byte())});
    assert!(matches!(
        c.call(4, &other, Some(&token)),
        Fate::Refused(-32602)
    ));

    // After its expiry: refused; just before: admitted.
    c.now = t0 + STATE_TTL;
    assert_eq!(
        c.call(5, &arguments, Some(&token)),
        Fate::Admitted(Some(state))
    );
    c.now = t0 + STATE_TTL + std::time::Duration::from_millis(1);
    assert!(matches!(
        c.call(6, &arguments, Some(&token)),
        Fate::Refused(-32602)
    ));
});
