//! Timestamps. Time comes in as `snodo_proto::Instant` (nanoseconds since
//! the UNIX epoch, `snodo_proto::time`); the store keeps milliseconds, the
//! wire shows ISO 8601 (`tasks.md` § Tasks: `createdAt`, `lastUpdatedAt`).

use snodo_proto::Instant;

/// Milliseconds since the UNIX epoch.
pub(crate) fn millis(now: Instant) -> u64 {
    now.as_nanos() / 1_000_000
}

/// `YYYY-MM-DDThh:mm:ss.mmmZ` for `ms` milliseconds since the epoch (UTC).
pub(crate) fn iso8601(ms: u64) -> String {
    let secs = ms / 1000;
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
        ms % 1000
    )
}

/// Proleptic Gregorian date of `days` after 1970-01-01 (H. Hinnant's
/// `civil_from_days`, for non-negative day counts).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        // 2025-11-25T10:30:00Z, the spec's example time.
        assert_eq!(iso8601(1_764_066_600_000), "2025-11-25T10:30:00.000Z");
        assert_eq!(iso8601(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso8601(4_102_444_799_999), "2099-12-31T23:59:59.999Z");
    }
}
