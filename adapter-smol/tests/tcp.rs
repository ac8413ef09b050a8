//! `serve_tcp` with the stdio framing: newline-delimited JSON-RPC over a
//! TCP stream (`basic/transports/stdio.mdx` framing on another reliable
//! stream).

mod common;

use common::{json, probes, run, service, within};
use smol::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use smol::net::TcpStream;
use snodo_smol::{Options, Transport};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(10);

#[test]
fn stdio_framing_over_tcp() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let listener = snodo_smol::bind_http("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = smol::channel::bounded::<()>(1);
        let server = ex.spawn(snodo_smol::serve_tcp(
            &ex,
            &service(probes),
            listener,
            Transport::Stdio,
            async move {
                let _ = stopped.recv().await;
            },
            Options::default(),
        ));

        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":100,"text":"slow"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"quick"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
                "\n"
            ).as_bytes())
            .await
            .unwrap();
        // Half-close: end of input, as EOF on stdin.
        stream.shutdown(std::net::Shutdown::Write).unwrap();
        let mut reader = BufReader::new(stream);
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            let n = within(LIMIT, "a line or EOF", reader.read_line(&mut line))
                .await
                .unwrap();
            if n == 0 {
                // Both answered after end of input: the server closed its side.
                break;
            }
            lines.push(json(&line));
        }
        assert_eq!(
            lines,
            vec![
                json(
                    r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"quick"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
                ),
                json(
                    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"slow"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
                ),
            ]
        );

        stop.close();
        within(LIMIT, "serve_tcp to return", server).await.unwrap();
    });
}
