//! The change bus over PostgreSQL `LISTEN/NOTIFY`: an event published on
//! replica A's hub reaches a listen stream held on replica B, as the
//! notification the stream asked for, within a bounded delay; every event
//! arrives while the connections are up and none echoes back; and after
//! B's listening session is killed by the server, B listens again, tells
//! its list streams to re-list, and hears A again. Runs when
//! `SNODO_TEST_POSTGRES` names a database.
#![cfg(feature = "postgres")]

use std::time::{Duration, Instant};

use serde_json::Value;
use snodo_proto::{
    CallToolResult, ChangeEvent, Connection, Hub, Implementation, NoArgs, Notifications, Output,
    Resource, Service, Tool, Transport,
};
use snodo_tasks_sql::PgBus;

/// Most a published event may take to reach another replica's stream.
const BOUND: Duration = Duration::from_secs(2);

const LISTEN: &str = r#"{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///watched"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const ACK: &str = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///watched"]}}}"#;
const TOOLS: &str = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}"#;
const WATCHED: &str = r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///watched","_meta":{"io.modelcontextprotocol/subscriptionId":7}}}"#;

fn database() -> Option<String> {
    let url = std::env::var("SNODO_TEST_POSTGRES").ok();
    if url.is_none() {
        println!("skipped: SNODO_TEST_POSTGRES not set");
    }
    url
}

fn channel(tag: &str) -> String {
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("snodo_test_{tag}_{}_{n}", std::process::id())
}

/// Replica B: a service on `hub` and one stdio connection with a listen
/// stream open.
struct Stream {
    conn: Connection,
    _service: Service,
}

impl Stream {
    fn open(hub: &Hub) -> Stream {
        let service = Service::builder()
            .server_info(Implementation::new("b", "1"))
            .notifications(
                Notifications::default()
                    .tools_list_changed()
                    .resource_updates(),
            )
            .hub(hub.clone())
            .tool(
                Tool::new("t", "A tool, so tool list changes exist"),
                |_: NoArgs| async { CallToolResult::text("t") },
            )
            .resource_declared(Resource::new("file:///watched", "watched"))
            .build()
            .expect("builds");
        let now = snodo_proto::Instant::from_millis(0);
        let mut conn = Connection::new(&service, Transport::Stdio, now);
        conn.handle_input(format!("{LISTEN}\n").as_bytes(), now);
        let mut s = Stream {
            conn,
            _service: service,
        };
        assert_eq!(s.take(), vec![json(ACK)]);
        s
    }

    /// Every message the connection wrote since last asked.
    fn take(&mut self) -> Vec<Value> {
        let now = snodo_proto::Instant::from_millis(0);
        self.conn.handle_changes(now);
        let mut out = Vec::new();
        while let Some(o) = self.conn.poll_output() {
            if let Output::Transmit(b) = o {
                out.extend_from_slice(&b);
            }
        }
        String::from_utf8(out)
            .expect("UTF-8")
            .lines()
            .map(json)
            .collect()
    }

    /// The messages that arrive within `bound`, once `want` of them came.
    fn wait_for(&mut self, want: usize, bound: Duration) -> (Vec<Value>, Duration) {
        let start = Instant::now();
        let mut got = Vec::new();
        while got.len() < want && start.elapsed() < bound {
            got.extend(self.take());
            std::thread::sleep(Duration::from_millis(2));
        }
        (got, start.elapsed())
    }
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("JSON")
}

#[test]
fn an_event_published_on_a_reaches_a_listen_stream_on_b_once() {
    let Some(url) = database() else { return };
    let ch = channel("reach");
    let (hub_a, hub_b) = (Hub::default(), Hub::default());
    let a = PgBus::start_on(&url, &ch, &hub_a).expect("A joins");
    let b = PgBus::start_on(&url, &ch, &hub_b).expect("B joins");
    let mut stream = Stream::open(&hub_b);

    hub_a.publish(ChangeEvent::ToolsListChanged);
    let (got, took) = stream.wait_for(1, BOUND);
    assert_eq!(got, vec![json(TOOLS)], "within {BOUND:?}");
    println!("A to B's stream in {took:?}");

    // Many events in a row: all arrive (the stream coalesces repeats, so
    // count at the bus), and none comes back to A.
    for n in 0..200 {
        hub_a.publish(ChangeEvent::ResourceUpdated {
            uri: format!("file:///other/{n}"),
        });
    }
    hub_a.publish(ChangeEvent::ResourceUpdated {
        uri: String::from("file:///watched"),
    });
    let (got, _) = stream.wait_for(1, BOUND);
    assert_eq!(got, vec![json(WATCHED)], "only what the stream asked for");
    let start = Instant::now();
    while b.stats().received < 202 && start.elapsed() < BOUND {
        std::thread::sleep(Duration::from_millis(5));
    }
    let (sa, sb) = (a.stats(), b.stats());
    assert_eq!((sa.sent, sa.dropped, sa.oversize), (202, 0, 0), "{sa:?}");
    assert_eq!(sb.received, 202, "{sb:?}");
    assert_eq!(sa.received, 0, "A's own events do not come back: {sa:?}");
    // B's own publish reaches B's stream directly, once.
    hub_b.publish(ChangeEvent::ToolsListChanged);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(stream.take(), vec![json(TOOLS)]);
}

#[test]
fn b_listens_again_after_the_server_kills_its_session() {
    let Some(url) = database() else { return };
    let ch = channel("again");
    let (hub_a, hub_b) = (Hub::default(), Hub::default());
    let _a = PgBus::start_on(&url, &ch, &hub_a).expect("A joins");
    let b = PgBus::start_on(&url, &ch, &hub_b).expect("B joins");
    let mut stream = Stream::open(&hub_b);

    // The server ends B's listening session (as a restart or a failover
    // would).
    kill_sessions(&url, &format!("snodo-bus:listen:{}", b.id()));
    let start = Instant::now();
    while b.stats().reconnects < 1 && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let stats = b.stats();
    assert_eq!((stats.reconnects, stats.listening), (1, true), "{stats:?}");
    // Listening again, B tells its list streams to re-list (what it missed
    // meanwhile cannot be replayed)...
    let (got, _) = stream.wait_for(1, BOUND);
    assert_eq!(got, vec![json(TOOLS)]);
    // ...and hears A again.
    hub_a.publish(ChangeEvent::ResourceUpdated {
        uri: String::from("file:///watched"),
    });
    let (got, _) = stream.wait_for(1, BOUND);
    assert_eq!(got, vec![json(WATCHED)]);
}

#[test]
fn a_bad_channel_or_an_unreachable_database_is_refused_at_start() {
    let hub = Hub::default();
    for bad in ["", "Changes", "a;b", "a\"b"] {
        assert!(PgBus::start_on("postgres://nobody@127.0.0.1:1/none", bad, &hub).is_err());
    }
    let start = Instant::now();
    let e = PgBus::start_on("postgres://nobody@127.0.0.1:1/none", "snodo_changes", &hub)
        .expect_err("nothing listens there");
    assert!(e.to_string().contains("cannot connect"), "{e}");
    assert!(start.elapsed() < Duration::from_secs(5));
    // The refused bus left no tap: publishing still works, locally.
    hub.publish(ChangeEvent::ToolsListChanged);
    // Refused inside an async context, it returns (its runtime stops
    // without waiting) rather than panicking.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let refused = rt.block_on(async {
        PgBus::start_on("postgres://nobody@127.0.0.1:1/none", "snodo_changes", &hub).map(drop)
    });
    assert!(refused.is_err());
}

/// Terminate the sessions named `application_name`.
fn kill_sessions(url: &str, application_name: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .expect("connects");
        let conn = tokio::spawn(conn);
        let killed = client
            .query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
                &[&application_name],
            )
            .await
            .expect("terminates");
        assert_eq!(killed.len(), 1, "one listening session");
        drop(client);
        let _ = conn.await;
    });
}
