//! Maps the operating system's clocks onto `snodo_proto::Instant`.
//!
//! `proto` reads no clock; its instants count nanoseconds since the UNIX
//! epoch (`snodo_proto::time`). The clock is anchored at the wall-clock time
//! [`serve`](crate::serve) starts and advanced by the monotonic clock from
//! there, so instants never go backwards yet agree with other processes'
//! (which is what lets a `requestState` sealed elsewhere be checked for
//! expiry here).

use core::time::Duration;
use snodo_proto::Instant;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    origin: std::time::Instant,
    /// Wall-clock time at `origin`, in nanoseconds since the UNIX epoch.
    epoch_nanos: u64,
}

impl Clock {
    pub(crate) fn start() -> Self {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Clock {
            origin: std::time::Instant::now(),
            epoch_nanos: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
        }
    }

    /// The current time in `proto`'s terms.
    pub(crate) fn now(self) -> Instant {
        self.to_proto(std::time::Instant::now())
    }

    pub(crate) fn to_proto(self, at: std::time::Instant) -> Instant {
        let elapsed = at.saturating_duration_since(self.origin).as_nanos();
        let elapsed = u64::try_from(elapsed).unwrap_or(u64::MAX);
        Instant::from_nanos(self.epoch_nanos.saturating_add(elapsed))
    }

    /// `None` when the instant is too far out to represent (no deadline).
    /// Instants before the anchor map to the anchor.
    pub(crate) fn to_std(self, at: Instant) -> Option<std::time::Instant> {
        let since = at.as_nanos().saturating_sub(self.epoch_nanos);
        self.origin.checked_add(Duration::from_nanos(since))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_proto_instants() {
        let clock = Clock::start();
        let later = clock.origin + Duration::from_millis(1500);
        let p = clock.to_proto(later);
        assert_eq!(p.as_nanos() - clock.epoch_nanos, 1_500_000_000);
        assert_eq!(clock.to_std(p), Some(later));
        if let Some(before) = clock.origin.checked_sub(Duration::from_millis(1)) {
            assert_eq!(
                clock.to_proto(before),
                Instant::from_nanos(clock.epoch_nanos)
            );
        }
    }

    #[test]
    fn instants_are_wall_clock_based() {
        let clock = Clock::start();
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        let now = Duration::from_nanos(clock.now().as_nanos());
        let skew = now.abs_diff(wall);
        assert!(skew < Duration::from_secs(5), "{now:?} vs {wall:?}");
    }
}
