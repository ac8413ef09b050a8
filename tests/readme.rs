//! The README's "A complete program" is `snodo/examples/hello.rs`, which
//! builds and runs, and it is also the front door's (`snodo/README.md`,
//! the crate's documentation, compiled as a doctest): the three cannot
//! drift apart. The example's own module doc (its leading `//!` lines and
//! the blank line after them) is not in the READMEs; everything after it
//! is, byte for byte. (`.ci/package` builds the same program outside the
//! workspace, against the packaged crates.)

const README: &str = include_str!("../README.md");
const FRONT_DOOR: &str = include_str!("../snodo/README.md");
const HELLO: &str = include_str!("../snodo/examples/hello.rs");

/// The first ```` ```rust ```` block (`fence` names its attributes) under
/// `## A complete program`, through its last line's newline.
fn readme_program(readme: &'static str, fence: &str) -> &'static str {
    let (_, section) = readme
        .split_once("\n## A complete program\n")
        .expect("the README has a section `## A complete program`");
    let (_, block) = section
        .split_once(fence)
        .expect("the section opens a ```rust block");
    let end = block.find("\n```").expect("the ```rust block is closed");
    &block[..=end]
}

/// `hello.rs` after its module doc.
fn example_program() -> &'static str {
    let mut rest = HELLO;
    while rest.starts_with("//!") {
        let line_end = rest.find('\n').expect("the module doc ends with a newline");
        rest = &rest[line_end + 1..];
    }
    rest.strip_prefix('\n')
        .expect("a blank line after the module doc")
}

fn assert_same(which: &str, readme: &str) {
    let example = example_program();
    assert!(readme.contains("fn main()"), "the block read: {readme}");
    assert!(
        readme.contains("use snodo::prelude::*;"),
        "{which}'s program starts from the prelude"
    );
    if readme != example {
        let line = readme
            .lines()
            .zip(example.lines())
            .position(|(a, b)| a != b)
            .map_or_else(
                || "one is longer".to_string(),
                |i| format!("first difference at line {} of the program", i + 1),
            );
        panic!(
            "{which}'s \"A complete program\" differs from snodo/examples/hello.rs \
             ({line}): change them together"
        );
    }
}

#[test]
fn the_readmes_complete_program_is_snodo_examples_hello_rs() {
    assert_same("README.md", readme_program(README, "```rust\n"));
}

#[test]
fn the_front_doors_complete_program_is_the_same() {
    assert_same(
        "snodo/README.md",
        readme_program(FRONT_DOOR, "```rust,no_run\n"),
    );
}
