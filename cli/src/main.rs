//! `snodo`: a command-line MCP client on snodo-client. `snodo --help`
//! says how; [`args`] parses the line, [`run`] does the one request.

use std::process::ExitCode;

mod agent;
mod args;
mod run;

use args::Usage;
use run::Outcome;

fn print(value: &serde_json::Value, compact: bool) {
    let text = match compact {
        true => serde_json::to_string(value),
        false => serde_json::to_string_pretty(value),
    };
    println!("{}", text.unwrap_or_default());
}

fn main() -> ExitCode {
    let line: Vec<String> = std::env::args().skip(1).collect();
    let invocation = match args::parse(&line) {
        Ok(invocation) => invocation,
        Err(Usage::Help) => {
            println!("{}", args::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(Usage::Wrong(why)) => {
            eprintln!("snodo: {why}\n\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    let compact = invocation.options.compact;
    match run::run(&invocation) {
        Outcome::Answer(value) => {
            print(&value, compact);
            ExitCode::SUCCESS
        }
        Outcome::ToolError(value) => {
            print(&value, compact);
            ExitCode::from(3)
        }
        Outcome::Failed(why) => {
            eprintln!("snodo: {why}");
            ExitCode::FAILURE
        }
    }
}
