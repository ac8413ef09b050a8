//! The reader thread: one blocking `read` per permit, chunks to the driver.
//!
//! It runs on its own thread because a blocking `read` cannot be combined
//! with waiting on the driver's channel; it holds no protocol state.

use std::io::{self, Read};
use std::sync::mpsc::SyncSender;
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use crate::event::Event;
use crate::gate::ReadGate;

pub(crate) fn spawn<R: Read + Send + 'static>(
    mut input: R,
    chunk: usize,
    gate: Arc<ReadGate>,
    events: SyncSender<Event>,
) -> io::Result<JoinHandle<()>> {
    let chunk = chunk.max(1);
    thread::Builder::new()
        .name(String::from("snodo-reader"))
        .spawn(move || {
            while gate.acquire() {
                let event = read_chunk(&mut input, chunk);
                let last = !matches!(event, Event::Input(_));
                if events.send(event).is_err() || last {
                    return;
                }
            }
        })
}

fn read_chunk<R: Read>(input: &mut R, chunk: usize) -> Event {
    let mut buf = vec![0u8; chunk];
    loop {
        match input.read(&mut buf) {
            Ok(0) => return Event::Eof,
            Ok(n) => {
                buf.truncate(n);
                return Event::Input(buf);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Event::ReadError(e),
        }
    }
}
