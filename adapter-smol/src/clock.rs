//! The OS clocks, expressed as `snodo_proto::Instant`.
//!
//! `proto` reads no clock; its instants count nanoseconds since the UNIX
//! epoch (`proto/src/time.rs`). The clock is anchored at the wall-clock time
//! the adapter starts and advanced by the monotonic clock, so instants never
//! go backwards yet agree with other processes' (a `requestState` sealed
//! elsewhere is checked for expiry here). Deadlines come back as proto
//! instants and are turned into `std::time::Instant`s for
//! `async_io::Timer::at`.

use snodo_proto::Instant;
use std::time::Duration;

/// One anchor shared by every connection an adapter drives.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    origin: std::time::Instant,
    /// Wall-clock time at `origin`, in nanoseconds since the UNIX epoch.
    epoch_nanos: u64,
}

impl Clock {
    pub(crate) fn new() -> Self {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Clock {
            origin: std::time::Instant::now(),
            epoch_nanos: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
        }
    }

    /// Now, as nanoseconds since the epoch.
    pub(crate) fn now(&self) -> Instant {
        let elapsed = u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX);
        Instant::from_nanos(self.epoch_nanos.saturating_add(elapsed))
    }

    /// The OS instant of a proto deadline; `None` when it is too far away
    /// to represent, which is the same as never. Instants before the
    /// anchor map to the anchor.
    pub(crate) fn to_std(self, at: Instant) -> Option<std::time::Instant> {
        let since = at.as_nanos().saturating_sub(self.epoch_nanos);
        self.origin.checked_add(Duration::from_nanos(since))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_round_trip_through_the_anchor() {
        let clock = Clock::new();
        let at = Instant::from_nanos(clock.epoch_nanos + 1_500_000_000);
        assert_eq!(
            clock.to_std(at).unwrap() - clock.origin,
            Duration::from_millis(1_500)
        );
        assert_eq!(clock.to_std(Instant::ZERO), Some(clock.origin));
    }

    #[test]
    fn now_moves_forward_from_the_wall_clock() {
        let clock = Clock::new();
        let a = clock.now();
        std::thread::sleep(Duration::from_millis(2));
        assert!(clock.now() > a);
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        let now = Duration::from_nanos(clock.now().as_nanos());
        let skew = now.abs_diff(wall);
        assert!(skew < Duration::from_secs(5), "{now:?} vs {wall:?}");
    }
}
