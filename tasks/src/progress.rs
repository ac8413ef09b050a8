//! A task run's progress, kept for its `statusMessage`.
//!
//! A task has no `notifications/progress` (`tasks.md` § Task Status
//! Notifications: progress and log notifications "are not supported on
//! tasks"), but its `statusMessage` is meant for "progress descriptions for
//! `working`" (`tasks.md` § Tasks). So a run's handler reports progress as
//! any handler does (`Context::progress`), into a [`Reports`] sink that
//! keeps only the latest report; the runner writes it into the task at the
//! run's next lease renewal, in the same fenced store update, and publishes
//! the task when it changed. A handler reporting a thousand times between
//! two renewals costs no write more than one reporting once; only a run's
//! first report brings its renewal forward, so that it shows at once.

use std::sync::{Arc, Mutex, MutexGuard};

use snodo_proto::blocking::Executor;
use snodo_proto::{CallEvent, CallId, CallSink, Progress};

use crate::engine::Engine;

/// Longest `statusMessage` kept from a report, in bytes (a longer one is
/// cut at a character boundary): a task is stored and sent whole on every
/// poll.
pub(crate) const MAX_STATUS_MESSAGE: usize = 1024;

#[derive(Debug, Default)]
struct Latest {
    /// The latest report's `statusMessage`.
    message: Option<String>,
    /// Its `progress` value (`basic/patterns/progress.mdx`: each report's
    /// must be greater; one that is not is dropped, as a connection drops
    /// it).
    progress: Option<f64>,
    /// A first report arrived and the runner has not looked yet.
    first: bool,
}

/// The sink of one task run: keeps the latest progress report as the
/// task's `statusMessage` to be, and rings the runner on the first.
pub(crate) struct Reports {
    latest: Mutex<Latest>,
    engine: Arc<Engine>,
    executor: Option<Arc<dyn Executor>>,
}

impl Reports {
    pub(crate) fn new(engine: Arc<Engine>, executor: Option<Arc<dyn Executor>>) -> Reports {
        Reports {
            latest: Mutex::new(Latest::default()),
            engine,
            executor,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Latest> {
        self.latest.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The `statusMessage` the latest report asks for, if any.
    pub(crate) fn message(&self) -> Option<String> {
        self.lock().message.clone()
    }

    /// Whether the run's first report arrived since the last call.
    pub(crate) fn take_first(&self) -> bool {
        std::mem::take(&mut self.lock().first)
    }
}

impl CallSink for Reports {
    fn send(&self, _: CallId, event: CallEvent) {
        // Log messages have no place in a task (§ Task Status Notifications).
        let CallEvent::Progress(p) = event else {
            return;
        };
        let ring = {
            let mut latest = self.lock();
            if !p.progress.is_finite() || latest.progress.is_some_and(|last| p.progress <= last) {
                return;
            }
            latest.progress = Some(p.progress);
            let first = latest.message.is_none();
            latest.message = Some(status_message(&p));
            latest.first |= first;
            first
        };
        if ring {
            self.engine.ring();
        }
    }

    fn executor(&self) -> Option<Arc<dyn Executor>> {
        self.executor.clone()
    }
}

/// What a progress report reads as in `statusMessage`: its message, or
/// without one its numbers (`3/10`, or `3` with no total).
pub(crate) fn status_message(p: &Progress) -> String {
    let mut text = match (&p.message, p.total.filter(|t| t.is_finite())) {
        (Some(m), _) if !m.trim().is_empty() => m.clone(),
        (_, Some(total)) => format!("{}/{}", p.progress, total),
        (_, None) => format!("{}", p.progress),
    };
    if text.len() > MAX_STATUS_MESSAGE {
        let mut end = MAX_STATUS_MESSAGE;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(progress: f64, total: Option<f64>, message: Option<&str>) -> Progress {
        Progress {
            progress,
            total,
            message: message.map(String::from),
        }
    }

    #[test]
    fn a_report_reads_as_its_message_or_its_numbers() {
        assert_eq!(
            status_message(&p(2.0, Some(3.0), Some("2 of 3 read"))),
            "2 of 3 read"
        );
        assert_eq!(status_message(&p(2.0, Some(3.0), None)), "2/3");
        assert_eq!(status_message(&p(2.5, None, Some("  "))), "2.5");
        assert_eq!(status_message(&p(1.0, Some(f64::NAN), None)), "1");
    }

    #[test]
    fn a_long_message_is_cut_at_a_character_boundary() {
        let long = "é".repeat(MAX_STATUS_MESSAGE);
        let cut = status_message(&p(1.0, None, Some(&long)));
        assert_eq!(cut.len(), MAX_STATUS_MESSAGE);
        assert!(cut.chars().all(|c| c == 'é'));
    }
}
