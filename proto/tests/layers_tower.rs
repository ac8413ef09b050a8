//! A tower layer around calls through `layer::Tower` (feature `tower`):
//! a `tower_layer::Layer` written here wraps the call, sees it go in and
//! its outcome come out. Literal JSON lines in over stdio.

mod support;

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use snodo_proto::layer::{Call, Run, Tower};
use snodo_proto::{
    BoxFuture, CallToolResult, Implementation, NoArgs, Outcome, Service, Tool, Transport,
};
use support::Harness;

#[derive(Clone)]
struct Record<S> {
    inner: S,
    log: Arc<Mutex<Vec<String>>>,
}

struct RecordLayer(Arc<Mutex<Vec<String>>>);

impl<S> tower_layer::Layer<S> for RecordLayer {
    type Service = Record<S>;
    fn layer(&self, inner: S) -> Record<S> {
        Record {
            inner,
            log: self.0.clone(),
        }
    }
}

impl<S> tower_service::Service<Call> for Record<S>
where
    S: tower_service::Service<Call, Response = Outcome>,
    S::Future: Send + 'static,
{
    type Response = Outcome;
    type Error = S::Error;
    type Future = BoxFuture<Result<Outcome, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let log = self.log.clone();
        log.lock()
            .unwrap()
            .push(format!("> {} {}", call.method(), call.name()));
        let answer = self.inner.call(call);
        Box::pin(async move {
            let outcome = answer.await?;
            let kind = match &outcome {
                Outcome::CallTool(r) if r.is_error == Some(true) => "tool_error",
                Outcome::CallTool(_) => "ok",
                _ => "other",
            };
            log.lock().unwrap().push(format!("< {kind}"));
            Ok(outcome)
        })
    }
}

#[test]
fn a_tower_layer_wraps_the_call_and_sees_its_outcome() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let tower: Tower<Record<Run>> = Tower::new(RecordLayer(log.clone()));
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .layer(tower)
        .tool(Tool::new("a", "A"), |_: NoArgs| async {
            CallToolResult::text("a")
        })
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    let out = h.send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
"#);
    let out: serde_json::Value = serde_json::from_str(&out).unwrap();
    let want: serde_json::Value = serde_json::from_str(r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"a","type":"text"}],"resultType":"complete"}}"#).unwrap();
    assert_eq!(out, want);
    assert_eq!(*log.lock().unwrap(), ["> tools/call a", "< ok"]);
}
