//! Time as a value.
//!
//! `proto` never reads a clock: adapters pass `now` into every call that may
//! start or expire a deadline, so tests can jump time at will.
//!
//! # The contract of [`Instant`]
//!
//! An [`Instant`] counts nanoseconds since the UNIX epoch (1970-01-01
//! 00:00:00 UTC) as the adapter's clock reads it. Adapters anchor a
//! monotonic clock at the wall-clock time they started: `now` = wall time at
//! start + monotonic time elapsed since. So instants never go backwards
//! within a process (a wall-clock step does not move them), and instants of
//! different processes agree up to their clocks' skew. That second property
//! is what lets a sealed MRTR `requestState` issued by one server process
//! have its expiry checked by another (`basic/patterns/mrtr.mdx`: the retry
//! may reach any instance).
//!
//! Tests may use arbitrary values; [`Instant::ZERO`] is the epoch itself.

use core::ops::{Add, Sub};
use core::time::Duration;

/// A point in time, in nanoseconds since the UNIX epoch, monotonic within a
/// process (see the [module docs](self) for the contract).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(u64);

impl Instant {
    /// The UNIX epoch.
    pub const ZERO: Instant = Instant(0);

    /// A timestamp `nanos` nanoseconds after the epoch.
    pub const fn from_nanos(nanos: u64) -> Self {
        Instant(nanos)
    }

    /// A timestamp `millis` milliseconds after the epoch.
    pub const fn from_millis(millis: u64) -> Self {
        Instant(millis.saturating_mul(1_000_000))
    }

    /// Nanoseconds since the epoch.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    /// Time elapsed from `earlier` to `self`, zero if `earlier` is later.
    pub fn saturating_duration_since(self, earlier: Instant) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, rhs: Duration) -> Instant {
        let nanos = u64::try_from(rhs.as_nanos()).unwrap_or(u64::MAX);
        Instant(self.0.saturating_add(nanos))
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;
    fn sub(self, rhs: Instant) -> Duration {
        self.saturating_duration_since(rhs)
    }
}

/// The clock every driver needs: a monotonic clock anchored at the wall
/// time it started (see the [module docs](self) for why). It reads no
/// clock itself: the driver passes in both readings (the wall time since
/// the UNIX epoch and the monotonic reading taken with it, then each
/// monotonic reading), so `proto` stays pure and a test or a paused
/// runtime clock can drive it. `snodo-driver` anchors one per connection.
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    origin: std::time::Instant,
    /// Wall time at `origin`, in nanoseconds since the UNIX epoch.
    epoch_nanos: u64,
}

#[cfg(feature = "std")]
impl Clock {
    /// A clock whose monotonic reading `origin` is wall time `since_epoch`.
    pub fn anchored(since_epoch: Duration, origin: std::time::Instant) -> Clock {
        Clock {
            origin,
            epoch_nanos: u64::try_from(since_epoch.as_nanos()).unwrap_or(u64::MAX),
        }
    }

    /// The monotonic reading `at` as an [`Instant`]. Readings before the
    /// anchor map to the anchor, so instants never go back.
    pub fn at(&self, at: std::time::Instant) -> Instant {
        let elapsed = at.saturating_duration_since(self.origin);
        Instant(self.epoch_nanos) + elapsed
    }

    /// The monotonic reading at which `at` falls; `None` if too far out to
    /// represent. Instants before the anchor map to the anchor.
    pub fn monotonic(&self, at: Instant) -> Option<std::time::Instant> {
        let since = at.0.saturating_sub(self.epoch_nanos);
        self.origin.checked_add(Duration::from_nanos(since))
    }
}
