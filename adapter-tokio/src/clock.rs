//! Maps tokio's monotonic clock onto `snodo_proto::Instant`.
//!
//! `proto` reads no clock (`proto/src/time.rs`); its instants count from an
//! origin the adapter picks. Each connection takes the moment it starts.
//! tokio's `Instant` (not std's) is used so a paused test clock moves
//! deadlines too.

use core::time::Duration;
use snodo_proto::Instant;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    origin: tokio::time::Instant,
}

impl Clock {
    pub(crate) fn start() -> Self {
        Clock {
            origin: tokio::time::Instant::now(),
        }
    }

    /// The current time in `proto`'s terms.
    pub(crate) fn now(&self) -> Instant {
        let nanos = self.origin.elapsed().as_nanos();
        Instant::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }

    /// `proto`'s `at` on tokio's clock; `None` if too far out to represent.
    pub(crate) fn to_tokio(self, at: Instant) -> Option<tokio::time::Instant> {
        self.origin.checked_add(Duration::from_nanos(at.as_nanos()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_the_origin() {
        let clock = Clock::start();
        let at = Instant::from_millis(1500);
        let tokio_at = clock.to_tokio(at).unwrap();
        assert_eq!(tokio_at - clock.origin, Duration::from_millis(1500));
    }

    #[test]
    fn now_is_not_before_the_origin() {
        let clock = Clock::start();
        let a = clock.now();
        let b = clock.now();
        assert!(b >= a);
        assert!(a.as_nanos() < Duration::from_secs(60).as_nanos() as u64);
    }

    #[test]
    fn far_future_has_no_tokio_instant_rather_than_panicking() {
        let clock = Clock::start();
        // u64::MAX ns is ~584 years: representable or not depending on the
        // platform, but never a panic.
        let _ = clock.to_tokio(Instant::from_nanos(u64::MAX));
    }
}
