//! `serve_tcp` with the stdio framing: newline-delimited JSON-RPC over a
//! loopback socket, several clients at once, each with its own connection.

mod common;

use std::time::Duration;

use common::{service, Probe, STEP};
use serde_json::Value;
use snodo_proto::Transport;
use snodo_tokio::{bind_http, serve_tcp, Options};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::time::timeout;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn line_framed_clients_are_served_independently() {
    let listener = bind_http("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = service(Probe::default());
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        let shutdown = async {
            let _ = stopped.await;
        };
        serve_tcp(
            &service,
            listener,
            Transport::Stdio,
            shutdown,
            Options::default(),
        )
        .await
    });

    let slow = TcpStream::connect(addr).await.unwrap();
    let fast = TcpStream::connect(addr).await.unwrap();
    let (slow_r, mut slow_w) = slow.into_split();
    let (fast_r, mut fast_w) = fast.into_split();
    let mut slow_lines = BufReader::new(slow_r).lines();
    let mut fast_lines = BufReader::new(fast_r).lines();

    slow_w.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"sleep\",\"arguments\":{\"ms\":1000,\"label\":\"slow\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n").await.unwrap();
    fast_w.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"fast\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n").await.unwrap();

    // The second connection is not held up by the first one's slow call.
    let line = timeout(Duration::from_millis(800), fast_lines.next_line())
        .await
        .expect("the fast answer does not wait for the slow call")
        .unwrap()
        .unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["id"], 1);
    assert_eq!(v["result"]["content"][0]["text"], "fast");

    let line = timeout(STEP, slow_lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["result"]["content"][0]["text"], "slow");

    // End of input closes each connection after its answers.
    fast_w.shutdown().await.unwrap();
    slow_w.shutdown().await.unwrap();
    assert_eq!(
        timeout(STEP, fast_lines.next_line())
            .await
            .unwrap()
            .unwrap(),
        None
    );
    assert_eq!(
        timeout(STEP, slow_lines.next_line())
            .await
            .unwrap()
            .unwrap(),
        None
    );

    let _ = stop.send(());
    timeout(STEP, server).await.unwrap().unwrap().unwrap();
}
