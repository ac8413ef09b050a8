//! The writer thread: writes what the connection transmits, in order, and
//! flushes whenever its queue runs dry.
//!
//! Writing happens off the driver thread so a client that is slow to read
//! stdout does not stop the driver from taking cancellations, completions
//! and deadlines. The queue is bounded by accounting instead of by
//! blocking: the driver stops reading input, and handlers' reports are
//! dropped, while the backlog is above the high-water mark.

use bytes::Bytes;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use crate::event::Event;

/// Bytes handed to the writer and not yet written.
#[derive(Debug)]
pub(crate) struct Backlog {
    bytes: AtomicUsize,
    high_water: usize,
    /// Set by the driver when it held back a read because of the backlog.
    notify: AtomicBool,
}

impl Backlog {
    pub(crate) fn new(high_water: usize) -> Self {
        Backlog {
            bytes: AtomicUsize::new(0),
            high_water,
            notify: AtomicBool::new(false),
        }
    }

    pub(crate) fn is_high(&self) -> bool {
        self.bytes.load(Ordering::Acquire) > self.high_water
    }

    /// Ask for [`Event::Drained`] once the backlog is low again. Returns
    /// `false` (and asks nothing) if it already is.
    pub(crate) fn notify_when_low(&self) -> bool {
        self.notify.store(true, Ordering::SeqCst);
        if self.is_high() {
            return true;
        }
        // The writer may have drained between the caller's check and the
        // store above; withdraw the request rather than wait for nothing.
        self.notify.store(false, Ordering::SeqCst);
        false
    }
}

/// The driver's end of the writer.
pub(crate) struct WriterHandle {
    queue: Option<Sender<Bytes>>,
    backlog: Arc<Backlog>,
    thread: Option<JoinHandle<()>>,
}

impl WriterHandle {
    pub(crate) fn spawn<W: Write + Send + 'static>(
        output: W,
        backlog: Arc<Backlog>,
        events: SyncSender<Event>,
    ) -> io::Result<Self> {
        let (tx, rx) = mpsc::channel();
        let b = Arc::clone(&backlog);
        let thread = thread::Builder::new()
            .name(String::from("snodo-writer"))
            .spawn(move || {
                let result = write_loop(output, &rx, &b, &events);
                let _ = events.send(Event::WriterClosed(result));
            })?;
        Ok(WriterHandle {
            queue: Some(tx),
            backlog,
            thread: Some(thread),
        })
    }

    /// Queue bytes. If the writer already failed they are dropped; its
    /// failure reaches the driver as [`Event::WriterClosed`].
    pub(crate) fn send(&self, bytes: Bytes) {
        let Some(q) = &self.queue else { return };
        let len = bytes.len();
        self.backlog.bytes.fetch_add(len, Ordering::AcqRel);
        if q.send(bytes).is_err() {
            self.backlog.bytes.fetch_sub(len, Ordering::AcqRel);
        }
    }

    /// No more bytes: the writer flushes what is queued and reports
    /// [`Event::WriterClosed`].
    pub(crate) fn close(&mut self) {
        self.queue = None;
    }

    /// Join the writer thread; call only after it reported `WriterClosed`.
    pub(crate) fn join(&mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn write_loop<W: Write>(
    mut output: W,
    queue: &Receiver<Bytes>,
    backlog: &Backlog,
    events: &SyncSender<Event>,
) -> io::Result<()> {
    while let Ok(first) = queue.recv() {
        let mut next = Some(first);
        while let Some(bytes) = next {
            output.write_all(&bytes)?;
            backlog.bytes.fetch_sub(bytes.len(), Ordering::AcqRel);
            next = queue.try_recv().ok();
        }
        output.flush()?;
        if !backlog.is_high()
            && backlog.notify.swap(false, Ordering::SeqCst)
            && events.send(Event::Drained).is_err()
        {
            break;
        }
    }
    output.flush()
}
