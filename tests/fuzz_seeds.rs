//! Seed corpora for the fuzz targets (`fuzz/`), from the literal wire
//! vectors of the tests: every request of `snodo_tests::VECTORS`, and every
//! raw string literal holding `"jsonrpc"` in `proto/tests/` and `tests/`.
//!
//! `cargo run -p snodo-tests --example fuzz-seeds -- fuzz/corpus` writes
//! one directory per target (`fuzz/corpus/<target>/`, git-ignored), each
//! input encoded as that target reads its choices; files are named by a
//! hash of their content, so running it again adds nothing twice.

#[path = "../proto/tests/machine/mod.rs"]
#[allow(unused_imports)]
mod machine;

use std::path::{Path, PathBuf};

use machine::gen::{encode_finish_call, encode_send};
use snodo_tests::http::mirror;

fn main() {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| String::from("fuzz/corpus")),
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut messages: Vec<Vec<u8>> = snodo_tests::VECTORS
        .iter()
        .flat_map(|group| group.iter())
        .flat_map(|v| v.request.split('\n'))
        .filter(|l| !l.is_empty())
        .map(|l| l.as_bytes().to_vec())
        .collect();
    for dir in ["proto/tests", "tests", "tests/vectors"] {
        for literal in raw_literals(&root.join(dir)) {
            if literal.contains("\"jsonrpc\"") && literal.contains('{') {
                messages.push(literal.into_bytes());
            }
        }
    }
    messages.sort();
    messages.dedup();

    let mut written = 0;
    for m in &messages {
        let http = http_request(m);
        // stdio_framing: limit 48, no extra cuts, then the stream.
        let mut framing = vec![47, 0];
        framing.extend_from_slice(m);
        framing.extend_from_slice(b"\n");
        written += write(&out, "stdio_framing", &framing);
        // http_codec: raw mode, head limit 32 + 2016, 16 headers, body
        // limit 4095, no cuts, then the request.
        let mut codec = vec![1, 0, 0, 7, 0xe0, 15, 0, 0, 0x0f, 0xff, 0];
        codec.extend_from_slice(&http);
        written += write(&out, "http_codec", &codec);
        // envelope: the raw-bytes mode.
        let mut envelope = vec![0];
        envelope.extend_from_slice(m);
        written += write(&out, "envelope", &envelope);
        // machine: the line on a stdio connection and the request on an
        // HTTP one, each call finished.
        let mut line = m.clone();
        line.push(b'\n');
        let mut ops = encode_send(0, &line);
        ops.extend(encode_finish_call(0));
        ops.extend(encode_send(2, &http));
        ops.extend(encode_finish_call(2));
        written += write(&out, "machine", &ops);
    }
    // machine: all stdio lines in one sequence, calls finished as they come.
    let mut all = Vec::new();
    for m in &messages {
        let mut line = m.clone();
        line.push(b'\n');
        all.extend(encode_send(1, &line));
        all.extend(encode_finish_call(1));
    }
    written += write(&out, "machine", &all);
    // request_state: a few choices (start time, arguments, state, damage).
    for seed in [
        &b"\x00\x01abcdefgh\x02statestate"[..],
        b"\xff\xff\x07x\x10\x05\x00\x03\x01",
        b"\x12\x34\x00\x00\x00\x01\x02\x03\x04\x05",
    ] {
        written += write(&out, "request_state", seed);
    }
    eprintln!(
        "{} messages; {written} new seed files under {}",
        messages.len(),
        out.display()
    );
}

/// The HTTP request a conforming client sends for `body`.
fn http_request(body: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(body);
    let mut out = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n".to_vec();
    for (name, value) in mirror::headers(&text) {
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body);
    out
}

/// Every `r#"…"#` literal in the `.rs` files of `dir` (not recursive).
fn raw_literals(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let mut rest = text.as_str();
        while let Some(start) = rest.find("r#\"") {
            rest = &rest[start + 3..];
            let Some(end) = rest.find("\"#") else { break };
            found.push(String::from(&rest[..end]));
            rest = &rest[end + 2..];
        }
    }
    found
}

/// Write `data` as `<out>/<target>/<hash>`; 1 if it was new.
fn write(out: &Path, target: &str, data: &[u8]) -> usize {
    let dir = out.join(target);
    std::fs::create_dir_all(&dir).expect("the corpus directory");
    let hash = data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let path = dir.join(format!("seed-{hash:016x}"));
    if path.exists() {
        return 0;
    }
    std::fs::write(&path, data).expect("a seed file");
    1
}
