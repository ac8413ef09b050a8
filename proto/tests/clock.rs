//! The anchored clock every driver uses: wall time at the anchor plus the
//! monotonic time since.

use snodo_proto::time::Clock;
use snodo_proto::Instant;
use std::time::Duration;

#[test]
fn readings_map_onto_epoch_instants_and_back() {
    let origin = std::time::Instant::now();
    let clock = Clock::anchored(Duration::from_secs(1_700_000_000), origin);
    assert_eq!(clock.at(origin), Instant::from_millis(1_700_000_000_000));
    let later = origin + Duration::from_millis(1500);
    assert_eq!(clock.at(later), Instant::from_millis(1_700_000_001_500));
    assert_eq!(clock.monotonic(clock.at(later)), Some(later));
}

#[test]
fn instants_never_go_back_past_the_anchor() {
    let origin = std::time::Instant::now() + Duration::from_secs(10);
    let clock = Clock::anchored(Duration::from_secs(100), origin);
    // A reading before the anchor, and an instant before it, map to it.
    assert_eq!(
        clock.at(origin - Duration::from_secs(5)),
        Instant::from_millis(100_000)
    );
    assert_eq!(clock.monotonic(Instant::ZERO), Some(origin));
    // Too far out to represent is None, not a panic.
    let _ = clock.monotonic(Instant::from_nanos(u64::MAX));
}
