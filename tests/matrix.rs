//! The runtime axis of the test matrix: which adapter the fixture process
//! runs on, and starting it on each transport.
//!
//! The binary is `snodo-fixture-wire`, this package's build of the
//! fixture's own `main` source (see `Cargo.toml`); a test passes its path
//! (`env!("CARGO_BIN_EXE_snodo-fixture-wire")`, only known to test
//! targets) to [`fixture_bin`], and `SNODO_FIXTURE_BIN` overrides it to run
//! the same tests against another build.

use std::path::PathBuf;

use crate::http::HttpProcess;
use crate::process::StdioProcess;

/// The adapter the fixture runs on (`snodo-fixture --runtime`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// `snodo-tokio`.
    Tokio,
    /// `snodo-smol`.
    Smol,
    /// `snodo-blocking`.
    Blocking,
}

impl Runtime {
    /// The `--runtime` value.
    pub fn flag(self) -> &'static str {
        match self {
            Runtime::Tokio => "tokio",
            Runtime::Smol => "smol",
            Runtime::Blocking => "blocking",
        }
    }
}

/// The fixture binary: `SNODO_FIXTURE_BIN` if set, else `built`.
pub fn fixture_bin(built: &str) -> PathBuf {
    std::env::var_os("SNODO_FIXTURE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(built))
}

/// `snodo-fixture --stdio --runtime R`.
pub fn spawn_stdio(bin: &str, runtime: Runtime) -> StdioProcess {
    StdioProcess::spawn(&fixture_bin(bin), &["--stdio", "--runtime", runtime.flag()])
}

/// `snodo-fixture --listen 127.0.0.1:0 --runtime R`.
pub fn spawn_http(bin: &str, runtime: Runtime) -> HttpProcess {
    HttpProcess::spawn(
        &fixture_bin(bin),
        &["--listen", "127.0.0.1:0", "--runtime", runtime.flag()],
    )
}

/// One `#[test]` per runtime for each named function `fn(Runtime)`, in a
/// module per runtime (`tokio::name`, `smol::name`, `blocking::name`): the
/// tests are written once and the matrix is generated.
#[macro_export]
macro_rules! per_runtime {
    ($($test:ident),* $(,)?) => {
        mod tokio {
            $(#[test] fn $test() { super::$test($crate::Runtime::Tokio) })*
        }
        mod smol {
            $(#[test] fn $test() { super::$test($crate::Runtime::Smol) })*
        }
        mod blocking {
            $(#[test] fn $test() { super::$test($crate::Runtime::Blocking) })*
        }
    };
}
