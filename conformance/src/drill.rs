//! Crash drills: the fixture stops at one of the Tasks extension's fault
//! points ([`snodo_tasks::fault`]) so that a test crashes it, or resumes
//! it, exactly there.
//!
//! - `SNODO_TASKS_HALT_AT=<point>`: the thread that reaches `<point>` halts
//!   there for good; the rest of the process goes on serving. The test then
//!   kills the process, and the crash lands exactly at the point (a
//!   response already under way, such as the `CreateTaskResult` whose
//!   creation woke the runner, still reaches the client).
//! - `SNODO_TASKS_STOP_AT=<point>`: the whole process stops itself there
//!   (SIGSTOP) and carries on from the point after SIGCONT (Unix only).
//!
//! `<point>` is a [`FaultPoint::name`]: `before-claim`, `after-work`,
//! `mid-commit`, `partial-write`. A drill fires once, and first says so on
//! stderr: `snodo-tasks drill: halted at <point> (task <id>)` (or
//! `stopped`). Unset, nothing is installed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use snodo_tasks::{FaultHook, FaultPoint};

/// Every [`FaultPoint::name`].
const POINTS: [&str; 4] = ["before-claim", "after-work", "mid-commit", "partial-write"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Halt,
    Stop,
}

impl Action {
    fn past(self) -> &'static str {
        match self {
            Action::Halt => "halted",
            Action::Stop => "stopped",
        }
    }
}

/// The hook the environment arms, if any.
pub fn from_env() -> Option<FaultHook> {
    let (action, point) = [
        ("SNODO_TASKS_HALT_AT", Action::Halt),
        ("SNODO_TASKS_STOP_AT", Action::Stop),
    ]
    .into_iter()
    .find_map(|(var, action)| Some((action, std::env::var(var).ok()?)))?;
    if !POINTS.contains(&point.as_str()) {
        // A drill that can never fire would leave its test waiting.
        tracing::error!(%point, known = ?POINTS, "unknown fault point: no drill armed");
        return None;
    }
    let fired = Arc::new(AtomicBool::new(false));
    Some(Arc::new(move |at: &FaultPoint<'_>| {
        if at.name() != point || fired.swap(true, Ordering::SeqCst) {
            return;
        }
        eprintln!("snodo-tasks drill: {} at {at}", action.past());
        match action {
            Action::Halt => loop {
                std::thread::park();
            },
            Action::Stop => stop(),
        }
    }))
}

/// Stop the process here. raise(3) directs the signal at this thread, so
/// this thread is stopped before raise returns; a signal sent to the whole
/// process may be taken by another thread while this one runs on.
#[cfg(unix)]
fn stop() {
    // SAFETY: raise has no memory-safety preconditions; SIGSTOP cannot be
    // caught, so no handler runs.
    if unsafe { libc::raise(libc::SIGSTOP) } != 0 {
        tracing::error!(error = %std::io::Error::last_os_error(), "the drill cannot stop the process");
    }
}

#[cfg(not(unix))]
fn stop() {
    tracing::error!("the drill's stop needs Unix signals");
}
