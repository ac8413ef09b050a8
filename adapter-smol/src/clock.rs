//! The OS monotonic clock, expressed as `snodo_proto::Instant`.
//!
//! `proto` reads no clock (`proto/src/time.rs`): the adapter picks an origin
//! and passes elapsed time in. Deadlines come back as proto instants and are
//! turned into `std::time::Instant`s for `async_io::Timer::at`.

use snodo_proto::Instant;
use std::time::Duration;

/// One origin shared by every connection an adapter drives.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    origin: std::time::Instant,
}

impl Clock {
    pub(crate) fn new() -> Self {
        Clock {
            origin: std::time::Instant::now(),
        }
    }

    /// Now, as nanoseconds since the origin.
    pub(crate) fn now(&self) -> Instant {
        let nanos = self.origin.elapsed().as_nanos();
        Instant::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }

    /// The OS instant of a proto deadline; `None` when it is too far away
    /// to represent, which is the same as never.
    pub(crate) fn to_std(self, at: Instant) -> Option<std::time::Instant> {
        self.origin.checked_add(Duration::from_nanos(at.as_nanos()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_round_trip_through_the_origin() {
        let clock = Clock::new();
        let at = Instant::from_millis(1_500);
        assert_eq!(
            clock.to_std(at).unwrap() - clock.origin,
            Duration::from_millis(1_500)
        );
    }

    #[test]
    fn now_moves_forward() {
        let clock = Clock::new();
        let a = clock.now();
        std::thread::sleep(Duration::from_millis(2));
        assert!(clock.now() > a);
    }
}
