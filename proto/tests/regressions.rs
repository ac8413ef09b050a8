//! Bugs the property tests and fuzz targets found, each pinned with
//! literal wire bytes.

mod support;

use snodo_proto::{CallToolResult, Implementation, Limits, NoArgs, Service, Tool, Transport};
use support::Harness;

fn service(limits: Limits) -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .limits(limits)
        .tool(Tool::new("work", "Does work"), |_: NoArgs| async {
            CallToolResult::text("done")
        })
        .build()
        .unwrap()
}

fn call(id: u64) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"work\",\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}}}}}\n"
    )
}

/// Found by `properties.rs` (seed 33): cancelling a running call freed its
/// slot but did not start the call queued behind it, which then waited
/// until some other call finished; with none left, forever (and at end of
/// input the connection never closed).
#[test]
fn cancelling_a_running_call_starts_the_next_queued_one() {
    let s = service(
        Limits::default()
            .max_concurrent_calls(1)
            .max_queued_calls(4),
    );
    let mut h = Harness::new(&s, Transport::Stdio);
    h.run_handlers = false;
    assert_eq!(h.send(call(1).as_bytes()), "");
    assert_eq!(h.send(call(2).as_bytes()), "");
    assert_eq!((h.conn.in_flight(), h.conn.queued()), (1, 1));
    let cancel = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}\n";
    assert_eq!(h.send(cancel.as_bytes()), "");
    assert_eq!(h.cancelled.len(), 1, "call 1 is cancelled");
    assert_eq!(
        (h.conn.in_flight(), h.conn.queued()),
        (1, 0),
        "call 2 starts in the freed slot"
    );
    assert_eq!(h.pending.len(), 2, "call 2 was handed out");
    let out = h.run_pending();
    assert_eq!(
        out,
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"t\",\"version\":\"1\"}},\"content\":[{\"text\":\"done\",\"type\":\"text\"}],\"resultType\":\"complete\"}}\n"
    );
    assert_eq!(h.close_input(), "");
    assert!(h.closed, "closes at end of input once every call is done");
}

mod split_invariance {
    //! Found by the `http_codec` fuzz target: the decoder's verdict on a
    //! request depended on how its bytes were cut into reads. A request is
    //! accepted or refused (and how) by its bytes alone.

    use snodo_proto::http::codec::{CodecLimits, Decoded, Decoder};

    const LIMITS: CodecLimits = CodecLimits {
        max_head_bytes: 64,
        max_headers: 8,
        max_body_bytes: 4096,
    };

    /// The statuses of refusals and the count of bodies, reading `wire`
    /// in reads of `step` bytes.
    fn verdict(wire: &[u8], step: usize) -> (Vec<u16>, usize) {
        let mut d = Decoder::new(LIMITS);
        let (mut refused, mut bodies) = (Vec::new(), 0);
        for piece in wire.chunks(step) {
            d.push(piece);
            while let Some(e) = d.decode() {
                match e {
                    Decoded::Error(e) => refused.push(e.status),
                    Decoded::Body(_) => bodies += 1,
                    Decoded::Head(_) => {}
                }
            }
        }
        (refused, bodies)
    }

    fn same_whole_and_bytewise(wire: &[u8]) -> (Vec<u16>, usize) {
        let whole = verdict(wire, wire.len());
        assert_eq!(whole, verdict(wire, 1), "whole vs byte by byte");
        whole
    }

    #[test]
    fn a_head_malformed_only_past_the_limit_is_too_large_however_it_arrives() {
        // 70 token bytes and then a NUL: whole, httparse saw the NUL and
        // said 400; byte by byte the head outgrew 64 bytes first: 431.
        let mut wire = vec![b'1'; 70];
        wire.extend_from_slice(b"\0 / HTTP/1.1\r\n\r\n");
        assert_eq!(same_whole_and_bytewise(&wire), (vec![431], 0));
        // Malformed within the limit: 400 either way.
        let mut wire = vec![b'1'; 10];
        wire.extend_from_slice(b"\0 / HTTP/1.1\r\n\r\n");
        assert_eq!(same_whole_and_bytewise(&wire), (vec![400], 0));
    }

    #[test]
    fn a_chunk_size_line_over_1024_bytes_is_refused_however_it_arrives() {
        // A chunk extension of 2000 bytes: whole, the line's end was in the
        // buffer and it was accepted; byte by byte, refused at 1025 bytes.
        let mut wire = b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2;e=".to_vec();
        wire.extend(std::iter::repeat_n(b'x', 2000));
        wire.extend_from_slice(b"\r\nhi\r\n0\r\n\r\n");
        assert_eq!(same_whole_and_bytewise(&wire), (vec![400], 0));
        // A short extension is fine either way.
        let wire =
            b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2;e=x\r\nhi\r\n0\r\n\r\n";
        assert_eq!(same_whole_and_bytewise(wire), (vec![], 1));
    }

    #[test]
    fn a_trailer_line_over_the_head_limit_is_refused_however_it_arrives() {
        let mut wire =
            b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: ".to_vec();
        wire.extend(std::iter::repeat_n(b'x', 100));
        wire.extend_from_slice(b"\r\n\r\n");
        assert_eq!(same_whole_and_bytewise(&wire), (vec![431], 0));
        let wire = b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\r\n\r\n";
        assert_eq!(same_whole_and_bytewise(wire), (vec![], 1));
    }
}

/// Found by the `envelope` fuzz target: an `Accept` parameter starting
/// with a character of three bytes or more (`;日`, or invalid UTF-8, read
/// as U+FFFD) sliced a `str` inside that character
/// and panicked, so any client could take the connection's task down.
#[test]
fn a_non_ascii_accept_parameter_is_read_not_panicked_on() {
    let s = service(Limits::default());
    let mut h = Harness::new(&s, Transport::Http);
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\nContent-Length: {}\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(
        b"Accept: application/json, text/event-stream;\xe6\x97\xa5, */*;\xff\r\n\r\n",
    );
    request.extend_from_slice(body.as_bytes());
    let out = h.send(&request);
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(
        out.contains("\"supportedVersions\":[\"2026-07-28\"]"),
        "{out}"
    );
    // `q=0` still refuses.
    let mut h = Harness::new(&s, Transport::Http);
    let refused = String::from_utf8_lossy(&request).replace(";\u{65e5}, */*;\u{fffd}", ";q=0");
    let out = h.send(refused.as_bytes());
    assert!(out.starts_with("HTTP/1.1 406 Not Acceptable\r\n"), "{out}");
}

/// Found while reviewing what the fuzz targets cannot reach (the machine
/// fixture has no template with two expressions): matching a URI against
/// a template searched the whole value for `/ ? # &` at every split point
/// of a simple expression, and tried every split point of every
/// expression, so a long URI cost time quadratic in its length even
/// against `note://{id}` (64 KiB: 9 s; 256 KiB: 150 s, in release), all
/// inside `handle_input`: any client could stall a connection's task with
/// one `resources/read`. The stop character is now found once, and
/// matching has a budget linear in the URI's length: what matches still
/// matches, and a URI that exhausts the budget does not match.
#[test]
fn matching_a_long_uri_against_a_template_takes_linear_time() {
    use snodo_proto::uri_template::UriTemplate;
    let t = UriTemplate::parse("note://{id}").unwrap();
    let long = format!("note://{}", "a".repeat(256 * 1024));
    let started = std::time::Instant::now();
    let vars = t.matches(&long).expect("one long simple value matches");
    assert_eq!(vars["id"].len(), 256 * 1024);
    assert_eq!(t.matches(&format!("{long}/x")), None);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );

    let t = UriTemplate::parse("file:///{+path}/{+name}.txt").unwrap();
    let long = format!("file:///{}b.tx", "a/".repeat(32 * 1024));
    let started = std::time::Instant::now();
    assert_eq!(t.matches(&long), None);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
    let ok = format!("file:///{}b.txt", "a/".repeat(32 * 1024));
    let vars = t.matches(&ok).expect("a long URI that fits still matches");
    assert_eq!(vars["path"], "a");
    assert_eq!(vars["name"].len(), ok.len() - "file:///a/.txt".len());
}
