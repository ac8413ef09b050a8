//! Initialize-era sessions (`proto/tests/machine/sessions.rs`): handshakes,
//! forged and stale session ids, answers to the server's requests routed
//! across HTTP connections, cancellations, GET streams, DELETE, hang-ups
//! and time jumps on four HTTP connections and one stdio connection. The
//! oracles are the property test's own.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    snodo_fuzz::machine::sessions::run(data);
});
