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
