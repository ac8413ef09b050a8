//! TLS for `https://` endpoints, on rustls (ring provider): which roots a
//! server's certificate must chain to, and the connection each transport
//! runs HTTP/1.1 over (`basic/transports/streamable-http.mdx` § Security
//! Warning: servers are reached over HTTPS beyond loopback).
//!
//! rustls checks the certificate chain against the roots and the
//! endpoint's host name (sent as SNI) against the certificate; a failure
//! is [`TransportError::Tls`](crate::TransportError::Tls), saying why.
//! ALPN: the blocking [`HttpTransport`](crate::HttpTransport) offers
//! `http/1.1` only (it speaks HTTP/1.1, and a server that would have
//! offered `h2` still speaks it). The async transports offer `h2` then
//! `http/1.1` when the feature `http2` is on, and speak HTTP/2 when the
//! server picks it; [`TlsConfig::http1_only`] has them offer `http/1.1`
//! alone (a server whose HTTP/2 is broken, a test of the HTTP/1.1 path).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

/// Which servers a transport trusts over `https://`.
#[derive(Clone, Debug)]
pub struct TlsConfig {
    roots: RootCertStore,
    /// The async transports offer `h2` by ALPN (feature `http2`).
    offer_h2: bool,
}

impl Default for TlsConfig {
    /// The web's roots ([`TlsConfig::webpki_roots`]).
    fn default() -> Self {
        TlsConfig::webpki_roots()
    }
}

impl TlsConfig {
    /// Mozilla's root program, as the `webpki-roots` crate carries it:
    /// the roots a browser trusts, the same on every machine.
    pub fn webpki_roots() -> Self {
        let mut roots = RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        TlsConfig {
            roots,
            offer_h2: cfg!(feature = "http2"),
        }
    }

    /// The platform's roots: the system's certificate store on macOS and
    /// Windows, the distribution's bundle on Linux (or the file and
    /// directory `SSL_CERT_FILE` and `SSL_CERT_DIR` name), as
    /// `rustls-native-certs` finds them: for a server whose certificate
    /// chains to a root the machine's administrator added (a corporate
    /// CA). Certificates that do not load are skipped; `Err` only when
    /// none does.
    pub fn platform_roots() -> Result<Self, rustls::Error> {
        let found = rustls_native_certs::load_native_certs();
        let mut roots = RootCertStore::empty();
        let (added, _) = roots.add_parsable_certificates(found.certs);
        if added == 0 {
            let why = match found.errors.first() {
                Some(e) => format!("no platform root certificate loaded: {e}"),
                None => String::from("no platform root certificate found"),
            };
            return Err(rustls::Error::General(why));
        }
        Ok(TlsConfig {
            roots,
            offer_h2: cfg!(feature = "http2"),
        })
    }

    /// No roots at all: only those added with
    /// [`with_root_certificate`](Self::with_root_certificate) are trusted
    /// (a private CA's servers, and nothing else).
    pub fn no_roots() -> Self {
        TlsConfig {
            roots: RootCertStore::empty(),
            offer_h2: cfg!(feature = "http2"),
        }
    }

    /// Trust `der` (a DER-encoded root CA certificate) as well.
    pub fn with_root_certificate(mut self, der: &[u8]) -> Result<Self, rustls::Error> {
        self.roots.add(CertificateDer::from(der.to_vec()))?;
        Ok(self)
    }

    /// Trust every certificate of `pem` (one or more `CERTIFICATE`
    /// blocks) as a root CA as well.
    pub fn with_root_pem(mut self, pem: &[u8]) -> Result<Self, rustls::Error> {
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| rustls::Error::General(format!("PEM: {e}")))?;
            self.roots.add(cert)?;
            added += 1;
        }
        if added == 0 {
            return Err(rustls::Error::General(String::from(
                "PEM: no CERTIFICATE block",
            )));
        }
        Ok(self)
    }

    /// Offer `http/1.1` alone by ALPN on the async transports, even with
    /// the feature `http2` on: they then speak HTTP/1.1 to every server
    /// (one connection per request in flight, as without the feature). By
    /// default they offer `h2` first and speak HTTP/2 to a server that
    /// picks it (every request a stream of one connection). No effect on
    /// the blocking transport, which offers `http/1.1` alone anyway.
    pub fn http1_only(mut self) -> Self {
        self.offer_h2 = false;
        self
    }

    /// Whether the async transports offer `h2` by ALPN: the feature
    /// `http2` is on and [`http1_only`](Self::http1_only) was not called.
    pub fn offers_http2(&self) -> bool {
        self.offer_h2
    }

    /// The rustls configuration: these roots, no client certificate,
    /// ALPN `http/1.1`. What the blocking transport uses, and for other
    /// HTTP clients that should trust the same servers (the OAuth client's
    /// `UreqHttp::with_tls`, which speaks HTTP/1.1 alone, so `h2` is never
    /// offered here).
    pub fn rustls_config(&self) -> Arc<ClientConfig> {
        self.rustls_config_offering(&[b"http/1.1"])
    }

    /// The async transports' configuration: `h2` and `http/1.1` by ALPN
    /// when [`offers_http2`](Self::offers_http2), else `http/1.1`.
    #[cfg_attr(
        not(any(feature = "tokio", feature = "smol", feature = "threads")),
        allow(dead_code)
    )]
    pub(crate) fn async_rustls_config(&self) -> Arc<ClientConfig> {
        if self.offer_h2 {
            self.rustls_config_offering(&[b"h2", b"http/1.1"])
        } else {
            self.rustls_config()
        }
    }

    fn rustls_config_offering(&self, alpn: &[&[u8]]) -> Arc<ClientConfig> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("ring supports the default versions")
            .with_root_certificates(self.roots.clone())
            .with_no_client_auth();
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Arc::new(config)
    }
}

/// What a transport needs to open TLS to one endpoint.
#[derive(Clone, Debug)]
pub(crate) struct TlsTarget {
    pub config: Arc<ClientConfig>,
    /// The host as SNI names it and the certificate must.
    pub name: ServerName<'static>,
}

impl TlsTarget {
    /// Whether ALPN offers `h2` (the async transports, feature `http2`).
    #[cfg(all(
        feature = "http2",
        any(feature = "tokio", feature = "smol", feature = "threads")
    ))]
    pub fn offers_h2(&self) -> bool {
        self.config.alpn_protocols.iter().any(|p| p == b"h2")
    }

    /// A new client connection (nothing sent yet).
    pub fn connection(&self) -> io::Result<ClientConnection> {
        ClientConnection::new(self.config.clone(), self.name.clone()).map_err(tls_error)
    }
}

/// `error` as the `io::Error` the byte streams carry; the transports turn
/// it back into [`TransportError::Tls`](crate::TransportError::Tls).
pub(crate) fn tls_error(error: rustls::Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, error)
}

/// A blocking connection, plain or TLS.
pub(crate) enum Conn {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Conn {
    /// The socket under it (timeouts, shutdown).
    pub fn socket(&self) -> &TcpStream {
        match self {
            Conn::Plain(s) => s,
            Conn::Tls(s) => s.get_ref(),
        }
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.read(buf),
            // A server that closes without `close_notify` (many do, after
            // a framed answer) is at its end: the HTTP framing, not the
            // TLS close, says whether the answer was whole.
            Conn::Tls(s) => match s.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(0),
                other => other,
            },
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.write(buf),
            Conn::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Conn::Plain(s) => s.flush(),
            Conn::Tls(s) => s.flush(),
        }
    }
}
