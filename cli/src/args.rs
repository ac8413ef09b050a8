//! The command line, parsed into plain values: which server, what to ask
//! it, and how. No I/O here; `main` reads `std::env::args` and hands them
//! over, and the tests parse literal lines.

use std::time::Duration;

use serde_json::Value;

/// The usage text, printed for `--help` and after a parse error.
pub const USAGE: &str = "\
usage: snodo [OPTIONS] <COMMAND> <SERVER> [ARGS]

commands:
  list   SERVER [tools|resources|templates|prompts]   every item, all pages (default: tools)
  call   SERVER TOOL [ARGUMENTS]                      call a tool; ARGUMENTS is a JSON object
  read   SERVER URI                                   read a resource
  prompt SERVER NAME [ARGUMENTS]                      get a prompt; ARGUMENTS is a JSON object of strings
  info   SERVER                                       what the server said about itself when connecting

SERVER is an http:// or https:// URL (Streamable HTTP), or a command line that
starts a stdio server (split as a shell would, not run by one), e.g.
  snodo call 'node server.js --port 0' greet '{\"name\":\"Ada\"}'

options:
  --protocol VERSION   the revision to speak first (default 2026-07-28; the others follow)
  --timeout SECONDS    the deadline of each request (default 60)
  --ca FILE            trust the root CA certificates in this PEM file too (https:
                       the MCP server's, and the OAuth authorization server's)
  --proxy URL          go through this HTTP proxy, http://[user:password@]host[:port],
                       for http:// and https:// servers (and the OAuth requests)
                       instead of the one the environment names
  --noproxy LIST       reach these hosts directly (comma-separated; * for all),
                       instead of the environment's no_proxy / NO_PROXY
  --bearer TOKEN       send Authorization: Bearer TOKEN
  --oauth              authorize through OAuth when the server asks (401): the
                       authorization URL is printed, and the URL the browser was
                       redirected to is read from stdin
  --redirect-uri URI   the OAuth redirect URI (default http://localhost:3000/callback)
  --compact            one line of JSON instead of indented JSON
  -v, --verbose        the server's notifications on stderr
  -h, --help           this text

Proxies come from the environment as curl reads it unless --proxy names one:
https_proxy (or HTTPS_PROXY), http_proxy (or HTTP_PROXY, not under CGI),
all_proxy (or ALL_PROXY), no_proxy (or NO_PROXY); lower case wins.

Output is JSON on stdout. Exit status: 0, 1 when the request failed, 2 for a
usage error, 3 when the tool reported an execution error (isError).";

/// Where the server is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Server {
    /// Streamable HTTP.
    Url(String),
    /// A process to spawn and speak stdio with: program and arguments.
    Command(Vec<String>),
}

/// What a `list` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// `tools/list`.
    Tools,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    Templates,
    /// `prompts/list`.
    Prompts,
}

/// What to ask the server.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Every item of a list.
    List(Listing),
    /// `tools/call`.
    Call {
        /// The tool.
        tool: String,
        /// Its arguments (an object).
        arguments: Value,
    },
    /// `resources/read`.
    Read {
        /// The resource.
        uri: String,
    },
    /// `prompts/get`.
    Prompt {
        /// The prompt.
        name: String,
        /// Its arguments (an object of strings), or `Null` for none.
        arguments: Value,
    },
    /// The server's own description (version, capabilities, info).
    Info,
}

/// How to reach and authorize.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The revision to try first.
    pub protocol: Option<String>,
    /// The deadline of each request.
    pub timeout: Duration,
    /// A PEM file of extra root CAs.
    pub ca: Option<String>,
    /// `--proxy URL`: this proxy, not the environment's.
    pub proxy: Option<String>,
    /// `--noproxy LIST`: these hosts direct, not the environment's list.
    pub noproxy: Option<String>,
    /// A fixed bearer token.
    pub bearer: Option<String>,
    /// OAuth on a 401.
    pub oauth: bool,
    /// The OAuth redirect URI.
    pub redirect_uri: String,
    /// One line of JSON.
    pub compact: bool,
    /// Notifications on stderr.
    pub verbose: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            protocol: None,
            timeout: Duration::from_secs(60),
            ca: None,
            proxy: None,
            noproxy: None,
            bearer: None,
            oauth: false,
            redirect_uri: String::from("http://localhost:3000/callback"),
            compact: false,
            verbose: false,
        }
    }
}

/// A whole invocation.
#[derive(Clone, Debug, PartialEq)]
pub struct Invocation {
    /// Where.
    pub server: Server,
    /// What.
    pub command: Command,
    /// How.
    pub options: Options,
}

/// Why the command line is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Usage {
    /// `--help`.
    Help,
    /// Something is wrong; the message says what.
    Wrong(String),
}

fn wrong<T>(why: impl Into<String>) -> Result<T, Usage> {
    Err(Usage::Wrong(why.into()))
}

/// A JSON object from the command line.
fn object(text: &str, what: &str) -> Result<Value, Usage> {
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => wrong(format!("{what} must be a JSON object, got {text}")),
        Err(e) => wrong(format!("{what} is not JSON ({e}): {text}")),
    }
}

/// `SERVER` as a URL or a command line.
fn server(text: &str) -> Result<Server, Usage> {
    if text.starts_with("http://") || text.starts_with("https://") {
        return Ok(Server::Url(text.to_owned()));
    }
    match shlex::split(text) {
        Some(argv) if !argv.is_empty() => Ok(Server::Command(argv)),
        _ => wrong(format!(
            "SERVER {text:?} is neither a URL nor a command line"
        )),
    }
}

/// Parse the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Invocation, Usage> {
    let mut options = Options::default();
    let mut positional = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| match it.next() {
            Some(v) => Ok(v.clone()),
            None => wrong(format!("{name} needs a value")),
        };
        match arg.as_str() {
            "-h" | "--help" => return Err(Usage::Help),
            "--protocol" => options.protocol = Some(value("--protocol")?),
            "--timeout" => {
                let text = value("--timeout")?;
                let secs: f64 = text
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| {
                        Usage::Wrong(format!("--timeout {text}: not a number of seconds"))
                    })?;
                options.timeout = Duration::from_secs_f64(secs);
            }
            "--ca" => options.ca = Some(value("--ca")?),
            "--proxy" => options.proxy = Some(value("--proxy")?),
            "--noproxy" => options.noproxy = Some(value("--noproxy")?),
            "--bearer" => options.bearer = Some(value("--bearer")?),
            "--oauth" => options.oauth = true,
            "--redirect-uri" => options.redirect_uri = value("--redirect-uri")?,
            "--compact" => options.compact = true,
            "-v" | "--verbose" => options.verbose = true,
            "--" => positional.extend(it.by_ref().cloned()),
            flag if flag.starts_with("--") => return wrong(format!("unknown option {flag}")),
            _ => positional.push(arg.clone()),
        }
    }
    let mut positional = positional.into_iter();
    let Some(name) = positional.next() else {
        return wrong("no command");
    };
    let Some(at) = positional.next() else {
        return wrong(format!("{name}: no SERVER"));
    };
    let server = server(&at)?;
    let rest: Vec<String> = positional.collect();
    let arity = |min: usize, max: usize| {
        if rest.len() < min || rest.len() > max {
            wrong(format!("{name}: wrong number of arguments\n"))
        } else {
            Ok(())
        }
    };
    let command = match name.as_str() {
        "list" => {
            arity(0, 1)?;
            Command::List(match rest.first().map(String::as_str) {
                None | Some("tools") => Listing::Tools,
                Some("resources") => Listing::Resources,
                Some("templates") => Listing::Templates,
                Some("prompts") => Listing::Prompts,
                Some(other) => {
                    return wrong(format!(
                        "list {other}: tools, resources, templates or prompts"
                    ))
                }
            })
        }
        "call" => {
            arity(1, 2)?;
            Command::Call {
                tool: rest[0].clone(),
                arguments: match rest.get(1) {
                    Some(text) => object(text, "ARGUMENTS")?,
                    None => Value::Object(Default::default()),
                },
            }
        }
        "read" => {
            arity(1, 1)?;
            Command::Read {
                uri: rest[0].clone(),
            }
        }
        "prompt" => {
            arity(1, 2)?;
            Command::Prompt {
                name: rest[0].clone(),
                arguments: match rest.get(1) {
                    Some(text) => object(text, "ARGUMENTS")?,
                    None => Value::Null,
                },
            }
        }
        "info" => {
            arity(0, 0)?;
            Command::Info
        }
        other => return wrong(format!("unknown command {other}")),
    };
    Ok(Invocation {
        server,
        command,
        options,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(args: &[&str]) -> Result<Invocation, Usage> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn a_call_over_http_with_options() {
        let i = line(&[
            "--timeout",
            "2.5",
            "call",
            "https://example.com/mcp",
            "greet",
            r#"{"name":"Ada"}"#,
            "--compact",
        ])
        .unwrap();
        assert_eq!(i.server, Server::Url("https://example.com/mcp".into()));
        assert_eq!(
            i.command,
            Command::Call {
                tool: "greet".into(),
                arguments: json!({"name": "Ada"})
            }
        );
        assert_eq!(i.options.timeout, Duration::from_millis(2500));
        assert!(i.options.compact);
        let i = line(&[
            "--proxy",
            "http://proxy:3128",
            "--noproxy",
            "localhost",
            "info",
            "http://x/mcp",
        ])
        .unwrap();
        assert_eq!(i.options.proxy.as_deref(), Some("http://proxy:3128"));
        assert_eq!(i.options.noproxy.as_deref(), Some("localhost"));
    }

    #[test]
    fn a_stdio_server_is_split_as_a_shell_would() {
        let i = line(&["list", "node 'my server.js' --flag", "prompts"]).unwrap();
        assert_eq!(
            i.server,
            Server::Command(vec!["node".into(), "my server.js".into(), "--flag".into()])
        );
        assert_eq!(i.command, Command::List(Listing::Prompts));
    }

    #[test]
    fn mistakes_are_named() {
        assert_eq!(line(&["--help"]), Err(Usage::Help));
        let Err(Usage::Wrong(why)) = line(&["call", "http://x/mcp", "t", "[1]"]) else {
            panic!()
        };
        assert!(why.contains("JSON object"), "{why}");
        assert!(matches!(line(&["list"]), Err(Usage::Wrong(_))));
        assert!(matches!(
            line(&["frob", "http://x/mcp"]),
            Err(Usage::Wrong(_))
        ));
        assert!(matches!(
            line(&["--nope", "list", "http://x/mcp"]),
            Err(Usage::Wrong(_))
        ));
    }
}
