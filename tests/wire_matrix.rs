//! The integration suite, once per cell of the matrix {stdio, Streamable
//! HTTP} × {tokio, smol, blocking}, plus `snodo-proto`'s `Connection`
//! in-process: every cell runs the same [`run_table`] over its transport
//! (all vectors in order on one connection, then each bad message followed
//! by a served request), so the same literal request must get the same
//! JSON everywhere. Over HTTP each vector's status is checked as well, and
//! the vectors that are about a byte stream are stdio's only.
//!
//! One fixture process per cell.

use snodo_tests::{run_table, spawn_http, spawn_stdio, Direct, Runtime};

const FIXTURE: &str = env!("CARGO_BIN_EXE_snodo-fixture-wire");

fn stdio(runtime: Runtime) {
    let mut p = spawn_stdio(FIXTURE, runtime);
    run_table(&mut p);
    p.finish();
}

fn http(runtime: Runtime) {
    let mut p = spawn_http(FIXTURE, runtime);
    run_table(&mut p);
    assert_eq!(
        p.connections(),
        1,
        "every request on one keep-alive connection"
    );
    p.finish();
}

#[test]
fn direct() {
    run_table(&mut Direct::new(&snodo_conformance::service()));
}

#[test]
fn stdio_tokio() {
    stdio(Runtime::Tokio);
}

#[test]
fn stdio_smol() {
    stdio(Runtime::Smol);
}

#[test]
fn stdio_blocking() {
    stdio(Runtime::Blocking);
}

#[test]
fn http_tokio() {
    http(Runtime::Tokio);
}

#[test]
fn http_smol() {
    http(Runtime::Smol);
}

#[test]
fn http_blocking() {
    http(Runtime::Blocking);
}
