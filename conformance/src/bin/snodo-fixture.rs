//! `snodo-fixture`: serve the conformance fixture (see `snodo_conformance::cli`).

fn main() -> std::process::ExitCode {
    snodo_conformance::cli::main()
}
