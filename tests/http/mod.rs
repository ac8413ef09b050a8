//! The Streamable HTTP transport (`basic/transports/streamable-http.mdx`):
//! a real server process listening on loopback, each message POSTed to its
//! `/mcp` endpoint with the headers a conforming client derives from the
//! body ([`mirror`]), and the JSON or SSE answer read back as the list of
//! messages it carries.

pub mod client;
pub mod mirror;
pub mod sse;

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde_json::Value;

use crate::process::DEFAULT_TIMEOUT;
use crate::transport::{check_message, Transport, Wire};
use client::{Client, Response};

/// The MCP endpoint path of the fixture (the `Service` default).
pub const ENDPOINT: &str = "/mcp";

/// A running server process serving Streamable HTTP.
pub struct HttpProcess {
    child: Child,
    addr: SocketAddr,
    client: Client,
    label: String,
    /// stdout lines after the first (the bound address): there should be
    /// none.
    stdout: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    readers: Vec<JoinHandle<()>>,
    status: Option<u16>,
}

impl HttpProcess {
    /// Start `program` with `args` (which must make it listen on a port
    /// and print the bound address as its first stdout line) and connect
    /// to that address.
    pub fn spawn(program: &Path, args: &[&str]) -> HttpProcess {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr_pipe = child.stderr.take().expect("piped stderr");

        let (first_tx, first_rx) = mpsc::channel();
        let rest = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&rest);
        let out_reader = std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let _ = first_tx.send(lines.next());
            for line in lines.map_while(Result::ok) {
                log.lock().unwrap_or_else(|e| e.into_inner()).push(line);
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let err_log = Arc::clone(&stderr);
        let err_reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr_pipe.read(&mut buf) {
                if n == 0 {
                    return;
                }
                err_log
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend_from_slice(&buf[..n]);
            }
        });
        let label = format!("HTTP subprocess ({})", args.join(" "));
        let first = first_rx.recv_timeout(DEFAULT_TIMEOUT);
        let addr = match first {
            Ok(Some(Ok(ref line))) => line.trim().parse::<SocketAddr>().ok(),
            _ => None,
        };
        let Some(addr) = addr else {
            let _ = child.kill();
            let _ = child.wait();
            let _ = out_reader.join();
            let _ = err_reader.join();
            panic!(
                "{label}: no bound address on the first stdout line ({first:?})\n--- stderr ---\n{}",
                String::from_utf8_lossy(&stderr.lock().unwrap_or_else(|e| e.into_inner()))
            );
        };
        HttpProcess {
            child,
            addr,
            client: Client::new(addr, DEFAULT_TIMEOUT),
            label,
            stdout: rest,
            stderr,
            readers: vec![out_reader, err_reader],
            status: None,
        }
    }

    /// The address the server announced.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// TCP connections opened so far.
    pub fn connections(&self) -> usize {
        self.client.connections
    }

    /// POST `body` with exactly `headers` plus the standard ones of every
    /// request (`Content-Type`, `Accept`: `§ Sending Messages`) and return
    /// the raw response.
    pub fn post_raw(&mut self, headers: &[(String, String)], body: &str) -> Response {
        let mut all = vec![
            (
                String::from("Content-Type"),
                String::from("application/json"),
            ),
            (
                String::from("Accept"),
                String::from("application/json, text/event-stream"),
            ),
        ];
        all.extend_from_slice(headers);
        match self.client.post(ENDPOINT, &all, body.as_bytes()) {
            Ok(r) => r,
            Err(e) => panic!(
                "{}: POST failed: {e}\n  body: {body}{}",
                self.label,
                self.stderr_note()
            ),
        }
    }

    /// POST one message with the headers derived from it; return the status
    /// and the messages of the answer, each checked for JSON-RPC shape.
    pub fn post(&mut self, body: &str) -> (u16, Vec<Value>) {
        let response = self.post_raw(&mirror::headers(body), body);
        let messages = self.messages(&response);
        (response.status, messages)
    }

    /// The messages a response carries: none for 202, one JSON object for
    /// `application/json`, the events' data for `text/event-stream`
    /// (notifications, then the one final response). Anything else fails
    /// the test.
    fn messages(&self, r: &Response) -> Vec<Value> {
        if r.status == 202 {
            if !r.body.is_empty() {
                self.fail(r, "202 Accepted carries no body");
            }
            return Vec::new();
        }
        let Ok(body) = std::str::from_utf8(&r.body) else {
            self.fail(r, "the body is not UTF-8");
        };
        let media = r.header("content-type").map(|ct| {
            ct.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
        match media.as_deref() {
            Some("application/json") => match check_message(body) {
                Ok(v) => vec![v],
                Err(e) => self.fail(r, &format!("not one JSON-RPC message: {e}")),
            },
            Some("text/event-stream") => {
                if r.status != 200 {
                    self.fail(r, "an SSE stream is a 200 response");
                }
                // `streamable-http.mdx` § SSE responses: no caching, no
                // proxy buffering.
                if r.header("cache-control") != Some("no-cache")
                    || r.header("x-accel-buffering") != Some("no")
                {
                    self.fail(
                        r,
                        "an SSE response says Cache-Control: no-cache and X-Accel-Buffering: no",
                    );
                }
                let messages: Vec<Value> = sse::events(body)
                    .iter()
                    .map(|d| {
                        check_message(d)
                            .unwrap_or_else(|e| self.fail(r, &format!("an SSE event: {e}")))
                    })
                    .collect();
                let finals = messages
                    .iter()
                    .filter(|m| m.get("method").is_none())
                    .count();
                // § Receiving Messages: notifications relate to the request
                // and precede the final response, which ends the stream.
                if finals != 1 || messages.last().is_some_and(|m| m.get("method").is_some()) {
                    self.fail(
                        r,
                        "an SSE stream ends with its one response, after any notifications",
                    );
                }
                messages
            }
            _ => self.fail(
                r,
                "not an MCP answer: Content-Type is neither application/json nor text/event-stream",
            ),
        }
    }

    fn fail(&self, r: &Response, why: &str) -> ! {
        panic!(
            "{}: {why}\n  status {}, headers {:?}\n  body: {}{}",
            self.label,
            r.status,
            r.headers,
            String::from_utf8_lossy(&r.body),
            self.stderr_note()
        )
    }

    /// What the server wrote on stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }

    fn stderr_note(&self) -> String {
        let s = self.stderr();
        if s.is_empty() {
            return String::new();
        }
        let tail: String = s
            .chars()
            .rev()
            .take(2000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("\n--- server stderr (tail) ---\n{tail}")
    }

    /// Check that the server is still running, wrote nothing on stdout but
    /// its address and reported no panic, then stop it.
    pub fn finish(mut self) {
        match self.child.try_wait() {
            Ok(None) => {}
            other => panic!(
                "{}: the server exited: {other:?}{}",
                self.label,
                self.stderr_note()
            ),
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
        let rest = self
            .stdout
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        assert!(
            rest.is_empty(),
            "{}: stdout carries the address line only, then also: {rest:?}",
            self.label
        );
        let stderr = self.stderr();
        assert!(
            !stderr.contains("panicked"),
            "{}: the server panicked:\n{stderr}",
            self.label
        );
    }
}

impl Transport for HttpProcess {
    fn exchange(&mut self, request: &str, _responses: usize) -> Vec<Value> {
        // The response's framing says when it is complete: no waiting.
        let (status, messages) = self.post(request);
        self.status = Some(status);
        messages
    }

    fn name(&self) -> String {
        self.label.clone()
    }

    fn wire(&self) -> Wire {
        Wire::Http
    }

    fn last_status(&self) -> Option<u16> {
        self.status
    }
}

impl Drop for HttpProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
    }
}
