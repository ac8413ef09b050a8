//! The HTTP session store: sessions named by `Mcp-Session-Id`, shared by
//! every connection of a service (a client's requests, its answers to the
//! server's requests and its GET stream arrive on different TCP
//! connections), bounded in number and expiring when idle
//! (`mcp-2025-11-25/basic/transports.mdx` § Session Management).
//!
//! It also routes a client's answer to a server-to-client request to the
//! connection whose call is waiting for it: that connection registers an
//! [`Inbox`] under the request id, and the connection the answer arrives
//! on delivers into it and wakes it through a plain [`Waker`], like the
//! change hub.
//!
//! And it holds each session's GET stream: the claim of the one
//! connection serving it, the session's own hub listener (what is
//! published while no stream is open waits there), and what the stream
//! sent, for a client resuming it (`super::replay`; 2025-11-25
//! `basic/transports.mdx` § Resumability and Redelivery). Only the
//! current claim takes events, so a stream taken over by a resume writes
//! nothing more.
//!
//! And each POST stream of the session: a session call outlives its POST
//! connection (a disconnection is not a cancellation, § Sending Messages
//! to the Server 6), so what it writes after is recorded here, and a GET
//! with `Last-Event-ID` naming that stream resumes it: the replay, then
//! the call's later messages as the calling connection records them, up
//! to its answer. Whoever resumed last writes the stream; the calling
//! connection, learning of it at its next event, writes nothing more.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::String;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::task::{Context, Poll, Waker};
use core::time::Duration;
use serde_json::Value;
use std::sync::{Mutex, MutexGuard};

use super::replay::{EventId, Replay, StreamId};
use super::session::Session;
use crate::jsonrpc::RequestId;
use crate::subscriptions::hub::Listener;
use crate::subscriptions::{ChangeEvent, Hub};
use crate::time::Instant;

/// Counters the application can watch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionStats {
    /// Sessions open now.
    pub open: usize,
    /// Sessions created.
    pub created: u64,
    /// Sessions removed because they were idle too long.
    pub expired: u64,
    /// Sessions the client ended with DELETE.
    pub deleted: u64,
    /// `initialize` refused because the store was full.
    pub refused: u64,
}

struct Entry {
    session: Session,
    /// Server-to-client request id → the connection whose call waits for
    /// the answer.
    routes: BTreeMap<u64, Weak<Inbox>>,
    /// Client request id → the connection running that call, for
    /// `notifications/cancelled` arriving on another connection.
    calls: BTreeMap<RequestId, Weak<Inbox>>,
    /// The claim of the connection serving the GET stream, if one does.
    get_stream: Option<u64>,
    /// The last claim given out.
    claims: u64,
    /// The GET stream's next event number.
    get_next: u64,
    /// What the session's streams sent, for a client resuming one.
    replay: Replay,
    /// The session's POST streams by number, the oldest first.
    posts: BTreeMap<u64, PostStream>,
    /// The last POST stream number given out.
    post_streams: u64,
    /// The session's hub listener, from its first GET stream on: what is
    /// published while no stream is open waits in it (bounded by the hub)
    /// for the next, and only the holder of the claim takes from it.
    listener: Option<Listener>,
}

impl Entry {
    /// The session ends (DELETE, or idle expiry): each of its calls still
    /// running, on whichever connection, is to be cancelled. Nothing can
    /// receive their results any more (2025-11-25 `transports.mdx`
    /// § Session Management: requests naming an ended session get 404),
    /// and a call waiting for an answer would otherwise wait out its
    /// whole `call_timeout`. Its GET stream's connection is woken, to find
    /// the session gone and end the stream.
    fn end(self, ending: &mut Ending) {
        for (request, inbox) in self.calls {
            if let Some(inbox) = inbox.upgrade() {
                ending.cancels.push((inbox, request));
            }
        }
        if let Some(waker) = self.listener.as_ref().and_then(Listener::take_waker) {
            ending.streams.push(waker);
        }
        ending
            .streams
            .extend(self.posts.into_values().filter_map(|p| p.waker));
    }

    /// Room for one more POST stream: at most [`MAX_POST_STREAMS`] are
    /// kept, and the oldest one that is answered and not being resumed
    /// goes with its events. `false` when every kept one still runs.
    fn make_room_for_post_stream(&mut self) -> bool {
        if self.posts.len() < MAX_POST_STREAMS {
            return true;
        }
        let old = self
            .posts
            .iter()
            .find(|(_, p)| p.done && p.resumer.is_none())
            .map(|(k, _)| *k);
        match old {
            Some(k) => {
                self.posts.remove(&k);
                self.replay.forget(StreamId::Post(k));
                true
            }
            None => false,
        }
    }
}

/// POST streams a session keeps at most (running or answered): each
/// running one is a call of the session, and an answered one is kept only
/// so that a client cut off before its answer can still get it.
const MAX_POST_STREAMS: usize = 64;

/// One POST stream of a session.
#[derive(Default)]
struct PostStream {
    /// The next event's number.
    next: u64,
    /// The claim of the GET connection that resumed the stream and writes
    /// it now; while none has, the calling connection does.
    resumer: Option<u64>,
    /// The resumer's waker, woken when the call records an event.
    waker: Option<Waker>,
    /// The call's answer is recorded: nothing follows it.
    done: bool,
}

/// Where a call's event on its POST stream goes
/// ([`Sessions::record_post_event`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Recorded {
    /// The calling connection writes it, with this id.
    Here(EventId),
    /// A resume took the stream over: that connection writes it, and the
    /// calling connection writes nothing more.
    Resumed,
    /// The session or its stream is gone: written without an id.
    Unnumbered,
}

/// A POST stream resumed by a GET ([`Sessions::resume_post_stream`]).
pub(crate) struct ResumedStream {
    /// The resume's claim, named when it takes events and lets go.
    pub(crate) claim: u64,
    /// The stream's events after the client's `Last-Event-ID`.
    pub(crate) replay: Vec<(EventId, alloc::boxed::Box<[u8]>)>,
    /// The last event number the stream gave out.
    pub(crate) through: u64,
    /// The call's answer is among them: the stream ends after the replay.
    pub(crate) done: bool,
}

/// What a resumed POST stream's connection takes
/// ([`Sessions::take_post_events`]).
pub(crate) struct PostEvents {
    pub(crate) events: Vec<(EventId, alloc::boxed::Box<[u8]>)>,
    /// The last event number given out, kept or not.
    pub(crate) through: u64,
    /// The call's answer is in: the stream ends with these.
    pub(crate) done: bool,
}

/// What ended sessions leave to do, outside the store's lock (an inbox
/// has its own, and a waker may run at once).
#[derive(Default)]
struct Ending {
    cancels: Vec<(Arc<Inbox>, RequestId)>,
    streams: Vec<Waker>,
}

impl Ending {
    fn finish(self) {
        for (inbox, request) in self.cancels {
            inbox.push(Routed::Cancel { request });
        }
        for waker in self.streams {
            waker.wake();
        }
    }
}

#[derive(Default)]
struct State {
    map: BTreeMap<String, Entry>,
    stats: SessionStats,
}

struct Shared {
    state: Mutex<State>,
    max: usize,
    idle: Duration,
    /// `ROUTE.` that begins every id (`HttpConfig::session_route`).
    prefix: String,
    /// Bytes of GET stream messages each session keeps for a resume
    /// (`Limits::session_replay_bytes`).
    replay: usize,
}

/// A session's GET stream, claimed by the connection that serves it.
pub(crate) struct GetStream {
    /// The claim's number: what the connection names when it takes the
    /// session's events, and when it lets go.
    pub(crate) claim: u64,
    /// What the earlier stream sent after the client's `Last-Event-ID`.
    pub(crate) replay: Vec<(EventId, alloc::boxed::Box<[u8]>)>,
}

/// The GET stream's claim has passed to another connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TakenOver;

/// The sessions of one service. Cheap to clone.
#[derive(Clone)]
pub struct Sessions {
    shared: Arc<Shared>,
}

impl core::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sessions")
            .field("stats", &self.stats())
            .finish()
    }
}

/// A client message for a call on another connection of its session.
#[derive(Debug)]
pub(crate) enum Routed {
    /// The answer to the server-to-client request `id`.
    Answer {
        id: u64,
        outcome: Result<Value, Value>,
    },
    /// `notifications/cancelled` for the client's request `request`.
    Cancel { request: RequestId },
}

/// Where a connection receives answers routed to it.
#[derive(Default)]
pub(crate) struct Inbox {
    state: Mutex<InboxState>,
}

#[derive(Default)]
struct InboxState {
    queue: VecDeque<Routed>,
    waker: Option<Waker>,
}

impl Inbox {
    fn lock(&self) -> MutexGuard<'_, InboxState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Ready when answers are queued; otherwise registers `cx`'s waker.
    pub(crate) fn poll(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = self.lock();
        if s.queue.is_empty() {
            s.waker = Some(cx.waker().clone());
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }

    /// Take every queued answer.
    pub(crate) fn drain(&self) -> VecDeque<Routed> {
        core::mem::take(&mut self.lock().queue)
    }

    fn push(&self, routed: Routed) {
        let waker = {
            let mut s = self.lock();
            s.queue.push_back(routed);
            s.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// Why a session could not be created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CreateError {
    /// `max_sessions` are open and none is idle long enough to expire.
    Full,
    /// The system's random source failed.
    Random,
}

impl Sessions {
    /// A store of at most `limits.max_sessions` sessions, each removed
    /// after `limits.session_idle_timeout` without a message and keeping
    /// `limits.session_replay_bytes` of its GET stream for a resume; every
    /// id begins with `route` and a dot when given (`HttpConfig::session_route`,
    /// checked when the service is built), so a load balancer can send a
    /// session's requests to the replica that holds it.
    pub(crate) fn new(limits: &crate::Limits, route: Option<&str>) -> Sessions {
        Sessions {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                max: limits.max_sessions,
                idle: limits.session_idle_timeout,
                prefix: route.map(|r| alloc::format!("{r}.")).unwrap_or_default(),
                replay: limits.session_replay_bytes,
            }),
        }
    }

    /// Current counters.
    pub fn stats(&self) -> SessionStats {
        let s = self.lock();
        SessionStats {
            open: s.map.len(),
            ..s.stats
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Idle too long, and no stream of it is being served.
    fn expired(&self, e: &Entry, now: Instant) -> bool {
        e.get_stream.is_none()
            && e.posts.values().all(|p| p.resumer.is_none())
            && e.session.last_seen + self.shared.idle <= now
    }

    /// Store `session` under a new unguessable id (`transports.mdx`: the
    /// id SHOULD be globally unique and cryptographically secure; visible
    /// ASCII only).
    pub(crate) fn create(&self, session: Session, now: Instant) -> Result<String, CreateError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|_| CreateError::Random)?;
        let mut id = String::with_capacity(self.shared.prefix.len() + 32);
        id.push_str(&self.shared.prefix);
        for b in bytes {
            id.push(char::from(HEX[usize::from(b >> 4)]));
            id.push(char::from(HEX[usize::from(b & 15)]));
        }
        let mut s = self.lock();
        let mut ending = Ending::default();
        if s.map.len() >= self.shared.max {
            let expired: Vec<String> = s
                .map
                .iter()
                .filter(|(_, e)| self.expired(e, now))
                .map(|(id, _)| id.clone())
                .collect();
            s.stats.expired += expired.len() as u64;
            for id in expired {
                if let Some(e) = s.map.remove(&id) {
                    e.end(&mut ending);
                }
            }
        }
        if s.map.len() >= self.shared.max {
            s.stats.refused += 1;
            drop(s);
            ending.finish();
            return Err(CreateError::Full);
        }
        s.map.insert(
            id.clone(),
            Entry {
                session,
                routes: BTreeMap::new(),
                calls: BTreeMap::new(),
                get_stream: None,
                claims: 0,
                get_next: 1,
                replay: Replay::new(self.shared.replay),
                posts: BTreeMap::new(),
                post_streams: 0,
                listener: None,
            },
        );
        s.stats.created += 1;
        drop(s);
        ending.finish();
        Ok(id)
    }

    /// Run `f` on the session `id` if it exists and has not expired, and
    /// mark it active at `now`.
    pub(crate) fn with<R>(
        &self,
        id: &str,
        now: Instant,
        f: impl FnOnce(&mut Session) -> R,
    ) -> Option<R> {
        let mut s = self.lock();
        let expired = self.expired(s.map.get(id)?, now);
        if expired {
            let mut ending = Ending::default();
            if let Some(e) = s.map.remove(id) {
                e.end(&mut ending);
            }
            s.stats.expired += 1;
            drop(s);
            ending.finish();
            return None;
        }
        let e = s.map.get_mut(id)?;
        e.session.last_seen = now;
        Some(f(&mut e.session))
    }

    /// End the session `id` (HTTP DELETE), cancelling its running calls.
    /// Whether it existed.
    pub(crate) fn delete(&self, id: &str) -> bool {
        let mut s = self.lock();
        let Some(e) = s.map.remove(id) else {
            return false;
        };
        s.stats.deleted += 1;
        drop(s);
        let mut ending = Ending::default();
        e.end(&mut ending);
        ending.finish();
        true
    }

    /// Send answers to the request `request` of session `id` to `inbox`.
    pub(crate) fn route(&self, id: &str, request: u64, inbox: &Arc<Inbox>) {
        if let Some(e) = self.lock().map.get_mut(id) {
            e.routes.insert(request, Arc::downgrade(inbox));
        }
    }

    /// Forget the route of `request` (its call ended).
    pub(crate) fn unroute(&self, id: &str, request: u64) {
        if let Some(e) = self.lock().map.get_mut(id) {
            e.routes.remove(&request);
        }
    }

    /// Deliver the client's answer to the request `routed.id` of session
    /// `id`. False when nothing waits for it (an unknown id, or a call
    /// that already ended).
    pub(crate) fn deliver(&self, id: &str, rid: u64, outcome: Result<Value, Value>) -> bool {
        let routed = Routed::Answer { id: rid, outcome };
        let inbox = {
            let mut s = self.lock();
            let Some(e) = s.map.get_mut(id) else {
                return false;
            };
            e.routes.remove(&rid).and_then(|w| w.upgrade())
        };
        match inbox {
            Some(inbox) => {
                inbox.push(routed);
                true
            }
            None => false,
        }
    }

    /// The call `request` of session `id` runs on the connection of `inbox`.
    pub(crate) fn track(&self, id: &str, request: &RequestId, inbox: &Arc<Inbox>) {
        if let Some(e) = self.lock().map.get_mut(id) {
            e.calls.insert(request.clone(), Arc::downgrade(inbox));
        }
    }

    /// The call `request` of session `id` ended.
    pub(crate) fn untrack(&self, id: &str, request: &RequestId) {
        if let Some(e) = self.lock().map.get_mut(id) {
            e.calls.remove(request);
        }
    }

    /// Hand `notifications/cancelled` for `request` to the connection
    /// running it. False when no such call is running.
    pub(crate) fn cancel(&self, id: &str, request: RequestId) -> bool {
        let inbox = {
            let mut s = self.lock();
            let Some(e) = s.map.get_mut(id) else {
                return false;
            };
            e.calls.remove(&request).and_then(|w| w.upgrade())
        };
        match inbox {
            Some(inbox) => {
                inbox.push(Routed::Cancel { request });
                true
            }
            None => false,
        }
    }

    /// Claim the session's one standalone GET stream, resuming after
    /// message `last` when the client sent a `Last-Event-ID`, and listening
    /// to `hub` for the session from now on. `None` if the session does
    /// not exist, or its stream is open and this is not a resume.
    ///
    /// A resume takes the stream over from the connection serving it: a
    /// client resumes because its stream broke, and the server may not
    /// have noticed yet (a proxy cut it, the client's host vanished). The
    /// old connection is woken, finds its claim gone, and ends its stream
    /// without writing more; so every message goes out once, on the
    /// stream of the latest claim.
    pub(crate) fn open_get_stream(
        &self,
        id: &str,
        last: Option<u64>,
        hub: Option<&Hub>,
    ) -> Option<GetStream> {
        let mut s = self.lock();
        let e = s.map.get_mut(id)?;
        if e.get_stream.is_some() && last.is_none() {
            return None;
        }
        e.claims += 1;
        let claim = e.claims;
        let old = match e.get_stream.replace(claim) {
            Some(_) => e.listener.as_ref().and_then(Listener::take_waker),
            None => None,
        };
        if e.listener.is_none() {
            e.listener = hub.map(Hub::listen);
        }
        // An id this stream never gave (from another server, or ahead of
        // it) replays nothing: replaying what the client may have had
        // would send it twice.
        let replay = match last {
            Some(n) if n < e.get_next => e.replay.after(EventId {
                stream: StreamId::Get,
                n,
            }),
            _ => Vec::new(),
        };
        let stream = GetStream { claim, replay };
        drop(s);
        if let Some(old) = old {
            old.wake();
        }
        Some(stream)
    }

    /// Let go of the GET stream claimed with
    /// [`open_get_stream`](Self::open_get_stream) as `claim` (its
    /// connection is closing); a claim taken over changes nothing.
    pub(crate) fn close_get_stream(&self, id: &str, claim: u64) {
        if let Some(e) = self.lock().map.get_mut(id) {
            if e.get_stream == Some(claim) {
                e.get_stream = None;
            }
        }
    }

    /// Ready when the GET stream of `claim` has events to take, or has
    /// been taken over (or the session ended): either way its connection
    /// calls [`take_get_events`](Self::take_get_events) next.
    pub(crate) fn poll_get_events(&self, id: &str, claim: u64, cx: &mut Context<'_>) -> Poll<()> {
        let s = self.lock();
        match s.map.get(id) {
            Some(e) if e.get_stream == Some(claim) => match &e.listener {
                Some(l) => l.poll(cx),
                None => Poll::Pending,
            },
            _ => Poll::Ready(()),
        }
    }

    /// What was published for the session since, for the GET stream of
    /// `claim`; `TakenOver` once another connection holds the stream (or
    /// the session ended).
    pub(crate) fn take_get_events(
        &self,
        id: &str,
        claim: u64,
    ) -> Result<VecDeque<ChangeEvent>, TakenOver> {
        let s = self.lock();
        match s.map.get(id) {
            Some(e) if e.get_stream == Some(claim) => {
                Ok(e.listener.as_ref().map(Listener::drain).unwrap_or_default())
            }
            _ => Err(TakenOver),
        }
    }

    /// `json` goes out on the GET stream of session `id` under `claim`:
    /// its event number (`None` when the stream keeps none), or
    /// `TakenOver` if that stream is no longer the session's.
    pub(crate) fn record_get_event(
        &self,
        id: &str,
        claim: u64,
        json: &[u8],
    ) -> Result<Option<EventId>, TakenOver> {
        match self.lock().map.get_mut(id) {
            Some(e) if e.get_stream == Some(claim) => {
                if !e.replay.keeps() {
                    return Ok(None);
                }
                let event = EventId {
                    stream: StreamId::Get,
                    n: e.get_next,
                };
                e.get_next += 1;
                e.replay.record(event, json);
                Ok(Some(event))
            }
            _ => Err(TakenOver),
        }
    }

    /// A new POST stream for session `id`, its answer turning into an
    /// event stream: its number, and whether it opens with a priming event
    /// (`id` and empty `data`; 2025-11-25 `transports.mdx` § Sending
    /// Messages to the Server 6, which 2025-06-18 did not have, and whose
    /// clients may read an empty `data` as a broken message). `None` when
    /// the stream gets no ids: the session keeps none
    /// (`Limits::session_replay_bytes` 0), it is gone, or all of its
    /// [`MAX_POST_STREAMS`] still run.
    pub(crate) fn open_post_stream(&self, id: &str) -> Option<(u64, bool)> {
        let mut s = self.lock();
        let e = s.map.get_mut(id)?;
        if !e.replay.keeps() || !e.make_room_for_post_stream() {
            return None;
        }
        e.post_streams += 1;
        let k = e.post_streams;
        e.posts.insert(
            k,
            PostStream {
                next: 1,
                ..PostStream::default()
            },
        );
        Some((k, e.session.profile.version >= "2025-11-25"))
    }

    /// The call of POST stream `k` of session `id` sends `json` on it
    /// (`answer`: its final message): recorded for a resume, and where it
    /// goes.
    pub(crate) fn record_post_event(
        &self,
        id: &str,
        k: u64,
        json: &[u8],
        answer: bool,
    ) -> Recorded {
        let (recorded, waker) = {
            let mut s = self.lock();
            let Some(e) = s.map.get_mut(id) else {
                return Recorded::Unnumbered;
            };
            let Some(p) = e.posts.get_mut(&k) else {
                return Recorded::Unnumbered;
            };
            let event = EventId {
                stream: StreamId::Post(k),
                n: p.next,
            };
            p.next += 1;
            p.done |= answer;
            let recorded = match p.resumer {
                Some(_) => Recorded::Resumed,
                None => Recorded::Here(event),
            };
            let waker = p.waker.take();
            e.replay.record(event, json);
            (recorded, waker)
        };
        if let Some(w) = waker {
            w.wake();
        }
        recorded
    }

    /// Resume POST stream `last.stream` of session `id` after event
    /// `last.n`, taking it over from whoever wrote it (the calling
    /// connection, or an earlier resume, which is woken to find its claim
    /// gone). `None` if there is no such stream, or it never gave that
    /// event.
    pub(crate) fn resume_post_stream(&self, id: &str, last: EventId) -> Option<ResumedStream> {
        let StreamId::Post(k) = last.stream else {
            return None;
        };
        let (resumed, old) = {
            let mut s = self.lock();
            let e = s.map.get_mut(id)?;
            let p = e.posts.get(&k)?;
            if last.n >= p.next {
                return None;
            }
            e.claims += 1;
            let claim = e.claims;
            let replay = e.replay.after(last);
            let p = e.posts.get_mut(&k)?;
            p.resumer = Some(claim);
            let resumed = ResumedStream {
                claim,
                replay,
                through: p.next - 1,
                done: p.done,
            };
            (resumed, p.waker.take())
        };
        if let Some(w) = old {
            w.wake();
        }
        Some(resumed)
    }

    /// Ready when POST stream `k` resumed as `claim` has events past
    /// `through`, or its answer, or was taken over (or the session
    /// ended): either way its connection calls
    /// [`take_post_events`](Self::take_post_events) next.
    pub(crate) fn poll_post_events(
        &self,
        id: &str,
        k: u64,
        claim: u64,
        through: u64,
        cx: &mut Context<'_>,
    ) -> Poll<()> {
        let mut s = self.lock();
        let Some(p) = s.map.get_mut(id).and_then(|e| e.posts.get_mut(&k)) else {
            return Poll::Ready(());
        };
        if p.resumer != Some(claim) || p.done || p.next > through + 1 {
            return Poll::Ready(());
        }
        p.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    /// The events of POST stream `k` after `through`, for its resume
    /// `claim`; `TakenOver` once another resume holds it (or the session
    /// ended).
    pub(crate) fn take_post_events(
        &self,
        id: &str,
        k: u64,
        claim: u64,
        through: u64,
    ) -> Result<PostEvents, TakenOver> {
        let s = self.lock();
        let e = s.map.get(id).ok_or(TakenOver)?;
        match e.posts.get(&k) {
            Some(p) if p.resumer == Some(claim) => Ok(PostEvents {
                events: e.replay.after(EventId {
                    stream: StreamId::Post(k),
                    n: through,
                }),
                through: p.next - 1,
                done: p.done,
            }),
            _ => Err(TakenOver),
        }
    }

    /// POST stream `k` of session `id` ends without an answer (its call
    /// was cancelled): a resume of it has nothing more to wait for.
    pub(crate) fn end_post_stream(&self, id: &str, k: u64) {
        let waker = {
            let mut s = self.lock();
            let Some(p) = s.map.get_mut(id).and_then(|e| e.posts.get_mut(&k)) else {
                return;
            };
            p.done = true;
            p.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Let go of POST stream `k` resumed as `claim` (its connection is
    /// closing); the stream waits for the next resume.
    pub(crate) fn release_post_stream(&self, id: &str, k: u64, claim: u64) {
        let mut s = self.lock();
        if let Some(p) = s.map.get_mut(id).and_then(|e| e.posts.get_mut(&k)) {
            if p.resumer == Some(claim) {
                p.resumer = None;
                p.waker = None;
            }
        }
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";
