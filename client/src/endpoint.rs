//! An `http://` or `https://` endpoint as a transport reaches it.

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};

use crate::error::TransportError;

/// Where the POSTs go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Endpoint {
    /// `host[:port]` as the `Host` field carries it.
    pub authority: String,
    /// The host and port, resolved at each new connection.
    pub address: Address,
    /// Path and query.
    pub target: String,
    /// `https://`: the host as TLS names it (SNI, and the name the
    /// certificate must carry); `None` for `http://`.
    pub tls_name: Option<rustls::pki_types::ServerName<'static>>,
}

impl Endpoint {
    /// `http://host[:port]/path[?query]`, or `https://` (port 443 unless
    /// given); any other scheme is refused.
    pub fn parse(endpoint: &str) -> Result<Self, TransportError> {
        let url = url::Url::parse(endpoint).map_err(|e| TransportError::Url(e.to_string()))?;
        let tls = match url.scheme() {
            "http" => false,
            "https" => true,
            other => {
                return Err(TransportError::Url(format!(
                    "scheme {other:?} is not supported (http or https)"
                )))
            }
        };
        let host = url
            .host_str()
            .ok_or_else(|| TransportError::Url(String::from("no host")))?;
        let port = url
            .port_or_known_default()
            .unwrap_or(if tls { 443 } else { 80 });
        let authority = match url.port() {
            Some(p) => format!("{host}:{p}"),
            None => String::from(host),
        };
        // `[::1]` in a URL is `::1` to the resolver.
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let tls_name = match tls {
            false => None,
            true => Some(
                rustls::pki_types::ServerName::try_from(bare.to_owned())
                    .map_err(|e| TransportError::Url(format!("TLS server name {bare:?}: {e}")))?,
            ),
        };
        let mut target = String::from(url.path());
        if let Some(q) = url.query() {
            target.push('?');
            target.push_str(q);
        }
        Ok(Endpoint {
            authority,
            address: Address {
                host: bare.to_owned(),
                port,
            },
            target,
            tls_name,
        })
    }
}

/// A host and port, looked up anew for each connection: a server that
/// moves to another address (a DNS change, a failover) is found at the next
/// connection, not held to the address the transport was made with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Address {
    /// The host as the resolver takes it (`::1`, not `[::1]`).
    pub host: String,
    pub port: u16,
}

impl Address {
    /// The addresses the host resolves to now (the system's resolver,
    /// which blocks).
    pub fn resolve(&self) -> io::Result<Vec<SocketAddr>> {
        let addrs: Vec<SocketAddr> = (self.host.as_str(), self.port).to_socket_addrs()?.collect();
        if addrs.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} resolves to no address", self.host),
            ));
        }
        Ok(addrs)
    }
}
