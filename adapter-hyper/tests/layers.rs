//! Layers around calls over hyper: a service layer outside a tool layer
//! around a `tools/call`, a tool `Timeout` answered as the native
//! listeners answer it, and an unknown tool never reaching a layer.
//! Literal JSON bodies posted over loopback.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use snodo_proto::layer::{self, Call, Timeout};
use snodo_proto::{CallToolResult, Implementation, NoArgs, Service, Tool};
use tokio::net::TcpListener;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn call(tool: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"{tool}","arguments":{{}},{META}}}}}"#
    )
}

fn logging(label: &'static str, log: &Arc<Mutex<Vec<String>>>) -> impl snodo_proto::Layer {
    let log = log.clone();
    layer::from_fn(move |call: Call| {
        let log = log.clone();
        log.lock()
            .unwrap()
            .push(format!("{label}> {}", call.name()));
        async move {
            let outcome = call.run().await;
            log.lock().unwrap().push(format!("{label}<"));
            outcome
        }
    })
}

async fn post(base: &str, tool: &str) -> String {
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let req = Request::post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(Full::new(Bytes::from(call(tool))))
        .unwrap();
    let r = client.request(req).await.unwrap();
    String::from_utf8(r.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
}

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

#[test]
fn layers_run_around_calls_over_hyper() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .layer(logging("service", &log))
        .tool_layer("a", logging("tool", &log))
        .tool_layer("slow", Timeout::new(Duration::from_millis(100)))
        .tool(Tool::new("a", "A"), |_: NoArgs| async {
            CallToolResult::text("a")
        })
        .tool(Tool::new("slow", "Slow"), |_: NoArgs| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            CallToolResult::text("late")
        })
        .build()
        .unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let stopped = async {
                let _ = stopped.await;
            };
            snodo_hyper::serve(&service, listener, stopped, snodo_hyper::Options::default()).await
        });

        assert_eq!(
            json(&post(&base, "a").await),
            json(r#"{"jsonrpc":"2.0","id":4,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"a","type":"text"}],"resultType":"complete"}}"#)
        );
        assert_eq!(*log.lock().unwrap(), ["service> a", "tool> a", "tool<", "service<"]);

        log.lock().unwrap().clear();
        assert_eq!(
            json(&post(&base, "slow").await),
            json(r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Request timed out"}}"#)
        );

        log.lock().unwrap().clear();
        let out = json(&post(&base, "nope").await);
        assert_eq!(out["error"]["code"], -32602, "{out}");
        assert!(log.lock().unwrap().is_empty(), "{:?}", log.lock().unwrap());
    });
}
