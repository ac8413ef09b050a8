//! `snodo-fixture`: serve the conformance fixture.
//!
//! stdout carries protocol messages only; every diagnostic goes to stderr
//! through `tracing` (level from `RUST_LOG`, default `warn`).

use std::process::ExitCode;

use tracing_subscriber::EnvFilter;

const USAGE: &str = "\
usage: snodo-fixture --stdio
       snodo-fixture --help

Serve the snodo MCP conformance fixture (protocol revision 2026-07-28).

options:
  --stdio                      serve newline-delimited JSON-RPC on stdin/stdout
  --listen ADDR                serve Streamable HTTP on ADDR (not yet available)
  --runtime tokio|smol|blocking
                               adapter for --listen (not yet available)
  -h, --help                   print this help

Diagnostics go to stderr; set RUST_LOG (default: warn) to change the level.
";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Help,
    Stdio,
}

/// Why the command line was refused.
#[derive(Debug, PartialEq, Eq)]
enum ArgError {
    Unknown(String),
    MissingValue(&'static str),
    NotYetAvailable(&'static str),
    NoMode,
    Conflict,
}

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgError::Unknown(a) => write!(f, "unknown argument {a:?}"),
            ArgError::MissingValue(flag) => write!(f, "{flag} needs a value"),
            ArgError::NotYetAvailable(flag) => write!(f, "{flag} is not yet available"),
            ArgError::NoMode => f.write_str("choose a transport: --stdio"),
            ArgError::Conflict => f.write_str("--stdio and --listen exclude each other"),
        }
    }
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, ArgError> {
    let mut stdio = false;
    let mut listen = false;
    let mut runtime = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--stdio" => stdio = true,
            "--listen" => {
                args.next().ok_or(ArgError::MissingValue("--listen"))?;
                listen = true;
            }
            "--runtime" => {
                args.next().ok_or(ArgError::MissingValue("--runtime"))?;
                runtime = true;
            }
            _ => return Err(ArgError::Unknown(arg)),
        }
    }
    match (stdio, listen, runtime) {
        (true, false, false) => Ok(Command::Stdio),
        (true, true, _) => Err(ArgError::Conflict),
        (_, true, _) => Err(ArgError::NotYetAvailable("--listen")),
        (_, _, true) => Err(ArgError::NotYetAvailable("--runtime")),
        (false, false, false) => Err(ArgError::NoMode),
    }
}

fn init_tracing() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .init();
}

fn main() -> ExitCode {
    let command = match parse(std::env::args().skip(1)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("snodo-fixture: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match command {
        Command::Help => {
            eprint!("{USAGE}");
            ExitCode::SUCCESS
        }
        Command::Stdio => {
            init_tracing();
            let service = match snodo_conformance::try_service() {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(error = %e, "the fixture does not build");
                    return ExitCode::FAILURE;
                }
            };
            match snodo_blocking::serve_stdio(&service, snodo_blocking::StdioOptions::default()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    tracing::error!(error = %e, "stdio serving failed");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| String::from(*s)).collect()
    }

    #[test]
    fn stdio_and_help_parse() {
        assert_eq!(parse(args(&["--stdio"])), Ok(Command::Stdio));
        assert_eq!(parse(args(&["--help"])), Ok(Command::Help));
        assert_eq!(parse(args(&["--stdio", "-h"])), Ok(Command::Help));
    }

    #[test]
    fn refusals() {
        assert_eq!(parse(args(&[])), Err(ArgError::NoMode));
        assert_eq!(
            parse(args(&["--bogus"])),
            Err(ArgError::Unknown(String::from("--bogus")))
        );
        assert_eq!(
            parse(args(&["--listen"])),
            Err(ArgError::MissingValue("--listen"))
        );
        assert_eq!(
            parse(args(&["--listen", "127.0.0.1:0", "--runtime", "tokio"])),
            Err(ArgError::NotYetAvailable("--listen"))
        );
        assert_eq!(
            parse(args(&["--stdio", "--listen", "x"])),
            Err(ArgError::Conflict)
        );
        assert_eq!(
            parse(args(&["--stdio", "--runtime", "smol"])),
            Err(ArgError::NotYetAvailable("--runtime"))
        );
    }
}
