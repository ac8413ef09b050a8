//! A change bus over PostgreSQL `LISTEN/NOTIFY`: every replica's [`Hub`]
//! hears the [`ChangeEvent`]s published on every other replica (task
//! status, list changes, resource updates), so a listen stream held by
//! replica B hears a task finished by replica A
//! (`basic/patterns/subscriptions.mdx`; `tasks.md` § Task Status
//! Notifications).
//!
//! [`PgBus::start`] taps the hub ([`Hub::set_tap`]): each event published
//! on this replica is delivered here as before, and also sent with
//! `pg_notify(channel, payload)` on a connection of the bus's own. A
//! second connection `LISTEN`s on the channel and [delivers](Hub::deliver)
//! every other replica's events to the local hub (its own are skipped by
//! origin id; delivered events are not tapped, so nothing echoes). Both
//! connections live on a one-thread tokio runtime the bus owns, so it
//! serves applications on tokio, smol or plain threads alike.
//!
//! # What is delivered, and what may be missed
//!
//! While both connections are up no event is lost: PostgreSQL delivers
//! each notification to every listening session, in the order the
//! publishing replica sent them. Three cases lose events, each counted in
//! [`BusStats`]:
//!
//! - **A disconnect.** PostgreSQL keeps no notification for a session that
//!   is not listening. The bus reconnects with backoff (from
//!   [`RECONNECT_MIN`] to [`RECONNECT_MAX`]); events other replicas
//!   published meanwhile are gone, and events this replica published
//!   while its sending connection was down are dropped. After a
//!   reconnect the bus delivers `ToolsListChanged`, `PromptsListChanged`
//!   and `ResourcesListChanged` to its hub, so list streams re-list (a
//!   spurious list change only costs a re-list). A missed task status or
//!   resource update cannot be replayed from the bus: clients recover by
//!   polling (`tasks/get` reads the shared store, which is always
//!   current; `resources/read` likewise).
//! - **A full queue.** Events wait for the sending connection in a queue
//!   of [`QUEUE`]; beyond it, new events are dropped.
//! - **An event too large for a notification** (PostgreSQL's limit is
//!   8000 bytes; a completed task's full result can exceed it): not sent
//!   ([`MAX_PAYLOAD`]); a listener on another replica reads it with
//!   `tasks/get`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use snodo_proto::extension::ExtensionEvent;
use snodo_proto::{ChangeEvent, Hub};
use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, NoTls};

use crate::postgres::{plain, take_param};

/// The channel replicas share unless told otherwise.
pub const DEFAULT_CHANNEL: &str = "snodo_changes";

/// Events waiting for the sending connection, at most.
pub const QUEUE: usize = 4096;

/// The largest payload sent (PostgreSQL refuses 8000 bytes and more).
pub const MAX_PAYLOAD: usize = 7999;

/// The first wait before reconnecting; doubled after each failure.
pub const RECONNECT_MIN: Duration = Duration::from_millis(100);

/// The longest wait before reconnecting.
pub const RECONNECT_MAX: Duration = Duration::from_secs(5);

/// How long [`PgBus::start`] waits for the first `LISTEN`.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a bus did not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusError(pub String);

impl std::fmt::Display for BusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "change bus: {}", self.0)
    }
}

impl std::error::Error for BusError {}

/// What the bus did so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BusStats {
    /// Events sent to other replicas.
    pub sent: u64,
    /// Events received from other replicas and delivered to the hub.
    pub received: u64,
    /// Events not sent: queue full, or the sending connection down.
    pub dropped: u64,
    /// Events not sent because they exceed [`MAX_PAYLOAD`].
    pub oversize: u64,
    /// Times the listening connection was re-established.
    pub reconnects: u64,
    /// Whether the listening connection is up now.
    pub listening: bool,
}

#[derive(Default)]
struct Counters {
    sent: AtomicU64,
    received: AtomicU64,
    dropped: AtomicU64,
    oversize: AtomicU64,
    reconnects: AtomicU64,
    listening: AtomicBool,
}

fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// Carries a hub's events to and from the hubs of other replicas.
pub struct PgBus {
    origin: String,
    hub: Hub,
    counters: Arc<Counters>,
    _runtime: Quiet,
}

/// The bus's runtime, shut down without waiting when dropped, so a bus
/// (or a failed start) may be dropped anywhere, inside an async context
/// too.
struct Quiet(Option<tokio::runtime::Runtime>);

impl Drop for Quiet {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

impl std::fmt::Debug for PgBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgBus")
            .field("stats", &self.stats())
            .finish()
    }
}

impl PgBus {
    /// Join `hub` to the bus on the database at `url`, on the channel its
    /// `channel` query parameter names (`…/db?channel=app_changes`), else
    /// [`DEFAULT_CHANNEL`]. Every other parameter is PostgreSQL's own.
    pub fn start(url: &str, hub: &Hub) -> Result<PgBus, BusError> {
        let (url, channel) = take_param(url, "channel");
        Self::start_on(&url, channel.as_deref().unwrap_or(DEFAULT_CHANNEL), hub)
    }

    /// Join `hub` to the bus on `channel` (lowercase letters, digits and
    /// `_`) of the database at `url`. Returns once this replica listens,
    /// so every event published elsewhere from then on reaches `hub`.
    pub fn start_on(url: &str, channel: &str, hub: &Hub) -> Result<PgBus, BusError> {
        if !plain(channel) {
            return Err(BusError(format!(
                "channel {channel:?}: use lowercase letters, digits and _ (at most 63)"
            )));
        }
        let config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| BusError(format!("not a PostgreSQL URL: {e}")))?;
        let origin = snodo_tasks::TaskId::random()
            .map(|id| id.as_str().to_owned())
            .ok_or_else(|| BusError(String::from("no random source for the origin id")))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("snodo-bus-pg")
            .enable_all()
            .build()
            .map_err(|e| BusError(format!("cannot start the bus thread: {e}")))?;
        let counters = Arc::new(Counters::default());
        // Named, so an operator (or a test) can tell the bus's sessions
        // apart in pg_stat_activity.
        let mut listen_config = config.clone();
        listen_config.application_name(format!("snodo-bus:listen:{origin}"));
        let mut send_config = config;
        send_config.application_name(format!("snodo-bus:send:{origin}"));
        let (send, queue) = mpsc::channel::<String>(QUEUE);
        let (ready, listening) = std::sync::mpsc::channel();
        runtime.spawn(listen(
            listen_config,
            channel.to_owned(),
            origin.clone(),
            hub.clone(),
            counters.clone(),
            ready,
        ));
        runtime.spawn(publish(
            send_config,
            channel.to_owned(),
            queue,
            counters.clone(),
        ));
        // From here on a failure drops the runtime without waiting.
        let runtime = Quiet(Some(runtime));
        listening
            .recv_timeout(START_TIMEOUT)
            .map_err(|_| BusError(String::from("could not LISTEN within 10 s")))?
            .map_err(BusError)?;
        let tapped = counters.clone();
        let from = origin.clone();
        hub.set_tap(Some(Arc::new(move |event: &ChangeEvent| {
            let payload = encode(&from, event);
            if payload.len() > MAX_PAYLOAD {
                bump(&tapped.oversize);
                tracing::warn!(bytes = payload.len(), "change event too large for the bus");
            } else if send.try_send(payload).is_err() {
                bump(&tapped.dropped);
            }
        })));
        Ok(PgBus {
            origin,
            hub: hub.clone(),
            counters,
            _runtime: runtime,
        })
    }

    /// This replica's id on the bus: the origin its events carry, and the
    /// end of its sessions' `application_name`s (`snodo-bus:listen:ID`,
    /// `snodo-bus:send:ID`).
    pub fn id(&self) -> &str {
        &self.origin
    }

    /// The counters.
    pub fn stats(&self) -> BusStats {
        let c = &self.counters;
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        BusStats {
            sent: n(&c.sent),
            received: n(&c.received),
            dropped: n(&c.dropped),
            oversize: n(&c.oversize),
            reconnects: n(&c.reconnects),
            listening: c.listening.load(Ordering::Relaxed),
        }
    }
}

impl Drop for PgBus {
    /// Untaps the hub (a bus is only built once its tap is set); the
    /// runtime then stops without waiting.
    fn drop(&mut self) {
        self.hub.set_tap(None);
    }
}

fn backoff(wait: Duration) -> Duration {
    (wait * 2).min(RECONNECT_MAX)
}

/// Keep a connection listening on `channel`, delivering other replicas'
/// events to `hub`; report the first `LISTEN` (or its failure) on `ready`.
async fn listen(
    config: tokio_postgres::Config,
    channel: String,
    origin: String,
    hub: Hub,
    counters: Arc<Counters>,
    ready: std::sync::mpsc::Sender<Result<(), String>>,
) {
    let mut ready = Some(ready);
    let mut wait = RECONNECT_MIN;
    loop {
        match config.connect(NoTls).await {
            Ok((client, mut connection)) => {
                let (notes, mut incoming) = mpsc::unbounded_channel();
                // The connection is driven here; it ends when the server
                // or the network closes it, and the loop below sees that.
                tokio::spawn(async move {
                    while let Some(m) = std::future::poll_fn(|cx| connection.poll_message(cx)).await
                    {
                        match m {
                            Ok(AsyncMessage::Notification(n)) => {
                                if notes.send(n.payload().to_owned()).is_err() {
                                    return;
                                }
                            }
                            Ok(_) => {}
                            Err(e) => {
                                tracing::warn!(error = %e, "change bus connection lost");
                                return;
                            }
                        }
                    }
                });
                match client.batch_execute(&format!("LISTEN \"{channel}\"")).await {
                    Ok(()) => {
                        counters.listening.store(true, Ordering::Relaxed);
                        wait = RECONNECT_MIN;
                        match ready.take() {
                            Some(r) => {
                                let _ = r.send(Ok(()));
                            }
                            None => {
                                bump(&counters.reconnects);
                                tracing::info!(channel = %channel, "change bus listening again");
                                // What was missed cannot be replayed: tell
                                // list streams to re-list.
                                for e in [
                                    ChangeEvent::ToolsListChanged,
                                    ChangeEvent::PromptsListChanged,
                                    ChangeEvent::ResourcesListChanged,
                                ] {
                                    hub.deliver(e);
                                }
                            }
                        }
                        while let Some(payload) = incoming.recv().await {
                            match decode(&payload) {
                                Some((from, _)) if from == origin => {}
                                Some((_, event)) => {
                                    bump(&counters.received);
                                    hub.deliver(event);
                                }
                                None => {
                                    tracing::warn!("a change bus message this build does not read")
                                }
                            }
                        }
                        counters.listening.store(false, Ordering::Relaxed);
                        drop(client);
                    }
                    Err(e) => {
                        if let Some(r) = ready.take() {
                            let _ = r.send(Err(format!("cannot LISTEN: {e}")));
                            return;
                        }
                        tracing::warn!(error = %e, "change bus cannot LISTEN");
                    }
                }
            }
            Err(e) => {
                if let Some(r) = ready.take() {
                    let _ = r.send(Err(format!("cannot connect: {e}")));
                    return;
                }
                tracing::warn!(error = %e, "change bus cannot reconnect");
            }
        }
        tokio::time::sleep(wait).await;
        wait = backoff(wait);
    }
}

/// Send queued events with `pg_notify`, reconnecting as needed; an event
/// whose send failed is dropped (counted).
async fn publish(
    config: tokio_postgres::Config,
    channel: String,
    mut queue: mpsc::Receiver<String>,
    counters: Arc<Counters>,
) {
    let mut wait = RECONNECT_MIN;
    loop {
        let (client, connection) = match config.connect(NoTls).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "change bus cannot connect to send");
                // Events that would wait meanwhile are dropped, not kept
                // to be sent stale.
                while queue.try_recv().is_ok() {
                    bump(&counters.dropped);
                }
                tokio::time::sleep(wait).await;
                wait = backoff(wait);
                continue;
            }
        };
        let driven = tokio::spawn(connection);
        let notify = match client.prepare("SELECT pg_notify($1, $2)").await {
            Ok(n) => n,
            Err(e) => {
                tracing::warn!(error = %e, "change bus cannot prepare its send");
                driven.abort();
                tokio::time::sleep(wait).await;
                wait = backoff(wait);
                continue;
            }
        };
        wait = RECONNECT_MIN;
        while let Some(payload) = queue.recv().await {
            match client.execute(&notify, &[&channel, &payload]).await {
                Ok(_) => bump(&counters.sent),
                Err(e) => {
                    bump(&counters.dropped);
                    tracing::warn!(error = %e, "change bus send failed");
                    break;
                }
            }
        }
        if queue.is_closed() && queue.is_empty() {
            return;
        }
        driven.abort();
    }
}

/// The notification payload: the publishing replica and the event.
fn encode(origin: &str, event: &ChangeEvent) -> String {
    let e = match event {
        ChangeEvent::ToolsListChanged => json!({"kind": "tools"}),
        ChangeEvent::PromptsListChanged => json!({"kind": "prompts"}),
        ChangeEvent::ResourcesListChanged => json!({"kind": "resources"}),
        ChangeEvent::ResourceUpdated { uri } => json!({"kind": "updated", "uri": uri}),
        ChangeEvent::ElicitationComplete { elicitation_id } => {
            json!({"kind": "elicitation", "id": elicitation_id})
        }
        ChangeEvent::Extension(x) => json!({
            "kind": "extension",
            "extension": x.extension,
            "topic": x.topic,
            "scope": x.scope,
            "method": x.method,
            "params": x.params(),
        }),
    };
    json!({"v": 1, "origin": origin, "event": e}).to_string()
}

/// The origin and event of a payload; `None` if it is not one this build
/// writes.
fn decode(payload: &str) -> Option<(String, ChangeEvent)> {
    let v: Value = serde_json::from_str(payload).ok()?;
    if v["v"] != 1 {
        return None;
    }
    let origin = v["origin"].as_str()?.to_owned();
    let e = &v["event"];
    let text = |k: &str| e[k].as_str().map(String::from);
    let event = match e["kind"].as_str()? {
        "tools" => ChangeEvent::ToolsListChanged,
        "prompts" => ChangeEvent::PromptsListChanged,
        "resources" => ChangeEvent::ResourcesListChanged,
        "updated" => ChangeEvent::ResourceUpdated { uri: text("uri")? },
        "elicitation" => ChangeEvent::ElicitationComplete {
            elicitation_id: text("id")?,
        },
        "extension" => {
            let params: &Map<String, Value> = e["params"].as_object()?;
            ChangeEvent::Extension(ExtensionEvent::new(
                text("extension")?,
                text("topic")?,
                text("scope"),
                text("method")?,
                params,
            ))
        }
        _ => return None,
    };
    Some((origin, event))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_survives_the_payload_and_strangers_are_refused() {
        let params = json!({"taskId": "t", "status": "completed", "n": 1.5})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let events = [
            ChangeEvent::ToolsListChanged,
            ChangeEvent::PromptsListChanged,
            ChangeEvent::ResourcesListChanged,
            ChangeEvent::ResourceUpdated {
                uri: String::from("file:///a b"),
            },
            ChangeEvent::Extension(ExtensionEvent::new(
                "io.modelcontextprotocol/tasks",
                "t",
                Some(String::from("alice")),
                "notifications/tasks",
                &params,
            )),
            ChangeEvent::Extension(ExtensionEvent::new("x/y", "t", None, "m", &Map::new())),
            ChangeEvent::ElicitationComplete {
                elicitation_id: String::from("s-1"),
            },
        ];
        for e in events {
            let payload = encode("me", &e);
            assert_eq!(decode(&payload), Some((String::from("me"), e)), "{payload}");
        }
        for bad in [
            "",
            "{}",
            r#"{"v":2,"origin":"o","event":{"kind":"tools"}}"#,
            r#"{"v":1,"origin":"o","event":{"kind":"mystery"}}"#,
            r#"{"v":1,"origin":"o","event":{"kind":"updated"}}"#,
            r#"{"v":1,"event":{"kind":"tools"}}"#,
        ] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
