//! Maps tokio's monotonic clock onto `snodo_proto::Instant`.
//!
//! `proto` reads no clock; its instants count nanoseconds since the UNIX
//! epoch (`proto/src/time.rs`). Each connection anchors the clock at the
//! wall-clock time it starts and advances it by tokio's monotonic clock, so
//! instants never go backwards yet agree with other processes' (a
//! `requestState` sealed elsewhere is checked for expiry here). tokio's
//! `Instant` (not std's) is used so a paused test clock moves deadlines too.

use core::time::Duration;
use snodo_proto::Instant;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    origin: tokio::time::Instant,
    /// Wall-clock time at `origin`, in nanoseconds since the UNIX epoch.
    epoch_nanos: u64,
}

impl Clock {
    pub(crate) fn start() -> Self {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Clock {
            origin: tokio::time::Instant::now(),
            epoch_nanos: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
        }
    }

    /// The current time in `proto`'s terms.
    pub(crate) fn now(&self) -> Instant {
        let elapsed = u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX);
        Instant::from_nanos(self.epoch_nanos.saturating_add(elapsed))
    }

    /// `proto`'s `at` on tokio's clock; `None` if too far out to represent.
    /// Instants before the anchor map to the anchor.
    pub(crate) fn to_tokio(self, at: Instant) -> Option<tokio::time::Instant> {
        let since = at.as_nanos().saturating_sub(self.epoch_nanos);
        self.origin.checked_add(Duration::from_nanos(since))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_the_anchor() {
        let clock = Clock::start();
        let at = Instant::from_nanos(clock.epoch_nanos + 1_500_000_000);
        let tokio_at = clock.to_tokio(at).unwrap();
        assert_eq!(tokio_at - clock.origin, Duration::from_millis(1500));
        assert_eq!(clock.to_tokio(Instant::ZERO), Some(clock.origin));
    }

    #[test]
    fn now_is_the_wall_clock_and_does_not_go_back() {
        let clock = Clock::start();
        let a = clock.now();
        let b = clock.now();
        assert!(b >= a);
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        let now = Duration::from_nanos(a.as_nanos());
        let skew = now.abs_diff(wall);
        assert!(skew < Duration::from_secs(5), "{now:?} vs {wall:?}");
    }

    #[test]
    fn far_future_has_no_tokio_instant_rather_than_panicking() {
        let clock = Clock::start();
        // u64::MAX ns is ~584 years after 1970: representable or not
        // depending on the platform, but never a panic.
        let _ = clock.to_tokio(Instant::from_nanos(u64::MAX));
    }
}
