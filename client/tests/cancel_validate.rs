//! Issue 36 item 9, against literal stdio servers (sh scripts):
//! a public cancel (`basic/patterns/cancellation.mdx`) on the async
//! session, on tokio, smol and plain threads; and `structuredContent`
//! checked against the `outputSchema` from `tools/list`
//! (`server/tools.mdx` § Output Schema: clients SHOULD validate).

#![cfg(all(unix, feature = "tokio", feature = "smol"))]

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use snodo_client::{AsyncSession, AsyncStdioTransport, ClientRuntime, Error, NoInput};
use snodo_proto::client::{ClientConfig, OpId, Wire};

fn sh(script: &str) -> std::process::Command {
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(script);
    command
}

/// The server never answers call 2; the application cancels it after
/// 200 ms from another thread. The wait ends then with `Cancelled`, and
/// the next line the server reads is the `notifications/cancelled` for
/// request 2 with the application's reason (the script refuses anything
/// else and exits, failing the next call).
async fn a_call_cancelled_from_another_thread<R: ClientRuntime>(runtime: R) {
    let script = r#"
read -r discover
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}'
read -r slow
read -r cancel
case "$cancel" in *'"method":"notifications/cancelled"'*'"reason":"the user pressed stop"'*'"requestId":2'*) ;; *) echo "bad: $cancel" >&2; exit 1;; esac
read -r next
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"content":[]}}'
"#;
    let transport = AsyncStdioTransport::spawn(runtime, sh(script))
        .unwrap()
        .with_timeout(Duration::from_secs(10));
    let config = ClientConfig::new("wire", "1", Wire::Stdio);
    let mut session = AsyncSession::connect(transport, config, NoInput)
        .await
        .unwrap();
    let canceller = session.canceller();
    assert!(
        !canceller.cancel(Some("nothing waits")),
        "nothing in flight"
    );
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        assert!(canceller.cancel(Some("the user pressed stop")));
    });
    let start = Instant::now();
    match session.call_tool("slow", json!({})).await {
        Err(Error::Cancelled(Some(why))) => assert_eq!(why, "the user pressed stop"),
        other => panic!("{other:?}"),
    }
    assert!(start.elapsed() < Duration::from_secs(5));
    stopper.join().unwrap();
    assert!(!session.client().is_live(OpId(2)));
    session.call_tool("next", json!({})).await.unwrap();
}

#[test]
fn cancel_on_tokio() {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(a_call_cancelled_from_another_thread(snodo_tokio::Tokio))
}

#[test]
fn cancel_on_smol() {
    let ex = Arc::new(smol::Executor::new());
    smol::block_on(
        ex.run(a_call_cancelled_from_another_thread(snodo_smol::Smol(
            ex.clone(),
        ))),
    )
}

#[cfg(feature = "threads")]
#[test]
fn cancel_on_plain_threads() {
    snodo_blocking::block_on(a_call_cancelled_from_another_thread(
        snodo_blocking::Threads::new(1).unwrap(),
    ))
}

fn on_tokio<F: Future>(run: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run)
}

/// `tools/list` gives `count` an output schema (an object with an integer
/// `n`); its first call answers `"n": "seven"` (refused), its second
/// `"n": 7` (kept), its third no structured content at all (refused: the
/// tool declares a schema); `isError` results and the schema-less `echo`
/// are not held to anything.
#[test]
fn structured_content_is_checked_against_the_listed_output_schema() {
    let script = r#"
read -r discover
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}'
read -r list
printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"count","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}},{"name":"echo","inputSchema":{"type":"object"}}]}}'
read -r call
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"seven"}],"structuredContent":{"n":"seven"}}}'
read -r call
printf '%s\n' '{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"7"}],"structuredContent":{"n":7}}}'
read -r call
printf '%s\n' '{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"7"}]}}'
read -r call
printf '%s\n' '{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"no"}],"isError":true}}'
read -r call
printf '%s\n' '{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"anything":true}}}'
"#;
    on_tokio(async {
        let transport = AsyncStdioTransport::spawn(snodo_tokio::Tokio, sh(script))
            .unwrap()
            .with_timeout(Duration::from_secs(10));
        let config = ClientConfig::new("wire", "1", Wire::Stdio);
        let mut session = AsyncSession::connect(transport, config, NoInput)
            .await
            .unwrap();
        assert_eq!(session.list_tools().await.unwrap().len(), 2);
        match session.call_tool("count", json!({})).await {
            Err(Error::OutputSchema { tool, why }) => {
                assert_eq!(tool, "count");
                assert!(why.contains("/n"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        let kept = session.call_tool("count", json!({})).await.unwrap();
        assert_eq!(kept.structured_content, Some(json!({"n": 7})));
        assert!(matches!(
            session.call_tool("count", json!({})).await,
            Err(Error::OutputSchema { .. })
        ));
        let failed = session.call_tool("count", json!({})).await.unwrap();
        assert_eq!(failed.is_error, Some(true));
        session.call_tool("echo", json!({})).await.unwrap();
    });
}
