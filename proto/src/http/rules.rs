//! The rules of Streamable HTTP, in the order a request meets them
//! (`streamable-http.mdx` § Security & Endpoint, § Sending Messages,
//! § Server Validation; the order across them is the conformance suite's,
//! `conformance/SCENARIOS-2026-07-28.md` § 4):
//!
//! 1. head checks before the body is read: endpoint path (404), method
//!    (405 with `Allow: POST`, or `Allow: GET, POST, DELETE` when sessions
//!    are served), `Host` (400 missing, 403 foreign),
//!    `Origin` (403), `Content-Type` (415), `Accept` (406);
//! 2. the body through the transport-neutral admission of
//!    [`dispatch`](crate::dispatch), with this module's [`Mirrors`] as its
//!    header check: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
//!    `Mcp-Param-*` must be present where required and equal the body
//!    (400 + `-32020`);
//! 3. the HTTP status of every JSON-RPC error ([`status_of`]).

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use serde_json::{Map, Value};

use super::codec::Head;
use super::{HostPolicy, HttpConfig, OriginPolicy};
use crate::dispatch::{HeaderCheck, Params};
use crate::error::{code, ErrorObject};
use crate::headers::{self, ValueError};
use crate::service::Service;

/// A head-level refusal: answer `status` with `message` and close.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// HTTP status.
    pub status: u16,
    /// One sentence.
    pub message: String,
    /// For a 405: the `Allow` header line naming the methods the endpoint
    /// does accept (RFC 9110 § 15.5.6: a 405 MUST carry one).
    pub allow: Option<&'static str>,
}

fn refuse(status: u16, message: impl Into<String>) -> Refusal {
    Refusal {
        status,
        message: message.into(),
        allow: None,
    }
}

/// Step 1: checks that need only the head, for a server that speaks
/// 2026-07-28 only.
pub fn check_head(config: &HttpConfig, head: &Head) -> Result<(), Refusal> {
    check_head_with(config, head, false)
}

/// Step 1, for a server that also serves initialize-era `sessions`: then
/// GET (the standalone SSE stream) and DELETE (ending a session) are
/// methods of the endpoint too (`mcp-2025-11-25/basic/transports.mdx`
/// § Listening for Messages from the Server, § Session Management); what
/// they need beyond the head is checked with their session.
pub fn check_head_with(config: &HttpConfig, head: &Head, sessions: bool) -> Result<(), Refusal> {
    if head.path != config.endpoint {
        return Err(refuse(404, "Not Found"));
    }
    // Origin and Host are checked before the method so that a hostile page
    // learns nothing about the endpoint (DNS rebinding).
    let host = match head.get("host") {
        Some(h) if head.count("host") == 1 => h,
        Some(_) => return Err(refuse(400, "Multiple Host headers")),
        None if head.minor_version >= 1 => return Err(refuse(400, "Missing Host header")),
        None => b"",
    };
    if !host.is_empty() && !host_allowed(&config.hosts, host) {
        return Err(refuse(403, "Forbidden: Host not allowed"));
    }
    if let Some(origin) = head.get("origin") {
        if head.count("origin") > 1 || !origin_allowed(&config.origins, origin) {
            return Err(refuse(403, "Forbidden: Origin not allowed"));
        }
    }
    if sessions && head.method == "DELETE" {
        return Ok(());
    }
    if sessions && head.method == "GET" {
        // `§ Listening for Messages from the Server`: the client MUST
        // accept text/event-stream.
        let accept = head.get("accept").unwrap_or(b"");
        if !accepts(accept, "text", "event-stream") {
            return Err(refuse(
                406,
                "Not Acceptable: Accept must list text/event-stream",
            ));
        }
        return Ok(());
    }
    if head.method != "POST" {
        // 2026-07-28 alone: `§ Earlier Streamable HTTP Revisions`, GET and
        // DELETE get 405. With sessions (2025-11-25 § Streamable HTTP) the
        // endpoint also takes GET and DELETE; anything else is refused.
        let (message, allow) = if sessions {
            (
                "Method Not Allowed: the MCP endpoint accepts GET, POST and DELETE",
                "Allow: GET, POST, DELETE",
            )
        } else {
            (
                "Method Not Allowed: the MCP endpoint accepts POST only",
                "Allow: POST",
            )
        };
        return Err(Refusal {
            status: 405,
            message: String::from(message),
            allow: Some(allow),
        });
    }
    match head.get("content-type") {
        Some(ct) if media_type_is(ct, "application/json") => {}
        _ => {
            return Err(refuse(
                415,
                "Unsupported Media Type: the body must be application/json",
            ))
        }
    }
    // `§ Sending Messages` 2: Accept lists application/json and text/event-stream.
    let accept = head.get("accept").unwrap_or(b"");
    // The released clients' header, compared whole before it is parsed.
    let both = if accept == b"application/json, text/event-stream" {
        true
    } else if accept.is_ascii() {
        accepts_all_ascii(
            accept,
            [(b"application", b"json"), (b"text", b"event-stream")],
        )
    } else {
        accepts_text(accept, "application", "json") && accepts_text(accept, "text", "event-stream")
    };
    if !both {
        return Err(refuse(
            406,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        ));
    }
    Ok(())
}

/// `str::trim` on ASCII bytes: Unicode `White_Space` within ASCII.
fn trim_ascii(mut v: &[u8]) -> &[u8] {
    const WS: &[u8] = b"\t\n\x0b\x0c\r ";
    while let [b, rest @ ..] = v {
        if !WS.contains(b) {
            break;
        }
        v = rest;
    }
    while let [rest @ .., b] = v {
        if !WS.contains(b) {
            break;
        }
        v = rest;
    }
    v
}

fn media_type_is(value: &[u8], expected: &str) -> bool {
    if value.is_ascii() {
        // The usual header: the same verdict as below, on the bytes.
        let t = value.split(|&b| b == b';').next().unwrap_or(b"");
        return trim_ascii(t).eq_ignore_ascii_case(expected.as_bytes());
    }
    media_type_text_is(value, expected)
}

fn media_type_text_is(value: &[u8], expected: &str) -> bool {
    let s = String::from_utf8_lossy(value);
    s.split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case(expected))
}

fn accepts(accept: &[u8], ty: &str, sub: &str) -> bool {
    if accept.is_ascii() {
        return accepts_all_ascii(accept, [(ty.as_bytes(), sub.as_bytes())]);
    }
    accepts_text(accept, ty, sub)
}

fn accepts_text(accept: &[u8], ty: &str, sub: &str) -> bool {
    let s = String::from_utf8_lossy(accept);
    s.split(',').any(|range| {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim();
        // `q=0` means "not acceptable".
        let refused = parts.any(|p| {
            let p = p.trim();
            // Compared as bytes: a parameter may start with any character.
            p.as_bytes()
                .get(..2)
                .is_some_and(|b| b.eq_ignore_ascii_case(b"q="))
                && p[2..].trim().parse::<f32>().is_ok_and(|q| q == 0.0)
        });
        if refused {
            return false;
        }
        let Some((t, st)) = media.split_once('/') else {
            return false;
        };
        (t == "*" && st == "*")
            || (t.eq_ignore_ascii_case(ty) && (st == "*" || st.eq_ignore_ascii_case(sub)))
    })
}

/// [`accepts`] of an ASCII header for every one of `wanted` (type,
/// subtype), in one pass over its bytes (no copy, no char searching):
/// what the text path decides for the same header, media type by media
/// type.
fn accepts_all_ascii<const N: usize>(accept: &[u8], wanted: [(&[u8], &[u8]); N]) -> bool {
    let mut found = [false; N];
    for range in accept.split(|&b| b == b',') {
        let mut parts = range.split(|&b| b == b';');
        let media = trim_ascii(parts.next().unwrap_or(b""));
        let refused = parts.any(|p| {
            let p = trim_ascii(p);
            p.get(..2).is_some_and(|b| b.eq_ignore_ascii_case(b"q="))
                && core::str::from_utf8(trim_ascii(&p[2..]))
                    .ok()
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q == 0.0)
        });
        if refused {
            continue;
        }
        let Some(slash) = media.iter().position(|&b| b == b'/') else {
            continue;
        };
        let (t, st) = (&media[..slash], &media[slash + 1..]);
        for ((ty, sub), found) in wanted.iter().zip(&mut found) {
            *found |= (t == b"*" && st == b"*")
                || (t.eq_ignore_ascii_case(ty) && (st == b"*" || st.eq_ignore_ascii_case(sub)));
        }
    }
    found.iter().all(|f| *f)
}

const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// Split `host[:port]` (bracketed IPv6 kept whole).
fn host_name(authority: &str) -> &str {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(i) => &authority[..=i],
            None => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => authority,
    }
}

fn host_allowed(policy: &HostPolicy, raw: &[u8]) -> bool {
    let Ok(authority) = core::str::from_utf8(headers::trim_ows(raw)) else {
        return false;
    };
    let name = host_name(authority);
    match policy {
        HostPolicy::Any => true,
        HostPolicy::Loopback => LOOPBACK_HOSTS.iter().any(|h| h.eq_ignore_ascii_case(name)),
        HostPolicy::List(list) => list.iter().any(|h| h.eq_ignore_ascii_case(name)),
    }
}

fn origin_allowed(policy: &OriginPolicy, raw: &[u8]) -> bool {
    let Ok(origin) = core::str::from_utf8(headers::trim_ows(raw)) else {
        return false;
    };
    match policy {
        OriginPolicy::Any => true,
        OriginPolicy::List(list) => list.iter().any(|o| o.eq_ignore_ascii_case(origin)),
        OriginPolicy::Loopback => {
            let Some((scheme, rest)) = origin.split_once("://") else {
                return false;
            };
            if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
                || rest.contains('/')
            {
                return false;
            }
            let name = host_name(rest);
            LOOPBACK_HOSTS.iter().any(|h| h.eq_ignore_ascii_case(name))
        }
    }
}

/// Step 2: the header mirrors of one request, checked against its body.
pub struct Mirrors<'a> {
    /// The request head.
    pub head: &'a Head,
    /// The service (for the tools' `x-mcp-header` annotations).
    pub service: &'a Service,
}

impl Mirrors<'_> {
    /// The single value of a standard header, decoded; `None` if absent.
    /// Inlined into each call, so its header name is numbered when
    /// compiled (see `Head::values`).
    #[inline(always)]
    fn single(
        &self,
        name: &str,
        display: &str,
        sentinel: bool,
    ) -> Result<Option<Cow<'_, str>>, ErrorObject> {
        let mut values = self.head.values(name);
        let Some(raw) = values.next() else {
            return Ok(None);
        };
        if values.next().is_some() {
            return Err(ErrorObject::header_mismatch(format!(
                "Header mismatch: {display} appears more than once"
            )));
        }
        let decoded = if sentinel {
            headers::decode_value_borrowed(raw)
        } else {
            let t = headers::trim_ows(raw);
            let visible = t.iter().all(|&b| b == b'\t' || (0x20..=0x7e).contains(&b));
            match core::str::from_utf8(t) {
                // Visible ASCII: borrowed, never copied.
                Ok(text) if visible => Ok(Cow::Borrowed(text)),
                _ => Err(ValueError::InvalidCharacters),
            }
        };
        decoded.map(Some).map_err(|e| invalid_value(display, e))
    }
}

fn invalid_value(display: &str, e: ValueError) -> ErrorObject {
    ErrorObject::header_mismatch(match e {
        ValueError::InvalidCharacters => {
            format!("Header mismatch: {display} contains invalid characters")
        }
        ValueError::InvalidBase64 => {
            format!("Header mismatch: {display} has an invalid Base64 value")
        }
    })
}

fn missing(display: &str) -> ErrorObject {
    ErrorObject::header_mismatch(format!(
        "Header mismatch: missing required header {display}"
    ))
}

fn differs(display: &str) -> ErrorObject {
    ErrorObject::header_mismatch(format!(
        "Header mismatch: {display} header does not match the request body"
    ))
}

impl HeaderCheck for Mirrors<'_> {
    fn check(&self, method: &str, params: Params<'_>, version: &str) -> Result<(), ErrorObject> {
        // `§ Protocol Version Header`: required, equal to `_meta`'s version.
        match self.single("mcp-protocol-version", "MCP-Protocol-Version", false)? {
            None => return Err(missing("MCP-Protocol-Version")),
            Some(v) if v != version => return Err(differs("MCP-Protocol-Version")),
            Some(_) => {}
        }
        // `§ Standard Request Headers`: Mcp-Method on every request.
        match self.single("mcp-method", "Mcp-Method", false)? {
            None => return Err(missing("Mcp-Method")),
            Some(m) if m != method => return Err(differs("Mcp-Method")),
            Some(_) => {}
        }
        let name_source = match method {
            "tools/call" | "prompts/get" => Some("name"),
            "resources/read" => Some("uri"),
            // An extension's method names its own source, if any.
            _ => self.service.inner.extensions.name_param(method),
        };
        if let Some(field) = name_source {
            let header = self
                .single("mcp-name", "Mcp-Name", true)?
                .ok_or_else(|| missing("Mcp-Name"))?;
            // A body without the field is refused later as invalid params.
            if let Some(body) = params.str(field) {
                if header.as_ref() != body {
                    return Err(differs("Mcp-Name"));
                }
            }
        }
        Ok(())
    }

    /// `§ Server Behavior for Custom Headers`.
    fn check_tool(
        &self,
        params: &[headers::HeaderParam],
        arguments: &Map<String, Value>,
    ) -> Result<(), ErrorObject> {
        for param in params {
            let display = format!("Mcp-Param-{}", param.name);
            let header = match self.head.count(&param.header_lower) {
                0 => None,
                1 => {
                    let raw = self.head.get(&param.header_lower).unwrap_or(b"");
                    Some(headers::decode_value(raw).map_err(|e| invalid_value(&display, e))?)
                }
                _ => {
                    return Err(ErrorObject::header_mismatch(format!(
                        "Header mismatch: {display} appears more than once"
                    )))
                }
            };
            match (headers::value_at(arguments, &param.path), header) {
                // Value null or absent: the header is not expected.
                (None, _) => {}
                (Some(_), None) => return Err(missing(&display)),
                (Some(body), Some(h)) => {
                    if !headers::mirrors(&h, body) {
                        return Err(differs(&display));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The HTTP status of a JSON-RPC error response. `admission` is true for
/// errors raised before the method's own params were examined, so that a
/// missing `_meta` (`-32602`) gets 400 as `basic/index.mdx` requires while
/// an unknown tool keeps the conventional 200. A retryable
/// [`ErrorObject::unavailable`] gets 503 (RFC 9110 § 15.6.4): the
/// transport lets a request's answer be any JSON response
/// (`streamable-http.mdx` § Sending Messages 6), and 503 with `Retry-After`
/// is what HTTP clients and proxies already read as "try again later".
pub fn status_of(error: &ErrorObject, admission: bool) -> u16 {
    match error.code {
        code::SERVICE_UNAVAILABLE if error.is_retryable() => 503,
        // RFC 6585 § 4.
        code::RATE_LIMITED if error.is_retryable() => 429,
        code::PARSE_ERROR | code::INVALID_REQUEST => 400,
        code::METHOD_NOT_FOUND => 404,
        code::HEADER_MISMATCH
        | code::MISSING_REQUIRED_CLIENT_CAPABILITY
        | code::UNSUPPORTED_PROTOCOL_VERSION => 400,
        code::INVALID_PARAMS if admission => 400,
        _ => 200,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use serde_json::Value;

    fn head(method: &str, path: &str, headers: &[(&str, &str)]) -> Head {
        Head::new(method, path, 1, headers.iter().copied())
    }

    /// `GOOD` with header `i` replaced by (or, past the end, `extra` added).
    fn good_with(i: usize, value: &str) -> Head {
        let mut headers: Vec<(&str, &str)> = GOOD.to_vec();
        match headers.get_mut(i) {
            Some(h) => h.1 = value,
            None => headers.push(("Origin", value)),
        }
        head("POST", "/mcp", &headers)
    }

    const GOOD: &[(&str, &str)] = &[
        ("Host", "127.0.0.1:3000"),
        ("Content-Type", "application/json; charset=utf-8"),
        ("Accept", "application/json, text/event-stream"),
    ];

    fn status(h: &Head) -> Option<u16> {
        check_head(&HttpConfig::default(), h)
            .err()
            .map(|r| r.status)
    }

    #[test]
    fn head_checks_in_order() {
        assert_eq!(status(&head("POST", "/mcp", GOOD)), None);
        assert_eq!(status(&head("POST", "/other", GOOD)), Some(404));
        assert_eq!(status(&head("GET", "/mcp", GOOD)), Some(405));
        assert_eq!(status(&head("DELETE", "/mcp", GOOD)), Some(405));
        assert_eq!(status(&good_with(3, "http://evil.example.com")), Some(403));
        assert_eq!(status(&good_with(0, "evil.example.com")), Some(403));
        let h = head("POST", "/mcp", &GOOD[1..]);
        assert_eq!(status(&h), Some(400), "HTTP/1.1 requires Host");
        assert_eq!(status(&good_with(1, "text/plain")), Some(415));
        assert_eq!(status(&good_with(2, "application/json")), Some(406));
    }

    #[test]
    fn loopback_origins_and_hosts() {
        for o in [
            "http://127.0.0.1:3000",
            "http://localhost",
            "https://[::1]:8443",
            "HTTP://LOCALHOST:1",
        ] {
            assert!(origin_allowed(&OriginPolicy::Loopback, o.as_bytes()), "{o}");
        }
        for o in [
            "null",
            "http://evil.example.com",
            "http://127.0.0.1.evil.com",
            "file://localhost",
            "http://localhost/x",
        ] {
            assert!(
                !origin_allowed(&OriginPolicy::Loopback, o.as_bytes()),
                "{o}"
            );
        }
        for h in ["127.0.0.1", "localhost:80", "[::1]:3000"] {
            assert!(host_allowed(&HostPolicy::Loopback, h.as_bytes()), "{h}");
        }
        for h in ["evil.example.com", "127.0.0.2", "[::2]"] {
            assert!(!host_allowed(&HostPolicy::Loopback, h.as_bytes()), "{h}");
        }
        assert!(host_allowed(
            &HostPolicy::List(alloc::vec![String::from("mcp.example.com")]),
            b"MCP.example.com:443"
        ));
    }

    #[test]
    fn accept_media_ranges() {
        let ok = |a: &str| {
            accepts(a.as_bytes(), "application", "json")
                && accepts(a.as_bytes(), "text", "event-stream")
        };
        assert!(ok("application/json, text/event-stream"));
        assert!(ok("text/event-stream, application/json"));
        assert!(ok("*/*"));
        assert!(ok("application/*, text/*"));
        assert!(!ok("application/json"));
        assert!(!ok("application/json, text/event-stream;q=0"));
        assert!(!ok(""));
    }

    /// The byte paths for ASCII headers decide as the text paths do.
    #[test]
    fn ascii_paths_are_the_text_paths() {
        let values = [
            "application/json, text/event-stream",
            " Application/JSON ;charset=utf-8",
            "application/json;q=0, text/event-stream",
            "application/json; Q= 0.0 , text/*;q=0.5",
            "application/json;q=abc, */*;q=0",
            "text/event-stream\x0b, application/json\x0c",
            "\t*/*\r",
            "application/json/extra, text/event-stream;",
            "applicationjson, text/",
            "/, */, */*;q=0e0",
            ",,;;q=,q=0",
            "application/json;q=-0, text/event-stream;q=0.000",
            "",
        ];
        let media = [
            ("application", "json"),
            ("text", "event-stream"),
            ("*", "*"),
        ];
        for v in values {
            for (ty, sub) in media {
                assert_eq!(
                    accepts_all_ascii(v.as_bytes(), [(ty.as_bytes(), sub.as_bytes())]),
                    accepts_text(v.as_bytes(), ty, sub),
                    "{v:?} {ty}/{sub}"
                );
            }
            assert_eq!(
                accepts_all_ascii(
                    v.as_bytes(),
                    [(b"application", b"json"), (b"text", b"event-stream")]
                ),
                accepts_text(v.as_bytes(), "application", "json")
                    && accepts_text(v.as_bytes(), "text", "event-stream"),
                "{v:?} both"
            );
            for expected in ["application/json", "text/event-stream"] {
                assert_eq!(
                    media_type_is(v.as_bytes(), expected),
                    media_type_text_is(v.as_bytes(), expected),
                    "{v:?} {expected}"
                );
            }
        }
    }

    #[test]
    fn statuses() {
        assert_eq!(status_of(&ErrorObject::method_not_found("x"), true), 404);
        assert_eq!(status_of(&ErrorObject::invalid_params("x"), true), 400);
        assert_eq!(status_of(&ErrorObject::invalid_params("x"), false), 200);
        assert_eq!(status_of(&ErrorObject::header_mismatch("x"), true), 400);
        assert_eq!(
            status_of(&ErrorObject::missing_client_capability(Value::Null), false),
            400
        );
        assert_eq!(status_of(&ErrorObject::internal("x"), false), 200);
        assert_eq!(status_of(&ErrorObject::unavailable("x"), false), 503);
        assert_eq!(status_of(&ErrorObject::rate_limited(3), false), 429);
        // The code alone, without `data.retryable`, is the application's.
        assert_eq!(
            status_of(&ErrorObject::new(code::SERVICE_UNAVAILABLE, "x"), false),
            200
        );
    }
}
