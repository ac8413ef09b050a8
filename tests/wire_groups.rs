//! Each group of the literal vector table on its own, in order on a fresh
//! in-process [`Connection`](snodo_proto::Connection), so that a failure
//! names the group and the contract report (`evidence/contract/`) can give
//! each group its own evidence id. The whole table on every transport and
//! runtime is `wire_matrix.rs`.

use snodo_tests::vectors::{
    ADMISSION, COMPLETION, DISCOVERY, ENVELOPE, NOTIFICATIONS, PROMPTS, RESOURCES, STREAM, TOOLS,
};
use snodo_tests::{assert_vectors, Direct, Scope, Vector};

fn group(vectors: &[Vector]) {
    assert!(!vectors.is_empty(), "a group has vectors");
    assert_vectors(
        &mut Direct::new(&snodo_conformance::service()),
        vectors,
        &[Scope::Any, Scope::Stream],
    );
}

#[test]
fn discovery() {
    group(DISCOVERY);
}

#[test]
fn tools() {
    group(TOOLS);
}

#[test]
fn resources() {
    group(RESOURCES);
}

#[test]
fn prompts() {
    group(PROMPTS);
}

#[test]
fn completion() {
    group(COMPLETION);
}

#[test]
fn admission() {
    group(ADMISSION);
}

#[test]
fn envelope() {
    group(ENVELOPE);
}

#[test]
fn notifications() {
    group(NOTIFICATIONS);
}

#[test]
fn stream() {
    group(STREAM);
}
