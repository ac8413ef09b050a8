//! A one-way in-memory byte pipe with a bounded buffer, on blocking
//! `std::io` (the workspace's MSRV predates `std::io::pipe`). A writer to
//! a full pipe blocks until the reader takes bytes, as a client that does
//! not read its side makes a server's writes block. Dropping the writer is
//! end of input; dropping the reader makes writes fail with `BrokenPipe`.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

struct State {
    bytes: VecDeque<u8>,
    capacity: usize,
    writer_open: bool,
    reader_open: bool,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The writing end.
pub struct PipeWriter(Arc<Shared>);

/// The reading end.
pub struct PipeReader(Arc<Shared>);

/// A pipe holding at most `capacity` bytes.
pub fn pipe(capacity: usize) -> (PipeWriter, PipeReader) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            bytes: VecDeque::new(),
            capacity: capacity.max(1),
            writer_open: true,
            reader_open: true,
        }),
        changed: Condvar::new(),
    });
    (PipeWriter(shared.clone()), PipeReader(shared))
}

impl Write for PipeWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let mut s = self.0.lock();
        while s.reader_open && s.bytes.len() >= s.capacity {
            s = self.0.changed.wait(s).unwrap_or_else(|p| p.into_inner());
        }
        if !s.reader_open {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        let n = buf.len().min(s.capacity - s.bytes.len());
        s.bytes.extend(&buf[..n]);
        self.0.changed.notify_all();
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for PipeWriter {
    fn drop(&mut self) {
        self.0.lock().writer_open = false;
        self.0.changed.notify_all();
    }
}

impl Read for PipeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let mut s = self.0.lock();
        while s.writer_open && s.bytes.is_empty() {
            s = self.0.changed.wait(s).unwrap_or_else(|p| p.into_inner());
        }
        let n = buf.len().min(s.bytes.len());
        for (dst, src) in buf.iter_mut().zip(s.bytes.drain(..n)) {
            *dst = src;
        }
        self.0.changed.notify_all();
        Ok(n)
    }
}

impl Drop for PipeReader {
    fn drop(&mut self) {
        self.0.lock().reader_open = false;
        self.0.changed.notify_all();
    }
}
