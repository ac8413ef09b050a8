//! The client's side of Streamable HTTP (`snodo_proto::client::exchange`,
//! over the HTTP/1.1 response and SSE decoders): any answer to a
//! `tools/call` POST, cut into reads anywhere, gives the same steps and the
//! same machine events as when read whole (split invariance), never panics,
//! and ends the exchange with the round settled: answered, failed, or
//! handed to the authorizer.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use snodo_fuzz::machine::source::Source;
use snodo_proto::client::exchange::{Exchange, ExchangeError, ExchangeLimits, OnChallenge, Step};
use snodo_proto::client::http::ResponseLimits;
use snodo_proto::client::sse::SseLimits;
use snodo_proto::client::{Client, ClientConfig, Event, Wire};

/// Small limits, so the fuzzer reaches them.
fn limits() -> ExchangeLimits {
    ExchangeLimits {
        response: ResponseLimits {
            max_head: 512,
            max_headers: 16,
        },
        sse: SseLimits::default(),
        max_json: 2048,
    }
}

/// What one run came to: the steps other than `Read`, the final error if
/// any, and every event the machine produced.
#[derive(Debug, PartialEq)]
struct Run {
    steps: Vec<Result<Step, ExchangeError>>,
    events: Vec<Event>,
    pending: bool,
}

fn run(answer: &[u8], cuts: &[usize], on_challenge: OnChallenge) -> Run {
    let mut client = Client::new(ClientConfig::new("fuzz", "1", Wire::Http));
    client.request("tools/call", json!({"name": "t", "arguments": {}}));
    let transmit = client.poll_transmit().expect("the request");
    let (mut exchange, _) =
        Exchange::start(&transmit, "/mcp", "h", None, on_challenge, limits()).expect("a request");
    let mut steps = Vec::new();
    let mut start = 0;
    let mut over = false;
    for &end in cuts.iter().chain(std::iter::once(&answer.len())) {
        let end = end.clamp(start, answer.len());
        let step = exchange.push(&answer[start..end], &mut client);
        start = end;
        if step != Ok(Step::Read) {
            over = true;
            steps.push(step);
            break;
        }
    }
    if !over {
        steps.push(exchange.close(&mut client));
    }
    if let Some(Ok(Step::Challenged { .. })) = steps.last() {
        // The authorizer gives up: the round fails with the status.
        steps.push(exchange.refused(&mut client).map(|()| Step::Read));
    }
    let mut events = Vec::new();
    while let Some(e) = client.poll_event() {
        events.push(e);
    }
    let pending = client.is_pending(1);
    Run {
        steps,
        events,
        pending,
    }
}

fuzz_target!(|data: &[u8]| {
    let mut source = Source::new(data);
    let on_challenge = if source.byte() & 1 == 1 {
        OnChallenge::HandBack
    } else {
        OnChallenge::FailTheRound
    };
    let mut cuts: Vec<usize> = (0..source.byte() % 8)
        .map(|_| usize::from(source.u16()))
        .collect();
    cuts.sort_unstable();
    let answer = &data[source.consumed().min(data.len())..];
    let whole = run(answer, &[], on_challenge);
    let split = run(answer, &cuts, on_challenge);
    assert_eq!(whole, split, "cuts {cuts:?}");
    // A round is never left waiting once its exchange is over, except for
    // an unreadable answer, which the transport's caller reports.
    let unreadable = whole.steps.iter().any(Result::is_err);
    assert!(!whole.pending || unreadable, "{whole:?}");
});
