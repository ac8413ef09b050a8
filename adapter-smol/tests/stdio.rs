//! The stdio path over an in-memory duplex: literal JSON lines in, literal
//! JSON lines out (`basic/transports/stdio.mdx`).

mod common;

use common::{json, probes, run, service, service_with, within, LineClient};
use snodo_proto::Limits;
use snodo_smol::Options;
use std::time::Duration;
use std::time::Instant;

const LIMIT: Duration = Duration::from_secs(10);

#[test]
fn discover_is_answered() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let (mut client, server) = LineClient::start(&ex, service(probes));
        client.send(concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n"
        ));
        assert_eq!(
            client.recv().await,
            json(
                r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete","ttlMs":60000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
            )
        );
        client.close_input();
        assert_eq!(client.recv_line().await, None);
        within(LIMIT, "the server to end", server).await.unwrap();
    });
}

#[test]
fn tools_call_runs_the_handler() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let (mut client, _server) = LineClient::start(&ex, service(probes));
        client.send(concat!(
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello smol"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n"
        ));
        assert_eq!(
            client.recv().await,
            json(
                r#"{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"hello smol"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
            )
        );
    });
}

#[test]
fn two_messages_in_one_write_and_one_message_split_across_writes() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let (mut client, _server) = LineClient::start(&ex, service(probes));
        client.send(concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"one"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","#,
        ));
        client.send(concat!(
            r#""arguments":{"text":"two"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n"
        ));
        let mut texts = Vec::new();
        for _ in 0..2 {
            let v = client.recv().await;
            texts.push((v["id"].clone(), v["result"]["content"][0]["text"].clone()));
        }
        texts.sort_by_key(|(id, _)| id.as_i64());
        assert_eq!(
            texts,
            vec![(json("1"), json(r#""one""#)), (json("2"), json(r#""two""#))]
        );
    });
}

#[test]
fn concurrent_calls_answer_out_of_order() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let (mut client, _server) = LineClient::start(&ex, service(probes));
        client.send(concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":400,"text":"slow"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":10,"text":"fast"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n"
        ));
        assert_eq!(
            client.recv().await,
            json(
                r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"fast"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
            )
        );
        assert_eq!(
            client.recv().await,
            json(
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"slow"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
            )
        );
    });
}

#[test]
fn cancellation_drops_the_handler_and_sends_nothing_for_it() {
    run(LIMIT, |ex| async move {
        let (probes, events) = probes();
        let (mut client, _server) = LineClient::start(&ex, service(probes));
        client.send(concat!(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n"
        ));
        within(LIMIT, "the handler to start", events.started.recv())
            .await
            .unwrap();
        client.send(concat!(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user gave up"}}"#,
            "\n"
        ));
        // The handler's future is dropped, with its CancelFlag already set.
        let flagged = within(LIMIT, "the handler to be dropped", events.dropped.recv())
            .await
            .unwrap();
        assert!(
            flagged,
            "CancelFlag must be set before the future is dropped"
        );
        // Nothing is written for id 7; the id is free again, and the next
        // line on the wire is the answer to the next request.
        client.assert_silent(Duration::from_millis(100)).await;
        client.send(concat!(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n"
        ));
        assert_eq!(
            client.recv().await,
            json(
                r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"after"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
            )
        );
    });
}

#[test]
fn a_panicking_handler_gets_internal_error_and_the_connection_goes_on() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let (mut client, _server) = LineClient::start(&ex, service(probes));
        client.send(concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"panic","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n"
        ));
        assert_eq!(
            client.recv().await,
            json(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#)
        );
        client.send(concat!(
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n"
        ));
        assert_eq!(
            client.recv().await,
            json(
                r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"still here"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
            )
        );
    });
}

#[test]
fn progress_is_forwarded_before_the_result() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let (mut client, _server) = LineClient::start(&ex, service(probes));
        client.send(concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p-1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n"
        ));
        assert_eq!(
            client.recv().await,
            json(
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-1","progress":1.0,"total":2.0}}"#
            )
        );
        assert_eq!(
            client.recv().await,
            json(
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
            )
        );
    });
}

#[test]
fn eof_answers_the_calls_in_flight_then_closes() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let (mut client, server) = LineClient::start(&ex, service(probes));
        client.send(concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":100,"text":"late"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n"
        ));
        client.close_input();
        assert_eq!(
            client.recv().await,
            json(
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"late"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
            )
        );
        assert_eq!(
            client.recv_line().await,
            None,
            "output closes after the last answer"
        );
        within(LIMIT, "the server to end", server).await.unwrap();
    });
}

#[test]
fn eof_with_nothing_in_flight_closes_at_once() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let (mut client, server) = LineClient::start(&ex, service(probes));
        client.close_input();
        assert_eq!(client.recv_line().await, None);
        within(Duration::from_secs(1), "the server to end", server)
            .await
            .unwrap();
    });
}

#[test]
fn a_final_line_without_newline_is_answered_at_eof() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let (mut client, server) = LineClient::start(&ex, service(probes));
        client.send(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"last"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        );
        client.close_input();
        assert_eq!(
            client.recv().await,
            json(
                r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"last"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
            )
        );
        assert_eq!(client.recv_line().await, None);
        within(LIMIT, "the server to end", server).await.unwrap();
    });
}

#[test]
fn garbage_gets_a_parse_error_and_the_connection_goes_on() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let (mut client, _server) = LineClient::start(&ex, service(probes));
        client.send("{not json\n");
        let error = client.recv().await;
        assert_eq!(error["jsonrpc"], "2.0");
        assert_eq!(error["error"]["code"], -32700);
        client.send(concat!(
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"fine"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n"
        ));
        assert_eq!(
            client.recv().await,
            json(
                r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"fine"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
            )
        );
    });
}

#[test]
fn after_eof_calls_get_the_grace_period_then_are_cancelled() {
    run(LIMIT, |ex| async move {
        let (probes, events) = probes();
        let options = Options::default();
        let grace = Limits {
            shutdown_grace: Duration::from_millis(200),
            ..Limits::default()
        };
        let (mut client, server) =
            LineClient::start_with(&ex, service_with(probes, grace), options);
        client.send(concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n"
        ));
        within(LIMIT, "the handler to start", events.started.recv())
            .await
            .unwrap();
        let started = Instant::now();
        client.close_input();
        // Nothing is written for the abandoned call; the output just closes.
        assert_eq!(client.recv_line().await, None);
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_millis(200),
            "closed after {waited:?}, before the grace period"
        );
        let flagged = within(LIMIT, "the handler to be dropped", events.dropped.recv())
            .await
            .unwrap();
        assert!(flagged);
        within(LIMIT, "the server to end", server).await.unwrap();
    });
}
