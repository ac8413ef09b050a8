//! One invocation: connect to the server, ask it the one thing, and say
//! what came back as JSON.

use std::process::Command as Process;
use std::sync::Arc;

use serde_json::{json, Value};
use snodo_client::{
    Authorizer, AuthorizerError, Error, Handler, HttpTransport, NoProxy, Proxy, ProxySettings,
    Session, StdioTransport, TlsConfig, Transport,
};
use snodo_oauth_client::{HttpProxy, OAuthClient, OAuthConfig, UreqHttp};
use snodo_proto::client::{ClientConfig, OpId, Wire, SUPPORTED_VERSIONS};

use crate::agent::TerminalAgent;
use crate::args::{Command, Invocation, Listing, Options, Server};

/// How an invocation ended.
#[derive(Debug)]
pub enum Outcome {
    /// The answer, to print.
    Answer(Value),
    /// A tool's result with `isError: true`, to print (exit status 3).
    ToolError(Value),
    /// The request failed: why (exit status 1).
    Failed(String),
}

/// The handler of a terminal client: no one to ask, so elicitation is
/// declined and sampling and roots are refused (the defaults); with
/// `--verbose` the server's notifications go to stderr.
struct Terminal {
    verbose: bool,
}

impl Handler for Terminal {
    fn notification(&mut self, _op: Option<OpId>, message: &Value) {
        if self.verbose {
            eprintln!("notification: {message}");
        }
    }
}

/// `--bearer TOKEN`: the same header on every request, and no second try
/// after a refusal.
struct Bearer(String);

impl Authorizer for Bearer {
    fn authorization(&self, _endpoint: &str) -> Option<String> {
        Some(format!("Bearer {}", self.0))
    }

    fn challenged(&self, _: &str, _: u16, _: &[String]) -> Result<bool, AuthorizerError> {
        Ok(false)
    }
}

fn config(options: &Options, wire: Wire) -> ClientConfig {
    // Every revision, so that a server of the initialize era is met with
    // `initialize` after the probe (`basic/versioning.mdx` § Backward
    // Compatibility): the command line is for poking any server.
    let mut config = ClientConfig::dual_era("snodo", env!("CARGO_PKG_VERSION"), wire);
    if let Some(first) = &options.protocol {
        config.versions = std::iter::once(first.as_str())
            .chain(SUPPORTED_VERSIONS.iter().copied().filter(|v| v != first))
            .map(String::from)
            .collect();
    }
    config
}

/// The proxies: `--proxy` for every server, else the environment's (as
/// curl reads it); the hosts reached directly from `--noproxy`, else the
/// environment's `no_proxy` / `NO_PROXY`. `var` looks the environment up.
pub fn proxies(
    options: &Options,
    var: impl Fn(&str) -> Option<String>,
) -> Result<ProxySettings, String> {
    let settings = match &options.proxy {
        Some(url) => {
            let proxy = Proxy::parse(url).map_err(|e| format!("--proxy: {e}"))?;
            let listed = ["no_proxy", "NO_PROXY"]
                .iter()
                .find_map(|name| var(name).filter(|v| !v.trim().is_empty()));
            ProxySettings::all(proxy)
                .with_no_proxy(listed.map(|l| NoProxy::parse(&l)).unwrap_or_default())
        }
        // `--noproxy '*'`: direct, whatever the environment holds.
        None if options.noproxy.as_deref().map(str::trim) == Some("*") => ProxySettings::direct(),
        None => ProxySettings::from_vars(&var)
            .map_err(|e| format!("{e} (--proxy URL or --noproxy '*' overrides it)"))?,
    };
    Ok(match &options.noproxy {
        Some(list) => settings.with_no_proxy(NoProxy::parse(list)),
        None => settings,
    })
}

/// The HTTP transport `options` ask for.
fn http(url: &str, options: &Options) -> Result<HttpTransport, String> {
    let proxies = proxies(options, |name| std::env::var(name).ok())?;
    let mut transport = HttpTransport::new(url)
        .map_err(|e| e.to_string())?
        .with_timeout(options.timeout)
        .with_proxy(&proxies);
    let tls = match &options.ca {
        Some(file) => {
            let pem = std::fs::read(file).map_err(|e| format!("--ca {file}: {e}"))?;
            TlsConfig::webpki_roots()
                .with_root_pem(&pem)
                .map_err(|e| format!("--ca {file}: {e}"))?
        }
        None => TlsConfig::webpki_roots(),
    };
    transport = transport.with_tls(&tls);
    let authorizer: Option<Arc<dyn Authorizer>> = match (&options.bearer, options.oauth) {
        (Some(token), _) => Some(Arc::new(Bearer(token.clone()))),
        (None, true) => {
            // The authorization server is trusted as the MCP server is.
            // The authorization server is reached as the MCP server is:
            // the same proxies, the same hosts direct.
            let http = Arc::new(
                UreqHttp::with_tls(options.timeout, tls.rustls_config()).with_proxy(
                    move |url: &str| {
                        proxies.proxy_for_url(url).map(|p| HttpProxy {
                            host: p.host().to_owned(),
                            port: p.port(),
                            credentials: p
                                .credentials()
                                .map(|(u, pw)| (u.to_owned(), pw.to_owned())),
                        })
                    },
                ),
            );
            let config = OAuthConfig::new("snodo", &options.redirect_uri);
            Some(Arc::new(OAuthClient::new(
                http,
                Box::new(TerminalAgent),
                config,
            )))
        }
        (None, false) => None,
    };
    if let Some(authorizer) = authorizer {
        transport = transport.with_authorizer(authorizer);
    }
    Ok(transport)
}

/// Run `invocation` to its outcome.
pub fn run(invocation: &Invocation) -> Outcome {
    let options = &invocation.options;
    let handler = Terminal {
        verbose: options.verbose,
    };
    let outcome = match &invocation.server {
        Server::Url(url) => match http(url, options) {
            Ok(transport) => Session::connect(transport, config(options, Wire::Http), handler)
                .and_then(|mut s| ask(&mut s, &invocation.command)),
            Err(why) => return Outcome::Failed(why),
        },
        Server::Command(argv) => {
            let mut process = Process::new(&argv[0]);
            process.args(&argv[1..]);
            match StdioTransport::spawn(process) {
                Ok(transport) => Session::connect(
                    transport.with_timeout(options.timeout),
                    config(options, Wire::Stdio),
                    handler,
                )
                .and_then(|mut s| ask(&mut s, &invocation.command)),
                Err(e) => return Outcome::Failed(format!("{}: {e}", argv[0])),
            }
        }
    };
    match outcome {
        Ok(outcome) => outcome,
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

fn to_json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The one request, on a connected session.
fn ask<T: Transport, H: Handler + Send>(
    session: &mut Session<T, H>,
    command: &Command,
) -> Result<Outcome, Error> {
    let answer = match command {
        Command::List(Listing::Tools) => to_json(session.list_tools()?),
        Command::List(Listing::Resources) => to_json(session.list_resources()?),
        Command::List(Listing::Templates) => to_json(session.list_resource_templates()?),
        Command::List(Listing::Prompts) => to_json(session.list_prompts()?),
        Command::Call { tool, arguments } => {
            let result = session.call_tool(tool, arguments.clone())?;
            let failed = result.is_error == Some(true);
            let result = to_json(result);
            return Ok(match failed {
                true => Outcome::ToolError(result),
                false => Outcome::Answer(result),
            });
        }
        Command::Read { uri } => to_json(session.read_resource(uri)?),
        Command::Prompt { name, arguments } => {
            to_json(session.get_prompt(name, arguments.clone())?)
        }
        Command::Info => {
            let client = session.client();
            let server = client.server();
            json!({
                "protocolVersion": client.version(),
                "supportedVersions": server.versions,
                "serverInfo": server.info,
                "capabilities": server.capabilities,
            })
        }
    };
    Ok(Outcome::Answer(answer))
}
