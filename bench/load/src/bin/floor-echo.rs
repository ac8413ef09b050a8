//! `floor-echo`: the bare floor. The smallest HTTP/1.1 server that does the
//! same work on the wire with none of MCP's rules: tokio current-thread,
//! `httparse` for the head, a borrowed `serde_json` parse of the request
//! body, and the text echoed back in a JSON-RPC result. No header checks,
//! no `_meta`, no schema, no SSE: what any MCP server on this runtime must
//! at least spend.

use std::borrow::Cow;

use bench_common::{announce, args, Mode};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(Deserialize)]
struct Request<'a> {
    #[serde(borrow)]
    id: &'a RawValue,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow)]
    arguments: Arguments<'a>,
}

#[derive(Deserialize)]
struct Arguments<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
}

/// Append the response to `body`'s request to `out`.
fn answer(body: &[u8], out: &mut Vec<u8>, json: &mut Vec<u8>) {
    json.clear();
    match serde_json::from_slice::<Request>(body) {
        Ok(req) => {
            json.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
            json.extend_from_slice(req.id.get().as_bytes());
            json.extend_from_slice(b",\"result\":{\"content\":[{\"type\":\"text\",\"text\":");
            let _ = serde_json::to_writer(&mut *json, &req.params.arguments.text);
            json.extend_from_slice(b"}]}}");
            head(out, "200 OK", json.len());
        }
        Err(_) => {
            json.extend_from_slice(
                b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}",
            );
            head(out, "400 Bad Request", json.len());
        }
    }
    out.extend_from_slice(json);
}

fn head(out: &mut Vec<u8>, status: &str, len: usize) {
    use std::io::Write;
    let _ = write!(
        out,
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {len}\r\n\r\n"
    );
}

async fn connection(mut stream: TcpStream) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut buf = vec![0_u8; 16 * 1024];
    let mut filled = 0;
    let mut out = Vec::with_capacity(1024);
    let mut json = Vec::with_capacity(512);
    loop {
        // Answer every complete request in the buffer.
        let mut start = 0;
        loop {
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut req = httparse::Request::new(&mut headers);
            let head_len = match req.parse(&buf[start..filled]) {
                Ok(httparse::Status::Complete(n)) => n,
                Ok(httparse::Status::Partial) => break,
                Err(_) => return Ok(()),
            };
            let length = req
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                .and_then(|h| {
                    std::str::from_utf8(h.value)
                        .ok()?
                        .trim()
                        .parse::<usize>()
                        .ok()
                })
                .unwrap_or(0);
            let end = start + head_len + length;
            if end > filled {
                if end - start > buf.len() {
                    buf.resize(end - start, 0);
                }
                break;
            }
            answer(&buf[start + head_len..end], &mut out, &mut json);
            start = end;
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
        if !out.is_empty() {
            stream.write_all(&out).await?;
            out.clear();
        }
        let n = stream.read(&mut buf[filled..]).await?;
        if n == 0 {
            return Ok(());
        }
        filled += n;
    }
}

fn main() -> std::io::Result<()> {
    let args = args("floor-echo");
    let Mode::Listen(addr) = args.mode else {
        eprintln!("floor-echo serves HTTP only (--listen ADDR)");
        std::process::exit(2)
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = TcpListener::bind(addr).await?;
        announce(listener.local_addr()?);
        loop {
            let (stream, _) = listener.accept().await?;
            tokio::spawn(connection(stream));
        }
    })
}
