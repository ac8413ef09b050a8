//! The [`CallSink`] handlers report through: it forwards each report to the
//! driver, which owns the connection and turns it into a notification.

use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::Arc;

use snodo_proto::{CallEvent, CallId, CallSink, Outcome};

use crate::event::Event;
use crate::writer::Backlog;

pub(crate) struct ChannelSink {
    pub(crate) events: SyncSender<Event>,
    pub(crate) backlog: Arc<Backlog>,
}

impl ChannelSink {
    /// Hand a finished call's outcome to its driver, waiting for room: the
    /// driver always drains its queue, and an outcome must not be lost.
    /// Returns without effect if the driver is gone.
    pub(crate) fn complete(&self, call: CallId, outcome: Outcome) {
        let _ = self.events.send(Event::Completed(call, outcome));
    }
}

impl CallSink for ChannelSink {
    /// Never blocks (the trait's contract). Progress and log messages are
    /// optional (`basic/patterns/progress.mdx`: the receiver MAY send them),
    /// so when the driver's queue is full or stdout is backed up a report is
    /// dropped rather than buffered without bound.
    fn send(&self, call: CallId, event: CallEvent) {
        if self.backlog.is_high() {
            tracing::debug!(%call, "output backlog is high; dropping a handler report");
            return;
        }
        match self.events.try_send(Event::Report(call, event)) {
            Ok(()) | Err(TrySendError::Disconnected(_)) => {}
            Err(TrySendError::Full(_)) => {
                tracing::debug!(%call, "driver queue is full; dropping a handler report");
            }
        }
    }
}
