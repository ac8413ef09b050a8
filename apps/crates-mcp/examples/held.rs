//! The snodo-crates server with a [`Gate`] on `index_cache`, closed while a
//! file exists: for tests that drive the server from outside (the released
//! TypeScript client's lane, `evidence/client-interop/crates`), which
//! cannot reach a gate in-process.
//!
//! ```text
//! held --hold FILE [--registry DIR] (stdio | http [ADDR])
//! ```
//!
//! While `FILE` exists, an `index_cache` call that has finished holds its
//! answer, so the lane sees a task `working` with its progress however
//! fast the machine reads; removing `FILE` lets the answer go.

use std::path::PathBuf;
use std::time::Duration;

use snodo_crates::serve::{parse_args, serve};
use snodo_crates::App;
use snodo_proto::layer::{self, Call};
use snodo_testkit::Gate;

/// Close `gate` while `hold` exists, open it once `hold` is gone.
fn follow(gate: &Gate, hold: &std::path::Path) {
    if hold.exists() {
        gate.close();
    } else {
        gate.open();
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (hold, rest) = match args.as_slice() {
        [flag, file, rest @ ..] if flag == "--hold" => (PathBuf::from(file), rest),
        _ => return Err("usage: held --hold FILE [--registry DIR] (stdio | http [ADDR])".into()),
    };
    let (registry, transport) = parse_args(rest)?;
    let app = App::open(&registry);

    let gate = Gate::new();
    // Inside the gate: a call that finishes while the file exists finds
    // the gate closed, however soon after the file was written it ran.
    let at_answer = {
        let (gate, hold) = (gate.clone(), hold.clone());
        layer::from_fn(move |call: Call| {
            let (gate, hold) = (gate.clone(), hold.clone());
            async move {
                let outcome = call.run().await;
                follow(&gate, &hold);
                outcome
            }
        })
    };
    // The file going away is seen by looking: the lane has no other way
    // to tell the server.
    let watched = gate.clone();
    tokio::spawn(async move {
        loop {
            follow(&watched, &hold);
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });

    let builder = snodo_crates::with_tasks(snodo_crates::builder(app.clone()))
        .tool_layer("index_cache", gate)
        .tool_layer("index_cache", at_answer);
    serve(app, builder, transport).await
}
