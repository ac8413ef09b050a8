//! The README's "A complete program" is `examples/hello.rs`, which builds
//! and runs: the two cannot drift apart. The example's own module doc
//! (its leading `//!` lines and the blank line after them) is not in the
//! README; everything after it is, byte for byte.

const README: &str = include_str!("../../README.md");
const HELLO: &str = include_str!("../examples/hello.rs");

/// The first ```` ```rust ```` block under `## A complete program`,
/// through its last line's newline.
fn readme_program() -> &'static str {
    let (_, section) = README
        .split_once("\n## A complete program\n")
        .expect("the README has a section `## A complete program`");
    let (_, block) = section
        .split_once("```rust\n")
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

#[test]
fn the_readmes_complete_program_is_examples_hello_rs() {
    let readme = readme_program();
    let example = example_program();
    assert!(readme.contains("fn main()"), "the block read: {readme}");
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
            "README.md's \"A complete program\" differs from adapter-tokio/examples/hello.rs \
             ({line}): change both together"
        );
    }
}
