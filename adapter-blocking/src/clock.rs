//! Maps the operating system's monotonic clock onto `snodo_proto::Instant`.
//!
//! `proto` reads no clock (`time.rs`); its instants count from an origin the
//! adapter picks. Here the origin is the moment [`serve`](crate::serve) starts.

use core::time::Duration;
use snodo_proto::Instant;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    origin: std::time::Instant,
}

impl Clock {
    pub(crate) fn start() -> Self {
        Clock {
            origin: std::time::Instant::now(),
        }
    }

    /// The current time in `proto`'s terms.
    pub(crate) fn now(self) -> Instant {
        self.to_proto(std::time::Instant::now())
    }

    pub(crate) fn to_proto(self, at: std::time::Instant) -> Instant {
        let nanos = at.saturating_duration_since(self.origin).as_nanos();
        Instant::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }

    /// `None` when the instant is too far out to represent (no deadline).
    pub(crate) fn to_std(self, at: Instant) -> Option<std::time::Instant> {
        self.origin.checked_add(Duration::from_nanos(at.as_nanos()))
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
        assert_eq!(p, Instant::from_millis(1500));
        assert_eq!(clock.to_std(p), Some(later));
        if let Some(before) = clock.origin.checked_sub(Duration::from_millis(1)) {
            assert_eq!(clock.to_proto(before), Instant::ZERO);
        }
    }
}
