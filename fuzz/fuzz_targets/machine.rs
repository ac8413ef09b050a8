//! The whole server machine: several stdio and HTTP connections of one
//! service fed an arbitrary sequence of client bytes, handler outcomes and
//! reports, cancellations, listen streams and hub events, hang-ups,
//! shutdowns and time jumps (`proto/tests/machine/gen.rs`), checked after
//! every step by the oracles of `proto/tests/machine/` (exactly one
//! terminal message per request, nothing after a cancellation, well-formed
//! lines and HTTP/SSE, bounded calls, queues and streams, no deadline left
//! behind, every connection closing at the end), then run again to check
//! determinism and again with differently cut reads. `MACHINE_DESCRIBE=1`
//! prints the operations an input decodes to (for triage).

#![no_main]

use libfuzzer_sys::fuzz_target;
use snodo_fuzz::machine::{gen, run};

fuzz_target!(|data: &[u8]| {
    let (service, hub) = snodo_fuzz::fixture();
    let ops = gen::ops(data, 256);
    if std::env::var_os("MACHINE_DESCRIBE").is_some() {
        eprintln!("{}", gen::describe(&ops));
    }
    let seed = data.iter().fold(0x9e37_79b9_7f4a_7c15u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    run::check(service, hub, &ops, seed);
});
