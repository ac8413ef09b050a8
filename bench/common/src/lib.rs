//! Shared bits of the benchmark binaries: the command line every echo
//! server takes, and printing the bound address.
//!
//! Every server binary here speaks the same command line as the snodo
//! fixture: `--listen ADDR` (Streamable HTTP at `http://ADDR/mcp`; port 0
//! picks a free port and the bound address is the first stdout line) or
//! `--stdio`, plus `--runtime tokio|smol|blocking` where the binary offers
//! a choice.

use std::io::Write;
use std::net::SocketAddr;

/// What a server binary was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// Serve Streamable HTTP on this address.
    Listen(SocketAddr),
    /// Serve newline-delimited JSON-RPC on stdin/stdout.
    Stdio,
}

/// The parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    /// Transport.
    pub mode: Mode,
    /// `--runtime`, if given.
    pub runtime: Option<String>,
}

/// Parse `--listen ADDR | --stdio [--runtime NAME]`; exits with usage on error.
pub fn args(name: &str) -> Args {
    parse(name, std::env::args().skip(1))
}

/// [`args`] from `args` (the program name left out).
pub fn parse(name: &str, args: impl IntoIterator<Item = String>) -> Args {
    let usage = format!(
        "usage: {name} --listen ADDR [--runtime NAME]\n       {name} --stdio [--runtime NAME]"
    );
    let mut mode = None;
    let mut runtime = None;
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--stdio" => mode = Some(Mode::Stdio),
            "--listen" => {
                let v = it.next().unwrap_or_default();
                match v.parse() {
                    Ok(addr) => mode = Some(Mode::Listen(addr)),
                    Err(_) => fail(&usage, &format!("bad address {v:?}")),
                }
            }
            "--runtime" => runtime = it.next(),
            other => fail(&usage, &format!("unknown argument {other:?}")),
        }
    }
    match mode {
        Some(mode) => Args { mode, runtime },
        None => fail(&usage, "choose --listen ADDR or --stdio"),
    }
}

fn fail(usage: &str, why: &str) -> ! {
    eprintln!("{why}\n{usage}");
    std::process::exit(2)
}

/// Print the bound address as the first stdout line.
pub fn announce(addr: SocketAddr) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{addr}");
    let _ = out.flush();
}
