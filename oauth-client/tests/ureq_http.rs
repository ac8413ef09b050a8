//! `UreqHttp` against a loopback server that answers with raw HTTP bytes
//! written here: every status is a response (never an error), redirects
//! are not followed, repeated headers are all kept, bodies are capped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::thread;

use snodo_oauth_client::{HttpClient, HttpProxy, HttpRequest, Method, UreqHttp, MAX_BODY};

/// Serves one connection: reads the request head (and a body of the
/// announced length), returns it, answers `response`.
fn serve_once(response: Vec<u8>) -> (String, thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut head = String::new();
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            head.push_str(&line);
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        head.push_str(&String::from_utf8(body).unwrap());
        let mut stream = stream;
        stream.write_all(&response).unwrap();
        head
    });
    (url, handle)
}

#[test]
fn a_redirect_is_returned_not_followed_with_every_cookie() {
    let (url, server) = serve_once(
        b"HTTP/1.1 302 Found\r\nLocation: /interaction/1\r\nSet-Cookie: a=1; path=/\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
    );
    let http = UreqHttp::default();
    let response = http
        .send(&HttpRequest {
            method: Method::Get,
            url: format!("{url}/authorize?x=1"),
            headers: vec![("Cookie".into(), "s=0".into())],
            body: vec![],
        })
        .unwrap();
    assert_eq!(response.status, 302);
    assert_eq!(response.header("location"), Some("/interaction/1"));
    let cookies: Vec<&str> = response
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("set-cookie"))
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(cookies, ["a=1; path=/", "b=2"]);
    let head = server.join().unwrap();
    assert!(
        head.starts_with("GET /authorize?x=1 HTTP/1.1\r\n"),
        "{head}"
    );
    assert!(
        head.to_ascii_lowercase().contains("\r\ncookie: s=0\r\n"),
        "{head}"
    );
}

#[test]
fn an_error_status_is_a_response_with_its_body() {
    let body = r#"{"error":"invalid_client_metadata"}"#;
    let (url, server) = serve_once(
        format!(
            "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    );
    let response = UreqHttp::default()
        .send(&HttpRequest {
            method: Method::Post,
            url: format!("{url}/register"),
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: br#"{"client_name":"x"}"#.to_vec(),
        })
        .unwrap();
    assert_eq!(response.status, 400);
    assert_eq!(response.body, body.as_bytes());
    let head = server.join().unwrap();
    assert!(head.starts_with("POST /register HTTP/1.1\r\n"));
    assert!(head.ends_with("\r\n\r\n{\"client_name\":\"x\"}"));
}

#[test]
fn a_body_past_the_cap_is_cut() {
    let size = MAX_BODY as usize + 1000;
    let mut response =
        format!("HTTP/1.1 200 OK\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n")
            .into_bytes();
    response.extend(std::iter::repeat_n(b'x', size));
    let (url, server) = serve_once(response);
    let got = UreqHttp::default()
        .send(&HttpRequest::get_json(&url))
        .unwrap();
    assert_eq!(got.body.len() as u64, MAX_BODY);
    server.join().unwrap();
}

#[test]
fn no_server_is_an_error() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    assert!(UreqHttp::default()
        .send(&HttpRequest::get_json(&format!("http://127.0.0.1:{port}/")))
        .is_err());
}

/// A proxy that reads one request head and answers `response`: what it
/// read (the request to a forwarding proxy, or the `CONNECT`).
fn proxy_once(response: &'static [u8]) -> (u16, thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut head = String::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            head.push_str(&line);
            if line == "\r\n" || line.is_empty() {
                break;
            }
        }
        stream.write_all(response).unwrap();
        head
    });
    (port, handle)
}

fn through(port: u16) -> UreqHttp {
    UreqHttp::new(std::time::Duration::from_secs(5)).with_proxy(move |url: &str| {
        // The authorization server at as.example goes through the proxy;
        // nothing else does.
        url.contains("://as.example").then(|| HttpProxy {
            host: String::from("127.0.0.1"),
            port,
            credentials: Some((String::from("user"), String::from("p@ss"))),
        })
    })
}

#[test]
fn an_http_url_goes_to_the_proxy_in_absolute_form_with_its_credentials() {
    let (port, proxy) = proxy_once(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    );
    let response = through(port)
        .send(&HttpRequest::get_json(
            "http://as.example:8080/.well-known/oauth-authorization-server?x=1",
        ))
        .unwrap();
    assert_eq!((response.status, &response.body[..]), (200, &b"{}"[..]));
    let head = proxy.join().unwrap();
    assert!(
        head.starts_with(
            "GET http://as.example:8080/.well-known/oauth-authorization-server?x=1 HTTP/1.1\r\n"
        ),
        "{head}"
    );
    // base64("user:p@ss").
    assert!(
        head.contains("\r\nProxy-Authorization: Basic dXNlcjpwQHNz\r\n"),
        "{head}"
    );
}

#[test]
fn an_https_url_goes_through_connect_and_a_407_is_an_error() {
    let (port, proxy) = proxy_once(
        b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\nContent-Length: 0\r\n\r\n",
    );
    let outcome = through(port).send(&HttpRequest::get_json("https://as.example/token"));
    assert!(outcome.is_err(), "{outcome:?}");
    let head = proxy.join().unwrap();
    assert!(
        head.starts_with("CONNECT as.example:443 HTTP/1.1\r\n"),
        "{head}"
    );
    // ureq writes the scheme in lower case (RFC 9110 § 11.1: it is
    // case-insensitive).
    assert!(
        head.to_ascii_lowercase()
            .contains("\r\nproxy-authorization: basic dxnlcjpwqhnz\r\n"),
        "{head}"
    );
}

#[test]
fn a_url_the_selector_leaves_out_goes_direct() {
    let (url, server) = serve_once(
        b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
    );
    // No proxy listens at port 9: a request sent there would fail.
    let response = through(9)
        .send(&HttpRequest::get_json(&format!("{url}/direct")))
        .unwrap();
    assert_eq!(response.status, 204);
    let head = server.join().unwrap();
    assert!(head.starts_with("GET /direct HTTP/1.1\r\n"), "{head}");
    assert!(!head.contains("Proxy-Authorization"), "{head}");
}
