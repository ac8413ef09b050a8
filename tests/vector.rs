//! The shape of one wire vector.

/// One request and the exact answer it must get.
#[derive(Clone, Copy, Debug)]
pub struct Vector {
    /// A short unique name, printed when the vector fails.
    pub name: &'static str,
    /// The bytes the client writes, as literal JSON text. Normally one line
    /// (one message, no newline); a [`Scope::Stream`] vector may hold
    /// several lines separated by `\n`, written in one go.
    pub request: &'static str,
    /// What the server must write back.
    pub expect: Expect,
    /// Which transports the vector applies to.
    pub scope: Scope,
    /// How Streamable HTTP answers the request, when it is sent there.
    pub http: Http,
}

/// What a vector's request gets over Streamable HTTP
/// (`basic/transports/streamable-http.mdx`), where every message is its own
/// POST and the answer also has a status.
///
/// Statuses are written literally in each vector from the spec's rules:
/// 200 for results and for errors the spec gives no status (unknown tool,
/// invalid cursor, a method's own params: the conventional JSON-RPC over
/// HTTP answer); 202 and no body for an accepted notification
/// (§ Sending Messages 5); 400 for a parse error, an invalid request, a
/// header mismatch (-32020), a missing client capability (-32021,
/// `basic/index.mdx`), an unsupported protocol version (-32022) and a
/// request missing required `_meta` fields or carrying malformed ones
/// (-32602, `basic/index.mdx` § Per-request protocol fields); 404 for an
/// unknown method (-32601, § Protocol Version Header).
#[derive(Clone, Copy, Debug)]
pub enum Http {
    /// The same messages as [`Vector::expect`], with this status.
    Same(u16),
    /// A different answer, for the reason given: the HTTP headers a client
    /// derives from the body are checked before the body's own params
    /// (`streamable-http.mdx` § Server Validation; the order is the
    /// conformance suite's, see `snodo_proto::dispatch`), so a body a client
    /// cannot mirror fails on its headers first.
    Differs {
        /// The HTTP status.
        status: u16,
        /// The messages in the response body.
        expect: Expect,
        /// Why HTTP answers differently, printed when the vector fails.
        why: &'static str,
    },
    /// Not sent over HTTP: the vector is about a byte stream
    /// ([`Scope::Stream`]), which HTTP has no equivalent of.
    NotSent,
}

impl Http {
    /// The status and messages expected over HTTP, unless not sent there.
    pub fn expected(&self, same: Expect) -> Option<(u16, Expect)> {
        match *self {
            Http::Same(status) => Some((status, same)),
            Http::Differs { status, expect, .. } => Some((status, expect)),
            Http::NotSent => None,
        }
    }
}

/// What the server writes in reply to a [`Vector`]'s request.
#[derive(Clone, Copy, Debug)]
pub enum Expect {
    /// Exactly one message, equal (as parsed JSON) to this literal.
    Response(&'static str),
    /// Exactly these messages, in this order (e.g. notifications before the
    /// response they belong to).
    Messages(&'static [&'static str]),
    /// Nothing at all: a notification is never answered
    /// (`basic/index.mdx` § Notifications).
    Nothing,
}

impl Expect {
    /// The expected messages as literals.
    pub fn literals(&self) -> Vec<&'static str> {
        match self {
            Expect::Response(r) => vec![*r],
            Expect::Messages(m) => m.to_vec(),
            Expect::Nothing => Vec::new(),
        }
    }

    /// How many of the expected messages are responses (carry `result` or
    /// `error`): what a transport waits for before checking it is quiet.
    pub fn responses(&self) -> usize {
        self.literals()
            .iter()
            .filter(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap_or_default();
                v.get("result").is_some() || v.get("error").is_some()
            })
            .count()
    }
}

/// Which transports a vector applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Any transport: one request message in, its answer out.
    Any,
    /// Byte-stream transports only (stdio framing: several messages per
    /// write, in-flight id reuse on one stream, responses sent by a client).
    Stream,
}
