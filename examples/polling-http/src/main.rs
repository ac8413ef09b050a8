//! A single-threaded Streamable HTTP server on the `polling` crate that
//! drives each [`Connection`] by hand, with snodo-proto's public API only,
//! as the driving contract in `snodo_proto::connection` says. Calls that do
//! not finish at once run on the small executor below; their reports and
//! outcomes reach the loop through [`Connection::on_wake`].
//!
//! `cargo run -p snodo-example-polling-http -- --listen 127.0.0.1:8080`
//! prints the bound address as its first line on stdout.

use std::collections::HashMap;
use std::future::{poll_fn, Future};
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll, Wake, Waker};
use std::time::{self, SystemTime, UNIX_EPOCH};

use polling::{Event, Events, Poller};
use snodo_proto::time::Clock;
use snodo_proto::{
    CallTask, CallToolResult, Connection, Context, Implementation, Instant, NoArgs, Output,
    Service, Tool, Transport,
};

const LISTENER: usize = 0;
/// Past this many unwritten bytes a client is not read from and its changes
/// wait: the connection's and the hub's bounds absorb a slow reader.
const HIGH_WATER: usize = 1 << 20;

/// Interrupts the poller's `wait`: the waker of every handler task, and
/// what each connection's wake callback calls.
struct Notify(Arc<Poller>);

impl Wake for Notify {
    fn wake(self: Arc<Self>) {
        let _ = self.0.notify();
    }
}

/// The calls that did not finish inline, all polled on each turn of the
/// loop (fine for a few). A task reports to its connection itself, and
/// one whose call was cancelled ends at its next poll.
struct Executor(Vec<CallTask>, Waker);

impl Executor {
    fn spawn(&mut self, task: CallTask) {
        self.0.push(task);
        self.1.wake_by_ref();
    }

    fn run(&mut self) {
        let mut cx = TaskContext::from_waker(&self.1);
        self.0
            .retain_mut(|t| Pin::new(t).poll(&mut cx).is_pending());
    }
}

struct Client {
    sock: TcpStream,
    conn: Connection,
    /// Bytes transmitted by the connection, not yet written.
    out: Vec<u8>,
    input_open: bool,
    /// Set by the wake callback: `handle_changes` is due.
    woken: Arc<AtomicBool>,
    /// After `Output::Close`: when to give up on the close, and whether to
    /// read and discard input until the client's EOF (`Connection::closing`).
    closing: Option<(time::Instant, bool)>,
}

impl Client {
    fn new(sock: TcpStream, mut conn: Connection, poller: &Arc<Poller>) -> Client {
        let (woken, notify) = (Arc::new(AtomicBool::new(false)), poller.clone());
        let flag = woken.clone();
        conn.on_wake(move || {
            flag.store(true, Ordering::Release);
            let _ = notify.notify();
        });
        let (out, input_open, closing) = (Vec::new(), true, None);
        Client {
            sock,
            conn,
            out,
            input_open,
            woken,
            closing,
        }
    }

    fn wants_read(&self) -> bool {
        match self.closing {
            Some((_, discard)) => discard && self.input_open && self.out.is_empty(),
            None => {
                let conn = &self.conn;
                let wanted = conn.wants_input() || conn.watches_hangup();
                self.input_open && self.out.len() < HIGH_WATER && wanted
            }
        }
    }

    /// After every input: drain the outputs until `None` (which also
    /// re-arms the wake callback).
    fn drain(&mut self, exec: &mut Executor, now: Instant) {
        while let Some(output) = self.conn.poll_output() {
            match output {
                Output::Transmit(bytes) => self.out.extend_from_slice(&bytes),
                Output::Invoke(invocation) => {
                    let mut task = self.conn.task(invocation);
                    match task.poll_inline() {
                        Some(outcome) => drop(self.conn.complete(task.call(), outcome, now)),
                        None => exec.spawn(task),
                    }
                }
                // The connection set the call's flag, which ends its task.
                // Only a `Connection::http_request` answers with a head.
                Output::Cancel(_) | Output::Respond(_) => {}
                Output::Close => {
                    let c = self.conn.closing();
                    self.closing = Some((time::Instant::now() + c.linger, c.discard_input));
                }
            }
        }
    }

    /// The socket is ready: write what waits, then read while wanted.
    fn io(&mut self, exec: &mut Executor, now: Instant) {
        while !self.out.is_empty() {
            match self.sock.write(&self.out) {
                Ok(n) if n > 0 => drop(self.out.drain(..n)),
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                _ => {
                    self.out.clear();
                    self.conn.handle_write_failed(now);
                    self.drain(exec, now);
                }
            }
        }
        let mut buf = [0_u8; 16 * 1024];
        while self.wants_read() {
            match self.sock.read(&mut buf) {
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Ok(n) if n > 0 => self.conn.handle_input(&buf[..n], now),
                _ => {
                    self.input_open = false;
                    self.conn.handle_input_closed(now);
                }
            }
            self.drain(exec, now);
        }
    }
}

fn service() -> Service {
    let count = Tool::new("count", "Counts to three, reporting progress");
    Service::builder()
        .server_info(Implementation::new("polling-example", "0.1.0"))
        .tool(count, |_: NoArgs, ctx: Context| async move {
            for i in 1..=3 {
                ctx.progress(f64::from(i), Some(3.0), None);
                // Not ready at once: the call goes to the executor.
                let mut yielded = false;
                poll_fn(|cx| {
                    if std::mem::replace(&mut yielded, true) {
                        return Poll::Ready(());
                    }
                    cx.waker().wake_by_ref();
                    Poll::Pending
                })
                .await;
            }
            CallToolResult::text("counted to 3")
        })
        .build()
        .expect("a valid service")
}

fn main() -> io::Result<()> {
    let mut args = std::env::args().skip_while(|a| a != "--listen").skip(1);
    let listener = TcpListener::bind(args.next().as_deref().unwrap_or("127.0.0.1:8080"))?;
    listener.set_nonblocking(true)?;
    println!("{}", listener.local_addr()?);
    let poller = Arc::new(Poller::new()?);
    // SAFETY: the listener lives as long as `main`, the poller's whole use.
    unsafe { poller.add(&listener, Event::readable(LISTENER))? };

    let service = service();
    let wall = SystemTime::now().duration_since(UNIX_EPOCH);
    let clock = Clock::anchored(wall.unwrap_or_default(), time::Instant::now());
    let mut exec = Executor(Vec::new(), Waker::from(Arc::new(Notify(poller.clone()))));
    let mut clients: HashMap<usize, Client> = HashMap::new();
    let (mut next_key, mut events) = (LISTENER, Events::new());
    loop {
        exec.run();
        let now = clock.at(time::Instant::now());
        clients.retain(|&key, c| {
            if c.out.len() < HIGH_WATER && c.woken.swap(false, Ordering::Acquire) {
                c.conn.handle_changes(now);
                c.drain(&mut exec, now);
            }
            if c.conn.poll_timeout().is_some_and(|t| t <= now) {
                c.conn.handle_timeout(now);
                c.drain(&mut exec, now);
            }
            if let Some((give_up, discard)) = c.closing {
                if c.out.is_empty() {
                    let _ = c.sock.shutdown(Shutdown::Write);
                }
                let lingering = !c.out.is_empty() || (discard && c.input_open);
                if !lingering || time::Instant::now() >= give_up {
                    let _ = poller.delete(&c.sock);
                    return false;
                }
            }
            let _ = poller.modify(&c.sock, Event::new(key, c.wants_read(), !c.out.is_empty()));
            true
        });
        // One timer: the earliest deadline of any connection or close.
        let deadlines = clients.values().filter_map(|c| match c.closing {
            Some((give_up, _)) => Some(give_up),
            None => c.conn.poll_timeout().and_then(|t| clock.monotonic(t)),
        });
        let timeout = deadlines.min().map(|t| t - time::Instant::now().min(t));
        events.clear();
        poller.wait(&mut events, timeout)?;
        let now = clock.at(time::Instant::now());
        for ev in events.iter() {
            if ev.key != LISTENER {
                if let Some(c) = clients.get_mut(&ev.key) {
                    c.io(&mut exec, now);
                }
                continue;
            }
            while let Ok((sock, _)) = listener.accept() {
                sock.set_nonblocking(true)?;
                next_key += 1;
                let conn = Connection::new(&service, Transport::Http, now);
                // SAFETY: deleted from the poller before the client is dropped.
                unsafe { poller.add(&sock, Event::readable(next_key))? };
                clients.insert(next_key, Client::new(sock, conn, &poller));
            }
            poller.modify(&listener, Event::readable(LISTENER))?;
        }
    }
}
