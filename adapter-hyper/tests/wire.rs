//! snodo on hyper over real loopback sockets, HTTP/1.1 and HTTP/2 with
//! prior knowledge (h2c): literal JSON requests in, the literal status,
//! headers and bodies the native listener gives expected out
//! (`basic/transports/streamable-http.mdx`).

use std::sync::mpsc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::json;
use snodo_proto::{CallToolResult, Context, Implementation, Limits, NoArgs, Service, Tool};
use tokio::net::TcpListener;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

const ECHOED: &str = r#"{"jsonrpc":"2.0","id":7,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"hi","type":"text"}],"resultType":"complete"}}"#;

fn echo(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}}}"#
    )
}

/// The service under test, and where its `hang` tool reports that its
/// future was dropped with its call flagged cancelled.
fn service() -> (Service, mpsc::Receiver<bool>) {
    let (dropped_tx, dropped) = mpsc::channel();
    struct Probe(Context, mpsc::Sender<bool>);
    impl Drop for Probe {
        fn drop(&mut self) {
            let _ = self.1.send(self.0.is_cancelled());
        }
    }
    let text = json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]});
    #[derive(serde::Deserialize, snodo_proto::schemars::JsonSchema)]
    #[schemars(crate = "snodo_proto::schemars")]
    struct Text {
        text: String,
    }
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .limits(Limits::default().max_message_bytes(4096))
        .tool(
            Tool::new("echo", "Echo the text").input_schema(text),
            |a: Text| async move { CallToolResult::text(a.text) },
        )
        .tool(
            Tool::new("step", "Report progress, then answer"),
            |_: NoArgs, ctx: Context| async move {
                ctx.progress(1.0, None, Some("half".into()));
                tokio::time::sleep(Duration::from_millis(50)).await;
                CallToolResult::text("done")
            },
        )
        .tool(Tool::new("hang", "Never answer"), {
            let dropped_tx = dropped_tx.clone();
            move |_: NoArgs, ctx: Context| {
                let probe = Probe(ctx, dropped_tx.clone());
                async move {
                    let _probe = probe;
                    std::future::pending::<CallToolResult>().await
                }
            }
        })
        .tool(
            Tool::new("stream_hang", "Report progress, then never answer"),
            move |_: NoArgs, ctx: Context| {
                ctx.progress(1.0, None, None);
                let probe = Probe(ctx, dropped_tx.clone());
                async move {
                    let _probe = probe;
                    std::future::pending::<CallToolResult>().await
                }
            },
        )
        .build()
        .expect("a valid service");
    (service, dropped)
}

async fn start(service: Service) -> (String, tokio::sync::oneshot::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let stopped = async {
            let _ = stopped.await;
        };
        snodo_hyper::serve(&service, listener, stopped, snodo_hyper::Options::default()).await
    });
    (format!("http://{addr}"), stop)
}

type Http = Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

fn client(h2: bool) -> Http {
    let mut b = Client::builder(TokioExecutor::new());
    b.http2_only(h2);
    b.build_http()
}

fn post(base: &str, method: &str, body: &str) -> Request<Full<Bytes>> {
    Request::post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", "echo")
        .body(Full::new(Bytes::from(body.to_owned())))
        .unwrap()
}

async fn text(response: Response<Incoming>) -> (StatusCode, String, String) {
    let status = response.status();
    let ct = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, ct, String::from_utf8(body.to_vec()).unwrap())
}

/// A runtime of two workers, as each test runs its server and client on.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The `hang` or `stream_hang` handler's future was dropped, its call
/// flagged cancelled first.
async fn expect_cancelled(dropped: mpsc::Receiver<bool>) {
    let flagged = tokio::task::spawn_blocking(move || dropped.recv_timeout(Duration::from_secs(5)))
        .await
        .unwrap()
        .expect("the handler's future was dropped");
    assert!(flagged, "the call was flagged cancelled first");
}

fn both(test: impl Fn(bool) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>) {
    let rt = runtime();
    for h2 in [false, true] {
        rt.block_on(test(h2));
    }
}

#[test]
fn a_tool_call_is_answered_as_on_the_native_listener() {
    both(|h2| {
        Box::pin(async move {
            let (base, _stop) = start(service().0).await;
            let r = client(h2)
                .request(post(&base, "tools/call", &echo(7)))
                .await
                .unwrap();
            let want_version = if h2 {
                http::Version::HTTP_2
            } else {
                http::Version::HTTP_11
            };
            assert_eq!(r.version(), want_version);
            assert_eq!(
                text(r).await,
                (StatusCode::OK, "application/json".into(), ECHOED.into())
            );
        })
    });
}

/// A handler's blocking work (`Context::spawn_blocking`) runs on tokio's
/// blocking pool, off the worker that polls the handler, and its value
/// answers the call.
#[test]
fn blocking_work_runs_on_the_blocking_pool() {
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .tool(
            Tool::new(
                "where",
                "Say whether blocking work ran off the polling thread",
            ),
            |_: NoArgs, ctx: Context| async move {
                let polling = std::thread::current().id();
                let off = ctx
                    .spawn_blocking(move |_| std::thread::current().id() != polling)
                    .await?;
                Ok::<_, snodo_proto::ToolError>(CallToolResult::text(if off {
                    "off"
                } else {
                    "on"
                }))
            },
        )
        .build()
        .unwrap();
    both(move |h2| {
        let service = service.clone();
        Box::pin(async move {
            let (base, _stop) = start(service).await;
            let request = Request::post(format!("{base}/mcp"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "where")
                .body(Full::new(Bytes::from_static(
                    br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"where","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
                )))
                .unwrap();
            let r = client(h2).request(request).await.unwrap();
            assert_eq!(
                text(r).await,
                (
                    StatusCode::OK,
                    "application/json".into(),
                    r#"{"jsonrpc":"2.0","id":3,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"off","type":"text"}],"resultType":"complete"}}"#.into()
                )
            );
        })
    });
}

#[test]
fn a_notification_is_accepted_with_202_and_no_body() {
    both(|h2| {
        Box::pin(async move {
            let (base, _stop) = start(service().0).await;
            let body = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":1,{META}}}}}"#
            );
            let r = client(h2)
                .request(post(&base, "notifications/cancelled", &body))
                .await
                .unwrap();
            assert_eq!(
                text(r).await,
                (StatusCode::ACCEPTED, String::new(), String::new())
            );
        })
    });
}

#[test]
fn refusals_match_the_native_listener() {
    both(|h2| {
        Box::pin(async move {
            let (base, _stop) = start(service().0).await;
            let c = client(h2);
            // Another path: 404 with a plain body.
            let mut req = post(&base, "tools/call", &echo(1));
            *req.uri_mut() = format!("{base}/other").parse().unwrap();
            let r = c.request(req).await.unwrap();
            assert_eq!(
                text(r).await,
                (
                    StatusCode::NOT_FOUND,
                    "text/plain; charset=utf-8".into(),
                    "Not Found".into()
                )
            );
            // A body over `max_message_bytes` (4096 here): 413.
            let big = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","pad":"{}"}}"#,
                "x".repeat(5000)
            );
            let r = c.request(post(&base, "ping", &big)).await.unwrap();
            assert_eq!(
                text(r).await,
                (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "application/json".into(),
                    r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request body too large"}}"#.into()
                )
            );
            // More header fields than `HttpConfig::max_headers` (64): 431.
            let mut req = post(&base, "tools/call", &echo(1));
            for i in 0..70 {
                req.headers_mut().insert(
                    http::HeaderName::from_bytes(format!("x-pad-{i}").as_bytes()).unwrap(),
                    "1".parse().unwrap(),
                );
            }
            let r = c.request(req).await.unwrap();
            assert_eq!(
                text(r).await,
                (
                    StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                    "application/json".into(),
                    r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Too many request header fields"}}"#.into()
                )
            );
            // A head over `HttpConfig::max_head_bytes` (16 KiB): 431. On
            // HTTP/2 hyper's own header-list limit (16 KiB too) may refuse
            // it first, so this one is HTTP/1.1's.
            if !h2 {
                let mut req = post(&base, "tools/call", &echo(1));
                req.headers_mut()
                    .insert("x-pad", "y".repeat(17 * 1024).parse().unwrap());
                let r = c.request(req).await.unwrap();
                assert_eq!(
                    text(r).await,
                    (
                        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                        "application/json".into(),
                        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request header fields too large"}}"#.into()
                    )
                );
            }
            // A hostile Origin: 403.
            let mut req = post(&base, "tools/call", &echo(1));
            req.headers_mut()
                .insert("origin", "http://evil.example".parse().unwrap());
            let r = c.request(req).await.unwrap();
            assert_eq!(r.status(), StatusCode::FORBIDDEN);
        })
    });
}

/// A body hyper cannot read (chunk framing that is not hex) gets proto's
/// answer, 400 with a JSON-RPC error, as the native listener answers a
/// body its codec cannot frame; nothing reaches a handler.
#[test]
fn an_unreadable_body_is_answered_400_by_proto() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    runtime().block_on(async {
        let (base, _stop) = start(service().0).await;
        let addr = base.trim_start_matches("http://");
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
              Mcp-Method: ping\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        )
        .await
        .unwrap();
        let mut answer = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut answer)).await;
        let answer = String::from_utf8_lossy(&answer);
        let body =
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Malformed HTTP request body"}}"#;
        assert!(
            answer.starts_with("HTTP/1.1 400 Bad Request\r\n"),
            "{answer}"
        );
        assert!(
            answer.contains("Content-Type: application/json\r\n"),
            "{answer}"
        );
        assert!(answer.ends_with(&format!("\r\n\r\n{body}")), "{answer}");
    });
}

#[test]
fn progress_streams_out_as_sse_events() {
    both(|h2| {
        Box::pin(async move {
            let (base, _stop) = start(service().0).await;
            let body = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"step","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}}"#;
            let mut req = post(&base, "tools/call", body);
            req.headers_mut()
                .insert("mcp-name", "step".parse().unwrap());
            let r = client(h2).request(req).await.unwrap();
            assert_eq!(r.headers()["cache-control"], "no-cache");
            assert_eq!(
                text(r).await,
                (
                    StatusCode::OK,
                    "text/event-stream".into(),
                    concat!(
                        r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"half","progress":1.0,"progressToken":"p"}}"#,
                        "\n\n",
                        r#"data: {"jsonrpc":"2.0","id":3,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"done","type":"text"}],"resultType":"complete"}}"#,
                        "\n\n"
                    )
                    .into()
                )
            );
        })
    });
}

#[test]
fn a_client_that_goes_away_cancels_its_call() {
    both(|h2| {
        Box::pin(async move {
            let (service, dropped) = service();
            let (base, _stop) = start(service).await;
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"hang",{META}}}}}"#
            );
            let mut req = post(&base, "tools/call", &body);
            req.headers_mut()
                .insert("mcp-name", "hang".parse().unwrap());
            let c = client(h2);
            // The answer never comes: give up on it (an HTTP/2 stream
            // reset, or an HTTP/1.1 connection closed).
            let pending = tokio::time::timeout(Duration::from_millis(300), c.request(req)).await;
            assert!(pending.is_err(), "the hanging call was answered");
            drop(c);
            expect_cancelled(dropped).await;
        })
    });
}

#[test]
fn many_concurrent_streams_share_one_http2_connection() {
    let rt = runtime();
    rt.block_on(async {
        let (base, _stop) = start(service().0).await;
        let c = client(true);
        // The first request opens the connection, and the server's SETTINGS
        // (at most `max_concurrent_calls` streams at once) reach the client
        // before the burst; a client that sends beyond them is refused.
        let r = c
            .request(post(&base, "tools/call", &echo(7)))
            .await
            .unwrap();
        assert_eq!(text(r).await.2, ECHOED);
        let calls = (0..200).map(|i| {
            let c = c.clone();
            let base = base.clone();
            async move {
                let r = c
                    .request(post(&base, "tools/call", &echo(i)))
                    .await
                    .unwrap();
                let (status, _, body) = text(r).await;
                assert_eq!(status, StatusCode::OK);
                assert_eq!(body, ECHOED.replace(r#""id":7"#, &format!(r#""id":{i}"#)));
            }
        });
        let handles: Vec<_> = calls.map(tokio::spawn).collect();
        for h in handles {
            h.await.unwrap();
        }
    });
}

#[test]
fn a_reset_during_an_sse_answer_cancels_its_call() {
    both(|h2| {
        Box::pin(async move {
            let (service, dropped) = service();
            let (base, _stop) = start(service).await;
            let body = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"stream_hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}}"#;
            let mut req = post(&base, "tools/call", body);
            req.headers_mut()
                .insert("mcp-name", "stream_hang".parse().unwrap());
            let c = client(h2);
            let r = c.request(req).await.unwrap();
            assert_eq!(r.headers()["content-type"], "text/event-stream");
            let mut stream = r.into_body();
            let first = stream.frame().await.unwrap().unwrap().into_data().unwrap();
            assert_eq!(
                &first[..],
                concat!(
                    r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.0,"progressToken":"p"}}"#,
                    "\n\n"
                )
                .as_bytes()
            );
            // The client stops reading mid-stream: an HTTP/2 RST_STREAM, or
            // the HTTP/1.1 connection closed.
            drop(stream);
            drop(c);
            expect_cancelled(dropped).await;
        })
    });
}

/// At the connection cap a new client takes the place of the connection
/// idle longest, which is closed, as on the native listener; with every
/// connection busy the new one is closed without an answer.
#[test]
fn at_the_connection_cap_an_idle_connection_gives_way() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rt = runtime();
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let service = service().0;
        tokio::spawn(async move {
            let options = snodo_hyper::Options::default().max_connections(1);
            snodo_hyper::serve(&service, listener, std::future::pending(), options).await
        });
        let call = |tool: &str, body: String| {
            format!(
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        let request = call("echo", echo(7));
        async fn answered(conn: &mut tokio::net::TcpStream) -> String {
            let mut answer = vec![0; 4096];
            let n = conn.read(&mut answer).await.unwrap();
            String::from_utf8_lossy(&answer[..n]).into_owned()
        }
        async fn closed(conn: &mut tokio::net::TcpStream) -> bool {
            let mut rest = Vec::new();
            let read = tokio::time::timeout(Duration::from_secs(5), conn.read_to_end(&mut rest));
            matches!(read.await, Ok(Ok(0)) | Ok(Err(_)))
        }
        // The first connection is served and kept open, idle.
        let mut first = tokio::net::TcpStream::connect(addr).await.unwrap();
        first.write_all(request.as_bytes()).await.unwrap();
        let answer = answered(&mut first).await;
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(answer.ends_with(ECHOED), "{answer}");
        // The second takes its place: served, and the first closed.
        let mut second = tokio::net::TcpStream::connect(addr).await.unwrap();
        second.write_all(request.as_bytes()).await.unwrap();
        let answer = answered(&mut second).await;
        assert!(answer.ends_with(ECHOED), "{answer}");
        assert!(closed(&mut first).await, "the idle connection was kept");
        // A busy connection (a call in flight) keeps its seat: the next
        // one finds none idle and is closed without an answer.
        let hang = format!(
            r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"hang",{META}}}}}"#
        );
        second
            .write_all(call("hang", hang).as_bytes())
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut third = tokio::net::TcpStream::connect(addr).await.unwrap();
        let _ = third.write_all(request.as_bytes()).await;
        assert!(closed(&mut third).await, "the connection over the cap was served");
        // Once the busy one leaves, a new client is served again.
        drop(second);
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut fourth = tokio::net::TcpStream::connect(addr).await.unwrap();
        fourth.write_all(request.as_bytes()).await.unwrap();
        assert!(answered(&mut fourth).await.starts_with("HTTP/1.1 200 OK\r\n"));
    });
}

/// A service of one `noop` tool that tells list changes published on `hub`.
fn noop_with_hub(hub: &snodo_proto::Hub) -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .tool(Tool::new("noop", "Nothing"), |_: NoArgs| async {
            CallToolResult::text("")
        })
        .notifications(snodo_proto::Notifications::default().tools_list_changed())
        .hub(hub.clone())
        .build()
        .unwrap()
}

#[test]
fn a_listen_stream_carries_events_and_ends_on_shutdown() {
    use snodo_proto::{ChangeEvent, Hub};
    both(|h2| {
        Box::pin(async move {
            let hub = Hub::default();
            let service = noop_with_hub(&hub);
            let (base, stop) = start(service).await;
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{{{META},"notifications":{{"toolsListChanged":true}}}}}}"#
            );
            let r = client(h2)
                .request(post(&base, "subscriptions/listen", &body))
                .await
                .unwrap();
            assert_eq!(r.headers()["content-type"], "text/event-stream");
            let mut stream = r.into_body();
            let mut next = async || {
                let frame = stream.frame().await.unwrap().unwrap();
                String::from_utf8(frame.into_data().unwrap().to_vec()).unwrap()
            };
            assert_eq!(
                next().await,
                "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":5},\"notifications\":{\"toolsListChanged\":true}}}\n\n"
            );
            hub.publish(ChangeEvent::ToolsListChanged);
            assert_eq!(
                next().await,
                "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":5}}}\n\n"
            );
            // Shutdown ends the stream with its result
            // (`subscriptions.mdx` § Graceful Closure), then the body.
            stop.send(()).unwrap();
            assert_eq!(
                next().await,
                "data: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"t\",\"version\":\"1\"},\"io.modelcontextprotocol/subscriptionId\":5},\"resultType\":\"complete\"}}\n\n"
            );
            let rest = tokio::time::timeout(Duration::from_secs(5), stream.collect())
                .await
                .expect("the body ends after the result")
                .unwrap();
            assert!(rest.to_bytes().is_empty(), "nothing after the result");
        })
    });
}

/// An `echo` tool behind `auth`.
fn guarded_echo(auth: snodo_proto::Authorization) -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .authorization(auth)
        .tool(
            Tool::new("echo", "Echo")
                .input_schema(json!({"type":"object","properties":{"text":{"type":"string"}}})),
            |a: serde_json::Value| async move {
                CallToolResult::text(a["text"].as_str().unwrap_or("").to_owned())
            },
        )
        .build()
        .unwrap()
}

#[test]
fn authorization_answers_as_on_the_native_listener() {
    use snodo_proto::{Authorization, Principal, Rejection};
    both(|h2| {
        Box::pin(async move {
            let auth = Authorization::new("https://mcp.example.com/mcp", |t: &str| match t {
                "good" => Ok(Principal::new("alice", ["notes:read"])
                    .audience(["https://mcp.example.com/mcp"])),
                _ => Err(Rejection("The token is not valid for this resource".into())),
            })
            .authorization_server("https://auth.example.com")
            .require(["notes:read"]);
            let (base, _stop) = start(guarded_echo(auth)).await;
            let c = client(h2);
            let r = c
                .request(post(&base, "tools/call", &echo(7)))
                .await
                .unwrap();
            assert_eq!(
                r.headers()["www-authenticate"],
                "Bearer scope=\"notes:read\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
            );
            assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
            let mut req = post(&base, "tools/call", &echo(7));
            req.headers_mut()
                .insert("authorization", "Bearer good".parse().unwrap());
            let r = c.request(req).await.unwrap();
            assert_eq!(
                text(r).await,
                (StatusCode::OK, "application/json".into(), ECHOED.into())
            );
            let mut req = Request::get(format!("{base}/.well-known/oauth-protected-resource/mcp"))
                .body(Full::new(Bytes::new()))
                .unwrap();
            req.headers_mut()
                .insert("host", "127.0.0.1".parse().unwrap());
            let r = c.request(req).await.unwrap();
            assert_eq!(
                text(r).await,
                (
                    StatusCode::OK,
                    "application/json".into(),
                    r#"{"authorization_servers":["https://auth.example.com"],"bearer_methods_supported":["header"],"resource":"https://mcp.example.com/mcp"}"#.into()
                )
            );
        })
    });
}

/// A deferred authenticator's future is run on the host's runtime and the
/// request answered once its verdict is in, as on the native listener;
/// a client that gives up meanwhile gets its future dropped.
#[test]
fn a_deferred_authenticator_is_run_and_its_request_answered() {
    use snodo_proto::auth::{Authentication, Verdict};
    use snodo_proto::{Authenticator, Authorization, Principal, Rejection};
    struct Later(std::sync::Mutex<mpsc::Sender<()>>);
    struct Signal(mpsc::Sender<()>);
    impl Drop for Signal {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }
    impl Authenticator for Later {
        fn authenticate(&self, token: &str, _resource: &str) -> Authentication {
            let verdict = match token {
                "good" => Verdict::Accepted(
                    Principal::new("alice", ["notes:read"])
                        .audience(["https://mcp.example.com/mcp"]),
                ),
                "never" => {
                    let signal = Signal(self.0.lock().unwrap().clone());
                    return Authentication::Deferred(Box::pin(async move {
                        let _signal = signal;
                        std::future::pending::<Verdict>().await
                    }));
                }
                _ => Verdict::Rejected(Rejection("The token is not active".into())),
            };
            Authentication::Deferred(Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                verdict
            }))
        }
    }
    both(|h2| {
        Box::pin(async move {
            let (dropped_tx, dropped) = mpsc::channel();
            let auth = Authorization::new(
                "https://mcp.example.com/mcp",
                Later(std::sync::Mutex::new(dropped_tx)),
            )
            .authorization_server("https://auth.example.com")
            .require(["notes:read"]);
            let (base, _stop) = start(guarded_echo(auth)).await;
            let c = client(h2);
            let with = |token: &str| {
                let mut req = post(&base, "tools/call", &echo(7));
                req.headers_mut()
                    .insert("authorization", format!("Bearer {token}").parse().unwrap());
                req
            };
            let r = c.request(with("good")).await.unwrap();
            assert_eq!(
                text(r).await,
                (StatusCode::OK, "application/json".into(), ECHOED.into())
            );
            let r = c.request(with("revoked")).await.unwrap();
            assert_eq!(
                r.headers()["www-authenticate"],
                "Bearer error=\"invalid_token\", error_description=\"The token is not active\", scope=\"notes:read\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
            );
            assert_eq!(
                text(r).await,
                (
                    StatusCode::UNAUTHORIZED,
                    "application/json".into(),
                    r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: the bearer token is not valid"}}"#.into()
                )
            );
            // The client gives up on a verdict that never comes.
            let gave_up =
                tokio::time::timeout(Duration::from_millis(100), c.request(with("never"))).await;
            assert!(gave_up.is_err());
            drop(c);
            tokio::task::spawn_blocking(move || dropped.recv_timeout(Duration::from_secs(5)))
                .await
                .unwrap()
                .expect("the future is dropped once its client is gone");
        })
    });
}

/// An initialize-era session's call outlives the request that carried it:
/// the client giving up on the answer (a reset stream, a closed
/// connection) is not a cancellation in 2025-11-25
/// (`basic/transports/streamable-http.mdx` of that revision,
/// § Sending Messages to the Server: a disconnect SHOULD NOT be
/// interpreted as the client cancelling its request). The call runs on to
/// its end, uncancelled.
#[test]
fn a_session_call_runs_on_after_its_client_goes_away() {
    use std::sync::Arc;
    both(|h2| {
        Box::pin(async move {
            let release = Arc::new(tokio::sync::Notify::new());
            let (ended_tx, ended) = mpsc::channel();
            let service = Service::builder()
                .server_info(Implementation::new("t", "1"))
                .tool(Tool::new("gate", "Answer once released"), {
                    let release = release.clone();
                    move |_: NoArgs, ctx: Context| {
                        let (release, ended_tx) = (release.clone(), ended_tx.clone());
                        async move {
                            release.notified().await;
                            let _ = ended_tx.send(ctx.is_cancelled());
                            CallToolResult::text("released")
                        }
                    }
                })
                .build()
                .unwrap();
            let (base, _stop) = start(service).await;
            abandon_session_call(h2, &base, "gate").await;
            release.notify_one();
            let cancelled =
                tokio::task::spawn_blocking(move || ended.recv_timeout(Duration::from_secs(5)))
                    .await
                    .unwrap()
                    .expect("the call ran on to its end after the client left");
            assert!(!cancelled, "the session call was not cancelled");
        })
    });
}

/// A 2025-11-25 request: no `_meta`; the session's headers once it has one.
fn legacy(base: &str, body: &str, session: Option<&str>) -> Request<Full<Bytes>> {
    let mut b = Request::post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(s) = session {
        b = b
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-11-25");
    }
    b.body(Full::new(Bytes::from(body.to_owned()))).unwrap()
}

/// `initialize` and `notifications/initialized`: the session's id.
async fn open_session(c: &Http, base: &str) -> String {
    let r = c
        .request(legacy(
            base,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            None,
        ))
        .await
        .unwrap();
    let session = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let (status, _, _) = text(r).await;
    assert_eq!(status, StatusCode::OK);
    let r = c
        .request(legacy(
            base,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            Some(&session),
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    session
}

/// A session's GET stream resumes behind hyper as on the native listener
/// (2025-11-25 `basic/transports.mdx` § Resumability and Redelivery):
/// its events carry ids, and after the client dropped the stream a GET
/// with `Last-Event-ID` gets what followed that event, then the next; a
/// resume while the stream is open takes it over.
#[test]
fn a_session_get_stream_resumes_with_last_event_id() {
    use snodo_proto::{ChangeEvent, Hub};
    both(|h2| {
        Box::pin(async move {
            let hub = Hub::default();
            let service = noop_with_hub(&hub);
            let (base, _stop) = start(service).await;
            let c = client(h2);
            let session = open_session(&c, &base).await;
            let get = |last: Option<&str>| {
                let mut b = Request::get(format!("{base}/mcp"))
                    .header("accept", "text/event-stream")
                    .header("mcp-session-id", &session)
                    .header("mcp-protocol-version", "2025-11-25");
                if let Some(last) = last {
                    b = b.header("last-event-id", last);
                }
                b.body(Full::new(Bytes::new())).unwrap()
            };
            let open = async |last: Option<&str>| {
                let r = c.request(get(last)).await.unwrap();
                assert_eq!(r.status(), StatusCode::OK);
                assert_eq!(r.headers()["content-type"], "text/event-stream");
                r.into_body()
            };
            let next = async |stream: &mut Incoming| {
                let frame = stream.frame().await.unwrap().unwrap();
                String::from_utf8(frame.into_data().unwrap().to_vec()).unwrap()
            };
            let event = |n: u32| {
                format!("id: g{n}\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{{}}}}\n\n")
            };
            let mut stream = open(None).await;
            hub.publish(ChangeEvent::ToolsListChanged);
            assert_eq!(next(&mut stream).await, event(1));
            drop(stream);
            hub.publish(ChangeEvent::ToolsListChanged);
            let mut resumed = open(Some("g1")).await;
            assert_eq!(next(&mut resumed).await, event(2));
            hub.publish(ChangeEvent::ToolsListChanged);
            assert_eq!(next(&mut resumed).await, event(3));
            // A resume while that stream is still open takes it over: the
            // old body ends, the next event goes to the new stream alone.
            let mut taken = open(Some("g3")).await;
            let rest = tokio::time::timeout(Duration::from_secs(5), resumed.collect())
                .await
                .expect("the old stream ends")
                .unwrap();
            assert!(
                rest.to_bytes().is_empty(),
                "the old body ends with nothing more"
            );
            hub.publish(ChangeEvent::ToolsListChanged);
            assert_eq!(next(&mut taken).await, event(4));
        })
    });
}

/// A session POST's stream resumes behind hyper as on the native listener
/// (2025-11-25 `basic/transports.mdx` § Sending Messages to the Server 6,
/// § Resumability and Redelivery): it opens with a priming event; the
/// client drops it after the call's progress, and a GET with
/// `Last-Event-ID` naming the priming event gets the progress again and
/// the call's answer, and the body ends.
#[test]
fn a_session_post_stream_resumes_with_last_event_id() {
    both(|h2| {
        Box::pin(async move {
            let (service, _) = service();
            let (base, _stop) = start(service).await;
            let c = client(h2);
            let session = open_session(&c, &base).await;
            let caller = client(h2);
            let r = caller
                .request(legacy(
                    &base,
                    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"step","_meta":{"progressToken":"p"}}}"#,
                    Some(&session),
                ))
                .await
                .unwrap();
            assert_eq!(r.headers()["content-type"], "text/event-stream");
            let progress = r#"id: p1-1
data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"half","progress":1.0,"progressToken":"p"}}

"#;
            let mut body = r.into_body();
            let mut got = String::new();
            while !got.contains("id: p1-1") {
                let frame = body.frame().await.unwrap().unwrap();
                got.push_str(std::str::from_utf8(&frame.into_data().unwrap()).unwrap());
            }
            assert_eq!(got, format!("id: p1-0\ndata: \n\n{progress}"), "h2 {h2}");
            drop(body);
            drop(caller);
            let get = Request::get(format!("{base}/mcp"))
                .header("accept", "text/event-stream")
                .header("mcp-session-id", &session)
                .header("mcp-protocol-version", "2025-11-25")
                .header("last-event-id", "p1-0")
                .body(Full::new(Bytes::new()))
                .unwrap();
            let r = c.request(get).await.unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            assert_eq!(r.headers()["content-type"], "text/event-stream");
            let rest = tokio::time::timeout(Duration::from_secs(5), r.into_body().collect())
                .await
                .expect("the resumed stream ends after the answer")
                .unwrap()
                .to_bytes();
            let answer = r#"id: p1-2
data: {"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"done","type":"text"}]}}

"#;
            assert_eq!(
                String::from_utf8(rest.to_vec()).unwrap(),
                format!("{progress}{answer}"),
                "h2 {h2}"
            );
        })
    });
}

/// A session call left running after its client went away lives on a
/// task of its own; when the runtime shuts down that task is dropped, and
/// with it the call. (Dropping it once spawned it
/// again, on a runtime that drops every new task at once: a recursion
/// that overflowed the stack.)
#[test]
fn a_session_call_left_running_ends_with_its_runtime() {
    for h2 in [false, true] {
        let (service, dropped) = service();
        let rt = runtime();
        rt.block_on(async {
            let (base, _stop) = start(service).await;
            abandon_session_call(h2, &base, "hang").await;
        });
        drop(rt);
        // Which of the runtime's tasks goes first is the runtime's
        // business: the handler may be dropped before its call is flagged.
        dropped
            .recv_timeout(Duration::from_secs(5))
            .expect("the handler's future was dropped with the runtime");
    }
}

/// Open a session and call `tool` in it on a client of its own, then give
/// up on the answer (a reset stream, a closed connection) while it runs.
async fn abandon_session_call(h2: bool, base: &str, tool: &str) {
    let session = open_session(&client(h2), base).await;
    let caller = client(h2);
    let call = caller.request(legacy(
        base,
        &format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
        ),
        Some(&session),
    ));
    let pending = tokio::time::timeout(Duration::from_millis(300), call).await;
    assert!(pending.is_err(), "the {tool} call was answered");
    drop(caller);
    tokio::time::sleep(Duration::from_millis(100)).await;
}
