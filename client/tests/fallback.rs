//! One client for both eras (`basic/versioning.mdx` § Backward
//! Compatibility): a client configured for 2026-07-28 probes with
//! `server/discover` and falls back to `initialize` when the server turns
//! out to speak only the initialize era. Fake servers answer with literal
//! bytes: a raw TCP listener for Streamable HTTP (one request per
//! connection, routed by method), a shell script for stdio. Each case runs
//! on the blocking [`Session`] and on the [`AsyncSession`] (tokio, smol,
//! and plain threads).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use snodo_client::{Error, HttpTransport, NoInput, Session, StdioTransport};
use snodo_proto::client::{ClientConfig, ClientError, Era, Wire};

/// The requests a fake HTTP server read, in order.
type Seen = Arc<Mutex<Vec<String>>>;

/// An HTTP answer: `status` line, extra header lines, a body (the length
/// is the only thing this counts).
fn answer(status: &str, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn json_answer(status: &str, headers: &str, body: &str) -> Vec<u8> {
    answer(
        status,
        &format!("Content-Type: application/json\r\n{headers}"),
        body,
    )
}

/// Read one request (head and `Content-Length` body).
fn read_request(conn: &mut TcpStream) -> Option<String> {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..end]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |n| n.trim().parse::<usize>().unwrap());
            if data.len() >= end + 4 + length {
                return Some(String::from_utf8(data).unwrap());
            }
        }
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return None,
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    }
}

/// The JSON-RPC method a request carries (`GET` for a GET).
fn method_of(request: &str) -> String {
    if request.starts_with("GET ") {
        return String::from("GET");
    }
    let body = request.split("\r\n\r\n").nth(1).unwrap_or("");
    let value: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    value["method"].as_str().unwrap_or("").to_owned()
}

/// A Streamable HTTP server answering each request (one per connection)
/// with `route(method)`; the requests are kept.
fn serve(route: fn(&str) -> Vec<u8>) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let log = log.clone();
            std::thread::spawn(move || {
                let Some(request) = read_request(&mut conn) else {
                    return;
                };
                let reply = route(&method_of(&request));
                log.lock().unwrap().push(request);
                let _ = conn.write_all(&reply);
            });
        }
    });
    (url, seen)
}

fn methods(seen: &Seen) -> Vec<String> {
    seen.lock().unwrap().iter().map(|r| method_of(r)).collect()
}

fn request_for<'a>(seen: &'a [String], method: &str) -> &'a str {
    seen.iter()
        .find(|r| method_of(r) == method)
        .unwrap_or_else(|| panic!("no {method} request in {seen:?}"))
}

fn body_of(request: &str) -> Value {
    serde_json::from_str(request.split("\r\n\r\n").nth(1).unwrap()).unwrap()
}

const DISCOVER_OK: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"new","version":"1"}}}"#;
const INITIALIZE_OK: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"1"}}}"#;
const TOOLS_MODERN: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}"#;
const TOOLS_LEGACY: &str = r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}"#;

/// What a 2025-11-25 server answers to the handshake and after it (a
/// session id, no GET stream, the tool list); `None` for what it refuses
/// before `initialize`.
fn legacy(method: &str) -> Option<Vec<u8>> {
    Some(match method {
        "initialize" => json_answer("200 OK", "Mcp-Session-Id: s-1\r\n", INITIALIZE_OK),
        "notifications/initialized" => answer("202 Accepted", "", ""),
        "GET" => answer("405 Method Not Allowed", "Allow: POST\r\n", ""),
        "tools/list" => json_answer("200 OK", "", TOOLS_LEGACY),
        _ => return None,
    })
}

fn modern_route(method: &str) -> Vec<u8> {
    match method {
        "server/discover" => json_answer("200 OK", "", DISCOVER_OK),
        "tools/list" => json_answer("200 OK", "", TOOLS_MODERN),
        _ => json_answer(
            "404 Not Found",
            "",
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}"#,
        ),
    }
}

/// 400 with an empty body: a server that wants `initialize` first.
fn bad_request_empty(method: &str) -> Vec<u8> {
    legacy(method).unwrap_or_else(|| answer("400 Bad Request", "", ""))
}

/// 400 with the JSON-RPC error a legacy SDK sends before `initialize`.
fn bad_request_not_initialized(method: &str) -> Vec<u8> {
    legacy(method).unwrap_or_else(|| {
        json_answer(
            "400 Bad Request",
            "",
            r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}"#,
        )
    })
}

/// `-32601` (in a 200): a server that knows no `server/discover`.
fn method_not_found(method: &str) -> Vec<u8> {
    legacy(method).unwrap_or_else(|| {
        json_answer(
            "200 OK",
            "",
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: server/discover"}}"#,
        )
    })
}

/// 405 to the POST of anything but the handshake's methods.
fn method_not_allowed(method: &str) -> Vec<u8> {
    legacy(method).unwrap_or_else(|| answer("405 Method Not Allowed", "Allow: GET\r\n", ""))
}

/// 404 with an HTML page, not a JSON-RPC error.
fn not_found_page(method: &str) -> Vec<u8> {
    legacy(method).unwrap_or_else(|| {
        answer(
            "404 Not Found",
            "Content-Type: text/html\r\n",
            "<html><body>Not Found</body></html>",
        )
    })
}

/// 401 to everything: credentials, not the era.
fn unauthorized(_: &str) -> Vec<u8> {
    answer(
        "401 Unauthorized",
        "WWW-Authenticate: Bearer resource_metadata=\"http://x/.well-known/oauth-protected-resource\"\r\n",
        "",
    )
}

/// 500 to everything, a JSON-RPC error in the body.
fn internal_error(_: &str) -> Vec<u8> {
    json_answer(
        "500 Internal Server Error",
        "",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#,
    )
}

/// The checks of a session that fell back on HTTP: discover, then the
/// handshake, then `tools/list` in the initialize-era dialect.
fn check_fell_back_on_http(seen: &Seen, era: Era, version: &str, tools: &[snodo_proto::Tool]) {
    assert_eq!(era, Era::Legacy);
    assert_eq!(version, "2025-11-25");
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "echo");
    let mut order = methods(seen);
    // The GET stream may open before or after the list: order the rest.
    order.retain(|m| m != "GET");
    assert_eq!(
        order,
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/list"
        ]
    );
    let seen = seen.lock().unwrap();
    let probe = request_for(&seen, "server/discover");
    assert!(
        probe.contains("\r\nMCP-Protocol-Version: 2026-07-28\r\n"),
        "{probe}"
    );
    let init = request_for(&seen, "initialize");
    assert!(!init.contains("MCP-Protocol-Version"), "{init}");
    let init = body_of(init);
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["id"], 2);
    let list = request_for(&seen, "tools/list");
    assert!(
        list.contains("\r\nMCP-Protocol-Version: 2025-11-25\r\n"),
        "{list}"
    );
    assert!(list.contains("\r\nMcp-Session-Id: s-1\r\n"), "{list}");
    let list = body_of(list);
    assert_eq!(list["params"].get("_meta"), None, "{list}");
}

fn http_fallback_blocking(route: fn(&str) -> Vec<u8>) {
    let (url, seen) = serve(route);
    let transport = HttpTransport::new(&url).unwrap();
    let config = ClientConfig::dual_era("fb", "1", Wire::Http);
    let mut session = Session::connect(transport, config, NoInput).unwrap();
    assert!(session.client().fallback_cause().is_some());
    let tools = session.list_tools().unwrap();
    check_fell_back_on_http(&seen, session.era(), session.version(), &tools);
}

#[test]
fn modern_http_server_no_fallback() {
    let (url, seen) = serve(modern_route);
    let transport = HttpTransport::new(&url).unwrap();
    let config = ClientConfig::dual_era("fb", "1", Wire::Http);
    let mut session = Session::connect(transport, config, NoInput).unwrap();
    assert_eq!(session.era(), Era::Modern);
    assert_eq!(session.version(), "2026-07-28");
    assert_eq!(session.client().fallback_cause(), None);
    let tools = session.list_tools().unwrap();
    assert_eq!(tools[0].name, "echo");
    assert_eq!(methods(&seen), ["server/discover", "tools/list"]);
    let seen = seen.lock().unwrap();
    let list = body_of(request_for(&seen, "tools/list"));
    assert_eq!(
        list["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
}

#[test]
fn http_400_empty_falls_back() {
    http_fallback_blocking(bad_request_empty);
}

#[test]
fn http_400_with_a_legacy_error_falls_back() {
    http_fallback_blocking(bad_request_not_initialized);
}

#[test]
fn http_method_not_found_falls_back() {
    http_fallback_blocking(method_not_found);
}

#[test]
fn http_405_falls_back() {
    http_fallback_blocking(method_not_allowed);
}

#[test]
fn http_404_page_falls_back() {
    http_fallback_blocking(not_found_page);
}

#[test]
fn http_401_is_an_error_not_a_fallback() {
    let (url, seen) = serve(unauthorized);
    let transport = HttpTransport::new(&url).unwrap();
    let config = ClientConfig::dual_era("fb", "1", Wire::Http);
    match Session::connect(transport, config, NoInput) {
        Err(Error::Client(ClientError::Http { status: 401 })) => {}
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("connected"),
    }
    assert_eq!(methods(&seen), ["server/discover"]);
}

#[test]
fn http_500_is_an_error_not_a_fallback() {
    let (url, seen) = serve(internal_error);
    let transport = HttpTransport::new(&url).unwrap();
    let config = ClientConfig::dual_era("fb", "1", Wire::Http);
    match Session::connect(transport, config, NoInput) {
        Err(Error::Client(ClientError::Rpc { code: -32603, .. })) => {}
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("connected"),
    }
    assert_eq!(methods(&seen), ["server/discover"]);
}

#[test]
fn http_legacy_server_without_a_legacy_version_is_a_typed_error() {
    let (url, seen) = serve(bad_request_empty);
    let transport = HttpTransport::new(&url).unwrap();
    // `new` offers 2026-07-28 alone.
    let config = ClientConfig::new("fb", "1", Wire::Http);
    match Session::connect(transport, config, NoInput) {
        Err(Error::Client(ClientError::LegacyServer { probe: Some(why) })) => {
            assert_eq!(*why, ClientError::Http { status: 400 });
        }
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("connected"),
    }
    assert_eq!(methods(&seen), ["server/discover"]);
}

/// A 2025-11-25 stdio server in sh: it answers the probe with `probe`
/// (a literal line, or nothing when empty), then expects `initialize`,
/// `notifications/initialized` and a `tools/list` without `_meta`, and
/// hangs up on anything else.
#[cfg(unix)]
fn legacy_stdio(probe: &str) -> std::process::Command {
    let answer = match probe {
        "" => String::new(),
        line => format!("printf '%s\\n' '{line}'"),
    };
    let script = format!(
        r#"
read -r first
case "$first" in *'"method":"server/discover"'*) ;; *) echo "bad probe: $first" >&2; exit 1;; esac
{answer}
read -r init || exit 0
case "$init" in *'"id":2,'*'"method":"initialize"'*) ;; *) echo "bad init: $init" >&2; exit 1;; esac
case "$init" in *'"protocolVersion":"2025-11-25"'*) ;; *) echo "bad version: $init" >&2; exit 1;; esac
printf '%s\n' '{INITIALIZE_OK}'
read -r initialized
case "$initialized" in *'"method":"notifications/initialized"'*) ;; *) echo "bad: $initialized" >&2; exit 1;; esac
read -r list
case "$list" in *'"id":3,'*'"method":"tools/list"'*) ;; *) echo "bad list: $list" >&2; exit 1;; esac
case "$list" in *'_meta'*) echo "_meta in the initialize era: $list" >&2; exit 1;; esac
printf '%s\n' '{TOOLS_LEGACY}'
read -r rest
"#
    );
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(script);
    command
}

/// A 2026-07-28 stdio server: discover, then `tools/list` with `_meta`.
#[cfg(unix)]
fn modern_stdio() -> std::process::Command {
    let script = format!(
        r#"
read -r first
case "$first" in *'"method":"server/discover"'*) ;; *) echo "bad probe: $first" >&2; exit 1;; esac
printf '%s\n' '{DISCOVER_OK}'
read -r list
case "$list" in *'"id":2,'*'"method":"tools/list"'*'"io.modelcontextprotocol/protocolVersion":"2026-07-28"'*) ;; *) echo "bad list: $list" >&2; exit 1;; esac
printf '%s\n' '{TOOLS_MODERN}'
read -r rest
"#
    );
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(script);
    command
}

/// A 2026-07-28 stdio server slow to start: it answers the probe only
/// after `delay`, refuses the `initialize` the client sent meanwhile as a
/// modern server does, and serves `tools/list` with `_meta`.
#[cfg(unix)]
fn slow_modern_stdio(delay: &str) -> std::process::Command {
    let script = format!(
        r#"
read -r first
case "$first" in *'"id":1,'*'"method":"server/discover"'*) ;; *) echo "bad probe: $first" >&2; exit 1;; esac
sleep {delay}
printf '%s\n' '{DISCOVER_OK}'
read -r init || exit 0
case "$init" in *'"id":2,'*'"method":"initialize"'*) ;; *) echo "bad init: $init" >&2; exit 1;; esac
printf '%s\n' '{{"jsonrpc":"2.0","id":2,"error":{{"code":-32601,"message":"Method not found: initialize (this server speaks 2026-07-28)"}}}}'
read -r list
case "$list" in *'"id":3,'*'"method":"tools/list"'*'"io.modelcontextprotocol/protocolVersion":"2026-07-28"'*) ;; *) echo "bad list: $list" >&2; exit 1;; esac
printf '%s\n' '{TOOLS_MODERN_3}'
read -r rest
"#
    );
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(script);
    command
}

#[cfg(unix)]
const TOOLS_MODERN_3: &str = r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}"#;

#[cfg(unix)]
const NOT_FOUND_LINE: &str =
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#;
#[cfg(unix)]
const INVALID_PARAMS_LINE: &str =
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Server not initialized"}}"#;

#[cfg(unix)]
const PROBE_WAIT: Duration = Duration::from_millis(400);

#[cfg(unix)]
#[test]
fn stdio_modern_server_no_fallback() {
    let transport = StdioTransport::spawn(modern_stdio()).unwrap();
    let config = ClientConfig::dual_era("fb", "1", Wire::Stdio);
    let mut session = Session::connect(transport, config, NoInput).unwrap();
    assert_eq!(session.era(), Era::Modern);
    assert_eq!(session.list_tools().unwrap()[0].name, "echo");
}

#[cfg(unix)]
fn stdio_fallback_blocking(probe: &str) -> Duration {
    let transport = StdioTransport::spawn(legacy_stdio(probe))
        .unwrap()
        .with_probe_wait(PROBE_WAIT);
    let config = ClientConfig::dual_era("fb", "1", Wire::Stdio);
    let start = Instant::now();
    let mut session = Session::connect(transport, config, NoInput).unwrap();
    let waited = start.elapsed();
    assert_eq!(session.era(), Era::Legacy);
    assert_eq!(session.version(), "2025-11-25");
    assert_eq!(
        session.client().server().info.as_ref().unwrap()["name"],
        "old"
    );
    let tools = session.list_tools().unwrap();
    assert_eq!(tools[0].name, "echo");
    waited
}

#[cfg(unix)]
#[test]
fn stdio_method_not_found_falls_back_at_once() {
    let waited = stdio_fallback_blocking(NOT_FOUND_LINE);
    assert!(waited < PROBE_WAIT, "{waited:?}");
}

#[cfg(unix)]
#[test]
fn stdio_invalid_params_falls_back() {
    stdio_fallback_blocking(INVALID_PARAMS_LINE);
}

#[cfg(unix)]
#[test]
fn stdio_silent_server_falls_back_after_the_probe_wait() {
    let waited = stdio_fallback_blocking("");
    assert!(
        waited >= PROBE_WAIT && waited < PROBE_WAIT + Duration::from_secs(2),
        "{waited:?}"
    );
}

/// The probe wait passed and `initialize` went out, but the probe's
/// `DiscoverResult` came first: the server is modern, only slow.
#[cfg(unix)]
#[test]
fn stdio_slow_modern_server_stays_modern() {
    let transport = StdioTransport::spawn(slow_modern_stdio("0.8"))
        .unwrap()
        .with_probe_wait(PROBE_WAIT);
    let config = ClientConfig::dual_era("fb", "1", Wire::Stdio);
    let mut session = Session::connect(transport, config, NoInput).unwrap();
    assert_eq!(session.era(), Era::Modern);
    assert_eq!(session.client().fallback_cause(), None);
    assert_eq!(session.list_tools().unwrap()[0].name, "echo");
}

#[cfg(unix)]
#[test]
fn stdio_legacy_server_without_a_legacy_version_is_a_typed_error() {
    let transport = StdioTransport::spawn(legacy_stdio(NOT_FOUND_LINE)).unwrap();
    let config = ClientConfig::new("fb", "1", Wire::Stdio);
    match Session::connect(transport, config, NoInput) {
        Err(Error::Client(ClientError::LegacyServer { probe: Some(why) })) => {
            assert!(matches!(*why, ClientError::Rpc { code: -32601, .. }));
        }
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("connected"),
    }
}

/// The same cases on the async session and transports.
#[cfg(all(feature = "tokio", feature = "smol"))]
mod on_async {
    use super::*;
    use snodo_client::{AsyncHttpTransport, AsyncSession, AsyncStdioTransport, ClientRuntime};
    use std::future::Future;

    fn on_tokio<F: Future>(run: impl FnOnce(snodo_tokio::Tokio) -> F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(run(snodo_tokio::Tokio))
    }

    fn on_smol<F: Future>(run: impl FnOnce(snodo_smol::Smol) -> F) -> F::Output {
        let ex = Arc::new(smol::Executor::new());
        smol::block_on(ex.run(run(snodo_smol::Smol(ex.clone()))))
    }

    #[cfg(feature = "threads")]
    fn on_threads<F: Future>(run: impl FnOnce(snodo_blocking::Threads) -> F) -> F::Output {
        snodo_blocking::block_on(run(snodo_blocking::Threads::new(1).unwrap()))
    }

    /// `$check` on each runtime.
    macro_rules! on_each_runtime {
        ($check:ident) => {
            mod $check {
                #[test]
                fn on_tokio() {
                    super::on_tokio(super::$check::<snodo_tokio::Tokio>)
                }

                #[test]
                fn on_smol() {
                    super::on_smol(super::$check::<snodo_smol::Smol>)
                }

                #[cfg(feature = "threads")]
                #[test]
                fn on_threads() {
                    super::on_threads(super::$check::<snodo_blocking::Threads>)
                }
            }
        };
    }

    async fn http_fallback<R: ClientRuntime>(runtime: R, route: fn(&str) -> Vec<u8>) {
        let (url, seen) = serve(route);
        let transport = AsyncHttpTransport::new(runtime, &url).unwrap();
        let config = ClientConfig::dual_era("fb", "1", Wire::Http);
        let mut session = AsyncSession::connect(transport, config, NoInput)
            .await
            .unwrap();
        let tools = session.list_tools().await.unwrap();
        check_fell_back_on_http(&seen, session.era(), session.version(), &tools);
    }

    async fn http_modern<R: ClientRuntime>(runtime: R) {
        let (url, seen) = serve(modern_route);
        let transport = AsyncHttpTransport::new(runtime, &url).unwrap();
        let config = ClientConfig::dual_era("fb", "1", Wire::Http);
        let mut session = AsyncSession::connect(transport, config, NoInput)
            .await
            .unwrap();
        assert_eq!(session.era(), Era::Modern);
        assert_eq!(session.list_tools().await.unwrap()[0].name, "echo");
        assert_eq!(methods(&seen), ["server/discover", "tools/list"]);
    }
    on_each_runtime!(http_modern);

    async fn http_400_empty<R: ClientRuntime>(runtime: R) {
        http_fallback(runtime, bad_request_empty).await
    }
    on_each_runtime!(http_400_empty);

    async fn http_400_legacy_error<R: ClientRuntime>(runtime: R) {
        http_fallback(runtime, bad_request_not_initialized).await
    }
    on_each_runtime!(http_400_legacy_error);

    async fn http_method_not_found<R: ClientRuntime>(runtime: R) {
        http_fallback(runtime, method_not_found).await
    }
    on_each_runtime!(http_method_not_found);

    async fn http_405<R: ClientRuntime>(runtime: R) {
        http_fallback(runtime, method_not_allowed).await
    }
    on_each_runtime!(http_405);

    async fn http_404_page<R: ClientRuntime>(runtime: R) {
        http_fallback(runtime, not_found_page).await
    }
    on_each_runtime!(http_404_page);

    async fn refused<R: ClientRuntime>(runtime: R, route: fn(&str) -> Vec<u8>) -> Error {
        let (url, seen) = serve(route);
        let transport = AsyncHttpTransport::new(runtime, &url).unwrap();
        let config = ClientConfig::dual_era("fb", "1", Wire::Http);
        let outcome = AsyncSession::connect(transport, config, NoInput).await;
        assert_eq!(methods(&seen), ["server/discover"]);
        match outcome {
            Err(e) => e,
            Ok(_) => panic!("connected"),
        }
    }

    async fn http_401<R: ClientRuntime>(runtime: R) {
        match refused(runtime, unauthorized).await {
            Error::Client(ClientError::Http { status: 401 }) => {}
            other => panic!("{other:?}"),
        }
    }
    on_each_runtime!(http_401);

    async fn http_500<R: ClientRuntime>(runtime: R) {
        match refused(runtime, internal_error).await {
            Error::Client(ClientError::Rpc { code: -32603, .. }) => {}
            other => panic!("{other:?}"),
        }
    }
    on_each_runtime!(http_500);

    async fn http_no_legacy_version<R: ClientRuntime>(runtime: R) {
        let (url, seen) = serve(bad_request_empty);
        let transport = AsyncHttpTransport::new(runtime, &url).unwrap();
        let config = ClientConfig::new("fb", "1", Wire::Http);
        match AsyncSession::connect(transport, config, NoInput).await {
            Err(Error::Client(ClientError::LegacyServer { probe: Some(why) })) => {
                assert_eq!(*why, ClientError::Http { status: 400 });
            }
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("connected"),
        }
        assert_eq!(methods(&seen), ["server/discover"]);
    }
    on_each_runtime!(http_no_legacy_version);

    #[cfg(unix)]
    async fn stdio_fallback<R: ClientRuntime>(runtime: R, probe: &str) -> Duration {
        let transport = AsyncStdioTransport::spawn(runtime, legacy_stdio(probe))
            .unwrap()
            .with_probe_wait(PROBE_WAIT);
        let config = ClientConfig::dual_era("fb", "1", Wire::Stdio);
        let start = Instant::now();
        let mut session = AsyncSession::connect(transport, config, NoInput)
            .await
            .unwrap();
        let waited = start.elapsed();
        assert_eq!(session.era(), Era::Legacy);
        assert_eq!(session.version(), "2025-11-25");
        assert_eq!(session.list_tools().await.unwrap()[0].name, "echo");
        waited
    }

    #[cfg(unix)]
    async fn stdio_modern<R: ClientRuntime>(runtime: R) {
        let transport = AsyncStdioTransport::spawn(runtime, modern_stdio()).unwrap();
        let config = ClientConfig::dual_era("fb", "1", Wire::Stdio);
        let mut session = AsyncSession::connect(transport, config, NoInput)
            .await
            .unwrap();
        assert_eq!(session.era(), Era::Modern);
        assert_eq!(session.list_tools().await.unwrap()[0].name, "echo");
    }
    #[cfg(unix)]
    on_each_runtime!(stdio_modern);

    #[cfg(unix)]
    async fn stdio_method_not_found<R: ClientRuntime>(runtime: R) {
        let waited = stdio_fallback(runtime, NOT_FOUND_LINE).await;
        assert!(waited < PROBE_WAIT, "{waited:?}");
    }
    #[cfg(unix)]
    on_each_runtime!(stdio_method_not_found);

    #[cfg(unix)]
    async fn stdio_invalid_params<R: ClientRuntime>(runtime: R) {
        stdio_fallback(runtime, INVALID_PARAMS_LINE).await;
    }
    #[cfg(unix)]
    on_each_runtime!(stdio_invalid_params);

    #[cfg(unix)]
    async fn stdio_silent<R: ClientRuntime>(runtime: R) {
        let waited = stdio_fallback(runtime, "").await;
        assert!(
            waited >= PROBE_WAIT && waited < PROBE_WAIT + Duration::from_secs(2),
            "{waited:?}"
        );
    }
    #[cfg(unix)]
    on_each_runtime!(stdio_silent);

    #[cfg(unix)]
    async fn stdio_slow_modern<R: ClientRuntime>(runtime: R) {
        let transport = AsyncStdioTransport::spawn(runtime, slow_modern_stdio("0.8"))
            .unwrap()
            .with_probe_wait(PROBE_WAIT);
        let config = ClientConfig::dual_era("fb", "1", Wire::Stdio);
        let mut session = AsyncSession::connect(transport, config, NoInput)
            .await
            .unwrap();
        assert_eq!(session.era(), Era::Modern);
        assert_eq!(session.list_tools().await.unwrap()[0].name, "echo");
    }
    #[cfg(unix)]
    on_each_runtime!(stdio_slow_modern);

    #[cfg(unix)]
    async fn stdio_no_legacy_version<R: ClientRuntime>(runtime: R) {
        let transport = AsyncStdioTransport::spawn(runtime, legacy_stdio(NOT_FOUND_LINE)).unwrap();
        let config = ClientConfig::new("fb", "1", Wire::Stdio);
        match AsyncSession::connect(transport, config, NoInput).await {
            Err(Error::Client(ClientError::LegacyServer { probe: Some(why) })) => {
                assert!(matches!(*why, ClientError::Rpc { code: -32601, .. }));
            }
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("connected"),
        }
    }
    #[cfg(unix)]
    on_each_runtime!(stdio_no_legacy_version);
}
