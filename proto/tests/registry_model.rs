//! A property test of the registry against a model: seeded sequences of
//! registry commits (batches of tool and prompt puts and removals), list
//! requests with and without the cursors earlier pages gave, and listen
//! streams opened and cancelled, on stdio and HTTP connections. Oracles:
//!
//! - every `tools/list` page is exactly the model's current list at the
//!   cursor's offset (so no page mixes two snapshots), and a cursor whose
//!   list has changed since it was issued is refused `-32602` "Invalid
//!   cursor" (`server/utilities/pagination.mdx` § Error Handling);
//! - every open stream that asked for a kind hears exactly one
//!   `list_changed` per committed change of that kind, and no other
//!   (`server/tools.mdx`, `server/prompts.mdx` § List Changed
//!   Notification).
//!
//! A failure names its seed; `REGISTRY_SEEDS=a..b` replaces the range.

mod support;

use serde_json::Value;
use snodo_proto::{Kinds, Limits, Notifications, Prompt, Service, Tool, Transport};
use std::collections::BTreeMap;
use support::Harness;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const PAGE: usize = 2;
const NAMES: &[&str] = &["a", "b", "x0", "x1", "x2", "x3", "x4"];
const PROMPTS: &[&str] = &["p0", "p1"];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

fn service() -> Service {
    Service::builder()
        .limits(Limits::default().page_size(PAGE).max_subscriptions(4))
        .changing(Kinds::default().tools().prompts())
        .notifications(
            Notifications::default()
                .tools_list_changed()
                .prompts_list_changed(),
        )
        .tool_declared(Tool::new("a", "a0"))
        .tool_declared(Tool::new("b", "b0"))
        .build()
        .unwrap()
}

/// The model of one list: names in order, with the registry's rules
/// (a put replaces in place or appends; a removal closes the gap).
#[derive(Clone, Debug, PartialEq)]
struct List(Vec<(String, String)>);

impl List {
    fn put(&mut self, name: &str, description: &str) {
        match self.0.iter_mut().find(|(n, _)| n == name) {
            Some(e) => e.1 = description.to_string(),
            None => self.0.push((name.to_string(), description.to_string())),
        }
    }
    fn remove(&mut self, name: &str) -> bool {
        let before = self.0.len();
        self.0.retain(|(n, _)| n != name);
        self.0.len() != before
    }
}

/// One connection under test.
struct Conn {
    h: Harness,
    http: bool,
    /// The open stream on this connection: id and (tools, prompts) wanted.
    streams: Vec<(u64, bool, bool)>,
    /// The last `nextCursor` and the list (and page) it was issued for.
    cursor: Option<(String, List, usize)>,
}

fn request(id: u64, method: &str, params: &str) -> String {
    let sep = if params.is_empty() { "" } else { "," };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{META}{sep}{params}}}}}"#)
}

fn http_post(body: &str, method: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// The JSON messages in what a connection wrote.
fn messages(out: &str, http: bool) -> Vec<Value> {
    if !http {
        return out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
    }
    let mut found = Vec::new();
    for line in out.lines() {
        if let Some(data) = line.strip_prefix("data: ") {
            found.push(serde_json::from_str(data).unwrap());
        }
    }
    if let Some((_, body)) = out.split_once("\r\n\r\n") {
        if body.starts_with('{') {
            found.push(serde_json::from_str(body).unwrap());
        }
    }
    found
}

fn run(seed: u64) {
    let service = service();
    let registry = service.registry();
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut conns: Vec<Conn> = [false, false, true, true]
        .into_iter()
        .map(|http| Conn {
            h: Harness::new(
                &service,
                if http {
                    Transport::Http
                } else {
                    Transport::Stdio
                },
            ),
            http,
            streams: Vec::new(),
            cursor: None,
        })
        .collect();
    let mut tools = List(vec![("a".into(), "a0".into()), ("b".into(), "b0".into())]);
    let mut prompts = List(Vec::new());
    // (connection, stream id, kind) -> notifications expected / heard.
    let mut expected: BTreeMap<(usize, u64, &str), usize> = BTreeMap::new();
    let mut heard: BTreeMap<(usize, u64, &str), usize> = BTreeMap::new();
    let mut version = 0u64;

    for id in 101..161u64 {
        match rng.below(10) {
            // Open a listen stream: stdio 0 and 1 (up to two), HTTP 2 (one).
            0 | 1 => {
                let c = rng.below(3);
                let conn = &mut conns[c];
                if conn.streams.len() >= if conn.http { 1 } else { 2 } {
                    continue;
                }
                let (t, p) = (rng.chance(2), rng.chance(2));
                let body = request(
                    id,
                    "subscriptions/listen",
                    &format!(
                        r#""notifications":{{"toolsListChanged":{t},"promptsListChanged":{p}}}"#
                    ),
                );
                let out = if conn.http {
                    conn.h
                        .send(http_post(&body, "subscriptions/listen").as_bytes())
                } else {
                    conn.h.send(format!("{body}\n").as_bytes())
                };
                let acks = messages(&out, conn.http);
                assert_eq!(acks.len(), 1, "one acknowledgement: {out}");
                assert_eq!(
                    acks[0]["method"], "notifications/subscriptions/acknowledged",
                    "{out}"
                );
                conn.streams.push((id, t, p));
            }
            // Cancel a stdio stream.
            2 => {
                let c = rng.below(2);
                let conn = &mut conns[c];
                if conn.streams.is_empty() {
                    continue;
                }
                let (sid, _, _) = conn.streams.remove(rng.below(conn.streams.len()));
                let out = conn.h.send(
                    (format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{sid}}}}}"#) + "\n")
                        .as_bytes(),
                );
                assert_eq!(out, "", "a cancelled stream gets no answer");
            }
            // Commit a batch.
            3..=5 => {
                let mut change = registry.change();
                let (mut tools_changed, mut prompts_changed) = (false, false);
                for _ in 0..1 + rng.below(3) {
                    if rng.chance(4) {
                        let name = PROMPTS[rng.below(PROMPTS.len())];
                        if rng.chance(2) {
                            change = change.prompt_declared(Prompt::new(name, "p"));
                            prompts.put(name, "p");
                            prompts_changed = true;
                        } else {
                            change = change.remove_prompt(name);
                            prompts_changed |= prompts.remove(name);
                        }
                    } else {
                        let name = NAMES[rng.below(NAMES.len())];
                        if rng.chance(3) {
                            change = change.remove_tool(name);
                            tools_changed |= tools.remove(name);
                        } else {
                            version += 1;
                            let description = format!("{name}{version}");
                            change = change.tool_declared(Tool::new(name, &description));
                            tools.put(name, &description);
                            tools_changed = true;
                        }
                    }
                }
                let committed = change.commit().unwrap();
                assert_eq!(
                    (committed.tools, committed.prompts),
                    (tools_changed, prompts_changed)
                );
                for (c, conn) in conns.iter().enumerate() {
                    for &(sid, t, p) in &conn.streams {
                        if tools_changed && t {
                            *expected.entry((c, sid, "tools")).or_default() += 1;
                        }
                        if prompts_changed && p {
                            *expected.entry((c, sid, "prompts")).or_default() += 1;
                        }
                    }
                }
            }
            // List tools on a stdio connection or the HTTP one without a stream.
            _ => {
                let c = *[0usize, 1, 3].get(rng.below(3)).unwrap();
                let conn = &mut conns[c];
                let cursor = conn.cursor.take().filter(|_| !rng.chance(4));
                let params = cursor
                    .as_ref()
                    .map_or(String::new(), |(c, _, _)| format!(r#""cursor":"{c}""#));
                let body = request(id, "tools/list", &params);
                let out = if conn.http {
                    conn.h.send(http_post(&body, "tools/list").as_bytes())
                } else {
                    conn.h.send(format!("{body}\n").as_bytes())
                };
                let answers = messages(&out, conn.http);
                assert_eq!(answers.len(), 1, "{out}");
                let answer = &answers[0];
                let (page, stale) = match &cursor {
                    None => (0, false),
                    Some((_, issued_for, page)) => (*page, issued_for != &tools),
                };
                if stale {
                    assert_eq!(
                        answer["error"]["code"], -32602,
                        "a cursor of a changed list: {answer}"
                    );
                    assert_eq!(answer["error"]["message"], "Invalid cursor");
                    continue;
                }
                let got: Vec<(String, String)> = answer["result"]["tools"]
                    .as_array()
                    .unwrap_or_else(|| panic!("a page: {answer}"))
                    .iter()
                    .map(|t| {
                        (
                            t["name"].as_str().unwrap().to_string(),
                            t["description"].as_str().unwrap().to_string(),
                        )
                    })
                    .collect();
                let start = page * PAGE;
                let want: Vec<_> = tools.0.iter().skip(start).take(PAGE).cloned().collect();
                assert_eq!(got, want, "page {page} of {:?}", tools.0);
                conn.cursor = answer["result"]["nextCursor"]
                    .as_str()
                    .map(|c| (c.to_string(), tools.clone(), page + 1));
                assert_eq!(
                    conn.cursor.is_some(),
                    start + PAGE < tools.0.len(),
                    "a cursor when and only when more follows"
                );
            }
        }
        // Every connection delivers what the hub queued for it.
        for (c, conn) in conns.iter_mut().enumerate() {
            conn.h.conn.handle_changes(conn.h.now);
            let out = conn.h.drain();
            for m in messages(&out, conn.http) {
                let method = m["method"].as_str().unwrap_or_else(|| panic!("{m}"));
                let kind = match method {
                    "notifications/tools/list_changed" => "tools",
                    "notifications/prompts/list_changed" => "prompts",
                    other => panic!("unexpected {other}: {m}"),
                };
                let sid = m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("a stream notification: {m}"));
                *heard.entry((c, sid, kind)).or_default() += 1;
            }
        }
        assert_eq!(heard, expected, "notifications per stream and kind");
    }
}

#[test]
fn registry_changes_keep_pages_whole_and_notify_each_stream_once() {
    let seeds = std::env::var("REGISTRY_SEEDS")
        .ok()
        .and_then(|r| {
            let (a, b) = r.split_once("..")?;
            Some(a.parse().ok()?..b.parse().ok()?)
        })
        .unwrap_or(0..300u64);
    for seed in seeds {
        let result = std::panic::catch_unwind(|| run(seed));
        if let Err(e) = result {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("seed {seed}: {why}");
        }
    }
}
