//! A minimal, strict HTTP/1.1 client for the abuse tests: requests with
//! the headers a conforming MCP client sends, and responses read without
//! reading past their end (so pipelined responses stay on the socket).

use std::io::Read;
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A response.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn closes(&self) -> bool {
        self.header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"))
    }

    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// The head of a POST to `/mcp` with the standard headers and the
/// `MCP-Protocol-Version` / `Mcp-Method` mirrors, plus `extra` headers (an
/// extra header named like a standard one replaces it); without framing
/// headers and without the blank line that ends it.
pub fn head(addr: SocketAddr, method: &str, extra: &[(&str, &[u8])]) -> Vec<u8> {
    let host = addr.to_string();
    let standard: [(&str, &[u8]); 5] = [
        ("Host", host.as_bytes()),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
        ("MCP-Protocol-Version", b"2026-07-28"),
        ("Mcp-Method", method.as_bytes()),
    ];
    let mut out = b"POST /mcp HTTP/1.1\r\n".to_vec();
    for (name, value) in standard
        .iter()
        .filter(|(n, _)| !extra.iter().any(|(e, _)| e.eq_ignore_ascii_case(n)))
        .chain(extra)
    {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// A POST of `body`: [`head`], `Content-Length`, the body.
pub fn request(addr: SocketAddr, method: &str, extra: &[(&str, &[u8])], body: &[u8]) -> Vec<u8> {
    let mut out = head(addr, method, extra);
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body);
    out
}

/// `server/discover` with id `id`.
pub fn discover(addr: SocketAddr, id: u64) -> Vec<u8> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    request(addr, "server/discover", &[], body.as_bytes())
}

/// Read one response from `conn` within `limit` per read.
pub fn read_response(conn: &mut TcpStream, limit: Duration) -> Result<Response, String> {
    conn.set_read_timeout(Some(limit))
        .map_err(|e| e.to_string())?;
    parse(conn)
}

/// Parse one response from `r`, reading nothing past its end.
pub fn parse(r: &mut impl Read) -> Result<Response, String> {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut b = [0u8; 1];
        match r.read(&mut b) {
            Ok(0) => return Err(format!("closed after {:?}", String::from_utf8_lossy(&head))),
            Ok(_) => head.push(b[0]),
            Err(e) => return Err(format!("{e} after {:?}", String::from_utf8_lossy(&head))),
        }
        if head.len() > 64 * 1024 {
            return Err(String::from("head over 64 KiB"));
        }
    }
    let text = std::str::from_utf8(&head).map_err(|_| String::from("head not UTF-8"))?;
    let mut lines = text.trim_end().split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status = status_line
        .strip_prefix("HTTP/1.1 ")
        .and_then(|s| s.get(..3))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let headers: Vec<(String, String)> = lines
        .map(|l| {
            let (n, v) = l
                .split_once(": ")
                .ok_or_else(|| format!("bad header {l:?}"))?;
            Ok((String::from(n), String::from(v)))
        })
        .collect::<Result<_, String>>()?;
    let mut response = Response {
        status,
        headers,
        body: Vec::new(),
    };
    if let Some(n) = response.header("content-length") {
        let n: usize = n.parse().map_err(|_| format!("bad Content-Length {n}"))?;
        response.body = vec![0; n];
        r.read_exact(&mut response.body)
            .map_err(|e| format!("body: {e}"))?;
    } else if response.header("transfer-encoding") == Some("chunked") {
        loop {
            let mut line = Vec::new();
            while !line.ends_with(b"\r\n") {
                let mut b = [0u8; 1];
                r.read_exact(&mut b)
                    .map_err(|e| format!("chunk size: {e}"))?;
                line.push(b[0]);
            }
            let size = usize::from_str_radix(
                std::str::from_utf8(&line[..line.len() - 2]).unwrap_or("x"),
                16,
            )
            .map_err(|_| format!("bad chunk size {line:?}"))?;
            let mut chunk = vec![0; size + 2];
            r.read_exact(&mut chunk)
                .map_err(|e| format!("chunk: {e}"))?;
            if size == 0 {
                break;
            }
            response.body.extend_from_slice(&chunk[..size]);
        }
    } else if status != 100 {
        return Err(format!("no framing in {text:?}"));
    }
    Ok(response)
}
