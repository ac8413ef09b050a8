//! A minimal HTTP/1.1 client on `std::net`: one keep-alive connection, one
//! request at a time, responses framed by `Content-Length` or chunked
//! transfer coding (RFC 9112 § 6-7). Enough to speak to an MCP endpoint and
//! strict enough to notice a server that frames a response wrongly.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// Largest response head or body this client accepts.
const MAX_BYTES: usize = 64 * 1024 * 1024;

/// One complete response.
#[derive(Debug)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Header fields, names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: Vec<u8>,
    /// Whether the body was chunked.
    pub chunked: bool,
}

impl Response {
    /// The single value of header `name` (lower-case); `None` if absent.
    /// Panics when it appears more than once.
    pub fn header(&self, name: &str) -> Option<&str> {
        let mut values = self.headers.iter().filter(|(n, _)| n == name);
        let first = values.next().map(|(_, v)| v.as_str());
        assert!(values.next().is_none(), "header {name} appears twice");
        first
    }

    /// Whether the server announced it closes the connection.
    fn closes(&self) -> bool {
        self.header("connection")
            .is_some_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close")))
    }
}

/// A client of one server address.
pub struct Client {
    addr: SocketAddr,
    conn: Option<BufReader<TcpStream>>,
    timeout: Duration,
    /// Connections opened so far.
    pub connections: usize,
}

impl Client {
    /// A client of `addr`; every read and write gives up after `timeout`.
    pub fn new(addr: SocketAddr, timeout: Duration) -> Client {
        Client {
            addr,
            conn: None,
            timeout,
            connections: 0,
        }
    }

    /// POST `body` to `path` with `headers` (plus `Host`, `Content-Length`)
    /// and read the whole response. The connection is kept for the next
    /// request unless the response says `Connection: close`; a server that
    /// closes it without saying so fails the next request.
    pub fn post(
        &mut self,
        path: &str,
        headers: &[(String, String)],
        body: &[u8],
    ) -> io::Result<Response> {
        let mut head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let conn = self.connection()?;
        let stream = conn.get_mut();
        stream.write_all(head.as_bytes())?;
        stream.write_all(body)?;
        stream.flush()?;
        let response = read_response(conn);
        match &response {
            Ok(r) if !r.closes() => {}
            _ => self.conn = None,
        }
        response
    }

    fn connection(&mut self) -> io::Result<&mut BufReader<TcpStream>> {
        if self.conn.is_none() {
            let stream = TcpStream::connect_timeout(&self.addr, self.timeout)?;
            stream.set_read_timeout(Some(self.timeout))?;
            stream.set_write_timeout(Some(self.timeout))?;
            stream.set_nodelay(true)?;
            self.connections += 1;
            self.conn = Some(BufReader::new(stream));
        }
        Ok(self.conn.as_mut().expect("connected above"))
    }
}

fn bad(why: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.into())
}

/// One CRLF-terminated line, without the CRLF.
fn read_line(r: &mut impl BufRead) -> io::Result<String> {
    let mut line = Vec::new();
    r.by_ref()
        .take(MAX_BYTES as u64)
        .read_until(b'\n', &mut line)?;
    if line.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the server closed the connection",
        ));
    }
    if !line.ends_with(b"\r\n") {
        return Err(bad(format!(
            "a line not ended by CRLF: {:?}",
            String::from_utf8_lossy(&line)
        )));
    }
    line.truncate(line.len() - 2);
    String::from_utf8(line).map_err(|e| bad(format!("a non-UTF-8 line: {e}")))
}

fn read_response(r: &mut impl BufRead) -> io::Result<Response> {
    loop {
        let status_line = read_line(r)?;
        let mut parts = status_line.splitn(3, ' ');
        if parts.next() != Some("HTTP/1.1") {
            return Err(bad(format!("not an HTTP/1.1 status line: {status_line:?}")));
        }
        let status: u16 = parts
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(format!("no status code: {status_line:?}")))?;
        let mut headers = Vec::new();
        loop {
            let line = read_line(r)?;
            if line.is_empty() {
                break;
            }
            let (name, value) = line
                .split_once(':')
                .ok_or_else(|| bad(format!("a header line without a colon: {line:?}")))?;
            headers.push((name.to_ascii_lowercase(), String::from(value.trim())));
        }
        // An interim response (RFC 9110 § 15.2): the real one follows.
        if (100..200).contains(&status) {
            continue;
        }
        let mut response = Response {
            status,
            headers,
            body: Vec::new(),
            chunked: false,
        };
        let chunked = response
            .header("transfer-encoding")
            .map(|te| te.eq_ignore_ascii_case("chunked"));
        let length = response.header("content-length").map(str::to_owned);
        match (chunked, length) {
            (Some(true), None) => {
                response.chunked = true;
                response.body = read_chunked(r)?;
            }
            (None, Some(n)) => {
                let n: usize = n
                    .parse()
                    .map_err(|_| bad(format!("Content-Length {n:?}")))?;
                if n > MAX_BYTES {
                    return Err(bad(format!("a body of {n} bytes")));
                }
                response.body = vec![0; n];
                r.read_exact(&mut response.body)?;
            }
            (c, l) => {
                return Err(bad(format!(
                    "a response must be framed by exactly one of Content-Length ({l:?}) and chunked ({c:?})"
                )))
            }
        }
        return Ok(response);
    }
}

/// A chunked body (RFC 9112 § 7.1), trailers discarded.
fn read_chunked(r: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line = read_line(r)?;
        let size = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| bad(format!("a chunk size line {line:?}")))?;
        if size == 0 {
            while !read_line(r)?.is_empty() {}
            return Ok(body);
        }
        if body.len() + size > MAX_BYTES {
            return Err(bad("a chunked body over the limit"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        r.read_exact(&mut body[start..])?;
        if !read_line(r)?.is_empty() {
            return Err(bad("chunk data longer than its size"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> io::Result<Response> {
        read_response(&mut BufReader::new(raw.as_bytes()))
    }

    #[test]
    fn content_length_body() {
        let r = parse(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
        )
        .unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.body, b"{}");
        assert!(!r.chunked);
    }

    #[test]
    fn chunked_body_after_an_interim_response() {
        let r = parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n1\r\nd\r\n0\r\nTrailer: t\r\n\r\n").unwrap();
        assert_eq!(r.body, b"abcd");
        assert!(r.chunked);
    }

    #[test]
    fn misframed_responses_are_refused() {
        assert!(parse("HTTP/1.1 200 OK\r\n\r\n").is_err(), "unframed");
        assert!(
            parse("HTTP/1.1 200 OK\nContent-Length: 0\n\n").is_err(),
            "bare LF"
        );
        assert!(
            parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabc").is_err(),
            "short"
        );
        assert!(parse(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n"
        )
        .is_err());
        assert!(parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").is_err());
    }
}
