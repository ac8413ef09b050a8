//! Property tests of the connection machine: generated sequences of client
//! bytes (stdio lines and HTTP requests on four connections), handler
//! outcomes and reports, cancellations, listen streams and hub events,
//! hang-ups and time jumps, each checked by the oracles of `machine/`:
//!
//! - every admitted request ends in exactly one terminal message, and
//!   nothing is written for a cancelled request after the cancellation;
//! - every stdio line is a well-formed JSON-RPC message; every HTTP byte
//!   belongs to a well-formed response (JSON or SSE) answering the
//!   requests in order;
//! - calls in flight, waiting calls and listen streams stay within the
//!   service's limits;
//! - the same inputs give the same outputs, however the reads are cut.
//!
//! The inputs come from a seeded generator, so a failure names its seed;
//! the fuzz target `machine` explores the same space without bound.

mod machine;

use machine::{fixture, gen, run, source};

/// Check the sequences generated from `seeds`; `MACHINE_SEEDS=a..b`
/// replaces the range (for long local runs, in release mode).
fn check_seeds(seeds: std::ops::Range<u64>, len: usize, max_ops: usize) {
    let seeds = match std::env::var("MACHINE_SEEDS").ok().and_then(|r| {
        let (a, b) = r.split_once("..")?;
        Some(a.parse().ok()?..b.parse().ok()?)
    }) {
        Some(r) => r,
        None => seeds,
    };
    let (service, hub) = fixture::service();
    let show_stats = std::env::var_os("MACHINE_STATS").is_some();
    let mut totals: std::collections::BTreeMap<String, usize> = Default::default();
    for seed in seeds {
        let data = source::random_bytes(seed, len);
        let ops = gen::ops(&data, max_ops);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run::check(&service, &hub, &ops, seed);
        }));
        if let Err(e) = result {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| String::from(*s)))
                .unwrap_or_default();
            panic!(
                "seed {seed} ({} ops) failed: {why}\n{}",
                ops.len(),
                gen::describe(&ops)
            );
        }
        if show_stats {
            let t = run::run(&service, &hub, &ops, run::Cuts::Lines);
            for (k, v) in run::stats(&t) {
                *totals.entry(k).or_insert(0) += v;
            }
        }
    }
    if show_stats {
        eprintln!("{totals:#?}");
    }
}

#[test]
fn short_sequences_keep_every_invariant() {
    check_seeds(0..250, 600, 40);
}

#[test]
fn long_sequences_keep_every_invariant() {
    check_seeds(1000..1030, 8000, 400);
}

/// The seed encoder of the fuzz corpus decodes to what it claims.
#[test]
fn seed_encoding_round_trips() {
    let line = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\"}\n";
    let mut data = gen::encode_send(1, line);
    data.extend(gen::encode_send(3, b"POST /mcp HTTP/1.1\r\n\r\n"));
    data.extend(gen::encode_finish_call(0));
    assert_eq!(
        gen::ops(&data, 10),
        vec![
            gen::Op::Send {
                slot: 1,
                data: line.to_vec(),
                sent: None
            },
            gen::Op::Send {
                slot: 3,
                data: b"POST /mcp HTTP/1.1\r\n\r\n".to_vec(),
                sent: None
            },
            gen::Op::Run { slot: 0, pick: 0 },
            gen::Op::Complete {
                slot: 0,
                pick: 0,
                answer: gen::Answer::Natural
            },
        ]
    );
}

/// Initialize-era sessions across HTTP connections and stdio
/// (`machine/sessions.rs`, also the `sessions` fuzz target): 300 seeded
/// sequences of up to 200 operations.
#[test]
fn sessions_keep_every_invariant() {
    for seed in 0..300u64 {
        let data = machine::source::random_bytes(seed, 3000);
        let outcome = std::panic::catch_unwind(|| machine::sessions::run(&data));
        if let Err(e) = outcome {
            panic!("seed {seed}: {e:?}");
        }
    }
}
